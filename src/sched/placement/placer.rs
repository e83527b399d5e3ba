//! A placement policy set up for one time-based run: finds room for a job in a pool of the
//! simulation's [`Cluster`], which it reads but does not change (the scheduler takes the
//! allocation it returns).
//!
//! Jobs bigger than one node take whole free nodes, whatever the policy (a gang). A job
//! that fits one node goes where the policy's [`ClusterRule`] says: from the cluster's
//! free-GPU index (best and worst fit: time in GPUs per node), or to the best-scored of
//! the pool's fitting nodes (time in the pool's node count, no allocation per node).

use super::node::task_shape;
use super::{
    ClusterRule, GpuPick, IndexOrder, NodeState, NodeType, Placement, PlacementContext,
    PlacementKind, Task, TaskMix, TieBreak,
};
use crate::engine::{RngStreams, SimRng};
use crate::model::{
    Allocation, Cluster, GpuRequest, GpuSlice, Holding, Pool, ReservedNodes, TypeMask, Workload,
    MILLI_PER_GPU,
};
use rand::Rng;
use std::cell::RefCell;

const FULL: u16 = MILLI_PER_GPU as u16;

/// A placement policy bound to a time-based run.
pub struct Placer {
    kind: PlacementKind,
    policy: Box<dyn Placement>,
    rule: ClusterRule,
    rng: RefCell<SimRng>,
    scratch: RefCell<Scratch>,
    /// Per pool: nodes per rack, for policies that pack gangs into racks (empty: none).
    racks: Vec<u32>,
}

/// Buffers reused across scored searches, so scoring allocates nothing per node.
struct Scratch {
    state: NodeState,
    tied: Vec<(u32, u16)>,
}

impl std::fmt::Debug for Placer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Placer({})", self.kind.as_str())
    }
}

impl Placer {
    /// The policy `kind` built from `ctx`. Random ties draw from the `placement` stream of
    /// seed 0 until [`Placer::set_rng`] gives the run's.
    pub fn new(kind: PlacementKind, ctx: &PlacementContext) -> Placer {
        let policy = kind.build(ctx);
        let rule = policy.on_cluster();
        Placer {
            kind,
            policy,
            rule,
            rng: RefCell::new(RngStreams::new(0).stream("placement")),
            scratch: RefCell::new(Scratch {
                state: NodeState {
                    ty: 0,
                    cpu_free: 0,
                    mem_free: 0,
                    gpu_free: Vec::new(),
                    mix: TaskMix::EMPTY,
                },
                tied: Vec::new(),
            }),
            racks: Vec::new(),
        }
    }

    /// Each pool's nodes per rack (0: no racks), read by policies that pack gangs.
    pub fn set_racks(&mut self, nodes_per_rack: Vec<u32>) {
        self.racks = nodes_per_rack;
    }

    /// The policy `kind` for a run of `workload` on `cluster` (dot product scaled by the
    /// cluster's largest node); asks the cluster to record holdings if the policy reads them.
    pub fn for_run(kind: PlacementKind, cluster: &mut Cluster, workload: &Workload) -> Placer {
        let pools = cluster.pools();
        let max_cpu = pools.iter().map(|p| p.spec.node.cpu_milli).max();
        let max_gpus = pools.iter().map(|p| p.spec.node.gpus).max();
        let ctx =
            PlacementContext::of_workload(workload, max_cpu.unwrap_or(0), max_gpus.unwrap_or(0));
        let placer = Placer::new(kind, &ctx);
        if let ClusterRule::Score { task_mix: true, .. } = placer.rule {
            cluster.track_holdings();
        }
        placer
    }

    /// Draws random ties from `rng` (the run's `placement` stream).
    pub fn set_rng(&mut self, rng: SimRng) {
        self.rng = RefCell::new(rng);
    }

    /// The policy this placer runs.
    pub fn kind(&self) -> PlacementKind {
        self.kind
    }

    /// Finds room for a job asking `req`, `cpu` and `mem` in pool `p`, avoiding `avoid`
    /// nodes, without taking it; `None` when it does not fit now.
    pub fn find(
        &self,
        cluster: &Cluster,
        p: usize,
        req: GpuRequest,
        cpu: u32,
        mem: u64,
        avoid: Option<&ReservedNodes>,
    ) -> Option<Allocation> {
        let pool = &cluster.pools()[p];
        let gpn = pool.spec.node.gpus as u32;
        let k = cluster.nodes_needed(p, req, cpu, mem)?;
        let ok = |n: u32| avoid.is_none_or(|r| !r.contains(n));
        match req {
            GpuRequest::Whole(w) if w > gpn => {
                let racks = self.racks.get(p).copied().filter(|&r| r > 0);
                let racks = racks.filter(|_| self.policy.packs_racks());
                gang(cluster, p, (w, k), (cpu, mem), racks, ok)
            }
            _ => match self.rule {
                ClusterRule::Index(order) => indexed(cluster, p, order, req, cpu, mem, ok),
                ClusterRule::Score { ties, task_mix } => {
                    let (num_gpu, gpu_milli) = task_shape(req);
                    let task = Task {
                        cpu_milli: cpu,
                        mem_mib: mem,
                        num_gpu,
                        gpu_milli,
                        models: TypeMask::ANY,
                    };
                    self.scored(cluster, p, (ties, task_mix), req, &task, ok)
                }
            },
        }
    }

