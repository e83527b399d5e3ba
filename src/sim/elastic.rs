//! The simulation side of elastic pools: which nodes are held, the autoscaler's events
//! (node ready, release check, stock change), queued demand per pool, and the held
//! intervals that billing reads. The rules themselves live in [`crate::sched::Autoscale`].
//!
//! Queued demand: each queued job counts, in milli-GPU, toward the first elastic pool (in
//! preference order) that could ever hold it. After each scheduling pass, a pool whose
//! queued demand exceeds what is being provisioned plus its wholly free nodes rents the
//! difference in nodes (once its oldest such job has waited `scale_up_after`), within its
//! maximum and the provider's stock. Cost per pass: O(pools + nodes rented) plus
//! O(log n) per job queued or started.

use super::{ElasticEvent, Event};
use crate::engine::{EventQueue, SimTime};
use crate::model::{Allocation, Cluster, Job, JobId};
use crate::sched::{Autoscale, NodeInterval};
use std::collections::BTreeSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeState {
    Off,
    Provisioning,
    Up,
}

/// Elastic pools' state.
#[derive(Debug)]
pub(super) struct Elastic {
    cfg: Vec<Option<Autoscale>>,
    gpn: Vec<u64>,
    state: Vec<NodeState>,
    jobs_on: Vec<u32>,
    idle_gen: Vec<u32>,
    idle_since: Vec<SimTime>,
    interval_of: Vec<u32>,
    intervals: Vec<NodeInterval>,
    off: Vec<Vec<u32>>,
    held: Vec<u32>,
    provisioning: Vec<u32>,
    up: Vec<u32>,
    demand: Vec<u64>,
    demand_pool: Vec<u32>,
    /// Per job: the milli-GPU it adds to its pool's demand while queued.
    demand_milli: Vec<u64>,
    waiting: Vec<BTreeSet<(SimTime, JobId)>>,
    queued_since: Vec<SimTime>,
    wake: Option<SimTime>,
}

const NONE: u32 = u32::MAX;

impl Elastic {
    /// Sets up elastic pools (nodes beyond each minimum go down); `None` when no pool is
    /// elastic.
    pub(super) fn new(
        cfg: &[Option<Autoscale>],
        cluster: &mut Cluster,
        jobs: usize,
    ) -> Option<Elastic> {
        if cfg.iter().all(Option::is_none) {
            return None;
        }
        let pools = cluster.pools().len();
        let n = cluster.node_count();
        let mut e = Elastic {
            cfg: (0..pools).map(|p| cfg.get(p).cloned().flatten()).collect(),
            gpn: cluster
                .pools()
                .iter()
                .map(|p| p.spec.node.gpus as u64)
                .collect(),
            state: vec![NodeState::Up; n],
            jobs_on: vec![0; n],
            idle_gen: vec![0; n],
            idle_since: vec![SimTime::ZERO; n],
            interval_of: vec![NONE; n],
            intervals: Vec::new(),
            off: vec![Vec::new(); pools],
            held: vec![0; pools],
            provisioning: vec![0; pools],
            up: cluster.pools().iter().map(|p| p.spec.nodes).collect(),
            demand: vec![0; pools],
            demand_pool: vec![NONE; jobs],
            demand_milli: vec![0; jobs],
            waiting: vec![BTreeSet::new(); pools],
            queued_since: vec![SimTime::ZERO; jobs],
            wake: None,
        };
        for p in 0..pools {
            let Some(a) = e.cfg[p].clone() else { continue };
            let pool = &cluster.pools()[p];
            let (first, nodes) = (pool.first_node, pool.spec.nodes);
            let min = a.min_nodes.min(nodes);
            for i in (0..nodes).rev() {
                let node = first + i;
                if i < min {
                    e.interval_of[node as usize] = e.intervals.len() as u32;
                    e.intervals.push(NodeInterval {
                        pool: p as u32,
                        node,
                        requested: SimTime::ZERO,
                        ready: SimTime::ZERO,
                        released: None,
                    });
                } else {
                    cluster.set_up(node, false);
                    e.state[node as usize] = NodeState::Off;
                    e.off[p].push(node);
                }
            }
            e.held[p] = min;
            e.up[p] = min;
        }
        e.intervals.sort_by_key(|i| i.node);
        for (k, i) in e.intervals.iter().enumerate() {
            e.interval_of[i.node as usize] = k as u32;
        }
        Some(e)
    }

