//! Lower bounds on when each pool's profile could hold a job, over the pools in their
//! preference order, so that the search of a job's eligible pools ([`Plan::best`]) visits
//! only the pools that could offer a start before the best one found so far, not all of
//! them.
//!
//! Per pool and level `j`: the first time, from the profile's "now" when the bounds were
//! computed, at which the profile has `2^j` or more whole GPUs free (`NEVER`: never). A
//! job needing at least `n` whole GPUs in every pool (a gang rounds up to whole nodes, so
//! its request is the least) cannot start in a pool before its bound at level
//! `floor(log2 n)`, and as long as the profile is unchanged that stays true while time
//! passes (a bound in the past is only weaker). The pools sit in groups by eligibility
//! (GPU type, spot or not), each group in preference order under a min-tree of the
//! bounds, level by level; a search walks the eligible groups' trees in pool order to the
//! next pool whose bound is before the best start so far, passing over whole subtrees.
//! A pool whose profile changed gets bound `ZERO` (it is visited) until a search visits
//! it and computes its bounds again, as it does for a pool whose bounds time has passed.
//!
//! [`Plan::best`]: super::Plan::best

use super::profile::Profile;
use crate::engine::SimTime;
use crate::model::{first_leaf_from, groups_in_order};

/// One eligibility group: its pools in preference order under a min-tree of bounds.
#[derive(Debug, Clone)]
struct Group {
    /// The group's first pool (any of its pools answers eligibility for all).
    first: usize,
    /// Positions in the preference order, ascending.
    pos: Vec<u32>,
    /// The pool at each position.
    pools: Vec<u32>,
    /// Leaves (from `size`) and inner nodes (from 1), `levels` bounds each.
    tree: Vec<SimTime>,
    size: usize,
}

/// The bounds of every pool (see the module doc).
#[derive(Debug, Clone, Default)]
pub(super) struct Bounds {
    /// The order the groups were built for ([`PoolChoice`]'s name for it) and the
    /// number of pools.
    ///
    /// [`PoolChoice`]: crate::sched::PoolChoice
    key: Option<(u64, usize)>,
    /// Levels per pool: enough for the largest pool's GPUs.
    levels: usize,
    groups: Vec<Group>,
    /// Per pool: (group, leaf), or `None` for a pool not in the order.
    at: Vec<Option<(u32, u32)>>,
    /// Per pool: its profile changed since its bounds were computed.
    dirty: Vec<bool>,
    /// Buffer for one pool's bounds.
    buf: Vec<SimTime>,
}

impl Bounds {
    /// True when built for order `key` over `pools` pools.
    pub(super) fn is_for(&self, key: u64, pools: usize) -> bool {
        self.key == Some((key, pools))
    }

    /// Over `order` (pool indices, most preferred first), pool `p` in the group
    /// `group_of(p)` names, for pools of at most `cap` whole GPUs; every pool dirty.
    pub(super) fn build(
        &mut self,
        key: u64,
        order: &[usize],
        pools: usize,
        cap: u64,
        group_of: impl Fn(usize) -> (usize, bool),
    ) {
        let levels = (u64::BITS - cap.max(1).leading_zeros()) as usize;
        let (members, at) = groups_in_order(order, pools, group_of);
        self.groups = members
            .into_iter()
            .map(|m| {
                let size = m.len().next_power_of_two();
                Group {
                    first: m[0].1,
                    pos: m.iter().map(|x| x.0).collect(),
                    pools: m.iter().map(|x| x.1 as u32).collect(),
                    tree: vec![SimTime::NEVER; 2 * size * levels],
                    size,
                }
            })
            .collect();
        self.key = Some((key, pools));
        self.levels = levels;
        self.at = at;
        self.dirty = vec![false; pools];
        self.buf = vec![SimTime::NEVER; levels];
        self.all_dirty();
    }

    /// Every pool's profile changed (a plan built from scratch). The tree stays exact
    /// (a node the least of its children: the walk down in [`Bounds::next`] relies on
    /// it), the leaves after the group's pools `NEVER`.
    pub(super) fn all_dirty(&mut self) {
        let l = self.levels;
        for g in &mut self.groups {
            let leaves = g.size..g.size + g.pools.len();
            g.tree[leaves.start * l..leaves.end * l].fill(SimTime::ZERO);
            for v in (1..g.size).rev() {
                for j in 0..l {
                    g.tree[v * l + j] = g.tree[2 * v * l + j].min(g.tree[(2 * v + 1) * l + j]);
                }
            }
        }
        self.dirty.fill(true);
    }

    /// Pool `p`'s profile changed: its bound is `ZERO` until it is visited.
    pub(super) fn touch(&mut self, p: usize) {
        let Some(d) = self.dirty.get_mut(p) else {
            return;
        };
        if *d {
            return;
        }
        *d = true;
        if let Some((g, leaf)) = self.at[p] {
            let l = self.levels;
            let g = &mut self.groups[g as usize];
            let mut v = leaf as usize + g.size;
            while v >= 1 {
                let node = &mut g.tree[v * l..(v + 1) * l];
                if node.iter().all(|&x| x == SimTime::ZERO) {
                    break;
                }
                node.fill(SimTime::ZERO);
                v >>= 1;
            }
        }
    }

