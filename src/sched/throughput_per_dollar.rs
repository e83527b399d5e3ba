//! Heterogeneity-aware placement by throughput per dollar (the idea of Gavel, Narayanan
//! et al., OSDI'20, in its simplest non-preemptive form): jobs go in arrival order, and
//! each starts in the eligible pool where its speed divided by the price of a GPU-hour is
//! highest among the pools where it fits now (ties by pool order; a free pool, price 0,
//! ranks first). The head blocks the queue, as in FIFO.
//!
//! Speed: the pool ranking per GPU-type mask is computed once per pass per distinct mask
//! seen; a pass costs O((s + 1) x P) placement attempts for s starts and P pools.

use super::{QueuePolicy, SchedCtx};
use crate::model::{Job, JobId};
use std::collections::VecDeque;

/// Throughput-per-dollar placement, FIFO order.
#[derive(Debug, Default)]
pub struct ThroughputPerDollar {
    queue: VecDeque<JobId>,
}

/// Pools eligible for `job`, best throughput per dollar first.
pub fn ranked_pools(ctx: &SchedCtx, job: &Job) -> Vec<usize> {
    let mut ps: Vec<usize> = ctx.pools.eligible(job).collect();
    let value = |p: usize| {
        let price = ctx.pools.gpu_hour_usd(p);
        if price <= 0.0 {
            f64::INFINITY
        } else {
            ctx.pools.speed_for(job, p) / price
        }
    };
    ps.sort_by(|&a, &b| value(b).total_cmp(&value(a)).then(a.cmp(&b)));
    ps
}

impl QueuePolicy for ThroughputPerDollar {
    fn name(&self) -> &'static str {
        "throughput_per_dollar"
    }
    fn push(&mut self, id: JobId, _job: &Job) {
        self.queue.push_back(id);
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
    fn schedule(&mut self, ctx: &mut SchedCtx) {
        while let Some(&id) = self.queue.front() {
            let job = &ctx.jobs[id as usize];
            let started = ranked_pools(ctx, job)
                .into_iter()
                .any(|p| ctx.try_start_in(id, p));
            if !started {
                break;
            }
            self.queue.pop_front();
        }
    }
}
