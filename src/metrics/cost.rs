//! A run's cost ledger: the usage each pool recorded, priced by the run's prices
//! ([`RunPricing`]: each pool's [`PricingModel`], the savings plan, data transfer), and
//! every dollar attributed once. Pricing rules live in `pricing`; this module only builds
//! the usage records and attributes the bills.
//!
//! Attribution: the busy share of each of a pool's ledger lines (busy GPU-time over the
//! GPU-time the bill pays for) goes to tenants by the GPU-time their jobs held, and to
//! those jobs; the rest is booked to nobody (idle compute, unused commitment, or the
//! owned/spot kind itself).

use crate::faults::TransferKind;
use crate::pricing::{
    CostKind, HeldInterval, Ledger, LedgerKey, MoveScope, PoolPricing, PricingModel, RunPricing,
    SavingsPlan, TransferSpec, UsageRecord,
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

/// Each pool's usage over the run, as pricing models read it. Node-time down (failures,
/// maintenance, spot capacity taken away) is reported beside the held intervals unless
/// the pool reported its own intervals, which already leave it out. Each job's GPU-time
/// (over all its run segments) is in the pool it last ran in.
pub fn usage_records(result: &RunResult) -> Vec<UsageRecord> {
    let mut out: Vec<UsageRecord> = result
        .pools
        .iter()
        .zip(held_intervals(result))
        .enumerate()
        .map(|(p, (pool, held))| UsageRecord {
            end: result.end,
            kind: pool.kind,
            nodes: pool.nodes,
            held,
            provisioned_gpu_ms: pool.provisioned_gpu_ms,
            busy_gpu_ms: pool.busy_gpu_ms,
            down_node_ms: result
                .faults
                .as_ref()
                .map(|f| f.down_node_ms.get(p).copied().unwrap_or(0)),
            by_tenant: Vec::new(),
            by_job: Vec::new(),
        })
        .collect();
    let by_key: BTreeMap<(u32, u32), u128> = result.tenant_busy_gpu_ms.iter().copied().collect();
    for (&(pool, tenant), &ms) in &by_key {
        if let Some(u) = out.get_mut(pool as usize) {
            u.by_tenant.push((tenant, ms));
        }
    }
    for (i, r) in result.jobs.iter().enumerate() {
        if let Some(u) = r.pool.and_then(|p| out.get_mut(p as usize)) {
            u.by_job
                .push((i, r.gpu_milli as u128 * r.held.0 as u128 / 1000));
        }
    }
    out
}

/// The costs of a finished run under its prices: the pools' bills, data moved with
/// checkpoints, the savings plan, then each completed job's traffic. `tenant_of` gives
/// job `i`'s tenant. The one costing step of the run path.
pub fn price_run(
    result: &RunResult,
    pricing: &RunPricing,
    tenant_of: impl Fn(usize) -> u32,
) -> RunCost {
    let usage = usage_records(result);
    let mut cost = attribute_bills(result.jobs.len(), &usage, &pricing.pools);
    book_moves(&mut cost.ledger, result, &pricing.moves);
    book_staging(&mut cost, result, &tenant_of);
    if let Some(plan) = &pricing.savings_plan {
        settle_plan(&mut cost, result, &usage, &pricing.pools, plan);
    }
    if let Some(t) = &pricing.transfer {
        apply_transfer(&mut cost, result, t, tenant_of);
    }
    cost
}

/// The pools' bills alone (no savings plan, no data transfer), attributed. Tenants are
/// charged by the GPU-time their jobs held over all their run segments; each job by its
/// own held GPU-time in the pool it last ran in.
pub fn run_cost(result: &RunResult, pricing: &[PoolPricing]) -> RunCost {
    attribute_bills(result.jobs.len(), &usage_records(result), pricing)
}

/// The ledger of the pools' bills alone (see [`run_cost`]).
pub fn ledger_from_run(result: &RunResult, pricing: &[PoolPricing]) -> Ledger {
    run_cost(result, pricing).ledger
}

/// Bills each pool and attributes each line: its busy share to tenants and jobs by the
/// GPU-time they held, the rest to nobody.
fn attribute_bills(jobs: usize, usage: &[UsageRecord], pricing: &[PoolPricing]) -> RunCost {
    let mut ledger = Ledger::default();
    let mut job_usd = vec![0.0; jobs];
    for (p, u) in usage.iter().enumerate() {
        let Some(model) = pricing.get(p) else {
            continue;
        };
        let bill = model.bill(u);
        // Dollars per busy GPU-ms, summed over the bill's lines.
        let mut rate = 0.0;
        for charge in bill.charges {
            let idle_key = LedgerKey {
                pool: p as u32,
                tenant: None,
                kind: charge.idle,
            };
            if bill.paid_gpu_ms <= 0.0 {
                ledger.add(idle_key, charge.usd);
                continue;
            }
            let per_gpu_ms = charge.usd / bill.paid_gpu_ms;
            let mut busy = 0.0;
            for &(tenant, ms) in &u.by_tenant {
                let usd = ms as f64 * per_gpu_ms;
                busy += usd;
                ledger.add(
                    LedgerKey {
                        pool: p as u32,
                        tenant: Some(tenant),
                        kind: charge.busy,
                    },
                    usd,
                );
            }
            ledger.add(idle_key, charge.usd - busy);
            rate += per_gpu_ms;
        }
        // Each job is in one pool's record (the pool it last ran in).
        for &(i, ms) in &u.by_job {
            if let Some(x) = job_usd.get_mut(i) {
                *x = ms as f64 * rate;
            }
        }
    }
    RunCost { ledger, job_usd }
}

/// Books each checkpoint moved between places to its destination pool and the job's
/// tenant, at the move's price.
fn book_moves(ledger: &mut Ledger, result: &RunResult, moves: &crate::pricing::Egress) {
    let Some(f) = &result.faults else { return };
    let scope = |k: TransferKind| match k {
        TransferKind::CrossZone => MoveScope::CrossZone,
        TransferKind::CrossRegion => MoveScope::CrossRegion,
    };
    let prices = moves.move_charges(f.transfers.iter().map(|&(_, _, gb, k)| (gb, scope(k))));
    for (&(pool, tenant, _, _), usd) in f.transfers.iter().zip(prices) {
        ledger.add(
            LedgerKey {
                pool,
                tenant: Some(tenant),
                kind: CostKind::Transfer,
            },
            usd,
        );
    }
}

/// Books each job's dataset transfers (priced by the simulation's staging part at the
/// link's catalog price, tiers by the month's volume) to its pool, tenant and itself.
fn book_staging(cost: &mut RunCost, result: &RunResult, tenant_of: &impl Fn(usize) -> u32) {
    let Some(c) = &result.cloud else { return };
    for (i, (j, r)) in c.jobs.iter().zip(&result.jobs).enumerate() {
        if let (Some(pool), true) = (r.pool, j.transfer_usd != 0.0) {
            cost.ledger.add(
                LedgerKey {
                    pool,
                    tenant: Some(tenant_of(i)),
                    kind: CostKind::Transfer,
                },
                j.transfer_usd,
            );
            cost.job_usd[i] += j.transfer_usd;
        }
    }
}

/// Applies a savings plan to a run's costs (as [`price_run`] does): the covered pools'
/// compute entries (and the jobs in those pools) are scaled to what their usage costs
/// under the plan ([`SavingsPlan::settle`]), and the unused commitment is booked to the
/// pools the settlement names.
pub fn apply_savings_plan(
    cost: &mut RunCost,
    result: &RunResult,
    pricing: &[PoolPricing],
    plan: &SavingsPlan,
) {
    settle_plan(cost, result, &usage_records(result), pricing, plan);
}

fn settle_plan(
    cost: &mut RunCost,
    result: &RunResult,
    usage: &[UsageRecord],
    pricing: &[PoolPricing],
    plan: &SavingsPlan,
) {
    let s = plan.settle(usage, pricing, result.end);
    let list: f64 = s.list_by_pool.iter().sum();
    let is_covered = |p: u32| s.covered.iter().any(|&q| q as u32 == p);
    let compute = |k: &LedgerKey| {
        is_covered(k.pool) && matches!(k.kind, CostKind::BusyCompute | CostKind::IdleCompute)
    };
    if list > 0.0 {
        let listed = cost.ledger.sum_where(compute);
        let factor = if listed > 0.0 {
            s.consumed / listed
        } else {
            1.0
        };
        cost.ledger.scale_where(compute, factor);
        for (i, r) in result.jobs.iter().enumerate() {
            if r.pool.is_some_and(is_covered) {
                cost.job_usd[i] *= factor;
            }
        }
    }
    for &(p, usd) in &s.unused_by_pool {
        cost.ledger.add(
            LedgerKey {
                pool: p as u32,
                tenant: None,
                kind: CostKind::UnusedCommitment,
            },
            usd,
        );
    }
}

/// Charges each completed job's traffic (as [`price_run`] does), in order of end time, at
/// [`TransferSpec::job_charges`]; booked to the job's pool and tenant as `transfer`.
pub fn apply_transfer(
    cost: &mut RunCost,
    result: &RunResult,
    spec: &TransferSpec,
    tenant_of: impl Fn(usize) -> u32,
) {
    let mut done: Vec<(u64, usize, u32)> = result
        .jobs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.outcome == crate::sim::JobOutcome::Completed)
        .filter_map(|(i, r)| Some((r.end?.0, i, r.pool?)))
        .collect();
    done.sort_unstable();
    let ends: Vec<crate::engine::SimTime> = done
        .iter()
        .map(|&(end, _, _)| crate::engine::SimTime(end))
        .collect();
    for (&(_, i, pool), usd) in done.iter().zip(spec.job_charges(&ends)) {
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
