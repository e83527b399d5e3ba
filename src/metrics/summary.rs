//! The run summary: every headline figure, with the key names scripts rely on.

use super::jobs::{job_table, JobTable, MetricsOptions};
use super::research::{research_figures, tenant_research};
use crate::engine::SimTime;
use crate::model::Workload;
use crate::pricing::{CostKind, Ledger};
use crate::sim::{JobOutcome, RunResult};
use indexmap::IndexMap;
use serde::Serialize;

/// Mean and nearest-rank percentiles of a sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct Quantiles {
    /// Arithmetic mean (0 for an empty sample).
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
}

impl Quantiles {
    /// From unsorted values. Percentiles use the nearest-rank method: the p-th percentile
    /// is the smallest value with at least p % of the sample at or below it.
    pub fn of(mut v: Vec<f64>) -> Quantiles {
        if v.is_empty() {
            return Quantiles::default();
        }
        let n = v.len();
        let rank = |p: f64| ((p / 100.0 * n as f64).ceil() as usize).clamp(1, n);
        let mean = super::sort::sum(&v) / n as f64;
        let at = super::sort::at_ranks(&mut v, &[rank(50.0), rank(95.0), rank(99.0)]);
        Quantiles {
            mean,
            p50: at[0],
            p95: at[1],
            p99: at[2],
        }
    }
}

/// Quantiles over every job that was eligible, with the ones still open at the end of the
/// run counted at a lower bound (right-censored): a job still waiting at the horizon counts
/// as having waited until the horizon. Percentiles over only the jobs that got there skip
/// exactly the jobs that fared worst.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct CensoredQuantiles {
    /// Arithmetic mean (a lower bound when `censored > 0`).
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Jobs covered.
    pub jobs: u64,
    /// Of which counted at the end of the run (still open then).
    pub censored: u64,
}

impl CensoredQuantiles {
    /// From `(value, censored)` pairs, values in seconds (rounded to the millisecond).
    pub(super) fn of_iter(v: impl Iterator<Item = (f64, bool)>) -> CensoredQuantiles {
        let mut censored = 0u64;
        let values: Vec<f64> = v
            .map(|(x, c)| {
                censored += c as u64;
                x
            })
            .collect();
        CensoredQuantiles::of_values(values, censored)
    }

    /// From the values (seconds, rounded to the millisecond) and how many are censored.
    pub(super) fn of_values(values: Vec<f64>, censored: u64) -> CensoredQuantiles {
        let jobs = values.len() as u64;
        let q = round_q(Quantiles::of(values));
        CensoredQuantiles {
            mean: q.mean,
            p50: q.p50,
            p95: q.p95,
            p99: q.p99,
            jobs,
            censored,
        }
    }
}

/// Job counts by outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct JobCounts {
    /// Jobs whose submit time fell within the run.
    pub submitted: u64,
    /// Jobs that finished their work.
    pub completed: u64,
    /// Jobs that gave up.
    pub failed: u64,
    /// Jobs that could never fit the cluster.
    pub rejected: u64,
    /// Submitted jobs still queued or running at the end.
    pub unfinished: u64,
    /// Jobs that started.
    pub started: u64,
    /// Jobs of the workload whose submit time fell after the end of the run (a trace
    /// longer than the horizon): not simulated, and not in `jobs.csv`.
    pub not_submitted: u64,
}

/// GPU-hours of the fleet.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct GpuHours {
    /// Held by the fleet, used or not.
    pub provisioned: f64,
    /// Held by running jobs.
    pub busy: f64,
}

/// Who ran, with what, for how long (the identity of a run).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunMeta {
    /// Scenario name.
    pub scenario: String,
    /// Hash of the scenario text (FNV-1a 64, hex).
    pub scenario_hash: String,
    /// Master seed.
    pub seed: u64,
    /// Queue policy.
    pub policy: String,
}