    /// Job `id` joined the queue (arrival or requeue) at `t`: it counts toward the first
    /// of its eligible pools `sim_pools` that is elastic and could ever hold it.
    pub(super) fn queued(
        &mut self,
        id: JobId,
        job: &Job,
        t: SimTime,
        sim_pools: impl Iterator<Item = usize>,
        cluster: &Cluster,
    ) {
        for p in sim_pools {
            if self.cfg[p].is_some()
                && cluster
                    .nodes_needed(p, job.gpus, job.cpu_milli, job.mem_mib)
                    .is_some()
            {
                let milli = job.gpus.milli().max(1);
                self.demand[p] += milli;
                self.demand_milli[id as usize] = milli;
                self.demand_pool[id as usize] = p as u32;
                self.queued_since[id as usize] = t;
                self.waiting[p].insert((t, id));
                return;
            }
        }
    }

    fn dequeue(&mut self, id: JobId) {
        let p = std::mem::replace(&mut self.demand_pool[id as usize], NONE);
        if p != NONE {
            self.demand[p as usize] -= self.demand_milli[id as usize];
            self.waiting[p as usize].remove(&(self.queued_since[id as usize], id));
        }
    }

    /// Job `id` started with `alloc`.
    pub(super) fn started(&mut self, id: JobId, alloc: &Allocation) {
        self.dequeue(id);
        if self.cfg[alloc.pool as usize].is_some() {
            for &(n, _, _) in &alloc.hosts {
                self.jobs_on[n as usize] += 1;
                self.idle_gen[n as usize] = self.idle_gen[n as usize].wrapping_add(1);
            }
        }
    }

    /// A run holding `alloc` ended or was stopped at `t`: nodes it leaves idle get a
    /// release check.
    pub(super) fn freed(&mut self, alloc: &Allocation, t: SimTime, queue: &mut EventQueue<Event>) {
        let p = alloc.pool as usize;
        let Some(a) = self.cfg[p].as_ref() else {
            return;
        };
        for &(n, _, _) in &alloc.hosts {
            let i = n as usize;
            self.jobs_on[i] -= 1;
            if self.jobs_on[i] == 0 {
                self.idle_since[i] = t;
            }
            if self.jobs_on[i] == 0 && self.state[i] == NodeState::Up && self.interval_of[i] != NONE
            {
                let iv = self.intervals[self.interval_of[i] as usize];
                let at = a.release_at(iv.requested, t);
                queue.schedule(
                    at,
                    Event::Elastic(ElasticEvent::NodeRelease {
                        node: n,
                        gen: self.idle_gen[i],
                    }),
                );
            }
        }
    }

    /// False when `node` belongs to an elastic pool that does not hold it now (failure
    /// repairs must not bring such a node up).
    pub(super) fn holds(&self, node: u32) -> bool {
        self.state[node as usize] == NodeState::Up
    }

    /// Handles one of the part's events at `t`; `failed` says whether a failure holds the
    /// event's node down (a node a failure took down comes up when it is repaired).
    /// Returns true when the cluster's capacity changed (policies must not trust what they
    /// cached).
    pub(super) fn on_event(
        &mut self,
        ev: ElasticEvent,
        t: SimTime,
        failed: bool,
        cluster: &mut Cluster,
        queue: &mut EventQueue<Event>,
    ) -> bool {
        match ev {
            ElasticEvent::NodeReady { node } => self.node_ready(node, t, failed, cluster, queue),
            ElasticEvent::NodeRelease { node, gen } => self.node_release(node, gen, t, cluster),
            ElasticEvent::Autoscale => false,
        }
    }

