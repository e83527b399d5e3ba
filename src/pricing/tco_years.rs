//! One candidate fleet's cash flow, year by year, by component: the definitions every
//! figure of `gpufleet tco` is built from.
//!
//! For a year starting `y` years from now, of length `len` (the last may be partial), at
//! demand `d` busy node-equivalents:
//! - rental prices fall once a year: on demand `p(y) = p0 (1 - g)^y` per node-hour, spot
//!   `s(y) = s0 (1 - g)^y`; rented capacity is paid only while used (`min(d, nodes)`);
//! - a reservation is paid for all its nodes, used or not, at `p0 (1 - g)^t0 (1 - discount)`
//!   with `t0` the start of its term (the price is fixed for the term, renewed at the
//!   then-current price; no upfront);
//! - owned hardware is paid from the day it arrives (`lead_time` after the order, at year
//!   0); until then its share of the demand is rented on demand. Capital is the equivalent
//!   annual cost of ECONOMICS.md, `(capex - S (1 + r)^-L) r / (1 - (1 + r)^-L)` at the cost
//!   of capital `r` over the life `L`, shown as its two parts: the purchase price's
//!   capital recovery `capex r / (1 - (1 + r)^-L)` (`capex`) and the resale value's credit
//!   `-S r (1 + r)^-L / (1 - (1 + r)^-L)` (`residual`); hardware past its life is replaced
//!   at the same price. Power is `(idle + (full - idle) load) x PUE x price` at the owned
//!   nodes' load, colocation is per kW of full-load power, maintenance a share of capex,
//!   staff a yearly sum for the pool;
//! - costs of a year are discounted to today at the year's end: `(1 + rate)^-(y + len)`.

use super::{annuity, TcoCandidate, TcoSpec, HOURS_PER_YEAR};

/// One year of a candidate's costs, by component (US dollars, undiscounted).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TcoYear {
    /// Start of the year, in years from now.
    pub start: f64,
    /// Length in years (1, or less for a last partial year).
    pub length: f64,
    /// Owned hardware: the purchase price's capital recovery.
    pub capex: f64,
    /// Owned hardware: the resale value's credit (zero or negative).
    pub residual: f64,
    /// Owned hardware: electricity, facility overhead (PUE) included.
    pub power: f64,
    /// Owned hardware: colocation.
    pub colocation: f64,
    /// Owned hardware: operations staff.
    pub staff: f64,
    /// Owned hardware: maintenance.
    pub maintenance: f64,
    /// Rented on demand (bursts, the spot candidate's share off spot, and owned
    /// hardware's lead-time cover).
    pub on_demand: f64,
    /// Of `on_demand`, the lead-time cover: demand rented until owned hardware arrives.
    pub lead_time_cover: f64,
    /// Reserved capacity.
    pub reserved: f64,
    /// Spot capacity.
    pub spot: f64,
    /// Node-hours of demand served.
    pub served_node_hours: f64,
    /// Discount factor to today, `(1 + rate)^-(start + length)`.
    pub discount_factor: f64,
}

impl TcoYear {
    /// The year's cost, every component.
    pub fn total(&self) -> f64 {
        self.capex
            + self.residual
            + self.power
            + self.colocation
            + self.staff
            + self.maintenance
            + self.on_demand
            + self.reserved
            + self.spot
    }

    /// The year's cost discounted to today.
    pub fn npv(&self) -> f64 {
        self.total() * self.discount_factor
    }

    /// Adds `share` of `o`'s costs and served node-hours.
    fn add(&mut self, o: &TcoYear, share: f64) {
        self.capex += share * o.capex;
        self.residual += share * o.residual;
        self.power += share * o.power;
        self.colocation += share * o.colocation;
        self.staff += share * o.staff;
        self.maintenance += share * o.maintenance;
        self.on_demand += share * o.on_demand;
        self.lead_time_cover += share * o.lead_time_cover;
        self.reserved += share * o.reserved;
        self.spot += share * o.spot;
        self.served_node_hours += share * o.served_node_hours;
    }
}

impl TcoSpec {
    /// Years of ownership within `[y, y + len)`: the part after the hardware arrives.
    pub fn owned_years(&self, y: f64, len: f64) -> f64 {
        let arrive = self.owned.lead_time_days / 365.0;
        ((y + len).min(self.horizon_years) - y.max(arrive)).clamp(0.0, len)
    }

