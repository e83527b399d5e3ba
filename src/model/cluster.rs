//! Nodes and pools, with an index of nodes by free whole GPUs so that finding a node for
//! a job costs time in the number of distinct free counts, not the number of nodes.
//!
//! The cluster holds state and the index, and takes and gives back capacity; which node a
//! job gets is decided by the placement policies of `sched::placement`, which read it.
//!
//! Each pool also keeps its [`PoolFit`] (the largest whole-GPU request its free capacity
//! could hold, and whether a share could), kept in O(1) as nodes move between buckets,
//! and, once [`Cluster::set_search_order`] names a preference order, an index over the
//! pools in that order ([`super::pool_index`]) that finds the first pool whose fit may
//! hold a request in O(log pools) per eligibility group (a policy ranking pools its own
//! way may index a few further orders, [`Cluster::add_search_order`]). Per eligibility
//! group it sums the wholly free GPUs, so that a preemption's check of how many a job's
//! pools have free costs O(groups), not O(pools).

use super::pool_index::{PoolFit, PoolIndex};
use super::{CapacityKind, GpuRequest, MILLI_PER_GPU};

/// The most nodes a cluster may have: all of a scenario's pools together, and a node list
/// (openb, PAI machine spec) read whole. About 56 bytes a node and 2 a GPU: a million
/// 1,024-GPU nodes take 2 GB (200 pools of a million nodes each took 11 GB and ended in
/// an allocation failure).
pub const MAX_NODES: u32 = 1_000_000;

/// The most further pool orders [`Cluster::add_search_order`] keeps indexed.
pub const MAX_SEARCHES: usize = 4;

/// The hardware of one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeSpec {
    /// GPUs per node.
    pub gpus: u16,
    /// CPU in milli-cores.
    pub cpu_milli: u32,
    /// Memory in MiB.
    pub mem_mib: u64,
}

/// A pool as configured: nodes of one GPU type with one capacity kind.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolSpec {
    /// Pool name, unique in a scenario.
    pub name: String,
    /// Index of the pool's GPU type in the scenario's type table.
    pub gpu_type: usize,
    /// How the capacity is obtained.
    pub kind: CapacityKind,
    /// Each node's hardware (identical nodes).
    pub node: NodeSpec,
    /// Number of nodes.
    pub nodes: u32,
    /// Relative speed of the pool's GPU type.
    pub speed: f64,
}

#[cfg(test)]
impl PoolSpec {
    /// A pool for unit tests: "p", `nodes` owned nodes of `gpus` GPUs, 64 cores and
    /// 512 GiB each, speed 1.
    pub(crate) fn test(nodes: u32, gpus: u16) -> PoolSpec {
        PoolSpec {
            name: "p".into(),
            gpu_type: 0,
            kind: CapacityKind::Owned,
            node: NodeSpec {
                gpus,
                cpu_milli: 64_000,
                mem_mib: 512 * 1024,
            },
            nodes,
            speed: 1.0,
        }
    }
}

/// A pool in the running cluster.
#[derive(Debug, Clone)]
pub struct Pool {
    /// The configuration.
    pub spec: PoolSpec,
    /// Index of the pool's first node in `Cluster::nodes`.
    pub first_node: u32,
    /// `buckets[k]` holds the up nodes with exactly `k` wholly free GPUs.
    buckets: Vec<Vec<u32>>,
    /// Nodes with at least one partly used GPU (for fractional requests).
    partial: Vec<u32>,
    /// The highest non-empty bucket (0 when none is).
    max_whole: u16,
    /// What the free capacity could hold now.
    fit: PoolFit,
}

impl Pool {
    /// The up nodes with exactly `k` wholly free GPUs (`k` up to the GPUs per node), in
    /// index order: most recently (re)indexed last.
    #[inline]
    pub fn bucket(&self, k: usize) -> &[u32] {
        &self.buckets[k]
    }

    /// Number of buckets: GPUs per node + 1.
    #[inline]
    pub fn bucket_count(&self) -> usize {
        self.buckets.len()
    }

