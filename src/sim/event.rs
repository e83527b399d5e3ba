//! The closed set of timed events: the core loop's own, and one sub-enum per part
//! (elastic pools, faults, commitment windows) that the loop hands to that part. Trace arrivals are not
//! events: they come from a cursor over the submit-ordered workload, so the heap only
//! holds what is in flight.

use crate::model::JobId;

/// A timed event of the GPU simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A running job finishes its work.
    JobEnd {
        /// The job.
        job: JobId,
        /// The job's run generation when this end was scheduled: a stopped job's
        /// generation moves on, so the end of its stopped run is ignored when it pops.
        gen: u32,
    },
    /// The queue policy asked to be called at this time (a threshold crossing, a
    /// promotion); stale when `gen` is not the simulation's current wake generation.
    Wake {
        /// Wake generation.
        gen: u32,
    },
    /// An event of the elastic pools.
    Elastic(ElasticEvent),
    /// An event of the failure processes, maintenance or spot interruptions.
    Fault(FaultEvent),
    /// A commitment's window opens, drains or closes.
    Window(WindowEvent),
    /// Record a timeline row.
    Sample,
    /// The end of the simulated period.
    Horizon,
}

/// A timed event of the elastic pools (see [`crate::sched::Autoscale`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElasticEvent {
    /// A rented node of an elastic pool is ready to take jobs.
    NodeReady {
        /// The node.
        node: u32,
    },
    /// Release check of an elastic node that went idle; stale when the node's idle
    /// generation moved on (a job started on it since).
    NodeRelease {
        /// The node.
        node: u32,
        /// The node's idle generation when it went idle.
        gen: u32,
    },
    /// The autoscaler looks again (a wait target or a stock change is due).
    Autoscale,
}

/// A timed event of the faults part (see [`crate::faults`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultEvent {
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
}

/// A timed event of the commitments part: capacity that exists only in a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowEvent {
    /// The window's nodes arrive.
    Open {
        /// Pool index.
        pool: u32,
        /// Window index within the pool.
        window: u32,
    },
    /// The window's nodes stop taking new jobs (its notice before the close).
    Drain {
        /// Pool index.
        pool: u32,
        /// Window index within the pool.
        window: u32,
    },
    /// The window's nodes are taken away: jobs on them checkpoint and requeue.
    Close {
        /// Pool index.
        pool: u32,
        /// Window index within the pool.
        window: u32,
    },
}

impl From<ElasticEvent> for Event {
    fn from(e: ElasticEvent) -> Event {
        Event::Elastic(e)
    }
}

impl From<FaultEvent> for Event {
    fn from(e: FaultEvent) -> Event {
        Event::Fault(e)
    }
}
