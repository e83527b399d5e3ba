//! Priority classes with preemption: waiting jobs in order of priority (higher first),
//! then arrival. When the first waiting job does not fit, running jobs of strictly lower
//! priority are preempted, lowest priority and most recently started first, if together
//! with the free capacity they cover its request; otherwise it waits and blocks the
//! jobs behind it (so a high class is never starved by lower ones).
//!
//! Speed: one ordered set of waiting jobs and one of running jobs by priority; a pass
//! costs O((s + v + 1) log n) for s starts and v victims examined.

use super::{QueuePolicy, SchedCtx};
use crate::model::{Job, JobId};
use std::collections::{BTreeSet, HashMap};

/// Priority classes, preemptive.
#[derive(Debug, Default)]
pub struct PriorityPreempt {
    /// (negated priority, arrival sequence, id).
    waiting: BTreeSet<(i64, u64, JobId)>,
    /// (priority, negated start sequence, id): the first entry is the first victim.
    running: BTreeSet<(i32, i64, JobId)>,
    running_key: HashMap<JobId, (i32, i64)>,
    seq: u64,
}

impl PriorityPreempt {
    fn make_room(&mut self, ctx: &mut SchedCtx, id: JobId) -> bool {
        let job = &ctx.jobs[id as usize];
        let need = job.gpus.milli();
        let eligible: Vec<usize> = ctx.pools.eligible(job).collect();
        let mut got: u64 = eligible
            .iter()
            .map(|&p| ctx.cluster.pool_free_milli(p))
            .sum();
        let mut victims = Vec::new();
        for &(prio, _, v) in &self.running {
            if prio >= job.priority || got >= need {
                break;
            }
            if let Some(r) = ctx.running.get(v) {
                if eligible.contains(&(r.alloc.pool as usize)) {
                    got += r.alloc.gpus.iter().map(|s| s.milli as u64).sum::<u64>();
                    victims.push(v);
                }
            }
        }
        if victims.is_empty() || got < need {
            return false;
        }
        for v in victims {
            if let Some((p, s)) = self.running_key.remove(&v) {
                self.running.remove(&(p, s, v));
            }
            ctx.preempt(v);
        }
        true
    }
}

impl QueuePolicy for PriorityPreempt {
    fn name(&self) -> &'static str {
        "priority"
    }
    fn push(&mut self, id: JobId, job: &Job) {
        self.waiting.insert((-(job.priority as i64), self.seq, id));
        self.seq += 1;
    }
    fn ended(&mut self, id: JobId, _job: &Job) {
        if let Some((p, s)) = self.running_key.remove(&id) {
            self.running.remove(&(p, s, id));
        }
    }
    fn len(&self) -> usize {
        self.waiting.len()
    }
    fn schedule(&mut self, ctx: &mut SchedCtx) {
        while let Some(&first) = self.waiting.first() {
            let id = first.2;
            let ok =
                ctx.try_start(id, None) || (self.make_room(ctx, id) && ctx.try_start(id, None));
            if !ok {
                break;
            }
            self.waiting.pop_first();
            let key = (ctx.jobs[id as usize].priority, -(self.seq as i64));
            self.seq += 1;
            self.running.insert((key.0, key.1, id));
            self.running_key.insert(id, key);
        }
    }
}
