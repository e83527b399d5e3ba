//! One simulation: the core loop and the parts it wires together.
//!
//! ## Parts
//! The core loop ([`Simulation`]) owns time, the event queue, the cluster and the
//! scheduling state (queue policy, running jobs, pool choice, budget). Around it:
//! - accounting (`accounting.rs`): job records (with their queueing-delay intervals),
//!   busy GPU-time per pool and tenant, the runs policies stopped, the timeline (with
//!   each pool's FGD fragmentation, `fragmentation.rs`);
//! - ended jobs (`ended.rs`, only when a consumer asks): each job that ended for good,
//!   sent in batches while the run goes on;
//! - progress (`progress.rs`): what each job keeps from its runs and its run generation,
//!   under one [`Work`](progress::Work) model, plain preemption accounting or
//!   checkpointed segments;
//! - elastic pools (`elastic.rs`, only when a pool autoscales): nodes held, queued demand,
//!   the held intervals billing reads; its events are [`ElasticEvent`]s;
//! - faults (`faults.rs`, only when failures are configured): nodes down and why, failure
//!   and spot streams, the jobs on each node; its events are [`FaultEvent`]s;
//! - commitments (`commitments.rs`, only when a pool's pricing bounds its capacity or its
//!   billing periods): capacity that exists only in a commitment's window, and busy
//!   GPU-time split at each commitment's term; its events are [`WindowEvent`]s;
//! - cloud (`cloud.rs`, only with datasets, fabrics or a throughput table): datasets
//!   staged before a run computes (it holds its GPUs meanwhile; no events of its own) and
//!   each run's spread over nodes and racks.
//!
//! The loop matches [`Event`] exhaustively and hands each part its own sub-event; what
//! crosses parts (starting a run, the one `stop_run` behind completions, preemptions,
//! kills and the horizon) is the core's, in `runs.rs`.
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
//!
//! [`SchedCtx::preempt`]: crate::sched::SchedCtx::preempt
//! [`PreemptionCost`]: crate::sched::PreemptionCost

mod accounting;
mod cloud;
mod commitments;
mod elastic;
mod ended;
mod event;
mod faults;
mod fragmentation;
mod progress;
mod record;
mod runs;

pub use cloud::{CloudResult, JobCloud, TransferTotal};
pub use ended::{Ended, EndedSink};
pub use event::{ElasticEvent, Event, FaultEvent, WindowEvent};
pub use record::{
    CheckpointMove, DownSpan, FaultSummary, JobOutcome, JobPoolUsage, JobRecord, PoolUsage,
    RunResult, StoppedRun, TimelineRow,
};

use crate::engine::{EventQueue, RngStreams, SimTime};
use crate::model::{Cluster, JobId, PoolSpec, Workload};
use crate::sched::{PolicyKind, PoolChoice, QueuePolicy, Running};

/// The most timeline rows (samples times pools) a run keeps: past it, every other sample is
/// dropped and the interval doubles, so the timeline still covers the whole run evenly
/// (runs far longer than their scenario expected, such as a job of centuries).
pub const MAX_TIMELINE_ROWS: usize = 1_000_000;

/// The most node visits the timeline's samples may make in all (each sample measures the
/// fragmentation of every up node with a free GPU): past it the interval doubles as at
/// [`MAX_TIMELINE_ROWS`]. 100,000 idle nodes sampled hourly over 3 years took 6 s of a
/// 0.2 s run; at this cap (reached, then halved, so up to twice it), 2.7 s.
pub const MAX_SAMPLED_NODES: usize = 500_000_000;

/// The longest span a run without a horizon goes on after its last arrival: 100 years,
/// the longest span gpufleet simulates (`scenario::MAX_SPAN` is this). Jobs that have not
/// ended by then (waiting for nodes whose repair takes millennia, say) end the run as
/// unfinished, and [`RunResult::cut_short`] says so.
pub const MAX_RUN_SPAN: SimTime = SimTime(100 * 365 * 86_400_000);

