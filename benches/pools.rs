//! Time replay on many small pools: 60,000 synthetic jobs on 100, 500 and 2,000 pools of
//! 2-4 nodes each (four GPU types, 8 or 4 GPUs a node, every fifth pool spot), a third of
//! the jobs allowed any type and the rest one type, sizes 1-16 GPUs, at 110 % offered
//! load. A job's start attempt used to walk every candidate pool and call the placer in
//! each, so a pass over a long queue cost pools x waiting jobs; issue #18 asks that every
//! input end in time that does not grow so. Prints wall time and the schedule as a hash
//! of every job's start, end, pool and nodes per policy (outside `replay`, so callgrind's
//! `--toggle-collect='pools::replay*'` does not count it).
//!
//! Run: `cargo bench --bench pools` (add `pools=500` for one size, `load=95` for another
//! offered load, `jobs=N` to size the workload, policy names to run only those).
//!
//! Figures, 2026-12-07 (release; schedule hashes identical before and after for every
//! policy and size). Before: a start attempt asked the placer in every eligible pool in
//! turn. After: the cluster indexes the pools by what their free GPUs could hold
//! (`src/model/pool_index.rs`) and an attempt asks only pools that may hold the job, found
//! in O(log pools) per eligibility group (`SchedCtx::first_fit`); EASY backfill reads a
//! class's fastest speed from per-group maxima.
//! Instructions (callgrind, `--toggle-collect='pools::replay*'`, `pools=500 jobs=10000
//! load=110`, one policy a run): FIFO 536.7M -> 65.4M (8.2x fewer), EASY backfill
//! 3,216.5M -> 149.1M (21.6x), greedy FIFO 1,380.7M -> 178.3M (7.7x), Tiresias 878.3M ->
//! 620.3M (1.4x), conservative backfill 2,638.3M -> 2,801.1M (+6 %: its time is its own
//! per-pool profile searches, `Plan::best` over every eligible pool, where the build
//! inlined `Profile::advance` differently; addressed below).
//! Wall time, 60,000 jobs at 110 % (the machine shared with builds, +-50 %; before run
//! alone, after next to a build), before -> after, seconds:
//! 500 pools: FIFO 0.46 -> 0.18-0.46, EASY 18.9 -> 1.6-2.0, greedy FIFO 8.1 -> 0.3-1.5,
//! greedy SJF 8.2 -> 0.2-1.2, SJF 1.6 -> 0.07-0.45, SRTF 3.9 -> 0.7-2.5, Tiresias 6.1 ->
//! 1.5-4.8, priority 1.9 -> 0.2-0.8, fair share 3.3 -> 0.2-0.55, throughput per dollar
//! 2.6 -> 0.7-2.6, conservative backfill 10.7 -> 3.2-11.0.
//! 2,000 pools, 03:32 UTC on a quiet machine, the two builds run one after the other:
//! FIFO 1.51 -> 0.14, EASY 10.8 -> 0.33, greedy FIFO 5.2 -> 0.60, greedy SJF 3.7 -> 0.52,
//! SJF 1.36 -> 0.15, priority 1.33 -> 0.20, fair share 2.18 -> 0.31; alternated twice:
//! SRTF 2.89-2.99 -> 1.80-2.39, Tiresias 3.42-3.56 -> 2.83-3.17 (its preemption checks
//! still sum every eligible pool's free GPUs), throughput per dollar 2.05-2.22 ->
//! 2.04-2.05 (it ranks every eligible pool per attempt); conservative backfill 38.5 ->
//! 39.9 under load (per-pool profiles: `Plan::best` searches every eligible pool).
//! Few pools (`benches/policies.rs quick load=90`, callgrind on the replay, after only):
//! FIFO 473.5M, conservative backfill 1,251.8M (schedule 29414ddcdaf69f0d), Tiresias
//! 921.6M, against 476.4M, 1,247.8M and 914M in that bench's latest figures.
//!
//! Figures, 2026-12-07 06:00 UTC (release; schedule hashes identical before and after for
//! every policy at 100, 500 and 2,000 pools, and in `benches/policies.rs quick`). Before:
//! a preemption's checks summed the free GPUs of every eligible pool and searched the
//! eligible-pool list once per victim, Tiresias asked every eligible pool whether a job
//! could fit before each attempt, SRTF walked every eligible pool for victims, and
//! throughput per dollar sorted every eligible pool per attempt. After: the cluster sums
//! free whole GPUs per eligibility group (`Cluster::free_whole_gpus_where`), "fits
//! anywhere now" reads each group's tree root (`Cluster::any_fitting`), the victim count
//! reads only the victims' pools, SRTF finds pools with a job that outlasts the head
//! through a max-tree of latest planned ends (`srtf.rs`), and throughput per dollar ranks
//! the pools once per pool choice and finds the first that may hold a job through a
//! second pool index in that ranking (`Cluster::add_search_order`).
//! Instructions (callgrind, `--toggle-collect='pools::replay*'`, `pools=500 jobs=10000`,
//! one policy a run): SRTF 800.5M -> 366.1M (2.2x fewer), Tiresias 610.3M -> 198.2M
//! (3.1x), throughput per dollar 554.7M -> 70.3M (7.9x); FIFO 66.0M -> 66.5M and priority
//! 87.3M -> 87.7M (the per-group sums kept as nodes move).
//! Wall time, 60,000 jobs at 110 %, quiet machine, before and after alternated twice,
//! seconds: 2,000 pools: SRTF 1.24-1.32 -> 0.36-0.37, Tiresias 1.99-2.00 -> 0.80-0.86,
//! throughput per dollar 0.94-0.96 -> 0.11; 500 pools: 0.55 -> 0.31, 1.05 -> 0.68, 0.33
//! -> 0.07; 100 pools: 0.26 -> 0.14, 0.40 -> 0.34, 0.12 -> 0.05.
//! Few pools (`benches/policies.rs quick`, callgrind `--toggle-collect='policies::replay*'`,
//! before -> after on this machine): FIFO 479.4M -> 483.7M at 90 % (+0.9 %), Tiresias
//! 924.8M -> 939.4M at 90 % (+1.6 %) and 2,848.6M -> 2,946.8M at 105 % (+3.4 %: the group
//! sums in `Cluster::reindex`, and the event heap's `pop` built differently, +70M, though
//! no event changed); schedules fifo 573a5493fe75cbde, srtf d6f9649ecbf2f5ea, Tiresias
//! c144f67005c5c7aa at 90 %.
//! Conservative backfill, 2026-12-07 (schedule hashes identical before and after at every
//! size: 31259011b0467aac, 77024136a756d6d8, 122a3528558f099d; 82cf3691277a3789 at
//! `pools=500 jobs=10000`). Before, a pass cost O(pools) besides its jobs (every pool's
//! profile advanced, the kept plan checked and noted pool by pool) and a job's search
//! went over every eligible pool's profile. After: a pass touches only the pools it reads
//! or changes (a kept plan is checked in the pools where jobs ended), a search stops at
//! the best start found so far, and per-pool lower bounds under a min-tree per
//! eligibility group let a search pass over every pool that could not beat it
//! (`src/sched/conservative_backfill/bounds.rs`). Instructions (callgrind, `pools=500
//! jobs=10000`): 2,833.9M -> 409.1M (the pass in the pools touched, the search bounded
//! by the best so far) -> 315.5M (the bounds) -> 310.1M (the plan boxed). Wall time,
//! 60,000 jobs, seconds, before -> after: 100 pools 1.37 -> 0.92, 500 pools 5.56 -> 0.55,
//! 2,000 pools 20.6 (38.5-39.9 above, under load) -> 0.78 (machine shared, one run
//! each). Few pools (`policies quick`, callgrind, conservative backfill, same schedules
//! 29414ddcdaf69f0d and 370a831609a0313e, the base built and measured alongside): 90 %
//! 1,255.6M -> 1,269.0M (+1.1 %), 105 % 3,341.2M -> 3,417.8M (+2.3 %).
//! Both merged (2026-12-07 06:40 UTC, `pools=2000`, one run, the machine otherwise idle):
//! FIFO 0.13 s, EASY 0.25, greedy FIFO 0.45, greedy SJF 0.48, SJF 0.14, SRTF 0.42,
//! Tiresias 0.99, priority 0.20, fair share 0.27, throughput per dollar 0.13,
//! conservative backfill 0.73 (every policy under a second; schedules as above).

