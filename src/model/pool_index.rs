//! An index over the pools in a preference order, by what each could hold now, so that a
//! job's first pool with room for its GPUs is found in O(log pools) per eligibility
//! group instead of by asking every pool in turn.
//!
//! Pools fall into groups by eligibility (GPU type, spot or not: what decides whether a
//! job may use a pool). Each group keeps its pools in preference order under a max-tree
//! of their [`PoolFit`]s: the largest whole-GPU request the pool's free capacity could
//! hold (the largest count of wholly free GPUs on one up node, or all GPUs of its wholly
//! free nodes, whichever is more) and whether any GPU has a free share. A query descends
//! each eligible group's tree to its first pool at or after a position whose fit allows
//! the request and takes the earliest of those; whether any eligible pool may hold it is
//! each eligible group's root, O(groups). The cluster updates a pool's leaf when its
//! free-GPU index changes (O(log pools)).
//!
//! The fit is a necessary condition only (CPU, memory, reserved nodes and budgets are
//! left to placement): a pool it rules out is one where every placement fails, and fails
//! before drawing a random tie, so skipping it changes nothing.

use super::GpuRequest;

/// What a pool's free capacity could hold now (see the module doc).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolFit {
    /// The most whole GPUs one request could get: the most wholly free GPUs on one up
    /// node, or the GPUs of all wholly free up nodes (a gang), whichever is more.
    pub whole: u32,
    /// True when some up node has a GPU partly free.
    pub partial: bool,
}

impl PoolFit {
    /// False when no placement of `req` can succeed with this much free; true for
    /// requests of no GPUs (placement decides on CPU and memory).
    #[inline]
    pub fn may_hold(self, req: GpuRequest) -> bool {
        match req {
            GpuRequest::Whole(0) | GpuRequest::None => true,
            GpuRequest::Whole(w) => self.whole >= w,
            GpuRequest::Fraction(_) => self.whole >= 1 || self.partial,
        }
    }

    fn join(self, o: PoolFit) -> PoolFit {
        PoolFit {
            whole: self.whole.max(o.whole),
            partial: self.partial || o.partial,
        }
    }
}

/// One eligibility group: its pools in preference order under a max-tree of fits.
#[derive(Debug, Clone)]
struct Group {
    /// The group's first pool (any of its pools answers eligibility for all).
    first: usize,
    /// Positions in the preference order, ascending.
    pos: Vec<u32>,
    /// The pool at each position.
    pools: Vec<u32>,
    /// Leaves (from `size`) and inner nodes (from 1) of the max-tree.
    tree: Vec<PoolFit>,
    size: usize,
}

impl Group {
    /// The first leaf at or after `i` whose fit may hold `req`.
    fn first_from(&self, i: usize, req: GpuRequest) -> Option<usize> {
        first_leaf_from(self.size, self.pos.len(), i, |v| self.tree[v].may_hold(req))
    }

    fn set(&mut self, leaf: usize, fit: PoolFit) {
        let mut v = leaf + self.size;
        self.tree[v] = fit;
        while v > 1 {
            v >>= 1;
            self.tree[v] = self.tree[2 * v].join(self.tree[2 * v + 1]);
        }
    }
}

/// The index of [`Cluster::set_search_order`](super::Cluster::set_search_order).
#[derive(Debug, Clone)]
pub(crate) struct PoolIndex {
    /// The caller's name for the order it was built for.
    pub(crate) key: u64,
    groups: Vec<Group>,
    /// Per pool: (group, leaf), or `None` for a pool not in the order.
    at: Vec<Option<(u32, u32)>>,
}

impl PoolIndex {
    /// Over `order` (pool indices, most preferred first), pool `p` in the group
    /// `group_of(p)` names, with fits `fit(p)`.
    pub(crate) fn new(
        key: u64,
        order: &[usize],
        pools: usize,
        group_of: impl Fn(usize) -> (usize, bool),
        fit: impl Fn(usize) -> PoolFit,
    ) -> PoolIndex {
        let (members, at) = groups_in_order(order, pools, group_of);
        let groups = members
            .into_iter()
            .map(|m| {
                let size = m.len().next_power_of_two();
                let mut g = Group {
                    first: m[0].1,
                    pos: m.iter().map(|x| x.0).collect(),
                    pools: m.iter().map(|x| x.1 as u32).collect(),
                    tree: vec![PoolFit::default(); 2 * size],
                    size,
                };
                for (leaf, &(_, p)) in m.iter().enumerate() {
                    g.tree[size + leaf] = fit(p);
                }
                for v in (1..size).rev() {
                    g.tree[v] = g.tree[2 * v].join(g.tree[2 * v + 1]);
                }
                g
            })
            .collect();
        PoolIndex { key, groups, at }
    }

