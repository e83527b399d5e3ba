//! Sweeps keep distributions: per-run sketches in the records, pooled percentiles in
//! `points.csv` checked against a brute-force oracle, `distributions.csv` and its CDF
//! charts, `--keep-jobs`, and byte-identity across threads and resumes.

use crate::common::root;
use assert_cmd::Command;
use gpufleet::engine::RngStreams;
use gpufleet::metrics::{job_table, DISTRIBUTIONS};
use gpufleet::sweep::{run_sweep, Plan, Progress, SweepOptions};
use std::path::{Path, PathBuf};

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

/// Column `name` of a CSV text, row by row.
fn column(text: &str, name: &str) -> Vec<String> {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let h = r.headers().unwrap().clone();
    let i = h
        .iter()
        .position(|x| x == name)
        .unwrap_or_else(|| panic!("no column {name}"));
    r.records().map(|x| x.unwrap()[i].to_string()).collect()
}

/// The exact nearest-rank q-quantile (the smallest value with at least q of them at or
/// below it), by sorting: the oracle the sketch's bound is stated against.
fn nearest_rank(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    v[((q * n as f64).ceil() as usize).clamp(1, n) - 1]
}

const TWO_POINTS: &str =
    "seeds = 4\n[[param]]\npath = \"workload.rate_per_hour\"\nvalues = [2.0, 6.0]\n";

/// The sketch's documented bound (src/metrics/sketch.rs, DDSketch, VLDB 2019): every
/// quantile within a relative alpha = 1 % of the exact nearest-rank quantile of the values
/// added, and merging keeps the bound for the pooled values. So each pooled p50/p95/p99 in
/// points.csv must be within 1 % (plus the 1e-6 of its 6-decimal cell) of the exact
/// quantile over the concatenated per-job values of the point's seeds, computed here by
/// re-running every seed and sorting all its jobs' values.
#[test]
fn pooled_percentiles_match_the_exact_quantiles_of_all_seeds_jobs() {
    let d = tempfile::tempdir().unwrap();
    let plan = Plan::load(&sweep_file(d.path(), TWO_POINTS)).unwrap();
    let out = d.path().join("out");
    run_sweep(
        &plan,
        &SweepOptions {
            out: out.clone(),
            threads: 2,
            progress: Progress::Quiet,
            resume: false,
            shard: None,
            keep_jobs: None,
        },
    )
    .unwrap();
    let points = read(&out.join("points.csv"));
    let mut differs_from_mean_of_seeds = false;
    for (p, point) in plan.points.iter().enumerate() {
        // values[distribution] over every job of every seed of this point.
        let mut values: Vec<Vec<f64>> = vec![Vec::new(); DISTRIBUTIONS.len()];
        let mut per_seed_p95 = Vec::new();
        for &seed in &plan.seeds {
            let s = &point.scenario;
            let e = gpufleet::run::execute(s, &RngStreams::new(seed)).unwrap();
            let t = job_table(&e.workload, &e.result, &s.metrics);
            let mut jct: Vec<f64> = t.jobs.iter().map(|f| f.jct().0).collect();
            per_seed_p95.push(nearest_rank(&mut jct, 0.95));
            for f in &t.jobs {
                for (k, v) in [f.wait(), f.queue_delay(), f.jct(), f.bounded()]
                    .into_iter()
                    .enumerate()
                {
                    values[k].push(v.0);
                }
            }
        }
        assert!(values[2].len() > 100, "point {p}: {} jobs", values[2].len());
        for (k, dname) in DISTRIBUTIONS.iter().enumerate() {
            for (q, suffix) in [(0.5, "p50"), (0.95, "p95"), (0.99, "p99")] {
                let col = format!("{dname}_pooled_{suffix}");
                let got: f64 = column(&points, &col)[p].parse().unwrap();
                let exact = nearest_rank(&mut values[k], q);
                assert!(
                    (got - exact).abs() <= 0.01 * exact + 1e-6,
                    "point {p} {col}: pooled {got} vs exact {exact}"
                );
                if k == 2 && q == 0.95 {
                    let avg = per_seed_p95.iter().sum::<f64>() / per_seed_p95.len() as f64;
                    differs_from_mean_of_seeds |= (avg - exact).abs() > 0.02 * exact;
                }
            }
        }
    }
    // Pooling is not averaging: at least one point's pooled JCT p95 is more than 2 % away
    // from the mean of its seeds' p95s (so the test would see an averaged column).
    assert!(differs_from_mean_of_seeds);
    // distributions.csv: per point and distribution, CDF steps ending at 1 with the pooled
    // job count.
    let dist = read(&out.join("distributions.csv"));
    let (pts, names, cdfs) = (
        column(&dist, "point"),
        column(&dist, "distribution"),
        column(&dist, "cdf"),
    );
    for p in 0..plan.points.len() {
        for dname in DISTRIBUTIONS {
            let last = (0..pts.len())
                .rfind(|&i| pts[i] == p.to_string() && names[i] == dname)
                .unwrap_or_else(|| panic!("point {p} {dname} missing"));
            assert_eq!(cdfs[last], "1", "point {p} {dname}");
        }
    }
    for chart in ["cdf-jct_all_s.svg", "cdf-queue_delay_all_s.png"] {
        gpufleet()
            .args(["plot", out.to_str().unwrap()])
            .assert()
            .success();
        assert!(out.join(chart).is_file(), "{chart}");
    }
}

