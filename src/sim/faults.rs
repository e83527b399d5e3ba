//! The faults part: node failures and repairs, failure traces, planned maintenance and
//! spot interruptions. It owns which nodes are down and why, the failure streams, the
//! jobs on each node (the victims of a node's failure) and the counts; on each of its
//! events it says what strikes which nodes ([`Strike`]), and the core kills the jobs there
//! and takes the nodes down or brings them up.
//!
//! Exists only when a scenario configures failures or checkpointing, so the common case
//! pays nothing for it.

use super::{CheckpointMove, DownSpan, Event, FaultEvent, FaultSummary};
use crate::engine::{EventQueue, RngStreams, SimRng, SimTime};
use crate::faults::{FaultConfig, SpotModel};
use crate::model::{Allocation, Cluster, JobId};
use indexmap::IndexMap;
use std::ops::Range;

/// The failure streams of one pool, keyed by the pool's name ("failures/<pool>", ...),
/// so that adding a pool does not shift another pool's draws.
struct Streams {
    gaps: SimRng,
    repairs: SimRng,
    causes: SimRng,
    spot: SimRng,
}

impl Streams {
    fn of(streams: &RngStreams, pool: &str) -> Streams {
        Streams {
            gaps: streams.keyed("failures", pool),
            repairs: streams.keyed("repairs", pool),
            causes: streams.keyed("failure-causes", pool),
            spot: streams.keyed("spot", pool),
        }
    }
}

/// Failure state of a run.
pub(super) struct Faults {
    cfg: FaultConfig,
    /// Per pool.
    rng: Vec<Streams>,
    /// Jobs on each node (few per node; kept sorted).
    node_jobs: Vec<Vec<JobId>>,
    /// Reasons each node is down (failure, drain); up when zero.
    down: Vec<u8>,
    down_since: Vec<SimTime>,
    down_ms: Vec<u128>,
    /// Resolved node of each trace failure (None: out of range, ignored).
    trace_nodes: Vec<Option<u32>>,
    node_failures: IndexMap<String, u64>,
    interruptions: IndexMap<String, u64>,
    /// Per pool: spot capacity (its nodes' down spans are kept for billing).
    spot_pool: Vec<bool>,
    /// Per node of a spot pool: the provider's reclaim time of its current down span.
    reclaim: Vec<Option<SimTime>>,
    /// Down spans of spot nodes, in the order they ended.
    spot_down: Vec<DownSpan>,
}

/// What happens to the nodes a fault event strikes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NodeChange {
    /// They go down (one more reason to be down).
    Down,
    /// One reason to be down is gone.
    Up,
    /// Nothing.
    Same,
}

/// Jobs killed by a strike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Kill {
    /// The cause, as counted in interruptions.
    pub cause: String,
    /// The jobs had notice enough to write a checkpoint: they lose nothing.
    pub keep_all: bool,
}

/// What a fault event does, for the core to carry out: node by node, kill the jobs on
/// it (if `kill`), then apply `change`; then schedule `then`, in order.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Strike {
    /// The nodes struck.
    pub nodes: Range<u32>,
    /// Jobs on them are killed.
    pub kill: Option<Kill>,
    /// What happens to the nodes.
    pub change: NodeChange,
    /// Events to schedule afterwards.
    pub then: [Option<(SimTime, FaultEvent)>; 2],
    /// When the provider reclaims the nodes, if it is taking them away (the end of a spot
    /// notice): their instances are billed until then.
    pub reclaim: Option<SimTime>,
}

impl Strike {
    /// Strikes nothing.
    fn none() -> Strike {
        Strike::on(0..0, None, NodeChange::Same)
    }

    fn on(nodes: Range<u32>, kill: Option<Kill>, change: NodeChange) -> Strike {
        Strike {
            nodes,
            kill,
            change,
            then: [None, None],
            reclaim: None,
        }
    }

    fn reclaimed_at(mut self, at: SimTime) -> Strike {
        self.reclaim = Some(at);
        self
    }

