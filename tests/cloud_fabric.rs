//! Interconnect, worked by hand: a gang's speed from how it is spread over nodes and
//! racks, and rack-aware placement.

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

const FOUR_NODES: &str = r#"name = "fabric"
[[pools]]
name = "p"
gpu_type = "H100"
kind = "owned"
nodes = 4
gpus_per_node = 8
price_per_node_hour = 1.0
fabric = { intra = "nvlink", intra_gbps = 7200, inter = "infiniband", inter_gbps = 400, nodes_per_rack = RACK, oversubscription = 4 }
[interconnect]
comm_share = 0.3
[scheduler]
placement = "rack_pack"
[workload]
kind = "csv"
path = "t.csv"
"#;

/// A 32-GPU job (4 nodes of 8) with a 30 % communication share and 1 h of work. In one
/// rack of 4 nodes it runs at its reference (tightest) placement: factor 1, it ends at
/// 3,600 s. Over 2 racks of 2 at 4:1 the communication runs at 400 / 4 = 100 Gbit/s:
/// factor 1 / (0.7 + 0.3 x 400 / 100) = 1 / 1.9, so 3,600 x 1.9 = 6,840 s.
#[test]
fn one_rack_versus_two_racks_at_four_to_one() {
    let trace = "job_id,submit_s,gpus,duration_s\nbig,0,32,3600\n";
    let e = run(&FOUR_NODES.replace("RACK", "4"), trace);
    let c = &e.result.cloud.as_ref().unwrap().jobs[0];
    assert_eq!((c.nodes, c.racks, c.speed_factor), (4, 1, 1.0));
    assert_eq!(e.result.jobs[0].end, Some(SimTime::from_secs(3600)));
    let e = run(&FOUR_NODES.replace("RACK", "2"), trace);
    let c = &e.result.cloud.as_ref().unwrap().jobs[0];
    assert_eq!((c.nodes, c.racks), (4, 2));
    assert!((c.speed_factor - 1.0 / 1.9).abs() < 1e-12);
    assert_eq!(e.result.jobs[0].end, Some(SimTime::from_secs(6840)));
    // With a reference of NVLink's 7,200 Gbit/s the one-rack run is slowed too:
    // 1 / (0.7 + 0.3 x 7,200 / 400) = 1 / 6.1, so 3,600 x 6.1 = 21,960 s.
    let text = FOUR_NODES.replace("RACK", "4").replace(
        "comm_share = 0.3",
        "comm_share = 0.3\nreference_gbps = 7200",
    );
    let e = run(&text, trace);
    assert_eq!(e.result.jobs[0].end, Some(SimTime::from_secs(21960)));
}

const EIGHT_NODES: &str = r#"name = "racks"
[[pools]]
name = "p"
gpu_type = "H100"
kind = "owned"
nodes = 8
gpus_per_node = 8
price_per_node_hour = 1.0
fabric = { intra = "nvlink", intra_gbps = 7200, inter = "infiniband", inter_gbps = 400, nodes_per_rack = 4, oversubscription = 4 }
[interconnect]
comm_share = 0.3
[scheduler]
policy = "greedy_fifo"
placement = "PLACEMENT"
[workload]
kind = "csv"
path = "t.csv"
"#;

/// Two racks of 4 nodes (0-3, 4-7), greedy FIFO starts. rack_pack: at 0 s x (2 nodes)
/// takes the tightest rack that holds it (a tie: rack 0, nodes 0-1) and y (2 nodes) the
/// tightest then, rack 0 again (nodes 2-3); at 10 s q (4 nodes) finds rack 1 whole. r (2
/// nodes, at 20 s) and s (4 nodes, at 30 s) wait; at 3,600 s x ends and r takes nodes 0-1;
/// at 3,610 s q ends and s takes rack 1. Every gang spans one rack, so every run has
/// speed factor 1 and q ends at 3,610 s. The topology-blind best fit spans at least as
/// many racks.
#[test]
fn rack_pack_spans_no_more_racks_than_best_fit() {
    let trace = "job_id,submit_s,gpus,duration_s\n\
x,0,16,3600\ny,0,16,7200\nq,10,32,3600\nr,20,16,600\ns,30,32,3600\n";
    let racks = |p: &str| {
        let e = run(&EIGHT_NODES.replace("PLACEMENT", p), trace);
        let c = e.result.cloud.unwrap();
        c.jobs.iter().map(|j| j.racks).collect::<Vec<_>>()
    };
    let packed = racks("rack_pack");
    let blind = racks("best_fit");
    // Gangs of 2 and 4 nodes fit one rack each time room exists under rack_pack.
    assert_eq!(packed, vec![1, 1, 1, 1, 1], "{packed:?} vs {blind:?}");
    assert!(packed.iter().zip(&blind).all(|(a, b)| a <= b));
}