    /// Up nodes with at least one partly used GPU.
    #[inline]
    pub fn partial(&self) -> &[u32] {
        &self.partial
    }
}

#[derive(Debug, Clone)]
struct Node {
    pool: u32,
    gpu_off: u32,
    gpus: u16,
    free_whole: u16,
    /// GPUs wholly free and GPUs partly free now, kept by `take` and `give_back` (the
    /// index reads them instead of counting; `free_whole` is the bucket it is filed in).
    whole_now: u16,
    shared_now: u16,
    cpu_free: u32,
    mem_free: u64,
    bucket_pos: u32,
    partial_pos: u32,
    up: bool,
}

const NOT_PARTIAL: u32 = u32::MAX;

impl Node {
    /// Keeps the node's counts of wholly and partly free GPUs as one GPU's free share
    /// goes from `before` to `after` (a whole GPU taken or given back: one step).
    #[inline]
    fn recount(&mut self, before: u16, after: u16) {
        const FULL: u16 = MILLI_PER_GPU as u16;
        match (before, after) {
            (FULL, 0) => self.whole_now -= 1,
            (0, FULL) => self.whole_now += 1,
            _ => {
                let whole = |f: u16| (f == FULL) as u16;
                let shared = |f: u16| (f > 0 && f < FULL) as u16;
                self.whole_now = self.whole_now + whole(after) - whole(before);
                self.shared_now = self.shared_now + shared(after) - shared(before);
            }
        }
    }
}

/// Part of one GPU held by a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuSlice {
    /// Node index in the cluster.
    pub node: u32,
    /// GPU index within the node.
    pub gpu: u16,
    /// Milli-GPU held.
    pub milli: u16,
}

/// What a running job holds: GPU slices plus CPU and memory on each node it uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Allocation {
    /// Pool the job runs in.
    pub pool: u32,
    /// GPU slices held (empty for CPU-only jobs).
    pub gpus: Vec<GpuSlice>,
    /// `(node, cpu_milli, mem_mib)` held on each node.
    pub hosts: Vec<(u32, u32, u64)>,
}

/// Nodes a queued job has been promised at a future time; others may not take them if
/// they would still be running then (EASY backfill's reservation). Sorted node indices.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReservedNodes(pub Vec<u32>);

impl ReservedNodes {
    /// True when node `n` is reserved.
    pub fn contains(&self, n: u32) -> bool {
        self.0.binary_search(&n).is_ok()
    }
}

/// GPU tasks of one shape held on a node: what GPU clustering asks of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Holding {
    /// GPUs each task holds on the node.
    pub gpus: u16,
    /// Milli-GPU held on each of those GPUs (1000 for whole GPUs).
    pub milli: u16,
    /// Tasks of this shape on the node.
    pub tasks: u32,
}

/// All nodes of all pools, with free capacity and the index used for placement.
#[derive(Debug, Clone)]
pub struct Cluster {
    pools: Vec<Pool>,
    nodes: Vec<Node>,
    free_milli: Vec<u16>,
    /// Per node, the GPU tasks held by shape; kept only after [`Cluster::track_holdings`]
    /// (empty otherwise, so the default path pays nothing).
    holdings: Vec<Vec<Holding>>,
    tracking: bool,
    /// Counts every change of free capacity or of a node's state (see [`Cluster::changes`]).
    changes: u64,
    /// Counts every change that can give room: a give-back or a node set up or down.
    releases: u64,
    /// The pools in a preference order by their fits ([`Cluster::set_search_order`]).
    search: Option<Box<PoolIndex>>,
    /// Further orders indexed by their fits ([`Cluster::add_search_order`]), newest last.
    searches: Vec<PoolIndex>,
    /// Per pool: its eligibility group (GPU type, spot or not) in `groups`.
    group_of: Vec<u32>,
    /// Per eligibility group: (its first pool, wholly free GPUs over its up nodes).
    groups: Vec<(usize, u64)>,
}

