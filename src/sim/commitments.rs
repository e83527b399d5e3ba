//! The commitments part: capacity that exists only inside a commitment's window (a
//! capacity block; a reservation whose nodes are there only during its terms), and each
//! pool's busy GPU-time split at its billing periods (a reservation's terms), so a bill
//! can tell how much of each commitment was used.
//!
//! A window's nodes are down until it opens; at `close - notice` they stop taking new
//! jobs (as nodes drained for maintenance), and at `close` the jobs still on them write a
//! checkpoint and requeue (as at the start of maintenance). Nodes go up and down through
//! the core, as for failures and elastic pools: a node is up only while its window is
//! open, no failure holds it down and (in an elastic pool) it is held. Exists only when a
//! pool has windows or periods, so other runs pay nothing for it.

use super::{Event, Simulation, WindowEvent};
use crate::engine::{EventQueue, SimTime};
use crate::model::{Cluster, JobId};
use crate::pricing::CapacityWindow;

/// Windows and billing periods of a run.
pub(super) struct Commitments {
    /// Per pool: its windows, sorted (empty: the nodes are there throughout).
    windows: Vec<Vec<CapacityWindow>>,
    /// Per node: its pool's window is open and not draining (true without windows).
    open: Vec<bool>,
    /// Per pool: nodes inside a window (open or draining), for the timeline.
    present: Vec<u32>,
    /// Per pool: boundaries of its billing periods, increasing, all after zero.
    bounds: Vec<Vec<SimTime>>,
    /// Per pool: milli-GPU x ms held in each period (one more than the boundaries).
    busy: Vec<Vec<u128>>,
    /// Per pool: milli-GPU x ms each job held in each period, by (period, job), so each
    /// commitment's dollars go to the jobs that ran inside its term.
    job_busy: Vec<std::collections::BTreeMap<(u32, u32), u128>>,
    /// Jobs taken off nodes whose window closed.
    pub(super) kills: u64,
}

impl Commitments {
    /// Sets up `windows` and billing period `bounds` (both per pool) over `cluster`:
    /// nodes outside a window go down, and every window's events are scheduled. `None`
    /// when no pool has either.
    pub(super) fn new(
        windows: Vec<Vec<CapacityWindow>>,
        bounds: Vec<Vec<SimTime>>,
        cluster: &mut Cluster,
        queue: &mut EventQueue<Event>,
    ) -> Option<Commitments> {
        if windows.iter().all(Vec::is_empty) && bounds.iter().all(Vec::is_empty) {
            return None;
        }
        let pools = cluster.pools().len();
        let mut c = Commitments {
            windows: (0..pools)
                .map(|p| windows.get(p).cloned().unwrap_or_default())
                .collect(),
            open: vec![true; cluster.node_count()],
            present: cluster.pools().iter().map(|p| p.spec.nodes).collect(),
            bounds: (0..pools)
                .map(|p| {
                    let mut b: Vec<SimTime> = bounds.get(p).cloned().unwrap_or_default();
                    b.retain(|&t| t > SimTime::ZERO && t < SimTime::NEVER);
                    b.sort_unstable();
                    b.dedup();
                    b
                })
                .collect(),
            busy: Vec::new(),
            job_busy: vec![Default::default(); pools],
            kills: 0,
        };
        c.busy = c.bounds.iter().map(|b| vec![0; b.len() + 1]).collect();
        for p in 0..pools {
            let ws = &mut c.windows[p];
            ws.sort_by_key(|w| w.open);
            if ws.is_empty() {
                continue;
            }
            let there = ws
                .iter()
                .any(|w| w.open == SimTime::ZERO && w.close > w.open);
            for n in cluster.pool_nodes(p) {
                c.open[n as usize] = there;
                if !there {
                    cluster.set_up(n, false);
                }
            }
            c.present[p] = if there {
                cluster.pools()[p].spec.nodes
            } else {
                0
            };
            for (k, w) in ws.iter().enumerate() {
                let (pool, window) = (p as u32, k as u32);
                if w.open >= w.close || w.open == SimTime::NEVER {
                    continue;
                }
                if w.open > SimTime::ZERO {
                    queue.schedule(w.open, Event::Window(WindowEvent::Open { pool, window }));
                }
                if w.close < SimTime::NEVER {
                    let drain = w.close.since(w.notice);
                    if w.notice > SimTime::ZERO && drain > w.open {
                        queue.schedule(drain, Event::Window(WindowEvent::Drain { pool, window }));
                    }
                    queue.schedule(w.close, Event::Window(WindowEvent::Close { pool, window }));
                }
            }
        }
        Some(c)
    }

    /// False while `node`'s window is closed or draining (a repaired node stays down).
    pub(super) fn is_open(&self, node: u32) -> bool {
        self.open[node as usize]
    }

    /// Nodes of pool `p` inside a window, `None` for a pool without windows.
    pub(super) fn present_nodes(&self, p: usize) -> Option<u64> {
        (!self.windows[p].is_empty()).then_some(self.present[p] as u64)
    }

