//! Building a run's cost ledger from its usage and the pools' prices.

use crate::pricing::{CostKind, FlatRate, Ledger, LedgerKey};
use crate::sim::RunResult;
use std::collections::BTreeMap;

/// The ledger of a finished run: each pool costs `nodes x hours x rate`; its busy share
/// (busy GPU-time / provisioned GPU-time) is charged to tenants by the GPU-time their jobs
/// held over all their run segments, the rest is idle.
pub fn ledger_from_run(result: &RunResult, rates: &[FlatRate]) -> Ledger {
    let mut ledger = Ledger::default();
    let hours = result.end.hours_f64();
    let held: BTreeMap<(u32, u32), u128> = result.tenant_busy_gpu_ms.iter().copied().collect();
    for (p, usage) in result.pools.iter().enumerate() {
        let total = usage.nodes as f64 * hours * rates[p].usd_per_node_hour;
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
