//! Validation of `[scheduler]`: the queue policy, the placement, pool order, tenant
//! weights and budget caps, into the scheduler's options.

use super::pools::Pools;
use super::problems::Problems;
use super::raw::{RawBudget, RawScheduler};
use crate::pricing::PricingModel;
use crate::sched::placement::PlacementKind;
use crate::sched::{BudgetCaps, PolicyKind, SchedOptions};

/// The validated `[scheduler]` table.
pub(super) struct Scheduler {
    /// Queue policy (default: EASY backfilling).
    pub policy: PolicyKind,
    /// How a node is chosen (default: best fit).
    pub placement: PlacementKind,
    /// Options of the policies; `autoscale` is taken from the pools.
    pub options: SchedOptions,
}

/// Validates `[scheduler]`; `pools` gives each pool's price per GPU-hour and autoscaler.
pub(super) fn scheduler(c: &mut Problems, s: &RawScheduler, pools: &mut Pools) -> Scheduler {
    let budget = s.budget.as_ref().map(|b| budget(c, b)).unwrap_or_default();
    let mut weights = Vec::new();
    for (name, &w) in &s.tenant_weights {
        c.weight(&format!("scheduler.tenant_weights.{name}"), w);
        weights.push((name.clone(), w));
    }
    let gpu_hour_usd: Vec<f64> = pools
        .specs
        .iter()
        .zip(&pools.pricing)
        .map(|(p, m)| m.gpu_hour_rate(p.nodes, p.node.gpus))
        .collect();
    Scheduler {
        policy: s.policy.unwrap_or(PolicyKind::EasyBackfill),
        placement: s.placement.unwrap_or_default(),
        options: SchedOptions {
            gpu_hour_usd,
            autoscale: std::mem::take(&mut pools.autoscale),
            pool_order: s.pool_order.unwrap_or_default(),
            budget,
            tenant_weights_by_name: weights,
            ..Default::default()
        },
    }
}

/// `[scheduler.budget]`: caps on spending, in total and per tenant.
fn budget(c: &mut Problems, b: &RawBudget) -> BudgetCaps {
    let mut caps = BudgetCaps::default();
    if let Some(t) = b.total_usd {
        caps.total_usd = Some(c.nonneg("scheduler.budget.total_usd", t));
    }
    for (name, &usd) in &b.per_tenant_usd {
        c.nonneg(&format!("scheduler.budget.per_tenant_usd.{name}"), usd);
        caps.per_tenant_usd.push((name.clone(), usd));
    }
    caps
}