/// The most tenants whose figures `summary.json` holds itself; past it they go to
/// `tenants.csv` (see [`Summary::tenants_in_csv`]).
pub const MAX_TENANTS_IN_SUMMARY: usize = 1_000;

/// Everything `summary.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Summary {
    /// Master seed.
    pub seed: u64,
    /// Scenario name.
    pub scenario: String,
    /// Hash of the scenario text.
    pub scenario_hash: String,
    /// gpufleet version.
    pub gpufleet_version: String,
    /// Queue policy.
    pub policy: String,
    /// Simulated span in hours.
    pub simulated_hours: f64,
    /// Job counts.
    pub jobs: JobCounts,
    /// Wait (start - submit) of started jobs, seconds.
    pub wait_s: Quantiles,
    /// Job completion time (end - submit) of completed jobs, seconds.
    pub jct_s: Quantiles,
    /// Wait to first start of every submitted job that could fit the cluster, seconds;
    /// jobs that never started count their wait up to the end of the run (censored).
    pub wait_all_s: CensoredQuantiles,
    /// Completion time of every submitted job that could fit the cluster (completed or
    /// failed: end - submit), seconds; jobs still open at the end count up to it (censored).
    pub jct_all_s: CensoredQuantiles,
    /// Queueing delay, slowdowns, fairness, makespan, throughput, preemptions and
    /// restarts per job, GPU-hours by outcome (flattened into `summary.json`).
    #[serde(flatten)]
    pub research: super::research::ResearchFigures,
    /// Fleet GPU-hours.
    pub gpu_hours: GpuHours,
    /// busy / provisioned.
    pub utilization: f64,
    /// Dollars: `total` and one entry per pool.
    pub cost_usd: IndexMap<String, f64>,
    /// Dollars by kind of cost.
    pub cost_by_kind_usd: IndexMap<String, f64>,
    /// Dollars by tenant (busy compute only; idle capacity is nobody's).
    pub cost_by_tenant_usd: IndexMap<String, f64>,
    /// Per tenant: jobs completed, wait and completion-time quantiles, lost GPU-hours.
    pub by_tenant: IndexMap<String, TenantFigures>,
    /// Set, to the number of tenants, when there are more than
    /// [`MAX_TENANTS_IN_SUMMARY`]: `cost_by_tenant_usd` and `by_tenant` are then empty and
    /// `tenants.csv` holds a row per tenant (a trace of 200,000 users made a 200 MB
    /// `summary.json` and a sweep's records of millions of columns).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenants_in_csv: Option<u64>,
    /// The per-tenant figures moved out of the summary, for `tenants.csv`: `(tenant,
    /// dollars, figures)` in tenant order.
    #[serde(skip)]
    pub tenant_rows: Option<std::sync::Arc<Vec<(String, f64, TenantFigures)>>>,
    /// Total cost / busy GPU-hours.
    pub cost_per_busy_gpu_hour_usd: f64,
    /// Total cost / completed jobs.
    pub cost_per_completed_job_usd: f64,
    /// GPU-hours of computation lost to kills (work redone).
    pub lost_gpu_hours: f64,
    /// GPU-hours spent writing checkpoints.
    pub checkpoint_gpu_hours: f64,
    /// GPU-hours spent restarting after kills.
    pub restart_gpu_hours: f64,
    /// Effective training time ratio of the fleet's jobs: useful GPU-time over GPU-time
    /// from each job's first start to its end (or the end of the run).
    pub ettr: f64,
    /// Job interruptions (kills) in total and by cause.
    pub interruptions: CauseCounts,
    /// Node failures (busy or idle nodes) in total and by cause.
    pub node_failures: CauseCounts,
    /// Per pool: its cost / its busy GPU-hours (for owned hardware, the effective
    /// $/GPU-hour at the simulated utilization); 0 for a pool that did no work.
    pub cost_per_busy_gpu_hour_by_pool_usd: IndexMap<String, f64>,
    /// Trace rows not turned into jobs: bad rows skipped (`skip_bad_rows`) and rows
    /// dropped by filters or marked unusable by the trace, by reason. Nothing is dropped
    /// silently.
    pub trace_rows: TraceRows,
    /// Events processed.
    pub events: u64,
    /// Why a run without a horizon stopped before every job had ended (absent when it did
    /// not): the jobs it left are `unfinished`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut_short: Option<crate::sim::CutShort>,
    /// Datasets staged, runs' spread and throughput (only with the cloud model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cloud: Option<super::CloudFigures>,
}

