//! `gpufleet compare`: paired differences under common random numbers, checked against
//! queueing theory (M/M/1, FIFO versus non-preemptive SJF), exact zeros for identical
//! variants, thread-count independence, and bad compare files (exit code 2, the line).

use crate::common::root;
use assert_cmd::Command;
use std::collections::HashMap;
use std::path::Path;

fn gpufleet() -> Command {
    Command::cargo_bin("gpufleet").unwrap()
}

/// `(variant, metric) -> row` of a comparison CSV keyed by its first and `key` columns.
fn rows(path: &Path, key: &str) -> HashMap<(String, String), HashMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let h: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            let m: HashMap<String, String> = h
                .iter()
                .cloned()
                .zip(rec.iter().map(String::from))
                .collect();
            ((m["variant"].clone(), m[key].clone()), m)
        })
        .collect()
}

fn num(m: &HashMap<String, String>, k: &str) -> f64 {
    m[k].parse().unwrap_or_else(|_| panic!("{k} = {:?}", m[k]))
}

/// Mean wait of non-preemptive SJF on M/M/1 with mean size 1 (hours), by Phipps' formula
/// (Operations Research 4(1), 1956; Kleinrock vol. 2, Section 3.7): W(x) = W0 / (1 -
/// rho(x))^2, W0 = lambda E[S^2] / 2 = lambda, rho(x) = lambda (1 - e^-x (1 + x)); the
/// mean is the integral of W(x) e^-x, by Simpson's rule on [0, 40].
fn sjf_mm1_mean_wait(lambda: f64) -> f64 {
    let (n, top) = (20_000, 40.0);
    let h = top / n as f64;
    let g = |x: f64| {
        let rho = lambda * (1.0 - (-x).exp() * (1.0 + x));
        (-x).exp() * lambda / ((1.0 - rho) * (1.0 - rho))
    };
    let mut s = g(0.0) + g(top);
    for i in 1..n {
        s += g(i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    s * h / 3.0
}

/// The shipped M/M/1 comparison at load 0.7 (5 seeds x 20,000 jobs): FIFO's mean wait is
/// rho / (mu - lambda) = 2.333 h and its 95th percentile ln(rho / 0.05) / (mu - lambda) =
/// 8.797 h (P(W > t) = rho e^-(mu - lambda) t); SJF's mean wait is Phipps' 1.312 h. Each
/// simulated mean's interval covers its value, and the paired interval of SJF - FIFO
/// covers the theoretical difference.
#[test]
fn mm1_fifo_versus_sjf_matches_queueing_theory() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("mm1");
    gpufleet()
        .args(["-q", "compare"])
        .arg(root().join("scenarios/compare/mm1-fifo-vs-sjf.toml"))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let (lambda, mu) = (0.7, 1.0);
    let fifo_h = lambda / (mu - lambda);
    let sjf_h = sjf_mm1_mean_wait(lambda);
    assert!((sjf_h - 1.312).abs() < 1e-3, "Phipps' mean {sjf_h}");
    let c = rows(&out.join("compare.csv"), "metric");
    let covers = |v: &str, m: &str, want_s: f64| {
        let r = &c[&(v.to_string(), m.to_string())];
        let (mean, ci) = (num(r, "mean"), num(r, "ci95"));
        assert!(
            (mean - want_s).abs() <= ci,
            "{v} {m}: {mean} +- {ci} misses {want_s}"
        );
        assert!(ci < 0.1 * want_s, "{v} {m}: interval {ci} too wide");
    };
    covers("fifo", "wait_all_s_mean", fifo_h * 3600.0);
    covers("sjf", "wait_all_s_mean", sjf_h * 3600.0);
    let p95 = (lambda / 0.05f64).ln() / (mu - lambda);
    let r = &c[&("fifo".to_string(), "wait_all_s_p95".to_string())];
    assert!(
        (num(r, "mean") / 3600.0 - p95).abs() <= num(r, "ci95") / 3600.0,
        "FIFO p95 {} h, theory {p95} h",
        num(r, "mean") / 3600.0
    );
    let diff = rows(&out.join("differences.csv"), "metric");
    let r = &diff[&("sjf".to_string(), "wait_all_s_mean".to_string())];
    let want = (sjf_h - fifo_h) * 3600.0;
    assert!(
        num(r, "diff_low") <= want && want <= num(r, "diff_high"),
        "paired interval [{}, {}] misses {want}",
        r["diff_low"],
        r["diff_high"]
    );
    assert_eq!(r["baseline"], "fifo");
    assert_eq!(r["pairs"], "5");
    assert_eq!(r["test"], "paired t");
    // Both variants ran the same jobs to the end: identical busy time, difference 0.
    let u = &diff[&("sjf".to_string(), "utilization".to_string())];
    assert_eq!((num(u, "diff_mean"), num(u, "diff_ci95")), (0.0, 0.0));
}

/// A compare file of `variants` (name, policy) on the quickstart scenario.
fn compare_file(dir: &Path, body: &str) -> std::path::PathBuf {
    let scen = root().join("scenarios/quickstart.toml");
    let p = dir.join("c.toml");
    std::fs::write(
        &p,
        format!("scenario = {:?}\nseeds = 2\n{body}", scen.to_str().unwrap()),
    )
    .unwrap();
    p
}

/// Two variants that are the same scenario under two names: every paired difference of
/// every metric is exactly 0 with an interval of zero width (same seeds, same workload,
/// same runs); and the folder's bytes do not depend on the thread count.
#[test]
fn identical_variants_differ_by_exactly_zero() {
    let d = tempfile::tempdir().unwrap();
    let f = compare_file(
        d.path(),
        "[[variant]]\nname = \"a\"\nset = { \"scheduler.policy\" = \"fifo\" }\n\
         [[variant]]\nname = \"b\"\nset = { \"scheduler.policy\" = \"fifo\" }\n",
    );
    for (t, o) in [("1", "one"), ("2", "two")] {
        gpufleet()
            .args(["-q", "compare"])
            .arg(&f)
            .args(["--threads", t, "--out"])
            .arg(d.path().join(o))
            .assert()
            .success();
    }
    let diff = rows(&d.path().join("one/differences.csv"), "metric");
    assert!(diff.len() > 50, "{} metrics", diff.len());
    for ((v, m), r) in &diff {
        assert_eq!(v, "b");
        assert_eq!(num(r, "diff_mean"), 0.0, "{m}");
        assert_eq!(num(r, "diff_ci95"), 0.0, "{m}");
        assert_eq!(num(r, "p_value"), 1.0, "{m}");
    }
    for f in [
        "compare.csv",
        "differences.csv",
        "runs.csv",
        "distributions.csv",
        "compare.json",
    ] {
        assert_eq!(
            std::fs::read(d.path().join("one").join(f)).unwrap(),
            std::fs::read(d.path().join("two").join(f)).unwrap(),
            "{f} differs between 1 and 2 threads"
        );
    }
}

/// A variant's workload is its own when anything its build reads differs: a variant that
/// lowers `max_jobs` under a 40-job trace is refused as `gpufleet run` refuses that
/// scenario (it once shared its baseline's workload and ran all 40 jobs without a word),
/// and a variant that keeps it runs the 40.
#[test]
fn a_variant_with_its_own_job_limit_builds_its_own_workload() {
    let d = tempfile::tempdir().unwrap();
    let mut trace = String::from("job_id,submit_s,gpus,duration_s\n");
    for i in 0..40 {
        trace.push_str(&format!("{i},{},1,600\n", i * 60));
    }
    std::fs::write(d.path().join("t.csv"), trace).unwrap();
    std::fs::write(
        d.path().join("s.toml"),
        "name = \"t\"\nseed = 1\n\n[[pools]]\nname = \"p\"\ngpu_type = \"H100\"\nkind = \"owned\"\nnodes = 1\ngpus_per_node = 8\nprice_per_node_hour = 12.0\n\n[workload]\nkind = \"csv\"\npath = \"t.csv\"\n",
    )
    .unwrap();
    let write = |name: &str, limit: u32| {
        let p = d.path().join(name);
        std::fs::write(
            &p,
            format!("scenario = \"s.toml\"\nseeds = 1\nmetrics = [\"wait_s_mean\"]\n[[variant]]\nname = \"all\"\nset = {{ \"scheduler.policy\" = \"fifo\" }}\n[[variant]]\nname = \"capped\"\nset = {{ \"max_jobs\" = {limit} }}\n"),
        )
        .unwrap();
        p
    };
    let out = gpufleet()
        .args(["-q", "compare"])
        .arg(write("c.toml", 10))
        .arg("--out")
        .arg(d.path().join("o"))
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("capped") && err.contains("max_jobs"), "{err}");
    gpufleet()
        .args(["-q", "compare"])
        .arg(write("c2.toml", 40))
        .arg("--out")
        .arg(d.path().join("o2"))
        .assert()
        .success();
    let runs = std::fs::read_to_string(d.path().join("o2/runs.csv")).unwrap();
    let mut r = csv::Reader::from_reader(runs.as_bytes());
    let h = r.headers().unwrap().clone();
    let col = h.iter().position(|c| c == "jobs_submitted").unwrap();
    for rec in r.records() {
        assert_eq!(&rec.unwrap()[col], "40", "{runs}");
    }
}

