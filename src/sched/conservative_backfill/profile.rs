//! Free whole GPUs of one pool over time, as a step function: what conservative backfill
//! plans against. Kept across passes, its past steps are dropped as time moves on.
//!
//! The steps are held in blocks of at most `CAP` (times increasing across blocks), each
//! with a pending add and the least and greatest value it holds. A range add touches the
//! steps of at most two blocks and the pending add of those between; a search skips a
//! whole block when its greatest value is short of the need (no candidate in it) or its
//! least is not (no short step in it). With R steps every operation costs
//! O(CAP + R / CAP) rather than O(R), and an insertion moves at most `CAP` steps. The
//! steps and every answer are those of the flat vector it replaced (`linear.rs`, kept as
//! the tests' oracle).

use crate::engine::SimTime;

/// A block splits in two when it holds more steps than this.
const CAP: usize = 32;
/// Two neighbouring blocks merge when together they hold at most this many steps.
const MERGE: usize = 24;

/// A run of consecutive steps: `(from, raw)`, the value being `raw + add`.
#[derive(Debug, Clone, Default)]
struct Block {
    s: Vec<(SimTime, i64)>,
    add: i64,
    /// Least and greatest raw value in `s`.
    min: i64,
    max: i64,
}

impl Block {
    fn new(s: Vec<(SimTime, i64)>) -> Block {
        let mut b = Block {
            s,
            add: 0,
            min: 0,
            max: 0,
        };
        b.fix();
        b
    }

    /// Recomputes the least and greatest raw value.
    fn fix(&mut self) {
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        for x in &self.s {
            lo = lo.min(x.1);
            hi = hi.max(x.1);
        }
        (self.min, self.max) = (lo, hi);
    }

    /// Folds the pending add into the raw values.
    fn push_down(&mut self) {
        if self.add != 0 {
            for x in &mut self.s {
                x.1 += self.add;
            }
            self.min = self.min.saturating_add(self.add);
            self.max = self.max.saturating_add(self.add);
            self.add = 0;
        }
    }

    fn val(&self, i: usize) -> i64 {
        self.s[i].1 + self.add
    }

    /// Adds `delta` to the steps `from..to`.
    fn add_steps(&mut self, from: usize, to: usize, delta: i64) {
        if from == 0 && to == self.s.len() {
            self.add += delta;
            return;
        }
        for x in &mut self.s[from..to] {
            x.1 += delta;
        }
        self.fix();
    }
}

/// Free whole GPUs of one pool over time: steps `(from, free)`, times increasing; the
/// first step is "now", the last lasts for ever.
#[derive(Debug, Clone, Default)]
pub(super) struct Profile {
    /// Never empty blocks.
    blocks: Vec<Block>,
}

/// A step's place: block and index in it (`(blocks.len(), 0)`: past the last step).
type Pos = (usize, usize);

impl Profile {
    /// From steps (times increasing).
    pub(super) fn new(steps: Vec<(SimTime, i64)>) -> Profile {
        let blocks = steps
            .chunks(CAP / 2)
            .map(|c| Block::new(c.to_vec()))
            .collect();
        Profile { blocks }
    }

    /// The steps, as a flat list.
    #[cfg(test)]
    pub(super) fn steps(&self) -> Vec<(SimTime, i64)> {
        self.blocks
            .iter()
            .flat_map(|b| b.s.iter().map(move |x| (x.0, x.1 + b.add)))
            .collect()
    }

    /// The position after `p`.
    fn next(&self, (b, i): Pos) -> Pos {
        if i + 1 < self.blocks[b].s.len() {
            (b, i + 1)
        } else {
            (b + 1, 0)
        }
    }

    /// The last step starting at or before `t`, if any.
    fn locate(&self, t: SimTime) -> Option<Pos> {
        let b = self
            .blocks
            .partition_point(|x| x.s[0].0 <= t)
            .checked_sub(1)?;
        let i = self.blocks[b].s.partition_point(|x| x.0 <= t) - 1;
        Some((b, i))
    }

    /// The first step starting at or after `t` (or past the last).
    fn first_from(&self, t: SimTime) -> Pos {
        let b = self.blocks.partition_point(|x| x.s[x.s.len() - 1].0 < t);
        match self.blocks.get(b) {
            Some(x) => (b, x.s.partition_point(|y| y.0 < t)),
            None => (b, 0),
        }
    }

    /// Moves "now" to `t` (not earlier than the first step): steps at or before `t`
    /// merge into one step at `t` holding the value at `t`. The function on `[t, inf)`
    /// is unchanged.
    pub(super) fn advance(&mut self, t: SimTime) {
        let Some((b, i)) = self.locate(t) else {
            return;
        };
        if b > 0 {
            self.blocks.drain(..b);
        }
        let first = &mut self.blocks[0];
        if i > 0 {
            first.s.drain(..i);
            first.fix();
        }
        first.s[0].0 = t;
        self.merge_blocks(0);
    }

    /// The earliest step time at which `need` GPUs stay free for `d`, or `None`.
    pub(super) fn earliest(&self, need: i64, d: SimTime) -> Option<SimTime> {
        self.earliest_from(SimTime::ZERO, need, d)
    }

    /// As [`Profile::earliest`] among the steps from `lb` on (the caller knows that no
    /// earlier step can hold).
    ///
    /// One pass over the steps: when a step inside a candidate's window is short of
    /// `need`, no candidate before it can hold either (its window reaches that step too),
    /// so the search resumes after it. The same answer as trying every step in turn.
    pub(super) fn earliest_from(&self, lb: SimTime, need: i64, d: SimTime) -> Option<SimTime> {
        let mut p = self.first_from(lb);
        loop {
            p = self.next_at_least(p, need)?;
            let at = self.blocks[p.0].s[p.1].0;
            match self.next_short_before(self.next(p), need, at.plus(d)) {
                Some(short) => p = self.next(short),
                None => return Some(at),
            }
        }
    }

