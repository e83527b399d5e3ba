//! Tiresias' cheap preemption bound: what a node could have wholly free if every running
//! job of a lower priority than a candidate's queue were stopped, kept per queue and pool
//! as a histogram of nodes, so that a preemption that cannot make room is refused in
//! O(GPUs per node) per eligible pool, before its victims are listed. The policy keeps
//! it for every queue but the last (a job of the last queue has no lower-priority job to
//! preempt); a job of a queue past the counts is not tracked (it counts in none).
//!
//! Per node `n` and queue `q`, `held(n, q)` counts the GPUs held whole (a slice of
//! `MILLI_PER_GPU`) by tracked running jobs of queues `<= q`. A job of queue `q` may only
//! preempt jobs of queues `> q`, so after stopping all of them (a superset of any victim
//! list) node `n` has at most `gpus(n) - held(n, q)` wholly free GPUs: each such slice is
//! a distinct GPU its job keeps, and shares, CPU, memory, down nodes and jobs the policy
//! does not track are left out, which only raises the bound. Preemption's feasibility
//! count ([`super::victims_before_fit`]) asks for a node with `w` wholly free GPUs (a
//! request of `w <= gpus`), or `ceil(w / gpus)` wholly free nodes of one pool (a gang):
//! when no node's bound reaches that, it answers `None` for any victims, and the
//! attempt fails without changing anything.

use crate::model::{Allocation, Cluster, GpuRequest, JobId, MILLI_PER_GPU};
use std::ops::Range;

/// No slot (a job not tracked).
const NO_SLOT: u32 = u32::MAX;

/// The bound's counts (see the module doc).
#[derive(Debug, Default)]
pub(super) struct Room {
    queues: usize,
    pools: usize,
    /// Per node: its pool and GPUs.
    node_pool: Vec<u32>,
    node_gpus: Vec<u16>,
    /// Per node and queue (`n * queues + q`): GPUs held whole by jobs of queues `<= q`.
    held: Vec<u16>,
    /// Per (queue, pool) (`q * pools + p`): where its histogram starts in `hist`.
    off: Vec<usize>,
    /// Per (queue, pool) and bound `v` in `0..=gpus`: nodes whose bound is `v`.
    hist: Vec<u32>,
    /// Per job id: its slot in `slots` while tracked.
    slot_of: Vec<u32>,
    /// Per slot: (node, GPUs held whole there) of one tracked job.
    slots: Vec<Vec<(u32, u16)>>,
    free: Vec<u32>,
}

impl Room {
    /// Sizes the counts for `cluster` and `queues` queues, once (every node unheld).
    pub(super) fn init(&mut self, cluster: &Cluster, queues: usize) {
        if self.queues != 0 {
            return;
        }
        self.queues = queues;
        self.pools = cluster.pools().len();
        for (p, pool) in cluster.pools().iter().enumerate() {
            let g = pool.spec.node.gpus;
            for _ in cluster.pool_nodes(p) {
                self.node_pool.push(p as u32);
                self.node_gpus.push(g);
            }
        }
        self.held = vec![0; self.node_pool.len() * queues];
        for _ in 0..queues {
            for (p, pool) in cluster.pools().iter().enumerate() {
                self.off.push(self.hist.len());
                let g = pool.spec.node.gpus as usize;
                self.hist.extend(std::iter::repeat_n(0, g + 1));
                let nodes = cluster.pool_nodes(p).len() as u32;
                let last = self.hist.len() - 1;
                self.hist[last] = nodes;
            }
        }
    }

    /// Adds (`add`) or removes `k` whole GPUs on node `n` for the queues in `qs`.
    fn adjust(&mut self, n: u32, k: u16, add: bool, qs: Range<usize>) {
        let (n, g) = (n as usize, self.node_gpus[n as usize]);
        let p = self.node_pool[n] as usize;
        for q in qs {
            let h = &mut self.held[n * self.queues + q];
            let old = g.saturating_sub(*h) as usize;
            *h = if add {
                h.saturating_add(k)
            } else {
                h.saturating_sub(k)
            };
            let new = g.saturating_sub(*h) as usize;
            let o = self.off[q * self.pools + p];
            self.hist[o + old] -= 1;
            self.hist[o + new] += 1;
        }
    }

    /// Job `id` of queue `q` started on `a` (not counted from the first queue past the
    /// counts: it counts in none of them, and no demotion moves it back).
    pub(super) fn start(&mut self, id: JobId, a: &Allocation, q: u8) {
        if q as usize >= self.queues {
            return;
        }
        let i = id as usize;
        if i >= self.slot_of.len() {
            self.slot_of.resize(i + 1, NO_SLOT);
        }
        let s = match self.free.pop() {
            Some(s) => s,
            None => {
                self.slots.push(Vec::new());
                (self.slots.len() - 1) as u32
            }
        };
        self.slot_of[i] = s;
        let mut held = std::mem::take(&mut self.slots[s as usize]);
        held.clear();
        for sl in a.gpus.iter().filter(|s| s.milli as u32 == MILLI_PER_GPU) {
            match held.iter_mut().find(|x| x.0 == sl.node) {
                Some(x) => x.1 += 1,
                None => held.push((sl.node, 1)),
            }
        }
        let qs = q as usize..self.queues;
        for &(n, k) in &held {
            self.adjust(n, k, true, qs.clone());
        }
        self.slots[s as usize] = held;
    }

    /// Job `id`, tracked in queue `q`, stopped or ended.
    pub(super) fn stop(&mut self, id: JobId, q: u8) {
        let Some(s) = self.take_slot(id) else {
            return;
        };
        let held = std::mem::take(&mut self.slots[s as usize]);
        for &(n, k) in &held {
            self.adjust(n, k, false, q as usize..self.queues);
        }
        self.slots[s as usize] = held;
        self.free.push(s);
    }

    /// Running job `id` moved from queue `q` to the lower-priority queue `nq`.
    pub(super) fn demote(&mut self, id: JobId, q: u8, nq: u8) {
        let Some(&s) = self.slot_of.get(id as usize).filter(|&&s| s != NO_SLOT) else {
            return;
        };
        let held = std::mem::take(&mut self.slots[s as usize]);
        let qs = q as usize..self.queues.min(nq as usize);
        for &(n, k) in &held {
            self.adjust(n, k, false, qs.clone());
        }
        self.slots[s as usize] = held;
    }

    fn take_slot(&mut self, id: JobId) -> Option<u32> {
        let s = self.slot_of.get_mut(id as usize)?;
        let v = std::mem::replace(s, NO_SLOT);
        (v != NO_SLOT).then_some(v)
    }

    /// False when stopping every tracked job of a queue below `q` in `pools` could not
    /// give `req` room (then no preemption by a job of queue `q` can); true otherwise,
    /// and always for requests of no or fractional GPUs and before [`Room::init`].
    pub(super) fn may_make_room(
        &self,
        cluster: &Cluster,
        pools: impl IntoIterator<Item = usize>,
        req: GpuRequest,
        q: u8,
    ) -> bool {
        let GpuRequest::Whole(w) = req else {
            return true;
        };
        let q = q as usize;
        if self.queues == 0 || q >= self.queues || w == 0 {
            return true;
        }
        pools.into_iter().any(|p| {
            let g = cluster.pools()[p].spec.node.gpus as u32;
            if g == 0 {
                return false;
            }
            let h = &self.hist[self.off[q * self.pools + p]..][..=g as usize];
            if w <= g {
                h[w as usize..].iter().any(|&c| c > 0)
            } else {
                h[g as usize] >= w.div_ceil(g)
            }
        })
    }
}
