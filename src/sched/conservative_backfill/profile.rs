//! Free whole GPUs of one pool over time, as a step function: what conservative backfill
//! plans against. Kept across passes, its past steps are dropped as time moves on.
//!
//! The steps sit in blocks of up to [`CAP`], each with a pending add and bounds on its
//! values: a search passes over a block that has room all over (most of a long job's
//! window) or nowhere (no start there) with one test, and an add walks once from its
//! start, a block it covers whole taking the add in one step. On the end-to-end bench's
//! 1M jobs (profiles of about 300 steps) the searches cost 1,168M instructions in a flat
//! vector and 731M in blocks, the adds 1,313M and 1,034M (less than the scans saved:
//! under callgrind a flat vector's insert is one cheap `memmove`, and finding a step in
//! blocks takes two binary searches).

use crate::engine::SimTime;

/// The most steps a block holds (one that grows past it is cut in two); a new block
/// holds half as many. Few in unit tests, so that they cross blocks everywhere.
const CAP: usize = if cfg!(test) { 4 } else { 32 };

/// Hints kept by [`Profile`].
const HINTS: usize = 8;

/// Adds to part of a block after which its bounds are made exact again.
const LOOSE: u32 = 8;

/// A step a search found: its time, block and index in the block.
#[derive(Debug, Clone, Copy)]
pub(super) struct Found {
    pub(super) at: SimTime,
    b: u32,
    i: u32,
}

/// Consecutive steps of a profile.
#[derive(Debug, Clone, Default)]
struct Block {
    /// `(from, stored value)`, times increasing; a step's value is its stored value
    /// plus `add`.
    steps: Vec<(SimTime, i64)>,
    /// Added to every stored value (an add that covers the whole block).
    add: i64,
    /// Bounds on the stored values: none is below `min` or above `max` (exact when the
    /// block is made; an add to part of it moves one bound, a step inserted both).
    min: i64,
    max: i64,
    /// Adds to part of the block since the bounds were last exact.
    loose: u32,
}

impl Block {
    /// Notes an add of `delta` to part of the block: the bound it moves is moved by as
    /// much, and after a few such adds both are made exact again (else they would drift
    /// apart, and searches would look into every block).
    fn loosened(&mut self, delta: i64) {
        self.loose += 1;
        if self.loose >= LOOSE {
            self.bounds();
        } else if delta < 0 {
            self.min += delta;
        } else {
            self.max += delta;
        }
    }

    /// Makes `min` and `max` exact.
    fn bounds(&mut self) {
        self.loose = 0;
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        for x in &self.steps {
            lo = lo.min(x.1);
            hi = hi.max(x.1);
        }
        self.min = lo;
        self.max = hi;
    }
}

/// Free whole GPUs of one pool over time: `(from, free)` steps, times increasing; the
/// first step is "now", the last lasts for ever.
#[derive(Debug, Clone, Default)]
pub(super) struct Profile {
    /// The steps, in blocks (none empty), in time order.
    blocks: Vec<Block>,
    /// The first step's time of each block.
    heads: Vec<SimTime>,
    /// Steps in all.
    len: usize,
    /// Steps that may hold the value before them (left in place by [`Profile::add`] and
    /// [`Profile::add_all`], dropped all at once when they grow many).
    dead: usize,
    /// Step vectors of dropped blocks, kept for new ones (no allocation per block).
    free: Vec<Vec<(SimTime, i64)>>,
    /// Where steps were moved to by [`Profile::move_step`], by time modulo their number:
    /// a stuck reservation's end step, moved again at the next pass, is found there
    /// without a search (each hint is checked: other changes may have moved the step).
    hints: [(SimTime, u32, u32); HINTS],
}

impl Profile {
    /// From steps (times increasing).
    #[cfg(test)]
    pub(super) fn new(steps: Vec<(SimTime, i64)>) -> Profile {
        let mut p = Profile::default();
        p.fill(&steps);
        p
    }

