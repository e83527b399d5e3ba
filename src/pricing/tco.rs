//! Buy versus rent, analytically: candidate fleets costed year by year over a horizon with a
//! falling rental price `p(t) = p0 (1 - g)^t`, discounted to a net present value, with the
//! break-even utilization of each candidate against renting on demand.

use super::{OwnedHardware, HOURS_PER_YEAR};

/// A candidate fleet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TcoCandidate {
    /// Buy `nodes` nodes.
    Buy {
        /// Nodes bought.
        nodes: u32,
    },
    /// Rent up to `nodes` nodes on demand, paying only for the hours used.
    OnDemand {
        /// Most nodes rented at once.
        nodes: u32,
    },
    /// Reserve `nodes` nodes for terms of `years` (renewed at the then-current price).
    Reserve {
        /// Term, 1 or 3 years.
        years: u32,
        /// Nodes reserved.
        nodes: u32,
    },
    /// Own a base load and rent bursts on demand.
    Hybrid {
        /// Nodes owned.
        owned: u32,
        /// Most nodes rented on demand at once.
        burst: u32,
    },
    /// Rent up to `nodes` nodes, a share `share` of the hours on spot (when spot can be had;
    /// otherwise on demand).
    Spot {
        /// Most nodes rented at once.
        nodes: u32,
        /// Share of the used hours on spot (the preemptible share).
        share: f64,
    },
}

impl TcoCandidate {
    /// A label for tables ("buy 4", "hybrid 2+4").
    pub fn label(&self) -> String {
        match self {
            TcoCandidate::Buy { nodes } => format!("buy {nodes}"),
            TcoCandidate::OnDemand { nodes } => format!("on-demand {nodes}"),
            TcoCandidate::Reserve { years, nodes } => format!("reserve {years}y {nodes}"),
            TcoCandidate::Hybrid { owned, burst } => format!("hybrid {owned}+{burst}"),
            TcoCandidate::Spot { nodes, share } => {
                format!("spot {nodes} ({:.0} %)", share * 100.0)
            }
        }
    }

    /// Most nodes the candidate can run at once.
    pub fn capacity(&self) -> u32 {
        match *self {
            TcoCandidate::Buy { nodes }
            | TcoCandidate::OnDemand { nodes }
            | TcoCandidate::Reserve { nodes, .. }
            | TcoCandidate::Spot { nodes, .. } => nodes,
            TcoCandidate::Hybrid { owned, burst } => owned + burst,
        }
    }
}

/// A validated `[tco]` section.
#[derive(Debug, Clone, PartialEq)]
pub struct TcoSpec {
    /// Horizon in years.
    pub horizon_years: f64,
    /// Discount rate per year for the NPV.
    pub discount_rate: f64,
    /// Yearly decline of rental prices (g).
    pub price_decline_per_year: f64,
    /// Demand profile: `(busy GPUs, share of hours)`; empty means "from the simulation".
    pub demand: Vec<(f64, f64)>,
    /// On-demand dollars per node-hour today (p0).
    pub on_demand_per_node_hour: f64,
    /// Spot dollars per node-hour today.
    pub spot_per_node_hour: f64,
    /// Share of the time spot capacity can be had (1 = always); the rest of a spot
    /// candidate's spot share runs on demand.
    pub spot_availability: f64,
    /// GPUs per node.
    pub gpus_per_node: u32,
    /// Owned hardware figures (per node).
    pub owned: OwnedHardware,
    /// Reservation discount off on-demand for 1-year terms.
    pub reserved_discount_1y: f64,
    /// Reservation discount off on-demand for 3-year terms.
    pub reserved_discount_3y: f64,
    /// Candidates.
    pub candidates: Vec<TcoCandidate>,
}

/// One candidate's analytic answer.
#[derive(Debug, Clone, PartialEq)]
pub struct TcoRow {
    /// Label.
    pub candidate: String,
    /// Total dollars over the horizon (undiscounted).
    pub total_usd: f64,
    /// Net present value of the costs.
    pub npv_usd: f64,
    /// GPU-hours of demand served.
    pub useful_gpu_hours: f64,
    /// Total / useful GPU-hours.
    pub usd_per_useful_gpu_hour: f64,
    /// Share of demanded GPU-hours the fleet could not serve when asked (it queues).
    pub unserved_share: f64,
    /// Utilization of the candidate's capacity.
    pub utilization: f64,
    /// Utilization above which it beats renting the same use on demand (None: never /
    /// not applicable).
    pub break_even_utilization: Option<f64>,
}

impl TcoSpec {
    /// Rental price multiplier of year `y`: `(1 - g)^y`.
    pub fn price_factor(&self, y: f64) -> f64 {
        (1.0 - self.price_decline_per_year).powf(y)
    }

    /// Each year's `(start, length in years)`, the last one possibly partial.
    pub fn years(&self) -> Vec<(f64, f64)> {
        let mut out = Vec::new();
        let mut y = 0.0;
        while y < self.horizon_years - 1e-9 {
            out.push((y, (self.horizon_years - y).min(1.0)));
            y += 1.0;
        }
        out
    }

    /// Discount factor for costs of year starting at `y` (paid at the year's end).
    pub fn discount(&self, y: f64, len: f64) -> f64 {
        (1.0 + self.discount_rate).powf(-(y + len))
    }

