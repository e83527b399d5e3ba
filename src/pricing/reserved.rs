//! Reserved / committed capacity: nodes committed for a term that begins before or inside
//! the run, upfront plus recurring, paid whether used or not, billed over the part of
//! each term inside the run; renewed or expiring at the term's end. Outside the terms the
//! nodes are rented on demand, or are not there at all.

use super::{
    Bill, CapacityWindow, Charge, CostKind, FromConfig, PriceContext, PricingModel, Problems,
    UsageRecord,
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

/// What a reserved pool's nodes are outside its terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutsideTerm {
    /// The nodes are there and rented at the on-demand price (as AWS bills an instance
    /// whose reservation has not begun or has expired).
    #[default]
    OnDemand,
    /// The nodes exist only during the terms.
    None,
}

/// A pool on a reservation: the commitment, renewed or not at the end of its term, and
/// what the nodes are outside the terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reserved {
    /// The commitment (its first term).
    pub reservation: Reservation,
    /// Dollars per node-hour outside the terms.
    pub outside: f64,
    /// A new term at the same price begins when one ends.
    pub renew: bool,
    /// The nodes outside the terms.
    pub outside_term: OutsideTerm,
}

/// `[pools.pricing] kind = "reserved"`: a term that begins `start` into the run (or began
/// `term_started` before it), priced by a recurring rate, a discount off on-demand (paid
/// by `payment`), an upfront payment, or both of the latter; renewed or not at its end;
/// the nodes outside the terms rented on demand or not there.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReservedConfig {
    /// Length of the term ("365d").
    pub term: String,
    /// How long before the run the term began (zero if omitted).
    #[serde(default)]
    pub term_started: Option<String>,
    /// When the term begins, from the start of the run (instead of `term_started`).
    #[serde(default)]
    pub start: Option<String>,
    /// Upfront dollars per node for the whole term.
    #[serde(default)]
    pub upfront_per_node: Option<f64>,
    /// Recurring dollars per node-hour.
    #[serde(default)]
    pub recurring_per_node_hour: Option<f64>,
    /// Discount off the on-demand price (instead of a recurring rate).
    #[serde(default)]
    pub discount: Option<f64>,
    /// With `discount`: `all_upfront`, `partial_upfront` (half) or `no_upfront` (default).
    #[serde(default)]
    pub payment: Option<Payment>,
    /// A new term at the same price begins when one ends (default false: it expires).
    #[serde(default)]
    pub renew: Option<bool>,
    /// `on_demand` (default: outside the terms the nodes are rented on demand) or `none`
    /// (the nodes exist only during the terms).
    #[serde(default)]
    pub outside_term: Option<String>,
}

/// How a reservation priced by a discount is paid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Payment {
    /// The whole term's price upfront.
    AllUpfront,
    /// Half upfront, half as a recurring rate.
    PartialUpfront,
    /// Only a recurring rate.
    NoUpfront,
}

/// At most this many terms of a renewing reservation are split out for billing periods:
/// more than the longest span gpufleet simulates (100 years) holds of the shortest
/// renewing term, an hour ([`MIN_RENEWING_TERM_H`]). A run past that (a trace without a
/// horizon) is told so, as the terms after it are not billed as the reservation.
const MAX_TERMS: usize = 880_000;

/// The shortest term a renewing reservation may have, in hours (as a savings plan's:
/// billing is by the hour; providers' terms are one or three years).
pub const MIN_RENEWING_TERM_H: f64 = 1.0;

impl Reserved {
    /// At the on-demand rate `outside` outside the term, expiring at its end.
    pub fn new(reservation: Reservation, outside: f64) -> Reserved {
        Reserved {
            reservation,
            outside,
            renew: false,
            outside_term: OutsideTerm::OnDemand,
        }
    }

    /// The terms `(start, end)` in hours from the run's start that overlap `[0, until_h)`,
    /// in order (at most [`MAX_TERMS`]).
    pub fn terms(&self, until_h: f64) -> Vec<(f64, f64)> {
        let r = &self.reservation;
        let mut out = Vec::new();
        let mut s = r.term_start_h;
        if self.renew && s + r.term_h <= 0.0 {
            // Skip the whole terms that ended before the run began.
            s += ((-s) / r.term_h).floor() * r.term_h;
        }
        while s < until_h {
            if out.len() == MAX_TERMS {
                tracing::warn!(
                    "a renewing reservation's terms past the {MAX_TERMS}th (from {s:.0} h on) are billed as time outside its terms"
                );
                break;
            }
            let e = s + r.term_h;
            if e > 0.0 {
                out.push((s, e));
            }
            if !self.renew {
                break;
            }
            s = e;
        }
        out
    }
}

