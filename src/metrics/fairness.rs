//! Fairness across tenants: Jain's index over each tenant's mean slowdown.

use crate::model::Workload;
use crate::sim::{JobOutcome, RunResult};

/// Jain's fairness index of `x`: (sum x)^2 / (n * sum x^2); 1 when all are equal, 1/n
/// when one takes everything. 1 for an empty or all-zero sample.
pub fn jain_index(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let q: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || q == 0.0 {
        1.0
    } else {
        s * s / (x.len() as f64 * q)
    }
}

/// Mean slowdown per tenant (tenants with a completed job only, in tenant order): a job's
/// slowdown is its completion time over its run time, `(end - submit) / (end - start)`.
pub fn tenant_slowdowns(w: &Workload, r: &RunResult) -> Vec<f64> {
    let mut sum = vec![(0.0f64, 0u64); w.tenants.len().max(1)];
    for (i, rec) in r.jobs.iter().enumerate() {
        let (Some(start), Some(end)) = (rec.start, rec.end) else {
            continue;
        };
        if rec.outcome != JobOutcome::Completed {
            continue;
        }
        let run = end.since(start).secs_f64();
        if run <= 0.0 {
            continue;
        }
        let t = (w.jobs[i].tenant as usize).min(sum.len() - 1);
        sum[t].0 += end.since(w.jobs[i].submit).secs_f64() / run;
        sum[t].1 += 1;
    }
    sum.into_iter()
        .filter(|&(_, n)| n > 0)
        .map(|(s, n)| s / n as f64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_by_hand() {
        assert_eq!(jain_index(&[2.0, 2.0, 2.0]), 1.0);
        // (1 + 3)^2 / (2 * (1 + 9)) = 16 / 20
        assert!((jain_index(&[1.0, 3.0]) - 0.8).abs() < 1e-12);
        assert!((jain_index(&[5.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    }
}
