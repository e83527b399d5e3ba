//! Starts on many pools against a one-by-one walk: the scheduler finds a job's pools
//! through an index of what each pool's free GPUs could hold (`Cluster::next_fitting`),
//! and must start every job at the same time, in the same pool, on the same nodes as a
//! policy that asks the placer in every eligible pool in preference order, as
//! `SchedCtx::try_start` did before the index. Random clusters of 20-120 small pools
//! (three GPU types, 4- or 8-GPU nodes, spot pools, several speeds), jobs of every size
//! (gangs, shares, none), type-restricted and preemptible, under several placements and
//! pool orders, with node failures.
//!
//! The preempting policies and throughput per dollar are held to the same: SRTF against
//! a walk that lists victims pool by pool and counts free GPUs and the victims' needed
//! pool by pool on a copy of the cluster (as `SchedCtx::start_preempting` did before
//! its per-group sums and the index), throughput per dollar against ranking every
//! eligible pool by speed per dollar at each attempt (random prices, some free), and
//! Tiresias and priority against themselves on a cluster whose index is withdrawn
//! (every pool then asked in turn).

use crate::common::{config, workload};
use gpufleet::engine::{RngStreams, SimTime};
use gpufleet::faults::{FailureDist, FailureProcess, FaultConfig, Scope};
use gpufleet::model::Cluster;
use gpufleet::model::Workload;
use gpufleet::model::{CapacityKind, GpuRequest, Job, JobId, NodeSpec, PoolSpec, TypeMask};
use gpufleet::sched::placement::PlacementKind;
use gpufleet::sched::{PolicyKind, PoolOrder, Progress, QueuePolicy, SchedCtx, MAX_VICTIMS};
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

/// Starts `id` in pool `p` if the placer finds room there and the budget allows it.
fn start_in(ctx: &mut SchedCtx, id: JobId, p: usize) -> bool {
    let (jobs, pools) = (ctx.jobs, ctx.pools);
    let job = &jobs[id as usize];
    if !pools.allows(job, p) {
        return false;
    }
    let end = ctx
        .now
        .plus(pools.runtime_for(job, ctx.planned_remaining(id), p));
    let found = ctx
        .placer
        .find(ctx.cluster, p, job.gpus, job.cpu_milli, job.mem_mib, None);
    match found {
        Some(a) if ctx.within_budget(id, &a, end) => {
            ctx.start(id, a, end);
            true
        }
        _ => false,
    }
}

/// True when some pool of `c` that `job` may use has room for its whole GPUs: a node
/// with that many wholly free, or for a gang that many wholly free nodes' worth, read
/// pool by pool from the nodes.
fn whole_room(ctx: &SchedCtx, c: &Cluster, job: &Job) -> bool {
    let GpuRequest::Whole(w) = job.gpus else {
        return true;
    };
    ctx.pools.eligible(job).any(|p| {
        let g = c.pools()[p].spec.node.gpus as u32;
        let nodes = c.pool_nodes(p).filter(|&n| c.is_up(n));
        let frees: Vec<u32> = nodes.map(|n| c.free_whole(n) as u32).collect();
        g > 0
            && if w <= g {
                frees.iter().any(|&f| f >= w)
            } else {
                frees.iter().filter(|&&f| f == g).count() as u32 >= w.div_ceil(g)
            }
    })
}

