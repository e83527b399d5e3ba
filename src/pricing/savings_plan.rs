//! Savings plans: a dollars-per-hour commitment at a discount that covers on-demand usage
//! across pools.

/// A commitment of `commitment_per_hour` dollars each hour, buying on-demand usage at
/// `discount` off.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SavingsPlan {
    /// Committed dollars per hour (C), owed used or not.
    pub commitment_per_hour: f64,
    /// Discount off on-demand (d), e.g. 0.66 for the AWS Compute plan's best rate.
    pub discount: f64,
}

impl SavingsPlan {
    /// Cost of an hour with on-demand-equivalent demand `d` dollars:
    /// `C + max(0, D - C / (1 - d))` (ECONOMICS.md).
    pub fn hour_cost(&self, demand: f64) -> f64 {
        let covered = self.commitment_per_hour / (1.0 - self.discount);
        self.commitment_per_hour + (demand - covered).max(0.0)
    }

    /// The unused part of the hour's commitment, in dollars.
    pub fn unused(&self, demand: f64) -> f64 {
        let covered = self.commitment_per_hour / (1.0 - self.discount);
        self.commitment_per_hour * (1.0 - (demand / covered).min(1.0))
    }
}
