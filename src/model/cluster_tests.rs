//! Unit tests of the cluster: placement choices, gangs, fractions, reservations.

use super::*;

fn pool(nodes: u32, gpus: u16) -> PoolSpec {
    PoolSpec {
        name: "p".into(),
        gpu_type: 0,
        kind: CapacityKind::Owned,
        node: NodeSpec {
            gpus,
            cpu_milli: 64_000,
            mem_mib: 512 * 1024,
        },
        nodes,
        speed: 1.0,
    }
}

#[test]
fn best_fit_picks_tightest_node() {
    let mut c = Cluster::new(vec![pool(3, 8)]);
    // Leave node 0 with 8 free, node 1 with 3 free, node 2 with 5 free.
    let a = c.find(0, GpuRequest::Whole(5), 0, 0, None).unwrap();
    c.take(&a);
    let held = a.hosts[0].0;
    let b = c.find(0, GpuRequest::Whole(3), 0, 0, None).unwrap();
    assert_eq!(
        b.hosts[0].0, held,
        "3 GPUs go to the node with exactly 3 free"
    );
    c.take(&b);
    let d = c.find(0, GpuRequest::Whole(3), 0, 0, None).unwrap();
    c.take(&d);
    let e = c.find(0, GpuRequest::Whole(2), 0, 0, None).unwrap();
    assert_eq!(
        e.hosts[0].0, d.hosts[0].0,
        "2 GPUs go to the node with 5 free, not 8"
    );
}

#[test]
fn gang_jobs_take_whole_nodes_or_nothing() {
    let mut c = Cluster::new(vec![pool(3, 8)]);
    let small = c.find(0, GpuRequest::Whole(1), 0, 0, None).unwrap();
    c.take(&small);
    // 20 GPUs need 3 whole nodes; only 2 are wholly free.
    assert!(c.find(0, GpuRequest::Whole(20), 0, 0, None).is_none());
    let g = c.find(0, GpuRequest::Whole(16), 0, 0, None).unwrap();
    assert_eq!(g.hosts.len(), 2);
    assert_eq!(g.gpus.len(), 16);
    c.give_back(&small);
    assert_eq!(c.free_nodes(0).len(), 3);
}

#[test]
fn fractions_share_a_gpu() {
    let mut c = Cluster::new(vec![pool(1, 1)]);
    let a = c.find(0, GpuRequest::Fraction(600), 0, 0, None).unwrap();
    c.take(&a);
    let b = c.find(0, GpuRequest::Fraction(400), 0, 0, None).unwrap();
    c.take(&b);
    assert!(c.find(0, GpuRequest::Fraction(1), 0, 0, None).is_none());
    c.give_back(&a);
    assert_eq!(c.node_free_milli(0), &[600]);
}

#[test]
fn cpu_and_memory_limit_placement() {
    let c = Cluster::new(vec![pool(1, 8)]);
    assert!(c.find(0, GpuRequest::Whole(1), 65_000, 0, None).is_none());
    assert!(c.nodes_needed(0, GpuRequest::Whole(16), 0, 0).is_none());
}

#[test]
fn reserved_nodes_are_avoided() {
    let c = Cluster::new(vec![pool(2, 8)]);
    let r = ReservedNodes(vec![0, 1]);
    assert!(c.find(0, GpuRequest::Whole(1), 0, 0, Some(&r)).is_none());
    let r = ReservedNodes(vec![1]);
    assert_eq!(
        c.find(0, GpuRequest::Whole(1), 0, 0, Some(&r))
            .unwrap()
            .hosts[0]
            .0,
        0
    );
}
