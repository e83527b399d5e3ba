//! What a run produces: one record per job, usage per pool, the sampled timeline.

use crate::engine::SimTime;
use crate::model::CapacityKind;

/// How a job's life ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JobOutcome {
    /// Not ended when the run stopped (queued or running at the horizon, or never submitted).
    #[default]
    Unfinished,
    /// Ran to the end of its work.
    Completed,
    /// Could never run on this cluster (asks for more than any eligible pool has).
    Rejected,
    /// Gave up (e.g. after too many failures).
    Failed,
}

impl JobOutcome {
    /// The spelling used in output files.
    pub fn as_str(self) -> &'static str {
        match self {
            JobOutcome::Unfinished => "unfinished",
            JobOutcome::Completed => "completed",
            JobOutcome::Rejected => "rejected",
            JobOutcome::Failed => "failed",
        }
    }
}

/// One job's history.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobRecord {
    /// True once the job's submit time was reached within the run.
    pub submitted: bool,
    /// When it started.
    pub start: Option<SimTime>,
    /// When it ended (completed, failed or rejected).
    pub end: Option<SimTime>,
    /// Pool it ran in.
    pub pool: Option<u32>,
    /// Milli-GPU held while running.
    pub gpu_milli: u64,
    /// Nodes used.
    pub nodes: u32,
    /// How it ended.
    pub outcome: JobOutcome,
    /// Times it was preempted (stopped and requeued).
    pub preemptions: u32,
    /// Start of its last run (differs from `start` after a preemption).
    pub run_start: Option<SimTime>,
    /// Times it was killed and requeued by failures, interruptions or maintenance.
    pub restarts: u32,
    /// Wall time holding GPUs, over all its run segments.
    pub held: SimTime,
    /// Wall time computing work it kept.
    pub useful: SimTime,
    /// Wall time computing work it lost (redone after a kill or preemption).
    pub lost: SimTime,
    /// Wall time writing checkpoints.
    pub checkpoint: SimTime,
    /// Wall time restarting after kills.
    pub restart: SimTime,
    /// Total queueing delay: every interval the job was ready but not running (from
    /// submit to its first start, and from each preemption or kill to the next start),
    /// an interval still open at the end of the run counted up to it.
    pub queue_delay: SimTime,
    /// When its current wait in the queue began (`None` while running or ended).
    pub queued_since: Option<SimTime>,
}

impl JobRecord {
    /// Adds one run segment's times (`held` is the segment's wall time).
    pub fn add_segment(&mut self, t: &crate::faults::SegmentTimes, held: SimTime) {
        self.held = self.held.plus(held);
        self.useful = self.useful.plus(t.useful);
        self.lost = self.lost.plus(t.lost);
        self.checkpoint = self.checkpoint.plus(t.checkpoint);
        self.restart = self.restart.plus(t.restart);
    }
}

/// What failures did over a run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FaultSummary {
    /// Node failures by cause (all nodes, busy or idle), in cause order.
    pub node_failures: Vec<(String, u64)>,
    /// Job interruptions (kills) by cause.
    pub interruptions: Vec<(String, u64)>,
    /// Node-milliseconds down (failed or in maintenance), per pool.
    pub down_node_ms: Vec<u128>,
    /// Checkpoints moved between places, in order.
    pub transfers: Vec<CheckpointMove>,
    /// Spans during which nodes of spot pools were down, in the order they ended (spans
    /// still open at the end of the run end there). Billing reads them: a spot node is
    /// paid for while it is up, and each up span is an instance of its own.
    pub spot_down: Vec<DownSpan>,
}

/// A checkpoint moved with a job that restarted in another zone or region.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckpointMove {
    /// The job.
    pub job: u32,
    /// The pool it restarted in (the move is booked there).
    pub pool: u32,
    /// The job's tenant.
    pub tenant: u32,
    /// Gigabytes moved.
    pub gb: f64,
    /// Between zones or regions.
    pub kind: crate::faults::TransferKind,
}

/// A span during which a node was down (any reason: failure, maintenance, the provider
/// taking spot capacity back).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DownSpan {
    /// The node.
    pub node: u32,
    /// Its pool.
    pub pool: u32,
    /// When it went down.
    pub from: SimTime,
    /// When it came back (or the end of the run).
    pub to: SimTime,
    /// When the provider reclaimed the instance, if the provider took the node away (a
    /// spot interruption or outage: the notice's end). The instance is billed until then.
    pub reclaimed: Option<SimTime>,
}

