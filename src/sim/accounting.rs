//! The accounting part: one record per job, busy GPU-time per pool and per tenant, the
//! runs that policies stopped, and the sampled timeline. It only counts: the core tells
//! it what happened.
//!
//! Queueing delay is counted here as intervals: a job's wait opens when it is submitted
//! (if some pool can hold it), when a policy preempts it and when a kill sends it back to
//! the queue; it closes when a run starts. A wait still open at the end of the run is
//! closed at the end ([`Accounting::into_counted`]), so the figure is a lower bound for
//! jobs still waiting then.

use super::fragmentation::Fragmentation;
use super::{JobOutcome, JobRecord, StoppedRun, TimelineRow};
use crate::engine::SimTime;
use crate::faults::SegmentTimes;
use crate::model::{Cluster, JobId, Workload};
use std::collections::BTreeMap;

/// No pool yet (a job that never ran).
const NO_POOL: u32 = u32::MAX;

/// What a run has counted so far.
pub(super) struct Accounting {
    records: Vec<JobRecord>,
    /// Milli-GPU held by running jobs, per pool.
    busy_milli: Vec<u64>,
    /// Milli-GPU x ms held per pool, over every run segment.
    busy_ms: Vec<u128>,
    /// Milli-GPU x ms held per (pool, tenant), over every run segment.
    tenant_busy: BTreeMap<(u32, u32), u128>,
    /// Per job: the first pool it ran in, its tenant, and milli-GPU x ms held there.
    first: Vec<(u32, u32, u64)>,
    /// Milli-GPU x ms held per (job, pool) in pools other than the job's first (rare).
    elsewhere: BTreeMap<(u32, u32), u128>,
    stopped_runs: Vec<StoppedRun>,
    timeline: Vec<TimelineRow>,
    /// The fragmentation meter, set up at the first timeline sample.
    frag: Option<Fragmentation>,
    /// Where jobs that ended for good go, when a consumer asked for them.
    pub(super) ended: Option<super::EndedSink>,
    /// Records with a wait still open (`queued_since` set): none at the end spares the
    /// end's pass over every record.
    waiting: u64,
    /// Jobs rejected at submission.
    rejected: u64,
}

/// What the accounting part hands to the run's result.
pub(super) struct Counted {
    /// Per job.
    pub jobs: Vec<JobRecord>,
    /// GPU-milliseconds held by running jobs, per pool.
    pub busy_gpu_ms: Vec<u128>,
    /// GPU-milliseconds held per (pool, tenant), in key order.
    pub tenant_busy_gpu_ms: Vec<((u32, u32), u128)>,
    /// GPU-time per job and pool, in (job, pool) order.
    pub job_usage: Vec<super::JobPoolUsage>,
    /// Runs stopped by preemption, in stop order.
    pub stopped_runs: Vec<StoppedRun>,
    /// Sampled state over time.
    pub timeline: Vec<TimelineRow>,
    /// Jobs rejected at submission.
    pub rejected: u64,
}

impl Accounting {
    /// Nothing counted yet, for `jobs` jobs over `pools` pools.
    pub(super) fn new(jobs: usize, pools: usize) -> Accounting {
        Accounting {
            records: vec![JobRecord::default(); jobs],
            busy_milli: vec![0; pools],
            busy_ms: vec![0; pools],
            tenant_busy: BTreeMap::new(),
            first: vec![(NO_POOL, 0, 0); jobs],
            elsewhere: BTreeMap::new(),
            stopped_runs: Vec::new(),
            timeline: Vec::new(),
            frag: None,
            ended: None,
            waiting: 0,
            rejected: 0,
        }
    }

    /// Job `id`'s record so far.
    pub(super) fn record(&self, id: JobId) -> &JobRecord {
        &self.records[id as usize]
    }

