//! Tiresias' discretized two-dimensional least-attained-service (Gu et al., NSDI'19).
//!
//! A job's attained service is the GPU-time it has received (GPUs x time run, summed over
//! its runs). Thresholds split jobs into K + 1 queues: a job is in queue i while its
//! attained service is between thresholds i - 1 and i. Lower queues go first; within a
//! queue, jobs go in arrival order. A running job that crosses a threshold is demoted and
//! may then be preempted by a waiting job of a higher queue. Starvation guard: a job that
//! has waited, since it was last stopped, more than `factor` times its total run time is
//! promoted to the top queue with its attained service counted from zero again.
//!
//! Speed: waiting jobs sit in one ordered set per queue; running jobs in one set ordered
//! by priority (victims come from its low end); threshold crossings and promotions are
//! timed in ordered sets and the policy asks the simulation to wake it at the next one.
//! A pass costs O((s + v + d + f) log n) for s starts, v victims, d demotions or
//! promotions and f failed placement attempts, which are capped at `SCAN_LIMIT` per pass:
//! past that many jobs that cannot start, the pass stops. Only the first job of a pass
//! that does not fit may preempt (at most `MAX_VICTIMS` victims, and only if that makes
//! it fit).

use super::{Progress, QueuePolicy, SchedCtx, MAX_VICTIMS};
use crate::engine::SimTime;
use crate::model::{Job, JobId};
use std::collections::{BTreeSet, HashMap};

const SCAN_LIMIT: usize = 16;
/// Most waiting jobs a pass looks at (jobs skipped because a smaller request of the
/// same kind already failed are cheap, but still bounded).
const VISIT_LIMIT: usize = 32;

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
    promotion_of: HashMap<JobId, SimTime>,
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
            promotion_of: HashMap::new(),
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
        if let Some(t) = self.promotion_of.remove(&id) {
            self.promotions.remove(&(t, id));
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
            self.promotion_of.remove(&id);
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

    /// Starts `id` (of queue `q`) by preempting running jobs of lower queues, lowest
    /// priority first, only as many as it takes.
    fn start_preempting(&mut self, ctx: &mut SchedCtx, id: JobId, q: u8) -> bool {
        let job = &ctx.jobs[id as usize];
        let victims: Vec<JobId> = self
            .running
            .iter()
            .rev()
            .take_while(|&&(vq, _, _)| vq > q)
            .map(|&(_, _, v)| v)
            .filter(|&v| {
                ctx.running
                    .get(v)
                    .is_some_and(|r| ctx.pools.allows(job, r.alloc.pool as usize))
            })
            .take(MAX_VICTIMS)
            .collect();
        if victims.is_empty() {
            return false;
        }
        let before = ctx.preempted.len();
        if !ctx.start_preempting(id, victims) {
            return false;
        }
        for i in before..ctx.preempted.len() {
            let v = ctx.preempted[i];
            self.untrack_running(v);
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
    fn stopped(&mut self, id: JobId, _job: &Job) {
        // Still alive: its attained service since a promotion stays as it is.
        self.untrack_running(id);
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
                let wait = (p.ran.0 as f64 * self.factor).ceil() as u64;
                self.promotions
                    .insert((stop.plus(SimTime(wait.max(1))), id));
            }
        }
        self.advance(ctx);
        let mut failures = 0;
        let mut visits = 0;
        let mut tried_preempt = false;
        let min_gpn = super::greedy::min_node_gpus(ctx);
        let mut failed: Vec<super::greedy::Shape> = Vec::new();
        let mut q = 0usize;
        let mut cursor: Option<(u64, JobId)> = None;
        while q < self.waiting.len() && failures < SCAN_LIMIT && visits < VISIT_LIMIT {
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
            visits += 1;
            let shape = super::greedy::shape_of(&ctx.jobs[id as usize]);
            if tried_preempt
                && failed
                    .iter()
                    .any(|f| super::greedy::dominated(f, &shape, min_gpn))
            {
                continue;
            }
            // Only the first job that does not fit may preempt, once per pass: this bounds
            // a pass's work and keeps a stream of preemptions from one crowded moment.
            let started = ctx.try_start(id, None)
                || (!tried_preempt && {
                    tried_preempt = true;
                    self.start_preempting(ctx, id, q as u8)
                });
            if started {
                self.dequeue(id, s);
                self.track_running(ctx, id);
            } else {
                failures += 1;
                failed.push(shape);
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
