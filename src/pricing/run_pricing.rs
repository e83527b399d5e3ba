//! Everything that prices one run: each pool's model, the run-wide savings plan, the
//! price list of data moved, and the traffic each completed job sends.

use super::{Egress, PoolPricing, SavingsPlan, TransferSpec};

/// The prices of one run, as the metrics apply them to its usage.
#[derive(Debug, Clone, PartialEq)]
pub struct RunPricing {
    /// Each pool's pricing model, indexed like the pools.
    pub pools: Vec<PoolPricing>,
    /// A commitment covering the on-demand pools, if any.
    pub savings_plan: Option<SavingsPlan>,
    /// Prices of data moved between zones and regions (checkpoints moved with a job).
    pub moves: Egress,
    /// Data each completed job sends, and its prices, if any.
    pub transfer: Option<TransferSpec>,
}

impl RunPricing {
    /// Pools priced by `pools`, data moves by `moves`, and nothing else.
    pub fn new(pools: Vec<PoolPricing>, moves: Egress) -> RunPricing {
        RunPricing {
            pools,
            savings_plan: None,
            moves,
            transfer: None,
        }
    }
}