    /// Job `id` was submitted at `t`; `placeable` says whether any eligible pool could
    /// ever hold it (if not, it is rejected at once).
    pub(super) fn submitted(&mut self, id: JobId, t: SimTime, placeable: bool) {
        let r = &mut self.records[id as usize];
        r.submitted = true;
        if placeable {
            self.waiting += u64::from(r.queued_since.replace(t).is_none());
        } else {
            r.outcome = JobOutcome::Rejected;
            r.end = Some(t);
            self.rejected += 1;
        }
    }

    /// Job `id` started a run at `t` in pool `p`, holding `milli` milli-GPU over `nodes`.
    pub(super) fn started(&mut self, id: JobId, t: SimTime, p: usize, milli: u64, nodes: u32) {
        self.busy_milli[p] += milli;
        let r = &mut self.records[id as usize];
        if r.start.is_none() {
            r.start = Some(t);
        }
        if let Some(q) = r.queued_since.take() {
            self.waiting -= 1;
            r.queue_delay = r.queue_delay.plus(t.since(q));
        }
        r.run_start = Some(t);
        r.pool = Some(p as u32);
        r.gpu_milli = milli;
        r.nodes = nodes;
    }

    /// Job `id` of `tenant` held its GPUs in pool `p` for `span` and (unless the run goes
    /// on to the end, `release` false) gave them back; its run's time went as `times`.
    /// Returns the milli-GPU it held.
    pub(super) fn run_ended(
        &mut self,
        id: JobId,
        tenant: u32,
        p: usize,
        span: SimTime,
        release: bool,
        times: &SegmentTimes,
    ) -> u64 {
        let held = self.records[id as usize].gpu_milli;
        if release {
            self.busy_milli[p] -= held;
        }
        let x = held as u128 * span.0 as u128;
        self.busy_ms[p] += x;
        *self.tenant_busy.entry((p as u32, tenant)).or_insert(0) += x;
        let first = &mut self.first[id as usize];
        if first.0 == NO_POOL {
            *first = (p as u32, tenant, 0);
        }
        if first.0 == p as u32 {
            first.2 = first.2.saturating_add(x.min(u64::MAX as u128) as u64);
        } else {
            *self.elsewhere.entry((id, p as u32)).or_insert(0) += x;
        }
        self.records[id as usize].add_segment(times, span);
        held
    }

    /// Job `id` completed at `t`.
    pub(super) fn completed(&mut self, id: JobId, t: SimTime) {
        let r = &mut self.records[id as usize];
        r.end = Some(t);
        r.outcome = JobOutcome::Completed;
        self.hand_out(id);
    }

    /// Sends job `id`, ended for good, to the consumer (if any).
    fn hand_out(&mut self, id: JobId) {
        if self.ended.is_none() {
            return;
        }
        let record = self.records[id as usize].clone();
        // As `into_counted` splits it into `job_usage` and `job_table` sums it back.
        let (pool, _, ms) = self.first[id as usize];
        let gpu_ms = if pool == NO_POOL {
            0
        } else {
            ms as u128 / 1000
                + self
                    .elsewhere
                    .range((id, 0)..=(id, u32::MAX))
                    .map(|(_, x)| x / 1000)
                    .sum::<u128>()
        };
        if let Some(sink) = self.ended.as_mut() {
            sink.push(super::Ended {
                job: id,
                record,
                gpu_ms,
            });
        }
    }

    /// A policy stopped job `id`'s run of `milli` milli-GPU in pool `p` over `[start, stop)`.
    pub(super) fn preempted(
        &mut self,
        id: JobId,
        p: usize,
        milli: u64,
        start: SimTime,
        stop: SimTime,
    ) {
        let r = &mut self.records[id as usize];
        r.preemptions += 1;
        // Back in the queue from the moment it stopped.
        self.waiting += u64::from(r.queued_since.replace(stop).is_none());
        self.stopped_runs.push(StoppedRun {
            job: id,
            pool: p as u32,
            start,
            stop,
            gpu_milli: milli,
        });
    }

