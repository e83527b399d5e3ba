//! `gpufleet run` and `gpufleet validate`.

use super::CliError;
use crate::run::RunError;
use crate::scenario::{Scenario, ScenarioError};
use anyhow::anyhow;
use std::path::{Path, PathBuf};

fn load(path: Option<&Path>) -> Result<Scenario, CliError> {
    let s = match path {
        Some(p) => Scenario::load(p),
        None => Scenario::builtin(),
    }
    .map_err(|e| CliError::BadInput(anyhow!("{}", rendered(&e, path).trim_end())))?;
    for w in &s.warnings {
        tracing::warn!("{w}");
    }
    Ok(s)
}

/// A scenario error with the offending text underlined (the file is read again for it).
pub(super) fn rendered(e: &ScenarioError, path: Option<&Path>) -> String {
    let text = match path {
        Some(p) => crate::workload::read_small_text(p, crate::workload::MAX_SCENARIO_BYTES)
            .unwrap_or_default(),
        None => crate::scenario::DEFAULT_SCENARIO.to_string(),
    };
    e.render(&text)
}

/// A run error with the exit code it deserves.
pub(super) fn run_error(e: RunError) -> CliError {
    if e.is_bad_input() {
        CliError::BadInput(anyhow!("{e}"))
    } else {
        CliError::Failure(anyhow!("{e}"))
    }
}

/// `gpufleet validate FILE [--json]`.
pub fn validate(path: &Path, json: bool) -> Result<(), CliError> {
    let checked = match Scenario::load(path) {
        Ok(s) => {
            for w in &s.warnings {
                tracing::warn!("{w}");
            }
            crate::run::validate(&s).map_err(|e| (None, e.to_string()))
        }
        Err(e) => Err((Some(e.clone()), rendered(&e, Some(path)))),
    };
    match checked {
        Ok(v) => {
            for (why, n) in &v.dropped {
                eprintln!("dropped {n} rows: {why}");
            }
            for (file, n) in &v.skipped_by_file {
                super::report_skipped(Path::new(file), *n);
            }
            if json {
                let mut j = serde_json::to_value(&v).unwrap_or_default();
                if let Some(m) = j.as_object_mut() {
                    m.insert("ok".into(), true.into());
                    m.insert("file".into(), path.display().to_string().into());
                }
                println!("{j}");
            } else {
                let jobs = if v.estimated {
                    format!("about {} jobs expected", v.jobs)
                } else {
                    format!("{} jobs", v.jobs)
                };
                println!(
                    "{}: ok ({} pools, {} GPUs, {}, policy {})",
                    path.display(),
                    v.pools,
                    v.gpus,
                    jobs,
                    v.policy
                );
            }
            Ok(())
        }
        Err((e, message)) => {
            if json {
                println!("{}", problems_json(path, e.as_ref(), &message));
            }
            Err(CliError::BadInput(anyhow!("{}", message.trim_end())))
        }
    }
}

/// A failed validation as JSON: each problem with its field path, line, column and
/// message (a trace error is one problem without a path).
pub(super) fn problems_json(
    path: &Path,
    e: Option<&ScenarioError>,
    message: &str,
) -> serde_json::Value {
    let text = crate::workload::read_small_text(path, crate::workload::MAX_SCENARIO_BYTES)
        .unwrap_or_default();
    let problems: Vec<serde_json::Value> = match e {
        Some(e) => e
            .problems
            .iter()
            .map(|p| {
                let column = crate::scenario::column_of(&text, p);
                serde_json::json!({
                    "path": p.path,
                    "line": p.line,
                    "column": column,
                    "message": p.message,
                })
            })
            .collect(),
        None => vec![serde_json::json!({
            "path": "", "line": null, "column": null, "message": message.trim_end(),
        })],
    };
    serde_json::json!({ "ok": false, "file": path.display().to_string(), "problems": problems })
}