use gpufleet::engine::{RngStreams, SimTime};
use gpufleet::model::{CapacityKind, GpuRequest, NodeSpec, PoolSpec, TypeMask, Workload};
use gpufleet::sched::PolicyKind;
use gpufleet::sim::{JobRecord, SimConfig, Simulation};
use gpufleet::workload::{DurationDist, SyntheticSpec};
use std::time::Instant;

/// Mean GPUs a job asks for: (45 x 1 + 15 x 2 + 15 x 4 + 20 x 8 + 5 x 16) / 100.
const MEAN_GPUS: f64 = 3.75;

/// The four GPU types, by index.
const TYPES: usize = 4;

/// `n` pools of 2-4 nodes: pool `i` has type `i % 4`, 8 GPUs a node for types 0 and 2
/// and 4 for types 1 and 3, `2 + i % 3` nodes, and is spot when `i % 5 == 4`.
fn pools(n: usize) -> Vec<PoolSpec> {
    (0..n)
        .map(|i| {
            let ty = i % TYPES;
            PoolSpec {
                name: format!("p{i}"),
                gpu_type: ty,
                kind: if i % 5 == 4 {
                    CapacityKind::Spot
                } else {
                    CapacityKind::Owned
                },
                node: NodeSpec {
                    gpus: [8, 4][ty % 2],
                    cpu_milli: 1 << 30,
                    mem_mib: 1 << 40,
                },
                nodes: 2 + (i % 3) as u32,
                speed: 1.0,
            }
        })
        .collect()
}

