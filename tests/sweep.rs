//! Sweeps: expansion, overrides, statistics, determinism across threads, kill and resume,
//! shards and merge, bad sweep files, Slurm scripts, charts.

use crate::common::root;
use assert_cmd::Command;
use gpufleet::sweep::{
    latin_hypercube, merge, run_sweep, ParamValue, Plan, Progress, Shard, SweepOptions, Values,
};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

/// Writes a sweep file next to a copy of the base scenario in `dir`; returns its path.
fn sweep_file(dir: &Path, body: &str) -> PathBuf {
    std::fs::copy(
        root().join("tests/data/sweep-base.toml"),
        dir.join("base.toml"),
    )
    .unwrap();
    let p = dir.join("sweep.toml");
    std::fs::write(&p, format!("scenario = \"base.toml\"\n{body}")).unwrap();
    p
}

fn gpufleet() -> Command {
    Command::cargo_bin("gpufleet").unwrap()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

const GRID: &str = "seeds = 3\n[[param]]\npath = \"pools[1].nodes\"\nvalues = [1, 3]\n[[param]]\npath = \"workload.rate_per_hour\"\nlinspace = { start = 2.0, end = 4.0, num = 3 }\n";

#[test]
fn grid_expands_in_order_with_overrides_applied() {
    let d = tempfile::tempdir().unwrap();
    let plan = Plan::load(&sweep_file(d.path(), GRID)).unwrap();
    // 2 x 3 points x 3 seeds; seeds count up from the scenario's seed 5.
    assert_eq!((plan.points.len(), plan.runs()), (6, 18));
    assert_eq!(plan.seeds, vec![5, 6, 7]);
    // The last parameter varies fastest.
    let v: Vec<(String, String)> = plan
        .points
        .iter()
        .map(|p| (p.values[0].to_string(), p.values[1].to_string()))
        .collect();
    assert_eq!(v[0], ("1".into(), "2".into()));
    assert_eq!(v[1], ("1".into(), "3".into()));
    assert_eq!(v[3], ("3".into(), "2".into()));
    assert_eq!(plan.points[3].scenario.sim.pools[1].nodes, 3);
    assert_eq!(plan.points[0].scenario.sim.pools[1].nodes, 1);
    assert_eq!(plan.run(7).point, 2);
    assert_eq!(plan.run(7).seed, 6);
}

#[test]
fn runs_csv_follows_pool_sizes_and_points_csv_has_student_t_intervals() {
    let d = tempfile::tempdir().unwrap();
    let f = sweep_file(d.path(), GRID);
    let out = d.path().join("out");
    gpufleet()
        .args([
            "sweep",
            f.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ])
        .assert()
        .success();
    let runs = gpufleet::report::Table::read(&out.join("runs.csv")).unwrap();
    let points = gpufleet::report::Table::read(&out.join("points.csv")).unwrap();
    assert_eq!(runs.rows.len(), 18);
    assert_eq!(points.rows.len(), 6);
    let c_nodes = runs.col("pools[1].nodes").unwrap();
    let c_prov = runs.col("gpu_hours_provisioned").unwrap();
    let c_cost = runs.col("cost_usd_total").unwrap();
    for i in 0..runs.rows.len() {
        // Hand calculation: (2 owned + n rented nodes) x 8 GPUs x 48 h; cost 2 x 12 x 48 +
        // n x 100 x 48 dollars.
        let n = runs.num(i, c_nodes).unwrap();
        assert_eq!(runs.num(i, c_prov).unwrap(), (2.0 + n) * 8.0 * 48.0);
        assert!(
            (runs.num(i, c_cost).unwrap() - (2.0 * 12.0 * 48.0 + n * 100.0 * 48.0)).abs() < 0.01
        );
    }
    // Mean and 95 % half-width over 3 seeds: t(0.975, 2) = 4.303 from a t table.
    let c_w = runs.col("wait_s_mean").unwrap();
    let (pm, pc) = (
        points.col("wait_s_mean_mean").unwrap(),
        points.col("wait_s_mean_ci95").unwrap(),
    );
    for p in 0..6 {
        let x: Vec<f64> = (0..3).map(|r| runs.num(p * 3 + r, c_w).unwrap()).collect();
        let m = x.iter().sum::<f64>() / 3.0;
        let s = (x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / 2.0).sqrt();
        let h = 4.303 * s / 3f64.sqrt();
        assert!((points.num(p, pm).unwrap() - m).abs() < 1e-5 * m.max(1.0));
        assert!(
            (points.num(p, pc).unwrap() - h).abs() < 1e-3 * h.max(1.0),
            "point {p}"
        );
    }
    // Some point has waits that differ between seeds, so the intervals are not all zero.
    assert!((0..6).any(|p| points.num(p, pc).unwrap() > 0.0));
    // Cells typed by their text: the linspace's whole floats keep a decimal point (a
    // reader that infers types sees floats), the integer node counts have none; a point's
    // mean of whole job counts is a float.
    let c_rate = runs.col("workload.rate_per_hour").unwrap();
    let rates: Vec<&str> = (0..3).map(|p| runs.rows[p * 3][c_rate].as_str()).collect();
    assert_eq!(rates, ["2.0", "3.0", "4.0"]);
    assert_eq!(runs.rows[0][c_nodes], "1");
    let c_done = points.col("jobs_completed_mean").unwrap();
    assert!((0..6).all(|p| points.rows[p][c_done].contains('.')));
}

#[test]
fn same_bytes_at_any_thread_count() {
    let d = tempfile::tempdir().unwrap();
    let f = sweep_file(d.path(), GRID);
    for t in ["1", "2", "3"] {
        let out = d.path().join(format!("t{t}"));
        gpufleet()
            .args([
                "sweep",
                f.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--quiet",
                "--threads",
                t,
            ])
            .assert()
            .success();
    }
    for file in [
        "runs.csv",
        "points.csv",
        "distributions.csv",
        "sweep.json",
        "line-cost_usd_total.svg",
    ] {
        let a = read(&d.path().join("t1").join(file));
        assert_eq!(a, read(&d.path().join("t2").join(file)), "{file}");
        assert_eq!(a, read(&d.path().join("t3").join(file)), "{file}");
    }
}

/// Runs whose points build the same workload share one built workload per seed (the
/// policy varies, the cluster's size too, the arrival rate does not), and the runs are
/// made in an order that groups them: each run's figures still equal those of the point
/// run alone (`run_once`, which builds its own workload), run by run, at 1 and 2 threads.
#[test]
fn runs_sharing_a_workload_equal_the_points_run_alone() {
    let d = tempfile::tempdir().unwrap();
    let body = "seeds = 2\n[[param]]\npath = \"scheduler.policy\"\nvalues = [\"fifo\", \"sjf\", \"easy_backfill\"]\n[[param]]\npath = \"pools[1].nodes\"\nvalues = [1, 3]\n[[param]]\npath = \"workload.rate_per_hour\"\nvalues = [2.0, 3.0]\n";
    let plan = Plan::load(&sweep_file(d.path(), body)).unwrap();
    assert_eq!(plan.runs(), 24);
    for threads in [1, 2] {
        let out = d.path().join(format!("t{threads}"));
        let opts = SweepOptions {
            out: out.clone(),
            threads,
            progress: Progress::Quiet,
            resume: false,
            shard: None,
            keep_jobs: None,
        };
        run_sweep(&plan, &opts).unwrap();
        for id in 0..plan.runs() {
            let r = plan.run(id);
            let rec = gpufleet::sweep::Record::read(&out, id, &plan.hash)
                .unwrap()
                .unwrap();
            let alone = gpufleet::sweep::run_once(&plan.points[r.point].scenario, r.seed).unwrap();
            assert_eq!(
                rec.metrics,
                gpufleet::sweep::flatten_summary(&alone),
                "run {id} (point {}, seed {}) at {threads} threads",
                r.point,
                r.seed
            );
        }
    }
}

/// A sweep says which of its runs stopped before every job had ended: one job of 10
/// GPU-hours at $1.50 on an on-demand pool, no horizon, under a budget of $1 (it can never
/// start: the run ends with it waiting) and of $100 (it runs).
#[test]
fn a_sweep_names_the_runs_that_stopped_with_jobs_not_ended() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("s.toml"),
        crate::common::budget_bound_scenario(1),
    )
    .unwrap();
    let f = d.path().join("sw.toml");
    std::fs::write(
        &f,
        "scenario = \"s.toml\"\nseeds = 1\n[[param]]\npath = \"scheduler.budget.total_usd\"\nvalues = [1.0, 100.0]\n",
    )
    .unwrap();
    let out = gpufleet()
        .args(["sweep", f.to_str().unwrap(), "--out"])
        .arg(d.path().join("o"))
        .arg("-q")
        .assert()
        .success()
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: 1 of the 2 runs made stopped") && err.contains("(runs 0)"),
        "{err}"
    );
    let runs = read(&d.path().join("o/runs.csv"));
    let mut r = csv::Reader::from_reader(runs.as_bytes());
    let h = r.headers().unwrap().clone();
    let col = h.iter().position(|c| c == "jobs_unfinished").unwrap();
    let unfinished: Vec<String> = r.records().map(|x| x.unwrap()[col].to_string()).collect();
    assert_eq!(unfinished, vec!["1", "0"], "{runs}");
}

