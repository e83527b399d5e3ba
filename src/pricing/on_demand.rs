//! On-demand rental: a price per node-hour, billed under a granularity and minimum from
//! request to release.

use super::{Billing, HeldInterval};

/// On-demand price and billing rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OnDemand {
    /// US dollars per node-hour.
    pub usd_per_node_hour: f64,
    /// Rounding of each held interval.
    pub billing: Billing,
}

impl OnDemand {
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
