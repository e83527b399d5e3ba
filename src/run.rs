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

mod folder;

pub use folder::{
    check_reusable, file_in_path, not_a_folder, wrong_folder, FolderError, FreshFolder,
};

use crate::engine::RngStreams;
use crate::metrics::{build_summary_from, job_table, JobTable, RunCost, RunMeta, Summary};
use crate::model::Workload;
use crate::pricing::SpotTraceError;
use crate::pricing::{PricingModel, RunPricing};
use crate::report::{write_run, OutputFormat, RunOutput};
use crate::scenario::Scenario;
use crate::sched::spot_deadline::DeadlineRow;
use crate::sim::{RunResult, Simulation, Watch};
use crate::workload::TraceError;
use std::path::{Path, PathBuf};
use std::sync::Arc;
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
    /// Parquet output was asked of a build without the `parquet` feature (bad input).
    #[error(
        "this gpufleet was built without Parquet support (cargo feature `parquet`); use format csv"
    )]
    NoParquet,
    /// An output file could not be written (the environment, not the input).
    #[error("writing {}: {source}", path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The workload has jobs no pool can ever hold and the scenario does not say
    /// `oversized = "reject"` (bad input): the first few and the count.
    #[error("{0}")]
    Oversized(String),
    /// The workload, once read, makes the run past a limit (bad input): the field and the
    /// limit.
    #[error("{0}")]
    Limit(String),
    /// The output folder is not one a run may replace (bad input).
    #[error("output folder {0}")]
    Target(FolderError),
    /// The run would need more memory than the process may have (`ulimit -v`): the
    /// environment's limit, not the input's fault.
    #[error("{0}")]
    Memory(String),
}

impl RunError {
    /// True when the user's input is at fault (exit code 2), false for the environment.
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, RunError::Write { .. } | RunError::Memory(_))
    }
}

impl From<FolderError> for RunError {
    fn from(e: FolderError) -> RunError {
        match e {
            FolderError::Io { path, source } => RunError::Write { path, source },
            target => RunError::Target(target),
        }
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
    /// Every eligible job's research figures (built once: the summary, `jobs.csv` and
    /// the comparisons read them).
    pub job_figures: JobTable,
    /// Wall-clock time of the simulation alone.
    pub sim_wall: Duration,
    /// Jobs rejected because no pool can ever hold them: (job index, reason), by index.
    pub reject_reasons: Vec<(u32, String)>,
    /// `jobs.csv` rows formatted during the simulation, when the caller asked for them.
    pub streamed: Option<crate::report::StreamedRows>,
}

impl Execution {
    /// The timeline interval the run used, when the simulation widened the scenario's to
    /// keep the timeline under its row limit (a very long run).
    pub fn widened_timeline(&self, s: &Scenario) -> Option<crate::engine::SimTime> {
        let asked = s.sim.sample_every?;
        match self.result.timeline.as_slice() {
            [a, b, ..] if b.time.since(a.time) > asked => Some(b.time.since(a.time)),
            _ => None,
        }
    }