fn at_hours(h: f64) -> SimTime {
    SimTime::from_hours_f64(h.max(0.0))
}

impl PricingModel for Reserved {
    fn kind_name(&self) -> &'static str {
        "reserved"
    }

    /// Each term's part inside the run, owed used or not (upfront spread evenly over the
    /// term, recurring as it accrues), used to the busy share of the term's GPU-time;
    /// outside the terms, the nodes at the on-demand price (if they are there).
    fn bill(&self, usage: &UsageRecord) -> Bill {
        let end_h = usage.end.hours_f64();
        let r = &self.reservation;
        let mut charges = Vec::new();
        let (mut in_terms_h, mut busy_in_terms) = (0.0, 0u128);
        for (s, e) in self.terms(end_h) {
            let (a, b) = (s.max(0.0), e.min(end_h));
            if b <= a {
                continue;
            }
            let (ta, tb) = (at_hours(a), at_hours(b).min(usage.end));
            let busy = usage.busy_within(ta, tb);
            let paid = usage.gpu_ms_of(r.nodes, ta, tb);
            in_terms_h += tb.since(ta).hours_f64();
            busy_in_terms += busy;
            let owed = r.nodes as f64 * (b - a) * r.effective_per_node_hour();
            let share = if paid > 0.0 { busy as f64 / paid } else { 0.0 };
            charges.push(Charge::commitment(owed, share, (s, e)));
        }
        if self.outside_term == OutsideTerm::OnDemand {
            let out_h = (end_h - in_terms_h).max(0.0);
            if out_h > 0.0 {
                let paid = usage.nodes as f64
                    * usage.gpus_per_node.max(1) as f64
                    * SimTime::from_hours_f64(out_h).0 as f64;
                let busy = usage.busy_gpu_ms.saturating_sub(busy_in_terms) as f64;
                charges.push(Charge {
                    share: Some(if paid > 0.0 {
                        (busy / paid).min(1.0)
                    } else {
                        0.0
                    }),
                    ..Charge::new(
                        CostKind::BusyCompute,
                        CostKind::IdleCompute,
                        usage.nodes as f64 * out_h * self.outside,
                    )
                });
            }
        }
        Bill::for_all_of(usage, charges)
    }

    /// The yearly effective rate with no work.
    fn comparison_rate(&self, nodes: u32) -> f64 {
        self.effective_rate(nodes, super::model::quote_year())
    }

    fn capacity_windows(&self) -> Vec<CapacityWindow> {
        if self.outside_term == OutsideTerm::OnDemand {
            return Vec::new();
        }
        let r = &self.reservation;
        let open = at_hours(r.term_start_h);
        let close = if self.renew {
            SimTime::NEVER
        } else {
            at_hours(r.term_start_h + r.term_h)
        };
        if close <= open {
            // The term ended before the run: the nodes are never there.
            return vec![CapacityWindow {
                open: SimTime::NEVER,
                close: SimTime::NEVER,
                notice: SimTime::ZERO,
            }];
        }
        vec![CapacityWindow {
            open,
            close,
            notice: SimTime::ZERO,
        }]
    }

    fn period_bounds(&self, until: SimTime) -> Vec<SimTime> {
        let mut out = Vec::new();
        for (s, e) in self.terms(until.hours_f64()) {
            for t in [s, e] {
                if t > 0.0 {
                    let t = at_hours(t);
                    if out.last() != Some(&t) {
                        out.push(t);
                    }
                }
            }
        }
        out
    }
}

impl FromConfig for Reserved {
    type Config = ReservedConfig;

