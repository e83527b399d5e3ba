//! Tiresias' running jobs of one queue as a set of job ranks (a job's place in the
//! (submit, id) order of the workload): a bitset with a summary bit per word, level above
//! level up to one word, so an insert or a removal touches one bit per level (no tree to
//! rebalance, no node to allocate) and the set is read from its largest rank down (the
//! lowest-priority job first) by steps of one word per level.
//!
//! Why it gives the ordered set's order: ranks are distinct and ordered as the (submit,
//! id) keys they stand for, so the largest rank below `r` is the entry before `r` in the
//! ordered set of keys; [`Ranks::prev`] finds it by climbing to the first level whose
//! word holds a set bit below `r`'s and descending along the highest set bits.

/// A set of ranks below a capacity fixed at creation (see the module doc).
#[derive(Debug, Clone, Default)]
pub(super) struct Ranks {
    /// `levels[0]` has one bit per rank; a bit of `levels[i + 1]` is set when word of
    /// `levels[i]` it stands for is not zero. The last level is one word.
    levels: Vec<Vec<u64>>,
    len: usize,
}

impl Ranks {
    /// An empty set of ranks below `n`.
    pub(super) fn new(n: usize) -> Ranks {
        let mut levels = Vec::new();
        let mut words = n.div_ceil(64).max(1);
        loop {
            levels.push(vec![0; words]);
            if words == 1 {
                break;
            }
            words = words.div_ceil(64);
        }
        Ranks { levels, len: 0 }
    }

    /// Number of ranks in the set.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Adds `r` (not in the set).
    #[inline]
    pub(super) fn insert(&mut self, r: usize) {
        let mut x = r;
        for level in &mut self.levels {
            let w = &mut level[x >> 6];
            let was = *w;
            *w |= 1 << (x & 63);
            if was != 0 {
                break;
            }
            x >>= 6;
        }
        self.len += 1;
    }

    /// Removes `r` (in the set).
    #[inline]
    pub(super) fn remove(&mut self, r: usize) {
        let mut x = r;
        for level in &mut self.levels {
            let w = &mut level[x >> 6];
            *w &= !(1 << (x & 63));
            if *w != 0 {
                break;
            }
            x >>= 6;
        }
        self.len -= 1;
    }

    /// The largest rank in the set below `r` (`usize::MAX`: the largest of all).
    #[inline]
    pub(super) fn prev(&self, r: usize) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        // Climb: at level `l`, the largest set bit below position `x`.
        let (mut l, mut x) = (0, r);
        let found = loop {
            let level = self.levels.get(l)?;
            // Past the end, every bit of the last word is below `x`.
            let (w, word) = match level.get(x >> 6) {
                Some(&word) => (x >> 6, word & ((1u64 << (x & 63)) - 1)),
                None => (level.len() - 1, level[level.len() - 1]),
            };
            if word != 0 {
                break (w << 6) | (63 - word.leading_zeros() as usize);
            }
            // None below `x` in its word: the next level's bits below the word's.
            x = w;
            l += 1;
        };
        // Descend along the highest set bits.
        let mut x = found;
        while l > 0 {
            l -= 1;
            let word = self.levels[l][x];
            x = (x << 6) | (63 - word.leading_zeros() as usize);
        }
        Some(x)
    }

    /// The smallest rank in the set above `r` (`None`: the smallest of all).
    #[inline]
    pub(super) fn next_after(&self, r: Option<usize>) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        // Climb: at level `l`, the smallest set bit at or above position `x`.
        let (mut l, mut x) = (0, r.map_or(0, |r| r + 1));
        let found = loop {
            let level = self.levels.get(l)?;
            let w = x >> 6;
            let word = level.get(w)? & (!0u64 << (x & 63));
            if word != 0 {
                break (w << 6) | word.trailing_zeros() as usize;
            }
            // None at or above `x` in its word: the next level's bits after the word's.
            x = w + 1;
            l += 1;
        };
        // Descend along the lowest set bits.
        let mut x = found;
        while l > 0 {
            l -= 1;
            let word = self.levels[l][x];
            x = (x << 6) | word.trailing_zeros() as usize;
        }
        Some(x)
    }

    /// The ranks from the largest down: a word of the lowest level at a time (the
    /// summary levels are climbed only to find the next word that is not empty).
    pub(super) fn iter_rev(&self) -> RevIter<'_> {
        RevIter {
            set: self,
            word: 0,
            bits: 0,
            started: false,
        }
    }
}

/// [`Ranks::iter_rev`]: the word being read and its ranks not yet returned.
pub(super) struct RevIter<'a> {
    set: &'a Ranks,
    word: usize,
    bits: u64,
    started: bool,
}

impl Iterator for RevIter<'_> {
    type Item = usize;
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.bits == 0 {
            // The largest rank below this word (all of them at the start); its word
            // holds nothing above it.
            let below = if !self.started {
                self.started = true;
                usize::MAX
            } else if self.word == 0 {
                return None;
            } else {
                self.word << 6
            };
            let r = self.set.prev(below)?;
            self.word = r >> 6;
            self.bits = self.set.levels[0][self.word];
        }
        let b = 63 - self.bits.leading_zeros() as usize;
        self.bits &= !(1u64 << b);
        Some((self.word << 6) | b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Against an ordered set: random inserts and removals over spans that need one to
    /// four levels; after each step the whole set, read from the top down, and a few
    /// `prev` queries must match.
    #[test]
    fn reads_as_an_ordered_set_from_the_top() {
        let mut next = crate::sched::lcg(0x5851_f42d_4c95_7f2d);
        for n in [1usize, 5, 64, 65, 200, 4096, 4097, 300_000] {
            let mut ranks = Ranks::new(n);
            let mut set = BTreeSet::new();
            for step in 0..600 {
                // Clustered ranks (as running jobs are), and some anywhere.
                let r = if next(3) == 0 {
                    next(n as u64) as usize
                } else {
                    (n - 1).min(n / 2 + next(70) as usize)
                };
                if set.contains(&r) {
                    set.remove(&r);
                    ranks.remove(r);
                } else {
                    set.insert(r);
                    ranks.insert(r);
                }
                assert_eq!(ranks.len(), set.len());
                if step % 7 == 0 {
                    let got: Vec<usize> = ranks.iter_rev().collect();
                    let want: Vec<usize> = set.iter().rev().copied().collect();
                    assert_eq!(got, want, "n {n}, step {step}");
                }
                let q = next(n as u64 + 2) as usize;
                assert_eq!(
                    ranks.prev(q),
                    set.range(..q).next_back().copied(),
                    "n {n}, prev({q})"
                );
                assert_eq!(
                    ranks.next_after(Some(q)),
                    set.range(q + 1..).next().copied(),
                    "n {n}, next_after({q})"
                );
                assert_eq!(ranks.next_after(None), set.first().copied(), "n {n}");
            }
        }
    }
}
