//! Tiresias' discretized two-dimensional least-attained-service (Gu et al., NSDI'19).
//!
//! A job's attained service is the GPU-time it has received (GPUs x time run, summed over
//! its runs). Thresholds split jobs into K + 1 queues: a job is in queue i while its
//! attained service is between thresholds i - 1 and i. Lower queues go first; within a
//! queue, jobs go in arrival order. A running job that crosses a threshold is demoted and
//! may then be preempted by a waiting job of a higher queue. Starvation guard: a job that
//! has waited, since it was last stopped, more than `factor` times its last run is
//! promoted to the top queue with its attained service counted from zero again.
//!
//! Speed: waiting jobs sit in one ordered set per queue; running jobs in one set ordered
//! by priority (victims come from its low end); threshold crossings and promotions are
//! timed in ordered sets and the policy asks the simulation to wake it at the next one.
//! A pass costs O((s + v + d + f) log n) for s starts, v victims, d demotions or
//! promotions and f failed placement attempts, which are capped at `SCAN_LIMIT` per pass:
//! past that many jobs that cannot start even with preemption, the pass stops.

use super::{Progress, QueuePolicy, SchedCtx};
use crate::engine::SimTime;
use crate::model::{Job, JobId};
use std::collections::{BTreeSet, HashMap};

const SCAN_LIMIT: usize = 64;

/// Tiresias 2D-LAS.
#[derive(Debug)]
pub struct Tiresias {
    /// Thresholds in GPU-milliseconds, ascending.
    thresholds: Vec<u64>,
    factor: f64,
    waiting: Vec<BTreeSet<(u64, JobId)>>,
    waiting_q: HashMap<JobId, u8>,
    /// Running jobs as (queue, submit, id): the last entry has the lowest priority.
    running: BTreeSet<(u8, u64, JobId)>,
    running_q: HashMap<JobId, (u8, u64)>,
    /// (time, job) at which a running job crosses its next threshold.
    crossings: BTreeSet<(SimTime, JobId)>,
    crossing_of: HashMap<JobId, SimTime>,
    /// (time, job) at which a waiting job is promoted to the top queue.
    promotions: BTreeSet<(SimTime, JobId)>,
    /// Attained service (GPU-ms) not counted after a promotion.
    base: HashMap<JobId, u64>,
    /// Requeued jobs with their progress, waiting for the next pass to be placed.
    inbox: Vec<(JobId, Progress)>,
    len: usize,
}

impl Tiresias {
    /// With thresholds in GPU-seconds (ascending) and the starvation factor.
    pub fn new(thresholds_gpu_s: Vec<u64>, factor: f64) -> Tiresias {
        let mut t: Vec<u64> = thresholds_gpu_s.iter().map(|s| s * 1000).collect();
        t.sort_unstable();
        t.dedup();
        let k = t.len() + 1;
        Tiresias {
            thresholds: t,
            factor,
            waiting: vec![BTreeSet::new(); k],
            waiting_q: HashMap::new(),
            running: BTreeSet::new(),
            running_q: HashMap::new(),
            crossings: BTreeSet::new(),
            crossing_of: HashMap::new(),
            promotions: BTreeSet::new(),
            base: HashMap::new(),
            inbox: Vec::new(),
            len: 0,
        }
    }

    fn queue_of(&self, attained: u64) -> u8 {
        self.thresholds
            .iter()
            .take_while(|&&t| attained >= t)
            .count() as u8
    }

    fn enqueue(&mut self, id: JobId, submit: u64, q: u8) {
        self.waiting[q as usize].insert((submit, id));
        self.waiting_q.insert(id, q);
    }

    fn attained(&self, ctx: &SchedCtx, id: JobId) -> u64 {
        let p = ctx.progress.get(id as usize).copied().unwrap_or_default();
        let mut a = p.attained_gpu_ms;
        if let Some(r) = ctx.running.get(id) {
            let milli = ctx.jobs[id as usize].gpus.milli();
            a += milli * ctx.now.since(r.start).0 / 1000;
        }
        a.saturating_sub(self.base.get(&id).copied().unwrap_or(0))
    }

    /// Records a started job and times its next threshold crossing.
    fn track_running(&mut self, ctx: &mut SchedCtx, id: JobId) {
        let job = &ctx.jobs[id as usize];
        let a = self.attained(ctx, id);
        let q = self.queue_of(a);
        self.running.insert((q, job.submit.0, id));
        self.running_q.insert(id, (q, job.submit.0));
        self.time_crossing(ctx, id, a, q);
    }

    fn time_crossing(&mut self, ctx: &mut SchedCtx, id: JobId, attained: u64, q: u8) {
        let milli = ctx.jobs[id as usize].gpus.milli();
        if let (Some(&t), true) = (self.thresholds.get(q as usize), milli > 0) {
            let ms = (t - attained.min(t)).saturating_mul(1000).div_ceil(milli);
            let when = ctx.now.plus(SimTime(ms.max(1)));
            self.crossings.insert((when, id));
            self.crossing_of.insert(id, when);
        }
    }