/// The flags of `gpufleet run`.
#[derive(Debug, Clone, Default)]
pub struct RunFlags {
    /// `--out`.
    pub out: Option<PathBuf>,
    /// `--seed`.
    pub seed: Option<u64>,
    /// `-q`.
    pub quiet: bool,
    /// `--format`.
    pub format: Option<crate::report::OutputFormat>,
    /// `--json`.
    pub json: bool,
}

/// `gpufleet run [FILE] [--out DIR] [--seed N] [--format F] [--json]`.
pub fn run(path: Option<&Path>, flags: RunFlags) -> Result<(), CliError> {
    let s = load(path)?;
    let seed = flags.seed.unwrap_or(s.seed);
    let format = flags.format.unwrap_or(s.output_format);
    if format.parquet() && !crate::report::PARQUET_BUILT {
        return Err(run_error(RunError::NoParquet));
    }
    let streams = crate::engine::RngStreams::new(seed);
    let bar = (!flags.quiet).then(|| super::progress::RunBar::start(s.sim.horizon));
    let dir = flags
        .out
        .unwrap_or_else(|| PathBuf::from("out").join(&s.name));
    let done =
        crate::run::execute_into(&s, &streams, bar.as_ref().map(|b| b.watch()), &dir, format);
    drop(bar);
    let (exec, written) = done.map_err(run_error)?;
    super::trace::report_drops(&exec.workload);
    let wall = exec.sim_wall;
    let (result, summary) = (&exec.result, &exec.summary);
    let deadline_rows = written.deadline;
    tracing::info!(dir = %dir.display(), format = format.as_str(), "wrote the run folder");
    // Loud, even with -q: jobs rejected and a widened timeline go to stderr.
    let rejected = exec.rejections_by_reason();
    if !rejected.is_empty() {
        let n: u64 = rejected.iter().map(|r| r.1).sum();
        eprintln!("rejected {n} job{} no pool can ever hold (oversized = \"reject\"; reasons in jobs.csv):", if n == 1 { "" } else { "s" });
        for (why, k) in rejected.iter().take(3) {
            eprintln!("  {k:>8}  {why}");
        }
        if rejected.len() > 3 {
            eprintln!("  ... and {} other reasons", rejected.len() - 3);
        }
    }
    if let Some(why) = result.cut_short {
        // Jobs still queued or running, and (at the event limit) those yet to arrive.
        let left = summary.jobs.unfinished + summary.jobs.not_submitted;
        let s_ = if left == 1 { "" } else { "s" };
        if why == crate::sim::CutShort::Stuck {
            eprintln!(
                "warning: the run ended at {:.1} h with {left} job{s_} waiting (counted as unfinished): {}; check what keeps them waiting (a budget spent, a provider stock of zero, nodes that never come back)",
                result.end.hours_f64(),
                why.describe(),
            );
        } else {
            eprintln!(
                "warning: without a horizon the run stopped at a limit ({}) with {left} job{s_} not ended (counted as unfinished, or not_submitted if they had yet to arrive); set a horizon, or check what keeps them waiting (repair times, nodes that never come back)",
                why.describe(),
            );
        }
    }
    if let Some(dt) = exec.widened_timeline(&s) {
        eprintln!(
            "note: the timeline was sampled every {} s instead of every {} s, to stay under {} rows and {} node visits (samples x nodes)",
            dt.secs_text(),
            s.sim.sample_every.map(|t| t.secs_text()).unwrap_or_default(),
            crate::scenario::MAX_TIMELINE_ROWS,
            crate::sim::MAX_SAMPLED_NODES
        );
    }
    if flags.json {
        let mut j = serde_json::to_vec_pretty(summary)
            .map_err(|e| CliError::Failure(anyhow!("summary: {e}")))?;
        j.push(b'\n');
        return super::to_stdout(&j);
    }
    if flags.quiet {
        println!("{}", dir.display());
        // The process ends here: freeing a million jobs one by one would only cost time.
        std::mem::forget(exec);
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
    if j.not_submitted > 0 {
        println!(
            "           {} more jobs of the workload arrive after the end of the run (at {}): not simulated, not in jobs.csv",
            j.not_submitted,
            human(result.end.secs_f64())
        );
    }
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
    std::mem::forget(exec);
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
