//! `gpufleet sweep merge`: shard folders combined into one sweep folder identical to an
//! unsharded run, after checking that every run is present exactly once; the runs'
//! sketches come with their records, and per-job tables kept with `--keep-jobs` are copied.

use super::exec::{check_out, jobs_path};
use super::record::{path_of, Record};
use super::table::{read_manifest, write_manifest_file, write_tables};
use super::SweepError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Merges shard folders `dirs` into `out`; returns the number of runs.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<usize, SweepError> {
    let bad = SweepError::BadInput;
    if dirs.is_empty() {
        return Err(bad("sweep merge: give at least one shard folder".into()));
    }
    check_out(out)?;
    let manifest = read_manifest(&dirs[0]).map_err(|e| bad(e.to_string()))?;
    let mut found: BTreeMap<usize, (Record, &Path)> = BTreeMap::new();
    let mut dups = Vec::new();
    for d in dirs {
        let m = read_manifest(d).map_err(|e| bad(e.to_string()))?;
        if m.hash != manifest.hash {
            return Err(bad(format!(
                "{}: belongs to sweep {} ({}), not {} ({})",
                d.display(),
                m.sweep,
                m.hash,
                manifest.sweep,
                manifest.hash
            )));
        }
        let rd = std::fs::read_dir(d.join("runs"))
            .map_err(|e| bad(format!("{}: {e}", d.join("runs").display())))?;
        let mut names: Vec<String> = rd
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".rec"))
            .collect();
        names.sort();
        for n in names {
            let id: usize = n
                .trim_start_matches("run-")
                .trim_end_matches(".rec")
                .parse()
                .map_err(|_| bad(format!("{}: unexpected file {n}", d.display())))?;
            let rec = Record::read(d, id, &manifest.hash)
                .map_err(|e| bad(format!("{e}; rerun that shard with --resume")))?
                .ok_or_else(|| bad(format!("{}: vanished", path_of(d, id).display())))?;
            if id >= manifest.runs {
                return Err(bad(format!(
                    "{}: run {id} is beyond the sweep's {} runs",
                    path_of(d, id).display(),
                    manifest.runs
                )));
            }
            if let Some((_, other)) = found.get(&id) {
                dups.push(format!(
                    "run {id} in {} and {}",
                    other.display(),
                    d.display()
                ));
                continue;
            }
            found.insert(id, (rec, d.as_path()));
        }
    }
    if !dups.is_empty() {
        return Err(bad(format!(
            "sweep merge: {} run(s) present more than once:\n  {}",
            dups.len(),
            dups.join("\n  ")
        )));
    }
    let missing: Vec<usize> = (0..manifest.runs)
        .filter(|i| !found.contains_key(i))
        .collect();
    if !missing.is_empty() {
        let r = manifest.seeds.len().max(1);
        let list: Vec<String> = missing
            .iter()
            .take(50)
            .map(|i| format!("run {i} (point {}, seed {})", i / r, manifest.seeds[i % r]))
            .collect();
        return Err(bad(format!(
            "sweep merge: {} of {} runs missing{}:\n  {}",
            missing.len(),
            manifest.runs,
            if missing.len() > 50 {
                " (first 50)"
            } else {
                ""
            },
            list.join("\n  ")
        )));
    }
    let fail = |e: std::io::Error| SweepError::Failed(format!("writing {}: {e}", out.display()));
    std::fs::create_dir_all(out.join("runs")).map_err(fail)?;
    write_manifest_file(out, &manifest).map_err(fail)?;
    let _ = std::fs::remove_file(out.join("shard.json"));
    for (id, (r, d)) in &found {
        // Per-job tables kept with --keep-jobs come along (before the record, as in a run).
        for ext in ["csv", "parquet"] {
            let src = jobs_path(d, *id, ext);
            let dst = jobs_path(out, *id, ext);
            if src.is_file() && src != dst {
                std::fs::create_dir_all(out.join("jobs")).map_err(fail)?;
                std::fs::copy(&src, &dst).map_err(fail)?;
            }
        }
        r.write(out, &manifest.hash).map_err(fail)?;
    }
    let records: Vec<Record> = found.into_values().map(|(r, _)| r).collect();
    write_tables(out, &manifest.params, &records, true).map_err(fail)?;
    Ok(records.len())
}