impl Cluster {
    /// Builds a cluster with every node up and empty.
    pub fn new(specs: Vec<PoolSpec>) -> Cluster {
        let mut c = Cluster {
            pools: Vec::new(),
            nodes: Vec::new(),
            free_milli: Vec::new(),
            holdings: Vec::new(),
            tracking: false,
            changes: 0,
            releases: 0,
            search: None,
            searches: Vec::new(),
            group_of: Vec::new(),
            groups: Vec::new(),
        };
        for spec in specs {
            let p = c.pools.len() as u32;
            let first = c.nodes.len() as u32;
            let gpn = spec.node.gpus as usize;
            let mut pool = Pool {
                spec,
                first_node: first,
                buckets: vec![Vec::new(); gpn + 1],
                partial: Vec::new(),
                max_whole: 0,
                fit: PoolFit::default(),
            };
            for _ in 0..pool.spec.nodes {
                let id = c.nodes.len() as u32;
                c.nodes.push(Node {
                    pool: p,
                    gpu_off: c.free_milli.len() as u32,
                    gpus: pool.spec.node.gpus,
                    free_whole: pool.spec.node.gpus,
                    whole_now: pool.spec.node.gpus,
                    shared_now: 0,
                    cpu_free: pool.spec.node.cpu_milli,
                    mem_free: pool.spec.node.mem_mib,
                    bucket_pos: pool.buckets[gpn].len() as u32,
                    partial_pos: NOT_PARTIAL,
                    up: true,
                });
                pool.buckets[gpn].push(id);
                c.free_milli
                    .extend(std::iter::repeat_n(MILLI_PER_GPU as u16, gpn));
            }
            let key = |q: &Pool| (q.spec.gpu_type, q.spec.kind == CapacityKind::Spot);
            let g = match c.pools.iter().position(|q| key(q) == key(&pool)) {
                Some(q) => c.group_of[q] as usize,
                None => {
                    c.groups.push((p as usize, 0));
                    c.groups.len() - 1
                }
            };
            c.group_of.push(g as u32);
            c.groups[g].1 += pool.spec.nodes as u64 * gpn as u64;
            c.pools.push(pool);
            c.refit(p as usize, gpn);
        }
        c
    }

    /// Node `n`'s wholly free GPUs, counted in its group's sum, went from `old` to `new`.
    #[inline]
    fn recount_group(&mut self, n: u32, old: u16, new: u16) {
        let g = self.group_of[self.nodes[n as usize].pool as usize] as usize;
        let sum = &mut self.groups[g].1;
        *sum = *sum + new as u64 - old as u64;
    }

    /// Wholly free GPUs over the up nodes of every pool whose eligibility group (GPU
    /// type, spot or not) `eligible` accepts, asked of one pool of each group: the sum of
    /// [`Cluster::pool_free_whole_gpus`] over those pools in O(groups), kept as nodes
    /// move between buckets.
    pub fn free_whole_gpus_where(&self, eligible: impl Fn(usize) -> bool) -> u64 {
        self.groups
            .iter()
            .filter(|g| eligible(g.0))
            .map(|g| g.1)
            .sum()
    }

    /// Keeps pool `p`'s highest non-empty bucket and fit after a node moved into bucket
    /// `added` (or out of one only: 0): O(1) unless the top bucket emptied (then down to
    /// the next non-empty one). Updates the search index when the fit changed.
    fn refit(&mut self, p: usize, added: usize) {
        let pool = &mut self.pools[p];
        let mut k = (pool.max_whole as usize).max(added);
        while k > 0 && pool.buckets[k].is_empty() {
            k -= 1;
        }
        pool.max_whole = k as u16;
        let g = pool.spec.node.gpus as usize;
        let gang = (pool.buckets[g].len() as u64 * g as u64).min(u32::MAX as u64) as u32;
        let fit = PoolFit {
            whole: gang.max(k as u32),
            partial: !pool.partial.is_empty(),
        };
        if fit != pool.fit {
            pool.fit = fit;
            if let Some(s) = &mut self.search {
                s.update(p, fit);
            }
            for s in &mut self.searches {
                s.update(p, fit);
            }
        }
    }

