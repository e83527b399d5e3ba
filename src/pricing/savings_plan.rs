//! Savings plans: a dollars-per-hour commitment at a discount that covers on-demand usage
//! across pools, settled hour by hour over the plan's terms inside a run.

use super::{PoolPricing, PricingModel, UsageRecord};
use crate::engine::SimTime;
use crate::model::CapacityKind;

/// A commitment of `commitment_per_hour` dollars each hour of its term, buying on-demand
/// usage at `discount` off. The term begins `start` into the run and lasts `term` (for
/// the whole run if `None`); renewed at its end or not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SavingsPlan {
    /// Committed dollars per hour (C), owed used or not.
    pub commitment_per_hour: f64,
    /// Discount off on-demand (d), e.g. 0.66 for the AWS Compute plan's best rate.
    pub discount: f64,
    /// When the term begins, from the start of the run.
    pub start: SimTime,
    /// Length of the term (`None`: it covers the rest of the run).
    pub term: Option<SimTime>,
    /// A new term begins when one ends.
    pub renew: bool,
}

/// One term of a savings plan over a run: what it owed, and how much of it went unused.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlanTerm {
    /// Start of the term, from the start of the run.
    pub start: SimTime,
    /// End of the term ([`SimTime::NEVER`]: open-ended).
    pub end: SimTime,
    /// The commitment owed over the term's part inside the run.
    pub owed: f64,
    /// The part of it no usage consumed.
    pub unused: f64,
}

/// What a savings plan makes of a run's covered usage.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanSettlement {
    /// Pools the plan covers: on-demand capacity rented at a list price.
    pub covered: Vec<usize>,
    /// Each pool's covered usage at list price (indexed like the pools' pricing).
    pub list_by_pool: Vec<f64>,
    /// What the covered usage costs under the plan: the commitment it consumed plus the
    /// usage beyond the commitment's reach, at list price.
    pub consumed: f64,
    /// The unused commitment, as `(pool, dollars)`: split over the covered pools by their
    /// usage, or all on the first covered pool (pool 0 if none) when there was no usage.
    pub unused_by_pool: Vec<(usize, f64)>,
    /// Each term's commitment and unused part, in order.
    pub terms: Vec<PlanTerm>,
}

impl SavingsPlan {
    /// A plan of `commitment_per_hour` at `discount` over the whole run.
    pub fn new(commitment_per_hour: f64, discount: f64) -> SavingsPlan {
        SavingsPlan {
            commitment_per_hour,
            discount,
            start: SimTime::ZERO,
            term: None,
            renew: false,
        }
    }

    /// The plan's terms `[start, end)` that begin before `end`.
    pub fn terms(&self, end: SimTime) -> Vec<(SimTime, SimTime)> {
        let Some(term) = self.term.filter(|t| t.0 > 0) else {
            return vec![(self.start, SimTime::NEVER)];
        };
        let mut out = Vec::new();
        let mut s = self.start;
        while s < end || out.is_empty() {
            out.push((s, s.plus(term)));
            if !self.renew {
                break;
            }
            s = s.plus(term);
        }
        out
    }

    /// Cost of an hour with on-demand-equivalent demand `d` dollars:
    /// `C + max(0, D - C / (1 - d))` (ECONOMICS.md).
    pub fn hour_cost(&self, demand: f64) -> f64 {
        let covered = self.commitment_per_hour / (1.0 - self.discount);
        self.commitment_per_hour + (demand - covered).max(0.0)
    }

    /// The unused part of the hour's commitment, in dollars.
    pub fn unused(&self, demand: f64) -> f64 {
        let covered = self.commitment_per_hour / (1.0 - self.discount);
        self.commitment_per_hour * (1.0 - (demand / covered).min(1.0))
    }

    /// Settles the plan over a run `[0, end]` of pools that used `usage` under `pricing`.
    /// Each hour `h`, the covered usage at list price `D_h` (node-hours held in that hour
    /// times the rate) costs `C + max(0, D_h - C / (1 - d))`, the commitment prorated for
    /// a partial last hour.
    pub fn settle(
        &self,
        usage: &[UsageRecord],
        pricing: &[PoolPricing],
        end: SimTime,
    ) -> PlanSettlement {
        let od: Vec<(usize, f64)> = pricing
            .iter()
            .enumerate()
            .filter_map(|(p, m)| {
                let rate = m.list_rate()?;
                (usage.get(p).map(|u| u.kind) == Some(CapacityKind::OnDemand)).then_some((p, rate))
            })
            .collect();
        let hour_ms = 3_600_000u64;
        let end = end.0;
        let covered = self.commitment_per_hour / (1.0 - self.discount);
        let mut usage_by_pool = vec![0.0; pricing.len()];
        let (mut consumed, mut unused) = (0.0, 0.0);
        let mut terms: Vec<PlanTerm> = self
            .terms(SimTime(end))
            .into_iter()
            .map(|(start, end)| PlanTerm {
                start,
                end,
                owed: 0.0,
                unused: 0.0,
            })
            .collect();
        let mut h0 = 0u64;
        while h0 < end {
            let h1 = (h0 + hour_ms).min(end);
            let mut d = 0.0;
            for &(p, rate) in &od {
                for iv in &usage[p].held {
                    let a = iv.requested.0.max(h0);
                    let b = iv.released.0.min(h1);
                    if b > a {
                        let usd = iv.nodes as f64 * (b - a) as f64 / hour_ms as f64 * rate;
                        d += usd;
                        usage_by_pool[p] += usd;
                    }
                }
            }
            // The share of this hour each term covers (the commitment is prorated).
            let mut frac = 0.0;
            for t in &terms {
                let (a, b) = (t.start.0.max(h0), t.end.0.min(h1));
                if b > a {
                    frac += (b - a) as f64 / hour_ms as f64;
                }
            }
            // The commitment C buys usage worth up to C / (1 - d) at list price; usage
            // beyond it is paid at list price.
            let c = self.commitment_per_hour * frac;
            let cov = covered * frac;
            let used_share = if cov > 0.0 { (d / cov).min(1.0) } else { 1.0 };
            consumed += c * used_share + (d - cov).max(0.0);
            unused += c * (1.0 - used_share);
            for t in terms.iter_mut() {
                let (a, b) = (t.start.0.max(h0), t.end.0.min(h1));
                if b > a {
                    let ct = self.commitment_per_hour * (b - a) as f64 / hour_ms as f64;
                    t.owed += ct;
                    t.unused += ct * (1.0 - used_share);
                }
            }
            h0 = h1;
        }
        let list: f64 = usage_by_pool.iter().sum();
        let first = od.first().map(|x| x.0).unwrap_or(0);
        let unused_by_pool = usage_by_pool
            .iter()
            .enumerate()
            .filter_map(|(p, usd)| {
                let share = if list > 0.0 {
                    usd / list
                } else if p == first {
                    1.0
                } else {
                    0.0
                };
                (share > 0.0).then_some((p, unused * share))
            })
            .collect();
        PlanSettlement {
            covered: od.iter().map(|&(p, _)| p).collect(),
            list_by_pool: usage_by_pool,
            consumed,
            unused_by_pool,
            terms,
        }
    }
}
