//! Hostile traces for every reader: a 3 GB file of zero bytes (one endless "line"), a line
//! longer than the limit, a bad field, a job no pool can hold. Each ends in seconds,
//! under the memory cap, with exit 2 and the file, the line or row and the field named.

use super::{gpufleet, inspect, put, scenario, scratch, zeros};

/// Every trace format `--format` takes.
const FORMATS: &[&str] = &[
    "generic", "swf", "helios", "pai", "philly", "tiresias", "openb",
];

#[test]
fn a_file_of_zero_bytes_is_refused_by_every_reader() {
    // 3 GiB of zeros: above the 2 GiB memory cap, so a reader that holds the "line" whole
    // (or the file) dies on allocation instead of answering.
    let d = scratch();
    let f = zeros(d.path(), "zeros.trace", 3 << 30);
    for format in FORMATS {
        let e = inspect(d.path(), &f, format);
        e.refused(2, &["zeros.trace"]);
        assert!(e.secs < 30.0, "{format}: {e:#?}");
        // The message says which line, or that the file is not text of this format.
        let msg = e.stderr.to_lowercase();
        assert!(
            msg.contains("line") || msg.contains("row") || msg.contains("byte"),
            "{format}: no position in {msg}"
        );
    }
}

#[test]
fn a_zero_byte_trace_in_a_scenario_is_refused() {
    let d = scratch();
    zeros(d.path(), "t.csv", 3 << 30);
    let body = "[workload]\nkind = \"csv\"\npath = \"t.csv\"\n";
    let f = put(d.path(), "s.toml", &scenario("", body));
    for cmd in ["validate", "run"] {
        gpufleet(d.path(), &[cmd, f.to_str().unwrap()]).refused(2, &["t.csv", "line 1"]);
    }
}

#[test]
fn a_bad_field_names_file_line_and_field() {
    let d = scratch();
    put(
        d.path(),
        "t.csv",
        "job_id,submit_s,gpus,duration_s\na,0,1,60\nb,10,one,60\nc,20,1,60\n",
    );
    let e = gpufleet(
        d.path(),
        &["trace", "inspect", "t.csv", "--format", "generic"],
    );
    e.refused(2, &["t.csv", "3", "gpus"]);
}

#[test]
fn a_bad_swf_field_names_file_line_and_field() {
    // SWF: 18 whitespace-separated fields; field 5 (allocated processors) is not a number.
    let d = scratch();
    put(
        d.path(),
        "t.swf",
        "; comment\n1 0 5 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n2 10 5 100 four -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n",
    );
    let e = gpufleet(d.path(), &["trace", "inspect", "t.swf", "--format", "swf"]);
    e.refused(2, &["t.swf", "3"]);
}

#[test]
fn a_job_no_pool_can_hold_is_an_error_unless_rejected() {
    // 64 GPUs on two 8-GPU nodes: no pool can ever hold rows 3 and 4.
    let d = scratch();
    put(
        d.path(),
        "t.csv",
        "job_id,submit_s,gpus,duration_s\na,0,1,60\nhuge,10,64,60\nhuger,20,128,60\nd,30,2,60\n",
    );
    let body = "[workload]\nkind = \"csv\"\npath = \"t.csv\"\n";
    let f = put(d.path(), "s.toml", &scenario("", body));
    for cmd in ["validate", "run"] {
        let e = gpufleet(d.path(), &[cmd, f.to_str().unwrap()]);
        e.refused(2, &["t.csv", "huge", "huger", "2 jobs", "oversized"]);
    }
    // With oversized = "reject": the run succeeds, says how many and why, and jobs.csv
    // gives each rejected job its reason.
    let f = put(
        d.path(),
        "r.toml",
        &scenario("oversized = \"reject\"", body),
    );
    let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]);
    assert_eq!(e.code, 0, "{e:#?}");
    assert!(e.stderr.contains("rejected 2 jobs"), "{}", e.stderr);
    let jobs = std::fs::read_to_string(d.path().join("o/jobs.csv")).unwrap();
    let mut rows = csv::Reader::from_reader(jobs.as_bytes());
    let head = rows.headers().unwrap().clone();
    let col = |n: &str| head.iter().position(|h| h == n).unwrap();
    let (name, outcome, why) = (col("name"), col("outcome"), col("reject_reason"));
    let mut rejected = Vec::new();
    for r in rows.records() {
        let r = r.unwrap();
        if &r[outcome] == "rejected" {
            assert!(!r[why].is_empty(), "a rejected job without a reason: {r:?}");
            rejected.push(r[name].to_string());
        } else {
            assert!(r[why].is_empty(), "a reason on a job that ran: {r:?}");
        }
    }
    assert_eq!(rejected, ["huge", "huger"]);
}

