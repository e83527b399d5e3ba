//! Conservative backfill (Mu'alem & Feitelson, 2001): every waiting job, in arrival
//! order, gets a reservation at the earliest time it fits in the profile of future free
//! capacity (from the running jobs' planned ends) without moving any earlier job's
//! reservation; a job starts now when its reservation is now. Unlike EASY, no job can be
//! delayed by a later one, not only the head.
//!
//! Two bounds keep a pass cheap with tens of thousands waiting, as production
//! schedulers do (Slurm's `bf_max_job_test`): only the first `DEPTH` waiting jobs get
//! reservations in a pass (the rest wait their turn), and the profile counts whole free
//! GPUs per pool rather than their layout on nodes. A job whose reservation is now but
//! which does not fit the actual nodes (fragmentation) keeps its reservation and waits.
//! A pass costs O(DEPTH x (R + DEPTH)) for R running jobs, independent of the queue length.

use super::{Progress, QueuePolicy, SchedCtx};
use crate::engine::SimTime;
use crate::model::{GpuRequest, Job, JobId, MILLI_PER_GPU};
use std::collections::VecDeque;

/// Waiting jobs that get a reservation in one pass.
pub const DEPTH: usize = 32;

/// Conservative backfill.
#[derive(Debug, Default)]
pub struct ConservativeBackfill {
    queue: VecDeque<JobId>,
}

/// Free whole GPUs of one pool over time: `(from, free)` steps, times increasing.
struct Profile(Vec<(SimTime, i64)>);

impl Profile {
    /// The earliest start at or after the first step where `need` GPUs stay free for `d`.
    fn earliest(&self, need: i64, d: SimTime) -> Option<SimTime> {
        let s = &self.0;
        'outer: for i in 0..s.len() {
            if s[i].1 < need {
                continue;
            }
            let end = s[i].0.plus(d);
            for step in &s[i + 1..] {
                if step.0 >= end {
                    break;
                }
                if step.1 < need {
                    continue 'outer;
                }
            }
            return Some(s[i].0);
        }
        None
    }

    /// Takes `need` GPUs over `[t, t + d)`.
    fn reserve(&mut self, t: SimTime, need: i64, d: SimTime) {
        let end = t.plus(d);
        for at in [t, end] {
            if let Err(pos) = self.0.binary_search_by_key(&at, |x| x.0) {
                let before = if pos == 0 { 0 } else { self.0[pos - 1].1 };
                self.0.insert(pos, (at, before));
            }
        }
        for step in self.0.iter_mut() {
            if step.0 >= t && step.0 < end {
                step.1 -= need;
            }
        }
    }
}

/// Whole GPUs a job takes in a pool with `gpn` GPUs per node.
fn gpus_needed(req: GpuRequest, gpn: u64) -> i64 {
    match req {
        GpuRequest::None => 0,
        GpuRequest::Fraction(_) => 1,
        GpuRequest::Whole(w) if w as u64 > gpn => ((w as u64).div_ceil(gpn.max(1)) * gpn) as i64,
        GpuRequest::Whole(w) => w as i64,
    }
}

impl ConservativeBackfill {
    fn profiles(ctx: &SchedCtx) -> Vec<Profile> {
        (0..ctx.pools.len())
            .map(|p| {
                let mut steps = vec![(ctx.now, ctx.cluster.pool_free_whole_gpus(p) as i64)];
                for (end, id) in ctx.running.by_planned_end(p) {
                    let Some(r) = ctx.running.get(id) else {
                        continue;
                    };
                    let g: u64 = r.alloc.gpus.iter().map(|s| s.milli as u64).sum();
                    let g = (g / MILLI_PER_GPU as u64) as i64;
                    let at = end.max(ctx.now);
                    let last = steps.last().map_or(0, |x| x.1);
                    match steps.last_mut() {
                        Some(l) if l.0 == at => l.1 += g,
                        _ => steps.push((at, last + g)),
                    }
                }
                Profile(steps)
            })
            .collect()
    }
}

impl QueuePolicy for ConservativeBackfill {
    fn name(&self) -> &'static str {
        "conservative_backfill"
    }
    fn push(&mut self, id: JobId, _job: &Job) {
        self.queue.push_back(id);
    }
    fn requeue(&mut self, id: JobId, _job: &Job, _p: &Progress) {
        self.queue.push_front(id);
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
    fn schedule(&mut self, ctx: &mut SchedCtx) {
        let mut prof = Self::profiles(ctx);
        let mut i = 0;
        let mut seen = 0;
        while i < self.queue.len() && seen < DEPTH {
            seen += 1;
            let id = self.queue[i];
            let job = &ctx.jobs[id as usize];
            let work = ctx.planned_remaining(id);
            let mut best: Option<(SimTime, usize, i64, SimTime)> = None;
            for p in ctx.pools.eligible(job) {
                let gpn = ctx.cluster.pools()[p].spec.node.gpus as u64;
                let need = gpus_needed(job.gpus, gpn);
                let d = ctx.pools.runtime_for(job, work, p);
                if let Some(t) = prof[p].earliest(need, d) {
                    if best.is_none_or(|b| t < b.0) {
                        best = Some((t, p, need, d));
                    }
                }
            }
            let Some((t, p, need, d)) = best else {
                i += 1;
                continue;
            };
            if t == ctx.now && ctx.try_start_in(id, p) {
                self.queue.remove(i);
            } else {
                i += 1;
            }
            prof[p].reserve(t, need, d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_finds_holes_that_last() {
        // 2 free now, 6 from 10, 8 from 20.
        let mut p = Profile(vec![(SimTime(0), 2), (SimTime(10), 6), (SimTime(20), 8)]);
        assert_eq!(p.earliest(2, SimTime(100)), Some(SimTime(0)));
        assert_eq!(p.earliest(4, SimTime(5)), Some(SimTime(10)));
        p.reserve(SimTime(10), 4, SimTime(5)); // 2 free over [10, 15)
        assert_eq!(p.earliest(4, SimTime(5)), Some(SimTime(15)));
        assert_eq!(p.earliest(9, SimTime(1)), None);
        assert_eq!(
            p.0,
            vec![
                (SimTime(0), 2),
                (SimTime(10), 2),
                (SimTime(15), 6),
                (SimTime(20), 8)
            ]
        );
    }
}
