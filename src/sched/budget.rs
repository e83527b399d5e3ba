//! Which pools a job tries first, and budget caps on rented capacity.
//!
//! Pool order: the scenario's order (put owned first to use it before renting), by
//! capacity kind (owned, reserved, spot for preemptible jobs, on-demand), cheapest per
//! unit of work (GPU-hour price / speed) first, fastest first, or per job by expected
//! cost with its data's staging (`sched::cloud`).
//!
//! Budget caps bound what jobs may commit on rented pools (on-demand and spot): a start
//! there commits its GPUs x planned run time x the pool's GPU-hour price; a start that
//! would take the global total or its tenant's total past the cap does not happen there
//! (the job may still run on owned or reserved capacity, or wait). Commitments are by the
//! plan at start and are not refunded when a job ends early or is preempted: a cap is a
//! conservative spending limit, not a bill (pricing bills what was held).

use crate::engine::SimTime;
use crate::model::CapacityKind;

/// The order in which a job tries the pools it may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PoolOrder {
    /// The scenario's pool order.
    #[default]
    Scenario,
    /// Owned, then reserved, then spot (preemptible jobs only), then on-demand; scenario
    /// order within a kind.
    ByKind,
    /// Lowest GPU-hour price per unit of speed first; scenario order breaks ties. With a
    /// throughput table, per job class: each class goes where its throughput per dollar
    /// is highest (the heterogeneity-aware choice).
    Cheapest,
    /// Highest speed first (per class with a throughput table), price ignored; scenario
    /// order breaks ties: the speed-only choice.
    Fastest,
    /// Per job, lowest expected cost of the run first: compute at the pool's price and
    /// the class's speed, GPUs held while the data stages, and the transfer's dollars
    /// (see `sched::cloud`).
    DataAware,
}

/// Orders pool indices by `order`, given each pool's kind, speed and GPU-hour price.
pub fn pool_order(order: PoolOrder, pools: &[(CapacityKind, f64, f64)]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..pools.len()).collect();
    match order {
        PoolOrder::Scenario => {}
        PoolOrder::ByKind => idx.sort_by_key(|&p| {
            let rank = match pools[p].0 {
                CapacityKind::Owned => 0,
                CapacityKind::Reserved => 1,
                CapacityKind::Spot => 2,
                CapacityKind::OnDemand => 3,
            };
            (rank, p)
        }),
        PoolOrder::Cheapest => idx.sort_by(|&a, &b| {
            let v = |p: usize| pools[p].2 / pools[p].1.max(1e-12);
            v(a).total_cmp(&v(b)).then(a.cmp(&b))
        }),
        PoolOrder::Fastest => {
            idx.sort_by(|&a, &b| pools[b].1.total_cmp(&pools[a].1).then(a.cmp(&b)))
        }
        // Ranked per job at each attempt; the static order is the scenario's.
        PoolOrder::DataAware => {}
    }
    idx
}

/// Spending caps on rented capacity, in US dollars.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BudgetCaps {
    /// Cap on all tenants together.
    pub total_usd: Option<f64>,
    /// Caps per tenant name (resolved against the workload's tenants at the start).
    pub per_tenant_usd: Vec<(String, f64)>,
}

/// Running commitments against the caps.
#[derive(Debug, Clone, Default)]
pub struct Budget {
    total_cap: Option<f64>,
    tenant_cap: Vec<Option<f64>>,
    /// Whether any cap is set, kept (asked on every scheduling pass, and a scan of the
    /// tenants each time made a trace of 200,000 users take minutes).
    capped: bool,
    total: f64,
    tenant: Vec<f64>,
}