#[test]
fn an_error_quoting_a_huge_cell_stays_short() {
    // A header (or first line) of 900 KB, under the line limit: every reader's message
    // names the file and stays a few lines long instead of echoing the cell.
    let d = scratch();
    let f = put(
        d.path(),
        "wide.trace",
        &format!("{}\n1,2,3\n", "[".repeat(900_000)),
    );
    for format in FORMATS {
        let e = inspect(d.path(), &f, format);
        e.refused(2, &["wide.trace"]);
        assert!(e.stderr.len() < 4_000, "{format}: {} bytes", e.stderr.len());
    }
    // A scenario whose bad line is 2 MB long.
    let s = put(
        d.path(),
        "s.toml",
        &format!("name = \"x\"\nseed = {}\n", "9".repeat(2_000_000)),
    );
    let e = gpufleet(d.path(), &["validate", s.to_str().unwrap()]);
    e.refused(2, &["s.toml", "line 2"]);
    assert!(e.stderr.len() < 4_000, "{} bytes", e.stderr.len());
}

/// The committed fuzz corpus file of `format` (a small valid trace).
pub(super) fn corpus(format: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz/corpus")
        .join(format);
    // The first by name (a format's corpus holds more than one file; the listing's order
    // is the file system's).
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .min()
        .unwrap();
    std::fs::read_to_string(file).unwrap()
}

#[test]
fn an_overlong_line_is_not_a_skipped_row_that_takes_the_rest_along() {
    // A 2 MB line 3 under --skip-bad-rows: counted as one bad row, it silently dropped
    // every row after it (tiresias and openb kept 1 of 11 jobs, "1 bad rows skipped").
    let d = scratch();
    for format in ["generic", "swf", "helios", "pai", "tiresias", "openb"] {
        let text = corpus(format);
        let mut lines: Vec<&str> = text.lines().collect();
        let long = "9".repeat(2_000_000);
        lines.insert(2, &long);
        let f = put(d.path(), &format!("long.{format}"), &lines.join("\n"));
        let e = gpufleet(
            d.path(),
            &[
                "trace",
                "inspect",
                f.to_str().unwrap(),
                "--format",
                format,
                "--skip-bad-rows",
            ],
        );
        e.refused(2, &[&format!("long.{format}"), "line 3", "longer than"]);
    }
}

#[test]
fn a_column_given_twice_is_refused() {
    // Which of the two holds the value? The last one was taken silently.
    let d = scratch();
    let cases = [
        ("generic", "job_id,submit_s,gpus,duration_s,gpus\na,0,1,60,2\n", "gpus"),
        (
            "tiresias",
            "job_id,num_gpu,submit_time,iterations,model_name,duration,interval,duration\n0,1,0,6,v,16,3,17\n",
            "duration",
        ),
        (
            "openb",
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time,num_gpu\np,1000,1000,1,1000,,LS,Running,0,50,0,2\n",
            "num_gpu",
        ),
        (
            "helios",
            "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue,user\nh1,u1,vcA,1,4,1,COMPLETED,2020-04-01 00:00:00,,,3600,10,u2\n",
            "user",
        ),
    ];
    for (format, text, column) in cases {
        let f = put(d.path(), &format!("twice.{format}"), text);
        let e = inspect(d.path(), &f, format);
        e.refused(2, &[&format!("twice.{format}"), column, "twice"]);
    }
}

#[test]
fn times_past_millions_of_years_are_refused_not_clamped() {
    // 1e308 s and 2^63 s became the largest time the simulator holds (292,000 years), and
    // the run went on with it (a 60 s job's owned node billed for millennia).
    let d = scratch();
    let l = "-1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1";
    let cases = [
        ("generic", "job_id,submit_s,gpus,duration_s\na,0,1,1e308\n".to_string(), "duration_s"),
        (
            "generic",
            "job_id,submit_s,gpus,duration_s\na,18446744073709551615,1,60\n".to_string(),
            "submit_s",
        ),
        ("swf", format!("1 0 5 9223372036854775807 4 {l}\n"), "run_time"),
        ("swf", format!("1 9223372036854775807 5 100 4 {l}\n"), "submit"),
        (
            "openb",
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\np,1000,1000,1,1000,,LS,Running,0,18446744073709551615,0\n".to_string(),
            "deletion_time",
        ),
    ];
    for (i, (format, text, column)) in cases.iter().enumerate() {
        let name = format!("far{i}.{format}");
        let f = put(d.path(), &name, text);
        let e = inspect(d.path(), &f, format);
        e.refused(2, &[&name, column, "too large"]);
    }
}