    /// What pool `p`'s free capacity could hold now (see [`PoolFit`]). O(1).
    #[inline]
    pub fn pool_fit(&self, p: usize) -> PoolFit {
        self.pools[p].fit
    }

    /// Indexes the pools in `order` (most preferred first) by their fits, grouped by
    /// eligibility (GPU type, spot or not), under the caller's name `key` for that order
    /// ([`Cluster::search_key`]); pools missing from `order` are not indexed. O(pools log
    /// pools), then O(log pools) per change of a pool's fit.
    pub fn set_search_order(&mut self, key: u64, order: &[usize]) {
        let pools = &self.pools;
        self.search = Some(Box::new(PoolIndex::new(
            key,
            order,
            pools.len(),
            |p| {
                let s = &pools[p].spec;
                (s.gpu_type, s.kind == CapacityKind::Spot)
            },
            |p| pools[p].fit,
        )));
    }

    /// Indexes the pools in a further order `order` under `key`, beside the one of
    /// [`Cluster::set_search_order`] (for a policy that ranks pools its own way), found
    /// by [`Cluster::next_fitting_in`]; an index of the same key is replaced, and past
    /// [`MAX_SEARCHES`] the oldest is dropped. Each index costs O(log pools) per change of
    /// a pool's fit.
    pub fn add_search_order(&mut self, key: u64, order: &[usize]) {
        self.searches.retain(|s| s.key != key);
        if self.searches.len() >= MAX_SEARCHES {
            self.searches.remove(0);
        }
        let pools = &self.pools;
        self.searches.push(PoolIndex::new(
            key,
            order,
            pools.len(),
            |p| {
                let s = &pools[p].spec;
                (s.gpu_type, s.kind == CapacityKind::Spot)
            },
            |p| pools[p].fit,
        ));
    }

    /// True when [`Cluster::add_search_order`] keeps an index under `key`.
    pub fn has_search_order(&self, key: u64) -> bool {
        self.searches.iter().any(|s| s.key == key)
    }

    /// [`Cluster::next_fitting`] in the order [`Cluster::add_search_order`] indexed under
    /// `key`: `None` when no such index is kept, else its answer.
    pub fn next_fitting_in(
        &self,
        key: u64,
        after: Option<u32>,
        req: GpuRequest,
        eligible: impl Fn(usize) -> bool,
    ) -> Option<Option<(u32, usize)>> {
        let s = self.searches.iter().find(|s| s.key == key)?;
        Some(s.next(after, req, eligible))
    }

    /// The name of the order [`Cluster::set_search_order`] indexed last (`None`: none).
    pub fn search_key(&self) -> Option<u64> {
        self.search.as_ref().map(|s| s.key)
    }

    /// The first pool after position `after` of the indexed order (`None`: from its
    /// start) whose fit may hold `req`, among the pools whose eligibility group
    /// `eligible` accepts (asked of one pool of each group: pools of one GPU type and the
    /// same spot-or-not share it), with its position; `None` when there is none or no
    /// order is indexed. O(groups x log pools).
    pub fn next_fitting(
        &self,
        after: Option<u32>,
        req: GpuRequest,
        eligible: impl Fn(usize) -> bool,
    ) -> Option<(u32, usize)> {
        self.search.as_ref()?.next(after, req, eligible)
    }

    /// True when some pool of the indexed order ([`Cluster::set_search_order`]) whose
    /// eligibility group `eligible` accepts may hold `req` now (for a whole-GPU request:
    /// its fit counts that many); `None` when no order is indexed. O(groups): each
    /// group's tree root.
    pub fn any_fitting(&self, req: GpuRequest, eligible: impl Fn(usize) -> bool) -> Option<bool> {
        Some(self.search.as_ref()?.any(req, eligible))
    }

    /// Starts recording what each node holds ([`Cluster::holdings`]); call before any
    /// capacity is taken.
    pub fn track_holdings(&mut self) {
        self.tracking = true;
        self.holdings = vec![Vec::new(); self.nodes.len()];
    }