/// Preempts `victims` for `id` as `SchedCtx::start_preempting` does, its checks made
/// pool by pool: the request against the free whole GPUs of every eligible pool plus the
/// victims' (else nothing changes), then how many victims must go before its GPUs could
/// fit, counted by freeing them one by one on a copy of the cluster.
fn walk_preempting(ctx: &mut SchedCtx, id: JobId, victims: &[JobId]) -> bool {
    let jobs = ctx.jobs;
    let job = &jobs[id as usize];
    let victims = &victims[..victims.len().min(MAX_VICTIMS)];
    let need = job.gpus.milli().div_ceil(1000);
    let free: u64 = ctx
        .pools
        .eligible(job)
        .map(|p| {
            ctx.cluster
                .pool_nodes(p)
                .filter(|&n| ctx.cluster.is_up(n))
                .map(|n| ctx.cluster.free_whole(n) as u64)
                .sum::<u64>()
        })
        .sum();
    let held: u64 = victims
        .iter()
        .filter_map(|&v| ctx.running.get(v))
        .map(|r| r.alloc.gpus.iter().map(|s| s.milli as u64).sum::<u64>() / 1000)
        .sum();
    if free + held < need {
        return false;
    }
    let mut c = ctx.cluster.clone();
    let mut first = None;
    if whole_room(ctx, &c, job) {
        first = Some(0);
    } else {
        for (i, &v) in victims.iter().enumerate() {
            if let Some(r) = ctx.running.get(v) {
                c.give_back(&r.alloc);
            }
            if whole_room(ctx, &c, job) {
                first = Some(i + 1);
                break;
            }
        }
    }
    match first {
        Some(first) => ctx.start_preempting_from(id, first, victims.iter().copied()),
        None => false,
    }
}

/// SRTF over [`walk_start`] and [`walk_preempting`]: the shortest remaining estimate
/// first; when it does not fit, the running jobs that would outlast it, pool by pool in
/// preference order, longest first, are preempted as it takes.
#[derive(Default)]
struct SrtfWalk {
    queue: BTreeSet<(u64, u64, JobId)>,
    seq: u64,
}

impl QueuePolicy for SrtfWalk {
    fn name(&self) -> &'static str {
        "srtf_walk"
    }
    fn push(&mut self, id: JobId, job: &Job) {
        self.queue.insert((job.planned_work().0, self.seq, id));
        self.seq += 1;
    }
    fn requeue(&mut self, id: JobId, job: &Job, p: &Progress) {
        self.queue
            .insert((p.left_of(job.planned_work()).0, self.seq, id));
        self.seq += 1;
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
    fn schedule(&mut self, ctx: &mut SchedCtx) {
        while let Some(&(left, seq, id)) = self.queue.first() {
            if walk_start(ctx, id) {
                self.queue.pop_first();
                continue;
            }
            let job = &ctx.jobs[id as usize];
            let mut victims = Vec::new();
            for p in ctx.pools.eligible(job) {
                let head = ctx.pools.runtime_for(job, SimTime(left), p).0;
                for (end, v) in ctx.running.latest_ends(p) {
                    if end.since(ctx.now).0 > head && victims.len() < MAX_VICTIMS {
                        victims.push(v);
                    } else {
                        break;
                    }
                }
            }
            if victims.is_empty() || !walk_preempting(ctx, id, &victims) {
                break;
            }
            self.queue.remove(&(left, seq, id));
        }
    }
}

/// Throughput per dollar over every eligible pool ranked at each attempt: speed over
/// the price of a GPU-hour, highest first (a free pool first), ties by pool index.
#[derive(Default)]
struct TpdWalk {
    queue: VecDeque<JobId>,
}

impl QueuePolicy for TpdWalk {
    fn name(&self) -> &'static str {
        "tpd_walk"
    }
    fn push(&mut self, id: JobId, _job: &Job) {
        self.queue.push_back(id);
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
    fn schedule(&mut self, ctx: &mut SchedCtx) {
        while let Some(&id) = self.queue.front() {
            let (jobs, pools) = (ctx.jobs, ctx.pools);
            let job = &jobs[id as usize];
            let value = |p: usize| match pools.gpu_hour_usd(p) {
                usd if usd <= 0.0 => f64::INFINITY,
                usd => pools.speed(p) / usd,
            };
            let mut ranked: Vec<usize> = pools.eligible(job).collect();
            ranked.sort_by(|&a, &b| value(b).total_cmp(&value(a)).then(a.cmp(&b)));
            if !ranked.into_iter().any(|p| start_in(ctx, id, p)) {
                break;
            }
            self.queue.pop_front();
        }
    }
}