/// The GPU-time one job held in one pool, over all its run segments there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobPoolUsage {
    /// The job.
    pub job: u32,
    /// The pool.
    pub pool: u32,
    /// The job's tenant.
    pub tenant: u32,
    /// GPU-milliseconds held there.
    pub gpu_ms: u128,
}

/// A run that a policy stopped (preempted) before the job's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoppedRun {
    /// The job.
    pub job: u32,
    /// Pool it ran in.
    pub pool: u32,
    /// When the run started.
    pub start: SimTime,
    /// When it was stopped.
    pub stop: SimTime,
    /// Milli-GPU it held.
    pub gpu_milli: u64,
}

/// GPU-time per pool over the run.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolUsage {
    /// Pool name.
    pub name: String,
    /// Capacity kind.
    pub kind: CapacityKind,
    /// Nodes.
    pub nodes: u32,
    /// GPUs.
    pub gpus: u64,
    /// GPU-milliseconds provisioned (held by the fleet, used or not).
    pub provisioned_gpu_ms: u128,
    /// GPU-milliseconds held by running jobs.
    pub busy_gpu_ms: u128,
    /// Elastic pools: node-milliseconds billed over the held intervals (billing blocks
    /// and minimum applied); `None` for a fixed pool (paid for the whole run).
    pub billed_node_ms: Option<u128>,
    /// Relative speed of the pool's GPUs (a job's work takes work / speed there).
    pub speed: f64,
}

/// One sampled moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimelineRow {
    /// When.
    pub time: SimTime,
    /// Jobs waiting.
    pub queued: u64,
    /// Jobs running.
    pub running: u64,
    /// Per pool: (busy milli-GPU, provisioned milli-GPU).
    pub pools: std::sync::Arc<[(u64, u64)]>,
    /// Per pool: nodes up (held and ready).
    pub nodes: std::sync::Arc<[u64]>,
    /// Per pool: the FGD fragmentation of its up nodes, milli-GPU (see
    /// `accounting::Fragmentation`); empty when the run does not measure it.
    /// (Shared slices: a sample that repeats the last one costs no allocation.)
    pub frag_milli: std::sync::Arc<[u64]>,
}

/// The result of one run.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// When the run stopped (the horizon, or the last event).
    pub end: SimTime,
    /// Events processed (timed events plus arrivals).
    pub events: u64,
    /// Set when a run without a horizon stopped at one of its limits with jobs not ended
    /// (they count as unfinished).
    pub cut_short: Option<super::CutShort>,
    /// Per job, indexed like the workload.
    pub jobs: Vec<JobRecord>,
    /// Jobs rejected at submission (outcome `rejected` in `jobs`), counted as they were.
    pub rejected: u64,
    /// Per pool.
    pub pools: Vec<PoolUsage>,
    /// Sampled state over time.
    pub timeline: Vec<TimelineRow>,
    /// Runs stopped by preemption, in stop order.
    pub stopped_runs: Vec<StoppedRun>,
    /// Held intervals of elastic pools' nodes (request, ready, release), for billing.
    pub node_intervals: Vec<crate::sched::NodeInterval>,
    /// Failures, when the run had any configured.
    pub faults: Option<FaultSummary>,
    /// GPU-milliseconds held per (pool, tenant), in key order.
    pub tenant_busy_gpu_ms: Vec<((u32, u32), u128)>,
    /// GPU-time each job held in each pool it ran in, in (job, pool) order: a job that
    /// ran on spot and then on demand has one entry per pool, so each segment can be
    /// charged at its own pool's price.
    pub job_usage: Vec<JobPoolUsage>,
    /// Capacity that exists only inside a commitment's window: per pool, the spans
    /// `[open, close)` within the run during which its nodes were there (empty for a
    /// pool whose nodes are there throughout).
    pub windows: Vec<Vec<(SimTime, SimTime)>>,
    /// Busy GPU-milliseconds of each pool split at its billing periods' boundaries (see
    /// `Simulation::with_periods`): per pool, `(from, to, busy GPU-ms)` covering the run
    /// (empty for a pool without periods).
    pub busy_by_period: Vec<Vec<(SimTime, SimTime, u128)>>,
    /// Datasets staged and runs' spread, when the scenario configures them.
    pub cloud: Option<super::CloudResult>,
    /// The same split job by job: per pool, `(job, from, to, busy GPU-ms)` in (period,
    /// job) order, so a commitment's dollars go to the jobs that ran inside its term
    /// (empty for a pool without periods).
    pub job_busy_by_period: Vec<Vec<(u32, SimTime, SimTime, u128)>>,
}
