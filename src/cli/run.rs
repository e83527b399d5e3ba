//! `gpufleet run` and `gpufleet validate`.

use super::CliError;
use crate::run::RunError;
use crate::scenario::Scenario;
use anyhow::anyhow;
use std::path::{Path, PathBuf};

fn load(path: Option<&Path>) -> Result<Scenario, CliError> {
    let s = match path {
        Some(p) => Scenario::load(p),
        None => Scenario::builtin(),
    }
    .map_err(|e| CliError::BadInput(anyhow!("{e}")))?;
    for w in &s.warnings {
        eprintln!("warning: {w}");
    }
    Ok(s)
}

/// A run error with the exit code it deserves.
pub(super) fn run_error(e: RunError) -> CliError {
    if e.is_bad_input() {
        CliError::BadInput(anyhow!("{e}"))
    } else {
        CliError::Failure(anyhow!("{e}"))
    }
}

/// `gpufleet validate FILE`.
pub fn validate(path: &Path) -> Result<(), CliError> {
    let s = load(Some(path))?;
    // Reading the trace is part of validating: a bad row is a bad scenario.
    let w = s
        .build_workload(s.seed)
        .map_err(|e| CliError::BadInput(anyhow!("{e}")))?;
    if let Some(d) = &s.spot_deadline {
        crate::sched::spot_deadline::read_trace(d)
            .map_err(|e| CliError::BadInput(anyhow!("{e}")))?;
    }
    super::trace::report_drops(&w);
    println!(
        "{}: ok ({} pools, {} GPUs, {} jobs, policy {})",
        path.display(),
        s.sim.pools.len(),
        s.sim
            .pools
            .iter()
            .map(|p| p.nodes as u64 * p.node.gpus as u64)
            .sum::<u64>(),
        w.jobs.len(),
        s.sim.policy.as_str()
    );
    Ok(())
}

/// `gpufleet run [FILE] [--out DIR] [--seed N]`.
pub fn run(
    path: Option<&Path>,
    out: Option<PathBuf>,
    seed: Option<u64>,
    quiet: bool,
) -> Result<(), CliError> {
    let s = load(path)?;
    let seed = seed.unwrap_or(s.seed);
    let streams = crate::engine::RngStreams::new(seed);
    let exec = crate::run::execute(&s, &streams).map_err(run_error)?;
    super::trace::report_drops(&exec.workload);
    let wall = exec.sim_wall;
    let (result, summary) = (&exec.result, &exec.summary);
    let dir = out.unwrap_or_else(|| PathBuf::from("out").join(&s.name));
    let written = crate::run::write_folder(&s, &exec, &dir).map_err(run_error)?;
    let deadline_rows = written.deadline;
    if quiet {
        println!("{}", dir.display());
        return Ok(());
    }
    let j = &summary.jobs;
    println!(
        "gpufleet {} | scenario {} | seed {} | policy {}",
        crate::VERSION,
        s.name,
        seed,
        summary.policy
    );
    println!("simulated {:.1} days", result.end.hours_f64() / 24.0);
    println!(
        "jobs       {} submitted, {} completed, {} unfinished, {} rejected, {} failed",
        j.submitted, j.completed, j.unfinished, j.rejected, j.failed
    );
    // All eligible jobs, those still open at the end counted up to it (see docs/outputs.md).
    let censored = |n: u64| {
        if n > 0 {
            format!("  ({n} still open at the end, counted to it)")
        } else {
            String::new()
        }
    };
    let (wa, ja) = (&summary.wait_all_s, &summary.jct_all_s);
    println!(
        "wait       mean {}  p50 {}  p95 {}  p99 {}{}",
        human(wa.mean),
        human(wa.p50),
        human(wa.p95),
        human(wa.p99),
        censored(wa.censored)
    );
    println!(
        "JCT        mean {}  p50 {}  p95 {}{}",
        human(ja.mean),
        human(ja.p50),
        human(ja.p95),
        censored(ja.censored)
    );
    println!(
        "GPU-hours  {:.0} busy of {:.0} provisioned: utilization {:.1} %",
        summary.gpu_hours.busy,
        summary.gpu_hours.provisioned,
        summary.utilization * 100.0
    );
    println!("cost       ${:.0} total", summary.cost_usd["total"]);
    for (p, u) in result.pools.iter().enumerate() {
        let busy = u.busy_gpu_ms as f64;
        let prov = u.provisioned_gpu_ms.max(1) as f64;
        println!(
            "  {:<20} {:<9} {:>4} GPUs  ${:>12.0}  utilization {:>5.1} %",
            u.name,
            u.kind.as_str(),
            u.gpus,
            summary.cost_usd.get(&u.name).copied().unwrap_or(0.0),
            busy / prov * 100.0
        );
        let _ = p;
    }
    println!(
        "cost per busy GPU-hour ${:.2}",
        summary.cost_per_busy_gpu_hour_usd
    );
    if result.faults.is_some() {
        println!(
            "failures   {} node failures, {} job interruptions; lost {:.0} GPU-h, checkpointing {:.0} GPU-h, restarts {:.0} GPU-h; ETTR {:.3}",
            summary.node_failures.total,
            summary.interruptions.total,
            summary.lost_gpu_hours,
            summary.checkpoint_gpu_hours,
            summary.restart_gpu_hours,
            summary.ettr
        );
        for (cause, n) in summary.interruptions.by_cause.iter().take(5) {
            println!("  {cause:<32} {n:>6}");
        }
    }
    let secs = wall.as_secs_f64().max(1e-9);
    println!(
        "{} events in {:.3} s ({:.2} M events/s)",
        result.events,
        secs,
        result.events as f64 / secs / 1e6
    );
    if let Some(rows) = &deadline_rows {
        super::spot::print_deadline(rows);
    }
    println!("wrote {}", dir.display());
    Ok(())
}

/// Seconds as a short human duration.
fn human(s: f64) -> String {
    if s < 60.0 {
        format!("{s:.0}s")
    } else if s < 3600.0 {
        format!("{:.1}m", s / 60.0)
    } else if s < 86_400.0 {
        format!("{:.1}h", s / 3600.0)
    } else {
        format!("{:.1}d", s / 86_400.0)
    }
}