/// Trace rows that did not become jobs.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct TraceRows {
    /// Bad rows skipped.
    pub skipped_bad: u64,
    /// Rows dropped on purpose, by reason.
    pub dropped: IndexMap<String, u64>,
}

/// One tenant's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct TenantFigures {
    /// Jobs of the tenant that completed.
    pub completed: u64,
    /// Wait of its started jobs, seconds.
    pub wait_s: Quantiles,
    /// Completion time of its completed jobs, seconds.
    pub jct_s: Quantiles,
    /// GPU-hours its jobs lost to kills and preemptions.
    pub lost_gpu_hours: f64,
    /// Its research figures, censored at the end like the fleet's (flattened).
    #[serde(flatten)]
    pub research: super::research::TenantResearch,
}

/// A count with its breakdown by cause.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct CauseCounts {
    /// Sum over causes.
    pub total: u64,
    /// Count per cause.
    pub by_cause: IndexMap<String, u64>,
}

impl CauseCounts {
    fn of(v: &[(String, u64)]) -> CauseCounts {
        let mut v = v.to_vec();
        // Most frequent first, then by name: a stable, readable order.
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        CauseCounts {
            total: v.iter().map(|x| x.1).sum(),
            by_cause: v.into_iter().collect(),
        }
    }
}

pub(super) fn round(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    let r = (x * f).round() / f;
    // No "-0.0" in outputs: a sum of rounding dust is zero.
    if r == 0.0 {
        0.0
    } else {
        r
    }
}

/// Builds the summary of a run with the default metric options (bounded slowdown's bound
/// at 10 s).
pub fn build_summary(meta: &RunMeta, w: &Workload, r: &RunResult, ledger: &Ledger) -> Summary {
    build_summary_with(meta, w, r, ledger, &MetricsOptions::default())
}

/// Builds the summary of a run.
pub fn build_summary_with(
    meta: &RunMeta,
    w: &Workload,
    r: &RunResult,
    ledger: &Ledger,
    opts: &MetricsOptions,
) -> Summary {
    let table = job_table(w, r, opts);
    build_summary_from(meta, w, r, ledger, &table)
}

