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

/// One eligible job's figures (compact: a million of them are built per summary).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JobFigures {
    /// Index of the job in the workload.
    pub job: u32,
    /// Tenant index.
    pub tenant: u32,
    /// How it ended.
    pub outcome: JobOutcome,
    /// True if it started (else its wait is counted to the end: censored).
    pub started: bool,
    /// True if it was still open (queued or running) at the end: its queueing delay, JCT,
    /// slowdowns and rho are lower bounds.
    pub open: bool,
    /// Time to first start, seconds.
    pub wait_s: f64,
    /// Total queueing delay, seconds.
    pub queue_delay_s: f64,
    /// Completion time (end - submit), seconds.
    pub jct_s: f64,
    /// Run time with nothing in the way, seconds.
    pub run_s: f64,
    /// max(1, JCT / max(run, tau)).
    pub bounded_slowdown: f64,
    /// Finish-time fairness rho = JCT / T_id (NaN for a job of no work).
    pub rho: f64,
    /// GPU-hours the job held over all its runs.
    pub gpu_hours: f64,
    /// GPU-hours it needs running once at the speed its run time assumes (GPUs x r).
    pub demand_gpu_hours: f64,
}

impl JobFigures {
    /// Wait to first start, censored if it never started.
    pub fn wait(&self) -> Censored {
        (self.wait_s, !self.started)
    }
    /// Total queueing delay, censored if open at the end.
    pub fn queue_delay(&self) -> Censored {
        (self.queue_delay_s, self.open)
    }
    /// Completion time, censored if open at the end.
    pub fn jct(&self) -> Censored {
        (self.jct_s, self.open)
    }
    /// JCT / run time (`None` for a job of no work).
    pub fn slowdown(&self) -> Option<Censored> {
        (self.run_s > 0.0).then(|| (self.jct_s / self.run_s, self.open))
    }
    /// Bounded slowdown.
    pub fn bounded(&self) -> Censored {
        (self.bounded_slowdown, self.open)
    }
    /// Finish-time fairness rho (`None` for a job of no work).
    pub fn ftf(&self) -> Option<Censored> {
        (!self.rho.is_nan()).then_some((self.rho, self.open))
    }
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
    /// The context the figures were worked out in.
    pub context: FigureContext,
}

/// What a job's figures depend on besides the job itself: the run's pools and tenants.
/// Two contexts that compare equal give every job the same figures.
#[derive(Debug, Clone, PartialEq)]
pub struct FigureContext {
    /// The slowest pool's speed (a job still open is timed at it).
    pub slowest: f64,
    /// C: GPUs of the cluster.
    pub cluster_gpus: f64,
    /// N: tenants with at least one eligible job.
    pub tenants: usize,
    /// The bound tau, seconds.
    pub bound_s: f64,
    /// Each pool's speed, in pool order.
    pub speeds: Vec<f64>,
}

impl FigureContext {
    /// The context from pools' speeds and GPUs, the number of tenants with eligible jobs
    /// and the options.
    pub fn new(
        pools: impl Iterator<Item = (f64, f64)> + Clone,
        tenants: usize,
        opts: &MetricsOptions,
    ) -> FigureContext {
        let slowest = pools
            .clone()
            .map(|p| p.0)
            .filter(|s| *s > 0.0)
            .fold(f64::INFINITY, f64::min);
        let speeds: Vec<f64> = pools.clone().map(|p| p.0).collect();
        let cluster_gpus: f64 = pools.map(|p| p.1).sum();
        FigureContext {
            slowest: if slowest.is_finite() { slowest } else { 1.0 },
            cluster_gpus,
            tenants: tenants.max(1),
            bound_s: opts.slowdown_bound.secs_f64(),
            speeds,
        }
    }

    /// The context of run `r` of workload `w`.
    pub fn of_run(w: &Workload, r: &RunResult, opts: &MetricsOptions) -> FigureContext {
        let tenants = tenants_among(w, |i| {
            r.jobs
                .get(i)
                .is_some_and(|rec| rec.submitted && rec.outcome != JobOutcome::Rejected)
        });
        FigureContext::new(
            r.pools.iter().map(|p| (p.speed, p.gpus as f64)),
            tenants,
            opts,
        )
    }

