//! Faults: hardware failure processes (with a Llama 3 preset), repair times, failure
//! traces, planned maintenance, and the checkpoint/restart arithmetic that decides how
//! much work a killed job loses.
//!
//! The simulation (`sim`) schedules the events; this module only says when failures
//! happen and what a kill costs.

mod checkpoint;
mod preset;
mod process;
mod spot;
mod trace;

pub use checkpoint::{
    CheckpointPolicy, Checkpointing, Segment, SegmentEnd, SegmentTimes, DEFAULT_MAX_RETRIES,
};
pub use preset::{by_name as preset_by_name, llama3_h100, Cause, FailurePreset};
pub use process::{FailureDist, FailureProcess, Scope};
pub use spot::{SpotInterruptions, SpotModel};
pub use trace::{read_failure_trace, TraceFailure, MAX_TRACE_FAILURES};

use crate::engine::SimTime;
use crate::workload::DurationDist;

/// Planned maintenance: nodes of a pool drained with notice, then down for a while.
#[derive(Debug, Clone, PartialEq)]
pub struct Maintenance {
    /// Pool index.
    pub pool: usize,
    /// Number of nodes taken (the pool's first nodes).
    pub nodes: u32,
    /// When the nodes go down.
    pub start: SimTime,
    /// How long they stay down.
    pub duration: SimTime,
    /// How long before `start` the nodes stop taking new jobs. Jobs still running at
    /// `start` are stopped after writing a checkpoint (they lose no work).
    pub notice: SimTime,
}

/// Everything about failures in one run.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultConfig {
    /// Failure processes (each over the pools it names; empty = all pools).
    pub processes: Vec<(FailureProcess, Vec<usize>)>,
    /// Repair time of a failed node.
    pub repair: DurationDist,
    /// Failures from a trace instead of (or besides) processes.
    pub trace: Vec<TraceFailure>,
    /// Planned maintenance windows.
    pub maintenance: Vec<Maintenance>,
    /// Checkpoint and restart behaviour of jobs.
    pub checkpointing: Checkpointing,
    /// Spot interruptions per pool.
    pub spot: Vec<SpotInterruptions>,
    /// Moving checkpoints when a job restarts elsewhere.
    pub migration: Migration,
}

/// Where pools are and how fast checkpoints move between them. A job that restarts in a
/// pool in another zone or region than its last run first moves its checkpoint
/// (`Checkpointing::size_gb`): the transfer time (size x 8 / bandwidth) is added to its
/// restart, and the bytes are charged as cross-zone or cross-region transfer.
#[derive(Debug, Clone, PartialEq)]
pub struct Migration {
    /// Gigabits per second between pools.
    pub bandwidth_gbps: f64,
    /// `(region, zone)` of each pool (empty when not given: such pools count as one place).
    pub locations: Vec<(String, String)>,
}

impl Default for Migration {
    fn default() -> Self {
        Migration {
            bandwidth_gbps: 10.0,
            locations: Vec::new(),
        }
    }
}

/// Where a checkpoint moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TransferKind {
    /// Between zones of one region.
    CrossZone,
    /// Between regions (priced as internet egress).
    CrossRegion,
}

impl Migration {
    /// The kind of move from pool `a` to pool `b`, if they are in different places.
    pub fn between(&self, a: usize, b: usize) -> Option<TransferKind> {
        let (ra, za) = self.locations.get(a)?;
        let (rb, zb) = self.locations.get(b)?;
        if ra != rb {
            Some(TransferKind::CrossRegion)
        } else if za != zb {
            Some(TransferKind::CrossZone)
        } else {
            None
        }
    }
}

impl FaultConfig {
    /// No failures, no checkpoints.
    pub fn none() -> Self {
        FaultConfig {
            processes: Vec::new(),
            repair: DurationDist::Fixed {
                value: SimTime::from_secs(3600),
            },
            trace: Vec::new(),
            maintenance: Vec::new(),
            checkpointing: Checkpointing::default(),
            spot: Vec::new(),
            migration: Migration::default(),
        }
    }

    /// Failure rate per GPU-hour seen by a job on pool `p` with `gpus` GPUs over `nodes`
    /// nodes (sum over the processes covering the pool), for checkpoint interval policies.
    pub fn job_failure_rate_per_hour(&self, p: usize, gpus: f64, nodes: f64) -> f64 {
        job_failure_rate_per_hour(&self.processes, p, gpus, nodes)
    }
}

/// Failure rate per hour seen by a job on pool `p` with `gpus` GPUs over `nodes` nodes,
/// summed over the `processes` covering the pool (each with the pools it covers; empty =
/// all pools).
pub fn job_failure_rate_per_hour(
    processes: &[(FailureProcess, Vec<usize>)],
    p: usize,
    gpus: f64,
    nodes: f64,
) -> f64 {
    processes
        .iter()
        .filter(|(_, pools)| pools.is_empty() || pools.contains(&p))
        .map(|(proc_, _)| match proc_.scope {
            Scope::Gpu => proc_.rate_per_day / 24.0 * gpus,
            Scope::Node => proc_.rate_per_day / 24.0 * nodes,
        })
        .sum()
}
