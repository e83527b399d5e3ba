//! The research figures of a run's summary: queueing delay, slowdowns, finish-time
//! fairness, fairness across tenants, makespan, throughput, preemptions and restarts per
//! job and GPU-hours by outcome, fleet-wide and per tenant. Every percentile comes in two
//! kinds, as `wait_s` / `wait_all_s` do: over the jobs that got there only, and `_all`
//! over every eligible job with the ones still open at the end counted to it (censored).

use super::fairness::jain_index;
use super::jobs::{JobFigures, JobTable};
use super::summary::{round, round_q, CensoredQuantiles, Quantiles};
use crate::model::Workload;
use crate::sim::{JobOutcome, RunResult};
use serde::Serialize;

/// Finish-time fairness over every eligible job (Themis' rho = JCT / T_id).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct FinishTimeFairness {
    /// Mean rho (a lower bound when `censored > 0`).
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest rho (Themis minimises the largest).
    pub max: f64,
    /// Share of jobs with rho > 1 (finished later than alone on a 1/N share).
    pub share_above_1: f64,
    /// Jobs covered.
    pub jobs: u64,
    /// Of which still open at the end (counted to it).
    pub censored: u64,
    /// N: tenants sharing the cluster (tenants with jobs in the run).
    pub tenants: u64,
    /// C: GPUs of the cluster; a job's share is C / N.
    pub cluster_gpus: f64,
}

/// Jain's index over tenants of three stated quantities (1 = equal, 1/N = one tenant
/// fares far worse than the rest).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct TenantFairness {
    /// Tenants compared (those with jobs in the run).
    pub tenants: u64,
    /// Over each tenant's mean bounded slowdown (all its jobs, open ones counted to the end).
    pub jain_bounded_slowdown: f64,
    /// Over each tenant's mean finish-time fairness rho.
    pub jain_finish_time_fairness: f64,
    /// Over each tenant's GPU-hours held divided by the GPU-hours its jobs need (GPUs x
    /// run time): the share of its demand it was served.
    pub jain_gpu_share_of_demand: f64,
}

/// A per-job count: total, per eligible job, and jobs with at least one.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct PerJob {
    /// Sum over jobs.
    pub total: u64,
    /// Total / eligible jobs.
    pub per_job: f64,
    /// Jobs with at least one.
    pub jobs: u64,
}

/// GPU-hours held by jobs, by how they ended.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct GpuHoursByOutcome {
    /// Jobs that completed.
    pub completed: f64,
    /// Jobs that failed (gave up after their retries).
    pub failed: f64,
    /// Jobs still running (or requeued) at the end.
    pub unfinished: f64,
}

/// The research figures of `summary.json` (flattened into it).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct ResearchFigures {
    /// Total queueing delay of jobs that ended (completed or failed), seconds.
    pub queue_delay_s: Quantiles,
    /// Total queueing delay of every eligible job, open ones counted to the end, seconds.
    pub queue_delay_all_s: CensoredQuantiles,
    /// Slowdown JCT / run time of completed jobs.
    pub slowdown: Quantiles,
    /// Slowdown of every eligible job (open ones: lower bounds).
    pub slowdown_all: CensoredQuantiles,
    /// Bounded slowdown max(1, JCT / max(run, tau)) of completed jobs.
    pub bounded_slowdown: Quantiles,
    /// Bounded slowdown of every eligible job.
    pub bounded_slowdown_all: CensoredQuantiles,
    /// tau, seconds.
    pub slowdown_bound_s: f64,
    /// Finish-time fairness.
    pub finish_time_fairness: FinishTimeFairness,
    /// Fairness across tenants.
    pub fairness: TenantFairness,
    /// First submit to the last end (completion or failure), seconds; with jobs still open
    /// at the end, first submit to the end of the run (a lower bound).
    pub makespan_s: f64,
    /// True when some job was still open at the end (makespan is a lower bound).
    pub makespan_censored: bool,
    /// Completed jobs per simulated hour.
    pub throughput_jobs_per_hour: f64,
    /// Preemptions by policies.
    pub preemptions: PerJob,
    /// Restarts after kills (failures, maintenance, spot interruptions).
    pub restarts: PerJob,
    /// GPU-hours held, by outcome (they add up to `gpu_hours.busy`).
    pub gpu_hours_by_outcome: GpuHoursByOutcome,
}

