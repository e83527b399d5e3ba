//! Unit tests of placement on the time-based cluster: best fit from the index, gangs,
//! fractions, host limits, reservations, and a scored policy.

use super::*;
use crate::model::{CapacityKind, NodeSpec, PoolSpec};

fn best_fit() -> Placer {
    Placer::new(PlacementKind::BestFit, &PlacementContext::default())
}

#[test]
fn best_fit_picks_tightest_node() {
    let mut c = Cluster::new(vec![PoolSpec::test(3, 8)]);
    let bf = best_fit();
    // Leave node 0 with 8 free, node 1 with 3 free, node 2 with 5 free.
    let a = bf.find(&c, 0, GpuRequest::Whole(5), 0, 0, None).unwrap();
    c.take(&a);
    let held = a.hosts[0].0;
    let b = bf.find(&c, 0, GpuRequest::Whole(3), 0, 0, None).unwrap();
    assert_eq!(
        b.hosts[0].0, held,
        "3 GPUs go to the node with exactly 3 free"
    );
    c.take(&b);
    let d = bf.find(&c, 0, GpuRequest::Whole(3), 0, 0, None).unwrap();
    c.take(&d);
    let e = bf.find(&c, 0, GpuRequest::Whole(2), 0, 0, None).unwrap();
    assert_eq!(
        e.hosts[0].0, d.hosts[0].0,
        "2 GPUs go to the node with 5 free, not 8"
    );
}

#[test]
fn gang_jobs_take_whole_nodes_or_nothing() {
    let mut c = Cluster::new(vec![PoolSpec::test(3, 8)]);
    let bf = best_fit();
    let small = bf.find(&c, 0, GpuRequest::Whole(1), 0, 0, None).unwrap();
    c.take(&small);
    // 20 GPUs need 3 whole nodes; only 2 are wholly free.
    assert!(bf.find(&c, 0, GpuRequest::Whole(20), 0, 0, None).is_none());
    let g = bf.find(&c, 0, GpuRequest::Whole(16), 0, 0, None).unwrap();
    assert_eq!(g.hosts.len(), 2);
    assert_eq!(g.gpus.len(), 16);
    c.give_back(&small);
    assert_eq!(c.free_nodes(0).len(), 3);
}

#[test]
fn fractions_share_a_gpu() {
    let mut c = Cluster::new(vec![PoolSpec::test(1, 1)]);
    let bf = best_fit();
    let a = bf
        .find(&c, 0, GpuRequest::Fraction(600), 0, 0, None)
        .unwrap();
    c.take(&a);
    let b = bf
        .find(&c, 0, GpuRequest::Fraction(400), 0, 0, None)
        .unwrap();
    c.take(&b);
    assert!(bf
        .find(&c, 0, GpuRequest::Fraction(1), 0, 0, None)
        .is_none());
    c.give_back(&a);
    assert_eq!(c.node_free_milli(0), &[600]);
}

#[test]
fn cpu_and_memory_limit_placement() {
    let c = Cluster::new(vec![PoolSpec::test(1, 8)]);
    let bf = best_fit();
    assert!(bf
        .find(&c, 0, GpuRequest::Whole(1), 65_000, 0, None)
        .is_none());
    assert!(c.nodes_needed(0, GpuRequest::Whole(16), 0, 0).is_none());
}

#[test]
fn reserved_nodes_are_avoided() {
    let c = Cluster::new(vec![PoolSpec::test(2, 8)]);
    let bf = best_fit();
    let r = ReservedNodes(vec![0, 1]);
    assert!(bf
        .find(&c, 0, GpuRequest::Whole(1), 0, 0, Some(&r))
        .is_none());
    let r = ReservedNodes(vec![1]);
    assert_eq!(
        bf.find(&c, 0, GpuRequest::Whole(1), 0, 0, Some(&r))
            .unwrap()
            .hosts[0]
            .0,
        0
    );
}

#[test]
fn cluster_uses_the_scorer() {
    let spec = NodeSpec {
        gpus: 2,
        cpu_milli: 8000,
        mem_mib: 1000,
    };
    let mut c = Cluster::new(vec![PoolSpec {
        name: "p".into(),
        gpu_type: 0,
        kind: CapacityKind::Owned,
        node: spec,
        nodes: 3,
        speed: 1.0,
    }]);
    let w = Workload::default();
    let packing = Placer::for_run(PlacementKind::GpuPacking, &mut c, &w);
    let a = packing
        .find(&c, 0, GpuRequest::Fraction(300), 100, 10, None)
        .unwrap();
    c.take(&a);
    let used = a.gpus[0].node;
    // Packing puts the next share on the same, already used GPU.
    let b = packing
        .find(&c, 0, GpuRequest::Fraction(500), 100, 10, None)
        .unwrap();
    assert_eq!((b.gpus[0].node, b.gpus[0].gpu), (used, a.gpus[0].gpu));
    c.take(&b);
    // A 2-GPU job cannot use that node (one GPU is partly used).
    let g = packing
        .find(&c, 0, GpuRequest::Whole(2), 100, 10, None)
        .unwrap();
    assert_ne!(g.gpus[0].node, used);
    assert_eq!(g.gpus.len(), 2);
}

#[test]
fn clustering_reads_what_nodes_hold() {
    let mut c = Cluster::new(vec![PoolSpec::test(3, 4)]);
    let w = Workload::default();
    let clustering = Placer::for_run(PlacementKind::GpuClustering, &mut c, &w);
    // Node 0 takes a 2-GPU task (lowest of the empty nodes), node 1 a 1-GPU task.
    let a = clustering
        .find(&c, 0, GpuRequest::Whole(2), 0, 0, None)
        .unwrap();
    assert_eq!(a.hosts[0].0, 0);
    c.take(&a);
    let one = Allocation {
        pool: 0,
        gpus: vec![GpuSlice {
            node: 1,
            gpu: 0,
            milli: 1000,
        }],
        hosts: vec![(1, 0, 0)],
    };
    c.take(&one);
    // A 1-GPU task goes next to its kind (node 1), not to the lower node 0.
    let b = clustering
        .find(&c, 0, GpuRequest::Whole(1), 0, 0, None)
        .unwrap();
    assert_eq!(b.hosts[0].0, 1);
    c.take(&b);
    // Once node 0 is empty again, a 2-GPU task goes to an idle node (node 0, the lowest)
    // before node 1, which holds only another tag: the artifact's bands give an idle
    // 4-GPU node 25 + 25 x 4000 / 8000 = 37, node 1 25 x 6000 / 8000 = 18.
    c.give_back(&a);
    let d = clustering
        .find(&c, 0, GpuRequest::Whole(2), 0, 0, None)
        .unwrap();
    assert_eq!(d.hosts[0].0, 0);
}

#[test]
fn random_spreads_over_fitting_nodes() {
    let mut c = Cluster::new(vec![PoolSpec::test(4, 1)]);
    let w = Workload::default();
    let mut random = Placer::for_run(PlacementKind::Random, &mut c, &w);
    random.set_rng(crate::engine::RngStreams::new(7).stream("placement"));
    let mut seen = [0u32; 4];
    for _ in 0..200 {
        let a = random
            .find(&c, 0, GpuRequest::Whole(1), 0, 0, None)
            .unwrap();
        seen[a.hosts[0].0 as usize] += 1;
    }
    // 200 draws over 4 nodes: each is hit (p of missing one < 4 * 0.75^200).
    assert!(seen.iter().all(|&k| k > 0), "{seen:?}");
}
