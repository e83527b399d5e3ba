//! The foundation: queueing theory, EASY backfill's guarantee, determinism, bad input,
//! and every shipped scenario.

use crate::common::*;
use assert_cmd::Command;
use gpufleet::engine::{RngStreams, SimTime};
use gpufleet::model::GpuRequest;
use gpufleet::sched::{EasyBackfill, PolicyKind};
use gpufleet::sim::{JobOutcome, RunResult, Simulation};
use gpufleet::workload::{DurationDist, SyntheticSpec};
use proptest::prelude::*;

/// Erlang C: probability that an arrival waits in an M/M/c queue with offered load a = λ/μ.
fn erlang_c(c: u32, a: f64) -> f64 {
    // Sum a^k/k! for k < c, iteratively.
    let mut term = 1.0;
    let mut sum = 0.0;
    for k in 0..c {
        sum += term;
        term *= a / (k + 1) as f64;
    }
    // term is now a^c / c!
    let last = term * c as f64 / (c as f64 - a);
    last / (sum + last)
}

#[test]
fn erlang_c_formula_sanity() {
    // c = 1 reduces to M/M/1: P(wait) = rho.
    assert!((erlang_c(1, 0.7) - 0.7).abs() < 1e-12);
    // c = 2, a = 1: C = (1/2 * 2) / (1 + 1 + 1) = 1/3 (hand calculation).
    assert!((erlang_c(2, 1.0) - 1.0 / 3.0).abs() < 1e-12);
}

/// Single-GPU jobs, Poisson arrivals, exponential work, c GPUs, FIFO: an M/M/c queue.
/// The mean wait must match Erlang C's Wq = C(c, a) / (cμ - λ) within the run's own
/// statistical error (batch means over 40 batches, 4 standard errors).
#[test]
fn mm_c_fifo_matches_erlang_c() {
    let cases = [(1u32, 0.5f64), (4, 0.8), (16, 0.9), (64, 0.9)];
    let jobs = 1_000_000u64;
    for (i, &(c, rho)) in cases.iter().enumerate() {
        let mean_service_h = 1.0;
        let lambda = rho * c as f64 / mean_service_h; // per hour
        let spec = SyntheticSpec {
            rate_per_hour: lambda,
            until: None,
            jobs: Some(jobs),
            sizes: vec![(GpuRequest::Whole(1), 1.0)],
            duration: DurationDist::Exponential {
                mean: SimTime::from_secs(3600),
            },
            tenants: vec![("t".into(), 1.0)],
            preemptible_share: 0.0,
            cpu_milli_per_gpu: 0,
            mem_mib_per_gpu: 0,
        };
        let w = spec.generate(&RngStreams::new(1000 + i as u64));
        let r = Simulation::new(config(vec![pool("p", c, 1)], PolicyKind::Fifo), &w).run();
        let waits: Vec<f64> = r
            .jobs
            .iter()
            .zip(&w.jobs)
            .map(|(rec, j)| rec.start.unwrap().since(j.submit).hours_f64())
            .collect();
        let warm = waits.len() / 20;
        let body = &waits[warm..];
        let batches = 40;
        let size = body.len() / batches;
        let means: Vec<f64> = (0..batches)
            .map(|b| body[b * size..(b + 1) * size].iter().sum::<f64>() / size as f64)
            .collect();
        let grand = means.iter().sum::<f64>() / batches as f64;
        let var = means.iter().map(|m| (m - grand).powi(2)).sum::<f64>() / (batches - 1) as f64;
        let se = (var / batches as f64).sqrt();
        let a = lambda * mean_service_h;
        let wq = erlang_c(c, a) / (c as f64 / mean_service_h - lambda);
        eprintln!("M/M/{c} at rho {rho}: simulated mean wait {grand:.4} h, Erlang C {wq:.4} h, batch-means se {se:.4} h");
        assert!(
            (grand - wq).abs() < 4.0 * se + 0.002 * wq,
            "c={c} rho={rho}: simulated mean wait {grand:.4} h, Erlang C {wq:.4} h, se {se:.4}"
        );
        // The standard error must be small enough for this to be a real check (< 5 %).
        assert!(
            se < 0.04 * wq,
            "c={c}: too few jobs for a tight check (se {se}, wq {wq})"
        );
    }
}

