//! Reserved / committed capacity: nodes committed for a term, upfront plus recurring,
//! paid whether used or not, prorated into the simulated horizon; hours of the run
//! outside the term are rented on demand.

use super::{
    Bill, Charge, CostKind, FromConfig, PriceContext, PricingModel, Problems, UsageRecord,
};
use crate::engine::SimTime;
use serde::Deserialize;

/// Hours in a (365-day) year, the unit of reservation terms.
pub const HOURS_PER_YEAR: f64 = 8_760.0;

/// A reservation of `nodes` nodes for a term.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reservation {
    /// Nodes committed.
    pub nodes: u32,
    /// When the term began, in hours relative to the start of the run (negative: before).
    pub term_start_h: f64,
    /// Length of the term in hours (1 year = 8760 h).
    pub term_h: f64,
    /// Upfront payment per node for the whole term.
    pub upfront_per_node: f64,
    /// Recurring dollars per node-hour over the term.
    pub recurring_per_node_hour: f64,
}

impl Reservation {
    /// A reservation priced as a discount off an on-demand rate, no upfront:
    /// `recurring = p (1 - discount)`.
    pub fn at_discount(nodes: u32, term_h: f64, on_demand: f64, discount: f64) -> Reservation {
        Reservation {
            nodes,
            term_start_h: 0.0,
            term_h,
            upfront_per_node: 0.0,
            recurring_per_node_hour: on_demand * (1.0 - discount),
        }
    }

    /// Effective hourly cost per node: `upfront / term_h + recurring`
    /// (ECONOMICS.md: h = upfront / (8760 years) + recurring).
    pub fn effective_per_node_hour(&self) -> f64 {
        if self.term_h > 0.0 {
            self.upfront_per_node / self.term_h + self.recurring_per_node_hour
        } else {
            self.recurring_per_node_hour
        }
    }

    /// Utilization above which the reservation beats on-demand at `on_demand` $/node-hour:
    /// `u* = h / p` (= 1 - discount).
    pub fn break_even_utilization(&self, on_demand: f64) -> f64 {
        self.effective_per_node_hour() / on_demand
    }

    /// Hours of the term that fall inside the run `[0, end]`.
    pub fn hours_in(&self, end: SimTime) -> f64 {
        let a = self.term_start_h.max(0.0);
        let b = (self.term_start_h + self.term_h).min(end.hours_f64());
        (b - a).max(0.0)
    }

    /// The commitment's cost within the run `[0, end]`: the term's prorated share of the
    /// upfront plus the recurring part for the hours inside the run.
    pub fn cost_in(&self, end: SimTime) -> f64 {
        self.nodes as f64 * self.hours_in(end) * self.effective_per_node_hour()
    }
}

/// A pool on a reservation: the commitment, and the on-demand rate for the hours of the
/// run outside its term.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reserved {
    /// The commitment.
    pub reservation: Reservation,
    /// Dollars per node-hour outside the term.
    pub outside: f64,
}

/// `[pools.pricing] kind = "reserved"`: a term that began `term_started` before the run,
/// priced by a recurring rate, a discount off on-demand, an upfront payment, or both of
/// the latter.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReservedConfig {
    /// Length of the term ("365d").
    pub term: String,
    /// How long before the run the term began (zero if omitted).
    #[serde(default)]
    pub term_started: Option<String>,
    /// Upfront dollars per node for the whole term.
    #[serde(default)]
    pub upfront_per_node: Option<f64>,
    /// Recurring dollars per node-hour.
    #[serde(default)]
    pub recurring_per_node_hour: Option<f64>,
    /// Discount off the on-demand price (instead of a recurring rate).
    #[serde(default)]
    pub discount: Option<f64>,
}

impl PricingModel for Reserved {
    fn kind_name(&self) -> &'static str {
        "reserved"
    }

    fn bill(&self, usage: &UsageRecord) -> Bill {
        let end = usage.end;
        let nodes: f64 = usage
            .held
            .iter()
            .map(|h| h.nodes as f64)
            .sum::<f64>()
            .max(0.0);
        let in_term = self.reservation.hours_in(end);
        let out_h = (end.hours_f64() - in_term).max(0.0);
        Bill::for_all_of(
            usage,
            vec![
                Charge {
                    busy: CostKind::BusyCompute,
                    idle: CostKind::UnusedCommitment,
                    usd: self.reservation.cost_in(end),
                },
                Charge {
                    busy: CostKind::BusyCompute,
                    idle: CostKind::IdleCompute,
                    usd: nodes * out_h * self.outside,
                },
            ],
        )
    }

    /// The yearly effective rate with no work.
    fn comparison_rate(&self, nodes: u32) -> f64 {
        self.effective_rate(nodes, super::model::quote_year())
    }
}

impl FromConfig for Reserved {
    type Config = ReservedConfig;

    fn from_config(c: &ReservedConfig, ctx: &PriceContext, problems: &mut dyn Problems) -> Self {
        let term_h = problems.duration("pricing.term", &c.term).hours_f64();
        if term_h <= 0.0 {
            problems.err("pricing.term", "must be longer than zero".into());
        }
        let started = c
            .term_started
            .as_deref()
            .map(|s| problems.duration("pricing.term_started", s).hours_f64())
            .unwrap_or(0.0);
        let od = ctx.on_demand.unwrap_or(0.0);
        let recurring = match (c.recurring_per_node_hour, c.discount) {
            (Some(r), None) => problems.nonneg("pricing.recurring_per_node_hour", r),
            (None, Some(d)) => {
                let d = problems.share("pricing.discount", d);
                if ctx.on_demand.is_none() {
                    ctx.need(problems, "a discount needs the on-demand price");
                }
                od * (1.0 - d)
            }
            (Some(_), Some(_)) => {
                problems.err(
                    "pricing",
                    "give recurring_per_node_hour or discount, not both".into(),
                );
                0.0
            }
            (None, None) => {
                if c.upfront_per_node.is_none() {
                    problems.err(
                        "pricing",
                        "give recurring_per_node_hour, discount or upfront_per_node".into(),
                    );
                }
                0.0
            }
        };
        Reserved {
            reservation: Reservation {
                nodes: ctx.nodes,
                term_start_h: -started,
                term_h: term_h.max(1e-9),
                upfront_per_node: problems.nonneg(
                    "pricing.upfront_per_node",
                    c.upfront_per_node.unwrap_or(0.0),
                ),
                recurring_per_node_hour: recurring,
            },
            outside: od,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prorates_a_term_that_started_before_the_run() {
        // Term of 100 h began 40 h before the run: 60 h fall in a 720 h run.
        // Upfront $1000/node -> $10/h, recurring $5/h: 2 nodes x 60 h x $15 = $1800.
        let r = Reservation {
            nodes: 2,
            term_start_h: -40.0,
            term_h: 100.0,
            upfront_per_node: 1000.0,
            recurring_per_node_hour: 5.0,
        };
        assert!((r.cost_in(SimTime::from_hours_f64(720.0)) - 1800.0).abs() < 1e-9);
    }
}
