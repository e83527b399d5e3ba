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

/// The conflict steps of a held replan: `(from, to, value, cover)` in the stuck job's
/// pool, with `cover` the whole GPUs of the reservations not yet checked that cover the
/// whole step.
#[derive(Debug, Default)]
pub(super) struct Held {
    pool: usize,
    steps: Vec<(SimTime, SimTime, i64, i64)>,
}

impl Held {
    /// Moves the stuck reservation `g` (due before `now`) to now, keeping the
    /// reservations of `rest` (the jobs after it) in the profile, if the check proves
    /// that is where planning it again puts it: no pool before its own offered a start
    /// by now (`rival`), and on every conflict step the jobs after it that cover the
    /// step would, given back, leave room. Else the profile is left as it was and
    /// `None` returned.
    pub(super) fn take(
        &mut self,
        plan: &mut Plan,
        g: Slot,
        rest: &[(JobId, Option<Slot>)],
        now: SimTime,
    ) -> Option<Slot> {
        if g.rival <= now || g.d == SimTime::ZERO || g.at >= now {
            return None;
        }
        let from = now.max(g.at.plus(g.d));
        let end = now.plus(g.d);
        let prof = &mut plan.profiles[g.pool];
        prof.add(from, -g.need, end.since(from));
        self.pool = g.pool;
        self.steps.clear();
        let s = prof.steps();
        let first = s.partition_point(|x| x.0 <= from).saturating_sub(1);
        for (k, x) in s.iter().enumerate().skip(first) {
            if x.0 >= end {
                break;
            }
            if x.1 < 0 {
                let to = s.get(k + 1).map_or(SimTime::NEVER, |n| n.0);
                self.steps.push((x.0, to, x.1, 0));
            }
        }
        for r in rest.iter().filter_map(|x| x.1) {
            if r.pool == g.pool {
                for c in &mut self.steps {
                    if covers(r, c.0, c.1) {
                        c.3 += r.need;
                    }
                }
            }
        }
        if self.steps.iter().any(|c| c.2 + c.3 < 0) {
            plan.profiles[g.pool].add(from, g.need, end.since(from));
            return None;
        }
        Some(Slot { at: now, ..g })
    }

    /// True when the job with reservation `slot` (the next one after those already
    /// checked) keeps it: with the jobs after it given back, its window still fits.
    /// Either way, its reservation leaves the cover of the steps.
    pub(super) fn keeps(&mut self, slot: Option<Slot>, now: SimTime) -> bool {
        let Some(s) = slot else {
            // It fitted nowhere; with less room it still fits nowhere.
            return true;
        };
        if s.at < now {
            return false;
        }
        if s.pool != self.pool || s.need == 0 || s.d == SimTime::ZERO {
            return true;
        }
        let end = s.at.plus(s.d);
        let mut ok = true;
        for c in &mut self.steps {
            if covers(s, c.0, c.1) {
                c.3 -= s.need;
            }
            if c.0 < end && c.1 > s.at && c.2 + c.3 < 0 {
                ok = false;
            }
        }
        ok
    }
}

/// True when reservation `r` covers the whole of `[from, to)`.
fn covers(r: Slot, from: SimTime, to: SimTime) -> bool {
    r.need != 0 && r.at <= from && r.at.plus(r.d) >= to
}