/// Jobs' GPUs held never exceed a pool's GPUs at any moment (from the job records alone).
fn check_capacity(r: &RunResult, pool_gpus: &[u64]) {
    let mut deltas: Vec<(u64, i64, usize)> = Vec::new();
    for rec in &r.jobs {
        if let (Some(s), Some(p)) = (rec.start, rec.pool) {
            let e = rec.end.unwrap_or(r.end);
            deltas.push((s.0, rec.gpu_milli as i64, p as usize));
            deltas.push((e.0, -(rec.gpu_milli as i64), p as usize));
        }
    }
    // Ends before starts at equal times: a GPU freed at t may be taken at t.
    deltas.sort_by_key(|&(t, d, _)| (t, d));
    let mut held = vec![0i64; pool_gpus.len()];
    for (t, d, p) in deltas {
        held[p] += d;
        assert!(
            held[p] <= pool_gpus[p] as i64 * 1000,
            "pool {p} over capacity at {t} ms"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    /// EASY backfill: with exact estimates, the head job starts no later than the
    /// reservation it was given when it became the head; capacity is never exceeded; every
    /// job ends exactly once.
    #[test]
    fn easy_backfill_never_delays_the_head(
        specs in prop::collection::vec((0u64..300, prop::sample::select(vec![1u32, 1, 2, 3, 4, 8, 12, 16, 24]), 1u64..200), 5..60),
        nodes in 2u32..5,
    ) {
        let jobs: Vec<_> = specs.iter().enumerate().map(|(i, &(s, g, d))| { let mut j = job(s, g, d); j.name = format!("j{i}"); j }).collect();
        let w = workload(jobs);
        let cfg = config(vec![pool("p", nodes, 8)], PolicyKind::EasyBackfill);
        let sim = Simulation::with_policy(cfg, &w, Box::new(EasyBackfill::with_log()));
        // Run by hand to keep the policy's log: rebuild with the same inputs after.
        let r = sim.run();
        let sim2 = Simulation::with_policy(config(vec![pool("p", nodes, 8)], PolicyKind::EasyBackfill), &w, Box::new(EasyBackfill::with_log()));
        let log = run_and_log(sim2);
        let mut seen = std::collections::HashSet::new();
        for (head, shadow) in log {
            if seen.insert(head) && shadow != SimTime::NEVER {
                let start = r.jobs[head as usize].start.expect("head started");
                prop_assert!(start <= shadow, "job {} reserved for {:?} started at {:?}", head, shadow, start);
            }
        }
        check_capacity(&r, &[nodes as u64 * 8]);
        for rec in &r.jobs {
            let ended = matches!(rec.outcome, JobOutcome::Completed | JobOutcome::Rejected);
            prop_assert!(ended, "every job ends (no horizon)");
        }
    }

    /// Strict FIFO starts jobs in arrival order.
    #[test]
    fn fifo_starts_in_arrival_order(
        specs in prop::collection::vec((0u64..300, 1u32..17, 1u64..200), 5..60),
    ) {
        let w = workload(specs.iter().map(|&(s, g, d)| job(s, g, d)).collect());
        let r = Simulation::new(config(vec![pool("p", 2, 8)], PolicyKind::Fifo), &w).run();
        let starts: Vec<SimTime> = r.jobs.iter().map(|j| j.start.unwrap()).collect();
        prop_assert!(starts.windows(2).all(|p| p[0] <= p[1]));
        check_capacity(&r, &[16]);
    }
}

/// Runs a simulation and returns the EASY reservations it logged.
fn run_and_log(sim: Simulation) -> Vec<(u32, SimTime)> {
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let out = log.clone();
    let r = sim.run_with(move |s| {
        if let Some(l) = s.policy().reservation_log() {
            out.lock().unwrap().extend_from_slice(l);
        }
    });
    drop(r);
    let v = log.lock().unwrap().clone();
    v
}

/// A hand-worked EASY case: 2 nodes x 8 GPUs.
/// t=0: A takes 8 GPUs for 100 s, B takes 4 GPUs for 50 s. t=1: C wants 16 (both nodes):
/// head, reserved for t=100 (when A ends; B ends at 50). t=2: D (4 GPUs, 40 s) ends by 42
/// <= 100: backfills at once. t=3: E (4 GPUs, 200 s) would run past 100 on a reserved
/// node: waits until C is done (t=100+10=110). Strict FIFO instead holds D behind C.
#[test]
fn easy_backfill_hand_worked() {
    let w = workload(vec![
        job(0, 8, 100),
        job(0, 4, 50),
        job(1, 16, 10),
        job(2, 4, 40),
        job(3, 4, 200),
    ]);
    let easy = Simulation::new(config(vec![pool("p", 2, 8)], PolicyKind::EasyBackfill), &w).run();
    let s = |r: &RunResult, i: usize| r.jobs[i].start.unwrap().0 / 1000;
    assert_eq!(
        [
            s(&easy, 0),
            s(&easy, 1),
            s(&easy, 2),
            s(&easy, 3),
            s(&easy, 4)
        ],
        [0, 0, 100, 2, 110]
    );
    let fifo = Simulation::new(config(vec![pool("p", 2, 8)], PolicyKind::Fifo), &w).run();
    assert_eq!([s(&fifo, 2), s(&fifo, 3), s(&fifo, 4)], [100, 110, 110]);
}

fn bin() -> Command {
    Command::cargo_bin("gpufleet").unwrap()
}

#[test]
fn same_seed_same_bytes_other_seed_differs() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = root().join("scenarios/quickstart.toml");
    for (name, seed) in [("a", "7"), ("b", "7"), ("c", "8")] {
        bin()
            .args(["run", "-q"])
            .arg(&scenario)
            .arg("--out")
            .arg(dir.path().join(name))
            .args(["--seed", seed])
            .assert()
            .success();
    }
    for f in [
        "summary.json",
        "jobs.csv",
        "pools.csv",
        "timeline.csv",
        "timeline.svg",
    ] {
        let a = std::fs::read(dir.path().join("a").join(f)).unwrap();
        let b = std::fs::read(dir.path().join("b").join(f)).unwrap();
        assert_eq!(a, b, "{f} differs between two runs with the same seed");
    }
    let a = std::fs::read(dir.path().join("a/jobs.csv")).unwrap();
    let c = std::fs::read(dir.path().join("c/jobs.csv")).unwrap();
    assert_ne!(a, c, "another seed must give another run");
}

#[test]
fn default_run_writes_the_output_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .current_dir(dir.path())
        .arg("run")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    for want in [
        "jobs",
        "wait",
        "utilization",
        "cost per busy GPU-hour",
        "owned-h100",
    ] {
        assert!(text.contains(want), "summary lacks {want:?}:\n{text}");
    }
    let summary: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("out/quickstart/summary.json")).unwrap(),
    )
    .unwrap();
    for key in [
        "seed",
        "scenario",
        "gpufleet_version",
        "jobs",
        "wait_s",
        "jct_s",
        "gpu_hours",
        "utilization",
        "cost_usd",
        "cost_per_busy_gpu_hour_usd",
        "events",
    ] {
        assert!(summary.get(key).is_some(), "summary.json lacks {key}");
    }
    for key in ["submitted", "completed", "failed", "unfinished"] {
        assert!(summary["jobs"].get(key).is_some(), "jobs lacks {key}");
    }
    for key in ["mean", "p50", "p95", "p99"] {
        assert!(summary["wait_s"].get(key).is_some() && summary["jct_s"].get(key).is_some());
    }
    // The cost entries add up: total = sum of pools (to the cent).
    let cost = summary["cost_usd"].as_object().unwrap();
    let pools: f64 = cost
        .iter()
        .filter(|(k, _)| *k != "total")
        .map(|(_, v)| v.as_f64().unwrap())
        .sum();
    assert!((pools - cost["total"].as_f64().unwrap()).abs() < 0.02);
    // Hand check of the quickstart's provisioned GPU-hours: 48 GPUs x 720 h.
    assert_eq!(
        summary["gpu_hours"]["provisioned"].as_f64().unwrap(),
        34_560.0
    );
    // And of its cost: (4 x 12.16 + 2 x 98.32) $/h x 720 h = 176,601.60.
    assert!((cost["total"].as_f64().unwrap() - 176_601.60).abs() < 0.01);
}

