//! Failures, checkpoints and restarts: counts against the configured rates, ETTR against
//! the analytic approximation, work conservation, and hand-worked kills.

use crate::common::*;
use gpufleet::engine::{RngStreams, SimTime};
use gpufleet::faults::{
    llama3_h100, CheckpointPolicy, Checkpointing, FailureDist, FailureProcess, FaultConfig, Scope,
    TraceFailure,
};
use gpufleet::sched::PolicyKind;
use gpufleet::sim::{JobOutcome, RunResult, Simulation};
use gpufleet::workload::DurationDist;
use proptest::prelude::*;

fn run_with_faults(
    cfg: gpufleet::sim::SimConfig,
    w: &gpufleet::model::Workload,
    f: FaultConfig,
    seed: u64,
) -> RunResult {
    Simulation::new(cfg, w)
        .with_faults(f, &RngStreams::new(seed))
        .run()
}

/// The Llama 3 preset on 16,384 GPUs for 54 days gives about 419 failures: the count must
/// fall in the Poisson interval 419 +- 3.5 sqrt(419) (two-sided p about 5e-4), and the
/// share of "Faulty GPU" must match 148/419 within 4 binomial standard errors.
#[test]
fn llama3_preset_reproduces_419_interruptions() {
    let mut faulty = 0u64;
    let mut total_all = 0u64;
    for seed in 0..3 {
        let mut cfg = config(vec![pool("h100", 2048, 8)], PolicyKind::Fifo);
        cfg.horizon = Some(SimTime::from_secs(54 * 86_400));
        let mut f = FaultConfig::none();
        f.processes.push((llama3_h100().process, vec![]));
        // Repairs are short so that exposure stays at the full 16,384 GPUs.
        f.repair = DurationDist::Fixed {
            value: SimTime::from_secs(60),
        };
        let r = run_with_faults(cfg, &workload(vec![]), f, seed);
        let fs = r.faults.unwrap();
        let total: u64 = fs.node_failures.iter().map(|x| x.1).sum();
        let band = 3.5 * 419f64.sqrt();
        assert!(
            (total as f64 - 419.0).abs() < band,
            "seed {seed}: {total} failures, expected 419 +- {band:.0}"
        );
        faulty += fs
            .node_failures
            .iter()
            .find(|x| x.0 == "Faulty GPU")
            .map(|x| x.1)
            .unwrap_or(0);
        total_all += total;
    }
    let p = 148.0 / 419.0;
    let share = faulty as f64 / total_all as f64;
    let se = (p * (1.0 - p) / total_all as f64).sqrt();
    assert!(
        (share - p).abs() < 4.0 * se,
        "Faulty GPU share {share:.3}, expected {p:.3}"
    );
}

/// One 1,024-GPU job (128 nodes of 8, plus 16 spares), exponential failures at 0.1 per
/// hour for the job (MTBF 10 h), restart 10 min, checkpoint write 2 min, 4,000 h of work.
fn ettr_of(interval: SimTime, seed: u64) -> f64 {
    let job_rate_per_h = 0.1;
    let per_gpu_day = job_rate_per_h * 24.0 / 1024.0;
    let mut f = FaultConfig::none();
    f.processes.push((
        FailureProcess {
            rate_per_day: per_gpu_day,
            scope: Scope::Gpu,
            dist: FailureDist::Exponential,
            causes: vec![],
        },
        vec![],
    ));
    f.repair = DurationDist::Fixed {
        value: SimTime::from_secs(3600),
    };
    f.checkpointing = Checkpointing {
        policy: CheckpointPolicy::Fixed(interval),
        write: SimTime::from_secs(120),
        restart: SimTime::from_secs(600),
        max_retries: u32::MAX,
        size_gb: 0.0,
    };
    let w = workload(vec![job(0, 1024, 4000 * 3600)]);
    let r = run_with_faults(
        config(vec![pool("p", 144, 8)], PolicyKind::Fifo),
        &w,
        f,
        seed,
    );
    let rec = &r.jobs[0];
    assert_eq!(rec.outcome, JobOutcome::Completed);
    rec.useful.0 as f64 / rec.end.unwrap().since(rec.start.unwrap()).0 as f64
}

