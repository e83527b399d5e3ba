//! Building a run's cost ledger from its usage and the pools' pricing models.
//!
//! Each pool's pricing model turns the intervals the pool held (for fixed-size pools, all
//! its nodes over the whole run) into charges by kind. The busy share of each charge
//! (busy GPU-time / provisioned GPU-time) goes to tenants by the GPU-time their jobs held,
//! and to those jobs; the rest is booked to nobody (idle compute, unused commitment, or
//! the owned/spot kind itself).

use crate::pricing::{FlatRate, HeldInterval, Ledger, LedgerKey, PoolPricing};
use crate::sim::RunResult;
use std::collections::BTreeMap;

/// A run's costs: the ledger, and each job's share in dollars.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunCost {
    /// Dollars by (pool, tenant, kind).
    pub ledger: Ledger,
    /// Dollars attributed to each job (indexed like the workload; 0 if it never ran).
    pub job_usd: Vec<f64>,
}

/// The intervals each pool held. Fixed-size pools hold every node over `[0, end]`;
/// elastic pools (those with `billed_node_ms`) one interval per node grant, from the
/// autoscaler's record (a node still held at a horizon is cut there).
pub fn held_intervals(result: &RunResult) -> Vec<Vec<HeldInterval>> {
    let mut out: Vec<Vec<HeldInterval>> = result
        .pools
        .iter()
        .map(|p| match p.billed_node_ms {
            None => vec![HeldInterval::whole_run(p.nodes, result.end)],
            Some(_) => Vec::new(),
        })
        .collect();
    for iv in &result.node_intervals {
        let p = iv.pool as usize;
        if result
            .pools
            .get(p)
            .is_some_and(|u| u.billed_node_ms.is_some())
            && iv.requested < result.end
        {
            out[p].push(HeldInterval {
                requested: iv.requested,
                ready: iv.ready,
                // Released after the end only when the run ended with its work done and
                // the node was kept to its paid block's end (see the simulation's wind-down).
                released: iv.released.unwrap_or(result.end),
                nodes: 1,
                interrupted_by_provider: false,
            });
        }
    }
    out
}

/// The ledger of a finished run under flat rates (each pool costs `nodes x hours x rate`).
pub fn ledger_from_run(result: &RunResult, rates: &[FlatRate]) -> Ledger {
    let pricing: Vec<PoolPricing> = rates
        .iter()
        .map(|r| PoolPricing::flat(r.usd_per_node_hour))
        .collect();
    run_cost(result, &pricing).ledger
}

/// The costs of a finished run under each pool's pricing model. A pool's busy share is
/// charged to tenants by the GPU-time their jobs held over all their run segments (so a
/// job killed and restarted pays for every segment), and to each job the same way.
pub fn run_cost(result: &RunResult, pricing: &[PoolPricing]) -> RunCost {
    let mut ledger = Ledger::default();
    let mut job_usd = vec![0.0; result.jobs.len()];
    // GPU-ms held per (pool, tenant), over every run segment, and per job.
    let held: BTreeMap<(u32, u32), u128> = result.tenant_busy_gpu_ms.iter().copied().collect();
    let job_ms: Vec<u128> = result
        .jobs
        .iter()
        .map(|r| r.gpu_milli as u128 * r.held.0 as u128 / 1000)
        .collect();
    let intervals = held_intervals(result);
    // Dollars per busy GPU-ms of each pool, summed over its charges.
    let mut pool_rate = vec![0.0; result.pools.len()];
    for (p, usage) in result.pools.iter().enumerate() {
        let Some(model) = pricing.get(p) else {
            continue;
        };
        let load = if usage.provisioned_gpu_ms > 0 {
            (usage.busy_gpu_ms as f64 / usage.provisioned_gpu_ms as f64).min(1.0)
        } else {
            0.0
        };
        for charge in model.charges(&intervals[p], result.end, load) {
            let idle_key = LedgerKey {
                pool: p as u32,
                tenant: None,
                kind: charge.idle,
            };
            if usage.provisioned_gpu_ms == 0 {
                ledger.add(idle_key, charge.usd);
                continue;
            }
            let per_gpu_ms = charge.usd / usage.provisioned_gpu_ms as f64;
            let mut busy = 0.0;
            for (&(pool, tenant), &ms) in held.range((p as u32, 0)..=(p as u32, u32::MAX)) {
                let usd = ms as f64 * per_gpu_ms;
                busy += usd;
                ledger.add(
                    LedgerKey {
                        pool,
                        tenant: Some(tenant),
                        kind: charge.busy,
                    },
                    usd,
                );
            }
            ledger.add(idle_key, charge.usd - busy);
            pool_rate[p] += per_gpu_ms;
        }
    }
    for (i, r) in result.jobs.iter().enumerate() {
        if let Some(p) = r.pool {
            job_usd[i] = job_ms[i] as f64 * pool_rate.get(p as usize).copied().unwrap_or(0.0);
        }
    }
    add_transfers(&mut ledger, result, &crate::pricing::Egress::aws_internet());
    RunCost { ledger, job_usd }
}

/// Charges checkpoint moves to the destination pool and the job's tenant: cross-zone GB
/// at the cross-zone price each way (sender and receiver both pay), cross-region GB as
/// internet egress on the tiers, counted cumulatively over the run (a run longer than a
/// month would restart the tiers each month; this does not).
fn add_transfers(ledger: &mut Ledger, result: &RunResult, egress: &crate::pricing::Egress) {
    let Some(f) = &result.faults else { return };
    let mut region_gb = 0.0;
    for &(pool, tenant, gb, kind) in &f.transfers {
        let usd = match kind {
            crate::faults::TransferKind::CrossZone => 2.0 * egress.cross_zone_cost(gb),
            crate::faults::TransferKind::CrossRegion => {
                let before = egress.internet_cost(region_gb);
                region_gb += gb;
                egress.internet_cost(region_gb) - before
            }
        };
        ledger.add(
            LedgerKey {
                pool,
                tenant: Some(tenant),
                kind: crate::pricing::CostKind::Transfer,
            },
            usd,
        );
    }
}
