//! Heterogeneity-aware placement by throughput per dollar (the idea of Gavel, Narayanan
//! et al., OSDI'20, in its simplest non-preemptive form): jobs go in arrival order, and
//! each starts in the eligible pool where its speed divided by the price of a GPU-hour is
//! highest among the pools where it fits now (ties by pool order; a free pool, price 0,
//! ranks first). The head blocks the queue, as in FIFO.
//!
//! Speed: without per-class speeds (no cloud model), a pool's value is its own, so a
//! job's ranking is one ranking of every pool, made once per pool choice (prices are
//! fixed while it lasts; a new price list names it anew), with the pools the job may not
//! use left out. The cluster indexes the pools in that ranking by what their free GPUs
//! could hold ([`crate::model::Cluster::add_search_order`]), so an attempt asks the placer
//! only in pools that may hold the job, found in O(groups x log pools) each, and a failed
//! attempt costs a few tree descents whatever the number of pools. With per-class speeds
//! (or a request of no GPUs) the job's eligible pools are ranked at each attempt, O(P log
//! P) for P pools, as before.

use super::{PoolChoice, QueuePolicy, SchedCtx};
use crate::model::{GpuRequest, Job, JobId};
use std::collections::VecDeque;

/// Throughput-per-dollar placement, FIFO order.
#[derive(Debug, Default)]
pub struct ThroughputPerDollar {
    queue: VecDeque<JobId>,
}

/// `job`'s speed per dollar in pool `p` (infinite where the price is zero or unknown).
fn value(pools: &PoolChoice, job: &Job, p: usize) -> f64 {
    let price = pools.gpu_hour_usd(p);
    if price <= 0.0 {
        f64::INFINITY
    } else {
        pools.speed_for(job, p) / price
    }
}

/// Pools eligible for `job`, best throughput per dollar first.
pub fn ranked_pools(ctx: &SchedCtx, job: &Job) -> Vec<usize> {
    let mut ps: Vec<usize> = ctx.pools.eligible(job).collect();
    ps.sort_by(|&a, &b| {
        value(ctx.pools, job, b)
            .total_cmp(&value(ctx.pools, job, a))
            .then(a.cmp(&b))
    });
    ps
}

/// Every pool, best throughput per dollar at the pool's own speed first, ties by pool
/// index: for a job without class speeds, [`ranked_pools`] is this with the pools it may
/// not use left out (the same total order over a subset).
fn ranking(pools: &PoolChoice, job: &Job) -> Vec<usize> {
    let mut ps: Vec<usize> = (0..pools.len()).collect();
    ps.sort_by(|&a, &b| {
        value(pools, job, b)
            .total_cmp(&value(pools, job, a))
            .then(a.cmp(&b))
    });
    ps
}

/// Starts `id` in its best-ranked pool where it fits, the pools found through the
/// cluster's index of [`ranking`] under `key`; false when it fits nowhere.
fn start_ranked(ctx: &mut SchedCtx, id: JobId, key: u64) -> bool {
    let jobs = ctx.jobs;
    let job = &jobs[id as usize];
    let mut after = None;
    loop {
        let next = ctx
            .cluster
            .next_fitting_in(key, after, job.gpus, |p| ctx.pools.allows(job, p));
        let Some(Some((pos, p))) = next else {
            return false;
        };
        if ctx.try_start_in(id, p) {
            return true;
        }
        after = Some(pos);
    }
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
        // The ranking's index carries the pool choice's name (new with new prices).
        let key = ctx.pools.order_key;
        let indexed = !ctx.pools.has_run_speeds();
        while let Some(&id) = self.queue.front() {
            let job = &ctx.jobs[id as usize];
            let started = if indexed && !matches!(job.gpus, GpuRequest::None | GpuRequest::Whole(0))
            {
                if !ctx.cluster.has_search_order(key) {
                    let order = ranking(ctx.pools, job);
                    ctx.cluster.add_search_order(key, &order);
                }
                start_ranked(ctx, id, key)
            } else {
                ranked_pools(ctx, job)
                    .into_iter()
                    .any(|p| ctx.try_start_in(id, p))
            };
            if !started {
                break;
            }
            self.queue.pop_front();
        }
    }
}