    fn then(mut self, at: SimTime, ev: FaultEvent) -> Strike {
        let slot = if self.then[0].is_none() { 0 } else { 1 };
        self.then[slot] = Some((at, ev));
        self
    }
}

/// An exponential spell with the given mean in hours.
fn exp_hours(mean_h: f64, rng: &mut SimRng) -> SimTime {
    use rand::Rng;
    let u: f64 = rng.random::<f64>();
    SimTime::from_hours_f64(-(1.0 - u).ln() * mean_h).max(SimTime(1))
}

fn kill(cause: &str, keep_all: bool) -> Option<Kill> {
    Some(Kill {
        cause: cause.to_string(),
        keep_all,
    })
}

impl Faults {
    /// Failures of `cfg` over `cluster`, drawn from `streams`; schedules the first
    /// failures, trace failures, spot events and maintenance windows.
    pub(super) fn new(
        cfg: FaultConfig,
        streams: &RngStreams,
        cluster: &Cluster,
        queue: &mut EventQueue<Event>,
    ) -> Faults {
        let nodes = cluster.node_count();
        let mut f = Faults {
            rng: cluster
                .pools()
                .iter()
                .map(|p| Streams::of(streams, &p.spec.name))
                .collect(),
            node_jobs: vec![Vec::new(); nodes],
            down: vec![0; nodes],
            down_since: vec![SimTime::ZERO; nodes],
            down_ms: vec![0; cluster.pools().len()],
            trace_nodes: Vec::new(),
            node_failures: IndexMap::new(),
            interruptions: IndexMap::new(),
            spot_pool: cluster
                .pools()
                .iter()
                .map(|p| p.spec.kind == crate::model::CapacityKind::Spot)
                .collect(),
            reclaim: vec![None; nodes],
            spot_down: Vec::new(),
            cfg,
        };
        f.schedule_failures(cluster, queue);
        f.schedule_trace(cluster, queue);
        f.schedule_spot(cluster, queue);
        for (w, m) in f.cfg.maintenance.iter().enumerate() {
            let window = w as u32;
            let at = |ev| Event::Fault(ev);
            queue.schedule(m.start.since(m.notice), at(FaultEvent::Drain { window }));
            queue.schedule(m.start, at(FaultEvent::MaintenanceStart { window }));
            queue.schedule(
                m.start.plus(m.duration),
                at(FaultEvent::MaintenanceEnd { window }),
            );
        }
        f
    }

    fn schedule_failures(&mut self, cluster: &Cluster, queue: &mut EventQueue<Event>) {
        for (pi, (proc_, pools)) in self.cfg.processes.iter().enumerate() {
            for (p, pool) in cluster.pools().iter().enumerate() {
                if !pools.is_empty() && !pools.contains(&p) {
                    continue;
                }
                for k in 0..pool.spec.nodes {
                    let gap = proc_.next_gap(pool.spec.node.gpus, &mut self.rng[p].gaps);
                    if gap != SimTime::NEVER {
                        let node = pool.first_node + k;
                        let process = pi as u16;
                        queue.schedule(gap, Event::Fault(FaultEvent::NodeFail { node, process }));
                    }
                }
            }
        }
    }

    fn schedule_trace(&mut self, cluster: &Cluster, queue: &mut EventQueue<Event>) {
        let nodes = cluster.node_count();
        for (i, f) in self.cfg.trace.iter().enumerate() {
            let node = match &f.pool {
                None => ((f.node as usize) < nodes).then_some(f.node),
                Some(name) => cluster
                    .pools()
                    .iter()
                    .find(|p| &p.spec.name == name)
                    .filter(|p| f.node < p.spec.nodes)
                    .map(|p| p.first_node + f.node),
            };
            self.trace_nodes.push(node);
            let index = i as u32;
            queue.schedule(f.time, Event::Fault(FaultEvent::TraceFail { index }));
        }
    }