/// Builds the summary of a run from its job table (see [`job_table`]), for callers that
/// use the table for more (sketches, per-job columns).
pub fn build_summary_from(
    meta: &RunMeta,
    w: &Workload,
    r: &RunResult,
    ledger: &Ledger,
    table: &JobTable,
) -> Summary {
    // Every pass over a million job records costs: one gathers the counts, the waits and
    // the GPU-hours; the research and tenant figures are built beside it on another thread.
    let ((research, tenant_figs), (wait_all_s, jct_all_s)) = rayon::join(
        || {
            rayon::join(
                || research_figures(w, r, table),
                || tenant_figures(w, r, table),
            )
        },
        || {
            (
                CensoredQuantiles::of_iter(table.jobs.iter().map(|f| f.wait())),
                CensoredQuantiles::of_iter(table.jobs.iter().map(|f| f.jct())),
            )
        },
    );
    let mut jobs = JobCounts::default();
    let mut waits = Vec::new();
    let mut jcts = Vec::new();
    let (mut useful, mut lost, mut ckpt, mut restart, mut wall) = (0f64, 0f64, 0f64, 0f64, 0f64);
    for (i, rec) in r.jobs.iter().enumerate() {
        if let Some(start) = rec.start {
            let g = rec.gpu_milli as f64 / 1000.0 / 3.6e6;
            useful += g * rec.useful.0 as f64;
            lost += g * rec.lost.0 as f64;
            ckpt += g * rec.checkpoint.0 as f64;
            restart += g * rec.restart.0 as f64;
            wall += g * rec.end.unwrap_or(r.end).since(start).0 as f64;
        }
        if !rec.submitted {
            jobs.not_submitted += 1;
            continue;
        }
        let submit = w.jobs[i].submit;
        jobs.submitted += 1;
        if let Some(start) = rec.start {
            jobs.started += 1;
            waits.push(start.since(submit).secs_f64());
        }
        match rec.outcome {
            JobOutcome::Completed => {
                jobs.completed += 1;
                jcts.push(rec.end.unwrap_or(SimTime::ZERO).since(submit).secs_f64());
            }
            JobOutcome::Failed => jobs.failed += 1,
            JobOutcome::Rejected => jobs.rejected += 1,
            JobOutcome::Unfinished => jobs.unfinished += 1,
        }
    }
    let provisioned: u128 = r.pools.iter().map(|p| p.provisioned_gpu_ms).sum();
    let busy: u128 = r.pools.iter().map(|p| p.busy_gpu_ms).sum();
    let gh = GpuHours {
        provisioned: provisioned as f64 / 3.6e6,
        busy: busy as f64 / 3.6e6,
    };
    let total = ledger.total();
    let mut cost_usd = IndexMap::new();
    cost_usd.insert("total".to_string(), round(total, 2));
    let by_pool = ledger.sums_by(r.pools.len(), |k| Some(k.pool as usize));
    for (pool, usd) in r.pools.iter().zip(&by_pool) {
        cost_usd.insert(pool.name.clone(), round(*usd, 2));
    }
    let mut by_kind = IndexMap::new();
    for kind in CostKind::ALL {
        by_kind.insert(
            kind.as_str().to_string(),
            round(ledger.sum_where(|k| k.kind == kind), 2),
        );
    }
    let mut by_pool_rate = IndexMap::new();
    for (pool, &usd) in r.pools.iter().zip(&by_pool) {
        let busy_h = pool.busy_gpu_ms as f64 / 3.6e6;
        by_pool_rate.insert(
            pool.name.clone(),
            if busy_h > 0.0 {
                round(usd / busy_h, 4)
            } else {
                0.0
            },
        );
    }
    let mut by_tenant = IndexMap::new();
    let tenant_usd = ledger.sums_by(w.tenants.len(), |k| k.tenant.map(|t| t as usize));
    for (name, usd) in w.tenants.iter().zip(&tenant_usd) {
        by_tenant.insert(name.clone(), round(*usd, 2));
    }
    let mut tenant_figs = tenant_figs;
    let (tenants_in_csv, tenant_rows) =
        if by_tenant.len().max(tenant_figs.len()) > MAX_TENANTS_IN_SUMMARY {
            let n = by_tenant.len().max(tenant_figs.len());
            // Both maps follow the workload's tenant list.
            let rows: Vec<(String, f64, TenantFigures)> = std::mem::take(&mut by_tenant)
                .into_iter()
                .zip(std::mem::take(&mut tenant_figs))
                .map(|((name, usd), (_, f))| (name, usd, f))
                .collect();
            (Some(n as u64), Some(std::sync::Arc::new(rows)))
        } else {
            (None, None)
        };
    Summary {
        seed: meta.seed,
        scenario: meta.scenario.clone(),
        scenario_hash: meta.scenario_hash.clone(),
        gpufleet_version: crate::VERSION.to_string(),
        policy: meta.policy.clone(),
        simulated_hours: round(r.end.hours_f64(), 4),
        jobs,
        wait_s: round_q(Quantiles::of(waits)),
        jct_s: round_q(Quantiles::of(jcts)),
        wait_all_s,
        jct_all_s,
        research,
        gpu_hours: GpuHours {
            provisioned: round(gh.provisioned, 3),
            busy: round(gh.busy, 3),
        },
        utilization: if provisioned > 0 {
            round(busy as f64 / provisioned as f64, 6)
        } else {
            0.0
        },
        cost_usd,
        cost_by_kind_usd: by_kind,
        cost_by_tenant_usd: by_tenant,
        by_tenant: tenant_figs,
        tenants_in_csv,
        tenant_rows,
        cost_per_busy_gpu_hour_usd: if gh.busy > 0.0 {
            round(total / gh.busy, 4)
        } else {
            0.0
        },
        cost_per_completed_job_usd: if jobs.completed > 0 {
            round(total / jobs.completed as f64, 4)
        } else {
            0.0
        },
        lost_gpu_hours: round(lost, 3),
        checkpoint_gpu_hours: round(ckpt, 3),
        restart_gpu_hours: round(restart, 3),
        ettr: if wall > 0.0 {
            round(useful / wall, 6)
        } else {
            0.0
        },
        interruptions: r
            .faults
            .as_ref()
            .map(|f| CauseCounts::of(&f.interruptions))
            .unwrap_or_default(),
        node_failures: r
            .faults
            .as_ref()
            .map(|f| CauseCounts::of(&f.node_failures))
            .unwrap_or_default(),
        cost_per_busy_gpu_hour_by_pool_usd: by_pool_rate,
        trace_rows: TraceRows {
            skipped_bad: w.skipped_rows,
            dropped: w.filtered.iter().cloned().collect(),
        },
        events: r.events,
        cut_short: r.cut_short,
        cloud: super::cloud_figures(w, r),
    }
}