    /// The figures of eligible job `i` (`j`, its record `rec`, `gpu_ms` GPU-milliseconds
    /// held) in a run that stopped at `end`.
    pub fn figures(
        &self,
        i: usize,
        j: &crate::model::Job,
        rec: &crate::sim::JobRecord,
        gpu_ms: u128,
        end: SimTime,
    ) -> JobFigures {
        let ended = matches!(rec.outcome, JobOutcome::Completed | JobOutcome::Failed);
        let secs = |t: SimTime| t.since(j.submit).secs_f64();
        let open = !(ended && rec.end.is_some());
        let jct_s = match (open, rec.end) {
            (false, Some(e)) => secs(e),
            _ => secs(end),
        };
        let speed = match (open, rec.pool) {
            (false, Some(p)) => self.speeds.get(p as usize).copied().unwrap_or(1.0),
            _ => self.slowest,
        };
        let run_s = j.work.secs_f64() / speed;
        let gpus = j.gpus.gpus_f64();
        let share = self.cluster_gpus / self.tenants as f64;
        let t_id = if gpus > share && share > 0.0 {
            run_s * gpus / share
        } else {
            run_s
        };
        JobFigures {
            job: i as u32,
            tenant: j.tenant,
            outcome: rec.outcome,
            started: rec.start.is_some(),
            open,
            wait_s: secs(rec.start.unwrap_or(end)),
            queue_delay_s: rec.queue_delay.secs_f64(),
            jct_s,
            run_s,
            bounded_slowdown: (jct_s / run_s.max(self.bound_s)).max(1.0),
            rho: if t_id > 0.0 { jct_s / t_id } else { f64::NAN },
            gpu_hours: gpu_ms as f64 / 3.6e6,
            demand_gpu_hours: gpus * run_s / 3600.0,
        }
    }
}

/// How many of `w`'s tenants have a job `i` for which `keep(i)` holds. The scan stops
/// once every tenant has one (usually within the first jobs, not after a million).
pub fn tenants_among(w: &Workload, keep: impl Fn(usize) -> bool) -> usize {
    let mut has_jobs = vec![false; w.tenants.len().max(1)];
    let mut found = 0;
    for (i, j) in w.jobs.iter().enumerate() {
        let t = (j.tenant as usize).min(has_jobs.len() - 1);
        if !has_jobs[t] && keep(i) {
            has_jobs[t] = true;
            found += 1;
            if found == has_jobs.len() {
                break;
            }
        }
    }
    found
}

/// Computes every eligible job's figures (one pass over the jobs).
pub fn job_table(w: &Workload, r: &RunResult, opts: &MetricsOptions) -> JobTable {
    let ctx = FigureContext::of_run(w, r, opts);
    let mut jobs = Vec::with_capacity(r.jobs.len());
    // GPU-time per job and pool, in job order: summed per job as the jobs go by.
    let mut usage = r.job_usage.iter().peekable();
    for (i, rec) in r.jobs.iter().enumerate() {
        let mut gpu_ms: u128 = 0;
        while let Some(u) = usage.next_if(|u| u.job as usize <= i) {
            if u.job as usize == i {
                gpu_ms += u.gpu_ms;
            }
        }
        if !rec.submitted || rec.outcome == JobOutcome::Rejected {
            continue;
        }
        jobs.push(ctx.figures(i, &w.jobs[i], rec, gpu_ms, r.end));
    }
    JobTable {
        jobs,
        tenants: ctx.tenants,
        cluster_gpus: ctx.cluster_gpus,
        bound_s: ctx.bound_s,
        context: ctx,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The early stop counts what a full scan counts: against a count over every job, on
    /// workloads where some tenants have no kept job, or only late ones.
    #[test]
    fn tenants_among_counts_as_a_full_scan() {
        let mut state = 7u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        for case in 0..300 {
            let tenants = 1 + next(5) as usize;
            let mut w = Workload::default();
            for t in 0..tenants {
                w.tenant_index(&format!("t{t}"));
            }
            let n = next(40) as usize;
            for i in 0..n {
                w.jobs.push(crate::model::Job {
                    name: format!("j{i}"),
                    submit: SimTime::ZERO,
                    gpus: crate::model::GpuRequest::Whole(1),
                    gpu_types: crate::model::TypeMask::ANY,
                    cpu_milli: 0,
                    mem_mib: 0,
                    work: SimTime::from_secs(1),
                    estimate: None,
                    tenant: next(tenants as u64) as u32,
                    priority: 0,
                    deadline: None,
                    preemptible: false,
                    tags: crate::model::JobTags::NONE,
                });
            }
            let kept: Vec<bool> = (0..n).map(|_| next(3) == 0).collect();
            let keep = |i: usize| kept[i];
            let mut seen = std::collections::BTreeSet::new();
            for (i, j) in w.jobs.iter().enumerate() {
                if keep(i) {
                    seen.insert(j.tenant);
                }
            }
            assert_eq!(tenants_among(&w, keep), seen.len(), "case {case}");
        }
    }
}