    /// Pool `p`'s fit is now `fit`.
    pub(crate) fn update(&mut self, p: usize, fit: PoolFit) {
        if let Some(Some((g, leaf))) = self.at.get(p) {
            self.groups[*g as usize].set(*leaf as usize, fit);
        }
    }

    /// True when some pool of a group `eligible` accepts (asked of one pool of the group)
    /// has a fit that may hold `req`: each group's root. O(groups).
    pub(crate) fn any(&self, req: GpuRequest, eligible: impl Fn(usize) -> bool) -> bool {
        self.groups
            .iter()
            .any(|g| g.tree[1].may_hold(req) && eligible(g.first))
    }

    /// The first pool after position `after` (from the start: `None`) of the order whose
    /// group `eligible` accepts (asked of one pool of the group) and whose fit may hold
    /// `req`, with its position. O(groups x log pools).
    pub(crate) fn next(
        &self,
        after: Option<u32>,
        req: GpuRequest,
        eligible: impl Fn(usize) -> bool,
    ) -> Option<(u32, usize)> {
        let mut best: Option<(u32, usize)> = None;
        for g in &self.groups {
            if !eligible(g.first) {
                continue;
            }
            let from = after.map_or(0, |a| g.pos.partition_point(|&x| x <= a));
            if let Some(leaf) = g.first_from(from, req) {
                let pos = g.pos[leaf];
                if best.is_none_or(|b| pos < b.0) {
                    best = Some((pos, g.pools[leaf] as usize));
                }
            }
        }
        best
    }
}

/// A pool's (group, place in the group) in a grouped order; `None`: not in the order.
pub(crate) type PoolPlace = Option<(u32, u32)>;

/// The pools of `order` (most preferred first; a pool out of range or given again is
/// skipped) in groups by `key`, groups in the order their first pool comes: per group its
/// members as (position in `order`, pool), in order, and per pool its (group, place in the
/// group), `None` for a pool not in `order`. The layout of every per-group tree over pools
/// in a preference order (this index, conservative backfill's bounds, SRTF's latest ends).
pub(crate) fn groups_in_order<K: PartialEq>(
    order: &[usize],
    pools: usize,
    key: impl Fn(usize) -> K,
) -> (Vec<Vec<(u32, usize)>>, Vec<PoolPlace>) {
    let mut keys: Vec<K> = Vec::new();
    let mut members: Vec<Vec<(u32, usize)>> = Vec::new();
    let mut at = vec![None; pools];
    for (i, &p) in order.iter().enumerate() {
        if p >= pools || at[p].is_some() {
            continue;
        }
        let k = key(p);
        let g = match keys.iter().position(|x| *x == k) {
            Some(g) => g,
            None => {
                keys.push(k);
                members.push(Vec::new());
                keys.len() - 1
            }
        };
        at[p] = Some((g as u32, members[g].len() as u32));
        members[g].push((i as u32, p));
    }
    (members, at)
}

/// In a complete binary tree over `size` leaves (node 1 the root, node `v`'s children
/// `2v` and `2v + 1`, leaves from `size`, the first `len` of them in use), the first leaf
/// at or after `i` whose node passes `ok`, where `ok` holds of an inner node exactly when
/// it holds of one of its children (a max- or min-tree's threshold test). O(log size).
pub(crate) fn first_leaf_from(
    size: usize,
    len: usize,
    i: usize,
    ok: impl Fn(usize) -> bool,
) -> Option<usize> {
    if i >= len {
        return None;
    }
    let mut v = i + size;
    loop {
        if ok(v) {
            while v < size {
                v *= 2;
                if !ok(v) {
                    v += 1;
                }
            }
            return (v - size < len).then_some(v - size);
        }
        // The next subtree to the right: up while a right child, then its sibling.
        while v & 1 == 1 {
            v >>= 1;
        }
        if v == 0 {
            return None;
        }
        v += 1;
    }
}
