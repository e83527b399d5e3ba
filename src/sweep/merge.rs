//! `gpufleet sweep merge`: shard folders combined into one sweep folder identical to an
//! unsharded run, after checking that every run is present exactly once; the runs'
//! sketches come with their records, and per-job tables kept with `--keep-jobs` are copied.

use super::exec::{check_out, jobs_path};
use super::record::{path_of, Record};
use super::table::{clear_outputs, read_manifest, write_manifest_file, write_tables, Manifest};
use super::SweepError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why shard `m` (from `d`) cannot be merged with the first shard's manifest `first`, if
/// it cannot: another gpufleet version, another sweep, or the same sweep's file with other
/// values (the hash covers the scenarios, seeds, parameters and version).
fn mismatch(d: &Path, m: &Manifest, first: &Manifest, first_dir: &Path) -> Option<String> {
    let whose = |what: &str, a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| {
        Some(format!(
            "{}: {what} {a:?}, but {} has {b:?}: shards of one sweep only (rerun that shard)",
            d.display(),
            first_dir.display()
        ))
    };
    if m.gpufleet_version != crate::VERSION {
        return Some(format!(
            "{}: written by gpufleet {}, this is gpufleet {}: its runs may differ from this version's; rerun that shard with this gpufleet",
            d.display(),
            m.gpufleet_version,
            crate::VERSION
        ));
    }
    if m.sweep != first.sweep {
        return whose("is a shard of sweep", &m.sweep, &first.sweep);
    }
    if m.seeds != first.seeds {
        return whose("has seeds", &m.seeds, &first.seeds);
    }
    if m.params != first.params {
        return whose("varies", &m.params, &first.params);
    }
    if m.runs != first.runs {
        return whose("has runs", &m.runs, &first.runs);
    }
    if m.hash != first.hash {
        return whose(
            "is the same sweep name with another scenario or values (hash)",
            &m.hash,
            &first.hash,
        );
    }
    None
}

/// Merges shard folders `dirs` into `out`; returns the number of runs. Refused (bad input,
/// naming the shard and why): a folder given twice or as `out`, shards of different sweeps,
/// seeds, parameters, scenarios or gpufleet versions, a record that is not its run's
/// (another point or seed than its number says), and runs missing or present twice.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<usize, SweepError> {
    let bad = SweepError::BadInput;
    if dirs.is_empty() {
        return Err(bad("sweep merge: give at least one shard folder".into()));
    }
    check_out(out)?;
    let out_real = std::fs::canonicalize(out).ok();
    let mut real: Vec<(PathBuf, &Path)> = Vec::new();
    for d in dirs {
        let Ok(c) = std::fs::canonicalize(d) else {
            continue; // read_manifest names it below
        };
        if let Some((_, other)) = real.iter().find(|(r, _)| *r == c) {
            return Err(bad(format!(
                "sweep merge: {} is given twice (also as {}): each shard once",
                d.display(),
                other.display()
            )));
        }
        if out_real.as_ref() == Some(&c) {
            return Err(bad(format!(
                "sweep merge: --out {} is the shard folder {}: merge into a new folder",
                out.display(),
                d.display()
            )));
        }
        real.push((c, d.as_path()));
    }
    let manifest = read_manifest(&dirs[0]).map_err(|e| bad(e.to_string()))?;
    let r = manifest.seeds.len().max(1);
    let mut found: BTreeMap<usize, (Record, &Path)> = BTreeMap::new();
    let mut dups = Vec::new();
    for d in dirs {
        let m = read_manifest(d).map_err(|e| bad(e.to_string()))?;
        if let Some(why) = mismatch(d, &m, &manifest, &dirs[0]) {
            return Err(bad(why));
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
                .ok()
                .filter(|&id| path_of(d, id).file_name() == Some(std::ffi::OsStr::new(&n)))
                .ok_or_else(|| bad(format!("{}: unexpected file {n}", d.join("runs").display())))?;
            if id >= manifest.runs {
                return Err(bad(format!(
                    "{}: run {id} is beyond the sweep's {} runs",
                    path_of(d, id).display(),
                    manifest.runs
                )));
            }
            let rec = Record::read(d, id, &manifest.hash)
                .map_err(|e| bad(format!("{e}; rerun that shard with --resume")))?
                .ok_or_else(|| bad(format!("{}: vanished", path_of(d, id).display())))?;
            // A record whose checksum holds but whose point, seed or parameters are not
            // those of its run (changed by hand, with the checksum recomputed).
            let (point, seed) = (id / r, manifest.seeds[id % r]);
            let names_ok = rec.params.iter().map(|(k, _)| k).eq(manifest.params.iter());
            if rec.point != point || rec.seed != seed || !names_ok {
                return Err(bad(format!(
                    "{}: holds point {}, seed {} (parameters {:?}), but run {id} of sweep {} is point {point}, seed {seed} (parameters {:?}): changed by hand? rerun that shard",
                    path_of(d, id).display(),
                    rec.point,
                    rec.seed,
                    rec.params.iter().map(|(k, _)| k).collect::<Vec<_>>(),
                    manifest.sweep,
                    manifest.params
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
            "sweep merge: {} run(s) present more than once (shards overlap: the same shard twice, or shards of different --shard splits):\n  {}",
            dups.len(),
            dups.join("\n  ")
        )));
    }
    let missing: Vec<usize> = (0..manifest.runs)
        .filter(|i| !found.contains_key(i))
        .collect();
    if !missing.is_empty() {
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
    // `out` may hold an earlier merge: its tables go first (with complete.json), and so do
    // its records and job tables if they are another sweep's.
    clear_outputs(out).map_err(fail)?;
    if read_manifest(out).is_ok_and(|m| m.hash != manifest.hash) {
        for sub in ["runs", "jobs"] {
            match std::fs::remove_dir_all(out.join(sub)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(fail(e)),
                _ => {}
            }
        }
    }
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
    crate::report::write_complete(out).map_err(fail)?;
    Ok(records.len())
}