    /// Cost of candidate `c` for one year starting at `y` of length `len`, at demand
    /// `d_nodes` (busy node-equivalents, constant), and the node-hours served.
    pub fn year_cost(&self, c: &TcoCandidate, y: f64, len: f64, d_nodes: f64) -> (f64, f64) {
        let h = HOURS_PER_YEAR * len;
        let p = self.on_demand_per_node_hour * self.price_factor(y);
        let s = self.spot_per_node_hour * self.price_factor(y);
        let owned = |n: u32, served: f64| -> f64 {
            let o = &self.owned;
            let load = if n > 0 { served / n as f64 } else { 0.0 };
            let mut cost = len * (o.fixed_per_year(n) + o.variable_per_year(n) * load);
            // Until the hardware arrives (lead time), the served load is rented.
            let lead_y = (o.lead_time_days / 365.0 - y).clamp(0.0, len);
            cost += lead_y * HOURS_PER_YEAR * served * p;
            cost
        };
        match *c {
            TcoCandidate::Buy { nodes } => {
                let served = d_nodes.min(nodes as f64);
                (owned(nodes, served), served * h)
            }
            TcoCandidate::OnDemand { nodes } => {
                let served = d_nodes.min(nodes as f64);
                (served * h * p, served * h)
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
                let served = d_nodes.min(nodes as f64);
                (nodes as f64 * h * rate, served * h)
            }
            TcoCandidate::Hybrid { owned: b, burst } => {
                let served = d_nodes.min((b + burst) as f64);
                let base = served.min(b as f64);
                (owned(b, base) + (served - base) * h * p, served * h)
            }
            TcoCandidate::Spot { nodes, share } => {
                let served = d_nodes.min(nodes as f64);
                let on_spot = share * self.spot_availability;
                (served * h * (on_spot * s + (1.0 - on_spot) * p), served * h)
            }
        }
    }

    /// Total, NPV and node-hours served of `c` under the demand profile `demand`
    /// (`(busy node-equivalents, share of hours)`).
    pub fn evaluate(&self, c: &TcoCandidate, demand: &[(f64, f64)]) -> (f64, f64, f64) {
        let (mut total, mut npv, mut served) = (0.0, 0.0, 0.0);
        for (y, len) in self.years() {
            // Fixed costs do not depend on demand; evaluating each demand level for the
            // share of hours it holds splits them by share, which sums back to one year.
            let mut cost_y = 0.0;
            for &(d, share) in demand {
                let (cst, sv) = self.year_cost(c, y, len, d);
                cost_y += share * cst;
                served += share * sv;
            }
            total += cost_y;
            npv += cost_y * self.discount(y, len);
        }
        (total, npv, served)
    }

    /// The demand profile in node-equivalents.
    pub fn demand_nodes(&self) -> Vec<(f64, f64)> {
        let g = self.gpus_per_node.max(1) as f64;
        self.demand.iter().map(|&(gpus, s)| (gpus / g, s)).collect()
    }

    /// Dollars per useful GPU-hour of `c` kept busy at flat utilization `u` of its capacity.
    pub fn usd_per_gpu_hour_at(&self, c: &TcoCandidate, u: f64) -> f64 {
        let d = u * c.capacity() as f64;
        let (total, _, served) = self.evaluate(c, &[(d, 1.0)]);
        if served > 0.0 {
            total / (served * self.gpus_per_node as f64)
        } else {
            f64::INFINITY
        }
    }

    /// Utilization at which `c` costs the same per useful GPU-hour as renting on demand
    /// (bisection; `None` if it is never cheaper, or is on-demand itself).
    pub fn break_even(&self, c: &TcoCandidate) -> Option<f64> {
        if matches!(c, TcoCandidate::OnDemand { .. }) || c.capacity() == 0 {
            return None;
        }
        let od = TcoCandidate::OnDemand {
            nodes: c.capacity(),
        };
        let gap = |u: f64| self.usd_per_gpu_hour_at(c, u) - self.usd_per_gpu_hour_at(&od, u);
        if gap(1.0) > 0.0 {
            return None;
        }
        let (mut lo, mut hi) = (1e-6, 1.0);
        if gap(lo) <= 0.0 {
            return Some(0.0);
        }
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if gap(mid) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(hi)
    }

    /// The analytic answer for every candidate under `demand` (node-equivalents).
    pub fn analytic(&self, demand: &[(f64, f64)]) -> Vec<TcoRow> {
        let g = self.gpus_per_node as f64;
        let wanted: f64 =
            demand.iter().map(|&(d, s)| d * s).sum::<f64>() * HOURS_PER_YEAR * self.horizon_years;
        self.candidates
            .iter()
            .map(|c| {
                let (total, npv, served) = self.evaluate(c, demand);
                let cap = c.capacity() as f64 * HOURS_PER_YEAR * self.horizon_years;
                TcoRow {
                    candidate: c.label(),
                    total_usd: total,
                    npv_usd: npv,
                    useful_gpu_hours: served * g,
                    usd_per_useful_gpu_hour: if served > 0.0 {
                        total / (served * g)
                    } else {
                        f64::INFINITY
                    },
                    unserved_share: if wanted > 0.0 {
                        (1.0 - served / wanted).max(0.0)
                    } else {
                        0.0
                    },
                    utilization: if cap > 0.0 { served / cap } else { 0.0 },
                    break_even_utilization: self.break_even(c),
                }
            })
            .collect()
    }
}