/// A comparison says which runs stopped with jobs not ended: one job of 10 GPU-hours at
/// $1.50 on an on-demand pool, no horizon, under a $1 budget (it never starts) or $100.
#[test]
fn a_comparison_names_the_runs_that_stopped_with_jobs_not_ended() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("s.toml"),
        crate::common::budget_bound_scenario(1),
    )
    .unwrap();
    let f = d.path().join("c.toml");
    std::fs::write(
        &f,
        "scenario = \"s.toml\"\nseeds = 2\nmetrics = [\"wait_s_mean\"]\n[[variant]]\nname = \"poor\"\nset = { \"scheduler.budget.total_usd\" = 1.0 }\n[[variant]]\nname = \"rich\"\nset = { \"scheduler.budget.total_usd\" = 100.0 }\n",
    )
    .unwrap();
    let out = gpufleet()
        .args(["-q", "compare"])
        .arg(&f)
        .arg("--out")
        .arg(d.path().join("o"))
        .assert()
        .success()
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: 2 of the runs stopped")
            && err.contains("poor seed 1, poor seed 2")
            && !err.contains("rich"),
        "{err}"
    );
}

/// Bad compare files and flags: exit code 2 and a message naming the file, line and what.
#[test]
fn bad_compare_input_is_named() {
    let d = tempfile::tempdir().unwrap();
    let cases: [(&str, &[&str]); 4] = [
        (
            "baseline = \"nope\"\n[[variant]]\nname = \"a\"\n",
            &["c.toml", "line 3", "baseline `nope`"],
        ),
        (
            "[[variant]]\nname = \"a\"\nset = { \"scheduler.policy\" = \"no_such\" }\n",
            &["c.toml", "variant `a`", "no_such"],
        ),
        (
            "[[variant]]\nname = \"a\"\n[[variant]]\nname = \"a\"\n",
            &["c.toml", "given twice"],
        ),
        (
            "[[variant]]\nname = \"a\"\nset = { \"pools.nope\" = 3 }\n",
            &["c.toml", "variant `a`", "pools.nope"],
        ),
    ];
    for (body, want) in cases {
        let f = compare_file(d.path(), body);
        let out = gpufleet()
            .arg("compare")
            .arg(&f)
            .arg("--out")
            .arg(d.path().join("o"))
            .assert()
            .code(2)
            .get_output()
            .stderr
            .clone();
        let err = String::from_utf8(out).unwrap();
        for w in want {
            assert!(err.contains(w), "error lacks {w:?}:\n{err}");
        }
    }
    // --policies on a compare file, --seeds 0, an unknown --baseline.
    let f = compare_file(d.path(), "[[variant]]\nname = \"a\"\n");
    for args in [
        vec!["--policies", "fifo"],
        vec!["--seeds", "0"],
        vec!["--baseline", "zz"],
    ] {
        gpufleet()
            .arg("compare")
            .arg(&f)
            .args(&args)
            .assert()
            .code(2);
    }
}