impl Budget {
    /// Caps resolved against the workload's tenant names.
    pub fn new(caps: &BudgetCaps, tenants: &[String]) -> Budget {
        // The first cap given for a name, looked up by hash (a scan of the caps per tenant
        // is quadratic when both lists are long).
        let mut by_name = std::collections::HashMap::new();
        for (n, usd) in &caps.per_tenant_usd {
            by_name.entry(n.as_str()).or_insert(*usd);
        }
        let tenant_cap: Vec<Option<f64>> = tenants
            .iter()
            .map(|t| by_name.get(t.as_str()).copied())
            .collect();
        Budget {
            total_cap: caps.total_usd,
            capped: caps.total_usd.is_some() || tenant_cap.iter().any(Option::is_some),
            tenant_cap,
            total: 0.0,
            tenant: vec![0.0; tenants.len()],
        }
    }

    /// True when committing `usd` more for `tenant` stays within the caps.
    pub fn allows(&self, tenant: u32, usd: f64) -> bool {
        if usd <= 0.0 {
            return true;
        }
        let t = tenant as usize;
        self.total_cap.is_none_or(|c| self.total + usd <= c + 1e-9)
            && self
                .tenant_cap
                .get(t)
                .copied()
                .flatten()
                .is_none_or(|c| self.tenant.get(t).copied().unwrap_or(0.0) + usd <= c + 1e-9)
    }

    /// Commits `usd` for `tenant`.
    pub fn charge(&mut self, tenant: u32, usd: f64) {
        if usd <= 0.0 {
            return;
        }
        self.total += usd;
        if let Some(x) = self.tenant.get_mut(tenant as usize) {
            *x += usd;
        }
    }

    /// Committed so far, in total.
    pub fn committed(&self) -> f64 {
        self.total
    }

    /// True when no cap is set: every commitment is allowed.
    pub fn uncapped(&self) -> bool {
        !self.capped
    }
}

/// What starting `milli` GPU-thousandths for `runtime` in a pool of `kind` at
/// `gpu_hour_usd` commits (zero for owned and reserved capacity, already paid for).
pub fn rent_commitment(kind: CapacityKind, gpu_hour_usd: f64, milli: u64, runtime: SimTime) -> f64 {
    match kind {
        CapacityKind::OnDemand | CapacityKind::Spot => {
            milli as f64 / 1000.0 * runtime.hours_f64() * gpu_hour_usd
        }
        CapacityKind::Owned | CapacityKind::Reserved => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders() {
        use CapacityKind::*;
        let pools = [
            (OnDemand, 1.0, 4.0),
            (Owned, 1.0, 2.0),
            (Spot, 2.0, 3.0),
            (Reserved, 1.0, 1.0),
        ];
        assert_eq!(pool_order(PoolOrder::Scenario, &pools), vec![0, 1, 2, 3]);
        assert_eq!(pool_order(PoolOrder::ByKind, &pools), vec![1, 3, 2, 0]);
        // Price per speed: 4, 2, 1.5, 1.
        assert_eq!(pool_order(PoolOrder::Cheapest, &pools), vec![3, 2, 1, 0]);
    }

    #[test]
    fn caps_bound_commitments() {
        let caps = BudgetCaps {
            total_usd: Some(10.0),
            per_tenant_usd: vec![("a".into(), 4.0)],
        };
        let mut b = Budget::new(&caps, &["a".into(), "b".into()]);
        assert!(b.allows(0, 4.0) && !b.allows(0, 4.5));
        b.charge(0, 4.0);
        assert!(!b.allows(0, 0.1) && b.allows(1, 6.0) && !b.allows(1, 6.5));
        assert!(b.allows(0, 0.0), "owned capacity is never capped");
        // 8 GPUs for 30 min at $2 a GPU-hour on demand: $8; owned: nothing.
        let half_hour = SimTime::from_secs(1800);
        assert_eq!(
            rent_commitment(CapacityKind::OnDemand, 2.0, 8000, half_hour),
            8.0
        );
        assert_eq!(
            rent_commitment(CapacityKind::Owned, 2.0, 8000, half_hour),
            0.0
        );
    }
}
