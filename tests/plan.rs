//! `gpufleet plan`: the smallest M/M/c fleet against Erlang C, the cheapest feasible fleet
//! against a brute-force sweep of every fleet on the same seeds, infeasible targets, bad
//! plan files, pools left out at 0 nodes, resumes and thread counts.

use assert_cmd::Command;
use gpufleet::plan::{run_plan, PlanOptions, PlanSpec, Progress};
use std::path::{Path, PathBuf};

fn gpufleet() -> Command {
    Command::cargo_bin("gpufleet").unwrap()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Erlang C, written out here from the formula (not from the code under test):
/// C(c, a) = (a^c / c!) (c / (c - a)) / (sum_{k<c} a^k / k! + (a^c / c!) (c / (c - a))).
fn erlang_c(c: u32, a: f64) -> f64 {
    if (c as f64) <= a {
        return 1.0;
    }
    let (mut term, mut sum) = (1.0f64, 0.0f64);
    for k in 0..c {
        sum += term;
        term *= a / (k + 1) as f64;
    }
    let last = term * c as f64 / (c as f64 - a);
    last / (sum + last)
}

/// P(wait > t) in M/M/c: C(c, a) exp(-(c mu - lambda) t) (t in hours, rates per hour).
fn p_wait_over(c: u32, lambda: f64, mu: f64, t: f64) -> f64 {
    if (c as f64) * mu <= lambda {
        return 1.0;
    }
    erlang_c(c, lambda / mu) * (-(c as f64 * mu - lambda) * t).exp()
}

/// Mean wait Wq = C(c, a) / (c mu - lambda), hours.
fn mean_wait(c: u32, lambda: f64, mu: f64) -> f64 {
    if (c as f64) * mu <= lambda {
        return f64::INFINITY;
    }
    erlang_c(c, lambda / mu) / (c as f64 * mu - lambda)
}

/// An M/M/c scenario: single-GPU jobs, Poisson arrivals at `lambda` per hour for `hours`,
/// exponential work of mean 1/mu hours, c one-GPU servers at $1 an hour, FIFO.
fn mmc_scenario(dir: &Path, lambda: f64, mu: f64, hours: f64) -> PathBuf {
    write(
        dir,
        "mmc.toml",
        &format!(
            "name = \"mmc\"\nseed = 100\nhorizon = \"{h}h\"\n[[gpu_types]]\nname = \"G\"\nspeed = 1.0\n\
             [[pools]]\nname = \"servers\"\ngpu_type = \"G\"\nkind = \"owned\"\nnodes = 1\ngpus_per_node = 1\nprice_per_node_hour = 1.0\n\
             [scheduler]\npolicy = \"fifo\"\n[workload]\nkind = \"synthetic\"\nrate_per_hour = {lambda}\nuntil = \"{u}h\"\n\
             sizes = [{{ gpus = 1, weight = 1 }}]\nduration = {{ kind = \"exponential\", mean = \"{m}s\" }}\n",
            h = hours + 12.0,
            u = hours,
            m = 3600.0 / mu,
        ),
    )
}

fn recommended_c(dir: &Path, target: &str, hi: u32) -> (u32, usize, u64) {
    let plan = write(
        dir,
        "plan.toml",
        &format!(
            "scenario = \"mmc.toml\"\n[[decision]]\npath = \"pools[servers].nodes\"\nlabel = \"servers\"\nrange = {{ start = 1, end = {hi} }}\n\
             [[target]]\n{target}\n[replications]\nmin = 3\nmax = 12\nstep = 3\n"
        ),
    );
    let spec = PlanSpec::load(&plan).unwrap();
    let opts = PlanOptions {
        out: None,
        threads: 0,
        progress: Progress::Quiet,
        resume: false,
    };
    let a = run_plan(&spec, &opts).unwrap().answer;
    let r = a.recommended.expect("a feasible fleet");
    (
        r.values[0].parse().unwrap(),
        a.fleets_evaluated,
        a.grid_fleets,
    )
}

/// The smallest c meeting P(wait > t) <= alpha or Wq <= W, from Erlang C, is what `plan`
/// recommends: c = 1, small c, and c over 100. Each bound sits well between the values at
/// c* - 1 and c* (checked first), so the simulation's own noise cannot flip the answer.
/// A target's theoretical figure at c servers and its bound.
type FigureAt = Box<dyn Fn(u32) -> (f64, f64)>;

#[test]
fn plan_recommends_the_erlang_c_fleet() {
    // (lambda per hour, mu per hour, hours simulated, target)
    enum T {
        Tail { t_h: f64, alpha: f64 },
        Mean { w_h: f64 },
    }
    let cases = [
        (0.5, 1.0, 4000.0, T::Mean { w_h: 2.0 }),
        (
            8.0,
            1.0,
            1000.0,
            T::Tail {
                t_h: 0.25,
                alpha: 0.0335,
            },
        ),
        (
            4.0,
            1.0,
            2000.0,
            T::Tail {
                t_h: 0.0,
                alpha: 0.196,
            },
        ),
        (100.0, 1.0, 300.0, T::Mean { w_h: 0.0474 }),
        (
            100.0,
            1.0,
            200.0,
            T::Tail {
                t_h: 0.5,
                alpha: 0.0583,
            },
        ),
    ];
    let mut over_100 = false;
    for (lambda, mu, hours, t) in cases {
        let d = tempfile::tempdir().unwrap();
        mmc_scenario(d.path(), lambda, mu, hours);
        let (metric, f): (String, FigureAt) = match t {
            T::Tail { t_h, alpha } => (
                format!(
                    "metric = \"wait_all_s\"\nover = \"{}s\"\nmax = {alpha}",
                    t_h * 3600.0
                ),
                Box::new(move |c| (p_wait_over(c, lambda, mu, t_h), alpha)),
            ),
            T::Mean { w_h } => (
                format!("metric = \"wait_all_s.mean\"\nmax = {}", w_h * 3600.0),
                Box::new(move |c| (mean_wait(c, lambda, mu), w_h)),
            ),
        };
        let c_star = (1..1000).find(|&c| f(c).0 <= f(c).1).unwrap();
        // The case is well posed: the figure at c* - 1 is at least 15 % above the bound and
        // the one at c* at least 15 % below it.
        let (at, bound) = f(c_star);
        assert!(at <= bound / 1.15, "c*={c_star}: {at} too close to {bound}");
        if c_star > 1 {
            assert!(f(c_star - 1).0 >= bound * 1.15, "c*-1 too close");
        }
        over_100 |= c_star > 100;
        let hi = if lambda > 50.0 { 200 } else { 30 };
        let (c, fleets, grid) = recommended_c(d.path(), &metric, hi);
        eprintln!(
            "lambda {lambda} mu {mu}: Erlang C c* = {c_star}, plan {c} ({fleets} of {grid} fleets)"
        );
        assert_eq!(c, c_star, "lambda {lambda}, target {metric}");
        assert!(fleets * 2 < grid as usize, "{fleets} fleets of {grid}");
    }
    assert!(over_100);
}

/// Two pools of fixed nodes: 4-GPU nodes at $20 and 8-GPU nodes at $36 an hour.
const ORACLE_BASE: &str = "name = \"oracle\"\nseed = 7\nhorizon = \"10d\"\n\
[[gpu_types]]\nname = \"H100\"\nspeed = 1.0\n\
[[pools]]\nname = \"small\"\ngpu_type = \"H100\"\nkind = \"reserved\"\nnodes = 2\ngpus_per_node = 4\nprice_per_node_hour = 20.0\n\
[[pools]]\nname = \"big\"\ngpu_type = \"H100\"\nkind = \"reserved\"\nnodes = 2\ngpus_per_node = 8\nprice_per_node_hour = 36.0\n\
[scheduler]\npolicy = \"easy_backfill\"\nplacement = \"best_fit\"\n\
[workload]\nkind = \"synthetic\"\nrate_per_hour = 3.0\nsizes = [{ gpus = 1, weight = 4 }, { gpus = 2, weight = 2 }, { gpus = 4, weight = 2 }, { gpus = 8, weight = 1 }]\n\
duration = { kind = \"lognormal\", median = \"2h\", sigma = 1.0 }\n";

/// A brute-force sweep of every fleet (the sweep's own code path, the same seeds) gives the
/// cheapest point whose mean p95 wait meets the bound; `plan` finds the same fleet while
/// simulating at most a quarter of the grid.
#[test]
fn plan_matches_the_brute_force_grid_with_a_quarter_of_the_fleets() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "base.toml", ORACLE_BASE);
    let n = 16;
    let sweep = write(
        d.path(),
        "grid.toml",
        &format!(
            "scenario = \"base.toml\"\nseeds = 3\n[[param]]\npath = \"pools[0].nodes\"\nrange = {{ start = 1, end = {n} }}\n\
             [[param]]\npath = \"pools[1].nodes\"\nrange = {{ start = 1, end = {n} }}\n"
        ),
    );
    gpufleet()
        .args(["sweep", sweep.to_str().unwrap(), "--out"])
        .arg(d.path().join("grid"))
        .arg("-q")
        .assert()
        .success();
    // The oracle: points.csv's means over the 3 seeds.
    let pts = read(&d.path().join("grid/points.csv"));
    let mut rows = pts.lines();
    let head: Vec<&str> = rows.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (cw, cc) = (col("wait_all_s_p95_mean"), col("cost_usd_total_mean"));
    let bound = 1800.0;
    let mut grid = vec![vec![(0.0f64, 0.0f64); n]; n];
    for r in rows {
        let f: Vec<&str> = r.split(',').collect();
        let (a, b): (usize, usize) = (f[1].parse().unwrap(), f[2].parse().unwrap());
        grid[a - 1][b - 1] = (f[cw].parse().unwrap(), f[cc].parse().unwrap());
    }
    let feasible = |a: usize, b: usize| grid[a][b].0 <= bound;
    // The premise of the search: more of either pool never turns a fleet infeasible here.
    for a in 0..n {
        for b in 0..n {
            if feasible(a, b) {
                assert!(a + 1 == n || feasible(a + 1, b), "not monotone at {a},{b}");
                assert!(b + 1 == n || feasible(a, b + 1), "not monotone at {a},{b}");
            }
        }
    }
    let best = (0..n)
        .flat_map(|a| (0..n).map(move |b| (a, b)))
        .filter(|&(a, b)| feasible(a, b))
        .min_by(|x, y| grid[x.0][x.1].1.total_cmp(&grid[y.0][y.1].1))
        .unwrap();
    assert!(best.0 > 0 || best.1 > 0, "the optimum must not be a corner");
    let plan = write(
        d.path(),
        "plan.toml",
        &format!(
            "scenario = \"base.toml\"\n[[decision]]\npath = \"pools[small].nodes\"\nrange = {{ start = 1, end = {n} }}\n\
             [[decision]]\npath = \"pools[big].nodes\"\nrange = {{ start = 1, end = {n} }}\n\
             [[target]]\nmetric = \"wait_all_s.p95\"\nmax = \"30m\"\n[replications]\nmin = 3\nmax = 3\n"
        ),
    );
    gpufleet()
        .args(["plan", plan.to_str().unwrap(), "--out"])
        .arg(d.path().join("plan"))
        .arg("-q")
        .assert()
        .success();
    let j: serde_json::Value =
        serde_json::from_str(&read(&d.path().join("plan/plan.json"))).unwrap();
    let a = &j["answer"];
    let rec = &a["recommended"]["values"];
    let got = (
        rec[0].as_str().unwrap().parse::<usize>().unwrap(),
        rec[1].as_str().unwrap().parse::<usize>().unwrap(),
    );
    eprintln!(
        "oracle {:?} at ${}, plan {:?} after {} of {} fleets",
        (best.0 + 1, best.1 + 1),
        grid[best.0][best.1].1,
        got,
        a["fleets_evaluated"],
        n * n
    );
    assert_eq!(got, (best.0 + 1, best.1 + 1));
    let used = a["fleets_evaluated"].as_u64().unwrap() as usize;
    assert!(used * 4 <= n * n, "{used} fleets of {}", n * n);
    // The answer's cost is the oracle's (same seeds, same runs).
    let cost = a["recommended"]["cost"]["mean"].as_f64().unwrap();
    assert!((cost - grid[best.0][best.1].1).abs() < 0.01, "{cost}");
}

