//! Weighted fair share across tenants: each tenant's waiting jobs in arrival order; the
//! next job comes from the tenant whose running GPU share divided by its weight is the
//! smallest (ties by tenant index). A tenant whose first job does not fit is passed over
//! for the rest of the pass, so one tenant's big job does not block the others.
//!
//! Speed: per-tenant FIFO queues, the set of tenants with waiting jobs, and an ordered set
//! of those keyed by their weighted share; a pass costs O((s + W) log W) for s starts and
//! W tenants with waiting jobs (not all T tenants: a scan of 200,000 users' queues on every
//! pass took a trace of one job each a quarter of a minute).

use super::{QueuePolicy, SchedCtx};
use crate::model::{Job, JobId};
use ordered_float::OrderedFloat;
use std::collections::{BTreeSet, HashMap, VecDeque};

/// Weighted fair share.
#[derive(Debug, Default)]
pub struct FairShare {
    weights: Vec<f64>,
    queues: Vec<VecDeque<JobId>>,
    /// The tenants whose queue is not empty.
    waiting: BTreeSet<usize>,
    /// Milli-GPU held by each tenant's running jobs.
    held: Vec<u64>,
    running: HashMap<JobId, (u32, u64)>,
    len: usize,
}

impl FairShare {
    /// With a weight per tenant index (missing or non-positive weights count as 1).
    pub fn new(weights: Vec<f64>) -> FairShare {
        FairShare {
            weights,
            ..Default::default()
        }
    }

    fn share(&self, t: usize) -> OrderedFloat<f64> {
        let w = self
            .weights
            .get(t)
            .copied()
            .filter(|w| *w > 0.0)
            .unwrap_or(1.0);
        OrderedFloat(self.held[t] as f64 / w)
    }

    fn grow(&mut self, t: usize) {
        if self.queues.len() <= t {
            self.queues.resize_with(t + 1, VecDeque::new);
            self.held.resize(t + 1, 0);
        }
    }
}

impl QueuePolicy for FairShare {
    fn name(&self) -> &'static str {
        "fair_share"
    }
    fn push(&mut self, id: JobId, job: &Job) {
        let t = job.tenant as usize;
        self.grow(t);
        self.queues[t].push_back(id);
        self.waiting.insert(t);
        self.len += 1;
    }
    fn ended(&mut self, id: JobId, _job: &Job) {
        if let Some((t, m)) = self.running.remove(&id) {
            self.held[t as usize] -= m;
        }
    }
    fn len(&self) -> usize {
        self.len
    }
    fn schedule(&mut self, ctx: &mut SchedCtx) {
        let mut order: BTreeSet<(OrderedFloat<f64>, usize)> =
            self.waiting.iter().map(|&t| (self.share(t), t)).collect();
        while let Some((_, t)) = order.pop_first() {
            let Some(&id) = self.queues[t].front() else {
                continue;
            };
            if !ctx.try_start(id, None) {
                continue; // passed over for this pass
            }
            self.queues[t].pop_front();
            self.len -= 1;
            let m = ctx
                .running
                .get(id)
                .map(|r| r.alloc.gpus.iter().map(|s| s.milli as u64).sum::<u64>())
                .unwrap_or(0);
            self.held[t] += m;
            self.running.insert(id, (t as u32, m));
            if !self.queues[t].is_empty() {
                order.insert((self.share(t), t));
            } else {
                self.waiting.remove(&t);
            }
        }
    }
}
