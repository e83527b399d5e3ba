//! Owned hardware: capital as an annuity, power at the simulated load, facility, staff,
//! maintenance, charged per simulated hour.

use super::reserved::HOURS_PER_YEAR;
use super::{
    Bill, Charge, CostKind, FromConfig, PriceContext, PricingModel, Problems, UsageRecord,
};
use crate::engine::SimTime;
use serde::Deserialize;

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

/// Owned hardware figures as written (`[pools.pricing] kind = "owned"`, `[tco.owned]`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OwnedConfig {
    /// Purchase price per node.
    pub capex_per_node: f64,
    /// Resale value per node at the end of its life (zero if omitted).
    #[serde(default)]
    pub residual_per_node: Option<f64>,
    /// Useful life in years.
    pub life_years: f64,
    /// Yearly cost of capital (zero if omitted).
    #[serde(default)]
    pub cost_of_capital: Option<f64>,
    /// IT power per node when idle, kW.
    #[serde(default)]
    pub idle_kw_per_node: Option<f64>,
    /// IT power per node at full load, kW.
    #[serde(default)]
    pub full_kw_per_node: Option<f64>,
    /// Power usage effectiveness (1.4 if omitted).
    #[serde(default)]
    pub pue: Option<f64>,
    /// Electricity price, $/kWh ($0.0771 if omitted).
    #[serde(default)]
    pub usd_per_kwh: Option<f64>,
    /// Colocation, $ per kW of IT power per month.
    #[serde(default)]
    pub colo_usd_per_kw_month: Option<f64>,
    /// Operations staff for the pool, $ per year.
    #[serde(default)]
    pub staff_usd_per_year: Option<f64>,
    /// Maintenance per year as a share of capital.
    #[serde(default)]
    pub maintenance_share_per_year: Option<f64>,
    /// Order to usable hardware ("90d").
    #[serde(default)]
    pub lead_time: Option<String>,
}

impl OwnedHardware {
    /// The figures of `o`, with problems under `path` (`pricing` in a pool, `tco.owned`).
    pub fn from_fields(path: &str, o: &OwnedConfig, problems: &mut dyn Problems) -> Self {
        // Each figure from zero to a bound past any real one (a bill of `1e308` overflows).
        let within = |p: &mut dyn Problems, name: &str, v: f64, max: f64, unit: &str| {
            p.within(&format!("{path}.{name}"), v, max, unit)
        };
        let f = |p: &mut dyn Problems, name: &str, v: Option<f64>, default: f64| {
            p.usd(&format!("{path}.{name}"), v.unwrap_or(default))
        };
        let life = o.life_years;
        if !(life.is_finite() && life > 0.0 && life <= 100.0) {
            problems.err(
                &format!("{path}.life_years"),
                format!(
                    "must be above 0 and at most 100 years, got {}",
                    crate::engine::short_number(life)
                ),
            );
        }
        let lead = o
            .lead_time
            .as_deref()
            .map(|l| problems.duration(&format!("{path}.lead_time"), l))
            .unwrap_or(SimTime::ZERO);
        let pue = o.pue.unwrap_or(1.4);
        if !(pue.is_finite() && (1.0..=10.0).contains(&pue)) {
            problems.err(
                &format!("{path}.pue"),
                format!(
                    "must be between 1 and 10, got {}",
                    crate::engine::short_number(pue)
                ),
            );
        }
        let kw = |p: &mut dyn Problems, name: &str, v: Option<f64>| {
            within(p, name, v.unwrap_or(0.0), 1e3, "kW")
        };
        let idle = kw(problems, "idle_kw_per_node", o.idle_kw_per_node);
        let full = kw(problems, "full_kw_per_node", o.full_kw_per_node);
        if idle > full {
            problems.err(
                &format!("{path}.idle_kw_per_node"),
                format!("idle power {idle} kW exceeds full-load power {full} kW"),
            );
        }
        OwnedHardware {
            capex_per_node: problems.usd(&format!("{path}.capex_per_node"), o.capex_per_node),
            residual_per_node: f(problems, "residual_per_node", o.residual_per_node, 0.0),
            life_years: life.clamp(1e-9, 100.0),
            cost_of_capital: within(
                problems,
                "cost_of_capital",
                o.cost_of_capital.unwrap_or(0.0),
                1.0,
                "(a share a year)",
            ),
            idle_kw_per_node: idle,
            full_kw_per_node: full,
            pue: pue.max(1.0),
            // EIA US industrial ~7-9 c/kWh; Epoch AI uses $0.0771 (ECONOMICS.md).
            usd_per_kwh: within(
                problems,
                "usd_per_kwh",
                o.usd_per_kwh.unwrap_or(0.0771),
                1e3,
                "dollars a kWh",
            ),
            colo_usd_per_kw_month: within(
                problems,
                "colo_usd_per_kw_month",
                o.colo_usd_per_kw_month.unwrap_or(0.0),
                1e6,
                "dollars a kW-month",
            ),
            staff_usd_per_year: f(problems, "staff_usd_per_year", o.staff_usd_per_year, 0.0),
            maintenance_share_per_year: within(
                problems,
                "maintenance_share_per_year",
                o.maintenance_share_per_year.unwrap_or(0.0),
                1.0,
                "(a share a year)",
            ),
            lead_time_days: lead.hours_f64() / 24.0,
        }
    }
}

impl PricingModel for OwnedHardware {
    fn kind_name(&self) -> &'static str {
        "owned"
    }

    /// Paid per simulated hour for the nodes on the books (the average number usable),
    /// power at the pool's load.
    fn bill(&self, usage: &UsageRecord) -> Bill {
        let end = usage.end;
        let node_hours: f64 = usage.held.iter().map(|h| h.usable_node_hours()).sum();
        let nodes_avg = if end.0 > 0 {
            node_hours / end.hours_f64()
        } else {
            0.0
        };
        let mut parts = self.cost(1, end.hours_f64(), usage.load());
        parts.capital *= nodes_avg;
        parts.power *= nodes_avg;
        parts.facility *= nodes_avg;
        let line = |kind, usd| Charge::new(kind, kind, usd);
        Bill::for_all_of(
            usage,
            vec![
                line(CostKind::Capital, parts.capital),
                line(CostKind::Power, parts.power),
                line(CostKind::Facility, parts.facility),
                line(CostKind::Staff, parts.staff),
            ],
        )
    }

    /// The yearly effective rate with no work.
    fn comparison_rate(&self, nodes: u32) -> f64 {
        self.effective_rate(nodes, super::model::quote_year())
    }
}

impl FromConfig for OwnedHardware {
    type Config = OwnedConfig;

    fn from_config(c: &OwnedConfig, _ctx: &PriceContext, problems: &mut dyn Problems) -> Self {
        OwnedHardware::from_fields("pricing", c, problems)
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
