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

/// Three GPU types at Gavel's per-GPU-hour prices (its simulator's GCP preemptible
/// figures, `scheduler/utils.py`: K80 $0.135, P100 $0.43, V100 $0.74), V100 the reference
/// (speed 1), and Gavel's published throughput table as shipped (`data/gavel/`).
const GAVEL: &str = r#"name = "gavel"
[[gpu_types]]
name = "K80"
memory_gb = 12
speed = 0.2
power_w = 150
[[gpu_types]]
name = "P100"
memory_gb = 16
speed = 0.5
power_w = 250
[[gpu_types]]
name = "V100"
memory_gb = 16
speed = 1.0
power_w = 300
[[pools]]
name = "k80"
gpu_type = "K80"
kind = "on_demand"
nodes = 4
gpus_per_node = 1
price_per_node_hour = 0.135
[[pools]]
name = "p100"
gpu_type = "P100"
kind = "on_demand"
nodes = 4
gpus_per_node = 1
price_per_node_hour = 0.43
[[pools]]
name = "v100"
gpu_type = "V100"
kind = "on_demand"
nodes = 4
gpus_per_node = 1
price_per_node_hour = 0.74
[scheduler]
policy = "greedy_fifo"
pool_order = "ORDER"
[throughput]
reference = "V100"
file = "data/gavel/throughputs.csv"
[workload]
kind = "csv"
path = "TRACE"
"#;

/// Gavel's measurements (iterations/s, `simulation_throughputs.json`, alone on one GPU):
///
/// | class | K80 | P100 | V100 |
/// |---|---|---|---|
/// | ResNet-50 (batch size 64) | 0.6190282202246573 | 2.6194694075770055 | 4.394774823323071 |
/// | Recommendation (batch size 512) | 32.859303327562166 | 48.882390510045944 | 23.317634950657975 |
/// | CycleGAN | 0.5047705689725351 | 2.4026681703106223 | 4.426088263367452 |
///
/// Per dollar (divide by $0.135, $0.43, $0.74): ResNet-50 4.585, 6.092, 5.939 (P100);
/// Recommendation 243.4, 113.7, 31.5 (K80); CycleGAN 3.739, 5.588, 5.981 (V100).
/// Speed-only takes the highest throughput: V100, P100, V100. Speeds against the V100
/// are the ratios to the V100 column; an hour of V100 work takes 3,600 / speed seconds
/// (rounded up to the clock's millisecond): ResNet-50 on P100 6,039,845.06 ms, so ends at
/// 6,039,846 ms; Recommendation on K80 2,554,633.77 ms, 2,554,634 ms.
/// Throughput per dollar of the three runs (speed / price): aware 0.59604 / 0.43 +
/// 1.40920 / 0.135 + 1 / 0.74 = 13.18; speed-only 1 / 0.74 + 2.09637 / 0.43 + 1 / 0.74 =
/// 7.58.
#[test]
fn gavel_measurements_send_each_class_to_its_best_throughput_per_dollar() {
    let trace = "job_id,submit_s,gpus,duration_s,class\n\
        r,0,1,3600,ResNet-50 (batch size 64)\n\
        m,0,1,3600,Recommendation (batch size 512)\n\
        g,0,1,3600,CycleGAN\n";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.csv"), trace).unwrap();
    let trace_path = dir.path().join("t.csv");
    let run_order = |order: &str| {
        let text = GAVEL
            .replace("ORDER", order)
            .replace("TRACE", trace_path.to_str().unwrap());
        let s = Scenario::parse(&text, Path::new("gavel.toml"), &crate::common::root()).unwrap();
        execute(&s, &RngStreams::new(1)).unwrap()
    };
    let resnet = 2.6194694075770055 / 4.394774823323071;
    let rec_k80 = 32.859303327562166 / 23.317634950657975;
    let rec_p100 = 48.882390510045944 / 23.317634950657975;
    let end_ms = |speed: f64| SimTime((3_600_000.0 / speed).ceil() as u64);
    let aware = run_order("cheapest");
    let pools: Vec<_> = aware.result.jobs.iter().map(|j| j.pool).collect();
    assert_eq!(pools, vec![Some(1), Some(0), Some(2)]);
    let c = aware.result.cloud.as_ref().unwrap();
    for (j, want) in c.jobs.iter().zip([resnet, rec_k80, 1.0]) {
        assert!((j.speed - want).abs() < 1e-12, "{} vs {want}", j.speed);
    }
    assert_eq!(aware.result.jobs[0].end, Some(SimTime(6_039_846)));
    assert_eq!(end_ms(resnet), SimTime(6_039_846));
    assert_eq!(aware.result.jobs[1].end, Some(end_ms(rec_k80)));
    let fast = run_order("fastest");
    let pools: Vec<_> = fast.result.jobs.iter().map(|j| j.pool).collect();
    assert_eq!(pools, vec![Some(2), Some(1), Some(2)]);
    assert_eq!(fast.result.jobs[1].end, Some(end_ms(rec_p100)));
    let per_dollar = |e: &Execution| -> f64 {
        let prices = [0.135, 0.43, 0.74];
        let c = e.result.cloud.as_ref().unwrap();
        c.jobs
            .iter()
            .zip(&e.result.jobs)
            .map(|(j, r)| j.speed / prices[r.pool.unwrap() as usize])
            .sum()
    };
    assert!(
        (per_dollar(&aware) - 13.176).abs() < 0.01,
        "{}",
        per_dollar(&aware)
    );
    assert!(
        (per_dollar(&fast) - 7.578).abs() < 0.01,
        "{}",
        per_dollar(&fast)
    );
}
