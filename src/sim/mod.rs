//! One simulation: the event enum, the state, the handlers and the run loop.
//!
//! ## Same-time batching
//! At each time `t` the loop applies, in this order: every event due at `t` from the
//! event queue (job completions and other timed events, in scheduling order), then every
//! trace arrival with submit time `t`, then exactly one scheduling pass. So a job that
//! ends at `t` frees its GPUs before any decision is taken at `t`, and all jobs arriving
//! at `t` are seen together by that decision (as the PAI-2020 simulator does).
//!
//! ## Preemption
//! A policy may stop running jobs during its pass ([`SchedCtx::preempt`]); their capacity
//! is free at once for the rest of the pass. After the pass the simulation accounts for
//! each stopped run (work kept per [`PreemptionCost`], GPU-time attained), moves the job's
//! run generation on (so the stopped run's pending `JobEnd` is ignored when it pops) and
//! hands the job back to the policy; then it runs one more pass, so the requeued jobs
//! can use what is still free.

//!
//! ## Failures
//! With failures configured ([`Simulation::with_faults`]), a run is a sequence of
//! segments (see [`crate::faults::Segment`]): a killed job keeps the work of its last
//! completed checkpoint, and a job preempted by its policy is stopped the same way (its
//! checkpoints decide what it keeps, not the policy's `PreemptionCost`).

mod elastic;
mod event;
mod faults;
mod record;

pub use event::Event;
pub use record::{
    FaultSummary, JobOutcome, JobRecord, PoolUsage, RunResult, StoppedRun, TimelineRow,
};

use crate::engine::{EventQueue, SimTime};
use crate::model::{Cluster, JobId, PoolSpec, Workload};
use crate::sched::{
    PolicyKind, PoolChoice, PreemptionCost, Progress, QueuePolicy, Running, SchedCtx, SchedOptions,
};

/// Everything a run needs besides the workload.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// Pools of the cluster, in preference order.
    pub pools: Vec<PoolSpec>,
    /// Queue policy.
    pub policy: PolicyKind,
    /// Placement policy: where in a pool a job goes.
    pub placement: crate::sched::placement::PlacementKind,
    /// Stop at this time (jobs still queued or running are "unfinished"); `None` runs
    /// until every job has ended.
    pub horizon: Option<SimTime>,
    /// Timeline sampling interval (`None`: no timeline).
    pub sample_every: Option<SimTime>,
    /// Options of the queue policies and of preemption.
    pub options: SchedOptions,
}

/// A simulation in progress. Most users call [`run`]; tests may drive it and look inside.
pub struct Simulation<'w> {
    cfg: SimConfig,
    workload: &'w Workload,
    queue: EventQueue<Event>,
    cluster: Cluster,
    placer: crate::sched::placement::Placer,
    pools: PoolChoice,
    running: Running,
    policy: Box<dyn QueuePolicy>,
    records: Vec<JobRecord>,
    next_arrival: usize,
    events: u64,
    busy_milli: Vec<u64>,
    busy_ms: Vec<u128>,
    timeline: Vec<TimelineRow>,
    started: Vec<JobId>,
    progress: Vec<Progress>,
    gen: Vec<u32>,
    preempted: Vec<JobId>,
    wake_gen: u32,
    wake_pending: Option<SimTime>,
    wake_request: Option<SimTime>,
    stopped_runs: Vec<StoppedRun>,
    elastic: Option<elastic::Elastic>,
    budget: crate::sched::Budget,
    /// Milli-GPU x ms held per (pool, tenant), over every run segment.
    tenant_busy: std::collections::BTreeMap<(u32, u32), u128>,
    /// Failure state; `None` keeps the common case free of fault bookkeeping.
    faults: Option<Box<faults::FaultState>>,
}

impl<'w> Simulation<'w> {
    /// Prepares a run of `workload` (jobs must be in submit order) under `cfg`.
    pub fn new(mut cfg: SimConfig, workload: &'w Workload) -> Self {
        // Tenant weights given by name take the workload's tenant indices.
        for (name, w) in cfg.options.tenant_weights_by_name.clone() {
            if let Some(i) = workload.tenants.iter().position(|t| *t == name) {
                if cfg.options.tenant_weights.len() <= i {
                    cfg.options.tenant_weights.resize(i + 1, 1.0);
                }
                cfg.options.tenant_weights[i] = w;
            }
        }
        let policy = cfg.policy.build_with(&cfg.options);
        Self::with_policy(cfg, workload, policy)
    }

