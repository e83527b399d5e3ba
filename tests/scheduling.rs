//! Queue policies, preemption and the PAI-2020 simulator compatibility: hand-worked
//! small cases, a brute-force oracle for greedy list scheduling, and property tests of
//! the invariants every policy must keep.

use crate::common::{config, job, pool, root, workload};
use gpufleet::engine::SimTime;
use gpufleet::model::{GpuRequest, Job, NodeSpec, PoolSpec, Workload};
use gpufleet::sched::{PolicyKind, PreemptionCost, SchedOptions};
use gpufleet::sim::{JobOutcome, RunResult, SimConfig, Simulation};
use gpufleet::workload::{read_pai_sim_csv, PaiSimOptions};
use proptest::prelude::*;

fn run(cfg: SimConfig, w: &Workload) -> RunResult {
    Simulation::new(cfg, w).run()
}

fn starts(r: &RunResult) -> Vec<u64> {
    r.jobs
        .iter()
        .map(|j| j.start.map_or(u64::MAX, |s| s.0 / 1000))
        .collect()
}

fn ends(r: &RunResult) -> Vec<u64> {
    r.jobs
        .iter()
        .map(|j| j.end.map_or(u64::MAX, |s| s.0 / 1000))
        .collect()
}

fn named(mut j: Job, name: &str) -> Job {
    j.name = name.into();
    j
}

#[test]
fn greedy_lets_small_jobs_pass_a_big_head_and_fifo_does_not() {
    // 8 GPUs. A: 6 GPUs at 0 for 100 s. B: 8 GPUs at 1 for 50 s. C: 2 GPUs at 2 for 10 s.
    // FIFO: B waits for A (starts 100), C waits behind B (starts 150).
    // Greedy: C fits in the 2 free GPUs at 2; B still starts at 100.
    let w = workload(vec![job(0, 6, 100), job(1, 8, 50), job(2, 2, 10)]);
    let fifo = run(config(vec![pool("p", 1, 8)], PolicyKind::Fifo), &w);
    assert_eq!(starts(&fifo), vec![0, 100, 150]);
    let greedy = run(config(vec![pool("p", 1, 8)], PolicyKind::GreedyFifo), &w);
    assert_eq!(starts(&greedy), vec![0, 100, 2]);
}

#[test]
fn same_time_completions_then_arrivals_then_one_pass() {
    // 4 GPUs. A: 4 GPUs at 0 for 10 s. At 10, A ends and J1 (4 GPUs, 100 s) and J2
    // (1 GPU, 5 s) arrive. One pass after both arrivals under greedy SJF takes J2 first
    // (10..15) and J1 waits for it (15). A pass per arrival would start J1 at 10 and
    // J2 at 110; a pass before the completion would start nothing at 10.
    let w = workload(vec![job(0, 4, 10), job(10, 4, 100), job(10, 1, 5)]);
    let r = run(config(vec![pool("p", 1, 4)], PolicyKind::GreedySjf), &w);
    assert_eq!(starts(&r), vec![0, 15, 10]);
}

#[test]
fn sjf_orders_by_estimate() {
    // 4 GPUs held by A until 100; B (50 s), C (10 s), D (30 s), all 4 GPUs, wait.
    // SJF: C 100..110, D 110..140, B 140..190. FIFO would run B first.
    let w = workload(vec![
        job(0, 4, 100),
        job(1, 4, 50),
        job(2, 4, 10),
        job(3, 4, 30),
    ]);
    let r = run(config(vec![pool("p", 1, 4)], PolicyKind::Sjf), &w);
    assert_eq!(starts(&r), vec![0, 140, 100, 110]);
    // By estimate, not truth: B claims 5 s, so it goes first.
    let mut jobs = w.jobs.clone();
    jobs[1].estimate = Some(SimTime::from_secs(5));
    let r = run(
        config(vec![pool("p", 1, 4)], PolicyKind::Sjf),
        &workload(jobs),
    );
    assert_eq!(starts(&r), vec![0, 100, 150, 160]);
}

#[test]
fn srtf_preempts_the_longer_remaining_job() {
    // 1 GPU. A: 100 s at 0. B: 20 s at 10 (remaining 20 < A's 90): A stops at 10, B runs
    // 10..30, A resumes with its 10 s kept and ends at 120.
    let w = workload(vec![job(0, 1, 100), job(10, 1, 20)]);
    let r = run(config(vec![pool("p", 1, 1)], PolicyKind::Srtf), &w);
    assert_eq!(ends(&r), vec![120, 30]);
    assert_eq!(r.jobs[0].preemptions, 1);
    assert_eq!(r.jobs[0].run_start, Some(SimTime::from_secs(30)));
}

fn tiresias_cfg(pools: Vec<PoolSpec>) -> SimConfig {
    let mut cfg = config(pools, PolicyKind::Tiresias);
    cfg.options.tiresias_thresholds_gpu_s = vec![100];
    cfg
}

#[test]
fn tiresias_demotes_at_the_threshold_and_then_yields() {
    // 2 GPUs, threshold 100 GPU-s. A: 2 GPUs, 200 s, crosses 100 GPU-s at t = 50 and
    // drops to queue 1. B (2 GPUs, 30 s) arrives at 60 in queue 0: A is preempted, B runs
    // 60..90, A resumes with 60 s kept and ends at 90 + 140 = 230.
    let w = workload(vec![job(0, 2, 200), job(60, 2, 30)]);
    let r = run(tiresias_cfg(vec![pool("p", 1, 2)]), &w);
    assert_eq!(starts(&r), vec![0, 60]);
    assert_eq!(ends(&r), vec![230, 90]);
    assert_eq!(r.jobs[0].preemptions, 1);
    // B arriving at 40, before A's crossing: same queue, so no preemption at 40; B waits
    // until A's demotion at 50 (a timed wake-up, no other event happens then), runs
    // 50..80, and A resumes with 50 s kept: 80 + 150 = 230.
    let w = workload(vec![job(0, 2, 200), job(40, 2, 30)]);
    let r = run(tiresias_cfg(vec![pool("p", 1, 2)]), &w);
    assert_eq!(starts(&r), vec![0, 50]);
    assert_eq!(ends(&r), vec![230, 80]);
    // Under FIFO B would wait for A's end.
    let r = run(config(vec![pool("p", 1, 2)], PolicyKind::Fifo), &w);
    assert_eq!(starts(&r), vec![0, 200]);
}