/// A policy run on a cluster whose pool index is withdrawn before every pass (an
/// index under a key no pool choice has), so its starts and preemption checks ask every
/// pool in turn.
struct Unindexed(Box<dyn QueuePolicy>);

impl QueuePolicy for Unindexed {
    fn name(&self) -> &'static str {
        "unindexed"
    }
    fn push(&mut self, id: JobId, job: &Job) {
        self.0.push(id, job);
    }
    fn requeue(&mut self, id: JobId, job: &Job, p: &Progress) {
        self.0.requeue(id, job, p);
    }
    fn ended(&mut self, id: JobId, job: &Job) {
        self.0.ended(id, job);
    }
    fn stopped(&mut self, id: JobId, job: &Job) {
        self.0.stopped(id, job);
    }
    fn len(&self) -> usize {
        self.0.len()
    }
    fn schedule(&mut self, ctx: &mut SchedCtx) {
        if ctx.cluster.search_key() != Some(0) {
            ctx.cluster.set_search_order(0, &[]);
        }
        self.0.schedule(ctx);
    }
    fn invalidate(&mut self) {
        self.0.invalidate();
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

    #[test]
    fn srtf_on_many_pools_preempts_as_the_walk(
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
            (PolicyKind::Srtf, Box::<SrtfWalk>::default()),
            (PLACEMENTS[placement], ORDERS[order]),
            faulty.then_some(seed),
        );
        prop_assert!(outcome(&slow).iter().filter(|o| o.0.is_some()).count() > n / 2);
        prop_assert_eq!(outcome(&fast), outcome(&slow));
    }

    #[test]
    fn throughput_per_dollar_on_many_pools_starts_as_the_walk(
        seed in 0u64..1_000_000,
        pools in 20usize..120,
        n in 100usize..300,
        placement in 0usize..PLACEMENTS.len(),
        faulty in any::<bool>(),
    ) {
        let w = many_pools_workload(seed, n, 7_200);
        let specs = many_pools(seed, pools);
        let mut rng = RngStreams::new(seed).stream("prices");
        let prices: Vec<f64> = (0..pools)
            .map(|_| [0.0, 1.0, 2.0, 2.5, 3.0][rng.random_range(0..5)])
            .collect();
        let mut cfg = config(specs, PolicyKind::ThroughputPerDollar);
        cfg.placement = PLACEMENTS[placement];
        cfg.options.gpu_hour_usd = prices;
        let with = |s: Simulation<'_>| match faulty {
            true => s.with_faults(failures(), &RngStreams::new(seed)).run(),
            false => s.run(),
        };
        let fast = with(Simulation::new(cfg.clone(), &w));
        let slow = with(Simulation::with_policy(cfg, &w, Box::<TpdWalk>::default()));
        prop_assert!(outcome(&slow).iter().filter(|o| o.0.is_some()).count() > n / 2);
        prop_assert_eq!(outcome(&fast), outcome(&slow));
    }

    #[test]
    fn tiresias_and_priority_on_many_pools_as_without_the_index(
        seed in 0u64..1_000_000,
        pools in 20usize..120,
        n in 100usize..300,
        placement in 0usize..PLACEMENTS.len(),
        order in 0usize..ORDERS.len(),
        faulty in any::<bool>(),
        tiresias in any::<bool>(),
    ) {
        let mut w = many_pools_workload(seed, n, 3_600);
        for (i, j) in w.jobs.iter_mut().enumerate() {
            j.priority = (i % 3) as i32;
        }
        let policy = if tiresias { PolicyKind::Tiresias } else { PolicyKind::Priority };
        let (fast, slow) = run_both(
            many_pools(seed, pools),
            &w,
            (policy, Box::new(Unindexed(policy.build()))),
            (PLACEMENTS[placement], ORDERS[order]),
            faulty.then_some(seed),
        );
        prop_assert!(outcome(&slow).iter().filter(|o| o.0.is_some()).count() > n / 2);
        prop_assert_eq!(outcome(&fast), outcome(&slow));
    }
}
