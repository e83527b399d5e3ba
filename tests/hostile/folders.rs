//! Output folders and exit codes: a target that is not a run folder is bad input (2), a
//! file system that refuses is the environment (1), and a re-run killed at any point
//! leaves the folder as the old run or the new one, never a mix.

use super::{gpufleet, put, scenario, scratch};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// A run of about a second: 20,000 one-GPU jobs of 10 minutes, 20 a minute on 16 GPUs.
fn medium(seed: u64) -> String {
    scenario(
        &format!("timeline_interval = \"1h\"\n# seed {seed}"),
        "[workload]\nkind = \"synthetic\"\njobs = 20000\nrate_per_hour = 90.0\nsizes = [{ gpus = 1, weight = 1 }]\nduration = { kind = \"exponential\", mean = \"10m\" }\n",
    )
    .replace("seed = 1\n", &format!("seed = {seed}\n"))
}

/// Every file of `dir` (no subfolders in a run folder) with its bytes.
fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut m = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        assert!(
            e.file_type().unwrap().is_file(),
            "{:?} in a run folder",
            e.path()
        );
        m.insert(
            e.file_name().to_string_lossy().into_owned(),
            std::fs::read(e.path()).unwrap(),
        );
    }
    m
}

#[test]
fn an_existing_file_as_the_output_folder_is_bad_input() {
    let d = scratch();
    let f = put(d.path(), "s.toml", &medium(1));
    put(d.path(), "taken", "not a folder");
    gpufleet(
        d.path(),
        &["run", "-q", f.to_str().unwrap(), "--out", "taken"],
    )
    .refused(2, &["taken"]);
    // A file where a folder of the path should be: the path is wrong (bad input), not
    // the file system.
    gpufleet(
        d.path(),
        &["run", "-q", f.to_str().unwrap(), "--out", "taken/run"],
    )
    .refused(2, &["taken", "is a file"]);
    // A folder holding something that is not a run's output is not replaced either.
    std::fs::create_dir(d.path().join("mine")).unwrap();
    put(&d.path().join("mine"), "thesis.tex", "precious");
    gpufleet(
        d.path(),
        &["run", "-q", f.to_str().unwrap(), "--out", "mine"],
    )
    .refused(2, &["mine"]);
    assert!(d.path().join("mine/thesis.tex").exists());
}

#[test]
fn an_unwritable_file_system_is_an_environment_failure() {
    // /proc refuses new folders even to root: not the user's input, so exit 1.
    let d = scratch();
    let f = put(d.path(), "s.toml", &medium(1));
    let e = gpufleet(
        d.path(),
        &[
            "run",
            "-q",
            f.to_str().unwrap(),
            "--out",
            "/proc/gpufleet-out",
        ],
    );
    e.refused(1, &["/proc/", "gpufleet-out"]);
    // plot of a good run whose chart cannot be written (a folder squats its name): the
    // file system refuses, so also 1, naming the file.
    assert_eq!(
        gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]).code,
        0
    );
    let chart = d.path().join("o/timeline.svg");
    assert!(chart.exists(), "a run draws timeline.svg");
    std::fs::remove_file(&chart).unwrap();
    std::fs::create_dir_all(chart.join("squatter")).unwrap();
    gpufleet(d.path(), &["plot", "o"]).refused(1, &["timeline.svg"]);
}

#[test]
fn a_sweep_whose_chart_cannot_be_written_is_an_environment_failure() {
    // A sweep resumed into its folder redraws its charts; a folder squatting a chart's
    // name makes the write fail: the file system's doing, not the input's, so exit 1.
    let d = scratch();
    put(
        d.path(),
        "s.toml",
        &medium(1).replace("jobs = 20000", "jobs = 200"),
    );
    let sweep = "name = \"w\"\nscenario = \"s.toml\"\nseeds = 1\n\n[[param]]\npath = \"workload.rate_per_hour\"\nvalues = [80.0, 90.0]\n";
    put(d.path(), "w.toml", sweep);
    let first = gpufleet(d.path(), &["sweep", "-q", "w.toml", "--out", "sw"]);
    assert_eq!(first.code, 0, "{first:#?}");
    let chart = std::fs::read_dir(d.path().join("sw"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "svg"))
        .expect("a sweep draws an SVG chart");
    let name = chart.file_name().unwrap().to_string_lossy().to_string();
    std::fs::remove_file(&chart).unwrap();
    std::fs::create_dir_all(chart.join("squatter")).unwrap();
    gpufleet(d.path(), &["sweep", "-q", "w.toml", "--out", "sw"]).refused(1, &[&name]);
    // An output folder that is a file, or under one, is the user's path at fault: exit 2.
    put(d.path(), "taken", "not a folder");
    for out in ["taken", "taken/sw"] {
        gpufleet(d.path(), &["sweep", "-q", "w.toml", "--out", out])
            .refused(2, &["taken", "not a folder"]);
    }
}

