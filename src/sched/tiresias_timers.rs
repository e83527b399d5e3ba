//! Tiresias' timed changes (threshold crossings of running jobs, promotions of waiting
//! jobs): only the earliest is ever read, so they sit in a binary heap of packed
//! `(time, job)` keys, cancelled lazily. An entry is live while the job's state still
//! holds its time (the caller says so); a cancelled or replaced one stays in the heap
//! until it reaches the top, where it is dropped.
//!
//! The live entries come out in `(time, job)` order, as from an ordered set of them: a
//! job holds at most one time at once, so the only duplicates are stale copies of a live
//! entry (a job stopped and restarted at the same instant times the same crossing
//! again), and the first copy popped re-times or clears the job, which makes the others
//! stale. Cost: O(log n) a push or pop instead of a tree's descent and rebalancing.

use crate::engine::SimTime;
use crate::model::JobId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A min-heap of `(time, job)` with lazy cancellation (see the module doc).
#[derive(Debug, Default)]
pub(super) struct Timers {
    /// `time << 32 | job`, smallest on top.
    heap: BinaryHeap<Reverse<u128>>,
}

impl Timers {
    /// Times job `id` at `t` (its state must hold `t` for the entry to be live).
    pub(super) fn push(&mut self, t: SimTime, id: JobId) {
        self.heap.push(Reverse(((t.0 as u128) << 32) | id as u128));
    }

    /// The earliest live entry, dropping the stale ones above it; `live(t, id)` tells
    /// whether job `id` is still timed at `t`.
    pub(super) fn first(
        &mut self,
        live: impl Fn(SimTime, JobId) -> bool,
    ) -> Option<(SimTime, JobId)> {
        while let Some(&Reverse(k)) = self.heap.peek() {
            let (t, id) = (SimTime((k >> 32) as u64), k as u32);
            if live(t, id) {
                return Some((t, id));
            }
            self.heap.pop();
        }
        None
    }

    /// Removes the earliest entry (the one [`Timers::first`] returned).
    pub(super) fn pop(&mut self) {
        self.heap.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against an ordered set (the structure it replaces): random pushes and
    /// cancellations, including re-timing a job to the time of its stale entry; the live
    /// entries must come out in the same order.
    #[test]
    fn live_entries_come_out_as_from_an_ordered_set() {
        let mut next = crate::sched::lcg(0x9e37_79b9_7f4a_7c15);
        for _ in 0..50 {
            let mut heap = Timers::default();
            let mut set = std::collections::BTreeSet::new();
            // Per job: its live time (`NEVER`: none).
            let mut at = [SimTime::NEVER; 20];
            let mut now = 0u64;
            for _ in 0..400 {
                let id = next(20) as u32;
                match next(4) {
                    0 | 1 => {
                        // (Re-)time: cancel the old entry, as the policy does.
                        if at[id as usize] != SimTime::NEVER {
                            set.remove(&(at[id as usize], id));
                        }
                        let t = SimTime(now + 1 + next(30));
                        at[id as usize] = t;
                        set.insert((t, id));
                        heap.push(t, id);
                    }
                    2 => {
                        if at[id as usize] != SimTime::NEVER {
                            set.remove(&(at[id as usize], id));
                            at[id as usize] = SimTime::NEVER;
                        }
                    }
                    _ => {
                        // Advance time, popping what is due from both.
                        now += next(10);
                        loop {
                            let live = |t: SimTime, j: JobId| at[j as usize] == t;
                            let h = heap.first(live).filter(|e| e.0 <= SimTime(now));
                            let s = set.first().copied().filter(|e| e.0 <= SimTime(now));
                            assert_eq!(h, s);
                            let Some((_, j)) = h else { break };
                            heap.pop();
                            set.pop_first();
                            at[j as usize] = SimTime::NEVER;
                        }
                    }
                }
                let live = |t: SimTime, j: JobId| at[j as usize] == t;
                assert_eq!(heap.first(live), set.first().copied());
            }
        }
    }
}