#[test]
fn a_whole_gpu_count_past_the_limit_is_named_as_such() {
    // 4294967296 GPUs was "a fractional GPU request must be between 0 and 1".
    let d = scratch();
    put(
        d.path(),
        "t.csv",
        "job_id,submit_s,gpus,duration_s\na,0,4294967296,60\n",
    );
    let e = gpufleet(
        d.path(),
        &["trace", "inspect", "t.csv", "--format", "generic"],
    );
    e.refused(2, &["t.csv", "gpus", "more than 1000000"]);
    assert!(!e.stderr.contains("fractional"), "{}", e.stderr);
}

#[test]
fn a_trace_of_200000_distinct_users_reads_and_runs_in_seconds() {
    // Each new tenant name was looked up by a scan of the names so far (quadratic: 200,000
    // rows took over 20 s to read), and every scheduling pass scanned the tenants' budget
    // caps (Tiresias took 28 s) or queues (fair share 17 s).
    let d = scratch();
    let mut t = String::with_capacity(8 << 20);
    t.push_str("job_id,submit_s,gpus,duration_s,tenant\n");
    for i in 0..200_000 {
        t.push_str(&format!("j{i},{i},1,60,user{i}\n"));
    }
    put(d.path(), "t.csv", &t);
    let e = gpufleet(
        d.path(),
        &["trace", "inspect", "t.csv", "--format", "generic"],
    );
    assert_eq!(e.code, 0, "{e:#?}");
    assert!(e.stdout.contains("200000"), "{}", e.stdout);
    assert!(e.secs < 15.0, "trace inspect took {:.1} s", e.secs);
    let body = "[workload]\nkind = \"csv\"\npath = \"t.csv\"\n";
    for policy in ["tiresias", "fair_share"] {
        let s = super::scenario("", body).replace("nodes = 2\n", "nodes = 100\n");
        let f = put(
            d.path(),
            "s.toml",
            &format!("{s}\n[scheduler]\npolicy = \"{policy}\"\n"),
        );
        let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]);
        assert_eq!(e.code, 0, "{policy}: {e:#?}");
        assert!(e.secs < 15.0, "{policy}: the run took {:.1} s", e.secs);
    }
}

#[test]
fn an_swf_start_past_any_clock_is_refused_not_collapsed() {
    // UnixStartTime 9223372036854775 s: start + submit saturated the clock, so jobs 10 s
    // and 20 s apart were replayed at the same instant (i64::MAX s wrapped in release).
    let d = scratch();
    let l = "5 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1";
    for (i, head) in [
        "; UnixStartTime: 9223372036854775",
        "; UnixStartTime: 9223372036854775807",
        "; UnixStartTime: 0\n; TimeZone: -9223372036854775807",
    ]
    .iter()
    .enumerate()
    {
        let name = format!("start{i}.swf");
        let f = put(
            d.path(),
            &name,
            &format!("{head}\n1 0 {l}\n2 10 {l}\n3 20 {l}\n"),
        );
        let e = inspect(d.path(), &f, "swf");
        e.refused(2, &[&name, "header"]);
    }
    // A start time that does not read was dropped without a word (the clock went relative).
    let f = put(
        d.path(),
        "abc.swf",
        &format!("; UnixStartTime: abc\n1 0 {l}\n"),
    );
    let e = inspect(d.path(), &f, "swf");
    e.refused(2, &["abc.swf", "UnixStartTime", "not a whole number"]);
    // A byte-order mark before the header comment is read past, not a 2-field bad row.
    let f = put(
        d.path(),
        "bom.swf",
        &format!("\u{feff}; MaxProcs: 8\n1 0 {l}\n"),
    );
    let e = inspect(d.path(), &f, "swf");
    assert_eq!(e.code, 0, "{e:#?}");
}