/// ECONOMICS.md: ETTR ~ (1 - N r (u0 + T/2)) / (1 + w/T).
fn ettr_formula(t_h: f64) -> f64 {
    let (nr, u0, w) = (0.1, 10.0 / 60.0, 2.0 / 60.0);
    (1.0 - nr * (u0 + t_h / 2.0)) / (1.0 + w / t_h)
}

#[test]
fn ettr_matches_the_analytic_approximation() {
    for minutes in [15u64, 30, 60, 120] {
        let sim = ettr_of(SimTime::from_secs(minutes * 60), 11);
        let theory = ettr_formula(minutes as f64 / 60.0);
        assert!(
            (sim - theory).abs() < 0.02,
            "T = {minutes} min: simulated ETTR {sim:.4}, formula {theory:.4}"
        );
    }
}

#[test]
fn best_interval_is_near_young() {
    // Young: sqrt(2 x 2 min x 600 min) = 49 min. Same seed for every interval (common
    // random numbers) so the comparison is not swamped by noise.
    let young_min = (2.0f64 * 2.0 * 600.0).sqrt();
    let grid = [10u64, 20, 30, 40, 50, 60, 80, 100, 130, 160];
    let results: Vec<(u64, f64)> = grid
        .iter()
        .map(|&m| (m, ettr_of(SimTime::from_secs(m * 60), 5)))
        .collect();
    let best = results
        .iter()
        .cloned()
        .fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
    assert!(
        (best.0 as f64) >= young_min / 2.0 && (best.0 as f64) <= young_min * 2.0,
        "best interval {} min, Young {young_min:.0} min: {results:?}",
        best.0
    );
    let at_young = ettr_of(SimTime::from_secs((young_min * 60.0) as u64), 5);
    assert!(
        best.1 - at_young < 0.005,
        "Young's interval gives {at_young:.4}, best {:.4}",
        best.1
    );
}

/// Hand-worked: one job of 100 min on pool a's single 1-GPU node (pool b is the fallback),
/// checkpoint every 30 min of
/// work (2 min writes), restart 5 min (paid on restarts only). A traced failure of its
/// node at 70 min: cycles of 30 min compute + 2 min write completed at 32 and 64 min, so
/// it keeps 60 min of work and loses the 6 min computed since. It restarts at once on the
/// other node: 5 + 40 + 1 write of 2 = 47 min, ending at 117 min. Totals: useful 100,
/// lost 6, checkpoint 3 x 2 = 6, restart 5, held 70 + 47 = 117.
#[test]
fn killed_job_resumes_from_its_last_checkpoint() {
    let w = workload(vec![job(0, 1, 100 * 60)]);
    let mut f = FaultConfig::none();
    f.trace.push(TraceFailure {
        time: SimTime::from_secs(70 * 60),
        pool: None,
        node: 0,
        cause: "test".into(),
        repair: None,
    });
    f.checkpointing = Checkpointing {
        policy: CheckpointPolicy::Fixed(SimTime::from_secs(30 * 60)),
        write: SimTime::from_secs(120),
        restart: SimTime::from_secs(300),
        max_retries: 3,
        size_gb: 0.0,
    };
    let cfg = config(vec![pool("a", 1, 1), pool("b", 1, 1)], PolicyKind::Fifo);
    let r = run_with_faults(cfg, &w, f, 1);
    let rec = &r.jobs[0];
    let min = |t: SimTime| t.0 / 60_000;
    assert_eq!(rec.outcome, JobOutcome::Completed);
    assert_eq!(rec.restarts, 1);
    assert_eq!(min(rec.end.unwrap()), 117);
    assert_eq!(
        (
            min(rec.useful),
            min(rec.lost),
            min(rec.checkpoint),
            min(rec.restart)
        ),
        (100, 6, 6, 5)
    );
    assert_eq!(min(rec.held), 117);
    let fs = r.faults.unwrap();
    assert_eq!(fs.interruptions, vec![("test".to_string(), 1)]);
}

