//! The sweep folder's tables: `sweep.json` (what the sweep is), `runs.csv` (one row per
//! run), `points.csv` (per point, the mean and 95 % confidence half-width of each
//! metric over its seeds, and percentiles of the distributions pooled over its seeds from
//! the runs' sketches) and `distributions.csv` (each point's pooled CDFs). Rows are in run order, so the bytes do not depend on threads,
//! shards or resumes.

use super::exec::Shard;
use super::plan::Plan;
use super::record::Record;
use super::stats::{ci95_half_width, mean};
use crate::metrics::{QuantileSketch, RunSketches, DISTRIBUTIONS, POOLED_QUANTILES};
use crate::report::write_atomic;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// `sweep.json`: the identity of a sweep, the same in every shard and in the merge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Sweep name.
    pub sweep: String,
    /// Hash of the expanded sweep (scenarios, seeds, parameters, version).
    pub hash: String,
    /// gpufleet version.
    pub gpufleet_version: String,
    /// Number of runs.
    pub runs: usize,
    /// Number of points.
    pub points: usize,
    /// Seeds of the repetitions.
    pub seeds: Vec<u64>,
    /// Parameter paths.
    pub params: Vec<String>,
    /// Parameter names on charts.
    #[serde(default)]
    pub labels: Vec<String>,
    /// Metrics the charts show.
    pub chart_metrics: Vec<String>,
    /// CDF charts on a log time axis (written only when set).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub log_x: bool,
}

/// Writes `sweep.json` (and `shard.json` for a shard).
pub fn write_manifest(plan: &Plan, out: &Path, shard: Option<Shard>) -> std::io::Result<()> {
    let m = Manifest {
        sweep: plan.name.clone(),
        hash: plan.hash.clone(),
        gpufleet_version: crate::VERSION.to_string(),
        runs: plan.runs(),
        points: plan.points.len(),
        seeds: plan.seeds.clone(),
        params: plan.params.clone(),
        labels: plan.labels.clone(),
        chart_metrics: plan.chart_metrics.clone(),
        log_x: plan.log_x,
    };
    if let Ok(old) = read_manifest(out) {
        if old.hash != m.hash {
            // Records of another sweep would be recognised and redone, but say so plainly.
            let _ = std::fs::remove_dir_all(out.join("runs"));
            let _ = std::fs::remove_dir_all(out.join("jobs"));
            std::fs::create_dir_all(out.join("runs"))?;
        }
    }
    write_manifest_file(out, &m)?;
    match shard {
        Some(s) => write_atomic(
            &out.join("shard.json"),
            format!("{{\n  \"shard\": \"{}/{}\"\n}}\n", s.k, s.n).as_bytes(),
        ),
        None => {
            let _ = std::fs::remove_file(out.join("shard.json"));
            Ok(())
        }
    }
}

pub(crate) fn write_manifest_file(out: &Path, m: &Manifest) -> std::io::Result<()> {
    let mut j = serde_json::to_vec_pretty(m).map_err(std::io::Error::other)?;
    j.push(b'\n');
    write_atomic(&out.join("sweep.json"), &j)
}

/// Removes what a sweep (or merge) is about to rewrite in `out`, the completion manifest
/// first: `complete.json`, the tables and the charts (records and kept job tables stay).
/// A sweep killed before its new tables are whole thus leaves no table of an earlier sweep
/// beside its `sweep.json`, and `gpufleet plot` refuses the folder (exit 2) rather than
/// draw the old figures under the new sweep's name.
pub(crate) fn clear_outputs(out: &Path) -> std::io::Result<()> {
    crate::report::remove_complete(out)?;
    let Ok(rd) = std::fs::read_dir(out) else {
        return Ok(());
    };
    for e in rd {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        let table = [
            "runs.csv",
            "points.csv",
            "distributions.csv",
            "runs.parquet",
            "points.parquet",
        ]
        .contains(&name.as_str());
        let chart = name.ends_with(".svg") || name.ends_with(".png");
        if (table || chart) && e.file_type()?.is_file() {
            std::fs::remove_file(e.path())?;
        }
    }
    Ok(())
}

/// A `sweep.json` that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not a sweep manifest.
    #[error("{path}: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },
    /// The manifest reads but no sweep could have written it (changed by hand?).
    #[error("{path}: {field}: {message} (changed by hand? rerun the sweep or that shard)")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The field at fault.
        field: &'static str,
        /// What is wrong with it.
        message: String,
    },
}

/// Reads `DIR/sweep.json` (at most [`crate::workload::MAX_SCENARIO_BYTES`]) and checks that
/// a sweep could have written it: at least one seed, at most
/// [`super::plan::MAX_POINTS`] points and [`super::plan::MAX_RUNS`] runs, and runs equal
/// to points times seeds (merge lists the runs it expects from these).
pub fn read_manifest(dir: &Path) -> Result<Manifest, ManifestError> {
    let path = dir.join("sweep.json");
    let t = match crate::workload::read_small_text(&path, crate::workload::MAX_SCENARIO_BYTES) {
        Ok(t) => t,
        Err(source) => return Err(ManifestError::Io { path, source }),
    };
    let m: Manifest = serde_json::from_str(&t).map_err(|source| ManifestError::Json {
        path: path.clone(),
        source,
    })?;
    let invalid = |field, message| ManifestError::Invalid {
        path: path.clone(),
        field,
        message,
    };
    if m.seeds.is_empty() {
        return Err(invalid("seeds", "no seeds".into()));
    }
    if m.points > super::plan::MAX_POINTS {
        return Err(invalid(
            "points",
            format!(
                "{} is more than a sweep has ({})",
                m.points,
                super::plan::MAX_POINTS
            ),
        ));
    }
    if m.runs as u64 > super::plan::MAX_RUNS {
        return Err(invalid(
            "runs",
            format!(
                "{} is more than a sweep has ({})",
                m.runs,
                super::plan::MAX_RUNS
            ),
        ));
    }
    if m.points.checked_mul(m.seeds.len()) != Some(m.runs) {
        return Err(invalid(
            "runs",
            format!(
                "{} is not {} points x {} seeds",
                m.runs,
                m.points,
                m.seeds.len()
            ),
        ));
    }
    Ok(m)
}

