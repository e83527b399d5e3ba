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
    /// GPUs per node (a node without GPUs counts as one, so GPU-time is never zero per
    /// node-hour held).
    pub gpus_per_node: u32,
    /// The intervals the pool held nodes, from request to release (a fixed pool: all its
    /// nodes over `[0, end]`, or over the windows its capacity exists in). A provider
    /// interruption ends an interval: a spot node's intervals are the spans it was up.
    pub held: Vec<HeldInterval>,
    /// GPU-milliseconds provisioned (held by the fleet, used or not).
    pub provisioned_gpu_ms: u128,
    /// GPU-milliseconds held by running jobs.
    pub busy_gpu_ms: u128,
    /// Node-milliseconds inside `held` during which nodes were down (failed, in
    /// maintenance, or taken away by the provider), when `held` does not already leave
    /// that time out; `None` when the run had no failures or `held` is exact.
    pub down_node_ms: Option<u128>,
    /// Busy GPU-milliseconds split at the model's billing periods
    /// ([`PricingModel::period_bounds`]): `(from, to, busy GPU-ms)` covering `[0, end]`;
    /// empty when the model has no periods.
    pub busy_by_period: Vec<(SimTime, SimTime, u128)>,
    /// GPU-milliseconds held by each tenant's jobs, `(tenant, GPU-ms)` in tenant order.
    pub by_tenant: Vec<(u32, u128)>,
    /// GPU-milliseconds each job held in this pool over all its run segments here,
    /// `(job index, tenant, GPU-ms)` in job order. A job that ran in several pools is in
    /// each of their records with the GPU-time it held there.
    pub by_job: Vec<(usize, u32, u128)>,
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
            gpus_per_node: 1,
            held: vec![HeldInterval::whole_run(nodes, end)],
            provisioned_gpu_ms: nodes as u128 * end.0 as u128,
            busy_gpu_ms: 0,
            down_node_ms: None,
            busy_by_period: Vec::new(),
            by_tenant: Vec::new(),
            by_job: Vec::new(),
        }
    }

    /// Busy GPU-milliseconds within `[a, b)`, from the periods (which have a boundary at
    /// every `a` and `b` the model asks about, [`PricingModel::period_bounds`]). Without
    /// periods (a simulation not told the model's bounds), busy time is taken as spread
    /// evenly over the run.
    pub fn busy_within(&self, a: SimTime, b: SimTime) -> u128 {
        if self.busy_by_period.is_empty() {
            let (a, b) = (a.min(self.end), b.min(self.end));
            if self.end.0 == 0 || b <= a {
                return 0;
            }
            return (self.busy_gpu_ms as f64 * b.since(a).0 as f64 / self.end.0 as f64) as u128;
        }
        self.busy_by_period
            .iter()
            .filter(|&&(f, t, _)| f >= a && t <= b)
            .map(|&(_, _, ms)| ms)
            .sum()
    }

    /// GPU-milliseconds of `nodes` nodes of this pool over `[a, b)`.
    pub fn gpu_ms_of(&self, nodes: u32, a: SimTime, b: SimTime) -> f64 {
        nodes as f64 * self.gpus_per_node.max(1) as f64 * b.since(a).0 as f64
    }
}

/// One ledger line of a pool's bill: `usd` of which the busy share is booked as `busy`,
/// to tenants and jobs, and the rest as `idle`, to nobody. The busy share is the line's
/// own when it pays for a span of its own (a reservation's term), else the bill's (busy
/// GPU-time over the GPU-time paid for).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Charge {
    /// Kind for the busy share.
    pub busy: CostKind,
    /// Kind for the idle share.
    pub idle: CostKind,
    /// Dollars.
    pub usd: f64,
    /// The line's busy share (0..=1), when it is not the bill's.
    pub share: Option<f64>,
    /// The commitment this line pays for, as its term `[start, end)` in hours from the
    /// start of the run (negative: before it; the term may reach beyond the run's end);
    /// `None` for usage that is not committed.
    pub term: Option<(f64, f64)>,
}

impl Charge {
    /// A line at the bill's busy share, not a commitment.
    pub fn new(busy: CostKind, idle: CostKind, usd: f64) -> Charge {
        Charge {
            busy,
            idle,
            usd,
            share: None,
            term: None,
        }
    }

    /// A commitment's line over `term`, used to `share`.
    pub fn commitment(usd: f64, share: f64, term: (f64, f64)) -> Charge {
        Charge {
            busy: CostKind::BusyCompute,
            idle: CostKind::UnusedCommitment,
            usd,
            share: Some(share.clamp(0.0, 1.0)),
            term: Some(term),
        }
    }
}

/// A pool's bill for a run: its ledger lines, and the GPU-time they pay for (which sets
/// the busy and idle shares of lines without a share of their own).
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

    /// The busy share of `charge` in this bill for `usage`: its own, or busy over paid.
    pub fn share_of(&self, charge: &Charge, usage: &UsageRecord) -> f64 {
        match charge.share {
            Some(s) => s,
            None if self.paid_gpu_ms > 0.0 => {
                (usage.busy_gpu_ms as f64 / self.paid_gpu_ms).clamp(0.0, 1.0)
            }
            None => 0.0,
        }
    }

    /// Sum of the lines.
    pub fn total(&self) -> f64 {
        self.charges.iter().map(|c| c.usd).sum()
    }
}

/// A span during which a pool's capacity exists, given by a commitment: its nodes are
/// there from `open`, stop taking new work at `close - notice`, and are taken away at
/// `close` (jobs still running then write a checkpoint and requeue).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapacityWindow {
    /// When the nodes arrive.
    pub open: SimTime,
    /// When they are taken away ([`SimTime::NEVER`]: not within any run).
    pub close: SimTime,
    /// How long before `close` they stop taking new jobs.
    pub notice: SimTime,
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

    /// The spans the pool's capacity exists in, when a commitment bounds it (a capacity
    /// block; a reservation whose nodes are there only during its terms); empty: the
    /// nodes are there throughout. Sorted and disjoint.
    fn capacity_windows(&self) -> Vec<CapacityWindow> {
        Vec::new()
    }

    /// Times at which the model's prices change regime (a reservation's terms begin and
    /// end): the simulation splits the pool's busy GPU-time there, so each term's used
    /// share is known. Bounds up to `until` at least (later ones may be left out).
    /// Empty: none.
    fn period_bounds(&self, _until: SimTime) -> Vec<SimTime> {
        Vec::new()
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
        let total = self.bill(&usage).total();
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

/// How far billing periods are split out for a run without a horizon: 30 years (the
/// longest TCO horizon).
pub const PERIODS_UNTIL: SimTime = SimTime(30 * 8_760 * 3_600_000);

/// The year that commitments and ownership quote their effective rate over.
pub(super) fn quote_year() -> SimTime {
    SimTime::from_hours_f64(super::HOURS_PER_YEAR)
}