    /// As [`Simulation::new`] with a policy object supplied by the caller.
    pub fn with_policy(
        cfg: SimConfig,
        workload: &'w Workload,
        policy: Box<dyn QueuePolicy>,
    ) -> Self {
        let mut cluster = Cluster::new(cfg.pools.clone());
        let placer =
            crate::sched::placement::Placer::for_run(cfg.placement, &mut cluster, workload);
        let elastic =
            elastic::Elastic::new(&cfg.options.autoscale, &mut cluster, workload.jobs.len());
        let mut pools = PoolChoice::new(&cluster);
        pools.set_gpu_hour_prices(&cfg.options.gpu_hour_usd);
        pools.set_order(cfg.options.pool_order);
        let budget = crate::sched::Budget::new(&cfg.options.budget, &workload.tenants);
        let n = cfg.pools.len();
        let mut queue = EventQueue::with_capacity(1024);
        if let Some(dt) = cfg.sample_every {
            if dt.0 > 0 {
                queue.schedule(SimTime::ZERO, Event::Sample);
            }
        }
        if let Some(h) = cfg.horizon {
            queue.schedule(h, Event::Horizon);
        }
        Simulation {
            cfg,
            workload,
            queue,
            cluster,
            placer,
            pools,
            running: Running::new(n),
            policy,
            records: vec![JobRecord::default(); workload.jobs.len()],
            next_arrival: 0,
            events: 0,
            busy_milli: vec![0; n],
            busy_ms: vec![0; n],
            timeline: Vec::new(),
            started: Vec::new(),
            progress: Vec::new(),
            gen: Vec::new(),
            preempted: Vec::new(),
            wake_gen: 0,
            wake_pending: None,
            wake_request: None,
            stopped_runs: Vec::new(),
            elastic,
            budget,
            tenant_busy: Default::default(),
            faults: None,
        }
    }

    /// Adds failures, maintenance and checkpointing (see [`crate::faults`]); `seed` drives
    /// the failure streams.
    pub fn with_faults(mut self, cfg: crate::faults::FaultConfig, seed: u64) -> Self {
        self.ensure_progress();
        self.init_faults(cfg, seed);
        self
    }

    /// Draws placement ties (the `random` placement) from `streams`' `placement` stream.
    pub fn with_placement_rng(mut self, streams: &crate::engine::RngStreams) -> Self {
        self.placer.set_rng(streams.stream("placement"));
        self
    }

    /// Allocates the per-job progress and generation tables (used once anything can stop
    /// a running job).
    fn ensure_progress(&mut self) {
        if self.progress.is_empty() {
            let n = self.workload.jobs.len();
            self.progress = vec![Progress::default(); n];
            self.gen = vec![0; n];
        }
    }

    /// The queue policy (to read what it recorded).
    pub fn policy(&self) -> &dyn QueuePolicy {
        self.policy.as_ref()
    }

    fn next_arrival_time(&self) -> Option<SimTime> {
        self.workload.jobs.get(self.next_arrival).map(|j| j.submit)
    }

    /// Runs to the end and returns the results.
    pub fn run(self) -> RunResult {
        self.run_with(|_| {})
    }

