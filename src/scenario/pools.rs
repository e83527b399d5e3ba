//! Validation of `[[pools]]`: names, GPU type, node shape, prices (see `pricing`), the
//! autoscaler (see `autoscale`), and fungible pools.

use super::pricing::pool_price;
use super::problems::Problems;
use super::raw::RawPool;
use crate::model::{GpuType, NodeSpec, PoolSpec};
use crate::pricing::PoolPricing;
use crate::sched::Autoscale;
use std::path::Path;

/// Nodes a pool may have, and all pools together ([`crate::model::MAX_NODES`]).
const MAX_NODES: i64 = crate::model::MAX_NODES as i64;
/// Pools a scenario may have (the shipped scenarios have at most 4; per-pool figures are
/// summed over the cost ledger, and 20,000 pools took half a minute).
const MAX_POOLS: usize = 1_000;
/// GPUs a node may have.
const MAX_GPUS_PER_NODE: i64 = 1024;
/// GPU slots a fungible pool may have.
const MAX_FUNGIBLE_SLOTS: u64 = 10_000_000;

/// The validated pools, one entry per pool in each list (the shape `Scenario` keeps).
#[derive(Debug, Default)]
pub(super) struct Pools {
    /// What the cluster is made of.
    pub specs: Vec<PoolSpec>,
    /// The pricing model of each pool.
    pub pricing: Vec<PoolPricing>,
    /// The autoscaler of each elastic pool.
    pub autoscale: Vec<Option<Autoscale>>,
}

/// One validated pool.
struct Pool {
    spec: PoolSpec,
    pricing: PoolPricing,
    autoscale: Option<Autoscale>,
}

/// Validates every pool; GPU types that pools name from the built-in list join `types`.
pub(super) fn pools(
    c: &mut Problems,
    raw: &[RawPool],
    types: &mut Vec<GpuType>,
    base: &Path,
) -> Pools {
    if raw.is_empty() {
        c.err("pools", "a scenario needs at least one pool");
    }
    if raw.len() > MAX_POOLS {
        c.err(
            "pools",
            format!(
                "{} pools, more than the {MAX_POOLS} a scenario may have",
                raw.len()
            ),
        );
        return Pools::default();
    }
    let total: i64 = raw.iter().map(|p| p.nodes.clamp(0, MAX_NODES)).sum();
    if total > MAX_NODES {
        c.err(
            "pools",
            format!(
                "{total} nodes in all pools together, more than the {MAX_NODES} a scenario may have"
            ),
        );
    }
    let mut out = Pools::default();
    for i in 0..raw.len() {
        let pool = pool(c, i, raw, types, base);
        out.specs.push(pool.spec);
        out.pricing.push(pool.pricing);
        out.autoscale.push(pool.autoscale);
    }
    out
}

/// Validates pool `i` of `all`.
fn pool(
    c: &mut Problems,
    i: usize,
    all: &[RawPool],
    types: &mut Vec<GpuType>,
    base: &Path,
) -> Pool {
    let rp = &all[i];
    let p = format!("pools[{i}]");
    if rp.name == "total" || rp.name.is_empty() {
        c.err(
            format!("{p}.name"),
            "a pool name must be non-empty and not \"total\"",
        );
    }
    if all[..i].iter().any(|q| q.name == rp.name) {
        c.err(
            format!("{p}.name"),
            format!("pool name {:?} is used twice", rp.name),
        );
    }
    let gpu_type = super::gpu_types::resolve(c, types, &format!("{p}.gpu_type"), &rp.gpu_type);
    let node = node_shape(c, &p, rp);
    let nodes = rp.nodes.clamp(1, MAX_NODES) as u32;
    let priced = pool_price(i, rp, nodes, base, c);
    let autoscale = rp
        .autoscale
        .as_ref()
        .map(|a| super::autoscale::autoscale(c, &p, a, rp, nodes));
    let spec = PoolSpec {
        name: rp.name.clone(),
        gpu_type,
        kind: rp.kind,
        node,
        nodes,
        speed: types.get(gpu_type).map_or(1.0, |t| t.speed),
    };
    if rp.fungible && rp.autoscale.is_some() {
        c.err(
            format!("{p}.fungible"),
            "a fungible pool cannot autoscale (it has no nodes to rent)",
        );
    }
    if rp.fungible {
        return fungible(c, &p, rp, spec, priced.rate, autoscale);
    }
    Pool {
        spec,
        pricing: priced.pricing,
        autoscale,
    }
}

/// A node of pool `p`: its GPUs, CPU and memory (defaults: 16 cores and 256 GiB a GPU).
fn node_shape(c: &mut Problems, p: &str, rp: &RawPool) -> NodeSpec {
    if rp.nodes < 1 || rp.nodes > MAX_NODES {
        c.err(
            format!("{p}.nodes"),
            format!("must be between 1 and {MAX_NODES}, got {}", rp.nodes),
        );
    }
    if rp.gpus_per_node < 0 || rp.gpus_per_node > MAX_GPUS_PER_NODE {
        c.err(
            format!("{p}.gpus_per_node"),
            format!(
                "must be between 0 and {MAX_GPUS_PER_NODE}, got {}",
                rp.gpus_per_node
            ),
        );
    }
    let gpus = rp.gpus_per_node.clamp(0, MAX_GPUS_PER_NODE) as u16;
    let cpu = c.nonneg(
        &format!("{p}.cpu_cores_per_node"),
        rp.cpu_cores_per_node.unwrap_or(gpus as f64 * 16.0),
    );
    let mem = c.nonneg(
        &format!("{p}.memory_gib_per_node"),
        rp.memory_gib_per_node.unwrap_or(gpus as f64 * 256.0),
    );
    NodeSpec {
        gpus,
        cpu_milli: (cpu * 1000.0) as u32,
        mem_mib: (mem * 1024.0) as u64,
    }
}

/// A fungible pool: no node boundaries, every GPU a slot of its own with no CPU or memory
/// limit, so any job that asks for at most the pool's GPUs fits once they are free. Each
/// slot is billed a flat share of the node price.
fn fungible(
    c: &mut Problems,
    p: &str,
    rp: &RawPool,
    mut spec: PoolSpec,
    node_price: f64,
    autoscale: Option<Autoscale>,
) -> Pool {
    let gpn = spec.node.gpus;
    let slots = spec.nodes as u64 * gpn as u64;
    if gpn == 0 || slots > MAX_FUNGIBLE_SLOTS {
        c.err(
            format!("{p}.fungible"),
            format!("a fungible pool needs 1 to {MAX_FUNGIBLE_SLOTS} GPUs, got {slots}"),
        );
    }
    if rp.pricing.is_some() {
        c.err(
            format!("{p}.pricing"),
            "pricing models bill whole nodes; a fungible pool takes only price_per_node_hour",
        );
    }
    spec.node = NodeSpec {
        gpus: 1,
        cpu_milli: u32::MAX,
        mem_mib: u64::MAX,
    };
    spec.nodes = slots.clamp(1, MAX_FUNGIBLE_SLOTS) as u32;
    let slot_price = node_price / gpn.max(1) as f64;
    Pool {
        spec,
        pricing: PoolPricing::flat(slot_price),
        autoscale,
    }
}
