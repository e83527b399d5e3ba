//! Capacity blocks: nodes booked for a fixed window, paid upfront, not cancellable.

use crate::engine::SimTime;

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
    /// 182 days (AWS EC2 documentation). `Err` says what is wrong.
    pub fn check_duration(duration: SimTime) -> Result<(), String> {
        const DAY: u64 = 86_400_000;
        let d = duration.0;
        if d == 0 || !d.is_multiple_of(DAY) {
            return Err("a capacity block lasts a whole number of days".into());
        }
        let days = d / DAY;
        if days > 182 {
            return Err(format!("at most 182 days, got {days}"));
        }
        if days > 14 && !days.is_multiple_of(7) {
            return Err(format!(
                "beyond 14 days a block lasts a multiple of 7 days, got {days}"
            ));
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
