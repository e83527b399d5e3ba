//! One run: a scenario and its random streams in, the result and its bill out, the output
//! folder written.
//!
//! This is the only place a simulation is assembled. `gpufleet run`, every run of a sweep,
//! the placement comparison, `tco --simulate` (and later plans and the Python package) all
//! come through [`execute`] or [`execute_workload`], so a sweep's run and a single run of the
//! same point give the same summary, byte for byte.
//!
//! The random streams travel as one [`RngStreams`]: each concern draws from its own named
//! stream (`arrivals`, `spot_price/<pool>`, `failures/<pool>`, ...), so no caller turns a
//! bare seed back into generators of its own.

use crate::engine::RngStreams;
use crate::metrics::{build_summary_with, RunCost, RunMeta, Summary};
use crate::model::Workload;
use crate::pricing::SpotTraceError;
use crate::pricing::{PricingModel, RunPricing};
use crate::report::{write_run, RunOutput};
use crate::scenario::Scenario;
use crate::sched::spot_deadline::DeadlineRow;
use crate::sim::{RunResult, Simulation};
use crate::workload::TraceError;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Why a run could not be done or written.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The workload could not be read or built (bad input).
    #[error("{0}")]
    Workload(#[from] TraceError),
    /// The `[spot_deadline]` section could not be evaluated (bad input).
    #[error("{0}")]
    SpotDeadline(#[from] SpotTraceError),
    /// An output file could not be written (the environment, not the input).
    #[error("writing {}: {source}", path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
}

impl RunError {
    /// True when the user's input is at fault (exit code 2), false for the environment.
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, RunError::Write { .. })
    }
}

/// Everything one run of a scenario produces.
pub struct Execution {
    /// The workload that was run.
    pub workload: Workload,
    /// The simulation's result.
    pub result: RunResult,
    /// The run's pricing: each pool's model (seeded spot price paths drawn once), savings
    /// plan, data-move and transfer prices.
    pub pricing: RunPricing,
    /// The run's costs under that pricing.
    pub cost: RunCost,
    /// The summary (`summary.json`).
    pub summary: Summary,
    /// Wall-clock time of the simulation alone.
    pub sim_wall: Duration,
}

/// Runs scenario `s` with the random streams `streams`: builds its workload, then
/// [`execute_workload`].
pub fn execute(s: &Scenario, streams: &RngStreams) -> Result<Execution, RunError> {
    let workload = s.workload_from(streams)?;
    Ok(execute_workload(s, workload, streams))
}

/// Runs scenario `s` on a workload the caller built (jobs in submit order, GPU types mapped
/// onto the scenario's): simulates, prices the run and summarises it.
pub fn execute_workload(s: &Scenario, workload: Workload, streams: &RngStreams) -> Execution {
    let clock = Instant::now();
    let mut sim = Simulation::new(s.sim.clone(), &workload).with_placement_rng(streams);
    if let Some(f) = &s.faults {
        sim = sim.with_faults(f.clone(), streams);
    }
    let result = sim.run();
    let sim_wall = clock.elapsed();
    let pricing = s.run_pricing(streams);
    let cost = crate::metrics::price_run(&result, &pricing, |i| workload.jobs[i].tenant);
    let meta = RunMeta {
        scenario: s.name.clone(),
        scenario_hash: s.hash.clone(),
        seed: streams.seed(),
        policy: s.sim.policy.as_str().to_string(),
    };
    let summary = build_summary_with(&meta, &workload, &result, &cost.ledger, &s.metrics);
    Execution {
        workload,
        result,
        pricing,
        cost,
        summary,
        sim_wall,
    }
}

/// What [`write_folder`] wrote besides the run's own files.
#[derive(Debug, Clone, Default)]
pub struct Written {
    /// The `[spot_deadline]` evaluation (`spot_deadline.csv`), when the scenario has one.
    pub deadline: Option<Vec<DeadlineRow>>,
}

/// Writes the run folder `dir`: `summary.json`, `jobs.csv`, `pools.csv`, `timeline.csv`,
/// the charts and, for a scenario with `[spot_deadline]`, `spot_deadline.csv`.
pub fn write_folder(s: &Scenario, e: &Execution, dir: &Path) -> Result<Written, RunError> {
    let output = RunOutput {
        workload: &e.workload,
        result: &e.result,
        summary: &e.summary,
        ledger: &e.cost.ledger,
        pool_gpu_types: s
            .sim
            .pools
            .iter()
            .map(|p| s.gpu_types[p.gpu_type].name.clone())
            .collect(),
        job_usd: &e.cost.job_usd,
        pool_pricing: e
            .pricing
            .pools
            .iter()
            .map(|p| p.kind_name().to_string())
            .collect(),
    };
    write_run(dir, &output).map_err(|source| RunError::Write {
        path: dir.to_path_buf(),
        source,
    })?;
    let deadline = match &s.spot_deadline {
        Some(spec) => {
            let rows = crate::sched::spot_deadline::run_spec(spec)?;
            crate::report::write_deadline_csv(&dir.join("spot_deadline.csv"), &rows).map_err(
                |source| RunError::Write {
                    path: dir.join("spot_deadline.csv"),
                    source,
                },
            )?;
            Some(rows)
        }
        None => None,
    };
    Ok(Written { deadline })
}
