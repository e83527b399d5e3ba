//! The simulation's failure handlers: node failures and repairs, failure traces, planned
//! maintenance, and killing a job back to its last checkpoint and requeueing it.
//!
//! Exists only when a scenario configures failures or checkpointing, so the common case
//! pays nothing for it.

use super::{Event, FaultSummary, JobOutcome, Simulation};
use crate::engine::{RngStreams, SimRng, SimTime};
use crate::faults::{FaultConfig, Segment, SegmentEnd, SegmentTimes};
use crate::model::{Allocation, JobId, JobMap};
use indexmap::IndexMap;

/// Failure bookkeeping of a run.
pub(super) struct FaultState {
    cfg: FaultConfig,
    gaps: SimRng,
    repairs: SimRng,
    causes: SimRng,
    /// Segment of each running job.
    segs: JobMap<Segment>,
    /// Jobs on each node (few per node; kept sorted).
    node_jobs: Vec<Vec<JobId>>,
    /// Reasons each node is down (failure, drain); up when zero.
    pub(super) down: Vec<u8>,
    down_since: Vec<SimTime>,
    down_ms: Vec<u128>,
    /// Resolved node of each trace failure (None: out of range, ignored and counted).
    trace_nodes: Vec<Option<u32>>,
    node_failures: IndexMap<String, u64>,
    interruptions: IndexMap<String, u64>,
    spot_rng: SimRng,
    transfers: Vec<(u32, u32, f64, crate::faults::TransferKind)>,
}

/// An exponential spell with the given mean in hours.
fn exp_hours(mean_h: f64, rng: &mut SimRng) -> SimTime {
    use rand::Rng;
    let u: f64 = rng.random::<f64>();
    SimTime::from_hours_f64(-(1.0 - u).ln() * mean_h).max(SimTime(1))
}

impl FaultState {
    /// Final counts; nodes still down count their downtime to `end`.
    pub(super) fn summary(&self, end: SimTime, pool_of: impl Fn(u32) -> usize) -> FaultSummary {
        let mut down = self.down_ms.clone();
        for (n, &d) in self.down.iter().enumerate() {
            if d > 0 {
                down[pool_of(n as u32)] += end.since(self.down_since[n]).0 as u128;
            }
        }
        FaultSummary {
            node_failures: self
                .node_failures
                .iter()
                .map(|(k, v)| (k.clone(), *v))
                .collect(),
            interruptions: self
                .interruptions
                .iter()
                .map(|(k, v)| (k.clone(), *v))
                .collect(),
            down_node_ms: down,
            transfers: self.transfers.clone(),
        }
    }
}

