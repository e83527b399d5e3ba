//! Per-job figures the scheduling literature reports, each with whether it is censored
//! (the job was still open when the run ended, so the figure is a lower bound).
//!
//! Definitions (see `docs/outputs.md` for the sources):
//! - **wait**: first start - submit (a job that never started: end of run - submit);
//! - **queue delay**: every interval the job was ready but not running, including after
//!   preemptions and kills (counted by the simulation's accounting);
//! - **JCT**: end - submit, for jobs that completed or failed;
//! - **run time** r: the job's work at the speed of the pool it last ran on (work / speed),
//!   its run time with nothing in the way; for a job still open at the end, work / the
//!   slowest pool's speed (the longest it could take, so the ratios below stay lower bounds);
//! - **slowdown**: JCT / r; **bounded slowdown** (Feitelson et al., JSSPP 1997):
//!   max(1, JCT / max(r, tau)), tau the bound (10 s by default);
//! - **finish-time fairness** rho (Mahajan et al., "Themis", NSDI'20): JCT / T_id, where
//!   T_id is the job's completion time alone on a 1/N share of the cluster, N the number of
//!   tenants with jobs in the run: r when the job's GPUs fit in C / N (C the cluster's GPUs),
//!   else r x GPUs / (C / N) (it gets C / N GPUs' worth of throughput).

use crate::engine::SimTime;
use crate::model::Workload;
use crate::sim::{JobOutcome, RunResult};

/// Parameters of the metrics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricsOptions {
    /// The bound tau of bounded slowdown (Feitelson's usual 10 s).
    pub slowdown_bound: SimTime,
}

impl Default for MetricsOptions {
    fn default() -> Self {
        MetricsOptions {
            slowdown_bound: SimTime::from_secs(10),
        }
    }
}

/// A value in seconds (or a ratio) and whether it is right-censored (a lower bound).
pub type Censored = (f64, bool);

/// One eligible job's figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JobFigures {
    /// Index of the job in the workload.
    pub job: usize,
    /// Tenant index.
    pub tenant: u32,
    /// How it ended.
    pub outcome: JobOutcome,
    /// Time to first start, seconds (censored: never started).
    pub wait: Censored,
    /// Total queueing delay, seconds (censored: still open at the end).
    pub queue_delay: Censored,
    /// Completion time, seconds (censored: still open at the end).
    pub jct: Censored,
    /// Run time with nothing in the way, seconds.
    pub run: f64,
    /// JCT / run time (`None` for a job of no work).
    pub slowdown: Option<Censored>,
    /// max(1, JCT / max(run, tau)).
    pub bounded_slowdown: Censored,
    /// Finish-time fairness rho = JCT / T_id.
    pub ftf: Option<Censored>,
    /// GPU-hours the job held over all its runs.
    pub gpu_hours: f64,
    /// GPU-hours it would hold running once at the speed its run time assumes (GPUs x r).
    pub demand_gpu_hours: f64,
}

/// Figures of every eligible job (submitted and not rejected), in job order, plus the
/// Themis share parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct JobTable {
    /// Per eligible job.
    pub jobs: Vec<JobFigures>,
    /// N: tenants with at least one eligible job.
    pub tenants: usize,
    /// C: GPUs of the cluster (elastic pools at their maximum).
    pub cluster_gpus: f64,
    /// The bound tau, seconds.
    pub bound_s: f64,
}

/// Computes every eligible job's figures (one pass over the jobs).
pub fn job_table(w: &Workload, r: &RunResult, opts: &MetricsOptions) -> JobTable {
    let slowest = r
        .pools
        .iter()
        .map(|p| p.speed)
        .filter(|s| *s > 0.0)
        .fold(f64::INFINITY, f64::min);
    let slowest = if slowest.is_finite() { slowest } else { 1.0 };
    let cluster_gpus: f64 = r.pools.iter().map(|p| p.gpus as f64).sum();
    let mut has_jobs = vec![false; w.tenants.len().max(1)];
    for (i, rec) in r.jobs.iter().enumerate() {
        if rec.submitted && rec.outcome != JobOutcome::Rejected {
            let t = (w.jobs[i].tenant as usize).min(has_jobs.len() - 1);
            has_jobs[t] = true;
        }
    }
    let tenants = has_jobs.iter().filter(|x| **x).count().max(1);
    let share = cluster_gpus / tenants as f64;
    let bound_s = opts.slowdown_bound.secs_f64();
    let mut jobs = Vec::with_capacity(r.jobs.len());
    for (i, rec) in r.jobs.iter().enumerate() {
        if !rec.submitted || rec.outcome == JobOutcome::Rejected {
            continue;
        }
        let j = &w.jobs[i];
        let ended = matches!(rec.outcome, JobOutcome::Completed | JobOutcome::Failed);
        let secs = |t: SimTime| t.since(j.submit).secs_f64();
        let wait = match rec.start {
            Some(s) => (secs(s), false),
            None => (secs(r.end), true),
        };
        let jct = match (ended, rec.end) {
            (true, Some(e)) => (secs(e), false),
            _ => (secs(r.end), true),
        };
        let speed = match (ended, rec.pool) {
            (true, Some(p)) => r.pools.get(p as usize).map_or(1.0, |u| u.speed),
            _ => slowest,
        };
        let run = j.work.secs_f64() / speed;
        let censored = jct.1;
        let slowdown = (run > 0.0).then(|| (jct.0 / run, censored));
        let bounded = ((jct.0 / run.max(bound_s)).max(1.0), censored);
        let gpus = j.gpus.gpus_f64();
        let t_id = if gpus > share && share > 0.0 {
            run * gpus / share
        } else {
            run
        };
        let ftf = (t_id > 0.0).then(|| (jct.0 / t_id, censored));
        jobs.push(JobFigures {
            job: i,
            tenant: j.tenant,
            outcome: rec.outcome,
            wait,
            queue_delay: (rec.queue_delay.secs_f64(), censored),
            jct,
            run,
            slowdown,
            bounded_slowdown: bounded,
            ftf,
            gpu_hours: rec.gpu_milli_ms as f64 / 1000.0 / 3.6e6,
            demand_gpu_hours: gpus * run / 3600.0,
        });
    }
    JobTable {
        jobs,
        tenants,
        cluster_gpus,
        bound_s,
    }
}