    fn schedule_spot(&mut self, cluster: &Cluster, queue: &mut EventQueue<Event>) {
        for (k, spec) in self.cfg.spot.iter().enumerate() {
            let (Some(pool), Some(rng)) =
                (cluster.pools().get(spec.pool), self.rng.get_mut(spec.pool))
            else {
                continue;
            };
            let s = k as u16;
            match &spec.model {
                SpotModel::Poisson(_) | SpotModel::Bathtub(_) => {
                    for n in 0..pool.spec.nodes {
                        if let Some(gap) = spec.next_gap(&mut rng.spot) {
                            let node = pool.first_node + n;
                            let ev = FaultEvent::SpotNotice { node, spec: s };
                            queue.schedule(gap, Event::Fault(ev));
                        }
                    }
                }
                SpotModel::Zone(z) => {
                    let up = exp_hours(z.mean_up_h, &mut rng.spot);
                    let ev = FaultEvent::SpotOutage { spec: s, window: 0 };
                    queue.schedule(up.since(spec.notice), Event::Fault(ev));
                }
                SpotModel::Trace(_) => {
                    for (w, (start, end)) in spec.trace_outages().into_iter().enumerate() {
                        let window = w as u32;
                        let ev = FaultEvent::SpotOutage { spec: s, window };
                        queue.schedule(start.since(spec.notice), Event::Fault(ev));
                        if end != SimTime::NEVER {
                            let ev = FaultEvent::SpotRestore { spec: s, window };
                            queue.schedule(end, Event::Fault(ev));
                        }
                    }
                }
            }
        }
    }

    /// Job `id` started a run holding `alloc`.
    pub(super) fn run_started(&mut self, id: JobId, alloc: &Allocation) {
        for &(n, _, _) in &alloc.hosts {
            let v = &mut self.node_jobs[n as usize];
            if let Err(pos) = v.binary_search(&id) {
                v.insert(pos, id);
            }
        }
    }

    /// Job `id`'s run holding `alloc` ended or was stopped.
    pub(super) fn run_ended(&mut self, id: JobId, alloc: &Allocation) {
        for &(n, _, _) in &alloc.hosts {
            let v = &mut self.node_jobs[n as usize];
            if let Ok(pos) = v.binary_search(&id) {
                v.remove(pos);
            }
        }
    }

    /// The jobs running on `node`, in id order.
    pub(super) fn jobs_on(&self, node: u32) -> &[JobId] {
        &self.node_jobs[node as usize]
    }

    /// True while a failure, maintenance or an interruption holds `node` down.
    pub(super) fn is_down(&self, node: u32) -> bool {
        self.down[node as usize] > 0
    }

    /// Counts `n` jobs killed by `cause`.
    pub(super) fn count_interruptions(&mut self, cause: &str, n: u64) {
        if n > 0 {
            *self.interruptions.entry(cause.to_string()).or_insert(0) += n;
        }
    }

    /// One more reason for `node` to be down from `t` (`reclaim`: the provider takes its
    /// instance back then); true when it just went down.
    pub(super) fn take_down(&mut self, node: u32, t: SimTime, reclaim: Option<SimTime>) -> bool {
        let d = &mut self.down[node as usize];
        *d += 1;
        if *d == 1 {
            self.down_since[node as usize] = t;
            self.reclaim[node as usize] = reclaim;
        }
        *d == 1
    }

    /// One reason fewer for `node` (of pool `pool`) to be down at `t`; true when it is
    /// now up.
    pub(super) fn bring_up(&mut self, node: u32, pool: usize, t: SimTime) -> bool {
        let d = &mut self.down[node as usize];
        if *d == 0 {
            return false;
        }
        *d -= 1;
        if *d > 0 {
            return false;
        }
        self.down_ms[pool] += t.since(self.down_since[node as usize]).0 as u128;
        if self.spot_pool.get(pool).copied().unwrap_or(false) {
            self.spot_down.push(DownSpan {
                node,
                pool: pool as u32,
                from: self.down_since[node as usize],
                to: t,
                reclaimed: self.reclaim[node as usize],
            });
        }
        true
    }

