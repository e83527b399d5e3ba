//! The cloud part: datasets staged before jobs compute, and what each run's spread over
//! nodes and racks did to its speed. Present only when the scenario configures datasets,
//! fabrics or a throughput table; a run without them carries none of this.
//!
//! ## Staging holds the allocation
//! A job placed away from its data holds its GPUs while the data stages (they are idle
//! and billed), then computes. It must be placed to know where its data goes, and pulling
//! data onto a node is the first thing a rented node does; waiting without the GPUs
//! would need the pool's capacity reserved for when the data lands, which no queue policy
//! here models. So staging needs no event of its own: the run's end is `start + staging +
//! compute`, and a copy's ready time is compared when it is next read. A run stopped
//! while staging keeps no work; its transfer still completes (the copy stays usable).

use crate::engine::SimTime;
use crate::model::datasets::Link;
use crate::model::{Allocation, Cluster, Job, JobId, JobMap};
use crate::sched::cloud::{CloudOptions, DataState, Spread};
use crate::sched::PoolChoice;
use std::collections::BTreeMap;

/// Per job: what its data and its spread cost it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct JobCloud {
    /// GB moved to stage its dataset, over all its runs.
    pub staged_gb: f64,
    /// Wall time waiting for its data, over all its runs.
    pub staging: SimTime,
    /// Dollars of those transfers.
    pub transfer_usd: f64,
    /// Nodes its last run spanned.
    pub nodes: u32,
    /// Racks its last run spanned.
    pub racks: u32,
    /// Its last run's fabric speed factor.
    pub speed_factor: f64,
    /// Its last run's speed (class speed x fabric factor).
    pub speed: f64,
}

/// Data moved into one region over one link.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TransferTotal {
    /// GB moved.
    pub gb: f64,
    /// Dollars.
    pub usd: f64,
    /// Transfers.
    pub transfers: u64,
    /// Wall time jobs waited for them (summed over jobs, reuses of a copy in flight
    /// included).
    pub staging: SimTime,
}

/// What the cloud part recorded over a run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CloudResult {
    /// Whether datasets were configured (jobs.csv gets the staging columns).
    pub data: bool,
    /// Whether fabrics or a throughput table were configured (the spread columns).
    pub spread: bool,
    /// Per job, indexed like the workload.
    pub jobs: Vec<JobCloud>,
    /// Totals per destination "cloud/region" and link, in key order.
    pub transfers: Vec<((String, Link), TransferTotal)>,
    /// Reads served by a copy already in the region (staged or arriving).
    pub reuses: u64,
}

/// The part's state.
pub(super) struct Cloud {
    data: Option<DataState>,
    spread: bool,
    jobs: Vec<JobCloud>,
    /// Staging wait of each running job's current run.
    current: JobMap<SimTime>,
    totals: BTreeMap<(String, Link), TransferTotal>,
    reuses: u64,
    month: u64,
}

impl Cloud {
    /// The part for `jobs` jobs under `o` (`None` when nothing is configured).
    pub(super) fn new(o: &CloudOptions, jobs: usize) -> Option<Cloud> {
        if o.is_off() {
            return None;
        }
        Some(Cloud {
            data: o.data.as_ref().map(DataState::new),
            spread: o.fabric.is_some() || o.speeds.is_some(),
            jobs: vec![JobCloud::default(); jobs],
            current: JobMap::default(),
            totals: BTreeMap::new(),
            reuses: 0,
            month: 0,
        })
    }

    /// The data state pool choice reads.
    pub(super) fn state(&self) -> Option<&DataState> {
        self.data.as_ref()
    }

    /// Job `id` starts a run on `a` at `t` at `speed`: stages its data if it must and
    /// records the spread; returns the staging wait.
    pub(super) fn run_started(
        &mut self,
        id: JobId,
        job: &Job,
        a: &Allocation,
        t: SimTime,
        spread: Spread,
        speed: f64,
    ) -> SimTime {
        let rec = &mut self.jobs[id as usize];
        rec.nodes = spread.nodes;
        rec.racks = spread.racks;
        rec.speed_factor = spread.factor;
        rec.speed = speed;
        let (Some(data), Some(d)) = (self.data.as_mut(), job.tags.dataset) else {
            return SimTime::ZERO;
        };
        let p = a.pool as usize;
        let plan = data.places.plan(d, p, t);
        let reused = match plan.link {
            None => data.places.copy(d, p, t),
            Some(_) => None,
        };
        let usd = data.book(d, &plan, t, &mut self.month);
        data.places.read(d, p, t);
        rec.staged_gb += plan.gb;
        rec.staging = rec.staging.plus(plan.wait);
        rec.transfer_usd += usd;
        let region = |link| match data.places.pools.get(p) {
            Some(at) => (format!("{}/{}", at.cloud, at.region), link),
            None => (String::new(), link),
        };
        match (plan.link, reused) {
            (Some(link), _) => {
                let tot = self.totals.entry(region(link)).or_default();
                tot.gb += plan.gb;
                tot.usd += usd;
                tot.transfers += 1;
                tot.staging = tot.staging.plus(plan.wait);
            }
            (None, Some(copy)) => {
                self.reuses += 1;
                // A copy still in flight: the wait counts on the link it crosses.
                if plan.wait > SimTime::ZERO {
                    let tot = self.totals.entry(region(copy.via)).or_default();
                    tot.staging = tot.staging.plus(plan.wait);
                }
            }
            (None, None) => {}
        }
        if plan.wait > SimTime::ZERO {
            self.current.insert(id, plan.wait);
        }
        plan.wait
    }

    /// Job `id`'s run stopped: returns the staging wait it began with.
    pub(super) fn run_stopped(&mut self, id: JobId) -> SimTime {
        self.current.remove(&id).unwrap_or(SimTime::ZERO)
    }

    /// What was recorded.
    pub(super) fn into_result(self) -> CloudResult {
        CloudResult {
            data: self.data.is_some(),
            spread: self.spread,
            jobs: self.jobs,
            transfers: self.totals.into_iter().collect(),
            reuses: self.reuses,
        }
    }
}

/// The speed and spread of `job`'s run on `a` (the pool's speed, unspread, when pool
/// choice has no run speeds: the path of a run without the cloud model).
pub(super) fn run_speed(
    pools: &PoolChoice,
    job: &Job,
    a: &Allocation,
    cluster: &Cluster,
) -> (f64, Spread) {
    let p = a.pool as usize;
    if !pools.has_run_speeds() {
        let spread = Spread {
            nodes: a.hosts.len() as u32,
            racks: 1,
            factor: 1.0,
        };
        return (pools.speed(p), spread);
    }
    let spread = pools.spread(job, a, cluster);
    (pools.speed_for(job, p) * spread.factor, spread)
}
