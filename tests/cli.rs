//! The command line as scripts use it: --json on run, validate, tco and sweep; error
//! messages with line, column and the offending text underlined; "did you mean"; -v/-q
//! and RUST_LOG; completions and the man page; Slurm scripts with the sbatch arguments
//! and a memory request.

use crate::common::root;
use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn gpufleet() -> Command {
    let mut c = Command::cargo_bin("gpufleet").unwrap();
    c.env_remove("RUST_LOG");
    c
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stdout).into_owned()
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

fn base() -> PathBuf {
    root().join("tests/data/sweep-base.toml")
}

/// The base scenario with `from` replaced by `to`, written into `dir`.
fn edited(dir: &Path, from: &str, to: &str) -> PathBuf {
    let text = read(&base());
    assert!(text.contains(from), "{from}");
    let p = dir.join("s.toml");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
    p
}

#[test]
fn validate_json_counts_what_the_file_declares() {
    let a = gpufleet()
        .args(["validate", base().to_str().unwrap(), "--json"])
        .assert()
        .success();
    let j: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    // sweep-base.toml: pools of 2 x 8 and 1 x 8 GPUs, EASY backfilling.
    assert_eq!(j["ok"], true);
    assert_eq!(j["pools"], 2);
    assert_eq!(j["gpus"], 24);
    assert_eq!(j["policy"], "easy_backfill");
    assert_eq!(j["scenario"], "sweep-base");
    assert!(j["jobs"].as_u64().unwrap() > 0);
}

#[test]
fn bad_value_is_underlined_with_line_and_column() {
    let d = tempfile::tempdir().unwrap();
    // Line 11 of sweep-base.toml is `nodes = 2` (first pool).
    let f = edited(d.path(), "nodes = 2\n", "nodes = 0\n");
    let a = gpufleet()
        .args(["validate", f.to_str().unwrap()])
        .assert()
        .code(2);
    let e = stderr(&a);
    // "nodes = 0": the value is in column 9, one character wide.
    assert!(e.contains("pools[0].nodes (line 11, column 9):"), "{e}");
    assert!(e.contains("11 | nodes = 0\n"), "{e}");
    assert!(e.contains("   |         ^\n"), "{e}");
    // --json: the same problem as data, exit code unchanged.
    let a = gpufleet()
        .args(["validate", f.to_str().unwrap(), "--json"])
        .assert()
        .code(2);
    let j: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    assert_eq!(j["ok"], false);
    let p = &j["problems"][0];
    assert_eq!(p["path"], "pools[0].nodes");
    assert_eq!(p["line"], 11);
    assert_eq!(p["column"], 9);
}

#[test]
fn misspelt_policy_and_field_get_a_suggestion() {
    let d = tempfile::tempdir().unwrap();
    let f = edited(
        d.path(),
        "policy = \"easy_backfill\"",
        "policy = \"easy_backfil\"",
    );
    let e = stderr(
        &gpufleet()
            .args(["validate", f.to_str().unwrap()])
            .assert()
            .code(2),
    );
    assert!(e.contains("did you mean `easy_backfill`?"), "{e}");
    // The parser's span: the string on line 24 (`policy = "easy_backfil"`), column 10.
    assert!(e.contains("line 24, column 10"), "{e}");
    assert!(e.contains("^^^^^^^^^^^^^^"), "{e}");

    let f = edited(d.path(), "policy = \"easy_backfill\"", "polcy = \"fifo\"");
    let e = stderr(
        &gpufleet()
            .args(["validate", f.to_str().unwrap()])
            .assert()
            .code(2),
    );
    assert!(e.contains("unknown field `polcy`"), "{e}");
    assert!(e.contains("did you mean `policy`?"), "{e}");

    // Nothing close: no guess.
    let f = edited(d.path(), "policy = \"easy_backfill\"", "zzzzzz = 1");
    let e = stderr(
        &gpufleet()
            .args(["validate", f.to_str().unwrap()])
            .assert()
            .code(2),
    );
    assert!(!e.contains("did you mean"), "{e}");
}

#[test]
fn run_json_is_the_summary_file() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r");
    let a = gpufleet()
        .args([
            "run",
            base().to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--json",
        ])
        .assert()
        .success();
    assert_eq!(stdout(&a), read(&out.join("summary.json")));
    let j: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    assert_eq!(j["seed"], 5);
}

