//! Hostile cells, in every trace format: a job id given twice, a control character in a
//! name or tenant, numbers at the edges of what a float reads (`-0`, `1e-999`, `1e999`,
//! `inf`, `nan`). Each is refused with exit 2 naming the file, the line and the column
//! (or, where it means a plain value such as `-0` GPUs, read as that value).

use super::{gpufleet, inspect, put, scratch};

/// One small trace per format with one job id on its 1st and 3rd data rows: `(format,
/// text, line of the repeat, line of the first (0: the format has no lines), column, the
/// job's name)`.
type Repeated = (&'static str, String, u64, u64, &'static str, &'static str);

fn repeated() -> Vec<Repeated> {
    let swf = |id: u32, t: u32| format!("{id} {t} 5 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n");
    let helios = |id: &str, m: u32| {
        format!("{id},u1,vcA,1,4,1,COMPLETED,2020-04-01 00:{m:02}:00,,,3600,10\n")
    };
    let openb =
        |id: &str, t: u32| format!("{id},1000,1000,1,1000,,LS,Running,{t},{},{t}\n", t + 50);
    let philly = |id: &str, m: u32| {
        format!(
            r#"{{"jobid": "{id}", "user": "u1", "vc": "vc1", "submitted_time": "2017-10-02 00:{m:02}:00", "status": "Pass",
  "attempts": [{{"start_time": "2017-10-02 00:{m:02}:30", "end_time": "2017-10-02 01:00:30",
                "detail": [{{"ip": "m1", "gpus": ["gpu0"]}}]}}]}}"#
        )
    };
    vec![
        (
            "generic",
            "job_id,submit_s,gpus,duration_s\nJ,0,1,60\nb,5,1,60\nJ,10,2,60\nc,20,1,60\n".into(),
            4,
            2,
            "job_id",
            "J",
        ),
        (
            "swf",
            format!("; Version: 2.2\n{}{}{}{}", swf(7, 0), swf(8, 5), swf(7, 10), swf(9, 20)),
            4,
            2,
            "job_id",
            "7",
        ),
        (
            "helios",
            format!(
                "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n{}{}{}{}",
                helios("J", 0),
                helios("b", 1),
                helios("J", 2),
                helios("c", 3)
            ),
            4,
            2,
            "job_id",
            "J",
        ),
        (
            "pai",
            "J,worker,1,Terminated,1000,4600,600,29.3,100,V100\nb,ps,1,Terminated,1000,4600,400,10,,\nJ,worker,1,Terminated,2000,4600,600,29.3,100,V100\nc,w,1,Failed,2000,2600,400,15,50,T4\n".into(),
            3,
            1,
            "job_name/task_name",
            "J/worker",
        ),
        (
            "tiresias",
            "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\nJ,1,0,6,vgg19,164,30\nb,8,30,13,vgg11,147,23\nJ,2,53,15,vgg11,127,26\nc,1,60,1,vgg11,10,2\n".into(),
            4,
            2,
            "job_id",
            "J",
        ),
        (
            "openb",
            format!(
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n{}{}{}{}",
                openb("J", 0),
                openb("b", 5),
                openb("J", 10),
                openb("c", 20)
            ),
            4,
            2,
            "name",
            "J",
        ),
        (
            "philly",
            format!(
                "[\n{},\n{},\n{},\n{}\n]\n",
                philly("J", 0),
                philly("b", 1),
                philly("J", 2),
                philly("c", 3)
            ),
            0,
            0,
            "jobid",
            "J",
        ),
    ]
}

#[test]
fn a_job_id_given_twice_is_refused_in_every_format() {
    // A job on two rows was kept twice, its work counted twice and its name ambiguous in
    // jobs.csv, without a word (every format read it so).
    let d = scratch();
    for (format, text, line, first, column, job) in repeated() {
        let name = format!("twice.{format}");
        let f = put(d.path(), &name, &text);
        let e = inspect(d.path(), &f, format);
        e.refused(2, &[&name, column, &format!("{job:?}"), "1 row repeats"]);
        if line > 0 {
            // The repeat's own line, and the line of the job it repeats.
            e.refused(
                2,
                &[&format!("{name}:{line}:"), &format!("also on line {first}")],
            );
        }
        // Skipping bad rows keeps the first J and counts the second: 3 jobs of 4 rows.
        let e = gpufleet(
            d.path(),
            &[
                "trace",
                "inspect",
                f.to_str().unwrap(),
                "--format",
                format,
                "--skip-bad-rows",
                "--json",
            ],
        );
        assert_eq!(e.code, 0, "{format}: {e:#?}");
        let v: serde_json::Value = serde_json::from_str(&e.stdout).expect("inspect --json");
        assert_eq!(v["jobs"], 3, "{format}: {}", e.stdout);
        assert_eq!(v["rows_skipped_bad"], 1, "{format}: {}", e.stdout);
    }
}

