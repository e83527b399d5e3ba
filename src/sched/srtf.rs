//! Shortest remaining time first (preemptive SJF): waiting jobs in order of estimated
//! remaining work; when the shortest waiting job does not fit, running jobs whose
//! estimated remaining time is longer than its own are preempted, longest first, as long
//! as that can make room for it. The head then blocks the rest, as in SJF.
//!
//! A running job's remaining time is its planned end minus now, so the running set kept
//! per pool by planned end is already ordered by remaining time: finding victims walks it
//! from the latest end and stops at the first job that ends sooner than the head would.
//! A pass costs O((s + v + 1) log n) for s starts and v victims examined.

use super::{Progress, QueuePolicy, SchedCtx};
use crate::model::{GpuRequest, Job, JobId, MILLI_PER_GPU};
use std::collections::BTreeSet;

/// Preemptive shortest remaining time first.
#[derive(Debug, Default)]
pub struct Srtf {
    queue: BTreeSet<(u64, u64, JobId)>,
    seq: u64,
}

impl Srtf {
    fn insert(&mut self, id: JobId, work: u64) {
        self.queue.insert((work, self.seq, id));
        self.seq += 1;
    }

    /// Preempts running jobs longer than `head` in one eligible pool if their GPUs plus
    /// the pool's free GPUs cover the head's request; returns true if any was preempted.
    fn make_room(ctx: &mut SchedCtx, head: JobId, left: u64) -> bool {
        let job = &ctx.jobs[head as usize];
        let need = job.gpus.milli();
        let pools: Vec<usize> = ctx.pools.eligible(job).collect();
        for p in pools {
            let gpn = ctx.cluster.pools()[p].spec.node.gpus as u64;
            // Whole free GPUs (milli) in this pool; a fraction needs one GPU's worth at most.
            let free = ctx.cluster.pool_free_milli(p);
            let gang = matches!(job.gpus, GpuRequest::Whole(w) if w as u64 > gpn);
            let mut victims = Vec::new();
            let mut got = free;
            for (end, id) in ctx.running.latest_ends(p) {
                let their_left = end.since(ctx.now).0;
                if their_left <= left {
                    break;
                }
                if let Some(r) = ctx.running.get(id) {
                    got += r.alloc.gpus.iter().map(|s| s.milli as u64).sum::<u64>();
                }
                victims.push(id);
                let enough = if gang {
                    got >= need.div_ceil(gpn * MILLI_PER_GPU as u64) * gpn * 1000
                } else {
                    got >= need
                };
                if enough {
                    break;
                }
            }
            if victims.is_empty() || got < need {
                continue;
            }
            for v in victims {
                ctx.preempt(v);
            }
            return true;
        }
        false
    }
}

impl QueuePolicy for Srtf {
    fn name(&self) -> &'static str {
        "srtf"
    }
    fn push(&mut self, id: JobId, job: &Job) {
        self.insert(id, job.planned_work().0);
    }
    fn requeue(&mut self, id: JobId, job: &Job, p: &Progress) {
        let left = (job.planned_work().0 + p.extra.0).saturating_sub(p.done.0);
        self.insert(id, left);
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
    fn schedule(&mut self, ctx: &mut SchedCtx) {
        while let Some(&(left, seq, id)) = self.queue.first() {
            if ctx.try_start(id, None) {
                self.queue.pop_first();
                continue;
            }
            if !Self::make_room(ctx, id, left) || !ctx.try_start(id, None) {
                break;
            }
            self.queue.remove(&(left, seq, id));
        }
    }
}
