//! Shortest remaining time first (preemptive SJF): waiting jobs in order of estimated
//! remaining work; when the shortest waiting job does not fit, running jobs whose
//! estimated remaining time is longer than its own are preempted, longest first, as long
//! as it takes to make room for it (none if they cannot). The head then blocks the
//! rest, as in SJF.
//!
//! A running job's remaining time is its planned end minus now, so the running set kept
//! per pool by planned end is already ordered by remaining time: finding victims walks it
//! from the latest end and stops at the first job that ends sooner than the head would.
//! Pools with no such job are skipped through [`LatestEnds`]: the pools in the pool
//! choice's order, grouped by what decides eligibility and the head's runtime there (GPU
//! type, spot or not, speed), under a max-tree of each pool's latest planned end, so the
//! next pool with a job that would outlast the head is found in O(groups x log pools),
//! not by a step per pool (pools whose latest end changed since are re-read first). A
//! pass costs O((s + v + 1) log n + (s + v + 1) x groups x log pools) for s starts and v
//! victims examined; with per-class speeds (a cloud model) the pools are walked instead.

use super::{Progress, QueuePolicy, SchedCtx, MAX_VICTIMS};
use crate::engine::SimTime;
use crate::model::{first_leaf_from, groups_in_order, Job, JobId};
use std::collections::BTreeSet;

/// Preemptive shortest remaining time first.
#[derive(Debug, Default)]
pub struct Srtf {
    queue: BTreeSet<(u64, u64, JobId)>,
    seq: u64,
    ends: LatestEnds,
}

/// One group of pools (same GPU type, spot or not, and speed) in the pool choice's
/// order, under a max-tree of their latest planned ends.
#[derive(Debug, Default)]
struct EndGroup {
    /// The group's first pool (any of its pools answers eligibility and speed for all).
    first: usize,
    /// Positions in the order, ascending, and the pool at each.
    pos: Vec<u32>,
    pools: Vec<u32>,
    /// Leaves (from `size`) and inner nodes (from 1): the latest planned end below.
    tree: Vec<SimTime>,
    size: usize,
}

impl EndGroup {
    /// The first leaf at or after `i` whose latest end is more than `dur` after `now`.
    fn first_from(&self, i: usize, now: SimTime, dur: u64) -> Option<usize> {
        first_leaf_from(self.size, self.pos.len(), i, |v| {
            self.tree[v].since(now).0 > dur
        })
    }

    fn set(&mut self, leaf: usize, t: SimTime) {
        let mut v = leaf + self.size;
        self.tree[v] = t;
        while v > 1 {
            v >>= 1;
            self.tree[v] = self.tree[2 * v].max(self.tree[2 * v + 1]);
        }
    }
}

/// Each pool's latest planned end, indexed in the pool choice's order (see the module
/// doc). A leaf is never below its pool's latest end: starts are read from the pass's
/// `started` list, and pools that lost a job are re-read before the next query.
#[derive(Debug, Default)]
struct LatestEnds {
    /// The pool choice's order key it was built for (0: not built).
    key: u64,
    groups: Vec<EndGroup>,
    /// Per pool: (group, leaf).
    at: Vec<(u32, u32)>,
    /// Per job id: the pool it was last seen starting in.
    pool_of: Vec<u32>,
    /// Pools to re-read.
    dirty: Vec<u32>,
    /// How much of the pass's `started` and `preempted` lists has been read.
    seen: (usize, usize),
}

impl LatestEnds {
    /// Builds the index for `ctx`'s pool choice when it is not the one built for.
    fn build(&mut self, ctx: &SchedCtx) {
        let key = ctx.pools.order_key;
        if self.key == key {
            return;
        }
        let n = ctx.pools.len();
        let (members, at) = groups_in_order(&ctx.pools.order, n, |p| {
            let (t, kind, speed) = ctx.pools.pools[p];
            (t, kind == crate::model::CapacityKind::Spot, speed.to_bits())
        });
        self.at = at.into_iter().map(|a| a.unwrap_or((0, 0))).collect();
        self.groups = members
            .into_iter()
            .map(|m| {
                let size = m.len().next_power_of_two();
                let mut g = EndGroup {
                    first: m[0].1,
                    pos: m.iter().map(|x| x.0).collect(),
                    pools: m.iter().map(|x| x.1 as u32).collect(),
                    tree: vec![SimTime::ZERO; 2 * size],
                    size,
                };
                for (leaf, &(_, p)) in m.iter().enumerate() {
                    g.tree[size + leaf] = latest_end(ctx, p);
                }
                for v in (1..size).rev() {
                    g.tree[v] = g.tree[2 * v].max(g.tree[2 * v + 1]);
                }
                g
            })
            .collect();
        self.key = key;
        self.dirty.clear();
    }

