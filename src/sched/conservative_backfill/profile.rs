//! Free whole GPUs of one pool over time, as a step function: what conservative backfill
//! plans against. Kept across passes, its past steps are dropped as time moves on.

use crate::engine::SimTime;

/// Free whole GPUs of one pool over time: `(from, free)` steps, times increasing; the
/// first live step is "now", the last lasts for ever.
#[derive(Debug, Clone, Default)]
pub(super) struct Profile {
    steps: Vec<(SimTime, i64)>,
    /// Steps before `lo` are in the past (dropped lazily, to move memory rarely).
    lo: usize,
    /// Steps that may hold the value before them (left in place by [`Profile::add`],
    /// which drops them all at once when they grow many).
    dead: usize,
    /// The buffer [`Profile::add_all`] builds into (no allocation per call).
    spare: Vec<(SimTime, i64)>,
}

impl Profile {
    /// From steps (times increasing).
    pub(super) fn new(steps: Vec<(SimTime, i64)>) -> Profile {
        Profile {
            steps,
            lo: 0,
            dead: 0,
            spare: Vec::new(),
        }
    }

    /// The live steps.
    pub(super) fn steps(&self) -> &[(SimTime, i64)] {
        &self.steps[self.lo..]
    }

    /// Moves "now" to `t` (not earlier than the first live step): steps at or before `t`
    /// merge into one step at `t` holding the value at `t`. The function on `[t, inf)`
    /// is unchanged.
    pub(super) fn advance(&mut self, t: SimTime) {
        let s = &self.steps;
        let mut lo = self.lo;
        if lo >= s.len() {
            return;
        }
        while lo + 1 < s.len() && s[lo + 1].0 <= t {
            lo += 1;
        }
        self.lo = lo;
        self.steps[lo].0 = self.steps[lo].0.max(t);
        if self.lo > 64 && self.lo * 2 > self.steps.len() {
            self.steps.drain(..self.lo);
            self.lo = 0;
        }
    }

    /// The earliest step time at which `need` GPUs stay free for `d`, or `None`.
    ///
    /// One pass over the steps: when a step inside a candidate's window is short of
    /// `need`, no candidate before it can hold either (its window reaches that step too),
    /// so the search resumes after it. The same answer as trying every step in turn.
    pub(super) fn earliest(&self, need: i64, d: SimTime) -> Option<SimTime> {
        self.earliest_from(SimTime::ZERO, need, d)
    }

