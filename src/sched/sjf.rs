//! Shortest job first by estimate: waiting jobs in order of their estimated (remaining)
//! work, ties by arrival; jobs start in that order until the first that does not fit,
//! which blocks the rest (no starvation of big jobs by a stream of small ones beyond
//! what SJF itself implies).
//!
//! Speed: one ordered set; a pass costs O((s + 1) log n) for s starts.

use super::{Progress, QueuePolicy, SchedCtx};
use crate::model::{Job, JobId};
use std::collections::BTreeSet;

/// Non-preemptive shortest job first.
#[derive(Debug, Default)]
pub struct Sjf {
    queue: BTreeSet<(u64, u64, JobId)>,
    seq: u64,
}

impl Sjf {
    fn insert(&mut self, id: JobId, work: u64) {
        self.queue.insert((work, self.seq, id));
        self.seq += 1;
    }
}

impl QueuePolicy for Sjf {
    fn name(&self) -> &'static str {
        "sjf"
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
        while let Some(&first) = self.queue.first() {
            if !ctx.try_start(first.2, None) {
                break;
            }
            self.queue.pop_first();
        }
    }
}
