//! Tiresias' own count of how many victims a preemption must free before its job could
//! fit: the answer of [`super::victims_before_fit`] (which reads each victim's allocation
//! from the running set, GPU by GPU), found from what the policy recorded of each running
//! job when it started: the node it holds whole GPUs on and how many, one step a victim.
//!
//! Why it is the same answer: a slice of a whole GPU is the only holder of its GPU (it
//! is not free at all), so freeing it makes exactly that GPU wholly free; the count adds
//! a victim's whole GPUs on its node at once, which reaches `w` (or the node's GPUs, for
//! a gang's nodes) at the victim where one GPU at a time would. Victims in pools the job
//! may not use, and GPUs on nodes that are down, count for nothing, as there. A victim
//! holding a share of a GPU (what other jobs' shares free with it decides its count) is
//! not counted here: the caller then asks `victims_before_fit`. When every victim holds
//! whole GPUs, the request is covered by the free whole GPUs and the victims' whenever
//! this count finds a fit, so `SchedCtx::start_preempting`'s cheaper check holds too,
//! and [`super::SchedCtx::start_preempting_from`] with this count does what
//! `start_preempting` would.

use crate::model::{GpuRequest, Job, JobId};
use crate::sched::SchedCtx;

/// What a running job holds, as the count reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Held {
    /// Whole GPUs on one node (none: a job of no GPUs).
    Gpus {
        /// The node.
        node: u32,
        /// Whole GPUs held there.
        whole: u16,
    },
    /// Whole GPUs on several nodes (read from its allocation).
    Nodes,
    /// A share of some GPU (not counted here).
    Shares,
}

impl Held {
    /// What allocation `a` holds.
    pub(super) fn of(a: &crate::model::Allocation) -> Held {
        let whole = crate::model::MILLI_PER_GPU as u16;
        if a.gpus.iter().any(|s| s.milli != whole) {
            return Held::Shares;
        }
        match a.gpus.first() {
            None => Held::Gpus { node: 0, whole: 0 },
            Some(f) if a.gpus.iter().all(|s| s.node == f.node) => Held::Gpus {
                node: f.node,
                whole: a.gpus.len() as u16,
            },
            Some(_) => Held::Nodes,
        }
    }
}

/// The count's buffers, kept between preemptions.
#[derive(Debug, Default)]
pub(super) struct Fit {
    stamp: u32,
    /// Per node: (stamp of the count that last touched it, whole GPUs gained).
    gain: Vec<(u32, u16)>,
    /// The job's eligible pools that victims read so far hold GPUs in: (pool, GPUs per
    /// node, nodes made wholly free); a count's cost does not grow with the pools.
    pools: Vec<(usize, u32, u32)>,
}

impl Fit {
    /// How many of `victims` (in order, at most as many as they are) must be freed before
    /// `job` could fit, as `victims_before_fit` counts them: `Some(Some(0))` when it may
    /// fit now, `Some(None)` when not even all of them make room, `None` when a victim
    /// holds a share of a GPU (then nothing is known). Victims come with their pool and
    /// holding; every victim read is pushed onto `listed`.
    pub(super) fn first(
        &mut self,
        ctx: &SchedCtx,
        job: &Job,
        victims: impl Iterator<Item = (JobId, u32, Held)>,
        listed: &mut Vec<JobId>,
    ) -> Option<Option<usize>> {
        let GpuRequest::Whole(w) = job.gpus else {
            return Some(Some(0));
        };
        let cluster = &*ctx.cluster;
        if ctx.whole_gpus_may_fit_somewhere(job) {
            return Some(Some(0));
        }
        // The eligible pools the victims hold GPUs in, as they come.
        self.pools.clear();
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.gain.iter_mut().for_each(|x| *x = (0, 0));
            self.stamp = 1;
        }
        if self.gain.len() < cluster.node_count() {
            self.gain.resize(cluster.node_count(), (0, 0));
        }
        for (i, (v, p, h)) in victims.enumerate() {
            listed.push(v);
            let k = match self.pools.iter().position(|x| x.0 == p as usize) {
                Some(k) => k,
                None => {
                    let g = cluster.pools()[p as usize].spec.node.gpus as u32;
                    if g == 0 || !ctx.pools.allows(job, p as usize) {
                        continue;
                    }
                    self.pools.push((p as usize, g, 0));
                    self.pools.len() - 1
                }
            };
            let g = self.pools[k].1;
            let reached = match h {
                Held::Shares => return None,
                Held::Gpus { whole: 0, .. } => false,
                Held::Gpus { node, whole } => self.add(ctx, k, node, whole as u32, w, g),
                Held::Nodes => {
                    let Some(r) = ctx.running.get(v) else {
                        continue;
                    };
                    // One slice at a time, as `victims_before_fit` reads them.
                    let mut reached = false;
                    for s in &r.alloc.gpus {
                        reached |= self.add(ctx, k, s.node, 1, w, g);
                    }
                    reached
                }
            };
            if reached {
                return Some(Some(i + 1));
            }
        }
        Some(None)
    }

    /// Frees `n` whole GPUs of node `node` of eligible pool `self.pools[k]` (`g` GPUs a
    /// node); true when a request of `w` GPUs could then fit.
    #[inline(always)]
    fn add(&mut self, ctx: &SchedCtx, k: usize, node: u32, n: u32, w: u32, g: u32) -> bool {
        let cluster = &*ctx.cluster;
        if !cluster.is_up(node) {
            return false;
        }
        let x = &mut self.gain[node as usize];
        if x.0 != self.stamp {
            *x = (self.stamp, 0);
        }
        let before = cluster.free_whole(node) as u32 + x.1 as u32;
        x.1 += n as u16;
        let whole = before + n;
        if w <= g {
            whole >= w
        } else if before < g && whole >= g {
            let pool = &mut self.pools[k];
            pool.2 += 1;
            cluster.free_nodes(pool.0).len() as u32 + pool.2 >= w.div_ceil(g)
        } else {
            false
        }
    }
}
