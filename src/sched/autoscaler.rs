//! The autoscaler of elastic (on-demand, spot) pools: rents nodes when queued demand
//! cannot start, with the pool's provisioning delay, its maximum and the provider's
//! stock (an availability step function a spot or market model can feed), and releases a
//! node after an idle timeout, keeping it until the end of the billing block already paid
//! for (a per-hour-billed node is kept until its paid hour is over, and never released
//! before its billing minimum).
//!
//! A pool's nodes all exist in the cluster from the start; those not held are down. The
//! simulation drives this state machine with its events (node ready, release check) and
//! records every held interval (request, ready, release) for billing.

use crate::engine::SimTime;

/// How an elastic pool grows and shrinks, and how its nodes are billed.
#[derive(Debug, Clone, PartialEq)]
pub struct Autoscale {
    /// Nodes held from the start and never released.
    pub min_nodes: u32,
    /// From request to ready.
    pub provisioning_delay: SimTime,
    /// A node idle this long is released (at the end of its paid block, see `release_at`).
    pub idle_timeout: SimTime,
    /// Billing block (1 h for per-hour billing, 1 s for per-second).
    pub billing_increment: SimTime,
    /// Minimum billed time per held interval.
    pub billing_minimum: SimTime,
    /// Rent only once a job eligible here has waited this long (0: at once).
    pub scale_up_after: SimTime,
    /// Provider stock: `(from, nodes)` steps, the most nodes this pool can hold from
    /// that time on (sorted by time; empty: no limit besides the pool's maximum).
    pub availability: Vec<(SimTime, u32)>,
}

impl Default for Autoscale {
    fn default() -> Self {
        Autoscale {
            min_nodes: 0,
            provisioning_delay: SimTime::from_secs(180),
            idle_timeout: SimTime::from_secs(600),
            billing_increment: SimTime::from_secs(1),
            billing_minimum: SimTime::from_secs(60),
            scale_up_after: SimTime::ZERO,
            availability: Vec::new(),
        }
    }
}

impl Autoscale {
    /// Most nodes the provider lets this pool hold at `t` (`u32::MAX`: no limit).
    pub fn stock(&self, t: SimTime) -> u32 {
        match self.availability.partition_point(|&(at, _)| at <= t) {
            0 if self.availability.is_empty() => u32::MAX,
            0 => 0,
            i => self.availability[i - 1].1,
        }
    }

    /// The next time after `t` when the stock changes, if any.
    pub fn next_stock_change(&self, t: SimTime) -> Option<SimTime> {
        let i = self.availability.partition_point(|&(at, _)| at <= t);
        self.availability.get(i).map(|&(at, _)| at)
    }

    /// When a node billed from `bill_start` and idle since `idle_since` is released: no
    /// earlier than the idle timeout and the billing minimum, then as late as the blocks
    /// already paid for allow: at the end of the current block, which is billed exactly
    /// (a release at a block's end starts no new block).
    pub fn release_at(&self, bill_start: SimTime, idle_since: SimTime) -> SimTime {
        let earliest = idle_since
            .plus(self.idle_timeout)
            .max(bill_start.plus(self.billing_minimum));
        let inc = self.billing_increment.0.max(1);
        let blocks = earliest.since(bill_start).0.div_ceil(inc).max(1);
        SimTime(bill_start.0 + blocks * inc)
    }

    /// Billed time of a node held from `bill_start` to `release`.
    pub fn billed(&self, bill_start: SimTime, release: SimTime) -> SimTime {
        let inc = self.billing_increment.0.max(1);
        let held = release.since(bill_start).0.max(self.billing_minimum.0);
        SimTime(held.div_ceil(inc) * inc)
    }
}

/// One held interval of one node of an elastic pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeInterval {
    /// Pool index.
    pub pool: u32,
    /// Node index in the cluster.
    pub node: u32,
    /// When it was requested (billing starts here: boot time is billed).
    pub requested: SimTime,
    /// When it was ready to take jobs.
    pub ready: SimTime,
    /// When it was released (`None`: held to the end of the run).
    pub released: Option<SimTime>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hourly() -> Autoscale {
        Autoscale {
            billing_increment: SimTime::from_secs(3600),
            billing_minimum: SimTime::from_secs(3600),
            idle_timeout: SimTime::from_secs(600),
            ..Default::default()
        }
    }

    #[test]
    fn hourly_nodes_are_kept_until_just_before_the_paid_hour_ends() {
        let a = hourly();
        // Requested at 0, idle from 20 min: the timeout says 30 min, the paid hour 60 min.
        assert_eq!(
            a.release_at(SimTime::ZERO, SimTime::from_secs(1200)),
            SimTime::from_secs(3600)
        );
        assert_eq!(
            a.billed(SimTime::ZERO, SimTime::from_secs(3600)),
            SimTime::from_secs(3600),
            "released at the hour's end: one hour billed"
        );
        // Idle from 55 min: the timeout (65 min) falls in the second hour, kept to 2 h.
        assert_eq!(
            a.release_at(SimTime::ZERO, SimTime::from_secs(3300)),
            SimTime::from_secs(7200)
        );
        assert_eq!(
            a.billed(SimTime::ZERO, SimTime::from_secs(7200)),
            SimTime::from_secs(7200)
        );
        // Requested at 10 s: blocks end at 3610 s, 7210 s, ...
        assert_eq!(
            a.release_at(SimTime::from_secs(10), SimTime::from_secs(20)),
            SimTime::from_secs(3610)
        );
    }

    #[test]
    fn per_second_nodes_go_after_the_timeout_but_not_before_the_minimum() {
        let a = Autoscale::default(); // 1 s blocks, 60 s minimum, 600 s timeout
        assert_eq!(
            a.release_at(SimTime::from_secs(100), SimTime::from_secs(130)),
            SimTime::from_secs(730)
        );
        let quick = Autoscale {
            idle_timeout: SimTime::from_secs(5),
            ..Default::default()
        };
        assert_eq!(
            quick.release_at(SimTime::from_secs(100), SimTime::from_secs(110)),
            SimTime::from_secs(160),
            "the 60 s minimum"
        );
        assert_eq!(
            quick.billed(SimTime::from_secs(100), SimTime::from_secs(130)),
            SimTime::from_secs(60)
        );
    }

    #[test]
    fn stock_is_a_step_function() {
        let a = Autoscale {
            availability: vec![(SimTime(10), 2), (SimTime(20), 0)],
            ..Default::default()
        };
        assert_eq!(
            [
                a.stock(SimTime(0)),
                a.stock(SimTime(10)),
                a.stock(SimTime(25))
            ],
            [0, 2, 0]
        );
        assert_eq!(a.next_stock_change(SimTime(10)), Some(SimTime(20)));
        assert_eq!(Autoscale::default().stock(SimTime(5)), u32::MAX);
    }
}