#[test]
fn an_swf_job_checkpointed_in_parts_is_one_job() {
    // SWF 2.2: a checkpointed job has a summary line (status 0, 1 or 5) for its whole run
    // and one line per partial execution (2: to be continued, 3: last, completed; 4: last,
    // failed), all under its job number. The partial lines were jobs of their own: job 1
    // ran 100 s (40 + 60 s in parts) on 4 GPUs, and was read as three jobs: 4 jobs and
    // 1,200 GPU-s where there are 2 and 800 (2 x 100 s x 4 GPUs, by hand).
    let d = scratch();
    let l = |id: u32, run: u32, status: i32| {
        format!("{id} 0 5 {run} 4 -1 -1 4 100 -1 {status} 1 1 -1 1 -1 -1 -1\n")
    };
    let text = format!(
        "; Version: 2.2\n{}{}{}{}",
        l(1, 100, 1),
        l(1, 40, 2),
        l(1, 60, 3),
        l(2, 100, 1)
    );
    let f = put(d.path(), "parts.swf", &text);
    let e = gpufleet(
        d.path(),
        &[
            "trace",
            "inspect",
            f.to_str().unwrap(),
            "--format",
            "swf",
            "--json",
        ],
    );
    assert_eq!(e.code, 0, "{e:#?}");
    let v: serde_json::Value = serde_json::from_str(&e.stdout).unwrap();
    assert_eq!(v["jobs"], 2, "{}", e.stdout);
    let dropped = v["dropped"].as_object().expect("dropped rows by reason");
    let partial: Vec<_> = dropped
        .iter()
        .filter(|(k, _)| k.contains("partial execution"))
        .collect();
    assert_eq!(partial.len(), 1, "{}", e.stdout);
    assert_eq!(partial[0].1, 2, "{}", e.stdout);
    // Job 1's summary line: 100 s on 4 GPUs; job 2: the same. 800 GPU-s.
    let gh = v["gpu_hours"].as_f64().unwrap();
    assert!((gh - 800.0 / 3600.0).abs() < 1e-9, "{}", e.stdout);
}

#[test]
fn a_control_character_in_a_name_is_refused_in_every_format() {
    // A NUL (or a line break inside a quoted field, an escape) in a job's name, tenant or
    // GPU type went into jobs.csv and the terminal as it was.
    let d = scratch();
    let cases: Vec<(&str, String, &str, &str)> = vec![
        (
            "generic",
            "job_id,submit_s,gpus,duration_s,tenant\na,0,1,60,t\nb\0x,5,1,60,t\n".into(),
            "t.generic:3:",
            "job_id",
        ),
        (
            "generic",
            "job_id,submit_s,gpus,duration_s,tenant\na,0,1,60,t\nb,5,1,60,\"t\nu\"\n".into(),
            "t.generic:3:",
            "tenant",
        ),
        (
            "generic",
            "job_id,submit_s,gpus,duration_s,gpu_type\na,0,1,60,H100\nb,5,1,60,A\x1b[31m\n".into(),
            "t.generic:3:",
            "gpu_type",
        ),
        (
            "swf",
            "; Version: 2.2\n1 0 5 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n2\x07 5 5 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n".into(),
            "t.swf:3:",
            "job_id",
        ),
        (
            "helios",
            "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\nh1,u1,v\0A,1,4,1,COMPLETED,2020-04-01 00:00:00,,,3600,10\n".into(),
            "t.helios:2:",
            "vc",
        ),
        (
            "pai",
            "j1,worker,1,Terminated,1000,4600,600,29.3,100,V1\x0000\n".into(),
            "t.pai:1:",
            "gpu_type",
        ),
        (
            "tiresias",
            "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n0,1,0,6,vgg\x7f19,164,30\n".into(),
            "t.tiresias:2:",
            "class",
        ),
        (
            "openb",
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\np\0,1000,1000,1,1000,,LS,Running,0,50,0\n".into(),
            "t.openb:2:",
            "name",
        ),
        (
            "philly",
            r#"[{"jobid": "app\u0000_1", "user": "u1", "vc": "vc1", "submitted_time": "2017-10-02 00:00:00", "status": "Pass",
  "attempts": [{"start_time": "2017-10-02 00:00:30", "end_time": "2017-10-02 01:00:30", "detail": [{"ip": "m1", "gpus": ["gpu0"]}]}]}]
"#.into(),
            "t.philly:",
            "jobid",
        ),
    ];
    for (format, text, at, column) in cases {
        let f = put(d.path(), &format!("t.{format}"), &text);
        let e = inspect(d.path(), &f, format);
        e.refused(2, &[at, column, "control character"]);
    }
}

