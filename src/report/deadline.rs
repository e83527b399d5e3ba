//! `spot_deadline.csv`: the deadline policies of a `[spot_deadline]` section, one row per
//! start time and policy.

use super::write_atomic;
use crate::sched::spot_deadline::DeadlineRow;
use std::path::Path;

/// Writes `rows` to `path` (atomically).
pub fn write_deadline_csv(path: &Path, rows: &[DeadlineRow]) -> std::io::Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "start_tick",
        "policy",
        "cost_usd",
        "met_deadline",
        "finished_h",
        "spot_h",
        "on_demand_h",
    ])?;
    for r in rows {
        // The optimum is a cost, not a replayed schedule: its times are left empty.
        let h = |x: f64| {
            if r.policy == "optimum" {
                String::new()
            } else {
                format!("{x:.4}")
            }
        };
        w.write_record([
            r.start_tick.to_string(),
            r.policy.to_string(),
            format!("{:.4}", r.cost_usd),
            r.met.to_string(),
            h(r.finished_h),
            h(r.spot_h),
            h(r.on_demand_h),
        ])?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    write_atomic(path, &bytes)
}
