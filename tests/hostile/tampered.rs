//! Output folders changed by hand (or by a disk, a crash, a careless script) and then read
//! back: shard folders given to `sweep merge`, sweep folders resumed, run and sweep folders
//! given to `plot`. A manifest, record or table that no run could have written is bad
//! input: exit 2 naming the file (and row and column), never a panic, an allocation
//! failure, a hang or a chart drawn from garbage with exit 0.

use super::{gpufleet, put, scenario, scratch, zeros};
use std::path::Path;

/// A sweep of 2 points x 2 seeds over a small scenario, run as shards `a` (1/2) and `b`
/// (2/2) in `d`.
fn two_shards(d: &Path) {
    let body = "[workload]\nkind = \"synthetic\"\nrate_per_hour = 20.0\njobs = 30\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n";
    put(d, "s.toml", &scenario("", body));
    put(
        d,
        "w.toml",
        "name = \"w\"\nscenario = \"s.toml\"\nseeds = 2\n[[param]]\npath = \"workload.rate_per_hour\"\nvalues = [10.0, 20.0]\n",
    );
    for (k, out) in [("1/2", "a"), ("2/2", "b")] {
        let e = gpufleet(d, &["sweep", "-q", "w.toml", "--out", out, "--shard", k]);
        assert_eq!(e.code, 0, "{e:#?}");
    }
}

