//! The spot-deadline part of `gpufleet run`: a scenario's `[spot_deadline]` section is run
//! with every policy and written to `spot_deadline.csv` in the run folder.

use super::CliError;
use crate::report::write_atomic;
use crate::sched::spot_deadline::{run_spec, DeadlineRow, DeadlineSpec};
use anyhow::anyhow;
use std::path::Path;

/// Runs the deadline policies of `spec` and writes `dir/spot_deadline.csv`.
pub fn write_deadline(spec: &DeadlineSpec, dir: &Path) -> Result<Vec<DeadlineRow>, CliError> {
    let rows = run_spec(spec).map_err(|e| CliError::BadInput(anyhow!("{e}")))?;
    let mut w = csv::Writer::from_writer(Vec::new());
    let io = |e: csv::Error| CliError::Failure(anyhow!("spot_deadline.csv: {e}"));
    w.write_record([
        "start_tick",
        "policy",
        "cost_usd",
        "met_deadline",
        "finished_h",
        "spot_h",
        "on_demand_h",
    ])
    .map_err(io)?;
    for r in &rows {
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
        ])
        .map_err(io)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| CliError::Failure(anyhow!("spot_deadline.csv: {e}")))?;
    write_atomic(&dir.join("spot_deadline.csv"), &bytes)
        .map_err(|e| CliError::Failure(anyhow!("writing spot_deadline.csv: {e}")))?;
    Ok(rows)
}

/// Prints the mean cost and deadline misses per policy.
pub fn print_deadline(rows: &[DeadlineRow]) {
    println!("spot deadline job (mean over start times):");
    let mut names: Vec<&str> = Vec::new();
    for r in rows {
        if !names.contains(&r.policy) {
            names.push(r.policy);
        }
    }
    let od: Vec<f64> = rows
        .iter()
        .filter(|r| r.policy == "on_demand_only")
        .map(|r| r.cost_usd)
        .collect();
    let od_mean = od.iter().sum::<f64>() / od.len().max(1) as f64;
    for n in names {
        let mine: Vec<&DeadlineRow> = rows.iter().filter(|r| r.policy == n).collect();
        let mean = mine.iter().map(|r| r.cost_usd).sum::<f64>() / mine.len().max(1) as f64;
        let missed = mine.iter().filter(|r| !r.met).count();
        println!(
            "  {:<18} ${:>9.2}  saves {:>5.1} % vs on-demand  missed {}/{}",
            n,
            mean,
            if od_mean > 0.0 {
                (1.0 - mean / od_mean) * 100.0
            } else {
                0.0
            },
            missed,
            mine.len()
        );
    }
}