#[test]
fn tiresias_attained_service_counts_gpus_times_time() {
    // Threshold 100 GPU-s. A: 1 GPU, 300 s, crosses at t = 100 (1 GPU x 100 s; with 2 GPUs
    // it would be 50). B: 1 GPU at 90, same queue as A then, waits; at 100 A is demoted and
    // preempted: B runs 100..110 and A ends at 110 + 200 = 310.
    let w = workload(vec![job(0, 1, 300), job(90, 1, 10)]);
    let r = run(tiresias_cfg(vec![pool("p", 1, 1)]), &w);
    assert_eq!(starts(&r), vec![0, 100]);
    assert_eq!(ends(&r), vec![310, 110]);
}

#[test]
fn tiresias_a_promotion_timed_before_a_restart_does_not_fire() {
    // 1 GPU, threshold 100 GPU-s, starvation factor 1 (promoted after waiting, since the
    // last stop, as long as the job has run in total).
    // A: 200 s at 0, demoted to queue 1 at 100. B (100 s) arrives at 150 in queue 0 and
    // preempts A (ran 150 s: promotion due at 150 + 150 = 300). B ends at 250 and A runs
    // again, so that promotion no longer applies. C (500 s) arrives at 260 and preempts
    // A (ran 160 s in all: promotion due at 260 + 160 = 420). C crosses into queue 1 at
    // 360, level with A: no preemption. At 420 A is promoted to queue 0, preempts C and
    // runs its last 40 s: ends at 460. The stale promotion at 300 would have put A in
    // queue 0 early, and A would have preempted C at 360 and ended at 400.
    let w = workload(vec![job(0, 1, 200), job(150, 1, 100), job(260, 1, 500)]);
    let mut cfg = tiresias_cfg(vec![pool("p", 1, 1)]);
    cfg.options.tiresias_starvation_factor = 1.0;
    let r = run(cfg, &w);
    assert_eq!(starts(&r), vec![0, 150, 260]);
    assert_eq!(r.jobs[0].preemptions, 2);
    assert_eq!(r.jobs[0].run_start, Some(SimTime::from_secs(420)));
    assert_eq!(ends(&r)[0], 460);
}

#[test]
fn fair_share_alternates_tenants() {
    // 2 GPUs, all jobs 1 GPU for 100 s. x submits 4 jobs at 0, y 2 jobs at 1.
    // At 0: x1, x2. At 100 both tenants hold 0: x (index 0) first takes x3, then y holds
    // less than x and takes y1. At 200: x4 and y2 by the same rule.
    // FIFO would run x3, x4 at 100 and y1, y2 at 200.
    let mut jobs = vec![];
    for i in 0..4 {
        jobs.push(named(job(0, 1, 100), &format!("x{i}")));
    }
    for i in 0..2 {
        let mut j = named(job(1, 1, 100), &format!("y{i}"));
        j.tenant = 1;
        jobs.push(j);
    }
    let mut w = workload(jobs);
    w.tenants = vec!["x".into(), "y".into()];
    let r = run(config(vec![pool("p", 1, 2)], PolicyKind::FairShare), &w);
    assert_eq!(starts(&r), vec![0, 0, 100, 200, 100, 200]);
    let r = run(config(vec![pool("p", 1, 2)], PolicyKind::Fifo), &w);
    assert_eq!(starts(&r), vec![0, 0, 100, 100, 200, 200]);
}

#[test]
fn fair_share_weights_tilt_the_split() {
    // Weights x = 1, y = 3, 4 GPUs, 1-GPU jobs of 100 s, 8 of each waiting at 0 (x first).
    // Each start goes to the smaller held/weight (ties to x): x, y, y, y -> y holds 3/3 = 1,
    // x 1/1 = 1. Hand-worked: x 1 GPU, y 3 GPUs in every round.
    let mut jobs = vec![];
    for t in 0..2u32 {
        for i in 0..8 {
            let mut j = named(job(0, 1, 100), &format!("{t}-{i}"));
            j.tenant = t;
            jobs.push(j);
        }
    }
    let mut w = workload(jobs);
    w.tenants = vec!["x".into(), "y".into()];
    let mut cfg = config(vec![pool("p", 1, 4)], PolicyKind::FairShare);
    cfg.options.tenant_weights = vec![1.0, 3.0];
    let r = run(cfg, &w);
    let at0 = |t: u32| {
        w.jobs
            .iter()
            .zip(&r.jobs)
            .filter(|(j, rec)| j.tenant == t && rec.start == Some(SimTime::ZERO))
            .count()
    };
    assert_eq!((at0(0), at0(1)), (1, 3));
}

