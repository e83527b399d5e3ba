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
    /// (distribution, encoded quantile sketch) of the run's jobs, in the order of
    /// [`crate::metrics::DISTRIBUTIONS`]; empty for records that keep none (plans).
    pub sketches: Vec<(String, String)>,
}

const MAGIC: &str = "gpufleet-sweep-record 1";

/// The largest record file read: 16 MiB (a record with its sketches is a few KB; a larger
/// file is damaged, and is not read into memory).
pub const MAX_RECORD_BYTES: u64 = 16 << 20;

/// Why a record's text is not a whole, valid record of its sweep.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// Less than two lines.
    #[error("truncated")]
    Truncated,
    /// No `end <checksum>` line.
    #[error("no end line (half-written)")]
    NoEnd,
    /// The checksum does not match the text.
    #[error("checksum mismatch (half-written or damaged)")]
    Checksum,
    /// The first line is not the record's magic line.
    #[error("not a gpufleet sweep record")]
    NotARecord,
    /// A line without a key.
    #[error("bad line")]
    BadLine,
    /// A `param` or `metric` line without its tab-separated pair.
    #[error("bad pair")]
    BadPair,
    /// The record of another sweep.
    #[error("belongs to another sweep ({found}, expected {expected})")]
    OtherSweep {
        /// Its sweep hash.
        found: String,
        /// The hash of this sweep.
        expected: String,
    },
    /// A `run`, `point` or `seed` line that is not a number.
    #[error("bad {0}")]
    BadNumber(&'static str),
    /// A line of an unknown kind.
    #[error("unknown line `{0}`")]
    UnknownLine(String),
    /// A `sketch` line whose quantile sketch cannot be read back.
    #[error("sketch {name}: {reason}")]
    BadSketch {
        /// The distribution.
        name: String,
        /// Why.
        reason: String,
    },
}

/// A record file that is there but cannot be used (the run is redone).
#[derive(Debug, thiserror::Error)]
pub enum ReadRecordError {
    /// The text is not a valid record of this sweep.
    #[error("{path}: {source}")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// Why.
        source: RecordError,
    },
    /// The record of another run.
    #[error("{path}: holds run {run}")]
    WrongRun {
        /// The file.
        path: PathBuf,
        /// The run it holds.
        run: usize,
    },
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

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
        for (k, v) in &self.sketches {
            s.push_str(&format!("sketch {}\t{}\n", esc(k), esc(v)));
        }
        let sum = text_hash(&s);
        s.push_str(&format!("end {sum}\n"));
        s
    }

    /// Parses a record; `Err` says why it is not a whole, valid record of sweep `hash`.
    pub fn from_text(text: &str, hash: &str) -> Result<Record, RecordError> {
        let body_end = text
            .trim_end_matches('\n')
            .rfind('\n')
            .map(|i| i + 1)
            .ok_or(RecordError::Truncated)?;
        let (body, last) = text.split_at(body_end);
        let sum = last
            .trim_end()
            .strip_prefix("end ")
            .ok_or(RecordError::NoEnd)?;
        if text_hash(body) != sum || !text.ends_with('\n') {
            return Err(RecordError::Checksum);
        }
        let mut lines = body.lines();
        if lines.next() != Some(MAGIC) {
            return Err(RecordError::NotARecord);
        }
        let mut r = Record {
            run: 0,
            point: 0,
            seed: 0,
            params: vec![],
            metrics: vec![],
            sketches: vec![],
        };
        for l in lines {
            let (k, v) = l.split_once(' ').ok_or(RecordError::BadLine)?;
            let pair = || -> Result<(String, String), RecordError> {
                let (a, b) = v.split_once('\t').ok_or(RecordError::BadPair)?;
                Ok((unesc(a), unesc(b)))
            };
            let bad = RecordError::BadNumber;
            match k {
                "sweep" if v != hash => {
                    return Err(RecordError::OtherSweep {
                        found: v.to_string(),
                        expected: hash.to_string(),
                    })
                }
                "sweep" => {}
                "run" => r.run = v.parse().map_err(|_| bad("run"))?,
                "point" => r.point = v.parse().map_err(|_| bad("point"))?,
                "seed" => r.seed = v.parse().map_err(|_| bad("seed"))?,
                "param" => r.params.push(pair()?),
                "metric" => r.metrics.push(pair()?),
                "sketch" => {
                    let (name, text) = pair()?;
                    if let Err(e) = crate::metrics::QuantileSketch::decode(&text) {
                        return Err(RecordError::BadSketch {
                            name,
                            reason: e.to_string(),
                        });
                    }
                    r.sketches.push((name, text));
                }
                _ => return Err(RecordError::UnknownLine(k.to_string())),
            }
        }
        Ok(r)
    }

    /// Writes the record atomically (temporary file, then rename; on a write error, as on
    /// a full disk, no temporary file is left).
    pub fn write(&self, dir: &Path, hash: &str) -> std::io::Result<()> {
        let path = path_of(dir, self.run);
        let tmp = path.with_extension("rec.tmp");
        let r =
            std::fs::write(&tmp, self.to_text(hash)).and_then(|()| std::fs::rename(&tmp, &path));
        if r.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        r
    }

    /// Reads run `id`'s record from `dir`: `Ok(None)` if absent, `Err` if unusable (a
    /// file of more than [`MAX_RECORD_BYTES`] is not read).
    pub fn read(dir: &Path, id: usize, hash: &str) -> Result<Option<Record>, ReadRecordError> {
        let path = path_of(dir, id);
        match crate::workload::read_small_text(&path, MAX_RECORD_BYTES) {
            Ok(t) => match Record::from_text(&t, hash) {
                Ok(r) if r.run != id => Err(ReadRecordError::WrongRun { path, run: r.run }),
                Ok(r) => Ok(Some(r)),
                Err(source) => Err(ReadRecordError::Damaged { path, source }),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(ReadRecordError::Io { path, source }),
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
            sketches: vec![("jct_all_s".into(), "0.01 1 0 0 1.5e0 41:1".into())],
        };
        let t = r.to_text("h");
        assert_eq!(Record::from_text(&t, "h").unwrap(), r);
        assert!(Record::from_text(&t, "other").is_err());
        for cut in [1, t.len() / 2, t.len() - 1] {
            assert!(Record::from_text(&t[..cut], "h").is_err(), "cut {cut}");
        }
        let flipped = t.replace("1.5", "1.6");
        assert!(Record::from_text(&flipped, "h").is_err());
        // A sketch whose counts do not add up (count 2, one value) is refused even under a
        // valid checksum, naming the distribution.
        let mut bad = r.clone();
        bad.sketches = vec![("jct_all_s".into(), "0.01 2 0 0 1.5e0 41:1".into())];
        match Record::from_text(&bad.to_text("h"), "h") {
            Err(RecordError::BadSketch { name, .. }) => assert_eq!(name, "jct_all_s"),
            other => panic!("{other:?}"),
        }
    }
}