    /// Whether a job given `notice` can write a checkpoint in time (and so loses nothing).
    fn notice_saves(&self, notice: SimTime) -> bool {
        let ck = &self.cfg.checkpointing;
        ck.policy != crate::faults::CheckpointPolicy::None && notice >= ck.write
    }

    /// A node failure of `node` at `t` with `cause`, repaired after `repair`.
    fn fail(&mut self, node: u32, t: SimTime, cause: String, repair: SimTime) -> Strike {
        *self.node_failures.entry(cause.clone()).or_insert(0) += 1;
        let kill = Some(Kill {
            cause,
            keep_all: false,
        });
        Strike::on(node..node + 1, kill, NodeChange::Down)
            .then(t.plus(repair), FaultEvent::NodeRepair { node })
    }

    /// Handles one of the part's events at `t`, drawing what it needs and scheduling the
    /// process's next event; returns what strikes the cluster.
    pub(super) fn on_event(
        &mut self,
        ev: FaultEvent,
        t: SimTime,
        cluster: &Cluster,
        queue: &mut EventQueue<Event>,
    ) -> Strike {
        match ev {
            FaultEvent::NodeFail { node, process } => {
                let p = cluster.pool_of(node) as usize;
                let gpus = cluster.pools()[p].spec.node.gpus;
                let proc_ = &self.cfg.processes[process as usize].0;
                let rng = &mut self.rng[p];
                let gap = proc_.next_gap(gpus, &mut rng.gaps);
                if gap != SimTime::NEVER {
                    let ev = FaultEvent::NodeFail { node, process };
                    queue.schedule(t.plus(gap), Event::Fault(ev));
                }
                // A node already down cannot fail again until it is back.
                if self.down[node as usize] > 0 {
                    return Strike::none();
                }
                let c = proc_.draw_cause(&mut rng.causes);
                let cause = proc_
                    .causes
                    .get(c)
                    .map(|c| c.name.clone())
                    .unwrap_or_else(|| "hardware".to_string());
                let repair = self.cfg.repair.sample(&mut rng.repairs);
                self.fail(node, t, cause, repair)
            }
            FaultEvent::NodeRepair { node } => Strike::on(node..node + 1, None, NodeChange::Up),
            FaultEvent::TraceFail { index } => {
                let Some(node) = self.trace_nodes[index as usize] else {
                    return Strike::none();
                };
                if self.is_down(node) {
                    return Strike::none();
                }
                let f = &self.cfg.trace[index as usize];
                let cause = f.cause.clone();
                let repair = match f.repair {
                    Some(r) => r,
                    None => {
                        let p = cluster.pool_of(node) as usize;
                        self.cfg.repair.sample(&mut self.rng[p].repairs)
                    }
                };
                self.fail(node, t, cause, repair)
            }
            FaultEvent::Drain { window } => {
                Strike::on(self.window_nodes(window, cluster), None, NodeChange::Down)
            }
            FaultEvent::MaintenanceStart { window } => Strike::on(
                self.window_nodes(window, cluster),
                kill("maintenance", true),
                NodeChange::Same,
            ),
            FaultEvent::MaintenanceEnd { window } => {
                Strike::on(self.window_nodes(window, cluster), None, NodeChange::Up)
            }
            FaultEvent::SpotNotice { node, spec } => {
                let sp = &self.cfg.spot[spec as usize];
                let (notice, replace) = (sp.notice, sp.replace_after);
                let keep = self.notice_saves(notice);
                let down = self.is_down(node);
                let Some(rng) = self.rng.get_mut(sp.pool) else {
                    return Strike::none();
                };
                if down {
                    // The instance is already gone (e.g. a zone outage): try again later.
                    if let Some(gap) = sp.next_gap(&mut rng.spot) {
                        let ev = FaultEvent::SpotNotice { node, spec };
                        queue.schedule(t.plus(gap), Event::Fault(ev));
                    }
                    return Strike::none();
                }
                let back = t.plus(notice).plus(replace);
                let next = sp.next_gap(&mut rng.spot);
                *self
                    .node_failures
                    .entry("spot interruption".to_string())
                    .or_insert(0) += 1;
                let s = Strike::on(
                    node..node + 1,
                    kill("spot interruption", keep),
                    NodeChange::Down,
                )
                .reclaimed_at(t.plus(notice))
                .then(back, FaultEvent::NodeRepair { node });
                match next {
                    Some(gap) => s.then(back.plus(gap), FaultEvent::SpotNotice { node, spec }),
                    None => s,
                }
            }
            FaultEvent::SpotOutage { spec, window } => {
                let sp = &self.cfg.spot[spec as usize];
                let (pool, notice) = (sp.pool, sp.notice);
                let zone = match &sp.model {
                    SpotModel::Zone(z) => Some(*z),
                    _ => None,
                };
                let keep = self.notice_saves(notice);
                let nodes = pool_nodes(cluster, pool);
                *self
                    .node_failures
                    .entry("spot zone outage".to_string())
                    .or_insert(0) += nodes.len() as u64;
                let s = Strike::on(nodes, kill("spot zone outage", keep), NodeChange::Down)
                    .reclaimed_at(t.plus(notice));
                match zone {
                    Some(z) => {
                        let down = exp_hours(z.mean_down_h, &mut self.rng[pool].spot);
                        s.then(
                            t.plus(notice).plus(down),
                            FaultEvent::SpotRestore { spec, window },
                        )
                    }
                    None => s,
                }
            }
            FaultEvent::SpotRestore { spec, .. } => {
                let sp = &self.cfg.spot[spec as usize];
                let s = Strike::on(pool_nodes(cluster, sp.pool), None, NodeChange::Up);
                match &sp.model {
                    SpotModel::Zone(z) => {
                        let up = exp_hours(z.mean_up_h, &mut self.rng[sp.pool].spot);
                        s.then(
                            t.plus(up).since(sp.notice).max(t),
                            FaultEvent::SpotOutage { spec, window: 0 },
                        )
                    }
                    _ => s,
                }
            }
        }
    }