fn tenant_figures(w: &Workload, r: &RunResult, t: &JobTable) -> IndexMap<String, TenantFigures> {
    let mut research = tenant_research(w, t).into_iter();
    let n = w.tenants.len();
    let mut waits = vec![Vec::new(); n];
    let mut jcts = vec![Vec::new(); n];
    let mut completed = vec![0u64; n];
    let mut lost = vec![0f64; n];
    for (i, rec) in r.jobs.iter().enumerate() {
        let j = &w.jobs[i];
        let t = j.tenant as usize;
        if !rec.submitted || t >= n {
            continue;
        }
        if let Some(start) = rec.start {
            waits[t].push(start.since(j.submit).secs_f64());
        }
        if rec.outcome == JobOutcome::Completed {
            completed[t] += 1;
            jcts[t].push(rec.end.unwrap_or(SimTime::ZERO).since(j.submit).secs_f64());
        }
        lost[t] += rec.gpu_milli as f64 / 1000.0 * rec.lost.hours_f64();
    }
    w.tenants
        .iter()
        .enumerate()
        .map(|(t, name)| {
            (
                name.clone(),
                TenantFigures {
                    completed: completed[t],
                    wait_s: round_q(Quantiles::of(std::mem::take(&mut waits[t]))),
                    jct_s: round_q(Quantiles::of(std::mem::take(&mut jcts[t]))),
                    lost_gpu_hours: round(lost[t], 3),
                    research: research.next().unwrap_or_default(),
                },
            )
        })
        .collect()
}

pub(super) fn round_q(q: Quantiles) -> Quantiles {
    Quantiles {
        mean: round(q.mean, 3),
        p50: round(q.p50, 3),
        p95: round(q.p95, 3),
        p99: round(q.p99, 3),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        // 1..=100: p50 = 50, p95 = 95, p99 = 99 by nearest rank; mean 50.5.
        let q = Quantiles::of((1..=100).map(|x| x as f64).collect());
        assert_eq!((q.mean, q.p50, q.p95, q.p99), (50.5, 50.0, 95.0, 99.0));
        let q = Quantiles::of(vec![3.0]);
        assert_eq!((q.p50, q.p99), (3.0, 3.0));
    }
}
