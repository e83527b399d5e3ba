//! Starts on many pools against a one-by-one walk: the scheduler finds a job's pools
//! through an index of what each pool's free GPUs could hold (`Cluster::next_fitting`),
//! and must start every job at the same time, in the same pool, on the same nodes as a
//! policy that asks the placer in every eligible pool in preference order, as
//! `SchedCtx::try_start` did before the index. Random clusters of 20-120 small pools
//! (three GPU types, 4- or 8-GPU nodes, spot pools, several speeds), jobs of every size
//! (gangs, shares, none), type-restricted and preemptible, under several placements and
//! pool orders, with node failures.

use crate::common::{config, workload};
use gpufleet::engine::{RngStreams, SimTime};
use gpufleet::faults::{FailureDist, FailureProcess, FaultConfig, Scope};
use gpufleet::model::Workload;
use gpufleet::model::{CapacityKind, GpuRequest, Job, JobId, NodeSpec, PoolSpec, TypeMask};
use gpufleet::sched::placement::PlacementKind;
use gpufleet::sched::{PolicyKind, PoolOrder, Progress, QueuePolicy, SchedCtx};
use gpufleet::sim::{RunResult, Simulation};
use gpufleet::workload::DurationDist;
use proptest::prelude::*;
use rand::Rng;
use std::collections::{BTreeSet, VecDeque};

/// Starts `id` in the first eligible pool, in preference order, where the placer finds
/// room and the budget allows it: every pool asked in turn.
fn walk_start(ctx: &mut SchedCtx, id: JobId) -> bool {
    let (jobs, pools) = (ctx.jobs, ctx.pools);
    let job = &jobs[id as usize];
    let work = ctx.planned_remaining(id);
    for p in pools.eligible(job) {
        let end = ctx.now.plus(pools.runtime_for(job, work, p));
        let found = ctx
            .placer
            .find(ctx.cluster, p, job.gpus, job.cpu_milli, job.mem_mib, None);
        if let Some(a) = found {
            if ctx.within_budget(id, &a, end) {
                ctx.start(id, a, end);
                return true;
            }
        }
    }
    false
}

/// Strict FIFO over [`walk_start`]: the head starts or blocks everything behind it.
#[derive(Default)]
struct FifoWalk {
    queue: VecDeque<JobId>,
}

impl QueuePolicy for FifoWalk {
    fn name(&self) -> &'static str {
        "fifo_walk"
    }
    fn push(&mut self, id: JobId, _job: &Job) {
        self.queue.push_back(id);
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
    fn schedule(&mut self, ctx: &mut SchedCtx) {
        while let Some(&head) = self.queue.front() {
            if !walk_start(ctx, head) {
                break;
            }
            self.queue.pop_front();
        }
    }
}

/// Greedy list scheduling over [`walk_start`]: every waiting job, by (submit, id), that
/// fits starts.
#[derive(Default)]
struct GreedyWalk {
    queue: BTreeSet<(SimTime, JobId)>,
}

impl QueuePolicy for GreedyWalk {
    fn name(&self) -> &'static str {
        "greedy_walk"
    }
    fn push(&mut self, id: JobId, job: &Job) {
        self.queue.insert((job.submit, id));
    }
    fn requeue(&mut self, id: JobId, job: &Job, _p: &Progress) {
        self.queue.insert((job.submit, id));
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
    fn schedule(&mut self, ctx: &mut SchedCtx) {
        let waiting: Vec<(SimTime, JobId)> = self.queue.iter().copied().collect();
        for (t, id) in waiting {
            if walk_start(ctx, id) {
                self.queue.remove(&(t, id));
            }
        }
    }
}

/// `n` small pools: types 0-2, 4 or 8 GPUs a node, 1-3 nodes, some spot, speeds 1, 1.5
/// or 2, CPU enough for two or three busy jobs a node.
pub(crate) fn many_pools(seed: u64, n: usize) -> Vec<PoolSpec> {
    let mut rng = RngStreams::new(seed).stream("pools");
    (0..n)
        .map(|i| PoolSpec {
            name: format!("p{i}"),
            gpu_type: rng.random_range(0..3),
            kind: [
                CapacityKind::Owned,
                CapacityKind::OnDemand,
                CapacityKind::Spot,
                CapacityKind::Owned,
            ][rng.random_range(0..4)],
            node: NodeSpec {
                gpus: [4, 8][rng.random_range(0..2)],
                cpu_milli: 24_000,
                mem_mib: 1 << 20,
            },
            nodes: rng.random_range(1..4),
            speed: [1.0, 1.5, 2.0][rng.random_range(0..3)],
        })
        .collect()
}