    fn node_ready(
        &mut self,
        node: u32,
        t: SimTime,
        failed: bool,
        cluster: &mut Cluster,
        queue: &mut EventQueue<Event>,
    ) -> bool {
        let i = node as usize;
        if self.state[i] != NodeState::Provisioning {
            return false;
        }
        let p = cluster.pool_of(node) as usize;
        self.state[i] = NodeState::Up;
        self.provisioning[p] -= 1;
        self.up[p] += 1;
        let k = self.interval_of[i] as usize;
        self.intervals[k].ready = t;
        self.idle_since[i] = t;
        if !failed {
            cluster.set_up(node, true);
        }
        if let Some(a) = self.cfg[p].as_ref() {
            let at = a.release_at(self.intervals[k].requested, t);
            queue.schedule(
                at,
                Event::Elastic(ElasticEvent::NodeRelease {
                    node,
                    gen: self.idle_gen[i],
                }),
            );
        }
        true
    }

    fn node_release(&mut self, node: u32, gen: u32, t: SimTime, cluster: &mut Cluster) -> bool {
        let i = node as usize;
        let p = cluster.pool_of(node) as usize;
        let min = self.cfg[p].as_ref().map_or(u32::MAX, |a| a.min_nodes);
        if self.state[i] != NodeState::Up
            || self.idle_gen[i] != gen
            || self.jobs_on[i] != 0
            || self.held[p] <= min
        {
            return false;
        }
        self.state[i] = NodeState::Off;
        self.held[p] -= 1;
        self.up[p] -= 1;
        let k = std::mem::replace(&mut self.interval_of[i], NONE) as usize;
        self.intervals[k].released = Some(t);
        self.off[p].push(node);
        cluster.set_up(node, false);
        true
    }

    /// Takes out of pool `p`'s demand the queued jobs `refused` says a budget cap keeps off
    /// it, oldest first, until the jobs kept add up to more than `enough` milli-GPU (more
    /// would rent nothing more). A cap only tightens (commitments are never given back)
    /// and a queued job's commitment does not change while it waits, so a job refused now
    /// is refused for as long as it waits: it leaves the demand for good (until it is
    /// queued again), and each job is taken out at most once per wait. Without this the
    /// autoscaler rented, let go idle and rented again, for as long as the run lasted,
    /// nodes for jobs that could never start on them.
    fn drop_refused(
        waiting: &mut BTreeSet<(SimTime, JobId)>,
        demand: &mut u64,
        demand_pool: &mut [u32],
        demand_milli: &[u64],
        (p, enough): (usize, u64),
        refused: &dyn Fn(JobId, usize) -> bool,
    ) {
        let mut out = Vec::new();
        let mut kept = 0u64;
        for &(since, id) in waiting.iter() {
            if refused(id, p) {
                out.push((since, id));
            } else {
                kept += demand_milli[id as usize];
                if kept > enough {
                    break;
                }
            }
        }
        for (since, id) in out {
            waiting.remove(&(since, id));
            *demand -= demand_milli[id as usize];
            demand_pool[id as usize] = NONE;
        }
    }

