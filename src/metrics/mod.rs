//! Metrics: quantiles of waits and completion times, the cost ledger of a run, and the
//! summary every run writes.

mod cost;
mod fairness;
mod summary;

pub use cost::ledger_from_run;
pub use fairness::{jain_index, tenant_slowdowns};
pub use summary::{build_summary, JobCounts, Quantiles, RunMeta, Summary};