    /// The best-scored fitting node of pool `p` for a single-node job `req` (as `task`).
    fn scored(
        &self,
        cluster: &Cluster,
        p: usize,
        (ties, task_mix): (TieBreak, bool),
        req: GpuRequest,
        task: &Task,
        ok: impl Fn(u32) -> bool,
    ) -> Option<Allocation> {
        let (cpu, mem) = (task.cpu_milli, task.mem_mib);
        let spec = &cluster.pools()[p].spec;
        let ty = NodeType {
            model: Some(spec.gpu_type),
            gpus: spec.node.gpus,
            cpu_milli: spec.node.cpu_milli,
            mem_mib: spec.node.mem_mib,
        };
        let mut guard = self.scratch.borrow_mut();
        let Scratch { state, tied } = &mut *guard;
        tied.clear();
        let mut best = f64::NEG_INFINITY;
        // Nodes come in index order: under ties to the lowest node, the first accepted
        // wins whenever every accepted node scores alike.
        let first_wins = ties == TieBreak::LowestNode && self.policy.scores_alike();
        for n in cluster.pool_nodes(p) {
            if !cluster.is_up(n) || !ok(n) || !cluster.host_fits(n, cpu, mem) {
                continue;
            }
            let free = cluster.node_free_milli(n);
            (state.cpu_free, state.mem_free) = cluster.node_free_host(n);
            state.gpu_free.clear();
            state.gpu_free.extend_from_slice(free);
            state.mix = if task_mix {
                mix_of(cluster.holdings(n))
            } else {
                TaskMix::EMPTY
            };
            let Some(c) = self.policy.choose(&ty, state, task) else {
                continue;
            };
            // The view keeps the node's GPUs in device order: a share pick is the GPU.
            let gpu = match c.pick {
                GpuPick::Share(i) => i as u16,
                GpuPick::RandomShare => RANDOM_GPU,
                GpuPick::Whole | GpuPick::NoGpu => 0,
            };
            if c.score > best || tied.is_empty() {
                best = c.score;
                tied.clear();
                tied.push((n, gpu));
                if first_wins {
                    break;
                }
            } else if c.score == best && ties == TieBreak::Random {
                tied.push((n, gpu));
            }
        }
        let (n, g) = match (ties, tied.len()) {
            (_, 0) => return None,
            (TieBreak::Random, len) if len > 1 => tied[self.rng.borrow_mut().random_range(0..len)],
            _ => tied[0],
        };
        drop(guard);
        let g = if g == RANDOM_GPU {
            // A GPU drawn uniformly among the node's GPUs that hold the share.
            let m = task.gpu_milli as u16;
            let free = cluster.node_free_milli(n);
            let k = free.iter().filter(|&&f| f >= m).count();
            let r = self.rng.borrow_mut().random_range(0..k.max(1));
            free.iter().enumerate().filter(|(_, &f)| f >= m).nth(r)?.0 as u16
        } else {
            g
        };
        on_node(cluster, p, n, req, g, cpu, mem)
    }
}

/// Marks a tied node whose share GPU is still to be drawn ([`GpuPick::RandomShare`]).
const RANDOM_GPU: u16 = u16::MAX;

/// The GPU affinity tags of what a node holds, as GPU clustering reads them.
fn mix_of(held: &[Holding]) -> TaskMix {
    TaskMix(
        held.iter()
            .fold(0, |m, h| m | TaskMix::tag_of(h.gpus as u32, h.milli as u32)),
    )
}

/// A single-node job on node `n` (GPU `g` for a share); `None` if it does not fit there.
fn on_node(
    cluster: &Cluster,
    p: usize,
    n: u32,
    req: GpuRequest,
    g: u16,
    cpu: u32,
    mem: u64,
) -> Option<Allocation> {
    let free = cluster.node_free_milli(n);
    let mut a = Allocation {
        pool: p as u32,
        gpus: Vec::new(),
        hosts: vec![(n, cpu, mem)],
    };
    match req {
        GpuRequest::None => {}
        GpuRequest::Fraction(m) => {
            if free.get(g as usize).is_none_or(|&f| f < m) {
                return None;
            }
            a.gpus.push(GpuSlice {
                node: n,
                gpu: g,
                milli: m,
            });
        }
        GpuRequest::Whole(w) => {
            a.gpus = whole_gpus(n, free, w);
            if a.gpus.len() < w as usize {
                return None;
            }
        }
    }
    Some(a)
}