    /// As [`Profile::earliest`] among the steps from `lb` on (the caller knows that no
    /// earlier step can hold).
    pub(super) fn earliest_from(&self, lb: SimTime, need: i64, d: SimTime) -> Option<SimTime> {
        let s = self.steps();
        let mut i = s.partition_point(|x| x.0 < lb);
        'cand: while i < s.len() {
            if s[i].1 < need {
                i += 1;
                continue;
            }
            let end = s[i].0.plus(d);
            let mut j = i + 1;
            // Four steps at a time while the fourth starts inside the window (times
            // increase, so all four do): one test of their four values, branch-free.
            while j + 4 <= s.len() && s[j + 3].0 < end {
                let w = &s[j..j + 4];
                if (w[0].1 < need) | (w[1].1 < need) | (w[2].1 < need) | (w[3].1 < need) {
                    let k = w.iter().position(|x| x.1 < need).unwrap_or(0);
                    i = j + k + 1;
                    continue 'cand;
                }
                j += 4;
            }
            while j < s.len() && s[j].0 < end {
                if s[j].1 < need {
                    i = j + 1;
                    continue 'cand;
                }
                j += 1;
            }
            return Some(s[i].0);
        }
        None
    }

    /// Index of the step starting at `at` (not before the first live step), inserted
    /// (with the value before it) if absent.
    fn split(&mut self, at: SimTime) -> usize {
        let lo = self.lo;
        match self.steps[lo..].binary_search_by_key(&at, |x| x.0) {
            Ok(i) => lo + i,
            Err(i) => {
                let pos = lo + i;
                let before = if i == 0 { 0 } else { self.steps[pos - 1].1 };
                self.steps.insert(pos, (at, before));
                pos
            }
        }
    }

    /// Counts the step at `i` as dead if it holds the value of the step before it; when
    /// the dead steps are more than a quarter of the live ones, drops them all in one
    /// pass (rather than moving memory for each: a reservation moved a little again and
    /// again would remove a step and insert one each time).
    fn merge(&mut self, i: usize) {
        if i > self.lo && i < self.steps.len() && self.steps[i].1 == self.steps[i - 1].1 {
            self.dead += 1;
        }
        if self.dead > 16 && self.dead * 4 > self.steps.len() - self.lo {
            self.compact();
        }
    }

    /// Drops the live steps that hold the value of the step before them.
    fn compact(&mut self) {
        let mut last: Option<i64> = None;
        let lo = self.lo;
        let mut k = 0;
        self.steps.retain(|x| {
            k += 1;
            if k <= lo + 1 {
                last = Some(x.1);
                return true;
            }
            let keep = last != Some(x.1);
            last = Some(x.1);
            keep
        });
        self.dead = 0;
    }

    /// Adds `delta` GPUs over `[t, t + d)` (negative: takes them); the part before now
    /// is dropped.
    pub(super) fn add(&mut self, t: SimTime, delta: i64, d: SimTime) {
        let end = t.plus(d);
        let Some(&(now, _)) = self.steps.get(self.lo) else {
            return;
        };
        let t = t.max(now);
        if t >= end || delta == 0 {
            return;
        }
        if self.retime(t, delta, end) {
            return;
        }
        let a = self.split(t);
        let b = self.split(end);
        for step in &mut self.steps[a..b] {
            step.1 += delta;
        }
        self.merge(b);
        self.merge(a);
    }

    /// Takes `need` GPUs over `[t, t + d)` (`t` not before now) if that leaves the
    /// profile non-negative there, i.e. when at least `need` are free all over it; else
    /// changes nothing. True when taken.
    pub(super) fn take_if_free(&mut self, t: SimTime, need: i64, d: SimTime) -> bool {
        let end = t.plus(d);
        if d == SimTime::ZERO {
            return true;
        }
        if let Some(i) = self.retimable(t, -need, end) {
            // After the move the value before `t` holds over the whole span.
            if self.steps[i - 1].1 < 0 {
                return false;
            }
            self.steps[i].0 = end;
            return true;
        }
        if self.min_over(t, end) < need {
            return false;
        }
        self.add(t, -need, d);
        true
    }

    /// Adds `delta` over `[t, end)` by moving the step at `t` to `end`, when that is the
    /// same function: a step (not the first) starts at `t`, `delta` brings it back to
    /// the value before it, and no other step starts in `(t, end]`. Then the value
    /// before `t` lasts until `end` and the step's own value from `end` on, as adding
    /// would leave it, with no step inserted (no memory moved). This is the common case
    /// of a reservation stuck in the past moved to now again at each pass: its end
    /// step moves by the time since the last pass. False (nothing changed) otherwise.
    fn retime(&mut self, t: SimTime, delta: i64, end: SimTime) -> bool {
        match self.retimable(t, delta, end) {
            Some(i) => {
                self.steps[i].0 = end;
                true
            }
            None => false,
        }
    }

    /// The index of the step [`Profile::retime`] would move, if it applies.
    fn retimable(&self, t: SimTime, delta: i64, end: SimTime) -> Option<usize> {
        let lo = self.lo;
        let s = &self.steps;
        let i = lo + s.get(lo..)?.binary_search_by_key(&t, |x| x.0).ok()?;
        let back = i > lo && s[i].1 + delta == s[i - 1].1;
        (back && s.get(i + 1).is_none_or(|n| n.0 > end)).then_some(i)
    }

    /// The least value over `[t, end)` (`i64::MAX` for an empty span).
    pub(super) fn min_over(&self, t: SimTime, end: SimTime) -> i64 {
        let s = self.steps();
        if t >= end || s.is_empty() {
            return i64::MAX;
        }
        let first = s.partition_point(|x| x.0 <= t).saturating_sub(1);
        s[first..]
            .iter()
            .take_while(|x| x.0 < end)
            .map(|x| x.1)
            .min()
            .unwrap_or(i64::MAX)
    }

    /// Adds many changes at once: `changes` are `(from, delta)`, sorted by time, each
    /// `delta` added from its time on (a reservation given back is `(at, need)` and
    /// `(at + d, -need)`); changes before now count from now. The same function as one
    /// [`Profile::add`] per reservation, in one pass over the steps rather than one per
    /// reservation. A step at a change time stays even if it holds the value before
    /// it (a dead step: the same function, and a reservation taken again there inserts
    /// nothing); other such steps are left out.
    pub(super) fn add_all(&mut self, changes: &[(SimTime, i64)]) {
        let Some(&(now, _)) = self.steps.get(self.lo) else {
            return;
        };
        let live = &self.steps[self.lo..];
        let mut out = std::mem::take(&mut self.spare);
        out.clear();
        out.reserve(live.len() + changes.len());
        // Steps between change times are copied with the sum of the changes so far
        // (`acc`).
        let (mut i, mut k, mut acc) = (0, 0, 0);
        while k < changes.len() {
            let t = changes[k].0.max(now);
            let j = i + live[i..].partition_point(|x| x.0 < t);
            push_run(&mut out, &live[i..j], acc);
            i = j;
            let v = match live.get(i) {
                Some(x) if x.0 == t => {
                    i += 1;
                    x.1
                }
                _ if i > 0 => live[i - 1].1,
                _ => 0,
            };
            while let Some(x) = changes.get(k).filter(|x| x.0.max(now) == t) {
                acc += x.1;
                k += 1;
            }
            // Kept even when it holds the value before it: a reservation given back is
            // mostly taken again where it was, and then finds its steps in place.
            out.push((t, v + acc));
        }
        push_run(&mut out, &live[i..], acc);
        self.spare = std::mem::replace(&mut self.steps, out);
        self.lo = 0;
        self.dead = changes.len();
    }

    /// Takes `need` GPUs over `[t, t + d)`.
    pub(super) fn reserve(&mut self, t: SimTime, need: i64, d: SimTime) {
        self.add(t, -need, d);
    }

    /// The value at `t` (zero before the first live step).
    #[cfg(test)]
    pub(super) fn at(&self, t: SimTime) -> i64 {
        let s = self.steps();
        match s.partition_point(|x| x.0 <= t) {
            0 => 0,
            i => s[i - 1].1,
        }
    }
}