    /// After a pass at `t`: rents nodes for queued demand that could not start. With a
    /// budget cap, `refused` says which queued jobs the cap keeps off a pool (see
    /// [`Elastic::drop_refused`]); they are not rented for.
    pub(super) fn autoscale(
        &mut self,
        t: SimTime,
        cluster: &Cluster,
        queue: &mut EventQueue<Event>,
        refused: Option<&dyn Fn(JobId, usize) -> bool>,
    ) {
        let mut wake: Option<SimTime> = None;
        for p in 0..self.cfg.len() {
            let Some(a) = self.cfg[p].as_ref() else {
                continue;
            };
            if self.demand[p] == 0 {
                continue;
            }
            if let Some(&(since, _)) = self.waiting[p].first() {
                let due = since.plus(a.scale_up_after);
                if due > t {
                    wake = Some(wake.map_or(due, |w: SimTime| w.min(due)));
                    continue;
                }
            }
            let node_milli = self.gpn[p].max(1) * 1000;
            let coming =
                (self.provisioning[p] as u64 + cluster.free_nodes(p).len() as u64) * node_milli;
            if self.demand[p] <= coming {
                continue;
            }
            let room =
                (self.off[p].len() as u64).min(a.stock(t).saturating_sub(self.held[p]) as u64);
            if let Some(refused) = refused.filter(|_| room > 0) {
                Self::drop_refused(
                    &mut self.waiting[p],
                    &mut self.demand[p],
                    &mut self.demand_pool,
                    &self.demand_milli,
                    (p, coming + room * node_milli),
                    refused,
                );
                // The oldest job left may not have waited long enough yet.
                match self.waiting[p].first() {
                    Some(&(since, _)) if since.plus(a.scale_up_after) > t => {
                        let due = since.plus(a.scale_up_after);
                        wake = Some(wake.map_or(due, |w: SimTime| w.min(due)));
                        continue;
                    }
                    _ => {}
                }
                if self.demand[p] <= coming {
                    continue;
                }
            }
            let want = (self.demand[p] - coming).div_ceil(node_milli);
            if want > room {
                if let Some(c) = a.next_stock_change(t) {
                    wake = Some(wake.map_or(c, |w: SimTime| w.min(c)));
                }
            }
            let ready = t.plus(a.provisioning_delay);
            for _ in 0..want.min(room) {
                let Some(node) = self.off[p].pop() else {
                    break;
                };
                self.state[node as usize] = NodeState::Provisioning;
                self.held[p] += 1;
                self.provisioning[p] += 1;
                self.interval_of[node as usize] = self.intervals.len() as u32;
                self.intervals.push(NodeInterval {
                    pool: p as u32,
                    node,
                    requested: t,
                    ready,
                    released: None,
                });
                queue.schedule(ready, Event::Elastic(ElasticEvent::NodeReady { node }));
            }
        }
        if let Some(w) = wake {
            if self.wake.is_none_or(|x| x <= t || w < x) {
                self.wake = Some(w);
                queue.schedule(w, Event::Elastic(ElasticEvent::Autoscale));
            }
        }
    }

    /// Nodes up in pool `p` (held and ready), `None` for a fixed pool.
    pub(super) fn up_nodes(&self, p: usize) -> Option<u64> {
        self.cfg[p].as_ref().map(|_| self.up[p] as u64)
    }

    /// At the end of a run without a horizon (all work done): every rented node still
    /// held is released when the autoscaler would release it (its idle timeout and paid
    /// block, counted from its last job or from its readiness), so that the bill covers
    /// what a real fleet would pay for.
    pub(super) fn wind_down(&mut self) {
        for k in 0..self.intervals.len() {
            let iv = self.intervals[k];
            let p = iv.pool as usize;
            let Some(a) = self.cfg[p].as_ref() else {
                continue;
            };
            let i = iv.node as usize;
            if iv.released.is_some() || self.jobs_on[i] != 0 || self.held[p] <= a.min_nodes {
                continue;
            }
            let idle = match self.state[i] {
                NodeState::Up => self.idle_since[i],
                NodeState::Provisioning => iv.ready,
                NodeState::Off => continue,
            };
            self.intervals[k].released = Some(a.release_at(iv.requested, idle));
            self.state[i] = NodeState::Off;
            self.held[p] -= 1;
        }
    }

    /// At the end: (provisioned GPU-ms, billed node-ms) of pool `p` from its intervals,
    /// `None` for a fixed pool.
    pub(super) fn usage(&self, p: usize, end: SimTime) -> Option<(u128, u128)> {
        let a = self.cfg[p].as_ref()?;
        let mut prov = 0u128;
        let mut billed = 0u128;
        for iv in self.intervals.iter().filter(|iv| iv.pool == p as u32) {
            // Held to the end (a horizon), or to a release after the last job (wind-down).
            let rel = iv.released.unwrap_or(end);
            if iv.ready < rel {
                prov += self.gpn[p] as u128 * rel.since(iv.ready).0 as u128;
            }
            if iv.requested < end {
                billed += a.billed(iv.requested, rel).0 as u128;
            }
        }
        Some((prov, billed))
    }

    /// The held intervals of the elastic pools' nodes, for billing.
    pub(super) fn into_intervals(self) -> Vec<NodeInterval> {
        self.intervals
    }
}