    /// The GPU tasks node `n` holds, by shape, in no particular order (empty unless
    /// [`Cluster::track_holdings`] was called).
    pub fn holdings(&self, n: u32) -> &[Holding] {
        self.holdings.get(n as usize).map_or(&[], Vec::as_slice)
    }

    /// Adds (`add`) or removes the GPU tasks of `a` in the holdings: one task per node it
    /// holds GPUs on (slices of one node are contiguous in an allocation).
    fn record_holdings(&mut self, a: &Allocation, add: bool) {
        let mut rest = &a.gpus[..];
        while let Some(first) = rest.first() {
            let k = rest.iter().take_while(|s| s.node == first.node).count();
            let (gpus, milli) = (k as u16, first.milli);
            let held = &mut self.holdings[first.node as usize];
            let at = held.iter().position(|h| (h.gpus, h.milli) == (gpus, milli));
            match (at, add) {
                (Some(i), true) => held[i].tasks += 1,
                (None, true) => held.push(Holding {
                    gpus,
                    milli,
                    tasks: 1,
                }),
                (Some(i), false) => {
                    held[i].tasks -= 1;
                    if held[i].tasks == 0 {
                        held.swap_remove(i);
                    }
                }
                (None, false) => debug_assert!(false, "giving back a task never held"),
            }
            rest = &rest[k..];
        }
    }

    /// The pools, in scenario order.
    pub fn pools(&self) -> &[Pool] {
        &self.pools
    }

    /// Node indices of pool `p` (a pool's nodes are contiguous).
    pub fn pool_nodes(&self, p: usize) -> std::ops::Range<u32> {
        let pool = &self.pools[p];
        pool.first_node..pool.first_node + pool.spec.nodes
    }

    /// Number of nodes in all pools.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Pool of node `n`.
    pub fn pool_of(&self, n: u32) -> u32 {
        self.nodes[n as usize].pool
    }

    /// Wholly free GPUs on node `n`.
    pub fn free_whole(&self, n: u32) -> u16 {
        self.nodes[n as usize].free_whole
    }

    /// Free milli-GPU of each GPU of node `n`.
    pub fn node_free_milli(&self, n: u32) -> &[u16] {
        let node = &self.nodes[n as usize];
        &self.free_milli[node.gpu_off as usize..node.gpu_off as usize + node.gpus as usize]
    }

    /// Free CPU (milli) and memory (MiB) on node `n`.
    pub fn node_free_host(&self, n: u32) -> (u32, u64) {
        let node = &self.nodes[n as usize];
        (node.cpu_free, node.mem_free)
    }

    /// Total GPUs in pool `p` (up or not).
    pub fn pool_gpus(&self, p: usize) -> u64 {
        let s = &self.pools[p].spec;
        s.nodes as u64 * s.node.gpus as u64
    }

    /// Nodes a job of `req` needs in pool `p`: 1 if it fits one node, else whole nodes;
    /// `None` if the pool can never hold it (bigger than the pool, or zero-GPU nodes).
    pub fn nodes_needed(&self, p: usize, req: GpuRequest, cpu: u32, mem: u64) -> Option<u32> {
        let s = &self.pools[p].spec;
        let gpn = s.node.gpus as u32;
        let k = match req {
            GpuRequest::None => 1,
            GpuRequest::Fraction(_) => {
                if gpn == 0 {
                    return None;
                }
                1
            }
            GpuRequest::Whole(n) => {
                if gpn == 0 {
                    return None;
                }
                n.div_ceil(gpn)
            }
        };
        if k > s.nodes {
            return None;
        }
        let cpu_per = cpu.div_ceil(k);
        let mem_per = mem.div_ceil(k as u64);
        if cpu_per > s.node.cpu_milli || mem_per > s.node.mem_mib {
            return None;
        }
        Some(k)
    }