/// `jobs` jobs offering `load` of the GPUs of `pools`: a job's mean duration is that of a
/// log-normal with median 1 h and sigma 1.2, exp(0.72) = 2.054 h. Job `i` may use any
/// type when `i % 3 == 0`, else only type `i % 4`; 30 % are preemptible.
fn workload(jobs: u64, pools: &[PoolSpec], load: f64) -> Workload {
    let gpus: u64 = pools
        .iter()
        .map(|p| p.nodes as u64 * p.node.gpus as u64)
        .sum();
    let spec = SyntheticSpec {
        rate_per_hour: load * gpus as f64 / (MEAN_GPUS * (1.2f64 * 1.2 / 2.0).exp()),
        until: None,
        jobs: Some(jobs),
        sizes: vec![
            (GpuRequest::Whole(1), 45.0),
            (GpuRequest::Whole(2), 15.0),
            (GpuRequest::Whole(4), 15.0),
            (GpuRequest::Whole(8), 20.0),
            (GpuRequest::Whole(16), 5.0),
        ],
        duration: DurationDist::LogNormal {
            median: SimTime::from_secs(3600),
            sigma: 1.2,
        },
        tenants: (0..4).map(|i| (format!("t{i}"), 1.0)).collect(),
        preemptible_share: 0.3,
        cpu_milli_per_gpu: 0,
        mem_mib_per_gpu: 0,
    };
    let mut w = spec.generate(&RngStreams::new(11));
    w.gpu_types = (0..TYPES).map(|t| format!("T{t}")).collect();
    for (i, j) in w.jobs.iter_mut().enumerate() {
        j.priority = i.is_multiple_of(5) as i32;
        if !i.is_multiple_of(3) {
            j.gpu_types = TypeMask::single(i % TYPES);
        }
    }
    w
}

/// Replays `w` on `pools` under `policy`; returns seconds and the jobs' records. Not
/// inlined: callgrind's `--toggle-collect='pools::replay*'` counts this function.
#[inline(never)]
fn replay(w: &Workload, pools: &[PoolSpec], policy: PolicyKind) -> (f64, Vec<JobRecord>) {
    let cfg = SimConfig {
        pools: pools.to_vec(),
        policy,
        placement: Default::default(),
        horizon: None,
        sample_every: None,
        options: Default::default(),
    };
    let t = Instant::now();
    let r = Simulation::new(cfg, w).run();
    (t.elapsed().as_secs_f64(), r.jobs)
}

/// FNV-1a over every job's start, end, pool and nodes.
fn schedule_hash(jobs: &[JobRecord]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for j in jobs {
        let never = u64::MAX;
        for x in [
            j.start.map_or(never, |t| t.0),
            j.end.map_or(never, |t| t.0),
            j.pool.map_or(never, u64::from),
            j.nodes as u64,
        ] {
            for byte in x.to_le_bytes() {
                hash = (hash ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    hash
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let only: Vec<PolicyKind> = PolicyKind::ALL
        .into_iter()
        .filter(|p| args.iter().any(|a| a == p.as_str()))
        .collect();
    let jobs: u64 = args
        .iter()
        .find_map(|a| a.strip_prefix("jobs=")?.parse().ok())
        .unwrap_or(60_000);
    let sizes: Vec<usize> = match args.iter().find_map(|a| a.strip_prefix("pools=")) {
        Some(s) => s.split(',').filter_map(|x| x.parse().ok()).collect(),
        None => vec![100, 500, 2000],
    };
    // `load=120` offers 120 % of the GPUs (the queue grows all run).
    let load: f64 = args
        .iter()
        .find_map(|a| a.strip_prefix("load=")?.parse().ok())
        .unwrap_or(110.0);
    for n in sizes {
        let pools = pools(n);
        let w = workload(jobs, &pools, load / 100.0);
        let gpus: u64 = pools
            .iter()
            .map(|p| p.nodes as u64 * p.node.gpus as u64)
            .sum();
        println!("{jobs} jobs on {n} pools ({gpus} GPUs), {load} % offered load");
        for p in PolicyKind::ALL {
            if !only.is_empty() && !only.contains(&p) {
                continue;
            }
            let (s, recs) = replay(&w, &pools, p);
            let started = recs.iter().filter(|r| r.start.is_some()).count();
            let waits: f64 = w
                .jobs
                .iter()
                .zip(&recs)
                .filter_map(|(j, r)| r.start.map(|st| st.since(j.submit).hours_f64()))
                .sum();
            println!(
                "{:>22}  {n:>5} pools  {s:>8.3} s  started {started}  mean wait {:>7.2} h  schedule {:016x}",
                p.as_str(),
                waits / started.max(1) as f64,
                schedule_hash(&recs)
            );
        }
    }
}
