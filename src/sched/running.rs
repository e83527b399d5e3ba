//! The running jobs, each with its allocation, start and planned end, ordered per pool by
//! planned end so that a backfilling policy can project when capacity frees up.

use crate::engine::SimTime;
use crate::model::{Allocation, JobId, JobMap};
use std::collections::BTreeSet;

/// A running job's record.
#[derive(Debug, Clone)]
pub struct RunningJob {
    /// What it holds.
    pub alloc: Allocation,
    /// When it started.
    pub start: SimTime,
    /// When its estimate says it ends.
    pub planned_end: SimTime,
}

/// All running jobs.
#[derive(Debug, Default, Clone)]
pub struct Running {
    by_end: Vec<BTreeSet<(SimTime, JobId)>>,
    jobs: JobMap<RunningJob>,
    stopped: Vec<(JobId, RunningJob)>,
    /// Per pool: whole GPUs (see [`RunningJob::whole_gpus`]) of every job ever removed.
    removed_whole: Vec<u64>,
}

impl RunningJob {
    /// The whole GPUs it holds: its milli-GPUs summed, in whole GPUs rounded down (what
    /// a plan over whole free GPUs gets back when it ends).
    pub fn whole_gpus(&self) -> u64 {
        let milli: u64 = self.alloc.gpus.iter().map(|s| s.milli as u64).sum();
        milli / crate::model::MILLI_PER_GPU as u64
    }
}

impl Running {
    /// Empty, for a cluster of `pools` pools.
    pub fn new(pools: usize) -> Running {
        Running {
            by_end: vec![BTreeSet::new(); pools],
            jobs: JobMap::default(),
            stopped: Vec::new(),
            removed_whole: vec![0; pools],
        }
    }
    /// Adds a started job.
    pub fn insert(&mut self, id: JobId, alloc: Allocation, start: SimTime, planned_end: SimTime) {
        self.by_end[alloc.pool as usize].insert((planned_end, id));
        self.jobs.insert(
            id,
            RunningJob {
                alloc,
                start,
                planned_end,
            },
        );
    }
    /// Removes a job that ended or was stopped, returning its record.
    pub fn remove(&mut self, id: JobId) -> Option<RunningJob> {
        let r = self.jobs.remove(&id)?;
        let p = r.alloc.pool as usize;
        self.by_end[p].remove(&(r.planned_end, id));
        if self.removed_whole.len() <= p {
            self.removed_whole.resize(p + 1, 0);
        }
        self.removed_whole[p] += r.whole_gpus();
        Some(r)
    }
    /// Keeps the record of a job a policy preempted, for the simulation to account.
    pub fn note_stopped(&mut self, id: JobId, r: RunningJob) {
        self.stopped.push((id, r));
    }
    /// Takes the records of jobs preempted since the last call.
    pub fn take_stopped(&mut self) -> Vec<(JobId, RunningJob)> {
        std::mem::take(&mut self.stopped)
    }
    /// Running jobs of every pool, latest planned end first (longest remaining first).
    pub fn latest_ends(&self, p: usize) -> impl Iterator<Item = (SimTime, JobId)> + '_ {
        self.by_end[p].iter().rev().copied()
    }
    /// The record of a running job.
    pub fn get(&self, id: JobId) -> Option<&RunningJob> {
        self.jobs.get(&id)
    }
    /// Running jobs of pool `p` in planned-end order (ties by id).
    pub fn by_planned_end(&self, p: usize) -> impl Iterator<Item = (SimTime, JobId)> + '_ {
        self.by_end[p].iter().copied()
    }
    /// Ids of the running jobs (in no particular order: sort before use in outputs).
    pub fn ids(&self) -> impl Iterator<Item = JobId> + '_ {
        self.jobs.keys().copied()
    }
    /// Every running job (in no particular order: only for order-free sums).
    pub fn iter(&self) -> impl Iterator<Item = (JobId, &RunningJob)> + '_ {
        self.jobs.iter().map(|(&id, r)| (id, r))
    }
    /// Whole GPUs ([`RunningJob::whole_gpus`]) of all jobs ever removed from pool `p`: a
    /// plan kept across passes checks with it what ended in between.
    pub fn removed_whole_gpus(&self, p: usize) -> u64 {
        self.removed_whole.get(p).copied().unwrap_or(0)
    }
    /// Number of running jobs.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }
    /// True when nothing runs.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }
}