/// Every shipped compare file validates and runs (2 seeds, to stay fast).
#[test]
fn every_shipped_compare_file_runs() {
    let d = tempfile::tempdir().unwrap();
    let mut n = 0;
    for e in std::fs::read_dir(root().join("scenarios/compare")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            gpufleet()
                .args(["-q", "compare"])
                .arg(&p)
                .args(["--seeds", "2", "--out"])
                .arg(d.path().join(p.file_stem().unwrap()))
                .assert()
                .success();
            assert!(d
                .path()
                .join(p.file_stem().unwrap())
                .join("cdf-jct_all_s.png")
                .exists());
            if p.file_stem().is_some_and(|s| s == "swf-nasa-estimates") {
                swf_estimates_ordering(&d.path().join("swf-nasa-estimates"));
            }
            n += 1;
        }
    }
    assert!(n >= 4);
}

/// EASY backfilling on the NASA iPSC/860 log: mean bounded slowdown with exact run times
/// and with badness-factor estimates (f = 10, each estimate uniform in [r, 11 r]). The
/// literature reports that EASY does no worse, and often better, with such inaccurate
/// estimates (Mu'alem and Feitelson, IEEE TPDS 12(6), 2001; Tsafrir and Feitelson, "The
/// Dynamics of Backfilling: Solving the Mystery of Why Increased Inaccuracy May Help",
/// IISWC 2006): the test asserts that ordering, and that both beat FIFO by far.
fn swf_estimates_ordering(dir: &Path) {
    let c = rows(&dir.join("compare.csv"), "metric");
    let m = |v: &str| {
        num(
            &c[&(v.to_string(), "bounded_slowdown_all_mean".to_string())],
            "mean",
        )
    };
    let (exact, f10, fifo) = (m("easy_exact"), m("easy_f10"), m("fifo"));
    eprintln!("NASA iPSC/860 mean bounded slowdown: EASY exact {exact}, f = 10 {f10}, FIFO {fifo}");
    assert!(f10 <= exact, "f = 10 {f10} worse than exact {exact}");
    assert!(fifo > 2.0 * exact, "FIFO {fifo} versus EASY {exact}");
}

