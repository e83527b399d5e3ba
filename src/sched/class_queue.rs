//! A queue of waiting jobs of one class (same request shape) in arrival order, with a
//! min-tree over their planned work: "first job whose estimate fits in a window" is one
//! O(log n) descent instead of a scan of the queue.

use crate::model::JobId;

const DEAD: u64 = u64::MAX;

/// Jobs of one class in arrival order; removal from anywhere; leftmost-fit queries.
///
/// Positions handed out are absolute (they count every push); the tree covers only the
/// entries from the earliest one still waiting, so its size and depth follow the waiting
/// span, not every job the class ever had (a million-job run keeps it small and in
/// cache). The earliest waiting entry is kept as a cursor: `first` costs O(1) amortized.
#[derive(Debug, Clone, Default)]
pub struct ClassQueue {
    ids: Vec<JobId>,
    seqs: Vec<u64>,
    /// Complete binary tree over `cap` leaves: `tree[cap + i]` is the key of entry
    /// `base + i` (`DEAD` once removed), inner nodes hold the minimum of their children.
    tree: Vec<u64>,
    cap: usize,
    /// Absolute position of entry 0 (entries before it were all removed and dropped).
    base: usize,
    /// Index (from `base`) of the earliest waiting entry (`ids.len()` if none).
    head: usize,
    alive: usize,
}

impl ClassQueue {
    /// Appends a job with its arrival sequence and key (its planned work); returns its position.
    pub fn push(&mut self, id: JobId, seq: u64, key: u64) -> usize {
        if self.ids.len() == self.cap {
            self.grow();
        }
        let i = self.ids.len();
        self.ids.push(id);
        self.seqs.push(seq);
        self.set(i, key.min(DEAD - 1));
        self.alive += 1;
        self.base + i
    }

    /// Makes room: drops the removed entries before the earliest waiting one, and
    /// doubles the tree only if that frees less than half of it.
    fn grow(&mut self) {
        self.skip_dead();
        let drop = self.head;
        let live = self.ids.len() - drop;
        let cap = if live * 2 <= self.cap {
            self.cap.max(16)
        } else {
            (self.cap * 2).max(16)
        };
        let mut tree = vec![DEAD; 2 * cap];
        for i in 0..live {
            tree[cap + i] = self.tree[self.cap + drop + i];
        }
        for i in (1..cap).rev() {
            tree[i] = tree[2 * i].min(tree[2 * i + 1]);
        }
        self.ids.drain(..drop);
        self.seqs.drain(..drop);
        self.tree = tree;
        self.cap = cap;
        self.base += drop;
        self.head = 0;
    }

    /// Moves the cursor past removed entries.
    fn skip_dead(&mut self) {
        while self.head < self.ids.len() && self.tree[self.cap + self.head] == DEAD {
            self.head += 1;
        }
    }

    fn set(&mut self, i: usize, key: u64) {
        let mut i = self.cap + i;
        self.tree[i] = key;
        while i > 1 {
            i /= 2;
            self.tree[i] = self.tree[2 * i].min(self.tree[2 * i + 1]);
        }
    }

    /// Removes the entry at `pos` (a position `push` returned).
    pub fn remove(&mut self, pos: usize) {
        let Some(i) = pos.checked_sub(self.base).filter(|&i| i < self.ids.len()) else {
            return;
        };
        if self.tree[self.cap + i] != DEAD {
            self.set(i, DEAD);
            self.alive -= 1;
            if i == self.head {
                self.skip_dead();
            }
        }
    }

    /// Waiting jobs in this class.
    pub fn len(&self) -> usize {
        self.alive
    }

    /// True when the class is empty.
    pub fn is_empty(&self) -> bool {
        self.alive == 0
    }

    /// The earliest-arrived entry whose key is at most `max_key`: (position, id, seq).
    pub fn first_le(&self, max_key: u64) -> Option<(usize, JobId, u64)> {
        if self.cap == 0 || self.tree[1] > max_key {
            return None;
        }
        let mut i = 1;
        while i < self.cap {
            i = if self.tree[2 * i] <= max_key {
                2 * i
            } else {
                2 * i + 1
            };
        }
        let i = i - self.cap;
        Some((self.base + i, self.ids[i], self.seqs[i]))
    }

    /// The earliest-arrived waiting entry.
    pub fn first(&self) -> Option<(usize, JobId, u64)> {
        let i = self.head;
        (i < self.ids.len()).then(|| (self.base + i, self.ids[i], self.seqs[i]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftmost_fit_matches_a_scan() {
        // Oracle: a plain scan over a vector with removals.
        let keys = [
            50u64, 10, 70, 30, 90, 20, 60, 5, 80, 40, 15, 25, 35, 45, 55, 65, 75, 85,
        ];
        let mut q = ClassQueue::default();
        for (i, &k) in keys.iter().enumerate() {
            q.push(i as u32, i as u64, k);
        }
        let mut alive = vec![true; keys.len()];
        for remove in [1usize, 7, 0, 3] {
            q.remove(remove);
            alive[remove] = false;
            for w in [0u64, 5, 14, 20, 29, 50, 100] {
                let want = (0..keys.len()).find(|&i| alive[i] && keys[i] <= w);
                assert_eq!(q.first_le(w).map(|x| x.0), want, "window {w}");
            }
        }
        assert_eq!(q.len(), keys.len() - 4);
        assert_eq!(q.first().map(|x| x.0), Some(2));
    }

    #[test]
    fn positions_and_queries_survive_dropping_the_removed_front() {
        // Oracle: a plain scan over every entry ever pushed. Jobs are pushed and the
        // earliest ones mostly removed, as a queue that drains, so the front is dropped
        // many times; positions stay those `push` returned.
        let mut q = ClassQueue::default();
        let mut all: Vec<(u64, bool)> = Vec::new(); // key, alive
        let mut next = crate::sched::lcg(7);
        for step in 0..5_000u64 {
            let key = next(1_000);
            let pos = q.push(step as u32, step, key);
            assert_eq!(pos, all.len());
            all.push((key, true));
            // Remove the earliest waiting entry most of the time, a random one sometimes.
            for _ in 0..next(3) {
                let victim = if next(4) == 0 {
                    next(all.len() as u64) as usize
                } else {
                    match all.iter().position(|e| e.1) {
                        Some(p) => p,
                        None => break,
                    }
                };
                q.remove(victim);
                all[victim].1 = false;
            }
            let w = next(1_000);
            let want = all.iter().position(|e| e.1 && e.0 <= w);
            assert_eq!(q.first_le(w).map(|r| r.0), want, "step {step} window {w}");
            assert_eq!(q.first().map(|r| r.0), all.iter().position(|e| e.1));
            assert_eq!(q.len(), all.iter().filter(|e| e.1).count());
        }
        assert!(
            q.cap <= 4096,
            "the tree follows the waiting span: cap {}",
            q.cap
        );
    }
}