#[test]
fn run_json_of_fgd_and_placement_comparison_files_is_their_summary() {
    // `run --json` printed the human tables for these files; now their summary.json, and a
    // plan (which has none) is refused before anything runs.
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("nodes.csv"),
        "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,262144,8,V100M32\nn1,32000,262144,8,V100M32\n",
    )
    .unwrap();
    std::fs::write(
        d.path().join("pods.csv"),
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n\
         p0,4000,1024,1,1000,,LS,Succeeded,0,100,0\n\
         p1,4000,1024,1,500,,BE,Succeeded,10,200,10\n\
         p2,8000,1024,2,1000,,LS,Succeeded,20,300,20\n",
    )
    .unwrap();
    let fgd = d.path().join("fgd.toml");
    std::fs::write(
        &fgd,
        "name = \"tiny-fgd\"\n[fgd_experiment]\nnodes = \"nodes.csv\"\npods = \"pods.csv\"\npolicies = [\"best_fit\"]\nseeds = [1]\n",
    )
    .unwrap();
    let pc = d.path().join("pc.toml");
    std::fs::write(
        &pc,
        "name = \"tiny-pc\"\n[placement_comparison]\nnodes = \"nodes.csv\"\npods = \"pods.csv\"\nplacements = [\"best_fit\", \"worst_fit\"]\nusd_per_gpu_hour = 1.0\nusd_per_cpu_node_hour = 0.5\n",
    )
    .unwrap();
    for (file, key) in [(&fgd, "cluster_gpus"), (&pc, "queue_policy")] {
        let out = d.path().join(format!("out-{key}"));
        let a = gpufleet()
            .args([
                "run",
                file.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ])
            .arg("--json")
            .assert()
            .success();
        assert_eq!(stdout(&a), read(&out.join("summary.json")));
        let j: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
        assert!(j.get(key).is_some(), "{j}");
    }
    let out = d.path().join("plan-out");
    let a = gpufleet()
        .args([
            "run",
            root()
                .join("scenarios/plan-h100-team.toml")
                .to_str()
                .unwrap(),
        ])
        .args(["--out", out.to_str().unwrap(), "--json"])
        .assert()
        .code(2);
    assert!(stderr(&a).contains("plan.json"), "{}", stderr(&a));
    assert!(!out.exists());
    // `--format` (a scenario run's tables) was ignored on these files without a word.
    for file in [&fgd, &pc] {
        let out = d.path().join("format-out");
        let a = gpufleet()
            .args([
                "run",
                file.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ])
            .args(["--format", "parquet"])
            .assert()
            .code(2);
        assert!(stderr(&a).contains("--format"), "{}", stderr(&a));
        assert!(!out.exists());
    }
}

#[test]
fn sweep_json_counts_the_runs() {
    let d = tempfile::tempdir().unwrap();
    std::fs::copy(base(), d.path().join("base.toml")).unwrap();
    let f = d.path().join("sweep.toml");
    std::fs::write(
        &f,
        "name = \"j\"\nscenario = \"base.toml\"\nseeds = 2\n[[param]]\npath = \"pools[1].nodes\"\nvalues = [1, 2, 3]\n",
    )
    .unwrap();
    let a = gpufleet()
        .args([
            "sweep",
            f.to_str().unwrap(),
            "--out",
            "unused",
            "--check",
            "--json",
        ])
        .assert()
        .success();
    let j: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    // 3 values x 2 seeds.
    assert_eq!(
        (j["points"].as_u64(), j["runs"].as_u64()),
        (Some(3), Some(6))
    );
    let out = d.path().join("s");
    let a = gpufleet()
        .args([
            "sweep",
            f.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--json",
            "--threads",
            "2",
        ])
        .assert()
        .success();
    let j: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    assert_eq!(j["runs"], 6);
    assert_eq!(j["ran"], 6);
    assert_eq!(j["kept"], 0);
    // Nothing but the JSON on stdout (no progress lines).
    assert_eq!(stdout(&a).lines().count(), 1);
}

