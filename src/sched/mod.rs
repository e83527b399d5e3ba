//! Scheduling: queue-ordering policies behind one trait, which pool a job may use, and
//! the set of running jobs with their planned ends (what backfilling plans against).
//!
//! One policy per file. Policies never scan the whole queue or cluster on every event:
//! see each file for the index it keeps.

mod class_queue;
mod easy_backfill;
mod fifo;
pub mod placement;
mod running;

pub use class_queue::ClassQueue;
pub use easy_backfill::EasyBackfill;
pub use fifo::Fifo;
pub use running::Running;

use crate::engine::SimTime;
use crate::model::{Allocation, CapacityKind, Cluster, Job, JobId, ReservedNodes};

/// The queue policies a scenario can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PolicyKind {
    /// First come, first served, strictly: the head blocks everything behind it.
    Fifo,
    /// EASY backfill: later jobs start early if they do not delay the head's reservation.
    EasyBackfill,
}

impl PolicyKind {
    /// Builds the policy.
    pub fn build(self) -> Box<dyn QueuePolicy> {
        match self {
            PolicyKind::Fifo => Box::new(Fifo::default()),
            PolicyKind::EasyBackfill => Box::new(EasyBackfill::default()),
        }
    }
    /// The scenario-file spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            PolicyKind::Fifo => "fifo",
            PolicyKind::EasyBackfill => "easy_backfill",
        }
    }
}

/// Which pools a job may use, in preference order (the scenario's pool order: put owned
/// capacity first to use it before renting).
#[derive(Debug, Clone)]
pub struct PoolChoice {
    /// Per pool: (GPU type index, capacity kind, speed).
    pools: Vec<(usize, CapacityKind, f64)>,
}

impl PoolChoice {
    /// From the cluster's pools.
    pub fn new(cluster: &Cluster) -> PoolChoice {
        PoolChoice {
            pools: cluster
                .pools()
                .iter()
                .map(|p| (p.spec.gpu_type, p.spec.kind, p.spec.speed))
                .collect(),
        }
    }

    /// True when `job` may run in pool `p` (type allowed; spot only for preemptible jobs).
    pub fn allows(&self, job: &Job, p: usize) -> bool {
        let (t, kind, _) = self.pools[p];
        job.gpu_types.allows(t) && (kind != CapacityKind::Spot || job.preemptible)
    }

    /// Pools `job` may use, in preference order.
    pub fn eligible<'a>(&'a self, job: &'a Job) -> impl Iterator<Item = usize> + 'a {
        (0..self.pools.len()).filter(move |&p| self.allows(job, p))
    }

    /// Speed of pool `p`'s GPUs.
    pub fn speed(&self, p: usize) -> f64 {
        self.pools[p].2
    }

    /// How long `work` (on the reference GPU) takes in pool `p`.
    pub fn runtime(&self, work: SimTime, p: usize) -> SimTime {
        let s = self.speed(p);
        if s == 1.0 {
            work
        } else {
            SimTime((work.0 as f64 / s).ceil() as u64)
        }
    }
}

/// What a policy sees and may change during one scheduling pass.
pub struct SchedCtx<'a> {
    /// Current simulated time.
    pub now: SimTime,
    /// All jobs of the workload, by id.
    pub jobs: &'a [Job],
    /// Free capacity; starting a job takes from it.
    pub cluster: &'a mut Cluster,
    /// Running jobs with their planned ends.
    pub running: &'a mut Running,
    /// Pool eligibility and speeds.
    pub pools: &'a PoolChoice,
    /// Jobs started in this pass, in start order.
    pub started: &'a mut Vec<JobId>,
}

impl SchedCtx<'_> {
    /// Starts `id` in the first eligible pool where it fits. In pool `avoid_pool`, nodes in
    /// `avoid` are not used unless the job's planned end is no later than `unless_done_by`.
    pub fn try_start(
        &mut self,
        id: JobId,
        avoid: Option<(usize, &ReservedNodes, SimTime)>,
    ) -> bool {
        let job = &self.jobs[id as usize];
        for p in self.pools.eligible(job) {
            let planned_end = self.now.plus(self.pools.runtime(job.planned_work(), p));
            let avoid_here = match avoid {
                Some((ap, r, by)) if ap == p && planned_end > by => Some(r),
                _ => None,
            };
            if let Some(a) = self
                .cluster
                .find(p, job.gpus, job.cpu_milli, job.mem_mib, avoid_here)
            {
                self.start(id, a, planned_end);
                return true;
            }
        }
        false
    }

    /// Records a start with an allocation already found.
    pub fn start(&mut self, id: JobId, a: Allocation, planned_end: SimTime) {
        self.cluster.take(&a);
        self.running.insert(id, a, self.now, planned_end);
        self.started.push(id);
    }
}

/// A queue-ordering policy: holds waiting jobs and decides which start at each pass.
pub trait QueuePolicy: Send {
    /// The policy's scenario name.
    fn name(&self) -> &'static str;
    /// A job joins the queue (arrivals, and requeued jobs after preemption).
    fn push(&mut self, id: JobId, job: &Job);
    /// Jobs waiting.
    fn len(&self) -> usize;
    /// True when no job waits.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// One scheduling pass: start whatever the policy allows now.
    fn schedule(&mut self, ctx: &mut SchedCtx);
    /// Something a cached plan depends on changed unexpectedly (a job ended before its
    /// planned end, capacity came or went).
    fn invalidate(&mut self) {}
    /// Reservations made so far as (head job, reserved start), for policies that make
    /// them and were asked to record them.
    fn reservation_log(&self) -> Option<&[(JobId, SimTime)]> {
        None
    }
}