    fn from_config(c: &ReservedConfig, ctx: &PriceContext, problems: &mut dyn Problems) -> Self {
        let term_h = problems.duration("pricing.term", &c.term).hours_f64();
        if term_h <= 0.0 {
            problems.err("pricing.term", "must be longer than zero".into());
        } else if c.renew == Some(true) && term_h < MIN_RENEWING_TERM_H {
            // Up to 10,000 terms were billed and the rest of the run silently at the
            // on-demand price (a renewal every minute covered a week of a year's run).
            problems.err(
                "pricing.term",
                format!(
                    "a renewing reservation's term must be at least 1h (reservations are billed by the hour; providers' terms are 1 or 3 years), got {term_h} h"
                ),
            );
        }
        let start_h = match (&c.term_started, &c.start) {
            (Some(_), Some(_)) => {
                problems.err(
                    "pricing.start",
                    "give start (from the run's start) or term_started (before it), not both"
                        .into(),
                );
                0.0
            }
            (Some(s), None) => -problems.duration("pricing.term_started", s).hours_f64(),
            (None, Some(s)) => problems.duration("pricing.start", s).hours_f64(),
            (None, None) => 0.0,
        };
        let od = ctx.on_demand.unwrap_or(0.0);
        let (mut upfront, recurring) = match (c.recurring_per_node_hour, c.discount) {
            (Some(r), None) => (
                0.0,
                problems.usd_per_hour("pricing.recurring_per_node_hour", r),
            ),
            (None, Some(d)) => {
                let d = problems.share("pricing.discount", d);
                if ctx.on_demand.is_none() {
                    ctx.need(problems, "a discount needs the on-demand price");
                }
                let h = od * (1.0 - d);
                match c.payment.unwrap_or(Payment::NoUpfront) {
                    Payment::NoUpfront => (0.0, h),
                    Payment::PartialUpfront => (h * term_h.max(0.0) / 2.0, h / 2.0),
                    Payment::AllUpfront => (h * term_h.max(0.0), 0.0),
                }
            }
            (Some(_), Some(_)) => {
                problems.err(
                    "pricing",
                    "give recurring_per_node_hour or discount, not both".into(),
                );
                (0.0, 0.0)
            }
            (None, None) => {
                if c.upfront_per_node.is_none() {
                    problems.err(
                        "pricing",
                        "give recurring_per_node_hour, discount or upfront_per_node".into(),
                    );
                }
                (0.0, 0.0)
            }
        };
        if c.payment.is_some() && c.discount.is_none() {
            problems.err(
                "pricing.payment",
                "payment splits a discounted price; with upfront_per_node and recurring_per_node_hour the split is given".into(),
            );
        }
        if let Some(u) = c.upfront_per_node {
            if c.payment.is_some() {
                problems.err(
                    "pricing.upfront_per_node",
                    "give payment (with discount) or upfront_per_node, not both".into(),
                );
            }
            upfront += problems.usd("pricing.upfront_per_node", u);
        }
        let outside_term = match c.outside_term.as_deref() {
            None | Some("on_demand") => OutsideTerm::OnDemand,
            Some("none") => OutsideTerm::None,
            Some(other) => {
                problems.err(
                    "pricing.outside_term",
                    format!("unknown {other:?}: on_demand (the nodes rented at the on-demand price) or none (the nodes exist only during the terms)"),
                );
                OutsideTerm::OnDemand
            }
        };
        Reserved {
            reservation: Reservation {
                nodes: ctx.nodes,
                term_start_h: start_h,
                term_h: term_h.max(1e-9),
                upfront_per_node: upfront,
                recurring_per_node_hour: recurring,
            },
            outside: od,
            renew: c.renew.unwrap_or(false),
            outside_term,
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

    #[test]
    fn renewed_terms_that_ended_before_the_run_are_skipped() {
        // 100-hour terms renewed since 250 h before the run: [-250, -150) and [-150, -50)
        // ended before it; [-50, 50), [50, 150) and [150, 250) overlap a 200-hour run.
        let r = Reserved {
            renew: true,
            ..Reserved::new(
                Reservation {
                    nodes: 1,
                    term_start_h: -250.0,
                    term_h: 100.0,
                    upfront_per_node: 0.0,
                    recurring_per_node_hour: 1.0,
                },
                2.0,
            )
        };
        assert_eq!(
            r.terms(200.0),
            vec![(-50.0, 50.0), (50.0, 150.0), (150.0, 250.0)]
        );
        // Without renewal the one term ended before the run: nothing owed, and the hours
        // outside it at the on-demand price: 200 h x $2.
        let once = Reserved { renew: false, ..r };
        assert!(once.terms(200.0).is_empty());
        let usage = UsageRecord::idle_whole_run(
            crate::model::CapacityKind::Reserved,
            1,
            SimTime::from_hours_f64(200.0),
        );
        assert!((once.bill(&usage).total() - 400.0).abs() < 1e-9);
        // Renewed: 200 h at $1.
        assert!((r.bill(&usage).total() - 200.0).abs() < 1e-9);
    }
}