fn bad(text: &str, want: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.toml");
    std::fs::write(&p, text).unwrap();
    for cmd in ["validate", "run"] {
        let a = bin()
            .arg(cmd)
            .arg(&p)
            .arg("--out")
            .arg(dir.path().join("o"))
            .assert();
        let a = if cmd == "validate" {
            bin().arg(cmd).arg(&p).assert()
        } else {
            a
        };
        let out = a.code(2).get_output().clone();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(!err.contains("panicked"), "{err}");
        for w in want {
            assert!(err.contains(w), "error for {cmd} lacks {w:?}:\n{err}");
        }
    }
}

const GOOD: &str = r#"name = "t"
horizon = "1d"
[[pools]]
name = "p"
gpu_type = "H100"
kind = "owned"
nodes = 2
gpus_per_node = 8
price_per_node_hour = 10.0
[workload]
kind = "synthetic"
rate_per_hour = 2.0
sizes = [{ gpus = 1, weight = 1 }]
duration = { kind = "exponential", mean = "1h" }
"#;

#[test]
fn good_scenario_validates() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("good.toml");
    std::fs::write(&p, GOOD).unwrap();
    bin().arg("validate").arg(&p).assert().success();
}

#[test]
fn bad_scenarios_get_clear_errors_and_exit_2() {
    bad(
        &GOOD.replace("nodes = 2", "nodes = 2\ncolour = \"red\""),
        &["unknown field `colour`", "line 8"],
    );
    bad(
        &GOOD.replace("mean = \"1h\"", "mean = \"6o s\""),
        &[
            "workload.duration.mean",
            "line 14",
            "\"6o s\" is not a duration",
        ],
    );
    bad(
        &GOOD.replace("gpus_per_node = 8", "gpus_per_node = -8"),
        &["pools[0].gpus_per_node", "line 8", "-8"],
    );
    bad(
        &GOOD.replace("horizon = \"1d\"", "horizon = \"1d\"\n[workload2"),
        &["line 3"],
    );
    bad(&GOOD.replace("kind = \"synthetic\"\nrate_per_hour = 2.0\nsizes = [{ gpus = 1, weight = 1 }]\nduration = { kind = \"exponential\", mean = \"1h\" }", "kind = \"csv\"\npath = \"missing.csv\""), &["workload.path", "missing.csv", "does not exist"]);
    bad(
        &GOOD.replace("kind = \"owned\"", "kind = \"leased\""),
        &["unknown variant `leased`", "owned", "on_demand", "spot"],
    );
    // Several problems at once are all reported.
    bad(
        &GOOD
            .replace("nodes = 2", "nodes = 0")
            .replace("rate_per_hour = 2.0", "rate_per_hour = -1.0"),
        &["pools[0].nodes", "workload.rate_per_hour", "2 problems"],
    );
}

