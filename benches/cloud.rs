//! The cloud model's cost: a generated 1,000,000-job trace on 1,024 GPUs (128 nodes x 8,
//! at about 90 % offered load) under EASY backfill, replayed plain, then with a fabric
//! (racks of 8, 30 % communication, 1:1 so that speeds and load stay those of the plain
//! replay) and `rack_pack`, with a two-class throughput table (per-class pool orders,
//! speeds of 1 for the same reason), and with a dataset per tenant staged across regions
//! under the data-aware order.
//!
//! Run: `cargo bench --bench cloud`. Target: each within 1.5x of the plain replay.

use gpufleet::engine::{RngStreams, SimTime};
use gpufleet::model::datasets::{DataPlaces, Dataset, LinkBandwidths, Place, StorageKind};
use gpufleet::model::fabric::{Fabric, InterNode, IntraNode};
use gpufleet::model::throughput::ClassSpeeds;
use gpufleet::model::{CapacityKind, GpuRequest, NodeSpec, PoolSpec};
use gpufleet::pricing::LinkPrices;
use gpufleet::sched::cloud::{DataOptions, FabricOptions, LocalityWait};
use gpufleet::sched::placement::PlacementKind;
use gpufleet::sched::{PolicyKind, PoolOrder};
use gpufleet::sim::{SimConfig, Simulation};
use gpufleet::workload::{apply_tags, DatasetShare, DurationDist, SyntheticSpec, TagSpec};
use std::time::Instant;

fn pool(name: &str, nodes: u32) -> PoolSpec {
    PoolSpec {
        name: name.into(),
        gpu_type: 0,
        kind: CapacityKind::OnDemand,
        node: NodeSpec {
            gpus: 8,
            cpu_milli: 128_000,
            mem_mib: 1 << 20,
        },
        nodes,
        speed: 1.0,
    }
}

fn config() -> SimConfig {
    SimConfig {
        pools: vec![pool("east", 64), pool("west", 64)],
        policy: PolicyKind::EasyBackfill,
        placement: Default::default(),
        horizon: None,
        sample_every: Some(SimTime::from_secs(3600)),
        options: gpufleet::sched::SchedOptions {
            gpu_hour_usd: vec![2.0, 1.5],
            // Every variant orders pools by price (the table's per-class orders give the
            // same order), so the figures compare the same schedule.
            pool_order: PoolOrder::Cheapest,
            ..Default::default()
        },
    }
}

/// Changes a variant makes to the plain config.
type Setup = Box<dyn Fn(&mut SimConfig)>;

fn place(region: &str) -> Place {
    Place {
        cloud: "aws".into(),
        region: region.into(),
        zone: String::new(),
    }
}

fn main() {
    let sizes = vec![
        (GpuRequest::Whole(1), 50.0),
        (GpuRequest::Whole(2), 15.0),
        (GpuRequest::Whole(4), 15.0),
        (GpuRequest::Whole(8), 15.0),
        (GpuRequest::Whole(16), 4.0),
        (GpuRequest::Whole(32), 1.0),
    ];
    let total: f64 = sizes.iter().map(|s| s.1).sum();
    let mean_gpus: f64 = sizes.iter().map(|(g, w)| g.gpus_f64() * w).sum::<f64>() / total;
    let duration = DurationDist::LogNormal {
        median: SimTime::from_secs(1800),
        sigma: 1.0,
    };
    let rate = 0.9 * 1024.0 / (mean_gpus * duration.mean_hours());
    let spec = SyntheticSpec {
        rate_per_hour: rate,
        until: None,
        jobs: Some(
            std::env::var("CLOUD_BENCH_JOBS")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(1_000_000),
        ),
        sizes,
        duration,
        tenants: vec![("a".into(), 1.0), ("b".into(), 1.0)],
        preemptible_share: 0.0,
        cpu_milli_per_gpu: 8_000,
        mem_mib_per_gpu: 64 * 1024,
    };
    let streams = RngStreams::new(1);
    let mut w = spec.generate(&streams);
    let tags = TagSpec {
        datasets: vec![
            (
                "da".into(),
                DatasetShare {
                    share: 0.5,
                    tenants: vec![],
                },
            ),
            (
                "db".into(),
                DatasetShare {
                    share: 0.5,
                    tenants: vec![],
                },
            ),
        ],
        class_mix: vec![("tf".into(), 1.0), ("cnn".into(), 1.0)],
    };
    if let Err(e) = apply_tags(&mut w, &tags, &streams) {
        eprintln!("{e}");
        return;
    }
    let fabric = Fabric {
        intra: IntraNode::Nvlink,
        intra_gbps: 7200.0,
        inter: InterNode::Infiniband,
        inter_gbps: 400.0,
        nodes_per_rack: 8,
        // 1:1 keeps every speed factor at 1, so the load (and the queue) stays that of
        // the plain replay and the figure is the machinery's cost alone.
        oversubscription: 1.0,
    };
    let data = DataOptions {
        places: DataPlaces::new(
            ["da", "db"]
                .iter()
                .map(|n| Dataset {
                    name: n.to_string(),
                    size_gb: 200.0,
                    home: place("us-east-1"),
                    storage: StorageKind::Object,
                    read_gbps: None,
                })
                .collect(),
            vec![place("us-east-1"), place("us-west-2")],
            LinkBandwidths::default(),
            SimTime::from_secs(3600),
        ),
        prices: vec![LinkPrices::from_catalog("aws").unwrap_or_else(|_| LinkPrices::free())],
        price_of: vec![0, 0],
        locality_wait: LocalityWait::Auto,
    };
    let variants: [(&str, Setup); 4] = [
        ("plain", Box::new(|_| {})),
        (
            "fabric+rack_pack",
            Box::new(move |c| {
                c.placement = PlacementKind::RackPack;
                c.options.cloud.fabric = Some(FabricOptions {
                    pools: vec![Some(fabric), Some(fabric)],
                    default_share: 0.3,
                    ..Default::default()
                });
            }),
        ),
        (
            "throughput table",
            Box::new(|c| {
                c.options.cloud.speeds = Some(ClassSpeeds::new(
                    vec![
                        // Speeds of 1 keep the plain replay's load (see the fabric).
                        ("tf".into(), vec![1.0, 1.0]),
                        ("cnn".into(), vec![1.0, 1.0]),
                    ],
                    2,
                ));
            }),
        ),
        (
            "datasets+data_aware",
            Box::new(move |c| {
                c.options.pool_order = PoolOrder::DataAware;
                c.options.cloud.data = Some(data.clone());
            }),
        ),
    ];
    for (name, set) in &variants {
        let mut cfg = config();
        set(&mut cfg);
        let t0 = Instant::now();
        let r = Simulation::new(cfg, &w).run();
        let dt = t0.elapsed().as_secs_f64();
        let busy: u128 = r.pools.iter().map(|p| p.busy_gpu_ms).sum();
        let prov: u128 = r.pools.iter().map(|p| p.provisioned_gpu_ms).sum();
        println!(
            "{name:<22} 1M jobs: {dt:.2} s, {:.2} M events/s, utilization {:.3}",
            r.events as f64 / dt / 1e6,
            busy as f64 / prov as f64
        );
    }
}