/// Nothing in range meets the target: exit 0, the answer names the closest fleet (the
/// largest) and the target it fails; plan.json says infeasible.
#[test]
fn infeasible_targets_name_the_closest_fleet_and_the_failing_target() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "base.toml", ORACLE_BASE);
    let plan = write(
        d.path(),
        "plan.toml",
        "scenario = \"base.toml\"\n[[decision]]\npath = \"pools[small].nodes\"\nrange = { start = 1, end = 3 }\n\
         [[decision]]\npath = \"pools[big].nodes\"\nvalues = [1, 2]\n\
         [[target]]\nmetric = \"wait_all_s.p95\"\nmax = \"1m\"\nlabel = \"p95 wait\"\n[replications]\nmin = 2\nmax = 4\n",
    );
    let out = gpufleet()
        .args(["plan", plan.to_str().unwrap(), "--out"])
        .arg(d.path().join("p"))
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("no fleet in range meets every target"),
        "{text}"
    );
    assert!(text.contains("fails: p95 wait"), "{text}");
    let j: serde_json::Value = serde_json::from_str(&read(&d.path().join("p/plan.json"))).unwrap();
    assert_eq!(j["answer"]["feasible"], false);
    assert!(j["answer"]["recommended"].is_null());
    // More capacity never waits longer here, so the closest is the largest fleet.
    assert_eq!(
        j["answer"]["closest"]["values"],
        serde_json::json!(["3", "2"])
    );
    assert!(read(&d.path().join("p/plan.md"))
        .contains("No fleet in the ranges given meets every target"));
}