/// A tenant's research figures (flattened into its `by_tenant` entry).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct TenantResearch {
    /// Eligible jobs of the tenant.
    pub jobs: u64,
    /// Wait to first start of its eligible jobs (censored at the end), seconds.
    pub wait_all_s: CensoredQuantiles,
    /// Total queueing delay of its eligible jobs, seconds.
    pub queue_delay_all_s: CensoredQuantiles,
    /// Completion time of its eligible jobs, seconds.
    pub jct_all_s: CensoredQuantiles,
    /// Bounded slowdown of its eligible jobs.
    pub bounded_slowdown_all: CensoredQuantiles,
    /// Mean finish-time fairness rho of its jobs.
    pub finish_time_fairness_mean: f64,
    /// GPU-hours its jobs held.
    pub gpu_hours: f64,
}

fn censored(v: impl Iterator<Item = (f64, bool)>) -> CensoredQuantiles {
    CensoredQuantiles::of_iter(v)
}

fn plain(v: impl Iterator<Item = f64>) -> Quantiles {
    round_q(Quantiles::of(v.collect()))
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = v.fold((0.0, 0u64), |(s, n), x| (s + x, n + 1));
    if n > 0 {
        s / n as f64
    } else {
        0.0
    }
}

/// Builds the research figures of a run from its job table.
pub fn research_figures(w: &Workload, r: &RunResult, t: &JobTable) -> ResearchFigures {
    let jobs = &t.jobs;
    let done = |f: &&JobFigures| f.outcome == JobOutcome::Completed;
    let ended = |f: &&JobFigures| matches!(f.outcome, JobOutcome::Completed | JobOutcome::Failed);
    let ftf_q = censored(jobs.iter().filter_map(|f| f.ftf()));
    let (above, ftf_max) = jobs
        .iter()
        .filter_map(|f| f.ftf())
        .fold((0u64, 0f64), |(n, m), x| {
            (n + (x.0 > 1.0) as u64, m.max(x.0))
        });
    let first_submit = jobs.iter().map(|f| w.jobs[f.job as usize].submit).min();
    let open = jobs.iter().any(|f| f.open);
    let last_end = jobs
        .iter()
        .filter(ended)
        .filter_map(|f| r.jobs[f.job as usize].end)
        .max();
    let makespan = match (first_submit, open, last_end) {
        (Some(s), true, _) => r.end.since(s).secs_f64(),
        (Some(s), false, Some(e)) => e.since(s).secs_f64(),
        _ => 0.0,
    };
    let per_job = |count: &dyn Fn(usize) -> u32| {
        let total: u64 = jobs.iter().map(|f| count(f.job as usize) as u64).sum();
        PerJob {
            total,
            per_job: if jobs.is_empty() {
                0.0
            } else {
                round(total as f64 / jobs.len() as f64, 6)
            },
            jobs: jobs.iter().filter(|f| count(f.job as usize) > 0).count() as u64,
        }
    };
    let mut by_outcome = GpuHoursByOutcome::default();
    for f in jobs {
        match f.outcome {
            JobOutcome::Completed => by_outcome.completed += f.gpu_hours,
            JobOutcome::Failed => by_outcome.failed += f.gpu_hours,
            _ => by_outcome.unfinished += f.gpu_hours,
        }
    }
    let completed = jobs.iter().filter(done).count();
    let hours = r.end.hours_f64();
    ResearchFigures {
        queue_delay_s: plain(jobs.iter().filter(ended).map(|f| f.queue_delay_s)),
        queue_delay_all_s: censored(jobs.iter().map(|f| f.queue_delay())),
        slowdown: plain(
            jobs.iter()
                .filter(done)
                .filter_map(|f| f.slowdown().map(|s| s.0)),
        ),
        slowdown_all: censored(jobs.iter().filter_map(|f| f.slowdown())),
        bounded_slowdown: plain(jobs.iter().filter(done).map(|f| f.bounded_slowdown)),
        bounded_slowdown_all: censored(jobs.iter().map(|f| f.bounded())),
        slowdown_bound_s: t.bound_s,
        finish_time_fairness: FinishTimeFairness {
            mean: ftf_q.mean,
            p50: ftf_q.p50,
            p95: ftf_q.p95,
            p99: ftf_q.p99,
            max: round(ftf_max, 3),
            share_above_1: if ftf_q.jobs == 0 {
                0.0
            } else {
                round(above as f64 / ftf_q.jobs as f64, 6)
            },
            jobs: ftf_q.jobs,
            censored: ftf_q.censored,
            tenants: t.tenants as u64,
            cluster_gpus: t.cluster_gpus,
        },
        fairness: tenant_fairness(w, t),
        makespan_s: round(makespan, 3),
        makespan_censored: open,
        throughput_jobs_per_hour: if hours > 0.0 {
            round(completed as f64 / hours, 6)
        } else {
            0.0
        },
        preemptions: per_job(&|i| r.jobs[i].preemptions),
        restarts: per_job(&|i| r.jobs[i].restarts),
        gpu_hours_by_outcome: GpuHoursByOutcome {
            completed: round(by_outcome.completed, 3),
            failed: round(by_outcome.failed, 3),
            unfinished: round(by_outcome.unfinished, 3),
        },
    }
}

