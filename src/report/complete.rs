//! The completion manifest `complete.json`: written last into every output folder (run,
//! sweep and its shards, merge, compare, plan, TCO, FGD experiment, placement comparison),
//! it lists each data file of the folder with its size and CRC-32 (the checksum of
//! `zlib.crc32`, so a notebook checks it without gpufleet). A reader ([`check_complete`],
//! used by `gpufleet plot`) then tells a folder that lost a file, holds a truncated one or
//! one changed since from a complete one, naming the file. Commands that write their folder
//! in place (sweep, merge, plan) remove the manifest first ([`remove_complete`]), so a
//! folder killed half-way has none. Charts (`.svg`, `.png`) are left out: `plot` redraws
//! them from the data files.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The manifest's file name.
pub const COMPLETE: &str = "complete.json";

/// The largest manifest read (a folder lists a few dozen files; more is not a manifest).
const MAX_COMPLETE_BYTES: u64 = 1 << 20;

/// Why a folder is not whole.
#[derive(Debug, thiserror::Error)]
pub enum CompleteError {
    /// A file listed is missing, truncated or changed, or the manifest is damaged (bad input).
    #[error("{}: {reason}", path.display())]
    Damaged {
        /// The file at fault.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A file cannot be read (the environment).
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// Size and CRC-32 of the file at `path`, read in blocks (a file of gigabytes is not held).
fn size_and_crc(path: &Path) -> std::io::Result<(u64, u32)> {
    let mut f = std::fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    let (mut n, mut c) = (0u64, crc32fast::Hasher::new());
    loop {
        let k = f.read(&mut buf)?;
        if k == 0 {
            break;
        }
        c.update(&buf[..k]);
        n += k as u64;
    }
    Ok((n, c.finalize()))
}

/// True for a file the manifest lists: a visible data file, not a chart, a temporary or the
/// manifest itself.
pub fn is_data_file(name: &str) -> bool {
    !name.starts_with('.')
        && name != COMPLETE
        && ![".svg", ".png", ".tmp"].iter().any(|x| name.ends_with(x))
}

/// Writes `dir/complete.json` listing every data file directly in `dir` (sorted by name),
/// through a temporary file and a rename. Call it once every other file is in place.
pub fn write_complete(dir: &Path) -> std::io::Result<()> {
    write_complete_known(dir, &[])
}

/// [`write_complete`], taking the size and checksum of the files in `known` as their
/// writer worked them out ([`super::FileSum`]) instead of reading them back: a
/// million-job `jobs.csv` written around the page cache would otherwise be read from the
/// device again (176 MB, 0.12-0.14 s at the end of every run). A file whose length is
/// not the one known is read as any other.
pub fn write_complete_known(dir: &Path, known: &[(String, super::FileSum)]) -> std::io::Result<()> {
    let mut names: Vec<String> = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type()?.is_file() && is_data_file(&name) {
            names.push(name);
        }
    }
    names.sort();
    let mut files = Vec::with_capacity(names.len());
    for name in names {
        let path = dir.join(&name);
        let sum = known.iter().find(|k| k.0 == name).map(|k| k.1);
        let (bytes, crc) = match sum {
            Some(k) if std::fs::metadata(&path)?.len() == k.bytes => (k.bytes, k.crc32),
            _ => size_and_crc(&path)?,
        };
        files.push(serde_json::json!({
            "name": name,
            "bytes": bytes,
            "crc32": format!("{crc:08x}"),
        }));
    }
    let doc = serde_json::json!({
        "gpufleet_version": crate::VERSION,
        "files": files,
    });
    let mut text = serde_json::to_vec_pretty(&doc).map_err(std::io::Error::other)?;
    text.push(b'\n');
    super::write_atomic(&dir.join(COMPLETE), &text)
}

/// The names `dir/complete.json` lists, or `None` when it has none (or it cannot be read as
/// one): what a command may replace in `dir` as its own output.
pub fn complete_names(dir: &Path) -> Option<Vec<String>> {
    let text = crate::workload::read_small_text(&dir.join(COMPLETE), MAX_COMPLETE_BYTES).ok()?;
    let doc: serde_json::Value = serde_json::from_str(&text).ok()?;
    doc["files"]
        .as_array()?
        .iter()
        .map(|f| f["name"].as_str().map(String::from))
        .collect()
}

/// Removes `dir/complete.json`, if any: a command about to rewrite `dir` in place says
/// first that the folder is no longer whole.
pub fn remove_complete(dir: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(dir.join(COMPLETE)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Checks `dir` against its `complete.json`: `Ok(false)` when it has none (a folder of an
/// older gpufleet, or one whose command did not finish: the caller checks what it needs),
/// `Ok(true)` when every file listed is there with its size and checksum, and an error
/// naming the first file that is missing, truncated or changed (or a damaged manifest).
pub fn check_complete(dir: &Path) -> Result<bool, CompleteError> {
    let path = dir.join(COMPLETE);
    let damaged = |path: PathBuf, reason: String| CompleteError::Damaged { path, reason };
    let text = match crate::workload::read_small_text(&path, MAX_COMPLETE_BYTES) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            return Err(damaged(path, e.to_string()))
        }
        Err(source) => return Err(CompleteError::Io { path, source }),
    };
    let doc: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| damaged(path.clone(), e.to_string()))?;
    let files = doc["files"].as_array().ok_or_else(|| {
        damaged(
            path.clone(),
            "no `files` list (changed by hand? rerun the command)".into(),
        )
    })?;
    for (i, f) in files.iter().enumerate() {
        let entry = (f["name"].as_str(), f["bytes"].as_u64(), f["crc32"].as_str());
        let (Some(name), Some(bytes), Some(crc)) = entry else {
            return Err(damaged(
                path.clone(),
                format!("files[{i}]: needs a name, bytes and crc32 (changed by hand? rerun the command)"),
            ));
        };
        if name.is_empty() || name.contains(['/', '\\']) || name == ".." || name == "." {
            return Err(damaged(
                path.clone(),
                format!("files[{i}]: {name:?} is not a file of this folder"),
            ));
        }
        let file = dir.join(name);
        let what = match std::fs::metadata(&file) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(format!(
                "missing: {COMPLETE} lists it, so the folder is incomplete (rerun the command that wrote it)"
            )),
            Err(source) => return Err(CompleteError::Io { path: file, source }),
            Ok(m) if !m.is_file() => Some(format!("not a file, but {COMPLETE} lists a file")),
            Ok(m) if m.len() != bytes => Some(format!(
                "{} bytes, but {COMPLETE} says {bytes} were written ({}): rerun the command that wrote the folder",
                m.len(),
                if m.len() < bytes {
                    "truncated"
                } else {
                    "changed since"
                }
            )),
            Ok(_) => match size_and_crc(&file) {
                Err(source) => return Err(CompleteError::Io { path: file, source }),
                Ok((_, c)) if format!("{c:08x}") != crc.to_ascii_lowercase() => Some(format!(
                    "changed since it was written (CRC-32 {c:08x}, {COMPLETE} says {crc}): rerun the command that wrote the folder"
                )),
                Ok(_) => None,
            },
        };
        if let Some(reason) = what {
            return Err(damaged(file, reason));
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_is_zlibs() {
        // zlib.crc32(b"123456789") == 0xcbf43926, the standard check value.
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a"), "123456789").unwrap();
        assert_eq!(size_and_crc(&d.path().join("a")).unwrap(), (9, 0xcbf4_3926));
    }

    #[test]
    fn a_missing_truncated_or_changed_file_is_named() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path();
        assert!(!check_complete(p).unwrap(), "no manifest yet");
        std::fs::write(p.join("a.csv"), "x,y\n1,2\n").unwrap();
        std::fs::write(p.join("b.json"), "{}\n").unwrap();
        std::fs::write(p.join("c.svg"), "<svg/>").unwrap();
        write_complete(p).unwrap();
        assert!(check_complete(p).unwrap());
        // A chart is not listed: redrawn freely.
        std::fs::write(p.join("c.svg"), "<svg></svg>").unwrap();
        assert!(check_complete(p).unwrap());
        std::fs::write(p.join("a.csv"), "x,y\n1,3\n").unwrap();
        let e = check_complete(p).unwrap_err().to_string();
        assert!(e.contains("a.csv") && e.contains("changed"), "{e}");
        std::fs::write(p.join("a.csv"), "x,y\n").unwrap();
        let e = check_complete(p).unwrap_err().to_string();
        assert!(e.contains("a.csv") && e.contains("truncated"), "{e}");
        std::fs::write(p.join("a.csv"), "x,y\n1,2\n").unwrap();
        std::fs::remove_file(p.join("b.json")).unwrap();
        let e = check_complete(p).unwrap_err().to_string();
        assert!(e.contains("b.json") && e.contains("missing"), "{e}");
        remove_complete(p).unwrap();
        remove_complete(p).unwrap();
        assert!(!check_complete(p).unwrap());
    }
}