/// The most failure and interruption events a run without a horizon processes, whatever
/// its size. Validation refuses scenarios expected to make more than
/// `scenario::MAX_FAILURES` (1e8) over the workload's span; a run that outlasts that span
/// (jobs waiting on nodes that stay down, or that are down most of the time) stops at
/// [`fault_event_cap`] instead of drawing failures for centuries.
pub const MAX_FAULT_EVENTS_WITHOUT_HORIZON: u64 = 100_000_000;
/// The failure and interruption events a run without a horizon may process whatever its
/// size (see [`fault_event_cap`]).
pub const FAULT_EVENTS_BASE: u64 = 10_000_000;
/// The failure and interruption events a run without a horizon may process per job, on
/// top of [`FAULT_EVENTS_BASE`].
pub const FAULT_EVENTS_PER_JOB: u64 = 1_000;

/// The most failure and interruption events a run of `jobs` jobs without a horizon
/// processes: [`FAULT_EVENTS_BASE`] + [`FAULT_EVENTS_PER_JOB`] a job, at most
/// [`MAX_FAULT_EVENTS_WITHOUT_HORIZON`]. The bound follows the input's size, so a small
/// workload on a fleet that is down most of the time (nodes failing every few minutes and
/// repaired in hours) stops in seconds, at 1-2 M events a second, not after minutes; a
/// thousand jobs may still be killed 10,000 times each (the most `max_retries` allows
/// without a horizon).
pub fn fault_event_cap(jobs: usize) -> u64 {
    FAULT_EVENTS_BASE
        .saturating_add(FAULT_EVENTS_PER_JOB.saturating_mul(jobs as u64))
        .min(MAX_FAULT_EVENTS_WITHOUT_HORIZON)
}

/// Why a run without a horizon stopped before every job had ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CutShort {
    /// [`MAX_RUN_SPAN`] after the last arrival.
    Span,
    /// [`fault_event_cap`] failure and interruption events.
    FaultEvents,
    /// Jobs were waiting, none running, none yet to arrive, and no event was left that
    /// could change what the scheduler sees (a repair, a node coming up, a price or stock
    /// change, a timer): nothing could ever start them (a budget spent, a provider stock
    /// of zero, capacity that never comes back). The run ends there rather than sampling
    /// an idle fleet for 100 years.
    Stuck,
}

impl CutShort {
    /// The limit, for messages.
    pub fn describe(self) -> String {
        match self {
            CutShort::Span => {
                "100 years after the last arrival, the longest span gpufleet simulates".to_string()
            }
            CutShort::FaultEvents => format!(
                "after {} + {} a job (at most {}) failure and interruption events",
                FAULT_EVENTS_BASE, FAULT_EVENTS_PER_JOB, MAX_FAULT_EVENTS_WITHOUT_HORIZON
            ),
            CutShort::Stuck => "nothing left to happen could start the waiting jobs: none \
                running, none to arrive, no repair, node, price or stock change to come"
                .to_string(),
        }
    }
}

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
    pub options: crate::sched::SchedOptions,
}

/// The policy's wake-up requests: the one pending, and the one asked for in this pass.
#[derive(Debug, Default)]
struct Wake {
    gen: u32,
    pending: Option<SimTime>,
    request: Option<SimTime>,
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
    budget: crate::sched::Budget,
    next_arrival: usize,
    events: u64,
    /// Failure and interruption events processed (bounded without a horizon).
    fault_events: u64,
    /// Set when a run without a horizon stopped at one of its limits, or with jobs that
    /// nothing left to happen could start.
    cut_short: Option<CutShort>,
    /// Timeline samples in the event queue (0 or 1): what a run without a horizon may
    /// still hold pending once nothing else can happen.
    samples_queued: usize,
    /// Jobs the current pass started, and those it preempted.
    started: Vec<JobId>,
    preempted: Vec<JobId>,
    /// Buffers preemption reuses (see [`crate::sched::PreemptScratch`]).
    preempt_scratch: crate::sched::PreemptScratch,
    wake: Wake,
    progress: progress::JobProgress,
    acct: accounting::Accounting,
    /// Elastic pools; `None` when every pool is fixed.
    elastic: Option<elastic::Elastic>,
    /// Failures; `None` keeps the common case free of fault bookkeeping.
    faults: Option<faults::Faults>,
    /// Commitment windows and billing periods; `None` when no pool has any.
    commitments: Option<commitments::Commitments>,
    /// Datasets, fabrics, class speeds; `None` when the scenario has none.
    cloud: Option<cloud::Cloud>,
    /// Where a watcher (a progress bar) reads how far the run is; `None` by default.
    watch: Option<std::sync::Arc<Watch>>,
}