/// Jain's index over the tenants with jobs, of three per-tenant quantities.
fn tenant_fairness(w: &Workload, t: &JobTable) -> TenantFairness {
    let n = w.tenants.len().max(1);
    let mut bsld = vec![(0.0, 0u64); n];
    let mut rho = vec![(0.0, 0u64); n];
    let mut held = vec![0.0; n];
    let mut need = vec![0.0; n];
    for f in &t.jobs {
        let k = (f.tenant as usize).min(n - 1);
        bsld[k].0 += f.bounded_slowdown;
        bsld[k].1 += 1;
        if let Some(x) = f.ftf() {
            rho[k].0 += x.0;
            rho[k].1 += 1;
        }
        held[k] += f.gpu_hours;
        need[k] += f.demand_gpu_hours;
    }
    let with_jobs: Vec<usize> = (0..n).filter(|&k| bsld[k].1 > 0).collect();
    let means = |v: &[(f64, u64)]| -> Vec<f64> {
        with_jobs
            .iter()
            .filter(|&&k| v[k].1 > 0)
            .map(|&k| v[k].0 / v[k].1 as f64)
            .collect()
    };
    let served: Vec<f64> = with_jobs
        .iter()
        .filter(|&&k| need[k] > 0.0)
        .map(|&k| held[k] / need[k])
        .collect();
    TenantFairness {
        tenants: with_jobs.len() as u64,
        jain_bounded_slowdown: round(jain_index(&means(&bsld)), 6),
        jain_finish_time_fairness: round(jain_index(&means(&rho)), 6),
        jain_gpu_share_of_demand: round(jain_index(&served), 6),
    }
}

/// Each tenant's research figures, in tenant order.
pub fn tenant_research(w: &Workload, t: &JobTable) -> Vec<TenantResearch> {
    let n = w.tenants.len();
    let mut of: Vec<Vec<&JobFigures>> = vec![Vec::new(); n];
    for f in &t.jobs {
        if let Some(v) = of.get_mut(f.tenant as usize) {
            v.push(f);
        }
    }
    of.into_iter()
        .map(|js| TenantResearch {
            jobs: js.len() as u64,
            wait_all_s: censored(js.iter().map(|f| f.wait())),
            queue_delay_all_s: censored(js.iter().map(|f| f.queue_delay())),
            jct_all_s: censored(js.iter().map(|f| f.jct())),
            bounded_slowdown_all: censored(js.iter().map(|f| f.bounded())),
            finish_time_fairness_mean: round(
                mean(js.iter().filter_map(|f| f.ftf().map(|x| x.0))),
                6,
            ),
            gpu_hours: round(js.iter().map(|f| f.gpu_hours).sum(), 3),
        })
        .collect()
}
