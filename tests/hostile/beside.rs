//! Bad input in the files beside a scenario (failure traces, throughput tables, empirical
//! durations, machine lists), in sweep, plan and compare files, in the numeric columns of
//! the Helios and PAI readers, and in `--shard K/N`: each refused with exit 2 and a
//! message naming the file, the line or row, the field and the value as written.

use super::{gpufleet, inspect, put, scenario, scratch};
use std::path::Path;

/// A small valid scenario at `dir/s.toml` (10 synthetic one-GPU jobs) with `extra` tables.
fn base(dir: &Path, extra: &str) -> std::path::PathBuf {
    put(
        dir,
        "s.toml",
        &scenario(
            "",
            &format!(
                "[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 10\nsizes = [ {{ gpus = 1, weight = 1 }} ]\nduration = {{ kind = \"exponential\", mean = \"1h\" }}\n{extra}"
            ),
        ),
    )
}

#[test]
fn a_float_that_reads_as_zero_in_a_sweep_plan_or_compare_file_is_named_as_written() {
    // `values = [1.0, 1e-999]` ran point 1 as `rate_per_hour = 0` and was told "got 0";
    // `4.9e-324` was printed back in 324 digits.
    let d = scratch();
    base(d.path(), "");
    let cases = [
        (
            "sweep",
            "sw1.toml",
            "name = \"sw\"\nscenario = \"s.toml\"\nmode = \"grid\"\nseeds = 1\n\n[[param]]\npath = \"workload.rate_per_hour\"\nvalues = [1.0, 1e-999]\n",
            "line 8",
            "param[0].values[1]",
            "1e-999 is too close to zero",
        ),
        (
            "sweep",
            "sw2.toml",
            "name = \"sw\"\nscenario = \"s.toml\"\nmode = \"grid\"\nseeds = 1\n\n[[param]]\npath = \"pools[0].price_per_node_hour\"\nvalues = [\n  2.0,\n  4.9e-324,\n]\n",
            "line 10",
            "param[0].values[1]",
            "4.9e-324 is too close to zero",
        ),
        (
            "compare",
            "c.toml",
            "name = \"c\"\nscenario = \"s.toml\"\nseeds = 2\nbaseline = \"a\"\n\n[[variant]]\nname = \"a\"\nset = { \"workload.rate_per_hour\" = 1.0 }\n\n[[variant]]\nname = \"b\"\nset = { \"workload.rate_per_hour\" = 1e-400 }\n",
            "line 12",
            "variant[1].set",
            "1e-400 is too close to zero",
        ),
        (
            "plan",
            "p.toml",
            "name = \"p\"\nscenario = \"s.toml\"\n\n[[decision]]\npath = \"pools[0].nodes\"\nrange = { start = 1, end = 2 }\n\n[[target]]\nmetric = \"wait_all_s.p95\"\nmax = 1e-999\n",
            "line 10",
            "target[0].max",
            "1e-999 is too close to zero",
        ),
    ];
    for (cmd, name, text, line, field, says) in cases {
        let f = put(d.path(), name, text);
        let mut args = vec![cmd, f.to_str().unwrap()];
        args.extend(match cmd {
            "compare" => vec!["--out", "o"],
            "sweep" => vec!["--out", "o", "--check"],
            _ => vec!["--check"],
        });
        gpufleet(d.path(), &args).refused(2, &[name, line, field, says]);
    }
}

#[test]
fn a_control_character_in_a_file_beside_the_scenario_is_refused() {
    // A NUL or an escape in a failure trace's pool name or cause, a throughput table's
    // class or GPU type, went into outputs and errors as it was.
    let d = scratch();
    let cases = [
        (
            "f.csv",
            "time_s,node,cause\n10,0,disk\n20,p\x1b[2J/1,disk\n",
            "[failures]\ntrace = \"f.csv\"\n",
            ["f.csv:3:", "\"node\"", "U+001B"],
        ),
        (
            "f.csv",
            "time_s,node,cause\n10,p/0,x\0y\n",
            "[failures]\ntrace = \"f.csv\"\n",
            ["f.csv:2:", "\"cause\"", "U+0000"],
        ),
        (
            "t.csv",
            "class,H100\ndefault,1.0\ncn\0n,2.0\n",
            "[throughput]\nreference = \"H100\"\nfile = \"t.csv\"\n",
            ["t.csv:3:", "\"class\"", "U+0000"],
        ),
        (
            "t.csv",
            "class,H1\x0700\ndefault,1.0\n",
            "[throughput]\nreference = \"H100\"\nfile = \"t.csv\"\n",
            ["t.csv:1:", "header", "U+0007"],
        ),
    ];
    for (file, csv, table, says) in cases {
        put(d.path(), file, csv);
        let s = base(d.path(), table);
        let e = gpufleet(d.path(), &["validate", s.to_str().unwrap()]);
        e.refused(2, &says);
        e.refused(2, &["control character"]);
    }
    // A PAI machine list's GPU type is written into the pools' TOML.
    let f = put(d.path(), "spec.csv", "m0,V1\x0000,96,512,8\n");
    gpufleet(
        d.path(),
        &[
            "trace",
            "convert",
            "--from",
            "pai_machines",
            f.to_str().unwrap(),
            "pools.toml",
        ],
    )
    .refused(2, &["spec.csv:1:", "gpu_type", "control character"]);
    assert!(!d.path().join("pools.toml").exists());
}