#[test]
fn numbers_at_the_edges_of_a_float_are_named_not_misread() {
    let d = scratch();
    let head = "job_id,submit_s,gpus,duration_s\n";
    // (row, column, what the message says)
    let refused = [
        ("a,0,1,1e-999", "duration_s", "too close to zero"),
        ("a,0,1,4.9e-324", "duration_s", "too close to zero"),
        ("a,1e999,1,60", "submit_s", "too large"),
        ("a,inf,1,60", "submit_s", "not a finite number"),
        ("a,0,1,NaN", "duration_s", "not a finite number"),
        ("a,0,1e-999,60", "gpus", "below the smallest fraction"),
        ("a,0,-1,60", "gpus", "negative"),
        ("a,0,1e999,60", "gpus", "more than 1000000"),
        ("a,0,nan,60", "gpus", "not a GPU count"),
        ("a,0,0x10,60", "gpus", "not a GPU count"),
        ("a,-0.5,1,60", "submit_s", "non-negative"),
    ];
    for (i, (row, column, says)) in refused.iter().enumerate() {
        let name = format!("edge{i}.csv");
        let f = put(d.path(), &name, &format!("{head}{row}\n"));
        let e = inspect(d.path(), &f, "generic");
        e.refused(2, &[&format!("{name}:2:"), column, says]);
    }
    // Values that are plainly what they say: `-0` GPUs is none (a CPU-only job), a `+`
    // sign and spaces around a cell are read as written.
    let f = put(
        d.path(),
        "plain.csv",
        &format!("{head}a,-0,-0,60\nb, +5 ,+2, 1e1 \n"),
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
    assert_eq!(v["jobs"], 2, "{}", e.stdout);
    // 2 GPUs for 10 s: 20 GPU-seconds, by hand 0.00556 GPU-hours (the -0 job has none).
    let gh = v["gpu_hours"].as_f64().unwrap();
    assert!((gh - 20.0 / 3600.0).abs() < 1e-6, "{}", e.stdout);
}

/// `gpufleet trace inspect FILE --format FORMAT --json`: the jobs read, or the error.
fn jobs_read(d: &std::path::Path, file: &std::path::Path, format: &str) -> Result<u64, String> {
    let e = gpufleet(
        d,
        &[
            "trace",
            "inspect",
            file.to_str().unwrap(),
            "--format",
            format,
            "--json",
        ],
    );
    if e.code != 0 {
        return Err(e.stderr);
    }
    let v: serde_json::Value = serde_json::from_str(&e.stdout).expect("inspect --json");
    Ok(v["jobs"].as_u64().expect("a job count"))
}

#[test]
fn classic_mac_line_ends_and_a_byte_order_mark_read_as_plain_text_in_every_format() {
    // Lone CR line ends: the CSV readers named line 1 in every error, one of more than
    // 1 MiB was "line 1 is longer than 1048576 bytes", and the SWF reader read the file
    // as one comment line ("no jobs in the file"). A byte-order mark before a Philly log
    // was "not a JSON array". Each now reads as the same file with LF line ends.
    let d = scratch();
    for format in [
        "generic", "swf", "helios", "pai", "philly", "tiresias", "openb",
    ] {
        let text = super::readers::corpus(format);
        let lf = put(d.path(), &format!("lf.{format}"), &text);
        let want = jobs_read(d.path(), &lf, format).expect("the corpus file reads");
        let cr = put(d.path(), &format!("cr.{format}"), &text.replace('\n', "\r"));
        assert_eq!(jobs_read(d.path(), &cr, format), Ok(want), "{format} CR");
        let bom = put(
            d.path(),
            &format!("bom.{format}"),
            &format!("\u{feff}{text}"),
        );
        assert_eq!(jobs_read(d.path(), &bom, format), Ok(want), "{format} BOM");
    }
    // A bad cell on line 3 of a CR-only file is named at line 3.
    let f = put(
        d.path(),
        "bad.csv",
        "job_id,submit_s,gpus,duration_s\ra,0,1,60\rb,5,x,60\rc,6,1,60\r",
    );
    inspect(d.path(), &f, "generic").refused(2, &["bad.csv:3:", "gpus"]);
    // 100,000 rows (1.8 MB) without an LF: read whole, not one overlong line.
    let mut big = String::from("job_id,submit_s,gpus,duration_s\r");
    for i in 0..100_000 {
        big.push_str(&format!("j{i},{i},1,60\r"));
    }
    let f = put(d.path(), "big.csv", &big);
    assert_eq!(jobs_read(d.path(), &f, "generic"), Ok(100_000));
}

#[test]
fn a_scenario_float_that_reads_as_zero_is_named_as_written() {
    // `gpus = 1e-999` read as 0 and was told "must be ... got 0"; `4.9e-324` was told it
    // in 324 digits; `rate_per_hour = 1e-400` "must be a positive number, got 0".
    let d = scratch();
    let body = |gpus: &str, rate: &str| {
        format!(
            "[workload]\nkind = \"synthetic\"\nrate_per_hour = {rate}\njobs = 10\nsizes = [ {{ gpus = {gpus}, weight = 1 }} ]\nduration = {{ kind = \"exponential\", mean = \"1h\" }}\n"
        )
    };
    let cases = [
        (
            "1e-999",
            "1.0",
            "workload.sizes[0].gpus",
            "1e-999 is too close to zero",
        ),
        (
            "4.9e-324",
            "1.0",
            "workload.sizes[0].gpus",
            "4.9e-324 is too close to zero",
        ),
        (
            "1",
            "1e-400",
            "workload.rate_per_hour",
            "1e-400 is too close to zero",
        ),
        ("-0.0", "1.0", "workload.sizes[0].gpus", "got 0 (no GPU"),
    ];
    for (i, (gpus, rate, field, says)) in cases.iter().enumerate() {
        let f = put(
            d.path(),
            &format!("s{i}.toml"),
            &super::scenario("", &body(gpus, rate)),
        );
        let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
        e.refused(2, &[&format!("s{i}.toml"), field, says]);
        assert!(e.stderr.len() < 2_000, "{}", e.stderr);
    }
}

#[test]
fn a_node_or_pod_listed_twice_is_refused() {
    // openb-node-0000 on lines 2 and 4 made a pool of 3 nodes from 2 machines; a pod
    // listed twice was placed twice in an FGD experiment.
    let d = scratch();
    let nodes = "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,P100\nn1,64000,262144,2,P100\nn0,64000,262144,2,P100\n";
    let f = put(d.path(), "nodes.csv", nodes);
    let e = gpufleet(
        d.path(),
        &[
            "trace",
            "convert",
            "--from",
            "openb_nodes",
            f.to_str().unwrap(),
            "pools.toml",
        ],
    );
    e.refused(2, &["nodes.csv:4:", "\"sn\"", "\"n0\" is also on line 2"]);
    // A pod list without times (as the FGD experiments read): described by inspect.
    let pods = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,1000,1,1000\np1,1000,1000,1,500\np0,1000,1000,1,1000\n";
    let f = put(d.path(), "pods.csv", pods);
    inspect(d.path(), &f, "openb").refused(2, &["pods.csv:4:", "\"p0\" is also on line 2"]);
}

#[test]
fn a_machine_listed_twice_in_a_pai_machine_spec_is_refused() {
    // m0 on lines 1 and 3 made a pool of 3 machines from 2.
    let d = scratch();
    let f = put(
        d.path(),
        "spec.csv",
        "m0,V100,96,512,8\nm1,V100,96,512,8\nm0,V100,96,512,8\n",
    );
    let e = gpufleet(
        d.path(),
        &[
            "trace",
            "convert",
            "--from",
            "pai_machines",
            f.to_str().unwrap(),
            "pools.toml",
        ],
    );
    e.refused(
        2,
        &["spec.csv:3:", "\"machine\"", "\"m0\" is also on line 1"],
    );
    // Skipping bad rows keeps m0 once: one pool of 2 machines (16 GPUs).
    let e = gpufleet(
        d.path(),
        &[
            "trace",
            "convert",
            "--from",
            "pai_machines",
            f.to_str().unwrap(),
            "pools2.toml",
            "--skip-bad-rows",
        ],
    );
    assert_eq!(e.code, 0, "{e:#?}");
    let pools = std::fs::read_to_string(d.path().join("pools2.toml")).unwrap();
    assert!(pools.contains("nodes = 2\n"), "{pools}");
}