/// Bad plan files: exit 2, the file, the line and the field.
#[test]
fn bad_plan_files_exit_2_with_file_line_and_field() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "base.toml", ORACLE_BASE);
    let ok_decision =
        "[[decision]]\npath = \"pools[small].nodes\"\nrange = { start = 1, end = 3 }\n";
    let ok_target = "[[target]]\nmetric = \"wait_all_s.p95\"\nmax = \"1h\"\n";
    let cases: Vec<(String, &str, &str)> = vec![
        (
            format!("scenario = \"base.toml\"\n{ok_decision}{ok_target}colour = 3\n"),
            "line 8",
            "colour",
        ),
        (
            format!("scenario = \"base.toml\"\n[[decision]]\npath = \"pools[nope].nodes\"\nrange = {{ start = 0, end = 2 }}\n{ok_target}"),
            "line 2",
            "no `pools` named \"nope\"",
        ),
        (
            format!("scenario = \"base.toml\"\n{ok_decision}[[target]]\nmetric = \"wait_all_s.p95\"\n"),
            "line 5",
            "exactly one of `max` and `min`",
        ),
        (
            format!("scenario = \"base.toml\"\n{ok_decision}[[target]]\nmetric = \"wait_all_s.p95\"\nmax = \"soon\"\n"),
            "line 5",
            "not a duration",
        ),
        (
            format!("scenario = \"base.toml\"\n{ok_decision}{ok_target}[replications]\nmin = 5\nmax = 2\n"),
            "line 8",
            "replications.max",
        ),
        (
            format!("scenario = \"base.toml\"\n[[decision]]\npath = \"pools[small].gpus_per_node\"\nvalues = [4, -1]\n{ok_target}"),
            "line 2",
            "gpus_per_node",
        ),
        (
            format!("scenario = \"base.toml\"\n{ok_decision}[[target]]\nmetric = \"wait_all_s.p97\"\nmax = \"1h\"\n"),
            "line 5",
            "no such figure",
        ),
        (
            format!("scenario = \"missing.toml\"\n{ok_decision}{ok_target}"),
            "line 1",
            "missing.toml",
        ),
    ];
    for (i, (text, line, field)) in cases.iter().enumerate() {
        let p = write(d.path(), &format!("bad{i}.toml"), text);
        let err = gpufleet()
            .args(["plan", p.to_str().unwrap(), "--out"])
            .arg(d.path().join(format!("o{i}")))
            .assert()
            .code(2)
            .get_output()
            .stderr
            .clone();
        let err = String::from_utf8(err).unwrap();
        assert!(err.contains(&format!("bad{i}.toml")), "case {i}: {err}");
        assert!(err.contains(line), "case {i}: want {line}: {err}");
        assert!(err.contains(field), "case {i}: want {field}: {err}");
        assert!(!err.contains("panicked"), "case {i}: {err}");
    }
    // `--check` runs nothing, yet names a figure no summary has (the objective's too).
    let checks = [
        (
            format!("scenario = \"base.toml\"\n{ok_decision}{ok_target}[objective]\nminimize = \"costs.total\"\n"),
            "line 8",
            "objective `costs.total`: summary.json has no such figure",
        ),
        (
            format!("scenario = \"base.toml\"\n{ok_decision}[[target]]\nmetric = \"wait_all_s.p97\"\nmax = \"1h\"\n"),
            "line 5",
            "wait_all_s.p95",
        ),
    ];
    for (i, (text, line, field)) in checks.iter().enumerate() {
        let p = write(d.path(), &format!("check{i}.toml"), text);
        let a = gpufleet()
            .args(["plan", p.to_str().unwrap(), "--check"])
            .assert()
            .code(2);
        let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
        for want in [&format!("check{i}.toml"), *line, *field] {
            assert!(err.contains(want), "check {i}: want {want}: {err}");
        }
    }
    // A pool's cost column is named by the scenario: accepted by `--check`.
    let p = write(
        d.path(),
        "ok.toml",
        &format!("scenario = \"base.toml\"\n{ok_decision}{ok_target}[objective]\nminimize = \"cost_usd.small\"\n"),
    );
    gpufleet()
        .args(["plan", p.to_str().unwrap(), "--check"])
        .assert()
        .success();
}

