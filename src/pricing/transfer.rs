//! Data transfer: tiered per-GB egress, cross-zone traffic, and time from bandwidth. The
//! prices come from the scenario's `[transfer]` section or the price catalog
//! ([`super::egress`]); this file holds the rules that turn volumes into dollars.

use crate::engine::SimTime;

/// Tiered egress prices: the first `free_gb` each month cost nothing, then each tier's
/// price applies to the gigabytes up to its upper bound.
#[derive(Debug, Clone, PartialEq)]
pub struct Egress {
    /// Free gigabytes per month.
    pub free_gb: f64,
    /// `(upper bound in GB of cumulative monthly volume, $/GB)`, ascending; the last bound
    /// may be `f64::INFINITY`.
    pub tiers: Vec<(f64, f64)>,
    /// Cross-zone dollars per GB (each way).
    pub cross_zone_per_gb: f64,
}

/// Where moved data goes, which sets its price.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveScope {
    /// Between zones of a region.
    CrossZone,
    /// Between regions (priced as internet egress).
    CrossRegion,
}

impl Egress {
    /// Cost of `gb` gigabytes of internet egress in one month.
    pub fn internet_cost(&self, gb: f64) -> f64 {
        let mut cost = 0.0;
        let mut lower = self.free_gb.min(gb);
        for &(upper, price) in &self.tiers {
            if gb <= lower {
                break;
            }
            let top = gb.min(upper);
            if top > lower {
                cost += (top - lower) * price;
                lower = top;
            }
        }
        cost
    }

    /// Cost of `gb` gigabytes moved across zones.
    pub fn cross_zone_cost(&self, gb: f64) -> f64 {
        gb * self.cross_zone_per_gb
    }

    /// The price of each of a run's moves `(GB, scope)`, in order: across zones at the
    /// cross-zone price each way (sender and receiver both pay); across regions as internet
    /// egress on the tiers, counted cumulatively over the run (a run longer than a month
    /// would restart the tiers each month; this does not).
    pub fn move_charges(&self, moves: impl IntoIterator<Item = (f64, MoveScope)>) -> Vec<f64> {
        let mut region_gb = 0.0;
        moves
            .into_iter()
            .map(|(gb, scope)| match scope {
                MoveScope::CrossZone => 2.0 * self.cross_zone_cost(gb),
                MoveScope::CrossRegion => {
                    let before = self.internet_cost(region_gb);
                    region_gb += gb;
                    self.internet_cost(region_gb) - before
                }
            })
            .collect()
    }
}

/// Data a scenario's jobs move, and its prices: each completed job sends
/// `egress_gb_per_job` to the internet (priced by the month's cumulative volume) and
/// `cross_zone_gb_per_job` across zones.
#[derive(Debug, Clone, PartialEq)]
pub struct TransferSpec {
    /// Prices.
    pub egress: Egress,
    /// Internet egress per completed job, GB.
    pub egress_gb_per_job: f64,
    /// Cross-zone traffic per completed job, GB.
    pub cross_zone_gb_per_job: f64,
}

/// A month of egress tiers (730 h), in milliseconds.
const MONTH_MS: u64 = 730 * 3_600_000;

impl TransferSpec {
    /// The transfer charge of each completed job, given their completion times in order:
    /// its egress priced at the margin of the month's cumulative volume (months of 730 h
    /// from the start of the run), plus its cross-zone traffic.
    pub fn job_charges(&self, ends: &[SimTime]) -> Vec<f64> {
        let mut month = u64::MAX;
        let mut volume = 0.0;
        ends.iter()
            .map(|end| {
                if end.0 / MONTH_MS != month {
                    month = end.0 / MONTH_MS;
                    volume = 0.0;
                }
                let gb = self.egress_gb_per_job;
                let usd = self.egress.internet_cost(volume + gb)
                    - self.egress.internet_cost(volume)
                    + self.egress.cross_zone_cost(self.cross_zone_gb_per_job);
                volume += gb;
                usd
            })
            .collect()
    }
}

/// Seconds to move `gb` gigabytes at `gbit_per_s` gigabits per second.
pub fn transfer_seconds(gb: f64, gbit_per_s: f64) -> f64 {
    if gbit_per_s <= 0.0 {
        return f64::INFINITY;
    }
    gb * 8.0 / gbit_per_s
}
