//! The core's job lifecycle: arrivals, scheduling passes, starting runs, and the one
//! `stop_run` behind every way a run ends (completion, preemption, a kill, the horizon),
//! which tells each part what happened.

use super::faults::{NodeChange, Strike};
use super::progress::{RunStart, Stop};
use super::{Event, Simulation};
use crate::engine::SimTime;
use crate::model::JobId;
use crate::sched::{RunningJob, SchedCtx};

impl Simulation<'_> {
    pub(super) fn arrive(&mut self, id: JobId, t: SimTime) {
        let job = &self.workload.jobs[id as usize];
        let placeable = self.pools.eligible(job).any(|p| {
            self.cluster
                .nodes_needed(p, job.gpus, job.cpu_milli, job.mem_mib)
                .is_some()
        });
        self.acct.submitted(id, t, placeable);
        if placeable {
            self.policy.push(id, job);
            self.queued(id, t);
        }
    }

    /// Job `id` joined the queue (arrival or requeue) at `t`.
    fn queued(&mut self, id: JobId, t: SimTime) {
        if let Some(e) = self.elastic.as_mut() {
            let job = &self.workload.jobs[id as usize];
            if self.pools.ranks_per_job() {
                // Demand goes where the data-aware order would run the job.
                let data = self.cloud.as_ref().and_then(|c| c.state());
                let ranked = self.pools.ranked_by_cost(job, job.planned_work(), t, data);
                e.queued(id, job, t, ranked.into_iter().map(|x| x.0), &self.cluster);
            } else {
                e.queued(id, job, t, self.pools.eligible(job), &self.cluster);
            }
        }
    }

    pub(super) fn pass(&mut self, t: SimTime) {
        self.pass_once(t);
        if !self.preempted.is_empty() {
            self.requeue_preempted(t);
            self.pass_once(t);
            self.requeue_preempted(t);
        }
        if let Some(w) = self.wake.request.take() {
            if self.wake.pending.is_none_or(|p| w < p || p <= t) {
                self.wake.gen = self.wake.gen.wrapping_add(1);
                self.wake.pending = Some(w);
                self.queue.schedule(w, Event::Wake { gen: self.wake.gen });
            }
        }
        if let Some(e) = self.elastic.as_mut() {
            if self.budget.uncapped() {
                e.autoscale(t, &self.cluster, &mut self.queue, None);
            } else {
                // What a start would commit at the least (the scheduler's own check adds a
                // data wait and a spread's slowdown): a job this refuses cannot start there.
                let (jobs, progress) = (&self.workload.jobs, self.progress.table());
                let (pools, budget) = (&self.pools, &self.budget);
                let refused = |id: JobId, p: usize| {
                    let job = &jobs[id as usize];
                    let pr = progress.get(id as usize).copied().unwrap_or_default();
                    let work = SimTime(pr.left_of(job.planned_work()).0.max(1));
                    let run = pools.runtime_for(job, work, p);
                    !budget.allows(job.tenant, pools.commitment(p, job.gpus.milli(), run))
                };
                e.autoscale(t, &self.cluster, &mut self.queue, Some(&refused));
            }
        }
    }

    fn pass_once(&mut self, t: SimTime) {
        self.started.clear();
        let mut wake = None;
        let mut ctx = SchedCtx {
            now: t,
            jobs: &self.workload.jobs,
            cluster: &mut self.cluster,
            placer: &self.placer,
            running: &mut self.running,
            pools: &self.pools,
            started: &mut self.started,
            progress: self.progress.table(),
            preempted: &mut self.preempted,
            wake: &mut wake,
            budget: &mut self.budget,
            data: self.cloud.as_ref().and_then(|c| c.state()),
            locality_wake: std::cell::Cell::new(None),
            scratch: &mut self.preempt_scratch,
        };
        self.policy.schedule(&mut ctx);
        let locality = ctx.locality_wake.get();
        let wake = match (wake, locality) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(w) = wake {
            self.wake.request = Some(self.wake.request.map_or(w, |x: SimTime| x.min(w)));
        }
        for (id, run) in self.running.take_stopped() {
            if self.running.get(id).is_none() {
                if let Some(i) = self.started.iter().position(|&s| s == id) {
                    // Started and preempted within this pass: the run never ran.
                    self.started.remove(i);
                    continue;
                }
            }
            self.stop_run(id, run, t, Stop::Preempted);
        }
        for i in 0..self.started.len() {
            self.start_run(self.started[i], t);
        }
    }

    /// Accounts for the start of job `id`'s run (already placed by the policy) at `t` and
    /// schedules its end.
    fn start_run(&mut self, id: JobId, t: SimTime) {
        let Some(run) = self.running.get(id) else {
            return;
        };
        let job = &self.workload.jobs[id as usize];
        let p = run.alloc.pool as usize;
        let milli: u64 = run.alloc.gpus.iter().map(|s| s.milli as u64).sum();
        let nodes = run.alloc.hosts.len() as u32;
        if let Some(e) = self.elastic.as_mut() {
            e.started(id, &run.alloc);
        }
        if let Some(f) = self.faults.as_mut() {
            f.run_started(id, &run.alloc);
        }
        let (speed, spread) = super::cloud::run_speed(&self.pools, job, &run.alloc, &self.cluster);
        let staging = match self.cloud.as_mut() {
            Some(c) => c.run_started(id, job, &run.alloc, t, spread, speed),
            None => SimTime::ZERO,
        };
        let rec = self.acct.record(id);
        let restart = rec.restarts + rec.preemptions > 0;
        let start = RunStart {
            work: job.work,
            pool: p,
            gpus: run.alloc.gpus.iter().map(|s| s.milli as f64).sum::<f64>() / 1000.0,
            nodes: run.alloc.hosts.len(),
            restart,
            previous_pool: rec.pool.map(|q| q as usize).filter(|_| restart),
            tenant: job.tenant,
            speed,
        };
        let runtime = self.progress.start(id, &start);
        self.acct.started(id, t, p, milli, nodes);
        let gen = self.progress.gen(id);
        self.queue.schedule(
            t.plus(staging).plus(runtime),
            Event::JobEnd { job: id, gen },
        );
    }

    /// Accounts for job `id`'s `run`, no longer running, that stops at `t` for `why`: its
    /// GPU-time, the work it keeps, where its time went, and the parts' bookkeeping. The
    /// caller has given its capacity back (except at the horizon) and decides what
    /// becomes of the job.
    pub(super) fn stop_run(&mut self, id: JobId, run: RunningJob, t: SimTime, why: Stop) {
        let release = why != Stop::Horizon;
        if release {
            if let Some(e) = self.elastic.as_mut() {
                e.freed(&run.alloc, t, &mut self.queue);
            }
        }
        if let Some(f) = self.faults.as_mut() {
            f.run_ended(id, &run.alloc);
        }
        let job = &self.workload.jobs[id as usize];
        let p = run.alloc.pool as usize;
        let held = t.since(run.start);
        let (speed, _) = super::cloud::run_speed(&self.pools, job, &run.alloc, &self.cluster);
        // The run computed only after its data was staged.
        let staged = self
            .cloud
            .as_mut()
            .map_or(SimTime::ZERO, |c| c.run_stopped(id));
        let times = self
            .progress
            .stop(id, job, why, held.since(staged), t, speed);
        let milli = self
            .acct
            .run_ended(id, job.tenant, p, held, release, &times);
        if let Some(c) = self.commitments.as_mut() {
            c.run_ended(id, p, run.start, t, milli);
        }
        match why {
            Stop::Completed => self.acct.completed(id, t),
            Stop::Preempted => self.acct.preempted(id, p, milli, run.start, t),
            Stop::Killed { .. } | Stop::Horizon => {}
        }
    }

    fn requeue_preempted(&mut self, t: SimTime) {
        for id in std::mem::take(&mut self.preempted) {
            self.requeue(id, t);
        }
    }

    /// Hands job `id` back to the policy with its progress.
    fn requeue(&mut self, id: JobId, t: SimTime) {
        let job = &self.workload.jobs[id as usize];
        self.policy.requeue(id, job, &self.progress.of(id));
        self.queued(id, t);
    }

    pub(super) fn end_job(&mut self, id: JobId, t: SimTime) {
        let Some(run) = self.running.remove(id) else {
            return;
        };
        if t < run.planned_end {
            self.policy.invalidate();
        }
        self.policy.ended(id, &self.workload.jobs[id as usize]);
        self.cluster.give_back(&run.alloc);
        self.stop_run(id, run, t, Stop::Completed);
    }

    /// Kills running job `id` at `t`: it keeps its work up to its last checkpoint (all of
    /// it with `keep_all`, when it could checkpoint first), then requeues or, past its
    /// retry limit, fails. Returns false if it was not running.
    pub(super) fn kill_job(&mut self, id: JobId, t: SimTime, keep_all: bool) -> bool {
        let Some(run) = self.running.remove(id) else {
            return false;
        };
        self.policy.invalidate();
        let job = &self.workload.jobs[id as usize];
        self.policy.stopped(id, job);
        self.cluster.give_back(&run.alloc);
        self.stop_run(id, run, t, Stop::Killed { keep_all });
        if self.acct.killed(id, t, self.progress.max_retries()) {
            self.requeue(id, t);
        } else {
            self.policy.ended(id, job);
        }
        true
    }

    /// Carries out what a fault event strikes, node by node.
    pub(super) fn apply_strike(&mut self, s: Strike, t: SimTime) {
        for node in s.nodes.clone() {
            if let Some(k) = &s.kill {
                let jobs = self
                    .faults
                    .as_ref()
                    .map(|f| f.jobs_on(node).to_vec())
                    .unwrap_or_default();
                let mut killed = 0;
                for id in jobs {
                    if self.kill_job(id, t, k.keep_all) {
                        killed += 1;
                    }
                }
                if let Some(f) = self.faults.as_mut() {
                    f.count_interruptions(&k.cause, killed);
                }
            }
            match s.change {
                NodeChange::Down => self.take_down(node, t, s.reclaim),
                NodeChange::Up => self.bring_up(node, t),
                NodeChange::Same => {}
            }
        }
        for (at, ev) in s.then.into_iter().flatten() {
            self.queue.schedule(at, Event::Fault(ev));
        }
    }

    fn take_down(&mut self, node: u32, t: SimTime, reclaim: Option<SimTime>) {
        if self
            .faults
            .as_mut()
            .is_some_and(|f| f.take_down(node, t, reclaim))
        {
            self.cluster.set_up(node, false);
            self.policy.invalidate();
        }
    }

    fn bring_up(&mut self, node: u32, t: SimTime) {
        let pool = self.cluster.pool_of(node) as usize;
        if self
            .faults
            .as_mut()
            .is_some_and(|f| f.bring_up(node, pool, t))
        {
            // An elastic pool's node that is not held, or a node outside its commitment's
            // window, stays down.
            if self.elastic.as_ref().is_none_or(|e| e.holds(node))
                && self.commitments.as_ref().is_none_or(|c| c.is_open(node))
            {
                self.cluster.set_up(node, true);
            }
            self.policy.invalidate();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CapacityKind, GpuRequest, Job, NodeSpec, PoolSpec, TypeMask, Workload};
    use crate::sched::{PolicyKind, QueuePolicy};
    use crate::sim::{JobOutcome, SimConfig};

    /// Starts every waiting job it can, and preempts the first job it ever starts right
    /// after starting it, in the same pass.
    #[derive(Default)]
    struct StartThenPreempt {
        waiting: Vec<JobId>,
        preempted_once: bool,
    }

    impl QueuePolicy for StartThenPreempt {
        fn name(&self) -> &'static str {
            "start-then-preempt"
        }
        fn push(&mut self, id: JobId, _job: &Job) {
            self.waiting.push(id);
        }
        fn len(&self) -> usize {
            self.waiting.len()
        }
        fn schedule(&mut self, ctx: &mut SchedCtx) {
            for id in std::mem::take(&mut self.waiting) {
                if !ctx.try_start(id, None) {
                    self.waiting.push(id);
                } else if !self.preempted_once {
                    self.preempted_once = true;
                    assert!(ctx.preempt(id));
                }
            }
        }
    }

    /// A run started and preempted within one pass never ran: the job is requeued, starts
    /// again in the pass that follows, and its record shows one run of its whole work, no
    /// preemption, and GPU-time counted once.
    #[test]
    fn run_started_and_preempted_in_one_pass_never_ran() {
        let job = Job {
            name: "j".into(),
            submit: SimTime::ZERO,
            gpus: GpuRequest::Whole(4),
            gpu_types: TypeMask::ANY,
            cpu_milli: 0,
            mem_mib: 0,
            work: SimTime::from_secs(3600),
            estimate: None,
            tenant: 0,
            priority: 0,
            deadline: None,
            preemptible: true,
            tags: crate::model::JobTags::NONE,
        };
        let w = Workload {
            jobs: vec![job],
            tenants: vec!["t".into()],
            ..Default::default()
        };
        let pool = PoolSpec {
            name: "p".into(),
            gpu_type: 0,
            kind: CapacityKind::Owned,
            node: NodeSpec {
                gpus: 8,
                cpu_milli: 1_000_000,
                mem_mib: 1 << 30,
            },
            nodes: 1,
            speed: 1.0,
        };
        let cfg = SimConfig {
            pools: vec![pool],
            policy: PolicyKind::Fifo,
            placement: Default::default(),
            horizon: None,
            sample_every: None,
            options: Default::default(),
        };
        let policy = Box::new(StartThenPreempt::default());
        let r = Simulation::with_policy(cfg, &w, policy).run();
        let rec = &r.jobs[0];
        assert_eq!(rec.outcome, JobOutcome::Completed);
        assert_eq!(rec.preemptions, 0);
        assert_eq!(
            (rec.start, rec.end),
            (Some(SimTime::ZERO), Some(SimTime::from_secs(3600)))
        );
        assert_eq!(rec.held, SimTime::from_secs(3600));
        assert!(r.stopped_runs.is_empty());
        assert_eq!(r.pools[0].busy_gpu_ms, 4 * 3_600_000);
    }
}