/// `--bootstrap N`: the paired intervals come from a seeded percentile bootstrap, named as
/// such in differences.csv and compare.json; identical variants still differ by exactly 0
/// with p = 1; the same seed gives the same bytes; bad counts and a lone seed are exit 2.
#[test]
fn bootstrap_intervals_are_seeded_and_named() {
    let d = tempfile::tempdir().unwrap();
    let f = compare_file(
        d.path(),
        "[[variant]]\nname = \"a\"\nset = { \"scheduler.policy\" = \"fifo\" }\n\
         [[variant]]\nname = \"b\"\nset = { \"scheduler.policy\" = \"fifo\" }\n\
         [[variant]]\nname = \"c\"\nset = { \"scheduler.policy\" = \"sjf\" }\n",
    );
    for o in ["one", "two"] {
        gpufleet()
            .args(["-q", "compare"])
            .arg(&f)
            .args(["--bootstrap", "500", "--bootstrap-seed", "3", "--out"])
            .arg(d.path().join(o))
            .assert()
            .success();
    }
    let diff = rows(&d.path().join("one/differences.csv"), "metric");
    for ((v, m), r) in &diff {
        assert_eq!(r["test"], "bootstrap percentile", "{v} {m}");
        if v == "b" {
            assert_eq!(num(r, "diff_mean"), 0.0, "{m}");
            assert_eq!((num(r, "diff_low"), num(r, "diff_high")), (0.0, 0.0), "{m}");
            assert_eq!(num(r, "p_value"), 1.0, "{m}");
        } else if !r["diff_low"].is_empty() {
            assert!(num(r, "diff_low") <= num(r, "diff_high"), "{m}");
        }
    }
    let j = std::fs::read_to_string(d.path().join("one/compare.json")).unwrap();
    assert!(j.contains("percentile bootstrap") && j.contains("500 resamples"));
    assert_eq!(
        std::fs::read(d.path().join("one/differences.csv")).unwrap(),
        std::fs::read(d.path().join("two/differences.csv")).unwrap()
    );
    let bad = gpufleet()
        .args(["-q", "compare"])
        .arg(&f)
        .args(["--bootstrap", "5"])
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&bad.get_output().stderr).contains("--bootstrap"));
    gpufleet()
        .args(["-q", "compare"])
        .arg(&f)
        .args(["--bootstrap-seed", "5"])
        .assert()
        .code(2);
}
