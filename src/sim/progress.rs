//! The progress part: what each job keeps from its runs, and the run generation that
//! makes the pending end of a stopped run stale.
//!
//! How a run's wall time turns into work kept is one enum, [`Work`]: without failures a
//! finished run did all its work and a preempted one keeps what the scheduler's
//! [`PreemptionCost`] says; with failures or checkpointing configured every run is a
//! checkpointed [`Segment`], and whatever stops it (a kill, a preemption, the horizon)
//! keeps the work of its last completed checkpoint.

use crate::engine::SimTime;
use crate::faults::{
    Checkpointing, FailureProcess, FaultConfig, Migration, Segment, SegmentEnd, SegmentTimes,
};
use crate::model::{Job, JobId, JobMap};
use crate::sched::{PreemptionCost, Progress};

/// Why a run stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// Its work is done.
    Completed,
    /// Its policy preempted it.
    Preempted,
    /// A failure, an interruption or maintenance killed it; with `keep_all` it could
    /// write a checkpoint first and loses nothing.
    Killed {
        /// The job checkpointed before it stopped.
        keep_all: bool,
    },
    /// The run ended with the job still running: the work of its current run counts as
    /// useful (it is not killed).
    Horizon,
}

/// A run being started, as the progress part needs it.
pub(super) struct RunStart {
    /// The job's work (reference GPU time).
    pub work: SimTime,
    /// Pool it starts in.
    pub pool: usize,
    /// GPUs it holds (fractions count as such).
    pub gpus: f64,
    /// Nodes it spans.
    pub nodes: usize,
    /// Whether it ran before (a restart pays the restart overhead).
    pub restart: bool,
    /// Pool of its previous run, if it ran before.
    pub previous_pool: Option<usize>,
    /// The job's tenant.
    pub tenant: u32,
    /// The run's speed (its class's speed in the pool times its fabric's factor).
    pub speed: f64,
}

/// Checkpointed runs: the segment of each running job and what moving checkpoints cost.
pub(super) struct Checkpoints {
    ck: Checkpointing,
    migration: Migration,
    /// Failure processes, for the checkpoint interval policies that depend on the rate.
    processes: Vec<(FailureProcess, Vec<usize>)>,
    segs: JobMap<Segment>,
    /// Checkpoints moved between places, in order.
    transfers: Vec<super::CheckpointMove>,
}

impl Checkpoints {
    /// Checkpointed runs under `cfg`'s checkpointing, migration and failure rates.
    pub(super) fn new(cfg: &FaultConfig) -> Checkpoints {
        Checkpoints {
            ck: cfg.checkpointing,
            migration: cfg.migration.clone(),
            processes: cfg.processes.clone(),
            segs: JobMap::default(),
            transfers: Vec::new(),
        }
    }
}

/// How a run's wall time becomes work kept.
pub(super) enum Work {
    /// No failures: a preempted run keeps what this cost says.
    Plain(PreemptionCost),
    /// Every run is a checkpointed segment.
    Checkpointed(Checkpoints),
}

/// Per-job progress and run generations.
pub(super) struct JobProgress {
    jobs: usize,
    /// What policies read; empty until something can stop a run (the common case of a
    /// run without preemption pays nothing for it).
    table: Vec<Progress>,
    gen: Vec<u32>,
    work: Work,
}

impl JobProgress {
    /// Progress of `jobs` jobs whose preempted runs keep what `cost` says.
    pub(super) fn new(jobs: usize, cost: PreemptionCost) -> JobProgress {
        JobProgress {
            jobs,
            table: Vec::new(),
            gen: Vec::new(),
            work: Work::Plain(cost),
        }
    }

    /// From now on every run is a checkpointed segment.
    pub(super) fn checkpointed(&mut self, ck: Checkpoints) {
        self.ensure();
        self.work = Work::Checkpointed(ck);
    }

    /// Allocates the tables (once anything can stop a running job).
    fn ensure(&mut self) {
        if self.table.is_empty() {
            self.table = vec![Progress::default(); self.jobs];
            self.gen = vec![0; self.jobs];
        }
    }

    /// Every job's progress, indexed like the workload (empty before any stop).
    pub(super) fn table(&self) -> &[Progress] {
        &self.table
    }

    /// Job `id`'s progress.
    pub(super) fn of(&self, id: JobId) -> Progress {
        self.table.get(id as usize).copied().unwrap_or_default()
    }

    /// Job `id`'s run generation.
    pub(super) fn gen(&self, id: JobId) -> u32 {
        self.gen.get(id as usize).copied().unwrap_or(0)
    }

    /// Kills a job may take before it fails.
    pub(super) fn max_retries(&self) -> u32 {
        match &self.work {
            Work::Plain(_) => u32::MAX,
            Work::Checkpointed(c) => c.ck.max_retries,
        }
    }

    /// True work left for `id` of `work` (its work plus restart penalties, less the work
    /// kept).
    pub(super) fn remaining(&self, id: JobId, work: SimTime) -> SimTime {
        match self.table.get(id as usize) {
            Some(p) => p.left_of(work).max(SimTime(1)),
            None => work,
        }
    }