#[test]
fn priority_preempts_lower_classes_with_each_cost_model() {
    // 2 GPUs. L (priority 0): 2 GPUs, 100 s at 0. H (priority 5): 1 GPU, 20 s at 10.
    // H preempts L at 10 and runs 10..30; L restarts at 30 with what it kept of its 10 s.
    let mut high = job(10, 1, 20);
    high.priority = 5;
    let w = workload(vec![job(0, 2, 100), high]);
    for (cost, l_end) in [
        // all 10 s kept: 30 + 90
        (PreemptionCost::RestartPenalty(SimTime::ZERO), 120),
        // kept, but 7 s of extra work: 30 + 97
        (PreemptionCost::RestartPenalty(SimTime::from_secs(7)), 127),
        // checkpoints every 4 s: 8 s kept: 30 + 92
        (PreemptionCost::CheckpointEvery(SimTime::from_secs(4)), 122),
        // nothing kept: 30 + 100
        (PreemptionCost::LoseAll, 130),
    ] {
        let mut cfg = config(vec![pool("p", 1, 2)], PolicyKind::Priority);
        cfg.options.preemption = cost;
        let r = run(cfg, &w);
        assert_eq!(ends(&r), vec![l_end, 30], "{cost:?}");
        assert_eq!(r.stopped_runs.len(), 1);
        assert_eq!(r.stopped_runs[0].stop, SimTime::from_secs(10));
    }
    // Equal priorities never preempt.
    let w = workload(vec![job(0, 2, 100), job(10, 1, 20)]);
    let r = run(config(vec![pool("p", 1, 2)], PolicyKind::Priority), &w);
    assert_eq!(starts(&r), vec![0, 100]);
}

#[test]
fn preemption_spares_victims_on_nodes_the_job_does_not_take() {
    // 2 nodes of 8 GPUs, priority policy. L1 (priority 0, 8 GPUs, 100 s) at 0 takes a
    // node; M (priority 5, 6 GPUs, 1000 s) at 1 takes the other; L2 (priority 0, 2 GPUs,
    // 50 s) at 2 fills M's node. H (priority 5, 8 GPUs, 20 s) at 10: the victims go
    // lowest priority first, latest started first, so L2 is freed first (2 GPUs on M's
    // node: not enough), then L1 (its whole node: H fits there). H takes L1's node only,
    // so L2 was not needed and keeps running to 52; L1 is preempted once, waits for H
    // (10..30) and ends at 30 + 90 = 120 (all 10 s kept).
    let mut m = job(1, 6, 1000);
    m.priority = 5;
    let mut h = job(10, 8, 20);
    h.priority = 5;
    let w = workload(vec![job(0, 8, 100), m, job(2, 2, 50), h]);
    let mut cfg = config(vec![pool("p", 2, 8)], PolicyKind::Priority);
    cfg.options.preemption = PreemptionCost::RestartPenalty(SimTime::ZERO);
    let r = run(cfg, &w);
    assert_eq!(starts(&r), vec![0, 1, 2, 10]);
    assert_eq!(ends(&r), vec![120, 1001, 52, 30]);
    let preempted: Vec<u32> = r.jobs.iter().map(|j| j.preemptions).collect();
    assert_eq!(preempted, vec![1, 0, 0, 0]);
}

#[test]
fn throughput_per_dollar_picks_the_best_value_pool() {
    // Pool 0: speed 2 at $10 per GPU-hour (0.2 per $); pool 1: speed 1 at $2 (0.5 per $).
    // The job goes to pool 1 and takes 100 s there; FIFO takes the first pool (50 s).
    let mut fast = pool("fast", 1, 1);
    fast.speed = 2.0;
    let cheap = pool("cheap", 1, 1);
    let w = workload(vec![job(0, 1, 100)]);
    let mut cfg = config(
        vec![fast.clone(), cheap.clone()],
        PolicyKind::ThroughputPerDollar,
    );
    cfg.options.gpu_hour_usd = vec![10.0, 2.0];
    let r = run(cfg, &w);
    assert_eq!((r.jobs[0].pool, ends(&r)[0]), (Some(1), 100));
    let r = run(config(vec![fast, cheap], PolicyKind::Fifo), &w);
    assert_eq!((r.jobs[0].pool, ends(&r)[0]), (Some(0), 50));
}

/// A fungible pool of `g` GPUs as the scenario option builds it.
fn fungible(g: u32) -> PoolSpec {
    let mut p = pool("f", g, 1);
    p.node = NodeSpec {
        gpus: 1,
        cpu_milli: u32::MAX,
        mem_mib: u64::MAX,
    };
    p
}

/// Brute-force greedy list scheduling on `g` fungible GPUs, written from the PAI-2020
/// simulator's description: at each time, completions, then arrivals, then sort the whole
/// queue by key and start every job whose GPUs fit in the free count.
fn oracle_greedy(w: &Workload, g: u64, sjf: bool) -> Vec<u64> {
    let n = w.jobs.len();
    let gpus: Vec<u64> = w
        .jobs
        .iter()
        .map(|j| match j.gpus {
            GpuRequest::None => 0,
            GpuRequest::Fraction(_) => 1,
            GpuRequest::Whole(k) => k as u64,
        })
        .collect();
    let mut start = vec![u64::MAX; n];
    let mut end = vec![u64::MAX; n];
    let mut free = g;
    let mut queue: Vec<usize> = Vec::new();
    let mut next = 0;
    let mut times: std::collections::BTreeSet<u64> = w.jobs.iter().map(|j| j.submit.0).collect();
    while let Some(t) = times.pop_first() {
        for i in 0..n {
            if end[i] == t {
                free += gpus[i];
            }
        }
        while next < n && w.jobs[next].submit.0 == t {
            queue.push(next);
            next += 1;
        }
        queue.sort_by_key(|&i| {
            if sjf {
                (w.jobs[i].work.0, i)
            } else {
                (w.jobs[i].submit.0, i)
            }
        });
        queue.retain(|&i| {
            if gpus[i] <= free {
                free -= gpus[i];
                start[i] = t;
                end[i] = t + w.jobs[i].work.0;
                times.insert(end[i]);
                false
            } else {
                true
            }
        });
    }
    start
}

