//! One replication's figures: the summary's numeric leaves (as a sweep records them),
//! zeros for the pools a fleet leaves out, and the figures the plan computes from the
//! jobs (tail shares of the censored wait and completion time, deadline misses).

use super::types::{Derived, PlanSpec};
use crate::run::Execution;
use crate::sim::JobOutcome;
use crate::sweep::{flatten_summary, fmt6};

/// The figures of one replication, in a fixed order: `(column, value as written)`.
pub fn replication_metrics(
    spec: &PlanSpec,
    e: &Execution,
    left_out: &[String],
) -> Vec<(String, String)> {
    let mut out = flatten_summary(&e.summary);
    // A pool left out costs nothing and does nothing; its columns say so.
    for name in left_out {
        for prefix in ["cost_usd", "cost_per_busy_gpu_hour_by_pool_usd"] {
            out.push((format!("{prefix}_{name}"), "0".into()));
        }
    }
    let mut derived: Vec<(&str, &Derived)> = spec
        .targets
        .iter()
        .filter_map(|t| t.derived.as_ref().map(|d| (t.key.as_str(), d)))
        .collect();
    derived.dedup_by(|a, b| a.0 == b.0);
    for (key, d) in derived {
        if out.iter().any(|(k, _)| k == key) {
            continue;
        }
        out.push((key.to_string(), fmt6(derived_value(e, d))));
        if matches!(d, Derived::DeadlineMissed) {
            out.push(("deadline_jobs".into(), deadline_jobs(e).to_string()));
        }
    }
    out
}

/// The value of `key` in a replication's figures.
pub fn lookup(metrics: &[(String, String)], key: &str) -> Option<f64> {
    metrics
        .iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, v)| v.parse::<f64>().ok())
}

/// Jobs with a deadline among the submitted ones.
fn deadline_jobs(e: &Execution) -> u64 {
    e.result
        .jobs
        .iter()
        .zip(&e.workload.jobs)
        .filter(|(r, j)| r.submitted && j.deadline.is_some())
        .count() as u64
}

/// A derived figure, with the summary's censoring rule: jobs that could never fit the
/// cluster (rejected) are left out, as in `wait_all_s`; a job still open at the end of the
/// run counts its time up to the end.
fn derived_value(e: &Execution, d: &Derived) -> f64 {
    let r = &e.result;
    let jobs = r.jobs.iter().zip(&e.workload.jobs);
    match d {
        Derived::Over { of, secs } => {
            let (mut n, mut over) = (0u64, 0u64);
            for (rec, j) in jobs {
                if !rec.submitted || rec.outcome == JobOutcome::Rejected {
                    continue;
                }
                let until = if of == "wait_all_s" {
                    rec.start
                } else {
                    match rec.outcome {
                        JobOutcome::Completed | JobOutcome::Failed => rec.end,
                        _ => None,
                    }
                };
                let t = until.unwrap_or(r.end).since(j.submit).secs_f64();
                n += 1;
                if t > *secs {
                    over += 1;
                }
            }
            if n == 0 {
                0.0
            } else {
                over as f64 / n as f64
            }
        }
        Derived::DeadlineMissed => {
            let (mut n, mut missed) = (0u64, 0u64);
            for (rec, j) in jobs {
                let (true, Some(deadline)) = (rec.submitted, j.deadline) else {
                    continue;
                };
                n += 1;
                let met = rec.outcome == JobOutcome::Completed
                    && rec.end.is_some_and(|end| end <= deadline);
                if !met {
                    missed += 1;
                }
            }
            if n == 0 {
                0.0
            } else {
                missed as f64 / n as f64
            }
        }
    }
}
