//! The durable record of one finished run: a small text file written atomically (temporary
//! name, then rename) and ending with a checksum of everything before it, so a torn or
//! half-written record is recognised and the run redone.

use crate::scenario::text_hash;
use std::path::{Path, PathBuf};

/// What one run produced, as written to `runs.csv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Run number.
    pub run: usize,
    /// Point number.
    pub point: usize,
    /// Seed.
    pub seed: u64,
    /// (parameter path, value) in the sweep's order.
    pub params: Vec<(String, String)>,
    /// (metric, value as written), in the summary's order.
    pub metrics: Vec<(String, String)>,
}

const MAGIC: &str = "gpufleet-sweep-record 1";

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
}

fn unesc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some(o) => out.push(o),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The record file of run `id` in `dir`.
pub fn path_of(dir: &Path, id: usize) -> PathBuf {
    dir.join("runs").join(format!("run-{id:07}.rec"))
}

impl Record {
    /// The file's text, for the sweep with `hash`.
    pub fn to_text(&self, hash: &str) -> String {
        let mut s = format!(
            "{MAGIC}\nsweep {hash}\nrun {}\npoint {}\nseed {}\n",
            self.run, self.point, self.seed
        );
        for (k, v) in &self.params {
            s.push_str(&format!("param {}\t{}\n", esc(k), esc(v)));
        }
        for (k, v) in &self.metrics {
            s.push_str(&format!("metric {}\t{}\n", esc(k), esc(v)));
        }
        let sum = text_hash(&s);
        s.push_str(&format!("end {sum}\n"));
        s
    }

    /// Parses a record; `Err` says why it is not a whole, valid record of sweep `hash`.
    pub fn from_text(text: &str, hash: &str) -> Result<Record, String> {
        let body_end = text
            .trim_end_matches('\n')
            .rfind('\n')
            .map(|i| i + 1)
            .ok_or("truncated")?;
        let (body, last) = text.split_at(body_end);
        let sum = last
            .trim_end()
            .strip_prefix("end ")
            .ok_or("no end line (half-written)")?;
        if text_hash(body) != sum || !text.ends_with('\n') {
            return Err("checksum mismatch (half-written or damaged)".into());
        }
        let mut lines = body.lines();
        if lines.next() != Some(MAGIC) {
            return Err("not a gpufleet sweep record".into());
        }
        let mut r = Record {
            run: 0,
            point: 0,
            seed: 0,
            params: vec![],
            metrics: vec![],
        };
        for l in lines {
            let (k, v) = l.split_once(' ').ok_or("bad line")?;
            let pair = || -> Result<(String, String), String> {
                let (a, b) = v.split_once('\t').ok_or("bad pair")?;
                Ok((unesc(a), unesc(b)))
            };
            match k {
                "sweep" if v != hash => {
                    return Err(format!("belongs to another sweep ({v}, expected {hash})"))
                }
                "sweep" => {}
                "run" => r.run = v.parse().map_err(|_| "bad run")?,
                "point" => r.point = v.parse().map_err(|_| "bad point")?,
                "seed" => r.seed = v.parse().map_err(|_| "bad seed")?,
                "param" => r.params.push(pair()?),
                "metric" => r.metrics.push(pair()?),
                _ => return Err(format!("unknown line `{k}`")),
            }
        }
        Ok(r)
    }

    /// Writes the record atomically (temporary file, then rename).
    pub fn write(&self, dir: &Path, hash: &str) -> std::io::Result<()> {
        let path = path_of(dir, self.run);
        let tmp = path.with_extension("rec.tmp");
        std::fs::write(&tmp, self.to_text(hash))?;
        std::fs::rename(&tmp, &path)
    }

    /// Reads run `id`'s record from `dir`: `Ok(None)` if absent, `Err` if unusable.
    pub fn read(dir: &Path, id: usize, hash: &str) -> Result<Option<Record>, String> {
        let path = path_of(dir, id);
        match std::fs::read_to_string(&path) {
            Ok(t) => {
                let r =
                    Record::from_text(&t, hash).map_err(|e| format!("{}: {e}", path.display()))?;
                if r.run != id {
                    return Err(format!("{}: holds run {}", path.display(), r.run));
                }
                Ok(Some(r))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_detects_damage() {
        let r = Record {
            run: 3,
            point: 1,
            seed: 9,
            params: vec![("a\tb".into(), "x\ny".into())],
            metrics: vec![("m".into(), "1.5".into())],
        };
        let t = r.to_text("h");
        assert_eq!(Record::from_text(&t, "h").unwrap(), r);
        assert!(Record::from_text(&t, "other").is_err());
        for cut in [1, t.len() / 2, t.len() - 1] {
            assert!(Record::from_text(&t[..cut], "h").is_err(), "cut {cut}");
        }
        let flipped = t.replace("1.5", "1.6");
        assert!(Record::from_text(&flipped, "h").is_err());
    }
}