#[test]
fn greedy_matches_a_brute_force_list_scheduler_job_for_job() {
    // The shipped sample in the simulator's format, first 1,500 jobs at 100 arrivals per
    // minute on 300 GPUs, so that queues build up; the oracle above is the reference.
    let o = PaiSimOptions {
        arrivals_per_minute: Some(100.0),
        ..Default::default()
    };
    let mut w = read_pai_sim_csv(&root().join("data/pai-sim-sample.csv"), o).unwrap();
    w.jobs.truncate(1500);
    // Jobs above the pool are rejected by gpufleet; the oracle would wait forever.
    w.jobs.retain(|j| j.gpus.milli() <= 300_000);
    // Job ids are the original job_id order; ties by job id in the key = index order here.
    for (sjf, kind) in [
        (false, PolicyKind::GreedyFifo),
        (true, PolicyKind::GreedySjf),
    ] {
        let want = oracle_greedy(&w, 300, sjf);
        let r = run(config(vec![fungible(300)], kind), &w);
        let got: Vec<u64> = r
            .jobs
            .iter()
            .map(|j| j.start.map_or(u64::MAX, |s| s.0))
            .collect();
        let diff = (0..want.len()).filter(|&i| want[i] != got[i]).count();
        assert_eq!(diff, 0, "{kind:?}: {diff} jobs start at other times");
        assert!(
            want.iter()
                .zip(&w.jobs)
                .filter(|(s, j)| **s > j.submit.0)
                .count()
                > 100,
            "the case must queue"
        );
    }
}

#[test]
fn pai_scenarios_run_greedy_fifo_and_sjf() {
    for (file, policy) in [
        ("pai-sim-compat.toml", PolicyKind::GreedyFifo),
        ("pai-sim-compat-sjf.toml", PolicyKind::GreedySjf),
    ] {
        let s = gpufleet::scenario::Scenario::load(&root().join("scenarios").join(file)).unwrap();
        assert_eq!(s.sim.policy, policy);
        assert_eq!(s.sim.pools[0].nodes, 6500, "6,500 one-GPU slots");
        let w = s.build_workload(s.seed).unwrap();
        // 1,000 arrivals a minute: job 999 at 0 s, job 1,000 at 60 s.
        assert_eq!((w.jobs[999].submit.0, w.jobs[1000].submit.0), (0, 60_000));
    }
}

/// Every run and its pool: stopped runs plus each job's last run.
fn check_invariants(w: &Workload, r: &RunResult, pools: &[PoolSpec]) -> Result<(), TestCaseError> {
    let mut deltas: Vec<(u64, i64, usize)> = Vec::new();
    for s in &r.stopped_runs {
        deltas.push((s.start.0, s.gpu_milli as i64, s.pool as usize));
        deltas.push((s.stop.0, -(s.gpu_milli as i64), s.pool as usize));
    }
    let mut busy = 0u128;
    for (j, rec) in w.jobs.iter().zip(&r.jobs) {
        prop_assert!(matches!(
            rec.outcome,
            JobOutcome::Completed | JobOutcome::Rejected
        ));
        if rec.outcome == JobOutcome::Rejected {
            continue;
        }
        let (s, e, p) = (
            rec.run_start.unwrap(),
            rec.end.unwrap(),
            rec.pool.unwrap() as usize,
        );
        prop_assert!(rec.start.unwrap() >= j.submit && e >= s);
        deltas.push((s.0, rec.gpu_milli as i64, p));
        deltas.push((e.0, -(rec.gpu_milli as i64), p));
        // Gang all-or-nothing: exactly the GPUs asked for, or whole nodes.
        let gpn = pools[p].node.gpus as u64;
        if let GpuRequest::Whole(k) = j.gpus {
            let k = k as u64;
            if k <= gpn {
                prop_assert_eq!((rec.gpu_milli, rec.nodes), (k * 1000, 1));
            } else {
                prop_assert_eq!(rec.nodes as u64, k.div_ceil(gpn));
                prop_assert_eq!(rec.gpu_milli, rec.nodes as u64 * gpn * 1000);
            }
        }
        // Each job runs exactly its work once (speed 1, no restart penalty): held GPU-time.
        busy += rec.gpu_milli as u128 * j.work.0 as u128;
    }
    deltas.sort_by_key(|&(t, d, _)| (t, d));
    let mut held = vec![0i64; pools.len()];
    for (t, d, p) in deltas {
        held[p] += d;
        prop_assert!(
            held[p] <= pools[p].nodes as i64 * pools[p].node.gpus as i64 * 1000,
            "pool {} over capacity at {} ms",
            p,
            t
        );
    }
    let recorded: u128 = r.pools.iter().map(|u| u.busy_gpu_ms).sum();
    prop_assert_eq!(
        recorded,
        busy / 1000,
        "busy GPU-time = each job's work once"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, .. ProptestConfig::default() })]

    /// Every policy: capacity never exceeded, gang jobs all-or-nothing, every job ends
    /// exactly once and is charged its work exactly once, even when preempted.
    #[test]
    fn every_policy_keeps_the_invariants(
        specs in prop::collection::vec((0u64..400, prop::sample::select(vec![1u32, 1, 2, 3, 4, 8, 12, 16]), 1u64..200, 0i32..3, 0u32..3), 5..50),
        nodes in 2u32..4,
    ) {
        let jobs: Vec<Job> = specs.iter().enumerate().map(|(i, &(s, g, d, prio, t))| {
            let mut j = named(job(s, g, d), &format!("j{i}"));
            j.priority = prio;
            j.tenant = t;
            j
        }).collect();
        let mut w = workload(jobs);
        w.tenants = vec!["a".into(), "b".into(), "c".into()];
        let pools = vec![pool("p", nodes, 8), pool("q", 1, 4)];
        for kind in PolicyKind::ALL {
            let mut cfg = config(pools.clone(), kind);
            cfg.options = SchedOptions { tiresias_thresholds_gpu_s: vec![50, 400], gpu_hour_usd: vec![3.0, 2.0], ..Default::default() };
            let r = run(cfg, &w);
            check_invariants(&w, &r, &pools)?;
        }
    }
}

