//! The cloud columns of `jobs.csv`, present only when the run had the cloud model:
//! `class` (with job classes), `dataset`, `staged_gb`, `staging_s`, `transfer_usd` (with
//! datasets), `racks`, `speed_factor`, `speed` (with fabrics or a throughput table).

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
