//! Shortest remaining time first (preemptive SJF): waiting jobs in order of estimated
//! remaining work; when the shortest waiting job does not fit, running jobs whose
//! estimated remaining time is longer than its own are preempted, longest first, as long
//! as it takes to make room for it (none if they cannot). The head then blocks the
//! rest, as in SJF.
//!
//! A running job's remaining time is its planned end minus now, so the running set kept
//! per pool by planned end is already ordered by remaining time: finding victims walks it
//! from the latest end and stops at the first job that ends sooner than the head would.
//! A pass costs O((s + v + 1) log n) for s starts and v victims examined.

use super::{Progress, QueuePolicy, SchedCtx, MAX_VICTIMS};
use crate::engine::SimTime;
use crate::model::{Job, JobId};
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

    /// Running jobs whose remaining time is longer than `head` would take, per eligible
    /// pool in preference order, longest remaining first.
    fn victims(ctx: &SchedCtx, head: JobId, left: u64) -> Vec<JobId> {
        let job = &ctx.jobs[head as usize];
        let mut out = Vec::new();
        for p in ctx.pools.eligible(job) {
            let head_runtime = ctx.pools.runtime_for(job, SimTime(left), p).0;
            for (end, id) in ctx.running.latest_ends(p) {
                if end.since(ctx.now).0 <= head_runtime || out.len() >= MAX_VICTIMS {
                    break;
                }
                out.push(id);
            }
        }
        out
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
        let left = p.left_of(job.planned_work()).0;
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
            let victims = Self::victims(ctx, id, left);
            if victims.is_empty() || !ctx.start_preempting(id, victims) {
                break;
            }
            self.queue.remove(&(left, seq, id));
        }
    }
}