    fn untrack_running(&mut self, id: JobId) {
        if let Some((q, s)) = self.running_q.remove(&id) {
            self.running.remove(&(q, s, id));
        }
        if let Some(t) = self.crossing_of.remove(&id) {
            self.crossings.remove(&(t, id));
        }
    }

    fn dequeue(&mut self, id: JobId, submit: u64) {
        if let Some(q) = self.waiting_q.remove(&id) {
            self.waiting[q as usize].remove(&(submit, id));
        }
        self.len -= 1;
    }

    /// Applies demotions and promotions due by now.
    fn advance(&mut self, ctx: &mut SchedCtx) {
        while let Some(&(t, id)) = self.crossings.first() {
            if t > ctx.now {
                break;
            }
            self.crossings.pop_first();
            self.crossing_of.remove(&id);
            if let Some((q, s)) = self.running_q.get(&id).copied() {
                self.running.remove(&(q, s, id));
                let a = self.attained(ctx, id);
                let nq = self.queue_of(a).max(q + 1).min(self.thresholds.len() as u8);
                self.running.insert((nq, s, id));
                self.running_q.insert(id, (nq, s));
                self.time_crossing(ctx, id, a, nq);
            }
        }
        while let Some(&(t, id)) = self.promotions.first() {
            if t > ctx.now {
                break;
            }
            self.promotions.pop_first();
            if let Some(q) = self.waiting_q.get(&id).copied() {
                if q > 0 {
                    let s = ctx.jobs[id as usize].submit.0;
                    self.waiting[q as usize].remove(&(s, id));
                    self.enqueue(id, s, 0);
                    let p = ctx.progress.get(id as usize).copied().unwrap_or_default();
                    self.base.insert(id, p.attained_gpu_ms);
                }
            }
        }
    }

    /// Preempts running jobs of lower queues than `q` (lowest priority first) if, with
    /// the free capacity, they cover `id`'s request in its eligible pools.
    fn make_room(&mut self, ctx: &mut SchedCtx, id: JobId, q: u8) -> bool {
        let job = &ctx.jobs[id as usize];
        let need = job.gpus.milli();
        let eligible: Vec<usize> = ctx.pools.eligible(job).collect();
        let mut got: u64 = eligible
            .iter()
            .map(|&p| ctx.cluster.pool_free_milli(p))
            .sum();
        let mut victims = Vec::new();
        for &(vq, _, v) in self.running.iter().rev() {
            if vq <= q || got >= need {
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
            self.untrack_running(v);
            ctx.preempt(v);
        }
        true
    }
}

impl QueuePolicy for Tiresias {
    fn name(&self) -> &'static str {
        "tiresias"
    }
    fn push(&mut self, id: JobId, job: &Job) {
        self.enqueue(id, job.submit.0, 0);
        self.len += 1;
    }
    fn requeue(&mut self, id: JobId, _job: &Job, p: &Progress) {
        // Placed into its queue at the next pass, where attained service can be read.
        self.inbox.push((id, *p));
        self.len += 1;
    }
    fn ended(&mut self, id: JobId, _job: &Job) {
        self.untrack_running(id);
        self.base.remove(&id);
    }
    fn len(&self) -> usize {
        self.len
    }
    fn schedule(&mut self, ctx: &mut SchedCtx) {
        for (id, p) in std::mem::take(&mut self.inbox) {
            let a = p
                .attained_gpu_ms
                .saturating_sub(self.base.get(&id).copied().unwrap_or(0));
            let q = self.queue_of(a);
            self.enqueue(id, ctx.jobs[id as usize].submit.0, q);
            if q > 0 {
                let stop = p.last_stop.unwrap_or(ctx.now);
                let wait = (p.last_run.0 as f64 * self.factor).ceil() as u64;
                self.promotions
                    .insert((stop.plus(SimTime(wait.max(1))), id));
            }
        }
        self.advance(ctx);
        let mut failures = 0;
        let mut q = 0usize;
        let mut cursor: Option<(u64, JobId)> = None;
        while q < self.waiting.len() && failures < SCAN_LIMIT {
            let next = match cursor {
                None => self.waiting[q].first().copied(),
                Some(c) => self.waiting[q]
                    .range((std::ops::Bound::Excluded(c), std::ops::Bound::Unbounded))
                    .next()
                    .copied(),
            };
            let Some((s, id)) = next else {
                q += 1;
                cursor = None;
                continue;
            };
            cursor = Some((s, id));
            let started = ctx.try_start(id, None)
                || (self.make_room(ctx, id, q as u8) && ctx.try_start(id, None));
            if started {
                self.dequeue(id, s);
                self.track_running(ctx, id);
            } else {
                failures += 1;
            }
        }
        let next = [self.crossings.first(), self.promotions.first()]
            .into_iter()
            .flatten()
            .map(|&(t, _)| t)
            .min();
        if let Some(t) = next {
            ctx.wake_at(t);
        }
    }
}