// ---- Elastic pools and the autoscaler ----

use gpufleet::metrics::{ledger_from_run, run_cost};
use gpufleet::model::CapacityKind;
use gpufleet::pricing::{Billing, OnDemand, PoolPricing};
use gpufleet::sched::Autoscale;

fn elastic_cfg(nodes: u32, a: Autoscale, policy: PolicyKind) -> SimConfig {
    let mut p = pool("od", nodes, 8);
    p.kind = CapacityKind::OnDemand;
    let mut cfg = config(vec![p], policy);
    cfg.options.autoscale = vec![Some(a)];
    cfg
}

/// The elastic nodes' held intervals, (requested, ready, released) in seconds.
fn intervals_s(r: &RunResult) -> Vec<(u64, u64, Option<u64>)> {
    r.node_intervals
        .iter()
        .map(|i| {
            (
                i.requested.0 / 1000,
                i.ready.0 / 1000,
                i.released.map(|x| x.0 / 1000),
            )
        })
        .collect()
}

fn hourly(delay_s: u64) -> Autoscale {
    Autoscale {
        min_nodes: 0,
        provisioning_delay: SimTime::from_secs(delay_s),
        idle_timeout: SimTime::from_secs(60),
        billing_increment: SimTime::from_secs(3600),
        billing_minimum: SimTime::from_secs(3600),
        ..Default::default()
    }
}

#[test]
fn autoscaler_waits_for_provisioning_and_keeps_the_paid_hour() {
    // Job 1: 8 GPUs at 0 for 100 s: a node is requested at 0, ready at 120, the job runs
    // 120..220; idle from 220, timeout 60 s, but the hour paid from 0 runs to 3,600: released
    // then. Job 2 at 4,000: a new node, ready 4,120, job 4,120..4,220, released at 7,600.
    // Two hours billed at $10 a node-hour: $20.
    let w = workload(vec![job(0, 8, 100), job(4000, 8, 100)]);
    let r = run(elastic_cfg(2, hourly(120), PolicyKind::Fifo), &w);
    assert_eq!(starts(&r), vec![120, 4120]);
    let iv = intervals_s(&r);
    assert_eq!(iv, vec![(0, 120, Some(3600)), (4000, 4120, Some(7600))]);
    let ledger = ledger_from_run(&r, &[PoolPricing::flat(10.0)]);
    assert!((ledger.total() - 20.0).abs() < 1e-9, "{}", ledger.total());
    // The pricing models bill the same intervals: per started hour at $10, 2 h.
    let hourly_bill = PoolPricing::OnDemand(OnDemand {
        usd_per_node_hour: 10.0,
        billing: Billing {
            granularity: SimTime::from_secs(3600),
            minimum: SimTime::from_secs(3600),
        },
    });
    let cost = run_cost(&r, &[hourly_bill]);
    assert!(
        (cost.ledger.total() - 20.0).abs() < 1e-9,
        "{}",
        cost.ledger.total()
    );
    // Provisioned GPU-time counts ready..release: 8 GPUs x (3,480 + 3,480) s.
    assert_eq!(r.pools[0].provisioned_gpu_ms, 8 * 6960 * 1000);
}

#[test]
fn per_second_billing_releases_after_the_timeout_and_minimum() {
    // 1 s blocks, 60 s minimum, 30 s idle timeout, 120 s boot. Job 0..: runs 120..220,
    // released at max(220 + 30, 0 + 60) = 250; billed 250 s.
    let a = Autoscale {
        provisioning_delay: SimTime::from_secs(120),
        idle_timeout: SimTime::from_secs(30),
        ..Default::default()
    };
    let w = workload(vec![job(0, 8, 100)]);
    let r = run(elastic_cfg(1, a, PolicyKind::Fifo), &w);
    assert_eq!(r.node_intervals[0].released, Some(SimTime::from_secs(250)));
    assert_eq!(r.pools[0].billed_node_ms, Some(250_000));
}

#[test]
fn stock_outs_delay_renting_and_wait_targets_hold_it_back() {
    // No stock until 1,000 s: the node is requested at 1,000 and ready at 1,120.
    let mut a = hourly(120);
    a.availability = vec![(SimTime::ZERO, 0), (SimTime::from_secs(1000), 1)];
    let w = workload(vec![job(0, 8, 100)]);
    let r = run(elastic_cfg(2, a, PolicyKind::Fifo), &w);
    assert_eq!(starts(&r), vec![1120]);
    // Rent only once a job has waited 300 s: requested at 300, ready at 420.
    let mut a = hourly(120);
    a.scale_up_after = SimTime::from_secs(300);
    let r = run(elastic_cfg(2, a, PolicyKind::Fifo), &w);
    assert_eq!(starts(&r), vec![420]);
    assert_eq!(r.node_intervals[0].requested, SimTime::from_secs(300));
}