/// Kills reach the policy and the job's attained service. Tiresias (thresholds 3,600 and
/// 36,000 GPU-s): job X (8 GPUs, 10,000 s) runs on pool a's node until a traced failure
/// of that node at 5,000 s kills it (no checkpoints: it restarts from zero), having
/// attained 40,000 GPU-s, so it goes back to the lowest queue; Y (8 GPUs, 1,000 s)
/// arrives then, goes first and runs on pool b from 5,000 s to 6,000 s; X, which may not
/// preempt Y (a higher queue), takes pool b at 6,000 s and ends at 16,000 s. Neither is
/// ever preempted. (Before: the policy still counted X's killed run as running in its
/// lowest queue and preempted X in the very pass that restarted it, which panicked;
/// and a killed run attained no service, so X jumped back to the top queue.)
#[test]
fn tiresias_hears_of_kills() {
    let w = workload(vec![job(0, 8, 10_000), job(5_000, 8, 1_000)]);
    let mut f = FaultConfig::none();
    f.trace.push(TraceFailure {
        time: SimTime::from_secs(5_000),
        pool: None,
        node: 0,
        cause: "test".into(),
        repair: Some(SimTime::from_secs(3_600)),
    });
    let cfg = config(vec![pool("a", 1, 8), pool("b", 1, 8)], PolicyKind::Tiresias);
    let r = run_with_faults(cfg, &w, f, 1);
    let (x, y) = (&r.jobs[0], &r.jobs[1]);
    assert_eq!((x.restarts, x.preemptions, y.preemptions), (1, 0, 0));
    assert_eq!(
        (y.start, y.end),
        (
            Some(SimTime::from_secs(5_000)),
            Some(SimTime::from_secs(6_000))
        )
    );
    assert_eq!(x.run_start, Some(SimTime::from_secs(6_000)));
    assert_eq!(x.end, Some(SimTime::from_secs(16_000)));
    assert_eq!(x.outcome, JobOutcome::Completed);
}

/// The retry limit: a job killed more often than allowed fails (and ends once).
#[test]
fn retry_limit_fails_the_job() {
    let w = workload(vec![job(0, 1, 1000)]);
    let mut f = FaultConfig::none();
    for k in 0..3 {
        f.trace.push(TraceFailure {
            time: SimTime::from_secs(100 + k * 100),
            pool: None,
            node: k as u32,
            cause: "x".into(),
            repair: Some(SimTime::from_secs(10_000)),
        });
    }
    f.checkpointing.max_retries = 2;
    // One node per pool: the job goes to the first pool that is up, so each failure hits it.
    let pools = (0..4).map(|i| pool(&format!("p{i}"), 1, 1)).collect();
    let r = run_with_faults(config(pools, PolicyKind::Fifo), &w, f, 1);
    assert_eq!(r.jobs[0].outcome, JobOutcome::Failed);
    assert_eq!(r.jobs[0].restarts, 3);
    assert_eq!(r.jobs[0].end, Some(SimTime::from_secs(300)));
}