#[test]
fn a_number_past_the_float_range_beside_the_scenario_is_named_as_written() {
    // `1e-999` read as 0 seconds in a failure trace and an empirical sample (accepted,
    // silently another value); a throughput of `1e999` was "not a positive number".
    let d = scratch();
    let cases = [
        (
            "f.csv",
            "time_s,node\n1e-999,0\n",
            "[failures]\ntrace = \"f.csv\"\n",
            ["f.csv:2:", "\"time_s\"", "\"1e-999\" is too close to zero"],
        ),
        (
            "f.csv",
            "time_s,node,cause,repair_s\n10,0,x,1e999\n",
            "[failures]\ntrace = \"f.csv\"\n",
            [
                "f.csv:2:",
                "\"repair_s\"",
                "\"1e999\" is too large a number",
            ],
        ),
        (
            "t.csv",
            "class,H100\ndefault,4.9e-324\n",
            "[throughput]\nreference = \"H100\"\nfile = \"t.csv\"\n",
            ["t.csv:2:", "\"H100\"", "\"4.9e-324\" is too close to zero"],
        ),
    ];
    for (file, csv, table, says) in cases {
        put(d.path(), file, csv);
        let s = base(d.path(), table);
        gpufleet(d.path(), &["validate", s.to_str().unwrap()]).refused(2, &says);
    }
    put(d.path(), "e.csv", "runtime\n60\n1e-999\n");
    let s = put(
        d.path(),
        "e.toml",
        &scenario(
            "",
            "[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 3\nsizes = [{ gpus = 1, weight = 1 }]\nduration = { kind = \"empirical\", path = \"e.csv\", column = \"runtime\" }\n",
        ),
    );
    gpufleet(d.path(), &["validate", s.to_str().unwrap()])
        .refused(2, &["e.csv", "runtime", "\"1e-999\" is too close to zero"]);
}

#[test]
fn helios_and_pai_name_the_row_column_and_value_of_a_number_out_of_range() {
    // Both said "is not a non-negative number" of `1e-999` (a number, non-negative) and
    // of `nan`, hiding which limit the value crossed.
    let d = scratch();
    let helios = |cpu: &str, dur: &str| {
        format!("job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\nh0,u,v,1,4,1,COMPLETED,2020-04-01 00:00:00,,,60,10\nh1,u,v,1,{cpu},1,COMPLETED,2020-04-01 00:00:00,,,{dur},10\n")
    };
    let pai = |cpu: &str, end: &str| {
        format!("j0,worker,1,Terminated,1000,4600,600,29.3,100,V100\nj1,worker,1,Terminated,1000,{end},{cpu},29.3,100,V100\n")
    };
    let cases = [
        (
            "helios",
            helios("4", "1e-999"),
            "duration",
            "\"1e-999\" is too close to zero",
        ),
        (
            "helios",
            helios("nan", "60"),
            "cpu_num",
            "\"nan\" is not a finite number",
        ),
        (
            "helios",
            helios("4", "1e999"),
            "duration",
            "\"1e999\" is too large a number",
        ),
        (
            "pai",
            pai("4.9e-324", "4600"),
            "plan_cpu",
            "\"4.9e-324\" is too close to zero",
        ),
        (
            "pai",
            pai("600", "inf"),
            "end_time",
            "\"inf\" is not a finite number",
        ),
    ];
    for (i, (format, text, column, says)) in cases.iter().enumerate() {
        let f = put(d.path(), &format!("t{i}.{format}"), text);
        let row = if *format == "pai" { ":2:" } else { ":3:" };
        inspect(d.path(), &f, format).refused(
            2,
            &[
                &format!("t{i}.{format}{row}"),
                &format!("\"{column}\""),
                says,
            ],
        );
    }
}

