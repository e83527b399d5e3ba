//! On-demand rental: a price per node-hour, billed under a granularity and minimum from
//! request to release. A flat rate (the scenario's `price_per_node_hour` with no pricing
//! table) is on-demand billed exactly.

use super::{
    Bill, Billing, BillingConfig, Charge, CostKind, FromConfig, HeldInterval, PriceContext,
    PricingModel, Problems, UsageRecord,
};
use serde::Deserialize;

/// On-demand price and billing rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OnDemand {
    /// US dollars per node-hour.
    pub usd_per_node_hour: f64,
    /// Rounding of each held interval.
    pub billing: Billing,
}

/// `[pools.pricing] kind = "on_demand"`: the pool's price, billed by `billing`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnDemandConfig {
    /// Billing rule (per second with a 60 s minimum if omitted).
    #[serde(default)]
    pub billing: Option<BillingConfig>,
}

impl OnDemand {
    /// A flat rate per node-hour, billed exactly.
    pub fn flat(usd_per_node_hour: f64) -> OnDemand {
        OnDemand {
            usd_per_node_hour,
            billing: Billing::EXACT,
        }
    }

    /// The bill of one held interval: every node's billed hours times the rate. Each node
    /// is billed separately, so the minimum applies per node.
    pub fn cost(&self, h: &HeldInterval) -> f64 {
        h.nodes as f64 * self.billing.billed_hours(h.held()) * self.usd_per_node_hour
    }

    /// The bill of several intervals.
    pub fn cost_all(&self, hs: &[HeldInterval]) -> f64 {
        hs.iter().map(|h| self.cost(h)).sum()
    }
}

impl PricingModel for OnDemand {
    fn kind_name(&self) -> &'static str {
        "on_demand"
    }

    fn bill(&self, usage: &UsageRecord) -> Bill {
        let usd = self.cost_all(&usage.held);
        Bill::for_all_of(
            usage,
            vec![Charge::new(
                CostKind::BusyCompute,
                CostKind::IdleCompute,
                usd,
            )],
        )
    }

    fn comparison_rate(&self, _nodes: u32) -> f64 {
        self.usd_per_node_hour
    }

    fn interval_billing(&self) -> Option<Billing> {
        Some(self.billing)
    }

    fn list_rate(&self) -> Option<f64> {
        Some(self.usd_per_node_hour)
    }

    fn market_priced(&self) -> bool {
        true
    }
}

impl FromConfig for OnDemand {
    type Config = OnDemandConfig;

    fn from_config(c: &OnDemandConfig, ctx: &PriceContext, problems: &mut dyn Problems) -> Self {
        OnDemand {
            usd_per_node_hour: ctx
                .on_demand
                .unwrap_or_else(|| ctx.need(problems, "on-demand price")),
            billing: Billing::from_config("pricing.billing", c.billing.as_ref(), problems),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimTime;

    #[test]
    fn provisioning_is_paid() {
        // Requested at 0, ready at 5 min, released at 65 min: 65 min billed per second,
        // 2 nodes at $60/h = 2 x 65/60 x 60 = $130.
        let od = OnDemand {
            usd_per_node_hour: 60.0,
            billing: Billing::PER_SECOND_60S_MIN,
        };
        let h = HeldInterval {
            requested: SimTime(0),
            ready: SimTime(300_000),
            released: SimTime(3_900_000),
            nodes: 2,
            interrupted_by_provider: false,
        };
        assert!((od.cost(&h) - 130.0).abs() < 1e-9);
    }
}
