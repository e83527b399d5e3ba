//! The cloud columns of `jobs.csv`, present only when the run had the cloud model:
//! `class` (with job classes), `dataset`, `staged_gb`, `staging_s`, `transfer_usd` (with
//! datasets), `racks`, `speed_factor`, `speed` (with fabrics or a throughput table); the
//! same as typed columns for the Parquet table (`columns`).

use super::columns::{col, round, secs, Column, Values};
use crate::model::Workload;
use crate::sim::RunResult;

fn f(x: f64) -> String {
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

fn has_classes(w: &Workload, r: &RunResult) -> bool {
    r.cloud.is_some() && !w.classes.is_empty()
}

/// The extra column names.
pub(crate) fn header(w: &Workload, r: &RunResult) -> Vec<&'static str> {
    let mut h = Vec::new();
    let Some(c) = &r.cloud else { return h };
    if has_classes(w, r) {
        h.push("class");
    }
    if c.data {
        h.extend(["dataset", "staged_gb", "staging_s", "transfer_usd"]);
    }
    if c.spread {
        h.extend(["racks", "speed_factor", "speed"]);
    }
    h
}

/// Job `i`'s extra cells.
pub(crate) fn row(w: &Workload, r: &RunResult, i: usize) -> Vec<String> {
    let mut v = Vec::new();
    let Some(c) = &r.cloud else { return v };
    let job = &w.jobs[i];
    let rec = c.jobs.get(i).copied().unwrap_or_default();
    let ran = r.jobs.get(i).is_some_and(|x| x.start.is_some());
    if has_classes(w, r) {
        v.push(
            job.tags
                .class
                .and_then(|k| w.classes.get(k as usize).cloned())
                .unwrap_or_default(),
        );
    }
    if c.data {
        v.push(
            job.tags
                .dataset
                .and_then(|k| w.datasets.get(k as usize).cloned())
                .unwrap_or_default(),
        );
        v.push(f(rec.staged_gb));
        v.push(rec.staging.secs_text());
        v.push(format!("{:.4}", rec.transfer_usd + 0.0));
    }
    if c.spread {
        if ran {
            v.push(rec.racks.to_string());
            v.push(f(rec.speed_factor));
            v.push(f(rec.speed));
        } else {
            v.extend([String::new(), String::new(), String::new()]);
        }
    }
    v
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