#[test]
fn a_shard_that_would_hold_no_run_is_refused_and_the_others_merge() {
    // `--shard 3/3` of a 2-run sweep wrote an empty shard folder and exited 0.
    let d = scratch();
    base(d.path(), "");
    let f = put(
        d.path(),
        "sw.toml",
        "name = \"sw\"\nscenario = \"s.toml\"\nmode = \"grid\"\nseeds = 1\n\n[[param]]\npath = \"workload.rate_per_hour\"\nvalues = [1.0, 2.0]\n",
    );
    let f = f.to_str().unwrap();
    let shard = |k: &str, out: &str| gpufleet(d.path(), &["sweep", f, "--out", out, "--shard", k]);
    for k in ["3/3", "1/3", "1/1000000"] {
        shard(k, "x").refused(2, &[k, "2 runs", "N at most 2"]);
        assert!(!d.path().join("x").exists(), "{k}: an output folder");
    }
    for k in ["0/2", "3/2", "1/0", "a/2"] {
        assert_eq!(shard(k, "x").code, 2, "{k}");
        assert!(!d.path().join("x").exists(), "{k}: an output folder");
    }
    for (k, out) in [("1/2", "s1"), ("2/2", "s2")] {
        let e = shard(k, out);
        assert_eq!(e.code, 0, "{e:#?}");
    }
    let e = gpufleet(d.path(), &["sweep", "merge", "s1", "s2", "--out", "all"]);
    assert_eq!(e.code, 0, "{e:#?}");
    let runs = std::fs::read_to_string(d.path().join("all/runs.csv")).unwrap();
    // A header and the 2 runs, one from each shard.
    assert_eq!(runs.lines().count(), 3, "{runs}");
}

#[test]
fn a_number_flag_past_the_float_range_is_refused_as_written() {
    // `--min-gpus nan` dropped every job and exited 0; `--min-gpus 1e-999` was taken as
    // 0 and `--time-compression 1e-999` told "must be positive, got 0"; `--min-gpus -1`
    // kept every job.
    let d = scratch();
    let f = put(
        d.path(),
        "g.csv",
        "job_id,submit_s,gpus,duration_s\na,0,1,60\nb,10,2,60\n",
    );
    let f = f.to_str().unwrap();
    for (flag, value, says) in [
        ("--min-gpus", "nan", "\"nan\" is not a finite number"),
        ("--min-gpus", "1e-999", "\"1e-999\" is too close to zero"),
        ("--max-gpus", "inf", "\"inf\" is not a finite number"),
        ("--min-gpus", "-1", "must be 0 or more"),
        (
            "--time-compression",
            "1e-999",
            "\"1e-999\" is too close to zero",
        ),
        ("--load-scale", "1e999", "\"1e999\" is too large a number"),
    ] {
        // `--flag=value`: clap takes a separate `-1` for another flag.
        let arg = format!("{flag}={value}");
        gpufleet(
            d.path(),
            &["trace", "inspect", f, "--format", "generic", &arg],
        )
        .refused(2, &[flag, says]);
    }
    // In range, the flag filters as before: one job of 2 GPUs.
    let e = gpufleet(
        d.path(),
        &[
            "trace",
            "inspect",
            f,
            "--format",
            "generic",
            "--min-gpus",
            "2",
        ],
    );
    assert_eq!(e.code, 0, "{e:#?}");
    assert!(e.stdout.contains("1 kept of 2"), "{}", e.stdout);
}

#[test]
fn published_fgd_curves_refuse_a_control_character_or_a_lost_number() {
    // A policy name with a NUL went into the comparison as it was; `1e-999` read as 0 %.
    let d = scratch();
    let data = format!("{}/data/openb-2023", env!("CARGO_MANIFEST_DIR"));
    let fgd = format!("name = \"f\"\n[fgd_experiment]\nnodes = \"{data}/openb_node_list_gpu_node.csv\"\npods = \"{data}/openb_pod_list_default.csv\"\npolicies = [\"fgd\"]\nseeds = [1]\nexpected = \"x.csv\"\nexpected_workload = \"w\"\n");
    let f = put(d.path(), "f.toml", &fgd);
    let f = f.to_str().unwrap();
    for (csv, says) in [
        (
            "workload,sc_policy,tune,seed,0,1\nw,fgd,1,1,0,1\nw,f\0gd,1,1,0,1\n",
            ["x.csv:3:", "sc_policy", "control character"],
        ),
        (
            "workload,sc_policy,tune,seed,0,1\nw,fgd,1,1,0,1e-999\n",
            ["x.csv:2:", "\"1\"", "\"1e-999\" is too close to zero"],
        ),
    ] {
        put(d.path(), "x.csv", csv);
        gpufleet(d.path(), &["validate", f]).refused(2, &says);
    }
}

#[test]
fn a_control_character_in_a_spot_price_zone_is_shown_escaped() {
    // "no zone ...; the file has <keys>" printed a key's NUL and escape bytes as they
    // were, clearing the terminal.
    let d = scratch();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("scenarios/spot-deadline-v100.toml"))
        .unwrap()
        .replace("../data/spot/us-east-1f_v100_prices.json", "p.json")
        .replace("../data/", &format!("{}/data/", root.display()));
    put(d.path(), "p.json", "{\"a\\u0000b\\u001b[2J\": [1.0]}");
    let s = put(d.path(), "s.toml", &text);
    let e = gpufleet(d.path(), &["validate", s.to_str().unwrap()]);
    e.refused(2, &["p.json", "no zone", "\"a\\0b\\u{1b}[2J\""]);
    assert!(
        !e.stderr.chars().any(|c| c.is_control() && c != '\n'),
        "{:?}",
        e.stderr
    );
}
