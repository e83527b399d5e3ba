//! Weighted fair share across tenants: each tenant's waiting jobs in arrival order; the
//! next job comes from the tenant whose running GPU share divided by its weight is the
//! smallest (ties by tenant index). A tenant whose first job does not fit is passed over
//! for the rest of the pass, so one tenant's big job does not block the others.
//!
//! Speed: per-tenant FIFO queues; the waiting tenants are kept, across passes, in groups
//! by the exact shape of their first job (GPUs, allowed types, preemptible, CPU, memory),
//! each group ordered by weighted share, and the groups' first tenants in one ordered
//! set, kept as tenants come and go. A pass walks that set from the smallest share.
//! Within a pass free capacity only shrinks, so once a group's first job does not fit,
//! no job of that shape fits: the whole group is passed over at once; and once no
//! waiting request could fit any pool's free GPUs (`needs.rs`), the pass ends. A pass
//! costs O((c + s) log W) for the c groups it passes over, s starts and W waiting
//! tenants (not W attempts: 200,000 tenants with a job waiting each, in overload, tried
//! every one on every event and took hours; nor every shape: 60,000 tenants whose jobs
//! each asked for their own memory took minutes). Where a fit depends on more than the
//! shape (pools ranked by data or prices in time, spending caps), each tenant is tried on
//! its own, as before.

use super::greedy::{shape_of, Shape};
use super::needs::LiveNeeds;
use super::{QueuePolicy, SchedCtx};
use crate::model::{GpuRequest, Job, JobId};
use ordered_float::OrderedFloat;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::ops::Bound;

/// A waiting tenant's place: its weighted share, then its index.
type Key = (OrderedFloat<f64>, usize);

/// Weighted fair share.
#[derive(Debug, Default)]
pub struct FairShare {
    weights: Vec<f64>,
    queues: Vec<VecDeque<JobId>>,
    /// Per tenant: where it waits (its key and its first job's shape group), if it does.
    at: Vec<Option<(Key, usize)>>,
    /// Waiting tenants by the shape of their first job, each group by share.
    groups: Vec<BTreeSet<Key>>,
    /// Each group's GPU request.
    requests: Vec<GpuRequest>,
    /// Each group with a tenant waiting, at its first tenant's key (a pass walks these).
    heads: BTreeSet<(Key, usize)>,
    /// The requests of the groups with a tenant waiting.
    needs: LiveNeeds,
    shapes: HashMap<Shape, usize>,
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
            self.at.resize(t + 1, None);
        }
    }

    fn group_of(&mut self, job: &Job) -> usize {
        let n = self.groups.len();
        let g = *self.shapes.entry(shape_of(job)).or_insert(n);
        if g == n {
            self.groups.push(BTreeSet::new());
            self.requests.push(job.gpus);
        }
        g
    }

    /// Takes tenant `t` out of its group (if it waits).
    fn leave(&mut self, t: usize) {
        if let Some((k, g)) = self.at[t].take() {
            let group = &mut self.groups[g];
            let was_first = group.first() == Some(&k);
            group.remove(&k);
            if was_first {
                self.heads.remove(&(k, g));
                match group.first() {
                    Some(&k2) => {
                        self.heads.insert((k2, g));
                    }
                    None => self.needs.remove(self.requests[g]),
                }
            }
        }
    }

    /// Puts tenant `t` into group `g` at its current share; returns its key.
    fn place(&mut self, t: usize, g: usize) -> Key {
        let k = (self.share(t), t);
        let group = &mut self.groups[g];
        match group.first() {
            None => self.needs.add(self.requests[g]),
            Some(&old) if k < old => {
                self.heads.remove(&(old, g));
            }
            Some(_) => {}
        }
        group.insert(k);
        if group.first() == Some(&k) {
            self.heads.insert((k, g));
        }
        self.at[t] = Some((k, g));
        k
    }

    /// Puts tenant `t` (with a waiting first job) into the group of that job's shape at
    /// its current share.
    fn enter(&mut self, t: usize, jobs: &[Job]) {
        if let Some(&id) = self.queues[t].front() {
            let g = self.group_of(&jobs[id as usize]);
            self.place(t, g);
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
        self.len += 1;
        if self.at[t].is_none() {
            let g = self.group_of(job);
            self.place(t, g);
        }
    }
    fn ended(&mut self, id: JobId, _job: &Job) {
        if let Some((t, m)) = self.running.remove(&id) {
            let t = t as usize;
            self.held[t] -= m;
            // A waiting tenant's share fell: its place in its group moves.
            if let Some((_, g)) = self.at[t] {
                self.leave(t);
                self.place(t, g);
            }
        }
    }
    fn len(&self) -> usize {
        self.len
    }
    fn schedule(&mut self, ctx: &mut SchedCtx) {
        // Whether a failed first job means its whole shape fails for the rest of the pass.
        let by_shape = ctx.fit_ignores_time() && ctx.budget.uncapped();
        // The groups whose first job failed in this pass.
        let mut failed: HashSet<usize> = HashSet::new();
        let mut passed_over: Vec<usize> = Vec::new();
        // The groups' first tenants are taken in key order: what a pass changes (a
        // started tenant's share grows, the next tenant of a group) sorts at or after
        // the one just taken, so one walk from the front reaches it.
        let mut from = Bound::Unbounded;
        // Free capacity only shrinks within a pass: once no waiting request could fit
        // anywhere, the rest of the groups would all fail.
        let mut room = !by_shape || !self.needs.none_fits(ctx.cluster);
        while room {
            let Some(&(k, g)) = self.heads.range((from, Bound::Unbounded)).next() else {
                break;
            };
            from = Bound::Excluded((k, g));
            if failed.contains(&g) {
                continue;
            }
            let t = k.1;
            let id = self.queues[t][0];
            if !ctx.try_start(id, None) {
                if by_shape {
                    failed.insert(g);
                } else {
                    // Passed over for this pass; the group's next tenant comes up.
                    self.leave(t);
                    passed_over.push(t);
                }
                continue;
            }
            self.leave(t);
            self.queues[t].pop_front();
            self.len -= 1;
            let m = ctx
                .running
                .get(id)
                .map(|r| r.alloc.gpus.iter().map(|s| s.milli as u64).sum::<u64>())
                .unwrap_or(0);
            self.held[t] += m;
            self.running.insert(id, (t as u32, m));
            self.enter(t, ctx.jobs);
            // The tenant's next job may sit at the same key (a share that did not grow,
            // under an infinite weight), in a group before `g`.
            from = Bound::Included((k, 0));
            room = !by_shape || !self.needs.none_fits(ctx.cluster);
        }
        for t in passed_over {
            self.enter(t, ctx.jobs);
        }
    }
}
