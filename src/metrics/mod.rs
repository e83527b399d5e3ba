//! Metrics: quantiles of waits and completion times, the cost ledger of a run, and the
//! summary every run writes.

mod cloud;
mod cost;
mod fairness;
mod summary;

pub use cloud::{cloud_figures, CloudFigures, DataFigures, MovedData, SpreadFigures};
pub use cost::{
    apply_transfer, held_intervals, ledger_from_run, price_run, run_cost, usage_records,
    CommitmentUse, RunCost,
};
pub use fairness::{jain_index, tenant_slowdowns};
pub use summary::{
    build_summary, CauseCounts, CensoredQuantiles, JobCounts, Quantiles, RunMeta, Summary,
    TenantFigures,
};
