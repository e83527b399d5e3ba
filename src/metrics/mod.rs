//! Metrics: quantiles of waits and completion times, the cost ledger of a run, and the
//! summary every run writes.

mod cost;
mod summary;

pub use cost::ledger_from_run;
pub use summary::{build_summary, CauseCounts, JobCounts, Quantiles, RunMeta, Summary};
