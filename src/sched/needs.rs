//! The smallest GPU requests among a policy's waiting groups, and whether the cluster's
//! free capacity could hold any of them: a pass that can start nothing more ends at once
//! instead of trying every group (a trace of many distinct shapes, each job its own CPU or
//! memory, made every pass try tens of thousands of groups that could not fit).

use super::whole_gpus_may_fit;
use crate::model::{Cluster, GpuRequest};
use std::collections::BTreeMap;

/// Counts of the GPU requests of a policy's groups with a job waiting, by size.
#[derive(Debug, Default)]
pub(crate) struct LiveNeeds {
    /// Whole-GPU requests: GPUs -> groups.
    whole: BTreeMap<u32, u32>,
    /// Fractional requests: milli-GPU -> groups.
    fraction: BTreeMap<u16, u32>,
    /// Groups of requests without GPUs.
    none: u32,
}

impl LiveNeeds {
    /// A group asking for `req` now has a job waiting.
    pub(crate) fn add(&mut self, req: GpuRequest) {
        match req {
            GpuRequest::None => self.none += 1,
            GpuRequest::Fraction(m) => *self.fraction.entry(m).or_insert(0) += 1,
            GpuRequest::Whole(w) => *self.whole.entry(w).or_insert(0) += 1,
        }
    }

    /// A group asking for `req` has no job waiting any more.
    pub(crate) fn remove(&mut self, req: GpuRequest) {
        fn drop_one<K: Ord>(m: &mut BTreeMap<K, u32>, k: K) {
            if let Some(c) = m.get_mut(&k) {
                *c -= 1;
                if *c == 0 {
                    m.remove(&k);
                }
            }
        }
        match req {
            GpuRequest::None => self.none = self.none.saturating_sub(1),
            GpuRequest::Fraction(m) => drop_one(&mut self.fraction, m),
            GpuRequest::Whole(w) => drop_one(&mut self.whole, w),
        }
    }

    /// True when no waiting request could be placed in any pool now: for the smallest
    /// whole request, no pool has a node with that many wholly free GPUs (a gang: that
    /// many wholly free nodes; [`whole_gpus_may_fit`], which holds for every larger
    /// request too); for fractional requests, no pool has a GPU with any free share.
    /// A necessary condition only (types, CPU, memory and budgets are left to
    /// placement), and one under which an attempt fails before drawing a random tie, so
    /// ending a pass on it starts exactly what trying every group would. O(pools x GPUs
    /// per node).
    pub(crate) fn none_fits(&self, cluster: &Cluster) -> bool {
        if self.none > 0 {
            return false;
        }
        let min_whole = self.whole.keys().next().copied();
        let any_fraction = !self.fraction.is_empty();
        (0..cluster.pools().len()).all(|p| {
            let whole_fits =
                min_whole.is_some_and(|w| whole_gpus_may_fit(cluster, p, GpuRequest::Whole(w)));
            let share_fits = any_fraction
                && (cluster.max_free_whole(p) > 0 || !cluster.pools()[p].partial().is_empty());
            !whole_fits && !share_fits
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Allocation, GpuSlice, PoolSpec};

    /// Takes GPUs `0..gpus` of `node`, `milli` of each (a host entry, no CPU or memory:
    /// the cluster reindexes the nodes an allocation lists).
    fn take(c: &mut Cluster, node: u32, gpus: u16, milli: u16) {
        let gpus = (0..gpus).map(|gpu| GpuSlice { node, gpu, milli }).collect();
        c.take(&Allocation {
            pool: 0,
            gpus,
            hosts: vec![(node, 0, 0)],
        });
    }

    /// One pool of two 8-GPU nodes, node 0 full.
    fn half_full() -> Cluster {
        let mut c = Cluster::new(vec![PoolSpec::test(2, 8)]);
        take(&mut c, 0, 8, 1000);
        c
    }

    #[test]
    fn whole_requests_are_bounded_by_the_largest_free_node() {
        // Node 1 empty: 8 GPUs fit on it, 16 need two free nodes.
        let c = half_full();
        let mut n = LiveNeeds::default();
        n.add(GpuRequest::Whole(16));
        assert!(n.none_fits(&c));
        n.add(GpuRequest::Whole(8));
        assert!(!n.none_fits(&c));
        n.remove(GpuRequest::Whole(8));
        assert!(n.none_fits(&c));
        // Two groups of 9 GPUs; one leaving keeps the other's count.
        let mut n = LiveNeeds::default();
        n.add(GpuRequest::Whole(9));
        n.add(GpuRequest::Whole(9));
        n.remove(GpuRequest::Whole(9));
        assert!(n.none_fits(&c));
        assert!(!n.none_fits(&Cluster::new(vec![PoolSpec::test(2, 8)])));
        // Seven GPUs of node 1 taken: one whole GPU is the most that fits.
        let mut c = half_full();
        take(&mut c, 1, 7, 1000);
        let mut n = LiveNeeds::default();
        n.add(GpuRequest::Whole(2));
        assert!(n.none_fits(&c));
        n.add(GpuRequest::Whole(1));
        assert!(!n.none_fits(&c));
    }

    #[test]
    fn shares_and_requests_without_gpus() {
        // Every GPU taken whole: no share fits; a request without GPUs always may.
        let mut full = half_full();
        take(&mut full, 1, 8, 1000);
        let mut n = LiveNeeds::default();
        n.add(GpuRequest::Fraction(100));
        assert!(n.none_fits(&full));
        n.add(GpuRequest::None);
        assert!(!n.none_fits(&full));
        // A GPU half used leaves room for a share (placement decides whether it fits),
        // while the seven whole GPUs left on its node cannot hold eight.
        let mut c = half_full();
        take(&mut c, 1, 1, 500);
        let mut n = LiveNeeds::default();
        n.add(GpuRequest::Whole(8));
        assert!(n.none_fits(&c));
        n.add(GpuRequest::Fraction(900));
        assert!(!n.none_fits(&c));
    }
}