#[test]
fn bad_paths_and_values_are_reported_with_the_sweep_line() {
    let d = tempfile::tempdir().unwrap();
    // Line 1 is the scenario line written by sweep_file.
    let f = sweep_file(
        d.path(),
        "[[param]]\npath = \"pools[5].nodes\"\nvalues = [1]\n\n[[param]]\npath = \"pools[0].nodes\"\nvalues = [2, -1]\n",
    );
    let out = d.path().join("o");
    let a = gpufleet()
        .args(["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.contains("line 2: param `pools[5].nodes`"), "{err}");
    assert!(err.contains("`pools` has 2 entries"), "{err}");
    assert!(!out.join("runs").exists(), "nothing may run");

    let f = sweep_file(
        d.path(),
        "[[param]]\npath = \"pools[0].nodes\"\nvalues = [2, -1]\n",
    );
    let a = gpufleet()
        .args(["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(
        err.contains("line 2: point 1 (pools[0].nodes=-1): pools[0].nodes: must be between 1"),
        "{err}"
    );

    // A typo in a field name is the scenario's unknown field; a malformed range is the sweep's.
    let f = sweep_file(d.path(), "[[param]]\npath = \"scheduler.polcy\"\nvalues = [\"fifo\"]\n[[param]]\npath = \"seed\"\nrange = { start = 3, end = 1 }\n");
    let a = gpufleet()
        .args(["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(
        err.contains("line 5: param `seed`: `range` needs start <= end"),
        "{err}"
    );
    let f = sweep_file(
        d.path(),
        "[[param]]\npath = \"scheduler.polcy\"\nvalues = [\"fifo\"]\n",
    );
    let a = gpufleet()
        .args(["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.contains("line 2:") && err.contains("polcy"), "{err}");
}

#[test]
fn zip_pairs_values_and_refuses_unequal_lengths() {
    let d = tempfile::tempdir().unwrap();
    let body = "mode = \"zip\"\n[[param]]\npath = \"pools[0].nodes\"\nvalues = [1, 2, 3]\n[[param]]\npath = \"scheduler.policy\"\nvalues = [\"fifo\", \"easy_backfill\", \"fifo\"]\n";
    let plan = Plan::load(&sweep_file(d.path(), body)).unwrap();
    assert_eq!(plan.points.len(), 3);
    assert_eq!(
        plan.points[1].values,
        vec![ParamValue::Int(2), ParamValue::Str("easy_backfill".into())]
    );
    assert_eq!(plan.points[2].scenario.sim.policy.as_str(), "fifo");
    let bad = body.replace("[1, 2, 3]", "[1, 2]");
    let e = Plan::load(&sweep_file(d.path(), &bad))
        .unwrap_err()
        .to_string();
    assert!(e.contains("has 3 values but `pools[0].nodes` has 2"), "{e}");
}

#[test]
fn latin_hypercube_uses_every_stratum_once() {
    let n = 10;
    let v = vec![
        Values::Interval {
            lo: 0.0,
            hi: 1.0,
            log: false,
            integer: false,
            grid: vec![],
        },
        Values::Interval {
            lo: 1.0,
            hi: 1000.0,
            log: true,
            integer: false,
            grid: vec![],
        },
        Values::List((0..5).map(ParamValue::Int).collect()),
    ];
    let s = latin_hypercube(&v, n, 3);
    assert_eq!(s.len(), n);
    let mut strata: Vec<usize> = s
        .iter()
        .map(|p| (p[0].as_f64().unwrap() * n as f64) as usize)
        .collect();
    strata.sort();
    assert_eq!(strata, (0..n).collect::<Vec<_>>());
    // Log-uniform: log10 of the value spans 0..3 in 10 equal strata.
    let mut strata: Vec<usize> = s
        .iter()
        .map(|p| (p[1].as_f64().unwrap().log10() / 3.0 * n as f64) as usize)
        .collect();
    strata.sort();
    assert_eq!(strata, (0..n).collect::<Vec<_>>());
    // A list of 5 values over 10 samples: each value exactly twice.
    for k in 0..5 {
        assert_eq!(s.iter().filter(|p| p[2] == ParamValue::Int(k)).count(), 2);
    }
    // Integer ranges give whole numbers.
    let d = tempfile::tempdir().unwrap();
    let plan = Plan::load(&sweep_file(d.path(), "mode = \"latin_hypercube\"\nsamples = 6\n[[param]]\npath = \"pools[0].nodes\"\nrange = { start = 1, end = 4 }\n")).unwrap();
    assert_eq!(plan.points.len(), 6);
    assert!(plan
        .points
        .iter()
        .all(|p| matches!(p.values[0], ParamValue::Int(1..=4))));
}

fn count_records(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("runs"))
        .map(|r| {
            r.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".rec"))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn killed_sweep_resumes_to_the_uninterrupted_result() {
    let d = tempfile::tempdir().unwrap();
    // 40 points x 5 seeds of a longer horizon, so the sweep takes a few seconds on one thread.
    let f = sweep_file(
        d.path(),
        "seeds = 5\n[[param]]\npath = \"workload.rate_per_hour\"\nlinspace = { start = 1.0, end = 5.0, num = 40 }\n[[param]]\npath = \"horizon\"\nvalues = [\"30d\"]\n",
    );
    let whole = d.path().join("whole");
    gpufleet()
        .args([
            "sweep",
            f.to_str().unwrap(),
            "--out",
            whole.to_str().unwrap(),
            "--quiet",
            "--threads",
            "2",
        ])
        .assert()
        .success();
    let cut = d.path().join("cut");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("gpufleet"))
        .args([
            "sweep",
            f.to_str().unwrap(),
            "--out",
            cut.to_str().unwrap(),
            "--quiet",
            "--threads",
            "1",
        ])
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while count_records(&cut) < 10 && t0.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let done = count_records(&cut);
    assert!((10..200).contains(&done), "killed after {done} of 200 runs");
    assert!(!cut.join("runs.csv").exists());
    // Tear one record in half, as a crash mid-write without the rename would, and leave a
    // stray temporary file. (Runs are made grouped by seed, so which were recorded before
    // the kill is not the first ten numbers: take the lowest recorded.)
    let mut recorded: Vec<PathBuf> = std::fs::read_dir(cut.join("runs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "rec"))
        .collect();
    recorded.sort();
    let victim = recorded[0].clone();
    let text = read(&victim);
    std::fs::write(&victim, &text[..text.len() / 2]).unwrap();
    std::fs::write(
        cut.join("runs").join("run-0000150.rec.tmp"),
        "gpufleet-sweep-rec",
    )
    .unwrap();
    let a = gpufleet()
        .args([
            "sweep",
            f.to_str().unwrap(),
            "--out",
            cut.to_str().unwrap(),
            "--resume",
            "--threads",
            "2",
        ])
        .assert()
        .success();
    let said = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    assert!(
        said.contains(&format!("{} kept, 1 redone", done - 1)),
        "{said}"
    );
    for file in ["runs.csv", "points.csv", "distributions.csv", "sweep.json"] {
        assert_eq!(read(&whole.join(file)), read(&cut.join(file)), "{file}");
    }
    assert!(!cut.join("runs").join("run-0000150.rec.tmp").exists());
}

#[test]
fn shards_merge_into_the_unsharded_sweep_and_gaps_are_named() {
    let d = tempfile::tempdir().unwrap();
    let f = sweep_file(d.path(), GRID);
    let fs = f.to_str().unwrap();
    let whole = d.path().join("whole");
    gpufleet()
        .args(["sweep", fs, "--out", whole.to_str().unwrap(), "-q"])
        .assert()
        .success();
    let mut shard_dirs = Vec::new();
    for k in 1..=3 {
        let s = d.path().join(format!("s{k}"));
        gpufleet()
            .args([
                "sweep",
                fs,
                "--out",
                s.to_str().unwrap(),
                "-q",
                "--shard",
                &format!("{k}/3"),
            ])
            .assert()
            .success();
        assert_eq!(count_records(&s), 6);
        shard_dirs.push(s.to_str().unwrap().to_string());
    }
    let merged = d.path().join("merged");
    gpufleet()
        .args(["sweep", "merge"])
        .args(&shard_dirs)
        .args(["--out", merged.to_str().unwrap()])
        .assert()
        .success();
    for file in [
        "runs.csv",
        "points.csv",
        "distributions.csv",
        "sweep.json",
        "heatmap-cost_usd_total.svg",
    ] {
        assert_eq!(read(&whole.join(file)), read(&merged.join(file)), "{file}");
    }
    // Shard 2 missing: runs 1, 4, 7, ... are listed.
    let a = gpufleet()
        .args([
            "sweep",
            "merge",
            &shard_dirs[0],
            &shard_dirs[2],
            "--out",
            d.path().join("m2").to_str().unwrap(),
        ])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(
        err.contains("6 of 18 runs missing")
            && err.contains("run 1 (point 0, seed 6)")
            && err.contains("run 16 "),
        "{err}"
    );
    // The same shard twice.
    let a = gpufleet()
        .args([
            "sweep",
            "merge",
            &shard_dirs[0],
            &shard_dirs[1],
            &shard_dirs[2],
            &shard_dirs[0],
            "--out",
            d.path().join("m3").to_str().unwrap(),
        ])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(
        err.contains(&format!("{} is given twice", shard_dirs[0])),
        "{err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]
    /// Shards merged equal the unsharded sweep, for any number of shards.
    #[test]
    fn any_sharding_merges_to_the_whole(n in 1usize..7, threads in 1usize..3) {
        let d = tempfile::tempdir().unwrap();
        let plan = Plan::load(&sweep_file(d.path(), "seeds = 2\n[[param]]\npath = \"pools[0].nodes\"\nvalues = [1, 2, 3]\n")).unwrap();
        let opts = |out: PathBuf, shard| SweepOptions { out, threads, progress: Progress::Quiet, resume: false, shard, keep_jobs: None };
        run_sweep(&plan, &opts(d.path().join("whole"), None)).unwrap();
        let dirs: Vec<PathBuf> = (1..=n).map(|k| d.path().join(format!("s{k}"))).collect();
        for (k, dir) in dirs.iter().enumerate() {
            run_sweep(&plan, &opts(dir.clone(), Some(Shard { k: k + 1, n }))).unwrap();
        }
        merge(&dirs, &d.path().join("m")).unwrap();
        for file in ["runs.csv", "points.csv", "distributions.csv"] {
            prop_assert_eq!(read(&d.path().join("whole").join(file)), read(&d.path().join("m").join(file)));
        }
    }
}

#[test]
fn slurm_dry_run_writes_array_and_merge_scripts() {
    let d = tempfile::tempdir().unwrap();
    let f = sweep_file(d.path(), GRID);
    let out = d.path().join("cluster");
    let a = gpufleet()
        .args([
            "sweep",
            f.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--slurm",
            "--shards",
            "3",
            "--dry-run",
        ])
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&a.get_output().stdout).contains("--array=1-3"));
    let a = read(&out.join("slurm/array.sh"));
    assert!(a.contains("--shard $SLURM_ARRAY_TASK_ID/3"), "{a}");
    let m = read(&out.join("slurm/merge.sh"));
    assert!(m.contains("sweep merge") && m.contains("shards/3'"), "{m}");
}

#[test]
fn plot_redraws_run_and_sweep_folders() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    gpufleet()
        .args([
            "run",
            root().join("tests/data/sweep-base.toml").to_str().unwrap(),
            "--out",
            run.to_str().unwrap(),
            "-q",
        ])
        .assert()
        .success();
    for stem in ["timeline", "queue", "cost", "cdf"] {
        std::fs::remove_file(run.join(format!("{stem}.png"))).unwrap();
    }
    gpufleet()
        .args(["plot", run.to_str().unwrap()])
        .assert()
        .success();
    for stem in ["timeline", "queue", "cost", "cdf"] {
        let png = std::fs::read(run.join(format!("{stem}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{stem}");
        assert!(
            read(&run.join(format!("{stem}.svg"))).contains("<text"),
            "{stem}"
        );
    }
    let f = sweep_file(d.path(), "[[param]]\npath = \"scheduler.policy\"\nvalues = [\"fifo\", \"easy_backfill\"]\n[[param]]\npath = \"pools[0].nodes\"\nvalues = [1, 2]\n");
    let sw = d.path().join("sw");
    gpufleet()
        .args([
            "sweep",
            f.to_str().unwrap(),
            "--out",
            sw.to_str().unwrap(),
            "-q",
        ])
        .assert()
        .success();
    for stem in [
        "bars-cost_usd_total",
        "heatmap-wait_s_p95",
        "line-wait_s_p95",
        "pareto",
    ] {
        assert!(sw.join(format!("{stem}.png")).is_file(), "{stem}");
    }
    gpufleet()
        .args(["plot", d.path().to_str().unwrap()])
        .assert()
        .code(2);
}

#[test]
fn a_line_chart_with_more_lines_than_colours_says_which_it_shows() {
    // Eleven queue policies against the pool's size: the line chart tells ten lines apart,
    // and its title must say that the eleventh (the last listed) is left out, not drop it
    // without a word; the bar chart shows all eleven.
    let d = tempfile::tempdir().unwrap();
    let policies = "\"fifo\", \"easy_backfill\", \"greedy_fifo\", \"greedy_sjf\", \"sjf\", \"srtf\", \"priority\", \"fair_share\", \"throughput_per_dollar\", \"tiresias\", \"conservative_backfill\"";
    let f = sweep_file(
        d.path(),
        &format!("[[param]]\npath = \"pools[0].nodes\"\nvalues = [1, 2]\n[[param]]\npath = \"scheduler.policy\"\nvalues = [{policies}]\n"),
    );
    let sw = d.path().join("sw");
    gpufleet()
        .args([
            "sweep",
            f.to_str().unwrap(),
            "--out",
            sw.to_str().unwrap(),
            "-q",
        ])
        .assert()
        .success();
    let line = read(&sw.join("line-wait_s_p95.svg"));
    assert!(
        line.contains("first 10 of 11 lines"),
        "{}",
        &line[..line.len().min(600)]
    );
    assert!(!line.contains("conservative_backfill"));
    assert!(read(&sw.join("bars-wait_s_p95.svg")).contains("conservative_backfill"));
}

/// A sweep's run computes what `gpufleet run` computes: for every shipped scenario, the
/// summary of `run_once` equals the `summary.json` the CLI writes (so a change to one path
/// that the other lacks fails here).
#[test]
fn sweep_runs_match_gpufleet_run_for_every_shipped_scenario() {
    let d = tempfile::tempdir().unwrap();
    let mut n = 0;
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("scenarios"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        // Experiment scenarios (FGD reproduction, placement comparison) are not simulations.
        .filter(|p| {
            let t = std::fs::read_to_string(p).unwrap_or_default();
            !gpufleet::scenario::is_fgd_scenario(&t)
                && !gpufleet::scenario::is_compare_scenario(&t)
                && !gpufleet::plan::is_plan_text(&t)
        })
        .collect();
    files.sort();
    for f in files {
        // Experiment scenarios (the FGD reproduction, the placement comparison) are run by
        // their own drivers, not by the simulation a sweep point runs.
        let text = read(&f);
        if text.contains("[fgd_experiment]") || text.contains("[placement_comparison]") {
            continue;
        }
        let out = d.path().join(f.file_stem().unwrap());
        gpufleet()
            .args([
                "run",
                f.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "-q",
            ])
            .assert()
            .success();
        let cli: serde_json::Value =
            serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
        let s = gpufleet::scenario::Scenario::load(&f).unwrap();
        let mine = serde_json::to_value(gpufleet::sweep::run_once(&s, s.seed).unwrap()).unwrap();
        assert_eq!(cli, mine, "{}", f.display());
        n += 1;
    }
    assert!(n >= 2);
}

#[test]
fn progress_is_plain_lines_off_a_terminal_and_quiet_silences_it() {
    let d = tempfile::tempdir().unwrap();
    let f = sweep_file(d.path(), GRID);
    let a = gpufleet()
        .args([
            "sweep",
            f.to_str().unwrap(),
            "--out",
            d.path().join("a").to_str().unwrap(),
        ])
        .assert()
        .success();
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.contains("sweep: 18/18 runs done (100 %)"), "{err}");
    assert!(
        !err.contains('\r') && !err.contains('\u{1b}'),
        "no bar off a terminal: {err:?}"
    );
    let a = gpufleet()
        .args([
            "sweep",
            f.to_str().unwrap(),
            "--out",
            d.path().join("b").to_str().unwrap(),
            "-q",
        ])
        .assert()
        .success();
    assert!(a.get_output().stderr.is_empty() && a.get_output().stdout.is_empty());
}

/// A parameter may set a field of a section the base scenario leaves out (its defaults):
/// `scheduler.policy` on a scenario without `[scheduler]` runs each policy (it was "no
/// `scheduler` in the top level"), and a misspelt section is named with a suggestion.
#[test]
fn a_parameter_may_set_a_section_the_scenario_leaves_out() {
    let d = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("tests/data/sweep-base.toml")).unwrap();
    let start = text.find("[scheduler]").unwrap();
    let end = text[start + 1..]
        .find("\n[")
        .map_or(text.len(), |i| start + 1 + i);
    std::fs::write(
        d.path().join("base.toml"),
        format!("{}{}", &text[..start], &text[end..]),
    )
    .unwrap();
    let body = "seeds = 1\n[[param]]\npath = \"scheduler.policy\"\nvalues = [\"fifo\", \"sjf\"]\n";
    std::fs::write(
        d.path().join("w.toml"),
        format!("scenario = \"base.toml\"\n{body}"),
    )
    .unwrap();
    let out = d.path().join("o");
    gpufleet()
        .args(["sweep", "-q", "w.toml", "--out"])
        .arg(&out)
        .current_dir(d.path())
        .assert()
        .success();
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert!(runs.contains("sjf") && runs.contains("fifo"), "{runs}");
    std::fs::write(
        d.path().join("typo.toml"),
        format!(
            "scenario = \"base.toml\"\n{}",
            body.replace("scheduler.policy", "schedular.policy")
        ),
    )
    .unwrap();
    let a = gpufleet()
        .args(["sweep", "typo.toml", "--out", "o2", "--check"])
        .current_dir(d.path())
        .assert()
        .code(2);
    let e = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(e.contains("schedular") && e.contains("scheduler"), "{e}");
}

/// Points are made in parallel chunks but taken in order: a sweep of several chunks gives
/// the same points, hash and problems with one thread as with two.
#[test]
fn points_made_in_parallel_are_the_points_made_in_order() {
    let d = tempfile::tempdir().unwrap();
    let in_pool = |threads: usize, body: &str| {
        let file = sweep_file(d.path(), body);
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| Plan::load(&file))
    };
    // 3 x 400 = 1,200 valid points (more than two chunks).
    let ok = "[[param]]\npath = \"pools[1].nodes\"\nvalues = [1, 2, 3]\n[[param]]\npath = \"workload.rate_per_hour\"\nlinspace = { start = 1.0, end = 5.0, num = 400 }\n";
    let (one, two) = (in_pool(1, ok).unwrap(), in_pool(2, ok).unwrap());
    assert_eq!(one.points.len(), 1200);
    assert_eq!(one.hash, two.hash);
    let mut hashes = std::collections::BTreeSet::new();
    for (i, (a, b)) in one.points.iter().zip(&two.points).enumerate() {
        assert_eq!(a.values, b.values, "point {i}");
        assert_eq!(a.scenario.hash, b.scenario.hash, "point {i}");
        // Each point's scenario is its own: its nodes, and no two alike.
        assert_eq!(
            ParamValue::Int(a.scenario.sim.pools[1].nodes as i64),
            a.values[0],
            "point {i}"
        );
        assert!(hashes.insert(a.scenario.hash.clone()), "point {i}");
    }
    // The grid's last parameter varies fastest: point 401 has 2 nodes and the second rate.
    match one.points[401].values.as_slice() {
        [ParamValue::Int(2), ParamValue::Float(r)] => {
            assert!((r - (1.0 + 4.0 / 399.0)).abs() < 1e-9, "{r}")
        }
        v => panic!("point 401: {v:?}"),
    }
    // Zero nodes is refused; the problems past the 50th are not listed, and which are
    // listed does not depend on the thread count.
    let bad = ok.replace("values = [1, 2, 3]", "values = [1, 0, 2]");
    let (one, two) = (in_pool(1, &bad), in_pool(2, &bad));
    let (one, two) = (one.unwrap_err().to_string(), two.unwrap_err().to_string());
    assert_eq!(one, two);
    assert!(one.contains("point 400 (pools[1].nodes=0"), "{one}");
    assert!(!one.contains("point 399 "), "{one}");
}