    /// The rejected jobs counted by reason, most frequent first (ties by reason).
    pub fn rejections_by_reason(&self) -> Vec<(String, u64)> {
        let mut by: std::collections::BTreeMap<&str, u64> = std::collections::BTreeMap::new();
        for (_, why) in &self.reject_reasons {
            *by.entry(why.as_str()).or_default() += 1;
        }
        let mut v: Vec<(String, u64)> = by.into_iter().map(|(k, n)| (k.to_string(), n)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        v
    }
}

/// Above this many jobs, `jobs.csv` rows are formatted after the simulation, not during
/// it: rows made early wait in memory for the bills (about 180 bytes a job), which would
/// take a 10,000,000-job run past 8 GB.
pub const STREAMED_ROWS_MAX_JOBS: usize = 4_000_000;

/// Runs scenario `s` with the random streams `streams`: builds its workload, then
/// [`execute_workload`].
pub fn execute(s: &Scenario, streams: &RngStreams) -> Result<Execution, RunError> {
    execute_watched(s, streams, None, false)
}

/// [`execute`], publishing how far the simulation is into `watch` (for a progress bar);
/// with `rows`, the `jobs.csv` rows of jobs that end are formatted on another thread
/// while the simulation runs ([`crate::report::StreamedRows`]), for a caller that will
/// write the run folder.
pub fn execute_watched(
    s: &Scenario,
    streams: &RngStreams,
    watch: Option<Arc<Watch>>,
    rows: bool,
) -> Result<Execution, RunError> {
    let workload = runnable_workload(s, streams)?;
    Ok(simulate(s, workload, streams, watch, rows))
}

/// Runs scenario `s` on `workload`, already built from `s` with `streams`
/// ([`Scenario::workload_from`]), as [`execute`] would have built it: the same checks,
/// then the simulation (a sweep builds one workload for the runs that share it).
pub fn execute_built(
    s: &Scenario,
    workload: Workload,
    streams: &RngStreams,
) -> Result<Execution, RunError> {
    check_runnable(s, &workload)?;
    Ok(simulate(s, workload, streams, None, false))
}

/// `s`'s workload, built and checked for jobs no pool can hold.
fn runnable_workload(s: &Scenario, streams: &RngStreams) -> Result<Workload, RunError> {
    let clock = Instant::now();
    let workload = s.workload_from(streams)?;
    tracing::debug!(
        jobs = workload.jobs.len(),
        seconds = clock.elapsed().as_secs_f64(),
        "workload built"
    );
    check_runnable(s, &workload)?;
    Ok(workload)
}

/// Refuses a built workload that `s` cannot run: jobs no pool can hold, a span past the
/// longest simulated, more jobs than the process's memory holds.
fn check_runnable(s: &Scenario, workload: &Workload) -> Result<(), RunError> {
    check_oversized(s, workload)?;
    check_span(s, workload)?;
    check_memory(workload.jobs.len())
}

/// Address space a run holds besides its jobs: code, thread stacks, allocator arenas.
const MEMORY_BASE_BYTES: f64 = 300e6;

/// Refuses, before simulating, a run of `jobs` jobs whose expected peak memory
/// ([`crate::scenario::BYTES_PER_JOB`] a job) is over the process's address-space limit
/// (`ulimit -v`, `RLIMIT_AS`): the run would abort on an allocation half-way (6,000,000
/// replicated trace jobs under a 3 GB limit did) instead of saying so.
pub fn check_memory(jobs: usize) -> Result<(), RunError> {
    let Some(limit) = address_space_limit() else {
        return Ok(());
    };
    let need = MEMORY_BASE_BYTES + jobs as f64 * crate::scenario::BYTES_PER_JOB;
    if need <= limit as f64 {
        return Ok(());
    }
    Err(RunError::Memory(format!(
        "a run of {} jobs needs about {:.1} GB of memory (about {} bytes a job), more than this process may use ({:.1} GB, ulimit -v): raise the limit, or hold fewer jobs (max_jobs, load_scale, a shorter horizon)",
        jobs,
        need / 1e9,
        crate::scenario::BYTES_PER_JOB,
        limit as f64 / 1e9
    )))
}

/// The process's address-space limit in bytes, if it has one.
fn address_space_limit() -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `r` is a valid rlimit for getrlimit to fill.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } == 0;
    (ok && r.rlim_cur != libc::RLIM_INFINITY).then_some(r.rlim_cur)
}

/// Refuses a trace workload whose span (known only once read) makes more node failures or
/// spot interruptions than the limits allow (a generated workload's are refused at load).
pub fn check_span(s: &Scenario, w: &Workload) -> Result<(), RunError> {
    crate::scenario::check_trace_span(s, w).map_err(|m| {
        RunError::Limit(match s.workload.trace_path() {
            Some(path) => format!("{}: {m}", path.display()),
            None => m,
        })
    })
}

/// Refuses a workload with jobs no pool can ever hold, unless the scenario rejects them.
pub fn check_oversized(s: &Scenario, w: &Workload) -> Result<(), RunError> {
    if s.limits.oversized == crate::scenario::Oversized::Reject {
        return Ok(());
    }
    let bad = crate::scenario::unplaceable_jobs(&s.sim.pools, w);
    if bad.is_empty() {
        Ok(())
    } else {
        // A trace's jobs are named by the trace's own ids, in that file.
        let message = crate::scenario::oversized_message(w, &bad);
        Err(RunError::Oversized(match s.workload.trace_path() {
            Some(path) => format!("{}: {message}", path.display()),
            None => message,
        }))
    }
}

