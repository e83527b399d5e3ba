//! Per-workload GPU speeds, worked by hand: a class x GPU type throughput table, and the
//! heterogeneity-aware pool choice against the speed-only one.

use gpufleet::engine::{RngStreams, SimTime};
use gpufleet::run::{execute, Execution};
use gpufleet::scenario::Scenario;
use std::path::Path;

fn run(text: &str, trace: &str) -> Execution {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.csv"), trace).unwrap();
    let s = Scenario::parse(text, Path::new("t.toml"), dir.path()).unwrap();
    execute(&s, &RngStreams::new(s.seed)).unwrap()
}

/// Two GPU types: X (fast, $2 per GPU-hour) and Y (the reference, speed 1, $1). Two
/// classes: a transformer gains 3x on X, a CNN 1.3x. One 1-GPU pool of each.
const TWO_BY_TWO: &str = r#"name = "het"
[[gpu_types]]
name = "X"
memory_gb = 80
speed = 2.0
power_w = 700
[[gpu_types]]
name = "Y"
memory_gb = 80
speed = 1.0
power_w = 400
[[pools]]
name = "x"
gpu_type = "X"
kind = "on_demand"
nodes = 1
gpus_per_node = 1
price_per_node_hour = 2.0
[[pools]]
name = "y"
gpu_type = "Y"
kind = "on_demand"
nodes = 1
gpus_per_node = 1
price_per_node_hour = 1.0
[scheduler]
policy = "greedy_fifo"
pool_order = "ORDER"
[throughput]
reference = "Y"
classes = { transformer = { X = 3.0, Y = 1.0 }, cnn = { X = 1.3, Y = 1.0 } }
[workload]
kind = "csv"
path = "t.csv"
"#;

/// The CNN arrives first, then the transformer, each 1 h of work on Y.
///
/// Speed-only ("fastest"): the CNN takes X (1.3 > 1), the transformer gets Y: speeds 1.3
/// and 1, total throughput 2.3 reference GPUs; ends 3,600 / 1.3 = 2,769.231 s and 3,600 s.
///
/// Heterogeneity-aware ("cheapest": throughput per dollar per class): the CNN ranks Y
/// first (1 / $1 > 1.3 / $2), the transformer X (3 / $2 > 1 / $1): speeds 1 and 3, total
/// 4; ends 3,600 s and 1,200 s. Total completion time 4,800 s against 6,369.231 s.
#[test]
fn heterogeneity_aware_beats_speed_only() {
    let trace =
        "job_id,submit_s,gpus,duration_s,class\ncnn,0,1,3600,cnn\ntf,0,1,3600,transformer\n";
    let speeds = |e: &Execution| -> Vec<f64> {
        e.result
            .cloud
            .as_ref()
            .unwrap()
            .jobs
            .iter()
            .map(|j| j.speed)
            .collect()
    };
    let fast = run(&TWO_BY_TWO.replace("ORDER", "fastest"), trace);
    assert_eq!(speeds(&fast), vec![1.3, 1.0]);
    assert_eq!(fast.result.jobs[0].end, Some(SimTime(2_769_231)));
    assert_eq!(fast.result.jobs[1].end, Some(SimTime::from_secs(3600)));
    let aware = run(&TWO_BY_TWO.replace("ORDER", "cheapest"), trace);
    assert_eq!(speeds(&aware), vec![1.0, 3.0]);
    assert_eq!(aware.result.jobs[0].end, Some(SimTime::from_secs(3600)));
    assert_eq!(aware.result.jobs[1].end, Some(SimTime::from_secs(1200)));
    let total = |s: Vec<f64>| s.iter().sum::<f64>();
    assert!(total(speeds(&aware)) > total(speeds(&fast)));
}

/// The throughput_per_dollar policy reads the table too: the same choice as "cheapest".
#[test]
fn throughput_per_dollar_policy_uses_class_speeds() {
    let trace =
        "job_id,submit_s,gpus,duration_s,class\ncnn,0,1,3600,cnn\ntf,0,1,3600,transformer\n";
    let text = TWO_BY_TWO
        .replace("greedy_fifo", "throughput_per_dollar")
        .replace("pool_order = \"ORDER\"", "");
    let e = run(&text, trace);
    assert_eq!(e.result.jobs[0].pool, Some(1));
    assert_eq!(e.result.jobs[1].pool, Some(0));
}

/// A table from a file and a generated class mix; a class missing a pool's type is an
/// error naming the class.
#[test]
fn table_file_mix_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tp.csv"), "class,X,Y\nbig,4.0,2.0\n").unwrap();
    std::fs::write(
        dir.path().join("t.csv"),
        "job_id,submit_s,gpus,duration_s\na,0,1,3600\n",
    )
    .unwrap();
    let text = TWO_BY_TWO.replace("ORDER", "scenario").replace(
        "classes = { transformer = { X = 3.0, Y = 1.0 }, cnn = { X = 1.3, Y = 1.0 } }",
        "file = \"tp.csv\"\nmix = { big = 1.0 }",
    );
    let s = Scenario::parse(&text, Path::new("t.toml"), dir.path()).unwrap();
    let e = execute(&s, &RngStreams::new(1)).unwrap();
    // Class "big" on X: 4 / 2 = 2x the reference: 1,800 s.
    assert_eq!(e.result.jobs[0].end, Some(SimTime::from_secs(1800)));
    let bad = TWO_BY_TWO
        .replace("ORDER", "scenario")
        .replace("cnn = { X = 1.3, Y = 1.0 }", "cnn = { Y = 1.0 }");
    let err = Scenario::parse(&bad, Path::new("t.toml"), dir.path())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("throughput.classes.cnn") && err.contains("\"X\""),
        "{err}"
    );
}
