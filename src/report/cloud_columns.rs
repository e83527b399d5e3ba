//! The cloud columns of `jobs.csv`, present only when the run had the cloud model:
//! `class` (with job classes), `dataset`, `staged_gb`, `staging_s`, `transfer_usd` (with
//! datasets), `racks`, `speed_factor`, `speed` (with fabrics or a throughput table),
//! here as typed columns for the Parquet table (`columns`); the CSV's are in
//! `csv_columns::cloud_job_columns`.

use super::columns::{col, round, secs, Column, Values};
use crate::model::Workload;
use crate::sim::RunResult;

fn has_classes(w: &Workload, r: &RunResult) -> bool {
    r.cloud.is_some() && !w.classes.is_empty()
}

/// The extra columns of the typed `jobs` table over `rows` (job indices), with the CSV's
/// names, order and rounding: names are null where the CSV cell is empty.
pub(crate) fn columns(w: &Workload, r: &RunResult, rows: &[usize]) -> Vec<Column> {
    let mut out = Vec::new();
    let Some(c) = &r.cloud else { return out };
    let rec = |i: usize| c.jobs.get(i).copied().unwrap_or_default();
    let ran = |i: usize| r.jobs.get(i).is_some_and(|x| x.start.is_some());
    let name = |names: &[String], k: Option<u32>| {
        k.and_then(|k| names.get(k as usize).cloned())
            .filter(|n| !n.is_empty())
    };
    let floats = |f: &dyn Fn(usize) -> f64| Values::Float(rows.iter().map(|&i| f(i)).collect());
    let spread = |f: &dyn Fn(usize) -> f64| {
        Values::NullableFloat(
            rows.iter()
                .map(|&i| ran(i).then(|| round(f(i), 6)))
                .collect(),
        )
    };
    if has_classes(w, r) {
        let v = rows
            .iter()
            .map(|&i| name(&w.classes, w.jobs[i].tags.class.map(u32::from)))
            .collect();
        out.push(col("class", Values::NullableText(v)));
    }
    if c.data {
        let v = rows
            .iter()
            .map(|&i| name(&w.datasets, w.jobs[i].tags.dataset))
            .collect();
        out.push(col("dataset", Values::NullableText(v)));
        out.push(col("staged_gb", floats(&|i| round(rec(i).staged_gb, 6))));
        out.push(col("staging_s", floats(&|i| secs(rec(i).staging))));
        out.push(col(
            "transfer_usd",
            floats(&|i| round(rec(i).transfer_usd, 4)),
        ));
    }
    if c.spread {
        let racks = rows
            .iter()
            .map(|&i| ran(i).then(|| rec(i).racks as i64))
            .collect();
        out.push(col("racks", Values::NullableInt(racks)));
        out.push(col("speed_factor", spread(&|i| rec(i).speed_factor)));
        out.push(col("speed", spread(&|i| rec(i).speed)));
    }
    out
}