/// Runs scenario `s` on a workload the caller built (jobs in submit order, GPU types mapped
/// onto the scenario's): simulates, prices the run and summarises it.
pub fn execute_workload(s: &Scenario, workload: Workload, streams: &RngStreams) -> Execution {
    simulate(s, workload, streams, None, false)
}

fn simulate(
    s: &Scenario,
    workload: Workload,
    streams: &RngStreams,
    watch: Option<Arc<Watch>>,
    rows: bool,
) -> Execution {
    let p = simulate_priced(s, workload, streams, watch, rows);
    let (job_figures, summary) = summarise(s, streams, &p);
    p.into_execution(job_figures, summary)
}

/// A run simulated and priced, before its summary: enough to write `jobs.csv`.
struct Priced {
    workload: Workload,
    result: RunResult,
    pricing: RunPricing,
    cost: RunCost,
    sim_wall: Duration,
    reject_reasons: Vec<(u32, String)>,
    streamed: Option<crate::report::StreamedRows>,
}

impl Priced {
    /// The whole execution, with the job table and summary [`summarise`] made.
    fn into_execution(self, job_figures: JobTable, summary: Summary) -> Execution {
        Execution {
            workload: self.workload,
            result: self.result,
            pricing: self.pricing,
            cost: self.cost,
            summary,
            job_figures,
            sim_wall: self.sim_wall,
            reject_reasons: self.reject_reasons,
            streamed: self.streamed,
        }
    }
}