/// Rewrites `dir/sweep.json` with `f` applied to it.
fn edit_manifest(dir: &Path, f: impl Fn(&mut serde_json::Value)) {
    let p = dir.join("sweep.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    f(&mut m);
    std::fs::write(&p, serde_json::to_string_pretty(&m).unwrap()).unwrap();
}

#[test]
fn a_manifest_claiming_a_quintillion_runs_is_refused_by_merge() {
    // `runs` was trusted: the list of missing runs was built over 0..runs (an allocation
    // failure); and `seeds = []` indexed an empty list (a panic).
    let d = scratch();
    two_shards(d.path());
    let saved = std::fs::read_to_string(d.path().join("a/sweep.json")).unwrap();
    for dir in ["a", "b"] {
        edit_manifest(&d.path().join(dir), |m| {
            m["runs"] = 1_000_000_000_000_000_000u64.into()
        });
    }
    let e = gpufleet(d.path(), &["sweep", "merge", "a", "b", "--out", "m"]);
    e.refused(2, &["sweep.json", "runs"]);
    assert!(e.secs < 10.0, "{e:#?}");
    for dir in ["a", "b"] {
        std::fs::write(d.path().join(dir).join("sweep.json"), &saved).unwrap();
        edit_manifest(&d.path().join(dir), |m| m["seeds"] = serde_json::json!([]));
    }
    gpufleet(d.path(), &["sweep", "merge", "a", "--out", "m"]).refused(2, &["sweep.json", "seeds"]);
    // Runs that are not points x seeds: the manifest contradicts itself.
    for dir in ["a", "b"] {
        std::fs::write(d.path().join(dir).join("sweep.json"), &saved).unwrap();
        edit_manifest(&d.path().join(dir), |m| m["runs"] = 3.into());
    }
    gpufleet(d.path(), &["sweep", "merge", "a", "b", "--out", "m"])
        .refused(2, &["sweep.json", "runs", "points"]);
    // Untouched, the same shards merge.
    for dir in ["a", "b"] {
        std::fs::write(d.path().join(dir).join("sweep.json"), &saved).unwrap();
    }
    let e = gpufleet(d.path(), &["sweep", "merge", "a", "b", "--out", "m"]);
    assert_eq!(e.code, 0, "{e:#?}");
}

#[test]
fn a_huge_manifest_or_record_is_refused_unread() {
    // 3 GiB of zeros (sparse) as sweep.json or as a run's record: read whole into memory
    // before (an allocation failure under the cap, 3 GB of memory without one).
    let d = scratch();
    two_shards(d.path());
    let rec = std::fs::read_dir(d.path().join("b/runs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "rec"))
        .expect("a record in shard b");
    let name = rec.file_name().unwrap().to_string_lossy().to_string();
    std::fs::remove_file(&rec).unwrap();
    zeros(&d.path().join("b/runs"), &name, 3 << 30);
    let e = gpufleet(d.path(), &["sweep", "merge", "a", "b", "--out", "m"]);
    e.refused(2, &[&name, "bytes"]);
    assert!(e.secs < 10.0, "{e:#?}");
    // Resumed, the run of the damaged record is redone (not read into memory).
    let e = gpufleet(
        d.path(),
        &[
            "sweep", "-q", "w.toml", "--out", "b", "--shard", "2/2", "--resume",
        ],
    );
    assert_eq!(e.code, 0, "{e:#?}");
    assert!(
        std::fs::metadata(&rec).unwrap().len() < 1 << 20,
        "the record was rewritten"
    );
    std::fs::remove_file(d.path().join("a/sweep.json")).unwrap();
    zeros(&d.path().join("a"), "sweep.json", 3 << 30);
    let e = gpufleet(d.path(), &["sweep", "merge", "a", "b", "--out", "m"]);
    e.refused(2, &["sweep.json", "bytes"]);
    assert!(e.secs < 10.0, "{e:#?}");
}

#[test]
fn a_merge_into_a_file_is_bad_input() {
    // As for `run` and `sweep`: a file where the output folder should be is the user's
    // path at fault (exit 2), not the file system's (it said 1).
    let d = scratch();
    two_shards(d.path());
    put(d.path(), "taken", "not a folder");
    for out in ["taken", "taken/m"] {
        gpufleet(d.path(), &["sweep", "merge", "a", "b", "--out", out])
            .refused(2, &["taken", "not a folder"]);
    }
    assert_eq!(
        std::fs::read_to_string(d.path().join("taken")).unwrap(),
        "not a folder"
    );
}

/// Replaces the cell of `column` in data row `row` (1-based, the header being row 0) of
/// the CSV file `path` with `text`.
fn set_cell(path: &Path, row: usize, column: &str, text: &str) {
    let t = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<String> = t.lines().map(String::from).collect();
    let k = lines[0]
        .split(',')
        .position(|h| h == column)
        .unwrap_or_else(|| panic!("no column {column} in {}", path.display()));
    let mut cells: Vec<String> = lines[row].split(',').map(String::from).collect();
    cells[k] = text.to_string();
    lines[row] = cells.join(",");
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn a_run_folder_with_a_figure_changed_by_hand_is_named_not_charted() {
    // An infinite cost in pools.csv drew its chart forever (an endless axis); NaN, 1e308
    // and text were drawn as 0 or dropped, with exit 0.
    let d = scratch();
    let body = "[workload]\nkind = \"synthetic\"\nrate_per_hour = 20.0\njobs = 30\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n";
    let f = put(d.path(), "s.toml", &scenario("", body));
    let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "r"]);
    assert_eq!(e.code, 0, "{e:#?}");
    let cases = [
        ("pools.csv", "busy_cost_usd", "inf"),
        ("pools.csv", "idle_cost_usd", "NaN"),
        ("jobs.csv", "wait_s", "1e308"),
        ("jobs.csv", "jct_s", "banana"),
        ("timeline.csv", "busy_gpus", "-inf"),
    ];
    for (file, column, text) in cases {
        let _ = std::fs::remove_dir_all(d.path().join("t"));
        std::fs::create_dir(d.path().join("t")).unwrap();
        for e in std::fs::read_dir(d.path().join("r")).unwrap().flatten() {
            std::fs::copy(e.path(), d.path().join("t").join(e.file_name())).unwrap();
        }
        set_cell(&d.path().join("t").join(file), 1, column, text);
        // Its completion manifest names the file changed since it was written.
        gpufleet(d.path(), &["plot", "t"]).refused(2, &[file, "complete.json"]);
        // Without one (a folder of an older gpufleet), the cell is named.
        std::fs::remove_file(d.path().join("t/complete.json")).unwrap();
        let e = gpufleet(d.path(), &["plot", "t"]);
        e.refused(2, &[file, "row 2", column, text]);
        assert!(e.secs < 10.0, "{file} {column}: {e:#?}");
    }
    // A summary.json that is not an object drew charts of nothing titled "run", exit 0.
    std::fs::remove_file(d.path().join("r/complete.json")).unwrap();
    for text in ["[]", "1", "\"run\""] {
        std::fs::write(d.path().join("r").join("summary.json"), text).unwrap();
        let e = gpufleet(d.path(), &["plot", "r"]);
        e.refused(2, &["summary.json", "expected a map"]);
    }
}

#[test]
fn a_sweep_folder_with_a_figure_changed_by_hand_is_named_not_charted() {
    let d = scratch();
    two_shards(d.path());
    let e = gpufleet(d.path(), &["sweep", "merge", "a", "b", "--out", "m"]);
    assert_eq!(e.code, 0, "{e:#?}");
    let points = d.path().join("m/points.csv");
    let saved = std::fs::read_to_string(&points).unwrap();
    set_cell(&points, 2, "cost_usd_total_mean", "inf");
    gpufleet(d.path(), &["plot", "m"]).refused(2, &["points.csv", "complete.json"]);
    // Without a completion manifest (an older gpufleet's folder), the cell is named.
    std::fs::remove_file(d.path().join("m/complete.json")).unwrap();
    for (column, text) in [
        ("cost_usd_total_mean", "inf"),
        ("wait_s_p95_ci95", "NaN"),
        ("cost_usd_total_mean", "1e308"),
        ("wait_s_p95_mean", "banana"),
    ] {
        std::fs::write(&points, &saved).unwrap();
        set_cell(&points, 2, column, text);
        let e = gpufleet(d.path(), &["plot", "m"]);
        e.refused(2, &["points.csv", "row 3", column, text]);
        assert!(e.secs < 10.0, "{column}: {e:#?}");
    }
    // A pooled CDF value likewise.
    std::fs::write(&points, &saved).unwrap();
    set_cell(&d.path().join("m/distributions.csv"), 1, "value", "inf");
    gpufleet(d.path(), &["plot", "m"]).refused(2, &["distributions.csv", "row 2", "value"]);
    // points.csv of 3 GiB of zero bytes: one endless line, held whole before.
    std::fs::remove_file(&points).unwrap();
    zeros(&d.path().join("m"), "points.csv", 3 << 30);
    let e = gpufleet(d.path(), &["plot", "m"]);
    e.refused(2, &["points.csv", "longer than"]);
    assert!(e.secs < 20.0, "{e:#?}");
}

#[test]
fn plot_of_another_commands_folder_names_that_command() {
    // An FGD experiment's or a placement comparison's folder (each with a summary.json)
    // was taken for a run folder: "neither timeline.csv nor timeline.parquet ... was it
    // changed by hand?"; a sweep shard was "points.csv: No such file or directory".
    let d = scratch();
    two_shards(d.path());
    gpufleet(d.path(), &["plot", "a"]).refused(2, &["a:", "shard", "sweep merge"]);
    put(
        d.path(),
        "nodes.csv",
        "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,8,V100M32\nn1,64000,262144,8,V100M32\n",
    );
    put(
        d.path(),
        "pods.csv",
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n\
         p0,1000,1000,1,1000,,LS,Running,0,1000,0\np1,1000,1000,2,1000,,LS,Running,10,1000,10\n\
         p2,1000,1000,1,500,,LS,Running,20,1000,20\n",
    );
    put(
        d.path(),
        "fgd.toml",
        "name = \"f\"\n[fgd_experiment]\nnodes = \"nodes.csv\"\npods = \"pods.csv\"\npolicies = [\"fgd\"]\nseeds = [1]\n",
    );
    put(
        d.path(),
        "cmp.toml",
        "name = \"c\"\n[placement_comparison]\nnodes = \"nodes.csv\"\npods = \"pods.csv\"\nplacements = [\"best_fit\"]\nusd_per_gpu_hour = 2.0\nusd_per_cpu_node_hour = 0.5\n",
    );
    for (file, out, what) in [
        ("fgd.toml", "f", "FGD experiment"),
        ("cmp.toml", "c", "placement comparison"),
    ] {
        let e = gpufleet(d.path(), &["run", "-q", file, "--out", out]);
        assert_eq!(e.code, 0, "{e:#?}");
        let e = gpufleet(d.path(), &["plot", out]);
        e.refused(2, &[what]);
        assert!(!e.stderr.contains("by hand"), "{e:#?}");
    }
}

/// The data files of `dir` (not charts, temporaries or `complete.json`), from its listing.
fn data_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            !n.starts_with('.')
                && n != "complete.json"
                && [".csv", ".json", ".md", ".parquet"]
                    .iter()
                    .any(|x| n.ends_with(x))
        })
        .collect();
    v.sort();
    v
}

