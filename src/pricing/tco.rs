//! Buy versus rent, analytically: candidate fleets costed year by year over a horizon with a
//! falling rental price `p(t) = p0 (1 - g)^t` (the definitions in `tco_years.rs`),
//! discounted to a net present value at the scenario's rate, with each candidate's
//! break-even utilization on NPV against renting the same use on demand.

use super::{annuity, OwnedHardware, HOURS_PER_YEAR};

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
    /// The availability trace that share was measured from, if given (`spot_trace`): the
    /// simulated path replays it.
    pub spot_trace: Option<super::AvailabilityTrace>,
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

/// The most candidates one `[tco]` section may list: 1,000 (each is costed hour by hour
/// over the horizon, about 0.3 MB and 1 ms apiece, and with `--simulate` replayed once).
pub const MAX_TCO_CANDIDATES: usize = 1000;

/// One candidate's analytic answer.
#[derive(Debug, Clone, PartialEq)]
pub struct TcoRow {
    /// Label.
    pub candidate: String,
    /// Total dollars over the horizon (undiscounted).
    pub total_usd: f64,
    /// Net present value of the costs at the discount rate.
    pub npv_usd: f64,
    /// GPU-hours of demand served.
    pub useful_gpu_hours: f64,
    /// Total / useful GPU-hours.
    pub usd_per_useful_gpu_hour: f64,
    /// Share of demanded GPU-hours the fleet could not serve when asked (it queues).
    pub unserved_share: f64,
    /// Utilization of the candidate's capacity.
    pub utilization: f64,
    /// Break-even utilization on NPV: the flat utilization of its capacity above which
    /// the candidate's NPV is below renting the same use on demand (`None`: never, or no
    /// fixed cost to recover: on-demand and spot).
    pub break_even_utilization: Option<f64>,
    /// ECONOMICS.md's break-even at the year-0 rental price, undiscounted and without
    /// lead time (`(annual capital + fixed opex) / (GPUs x 8760 x (p - variable cost))`
    /// for a purchase, `1 - discount` for a reservation): a textbook reference, printed
    /// only under its name.
    pub break_even_year0_price: Option<f64>,
    /// Spot candidates: the share of use that runs on spot (interruptible share x
    /// availability) and spot's discount off on-demand today.
    pub spot: Option<(f64, f64)>,
    /// The candidate's NPV below (positive) or above renting the same served use on
    /// demand, as a share of the latter.
    pub saving_vs_on_demand: f64,
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

    /// Discount factor for costs of the year starting at `y` (paid at the year's end).
    pub fn discount(&self, y: f64, len: f64) -> f64 {
        (1.0 + self.discount_rate).powf(-(y + len))
    }

    /// Total, NPV and node-hours served of `c` under the demand profile `demand`
    /// (`(busy node-equivalents, share of hours)`).
    pub fn evaluate(&self, c: &TcoCandidate, demand: &[(f64, f64)]) -> (f64, f64, f64) {
        let years = self.cash_flow(c, demand);
        (
            years.iter().map(|y| y.total()).sum(),
            years.iter().map(|y| y.npv()).sum(),
            years.iter().map(|y| y.served_node_hours).sum(),
        )
    }

    /// The demand profile in node-equivalents.
    pub fn demand_nodes(&self) -> Vec<(f64, f64)> {
        let g = self.gpus_per_node.max(1) as f64;
        self.demand.iter().map(|&(gpus, s)| (gpus / g, s)).collect()
    }

    /// NPV of renting on demand what `demand` asks of a fleet of `capacity` nodes.
    fn on_demand_npv(&self, capacity: u32, demand: &[(f64, f64)]) -> f64 {
        self.evaluate(&TcoCandidate::OnDemand { nodes: capacity }, demand)
            .1
    }