    /// Runs to the end, lets `inspect` look at the final state (policy logs, for tests),
    /// then returns the results.
    pub fn run_with(mut self, inspect: impl FnOnce(&Simulation)) -> RunResult {
        let horizon = self.cfg.horizon.unwrap_or(SimTime::NEVER);
        let mut sample_due = false;
        let mut now = SimTime::ZERO;
        loop {
            let t = match (self.queue.peek_time(), self.next_arrival_time()) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) => a,
                (None, Some(b)) => b,
                (None, None) => break,
            };
            if t > horizon {
                break;
            }
            if self.cfg.horizon.is_none() && self.all_done() {
                break;
            }
            now = t;
            self.queue.advance_to(t);
            let mut changed = false;
            let mut stop = false;
            while let Some(s) = self.queue.pop_until(t) {
                self.events += 1;
                match s.event {
                    Event::JobEnd { job, gen } => {
                        if self.gen.get(job as usize).copied().unwrap_or(0) == gen {
                            self.end_job(job, t);
                            changed = true;
                        }
                    }
                    Event::NodeFail { .. }
                    | Event::NodeRepair { .. }
                    | Event::TraceFail { .. }
                    | Event::Drain { .. }
                    | Event::MaintenanceStart { .. }
                    | Event::MaintenanceEnd { .. }
                    | Event::SpotNotice { .. }
                    | Event::SpotOutage { .. }
                    | Event::SpotRestore { .. } => {
                        self.fault_event(s.event, t);
                        changed = true;
                    }
                    Event::Wake { gen } => {
                        if gen == self.wake_gen {
                            self.wake_pending = None;
                            changed = true;
                        }
                    }
                    Event::NodeReady { node } => {
                        self.node_ready(node, t);
                        changed = true;
                    }
                    Event::NodeRelease { node, gen } => self.node_release(node, gen, t),
                    Event::Autoscale => changed = true,
                    Event::Sample => sample_due = true,
                    Event::Horizon => stop = true,
                }
            }
            while self.next_arrival_time() == Some(t) {
                let id = self.next_arrival as JobId;
                self.next_arrival += 1;
                self.events += 1;
                self.arrive(id, t);
                changed = true;
            }
            if changed {
                self.pass(t);
            }
            if sample_due {
                sample_due = false;
                self.sample(t);
                if (self.cfg.horizon.is_some() || !self.all_done()) && !stop {
                    if let Some(dt) = self.cfg.sample_every {
                        self.queue.schedule(t.plus(dt), Event::Sample);
                    }
                }
            }
            if stop {
                break;
            }
        }
        let end = if self.cfg.horizon.is_some() {
            horizon
        } else {
            now
        };
        inspect(&self);
        self.finish(end)
    }

    fn arrive(&mut self, id: JobId, t: SimTime) {
        let job = &self.workload.jobs[id as usize];
        self.records[id as usize].submitted = true;
        let placeable = self.pools.eligible(job).any(|p| {
            self.cluster
                .nodes_needed(p, job.gpus, job.cpu_milli, job.mem_mib)
                .is_some()
        });
        if !placeable {
            let r = &mut self.records[id as usize];
            r.outcome = JobOutcome::Rejected;
            r.end = Some(t);
            return;
        }
        self.policy.push(id, job);
        self.elastic_queued(id, t);
    }

    fn all_done(&self) -> bool {
        self.next_arrival >= self.workload.jobs.len()
            && self.policy.is_empty()
            && self.running.is_empty()
    }

    fn pass(&mut self, t: SimTime) {
        self.pass_once(t);
        if !self.preempted.is_empty() {
            self.requeue_preempted(t);
            self.pass_once(t);
            self.requeue_preempted(t);
        }
        if let Some(w) = self.wake_request.take() {
            if self.wake_pending.is_none_or(|p| w < p || p <= t) {
                self.wake_gen = self.wake_gen.wrapping_add(1);
                self.wake_pending = Some(w);
                self.queue.schedule(w, Event::Wake { gen: self.wake_gen });
            }
        }
        self.autoscale(t);
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
            progress: &self.progress,
            preempted: &mut self.preempted,
            wake: &mut wake,
            budget: &mut self.budget,
        };
        self.policy.schedule(&mut ctx);
        if let Some(w) = wake {
            self.wake_request = Some(self.wake_request.map_or(w, |x: SimTime| x.min(w)));
        }
        for (id, run) in self.running.take_stopped() {
            self.stop_run(id, run, t);
        }
        for i in 0..self.started.len() {
            let id = self.started[i];
            let run = self.running.get(id).expect("a started job is running");
            let p = run.alloc.pool as usize;
            let held: u64 = run.alloc.gpus.iter().map(|s| s.milli as u64).sum();
            let nodes = run.alloc.hosts.len() as u32;
            if self.elastic.is_some() {
                let alloc = run.alloc.clone();
                self.elastic_started(id, &alloc);
            }
            let runtime = match self.faults {
                None => self.pools.runtime(self.true_remaining(id), p),
                Some(_) => self.start_segment(id),
            };
            self.busy_milli[p] += held;
            let r = &mut self.records[id as usize];
            if r.start.is_none() {
                r.start = Some(t);
            }
            r.run_start = Some(t);
            r.pool = Some(p as u32);
            r.gpu_milli = held;
            r.nodes = nodes;
            let gen = self.gen.get(id as usize).copied().unwrap_or(0);
            self.queue
                .schedule(t.plus(runtime), Event::JobEnd { job: id, gen });
        }
    }

    /// True work left for `id` (its work plus restart penalties, less the work kept).
    fn true_remaining(&self, id: JobId) -> SimTime {
        let work = self.workload.jobs[id as usize].work;
        match self.progress.get(id as usize) {
            Some(p) => p.left_of(work).max(SimTime(1)),
            None => work,
        }
    }

    /// Accounts for a run a policy stopped: usage, work kept, generation.
    fn stop_run(&mut self, id: JobId, run: crate::sched::RunningJob, t: SimTime) {
        self.ensure_progress();
        self.elastic_freed(&run.alloc, t);
        let p = run.alloc.pool as usize;
        let held_ms = t.since(run.start);
        let milli_held = self.records[id as usize].gpu_milli;
        self.busy_milli[p] -= milli_held;
        self.add_busy(id, p, milli_held, held_ms);
        if self.faults.is_some() {
            // Checkpoints decide what a stopped run keeps.
            let times =
                self.end_segment(id, &run.alloc, crate::faults::SegmentEnd::Killed(held_ms));
            let r = &mut self.records[id as usize];
            r.add_segment(&times, held_ms);
            r.preemptions += 1;
            self.stopped_runs.push(StoppedRun {
                job: id,
                pool: p as u32,
                start: run.start,
                stop: t,
                gpu_milli: milli_held,
            });
            let milli = self.workload.jobs[id as usize].gpus.milli();
            let pr = &mut self.progress[id as usize];
            pr.attained_gpu_ms += milli * held_ms.0 / 1000;
            pr.preemptions += 1;
            pr.last_stop = Some(t);
            pr.last_run = held_ms;
            self.gen[id as usize] = self.gen[id as usize].wrapping_add(1);
            return;
        }
        let r = &mut self.records[id as usize];
        r.preemptions += 1;
        self.stopped_runs.push(StoppedRun {
            job: id,
            pool: p as u32,
            start: run.start,
            stop: t,
            gpu_milli: r.gpu_milli,
        });
        let left = self.true_remaining(id);
        let speed = self.pools.speed(p);
        let ran = SimTime(((held_ms.0 as f64 * speed) as u64).min(left.0));
        let (kept, extra) = self.cfg.options.preemption.apply(ran, held_ms);
        let milli = self.workload.jobs[id as usize].gpus.milli();
        let pr = &mut self.progress[id as usize];
        if self.cfg.options.preemption == PreemptionCost::LoseAll {
            pr.done = SimTime::ZERO;
        } else {
            pr.done = pr.done.plus(kept);
        }
        pr.extra = pr.extra.plus(extra);
        // Wall time of the kept work is useful, the rest of the run was lost.
        let kept_wall = SimTime(((kept.0 as f64 / speed) as u64).min(held_ms.0));
        let times = crate::faults::SegmentTimes {
            useful: kept_wall,
            lost: held_ms.since(kept_wall),
            ..Default::default()
        };
        self.records[id as usize].add_segment(&times, held_ms);
        let pr = &mut self.progress[id as usize];
        pr.attained_gpu_ms += milli * held_ms.0 / 1000;
        pr.preemptions += 1;
        pr.last_stop = Some(t);
        pr.last_run = held_ms;
        pr.ran = pr.ran.plus(held_ms);
        self.gen[id as usize] = self.gen[id as usize].wrapping_add(1);
    }

    fn requeue_preempted(&mut self, t: SimTime) {
        for id in std::mem::take(&mut self.preempted) {
            let job = &self.workload.jobs[id as usize];
            self.policy.requeue(id, job, &self.progress[id as usize]);
            self.elastic_queued(id, t);
        }
    }

    fn end_job(&mut self, id: JobId, t: SimTime) {
        let Some(run) = self.running.remove(id) else {
            return;
        };
        if t < run.planned_end {
            self.policy.invalidate();
        }
        self.policy.ended(id, &self.workload.jobs[id as usize]);
        self.cluster.give_back(&run.alloc);
        self.elastic_freed(&run.alloc, t);
        let p = run.alloc.pool as usize;
        let held = self.records[id as usize].gpu_milli;
        self.busy_milli[p] -= held;
        let span = t.since(run.start);
        self.add_busy(id, p, held, span);
        let times = match self.faults {
            None => crate::faults::SegmentTimes {
                useful: span,
                ..Default::default()
            },
            Some(_) => self.end_segment(id, &run.alloc, crate::faults::SegmentEnd::Completed),
        };
        let r = &mut self.records[id as usize];
        r.add_segment(&times, span);
        r.end = Some(t);
        r.outcome = JobOutcome::Completed;
    }

    /// Counts `held` milli-GPU for `span` against pool `p` and the job's tenant.
    fn add_busy(&mut self, id: JobId, p: usize, held: u64, span: SimTime) {
        let x = held as u128 * span.0 as u128;
        self.busy_ms[p] += x;
        let tenant = self.workload.jobs[id as usize].tenant;
        *self.tenant_busy.entry((p as u32, tenant)).or_insert(0) += x;
    }

    fn sample(&mut self, t: SimTime) {
        let n = self.cluster.pools().len();
        let nodes: Vec<u64> = (0..n).map(|p| self.up_nodes(p)).collect();
        let pools = (0..n)
            .map(|p| {
                let gpn = self.cluster.pools()[p].spec.node.gpus as u64;
                (self.busy_milli[p], nodes[p] * gpn * 1000)
            })
            .collect();
        self.timeline.push(TimelineRow {
            time: t,
            queued: self.policy.len() as u64,
            running: self.running.len() as u64,
            pools,
            nodes,
        });
    }

    fn finish(mut self, end: SimTime) -> RunResult {
        if self.cfg.horizon.is_none() {
            self.elastic_wind_down();
        }
        // Jobs still running at the end count their GPU-time up to the end; the work they
        // did in their current segment counts as useful (they are not killed).
        let mut still: Vec<JobId> = self.running.ids().collect();
        still.sort_unstable();
        for id in still {
            let Some(run) = self.running.remove(id) else {
                continue;
            };
            let p = run.alloc.pool as usize;
            let e = end.since(run.start);
            let held = self.records[id as usize].gpu_milli;
            self.add_busy(id, p, held, e);
            let mut times = match self.faults {
                None => crate::faults::SegmentTimes {
                    useful: e,
                    ..Default::default()
                },
                Some(_) => self.end_segment(id, &run.alloc, crate::faults::SegmentEnd::Killed(e)),
            };
            times.useful = times.useful.plus(times.lost);
            times.lost = SimTime::ZERO;
            self.records[id as usize].add_segment(&times, e);
        }
        let pools = self
            .cluster
            .pools()
            .iter()
            .enumerate()
            .map(|(p, pool)| {
                let elastic = self.elastic_usage(p, end);
                PoolUsage {
                    name: pool.spec.name.clone(),
                    kind: pool.spec.kind,
                    nodes: pool.spec.nodes,
                    gpus: self.cluster.pool_gpus(p),
                    provisioned_gpu_ms: elastic
                        .map_or(self.cluster.pool_gpus(p) as u128 * end.0 as u128, |e| e.0),
                    busy_gpu_ms: self.busy_ms[p] / 1000,
                    billed_node_ms: elastic.map(|e| e.1),
                }
            })
            .collect();
        let node_intervals = self
            .elastic
            .as_ref()
            .map(|e| e.intervals.clone())
            .unwrap_or_default();
        let cluster = &self.cluster;
        let faults = self
            .faults
            .map(|f| f.summary(end, |n| cluster.pool_of(n) as usize));
        RunResult {
            end,
            events: self.events,
            jobs: self.records,
            pools,
            timeline: self.timeline,
            stopped_runs: self.stopped_runs,
            node_intervals,
            faults,
            tenant_busy_gpu_ms: self
                .tenant_busy
                .into_iter()
                .map(|(k, v)| (k, v / 1000))
                .collect(),
            held: Vec::new(),
        }
    }
}

/// Runs `workload` under `cfg` to the end.
pub fn run(cfg: SimConfig, workload: &Workload) -> RunResult {
    Simulation::new(cfg, workload).run()
}
