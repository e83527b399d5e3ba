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
    // Hour `h` indexes one array per covered pool and the terms' range together.
    #[allow(clippy::needless_range_loop)]
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
        // Node-milliseconds each covered pool held in each hour, exact in integers and
        // built in one pass over the intervals: an interval adds its ragged ends to
        // `partial` and its whole hours to a difference array of node counts. The
        // settlement is then linear in hours plus intervals plus terms (it was hours
        // times intervals: seconds for a two-year run of an autoscaled pool).
        let hours = end.div_ceil(hour_ms) as usize;
        let held_by_hour: Vec<Vec<u64>> = od
            .iter()
            .map(|&(p, _)| {
                let mut partial = vec![0u64; hours];
                let mut diff = vec![0i64; hours + 1];
                for iv in &usage[p].held {
                    let (a, b) = (iv.requested.0, iv.released.0.min(end));
                    if b <= a {
                        continue;
                    }
                    let n = iv.nodes as u64;
                    let (ha, hb) = ((a / hour_ms) as usize, (b / hour_ms) as usize);
                    if ha == hb {
                        partial[ha] += n * (b - a);
                        continue;
                    }
                    partial[ha] += n * ((ha as u64 + 1) * hour_ms - a);
                    diff[ha + 1] += n as i64;
                    diff[hb] -= n as i64;
                    if b > hb as u64 * hour_ms {
                        partial[hb] += n * (b - hb as u64 * hour_ms);
                    }
                }
                let mut whole = 0i64;
                for (h, x) in partial.iter_mut().enumerate() {
                    whole += diff[h];
                    *x += whole as u64 * hour_ms;
                }
                partial
            })
            .collect();
        // Terms are in time order and do not overlap: the first that may reach an hour.
        let mut first_term = 0;
        for h in 0..hours {
            let h0 = h as u64 * hour_ms;
            let h1 = (h0 + hour_ms).min(end);
            let mut d = 0.0;
            for (k, &(p, rate)) in od.iter().enumerate() {
                let usd = held_by_hour[k][h] as f64 / hour_ms as f64 * rate;
                d += usd;
                usage_by_pool[p] += usd;
            }
            while first_term < terms.len() && terms[first_term].end.0 <= h0 {
                first_term += 1;
            }
            let reach = terms[first_term..]
                .iter()
                .take_while(|t| t.start.0 < h1)
                .count();
            let now = first_term..first_term + reach;
            // The share of this hour each term covers (the commitment is prorated).
            let mut frac = 0.0;
            for t in &terms[now.clone()] {
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
            for t in terms[now].iter_mut() {
                let (a, b) = (t.start.0.max(h0), t.end.0.min(h1));
                if b > a {
                    let ct = self.commitment_per_hour * (b - a) as f64 / hour_ms as f64;
                    t.owed += ct;
                    t.unused += ct * (1.0 - used_share);
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pricing::HeldInterval;

    /// The settlement by its definition, hour by hour over every interval (the brute force
    /// the settlement replaced): list-price usage per hour, the terms' share of each hour.
    fn brute(
        plan: &SavingsPlan,
        pools: &[(Vec<HeldInterval>, f64)],
        end: u64,
    ) -> (f64, f64, Vec<f64>) {
        let hour = 3_600_000u64;
        let covered = plan.commitment_per_hour / (1.0 - plan.discount);
        let terms = plan.terms(SimTime(end));
        let (mut consumed, mut unused) = (0.0, 0.0);
        let mut owed = vec![0.0; terms.len()];
        let mut h0 = 0;
        while h0 < end {
            let h1 = (h0 + hour).min(end);
            let mut d = 0.0;
            for (held, rate) in pools {
                for iv in held {
                    let (a, b) = (iv.requested.0.max(h0), iv.released.0.min(h1));
                    if b > a {
                        d += iv.nodes as f64 * (b - a) as f64 / hour as f64 * rate;
                    }
                }
            }
            let mut frac = 0.0;
            for (k, &(s, e)) in terms.iter().enumerate() {
                let (a, b) = (s.0.max(h0), e.0.min(h1));
                if b > a {
                    frac += (b - a) as f64 / hour as f64;
                    owed[k] += plan.commitment_per_hour * (b - a) as f64 / hour as f64;
                }
            }
            let (c, cov) = (plan.commitment_per_hour * frac, covered * frac);
            let used = if cov > 0.0 { (d / cov).min(1.0) } else { 1.0 };
            consumed += c * used + (d - cov).max(0.0);
            unused += c * (1.0 - used);
            h0 = h1;
        }
        (consumed, unused, owed)
    }

    #[test]
    fn settlement_agrees_with_the_hour_by_hour_definition() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for case in 0..200 {
            // A run of up to 3 days plus a ragged end; 1-3 pools of up to 40 intervals,
            // some longer than the run, some inside one hour, some on hour marks.
            let end = 3_600_000 * next(72) + next(3_600_000) + 1;
            let pools: Vec<(Vec<HeldInterval>, f64)> = (0..1 + next(3))
                .map(|_| {
                    let held = (0..next(40))
                        .map(|_| {
                            let a = if next(4) == 0 {
                                next(72) * 3_600_000
                            } else {
                                next(end + 7_200_000)
                            };
                            let len = match next(3) {
                                0 => next(3_600_000),
                                1 => next(20 * 3_600_000),
                                _ => next(2 * end + 1),
                            };
                            HeldInterval {
                                requested: SimTime(a),
                                ready: SimTime(a),
                                released: SimTime(a + len),
                                nodes: 1 + next(8) as u32,
                                interrupted_by_provider: false,
                            }
                        })
                        .collect();
                    (held, 1.0 + next(100) as f64)
                })
                .collect();
            let plan = SavingsPlan {
                commitment_per_hour: 1.0 + next(300) as f64,
                discount: 0.3,
                start: SimTime(next(end)),
                term: (next(3) > 0).then(|| SimTime(3_600_000 + next(30 * 3_600_000))),
                renew: next(2) == 0,
            };
            let usage: Vec<UsageRecord> = pools
                .iter()
                .map(|(held, _)| UsageRecord {
                    end: SimTime(end),
                    kind: CapacityKind::OnDemand,
                    nodes: 8,
                    gpus_per_node: 8,
                    held: held.clone(),
                    provisioned_gpu_ms: 0,
                    busy_gpu_ms: 0,
                    down_node_ms: None,
                    busy_by_period: vec![],
                    by_tenant: vec![],
                    by_job: vec![],
                })
                .collect();
            let pricing: Vec<PoolPricing> = pools
                .iter()
                .map(|(_, r)| PoolPricing::OnDemand(crate::pricing::OnDemand::flat(*r)))
                .collect();
            let s = plan.settle(&usage, &pricing, SimTime(end));
            let (consumed, unused, owed) = brute(&plan, &pools, end);
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()));
            assert!(
                close(s.consumed, consumed),
                "case {case}: {} vs {consumed}",
                s.consumed
            );
            let u: f64 = s.unused_by_pool.iter().map(|x| x.1).sum();
            assert!(close(u, unused), "case {case}: unused {u} vs {unused}");
            assert_eq!(s.terms.len(), owed.len(), "case {case}");
            for (t, o) in s.terms.iter().zip(&owed) {
                assert!(close(t.owed, *o), "case {case}: owed {} vs {o}", t.owed);
            }
        }
    }
}