#[test]
fn gpu_counts_past_the_limit_are_refused_not_clamped() {
    // PAI: 1,000,000 instances of two GPUs became 1,000,000 GPUs silently; openb took any
    // count up to 4294967295.
    let d = scratch();
    let cases = [
        (
            "pai",
            "j1,t1,1000000,Terminated,0,100,100,1,200,V100\n",
            "plan_gpu",
        ),
        (
            "pai",
            "j1,t1,1000000,Terminated,0,100,100,1,150,V100\n",
            "plan_gpu",
        ),
        (
            "openb",
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1000,1000,2000000,1000\n",
            "num_gpu",
        ),
    ];
    for (i, (format, text, column)) in cases.iter().enumerate() {
        let name = format!("many{i}.{format}");
        let f = put(d.path(), &name, text);
        let e = inspect(d.path(), &f, format);
        e.refused(2, &[&name, column, "more than 1000000"]);
    }
}

#[test]
fn philly_work_summed_past_the_limit_is_refused() {
    // 400 attempts of 9,999 years each summed past 1e14 s, and was kept.
    let d = scratch();
    let a = r#"{"start_time": "0001-01-01 00:00:00", "end_time": "9999-12-31 00:00:00", "detail": [{"ip": "m", "gpus": ["g0"]}]}"#;
    let attempts = vec![a; 400].join(",");
    let text = format!(
        r#"[{{"jobid": "a", "user": "u", "vc": "v", "status": "Pass", "submitted_time": "2017-01-01 00:00:00", "attempts": [{attempts}]}}]"#
    );
    let f = put(d.path(), "long.json", &text);
    let e = inspect(d.path(), &f, "philly");
    e.refused(2, &["long.json", "attempts", "too large"]);
}

#[test]
fn a_date_past_its_months_end_is_refused() {
    // 2020-02-31 was read as 2020-03-02: a typo moved the job two days, silently.
    let d = scratch();
    let f = put(
        d.path(),
        "feb.helios",
        "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\nh1,u1,vcA,1,4,1,COMPLETED,2020-02-31 00:00:00,,,3600,10\n",
    );
    let e = inspect(d.path(), &f, "helios");
    e.refused(2, &["feb.helios", "2", "submit_time"]);
}

#[test]
fn a_pai_job_listed_twice_with_different_users_is_refused() {
    // The later row's user won without a word, moving the job's work between tenants.
    let d = scratch();
    put(
        d.path(),
        "task.csv",
        "j1,t1,1,Terminated,0,100,100,1,100,\n",
    );
    put(
        d.path(),
        "jobs.csv",
        "j1,i1,alice,Terminated,0,100\nj2,i2,bob,Terminated,0,100\nj1,i3,carol,Terminated,0,100\n",
    );
    let text = |skip: bool| {
        scenario(
            "",
            &format!(
                "[workload]\nkind = \"trace\"\npath = \"task.csv\"\nformat = \"pai\"\npai_job_table = \"jobs.csv\"\nskip_bad_rows = {skip}\n"
            ),
        )
    };
    let f = put(d.path(), "s.toml", &text(false));
    let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
    e.refused(2, &["jobs.csv:3", "user", "\"carol\"", "\"alice\""]);
    // The same job twice with the same user is no contradiction.
    put(
        d.path(),
        "jobs.csv",
        "j1,i1,alice,Terminated,0,100\nj1,i3,alice,Terminated,0,100\n",
    );
    let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
    assert_eq!(e.code, 0, "{e:#?}");
}

