//! Strict first come, first served: the job at the head starts when it fits; nothing
//! behind it may pass it.

use super::{QueuePolicy, SchedCtx};
use crate::model::{Job, JobId};
use std::collections::VecDeque;

/// Strict FIFO. Each pass costs time only for the jobs it starts plus one failed try.
#[derive(Debug, Default)]
pub struct Fifo {
    queue: VecDeque<JobId>,
}

impl QueuePolicy for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }
    fn push(&mut self, id: JobId, _job: &Job) {
        self.queue.push_back(id);
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
    fn schedule(&mut self, ctx: &mut SchedCtx) {
        while let Some(&head) = self.queue.front() {
            if !ctx.try_start(head, None) {
                break;
            }
            self.queue.pop_front();
        }
    }
}
