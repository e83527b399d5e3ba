//! Owned hardware: capital as an annuity, power at the simulated load, facility, staff,
//! maintenance, charged per simulated hour.

use super::reserved::HOURS_PER_YEAR;

/// The cost model of a pool of bought nodes. Dollars, kW, years.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OwnedHardware {
    /// Purchase price per node (server, its share of network and install).
    pub capex_per_node: f64,
    /// Resale value per node at the end of its life.
    pub residual_per_node: f64,
    /// Useful life in years.
    pub life_years: f64,
    /// Yearly cost of capital (e.g. 0.13 for 13 % debt).
    pub cost_of_capital: f64,
    /// IT power per node when idle, kW.
    pub idle_kw_per_node: f64,
    /// IT power per node at full load, kW.
    pub full_kw_per_node: f64,
    /// Power usage effectiveness of the facility (>= 1).
    pub pue: f64,
    /// Electricity price, dollars per kWh.
    pub usd_per_kwh: f64,
    /// Colocation, dollars per kW of provisioned IT power per month.
    pub colo_usd_per_kw_month: f64,
    /// Operations staff for the whole pool, dollars per year.
    pub staff_usd_per_year: f64,
    /// Maintenance per year as a share of capital.
    pub maintenance_share_per_year: f64,
    /// Days from order to usable hardware.
    pub lead_time_days: f64,
}

/// Equivalent annual cost of capital: `(capex - S (1 + r)^-L) r / (1 - (1 + r)^-L)`;
/// at `r = 0`, straight-line `(capex - S) / L` (ECONOMICS.md).
pub fn annuity(capex: f64, residual: f64, rate: f64, life_years: f64) -> f64 {
    if life_years <= 0.0 {
        return 0.0;
    }
    if rate.abs() < 1e-12 {
        return (capex - residual) / life_years;
    }
    let v = (1.0 + rate).powf(-life_years);
    (capex - residual * v) * rate / (1.0 - v)
}

/// One hour of an owned pool, split by kind.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct OwnedHour {
    /// Capital (annuity share).
    pub capital: f64,
    /// Electricity, including the facility overhead (PUE).
    pub power: f64,
    /// Colocation and maintenance.
    pub facility: f64,
    /// Staff.
    pub staff: f64,
}

impl OwnedHour {
    /// Sum of the parts.
    pub fn total(&self) -> f64 {
        self.capital + self.power + self.facility + self.staff
    }
}

/// Hours in an average month (8760 / 12).
pub const HOURS_PER_MONTH: f64 = HOURS_PER_YEAR / 12.0;

impl OwnedHardware {
    /// Capital per node-hour.
    pub fn capital_per_node_hour(&self) -> f64 {
        annuity(
            self.capex_per_node,
            self.residual_per_node,
            self.cost_of_capital,
            self.life_years,
        ) / HOURS_PER_YEAR
    }

    /// IT power per node at `load` (0..=1), linear between idle and full, kW.
    pub fn it_kw(&self, load: f64) -> f64 {
        self.idle_kw_per_node
            + (self.full_kw_per_node - self.idle_kw_per_node) * load.clamp(0.0, 1.0)
    }

    /// The cost of `nodes` nodes for `hours` hours at average `load`, split by kind.
    pub fn cost(&self, nodes: u32, hours: f64, load: f64) -> OwnedHour {
        let n = nodes as f64;
        OwnedHour {
            capital: n * hours * self.capital_per_node_hour(),
            power: n * hours * self.it_kw(load) * self.pue * self.usd_per_kwh,
            facility: n
                * hours
                * (self.colo_usd_per_kw_month * self.full_kw_per_node / HOURS_PER_MONTH
                    + self.maintenance_share_per_year * self.capex_per_node / HOURS_PER_YEAR),
            staff: hours * self.staff_usd_per_year / HOURS_PER_YEAR,
        }
    }

    /// Fixed yearly cost of `nodes` nodes (everything but the load-dependent power).
    pub fn fixed_per_year(&self, nodes: u32) -> f64 {
        let c = self.cost(nodes, HOURS_PER_YEAR, 0.0);
        c.capital + c.facility + c.staff + c.power
    }

    /// Extra yearly cost per unit of load (power above idle).
    pub fn variable_per_year(&self, nodes: u32) -> f64 {
        nodes as f64
            * HOURS_PER_YEAR
            * (self.full_kw_per_node - self.idle_kw_per_node)
            * self.pue
            * self.usd_per_kwh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_rate_annuity_is_straight_line() {
        assert!((annuity(100.0, 20.0, 0.0, 4.0) - 20.0).abs() < 1e-12);
    }

    #[test]
    fn power_hand_calculation() {
        // 1 node, 10 kW full, 2 kW idle, at 50 % load = 6 kW x PUE 1.5 = 9 kW x $0.10 = $0.90/h.
        let o = OwnedHardware {
            capex_per_node: 0.0,
            residual_per_node: 0.0,
            life_years: 5.0,
            cost_of_capital: 0.0,
            idle_kw_per_node: 2.0,
            full_kw_per_node: 10.0,
            pue: 1.5,
            usd_per_kwh: 0.10,
            colo_usd_per_kw_month: 0.0,
            staff_usd_per_year: 0.0,
            maintenance_share_per_year: 0.0,
            lead_time_days: 0.0,
        };
        assert!((o.cost(1, 1.0, 0.5).power - 0.9).abs() < 1e-12);
    }
}