#[test]
fn bad_trace_rows_name_file_row_and_column() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("t.csv"),
        "job_id,submit_s,gpus,duration_s\na,0,1,10\nb,5,two,10\n",
    )
    .unwrap();
    let text = GOOD.replace("kind = \"synthetic\"\nrate_per_hour = 2.0\nsizes = [{ gpus = 1, weight = 1 }]\nduration = { kind = \"exponential\", mean = \"1h\" }", "kind = \"csv\"\npath = \"t.csv\"");
    std::fs::write(dir.path().join("s.toml"), &text).unwrap();
    let out = bin()
        .arg("run")
        .arg(dir.path().join("s.toml"))
        .arg("--out")
        .arg(dir.path().join("o"))
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("t.csv:3") && err.contains("gpus") && err.contains("\"two\""),
        "{err}"
    );
    std::fs::write(
        dir.path().join("s.toml"),
        text.replace("path = \"t.csv\"", "path = \"t.csv\"\nskip_bad_rows = true"),
    )
    .unwrap();
    bin()
        .arg("run")
        .arg(dir.path().join("s.toml"))
        .arg("--out")
        .arg(dir.path().join("o"))
        .assert()
        .success();
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("o/summary.json")).unwrap()).unwrap();
    assert_eq!(s["jobs"]["submitted"], 1);
    // The skipped row is counted in the summary, not dropped silently.
    assert_eq!(s["trace_rows"]["skipped_bad"], 1);
}

#[test]
fn every_shipped_scenario_validates_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut n = 0;
    for e in std::fs::read_dir(root().join("scenarios")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            bin().arg("validate").arg(&p).assert().success();
            bin()
                .args(["run", "-q"])
                .arg(&p)
                .arg("--out")
                .arg(dir.path().join(p.file_stem().unwrap()))
                .assert()
                .success();
            n += 1;
        }
    }
    assert!(n >= 1);
    // Every shipped sweep and compare file validates too (each point or variant built).
    let mut m = 0;
    for sub in ["sweeps", "compare"] {
        for e in std::fs::read_dir(root().join("scenarios").join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "toml") {
                bin().arg("validate").arg(&p).assert().success();
                m += 1;
            }
        }
    }
    assert!(m >= 2);
}

#[test]
fn help_shows_examples() {
    let out = bin()
        .arg("--help")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8(out).unwrap().contains("Examples"));
    for sub in ["run", "validate"] {
        let out = bin()
            .args([sub, "--help"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        assert!(
            String::from_utf8(out).unwrap().contains("gpufleet"),
            "{sub} --help has an example"
        );
    }
}