#[test]
fn a_fraction_below_a_milli_gpu_is_refused_not_inflated() {
    // 0.0001 of a GPU was taken as 0.001 (ten times more) without a word; a PAI task of
    // 0.3 % of a GPU became 0.1 %.
    let d = scratch();
    let f = put(
        d.path(),
        "tiny.csv",
        "job_id,submit_s,duration_s,gpus\na,0,60,0.0001\n",
    );
    let e = inspect(d.path(), &f, "generic");
    e.refused(2, &["tiny.csv", "gpus", "0.0001", "smallest fraction"]);
    let f = put(
        d.path(),
        "tiny.pai",
        "j1,t1,1,Terminated,0,100,100,1,0.04,\n",
    );
    let e = inspect(d.path(), &f, "pai");
    e.refused(2, &["tiny.pai", "plan_gpu", "smallest fraction"]);
    let text = scenario(
        "",
        "[workload]\nkind = \"synthetic\"\nrate_per_hour = 1\njobs = 10\nsizes = [ { gpus = 0.0001, weight = 1 } ]\nduration = { kind = \"fixed\", value = \"1h\" }\n",
    );
    let f = put(d.path(), "tiny.toml", &text);
    let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
    e.refused(
        2,
        &["tiny.toml", "workload.sizes[0].gpus", "smallest fraction"],
    );
    // The smallest fraction itself, and a PAI task of 0.3 %, are read to the milli-GPU.
    let f = put(
        d.path(),
        "small.pai",
        "j1,t1,1,Terminated,0,3600,100,1,0.3,\n",
    );
    let e = gpufleet(
        d.path(),
        &[
            "trace",
            "inspect",
            f.to_str().unwrap(),
            "--format",
            "pai",
            "--json",
        ],
    );
    assert_eq!(e.code, 0, "{e:#?}");
    let v: serde_json::Value = serde_json::from_str(&e.stdout).unwrap();
    // 0.003 GPU for an hour.
    let gh = v["gpu_hours"].as_f64().expect("gpu_hours");
    assert!((gh - 0.003).abs() < 1e-9, "{v}");
}

#[test]
fn a_positive_duration_under_a_millisecond_is_one_millisecond() {
    // 0.0001 s was refused as "duration must be positive" (it is positive: it rounded to
    // 0 ms); a duration of zero still is refused.
    let d = scratch();
    let f = put(
        d.path(),
        "short.csv",
        "job_id,submit_s,duration_s,gpus\na,0,0.0001,1\n",
    );
    let e = gpufleet(
        d.path(),
        &[
            "trace",
            "inspect",
            f.to_str().unwrap(),
            "--format",
            "generic",
            "--json",
        ],
    );
    assert_eq!(e.code, 0, "{e:#?}");
    let v: serde_json::Value = serde_json::from_str(&e.stdout).unwrap();
    let gh = v["gpu_hours"].as_f64().expect("gpu_hours");
    assert!((gh - 0.001 / 3600.0).abs() < 1e-12, "{v}");
    let f = put(
        d.path(),
        "zero.csv",
        "job_id,submit_s,duration_s,gpus\na,0,0,1\n",
    );
    let e = inspect(d.path(), &f, "generic");
    e.refused(2, &["zero.csv:2", "duration_s", "must be positive"]);
}

#[test]
fn a_bad_row_of_a_crlf_file_is_named_by_its_own_line() {
    // The csv crate numbers records after a `\r\n` one line too low: a bad row on line 4
    // of a Windows-edited trace was named line 3. LF and CRLF files must name the same line.
    let d = scratch();
    let cases = [
        (
            "generic",
            "job_id,submit_s,duration_s,gpus\na,0,60,1\nb,5,60,1\nc,x,60,1\n",
            "submit_s",
        ),
        (
            "pai",
            "j1,t1,1,Terminated,0,100,100,1,100,\nj2,t1,1,Terminated,0,100,100,1,100,\nj3,t1,1,Terminated,0,100,100,1,100,\nj4,t1,x,Terminated,0,100,100,1,100,\n",
            "inst_num",
        ),
        (
            "tiresias",
            "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n1,1,0,100,resnet,60,10\n2,1,5,100,resnet,60,10\n3,x,9,100,resnet,60,10\n",
            "num_gpu",
        ),
    ];
    for (format, text, column) in cases {
        for (ending, body) in [
            ("lf", text.to_string()),
            ("crlf", text.replace('\n', "\r\n")),
        ] {
            let name = format!("{format}-{ending}.csv");
            let f = put(d.path(), &name, &body);
            let e = inspect(d.path(), &f, format);
            e.refused(2, &[&format!("{name}:4"), column]);
        }
    }
}