    /// Makes the profile `steps` (times increasing), reusing its memory.
    pub(super) fn reset(&mut self, steps: &[(SimTime, i64)]) {
        self.fill(steps);
    }

    /// A vector for a block's steps.
    fn block_vec(&mut self) -> Vec<(SimTime, i64)> {
        let mut v = self
            .free
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(CAP + 1));
        v.clear();
        v
    }

    /// Replaces the blocks by `steps` (times increasing), each block half full.
    fn fill(&mut self, steps: &[(SimTime, i64)]) {
        for b in self.blocks.drain(..) {
            self.free.push(b.steps);
        }
        self.heads.clear();
        self.len = steps.len();
        self.dead = 0;
        for chunk in steps.chunks(CAP / 2) {
            let mut v = self.block_vec();
            v.extend_from_slice(chunk);
            self.push_block(v);
        }
    }

    /// Appends a block of `steps` (not empty, after every step held).
    fn push_block(&mut self, steps: Vec<(SimTime, i64)>) {
        self.heads.push(steps[0].0);
        let mut b = Block {
            steps,
            add: 0,
            min: 0,
            max: 0,
            loose: 0,
        };
        b.bounds();
        self.blocks.push(b);
    }

    /// The steps with their values (for checks; a search does not copy them).
    #[cfg(test)]
    pub(super) fn steps(&self) -> Vec<(SimTime, i64)> {
        self.blocks
            .iter()
            .flat_map(|b| b.steps.iter().map(move |x| (x.0, x.1 + b.add)))
            .collect()
    }

    /// The block a step at `t` belongs in: the last whose first step is at or before `t`
    /// (the first if none is).
    fn block_of(&self, t: SimTime) -> usize {
        self.heads.partition_point(|&h| h <= t).saturating_sub(1)
    }

    /// The value of the step before step `i` of block `b`, if there is one.
    fn value_before(&self, b: usize, i: usize) -> Option<i64> {
        if i > 0 {
            let blk = &self.blocks[b];
            Some(blk.steps[i - 1].1 + blk.add)
        } else if b > 0 {
            let blk = &self.blocks[b - 1];
            Some(blk.steps[blk.steps.len() - 1].1 + blk.add)
        } else {
            None
        }
    }

    /// The time of the step after step `i` of block `b`, if there is one.
    fn time_after(&self, b: usize, i: usize) -> Option<SimTime> {
        let blk = &self.blocks[b];
        match blk.steps.get(i + 1) {
            Some(x) => Some(x.0),
            None => self.heads.get(b + 1).copied(),
        }
    }

    /// Moves "now" to `t` (not earlier than the first step): steps at or before `t`
    /// merge into one step at `t` holding the value at `t`. The function on `[t, inf)`
    /// is unchanged. Nothing to do (one comparison) when "now" is `t` already: a plan
    /// advances a pool's profile only when it reads or changes it, many times a pass.
    #[inline]
    pub(super) fn advance(&mut self, t: SimTime) {
        if self.heads.first().is_some_and(|&h| h < t) {
            self.advance_past(t);
        }
    }

    /// [`Profile::advance`] when the first step is before `t`.
    fn advance_past(&mut self, t: SimTime) {
        let gone = self.heads.partition_point(|&h| h <= t).saturating_sub(1);
        if gone > 0 {
            for b in self.blocks.drain(..gone) {
                self.len -= b.steps.len();
                self.free.push(b.steps);
            }
            self.heads.drain(..gone);
        }
        let blk = &mut self.blocks[0];
        let k = blk.steps.partition_point(|x| x.0 <= t);
        if k > 1 {
            blk.steps.drain(..k - 1);
            self.len -= k - 1;
            blk.bounds();
        }
        blk.steps[0].0 = blk.steps[0].0.max(t);
        self.heads[0] = blk.steps[0].0;
    }

    /// The earliest step time at which `need` GPUs stay free for `d`, or `None`.
    ///
    /// One pass over the steps: when a step inside a candidate's window is short of
    /// `need`, no candidate before it can hold either (its window reaches that step too),
    /// so the search resumes after it. A block whose values are all short holds no
    /// candidate, one whose values all have room is passed over by a window whole. The
    /// same answer as trying every step in turn.
    #[cfg(test)]
    pub(super) fn earliest(&self, need: i64, d: SimTime) -> Option<SimTime> {
        self.earliest_from(SimTime::ZERO, need, d)
    }

    /// As [`Profile::earliest`] among the steps from `lb` on (the caller knows that no
    /// earlier step can hold).
    #[cfg(test)]
    pub(super) fn earliest_from(&self, lb: SimTime, need: i64, d: SimTime) -> Option<SimTime> {
        self.earliest_at(lb, SimTime::NEVER, need, d).map(|f| f.at)
    }

    /// The earliest step from `lb` on (the caller knows that no earlier step can hold)
    /// at which `need` GPUs stay free for `d`, as [`Profile::earliest`] finds it, with
    /// where that step is (for [`Profile::reserve_found`], while the profile is
    /// unchanged); `None` also when that step is at or after `ub` (a caller that has a
    /// start at `ub` elsewhere needs none later: the search stops there).
    pub(super) fn earliest_at(
        &self,
        lb: SimTime,
        ub: SimTime,
        need: i64,
        d: SimTime,
    ) -> Option<Found> {
        let nb = self.blocks.len();
        if nb == 0 || lb >= ub {
            return None;
        }
        let mut b = self.block_of(lb);
        let mut i = self.blocks[b].steps.partition_point(|x| x.0 < lb);
        'cand: loop {
            // The next candidate: the first step from (b, i) with room.
            loop {
                if self.heads.get(b).is_some_and(|&h| h >= ub) {
                    return None;
                }
                let blk = self.blocks.get(b)?;
                let short = need - blk.add;
                if blk.max >= short {
                    if let Some(k) = blk.steps[i..].iter().position(|x| x.1 >= short) {
                        i += k;
                        break;
                    }
                }
                b += 1;
                i = 0;
            }
            let blk = &self.blocks[b];
            let start = blk.steps[i].0;
            if start >= ub {
                return None;
            }
            let found = Found {
                at: start,
                b: b as u32,
                i: i as u32,
            };
            let end = start.plus(d);
            // Its window: the steps after it that start before `end`, in this block...
            let short = need - blk.add;
            if blk.min < short {
                for (k, x) in blk.steps.iter().enumerate().skip(i + 1) {
                    if x.0 >= end {
                        return Some(found);
                    }
                    if x.1 < short {
                        i = k + 1;
                        if i == blk.steps.len() {
                            b += 1;
                            i = 0;
                        }
                        continue 'cand;
                    }
                }
            }
            // ... and in the blocks after it.
            for c in b + 1..nb {
                if self.heads[c] >= end {
                    return Some(found);
                }
                let blk = &self.blocks[c];
                let short = need - blk.add;
                if blk.min >= short {
                    continue;
                }
                for (k, x) in blk.steps.iter().enumerate() {
                    if x.0 >= end {
                        return Some(found);
                    }
                    if x.1 < short {
                        b = c;
                        i = k + 1;
                        if i == blk.steps.len() {
                            b += 1;
                            i = 0;
                        }
                        continue 'cand;
                    }
                }
            }
            return Some(found);
        }
    }

    /// For each level `j < out.len()`, the first step's time at which `2^j` or more
    /// GPUs are free (`NEVER`: none), passing over the blocks whose bound shows none
    /// reaching the next level.
    pub(super) fn first_at_least(&self, out: &mut [SimTime]) {
        out.fill(SimTime::NEVER);
        let mut filled = 0;
        for blk in &self.blocks {
            if filled == out.len() {
                return;
            }
            if blk.max + blk.add < 1i64 << filled {
                continue;
            }
            for x in &blk.steps {
                let v = x.1 + blk.add;
                while filled < out.len() && v >= 1i64 << filled {
                    out[filled] = x.0;
                    filled += 1;
                }
            }
        }
    }

    /// The block and index of the last step at or before `t` (not before the first step).
    fn locate(&self, t: SimTime) -> (usize, usize) {
        let (at, b, i) = self.hints[t.0 as usize % HINTS];
        let (b, i) = (b as usize, i as usize);
        if at == t
            && self
                .blocks
                .get(b)
                .and_then(|blk| blk.steps.get(i))
                .is_some_and(|x| x.0 == t)
        {
            return (b, i);
        }
        let b = self.block_of(t);
        let i = self.blocks[b].steps.partition_point(|x| x.0 <= t);
        (b, i.saturating_sub(1))
    }

    /// Inserts the step `(t, stored)` at index `i` of block `b` (its time between those
    /// of the steps around it, `i > 0`), cutting the block in two when it grows past
    /// [`CAP`]; returns where the step is then.
    fn insert(&mut self, b: usize, i: usize, t: SimTime, stored: i64) -> (usize, usize) {
        let blk = &mut self.blocks[b];
        blk.steps.insert(i, (t, stored));
        blk.min = blk.min.min(stored);
        blk.max = blk.max.max(stored);
        self.len += 1;
        if blk.steps.len() <= CAP {
            return (b, i);
        }
        // Cut in two; the stored values and the pending add stay.
        let mid = blk.steps.len() / 2;
        let mut upper = self.free.pop().unwrap_or_default();
        upper.clear();
        upper.extend_from_slice(&blk.steps[mid..]);
        upper.reserve(CAP + 1 - upper.len());
        blk.steps.truncate(mid);
        blk.bounds();
        let add = blk.add;
        self.heads.insert(b + 1, upper[0].0);
        let mut nb = Block {
            steps: upper,
            add,
            min: 0,
            max: 0,
            loose: 0,
        };
        nb.bounds();
        self.blocks.insert(b + 1, nb);
        if i >= mid {
            (b + 1, i - mid)
        } else {
            (b, i)
        }
    }

    /// Adds `delta` to the steps from step `i` of block `b` on that start before `end`,
    /// and makes a step start at `end` (inserted with the value before the add if none
    /// does; none when `end` is `None`, the add then lasting for ever). Returns where the
    /// step at `end` is. One walk: a block the span covers whole takes the add in its
    /// pending add.
    fn add_until(
        &mut self,
        mut b: usize,
        mut i: usize,
        end: Option<SimTime>,
        delta: i64,
    ) -> (usize, usize) {
        let until = end.unwrap_or(SimTime::NEVER);
        loop {
            let nb = self.blocks.len();
            let blk = &mut self.blocks[b];
            let n = blk.steps.len();
            let mut j = i;
            if i == 0 && blk.steps[n - 1].0 < until {
                blk.add += delta;
                j = n;
            } else {
                // One walk: add to each step until the first at or after `until`.
                for x in &mut blk.steps[i..] {
                    if x.0 >= until {
                        break;
                    }
                    x.1 += delta;
                    j += 1;
                }
                if delta != 0 {
                    blk.loosened(delta);
                }
            }
            if j == n && b + 1 < nb && self.heads[b + 1] < until {
                b += 1;
                i = 0;
                continue;
            }
            // The last step before `end` is at `j - 1` (`j > 0`: the step at `i` is
            // before it) and the next one, if any, at or after `end`.
            let Some(end) = end else {
                return (b, j);
            };
            let next = if j < n {
                Some(blk.steps[j].0)
            } else {
                self.heads.get(b + 1).copied()
            };
            if next == Some(end) {
                return if j < n { (b, j) } else { (b + 1, 0) };
            }
            // The value before the add, in this block's terms.
            let stored = blk.steps[j - 1].1 - delta;
            return self.insert(b, j, end, stored);
        }
    }

    /// Counts the step at (`b`, `i`) as dead if it holds the value of the step before it.
    fn count_dead(&mut self, b: usize, i: usize) {
        if let Some(x) = self
            .blocks
            .get(b)
            .and_then(|blk| blk.steps.get(i).map(|x| x.1 + blk.add))
        {
            if self.value_before(b, i) == Some(x) {
                self.dead += 1;
            }
        }
    }

    /// When the dead steps are more than half of all, drops them all in one pass
    /// (rather than moving memory for each: a reservation moved a little again and again
    /// would remove a step and insert one each time).
    fn compact_if_dead(&mut self) {
        if self.dead > 16 && self.dead * 2 > self.len {
            self.compact();
        }
    }

    /// Drops the steps that hold the value of the step before them.
    fn compact(&mut self) {
        let mut flat = self.free.pop().unwrap_or_default();
        flat.clear();
        let mut last: Option<i64> = None;
        for blk in &self.blocks {
            for x in &blk.steps {
                let v = x.1 + blk.add;
                if last != Some(v) {
                    flat.push((x.0, v));
                    last = Some(v);
                }
            }
        }
        self.fill(&flat);
        flat.clear();
        self.free.push(flat);
    }

    /// Adds `delta` GPUs over `[t, t + d)` (negative: takes them); the part before now
    /// is dropped.
    pub(super) fn add(&mut self, t: SimTime, delta: i64, d: SimTime) {
        let end = t.plus(d);
        let Some(&now) = self.heads.first() else {
            return;
        };
        let t = t.max(now);
        if t >= end || delta == 0 {
            return;
        }
        let (b, i) = self.locate(t);
        self.add_at(b, i, t, end, delta);
    }

    /// [`Profile::add`] over `[t, end)` (`t` not before now, before `end`), with `(b,
    /// i)` the last step at or before `t`: the step at `t` moved to `end` when that is
    /// the same function ([`Profile::retimable`]), else steps made to start at `t` and
    /// `end` and the add made between them.
    fn add_at(&mut self, b: usize, i: usize, t: SimTime, end: SimTime, delta: i64) {
        let (b, i) = if self.blocks[b].steps[i].0 == t {
            if self.retimable(b, i, delta, end).is_some() {
                self.move_step(b, i, end);
                return;
            }
            self.count_dead_after(b, i, delta);
            (b, i)
        } else {
            let stored = self.blocks[b].steps[i].1;
            self.insert(b, i + 1, t, stored)
        };
        let (eb, ei) = self.add_until(b, i, Some(end), delta);
        self.count_dead(eb, ei);
        self.compact_if_dead();
    }

    /// Counts the step at (`b`, `i`) as dead if it will hold the value of the step before
    /// it once `delta` is added to it (not to the one before).
    fn count_dead_after(&mut self, b: usize, i: usize, delta: i64) {
        let blk = &self.blocks[b];
        if self.value_before(b, i) == Some(blk.steps[i].1 + blk.add + delta) {
            self.dead += 1;
        }
    }

    /// Takes `need` GPUs over `[t, t + d)` (`t` not before now) if that leaves the
    /// profile non-negative there, i.e. when at least `need` are free all over it; else
    /// changes nothing. True when taken.
    pub(super) fn take_if_free(&mut self, t: SimTime, need: i64, d: SimTime) -> bool {
        let end = t.plus(d);
        if d == SimTime::ZERO {
            return true;
        }
        if self.blocks.is_empty() {
            return false;
        }
        let (b, i) = self.locate(t);
        if self.blocks[b].steps[i].0 == t {
            if let Some(before) = self.retimable(b, i, -need, end) {
                // After the move the value before `t` holds over the whole span.
                if before < 0 {
                    return false;
                }
                self.move_step(b, i, end);
                return true;
            }
        }
        if !self.has_room(b, i, end, need) {
            return false;
        }
        self.add_at(b, i, t, end, -need);
        true
    }

    /// Moves step `i` of block `b` to time `to` (no step in between).
    fn move_step(&mut self, b: usize, i: usize, to: SimTime) {
        self.blocks[b].steps[i].0 = to;
        self.hints[to.0 as usize % HINTS] = (to, b as u32, i as u32);
        if i == 0 {
            self.heads[b] = to;
        }
    }

    /// The value before step `i` of block `b` (at `t`), if adding `delta` over `[t, end)`
    /// is the same function as moving that step to `end`: it is not the first, `delta`
    /// brings it back to the value before it, and no other step starts in `(t, end]`.
    /// Then the value before `t` lasts until `end` and the step's own value from `end`
    /// on, as adding would leave it, with no step inserted (no memory moved). This is
    /// the common case of a reservation stuck in the past moved to now again at each
    /// pass: its end step moves by the time since the last pass.
    fn retimable(&self, b: usize, i: usize, delta: i64, end: SimTime) -> Option<i64> {
        let blk = &self.blocks[b];
        let before = self.value_before(b, i)?;
        let back = blk.steps[i].1 + blk.add + delta == before;
        (back && self.time_after(b, i).is_none_or(|n| n > end)).then_some(before)
    }

    /// True when every step from step `i` of block `b` on that starts before `end` has
    /// at least `need`.
    fn has_room(&self, mut b: usize, mut i: usize, end: SimTime, need: i64) -> bool {
        while let Some(blk) = self.blocks.get(b) {
            let short = need - blk.add;
            if blk.steps[i].0 >= end {
                break;
            }
            if blk.min < short
                && blk.steps[i..]
                    .iter()
                    .take_while(|x| x.0 < end)
                    .any(|x| x.1 < short)
            {
                return false;
            }
            b += 1;
            i = 0;
        }
        true
    }

    /// The least value over `[t, end)` (`i64::MAX` for an empty span).
    #[cfg(test)]
    pub(super) fn min_over(&self, t: SimTime, end: SimTime) -> i64 {
        let s = self.steps();
        let first = s.partition_point(|x| x.0 <= t).saturating_sub(1);
        s[first..]
            .iter()
            .take_while(|x| x.0 < end)
            .map(|x| x.1)
            .min()
            .unwrap_or(i64::MAX)
    }

    /// Calls `f(from, to, value)` for each step with a negative value that overlaps
    /// `[t, end)` (`to`: the next step's time, `NEVER` for the last), in time order.
    pub(super) fn negatives(
        &self,
        t: SimTime,
        end: SimTime,
        mut f: impl FnMut(SimTime, SimTime, i64),
    ) {
        if t >= end || self.blocks.is_empty() {
            return;
        }
        let mut b = self.block_of(t);
        let mut i = self.blocks[b]
            .steps
            .partition_point(|x| x.0 <= t)
            .saturating_sub(1);
        while b < self.blocks.len() {
            let blk = &self.blocks[b];
            if blk.steps[i].0 >= end {
                return;
            }
            if blk.min + blk.add < 0 {
                for k in i..blk.steps.len() {
                    let x = blk.steps[k];
                    if x.0 >= end {
                        return;
                    }
                    if x.1 + blk.add < 0 {
                        let to = self.time_after(b, k).unwrap_or(SimTime::NEVER);
                        f(x.0, to, x.1 + blk.add);
                    }
                }
            }
            b += 1;
            i = 0;
        }
    }

    /// Adds many changes at once: `changes` are `(from, delta)`, sorted by time, each
    /// `delta` added from its time on (a reservation given back is `(at, need)` and
    /// `(at + d, -need)`); changes before now count from now. The same function as one
    /// [`Profile::add`] per reservation, in one walk over the steps from the first
    /// change: a step at each change time (kept even if it holds the value before it, a
    /// dead step: a reservation given back is mostly taken again where it was, and then
    /// finds its steps in place), blocks between two change times added to whole.
    pub(super) fn add_all(&mut self, changes: &[(SimTime, i64)]) {
        let Some(&now) = self.heads.first() else {
            return;
        };
        let Some(first) = changes.first() else {
            return;
        };
        let at = |k: usize| changes.get(k).map(|c| c.0.max(now));
        let t = first.0.max(now);
        let (b, i) = self.locate(t);
        let (mut b, mut i) = if self.blocks[b].steps[i].0 == t {
            (b, i)
        } else {
            let stored = self.blocks[b].steps[i].1;
            self.insert(b, i + 1, t, stored)
        };
        let (mut k, mut acc) = (0, 0);
        while let Some(t) = at(k) {
            while at(k) == Some(t) {
                acc += changes[k].1;
                k += 1;
            }
            self.count_dead_after(b, i, acc);
            if acc == 0 && k == changes.len() {
                break;
            }
            (b, i) = self.add_until(b, i, at(k), acc);
        }
        self.compact_if_dead();
    }

    /// Takes `need` GPUs over `[t, t + d)`.
    pub(super) fn reserve(&mut self, t: SimTime, need: i64, d: SimTime) {
        self.add(t, -need, d);
    }

    /// [`Profile::reserve`] at the step `f` a search found, the profile unchanged since
    /// (the step is not looked for again).
    pub(super) fn reserve_found(&mut self, f: Found, need: i64, d: SimTime) {
        let end = f.at.plus(d);
        if f.at >= end || need == 0 {
            return;
        }
        debug_assert_eq!(self.locate(f.at), (f.b as usize, f.i as usize));
        self.add_at(f.b as usize, f.i as usize, f.at, end, -need);
    }

    /// The value at `t` (zero before the first step).
    #[cfg(test)]
    pub(super) fn at(&self, t: SimTime) -> i64 {
        let s = self.steps();
        match s.partition_point(|x| x.0 <= t) {
            0 => 0,
            i => s[i - 1].1,
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
        // starts in (10, 15]: it moved to 15 (`retimable`), nothing inserted.
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
                let want = earliest_by_trying_each(&steps, need, d);
                assert_eq!(p.earliest(need, d), want, "{steps:?} need {need} d {d:?}");
                // Bounded above: the same step when it starts before the bound, else
                // none (the bound anywhere from before the first step to past the last).
                let ub = SimTime(next(t + 10));
                assert_eq!(
                    p.earliest_at(SimTime::ZERO, ub, need, d).map(|f| f.at),
                    want.filter(|&x| x < ub),
                    "{steps:?} need {need} d {d:?} ub {ub:?}"
                );
            }
        }
    }

    #[test]
    fn reserve_found_is_reserve() {
        // A reservation taken where the search found it gives the same profile as one
        // taken by its time, over profiles grown by many reservations (blocks cut).
        let mut next = crate::sched::lcg(777);
        for _ in 0..300 {
            let n = 1 + next(30) as usize;
            let mut t = 0;
            let steps: Vec<(SimTime, i64)> = (0..n)
                .map(|_| {
                    t += 1 + next(20);
                    (SimTime(t), 4 + next(9) as i64)
                })
                .collect();
            let (mut a, mut b) = (Profile::new(steps.clone()), Profile::new(steps));
            for _ in 0..20 {
                let need = next(6) as i64;
                let d = SimTime(next(60));
                let lb = SimTime(next(t + 20));
                let f = a.earliest_at(lb, SimTime::NEVER, need, d);
                assert_eq!(f.map(|f| f.at), b.earliest_from(lb, need, d));
                if let Some(f) = f {
                    assert_eq!(a.locate(f.at), (f.b as usize, f.i as usize));
                    a.reserve_found(f, need, d);
                    b.reserve(f.at, need, d);
                    assert_eq!(a.steps(), b.steps());
                }
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
        let (sa, sb) = (a.steps(), b.steps());
        sa[0].0 == sb[0].0 && sa.iter().chain(&sb).all(|x| a.at(x.0) == b.at(x.0))
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
            let before = all.steps();
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
            // No step but those there were and one at each change time.
            let mut times: Vec<SimTime> = before.iter().map(|x| x.0).collect();
            times.extend(changes.iter().map(|c| c.0.max(before[0].0)));
            proptest::prop_assert!(all.steps().iter().all(|x| times.contains(&x.0)));
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
            // make steps meet, so `retimable`'s cases (a step brought back to the value
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
