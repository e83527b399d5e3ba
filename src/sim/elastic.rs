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

use super::{Event, Simulation};
use crate::engine::SimTime;
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
    pub(super) intervals: Vec<NodeInterval>,
    off: Vec<Vec<u32>>,
    held: Vec<u32>,
    provisioning: Vec<u32>,
    pub(super) up: Vec<u32>,
    demand: Vec<u64>,
    demand_pool: Vec<u32>,
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

    /// A job joins the queue at `t`: counts toward its first possible elastic pool.
    fn enqueue(
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
                self.demand[p] += job.gpus.milli().max(1);
                self.demand_pool[id as usize] = p as u32;
                self.queued_since[id as usize] = t;
                self.waiting[p].insert((t, id));
                return;
            }
        }
    }

    fn dequeue(&mut self, id: JobId, job: &Job) {
        let p = std::mem::replace(&mut self.demand_pool[id as usize], NONE);
        if p != NONE {
            self.demand[p as usize] -= job.gpus.milli().max(1);
            self.waiting[p as usize].remove(&(self.queued_since[id as usize], id));
        }
    }
}

impl Simulation<'_> {
    /// Hook: job `id` was queued (arrival or requeue) at `t`.
    pub(super) fn elastic_queued(&mut self, id: JobId, t: SimTime) {
        if let Some(e) = self.elastic.as_mut() {
            let job = &self.workload.jobs[id as usize];
            e.enqueue(
                id,
                job,
                t,
                self.pools.eligible(job).collect::<Vec<_>>().into_iter(),
                &self.cluster,
            );
        }
    }

    /// Hook: job `id` started with `alloc`.
    pub(super) fn elastic_started(&mut self, id: JobId, alloc: &Allocation) {
        if let Some(e) = self.elastic.as_mut() {
            e.dequeue(id, &self.workload.jobs[id as usize]);
            if e.cfg[alloc.pool as usize].is_some() {
                for &(n, _, _) in &alloc.hosts {
                    e.jobs_on[n as usize] += 1;
                    e.idle_gen[n as usize] = e.idle_gen[n as usize].wrapping_add(1);
                }
            }
        }
    }

    /// Hook: a run holding `alloc` ended or was stopped at `t`.
    pub(super) fn elastic_freed(&mut self, alloc: &Allocation, t: SimTime) {
        let Some(e) = self.elastic.as_mut() else {
            return;
        };
        let p = alloc.pool as usize;
        let Some(a) = e.cfg[p].as_ref() else { return };
        for &(n, _, _) in &alloc.hosts {
            let i = n as usize;
            e.jobs_on[i] -= 1;
            if e.jobs_on[i] == 0 {
                e.idle_since[i] = t;
            }
            if e.jobs_on[i] == 0 && e.state[i] == NodeState::Up && e.interval_of[i] != NONE {
                let iv = e.intervals[e.interval_of[i] as usize];
                let at = a.release_at(iv.requested, t);
                self.queue.schedule(
                    at,
                    Event::NodeRelease {
                        node: n,
                        gen: e.idle_gen[i],
                    },
                );
            }
        }
    }

    /// True unless `node` belongs to an elastic pool that does not hold it now (failure
    /// repairs must not bring such a node up).
    pub(super) fn elastic_holds(&self, node: u32) -> bool {
        self.elastic
            .as_ref()
            .is_none_or(|e| e.state[node as usize] == NodeState::Up)
    }

    /// Event: a requested node is ready.
    pub(super) fn node_ready(&mut self, node: u32, t: SimTime) {
        let Some(e) = self.elastic.as_mut() else {
            return;
        };
        let i = node as usize;
        if e.state[i] != NodeState::Provisioning {
            return;
        }
        let p = self.cluster.pool_of(node) as usize;
        e.state[i] = NodeState::Up;
        e.provisioning[p] -= 1;
        e.up[p] += 1;
        let k = e.interval_of[i] as usize;
        e.intervals[k].ready = t;
        e.idle_since[i] = t;
        // A node a failure took down comes up when it is repaired.
        let failed = self
            .faults
            .as_ref()
            .is_some_and(|f| f.down[node as usize] > 0);
        if !failed {
            self.cluster.set_up(node, true);
        }
        if let Some(a) = e.cfg[p].as_ref() {
            let at = a.release_at(e.intervals[k].requested, t);
            self.queue.schedule(
                at,
                Event::NodeRelease {
                    node,
                    gen: e.idle_gen[i],
                },
            );
        }
        self.policy.invalidate();
    }

    /// Event: release check of an idle node.
    pub(super) fn node_release(&mut self, node: u32, gen: u32, t: SimTime) {
        let Some(e) = self.elastic.as_mut() else {
            return;
        };
        let i = node as usize;
        let p = self.cluster.pool_of(node) as usize;
        let min = e.cfg[p].as_ref().map_or(u32::MAX, |a| a.min_nodes);
        if e.state[i] != NodeState::Up
            || e.idle_gen[i] != gen
            || e.jobs_on[i] != 0
            || e.held[p] <= min
        {
            return;
        }
        e.state[i] = NodeState::Off;
        e.held[p] -= 1;
        e.up[p] -= 1;
        let k = std::mem::replace(&mut e.interval_of[i], NONE) as usize;
        e.intervals[k].released = Some(t);
        e.off[p].push(node);
        self.cluster.set_up(node, false);
        self.policy.invalidate();
    }

    /// After a pass: rent nodes for queued demand that could not start.
    pub(super) fn autoscale(&mut self, t: SimTime) {
        let Some(e) = self.elastic.as_mut() else {
            return;
        };
        let mut wake: Option<SimTime> = None;
        for p in 0..e.cfg.len() {
            let Some(a) = e.cfg[p].as_ref() else { continue };
            if e.demand[p] == 0 {
                continue;
            }
            if let Some(&(since, _)) = e.waiting[p].first() {
                let due = since.plus(a.scale_up_after);
                if due > t {
                    wake = Some(wake.map_or(due, |w: SimTime| w.min(due)));
                    continue;
                }
            }
            let node_milli = e.gpn[p].max(1) * 1000;
            let coming =
                (e.provisioning[p] as u64 + self.cluster.free_nodes(p).len() as u64) * node_milli;
            if e.demand[p] <= coming {
                continue;
            }
            let want = (e.demand[p] - coming).div_ceil(node_milli);
            let room = (e.off[p].len() as u64).min(a.stock(t).saturating_sub(e.held[p]) as u64);
            if want > room {
                if let Some(c) = a.next_stock_change(t) {
                    wake = Some(wake.map_or(c, |w: SimTime| w.min(c)));
                }
            }
            let ready = t.plus(a.provisioning_delay);
            for _ in 0..want.min(room) {
                let Some(node) = e.off[p].pop() else { break };
                e.state[node as usize] = NodeState::Provisioning;
                e.held[p] += 1;
                e.provisioning[p] += 1;
                e.interval_of[node as usize] = e.intervals.len() as u32;
                e.intervals.push(NodeInterval {
                    pool: p as u32,
                    node,
                    requested: t,
                    ready,
                    released: None,
                });
                self.queue.schedule(ready, Event::NodeReady { node });
            }
        }
        if let Some(w) = wake {
            if e.wake.is_none_or(|x| x <= t || w < x) {
                e.wake = Some(w);
                self.queue.schedule(w, Event::Autoscale);
            }
        }
    }

    /// Nodes held (provisioning or up) per pool; up nodes for the capacity they give.
    pub(super) fn up_nodes(&self, p: usize) -> u64 {
        match self.elastic.as_ref() {
            Some(e) if e.cfg[p].is_some() => e.up[p] as u64,
            _ => self.cluster.pools()[p].spec.nodes as u64,
        }
    }

    /// At the end of a run without a horizon (all work done): every rented node still
    /// held is released when the autoscaler would release it (its idle timeout and paid
    /// block, counted from its last job or from its readiness), so that the bill covers
    /// what a real fleet would pay for.
    pub(super) fn elastic_wind_down(&mut self) {
        let Some(e) = self.elastic.as_mut() else {
            return;
        };
        for k in 0..e.intervals.len() {
            let iv = e.intervals[k];
            let p = iv.pool as usize;
            let Some(a) = e.cfg[p].as_ref() else { continue };
            let i = iv.node as usize;
            if iv.released.is_some() || e.jobs_on[i] != 0 || e.held[p] <= a.min_nodes {
                continue;
            }
            let idle = match e.state[i] {
                NodeState::Up => e.idle_since[i],
                NodeState::Provisioning => iv.ready,
                NodeState::Off => continue,
            };
            e.intervals[k].released = Some(a.release_at(iv.requested, idle));
            e.state[i] = NodeState::Off;
            e.held[p] -= 1;
        }
    }

    /// At the end: (provisioned GPU-ms, billed node-ms) of an elastic pool from its
    /// intervals, `None` for a fixed pool.
    pub(super) fn elastic_usage(&self, p: usize, end: SimTime) -> Option<(u128, u128)> {
        let e = self.elastic.as_ref()?;
        let a = e.cfg[p].as_ref()?;
        let mut prov = 0u128;
        let mut billed = 0u128;
        for iv in e.intervals.iter().filter(|iv| iv.pool == p as u32) {
            // Held to the end (a horizon), or to a release after the last job (wind-down).
            let rel = iv.released.unwrap_or(end);
            if iv.ready < rel {
                prov += e.gpn[p] as u128 * rel.since(iv.ready).0 as u128;
            }
            if iv.requested < end {
                billed += a.billed(iv.requested, rel).0 as u128;
            }
        }
        Some((prov, billed))
    }
}