#[test]
fn fgd_and_placement_comparisons_say_how_many_bad_rows_they_skipped() {
    // With skip_bad_rows, a bad node row and two bad pod rows are let through: both
    // commands must count them on the terminal (they said nothing before).
    let d = scratch();
    put(
        d.path(),
        "nodes.csv",
        "sn,cpu_milli,memory_mib,gpu,model\n\
         n0,64000,262144,8,V100M32\n\
         n1,64000,262144,eight,V100M32\n\
         n2,64000,262144,8,V100M32\n",
    );
    put(
        d.path(),
        "pods.csv",
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n\
         p0,4000,8192,1,1000,,LS,Running,0,1000,0\n\
         p1,4000,8192,x,1000,,LS,Running,10,1000,10\n\
         p2,4000,8192,1,500,,LS,Running,20,1000,20\n\
         p3,4000,8192,1,1000,,LS,Running,oops,1000,30\n",
    );
    put(
        d.path(),
        "fgd.toml",
        "name = \"f\"\n[fgd_experiment]\nnodes = \"nodes.csv\"\npods = \"pods.csv\"\n\
         policies = [\"fgd\"]\nseeds = [1]\nskip_bad_rows = true\n",
    );
    put(
        d.path(),
        "cmp.toml",
        "name = \"c\"\n[placement_comparison]\nnodes = \"nodes.csv\"\npods = \"pods.csv\"\n\
         placements = [\"best_fit\"]\nusd_per_gpu_hour = 2.0\nusd_per_cpu_node_hour = 0.5\n\
         skip_bad_rows = true\n",
    );
    for file in ["fgd.toml", "cmp.toml"] {
        let e = gpufleet(d.path(), &["validate", file]);
        assert_eq!(e.code, 0, "{file}: {e:#?}");
        assert!(
            e.stderr.contains("nodes.csv: skipped 1 bad rows"),
            "{file}: {e:#?}"
        );
        assert!(
            e.stderr.contains("pods.csv: skipped 2 bad rows"),
            "{file}: {e:#?}"
        );
    }
}

#[test]
fn an_endless_device_as_spot_data_is_refused_at_the_limit() {
    // A spot availability trace or price file of /dev/zero has no length for the size
    // check: the trace was read into one endless record until the allocator aborted, the
    // price file until memory ran out. Each is now refused at its field as not a regular
    // file (a regular file is read within a size and a line limit).
    if !std::path::Path::new("/dev/zero").exists() {
        return;
    }
    let d = scratch();
    let spot = |pricing: &str, interruptions: &str| {
        format!(
            "[[pools]]\nname = \"s\"\ngpu_type = \"H100\"\nkind = \"spot\"\nnodes = 2\ngpus_per_node = 8\nprice_per_node_hour = 20.0\n{pricing}\n{interruptions}\n[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 5\npreemptible_share = 1.0\nsizes = [{{ gpus = 1, weight = 1 }}]\nduration = {{ kind = \"fixed\", value = \"1h\" }}\n"
        )
    };
    let price = "[pools.pricing]\nkind = \"spot\"\nprice = { kind = \"trace\", path = \"/dev/zero\", zone = \"z\", tick = \"1h\" }\n";
    let trace = "[[spot_interruptions]]\npool = \"s\"\nmodel = \"trace\"\npath = \"/dev/zero\"\n";
    for (body, field) in [
        (spot(price, ""), "pools[1].pricing.price.path"),
        (spot("", trace), "spot_interruptions[0].path"),
    ] {
        let f = put(d.path(), "s.toml", &scenario("", &body));
        for cmd in ["validate", "run"] {
            let e = gpufleet(d.path(), &[cmd, f.to_str().unwrap()]);
            e.refused(2, &["s.toml", field, "/dev/zero", "not a regular file"]);
            assert!(e.secs < 20.0, "{e:#?}");
        }
    }
}

#[test]
fn columns_of_values_stop_at_their_cap_while_reading() {
    // An empirical duration column and a file of published FGD curves were held whole,
    // however long: a FIFO fed with `yes 1` as the durations aborted on memory. Each
    // stops at 10,000,000 values, naming the file and the row.
    let d = scratch();
    let mut t = String::with_capacity(21 << 20);
    t.push_str("runtime\n");
    for _ in 0..10_000_001 {
        t.push_str("1\n");
    }
    put(d.path(), "e.csv", &t);
    drop(t);
    let body = "[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 3\nsizes = [{ gpus = 1, weight = 1 }]\nduration = { kind = \"empirical\", path = \"e.csv\", column = \"runtime\" }\n";
    let f = put(d.path(), "s.toml", &scenario("", body));
    gpufleet(d.path(), &["validate", f.to_str().unwrap()])
        .refused(2, &["e.csv", "10000002", "more than 10000000 durations"]);

    let mut t = String::with_capacity(21 << 20);
    t.push_str("workload,sc_policy,tune,seed,0\n");
    for _ in 0..2_000_001 {
        t.push_str("w,p,1,1,0\n");
    }
    put(d.path(), "x.csv", &t);
    drop(t);
    let data = format!("{}/data/openb-2023", env!("CARGO_MANIFEST_DIR"));
    let fgd = format!("name = \"f\"\n[fgd_experiment]\nnodes = \"{data}/openb_node_list_gpu_node.csv\"\npods = \"{data}/openb_pod_list_default.csv\"\npolicies = [\"fgd\"]\nseeds = [1]\nexpected = \"x.csv\"\nexpected_workload = \"w\"\n");
    let f = put(d.path(), "f.toml", &fgd);
    gpufleet(d.path(), &["validate", f.to_str().unwrap()])
        .refused(2, &["x.csv", "more than 10000000 values"]);
}