    /// Each year's costs of candidate `c` under the demand profile `demand` (`(busy
    /// node-equivalents, share of hours)`): each level costed for the share of hours it
    /// holds (fixed costs do not depend on demand, so the shares sum them back to a year).
    pub fn cash_flow(&self, c: &TcoCandidate, demand: &[(f64, f64)]) -> Vec<TcoYear> {
        self.years()
            .into_iter()
            .map(|(y, len)| {
                let mut year = TcoYear {
                    start: y,
                    length: len,
                    discount_factor: self.discount(y, len),
                    ..Default::default()
                };
                for &(d, share) in demand {
                    year.add(&self.year_at(c, y, len, d), share);
                }
                year
            })
            .collect()
    }

    /// Candidate `c`'s costs over the year `[y, y + len)` at constant demand `d` busy
    /// node-equivalents.
    pub fn year_at(&self, c: &TcoCandidate, y: f64, len: f64, d: f64) -> TcoYear {
        let h = HOURS_PER_YEAR * len;
        let p = self.on_demand_per_node_hour * self.price_factor(y);
        let mut out = TcoYear {
            start: y,
            length: len,
            ..Default::default()
        };
        match *c {
            TcoCandidate::Buy { nodes } => {
                let served = d.min(nodes as f64);
                self.own(&mut out, nodes, served, y, len, p);
                out.served_node_hours = served * h;
            }
            TcoCandidate::OnDemand { nodes } => {
                let served = d.min(nodes as f64);
                out.on_demand = served * h * p;
                out.served_node_hours = served * h;
            }
            TcoCandidate::Reserve { years, nodes } => {
                let disc = if years >= 3 {
                    self.reserved_discount_3y
                } else {
                    self.reserved_discount_1y
                };
                // The price is fixed at the start of each term.
                let term_start = (y / years as f64).floor() * years as f64;
                let rate =
                    self.on_demand_per_node_hour * self.price_factor(term_start) * (1.0 - disc);
                out.reserved = nodes as f64 * h * rate;
                out.served_node_hours = d.min(nodes as f64) * h;
            }
            TcoCandidate::Hybrid { owned, burst } => {
                let served = d.min((owned + burst) as f64);
                let base = served.min(owned as f64);
                self.own(&mut out, owned, base, y, len, p);
                out.on_demand += (served - base) * h * p;
                out.served_node_hours = served * h;
            }
            TcoCandidate::Spot { nodes, share } => {
                let served = d.min(nodes as f64);
                let on_spot = self.on_spot_share(share);
                let s = self.spot_per_node_hour * self.price_factor(y);
                out.spot = served * h * on_spot * s;
                out.on_demand = served * h * (1.0 - on_spot) * p;
                out.served_node_hours = served * h;
            }
        }
        out
    }

    /// The share of a spot candidate's use that runs on spot: its interruptible share
    /// times the share of time spot can be had.
    pub fn on_spot_share(&self, interruptible: f64) -> f64 {
        interruptible * self.spot_availability
    }

    /// Adds `nodes` owned nodes serving `served` node-equivalents over `[y, y + len)`
    /// to `out`: ownership from the hardware's arrival, lead-time cover before it at the
    /// on-demand price `p`.
    fn own(&self, out: &mut TcoYear, nodes: u32, served: f64, y: f64, len: f64, p: f64) {
        if nodes == 0 {
            return;
        }
        let o = &self.owned;
        let n = nodes as f64;
        let f = self.owned_years(y, len);
        let load = if nodes > 0 { served / n } else { 0.0 };
        // The equivalent annual cost, split into the purchase's capital recovery and the
        // resale value's credit (their sum is the annuity).
        let eac = annuity(
            o.capex_per_node,
            o.residual_per_node,
            o.cost_of_capital,
            o.life_years,
        );
        let recovery = annuity(o.capex_per_node, 0.0, o.cost_of_capital, o.life_years);
        out.capex += f * n * recovery;
        out.residual += f * n * (eac - recovery);
        out.power += f * HOURS_PER_YEAR * n * o.it_kw(load) * o.pue * o.usd_per_kwh;
        out.colocation += f * n * o.colo_usd_per_kw_month * o.full_kw_per_node * 12.0;
        out.maintenance += f * n * o.maintenance_share_per_year * o.capex_per_node;
        out.staff += f * o.staff_usd_per_year;
        let cover = (len - f).max(0.0) * HOURS_PER_YEAR * served * p;
        out.on_demand += cover;
        out.lead_time_cover += cover;
    }
}