impl Simulation<'_> {
    pub(super) fn init_faults(&mut self, cfg: FaultConfig, seed: u64) {
        let streams = RngStreams::new(seed);
        let nodes = self.cluster.node_count();
        let mut st = FaultState {
            gaps: streams.stream("failures"),
            repairs: streams.stream("repairs"),
            causes: streams.stream("failure-causes"),
            segs: JobMap::default(),
            node_jobs: vec![Vec::new(); nodes],
            down: vec![0; nodes],
            down_since: vec![SimTime::ZERO; nodes],
            down_ms: vec![0; self.cluster.pools().len()],
            trace_nodes: Vec::new(),
            node_failures: IndexMap::new(),
            interruptions: IndexMap::new(),
            spot_rng: streams.stream("spot"),
            transfers: Vec::new(),
            cfg,
        };
        for (pi, (proc_, pools)) in st.cfg.processes.iter().enumerate() {
            for (p, pool) in self.cluster.pools().iter().enumerate() {
                if !pools.is_empty() && !pools.contains(&p) {
                    continue;
                }
                for k in 0..pool.spec.nodes {
                    let gap = proc_.next_gap(pool.spec.node.gpus, &mut st.gaps);
                    if gap != SimTime::NEVER {
                        self.queue.schedule(
                            gap,
                            Event::NodeFail {
                                node: pool.first_node + k,
                                process: pi as u16,
                            },
                        );
                    }
                }
            }
        }
        for (i, f) in st.cfg.trace.iter().enumerate() {
            let node = match &f.pool {
                None => (f.node as usize) < nodes,
                Some(name) => self
                    .cluster
                    .pools()
                    .iter()
                    .any(|p| &p.spec.name == name && f.node < p.spec.nodes),
            }
            .then(|| match &f.pool {
                None => f.node,
                Some(name) => {
                    let p = self
                        .cluster
                        .pools()
                        .iter()
                        .find(|p| &p.spec.name == name)
                        .map(|p| p.first_node)
                        .unwrap_or(0);
                    p + f.node
                }
            });
            st.trace_nodes.push(node);
            self.queue
                .schedule(f.time, Event::TraceFail { index: i as u32 });
        }
        for (k, spec) in st.cfg.spot.iter().enumerate() {
            let Some(pool) = self.cluster.pools().get(spec.pool) else {
                continue;
            };
            match &spec.model {
                crate::faults::SpotModel::Poisson(_) | crate::faults::SpotModel::Bathtub(_) => {
                    for n in 0..pool.spec.nodes {
                        if let Some(gap) = spec.next_gap(&mut st.spot_rng) {
                            self.queue.schedule(
                                gap,
                                Event::SpotNotice {
                                    node: pool.first_node + n,
                                    spec: k as u16,
                                },
                            );
                        }
                    }
                }
                crate::faults::SpotModel::Zone(z) => {
                    let up = exp_hours(z.mean_up_h, &mut st.spot_rng);
                    self.queue.schedule(
                        up.since(spec.notice),
                        Event::SpotOutage {
                            spec: k as u16,
                            window: 0,
                        },
                    );
                }
                crate::faults::SpotModel::Trace(_) => {
                    for (w, (start, end)) in spec.trace_outages().into_iter().enumerate() {
                        self.queue.schedule(
                            start.since(spec.notice),
                            Event::SpotOutage {
                                spec: k as u16,
                                window: w as u32,
                            },
                        );
                        if end != SimTime::NEVER {
                            self.queue.schedule(
                                end,
                                Event::SpotRestore {
                                    spec: k as u16,
                                    window: w as u32,
                                },
                            );
                        }
                    }
                }
            }
        }
        for (w, m) in st.cfg.maintenance.iter().enumerate() {
            let w = w as u32;
            self.queue
                .schedule(m.start.since(m.notice), Event::Drain { window: w });
            self.queue
                .schedule(m.start, Event::MaintenanceStart { window: w });
            self.queue.schedule(
                m.start.plus(m.duration),
                Event::MaintenanceEnd { window: w },
            );
        }
        self.faults = Some(Box::new(st));
    }

    /// Starts a run segment of job `id` (already placed); returns its wall time.
    pub(super) fn start_segment(&mut self, id: JobId) -> SimTime {
        let remaining = self.true_remaining(id);
        let rec = &self.records[id as usize];
        let ran_before = rec.restarts + rec.preemptions > 0;
        let run = self.running.get(id).expect("a started job is running");
        let p = run.alloc.pool as usize;
        let gpus = run.alloc.gpus.iter().map(|s| s.milli as f64).sum::<f64>() / 1000.0;
        let speed = self.pools.speed(p);
        let previous_pool = rec.pool.map(|q| q as usize).filter(|_| ran_before);
        let tenant = self.workload.jobs[id as usize].tenant;
        let st = self.faults.as_mut().expect("faults enabled");
        // Moving the checkpoint to another zone or region first: time and bytes.
        let mut migration = SimTime::ZERO;
        if let Some(kind) = previous_pool.and_then(|q| st.cfg.migration.between(q, p)) {
            let gb = st.cfg.checkpointing.size_gb;
            if gb > 0.0 {
                migration = SimTime::from_secs_f64(crate::pricing::transfer_seconds(
                    gb,
                    st.cfg.migration.bandwidth_gbps,
                ));
                st.transfers.push((p as u32, tenant, gb, kind));
            }
        }
        let rate = st
            .cfg
            .job_failure_rate_per_hour(p, gpus, run.alloc.hosts.len() as f64);
        let ck = st.cfg.checkpointing;
        let interval = ck
            .interval_wall(rate)
            .map(|w| SimTime((w.0 as f64 * speed).round().max(1.0) as u64));
        let seg = Segment {
            remaining,
            interval,
            write: ck.write,
            restart: if ran_before {
                ck.restart.plus(migration)
            } else {
                SimTime::ZERO
            },
            speed,
        };
        st.segs.insert(id, seg);
        for &(n, _, _) in &run.alloc.hosts {
            let v = &mut st.node_jobs[n as usize];
            if let Err(pos) = v.binary_search(&id) {
                v.insert(pos, id);
            }
        }
        seg.duration()
    }

    /// Ends job `id`'s current segment, returning where its time went.
    pub(super) fn end_segment(
        &mut self,
        id: JobId,
        alloc: &Allocation,
        end: SegmentEnd,
    ) -> SegmentTimes {
        let st = self.faults.as_mut().expect("faults enabled");
        for &(n, _, _) in &alloc.hosts {
            let v = &mut st.node_jobs[n as usize];
            if let Ok(pos) = v.binary_search(&id) {
                v.remove(pos);
            }
        }
        let Some(seg) = st.segs.remove(&id) else {
            return SegmentTimes::default();
        };
        let times = seg.account(end);
        let pr = &mut self.progress[id as usize];
        pr.done = pr.done.plus(times.work_kept);
        times
    }

    /// Kills running job `id` at `t`: it keeps its work up to its last checkpoint (all of
    /// it with `keep_all`, when it could checkpoint first), then requeues or, past its retry
    /// limit, fails.
    pub(super) fn kill_job(&mut self, id: JobId, t: SimTime, cause: &str, keep_all: bool) {
        let Some(run) = self.running.remove(id) else {
            return;
        };
        self.policy.invalidate();
        self.cluster.give_back(&run.alloc);
        self.elastic_freed(&run.alloc, t);
        let p = run.alloc.pool as usize;
        let held = self.records[id as usize].gpu_milli;
        self.busy_milli[p] -= held;
        let e = t.since(run.start);
        self.add_busy(id, p, held, e);
        let mut times = self.end_segment(id, &run.alloc, SegmentEnd::Killed(e));
        let speed = self.pools.speed(p);
        let work = self.workload.jobs[id as usize].work;
        if keep_all {
            let extra = SimTime((times.lost.0 as f64 * speed) as u64);
            let pr = &mut self.progress[id as usize];
            pr.done = pr.done.plus(extra).min(work);
            times.useful = times.useful.plus(times.lost);
            times.lost = SimTime::ZERO;
        }
        self.gen[id as usize] = self.gen[id as usize].wrapping_add(1);
        let st = self.faults.as_mut().expect("faults enabled");
        *st.interruptions.entry(cause.to_string()).or_insert(0) += 1;
        let max = st.cfg.checkpointing.max_retries;
        let r = &mut self.records[id as usize];
        r.add_segment(&times, e);
        r.restarts += 1;
        if r.restarts > max {
            r.outcome = JobOutcome::Failed;
            r.end = Some(t);
        } else {
            self.policy.requeue(
                id,
                &self.workload.jobs[id as usize],
                &self.progress[id as usize],
            );
            self.elastic_queued(id, t);
        }
    }

    fn take_down(&mut self, node: u32, t: SimTime) {
        let st = self.faults.as_mut().expect("faults enabled");
        st.down[node as usize] += 1;
        if st.down[node as usize] == 1 {
            st.down_since[node as usize] = t;
            self.cluster.set_up(node, false);
            self.policy.invalidate();
        }
    }

    fn bring_up(&mut self, node: u32, t: SimTime) {
        let pool = self.cluster.pool_of(node) as usize;
        let st = self.faults.as_mut().expect("faults enabled");
        let d = &mut st.down[node as usize];
        if *d == 0 {
            return;
        }
        *d -= 1;
        if *d == 0 {
            st.down_ms[pool] += t.since(st.down_since[node as usize]).0 as u128;
            // An elastic pool's node that is not held stays down.
            if self.elastic_holds(node) {
                self.cluster.set_up(node, true);
            }
            self.policy.invalidate();
        }
    }

    fn kill_on_node(&mut self, node: u32, t: SimTime, cause: &str, keep_all: bool) {
        let jobs = self
            .faults
            .as_ref()
            .map(|st| st.node_jobs[node as usize].clone())
            .unwrap_or_default();
        for id in jobs {
            self.kill_job(id, t, cause, keep_all);
        }
    }

    fn fail_node(&mut self, node: u32, t: SimTime, cause: String, repair: SimTime) {
        let st = self.faults.as_mut().expect("faults enabled");
        *st.node_failures.entry(cause.clone()).or_insert(0) += 1;
        self.kill_on_node(node, t, &cause, false);
        self.take_down(node, t);
        self.queue
            .schedule(t.plus(repair), Event::NodeRepair { node });
    }

    pub(super) fn fault_event(&mut self, ev: Event, t: SimTime) {
        match ev {
            Event::NodeFail { node, process } => {
                let gpus = self.cluster.pools()[self.cluster.pool_of(node) as usize]
                    .spec
                    .node
                    .gpus;
                let st = self.faults.as_mut().expect("faults enabled");
                let proc_ = &st.cfg.processes[process as usize].0;
                let gap = proc_.next_gap(gpus, &mut st.gaps);
                if gap != SimTime::NEVER {
                    self.queue
                        .schedule(t.plus(gap), Event::NodeFail { node, process });
                }
                // A node already down cannot fail again until it is back.
                if st.down[node as usize] == 0 {
                    let c = proc_.draw_cause(&mut st.causes);
                    let cause = proc_
                        .causes
                        .get(c)
                        .map(|c| c.name.clone())
                        .unwrap_or_else(|| "hardware".to_string());
                    let repair = st.cfg.repair.sample(&mut st.repairs);
                    self.fail_node(node, t, cause, repair);
                }
            }
            Event::NodeRepair { node } => self.bring_up(node, t),
            Event::TraceFail { index } => {
                let st = self.faults.as_mut().expect("faults enabled");
                let f = st.cfg.trace[index as usize].clone();
                if let Some(node) = st.trace_nodes[index as usize] {
                    if st.down[node as usize] == 0 {
                        let repair = f
                            .repair
                            .unwrap_or_else(|| st.cfg.repair.sample(&mut st.repairs));
                        self.fail_node(node, t, f.cause, repair);
                    }
                }
            }
            Event::Drain { window } => {
                for node in self.window_nodes(window) {
                    self.take_down(node, t);
                }
            }
            Event::MaintenanceStart { window } => {
                for node in self.window_nodes(window) {
                    self.kill_on_node(node, t, "maintenance", true);
                }
            }
            Event::MaintenanceEnd { window } => {
                for node in self.window_nodes(window) {
                    self.bring_up(node, t);
                }
            }
            Event::SpotNotice { node, spec } => {
                let st = self.faults.as_mut().expect("faults enabled");
                let sp = &st.cfg.spot[spec as usize];
                let (notice, replace) = (sp.notice, sp.replace_after);
                let keep = self.notice_saves(notice);
                if self
                    .faults
                    .as_ref()
                    .is_some_and(|st| st.down[node as usize] == 0)
                {
                    let st = self.faults.as_mut().expect("faults enabled");
                    *st.node_failures
                        .entry("spot interruption".to_string())
                        .or_insert(0) += 1;
                    self.kill_on_node(node, t, "spot interruption", keep);
                    self.take_down(node, t);
                    let back = t.plus(notice).plus(replace);
                    self.queue.schedule(back, Event::NodeRepair { node });
                    let st = self.faults.as_mut().expect("faults enabled");
                    if let Some(gap) = st.cfg.spot[spec as usize].next_gap(&mut st.spot_rng) {
                        self.queue
                            .schedule(back.plus(gap), Event::SpotNotice { node, spec });
                    }
                } else {
                    // The instance is already gone (e.g. a zone outage): try again later.
                    let st = self.faults.as_mut().expect("faults enabled");
                    if let Some(gap) = st.cfg.spot[spec as usize].next_gap(&mut st.spot_rng) {
                        self.queue
                            .schedule(t.plus(gap), Event::SpotNotice { node, spec });
                    }
                }
            }
            Event::SpotOutage { spec, window } => {
                let (pool, notice, zone) = self.spot_spec(spec);
                let keep = self.notice_saves(notice);
                let nodes = self.cluster.pool_nodes(pool);
                let st = self.faults.as_mut().expect("faults enabled");
                *st.node_failures
                    .entry("spot zone outage".to_string())
                    .or_insert(0) += nodes.len() as u64;
                for n in nodes {
                    self.kill_on_node(n, t, "spot zone outage", keep);
                    self.take_down(n, t);
                }
                if let Some(z) = zone {
                    let st = self.faults.as_mut().expect("faults enabled");
                    let down = exp_hours(z.mean_down_h, &mut st.spot_rng);
                    self.queue.schedule(
                        t.plus(notice).plus(down),
                        Event::SpotRestore { spec, window },
                    );
                }
            }
            Event::SpotRestore { spec, .. } => {
                let (pool, notice, zone) = self.spot_spec(spec);
                for n in self.cluster.pool_nodes(pool) {
                    self.bring_up(n, t);
                }
                if let Some(z) = zone {
                    let st = self.faults.as_mut().expect("faults enabled");
                    let up = exp_hours(z.mean_up_h, &mut st.spot_rng);
                    self.queue.schedule(
                        t.plus(up).since(notice).max(t),
                        Event::SpotOutage { spec, window: 0 },
                    );
                }
            }
            Event::JobEnd { .. }
            | Event::Wake { .. }
            | Event::NodeReady { .. }
            | Event::NodeRelease { .. }
            | Event::Autoscale
            | Event::Sample
            | Event::Horizon => {}
        }
    }

    /// Whether a job given `notice` can write a checkpoint in time (and so loses nothing).
    fn notice_saves(&self, notice: SimTime) -> bool {
        let ck = &self
            .faults
            .as_ref()
            .expect("faults enabled")
            .cfg
            .checkpointing;
        ck.policy != crate::faults::CheckpointPolicy::None && notice >= ck.write
    }

    fn window_nodes(&self, window: u32) -> std::ops::Range<u32> {
        let st = self.faults.as_ref().expect("faults enabled");
        let m = &st.cfg.maintenance[window as usize];
        let all = self.cluster.pool_nodes(m.pool);
        all.start..all.start + m.nodes.min(all.end - all.start)
    }

    /// Pool, notice and (for zone models) the on/off spells of spot spec `spec`, without
    /// copying the spec (a trace model holds every tick).
    fn spot_spec(&self, spec: u16) -> (usize, SimTime, Option<crate::pricing::ZoneOnOff>) {
        let sp = &self.faults.as_ref().expect("faults enabled").cfg.spot[spec as usize];
        let zone = match &sp.model {
            crate::faults::SpotModel::Zone(z) => Some(*z),
            _ => None,
        };
        (sp.pool, sp.notice, zone)
    }
}