fn sweep_cli(f: &Path, out: &Path, extra: &[&str]) -> String {
    let a = gpufleet()
        .args(["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .args(extra)
        .assert()
        .success();
    String::from_utf8_lossy(&a.get_output().stdout).to_string()
}

/// The new outputs are the same bytes at 1 and 3 threads and after a resume that redoes
/// some runs; the CDF chart too.
#[test]
fn distributions_are_identical_across_threads_and_resume() {
    let d = tempfile::tempdir().unwrap();
    let f = sweep_file(d.path(), TWO_POINTS);
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    sweep_cli(&f, &a, &["--quiet", "--threads", "1"]);
    sweep_cli(&f, &b, &["--quiet", "--threads", "3"]);
    // Drop two records and the tables of b, then resume it.
    for r in ["run-0000001.rec", "run-0000006.rec"] {
        std::fs::remove_file(b.join("runs").join(r)).unwrap();
    }
    std::fs::remove_file(b.join("points.csv")).unwrap();
    std::fs::remove_file(b.join("distributions.csv")).unwrap();
    let said = sweep_cli(&f, &b, &["--resume", "--threads", "2"]);
    assert!(said.contains("2 run now, 6 kept"), "{said}");
    for file in [
        "points.csv",
        "distributions.csv",
        "runs.csv",
        "cdf-jct_all_s.svg",
    ] {
        assert_eq!(read(&a.join(file)), read(&b.join(file)), "{file}");
    }
    // A record keeps its sketches: each run has one line per distribution.
    let rec = read(&a.join("runs").join("run-0000000.rec"));
    for dname in DISTRIBUTIONS {
        assert!(rec.contains(&format!("sketch {dname}\t")), "{dname}");
    }
}

/// `--keep-jobs`: every run's jobs.csv is kept, and a point equal to the base scenario
/// under its own seed keeps exactly the bytes `gpufleet run` writes; a missing jobs file
/// makes a resume redo that run; `--format both` keeps the Parquet file too.
#[test]
fn keep_jobs_keeps_each_runs_jobs_table() {
    let d = tempfile::tempdir().unwrap();
    // pools[0].nodes = 2 is the base's value; seed 5 is the base's seed.
    let f = sweep_file(
        d.path(),
        "seeds = 2\n[[param]]\npath = \"pools[0].nodes\"\nvalues = [2, 3]\n",
    );
    let out = d.path().join("out");
    sweep_cli(&f, &out, &["--quiet", "--keep-jobs"]);
    for id in 0..4 {
        let p = out.join("jobs").join(format!("run-{id:07}.csv"));
        assert!(p.is_file(), "{}", p.display());
    }
    let run = d.path().join("run");
    gpufleet()
        .args([
            "run",
            d.path().join("base.toml").to_str().unwrap(),
            "--out",
            run.to_str().unwrap(),
            "--quiet",
        ])
        .assert()
        .success();
    assert_eq!(
        read(&run.join("jobs.csv")),
        read(&out.join("jobs").join("run-0000000.csv"))
    );
    // Seed 6 differs from seed 5: another table.
    assert_ne!(
        read(&out.join("jobs").join("run-0000000.csv")),
        read(&out.join("jobs").join("run-0000001.csv"))
    );
    std::fs::remove_file(out.join("jobs").join("run-0000002.csv")).unwrap();
    let said = sweep_cli(&f, &out, &["--resume", "--keep-jobs"]);
    assert!(said.contains("1 run now, 3 kept, 1 redone"), "{said}");
    assert!(out.join("jobs").join("run-0000002.csv").is_file());
    // Without --keep-jobs a fresh sweep keeps no per-job files.
    let bare = d.path().join("bare");
    sweep_cli(&f, &bare, &["--quiet"]);
    assert!(!bare.join("jobs").exists());
    if gpufleet::report::PARQUET_BUILT {
        let both = d.path().join("both");
        sweep_cli(&f, &both, &["--quiet", "--keep-jobs", "--format", "both"]);
        assert!(both.join("jobs").join("run-0000003.parquet").is_file());
        assert!(both.join("jobs").join("run-0000003.csv").is_file());
    }
}

/// `[charts] log_x = true` is kept in sweep.json and draws the CDFs on a log time axis
/// (the axis title says so); without it, sweep.json has no `log_x` and the axis is linear.
#[test]
fn log_x_draws_the_cdfs_on_a_log_axis() {
    let d = tempfile::tempdir().unwrap();
    let f = sweep_file(
        d.path(),
        "seeds = 1\n[[param]]\npath = \"scheduler.policy\"\nvalues = [\"fifo\", \"sjf\"]\n[charts]\nlog_x = true\n",
    );
    let out = d.path().join("out");
    sweep_cli(&f, &out, &["--quiet"]);
    assert!(read(&out.join("sweep.json")).contains("\"log_x\": true"));
    let svg = read(&out.join("cdf-queue_delay_all_s.svg"));
    assert!(svg.contains("log scale"), "no log axis");
    assert!(svg.contains("scheduler.policy = sjf"), "legend in words");
    let g = sweep_file(
        d.path(),
        "seeds = 1\n[[param]]\npath = \"scheduler.policy\"\nvalues = [\"fifo\", \"sjf\"]\n",
    );
    let lin = d.path().join("lin");
    sweep_cli(&g, &lin, &["--quiet"]);
    assert!(!read(&lin.join("sweep.json")).contains("log_x"));
    assert!(read(&lin.join("cdf-queue_delay_all_s.svg")).contains("99th percentile"));
}

/// `plot` on a sweep folder whose points have pooled quantiles but whose
/// `distributions.csv` is gone refuses (exit 2, naming the file) instead of leaving the
/// CDF charts of the last plot in place as if redrawn.
#[test]
fn plot_refuses_a_sweep_folder_missing_its_distributions() {
    let d = tempfile::tempdir().unwrap();
    let f = sweep_file(d.path(), TWO_POINTS);
    let out = d.path().join("o");
    sweep_cli(&f, &out, &["--quiet"]);
    assert!(read(&out.join("points.csv")).contains("_pooled_p50"));
    gpufleet().args(["plot"]).arg(&out).assert().success();
    std::fs::remove_file(out.join("distributions.csv")).unwrap();
    let a = gpufleet().args(["plot"]).arg(&out).assert().code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.contains("distributions.csv: missing"), "{err}");
    // Without its completion manifest (an older gpufleet's folder) too.
    std::fs::remove_file(out.join("complete.json")).unwrap();
    let a = gpufleet().args(["plot"]).arg(&out).assert().code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(
        err.contains("distributions.csv") && err.contains("pooled"),
        "{err}"
    );
}