#[test]
fn min_nodes_are_held_all_run_and_the_rest_rented_on_demand() {
    // 1 node held from 0; two 8-GPU jobs at 0: one starts at once, one rents a node.
    let mut a = hourly(60);
    a.min_nodes = 1;
    let w = workload(vec![job(0, 8, 100), job(0, 8, 100)]);
    let r = run(elastic_cfg(3, a, PolicyKind::Fifo), &w);
    assert_eq!(starts(&r), vec![0, 60]);
    assert_eq!(r.node_intervals.len(), 2);
    assert_eq!(
        r.node_intervals
            .iter()
            .filter(|i| i.released.is_none())
            .count(),
        1
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, .. ProptestConfig::default() })]

    /// Elastic pool: never more nodes held than its maximum, jobs only on ready nodes
    /// (busy GPUs within the up nodes' GPUs), no node released before its billing minimum
    /// or while it has a job, and every job completes.
    #[test]
    fn autoscaler_keeps_its_limits(
        specs in prop::collection::vec((0u64..20_000, prop::sample::select(vec![1u32, 2, 4, 8, 16]), 1u64..3000), 3..40),
        max in 1u32..4,
        delay in 0u64..600,
        policy in prop::sample::select(vec![PolicyKind::Fifo, PolicyKind::EasyBackfill, PolicyKind::GreedyFifo, PolicyKind::Priority]),
    ) {
        let mut jobs: Vec<Job> = specs.iter().map(|&(s, g, d)| job(s, g, d)).collect();
        for (i, j) in jobs.iter_mut().enumerate() { j.priority = (i % 3) as i32; }
        let w = workload(jobs);
        let mut a = hourly(delay);
        a.billing_minimum = SimTime::from_secs(1800);
        let r = run(elastic_cfg(max, a, policy), &w);
        for rec in &r.jobs {
            prop_assert!(matches!(rec.outcome, JobOutcome::Completed | JobOutcome::Rejected));
        }
        // Held nodes over time (request to release) and up GPUs (ready to release).
        let mut held: Vec<(u64, i64)> = Vec::new();
        let mut cap: Vec<(u64, i64, i64)> = Vec::new();
        for iv in &r.node_intervals {
            let rel = iv.released.map_or(u64::MAX, |x| x.0);
            if let Some(x) = iv.released {
                prop_assert!(x.since(iv.requested) >= SimTime::from_secs(1800), "released before the billing minimum");
            }
            prop_assert!(iv.ready.since(iv.requested) == SimTime::from_secs(delay));
            held.push((iv.requested.0, 1));
            held.push((rel, -1));
            cap.push((iv.ready.0, 1, 8000));
            cap.push((rel, 0, -8000));
        }
        held.sort_by_key(|&(t, d)| (t, d));
        let mut n = 0;
        for (_, d) in held { n += d; prop_assert!(n <= max as i64); }
        for (j, rec) in w.jobs.iter().zip(&r.jobs) {
            if let (Some(s), Some(e)) = (rec.run_start, rec.end) {
                let _ = j;
                cap.push((s.0, 0, -(rec.gpu_milli as i64)));
                cap.push((e.0, 1, rec.gpu_milli as i64));
            }
        }
        for s in &r.stopped_runs {
            cap.push((s.start.0, 0, -(s.gpu_milli as i64)));
            cap.push((s.stop.0, 1, s.gpu_milli as i64));
        }
        // At equal times: capacity leaving (release, -) after ends (+) and before starts;
        // order: ends and readies (kind 1) first, then starts and releases (kind 0).
        cap.sort_by_key(|&(t, k, d)| (t, std::cmp::Reverse(k), d));
        let mut free = 0i64;
        for (t, _, d) in cap { free += d; prop_assert!(free >= 0, "a job ran beyond the ready nodes at {} ms", t); }
    }
}

// ---- Pool choice and budget caps ----

use gpufleet::sched::{BudgetCaps, PoolOrder};

fn od_and_owned() -> Vec<PoolSpec> {
    let mut od = pool("od", 1, 1);
    od.kind = CapacityKind::OnDemand;
    vec![od, pool("own", 1, 1)]
}

#[test]
fn pool_order_by_kind_uses_owned_before_on_demand() {
    let w = workload(vec![job(0, 1, 10)]);
    let r = run(config(od_and_owned(), PolicyKind::Fifo), &w);
    assert_eq!(
        r.jobs[0].pool,
        Some(0),
        "scenario order: on-demand listed first"
    );
    let mut cfg = config(od_and_owned(), PolicyKind::Fifo);
    cfg.options.pool_order = PoolOrder::ByKind;
    let r = run(cfg, &w);
    assert_eq!(r.jobs[0].pool, Some(1));
}

#[test]
fn budget_cap_keeps_jobs_off_rented_pools() {
    // On-demand at $10 a GPU-hour, cap $15. A (1 GPU, 1 h, at 0) commits $10 there; B
    // takes the owned GPU; C (at 1 s) waits; at 3,600 s both free up, and C on demand
    // would commit $20 in all: it runs on the owned GPU. Without the cap it goes on demand.
    let w = workload(vec![job(0, 1, 3600), job(0, 1, 3600), job(1, 1, 3600)]);
    let mut cfg = config(od_and_owned(), PolicyKind::Fifo);
    cfg.options.gpu_hour_usd = vec![10.0, 1.0];
    let free = run(cfg.clone(), &w);
    assert_eq!(free.jobs[2].pool, Some(0));
    cfg.options.budget = BudgetCaps {
        total_usd: Some(15.0),
        per_tenant_usd: vec![],
    };
    let capped = run(cfg, &w);
    let pools: Vec<Option<u32>> = capped.jobs.iter().map(|j| j.pool).collect();
    assert_eq!(pools, vec![Some(0), Some(1), Some(1)]);
    assert_eq!(starts(&capped), vec![0, 0, 3600]);
}

