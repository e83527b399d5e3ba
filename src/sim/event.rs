//! The closed set of timed events. Trace arrivals are not events: they come from a cursor
//! over the submit-ordered workload, so the heap only holds what is in flight.

use crate::model::JobId;

/// A timed event of the GPU simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A running job finishes its work.
    JobEnd {
        /// The job.
        job: JobId,
        /// The job's run generation when this end was scheduled: a preempted job's
        /// generation moves on, so the end of its stopped run is ignored when it pops.
        gen: u32,
    },
    /// The queue policy asked to be called at this time (a threshold crossing, a
    /// promotion); stale when `gen` is not the simulation's current wake generation.
    Wake {
        /// Wake generation.
        gen: u32,
    },
    /// A failure process strikes a node.
    NodeFail {
        /// Node index.
        node: u32,
        /// Index of the failure process.
        process: u16,
    },
    /// A failed node comes back.
    NodeRepair {
        /// Node index.
        node: u32,
    },
    /// A failure from the failure trace.
    TraceFail {
        /// Index into the trace.
        index: u32,
    },
    /// Maintenance notice: the window's nodes stop taking new jobs.
    Drain {
        /// Maintenance window index.
        window: u32,
    },
    /// Maintenance starts: jobs still on the nodes are checkpointed and stopped.
    MaintenanceStart {
        /// Maintenance window index.
        window: u32,
    },
    /// Maintenance ends: the nodes come back.
    MaintenanceEnd {
        /// Maintenance window index.
        window: u32,
    },
    /// A spot instance gets its interruption notice (per-node spot models).
    SpotNotice {
        /// Node index.
        node: u32,
        /// Index of the spot interruption spec.
        spec: u16,
    },
    /// A spot pool's capacity is going away (notice of a zone or trace outage).
    SpotOutage {
        /// Index of the spot interruption spec.
        spec: u16,
        /// Index of the outage (trace models) or 0.
        window: u32,
    },
    /// A spot pool's capacity is back.
    SpotRestore {
        /// Index of the spot interruption spec.
        spec: u16,
        /// Index of the outage (trace models) or 0.
        window: u32,
    },
    /// Record a timeline row.
    Sample,
    /// The end of the simulated period.
    Horizon,
}