    /// The nodes of maintenance window `window` (its pool's first nodes).
    fn window_nodes(&self, window: u32, cluster: &Cluster) -> Range<u32> {
        let m = &self.cfg.maintenance[window as usize];
        let all = pool_nodes(cluster, m.pool);
        all.start..all.start + m.nodes.min(all.end - all.start)
    }

    /// Final counts, with the `transfers` of moved checkpoints; nodes still down count
    /// their downtime to `end`.
    pub(super) fn summary(
        &self,
        end: SimTime,
        cluster: &Cluster,
        transfers: Vec<CheckpointMove>,
    ) -> FaultSummary {
        let mut down = self.down_ms.clone();
        let mut spot_down = self.spot_down.clone();
        for (n, &d) in self.down.iter().enumerate() {
            if d > 0 {
                let p = cluster.pool_of(n as u32) as usize;
                down[p] += end.since(self.down_since[n]).0 as u128;
                if self.spot_pool[p] {
                    spot_down.push(DownSpan {
                        node: n as u32,
                        pool: p as u32,
                        from: self.down_since[n],
                        to: end.max(self.down_since[n]),
                        reclaimed: self.reclaim[n],
                    });
                }
            }
        }
        let list = |m: &IndexMap<String, u64>| m.iter().map(|(k, v)| (k.clone(), *v)).collect();
        FaultSummary {
            node_failures: list(&self.node_failures),
            interruptions: list(&self.interruptions),
            down_node_ms: down,
            transfers,
            spot_down,
        }
    }
}

/// The nodes of pool `p` (none for a pool the cluster does not have).
fn pool_nodes(cluster: &Cluster, p: usize) -> Range<u32> {
    if p < cluster.pools().len() {
        cluster.pool_nodes(p)
    } else {
        0..0
    }
}

#[cfg(test)]
#[path = "faults_tests.rs"]
mod tests;