/// Maintenance with notice on pool a's node: the job checkpoints and moves to pool b; it
/// loses no work.
#[test]
fn maintenance_moves_jobs_without_loss() {
    let w = workload(vec![job(0, 8, 10_000)]);
    let mut f = FaultConfig::none();
    f.maintenance.push(gpufleet::faults::Maintenance {
        pool: 0,
        nodes: 1,
        start: SimTime::from_secs(4000),
        duration: SimTime::from_secs(3600),
        notice: SimTime::from_secs(600),
    });
    let r = run_with_faults(
        config(vec![pool("a", 1, 8), pool("b", 1, 8)], PolicyKind::Fifo),
        &w,
        f,
        1,
    );
    let rec = &r.jobs[0];
    assert_eq!(rec.restarts, 1);
    assert_eq!(rec.lost, SimTime::ZERO);
    // No restart overhead or writes configured: it ends exactly when its work is done.
    assert_eq!(rec.end, Some(SimTime::from_secs(10_000)));
    // Pool a's node was down from the notice (3,400 s) to the end of maintenance (7,600 s).
    let fs = r.faults.unwrap();
    assert_eq!(fs.down_node_ms, vec![4_200_000, 0]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// Work is conserved for each job: useful + lost + checkpoint + restart = held time;
    /// completed jobs did exactly their work; every job ends exactly once; GPUs are never
    /// over-allocated.
    #[test]
    fn work_is_conserved_under_failures(
        specs in prop::collection::vec((0u64..2000, prop::sample::select(vec![1u32, 2, 4, 8, 16]), 60u64..5000), 1..30),
        rate in 0.5f64..20.0,
        interval_s in prop::option::of(60u64..2000),
        policy in prop::sample::select(vec![PolicyKind::Fifo, PolicyKind::EasyBackfill]),
        seed in 0u64..1000,
    ) {
        let w = workload(specs.iter().map(|&(s, g, d)| job(s, g, d)).collect());
        let mut f = FaultConfig::none();
        f.processes.push((FailureProcess { rate_per_day: rate, scope: Scope::Node, dist: FailureDist::Weibull { shape: 0.8 }, causes: vec![] }, vec![]));
        f.repair = DurationDist::Exponential { mean: SimTime::from_secs(900) };
        f.checkpointing = Checkpointing {
            policy: interval_s.map(|s| CheckpointPolicy::Fixed(SimTime::from_secs(s))).unwrap_or(CheckpointPolicy::None),
            write: SimTime::from_secs(30),
            restart: SimTime::from_secs(60),
            max_retries: 50,
            size_gb: 0.0,
        };
        let r = run_with_faults(config(vec![pool("p", 4, 8)], policy), &w, f, seed);
        for (rec, j) in r.jobs.iter().zip(&w.jobs) {
            prop_assert!(matches!(rec.outcome, JobOutcome::Completed | JobOutcome::Failed));
            let parts = rec.useful.0 + rec.lost.0 + rec.checkpoint.0 + rec.restart.0;
            prop_assert_eq!(parts, rec.held.0);
            if rec.outcome == JobOutcome::Completed {
                prop_assert_eq!(rec.useful, j.work);
            }
        }
        let busy: u128 = r.pools.iter().map(|p| p.busy_gpu_ms).sum();
        let held: u128 = r.jobs.iter().map(|j| j.gpu_milli as u128 * j.held.0 as u128 / 1000).sum();
        prop_assert_eq!(busy, held);
    }
}

#[test]
fn failure_scenarios_run_and_bad_ones_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let base = r#"name = "f"
horizon = "2d"
[[pools]]
name = "p"
gpu_type = "H100"
kind = "owned"
nodes = 4
gpus_per_node = 8
price_per_node_hour = 10.0
[workload]
kind = "synthetic"
rate_per_hour = 2.0
sizes = [{ gpus = 8, weight = 1 }]
duration = { kind = "exponential", mean = "3h" }
"#;
    let with_preset = base.replace(
        "horizon = \"2d\"\n",
        "horizon = \"2d\"\nfailures = \"llama3-h100\"\n",
    );
    let good = format!("{with_preset}[checkpoint]\ninterval = \"young\"\nwrite_time = \"1m\"\nrestart_overhead = \"5m\"\n");
    std::fs::write(dir.path().join("good.toml"), good).unwrap();
    let out = assert_cmd::Command::cargo_bin("gpufleet")
        .unwrap()
        .arg("run")
        .arg(dir.path().join("good.toml"))
        .arg("--out")
        .arg(dir.path().join("o"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8(out).unwrap().contains("ETTR"));
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("o/summary.json")).unwrap()).unwrap();
    for key in ["lost_gpu_hours", "ettr", "interruptions"] {
        assert!(s.get(key).is_some(), "summary lacks {key}");
    }
    assert!(s["interruptions"].get("by_cause").is_some());
    for (bad, want) in [
        (
            "[failures]\npreset = \"llama4\"\n",
            "unknown failure preset \"llama4\"",
        ),
        (
            "[failures]\nrate_per_gpu_day = -1\n",
            "failures.rate_per_gpu_day",
        ),
        (
            "[failures]\npreset = \"llama3-h100\"\ndistribution = \"weibull\"\n",
            "weibull_shape",
        ),
        (
            "[checkpoint]\ninterval = \"young\"\n",
            "checkpoint.write_time",
        ),
        ("[checkpoint]\ninterval = \"soon\"\n", "checkpoint.interval"),
        (
            "[[maintenance]]\npool = \"q\"\nnodes = 1\nstart = \"1d\"\nduration = \"1h\"\n",
            "maintenance[0].pool",
        ),
    ] {
        std::fs::write(dir.path().join("bad.toml"), format!("{base}{bad}")).unwrap();
        let out = assert_cmd::Command::cargo_bin("gpufleet")
            .unwrap()
            .arg("validate")
            .arg(dir.path().join("bad.toml"))
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains(want) && !err.contains("panicked"),
            "{bad}: {err}"
        );
    }
}

