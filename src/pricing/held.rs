//! Held intervals: the span during which a node is paid for, from request to release.

use crate::engine::SimTime;

/// One stretch of holding `nodes` nodes of a pool. Rented capacity is billed from
/// `requested` (provisioning time is paid, as on the real clouds) to `released`; it can run
/// work from `ready`. A fixed-size pool holds all its nodes for the whole run: one interval
/// `[0, end]` with `requested == ready`. Elastic pools report one interval per node grant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldInterval {
    /// When the capacity was asked for (billing starts).
    pub requested: SimTime,
    /// When it could run work.
    pub ready: SimTime,
    /// When it was given back (billing stops).
    pub released: SimTime,
    /// Nodes held.
    pub nodes: u32,
    /// True if the provider took it away (spot interruption), for first-hour-free rules.
    pub interrupted_by_provider: bool,
}

impl HeldInterval {
    /// A fixed pool of `nodes` held over `[0, end]`.
    pub fn whole_run(nodes: u32, end: SimTime) -> HeldInterval {
        HeldInterval {
            requested: SimTime::ZERO,
            ready: SimTime::ZERO,
            released: end,
            nodes,
            interrupted_by_provider: false,
        }
    }

    /// Time held, request to release.
    pub fn held(&self) -> SimTime {
        self.released.since(self.requested)
    }

    /// Time usable, ready to release.
    pub fn usable(&self) -> SimTime {
        self.released.since(self.ready)
    }

    /// Node-hours usable.
    pub fn usable_node_hours(&self) -> f64 {
        self.nodes as f64 * self.usable().hours_f64()
    }
}
