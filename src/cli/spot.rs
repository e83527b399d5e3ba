//! The spot-deadline part of `gpufleet run`'s terminal summary (the evaluation itself and
//! `spot_deadline.csv` come from [`crate::run::write_folder`]).

use crate::sched::spot_deadline::DeadlineRow;

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