/// How far a running simulation is, readable from another thread (updated once per
/// simulated instant with relaxed stores: cheap, and only ever approximately current).
#[derive(Debug, Default)]
pub struct Watch {
    /// Jobs in the workload (set by the run path before the run starts).
    pub jobs: std::sync::atomic::AtomicU64,
    /// Jobs arrived so far.
    pub arrived: std::sync::atomic::AtomicU64,
    /// Simulated time reached, in milliseconds.
    pub now_ms: std::sync::atomic::AtomicU64,
    /// Set by the run path once the simulation is over (the outputs are being made).
    pub simulated: std::sync::atomic::AtomicBool,
}

impl<'w> Simulation<'w> {
    /// Prepares a run of `workload` (jobs must be in submit order) under `cfg`.
    pub fn new(mut cfg: SimConfig, workload: &'w Workload) -> Self {
        // Tenant weights given by name take the workload's tenant indices (the first of a
        // name, found by hash: a scan per name is quadratic over long lists).
        let mut index = std::collections::HashMap::new();
        if !cfg.options.tenant_weights_by_name.is_empty() {
            for (i, t) in workload.tenants.iter().enumerate() {
                index.entry(t.as_str()).or_insert(i);
            }
        }
        for (name, w) in cfg.options.tenant_weights_by_name.clone() {
            if let Some(&i) = index.get(name.as_str()) {
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
        let mut placer =
            crate::sched::placement::Placer::for_run(cfg.placement, &mut cluster, workload);
        if let Some(f) = &cfg.options.cloud.fabric {
            placer.set_racks(
                f.pools
                    .iter()
                    .map(|x| x.map_or(0, |f| f.nodes_per_rack))
                    .collect(),
            );
        }
        let elastic =
            elastic::Elastic::new(&cfg.options.autoscale, &mut cluster, workload.jobs.len());
        let mut pools = PoolChoice::new(&cluster);
        pools.set_cloud(&cfg.options.cloud, &workload.classes);
        pools.set_gpu_hour_prices(&cfg.options.gpu_hour_usd);
        pools.set_order(cfg.options.pool_order);
        pools.index_cluster(&mut cluster);
        let budget = crate::sched::Budget::new(&cfg.options.budget, &workload.tenants);
        let n = cfg.pools.len();
        let mut queue = EventQueue::with_capacity(1024);
        let mut queue_samples = 0;
        if let Some(dt) = cfg.sample_every {
            if dt.0 > 0 {
                queue.schedule(SimTime::ZERO, Event::Sample);
                queue_samples = 1;
            }
        }
        if let Some(h) = cfg.horizon {
            queue.schedule(h, Event::Horizon);
        }
        let jobs = workload.jobs.len();
        let cloud = cloud::Cloud::new(&cfg.options.cloud, jobs);
        Simulation {
            progress: progress::JobProgress::new(jobs, cfg.options.preemption),
            acct: accounting::Accounting::new(jobs, n),
            cfg,
            workload,
            queue,
            cluster,
            placer,
            pools,
            running: Running::new(n),
            policy,
            budget,
            next_arrival: 0,
            events: 0,
            fault_events: 0,
            cut_short: None,
            samples_queued: queue_samples,
            started: Vec::new(),
            preempted: Vec::new(),
            preempt_scratch: Default::default(),
            wake: Wake::default(),
            elastic,
            faults: None,
            commitments: None,
            cloud,
            watch: None,
        }
    }

    /// Adds commitments: per pool, the `windows` its capacity exists in (a capacity
    /// block, a reservation whose nodes are there only during its terms; empty: always
    /// there) and the `bounds` of its billing periods (busy GPU-time is split there, see
    /// [`RunResult::busy_by_period`]). A run's pricing gives both
    /// ([`crate::pricing::PricingModel::capacity_windows`], `period_bounds`).
    pub fn with_commitments(
        mut self,
        windows: Vec<Vec<crate::pricing::CapacityWindow>>,
        bounds: Vec<Vec<SimTime>>,
    ) -> Self {
        self.commitments =
            commitments::Commitments::new(windows, bounds, &mut self.cluster, &mut self.queue);
        if self.commitments.is_some() {
            self.policy.invalidate();
        }
        self
    }

    /// Adds failures, maintenance and checkpointing (see [`crate::faults`]). Each pool
    /// draws its failures, repairs, causes and spot interruptions from its own `streams`,
    /// keyed by its name ("failures/<pool>", ...), so adding a pool does not shift another
    /// pool's draws.
    pub fn with_faults(mut self, cfg: crate::faults::FaultConfig, streams: &RngStreams) -> Self {
        self.progress.checkpointed(progress::Checkpoints::new(&cfg));
        self.faults = Some(faults::Faults::new(
            cfg,
            streams,
            &self.cluster,
            &mut self.queue,
        ));
        self
    }

    /// Publishes the run's progress into `watch` as it goes.
    pub fn with_watch(mut self, watch: std::sync::Arc<Watch>) -> Self {
        self.watch = Some(watch);
        self
    }

    /// Sends each job that ends for good (completed or failed) into `sink` as the run
    /// goes on (see [`EndedSink`]).
    pub fn with_ended(mut self, sink: EndedSink) -> Self {
        self.acct.ended = Some(sink);
        self
    }

    /// Draws placement ties (the `random` placement) from `streams`' `placement` stream.
    pub fn with_placement_rng(mut self, streams: &RngStreams) -> Self {
        self.placer.set_rng(streams.stream("placement"));
        self
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
        // Without a horizon: at the latest 100 years after the last arrival, and after a
        // number of failure and interruption events that follows the workload's size.
        let fault_cap = fault_event_cap(self.workload.jobs.len());
        let span_cap = match self.cfg.horizon {
            Some(_) => SimTime::NEVER,
            None => self
                .workload
                .jobs
                .iter()
                .map(|j| j.submit)
                .max()
                .unwrap_or(SimTime::ZERO)
                .plus(MAX_RUN_SPAN),
        };
        let mut sample_due = false;
        let mut now = SimTime::ZERO;
        while let Some(t) = self.next_time() {
            if t > horizon {
                break;
            }
            if self.cfg.horizon.is_none() {
                if self.all_done() {
                    break;
                }
                if t > span_cap {
                    self.cut_short = Some(CutShort::Span);
                    break;
                }
                if self.fault_events >= fault_cap {
                    self.cut_short = Some(CutShort::FaultEvents);
                    break;
                }
            }
            now = t;
            self.queue.advance_to(t);
            let mut changed = false;
            let mut stop = false;
            while let Some(s) = self.queue.pop_until(t) {
                self.events += 1;
                match s.event {
                    Event::JobEnd { job, gen } => {
                        if self.progress.gen(job) == gen {
                            self.end_job(job, t);
                            changed = true;
                        }
                    }
                    Event::Wake { gen } => {
                        if gen == self.wake.gen {
                            self.wake.pending = None;
                            changed = true;
                        }
                    }
                    Event::Elastic(ev) => changed |= self.elastic_event(ev, t),
                    Event::Fault(ev) => {
                        self.fault_events += 1;
                        self.fault_event(ev, t);
                        changed = true;
                    }
                    Event::Window(ev) => {
                        self.window_event(ev, t);
                        changed = true;
                    }
                    Event::Sample => {
                        self.samples_queued -= 1;
                        sample_due = true;
                    }
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
            if let Some(w) = &self.watch {
                use std::sync::atomic::Ordering::Relaxed;
                w.arrived.store(self.next_arrival as u64, Relaxed);
                w.now_ms.store(t.0, Relaxed);
            }
            if sample_due {
                sample_due = false;
                self.sample(t);
                self.bound_timeline();
                if (self.cfg.horizon.is_some() || !self.all_done()) && !stop {
                    if let Some(dt) = self.cfg.sample_every {
                        let at = self.repeat_samples(t, dt);
                        self.queue.schedule(at, Event::Sample);
                        self.samples_queued += 1;
                    }
                }
            }
            if stop {
                break;
            }
            if self.cfg.horizon.is_none() && self.stuck() {
                self.cut_short = Some(CutShort::Stuck);
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

    /// True when jobs wait that nothing left to happen could start: every job arrived, none
    /// running, and the event queue holds nothing but a timeline sample (samples change no
    /// scheduling state, and a pass runs only after a change). O(1).
    fn stuck(&self) -> bool {
        self.next_arrival >= self.workload.jobs.len()
            && self.running.is_empty()
            && !self.policy.is_empty()
            && self.queue.len() <= self.samples_queued
    }

    fn all_done(&self) -> bool {
        self.next_arrival >= self.workload.jobs.len()
            && self.policy.is_empty()
            && self.running.is_empty()
    }

    /// Hands an elastic pools' event to that part; true when a pass is due.
    fn elastic_event(&mut self, ev: ElasticEvent, t: SimTime) -> bool {
        let pass = !matches!(ev, ElasticEvent::NodeRelease { .. });
        let Some(e) = self.elastic.as_mut() else {
            return pass;
        };
        let failed = match (ev, &self.faults) {
            (ElasticEvent::NodeReady { node }, Some(f)) => f.is_down(node),
            _ => false,
        };
        if e.on_event(ev, t, failed, &mut self.cluster, &mut self.queue) {
            self.policy.invalidate();
        }
        pass
    }

    /// Hands a fault event to that part and carries out what it strikes.
    fn fault_event(&mut self, ev: FaultEvent, t: SimTime) {
        let Some(f) = self.faults.as_mut() else {
            return;
        };
        let strike = f.on_event(ev, t, &self.cluster, &mut self.queue);
        self.apply_strike(strike, t);
    }

    /// Nodes up per pool (held and ready, for elastic pools).
    fn up_nodes(&self, p: usize) -> u64 {
        self.elastic
            .as_ref()
            .and_then(|e| e.up_nodes(p))
            .or_else(|| self.commitments.as_ref().and_then(|c| c.present_nodes(p)))
            .unwrap_or(self.cluster.pools()[p].spec.nodes as u64)
    }

    fn sample(&mut self, t: SimTime) {
        let nodes: Vec<u64> = (0..self.cluster.pools().len())
            .map(|p| self.up_nodes(p))
            .collect();
        let (queued, running) = (self.policy.len(), self.running.len());
        self.acct
            .sample(t, queued, running, nodes, &self.cluster, self.workload);
    }

    /// When the next event or trace arrival is due, if any.
    fn next_time(&self) -> Option<SimTime> {
        match (self.queue.peek_time(), self.next_arrival_time()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// After the sample at `t` (interval `dt`): nothing changes before the next event or
    /// arrival, so every sample due before it repeats this one. They are added here, each
    /// counted as the event it stands for, without a trip through the event queue (a long
    /// quiet span costs rows, not events; the row limit still widens the interval as the
    /// rows grow). Returns when the next sample is due.
    fn repeat_samples(&mut self, t: SimTime, mut dt: SimTime) -> SimTime {
        let Some(until) = self.next_time() else {
            return t.plus(dt);
        };
        let mut s = t;
        while dt.0 > 0 && s.plus(dt) < until {
            s = s.plus(dt);
            self.acct.repeat_sample(s);
            self.events += 1;
            self.bound_timeline();
            dt = self.cfg.sample_every.unwrap_or(dt);
        }
        s.plus(dt)
    }

    /// Keeps the timeline under [`MAX_TIMELINE_ROWS`]: at the limit (with an odd number of
    /// samples, so the newest stays) every other sample goes and the interval doubles.
    fn bound_timeline(&mut self) {
        let pools = self.cluster.pools().len().max(1);
        let nodes = self.cluster.node_count().max(1);
        let cap = (MAX_TIMELINE_ROWS / pools)
            .min(MAX_SAMPLED_NODES / nodes)
            .max(1001);
        let n = self.acct.timeline_len();
        if n >= cap && n % 2 == 1 {
            self.acct.halve_timeline();
            if let Some(dt) = self.cfg.sample_every.as_mut() {
                *dt = SimTime(dt.0.saturating_mul(2));
            }
        }
    }

    fn finish(mut self, end: SimTime) -> RunResult {
        if self.cfg.horizon.is_none() {
            if let Some(e) = self.elastic.as_mut() {
                e.wind_down();
            }
        }
        // Jobs still running at the end count their GPU-time up to the end; the work they
        // did in their current run counts as useful (they are not killed).
        let mut still: Vec<JobId> = self.running.ids().collect();
        still.sort_unstable();
        for id in still {
            if let Some(run) = self.running.remove(id) {
                self.stop_run(id, run, end, progress::Stop::Horizon);
            }
        }
        let cluster = &self.cluster;
        let elastic = self.elastic.as_ref();
        let commitments = self.commitments.as_ref();
        let counted = self.acct.into_counted(end);
        let pools = cluster
            .pools()
            .iter()
            .enumerate()
            .map(|(p, pool)| {
                let usage = elastic.and_then(|e| e.usage(p, end));
                let there = commitments
                    .and_then(|c| c.present_time(p, end))
                    .unwrap_or(end);
                PoolUsage {
                    name: pool.spec.name.clone(),
                    kind: pool.spec.kind,
                    nodes: pool.spec.nodes,
                    gpus: cluster.pool_gpus(p),
                    provisioned_gpu_ms: usage
                        .map_or(cluster.pool_gpus(p) as u128 * there.0 as u128, |e| e.0),
                    busy_gpu_ms: counted.busy_gpu_ms[p],
                    billed_node_ms: usage.map(|e| e.1),
                    speed: pool.spec.speed,
                }
            })
            .collect();
        let transfers = self.progress.into_transfers();
        let mut faults = self
            .faults
            .as_ref()
            .map(|f| f.summary(end, cluster, transfers));
        let pools_n = cluster.pools().len();
        let (windows, busy_by_period, job_busy_by_period) = match commitments {
            Some(c) => {
                if c.kills > 0 && faults.is_none() {
                    faults = Some(FaultSummary {
                        interruptions: vec![("commitment end".to_string(), c.kills)],
                        ..Default::default()
                    });
                }
                (
                    (0..pools_n).map(|p| c.windows_within(p, end)).collect(),
                    (0..pools_n).map(|p| c.busy_by_period(p, end)).collect(),
                    (0..pools_n).map(|p| c.job_busy_by_period(p, end)).collect(),
                )
            }
            None => (
                vec![Vec::new(); pools_n],
                vec![Vec::new(); pools_n],
                vec![Vec::new(); pools_n],
            ),
        };
        RunResult {
            end,
            events: self.events,
            cut_short: self.cut_short,
            jobs: counted.jobs,
            rejected: counted.rejected,
            pools,
            timeline: counted.timeline,
            stopped_runs: counted.stopped_runs,
            node_intervals: self
                .elastic
                .map(elastic::Elastic::into_intervals)
                .unwrap_or_default(),
            faults,
            tenant_busy_gpu_ms: counted.tenant_busy_gpu_ms,
            job_usage: counted.job_usage,
            windows,
            busy_by_period,
            cloud: self.cloud.map(cloud::Cloud::into_result),
            job_busy_by_period,
        }
    }
}

/// Runs `workload` under `cfg` to the end.
pub fn run(cfg: SimConfig, workload: &Workload) -> RunResult {
    Simulation::new(cfg, workload).run()
}
