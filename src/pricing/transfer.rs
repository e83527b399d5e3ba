//! Data transfer: tiered per-GB egress, cross-zone traffic, and time from bandwidth.

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

impl Egress {
    /// AWS internet egress as quoted in ECONOMICS.md (*secondary*): 100 GB free, then
    /// $0.09 to 10 TB, $0.085 to 50 TB, $0.07 to 150 TB, $0.05 above; cross-zone $0.01.
    pub fn aws_internet() -> Egress {
        Egress {
            free_gb: 100.0,
            tiers: vec![
                (10_240.0, 0.09),
                (51_200.0, 0.085),
                (153_600.0, 0.07),
                (f64::INFINITY, 0.05),
            ],
            cross_zone_per_gb: 0.01,
        }
    }

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

/// Seconds to move `gb` gigabytes at `gbit_per_s` gigabits per second.
pub fn transfer_seconds(gb: f64, gbit_per_s: f64) -> f64 {
    if gbit_per_s <= 0.0 {
        return f64::INFINITY;
    }
    gb * 8.0 / gbit_per_s
}