/// Copies the files of `from` (no subfolders) into a fresh folder `to`.
fn copy_files(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn plot_names_a_missing_truncated_or_changed_file_of_every_folder_kind() {
    // A comparison folder without differences.csv or runs.csv plotted with exit 0; a
    // truncated table of any folder was read as far as it went. Every folder a command
    // writes (run, comparison, merged sweep, TCO, FGD experiment, placement comparison,
    // plan) is now told incomplete, naming the file.
    let d = scratch();
    let p = d.path();
    two_shards(p);
    let ok = |args: &[&str]| {
        let e = gpufleet(p, args);
        assert_eq!(e.code, 0, "{args:?}: {e:#?}");
    };
    ok(&["sweep", "merge", "a", "b", "--out", "sweep"]);
    ok(&["run", "-q", "s.toml", "--out", "run"]);
    put(
        p,
        "cmp.toml",
        "scenario = \"s.toml\"\nseeds = [1, 2]\n[[variant]]\nname = \"fifo\"\nset = { \"scheduler.policy\" = \"fifo\" }\n[[variant]]\nname = \"sjf\"\nset = { \"scheduler.policy\" = \"sjf\" }\n",
    );
    ok(&["compare", "-q", "cmp.toml", "--out", "compare"]);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tco = root.join("scenarios/buy-vs-rent-h100.toml");
    ok(&["tco", tco.to_str().unwrap(), "--out", "tco"]);
    let plan = root.join("tests/data/slurm-plan.toml");
    ok(&["plan", "-q", plan.to_str().unwrap(), "--out", "plan"]);
    put(
        p,
        "nodes.csv",
        "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,8,V100M32\nn1,64000,262144,8,V100M32\n",
    );
    put(
        p,
        "pods.csv",
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n\
         p0,1000,1000,1,1000,,LS,Running,0,1000,0\np1,1000,1000,2,1000,,LS,Running,10,1000,10\n",
    );
    put(
        p,
        "fgd.toml",
        "name = \"f\"\n[fgd_experiment]\nnodes = \"nodes.csv\"\npods = \"pods.csv\"\npolicies = [\"fgd\"]\nseeds = [1]\n",
    );
    put(
        p,
        "pc.toml",
        "name = \"c\"\n[placement_comparison]\nnodes = \"nodes.csv\"\npods = \"pods.csv\"\nplacements = [\"best_fit\"]\nusd_per_gpu_hour = 2.0\nusd_per_cpu_node_hour = 0.5\n",
    );
    ok(&["run", "-q", "fgd.toml", "--out", "fgd"]);
    ok(&["run", "-q", "pc.toml", "--out", "placement"]);
    for kind in ["run", "compare", "sweep", "tco", "plan", "fgd", "placement"] {
        let files = data_files(&p.join(kind));
        assert!(files.len() >= 2, "{kind}: {files:?}");
        for f in &files {
            let t = p.join("t");
            // Gone.
            copy_files(&p.join(kind), &t);
            std::fs::remove_file(t.join(f)).unwrap();
            gpufleet(p, &["plot", "t"]).refused(2, &[f, "missing"]);
            // Cut short by one byte.
            copy_files(&p.join(kind), &t);
            let bytes = std::fs::read(t.join(f)).unwrap();
            std::fs::write(t.join(f), &bytes[..bytes.len() - 1]).unwrap();
            gpufleet(p, &["plot", "t"]).refused(2, &[f, "truncated"]);
            // One byte changed, the size kept.
            copy_files(&p.join(kind), &t);
            let mut bytes = bytes.clone();
            let mid = bytes.len() / 2;
            bytes[mid] = if bytes[mid] == b'7' { b'8' } else { b'7' };
            std::fs::write(t.join(f), &bytes).unwrap();
            gpufleet(p, &["plot", "t"]).refused(2, &[f, "changed"]);
        }
    }
    // A file, a device or no folder at all as DIR is the user's path at fault (2); a
    // device was "/dev/null/complete.json: Not a directory", exit 1.
    gpufleet(p, &["plot", "/dev/null"]).refused(2, &["/dev/null", "not a folder"]);
    gpufleet(p, &["plot", "s.toml"]).refused(2, &["s.toml", "not a folder"]);
    gpufleet(p, &["plot", "nowhere"]).refused(2, &["nowhere", "no such folder"]);
    gpufleet(p, &["plot", "s.toml/x"]).refused(2, &["s.toml/x"]);
    // Untouched, the folders plot redraws are drawn.
    for kind in ["run", "compare", "sweep"] {
        ok(&["plot", kind]);
    }
    // A comparison folder of an older gpufleet (no complete.json) must still hold its
    // tables: each one gone is named.
    for f in [
        "compare.csv",
        "differences.csv",
        "runs.csv",
        "distributions.csv",
    ] {
        let t = p.join("t");
        copy_files(&p.join("compare"), &t);
        std::fs::remove_file(t.join("complete.json")).unwrap();
        ok(&["plot", "t"]);
        std::fs::remove_file(t.join(f)).unwrap();
        gpufleet(p, &["plot", "t"]).refused(2, &[f, "incomplete"]);
    }
}

/// FNV-1a, 64 bits, written out from its definition (offset basis 0xcbf29ce484222325,
/// prime 0x100000001b3): the checksum a user can recompute for a sweep record.
fn fnv1a(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[test]
fn merge_refuses_shards_that_are_not_one_sweeps_naming_the_shard_and_why() {
    // Checked before: the sweep hash and each record's checksum, both recomputable by
    // hand. A shard from another gpufleet version (its hash kept) merged; a record whose
    // seed was changed and its checksum recomputed merged; the same folder given twice
    // was a list of "duplicated" runs; `--out` naming a shard merged into the shard.
    let d = scratch();
    let p = d.path();
    two_shards(p);
    let merge = |args: &[&str]| {
        let mut v = vec!["sweep", "merge"];
        v.extend_from_slice(args);
        gpufleet(p, &v)
    };
    merge(&["a", "a", "--out", "m"]).refused(2, &["a", "given twice"]);
    merge(&["a", "./a", "b", "--out", "m"]).refused(2, &["./a", "given twice"]);
    merge(&["a", "b", "--out", "b"]).refused(2, &["--out", "shard folder b"]);
    merge(&["a", "--out", "m"]).refused(2, &["2 of 4 runs missing", "run 1", "run 3"]);
    // Another split of the same sweep overlaps: run 0 is in both.
    let e = gpufleet(
        p,
        &["sweep", "-q", "w.toml", "--out", "x", "--shard", "1/3"],
    );
    assert_eq!(e.code, 0, "{e:#?}");
    merge(&["a", "b", "x", "--out", "m"]).refused(2, &["run 0 in a and x"]);
    // The same sweep name over other values.
    put(
        p,
        "w2.toml",
        "name = \"w\"\nscenario = \"s.toml\"\nseeds = 2\n[[param]]\npath = \"workload.rate_per_hour\"\nvalues = [10.0, 30.0]\n",
    );
    let e = gpufleet(
        p,
        &["sweep", "-q", "w2.toml", "--out", "b2", "--shard", "2/2"],
    );
    assert_eq!(e.code, 0, "{e:#?}");
    merge(&["a", "b2", "--out", "m"]).refused(2, &["b2", "another scenario or values"]);
    // Other seeds.
    put(
        p,
        "w3.toml",
        "name = \"w\"\nscenario = \"s.toml\"\nseeds = [5, 6]\n[[param]]\npath = \"workload.rate_per_hour\"\nvalues = [10.0, 20.0]\n",
    );
    let e = gpufleet(
        p,
        &["sweep", "-q", "w3.toml", "--out", "b3", "--shard", "2/2"],
    );
    assert_eq!(e.code, 0, "{e:#?}");
    merge(&["a", "b3", "--out", "m"]).refused(2, &["b3", "seeds"]);
    // Written by another version, the rest of sweep.json (and its hash) kept.
    let saved = std::fs::read_to_string(p.join("b/sweep.json")).unwrap();
    edit_manifest(&p.join("b"), |m| m["gpufleet_version"] = "0.0.1".into());
    merge(&["a", "b", "--out", "m"]).refused(2, &["b", "gpufleet 0.0.1", "rerun that shard"]);
    std::fs::write(p.join("b/sweep.json"), &saved).unwrap();
    // A record whose seed was changed by hand, its checksum recomputed.
    let rec = p.join("b/runs/run-0000001.rec");
    let text = std::fs::read_to_string(&rec).unwrap();
    assert!(text.contains("\nseed 2\n"), "{text}");
    let body = text[..text.rfind("end ").unwrap()].replace("\nseed 2\n", "\nseed 9\n");
    std::fs::write(&rec, format!("{body}end {}\n", fnv1a(&body))).unwrap();
    merge(&["a", "b", "--out", "m"]).refused(2, &["run-0000001.rec", "seed 9", "seed 2"]);
    std::fs::write(&rec, &text).unwrap();
    // Whole again, they merge.
    let e = merge(&["a", "b", "--out", "m"]);
    assert_eq!(e.code, 0, "{e:#?}");
}