/// The first `w` wholly free GPUs of node `n` (fewer if it has fewer).
fn whole_gpus(n: u32, free: &[u16], w: u32) -> Vec<GpuSlice> {
    let mut gpus = Vec::with_capacity(w as usize);
    for (g, &f) in free.iter().enumerate() {
        if gpus.len() == w as usize {
            break;
        }
        if f == FULL {
            gpus.push(GpuSlice {
                node: n,
                gpu: g as u16,
                milli: FULL,
            });
        }
    }
    gpus
}

/// A job of `w` GPUs over `k` whole free nodes (newest free first, or in the fewest racks
/// of `racks` nodes each), sharing CPU and memory evenly.
fn gang(
    cluster: &Cluster,
    p: usize,
    (w, k): (u32, u32),
    (cpu, mem): (u32, u64),
    racks: Option<u32>,
    ok: impl Fn(u32) -> bool,
) -> Option<Allocation> {
    let gpn = cluster.pools()[p].spec.node.gpus;
    let (cpu_per, mem_per) = (cpu.div_ceil(k), mem.div_ceil(k as u64));
    let mut picked = Vec::with_capacity(k as usize);
    if let Some(per_rack) = racks {
        let first = cluster.pools()[p].first_node;
        picked = super::rack_pack::pick(cluster.free_nodes(p), first, per_rack, k as usize, |n| {
            ok(n) && cluster.host_fits(n, cpu_per, mem_per)
        })?;
    }
    for &n in cluster.free_nodes(p).iter().rev() {
        if racks.is_some() {
            break;
        }
        if ok(n) && cluster.host_fits(n, cpu_per, mem_per) {
            picked.push(n);
            if picked.len() == k as usize {
                break;
            }
        }
    }
    if picked.len() < k as usize {
        return None;
    }
    picked.sort_unstable();
    let mut a = Allocation {
        pool: p as u32,
        gpus: Vec::with_capacity(w as usize),
        hosts: Vec::new(),
    };
    // Whole nodes: the job holds every GPU of each node it takes, even when its count is
    // not a multiple of the node size (the rest cannot be shared).
    for n in picked {
        for g in 0..gpn {
            a.gpus.push(GpuSlice {
                node: n,
                gpu: g,
                milli: FULL,
            });
        }
        a.hosts.push((n, cpu_per, mem_per));
    }
    Some(a)
}

/// A single-node job placed from the free-GPU index.
fn indexed(
    cluster: &Cluster,
    p: usize,
    order: IndexOrder,
    req: GpuRequest,
    cpu: u32,
    mem: u64,
    ok: impl Fn(u32) -> bool,
) -> Option<Allocation> {
    let pool = &cluster.pools()[p];
    let fits = |n: u32| ok(n) && cluster.host_fits(n, cpu, mem);
    match req {
        GpuRequest::Whole(w) => {
            let n = bucket_node(pool, order, w as usize, fits)?;
            Some(Allocation {
                pool: p as u32,
                gpus: whole_gpus(n, cluster.node_free_milli(n), w),
                hosts: vec![(n, cpu, mem)],
            })
        }
        GpuRequest::Fraction(m) => {
            // Tightest partly used GPU first; then a whole free GPU on the index's node.
            let mut best: Option<(u16, u32, u16)> = None;
            for &n in pool.partial() {
                if !fits(n) {
                    continue;
                }
                for (g, &f) in cluster.node_free_milli(n).iter().enumerate() {
                    if f >= m && f < FULL && best.is_none_or(|(bf, bn, _)| (f, n) < (bf, bn)) {
                        best = Some((f, n, g as u16));
                    }
                }
            }
            let (n, g) = match best {
                Some((_, n, g)) => (n, g),
                None => {
                    let n = bucket_node(pool, order, 1, fits)?;
                    let g = cluster.node_free_milli(n).iter().position(|&f| f == FULL)?;
                    (n, g as u16)
                }
            };
            Some(Allocation {
                pool: p as u32,
                gpus: vec![GpuSlice {
                    node: n,
                    gpu: g,
                    milli: m,
                }],
                hosts: vec![(n, cpu, mem)],
            })
        }
        GpuRequest::None => {
            let n = bucket_node(pool, order, 0, fits)?;
            Some(Allocation {
                pool: p as u32,
                gpus: Vec::new(),
                hosts: vec![(n, cpu, mem)],
            })
        }
    }
}

/// The accepted node from the bucket of at least `at_least` free GPUs that `order` reads
/// first; within a bucket the most recently indexed node first.
fn bucket_node(
    pool: &Pool,
    order: IndexOrder,
    at_least: usize,
    accept: impl Fn(u32) -> bool,
) -> Option<u32> {
    let pick = |k: usize| pool.bucket(k).iter().rev().find(|&&n| accept(n)).copied();
    match order {
        IndexOrder::MostFree => (at_least..pool.bucket_count()).rev().find_map(pick),
        IndexOrder::FewestFree => (at_least..pool.bucket_count()).find_map(pick),
    }
}

#[cfg(test)]
#[path = "placer_tests.rs"]
mod tests;