#[test]
fn sweep_merge_json_counts_the_merged_runs() {
    // `sweep merge --json` was refused by the parser ("unexpected argument"), though
    // docs/outputs.md lists its keys.
    let d = tempfile::tempdir().unwrap();
    std::fs::copy(base(), d.path().join("base.toml")).unwrap();
    let f = d.path().join("sweep.toml");
    std::fs::write(
        &f,
        "name = \"j\"\nscenario = \"base.toml\"\nseeds = 2\n[[param]]\npath = \"pools[1].nodes\"\nvalues = [1, 2]\n",
    )
    .unwrap();
    let mut shards = Vec::new();
    for k in 1..=2 {
        let s = d.path().join(format!("s{k}"));
        gpufleet()
            .args(["sweep", f.to_str().unwrap(), "--out", s.to_str().unwrap()])
            .args(["-q", "--shard", &format!("{k}/2")])
            .assert()
            .success();
        shards.push(s.to_str().unwrap().to_string());
    }
    let out = d.path().join("m");
    let a = gpufleet()
        .args(["sweep", "merge"])
        .args(&shards)
        .args(["--out", out.to_str().unwrap(), "--json"])
        .assert()
        .success();
    let j: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    assert_eq!(j["merged"], 4);
    assert_eq!(j["out"], out.to_str().unwrap());
    assert_eq!(stdout(&a).lines().count(), 1);
}

#[test]
fn tco_json_lists_every_candidate() {
    let d = tempfile::tempdir().unwrap();
    let f = root().join("scenarios/buy-vs-rent-h100.toml");
    let a = gpufleet()
        .args([
            "tco",
            f.to_str().unwrap(),
            "--json",
            "--out",
            d.path().to_str().unwrap(),
        ])
        .assert()
        .success();
    let j: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    let t: toml::Table = toml::from_str(&read(&f)).unwrap();
    let n = t["tco"]["candidates"].as_array().unwrap().len();
    assert_eq!(j["analytic"].as_array().unwrap().len(), n);
    assert_eq!(j["simulated"].as_array().unwrap().len(), 0);
    // The JSON's figures are the ones in tco.csv (4 decimals there).
    let csv = read(&d.path().join("tco.csv"));
    let first = csv.lines().nth(1).unwrap();
    let total: f64 = first.split(',').nth(2).unwrap().parse().unwrap();
    assert!((j["analytic"][0]["total_usd"].as_f64().unwrap() - total).abs() < 1e-4);
}

#[test]
fn completions_and_man_page_come_from_clap() {
    for shell in ["bash", "zsh", "fish"] {
        let a = gpufleet().args(["completions", shell]).assert().success();
        let s = stdout(&a);
        // Every subcommand is offered.
        for sub in ["run", "validate", "sweep", "tco", "plot", "trace"] {
            assert!(s.contains(sub), "{shell} lacks {sub}");
        }
    }
    let a = gpufleet().args(["man"]).assert().success();
    let m = stdout(&a);
    assert!(
        m.starts_with(".ie") || m.starts_with(".TH"),
        "{}",
        &m[..40.min(m.len())]
    );
    assert!(
        m.contains("gpufleet") && m.contains("\\-\\-verbose"),
        "man page"
    );
    let d = tempfile::tempdir().unwrap();
    gpufleet()
        .args(["man", "--out", d.path().to_str().unwrap()])
        .assert()
        .success();
    assert!(d.path().join("gpufleet.1").is_file());
    assert!(d.path().join("gpufleet-run.1").is_file());
}

#[test]
fn verbosity_flags_and_rust_log() {
    let d = tempfile::tempdir().unwrap();
    let run = |args: &[&str], log: Option<&str>| {
        let mut c = gpufleet();
        c.args(["run", base().to_str().unwrap(), "--out"])
            .arg(d.path().join("r"))
            .args(args);
        if let Some(l) = log {
            c.env("RUST_LOG", l);
        }
        stderr(&c.assert().success())
    };
    // Default: warnings only, and this run has none.
    assert_eq!(run(&[], None), "");
    assert!(run(&["-v"], None).contains("INFO"));
    let dbg = run(&["-vv"], None);
    assert!(
        dbg.contains("DEBUG") && dbg.contains("workload built"),
        "{dbg}"
    );
    assert!(run(&["-q"], None).is_empty());
    // RUST_LOG wins over the flags.
    assert!(run(&["-q"], Some("gpufleet=debug")).contains("DEBUG"));
}

