//! A pool's pricing model, chosen per pool, and what it charges for a run.

use super::{
    Billing, CapacityBlock, CostKind, HeldInterval, OnDemand, OwnedHardware, Reservation,
    SpotBilling, SpotPrice,
};
use crate::engine::SimTime;

/// How one pool is paid for.
#[derive(Debug, Clone, PartialEq)]
pub enum PoolPricing {
    /// Rented per node-hour under a billing rule (a flat rate is on-demand billed exactly).
    OnDemand(OnDemand),
    /// Committed for a term; hours of the run outside the term are billed at `outside`
    /// dollars per node-hour (on-demand).
    Reserved {
        /// The commitment.
        reservation: Reservation,
        /// Dollars per node-hour outside the term.
        outside: f64,
    },
    /// A capacity block paid upfront.
    CapacityBlock(CapacityBlock),
    /// Spot capacity at a price path.
    Spot {
        /// Price over time.
        price: SpotPrice,
        /// Billing rules.
        billing: SpotBilling,
    },
    /// Bought hardware.
    Owned(OwnedHardware),
}

/// One charge of a pool: `usd` of which the busy share is booked as `busy` (to tenants)
/// and the rest as `idle` (to nobody).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Charge {
    /// Kind for the busy share.
    pub busy: CostKind,
    /// Kind for the idle share.
    pub idle: CostKind,
    /// Dollars.
    pub usd: f64,
}

impl PoolPricing {
    /// A flat rate per node-hour, billed exactly (the scenario's `price_per_node_hour`).
    pub fn flat(usd_per_node_hour: f64) -> PoolPricing {
        PoolPricing::OnDemand(OnDemand {
            usd_per_node_hour,
            billing: Billing::EXACT,
        })
    }

    /// A short name for outputs.
    pub fn kind_name(&self) -> &'static str {
        match self {
            PoolPricing::OnDemand(_) => "on_demand",
            PoolPricing::Reserved { .. } => "reserved",
            PoolPricing::CapacityBlock(_) => "capacity_block",
            PoolPricing::Spot { .. } => "spot",
            PoolPricing::Owned(_) => "owned",
        }
    }

    /// What the pool costs over a run `[0, end]` in which it held `held` and was busy a
    /// share `load` of its GPU-time.
    pub fn charges(&self, held: &[HeldInterval], end: SimTime, load: f64) -> Vec<Charge> {
        let c = |busy, idle, usd| Charge { busy, idle, usd };
        match self {
            PoolPricing::OnDemand(od) => vec![c(
                CostKind::BusyCompute,
                CostKind::IdleCompute,
                od.cost_all(held),
            )],
            PoolPricing::Reserved {
                reservation,
                outside,
            } => {
                let nodes: f64 = held.iter().map(|h| h.nodes as f64).sum::<f64>().max(0.0);
                let in_term = reservation.hours_in(end);
                let out_h = (end.hours_f64() - in_term).max(0.0);
                vec![
                    c(
                        CostKind::BusyCompute,
                        CostKind::UnusedCommitment,
                        reservation.cost_in(end),
                    ),
                    c(
                        CostKind::BusyCompute,
                        CostKind::IdleCompute,
                        nodes * out_h * outside,
                    ),
                ]
            }
            PoolPricing::CapacityBlock(b) => vec![c(
                CostKind::BusyCompute,
                CostKind::UnusedCommitment,
                b.cost_in(end),
            )],
            PoolPricing::Spot { price, billing } => vec![c(
                CostKind::Spot,
                CostKind::Spot,
                held.iter().map(|h| billing.cost(h, price)).sum(),
            )],
            PoolPricing::Owned(o) => {
                // Owned hardware is paid per simulated hour for the nodes on the books.
                let node_hours: f64 = held.iter().map(|h| h.usable_node_hours()).sum();
                let nodes_avg = if end.0 > 0 {
                    node_hours / end.hours_f64()
                } else {
                    0.0
                };
                let h = end.hours_f64();
                let mut parts = o.cost(1, h, load);
                parts.capital *= nodes_avg;
                parts.power *= nodes_avg;
                parts.facility *= nodes_avg;
                vec![
                    c(CostKind::Capital, CostKind::Capital, parts.capital),
                    c(CostKind::Power, CostKind::Power, parts.power),
                    c(CostKind::Facility, CostKind::Facility, parts.facility),
                    c(CostKind::Staff, CostKind::Staff, parts.staff),
                ]
            }
        }
    }

    /// The on-demand-equivalent hourly rate per node this pricing amounts to over `end`
    /// (for display and the TCO tables): total charges / node-hours.
    pub fn effective_rate(&self, nodes: u32, end: SimTime, load: f64) -> f64 {
        let held = [HeldInterval::whole_run(nodes, end)];
        let total: f64 = self.charges(&held, end, load).iter().map(|c| c.usd).sum();
        let nh = nodes as f64 * end.hours_f64();
        if nh > 0.0 {
            total / nh
        } else {
            0.0
        }
    }
}