    /// NPV per useful GPU-hour of `c` kept busy at flat utilization `u` of its capacity
    /// (the NPV over the horizon's served GPU-hours, undiscounted).
    pub fn npv_per_gpu_hour_at(&self, c: &TcoCandidate, u: f64) -> f64 {
        let d = u * c.capacity() as f64;
        let (_, npv, served) = self.evaluate(c, &[(d, 1.0)]);
        if served > 0.0 {
            npv / (served * self.gpus_per_node as f64)
        } else {
            f64::INFINITY
        }
    }

    /// Break-even utilization on NPV: the flat utilization `u` of `c`'s capacity at which
    /// its NPV equals renting the same busy node-hours on demand (bisection; `None` if it
    /// is never cheaper, or has no fixed cost to recover: on-demand and spot).
    pub fn break_even(&self, c: &TcoCandidate) -> Option<f64> {
        if matches!(c, TcoCandidate::OnDemand { .. } | TcoCandidate::Spot { .. })
            || c.capacity() == 0
        {
            return None;
        }
        let cap = c.capacity();
        let gap = |u: f64| {
            let demand = [(u * cap as f64, 1.0)];
            self.evaluate(c, &demand).1 - self.on_demand_npv(cap, &demand)
        };
        if gap(1.0) > 0.0 {
            return None;
        }
        let (mut lo, mut hi) = (0.0, 1.0);
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

    /// ECONOMICS.md's break-even at the year-0 rental price, undiscounted, without lead
    /// time: for a purchase `(annual capital + fixed opex) / (GPUs x 8760 x (p -
    /// variable cost per GPU-hour))`; for a reservation `1 - discount`; `None` otherwise.
    pub fn break_even_year0_price(&self, c: &TcoCandidate) -> Option<f64> {
        let g = self.gpus_per_node.max(1) as f64;
        let p = self.on_demand_per_node_hour / g;
        match *c {
            TcoCandidate::Buy { nodes } if nodes > 0 => {
                let o = &self.owned;
                let n = nodes as f64;
                let fixed = n
                    * (annuity(
                        o.capex_per_node,
                        o.residual_per_node,
                        o.cost_of_capital,
                        o.life_years,
                    ) + HOURS_PER_YEAR * o.idle_kw_per_node * o.pue * o.usd_per_kwh
                        + o.colo_usd_per_kw_month * o.full_kw_per_node * 12.0
                        + o.maintenance_share_per_year * o.capex_per_node)
                    + o.staff_usd_per_year;
                let variable =
                    (o.full_kw_per_node - o.idle_kw_per_node) * o.pue * o.usd_per_kwh / g;
                let margin = p - variable;
                (margin > 0.0).then(|| fixed / (n * g * HOURS_PER_YEAR * margin))
            }
            TcoCandidate::Reserve { years, .. } => Some(
                1.0 - if years >= 3 {
                    self.reserved_discount_3y
                } else {
                    self.reserved_discount_1y
                },
            ),
            _ => None,
        }
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
                // Renting on demand exactly what this candidate served.
                let od = self.on_demand_npv(c.capacity(), &self.served_demand(c, demand));
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
                    break_even_year0_price: self.break_even_year0_price(c),
                    spot: match *c {
                        TcoCandidate::Spot { share, .. } => Some((
                            self.on_spot_share(share),
                            if self.on_demand_per_node_hour > 0.0 {
                                1.0 - self.spot_per_node_hour / self.on_demand_per_node_hour
                            } else {
                                0.0
                            },
                        )),
                        _ => None,
                    },
                    saving_vs_on_demand: if od > 0.0 { 1.0 - npv / od } else { 0.0 },
                }
            })
            .collect()
    }

    /// The part of `demand` that `c` serves (each level capped at its capacity).
    fn served_demand(&self, c: &TcoCandidate, demand: &[(f64, f64)]) -> Vec<(f64, f64)> {
        let cap = c.capacity() as f64;
        demand.iter().map(|&(d, s)| (d.min(cap), s)).collect()
    }
}