#[test]
fn the_autoscaler_rents_nothing_for_jobs_a_budget_keeps_off_and_the_run_ends() {
    // An elastic on-demand pool of 2 nodes x 8 GPUs at $10 a GPU-hour, hourly billing, a
    // 120 s provisioning delay and a $15 cap. A (1 GPU, 1 h, at 0) commits $10: one node
    // is rented at 0, ready at 120, A runs 120..3,720. B (8 GPUs, 1 h, at 0) would commit
    // $80: refused for good, so nothing is rented for it (before, a second node was rented
    // for B at 0, let go idle at the end of its paid hour and rented again, for as long
    // as the run went on: 100 years without a horizon). A's node, idle from 3,720 with a
    // 60 s timeout, is kept to the end of its second paid hour: released at 7,200. Then B
    // waits and nothing left can start it: the run ends there, B unfinished, and says so,
    // with or without timeline samples in the event queue.
    let w = workload(vec![job(0, 1, 3600), job(0, 8, 3600)]);
    for sample in [None, Some(SimTime::from_secs(600))] {
        let mut cfg = elastic_cfg(2, hourly(120), PolicyKind::Fifo);
        cfg.options.gpu_hour_usd = vec![10.0];
        cfg.options.budget = BudgetCaps {
            total_usd: Some(15.0),
            per_tenant_usd: vec![],
        };
        cfg.sample_every = sample;
        let r = run(cfg, &w);
        assert_eq!(starts(&r), vec![120, u64::MAX], "{sample:?}");
        let iv = intervals_s(&r);
        assert_eq!(iv, vec![(0, 120, Some(7200))], "{sample:?}");
        assert_eq!(r.end, SimTime::from_secs(7200), "{sample:?}");
        assert_eq!(r.cut_short, Some(gpufleet::sim::CutShort::Stuck));
        assert_eq!(r.jobs[1].outcome, JobOutcome::Unfinished);
    }
    // Without the cap B is rented for and runs: two nodes at 0, both ready at 120.
    let mut cfg = elastic_cfg(2, hourly(120), PolicyKind::Fifo);
    cfg.options.gpu_hour_usd = vec![10.0];
    let r = run(cfg, &w);
    assert_eq!(starts(&r), vec![120, 120]);
    assert_eq!(r.node_intervals.len(), 2);
    assert_eq!(r.cut_short, None);
}

#[test]
fn a_run_whose_waiting_jobs_nothing_can_start_ends_at_its_last_event() {
    // A fixed on-demand node of 8 GPUs at $10 a GPU-hour under a $15 cap, a timeline
    // sampled every 10 s, no horizon. A (1 GPU, 1 h, at 0) commits $10 and runs 0..3,600;
    // B (8 GPUs, 1 h, at 0) would commit $80 and can never start. The run used to go on
    // sampling an idle node for 100 years (the samples kept it alive; without them it
    // ended at 3,600 without a word); now it ends at 3,600 either way and says why.
    let mut od = pool("od", 1, 8);
    od.kind = CapacityKind::OnDemand;
    let mut cfg = config(vec![od], PolicyKind::Fifo);
    cfg.options.gpu_hour_usd = vec![10.0];
    cfg.options.budget = BudgetCaps {
        total_usd: Some(15.0),
        per_tenant_usd: vec![],
    };
    cfg.sample_every = Some(SimTime::from_secs(10));
    // A: 1 GPU for 1 h commits $10 and runs 0..3,600; B: 8 GPUs for 1 h would commit $80.
    let w = workload(vec![job(0, 1, 3600), job(0, 8, 3600)]);
    let r = run(cfg, &w);
    assert_eq!(starts(&r), vec![0, u64::MAX]);
    assert_eq!(r.end, SimTime::from_secs(3600));
    assert_eq!(r.cut_short, Some(gpufleet::sim::CutShort::Stuck));
    assert_eq!(r.jobs[1].outcome, JobOutcome::Unfinished);
    // The timeline stops with the run: samples at 0, 10, ..., 3,600 at most.
    assert!(
        r.timeline.iter().all(|row| row.time <= r.end),
        "a sample after the end"
    );
}

#[test]
fn conservative_backfill_protects_every_reservation_not_only_the_head() {
    // One node of 4 GPUs. A: 2 GPUs at 0 for 100 s; F: 1 GPU at 0 for 20 s (1 GPU free).
    // B: 4 GPUs at 1 for 10 s, the head: reserved at 100. C: 2 GPUs at 2 for 50 s.
    // D: 1 GPU at 3 for 90 s.
    // EASY protects only B: D ends (93) before B's reservation, so it starts at 3; then C
    // cannot start when F ends (one GPU free) nor at 93 (it would end after 100): C at 110.
    // Conservative: C is reserved at 20 (when F frees its GPU) for [20, 70); D would take
    // a GPU C needs then, and again over B's [100, 110): D waits until 110.
    let w = workload(vec![
        job(0, 2, 100),
        job(0, 1, 20),
        job(1, 4, 10),
        job(2, 2, 50),
        job(3, 1, 90),
    ]);
    let easy = run(config(vec![pool("p", 1, 4)], PolicyKind::EasyBackfill), &w);
    assert_eq!(starts(&easy), vec![0, 0, 100, 110, 3]);
    let cons = run(
        config(vec![pool("p", 1, 4)], PolicyKind::ConservativeBackfill),
        &w,
    );
    assert_eq!(starts(&cons), vec![0, 0, 100, 20, 110]);
}