/// A spot pool (one 8-GPU node) and an on-demand fallback; one preemptible job of 5,000 s,
/// checkpoints every 1,000 s of work (60 s writes). An availability trace with ticks every
/// 600 s (1 1 1 0 0 1) takes the spot pool away over [1,800 s, 3,000 s).
fn spot_case(notice_s: u64) -> gpufleet::sim::JobRecord {
    let dir = tempfile::tempdir().unwrap();
    let trace = "date,availability\n2023-02-15 00:00:00,1\n2023-02-15 00:10:00,1\n2023-02-15 00:20:00,1\n2023-02-15 00:30:00,0\n2023-02-15 00:40:00,0\n2023-02-15 00:50:00,1\n";
    std::fs::write(dir.path().join("avail.csv"), trace).unwrap();
    let text = format!(
        r#"name = "spot-case"
[[pools]]
name = "spot"
gpu_type = "H100"
kind = "spot"
nodes = 1
gpus_per_node = 8
price_per_node_hour = 20.0
[[pools]]
name = "od"
gpu_type = "H100"
kind = "on_demand"
nodes = 1
gpus_per_node = 8
price_per_node_hour = 98.0
[scheduler]
policy = "fifo"
[workload]
kind = "csv"
path = "job.csv"
[checkpoint]
interval = "1000s"
write_time = "60s"
[[spot_interruptions]]
pool = "spot"
model = "trace"
path = "avail.csv"
notice = "{notice_s}s"
"#
    );
    std::fs::write(
        dir.path().join("job.csv"),
        "job_id,submit_s,gpus,duration_s,preemptible\nj,0,8,5000,true\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    let s = gpufleet::scenario::Scenario::load(&dir.path().join("s.toml")).unwrap();
    let w = s.build_workload(1).unwrap();
    let r = Simulation::new(s.sim.clone(), &w)
        .with_faults(s.faults.clone().unwrap(), &RngStreams::new(1))
        .run();
    r.jobs[0].clone()
}

#[test]
fn spot_notice_long_enough_to_checkpoint_loses_nothing() {
    // Notice 120 s >= 60 s write: stopped at 1,680 s with 1,000 (one cycle of 1,060 s) +
    // 620 s of work, all kept. On demand from 1,680 s: 3,380 s of work with 3 writes of
    // 60 s (at 1,000, 2,000, 3,000 s of the segment) = 3,560 s, ending at 5,240 s.
    let rec = spot_case(120);
    assert_eq!(rec.restarts, 1);
    assert_eq!(rec.lost, SimTime::ZERO);
    assert_eq!(rec.end, Some(SimTime::from_secs(5_240)));
}

#[test]
fn spot_notice_too_short_loses_work_since_last_checkpoint() {
    // Notice 30 s < 60 s write: stopped at 1,770 s; one checkpoint completed at 1,060 s, so
    // 1,000 s of work are kept and the 710 s computed since are lost. On demand: 4,000 s of
    // work with 3 writes = 4,180 s, ending at 5,950 s.
    let rec = spot_case(30);
    assert_eq!(rec.restarts, 1);
    assert_eq!(rec.lost, SimTime::from_secs(710));
    assert_eq!(rec.end, Some(SimTime::from_secs(5_950)));
}

/// Advisor bucket 10-15 % a month (12.5 % used): rate -ln(0.875)/730 per node-hour. 100
/// instances for a year: about 160 interruptions; the count must be within 4 Poisson sd.
#[test]
fn advisor_bucket_interruption_counts_match_the_rate() {
    use gpufleet::pricing::{AdvisorBucket, PoissonHazard};
    let mut cfg = config(vec![pool("spot", 100, 8)], PolicyKind::Fifo);
    cfg.pools[0].kind = gpufleet::model::CapacityKind::Spot;
    cfg.horizon = Some(SimTime::from_secs(365 * 86_400));
    let mut f = FaultConfig::none();
    f.spot.push(gpufleet::faults::SpotInterruptions {
        pool: 0,
        model: gpufleet::faults::SpotModel::Poisson(PoissonHazard::from_bucket(
            AdvisorBucket::From10To15,
        )),
        notice: SimTime::from_secs(120),
        replace_after: SimTime::from_secs(60),
    });
    let r = run_with_faults(cfg, &workload(vec![]), f, 4);
    let n: u64 = r.faults.unwrap().node_failures.iter().map(|x| x.1).sum();
    let expected = 100.0 * 8760.0 * -(0.875f64.ln()) / 730.0;
    assert!(
        (n as f64 - expected).abs() < 4.0 * expected.sqrt(),
        "{n} interruptions, expected {expected:.1}"
    );
}

/// Migration, hand-worked: the job of `killed_job_resumes_from_its_last_checkpoint`
/// (killed at 70 min on pool a, restarts on pool b), now with a 100 GB checkpoint at
/// 10 Gbit/s: 100 x 8 / 10 = 80 s are added to its restart, so it ends at 117 min + 80 s.
/// Pools in two zones of one region: 100 GB x $0.01 each way = $2.00 of transfer. In two
/// regions: internet egress tiers, the first 100 GB free: 1,000 GB cost 900 x $0.09 = $81.
#[test]
fn migration_time_and_transfer_cost() {
    let run = |gb: f64, places: [(&str, &str); 2]| {
        let w = workload(vec![job(0, 1, 100 * 60)]);
        let mut f = FaultConfig::none();
        f.trace.push(TraceFailure {
            time: SimTime::from_secs(70 * 60),
            pool: None,
            node: 0,
            cause: "test".into(),
            repair: None,
        });
        f.checkpointing = Checkpointing {
            policy: CheckpointPolicy::Fixed(SimTime::from_secs(30 * 60)),
            write: SimTime::from_secs(120),
            restart: SimTime::from_secs(300),
            max_retries: 3,
            size_gb: gb,
        };
        f.migration.bandwidth_gbps = 10.0;
        f.migration.locations = places
            .iter()
            .map(|(r, z)| (r.to_string(), z.to_string()))
            .collect();
        let cfg = config(vec![pool("a", 1, 1), pool("b", 1, 1)], PolicyKind::Fifo);
        let r = run_with_faults(cfg, &w, f, 1);
        let pricing = gpufleet::pricing::RunPricing::new(
            vec![
                gpufleet::pricing::PoolPricing::flat(0.0),
                gpufleet::pricing::PoolPricing::flat(0.0),
            ],
            gpufleet::pricing::egress("aws").unwrap(),
        );
        let transfer = gpufleet::metrics::price_run(&r, &pricing, |_| 0)
            .ledger
            .sum_where(|k| k.kind == gpufleet::pricing::CostKind::Transfer);
        (r.jobs[0].end.unwrap(), transfer)
    };
    let (end, usd) = run(
        100.0,
        [("us-east-1", "us-east-1a"), ("us-east-1", "us-east-1b")],
    );
    assert_eq!(end, SimTime::from_secs(117 * 60 + 80));
    assert!((usd - 2.0).abs() < 1e-9, "{usd}");
    let (_, usd) = run(
        1000.0,
        [("us-east-1", "us-east-1a"), ("us-west-2", "us-west-2a")],
    );
    assert!((usd - 81.0).abs() < 1e-9, "{usd}");
    // Same place: no move, no time, no cost.
    let (end, usd) = run(
        100.0,
        [("us-east-1", "us-east-1a"), ("us-east-1", "us-east-1a")],
    );
    assert_eq!((end, usd), (SimTime::from_secs(117 * 60), 0.0));
}
