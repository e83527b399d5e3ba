//! The optimised policies against simple reference implementations: on random small
//! workloads (several pools and speeds, gang and fractional jobs, host limits that
//! fragment nodes, wrong estimates, node failures), every job must start and end at the
//! same time in the same pool under both.

use crate::common::{config, workload};
use gpufleet::engine::{RngStreams, SimTime};
use gpufleet::faults::{FailureDist, FailureProcess, FaultConfig, Scope};
use gpufleet::model::{CapacityKind, NodeSpec, PoolSpec};
use gpufleet::model::{GpuRequest, Job, JobId, TypeMask, Workload, MILLI_PER_GPU};
use gpufleet::sched::{PolicyKind, Progress, QueuePolicy, SchedCtx};
use gpufleet::sim::{RunResult, SimConfig, Simulation};
use gpufleet::workload::DurationDist;
use proptest::prelude::*;
use rand::Rng;
use std::collections::VecDeque;

/// Conservative backfill planned from scratch at every pass, as first written: the
/// profile of free whole GPUs from the running jobs' planned ends, then each of the first
/// 32 waiting jobs in order at the earliest step where it fits for its whole duration
/// (every step tried, its whole window checked), started when that is now.
#[derive(Default)]
struct ConservativeFromScratch {
    queue: VecDeque<JobId>,
}

fn earliest(s: &[(SimTime, i64)], need: i64, d: SimTime) -> Option<SimTime> {
    (0..s.len())
        .find(|&i| {
            let end = s[i].0.plus(d);
            s[i].1 >= need
                && s[i + 1..]
                    .iter()
                    .take_while(|x| x.0 < end)
                    .all(|x| x.1 >= need)
        })
        .map(|i| s[i].0)
}

fn reserve(s: &mut Vec<(SimTime, i64)>, t: SimTime, need: i64, d: SimTime) {
    let end = t.plus(d);
    for at in [t, end] {
        if let Err(pos) = s.binary_search_by_key(&at, |x| x.0) {
            let before = if pos == 0 { 0 } else { s[pos - 1].1 };
            s.insert(pos, (at, before));
        }
    }
    for step in s.iter_mut() {
        if step.0 >= t && step.0 < end {
            step.1 -= need;
        }
    }
}

impl QueuePolicy for ConservativeFromScratch {
    fn name(&self) -> &'static str {
        "conservative_from_scratch"
    }
    fn push(&mut self, id: JobId, _job: &Job) {
        self.queue.push_back(id);
    }
    fn requeue(&mut self, id: JobId, _job: &Job, _p: &Progress) {
        self.queue.push_front(id);
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
    fn schedule(&mut self, ctx: &mut SchedCtx) {
        let mut prof: Vec<Vec<(SimTime, i64)>> = (0..ctx.pools.len())
            .map(|p| {
                let mut steps = vec![(ctx.now, ctx.cluster.pool_free_whole_gpus(p) as i64)];
                for (end, id) in ctx.running.by_planned_end(p) {
                    let r = ctx.running.get(id).unwrap();
                    let milli: u64 = r.alloc.gpus.iter().map(|s| s.milli as u64).sum();
                    let g = (milli / MILLI_PER_GPU as u64) as i64;
                    let at = end.max(ctx.now);
                    let last = steps.last().unwrap().1;
                    match steps.last_mut() {
                        Some(l) if l.0 == at => l.1 += g,
                        _ => steps.push((at, last + g)),
                    }
                }
                steps
            })
            .collect();
        let (mut i, mut seen) = (0, 0);
        while i < self.queue.len() && seen < 32 {
            seen += 1;
            let id = self.queue[i];
            let job = &ctx.jobs[id as usize];
            let work = ctx.planned_remaining(id);
            let mut best: Option<(SimTime, usize, i64, SimTime)> = None;
            for p in ctx.pools.eligible(job) {
                let gpn = ctx.cluster.pools()[p].spec.node.gpus as i64;
                let need = match job.gpus {
                    GpuRequest::None => 0,
                    GpuRequest::Fraction(_) => 1,
                    GpuRequest::Whole(w) if w as i64 > gpn => (w as i64 + gpn - 1) / gpn * gpn,
                    GpuRequest::Whole(w) => w as i64,
                };
                let d = ctx.pools.runtime_for(job, work, p);
                if let Some(t) = earliest(&prof[p], need, d) {
                    if best.is_none_or(|b| t < b.0) {
                        best = Some((t, p, need, d));
                    }
                }
            }
            let Some((t, p, need, d)) = best else {
                i += 1;
                continue;
            };
            if t == ctx.now && ctx.try_start_in(id, p) {
                self.queue.remove(i);
            } else {
                i += 1;
            }
            reserve(&mut prof[p], t, need, d);
        }
    }
}

fn pools() -> Vec<PoolSpec> {
    let pool = |name: &str, nodes, gpus, speed| PoolSpec {
        name: name.into(),
        gpu_type: 0,
        kind: CapacityKind::Owned,
        node: NodeSpec {
            gpus,
            cpu_milli: 16_000,
            mem_mib: 1 << 20,
        },
        nodes,
        speed,
    };
    vec![pool("a", 3, 4, 1.0), pool("b", 2, 8, 1.5)]
}

