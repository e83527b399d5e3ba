//! A replan that keeps the reservations it can prove unmoved in the profile: the stuck
//! reservation moves to now by checking only the span it newly takes, and each job
//! after it keeps its place while nothing was freed and its window still fits, without
//! giving its reservation back or searching again.
//!
//! The stuck job `G` moves from `[a, a + d)` (`a` in the past) to `[now, now + d)`: over
//! `[now, inf)` it only takes more, the span `[max(now, a + d), now + d)`. Taking that
//! span from the profile that still holds every later job's reservation leaves it
//! negative on a few steps (the conflicts). With nothing freed, no job can start
//! earlier than before in any pool (the profile it sees only lost room), so a job keeps
//! its reservation exactly when its window still fits in the profile without the jobs
//! after it: `P + later >= 0` over its window, where `P` is the profile holding
//! everything and `later` the reservations of the jobs after it. Off the conflicts `P`
//! is non-negative (the plan before fitted); on each conflict step, `later` is bounded
//! below by the reservations of later jobs that cover the whole step (`cover`). When a
//! check cannot prove a job unmoved, the caller gives back that job's reservation and
//! those after it and plans them again as before: the answer is the same either way.

use super::{Plan, Slot};
use crate::engine::SimTime;
use crate::model::JobId;

/// The conflict steps of a held replan: `(pool, from, to, value, cover)`, with `cover`
/// the whole GPUs of the reservations not yet checked that cover the whole step; and the
/// spans taken by the stuck reservations moved to now.
#[derive(Debug, Default)]
pub(super) struct Held {
    steps: Vec<(usize, SimTime, SimTime, i64, i64)>,
    taken: Vec<(usize, SimTime, SimTime)>,
}

impl Held {
    /// Starts a replan: no span taken yet.
    pub(super) fn clear(&mut self) {
        self.steps.clear();
        self.taken.clear();
    }

    /// The reservation of the next job (after those already checked; `rest` are the
    /// jobs after it) as planning it again gives, its old one kept in the profile, or
    /// `None` when the check cannot prove it (the profile then holds the old one).
    ///
    /// A reservation due before now moves to now if no pool before its own offered a
    /// start by now (`rival`) and, with the span it newly takes, every conflict step in
    /// its new window would have room once the jobs after it are given back. Any other
    /// reservation stays if every conflict step in its window would.
    pub(super) fn keeps(
        &mut self,
        plan: &mut Plan,
        slot: Option<Slot>,
        rest: &[(JobId, Option<Slot>)],
        now: SimTime,
    ) -> Option<Option<Slot>> {
        let Some(s) = slot else {
            // It fitted nowhere; with less room it still fits nowhere.
            return Some(None);
        };
        if s.at >= now {
            self.uncover(s);
            return self.fits(s).then_some(slot);
        }
        if s.rival <= now || s.d == SimTime::ZERO {
            return None;
        }
        let from = now.max(s.at.plus(s.d));
        let end = now.plus(s.d);
        plan.profiles[s.pool].advance(now);
        plan.profiles[s.pool].add(from, -s.need, end.since(from));
        plan.bounds.touch(s.pool);
        self.taken.push((s.pool, from, end));
        self.collect(plan, rest);
        let moved = Slot { at: now, ..s };
        if !self.fits(moved) {
            plan.profiles[s.pool].add(from, s.need, end.since(from));
            plan.bounds.touch(s.pool);
            return None;
        }
        Some(Some(moved))
    }

    /// Takes the reservation `s` out of the cover of the steps.
    fn uncover(&mut self, s: Slot) {
        for c in &mut self.steps {
            if c.0 == s.pool && covers(s, c.1, c.2) {
                c.4 -= s.need;
            }
        }
    }

    /// True when no conflict step in the window of `s` would lack room.
    fn fits(&self, s: Slot) -> bool {
        let end = s.at.plus(s.d);
        self.steps
            .iter()
            .all(|c| c.0 != s.pool || c.1 >= end || c.2 <= s.at || c.3 + c.4 >= 0)
    }

    /// The conflict steps (negative ones) over the spans taken, and their cover by the
    /// reservations of `rest`.
    fn collect(&mut self, plan: &Plan, rest: &[(JobId, Option<Slot>)]) {
        self.steps.clear();
        for &(pool, from, end) in &self.taken {
            let steps = &mut self.steps;
            plan.profiles[pool].negatives(from, end, |t, to, v| steps.push((pool, t, to, v, 0)));
        }
        if self.taken.len() > 1 {
            self.steps.sort_unstable_by_key(|c| (c.0, c.1));
            self.steps.dedup_by_key(|c| (c.0, c.1));
        }
        for r in rest.iter().filter_map(|x| x.1) {
            for c in &mut self.steps {
                if c.0 == r.pool && covers(r, c.1, c.2) {
                    c.4 += r.need;
                }
            }
        }
    }
}

/// True when reservation `r` covers the whole of `[from, to)`.
fn covers(r: Slot, from: SimTime, to: SimTime) -> bool {
    r.need != 0 && r.at <= from && r.at.plus(r.d) >= to
}
