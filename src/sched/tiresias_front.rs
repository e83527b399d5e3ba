//! Tiresias' view of a queue's front: a copy of the first `LIMIT` entries of an ordered
//! set, patched with the entries that joined or left since it was last read instead of
//! copied again from the set.
//!
//! Why patching gives the set's front exactly: let `W` be the copy when it was last read
//! (the set's first `min(LIMIT, len)` entries) and `b` its last entry. Every entry of the
//! set up to `b` is in `W`, so after inserts `I` and removals `R` the entries up to `b`
//! are `(W + I) - R` restricted to `<= b` (all of them when `W` held the whole set);
//! entries past `b` are read from the set only when the patched copy is short of
//! `LIMIT` and `W` was full (so more may follow `b`). Changes past `b` of a full `W`
//! are not recorded at all. When many changes pile up before a read, the copy is made
//! afresh instead (at most `2 LIMIT` are kept).

use std::collections::BTreeSet;
use std::ops::Bound;

/// An ordered set a front is read from.
pub(super) trait Ordered<K> {
    /// Its first `n` entries (fewer if it has fewer), in order, onto `out`.
    fn first_into(&self, n: usize, out: &mut Vec<K>);
    /// Its first `n` entries greater than `b` (fewer if it has fewer), in order, onto
    /// `out`.
    fn after_into(&self, b: K, n: usize, out: &mut Vec<K>);
}

impl<K: Ord + Copy> Ordered<K> for BTreeSet<K> {
    fn first_into(&self, n: usize, out: &mut Vec<K>) {
        out.extend(self.iter().take(n).copied());
    }
    fn after_into(&self, b: K, n: usize, out: &mut Vec<K>) {
        out.extend(
            self.range((Bound::Excluded(b), Bound::Unbounded))
                .take(n)
                .copied(),
        );
    }
}

/// A queue's first `LIMIT` entries (see the module doc).
#[derive(Debug, Clone)]
pub(super) struct Front<K, const LIMIT: usize> {
    /// The front as of the last read.
    view: Vec<K>,
    /// Changes since the last read that may touch it: (entry, true if inserted).
    pending: Vec<(K, bool)>,
    /// Copy it afresh at the next read.
    stale: bool,
    /// Counts the reads that brought the view up to date (see [`Front::generation`]).
    generation: u64,
}

impl<K, const LIMIT: usize> Default for Front<K, LIMIT> {
    fn default() -> Self {
        Front {
            view: Vec::new(),
            pending: Vec::new(),
            stale: true,
            generation: 0,
        }
    }
}

impl<K: Ord + Copy, const LIMIT: usize> Front<K, LIMIT> {
    /// Notes that `key` was inserted into (`inserted`) or removed from the set.
    #[inline]
    pub(super) fn touch(&mut self, key: K, inserted: bool) {
        if self.stale {
            return;
        }
        let w = &self.view;
        if w.len() < LIMIT || w.last().is_some_and(|&l| key <= l) {
            if self.pending.len() >= 2 * LIMIT {
                self.stale = true;
                self.pending.clear();
            } else {
                self.pending.push((key, inserted));
            }
        }
    }

    /// The front as of the last [`Front::read`] (later changes wait for the next).
    pub(super) fn view(&self) -> &[K] {
        &self.view
    }

    /// A number that changes whenever a read may have changed the view (so what a caller
    /// derived from the view holds while it stands still).
    pub(super) fn generation(&self) -> u64 {
        self.generation
    }

    /// The first `min(LIMIT, len)` entries of `set` (which every change since the last
    /// read was [`Front::touch`]ed for).
    #[inline]
    pub(super) fn read(&mut self, set: &impl Ordered<K>) -> &[K] {
        if self.stale || !self.pending.is_empty() {
            self.sync(set);
        }
        &self.view
    }

    /// Brings the view up to date: copied afresh when stale, else patched.
    #[inline(never)]
    fn sync(&mut self, set: &impl Ordered<K>) {
        self.generation += 1;
        let w = &mut self.view;
        if self.stale {
            w.clear();
            set.first_into(LIMIT, w);
            self.stale = false;
            self.pending.clear();
        } else if !self.pending.is_empty() {
            let full = w.len() == LIMIT;
            let bound = w.last().copied();
            for (key, inserted) in self.pending.drain(..) {
                match (w.binary_search(&key), inserted) {
                    (Err(i), true) => w.insert(i, key),
                    (Ok(i), false) => {
                        w.remove(i);
                    }
                    // Inserted and found, removed and not found: not a change of the set
                    // as recorded; the copy is made afresh below.
                    _ => self.stale = true,
                }
            }
            if self.stale {
                return self.sync(set);
            }
            w.truncate(LIMIT);
            if let (true, Some(b)) = (full && w.len() < LIMIT, bound) {
                let more = LIMIT - w.len();
                set.after_into(b, more, w);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the set itself: random inserts and removals, some reads in between
    /// (reads of every length, changes before and past the front's last entry); each
    /// read must equal the set's first `LIMIT` entries.
    #[test]
    fn patched_front_is_the_sets_front() {
        let mut next = crate::sched::lcg(0x2545_f491_4f6c_dd1d);
        for case in 0..200 {
            let mut set = BTreeSet::new();
            let mut front: Front<u64, 8> = Front::default();
            let span = 5 + next(60);
            for step in 0..300 {
                let k = next(span);
                if next(2) == 0 {
                    if set.insert(k) {
                        front.touch(k, true);
                    }
                } else if set.remove(&k) {
                    front.touch(k, false);
                }
                if next(1 + case % 7) == 0 {
                    let want: Vec<u64> = set.iter().take(8).copied().collect();
                    assert_eq!(front.read(&set), &want[..], "case {case}, step {step}");
                }
            }
        }
    }
}