/// Simulates `workload` under `s` and prices the run (see [`execute_watched`] for `rows`).
fn simulate_priced(
    s: &Scenario,
    workload: Workload,
    streams: &RngStreams,
    watch: Option<Arc<Watch>>,
    rows: bool,
) -> Priced {
    let pricing = s.run_pricing(streams);
    let clock = Instant::now();
    let mut sim = Simulation::new(s.sim.clone(), &workload).with_placement_rng(streams);
    if let Some(w) = &watch {
        w.jobs.store(
            workload.jobs.len() as u64,
            std::sync::atomic::Ordering::Relaxed,
        );
        sim = sim.with_watch(Arc::clone(w));
    }
    if let Some(f) = &s.faults {
        sim = sim.with_faults(f.clone(), streams);
    }
    // Commitments bound some pools' capacity in time and split their billing periods.
    let until = s.sim.horizon.unwrap_or(crate::pricing::PERIODS_UNTIL);
    sim = sim.with_commitments(
        pricing.pools.iter().map(|m| m.capacity_windows()).collect(),
        pricing
            .pools
            .iter()
            .map(|m| m.period_bounds(until))
            .collect(),
    );
    let (result, streamed) = if rows && workload.jobs.len() <= STREAMED_ROWS_MAX_JOBS {
        let (tx, rx) = std::sync::mpsc::sync_channel(16);
        sim = sim.with_ended(crate::sim::EndedSink::new(tx));
        let names = s.sim.pools.iter().map(|p| p.name.clone()).collect();
        std::thread::scope(|scope| {
            let rows = scope.spawn(|| {
                crate::report::StreamedRows::consume(
                    rx,
                    &workload,
                    names,
                    expected_figures(s, &workload),
                )
            });
            let result = sim.run();
            tracing::debug!(
                seconds = clock.elapsed().as_secs_f64(),
                "simulation returned (the last rows still formatting)"
            );
            // A worker that panicked only loses the head start: the rows are made after.
            (result, rows.join().ok())
        })
    } else {
        (sim.run(), None)
    };
    let sim_wall = clock.elapsed();
    if let Some(w) = &watch {
        w.simulated
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
    tracing::info!("writing outputs");
    tracing::debug!(
        events = result.events,
        seconds = sim_wall.as_secs_f64(),
        "simulated"
    );
    let clock = Instant::now();
    let cost = crate::metrics::price_run(&result, &pricing, |i| workload.jobs[i].tenant);
    tracing::debug!(seconds = clock.elapsed().as_secs_f64(), "priced");
    let rejected = |i: usize| result.jobs[i].outcome == crate::sim::JobOutcome::Rejected;
    let reject_reasons = if result.rejected > 0 {
        crate::scenario::unplaceable_among(&s.sim.pools, &workload, rejected)
    } else {
        Vec::new()
    };
    Priced {
        workload,
        result,
        pricing,
        cost,
        sim_wall,
        reject_reasons,
        streamed,
    }
}

/// The job table and the summary of a priced run.
fn summarise(s: &Scenario, streams: &RngStreams, p: &Priced) -> (JobTable, Summary) {
    let clock = Instant::now();
    let meta = RunMeta {
        scenario: s.name.clone(),
        scenario_hash: s.hash.clone(),
        seed: streams.seed(),
        policy: s.sim.policy.as_str().to_string(),
    };
    let job_figures = job_table(&p.workload, &p.result, &s.metrics);
    let summary = build_summary_from(&meta, &p.workload, &p.result, &p.cost.ledger, &job_figures);
    tracing::debug!(seconds = clock.elapsed().as_secs_f64(), "summarised");
    (job_figures, summary)
}

/// [`execute_watched`] with rows formatted during the run, then [`write_folder_as`] into
/// `dir`, except that `jobs.csv`, and the other tables with the charts, are written on
/// two other threads while the summary is made: what `gpufleet run` does. The folder and
/// the execution are those the two calls give (`tests/streamed_rows.rs`).
pub fn execute_into(
    s: &Scenario,
    streams: &RngStreams,
    watch: Option<Arc<Watch>>,
    dir: &Path,
    format: OutputFormat,
) -> Result<(Execution, Written), RunError> {
    if format.parquet() && !crate::report::PARQUET_BUILT {
        return Err(RunError::NoParquet);
    }
    let workload = runnable_workload(s, streams)?;
    let p = simulate_priced(s, workload, streams, watch, format.csv());
    if !format.csv() {
        let (job_figures, summary) = summarise(s, streams, &p);
        let e = p.into_execution(job_figures, summary);
        let written = write_folder_as(s, &e, dir, format)?;
        return Ok((e, written));
    }
    let clock = Instant::now();
    let mut folder = FreshFolder::begin(dir)?;
    let context = crate::metrics::FigureContext::of_run(&p.workload, &p.result, &s.metrics);
    let (gpu_types, pricing) = (pool_gpu_types(s), pool_pricing(&p.pricing));
    let written_in = |path: &Path| {
        let path = path.to_path_buf();
        move |source| RunError::Write { path, source }
    };
    // `jobs.csv`, and the other tables with the charts, are written on two threads while
    // this one makes the summary (none of them reads it).
    let (jobs, rest, (job_figures, summary)) = std::thread::scope(|scope| {
        let jobs = scope.spawn(|| {
            let clock = Instant::now();
            let done = crate::report::write_jobs_csv(
                &folder.path().join("jobs.csv"),
                &crate::report::JobsCsv {
                    workload: &p.workload,
                    result: &p.result,
                    job_usd: &p.cost.job_usd,
                    reject_reasons: &p.reject_reasons,
                    streamed: p.streamed.as_ref(),
                    context: &context,
                },
            );
            tracing::debug!(seconds = clock.elapsed().as_secs_f64(), "wrote jobs.csv");
            done
        });
        let rest = scope.spawn(|| {
            let clock = Instant::now();
            let done = crate::report::write_rest(
                folder.path(),
                &crate::report::RunRest {
                    title: &s.name,
                    workload: &p.workload,
                    result: &p.result,
                    ledger: &p.cost.ledger,
                    pool_gpu_types: &gpu_types,
                    pool_pricing: &pricing,
                },
            );
            tracing::debug!(
                seconds = clock.elapsed().as_secs_f64(),
                "wrote the other tables and charts"
            );
            done
        });
        let summary = summarise(s, streams, &p);
        let panicked = |_| std::io::Error::other("a thread writing the folder panicked");
        (
            jobs.join().map_err(panicked).and_then(|done| done),
            rest.join().map_err(panicked).and_then(|done| done),
            summary,
        )
    });
    let jobs_sum = jobs.map_err(written_in(folder.path()))?;
    rest.map_err(written_in(folder.path()))?;
    if let Some(sum) = jobs_sum {
        folder.note_sum("jobs.csv", sum);
    }
    let e = p.into_execution(job_figures, summary);
    let written = write_files(s, &e, folder.path(), format, false)?;
    folder.commit()?;
    tracing::debug!(seconds = clock.elapsed().as_secs_f64(), "wrote the folder");
    Ok((e, written))
}

/// The figure context a run of `s` on `w` will have when its pools keep their configured
/// size and every tenant of `w` has an eligible job (see [`crate::metrics::FigureContext`]).
fn expected_figures(s: &Scenario, w: &Workload) -> crate::metrics::FigureContext {
    crate::metrics::FigureContext::new(
        s.sim
            .pools
            .iter()
            .map(|p| (p.speed, p.nodes as f64 * p.node.gpus as f64)),
        crate::metrics::tenants_among(w, |_| true),
        &s.metrics,
    )
}

/// What [`write_folder`] wrote besides the run's own files.
#[derive(Debug, Clone, Default)]
pub struct Written {
    /// The `[spot_deadline]` evaluation (`spot_deadline.csv`), when the scenario has one.
    pub deadline: Option<Vec<DeadlineRow>>,
}

/// The run's output data (what its files are written from): for [`write_folder`], and for
/// callers that want the tables without files ([`crate::report::columns::run_tables`]).
pub fn output<'a>(s: &Scenario, e: &'a Execution) -> RunOutput<'a> {
    RunOutput {
        workload: &e.workload,
        result: &e.result,
        summary: &e.summary,
        job_figures: &e.job_figures,
        ledger: &e.cost.ledger,
        pool_gpu_types: pool_gpu_types(s),
        job_usd: &e.cost.job_usd,
        pool_pricing: pool_pricing(&e.pricing),
        reject_reasons: &e.reject_reasons,
        streamed: e.streamed.as_ref(),
    }
}

