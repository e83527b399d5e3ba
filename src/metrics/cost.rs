//! Building a run's cost ledger from its usage and the pools' prices.

use crate::pricing::{CostKind, FlatRate, Ledger, LedgerKey};
use crate::sim::RunResult;
use std::collections::BTreeMap;

/// The ledger of a finished run: each pool costs `nodes x hours x rate` (an elastic pool:
/// its billed node-hours x rate); its busy share
/// (busy GPU-time / provisioned GPU-time) is charged to tenants by the GPU-time their jobs
/// held, the rest is idle. `tenant_of(i)` is job `i`'s tenant.
pub fn ledger_from_run(
    result: &RunResult,
    rates: &[FlatRate],
    tenant_of: impl Fn(usize) -> u32,
) -> Ledger {
    let mut ledger = Ledger::default();
    let hours = result.end.hours_f64();
    // GPU-ms held per (pool, tenant).
    let mut held: BTreeMap<(u32, u32), u128> = BTreeMap::new();
    for (i, r) in result.jobs.iter().enumerate() {
        if let (Some(start), Some(pool)) = (r.start, r.pool) {
            let end = r.end.unwrap_or(result.end).min(result.end);
            let ms = r.gpu_milli as u128 * end.since(start).0 as u128 / 1000;
            *held.entry((pool, tenant_of(i))).or_insert(0) += ms;
        }
    }
    for (p, usage) in result.pools.iter().enumerate() {
        // Fixed pools are paid for the whole run; elastic pools for the node-time billed
        // over the intervals their nodes were held.
        let node_hours = match usage.billed_node_ms {
            Some(ms) => ms as f64 / 3.6e6,
            None => usage.nodes as f64 * hours,
        };
        let total = node_hours * rates[p].usd_per_node_hour;
        let idle_key = LedgerKey {
            pool: p as u32,
            tenant: None,
            kind: CostKind::IdleCompute,
        };
        if usage.provisioned_gpu_ms == 0 {
            ledger.add(idle_key, total);
            continue;
        }
        let per_gpu_ms = total / usage.provisioned_gpu_ms as f64;
        let mut busy = 0.0;
        for (&(pool, tenant), &ms) in held.range((p as u32, 0)..=(p as u32, u32::MAX)) {
            let usd = ms as f64 * per_gpu_ms;
            busy += usd;
            ledger.add(
                LedgerKey {
                    pool,
                    tenant: Some(tenant),
                    kind: CostKind::BusyCompute,
                },
                usd,
            );
        }
        ledger.add(idle_key, total - busy);
    }
    ledger
}
