//! Capacity blocks: nodes booked for a fixed window, paid upfront, not cancellable.

use super::{
    Bill, Charge, CostKind, FromConfig, PriceContext, PricingModel, Problems, UsageRecord,
};
use crate::engine::SimTime;
use serde::Deserialize;

/// Why a capacity block's length is not one AWS sells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CapacityBlockError {
    /// Not a positive whole number of days.
    #[error("a capacity block lasts a whole number of days")]
    NotWholeDays,
    /// Longer than the longest block.
    #[error("at most 182 days, got {days}")]
    TooLong {
        /// Days asked for.
        days: u64,
    },
    /// Past 14 days, not whole weeks.
    #[error("beyond 14 days a block lasts a multiple of 7 days, got {days}")]
    NotWholeWeeks {
        /// Days asked for.
        days: u64,
    },
}

/// A block of `nodes` nodes from `start` for `duration`, at a price per node-hour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CapacityBlock {
    /// Nodes booked.
    pub nodes: u32,
    /// Start of the window, from the start of the run.
    pub start: SimTime,
    /// Length of the window.
    pub duration: SimTime,
    /// Dollars per node-hour.
    pub usd_per_node_hour: f64,
}

impl CapacityBlock {
    /// AWS Capacity Blocks for ML: 1-day steps up to 14 days, then 7-day steps up to
    /// 182 days (AWS EC2 documentation).
    pub fn check_duration(duration: SimTime) -> Result<(), CapacityBlockError> {
        const DAY: u64 = 86_400_000;
        let d = duration.0;
        if d == 0 || !d.is_multiple_of(DAY) {
            return Err(CapacityBlockError::NotWholeDays);
        }
        let days = d / DAY;
        if days > 182 {
            return Err(CapacityBlockError::TooLong { days });
        }
        if days > 14 && !days.is_multiple_of(7) {
            return Err(CapacityBlockError::NotWholeWeeks { days });
        }
        Ok(())
    }

    /// The whole block's price, paid upfront at its start.
    pub fn price(&self) -> f64 {
        self.nodes as f64 * self.duration.hours_f64() * self.usd_per_node_hour
    }

    /// What falls on a run `[0, end]`: the whole price if the block starts inside it.
    pub fn cost_in(&self, end: SimTime) -> f64 {
        if self.start < end || self.start == SimTime::ZERO {
            self.price()
        } else {
            0.0
        }
    }

    /// Whether the block's nodes can run work at `t`.
    pub fn active_at(&self, t: SimTime) -> bool {
        t >= self.start && t < self.start.plus(self.duration)
    }
}

/// `[pools.pricing] kind = "capacity_block"`: a block of the pool's nodes from `start`
/// (the run's start if omitted) for `duration`, at the pool's on-demand price.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapacityBlockConfig {
    /// Start of the window, from the start of the run.
    #[serde(default)]
    pub start: Option<String>,
    /// Length of the window ("14d").
    pub duration: String,
}

impl PricingModel for CapacityBlock {
    fn kind_name(&self) -> &'static str {
        "capacity_block"
    }

    fn bill(&self, usage: &UsageRecord) -> Bill {
        Bill::for_all_of(
            usage,
            vec![Charge {
                busy: CostKind::BusyCompute,
                idle: CostKind::UnusedCommitment,
                usd: self.cost_in(usage.end),
            }],
        )
    }

    fn comparison_rate(&self, _nodes: u32) -> f64 {
        self.usd_per_node_hour
    }
}

impl FromConfig for CapacityBlock {
    type Config = CapacityBlockConfig;

    fn from_config(
        c: &CapacityBlockConfig,
        ctx: &PriceContext,
        problems: &mut dyn Problems,
    ) -> Self {
        let d = problems.duration("pricing.duration", &c.duration);
        if let Err(e) = CapacityBlock::check_duration(d) {
            problems.err("pricing.duration", e.to_string());
        }
        let s = c
            .start
            .as_deref()
            .map(|s| problems.duration("pricing.start", s))
            .unwrap_or(SimTime::ZERO);
        CapacityBlock {
            nodes: ctx.nodes,
            start: s,
            duration: d,
            usd_per_node_hour: ctx
                .on_demand
                .unwrap_or_else(|| ctx.need(problems, "block price")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_follow_the_aws_steps() {
        let d = |n: u64| SimTime(n * 86_400_000);
        assert!(CapacityBlock::check_duration(d(1)).is_ok());
        assert!(CapacityBlock::check_duration(d(14)).is_ok());
        assert!(CapacityBlock::check_duration(d(15)).is_err());
        assert!(CapacityBlock::check_duration(d(21)).is_ok());
        assert!(CapacityBlock::check_duration(d(182)).is_ok());
        assert!(CapacityBlock::check_duration(d(189)).is_err());
        assert!(CapacityBlock::check_duration(SimTime(3_600_000)).is_err());
    }
}