    /// A run of job `job`, `milli` milli-GPU in pool `p` over `[from, to)`, ended: its
    /// GPU-time is split over the pool's periods.
    pub(super) fn run_ended(
        &mut self,
        job: JobId,
        p: usize,
        from: SimTime,
        to: SimTime,
        milli: u64,
    ) {
        let bounds = &self.bounds[p];
        if bounds.is_empty() || to <= from {
            return;
        }
        let mut k = bounds.partition_point(|&b| b <= from);
        let mut cur = from;
        while cur < to {
            let seg_end = bounds.get(k).copied().unwrap_or(SimTime::NEVER).min(to);
            let ms = milli as u128 * seg_end.since(cur).0 as u128;
            self.busy[p][k] += ms;
            if ms > 0 {
                *self.job_busy[p].entry((k as u32, job)).or_insert(0) += ms;
            }
            cur = seg_end;
            k += 1;
        }
    }

    /// Pool `p`'s windows within `[0, end)`, as `(open, close)`.
    pub(super) fn windows_within(&self, p: usize, end: SimTime) -> Vec<(SimTime, SimTime)> {
        self.windows[p]
            .iter()
            .filter(|w| w.open < end && w.open < w.close)
            .map(|w| (w.open, w.close.min(end)))
            .collect()
    }

    /// Time pool `p`'s nodes were there within `[0, end)`, `None` without windows.
    pub(super) fn present_time(&self, p: usize, end: SimTime) -> Option<SimTime> {
        if self.windows[p].is_empty() {
            return None;
        }
        Some(SimTime(
            self.windows_within(p, end)
                .iter()
                .map(|&(a, b)| b.since(a).0)
                .sum(),
        ))
    }

    /// Pool `p`'s busy GPU-ms per period within `[0, end)`: `(from, to, GPU-ms)`.
    pub(super) fn busy_by_period(&self, p: usize, end: SimTime) -> Vec<(SimTime, SimTime, u128)> {
        let bounds = &self.bounds[p];
        if bounds.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut from = SimTime::ZERO;
        for (k, &ms) in self.busy[p].iter().enumerate() {
            let to = bounds.get(k).copied().unwrap_or(end).min(end);
            if to > from || (k == 0 && end == SimTime::ZERO) {
                out.push((from, to, ms / 1000));
            }
            from = to;
            if from >= end {
                break;
            }
        }
        out
    }

    /// Each job's busy GPU-ms in pool `p` per period within `[0, end)`:
    /// `(job, from, to, GPU-ms)` in (period, job) order (the periods of
    /// [`Commitments::busy_by_period`]).
    pub(super) fn job_busy_by_period(
        &self,
        p: usize,
        end: SimTime,
    ) -> Vec<(u32, SimTime, SimTime, u128)> {
        let bounds = &self.bounds[p];
        let span = |k: usize| {
            let from = if k == 0 {
                SimTime::ZERO
            } else {
                bounds[k - 1].min(end)
            };
            (from, bounds.get(k).copied().unwrap_or(end).min(end))
        };
        self.job_busy[p]
            .iter()
            .filter_map(|(&(k, job), &ms)| {
                let (from, to) = span(k as usize);
                (to > from && ms >= 1000).then_some((job, from, to, ms / 1000))
            })
            .collect()
    }
}

impl Simulation<'_> {
    /// Opens, drains or closes a commitment's window at `t`.
    pub(super) fn window_event(&mut self, ev: WindowEvent, t: SimTime) {
        let (pool, window, change) = match ev {
            WindowEvent::Open { pool, window } => (pool, window, 0),
            WindowEvent::Drain { pool, window } => (pool, window, 1),
            WindowEvent::Close { pool, window } => (pool, window, 2),
        };
        let p = pool as usize;
        let Some(c) = self.commitments.as_mut() else {
            return;
        };
        if c.windows
            .get(p)
            .and_then(|w| w.get(window as usize))
            .is_none()
        {
            return;
        }
        let nodes = self.cluster.pool_nodes(p);
        for n in nodes.clone() {
            c.open[n as usize] = change == 0;
        }
        c.present[p] = if change == 2 { 0 } else { nodes.len() as u32 };
        for n in nodes {
            let up = change == 0
                && !self.faults.as_ref().is_some_and(|f| f.is_down(n))
                && self.elastic.as_ref().is_none_or(|e| e.holds(n));
            self.cluster.set_up(n, up);
        }
        if change == 2 {
            let jobs: Vec<JobId> = self.running.by_planned_end(p).map(|(_, id)| id).collect();
            let mut killed = 0;
            for id in jobs {
                if self.kill_job(id, t, true) {
                    killed += 1;
                }
            }
            match self.faults.as_mut() {
                Some(f) => f.count_interruptions("commitment end", killed),
                None => {
                    if let Some(c) = self.commitments.as_mut() {
                        c.kills += killed;
                    }
                }
            }
        }
        self.policy.invalidate();
    }
}