    /// Computes pool `p`'s bounds from its profile (advanced to `now`) if it changed or
    /// time passed one of them.
    pub(super) fn refresh(&mut self, p: usize, prof: &Profile, now: SimTime) {
        let Some((g, leaf)) = self.at.get(p).copied().flatten() else {
            return;
        };
        let l = self.levels;
        let g = &mut self.groups[g as usize];
        let mut v = leaf as usize + g.size;
        if !self.dirty[p] && g.tree[v * l] >= now {
            return;
        }
        self.dirty[p] = false;
        prof.first_at_least(&mut self.buf);
        g.tree[v * l..(v + 1) * l].copy_from_slice(&self.buf);
        while v > 1 {
            v >>= 1;
            for j in 0..l {
                g.tree[v * l + j] = g.tree[2 * v * l + j].min(g.tree[(2 * v + 1) * l + j]);
            }
        }
    }

    /// The level whose bound holds for a job needing at least `n` (> 0) whole GPUs.
    pub(super) fn level(&self, n: u64) -> usize {
        ((u64::BITS - 1 - n.max(1).leading_zeros()) as usize).min(self.levels - 1)
    }

    /// The first pool after position `after` (from the start: `None`) of the order whose
    /// group `eligible` accepts (asked of one pool of the group) and whose bound at
    /// `level` is before `ub`, with its position. O(groups x log pools).
    pub(super) fn next(
        &self,
        after: Option<u32>,
        level: usize,
        ub: SimTime,
        eligible: impl Fn(usize) -> bool,
    ) -> Option<(u32, usize)> {
        let mut best: Option<(u32, usize)> = None;
        for g in &self.groups {
            if !eligible(g.first) {
                continue;
            }
            let from = after.map_or(0, |a| g.pos.partition_point(|&x| x <= a));
            if let Some(leaf) = g.first_from(from, self.levels, level, ub) {
                let pos = g.pos[leaf];
                if best.is_none_or(|b| pos < b.0) {
                    best = Some((pos, g.pools[leaf] as usize));
                }
            }
        }
        best
    }
}

impl Group {
    /// The first leaf at or after `i` whose bound at `level` is before `ub`.
    fn first_from(&self, i: usize, levels: usize, level: usize, ub: SimTime) -> Option<usize> {
        first_leaf_from(self.size, self.pos.len(), i, |v| {
            self.tree[v * levels + level] < ub
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first time a step list has `at_least` or more free (brute force).
    fn first_time(steps: &[(SimTime, i64)], at_least: i64) -> SimTime {
        steps
            .iter()
            .find(|x| x.1 >= at_least)
            .map_or(SimTime::NEVER, |x| x.0)
    }

    #[test]
    fn next_is_the_first_eligible_pool_in_order_whose_bound_is_before_the_limit() {
        // Oracle: every pool in order, its bound at the level from its steps by brute
        // force (`ZERO` while it is dirty), the first eligible one below the limit.
        let mut next = crate::sched::lcg(4242);
        for _ in 0..400 {
            let n = 1 + next(40) as usize;
            // A preference order: the pools rotated, with a repeat (ignored) at the end.
            let r = next(n as u64) as usize;
            let mut order: Vec<usize> = (0..n).map(|i| (i + r) % n).collect();
            order.push(order[0]);
            let pos = |p: usize| order.iter().position(|&q| q == p).unwrap() as u32;
            let group = |p: usize| (p % 3, p.is_multiple_of(5));
            let steps: Vec<Vec<(SimTime, i64)>> = (0..n)
                .map(|_| {
                    let mut t = 0;
                    (0..1 + next(12))
                        .map(|_| {
                            t += 1 + next(20);
                            (SimTime(t), next(33) as i64)
                        })
                        .collect()
                })
                .collect();
            let profiles: Vec<Profile> = steps.iter().map(|s| Profile::new(s.clone())).collect();
            let mut b = Bounds::default();
            b.build(7, &order, n, 32, group);
            assert!(b.is_for(7, n) && !b.is_for(8, n));
            let mut dirty = vec![true; n];
            for _ in 0..3 {
                for p in 0..n {
                    match next(3) {
                        0 => {
                            b.refresh(p, &profiles[p], SimTime::ZERO);
                            dirty[p] = false;
                        }
                        1 => {
                            b.touch(p);
                            dirty[p] = true;
                        }
                        _ => {}
                    }
                }
                for _ in 0..10 {
                    let least = 1 + next(40);
                    let level = b.level(least);
                    assert_eq!(level, (least.ilog2() as usize).min(5));
                    let ub = SimTime(next(150));
                    let types = next(8);
                    let spot = next(2) == 0;
                    let eligible =
                        |p: usize| types >> (p % 3) & 1 == 1 && (spot || !p.is_multiple_of(5));
                    let after = (next(3) > 0).then(|| next(n as u64) as u32);
                    let want = (0..n)
                        .filter(|&p| after.is_none_or(|a| pos(p) > a) && eligible(p))
                        .filter(|&p| {
                            let bound = if dirty[p] {
                                SimTime::ZERO
                            } else {
                                first_time(&steps[p], 1 << level)
                            };
                            bound < ub
                        })
                        .min_by_key(|&p| pos(p))
                        .map(|p| (pos(p), p));
                    assert_eq!(b.next(after, level, ub, eligible), want);
                }
            }
        }
    }
}
