//! The first profile of conservative backfill, kept for the tests as the oracle of the
//! blocked one (`profile.rs`): one flat vector of steps, linear searches and range adds.

use crate::engine::SimTime;

/// Free whole GPUs of one pool over time: `(from, free)` steps, times increasing; the
/// first live step is "now", the last lasts for ever.
#[derive(Debug, Clone, Default)]
pub(super) struct LinearProfile {
    steps: Vec<(SimTime, i64)>,
    /// Steps before `lo` are in the past (dropped lazily, to move memory rarely).
    lo: usize,
}

impl LinearProfile {
    /// From steps (times increasing).
    pub(super) fn new(steps: Vec<(SimTime, i64)>) -> LinearProfile {
        LinearProfile { steps, lo: 0 }
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

    /// As [`LinearProfile::earliest`] among the steps from `lb` on (the caller knows that no
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

    /// Removes the step at `i` if it holds the value of the step before it (keeps the
    /// representation short: a plan made again and again leaves no dead steps behind).
    fn merge(&mut self, i: usize) {
        if i > self.lo && i < self.steps.len() && self.steps[i].1 == self.steps[i - 1].1 {
            self.steps.remove(i);
        }
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
        let a = self.split(t);
        let b = self.split(end);
        for step in &mut self.steps[a..b] {
            step.1 += delta;
        }
        self.merge(b);
        self.merge(a);
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

    /// Takes `need` GPUs over `[t, t + d)`.
    pub(super) fn reserve(&mut self, t: SimTime, need: i64, d: SimTime) {
        self.add(t, -need, d);
    }

    /// The value at `t` (zero before the first live step).
    pub(super) fn at(&self, t: SimTime) -> i64 {
        let s = self.steps();
        match s.partition_point(|x| x.0 <= t) {
            0 => 0,
            i => s[i - 1].1,
        }
    }
}