    /// Job `id` was killed at `t`; past `max_retries` kills it fails. Returns true when it
    /// goes back to the queue.
    pub(super) fn killed(&mut self, id: JobId, t: SimTime, max_retries: u32) -> bool {
        let r = &mut self.records[id as usize];
        r.restarts += 1;
        if r.restarts > max_retries {
            r.outcome = JobOutcome::Failed;
            r.end = Some(t);
            self.hand_out(id);
            false
        } else {
            self.waiting += u64::from(r.queued_since.replace(t).is_none());
            true
        }
    }

    /// Records a timeline row at `t`; `nodes` are the nodes up per pool. The first
    /// sample sets up the fragmentation meter from `workload`'s typical tasks.
    pub(super) fn sample(
        &mut self,
        t: SimTime,
        queued: usize,
        running: usize,
        nodes: Vec<u64>,
        cluster: &Cluster,
        workload: &Workload,
    ) {
        let frag_milli = self
            .frag
            .get_or_insert_with(|| Fragmentation::of_workload(workload))
            .measure(cluster);
        let pools = nodes
            .iter()
            .enumerate()
            .map(|(p, &n)| {
                let gpn = cluster.pools()[p].spec.node.gpus as u64;
                (self.busy_milli[p], n * gpn * 1000)
            })
            .collect();
        self.timeline.push(TimelineRow {
            time: t,
            queued: queued as u64,
            running: running as u64,
            pools,
            nodes: nodes.into(),
            frag_milli: frag_milli.into(),
        });
    }

    /// Records at `t` a sample equal to the last one (nothing changed since).
    pub(super) fn repeat_sample(&mut self, t: SimTime) {
        if let Some(last) = self.timeline.last() {
            let mut row = last.clone();
            row.time = t;
            self.timeline.push(row);
        }
    }

    /// Samples so far.
    pub(super) fn timeline_len(&self) -> usize {
        self.timeline.len()
    }

    /// Keeps every other sample (the first, the third, ...).
    pub(super) fn halve_timeline(&mut self) {
        let mut i = 0;
        self.timeline.retain(|_| {
            i += 1;
            i % 2 == 1
        });
    }

    /// Everything counted, in GPU-milliseconds; waits still open at `end` are counted up
    /// to it (the job keeps `queued_since`: it was waiting at the end).
    pub(super) fn into_counted(mut self, end: SimTime) -> Counted {
        // Jobs still waiting at the end (none in a run that finished its work: then no
        // pass over a million records).
        if self.waiting > 0 {
            for r in &mut self.records {
                if let Some(q) = r.queued_since {
                    r.queue_delay = r.queue_delay.plus(end.since(q));
                }
            }
        }
        let mut job_usage = Vec::with_capacity(self.first.len());
        let mut others = self.elsewhere.into_iter().peekable();
        for (job, &(pool, tenant, ms)) in self.first.iter().enumerate() {
            if pool == NO_POOL {
                continue;
            }
            let start = job_usage.len();
            job_usage.push(super::JobPoolUsage {
                job: job as u32,
                pool,
                tenant,
                gpu_ms: ms as u128 / 1000,
            });
            while let Some(((_, q), x)) = others.next_if(|((j, _), _)| *j == job as u32) {
                job_usage.push(super::JobPoolUsage {
                    job: job as u32,
                    pool: q,
                    tenant,
                    gpu_ms: x / 1000,
                });
            }
            job_usage[start..].sort_unstable_by_key(|u| u.pool);
        }
        Counted {
            job_usage,
            jobs: self.records,
            busy_gpu_ms: self.busy_ms.into_iter().map(|x| x / 1000).collect(),
            tenant_busy_gpu_ms: self
                .tenant_busy
                .into_iter()
                .map(|(k, v)| (k, v / 1000))
                .collect(),
            stopped_runs: self.stopped_runs,
            timeline: self.timeline,
            rejected: self.rejected,
        }
    }
}
