//! Building a run's cost ledger from its usage and the pools' pricing models.
//!
//! Each pool's pricing model turns the intervals the pool held (for fixed-size pools, all
//! its nodes over the whole run) into charges by kind. The busy share of each charge
//! (busy GPU-time / provisioned GPU-time) goes to tenants by the GPU-time their jobs held,
//! and to those jobs; the rest is booked to nobody (idle compute, unused commitment, or
//! the owned/spot kind itself).

use crate::model::CapacityKind;
use crate::pricing::{
    CostKind, FlatRate, HeldInterval, Ledger, LedgerKey, PoolPricing, SavingsPlan, TransferSpec,
};
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

/// The intervals each pool held: elastic pools (those with `billed_node_ms`) one interval
/// per node grant, from the autoscaler's record (a node still held at a horizon is cut
/// there); fixed-size pools every node over `[0, end]`.
pub fn held_intervals(result: &RunResult) -> Vec<Vec<HeldInterval>> {
    let mut out: Vec<Vec<HeldInterval>> = result
        .pools
        .iter()
        .map(|pool| match pool.billed_node_ms {
            None => vec![HeldInterval::whole_run(pool.nodes, result.end)],
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

/// The costs of a finished run under each pool's pricing model. Tenants are charged by the
/// GPU-time their jobs held over all their run segments; each job by its own held GPU-time
/// in the pool it last ran in.
pub fn run_cost(result: &RunResult, pricing: &[PoolPricing]) -> RunCost {
    let mut ledger = Ledger::default();
    let mut job_usd = vec![0.0; result.jobs.len()];
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
        // Spot capacity the provider took away (interruptions, stock-outs) is not billed:
        // without per-node intervals from the simulation, a spot pool's charges are scaled
        // to the share of its node-time that was up.
        let up_share = match (model, &result.faults) {
            (PoolPricing::Spot { .. }, Some(f)) => {
                let node_ms = usage.nodes as f64 * result.end.0 as f64;
                let down = f.down_node_ms.get(p).copied().unwrap_or(0) as f64;
                if node_ms > 0.0 {
                    (1.0 - down / node_ms).clamp(0.0, 1.0)
                } else {
                    1.0
                }
            }
            _ => 1.0,
        };
        for mut charge in model.charges(&intervals[p], result.end, load) {
            charge.usd *= up_share;
            let idle_key = LedgerKey {
                pool: p as u32,
                tenant: None,
                kind: charge.idle,
            };
            // The GPU-time paid for: all of it, or for spot only the part that was up.
            let paid_gpu_ms = usage.provisioned_gpu_ms as f64 * up_share;
            if paid_gpu_ms <= 0.0 {
                ledger.add(idle_key, charge.usd);
                continue;
            }
            let per_gpu_ms = charge.usd / paid_gpu_ms;
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

/// Applies a savings plan to a run's costs. Each hour `h` of the run, the on-demand pools'
/// (pools of kind `on_demand` priced per node-hour)
/// usage at list price `D_h` (node-hours held in that hour x rate) costs
/// `C + max(0, D_h - C / (1 - d))` instead of `D_h`. The on-demand entries (and the jobs
/// in those pools) are scaled to the part of that cost the usage consumed; the rest of the
/// commitment is booked as unused commitment, split over the on-demand pools by their
/// usage (to the first pool when there was none).
pub fn apply_savings_plan(
    cost: &mut RunCost,
    result: &RunResult,
    pricing: &[PoolPricing],
    plan: &SavingsPlan,
) {
    let intervals = held_intervals(result);
    let od: Vec<(usize, f64)> = pricing
        .iter()
        .enumerate()
        .filter_map(|(p, m)| match m {
            // Flat-rate pools are priced as on-demand; only on-demand capacity is covered.
            PoolPricing::OnDemand(o)
                if result.pools.get(p).map(|u| u.kind) == Some(CapacityKind::OnDemand) =>
            {
                Some((p, o.usd_per_node_hour))
            }
            _ => None,
        })
        .collect();
    let hour_ms = 3_600_000u64;
    let end = result.end.0;
    let covered = plan.commitment_per_hour / (1.0 - plan.discount);
    let mut usage_by_pool = vec![0.0; pricing.len()];
    let (mut consumed, mut unused) = (0.0, 0.0);
    let mut h0 = 0u64;
    while h0 < end {
        let h1 = (h0 + hour_ms).min(end);
        let frac = (h1 - h0) as f64 / hour_ms as f64;
        let mut d = 0.0;
        for &(p, rate) in &od {
            for iv in &intervals[p] {
                let a = iv.requested.0.max(h0);
                let b = iv.released.0.min(h1);
                if b > a {
                    let usd = iv.nodes as f64 * (b - a) as f64 / hour_ms as f64 * rate;
                    d += usd;
                    usage_by_pool[p] += usd;
                }
            }
        }
        // Per hour: the commitment C (prorated for a partial last hour) buys usage worth
        // up to C / (1 - d) at list price; usage beyond it is paid at list price.
        let c = plan.commitment_per_hour * frac;
        let cov = covered * frac;
        let used_share = if cov > 0.0 { (d / cov).min(1.0) } else { 1.0 };
        consumed += c * used_share + (d - cov).max(0.0);
        unused += c * (1.0 - used_share);
        h0 = h1;
    }
    let list: f64 = usage_by_pool.iter().sum();
    let is_od = |p: u32| od.iter().any(|&(q, _)| q as u32 == p);
    let busy_or_idle = |k: &LedgerKey| {
        is_od(k.pool) && matches!(k.kind, CostKind::BusyCompute | CostKind::IdleCompute)
    };
    if list > 0.0 {
        let listed = cost.ledger.sum_where(busy_or_idle);
        let factor = if listed > 0.0 { consumed / listed } else { 1.0 };
        cost.ledger.scale_where(busy_or_idle, factor);
        for (i, r) in result.jobs.iter().enumerate() {
            if r.pool.is_some_and(is_od) {
                cost.job_usd[i] *= factor;
            }
        }
    }
    for (p, usd) in usage_by_pool.iter().enumerate() {
        let share = if list > 0.0 {
            usd / list
        } else if p == od.first().map(|x| x.0).unwrap_or(0) {
            1.0
        } else {
            0.0
        };
        if share > 0.0 {
            cost.ledger.add(
                LedgerKey {
                    pool: p as u32,
                    tenant: None,
                    kind: CostKind::UnusedCommitment,
                },
                unused * share,
            );
        }
    }
}

/// Charges data transfer: each completed job's egress, priced at the margin of the month's
/// cumulative volume (months of 730 h from the start of the run, jobs in order of end
/// time), plus its cross-zone traffic; booked to the job's pool and tenant as `transfer`.
pub fn apply_transfer(
    cost: &mut RunCost,
    result: &RunResult,
    spec: &TransferSpec,
    tenant_of: impl Fn(usize) -> u32,
) {
    const MONTH_MS: u64 = 730 * 3_600_000;
    let mut done: Vec<(u64, usize, u32)> = result
        .jobs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.outcome == crate::sim::JobOutcome::Completed)
        .filter_map(|(i, r)| Some((r.end?.0, i, r.pool?)))
        .collect();
    done.sort_unstable();
    let mut month = u64::MAX;
    let mut volume = 0.0;
    for (end, i, pool) in done {
        if end / MONTH_MS != month {
            month = end / MONTH_MS;
            volume = 0.0;
        }
        let gb = spec.egress_gb_per_job;
        let usd = spec.egress.internet_cost(volume + gb) - spec.egress.internet_cost(volume)
            + spec.egress.cross_zone_cost(spec.cross_zone_gb_per_job);
        volume += gb;
        if usd != 0.0 {
            cost.ledger.add(
                LedgerKey {
                    pool,
                    tenant: Some(tenant_of(i)),
                    kind: CostKind::Transfer,
                },
                usd,
            );
            cost.job_usd[i] += usd;
        }
    }
}