/// A float with at most 6 decimals, trailing zeros dropped down to one ("0.5", "2.0"):
/// always a decimal point, so a reader that infers types takes the column as floats.
pub fn fmt6(x: f64) -> String {
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0');
    match s {
        "-0." => "0.0".into(),
        _ if s.ends_with('.') => format!("{s}0"),
        _ => s.into(),
    }
}

/// Writes `runs.csv` and, when `points` is set, `points.csv` from records in run order.
pub fn write_tables(
    out: &Path,
    params: &[String],
    records: &[Record],
    points: bool,
) -> std::io::Result<()> {
    // Metric columns: every metric any run has, in order of first appearance.
    let mut metrics: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for r in records {
        for (k, _) in &r.metrics {
            if seen.insert(k.as_str()) {
                metrics.push(k.clone());
            }
        }
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut head: Vec<String> = vec!["run".into(), "point".into(), "seed".into()];
    head.extend(params.iter().cloned());
    head.extend(metrics.iter().cloned());
    w.write_record(&head)?;
    for r in records {
        let mut row = vec![r.run.to_string(), r.point.to_string(), r.seed.to_string()];
        row.extend(r.params.iter().map(|(_, v)| v.clone()));
        for m in &metrics {
            row.push(
                r.metrics
                    .iter()
                    .find(|(k, _)| k == m)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default(),
            );
        }
        w.write_record(&row)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    write_atomic(&out.join("runs.csv"), &bytes)?;
    if !points {
        return Ok(());
    }

    // Pooled distributions: only when the runs kept sketches.
    let pooled_cols = records.iter().any(|r| !r.sketches.is_empty());
    let mut dist = vec![crate::metrics::distribution_header("point")];
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut head: Vec<String> = vec!["point".into()];
    head.extend(params.iter().cloned());
    head.push("runs".into());
    for m in &metrics {
        head.push(format!("{m}_mean"));
        head.push(format!("{m}_ci95"));
    }
    if pooled_cols {
        for d in DISTRIBUTIONS {
            for (_, q) in POOLED_QUANTILES {
                head.push(format!("{d}_pooled_{q}"));
            }
        }
    }
    w.write_record(&head)?;
    let mut i = 0;
    while i < records.len() {
        let p = records[i].point;
        let j = i + records[i..].iter().take_while(|r| r.point == p).count();
        let group = &records[i..j];
        let mut row = vec![p.to_string()];
        row.extend(group[0].params.iter().map(|(_, v)| v.clone()));
        row.push(group.len().to_string());
        for m in &metrics {
            let xs: Vec<f64> = group
                .iter()
                .filter_map(|r| r.metrics.iter().find(|(k, _)| k == m))
                .filter_map(|(_, v)| v.parse::<f64>().ok())
                .collect();
            if xs.is_empty() {
                row.push(String::new());
                row.push(String::new());
            } else {
                row.push(fmt6(mean(&xs)));
                row.push(ci95_half_width(&xs).map(fmt6).unwrap_or_default());
            }
        }
        if pooled_cols {
            let runs = group
                .iter()
                .map(sketches_of)
                .collect::<std::io::Result<Vec<_>>>()?;
            let pooled = crate::metrics::pool(&runs);
            for s in &pooled {
                for (q, _) in POOLED_QUANTILES {
                    row.push(fmt6(s.quantile(q)));
                }
            }
            dist.extend(crate::metrics::distribution_rows(&p.to_string(), &pooled));
        }
        w.write_record(&row)?;
        i = j;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    write_atomic(&out.join("points.csv"), &bytes)?;
    if !pooled_cols {
        let _ = std::fs::remove_file(out.join("distributions.csv"));
        return Ok(());
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in dist {
        w.write_record(&r)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    write_atomic(&out.join("distributions.csv"), &bytes)
}

/// A record's sketches read back (a record is checksummed, so a bad one is a bug or a
/// record of a foreign writer: an error naming the run).
fn sketches_of(r: &Record) -> std::io::Result<RunSketches> {
    let mut out = RunSketches::default();
    for (name, text) in &r.sketches {
        let s = QuantileSketch::decode(text).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("run {}: sketch {name}: {e}", r.run),
            )
        })?;
        out.sketches.push((name.clone(), s));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::fmt6;

    #[test]
    fn means_always_carry_a_decimal_point() {
        // The mean of whole counts is a float column: "1007.0", never "1007".
        assert_eq!(fmt6(1007.0), "1007.0");
        assert_eq!(fmt6(0.0), "0.0");
        assert_eq!(fmt6(-0.0), "0.0");
        assert_eq!(fmt6(2.5), "2.5");
        assert_eq!(fmt6(2.0 / 3.0), "0.666667");
    }
}
