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

/// The intervals each pool held. Fixed-size pools hold every node over `[0, end]`; pools
/// that grow and shrink will report their own intervals here.
pub fn held_intervals(result: &RunResult) -> Vec<Vec<HeldInterval>> {
    result
        .pools
        .iter()
        .map(|p| vec![HeldInterval::whole_run(p.nodes, result.end)])
        .collect()
}

/// The ledger of a finished run under flat rates (each pool costs `nodes x hours x rate`).
pub fn ledger_from_run(
    result: &RunResult,
    rates: &[FlatRate],
    tenant_of: impl Fn(usize) -> u32,
) -> Ledger {
    let pricing: Vec<PoolPricing> = rates
        .iter()
        .map(|r| PoolPricing::flat(r.usd_per_node_hour))
        .collect();
    run_cost(result, &pricing, tenant_of).ledger
}

/// The costs of a finished run under each pool's pricing model. `tenant_of(i)` is job
/// `i`'s tenant.
pub fn run_cost(
    result: &RunResult,
    pricing: &[PoolPricing],
    tenant_of: impl Fn(usize) -> u32,
) -> RunCost {
    let mut ledger = Ledger::default();
    let mut job_usd = vec![0.0; result.jobs.len()];
    // GPU-ms held per (pool, tenant), and per job.
    let mut held: BTreeMap<(u32, u32), u128> = BTreeMap::new();
    let mut job_ms = vec![0u128; result.jobs.len()];
    for (i, r) in result.jobs.iter().enumerate() {
        if let (Some(start), Some(pool)) = (r.start, r.pool) {
            let end = r.end.unwrap_or(result.end).min(result.end);
            let ms = r.gpu_milli as u128 * end.since(start).0 as u128 / 1000;
            job_ms[i] = ms;
            *held.entry((pool, tenant_of(i))).or_insert(0) += ms;
        }
    }
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
    RunCost { ledger, job_usd }
}
