//! Jobs that ended for good, handed out while the run goes on: a consumer (the run's
//! `jobs.csv` rows, `report::streamed`) can do each job's work on another core during the
//! simulation instead of after it.
//!
//! A job has ended for good when it completed, or failed past its retry limit: its record
//! is final then (nothing a run does later touches it), and so is the GPU-time it held.
//! Rejected jobs and jobs still open at the end are not handed out.

use super::JobRecord;
use std::sync::mpsc::SyncSender;

/// Jobs sent at once (a channel message per batch, not per job).
const BATCH: usize = 4096;

/// One job that ended for good.
#[derive(Debug, Clone)]
pub struct Ended {
    /// Its index in the workload.
    pub job: u32,
    /// Its final record.
    pub record: JobRecord,
    /// GPU-milliseconds it held, over every pool (as `RunResult::job_usage` sums them).
    pub gpu_ms: u128,
}

/// Where a simulation sends the jobs that ended for good, in batches in the order they
/// ended; the last batch goes when the run is over. A consumer that has gone away is not
/// an error: the run goes on without it.
#[derive(Debug)]
pub struct EndedSink {
    batch: Vec<Ended>,
    tx: SyncSender<Vec<Ended>>,
}

impl EndedSink {
    /// A sink into `tx`.
    pub fn new(tx: SyncSender<Vec<Ended>>) -> EndedSink {
        EndedSink {
            batch: Vec::with_capacity(BATCH),
            tx,
        }
    }

    /// Adds one job; sends the batch when it is full.
    pub(super) fn push(&mut self, e: Ended) {
        self.batch.push(e);
        if self.batch.len() >= BATCH {
            let full = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
            let _ = self.tx.send(full);
        }
    }
}

impl Drop for EndedSink {
    fn drop(&mut self) {
        if !self.batch.is_empty() {
            let _ = self.tx.send(std::mem::take(&mut self.batch));
        }
    }
}