/// `n` jobs over about `span_s` seconds: 1 to 16 GPUs (gangs over 4- or 8-GPU nodes),
/// some fractional or GPU-less, some asking most of a node's CPU, estimates right, short
/// or long.
fn random_workload(seed: u64, n: usize, span_s: u64) -> Workload {
    let mut rng = RngStreams::new(seed).stream("oracle");
    let jobs = (0..n)
        .map(|i| {
            let gpus = match rng.random_range(0..20) {
                0 => GpuRequest::None,
                1 | 2 => GpuRequest::Fraction([250, 500, 750][rng.random_range(0..3)]),
                3 | 4 => GpuRequest::Whole([6, 8, 12, 16][rng.random_range(0..4)]),
                _ => GpuRequest::Whole([1, 1, 2, 3, 4][rng.random_range(0..5)]),
            };
            let work = SimTime::from_secs(rng.random_range(1..3_000));
            let estimate = match rng.random_range(0..4) {
                0 => Some(SimTime(work.0 / 2 + 1)),
                1 => Some(SimTime(work.0 * 2)),
                _ => None,
            };
            Job {
                name: format!("j{i}"),
                submit: SimTime::from_secs(rng.random_range(0..span_s)),
                gpus,
                gpu_types: TypeMask::ANY,
                cpu_milli: [0, 0, 2_000, 12_000][rng.random_range(0..4)],
                mem_mib: 0,
                work,
                estimate,
                tenant: 0,
                priority: 0,
                deadline: None,
                preemptible: false,
                tags: Default::default(),
            }
        })
        .collect();
    workload(jobs)
}

fn outcome(r: &RunResult) -> Vec<(Option<SimTime>, Option<SimTime>, Option<u32>)> {
    r.jobs.iter().map(|j| (j.start, j.end, j.pool)).collect()
}

fn run_both(
    cfg: SimConfig,
    w: &Workload,
    reference: Box<dyn QueuePolicy>,
    faults: Option<(FaultConfig, u64)>,
) -> (RunResult, RunResult) {
    let with = |s: Simulation<'_>| match &faults {
        Some((f, seed)) => s.with_faults(f.clone(), &RngStreams::new(*seed)).run(),
        None => s.run(),
    };
    let fast = with(Simulation::new(cfg.clone(), w));
    let slow = with(Simulation::with_policy(cfg, w, reference));
    (fast, slow)
}

fn failures() -> FaultConfig {
    let mut f = FaultConfig::none();
    // About one failure per node every 5 hours, repaired in 10 minutes.
    f.processes.push((
        FailureProcess {
            rate_per_day: 4.8,
            scope: Scope::Node,
            dist: FailureDist::Exponential,
            causes: vec![],
        },
        vec![],
    ));
    f.repair = DurationDist::Fixed {
        value: SimTime::from_secs(600),
    };
    f
}

/// One pool of 8-GPU nodes, kept full: gangs that find whole GPUs but no whole nodes get
/// stuck at their reservations, and the jobs planned behind them are planned again.
fn one_full_pool() -> Vec<PoolSpec> {
    let mut p = pools().swap_remove(1);
    p.nodes = 4;
    p.speed = 1.0;
    vec![p]
}

/// Cases per oracle test: 48 in the test suite, `ORACLE_CASES` to run more (thousands,
/// when the policy's planning changes).
fn oracle_cases() -> u32 {
    std::env::var("ORACLE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: oracle_cases(), .. ProptestConfig::default() })]

    #[test]
    fn conservative_backfill_stuck_reservations_as_planning_from_scratch(
        seed in 0u64..1_000_000,
        n in 60usize..160,
        faulty in any::<bool>(),
    ) {
        let w = random_workload(seed, n, 3_600);
        let cfg = config(one_full_pool(), PolicyKind::ConservativeBackfill);
        let faults = faulty.then(|| (failures(), seed));
        let (fast, slow) = run_both(cfg, &w, Box::<ConservativeFromScratch>::default(), faults);
        prop_assert_eq!(fast.events, slow.events);
        prop_assert_eq!(outcome(&fast), outcome(&slow));
    }

    #[test]
    fn conservative_backfill_on_many_pools_as_planning_from_scratch(
        seed in 0u64..1_000_000,
        pools in 16usize..80,
        n in 100usize..250,
        faulty in any::<bool>(),
    ) {
        // Enough pools for a search to skip pools by their bounds
        // (`conservative_backfill/bounds.rs`), of three types, spot or not, at several
        // speeds, for jobs of one type, two or any, a third preemptible: and a kept plan
        // checked only in the pools where jobs ended, unless nodes failed.
        let w = crate::pools_oracle::many_pools_workload(seed, n, 3_600);
        let pools = crate::pools_oracle::many_pools(seed, pools);
        let cfg = config(pools, PolicyKind::ConservativeBackfill);
        let faults = faulty.then(|| (failures(), seed));
        let (fast, slow) = run_both(cfg, &w, Box::<ConservativeFromScratch>::default(), faults);
        prop_assert!(outcome(&slow).iter().filter(|o| o.0.is_some()).count() > n / 2);
        prop_assert_eq!(fast.events, slow.events);
        prop_assert_eq!(outcome(&fast), outcome(&slow));
    }

    #[test]
    fn conservative_backfill_starts_as_planning_from_scratch(
        seed in 0u64..1_000_000,
        n in 20usize..120,
        crowded in any::<bool>(),
        faulty in any::<bool>(),
    ) {
        // Crowded: the jobs arrive over an hour (deep queues); else over a day.
        let w = random_workload(seed, n, if crowded { 3_600 } else { 86_400 });
        let cfg = config(pools(), PolicyKind::ConservativeBackfill);
        let faults = faulty.then(|| (failures(), seed));
        let (fast, slow) = run_both(cfg, &w, Box::<ConservativeFromScratch>::default(), faults);
        prop_assert_eq!(fast.events, slow.events);
        prop_assert_eq!(outcome(&fast), outcome(&slow));
    }
}