    /// True when node `n` has `cpu` milli-cores and `mem` MiB free.
    #[inline]
    pub fn host_fits(&self, n: u32, cpu: u32, mem: u64) -> bool {
        let node = &self.nodes[n as usize];
        node.cpu_free >= cpu && node.mem_free >= mem
    }

    /// A number that changes whenever free capacity or a node's state does (not after
    /// every change back: a policy compares it to tell that nothing changed since).
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// A number that changes whenever capacity is given back or a node's state changes:
    /// while it stands still, free capacity only shrank, so a request that did not fit
    /// still does not (when fits do not depend on the time).
    pub fn releases(&self) -> u64 {
        self.releases
    }

    /// Takes the capacity of an allocation (found by a placement policy).
    pub fn take(&mut self, a: &Allocation) {
        self.changes += 1;
        if self.tracking {
            self.record_holdings(a, true);
        }
        for s in &a.gpus {
            let node = &mut self.nodes[s.node as usize];
            let f = &mut self.free_milli[(node.gpu_off + s.gpu as u32) as usize];
            debug_assert!(*f >= s.milli, "GPU over-allocated");
            let before = *f;
            *f -= s.milli;
            node.recount(before, *f);
        }
        for &(n, cpu, mem) in &a.hosts {
            let node = &mut self.nodes[n as usize];
            node.cpu_free -= cpu;
            node.mem_free -= mem;
            self.reindex(n);
        }
    }

    /// Returns the capacity of an allocation.
    pub fn give_back(&mut self, a: &Allocation) {
        self.changes += 1;
        self.releases += 1;
        if self.tracking {
            self.record_holdings(a, false);
        }
        for s in &a.gpus {
            let node = &mut self.nodes[s.node as usize];
            let f = &mut self.free_milli[(node.gpu_off + s.gpu as u32) as usize];
            let before = *f;
            *f += s.milli;
            debug_assert!(*f <= MILLI_PER_GPU as u16);
            node.recount(before, *f);
        }
        for &(n, cpu, mem) in &a.hosts {
            let node = &mut self.nodes[n as usize];
            node.cpu_free += cpu;
            node.mem_free += mem;
            self.reindex(n);
        }
    }

    /// Marks node `n` up or down (down nodes take no new work).
    pub fn set_up(&mut self, n: u32, up: bool) {
        if self.nodes[n as usize].up == up {
            return;
        }
        self.changes += 1;
        self.releases += 1;
        self.unindex(n);
        self.nodes[n as usize].up = up;
        if up {
            self.index(n);
        }
    }

    /// True when node `n` is up.
    pub fn is_up(&self, n: u32) -> bool {
        self.nodes[n as usize].up
    }

    fn unindex(&mut self, n: u32) {
        let node = &self.nodes[n as usize];
        if !node.up {
            return;
        }
        self.recount_group(n, self.nodes[n as usize].free_whole, 0);
        let node = &self.nodes[n as usize];
        let pool = &mut self.pools[node.pool as usize];
        let b = &mut pool.buckets[node.free_whole as usize];
        let pos = node.bucket_pos as usize;
        b.swap_remove(pos);
        if pos < b.len() {
            let moved = b[pos];
            self.nodes[moved as usize].bucket_pos = pos as u32;
        }
        let pp = self.nodes[n as usize].partial_pos;
        if pp != NOT_PARTIAL {
            let pool = &mut self.pools[self.nodes[n as usize].pool as usize];
            pool.partial.swap_remove(pp as usize);
            if (pp as usize) < pool.partial.len() {
                let moved = pool.partial[pp as usize];
                self.nodes[moved as usize].partial_pos = pp;
            }
            self.nodes[n as usize].partial_pos = NOT_PARTIAL;
        }
        self.refit(self.nodes[n as usize].pool as usize, 0);
    }