    /// The first step from `p` on holding at least `need`.
    fn next_at_least(&self, (mut b, mut i): Pos, need: i64) -> Option<Pos> {
        while let Some(blk) = self.blocks.get(b) {
            if blk.max + blk.add >= need {
                let raw = need - blk.add;
                if let Some(k) = blk.s[i..].iter().position(|x| x.1 >= raw) {
                    return Some((b, i + k));
                }
            }
            (b, i) = (b + 1, 0);
        }
        None
    }

    /// The first step from `p` on, starting before `end`, holding less than `need`.
    fn next_short_before(&self, (mut b, mut i): Pos, need: i64, end: SimTime) -> Option<Pos> {
        while let Some(blk) = self.blocks.get(b) {
            if blk.s[i].0 >= end {
                return None;
            }
            if blk.min + blk.add < need {
                let raw = need - blk.add;
                for (k, x) in blk.s[i..].iter().enumerate() {
                    if x.0 >= end {
                        return None;
                    }
                    if x.1 < raw {
                        return Some((b, i + k));
                    }
                }
            } else if blk.s[blk.s.len() - 1].0 >= end {
                return None;
            }
            (b, i) = (b + 1, 0);
        }
        None
    }

    /// Makes a step start at `at` (not before the first step), with the value before it
    /// if it is new.
    fn split(&mut self, at: SimTime) {
        let Some((b, i)) = self.locate(at) else {
            return;
        };
        let blk = &mut self.blocks[b];
        if blk.s[i].0 == at {
            return;
        }
        let raw = blk.s[i].1;
        blk.s.insert(i + 1, (at, raw));
        if blk.s.len() > CAP {
            let tail = blk.s.split_off(CAP / 2);
            let add = blk.add;
            blk.fix();
            let mut new = Block::new(tail);
            new.add = add;
            self.blocks.insert(b + 1, new);
        }
    }

    /// Removes the step starting at `at` if it holds the value of the step before it
    /// (keeps the representation short: a plan made again and again leaves no dead
    /// steps behind).
    fn merge(&mut self, at: SimTime) {
        let Some((b, i)) = self.locate(at) else {
            return;
        };
        if self.blocks[b].s[i].0 != at || (b, i) == (0, 0) {
            return;
        }
        let prev = if i > 0 {
            self.blocks[b].val(i - 1)
        } else {
            let pb = &self.blocks[b - 1];
            pb.val(pb.s.len() - 1)
        };
        let blk = &mut self.blocks[b];
        if blk.val(i) != prev {
            return;
        }
        blk.s.remove(i);
        if blk.s.is_empty() {
            self.blocks.remove(b);
        } else {
            blk.fix();
            self.merge_blocks(b);
        }
        if b > 0 {
            self.merge_blocks(b - 1);
        }
    }

    /// Joins block `b` and the one after it when both are small.
    fn merge_blocks(&mut self, b: usize) {
        if b + 1 >= self.blocks.len() || self.blocks[b].s.len() + self.blocks[b + 1].s.len() > MERGE
        {
            return;
        }
        let mut next = self.blocks.remove(b + 1);
        next.push_down();
        let blk = &mut self.blocks[b];
        blk.push_down();
        blk.s.extend_from_slice(&next.s);
        blk.fix();
    }

    /// Adds `delta` GPUs over `[t, t + d)` (negative: takes them); the part before now
    /// is dropped.
    pub(super) fn add(&mut self, t: SimTime, delta: i64, d: SimTime) {
        let end = t.plus(d);
        let Some(now) = self.blocks.first().map(|b| b.s[0].0) else {
            return;
        };
        let t = t.max(now);
        if t >= end || delta == 0 {
            return;
        }
        self.split(t);
        self.split(end);
        let (Some(a), Some(z)) = (self.locate(t), self.locate(end)) else {
            return;
        };
        if a.0 == z.0 {
            self.blocks[a.0].add_steps(a.1, z.1, delta);
        } else {
            let n = self.blocks[a.0].s.len();
            self.blocks[a.0].add_steps(a.1, n, delta);
            for blk in &mut self.blocks[a.0 + 1..z.0] {
                blk.add += delta;
            }
            self.blocks[z.0].add_steps(0, z.1, delta);
        }
        self.merge(end);
        self.merge(t);
    }

    /// The least value over `[t, end)` (`i64::MAX` for an empty span).
    pub(super) fn min_over(&self, t: SimTime, end: SimTime) -> i64 {
        if t >= end || self.blocks.is_empty() {
            return i64::MAX;
        }
        let (mut b, mut i) = self.locate(t).unwrap_or((0, 0));
        let mut least = i64::MAX;
        while let Some(blk) = self.blocks.get(b) {
            if i == 0 && blk.s[blk.s.len() - 1].0 < end {
                least = least.min(blk.min + blk.add);
            } else {
                for x in &blk.s[i..] {
                    if x.0 >= end {
                        return least;
                    }
                    least = least.min(x.1 + blk.add);
                }
            }
            (b, i) = (b + 1, 0);
        }
        least
    }

    /// Takes `need` GPUs over `[t, t + d)`.
    pub(super) fn reserve(&mut self, t: SimTime, need: i64, d: SimTime) {
        self.add(t, -need, d);
    }

    /// The value at `t` (zero before the first step).
    #[cfg(test)]
    pub(super) fn at(&self, t: SimTime) -> i64 {
        self.locate(t).map_or(0, |(b, i)| self.blocks[b].val(i))
    }
}
