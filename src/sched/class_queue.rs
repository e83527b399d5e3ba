//! A queue of waiting jobs of one class (same request shape) in arrival order, with a
//! min-tree over their planned work: "first job whose estimate fits in a window" is one
//! O(log n) descent instead of a scan of the queue.

use crate::model::JobId;

const DEAD: u64 = u64::MAX;

/// Jobs of one class in arrival order; removal from anywhere; leftmost-fit queries.
#[derive(Debug, Clone, Default)]
pub struct ClassQueue {
    ids: Vec<JobId>,
    seqs: Vec<u64>,
    /// Complete binary tree over `cap` leaves: `tree[cap + i]` is the key of entry `i`
    /// (`DEAD` once removed), inner nodes hold the minimum of their children.
    tree: Vec<u64>,
    cap: usize,
    alive: usize,
}

impl ClassQueue {
    /// Appends a job with its arrival sequence and key (its planned work); returns its position.
    pub fn push(&mut self, id: JobId, seq: u64, key: u64) -> usize {
        if self.ids.len() == self.cap {
            self.grow();
        }
        let pos = self.ids.len();
        self.ids.push(id);
        self.seqs.push(seq);
        self.set(pos, key.min(DEAD - 1));
        self.alive += 1;
        pos
    }

    fn grow(&mut self) {
        let cap = (self.cap * 2).max(16);
        let mut tree = vec![DEAD; 2 * cap];
        for i in 0..self.ids.len() {
            tree[cap + i] = self.tree[self.cap + i];
        }
        for i in (1..cap).rev() {
            tree[i] = tree[2 * i].min(tree[2 * i + 1]);
        }
        self.tree = tree;
        self.cap = cap;
    }

    fn set(&mut self, pos: usize, key: u64) {
        let mut i = self.cap + pos;
        self.tree[i] = key;
        while i > 1 {
            i /= 2;
            self.tree[i] = self.tree[2 * i].min(self.tree[2 * i + 1]);
        }
    }

    /// Removes the entry at `pos`.
    pub fn remove(&mut self, pos: usize) {
        if self.tree[self.cap + pos] != DEAD {
            self.set(pos, DEAD);
            self.alive -= 1;
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
        let pos = i - self.cap;
        Some((pos, self.ids[pos], self.seqs[pos]))
    }

    /// The earliest-arrived waiting entry.
    pub fn first(&self) -> Option<(usize, JobId, u64)> {
        self.first_le(DEAD - 1)
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
}