fn slurm_dry_run(dir: &Path, extra: &[&str]) -> (assert_cmd::assert::Assert, PathBuf) {
    std::fs::copy(base(), dir.join("base.toml")).unwrap();
    let f = dir.join("sweep.toml");
    std::fs::write(
        &f,
        "name = \"s\"\nscenario = \"base.toml\"\nseeds = 1\n[[param]]\npath = \"pools[1].nodes\"\nvalues = [1, 2]\n",
    )
    .unwrap();
    let out = dir.join("cluster");
    let mut c = gpufleet();
    c.args(["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .args(["--slurm", "--shards", "2", "--threads", "2", "--dry-run"])
        .args(extra);
    (c.assert(), out)
}

#[test]
fn sbatch_args_go_into_both_scripts_and_the_dry_run() {
    let d = tempfile::tempdir().unwrap();
    let (a, out) = slurm_dry_run(
        d.path(),
        &[
            "--sbatch-arg=--partition=cpu",
            "--sbatch-arg=--time=02:00:00",
        ],
    );
    let shown = stdout(&a.success());
    for script in ["array.sh", "merge.sh"] {
        let s = read(&out.join("slurm").join(script));
        assert!(s.contains("#SBATCH --partition=cpu\n"), "{script}: {s}");
        assert!(s.contains("#SBATCH --time=02:00:00\n"), "{script}: {s}");
        // The directives come before the first command (sbatch stops reading there).
        let first_cmd = s.find("set -euo").unwrap();
        assert!(s.rfind("#SBATCH").unwrap() < first_cmd, "{script}");
    }
    assert!(shown.contains("#SBATCH --partition=cpu"), "{shown}");
    assert!(shown.contains("#SBATCH --time=02:00:00"), "{shown}");
    // The estimate by hand: ~144 jobs (48 h at 3 an hour) x 1 KiB plus 49 timeline
    // samples x (64 + 2 pools x 24) bytes, times 2 threads, is ~0.3 MB: rounded up to
    // 1 MiB over the 64 MiB base. Only the array script asks for memory.
    let array = read(&out.join("slurm/array.sh"));
    let mem = array
        .lines()
        .find_map(|l| l.strip_prefix("#SBATCH --mem="))
        .expect("a --mem line");
    let mb: u64 = mem.trim_end_matches('M').parse().unwrap();
    assert_eq!(mb, 65, "{mem}");
    assert!(!read(&out.join("slurm/merge.sh")).contains("--mem="));
}

#[test]
fn a_user_memory_request_replaces_the_estimate() {
    let d = tempfile::tempdir().unwrap();
    let (a, out) = slurm_dry_run(d.path(), &["--sbatch-arg=--mem=8G"]);
    a.success();
    let array = read(&out.join("slurm/array.sh"));
    assert_eq!(array.matches("--mem").count(), 1, "{array}");
    assert!(array.contains("#SBATCH --mem=8G\n"));
    let d = tempfile::tempdir().unwrap();
    let (a, out) = slurm_dry_run(d.path(), &["--mem-mb", "3000"]);
    a.success();
    assert!(read(&out.join("slurm/array.sh")).contains("#SBATCH --mem=3000M\n"));
}

#[test]
fn a_bad_sbatch_arg_is_bad_input() {
    let d = tempfile::tempdir().unwrap();
    let (a, _) = slurm_dry_run(d.path(), &["--sbatch-arg=partition=cpu"]);
    let e = stderr(&a.code(2));
    assert!(e.contains("not an option"), "{e}");
}

/// `validate` checks every kind of file `run`, `sweep`, `compare` and `plan` take: a sweep
/// or compare file is built point by point and variant by variant (it was read as a
/// scenario: "unknown field `scenario`"), and a bad variant is named.
#[test]
fn validate_takes_sweep_and_compare_files() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let sweep = root.join("scenarios/sweeps/heterogeneous.toml");
    let a = gpufleet()
        .args(["validate", sweep.to_str().unwrap()])
        .assert()
        .success();
    // 3 rates x 3 pool orders, 2 seeds (the file says so).
    assert!(
        stdout(&a).contains("ok (sweep, 9 points x 2 seeds = 18 runs)"),
        "{}",
        stdout(&a)
    );
    let cmp = root.join("scenarios/compare/mm1-fifo-vs-sjf.toml");
    let a = gpufleet()
        .args(["validate", cmp.to_str().unwrap()])
        .assert()
        .success();
    assert!(
        stdout(&a).contains("ok (comparison, 2 variants"),
        "{}",
        stdout(&a)
    );
    let d = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(&cmp).unwrap();
    let scenario_line = text.lines().find(|l| l.starts_with("scenario")).unwrap();
    let scen = root
        .join("scenarios/compare")
        .join(scenario_line.split('"').nth(1).unwrap());
    let bad = d.path().join("bad.toml");
    std::fs::write(
        &bad,
        format!(
            "scenario = {:?}\n[[variant]]\nname = \"x\"\nset = {{ \"scheduler.policy\" = \"no-such-policy\" }}\n",
            scen.to_str().unwrap()
        ),
    )
    .unwrap();
    let a = gpufleet()
        .args(["validate", bad.to_str().unwrap()])
        .assert()
        .code(2);
    let e = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(e.contains("bad.toml") && e.contains("variant `x`"), "{e}");
}

#[test]
fn validate_json_covers_sweep_compare_and_plan_files() {
    // `--json` printed the human line for these files (not JSON): each kind now prints its
    // counts as JSON, and a failure the same `problems` shape as a scenario's, exit 2.
    let d = tempfile::tempdir().unwrap();
    let json = |f: &Path, code: i32| -> serde_json::Value {
        let a = gpufleet()
            .args(["validate", f.to_str().unwrap(), "--json"])
            .assert()
            .code(code);
        serde_json::from_str(&stdout(&a)).unwrap_or_else(|e| panic!("{e}: {}", stdout(&a)))
    };
    // topology.toml: 4 x 2 points, 2 seeds.
    let j = json(&root().join("scenarios/sweeps/topology.toml"), 0);
    assert_eq!(
        (j["ok"].clone(), j["kind"].clone()),
        (true.into(), "sweep".into())
    );
    assert_eq!(
        (j["points"].as_u64(), j["runs"].as_u64()),
        (Some(8), Some(16))
    );
    // mm1-fifo-vs-sjf.toml: two variants, five seeds.
    let j = json(&root().join("scenarios/compare/mm1-fifo-vs-sjf.toml"), 0);
    assert_eq!(j["kind"], "compare");
    assert_eq!(
        (j["variants"].as_u64(), j["runs"].as_u64()),
        (Some(2), Some(10))
    );
    let j = json(&root().join("scenarios/plan-h100-team.toml"), 0);
    assert_eq!(j["kind"], "plan");
    assert!(!j["decisions"].as_array().unwrap().is_empty(), "{j}");
    // A sweep whose point cannot run: ok false, the point named, exit 2.
    let f = d.path().join("bad-sweep.toml");
    std::fs::write(
        &f,
        format!(
            "name = \"x\"\nscenario = {:?}\nseeds = 1\n[[param]]\npath = \"pools[0].nodes\"\nvalues = [0]\n",
            base()
        ),
    )
    .unwrap();
    let j = json(&f, 2);
    assert_eq!(j["ok"], false);
    let m = j["problems"][0]["message"].as_str().unwrap();
    assert!(m.contains("point 0") && m.contains("nodes"), "{m}");
}

#[test]
fn sweep_values_far_from_one_are_short_in_messages() {
    // A point of 1e300 was named with 301 digits.
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("huge.toml");
    std::fs::write(
        &f,
        format!(
            "name = \"x\"\nscenario = {:?}\nseeds = 1\n[[param]]\npath = \"pools[0].price_per_node_hour\"\nvalues = [1e300]\n",
            base()
        ),
    )
    .unwrap();
    let e = stderr(
        &gpufleet()
            .args(["validate", f.to_str().unwrap()])
            .assert()
            .code(2),
    );
    assert!(e.contains("=1e300"), "{e}");
    assert!(!e.contains("0000000000"), "{e}");
}
