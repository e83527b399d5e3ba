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
    },
    /// Record a timeline row.
    Sample,
    /// The end of the simulated period.
    Horizon,
}