/// Appends `run` (steps, times increasing, after those of `out`) with `acc` added to
/// each value, leaving out the steps that hold the value of the step before them.
fn push_run(out: &mut Vec<(SimTime, i64)>, run: &[(SimTime, i64)], acc: i64) {
    let mut last = out.last().map(|l| l.1);
    for &(t, v) in run {
        let v = v + acc;
        if last != Some(v) {
            out.push((t, v));
            last = Some(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The original search: every step tried in turn, its whole window checked.
    fn earliest_by_trying_each(s: &[(SimTime, i64)], need: i64, d: SimTime) -> Option<SimTime> {
        (0..s.len())
            .find(|&i| {
                let end = s[i].0.plus(d);
                s[i].1 >= need
                    && s[i + 1..]
                        .iter()
                        .take_while(|x| x.0 < end)
                        .all(|x| x.1 >= need)
            })
            .map(|i| s[i].0)
    }

    #[test]
    fn profile_finds_holes_that_last() {
        // 2 free now, 6 from 10, 8 from 20.
        let mut p = Profile::new(vec![(SimTime(0), 2), (SimTime(10), 6), (SimTime(20), 8)]);
        assert_eq!(p.earliest(2, SimTime(100)), Some(SimTime(0)));
        assert_eq!(p.earliest(4, SimTime(5)), Some(SimTime(10)));
        p.reserve(SimTime(10), 4, SimTime(5)); // 2 free over [10, 15)
        assert_eq!(p.earliest(4, SimTime(5)), Some(SimTime(15)));
        assert_eq!(p.earliest(9, SimTime(1)), None);
        // Taking 4 brought the step at 10 back to the value before it (2), and no step
        // starts in (10, 15]: it moved to 15 (`retime`), nothing inserted.
        assert_eq!(
            p.steps(),
            &[(SimTime(0), 2), (SimTime(15), 6), (SimTime(20), 8)]
        );
        assert_eq!(p.min_over(SimTime(5), SimTime(16)), 2);
        assert_eq!(p.min_over(SimTime(15), SimTime(30)), 6);
        // Now moves to 12: the value there (2) holds from 12; the rest is unchanged.
        p.advance(SimTime(12));
        assert_eq!(
            p.steps(),
            &[(SimTime(12), 2), (SimTime(15), 6), (SimTime(20), 8)]
        );
        assert_eq!(p.at(SimTime(16)), 6);
        // Giving the reservation back restores 6 from 12 (its past part is dropped); the
        // step at 15 then holds the value before it: left in place (dead, the same
        // function), then dropped by a compaction.
        p.add(SimTime(10), 4, SimTime(5));
        assert_eq!(p.steps()[1], (SimTime(15), 6));
        assert_eq!(p.at(SimTime(14)), 6);
        assert_eq!(p.at(SimTime(15)), 6);
        p.compact();
        assert_eq!(p.steps(), &[(SimTime(12), 6), (SimTime(20), 8)]);
    }

    #[test]
    fn one_pass_search_matches_trying_each_step() {
        // Oracle: the quadratic search, on pseudo-random profiles (a fixed LCG).
        let mut next = crate::sched::lcg(12345);
        for _ in 0..2000 {
            let n = 1 + next(12) as usize;
            let mut t = 0;
            let steps: Vec<(SimTime, i64)> = (0..n)
                .map(|_| {
                    t += 1 + next(20);
                    (SimTime(t), next(9) as i64)
                })
                .collect();
            let p = Profile::new(steps.clone());
            for _ in 0..8 {
                let need = next(9) as i64;
                let d = SimTime(next(60));
                assert_eq!(
                    p.earliest(need, d),
                    earliest_by_trying_each(&steps, need, d),
                    "{steps:?} need {need} d {d:?}"
                );
            }
        }
    }

    /// The same function: equal values at every step time of either, and from now on.
    /// A profile whose steps come `gap` after each other with value `v`, per `(gap, v)`.
    fn from_gaps(gaps: &[(u64, i64)]) -> Profile {
        let mut t = 0;
        Profile::new(
            gaps.iter()
                .map(|&(g, v)| {
                    t += g;
                    (SimTime(t), v)
                })
                .collect(),
        )
    }

    fn same_function(a: &Profile, b: &Profile) -> bool {
        a.steps()[0].0 == b.steps()[0].0
            && a.steps()
                .iter()
                .chain(b.steps())
                .all(|x| a.at(x.0) == b.at(x.0))
    }

    proptest::proptest! {
        #[test]
        fn add_all_is_one_add_per_reservation(
            gaps in proptest::collection::vec((1u64..20, 0i64..12), 1..80),
            now in 0u64..100,
            res in proptest::collection::vec((0u64..1600, 0i64..9, 0u64..300), 0..40),
            queries in proptest::collection::vec((0i64..20, 0u64..300), 1..10),
        ) {
            let mut one = from_gaps(&gaps);
            one.advance(SimTime(one.steps()[0].0 .0 + now));
            let mut all = one.clone();
            let mut changes = Vec::new();
            for &(at, need, d) in &res {
                let (at, d) = (SimTime(at), SimTime(d));
                one.add(at, need, d);
                if need != 0 && d > SimTime::ZERO {
                    changes.push((at, need));
                    changes.push((at.plus(d), -need));
                }
            }
            changes.sort_unstable_by_key(|x| x.0);
            all.add_all(&changes);
            proptest::prop_assert!(
                same_function(&one, &all),
                "{:?} against {:?}",
                one.steps(),
                all.steps()
            );
            // No step holds the value before it, but at a change time.
            proptest::prop_assert!(all.steps().windows(2).all(|w| w[0].1 != w[1].1
                || changes.iter().any(|c| c.0.max(all.steps()[0].0) == w[1].0)));
            for &(need, d) in &queries {
                proptest::prop_assert_eq!(
                    one.earliest(need, SimTime(d)),
                    all.earliest(need, SimTime(d))
                );
            }
        }

        #[test]
        fn adds_are_the_dense_sums(
            gaps in proptest::collection::vec((1u64..6, -4i64..12), 1..40),
            now in 0u64..30,
            ops in proptest::collection::vec((0u64..250, -6i64..7, 0u64..40, proptest::bool::ANY), 1..80),
        ) {
            // Oracle: the function as one value per millisecond over [0, 400), each add
            // applied to every millisecond it covers (from now on), and a take applied
            // when every millisecond it covers has that much. Small gaps and short spans
            // make steps meet, so `retime`'s cases (a step brought back to the value
            // before it, with or without a step up to the end) come up often.
            const T: usize = 400;
            let mut p = from_gaps(&gaps);
            let mut dense: Vec<i64> = (0..T as u64).map(|t| p.at(SimTime(t))).collect();
            p.advance(SimTime(p.steps()[0].0 .0 + now));
            let first = p.steps()[0].0 .0 as usize;
            for &(at, delta, d, take) in &ops {
                let (from, to) = ((at as usize).max(first), (at + d) as usize);
                if take {
                    let need = delta.abs();
                    let room = (from..to).all(|t| dense[t] >= need);
                    let at = SimTime(at.max(first as u64));
                    proptest::prop_assert_eq!(p.take_if_free(at, need, SimTime((to as u64).saturating_sub(at.0))), room || from >= to);
                    if room {
                        dense[from.min(to)..to].iter_mut().for_each(|v| *v -= need);
                    }
                } else {
                    p.add(SimTime(at), delta, SimTime(d));
                    dense[from.min(to)..to].iter_mut().for_each(|v| *v += delta);
                }
                for (t, &v) in dense.iter().enumerate().skip(first) {
                    proptest::prop_assert_eq!(p.at(SimTime(t as u64)), v, "at {} after {:?}", t, (at, delta, d, take));
                }
            }
        }

        #[test]
        fn dead_steps_leave_every_answer_unchanged(
            gaps in proptest::collection::vec((1u64..20, 0i64..12), 1..60),
            ops in proptest::collection::vec((0u64..1200, -6i64..7, 0u64..300), 1..60),
            queries in proptest::collection::vec((0usize..200, 0i64..14, 0u64..300), 1..12),
        ) {
            // Random takes and give-backs leave dead steps; every search (from any step
            // time as its lower bound) must answer as the one-pass-free oracle does on
            // the same function without them.
            let mut p = from_gaps(&gaps);
            for &(at, delta, d) in &ops {
                p.add(SimTime(at), delta, SimTime(d));
            }
            let mut clean = p.clone();
            clean.compact();
            proptest::prop_assert!(same_function(&p, &clean));
            proptest::prop_assert!(clean.steps().windows(2).all(|w| w[0].1 != w[1].1));
            for &(k, need, d) in &queries {
                let s = clean.steps();
                let lb = s[k % s.len()].0;
                let from = &s[k % s.len()..];
                proptest::prop_assert_eq!(
                    p.earliest_from(lb, need, SimTime(d)),
                    earliest_by_trying_each(from, need, SimTime(d))
                );
            }
        }
    }
}
