//! Capacity blocks: nodes booked for a fixed window, paid upfront, not cancellable; the
//! nodes exist only inside the window.

use super::{
    Bill, CapacityWindow, Charge, FromConfig, PriceContext, PricingModel, Problems, UsageRecord,
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

    /// What falls on a run `[0, end]`: the whole price if the block starts inside it
    /// (paid upfront, not cancellable).
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

    /// The whole block, paid upfront at its start if that falls in the run, used to the
    /// busy share of the block's GPU-time (its nodes exist only in its window).
    fn bill(&self, usage: &UsageRecord) -> Bill {
        let owed = self.cost_in(usage.end);
        let whole = usage.gpu_ms_of(self.nodes, self.start, self.start.plus(self.duration));
        let share = if whole > 0.0 {
            usage.busy_gpu_ms as f64 / whole
        } else {
            0.0
        };
        let start_h = self.start.hours_f64();
        let charges = if owed > 0.0 {
            vec![Charge::commitment(
                owed,
                share,
                (start_h, start_h + self.duration.hours_f64()),
            )]
        } else {
            Vec::new()
        };
        Bill::for_all_of(usage, charges)
    }

    fn comparison_rate(&self, _nodes: u32) -> f64 {
        self.usd_per_node_hour
    }

    /// The block's window, less the AWS termination lead: instances are terminated from
    /// 30 minutes before the block ends, with a warning 10 minutes before that.
    fn capacity_windows(&self) -> Vec<CapacityWindow> {
        let end = self.start.plus(self.duration);
        vec![CapacityWindow {
            open: self.start,
            close: end.since(TERMINATION_LEAD).max(self.start),
            notice: TERMINATION_WARNING,
        }]
    }
}

/// AWS begins terminating a capacity block's instances 30 minutes before the block
/// ends (EC2 User Guide, "Monitor Capacity Blocks using EventBridge": the expiration
/// warning comes 40 minutes before the end, termination 10 minutes later).
pub const TERMINATION_LEAD: SimTime = SimTime(30 * 60_000);
/// The warning before termination begins: 10 minutes (see [`TERMINATION_LEAD`]).
pub const TERMINATION_WARNING: SimTime = SimTime(10 * 60_000);

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
