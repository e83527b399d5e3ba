//! Rack packing: topology-aware placement. A gang (a job bigger than one node) goes into
//! the fewest racks of its pool's fabric: into one rack when one has enough free nodes
//! (the one with the fewest that still hold it, keeping roomier racks for later gangs),
//! else over the racks with the most free nodes first, which needs the fewest racks for
//! the nodes asked. A job within one node is placed as best fit places it.
//!
//! Without racks (a pool with no fabric, or `nodes_per_rack = 0`) gangs take nodes as
//! every other placement does. Cost: one pass over the pool's free nodes per gang.

use super::{BestFit, Choice, ClusterRule, NodeState, NodeType, Placement, PlacementContext, Task};
use std::collections::BTreeMap;

/// Best fit within nodes; gangs into the fewest racks.
#[derive(Debug, Clone, Copy, Default)]
pub struct RackPack;

impl Placement for RackPack {
    fn build(ctx: &PlacementContext) -> Self {
        let _ = BestFit::build(ctx);
        RackPack
    }
    fn choose(&self, ty: &NodeType, node: &NodeState, task: &Task) -> Option<Choice> {
        BestFit.choose(ty, node, task)
    }
    fn on_cluster(&self) -> ClusterRule {
        BestFit.on_cluster()
    }
    fn packs_racks(&self) -> bool {
        true
    }
}

/// `k` nodes among `free` (node indices; `first` is the pool's first node, racks hold
/// `per_rack` nodes) accepted by `ok`, in the fewest racks; `None` when fewer fit.
pub(super) fn pick(
    free: &[u32],
    first: u32,
    per_rack: u32,
    k: usize,
    ok: impl Fn(u32) -> bool,
) -> Option<Vec<u32>> {
    let mut racks: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for &n in free {
        if ok(n) {
            let r = (n - first).checked_div(per_rack).unwrap_or(0);
            racks.entry(r).or_default().push(n);
        }
    }
    if racks.values().map(Vec::len).sum::<usize>() < k {
        return None;
    }
    for v in racks.values_mut() {
        v.sort_unstable();
    }
    // One rack: the tightest that holds the gang (lowest rack on ties).
    if let Some(v) = racks
        .values()
        .filter(|v| v.len() >= k)
        .min_by_key(|v| v.len())
    {
        return Some(v[..k].to_vec());
    }
    // Several: the fullest racks first (lowest rack on ties).
    let mut order: Vec<&Vec<u32>> = racks.values().collect();
    order.sort_by_key(|v| std::cmp::Reverse(v.len()));
    let mut out = Vec::with_capacity(k);
    for v in order {
        for &n in v {
            if out.len() == k {
                break;
            }
            out.push(n);
        }
    }
    out.sort_unstable();
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Racks of 4 nodes (0-3, 4-7, 8-11). Free: 1, 2 in rack 0; 4..=7 in rack 1; 8, 9, 10
    /// in rack 2. Three nodes fit in rack 2 (3 free, the tightest that holds 3); four in
    /// rack 1 alone; six need racks 1 and 2 (4 + 2), not three racks.
    #[test]
    fn fewest_racks() {
        let free = [1, 2, 4, 5, 6, 7, 8, 9, 10];
        assert_eq!(pick(&free, 0, 4, 3, |_| true), Some(vec![8, 9, 10]));
        assert_eq!(pick(&free, 0, 4, 4, |_| true), Some(vec![4, 5, 6, 7]));
        assert_eq!(pick(&free, 0, 4, 6, |_| true), Some(vec![4, 5, 6, 7, 8, 9]));
        assert_eq!(pick(&free, 0, 4, 10, |_| true), None);
        assert_eq!(pick(&free, 0, 4, 4, |n| n != 5), Some(vec![4, 6, 7, 8]));
    }
}
