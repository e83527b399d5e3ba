//! Reserved / committed capacity: nodes committed for a term, upfront plus recurring,
//! paid whether used or not, prorated into the simulated horizon.

use crate::engine::SimTime;

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