/// `n` jobs over `span_s` seconds: 1 to 24 GPUs (gangs over 4- and 8-GPU nodes), some
/// shares or no GPUs, some CPU-heavy; any type, one or two; a third preemptible.
pub(crate) fn many_pools_workload(seed: u64, n: usize, span_s: u64) -> Workload {
    let mut rng = RngStreams::new(seed).stream("jobs");
    let jobs = (0..n)
        .map(|i| {
            let gpus = match rng.random_range(0..20) {
                0 => GpuRequest::None,
                1 | 2 => GpuRequest::Fraction([250, 500, 750][rng.random_range(0..3)]),
                3 | 4 => GpuRequest::Whole([6, 8, 12, 16, 24][rng.random_range(0..5)]),
                _ => GpuRequest::Whole([1, 1, 2, 3, 4][rng.random_range(0..5)]),
            };
            let gpu_types = match rng.random_range(0..4) {
                0 => TypeMask::single(rng.random_range(0..3)),
                1 => TypeMask(0b11 << rng.random_range(0..2)),
                _ => TypeMask::ANY,
            };
            let work = SimTime::from_secs(rng.random_range(1..3_000));
            Job {
                name: format!("j{i}"),
                submit: SimTime::from_secs(rng.random_range(0..span_s)),
                gpus,
                gpu_types,
                cpu_milli: [0, 0, 4_000, 12_000][rng.random_range(0..4)],
                mem_mib: 0,
                work,
                estimate: None,
                tenant: 0,
                priority: 0,
                deadline: None,
                preemptible: rng.random_range(0..3) == 0,
                tags: Default::default(),
            }
        })
        .collect();
    let mut w = workload(jobs);
    w.gpu_types = vec!["A".into(), "B".into(), "C".into()];
    w
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

/// Every job's start, end, pool and node count.
type Outcome = Vec<(Option<SimTime>, Option<SimTime>, Option<u32>, u32)>;

fn outcome(r: &RunResult) -> Outcome {
    r.jobs
        .iter()
        .map(|j| (j.start, j.end, j.pool, j.nodes))
        .collect()
}

const PLACEMENTS: [PlacementKind; 6] = [
    PlacementKind::BestFit,
    PlacementKind::WorstFit,
    PlacementKind::Random,
    PlacementKind::Fgd,
    PlacementKind::FirstFit,
    PlacementKind::GpuPacking,
];

const ORDERS: [PoolOrder; 3] = [PoolOrder::Scenario, PoolOrder::ByKind, PoolOrder::Fastest];

/// Runs `w` on `pools` under `policy` and under `reference` (the same placement, pool
/// order, faults and seed).
fn run_both(
    pools: Vec<PoolSpec>,
    w: &Workload,
    (policy, reference): (PolicyKind, Box<dyn QueuePolicy>),
    (placement, order): (PlacementKind, PoolOrder),
    faults: Option<u64>,
) -> (RunResult, RunResult) {
    let mut cfg = config(pools, policy);
    cfg.placement = placement;
    cfg.options.pool_order = order;
    let with = |s: Simulation<'_>| match faults {
        Some(seed) => s.with_faults(failures(), &RngStreams::new(seed)).run(),
        None => s.run(),
    };
    let fast = with(Simulation::new(cfg.clone(), w));
    let slow = with(Simulation::with_policy(cfg, w, reference));
    (fast, slow)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn fifo_on_many_pools_starts_as_the_walk(
        seed in 0u64..1_000_000,
        pools in 20usize..120,
        n in 100usize..300,
        placement in 0usize..PLACEMENTS.len(),
        order in 0usize..ORDERS.len(),
        faulty in any::<bool>(),
    ) {
        let w = many_pools_workload(seed, n, 7_200);
        let (fast, slow) = run_both(
            many_pools(seed, pools),
            &w,
            (PolicyKind::Fifo, Box::<FifoWalk>::default()),
            (PLACEMENTS[placement], ORDERS[order]),
            faulty.then_some(seed),
        );
        prop_assert!(outcome(&slow).iter().filter(|o| o.0.is_some()).count() > n / 2);
        prop_assert_eq!(outcome(&fast), outcome(&slow));
    }

    #[test]
    fn greedy_on_many_pools_starts_as_the_walk(
        seed in 0u64..1_000_000,
        pools in 20usize..120,
        n in 100usize..300,
        placement in 0usize..PLACEMENTS.len(),
        order in 0usize..ORDERS.len(),
        faulty in any::<bool>(),
    ) {
        let w = many_pools_workload(seed, n, 3_600);
        let (fast, slow) = run_both(
            many_pools(seed, pools),
            &w,
            (PolicyKind::GreedyFifo, Box::<GreedyWalk>::default()),
            (PLACEMENTS[placement], ORDERS[order]),
            faulty.then_some(seed),
        );
        prop_assert!(outcome(&slow).iter().filter(|o| o.0.is_some()).count() > n / 2);
        prop_assert_eq!(outcome(&fast), outcome(&slow));
    }
}