#[test]
fn a_rerun_killed_at_any_point_leaves_the_old_run_or_the_new() {
    let d = scratch();
    put(d.path(), "old.toml", &medium(1));
    put(d.path(), "new.toml", &medium(2));
    killed_reruns(d.path(), &["run", "-q"], "old.toml", "new.toml");
}

#[test]
fn a_comparison_killed_at_any_point_leaves_the_old_one_or_the_new() {
    // A comparison wrote its files one by one into the folder: killed between two, the
    // folder held some of each; and an `--out` naming a file was found after every run.
    let d = scratch();
    put(d.path(), "base.toml", &medium(1));
    let two = |seed: u64| {
        format!("scenario = \"base.toml\"\nseeds = [{seed}]\n[[variant]]\nname = \"two\"\nset = {{ \"pools[p].nodes\" = 2 }}\n[[variant]]\nname = \"three\"\nset = {{ \"pools[p].nodes\" = 3 }}\n")
    };
    put(d.path(), "old.toml", &two(1));
    put(d.path(), "new.toml", &two(2));
    put(d.path(), "taken", "not a folder");
    let e = gpufleet(d.path(), &["compare", "-q", "new.toml", "--out", "taken"]);
    e.refused(2, &["taken", "not a folder"]);
    assert!(e.secs < 0.5, "refused before running: {e:#?}");
    killed_reruns(d.path(), &["compare", "-q"], "old.toml", "new.toml");
}

/// Runs `cmd old --out o`, then `cmd new --out o` killed at 12 points over its wall time:
/// each time the folder `o` is the old output or the new one, never a mix.
fn killed_reruns(dir: &Path, cmd: &[&str], old: &str, new: &str) {
    let args = |file: &str, out: &str| {
        let mut v: Vec<String> = cmd.iter().map(|s| s.to_string()).collect();
        v.extend([file.to_string(), "--out".into(), out.into()]);
        v
    };
    let ok = |file: &str, out: &str| {
        let a = args(file, out);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let e = gpufleet(dir, &a);
        assert_eq!(e.code, 0, "{e:#?}");
    };
    // The two complete folders, for reference.
    let clock = Instant::now();
    ok(new, "ref");
    let wall = clock.elapsed();
    let want_new = contents(&dir.join("ref"));
    ok(old, "o");
    let want_old = contents(&dir.join("o"));
    assert_ne!(want_old, want_new);
    let (mut saw_old, mut saw_new) = (0, 0);
    // Kill points spread over 0 .. 1.3x a run's wall time (a fixed LCG: reproducible).
    let mut x: u64 = 12345;
    for _ in 0..12 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let at = wall.mul_f64((x >> 11) as f64 / (1u64 << 53) as f64 * 1.3);
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gpufleet"))
            .args(args(new, "o"))
            .current_dir(dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(at);
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let now = contents(&dir.join("o"));
        if now == want_old {
            saw_old += 1;
        } else if now == want_new {
            saw_new += 1;
            // Back to the old output for the next try (complete, not killed).
            ok(old, "o");
        } else {
            panic!(
                "killed after {at:?}: the folder is neither output: {:?}",
                now.keys().collect::<Vec<_>>()
            );
        }
        // Nothing of a killed run but its hidden temporary folder, removed by the next.
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(saw_old + saw_new == 12);
    // A final complete run leaves no temporary folders or *.tmp files behind.
    ok(new, "o");
    for e in std::fs::read_dir(dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            !name.starts_with(".o") && !name.ends_with(".tmp"),
            "left: {name}"
        );
    }
    assert_eq!(contents(&dir.join("o")), want_new);
}