/// Each pool's GPU type name.
fn pool_gpu_types(s: &Scenario) -> Vec<String> {
    s.sim
        .pools
        .iter()
        .map(|p| s.gpu_types[p.gpu_type].name.clone())
        .collect()
}

/// Each pool's pricing model name.
fn pool_pricing(pricing: &RunPricing) -> Vec<String> {
    pricing
        .pools
        .iter()
        .map(|p| p.kind_name().to_string())
        .collect()
}

/// Writes the run folder `dir`: `summary.json`, `jobs.csv`, `pools.csv`, `timeline.csv`,
/// the charts, `commitments.csv` when the run has commitments (reservations, capacity
/// blocks, a savings plan) and, for a scenario with `[spot_deadline]`, `spot_deadline.csv`.
/// The table files follow the scenario's `output_format` ([`write_folder_as`]).
pub fn write_folder(s: &Scenario, e: &Execution, dir: &Path) -> Result<Written, RunError> {
    write_folder_as(s, e, dir, s.output_format)
}

/// [`write_folder`] with the table files in `format`: CSV, Parquet (`jobs.parquet`,
/// `pools.parquet`, `timeline.parquet`; the charts are still drawn) or both. The files go
/// into a fresh folder beside `dir` that replaces it, whole, once complete (see
/// [`FreshFolder`]): `dir` is always either the previous run or this one.
pub fn write_folder_as(
    s: &Scenario,
    e: &Execution,
    dir: &Path,
    format: OutputFormat,
) -> Result<Written, RunError> {
    if format.parquet() && !crate::report::PARQUET_BUILT {
        return Err(RunError::NoParquet);
    }
    let clock = Instant::now();
    let folder = FreshFolder::begin(dir)?;
    let written = write_files(s, e, folder.path(), format, true)?;
    folder.commit()?;
    tracing::debug!(seconds = clock.elapsed().as_secs_f64(), "wrote the folder");
    Ok(written)
}