#[test]
fn every_count_of_skipped_rows_names_its_file() {
    // `validate`, `run` and `trace convert` said "skipped 2 bad rows" without the file: a
    // PAI task table joined with its job table summed both files' rows into one count.
    let d = scratch();
    put(
        d.path(),
        "task.csv",
        "j1,t1,1,Terminated,0,100,100,1,100,\nj2,t1,x,Terminated,0,100,100,1,100,\n",
    );
    put(
        d.path(),
        "jobs.csv",
        "j1,i1,alice,Terminated,0,100\nj2,i2\nj3,i3\nj4,i4,bob,Terminated,0,100\n",
    );
    let f = put(
        d.path(),
        "s.toml",
        &scenario(
            "",
            "[workload]\nkind = \"trace\"\npath = \"task.csv\"\nformat = \"pai\"\npai_job_table = \"jobs.csv\"\nskip_bad_rows = true\n",
        ),
    );
    for args in [
        vec!["validate", f.to_str().unwrap()],
        vec!["run", "-q", f.to_str().unwrap(), "--out", "o"],
    ] {
        let e = gpufleet(d.path(), &args);
        assert_eq!(e.code, 0, "{e:#?}");
        assert!(
            e.stderr.contains("task.csv: skipped 1 bad rows"),
            "{args:?}: {e:#?}"
        );
        assert!(
            e.stderr.contains("jobs.csv: skipped 2 bad rows"),
            "{args:?}: {e:#?}"
        );
    }
    put(
        d.path(),
        "t.csv",
        "job_id,submit_s,gpus,duration_s\na,0,1,60\nb,x,1,60\n",
    );
    let e = gpufleet(
        d.path(),
        &[
            "trace",
            "convert",
            "--from",
            "generic",
            "--skip-bad-rows",
            "t.csv",
            "out.csv",
        ],
    );
    assert_eq!(e.code, 0, "{e:#?}");
    assert!(e.stderr.contains("t.csv: skipped 1 bad rows"), "{e:#?}");
}

#[test]
fn a_pipe_given_as_a_trace_is_read_once() {
    // `trace inspect --format openb` read a pod list's header to tell a timed list from
    // one without times, then opened the file again for the whole list: a FIFO (or
    // `<(zcat pods.csv.gz)`) had no writer left and the command hung.
    let d = scratch();
    let timed = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\np0,1000,1000,1,1000,,LS,Running,0,50,0\np1,1000,1000,2,1000,,LS,Running,5,90,6\n";
    let untimed =
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,1000,1,1000\np1,1000,1000,2,1000\n";
    for (name, text, want) in [("timed.fifo", timed, "2"), ("untimed.fifo", untimed, "2")] {
        let f = super::fifo(d.path(), name, text);
        let e = inspect(d.path(), &f, "openb");
        assert_eq!(e.code, 0, "{name}: {e:#?}");
        assert!(e.stdout.contains(want), "{name}: {e:#?}");
        assert!(e.secs < 20.0, "{name}: {e:#?}");
    }
}