#[test]
fn an_output_path_in_the_way_of_a_file_is_bad_input_as_for_run() {
    // `run --out notes.txt/run` is bad input (2); trace convert, trace fit, tco and man
    // said 1 (a file system failure) for the same wrong paths, and convert left its
    // temporary file beside a folder it could not replace.
    let d = scratch();
    put(
        d.path(),
        "t.csv",
        "job_id,submit_s,gpus,duration_s\na,0,1,60\nb,10,1,60\n",
    );
    put(d.path(), "taken", "not a folder");
    std::fs::create_dir(d.path().join("folder")).unwrap();
    let convert = |out: &str| {
        gpufleet(
            d.path(),
            &["trace", "convert", "--from", "generic", "t.csv", out],
        )
    };
    convert("folder").refused(2, &["folder"]);
    assert!(
        !d.path().join("folder.tmp-gpufleet").exists(),
        "a temporary file left behind"
    );
    convert("taken/t.csv").refused(2, &["taken/t.csv"]);
    let fit = |out: &str| {
        gpufleet(
            d.path(),
            &["trace", "fit", "t.csv", "--format", "generic", "--out", out],
        )
    };
    fit("folder").refused(2, &["folder"]);
    fit("taken/w.toml").refused(2, &["taken/w.toml"]);
    gpufleet(d.path(), &["man", "--out", "taken"]).refused(2, &["taken"]);
    gpufleet(d.path(), &["man", "--out", "taken/man"]).refused(2, &["taken/man"]);
    let tco = format!(
        "{}/scenarios/buy-vs-rent-h100.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    gpufleet(d.path(), &["tco", &tco, "--out", "taken"]).refused(2, &["taken"]);
    // The file system refusing is still the environment's failure.
    convert("/proc/gpufleet-t.csv").refused(1, &["/proc/gpufleet-t.csv"]);
}

#[test]
fn an_experiment_into_a_file_is_refused_before_it_runs() {
    // An FGD experiment, a placement comparison or `tco --simulate` with `--out` naming a file ran every
    // policy first, then failed to write with exit 1 (the environment).
    let d = scratch();
    put(d.path(), "taken", "not a folder");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    for s in ["fgd-openb-default.toml", "compare-schedulers-openb.toml"] {
        let f = root.join(s);
        let e = gpufleet(
            d.path(),
            &["run", "-q", f.to_str().unwrap(), "--out", "taken"],
        );
        e.refused(2, &["taken", "not a folder"]);
        assert!(e.secs < 0.5, "{s}: refused before running: {e:#?}");
    }
    // `tco --simulate` likewise (it replays the demand on every candidate first).
    let f = root.join("buy-vs-rent-h100.toml");
    let tco = |out: &str| {
        gpufleet(
            d.path(),
            &["tco", f.to_str().unwrap(), "--simulate", "--out", out],
        )
    };
    let e = tco("taken");
    e.refused(2, &["taken", "not a folder"]);
    assert!(e.secs < 0.5, "tco: refused before running: {e:#?}");
    // Into a folder of its own, twice: the second replaces the first.
    for _ in 0..2 {
        let e = tco("t");
        assert_eq!(e.code, 0, "{e:#?}");
    }
    assert!(d.path().join("t/tco.csv").is_file());
}

#[test]
fn a_device_as_the_output_file_is_written_not_replaced() {
    // `trace convert IN /dev/full` renamed its temporary file over the device: as root
    // /dev/full (or /dev/null) became a regular file, and the command said it had written
    // the jobs there, exit 0. A link to the device shows it without touching /dev: the
    // link was replaced by a file. Written into the device, a full disk is the
    // environment's failure (1), and the link is still a link.
    let d = scratch();
    if !Path::new("/dev/full").exists() {
        return;
    }
    put(
        d.path(),
        "t.csv",
        "job_id,submit_s,gpus,duration_s\na,0,1,60\nb,10,1,60\n",
    );
    let link = d.path().join("full.csv");
    std::os::unix::fs::symlink("/dev/full", &link).unwrap();
    let e = gpufleet(
        d.path(),
        &["trace", "convert", "--from", "generic", "t.csv", "full.csv"],
    );
    e.refused(1, &["full.csv"]);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link was replaced"
    );
    let e = gpufleet(
        d.path(),
        &[
            "trace", "fit", "t.csv", "--format", "generic", "--out", "full.csv",
        ],
    );
    e.refused(1, &["full.csv"]);
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    // /dev/null through a link takes the output and says so.
    let null = d.path().join("null.csv");
    std::os::unix::fs::symlink("/dev/null", &null).unwrap();
    let e = gpufleet(
        d.path(),
        &["trace", "convert", "--from", "generic", "t.csv", "null.csv"],
    );
    assert_eq!(e.code, 0, "{e:#?}");
    assert!(std::fs::symlink_metadata(&null)
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn sweep_and_plan_refuse_a_folder_of_other_files() {
    // `sweep --out` and `plan --out` write in place (their runs resume there): into a
    // folder of the user's own files they overwrote a same-named `points.csv` or
    // `plan.md` (and a plan removed `runs/`) with exit 0.
    let d = scratch();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases = [
        (
            "sweep",
            "scenarios/sweeps/topology.toml",
            "points.csv",
            "sweep.json",
        ),
        (
            "plan",
            "scenarios/plan-h100-team.toml",
            "plan.md",
            "plan.json",
        ),
    ];
    for (cmd, file, name, manifest) in cases {
        let out = d.path().join(format!("mine-{cmd}"));
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join(name), "my notes\n").unwrap();
        let f = root.join(file);
        let e = gpufleet(
            d.path(),
            &[
                cmd,
                f.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "-q",
            ],
        );
        e.refused(2, &[name, manifest, "new or empty folder"]);
        assert_eq!(
            std::fs::read_to_string(out.join(name)).unwrap(),
            "my notes\n"
        );
    }
    // `sweep merge --out` likewise.
    let out = d.path().join("mine-merge");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine\n").unwrap();
    let shard = d.path().join("shard");
    let e = gpufleet(
        d.path(),
        &[
            "sweep",
            "merge",
            shard.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    e.refused(2, &["notes.txt", "sweep.json"]);
}

#[test]
fn every_command_refuses_an_output_folder_that_is_a_file_or_a_device() {
    // `plan --out notes.txt` (or under it) was "notes.txt/runs: Not a directory", exit 1;
    // `sweep --out /dev/null` likewise (only a regular file was told apart), and
    // `/dev/null/x` as a folder was the environment's failure for every command.
    let d = scratch();
    let body = "[workload]\nkind = \"synthetic\"\nrate_per_hour = 20.0\njobs = 30\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n";
    put(d.path(), "s.toml", &scenario("", body));
    put(
        d.path(),
        "w.toml",
        "name = \"w\"\nscenario = \"s.toml\"\nseeds = 1\n[[param]]\npath = \"workload.rate_per_hour\"\nvalues = [10.0, 20.0]\n",
    );
    put(d.path(), "taken", "not a folder");
    let plan = format!(
        "{}/scenarios/plan-h100-team.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    for out in ["taken", "taken/x", "/dev/null", "/dev/null/x"] {
        for cmd in [
            vec!["plan", plan.as_str(), "-q"],
            vec!["sweep", "-q", "w.toml"],
            vec!["run", "-q", "s.toml"],
        ] {
            let mut args = cmd.clone();
            args.extend(["--out", out]);
            let e = gpufleet(d.path(), &args);
            let at = if out == "taken/x" {
                "taken"
            } else {
                out.trim_end_matches("/x")
            };
            e.refused(2, &[at, "not a folder"]);
            assert!(e.secs < 5.0, "{args:?}: refused before running: {e:#?}");
        }
    }
    assert_eq!(
        std::fs::read_to_string(d.path().join("taken")).unwrap(),
        "not a folder"
    );
}

#[test]
fn a_tco_killed_at_any_point_leaves_the_old_one_or_the_new() {
    let d = scratch();
    let src = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/buy-vs-rent-h100.toml"),
    )
    .unwrap();
    assert!(src.contains("horizon_years = 5"));
    put(d.path(), "old.toml", &src);
    put(
        d.path(),
        "new.toml",
        &src.replace("horizon_years = 5", "horizon_years = 4"),
    );
    killed_reruns(d.path(), &["tco", "--simulate"], "old.toml", "new.toml");
}

/// The data files of `dir` (tables, JSON, Markdown; not charts, temporaries, subfolders
/// or `complete.json`) with their bytes, from its listing.
fn data(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut m = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let keep = [".csv", ".json", ".md", ".parquet"]
            .iter()
            .any(|x| name.ends_with(x));
        if e.file_type().unwrap().is_file() && keep && name != "complete.json" {
            m.insert(name, std::fs::read(e.path()).unwrap());
        }
    }
    m
}

/// For a command that writes its folder in place (sweep, plan): `cmd old --out o`, then
/// `cmd new --out o` killed at `kills` points over its wall time. Each time, the folder
/// holding `complete.json` has exactly the old data files or the new ones; one without it
/// is refused by `plot` (exit 2) and finished by `--resume`.
fn killed_in_place(dir: &Path, cmd: &[&str], old: &str, new: &str, kills: usize) {
    let run = |file: &str, out: &str, extra: &[&str]| {
        let mut v: Vec<&str> = cmd.to_vec();
        v.extend([file, "--out", out]);
        v.extend_from_slice(extra);
        let e = gpufleet(dir, &v);
        assert_eq!(e.code, 0, "{v:?}: {e:#?}");
    };
    let clock = Instant::now();
    run(new, "ref", &[]);
    let wall = clock.elapsed();
    let want_new = data(&dir.join("ref"));
    run(old, "o", &[]);
    let want_old = data(&dir.join("o"));
    assert_ne!(want_old, want_new);
    let (mut saw_old, mut saw_new, mut saw_marked) = (0, 0, 0);
    let mut x: u64 = 777;
    for _ in 0..kills {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let at = wall.mul_f64((x >> 11) as f64 / (1u64 << 53) as f64 * 1.2);
        let mut args: Vec<&str> = cmd.to_vec();
        args.extend([new, "--out", "o"]);
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gpufleet"))
            .args(&args)
            .current_dir(dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(at);
        let _ = child.kill();
        let _ = child.wait();
        let o = dir.join("o");
        if o.join("complete.json").is_file() {
            let now = data(&o);
            if now == want_old {
                saw_old += 1;
            } else if now == want_new {
                saw_new += 1;
            } else {
                panic!(
                    "killed after {at:?}: complete.json beside data of neither output: {:?}",
                    now.keys().collect::<Vec<_>>()
                );
            }
        } else {
            saw_marked += 1;
            if cmd[0] == "sweep" {
                // Killed just after complete.json went (the old tables whole) or just
                // before it came (the new ones whole), plot may draw them; otherwise it
                // refuses the folder.
                let e = gpufleet(dir, &["plot", "o"]);
                if e.code == 0 {
                    let now = data(&o);
                    assert!(
                        now == want_old || now == want_new,
                        "plotted a mix after {at:?}"
                    );
                } else {
                    e.refused(2, &["o"]);
                }
            }
            run(new, "o", &["--resume"]);
            assert_eq!(data(&o), want_new, "resumed after {at:?}");
        }
        run(old, "o", &[]);
    }
    assert_eq!(saw_old + saw_new + saw_marked, kills);
    run(new, "o", &[]);
    assert_eq!(data(&dir.join("o")), want_new);
}

#[test]
fn a_sweep_rerun_killed_at_any_point_is_the_old_the_new_or_told_incomplete() {
    // A sweep rewrites its folder in place. Killed while rerun with other values, it left
    // the old sweep's runs.csv and points.csv beside the new sweep.json, and `plot` drew
    // the old figures under the new sweep's name, exit 0.
    let d = scratch();
    put(
        d.path(),
        "s.toml",
        &medium(1).replace("jobs = 20000", "jobs = 6000"),
    );
    let sweep = |v: &str| {
        format!("name = \"w\"\nscenario = \"s.toml\"\nseeds = 1\n\n[[param]]\npath = \"workload.rate_per_hour\"\nvalues = [{v}]\n")
    };
    put(d.path(), "old.toml", &sweep("80.0, 90.0"));
    put(d.path(), "new.toml", &sweep("70.0, 95.0"));
    killed_in_place(d.path(), &["sweep", "-q"], "old.toml", "new.toml", 8);
}

#[test]
fn a_plan_rerun_killed_at_any_point_is_the_old_the_new_or_told_incomplete() {
    let d = scratch();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    std::fs::copy(
        root.join("sweep-base.toml"),
        d.path().join("sweep-base.toml"),
    )
    .unwrap();
    let plan = std::fs::read_to_string(root.join("slurm-plan.toml")).unwrap();
    assert!(plan.contains("max = \"2h\""));
    put(d.path(), "old.toml", &plan);
    put(
        d.path(),
        "new.toml",
        &plan.replace("max = \"2h\"", "max = \"1h\""),
    );
    killed_in_place(d.path(), &["plan", "-q"], "old.toml", "new.toml", 6);
}

#[test]
fn an_input_inside_the_output_is_not_replaced_by_the_output() {
    // `run --out traces` with the scenario's trace in `traces/` replaced the folder and
    // deleted the trace, exit 0; `trace convert t.csv t.csv` and `trace fit t.csv --out
    // t.csv` replaced the trace with their output, exit 0.
    let d = scratch();
    let trace = "job_id,submit_s,gpus,duration_s\na,0,1,60\nb,10,1,60\n";
    std::fs::create_dir(d.path().join("traces")).unwrap();
    put(&d.path().join("traces"), "t.csv", trace);
    put(
        d.path(),
        "s.toml",
        &scenario(
            "",
            "[workload]\nkind = \"trace\"\nformat = \"generic\"\npath = \"traces/t.csv\"\n",
        ),
    );
    gpufleet(d.path(), &["run", "-q", "s.toml", "--out", "traces"])
        .refused(2, &["traces", "t.csv"]);
    assert_eq!(
        std::fs::read_to_string(d.path().join("traces/t.csv")).unwrap(),
        trace
    );
    // A run's own folder is replaced as before; a file added to it by hand is not.
    assert_eq!(
        gpufleet(d.path(), &["run", "-q", "s.toml", "--out", "o"]).code,
        0
    );
    assert_eq!(
        gpufleet(d.path(), &["run", "-q", "s.toml", "--out", "o"]).code,
        0
    );
    put(&d.path().join("o"), "notes.csv", "mine\n");
    gpufleet(d.path(), &["run", "-q", "s.toml", "--out", "o"]).refused(2, &["o", "notes.csv"]);
    assert!(d.path().join("o/notes.csv").is_file());
    put(d.path(), "t.csv", trace);
    for args in [
        vec!["trace", "convert", "--from", "generic", "t.csv", "t.csv"],
        vec!["trace", "convert", "--from", "generic", "t.csv", "./t.csv"],
        vec![
            "trace", "fit", "t.csv", "--format", "generic", "--out", "t.csv",
        ],
    ] {
        gpufleet(d.path(), &args).refused(2, &["t.csv", "input file"]);
        assert_eq!(
            std::fs::read_to_string(d.path().join("t.csv")).unwrap(),
            trace
        );
    }
}

#[test]
fn an_older_folder_without_a_manifest_keeps_a_file_the_rerun_does_not_write() {
    // A folder of an older gpufleet (no `complete.json`, but a `summary.json`) with the
    // user's `notes.csv` beside it was replaced, the notes deleted, exit 0.
    let d = scratch();
    put(
        d.path(),
        "s.toml",
        &scenario(
            "",
            "[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 5\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n",
        ),
    );
    let run = || gpufleet(d.path(), &["run", "-q", "s.toml", "--out", "o"]);
    assert_eq!(run().code, 0);
    let o = d.path().join("o");
    std::fs::remove_file(o.join("complete.json")).unwrap();
    // Only files a run writes: replaced as before, now with a manifest.
    assert_eq!(run().code, 0);
    assert!(o.join("complete.json").is_file());
    std::fs::remove_file(o.join("complete.json")).unwrap();
    put(&o, "notes.csv", "mine\n");
    let before = contents(&o);
    run().refused(2, &["o", "notes.csv", "complete.json"]);
    assert_eq!(contents(&o), before, "the old folder is left as it was");
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary folders left: {left:?}");
}

/// A small tmpfs mounted at a fresh folder, unmounted when dropped.
struct SmallDisk(std::path::PathBuf);

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_fails_every_command_with_1_leaving_no_temporary_and_no_complete_lie() {
    // On a full disk a sweep's chart left `.NAME.tmp.png`, a plan's records `*.rec.tmp`,
    // and `man --out` a page of 0 bytes under its final name.
    let d = scratch();
    let disk = d.path().join("disk");
    std::fs::create_dir(&disk).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=200k", "tmpfs"])
        .arg(&disk)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: cannot mount a tmpfs here (not root?)");
        return;
    }
    let _guard = SmallDisk(disk.clone());
    put(
        d.path(),
        "s.toml",
        &medium(1).replace("jobs = 20000", "jobs = 3000"),
    );
    put(
        d.path(),
        "w.toml",
        "name = \"w\"\nscenario = \"s.toml\"\nseeds = 1\n[[param]]\npath = \"workload.rate_per_hour\"\nvalues = [80.0, 90.0]\n",
    );
    put(
        d.path(),
        "c.toml",
        "scenario = \"s.toml\"\nseeds = [1]\n[[variant]]\nname = \"a\"\nset = { \"pools[p].nodes\" = 2 }\n[[variant]]\nname = \"b\"\nset = { \"pools[p].nodes\" = 3 }\n",
    );
    put(
        d.path(),
        "t.csv",
        &(0..20000).fold(String::from("job_id,submit_s,gpus,duration_s\n"), |s, i| {
            s + &format!("j{i},{i},1,60\n")
        }),
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tco = root.join("scenarios/buy-vs-rent-h100.toml");
    let plan = root.join("tests/data/slurm-plan.toml");
    std::fs::copy(
        root.join("tests/data/sweep-base.toml"),
        d.path().join("sweep-base.toml"),
    )
    .unwrap();
    let o = |name: &str| disk.join(name).to_string_lossy().into_owned();
    let cases: Vec<(Vec<String>, bool)> = vec![
        (
            vec![
                "run".into(),
                "-q".into(),
                "s.toml".into(),
                "--out".into(),
                o("run"),
            ],
            true,
        ),
        (
            vec![
                "compare".into(),
                "-q".into(),
                "c.toml".into(),
                "--out".into(),
                o("cmp"),
            ],
            true,
        ),
        (
            vec![
                "tco".into(),
                tco.to_string_lossy().into(),
                "--out".into(),
                o("tco"),
            ],
            true,
        ),
        (
            vec![
                "sweep".into(),
                "-q".into(),
                "w.toml".into(),
                "--out".into(),
                o("sweep"),
            ],
            false,
        ),
        (
            vec![
                "plan".into(),
                "-q".into(),
                plan.to_string_lossy().into(),
                "--out".into(),
                o("plan"),
            ],
            false,
        ),
        (
            vec![
                "trace".into(),
                "convert".into(),
                "--from".into(),
                "generic".into(),
                "t.csv".into(),
                o("t.csv"),
            ],
            true,
        ),
        (vec!["man".into(), "--out".into(), o("man")], false),
    ];
    // Most of the disk taken, so every command runs out of room.
    std::fs::write(disk.join("filler"), vec![b'x'; 192 << 10]).unwrap();
    for (args, atomic) in cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let e = gpufleet(d.path(), &a);
        e.refused(1, &["No space left"]);
        let target = Path::new(args.last().unwrap());
        if atomic {
            assert!(!target.exists(), "{args:?}: left {target:?}");
        }
        // No temporary file anywhere on the disk, and no complete.json beside files that
        // are not those it lists.
        let mut stack = vec![disk.clone()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                assert!(!name.contains(".tmp"), "{args:?}: left {:?}", e.path());
                if e.file_type().unwrap().is_dir() {
                    stack.push(e.path());
                } else {
                    assert!(
                        e.metadata().unwrap().len() > 0 || name == "filler",
                        "{args:?}: an empty {:?}",
                        e.path()
                    );
                }
            }
            if dir.join("complete.json").is_file() {
                let doc: serde_json::Value = serde_json::from_str(
                    &std::fs::read_to_string(dir.join("complete.json")).unwrap(),
                )
                .unwrap();
                for f in doc["files"].as_array().unwrap() {
                    let n = f["name"].as_str().unwrap();
                    assert_eq!(
                        std::fs::metadata(dir.join(n)).map(|m| m.len()).ok(),
                        f["bytes"].as_u64(),
                        "{args:?}: {n}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_full_stdout_is_an_environment_failure_not_a_panic_or_lost_output() {
    // With stdout on a full disk (`> /dev/full`), `println!` panicked (exit 101) in
    // validate, compare, tco, plan --check, sweep merge and `run -q`; `completions`
    // panicked inside clap_complete; `run --json` lost summary.json with exit 0.
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return;
    };
    let d = scratch();
    let body = "[workload]\nkind = \"synthetic\"\nrate_per_hour = 20.0\njobs = 30\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n";
    put(d.path(), "s.toml", &scenario("", body));
    put(
        d.path(),
        "c.toml",
        "scenario = \"s.toml\"\nseeds = [1]\n[[variant]]\nname = \"a\"\nset = { \"pools[p].nodes\" = 2 }\n[[variant]]\nname = \"b\"\nset = { \"pools[p].nodes\" = 3 }\n",
    );
    let tco = format!(
        "{}/scenarios/buy-vs-rent-h100.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let plan = format!("{}/tests/data/slurm-plan.toml", env!("CARGO_MANIFEST_DIR"));
    let cases: Vec<Vec<&str>> = vec![
        vec!["run", "-q", "s.toml", "--out", "r1"],
        vec!["run", "s.toml", "--json", "--out", "r2"],
        vec!["validate", "s.toml"],
        vec!["validate", "s.toml", "--json"],
        vec!["compare", "-q", "c.toml", "--out", "c"],
        vec!["tco", &tco, "--out", "t"],
        vec!["plan", &plan, "--check"],
        vec!["completions", "bash"],
        vec!["man"],
    ];
    for args in cases {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpufleet"))
            .args(&args)
            .current_dir(d.path())
            .stdin(std::process::Stdio::null())
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("No space left") && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
}

/// CRC-32 as zlib's `crc32` (reflected polynomial 0xEDB88320), one bit at a time: slow and
/// plain, independent of the table-driven and vector code gpufleet uses.
fn crc32_bitwise(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 == 1 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

#[test]
fn a_large_runs_manifest_holds_the_checksums_of_the_files_on_disk() {
    // A run of 120,000 jobs writes `jobs.csv` around the page cache (from 100,000 rows)
    // and its manifest takes that file's size and checksum as they were written instead
    // of reading it back: they must be those of the bytes on disk.
    let d = scratch();
    let body = "[workload]\nkind = \"synthetic\"\njobs = 120000\nrate_per_hour = 600.0\nsizes = [{ gpus = 1, weight = 3 }, { gpus = 8, weight = 1 }]\nduration = { kind = \"exponential\", mean = \"2m\" }\n";
    put(d.path(), "s.toml", &scenario("", body));
    let e = gpufleet(d.path(), &["run", "-q", "s.toml", "--out", "out"]);
    assert_eq!(e.code, 0, "{e:#?}");
    let out = d.path().join("out");
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("complete.json")).unwrap()).unwrap();
    let files = m["files"].as_array().unwrap();
    let mut listed: Vec<&str> = files.iter().map(|f| f["name"].as_str().unwrap()).collect();
    listed.sort();
    assert_eq!(
        listed,
        ["jobs.csv", "pools.csv", "summary.json", "timeline.csv"]
    );
    for f in files {
        let name = f["name"].as_str().unwrap();
        let bytes = std::fs::read(out.join(name)).unwrap();
        if name == "jobs.csv" {
            // 120,001 lines: the header and a row a job.
            assert_eq!(bytes.iter().filter(|&&b| b == b'\n').count(), 120_001);
        }
        assert_eq!(f["bytes"].as_u64(), Some(bytes.len() as u64), "{name}");
        assert_eq!(
            f["crc32"].as_str().unwrap(),
            format!("{:08x}", crc32_bitwise(&bytes)),
            "{name}"
        );
    }
    assert_eq!(gpufleet(d.path(), &["plot", "out"]).code, 0);
    // One byte of `jobs.csv` changed, its size kept: `plot` names the file.
    let p = out.join("jobs.csv");
    let mut bytes = std::fs::read(&p).unwrap();
    let at = bytes.len() / 2;
    bytes[at] = if bytes[at] == b'7' { b'8' } else { b'7' };
    std::fs::write(&p, &bytes).unwrap();
    gpufleet(d.path(), &["plot", "out"]).refused(2, &["jobs.csv", "CRC-32"]);
}
