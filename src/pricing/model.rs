//! The pricing-model trait: what every way of paying for a pool answers, over a neutral
//! record of what the pool used, in ledger lines by kind of cost.

use super::{Billing, CostKind, HeldInterval};
use crate::engine::{RngStreams, SimTime};
use crate::model::CapacityKind;

/// What one pool used over a run `[0, end]`, and by whom, whatever it is priced by. Built
/// by the metrics from a simulation's result; pricing models bill it, and the metrics
/// attribute the bill from it alone.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageRecord {
    /// End of the run.
    pub end: SimTime,
    /// Capacity kind of the pool (a savings plan covers on-demand capacity only).
    pub kind: CapacityKind,
    /// Nodes on the books (a fixed pool's size; an elastic pool's largest size).
    pub nodes: u32,
    /// The intervals the pool held nodes, from request to release (a fixed pool: all its
    /// nodes over `[0, end]`). A provider interruption ends an interval.
    pub held: Vec<HeldInterval>,
    /// GPU-milliseconds provisioned (held by the fleet, used or not).
    pub provisioned_gpu_ms: u128,
    /// GPU-milliseconds held by running jobs.
    pub busy_gpu_ms: u128,
    /// Node-milliseconds inside `held` during which nodes were down (failed, in
    /// maintenance, or taken away by the provider), when `held` does not already leave
    /// that time out; `None` when the run had no failures or `held` is exact.
    pub down_node_ms: Option<u128>,
    /// GPU-milliseconds held by each tenant's jobs, `(tenant, GPU-ms)` in tenant order.
    pub by_tenant: Vec<(u32, u128)>,
    /// GPU-milliseconds held by each job, `(job index, GPU-ms)` in job order. A job's
    /// record is in the pool it last ran in, with its GPU-time over all its run segments.
    pub by_job: Vec<(usize, u128)>,
}

impl UsageRecord {
    /// Busy share of the provisioned GPU-time, 0..=1 (0 when nothing was provisioned).
    pub fn load(&self) -> f64 {
        if self.provisioned_gpu_ms > 0 {
            (self.busy_gpu_ms as f64 / self.provisioned_gpu_ms as f64).min(1.0)
        } else {
            0.0
        }
    }

    /// A fixed pool of `nodes` held over `[0, end]` with no work (for quoting rates; the
    /// kind matters only to savings plans).
    pub fn idle_whole_run(kind: CapacityKind, nodes: u32, end: SimTime) -> UsageRecord {
        UsageRecord {
            end,
            kind,
            nodes,
            held: vec![HeldInterval::whole_run(nodes, end)],
            provisioned_gpu_ms: 0,
            busy_gpu_ms: 0,
            down_node_ms: None,
            by_tenant: Vec::new(),
            by_job: Vec::new(),
        }
    }
}

/// One ledger line of a pool's bill: `usd` of which the busy share (busy GPU-time over
/// the GPU-time paid for) is booked as `busy`, to tenants, and the rest as `idle`, to nobody.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Charge {
    /// Kind for the busy share.
    pub busy: CostKind,
    /// Kind for the idle share.
    pub idle: CostKind,
    /// Dollars.
    pub usd: f64,
}

/// A pool's bill for a run: its ledger lines, and the GPU-time they pay for (which sets
/// the busy and idle shares of each line).
#[derive(Debug, Clone, PartialEq)]
pub struct Bill {
    /// Ledger lines, in the order they are booked.
    pub charges: Vec<Charge>,
    /// GPU-milliseconds paid for: all provisioned GPU-time, or less where the model does
    /// not bill time the capacity was taken away.
    pub paid_gpu_ms: f64,
}

impl Bill {
    /// A bill paying for all of `usage`'s provisioned GPU-time.
    pub fn for_all_of(usage: &UsageRecord, charges: Vec<Charge>) -> Bill {
        Bill {
            charges,
            paid_gpu_ms: usage.provisioned_gpu_ms as f64,
        }
    }
}

/// A way of paying for a pool's capacity. Every pricing model implements it, in a file of
/// its own, and is listed once in [`super::PoolPricing`]'s registry.
pub trait PricingModel {
    /// The model's name in outputs (`pools.csv`'s `pricing` column) and in `kind = ...`.
    fn kind_name(&self) -> &'static str;

    /// What the pool costs over a run in which it used `usage`.
    fn bill(&self, usage: &UsageRecord) -> Bill;

    /// Dollars per node-hour that pool choice compares for a pool of `nodes` nodes
    /// (`pool_order = "cheapest"`, throughput per dollar, budget caps).
    fn comparison_rate(&self, nodes: u32) -> f64;

    /// How held intervals are rounded into billed time, if the model bills by held time
    /// (an elastic pool releases a node at the end of a paid block by this rule).
    fn interval_billing(&self) -> Option<Billing> {
        None
    }

    /// The list price per node-hour of held time, if the model rents at one (a savings
    /// plan covers such usage).
    fn list_rate(&self) -> Option<f64> {
        None
    }

    /// True when the price is the rental market's (it follows the market's decline over
    /// the years), false when a commitment or ownership fixes it.
    fn market_priced(&self) -> bool {
        false
    }

    /// The model for one run: a price drawn from the run's streams (a seeded spot price
    /// process, from the stream `spot_price/<pool>` over `hours` hourly ticks), or itself.
    fn for_run(&self, _streams: &RngStreams, _pool: &str, _hours: usize) -> Self
    where
        Self: Sized + Clone,
    {
        self.clone()
    }

    /// Dollars per node-hour over a run `[0, end]` of `nodes` nodes held throughout with
    /// no work: the bill's total over the node-hours (rates quoted per year).
    fn effective_rate(&self, nodes: u32, end: SimTime) -> f64 {
        let usage = UsageRecord::idle_whole_run(CapacityKind::OnDemand, nodes, end);
        let total: f64 = self.bill(&usage).charges.iter().map(|c| c.usd).sum();
        let nh = nodes as f64 * end.hours_f64();
        if nh > 0.0 {
            total / nh
        } else {
            0.0
        }
    }

    /// Dollars per GPU-hour that pool choice compares, for `nodes` nodes of
    /// `gpus_per_node` GPUs (a node without GPUs counts as one).
    fn gpu_hour_rate(&self, nodes: u32, gpus_per_node: u16) -> f64 {
        self.comparison_rate(nodes) / (gpus_per_node.max(1) as f64)
    }
}

/// The year that commitments and ownership quote their effective rate over.
pub(super) fn quote_year() -> SimTime {
    SimTime::from_hours_f64(super::HOURS_PER_YEAR)
}