/// A burst pool may be set to 0 nodes: it is left out with the spot interruptions that name
/// it, its cost column reads 0, and every replication is in candidates.csv. A resume reruns
/// nothing and writes the same bytes; so does another thread count.
#[test]
fn zero_node_pools_resume_and_threads() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "base.toml",
        &format!(
            "{ORACLE_BASE}preemptible_share = 0.5\n[[spot_interruptions]]\npool = \"big\"\nmodel = \"poisson\"\nper_node_hour = 0.01\n"
        )
        .replace("name = \"big\"\ngpu_type = \"H100\"\nkind = \"reserved\"", "name = \"big\"\ngpu_type = \"H100\"\nkind = \"spot\""),
    );
    let plan = write(
        d.path(),
        "plan.toml",
        "scenario = \"base.toml\"\n[[decision]]\npath = \"pools[small].nodes\"\nrange = { start = 1, end = 8 }\n\
         [[decision]]\npath = \"pools[big].nodes\"\nrange = { start = 0, end = 4 }\n\
         [[target]]\nmetric = \"wait_all_s.p95\"\nmax = \"2h\"\n[replications]\nmin = 2\nmax = 6\n",
    );
    let run = |out: &str, extra: &[&str]| {
        let o = gpufleet()
            .args(["plan", plan.to_str().unwrap(), "--out"])
            .arg(d.path().join(out))
            .args(extra)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(o).unwrap()
    };
    run("a", &["--threads", "1"]);
    run("b", &["--threads", "2"]);
    for f in [
        "plan.json",
        "candidates.csv",
        "fleets.csv",
        "frontier.csv",
        "plan.md",
    ] {
        assert_eq!(
            read(&d.path().join("a").join(f)),
            read(&d.path().join("b").join(f)),
            "{f}"
        );
    }
    let again = run("a", &["--resume"]);
    assert!(again.contains(" 0 replications run now"), "{again}");
    let c = read(&d.path().join("a/candidates.csv"));
    assert_eq!(c, read(&d.path().join("b/candidates.csv")));
    let mut lines = c.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let big = head.iter().position(|h| *h == "pools[big].nodes").unwrap();
    let cost = head.iter().position(|h| *h == "cost_usd_big").unwrap();
    let mut zero_rows = 0;
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        if f[big] == "0" {
            assert_eq!(f[cost], "0");
            zero_rows += 1;
        }
    }
    assert!(
        zero_rows > 0,
        "no fleet without the spot pool was evaluated"
    );
}

