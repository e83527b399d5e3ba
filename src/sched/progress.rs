//! What a job keeps across preemptions (work done, GPU-time attained) and the options
//! that shape preemptive and fair policies.

use crate::engine::SimTime;

/// A job's progress over its earlier runs (not counting the run in progress, if any).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Work kept (reference-GPU time) from earlier runs: what a restart need not redo.
    pub done: SimTime,
    /// Extra work added by restart penalties.
    pub extra: SimTime,
    /// GPU-time attained in earlier runs, in GPU-milliseconds (Tiresias' attained service).
    pub attained_gpu_ms: u64,
    /// Times the job was preempted.
    pub preemptions: u32,
    /// When the job last stopped running (preempted or killed), if it ever did.
    pub last_stop: Option<SimTime>,
    /// Length of its last run.
    pub last_run: SimTime,
    /// Wall-clock time run in all earlier runs (for starvation guards).
    pub ran: SimTime,
}

impl Progress {
    /// Work still to do for a job of `work` (its work plus restart penalties, less what
    /// earlier runs kept).
    pub fn left_of(&self, work: SimTime) -> SimTime {
        SimTime((work.0 + self.extra.0).saturating_sub(self.done.0))
    }
}

/// What a preempted job loses. Until checkpoints are modelled by the failures work, a run
/// either keeps its progress at a cost (a restart penalty), keeps it only up to its last
/// periodic checkpoint, or loses it all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreemptionCost {
    /// Progress is kept; the restart costs this much extra work (reload, warm-up).
    RestartPenalty(SimTime),
    /// Progress is kept up to the last checkpoint, taken every `interval` of run time.
    CheckpointEvery(SimTime),
    /// The job restarts from scratch.
    LoseAll,
}

impl Default for PreemptionCost {
    fn default() -> Self {
        PreemptionCost::RestartPenalty(SimTime::ZERO)
    }
}

impl PreemptionCost {
    /// Work kept and extra work added when a run that did `ran` of work over `held`
    /// wall-clock time is stopped.
    pub fn apply(self, ran: SimTime, held: SimTime) -> (SimTime, SimTime) {
        match self {
            PreemptionCost::RestartPenalty(p) => (ran, p),
            PreemptionCost::CheckpointEvery(c) if c.0 > 0 => {
                let kept_wall = held.0 / c.0 * c.0;
                // Work is proportional to wall time within one run.
                let kept = if held.0 == 0 {
                    0
                } else {
                    (ran.0 as u128 * kept_wall as u128 / held.0 as u128) as u64
                };
                (SimTime(kept), SimTime::ZERO)
            }
            PreemptionCost::CheckpointEvery(_) => (ran, SimTime::ZERO),
            PreemptionCost::LoseAll => (SimTime::ZERO, SimTime::ZERO),
        }
    }
}

/// Options of the scheduling policies, with defaults that follow the papers.
#[derive(Debug, Clone, PartialEq)]
pub struct SchedOptions {
    /// What a preempted job loses.
    pub preemption: PreemptionCost,
    /// Tiresias: attained-service thresholds between queues, in GPU-seconds, ascending
    /// (K thresholds make K + 1 queues).
    pub tiresias_thresholds_gpu_s: Vec<u64>,
    /// Tiresias: a preempted job waiting longer than this factor times the time it has
    /// run so far is promoted to the top queue.
    pub tiresias_starvation_factor: f64,
    /// Fair share: weight per tenant index (missing tenants weigh 1).
    pub tenant_weights: Vec<f64>,
    /// Price of a GPU-hour per pool, as pool choice compares it (for price-aware policies;
    /// missing pools cost 0). A scenario sets it from each pool's pricing model
    /// (`PricingModel::gpu_hour_rate`), so it is the same price the ledger bills by.
    pub gpu_hour_usd: Vec<f64>,
    /// Per pool: its autoscaler, for elastic pools (missing or `None`: a fixed pool).
    pub autoscale: Vec<Option<super::Autoscale>>,
    /// Order in which jobs try pools.
    pub pool_order: super::PoolOrder,
    /// Spending caps on rented pools.
    pub budget: super::BudgetCaps,
    /// Fair share weights by tenant name (resolved at the start; override
    /// `tenant_weights` for the tenants they name).
    pub tenant_weights_by_name: Vec<(String, f64)>,
    /// Datasets, fabrics and per-class speeds (all off by default).
    pub cloud: super::cloud::CloudOptions,
}

impl Default for SchedOptions {
    fn default() -> Self {
        SchedOptions {
            preemption: PreemptionCost::default(),
            // Two thresholds, three queues: one GPU-hour and ten GPU-hours.
            tiresias_thresholds_gpu_s: vec![3_600, 36_000],
            tiresias_starvation_factor: 8.0,
            tenant_weights: Vec::new(),
            gpu_hour_usd: Vec::new(),
            autoscale: Vec::new(),
            pool_order: super::PoolOrder::Scenario,
            budget: super::BudgetCaps::default(),
            tenant_weights_by_name: Vec::new(),
            cloud: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoint_keeps_whole_intervals_only() {
        // 25 min run at speed 1, checkpoint every 10 min: 20 min kept.
        let c = PreemptionCost::CheckpointEvery(SimTime::from_secs(600));
        let (kept, extra) = c.apply(SimTime::from_secs(1500), SimTime::from_secs(1500));
        assert_eq!((kept, extra), (SimTime::from_secs(1200), SimTime::ZERO));
        // At speed 2 the same wall time did 50 min of work; 40 are kept.
        let (kept, _) = c.apply(SimTime::from_secs(3000), SimTime::from_secs(1500));
        assert_eq!(kept, SimTime::from_secs(2400));
        assert_eq!(
            PreemptionCost::LoseAll.apply(SimTime(5), SimTime(5)),
            (SimTime::ZERO, SimTime::ZERO)
        );
        assert_eq!(
            PreemptionCost::RestartPenalty(SimTime(7)).apply(SimTime(5), SimTime(5)),
            (SimTime(5), SimTime(7))
        );
    }
}
