//! The research figures of a run's summary: queueing delay, slowdowns, finish-time
//! fairness, fairness across tenants, makespan, throughput, preemptions and restarts per
//! job and GPU-hours by outcome, fleet-wide and per tenant. Every percentile comes in two
//! kinds, as `wait_s` / `wait_all_s` do: over the jobs that got there only, and `_all`
//! over every eligible job with the ones still open at the end counted to it (censored).

use super::fairness::jain_index;
use super::jobs::JobTable;
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

/// One censored column of values gathered in a pass over the jobs, in job order.
#[derive(Default)]
struct Column {
    values: Vec<f64>,
    censored: u64,
}

impl Column {
    fn with_capacity(n: usize) -> Column {
        Column {
            values: Vec::with_capacity(n),
            censored: 0,
        }
    }

    #[inline]
    fn push(&mut self, (x, c): (f64, bool)) {
        self.values.push(x);
        self.censored += c as u64;
    }

    fn quantiles(self) -> CensoredQuantiles {
        CensoredQuantiles::of_values(self.values, self.censored)
    }
}

fn plain(v: Vec<f64>) -> Quantiles {
    round_q(Quantiles::of(v))
}

/// Builds the research figures of a run from its job table.
pub fn research_figures(w: &Workload, r: &RunResult, t: &JobTable) -> ResearchFigures {
    // One pass over the jobs gathers every column and count (a million jobs' figures are
    // tens of MB: a pass per figure costs more than the figures).
    let jobs = &t.jobs;
    let n = jobs.len();
    let mut queue_delay = Vec::with_capacity(n);
    let mut queue_delay_all = Column::with_capacity(n);
    let mut slowdown = Vec::with_capacity(n);
    let mut slowdown_all = Column::with_capacity(n);
    let mut bounded = Vec::with_capacity(n);
    let mut bounded_all = Column::with_capacity(n);
    let mut ftf = Column::with_capacity(n);
    let (mut above, mut ftf_max) = (0u64, 0f64);
    let mut first_submit = None;
    let mut open = false;
    let mut last_end = None;
    let (mut preemptions, mut restarts) = (PerJob::default(), PerJob::default());
    let mut by_outcome = GpuHoursByOutcome::default();
    let mut completed = 0usize;
    for f in jobs {
        let rec = &r.jobs[f.job as usize];
        let done = f.outcome == JobOutcome::Completed;
        let ended = done || f.outcome == JobOutcome::Failed;
        if let Some(x) = f.ftf() {
            ftf.push(x);
            above += (x.0 > 1.0) as u64;
            ftf_max = ftf_max.max(x.0);
        }
        let submit = w.jobs[f.job as usize].submit;
        first_submit = Some(first_submit.map_or(submit, |s: crate::engine::SimTime| s.min(submit)));
        open |= f.open;
        if ended {
            if let Some(e) = rec.end {
                last_end = Some(last_end.map_or(e, |l: crate::engine::SimTime| l.max(e)));
            }
            queue_delay.push(f.queue_delay_s);
        }
        preemptions.total += rec.preemptions as u64;
        preemptions.jobs += (rec.preemptions > 0) as u64;
        restarts.total += rec.restarts as u64;
        restarts.jobs += (rec.restarts > 0) as u64;
        match f.outcome {
            JobOutcome::Completed => by_outcome.completed += f.gpu_hours,
            JobOutcome::Failed => by_outcome.failed += f.gpu_hours,
            _ => by_outcome.unfinished += f.gpu_hours,
        }
        let s = f.slowdown();
        if done {
            completed += 1;
            if let Some(s) = s {
                slowdown.push(s.0);
            }
            bounded.push(f.bounded_slowdown);
        }
        queue_delay_all.push(f.queue_delay());
        if let Some(s) = s {
            slowdown_all.push(s);
        }
        bounded_all.push(f.bounded());
    }
    let makespan = match (first_submit, open, last_end) {
        (Some(s), true, _) => r.end.since(s).secs_f64(),
        (Some(s), false, Some(e)) => e.since(s).secs_f64(),
        _ => 0.0,
    };
    for p in [&mut preemptions, &mut restarts] {
        p.per_job = if n == 0 {
            0.0
        } else {
            round(p.total as f64 / n as f64, 6)
        };
    }
    let ftf_q = ftf.quantiles();
    let hours = r.end.hours_f64();
    ResearchFigures {
        queue_delay_s: plain(queue_delay),
        queue_delay_all_s: queue_delay_all.quantiles(),
        slowdown: plain(slowdown),
        slowdown_all: slowdown_all.quantiles(),
        bounded_slowdown: plain(bounded),
        bounded_slowdown_all: bounded_all.quantiles(),
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
        preemptions,
        restarts,
        gpu_hours_by_outcome: GpuHoursByOutcome {
            completed: round(by_outcome.completed, 3),
            failed: round(by_outcome.failed, 3),
            unfinished: round(by_outcome.unfinished, 3),
        },
    }
}

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
    struct Gathered {
        jobs: u64,
        wait: Column,
        queue_delay: Column,
        jct: Column,
        bounded: Column,
        ftf: (f64, u64),
        gpu_hours: f64,
    }
    // The sums start where `Iterator::sum` does, so an empty tenant reads as it always did.
    let zero: f64 = std::iter::empty::<f64>().sum();
    let mut of: Vec<Gathered> = (0..w.tenants.len())
        .map(|_| Gathered {
            jobs: 0,
            wait: Column::default(),
            queue_delay: Column::default(),
            jct: Column::default(),
            bounded: Column::default(),
            ftf: (0.0, 0),
            gpu_hours: zero,
        })
        .collect();
    for f in &t.jobs {
        if let Some(g) = of.get_mut(f.tenant as usize) {
            g.jobs += 1;
            g.wait.push(f.wait());
            g.queue_delay.push(f.queue_delay());
            g.jct.push(f.jct());
            g.bounded.push(f.bounded());
            if let Some(x) = f.ftf() {
                g.ftf = (g.ftf.0 + x.0, g.ftf.1 + 1);
            }
            g.gpu_hours += f.gpu_hours;
        }
    }
    of.into_iter()
        .map(|g| TenantResearch {
            jobs: g.jobs,
            wait_all_s: g.wait.quantiles(),
            queue_delay_all_s: g.queue_delay.quantiles(),
            jct_all_s: g.jct.quantiles(),
            bounded_slowdown_all: g.bounded.quantiles(),
            finish_time_fairness_mean: round(
                if g.ftf.1 > 0 {
                    g.ftf.0 / g.ftf.1 as f64
                } else {
                    0.0
                },
                6,
            ),
            gpu_hours: round(g.gpu_hours, 3),
        })
        .collect()
}