#[test]
fn bad_autoscale_and_scheduler_settings_are_named() {
    let text = r#"
name = "bad"
[[pools]]
name = "own"
gpu_type = "H100"
kind = "owned"
nodes = 2
gpus_per_node = 8
price_per_node_hour = 1.0
[pools.autoscale]
min_nodes = 5
idle_timeout = "10 parsecs"
[scheduler]
policy = "tiresias"
tenant_weights = { a = -1.0 }
[workload]
kind = "synthetic"
rate_per_hour = 1.0
jobs = 10
sizes = [{ gpus = 1, weight = 1 }]
duration = { kind = "fixed", value = "1h" }
"#;
    let e = gpufleet::scenario::Scenario::parse(
        text,
        std::path::Path::new("bad.toml"),
        std::path::Path::new("."),
    )
    .unwrap_err()
    .to_string();
    for want in [
        "pools[0].kind",
        "only on_demand and spot pools can autoscale",
        "pools[0].autoscale.min_nodes",
        "pools[0].autoscale.idle_timeout",
    ] {
        assert!(e.contains(want), "missing {want:?} in:\n{e}");
    }
    let e = gpufleet::scenario::Scenario::parse(
        &text
            .replace("kind = \"owned\"", "kind = \"on_demand\"")
            .replace("min_nodes = 5", "min_nodes = 1")
            .replace("10 parsecs", "10m"),
        std::path::Path::new("bad.toml"),
        std::path::Path::new("."),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("scheduler.tenant_weights.a"), "{e}");
    let e = gpufleet::scenario::Scenario::parse(
        &text.replace("\"tiresias\"", "\"lottery\""),
        std::path::Path::new("bad.toml"),
        std::path::Path::new("."),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("lottery") && e.contains("greedy_fifo"),
        "unknown policy lists the known ones: {e}"
    );
}

// Tiresias skips placement attempts proved to fail (a job's placement on an unchanged
// cluster, a pass whose every waiting class a failed request dominates); its
// `exhaustive` form makes them all.
use gpufleet::sched::Tiresias;

fn tiresias_pool(name: &str, kind: CapacityKind, nodes: u32, gpus: u16) -> PoolSpec {
    PoolSpec {
        name: name.into(),
        gpu_type: 0,
        kind,
        node: NodeSpec {
            gpus,
            cpu_milli: 16_000,
            mem_mib: 1 << 20,
        },
        nodes,
        speed: 1.0,
    }
}

/// A job's (start, end, preemptions, last run's start).
type JobTimes = (Option<SimTime>, Option<SimTime>, u32, Option<SimTime>);

/// (start, end, preemptions, last run's start) per job under Tiresias, skipping
/// attempts proved to fail or (`exhaustive`) making them all.
fn tiresias_replay(w: &Workload, exhaustive: bool) -> Vec<JobTimes> {
    let cfg = SimConfig {
        pools: vec![
            tiresias_pool("owned", CapacityKind::Owned, 3, 4),
            tiresias_pool("spot", CapacityKind::Spot, 2, 8),
        ],
        policy: PolicyKind::Tiresias,
        placement: Default::default(),
        horizon: None,
        sample_every: None,
        options: Default::default(),
    };
    let t = Tiresias::new(vec![200, 2_000], 2.0);
    let t = if exhaustive { t.exhaustive() } else { t };
    let r = Simulation::with_policy(cfg, w, Box::new(t)).run();
    r.jobs
        .iter()
        .map(|j| (j.start, j.end, j.preemptions, j.run_start))
        .collect()
}

#[test]
fn tiresias_skipping_attempts_proved_to_fail_changes_no_schedule() {
    // Oracle: the same policy making every placement attempt and visiting every job
    // of its window. Random small workloads on a fragmented cluster (nodes of 4 and
    // 8 GPUs, a spot pool only preemptible jobs may use, CPU demands that fill nodes
    // before their GPUs do), gangs up to 3 nodes, shares of one GPU, low thresholds
    // (many demotions and preemptions) and starvation promotions. Also checks the bound
    // that refuses a preemption before listing victims (`tiresias_room.rs`).
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |m: u64| {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) % m
    };
    let sizes = [1u32, 1, 1, 2, 2, 3, 4, 4, 6, 8, 12];
    let mut preemptions = 0;
    for case in 0..40 {
        let n = 30 + next(50) as usize;
        let mut t = 0;
        let jobs: Vec<Job> = (0..n)
            .map(|i| {
                t += next(120);
                Job {
                    name: format!("j{i}"),
                    submit: SimTime::from_secs(t),
                    // A few shares of one GPU: whole-GPU counts must not miss them.
                    gpus: match next(8) {
                        0 => GpuRequest::Fraction(200 + next(700) as u16),
                        _ => GpuRequest::Whole(sizes[next(sizes.len() as u64) as usize]),
                    },
                    gpu_types: gpufleet::model::TypeMask::ANY,
                    cpu_milli: [0, 0, 4_000, 10_000][next(4) as usize],
                    mem_mib: 0,
                    work: SimTime::from_secs(10 + next(1_500)),
                    estimate: None,
                    tenant: 0,
                    priority: 0,
                    deadline: None,
                    preemptible: next(2) == 0,
                    tags: gpufleet::model::JobTags::NONE,
                }
            })
            .collect();
        let w = Workload {
            jobs,
            tenants: vec!["t".into()],
            ..Default::default()
        };
        let fast = tiresias_replay(&w, false);
        let full = tiresias_replay(&w, true);
        for (i, (a, b)) in fast.iter().zip(&full).enumerate() {
            assert_eq!(a, b, "case {case}, job {i}");
        }
        preemptions += full.iter().map(|j| j.2).sum::<u32>();
    }
    // The comparison is worth something only where preemption happens.
    assert!(preemptions > 100, "{preemptions} preemptions");
}