#[test]
fn a_device_fifo_or_folder_named_as_a_data_file_is_refused_at_once() {
    // /dev/zero as a spot availability trace was read as one endless row (an allocation
    // failure, exit 134), as a spot price file until the memory ran out; a trace that is a
    // FIFO was "trace file ff does not exist"; a sweep over a scenario whose price file is
    // a FIFO hung on its second read.
    let d = scratch();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let base = std::fs::read_to_string(root.join("scenarios/spot-deadline-v100.toml"))
        .unwrap()
        .replace("../data/", &format!("{}/data/", root.display()));
    let prices = "data/spot/us-east-1f_v100_prices.json";
    let avail = "data/spot/us-east-1f_v100_1.csv";
    let fifo = super::fifo(d.path(), "ff", "");
    let fifo = fifo.to_str().unwrap();
    let cases = [
        (
            prices,
            "/dev/zero",
            "pricing.price.path",
            "not a regular file",
        ),
        (
            avail,
            "/dev/zero",
            "spot_interruptions[0].path",
            "not a regular file",
        ),
        (prices, fifo, "pricing.price.path", "not a regular file"),
        (avail, "/tmp", "spot_interruptions[0].path", "folder"),
    ];
    for (i, (file, with, field, why)) in cases.iter().enumerate() {
        // The first mention of the file only.
        let at = base.find(&format!("{}/{file}", root.display())).unwrap();
        let text = format!(
            "{}{with}{}",
            &base[..at],
            &base[at + root.display().to_string().len() + 1 + file.len()..]
        );
        let name = format!("s{i}.toml");
        put(d.path(), &name, &text);
        let e = gpufleet(d.path(), &["validate", &name]);
        e.refused(2, &[&name, field, with, why]);
        assert!(e.secs < 10.0, "{name}: {e:#?}");
        put(
            d.path(),
            "w.toml",
            &format!("name = \"w\"\nscenario = \"{name}\"\nseeds = 2\n"),
        );
        gpufleet(d.path(), &["sweep", "-q", "w.toml", "--out", "sw"]).refused(2, &[field, why]);
    }
    // A trace, a PAI job table likewise.
    for (body, field) in [
        (format!("[workload]\nkind = \"csv\"\npath = \"{fifo}\"\n"), "workload.path"),
        (
            "[workload]\nkind = \"csv\"\npath = \"/dev/zero\"\n".to_string(),
            "workload.path",
        ),
        (
            "[workload]\nkind = \"trace\"\nformat = \"pai\"\npath = \"t.csv\"\npai_job_table = \"/dev/zero\"\n".to_string(),
            "workload.pai_job_table",
        ),
    ] {
        put(d.path(), "t.csv", "j1,t1,1,Terminated,0,100,100,1,100,\n");
        let f = put(d.path(), "t.toml", &scenario("", &body));
        gpufleet(d.path(), &["validate", f.to_str().unwrap()])
            .refused(2, &["t.toml", field, "not a regular file"]);
    }
}

#[test]
fn a_scenario_given_as_a_pipe_is_read_once() {
    // `gpufleet validate <(envsubst < s.toml)`: the file was read to tell its kind, then
    // opened again to load it, waiting for a writer that had gone (a hang).
    let d = scratch();
    let text = scenario(
        "",
        "[workload]\nkind = \"synthetic\"\nrate_per_hour = 20.0\njobs = 30\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n",
    );
    let f = super::fifo(d.path(), "s.fifo", &text);
    let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
    assert_eq!(e.code, 0, "{e:#?}");
    let f = super::fifo(d.path(), "r.fifo", &text);
    let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]);
    assert_eq!(e.code, 0, "{e:#?}");
    // A bad one is named with its line, read from the kept text.
    let f = super::fifo(
        d.path(),
        "b.fifo",
        &text.replace("seed = 1", "seed = \"x\""),
    );
    let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
    e.refused(2, &["b.fifo", "seed"]);
}

#[test]
fn a_header_without_rows_is_no_trace_in_any_format() {
    // Every reader refused a file of no jobs but the generic one: its header alone read as
    // a workload of no jobs, and a run of it ended with exit 0.
    let d = scratch();
    let cases = [
        ("generic", "job_id,submit_s,gpus,duration_s\n"),
        ("generic", "job_id,submit_s,gpus,duration_s\r\n\r\n"),
        (
            "tiresias",
            "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n",
        ),
        ("swf", "; only a comment\n"),
    ];
    for (i, (format, text)) in cases.iter().enumerate() {
        let name = format!("empty{i}.{format}");
        let f = put(d.path(), &name, text);
        inspect(d.path(), &f, format).refused(2, &[&name, "no jobs"]);
    }
    put(d.path(), "t.csv", "job_id,submit_s,gpus,duration_s\n");
    let f = put(
        d.path(),
        "s.toml",
        &scenario("", "[workload]\nkind = \"csv\"\npath = \"t.csv\"\n"),
    );
    for cmd in ["validate", "run"] {
        gpufleet(d.path(), &[cmd, f.to_str().unwrap()]).refused(2, &["t.csv", "no jobs"]);
    }
}