/// `plan --slurm --dry-run` writes one job script with the sweep's conventions: CPUs =
/// --threads, an estimated `--mem` that grows with the threads (each thread holds one run),
/// the user's sbatch arguments after it, none of it when an argument sets memory itself;
/// an argument that is not an option is bad input (exit 2) naming it.
#[test]
fn slurm_dry_run_writes_one_resumable_job() {
    let plan = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/slurm-plan.toml");
    let script = |threads: &str, extra: &[&str]| {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("p");
        gpufleet()
            .arg("plan")
            .arg(&plan)
            .arg("--out")
            .arg(&out)
            .args(["--slurm", "--dry-run", "--threads", threads])
            .args(extra)
            .assert()
            .success();
        read(&out.join("slurm/plan.sh"))
    };
    let mem = |s: &str| -> u64 {
        let l = s.lines().find(|l| l.starts_with("#SBATCH --mem=")).unwrap();
        l["#SBATCH --mem=".len()..l.len() - 1].parse().unwrap()
    };
    let s1 = script("1", &["--sbatch-arg=--partition=cpu"]);
    assert!(s1.contains("#SBATCH --cpus-per-task=1\n"), "{s1}");
    assert!(s1.contains("#SBATCH --requeue\n"));
    assert!(s1.contains("--threads 1 --resume --quiet"));
    let (m, p) = (
        s1.find("#SBATCH --mem=").unwrap(),
        s1.find("#SBATCH --partition=cpu\n").unwrap(),
    );
    assert!(m < p, "the user's arguments come last: {s1}");
    // 64 MiB base + threads x the largest run: with 4 threads the part above the base is
    // 4 times the one-thread part, give or take the rounding up of each to a MiB.
    let s4 = script("4", &[]);
    assert!(s4.contains("#SBATCH --cpus-per-task=4\n"));
    let (a, b) = (mem(&s1) - 64, mem(&s4) - 64);
    assert!(a >= 1 && b + 3 >= 4 * a && b <= 4 * a, "{a} MiB vs {b} MiB");
    let s = script("2", &["--sbatch-arg=--mem-per-cpu=2G"]);
    assert!(!s.contains("#SBATCH --mem="), "{s}");
    assert!(s.contains("#SBATCH --mem-per-cpu=2G\n"));
    assert!(script("2", &["--mem-mb", "3000"]).contains("#SBATCH --mem=3000M\n"));
    let d = tempfile::tempdir().unwrap();
    let a = gpufleet()
        .arg("plan")
        .arg(&plan)
        .arg("--out")
        .arg(d.path().join("p"))
        .args(["--slurm", "--dry-run", "--sbatch-arg=partition"])
        .assert()
        .code(2);
    let e = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        e.contains("\"partition\"") && e.contains("not an option"),
        "{e}"
    );
}