    fn index(&mut self, n: u32) {
        let node = &self.nodes[n as usize];
        debug_assert_eq!(node.whole_now, {
            let off = node.gpu_off as usize;
            let gpus = &self.free_milli[off..off + node.gpus as usize];
            gpus.iter().filter(|&&f| f == MILLI_PER_GPU as u16).count() as u16
        });
        let whole = node.whole_now;
        let partial = node.shared_now > 0;
        self.recount_group(n, 0, whole);
        let node = &self.nodes[n as usize];
        let pool = &mut self.pools[node.pool as usize];
        let node = &mut self.nodes[n as usize];
        node.free_whole = whole;
        node.bucket_pos = pool.buckets[whole as usize].len() as u32;
        pool.buckets[whole as usize].push(n);
        if partial {
            node.partial_pos = pool.partial.len() as u32;
            pool.partial.push(n);
        }
        let p = node.pool as usize;
        self.refit(p, whole as usize);
    }

    /// Files up node `n` again by its counts now: [`Cluster::unindex`] then
    /// [`Cluster::index`] in one step (the same moves in both lists: out of its bucket,
    /// the bucket's last node taking its place, then onto the end of its new bucket; the
    /// same for the list of partly used nodes).
    fn reindex(&mut self, n: u32) {
        let node = &self.nodes[n as usize];
        if !node.up {
            return;
        }
        debug_assert_eq!(node.whole_now, {
            let off = node.gpu_off as usize;
            let gpus = &self.free_milli[off..off + node.gpus as usize];
            gpus.iter().filter(|&&f| f == MILLI_PER_GPU as u16).count() as u16
        });
        let (old, pos, pp) = (
            node.free_whole as usize,
            node.bucket_pos as usize,
            node.partial_pos,
        );
        let (whole, partial) = (node.whole_now, node.shared_now > 0);
        if whole as usize != old {
            self.recount_group(n, old as u16, whole);
        }
        let node = &self.nodes[n as usize];
        let pool = &mut self.pools[node.pool as usize];
        let b = &mut pool.buckets[old];
        b.swap_remove(pos);
        if let Some(&moved) = b.get(pos) {
            self.nodes[moved as usize].bucket_pos = pos as u32;
        }
        let b = &mut pool.buckets[whole as usize];
        let at = b.len() as u32;
        b.push(n);
        if pp != NOT_PARTIAL {
            pool.partial.swap_remove(pp as usize);
            if let Some(&moved) = pool.partial.get(pp as usize) {
                self.nodes[moved as usize].partial_pos = pp;
            }
        }
        let new_pp = if partial {
            pool.partial.push(n);
            (pool.partial.len() - 1) as u32
        } else {
            NOT_PARTIAL
        };
        let node = &mut self.nodes[n as usize];
        node.free_whole = whole;
        node.bucket_pos = at;
        node.partial_pos = new_pp;
        let p = node.pool as usize;
        self.refit(p, whole as usize);
    }

    /// Wholly free, up nodes of pool `p` (newest last).
    pub fn free_nodes(&self, p: usize) -> &[u32] {
        let pool = &self.pools[p];
        &pool.buckets[pool.spec.node.gpus as usize]
    }

    /// Largest number of wholly free GPUs on any up node of pool `p`.
    pub fn max_free_whole(&self, p: usize) -> u16 {
        self.pools[p].max_whole
    }

    /// Wholly free GPUs over the up nodes of pool `p`, from the index: O(GPUs per node).
    pub fn pool_free_whole_gpus(&self, p: usize) -> u64 {
        let pool = &self.pools[p];
        pool.buckets
            .iter()
            .enumerate()
            .map(|(k, b)| k as u64 * b.len() as u64)
            .sum()
    }

    /// Free milli-GPU summed over the up nodes of pool `p`.
    pub fn pool_free_milli(&self, p: usize) -> u64 {
        let pool = &self.pools[p];
        let first = pool.first_node as usize;
        let mut sum = 0u64;
        for node in &self.nodes[first..first + pool.spec.nodes as usize] {
            if node.up {
                let off = node.gpu_off as usize;
                sum += self.free_milli[off..off + node.gpus as usize]
                    .iter()
                    .map(|&f| f as u64)
                    .sum::<u64>();
            }
        }
        sum
    }
}

#[cfg(test)]
#[path = "cluster_tests.rs"]
mod tests;
