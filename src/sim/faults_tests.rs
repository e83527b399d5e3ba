//! Unit tests of the faults part: each pool draws from its own streams.

use super::*;
use crate::faults::{llama3_h100, SpotInterruptions};
use crate::model::{CapacityKind, NodeSpec, PoolSpec};
use crate::pricing::PoissonHazard;
use crate::workload::DurationDist;

fn pool(name: &str, nodes: u32) -> PoolSpec {
    PoolSpec {
        name: name.into(),
        gpu_type: 0,
        kind: CapacityKind::Spot,
        node: NodeSpec {
            gpus: 8,
            cpu_milli: 64_000,
            mem_mib: 512 * 1024,
        },
        nodes,
        speed: 1.0,
    }
}

/// What the faults part does to pool `name` over `days`: each fault event on one of its
/// nodes (node index within the pool), with the strike's cause and follow-up times. The
/// strikes are not applied (no node goes down), so every failure draws its cause and
/// repair.
fn history(pools: Vec<PoolSpec>, name: &str, days: u64) -> Vec<(SimTime, String)> {
    let cluster = Cluster::new(pools);
    let p = cluster
        .pools()
        .iter()
        .position(|q| q.spec.name == name)
        .unwrap_or(0);
    let mut cfg = FaultConfig::none();
    // Failures on every pool at a high rate, exponential repairs, and spot notices on
    // every pool.
    let mut process = llama3_h100().process;
    process.rate_per_day *= 50.0;
    cfg.processes.push((process, Vec::new()));
    cfg.repair = DurationDist::Exponential {
        mean: SimTime::from_secs(4 * 3600),
    };
    for k in 0..cluster.pools().len() {
        cfg.spot.push(SpotInterruptions {
            pool: k,
            model: SpotModel::Poisson(PoissonHazard { per_hour: 0.01 }),
            notice: SimTime::from_secs(120),
            replace_after: SimTime::from_secs(300),
        });
    }
    let mut queue = EventQueue::new();
    let mut f = Faults::new(cfg, &RngStreams::new(11), &cluster, &mut queue);
    let nodes = cluster.pool_nodes(p);
    let end = SimTime::from_secs(days * 86_400);
    let mut out = Vec::new();
    while let Some(s) = queue.pop_until(end) {
        let Event::Fault(ev) = s.event else { continue };
        let strike = f.on_event(ev, s.time, &cluster, &mut queue);
        for (at, next) in strike.then.iter().flatten() {
            queue.schedule(*at, Event::Fault(*next));
        }
        let node = match ev {
            FaultEvent::NodeFail { node, .. }
            | FaultEvent::NodeRepair { node }
            | FaultEvent::SpotNotice { node, .. } => node,
            _ => continue,
        };
        if nodes.contains(&node) {
            let then: Vec<SimTime> = strike.then.iter().flatten().map(|x| x.0).collect();
            let cause = strike.kill.map(|k| k.cause).unwrap_or_default();
            let what = format!(
                "{:?} node {} {cause} {then:?}",
                std::mem::discriminant(&ev),
                node - nodes.start
            );
            out.push((s.time, what));
        }
    }
    out
}

#[test]
fn adding_a_pool_does_not_change_another_pools_failures() {
    let alone = history(vec![pool("a", 4)], "a", 60);
    assert!(alone.len() > 100, "{} events", alone.len());
    // Pools added before and after "a" (so its node indices move) draw from their own
    // streams: "a" fails, is repaired and is interrupted at the same times.
    let among = history(vec![pool("b", 3), pool("a", 4), pool("c", 5)], "a", 60);
    assert_eq!(alone, among);
    // A pool of another name is another draw.
    let renamed = history(vec![pool("z", 4)], "z", 60);
    assert_ne!(
        alone.iter().map(|x| x.0).collect::<Vec<_>>(),
        renamed.iter().map(|x| x.0).collect::<Vec<_>>()
    );
}