    /// Reads the pass's starts and preemptions since the last call, and re-reads the
    /// pools they and the jobs ended since changed.
    fn sync(&mut self, ctx: &SchedCtx) {
        for &id in &ctx.started[self.seen.0.min(ctx.started.len())..] {
            if let Some(r) = ctx.running.get(id) {
                let i = id as usize;
                if i >= self.pool_of.len() {
                    self.pool_of.resize(i + 1, u32::MAX);
                }
                self.pool_of[i] = r.alloc.pool;
                self.dirty.push(r.alloc.pool);
            }
        }
        for &id in &ctx.preempted[self.seen.1.min(ctx.preempted.len())..] {
            self.touch(id);
        }
        self.seen = (ctx.started.len(), ctx.preempted.len());
        if self.key != ctx.pools.order_key {
            self.dirty.clear();
            return;
        }
        for p in std::mem::take(&mut self.dirty) {
            let Some(&(g, leaf)) = self.at.get(p as usize) else {
                continue;
            };
            let t = latest_end(ctx, p as usize);
            self.groups[g as usize].set(leaf as usize, t);
        }
    }

    /// Job `id` left the running set: its pool is re-read before the next query.
    fn touch(&mut self, id: JobId) {
        if let Some(&p) = self.pool_of.get(id as usize) {
            if p != u32::MAX {
                self.dirty.push(p);
            }
        }
    }

    /// The first pool after position `after` of the order that `job` may use and where
    /// some running job ends more than `job`'s runtime there for `left` after now.
    fn next(
        &self,
        ctx: &SchedCtx,
        job: &Job,
        left: u64,
        after: Option<u32>,
    ) -> Option<(u32, usize)> {
        let mut best: Option<(u32, usize)> = None;
        for g in &self.groups {
            if !ctx.pools.allows(job, g.first) {
                continue;
            }
            let runtime = ctx.pools.runtime_for(job, SimTime(left), g.first).0;
            let from = after.map_or(0, |a| g.pos.partition_point(|&x| x <= a));
            if let Some(leaf) = g.first_from(from, ctx.now, runtime) {
                let pos = g.pos[leaf];
                if best.is_none_or(|b| pos < b.0) {
                    best = Some((pos, g.pools[leaf] as usize));
                }
            }
        }
        best
    }
}

/// Pool `p`'s latest planned end (zero with nothing running).
fn latest_end(ctx: &SchedCtx, p: usize) -> SimTime {
    ctx.running
        .latest_ends(p)
        .next()
        .map_or(SimTime::ZERO, |x| x.0)
}

impl Srtf {
    fn insert(&mut self, id: JobId, work: u64) {
        self.queue.insert((work, self.seq, id));
        self.seq += 1;
    }

    /// Running jobs whose remaining time is longer than `head` would take, per eligible
    /// pool in preference order, longest remaining first (at most `MAX_VICTIMS`).
    fn victims(&mut self, ctx: &SchedCtx, head: JobId, left: u64) -> Vec<JobId> {
        let job = &ctx.jobs[head as usize];
        let mut out = Vec::with_capacity(MAX_VICTIMS);
        let take = |p: usize, out: &mut Vec<JobId>| {
            let head_runtime = ctx.pools.runtime_for(job, SimTime(left), p).0;
            for (end, id) in ctx.running.latest_ends(p) {
                if end.since(ctx.now).0 <= head_runtime || out.len() >= MAX_VICTIMS {
                    break;
                }
                out.push(id);
            }
        };
        if ctx.pools.has_run_speeds() {
            for p in ctx.pools.eligible(job) {
                take(p, &mut out);
                if out.len() >= MAX_VICTIMS {
                    break;
                }
            }
            return out;
        }
        // Pools skipped here have no job that outlasts the head (none would be taken).
        self.ends.build(ctx);
        self.ends.sync(ctx);
        let mut after = None;
        while out.len() < MAX_VICTIMS {
            let Some((pos, p)) = self.ends.next(ctx, job, left, after) else {
                break;
            };
            take(p, &mut out);
            after = Some(pos);
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
    fn ended(&mut self, id: JobId, _job: &Job) {
        self.ends.touch(id);
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
    fn schedule(&mut self, ctx: &mut SchedCtx) {
        self.ends.seen = (ctx.started.len(), ctx.preempted.len());
        while let Some(&(left, seq, id)) = self.queue.first() {
            if ctx.try_start(id, None) {
                self.queue.pop_first();
                continue;
            }
            let victims = self.victims(ctx, id, left);
            if victims.is_empty() || !ctx.start_preempting(id, victims) {
                break;
            }
            self.queue.remove(&(left, seq, id));
        }
        self.ends.sync(ctx);
    }
}