    /// Starts a run of job `id` (already placed); returns its wall time.
    pub(super) fn start(&mut self, id: JobId, run: &RunStart) -> SimTime {
        let remaining = self.remaining(id, run.work);
        let p = run.pool;
        let c = match &mut self.work {
            Work::Plain(_) => return crate::sched::cloud::runtime_at(remaining, run.speed),
            Work::Checkpointed(c) => c,
        };
        let speed = run.speed;
        // Moving the checkpoint to another zone or region first: time and bytes.
        let mut migration = SimTime::ZERO;
        if let Some(kind) = run.previous_pool.and_then(|q| c.migration.between(q, p)) {
            let gb = c.ck.size_gb;
            if gb > 0.0 {
                migration = SimTime::from_secs_f64(crate::pricing::transfer_seconds(
                    gb,
                    c.migration.bandwidth_gbps,
                ));
                c.transfers.push(super::CheckpointMove {
                    job: id,
                    pool: p as u32,
                    tenant: run.tenant,
                    gb,
                    kind,
                });
            }
        }
        let rate =
            crate::faults::job_failure_rate_per_hour(&c.processes, p, run.gpus, run.nodes as f64);
        let interval =
            c.ck.interval_wall(rate)
                .map(|w| SimTime((w.0 as f64 * speed).round().max(1.0) as u64));
        let seg = Segment {
            remaining,
            interval,
            write: c.ck.write,
            restart: if run.restart {
                c.ck.restart.plus(migration)
            } else {
                SimTime::ZERO
            },
            speed,
        };
        c.segs.insert(id, seg);
        seg.duration()
    }

    /// Stops the run of `job` (id `id`) of `held` wall time at `t` for reason `why` in a
    /// pool of `speed`; returns where the run's time went.
    pub(super) fn stop(
        &mut self,
        id: JobId,
        job: &Job,
        why: Stop,
        held: SimTime,
        t: SimTime,
        speed: f64,
    ) -> SegmentTimes {
        let (work, milli) = (job.work, job.gpus.milli());
        if matches!(why, Stop::Preempted | Stop::Killed { .. }) {
            self.ensure();
        }
        let seg_end = match why {
            Stop::Completed => SegmentEnd::Completed,
            _ => SegmentEnd::Killed(held),
        };
        let mut times = match &mut self.work {
            Work::Checkpointed(c) => {
                let times = c
                    .segs
                    .remove(&id)
                    .map(|seg| seg.account(seg_end))
                    .unwrap_or_default();
                if let Some(pr) = self.table.get_mut(id as usize) {
                    pr.done = pr.done.plus(times.work_kept);
                }
                times
            }
            Work::Plain(cost) => match why {
                Stop::Completed | Stop::Horizon => SegmentTimes {
                    useful: held,
                    ..Default::default()
                },
                Stop::Preempted => {
                    let cost = *cost;
                    let left = self.remaining(id, work);
                    let ran = SimTime(((held.0 as f64 * speed) as u64).min(left.0));
                    let (kept, extra) = cost.apply(ran, held);
                    let pr = &mut self.table[id as usize];
                    if cost == PreemptionCost::LoseAll {
                        pr.done = SimTime::ZERO;
                    } else {
                        pr.done = pr.done.plus(kept);
                    }
                    pr.extra = pr.extra.plus(extra);
                    // Wall time of the kept work is useful, the rest of the run was lost.
                    let kept_wall = SimTime(((kept.0 as f64 / speed) as u64).min(held.0));
                    SegmentTimes {
                        useful: kept_wall,
                        lost: held.since(kept_wall),
                        ..Default::default()
                    }
                }
                // Kills come with failures, hence checkpoints; without, all is lost.
                Stop::Killed { .. } => SegmentTimes {
                    lost: held,
                    ..Default::default()
                },
            },
        };
        if let Stop::Preempted | Stop::Killed { .. } = why {
            // Whatever stopped it, the run received its GPU-time and ran its wall time.
            let pr = &mut self.table[id as usize];
            pr.attained_gpu_ms += milli * held.0 / 1000;
            pr.ran = pr.ran.plus(held);
            pr.last_stop = Some(t);
            pr.last_run = held;
            self.bump(id);
        }
        match why {
            Stop::Completed => {}
            Stop::Preempted => self.table[id as usize].preemptions += 1,
            Stop::Killed { keep_all } => {
                if keep_all {
                    let extra = SimTime((times.lost.0 as f64 * speed) as u64);
                    let pr = &mut self.table[id as usize];
                    pr.done = pr.done.plus(extra).min(work);
                    times.useful = times.useful.plus(times.lost);
                    times.lost = SimTime::ZERO;
                }
            }
            Stop::Horizon => {
                times.useful = times.useful.plus(times.lost);
                times.lost = SimTime::ZERO;
            }
        }
        times
    }

    /// Moves `id`'s run generation on, so the pending end of its stopped run is stale.
    fn bump(&mut self, id: JobId) {
        let g = &mut self.gen[id as usize];
        *g = g.wrapping_add(1);
    }

    /// Checkpoints moved between places, in order.
    pub(super) fn into_transfers(self) -> Vec<super::CheckpointMove> {
        match self.work {
            Work::Plain(_) => Vec::new(),
            Work::Checkpointed(c) => c.transfers,
        }
    }
}