/// Writes the run's files into the folder `dir` (with `tables` false, only those besides
/// `jobs.csv`, `pools.csv`, `timeline.csv` and the charts: the caller wrote them).
fn write_files(
    s: &Scenario,
    e: &Execution,
    dir: &Path,
    format: OutputFormat,
    tables: bool,
) -> Result<Written, RunError> {
    let output = output(s, e);
    let write_err = |source| RunError::Write {
        path: dir.to_path_buf(),
        source,
    };
    match tables {
        true => write_run(dir, &output),
        false => crate::report::write_summary(dir, &e.summary),
    }
    .map_err(write_err)?;
    #[cfg(feature = "parquet")]
    if format.parquet() {
        crate::report::parquet::write_run_parquet(dir, &output).map_err(write_err)?;
    }
    if !format.csv() {
        // A Parquet-only folder keeps the charts (drawn from memory) and drops the tables'
        // CSV copies.
        for name in ["jobs.csv", "pools.csv", "timeline.csv"] {
            std::fs::remove_file(dir.join(name)).map_err(write_err)?;
        }
    }
    if let Some(rows) = &e.summary.tenant_rows {
        let path = dir.join("tenants.csv");
        crate::report::write_tenants_csv(&path, rows)
            .map_err(|source| RunError::Write { path, source })?;
    }
    if !e.cost.commitments.is_empty() {
        let path = dir.join("commitments.csv");
        let names: Vec<String> = s.sim.pools.iter().map(|p| p.name.clone()).collect();
        crate::report::write_commitments_csv(&path, &e.cost.commitments, &names)
            .map_err(|source| RunError::Write { path, source })?;
    }
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

/// What [`validate`] found in a valid scenario.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Validated {
    /// Scenario name.
    pub scenario: String,
    /// Number of pools.
    pub pools: usize,
    /// GPUs over every pool (an elastic pool: its maximum).
    pub gpus: u64,
    /// Jobs in the workload (after filters).
    pub jobs: usize,
    /// Queue policy.
    pub policy: String,
    /// Bad trace rows skipped (`skip_bad_rows = true`).
    pub skipped_rows: u64,
    /// The same rows by file (`[file, rows]` pairs): a trace joined with another file
    /// (the PAI job table) counts each apart.
    pub skipped_by_file: Vec<(String, u64)>,
    /// Trace rows dropped by a filter or as unusable, by reason.
    pub dropped: Vec<(String, u64)>,
    /// True when `jobs` is an expected count (a generated workload with a random count,
    /// estimated without generating it), false when exact.
    pub estimated: bool,
}

/// Checks scenario `s` without running it. A generated workload is estimated, not
/// generated (scenario validation already bounded its size); a trace is read (streamed, at
/// most `max_jobs` jobs): a bad row is a bad scenario, and so is a job no pool can hold
/// (unless `oversized = "reject"`). Reads its `[spot_deadline]` trace, if any.
pub fn validate(s: &Scenario) -> Result<Validated, RunError> {
    let (jobs, estimated, skipped_rows, skipped_by_file, dropped) = match s.workload_estimate() {
        Some(e) => (e.jobs.round() as usize, !e.exact, 0, Vec::new(), Vec::new()),
        None => {
            let w = s.build_workload(s.seed)?;
            check_oversized(s, &w)?;
            check_span(s, &w)?;
            let dropped = w
                .filtered
                .iter()
                .map(|(why, n)| (why.to_string(), *n))
                .collect();
            (
                w.jobs.len(),
                false,
                w.skipped_rows,
                w.skipped_by_file,
                dropped,
            )
        }
    };
    if let Some(d) = &s.spot_deadline {
        crate::sched::spot_deadline::read_trace(d)?;
    }
    Ok(Validated {
        scenario: s.name.clone(),
        pools: s.sim.pools.len(),
        gpus: s
            .sim
            .pools
            .iter()
            .map(|p| p.nodes as u64 * p.node.gpus as u64)
            .sum(),
        jobs,
        policy: s.sim.policy.as_str().to_string(),
        skipped_rows,
        skipped_by_file,
        dropped,
        estimated,
    })
}
