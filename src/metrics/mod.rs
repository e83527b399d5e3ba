//! Metrics: quantiles of waits and completion times, the cost ledger of a run, and the
//! summary every run writes.

mod cost;
mod fairness;
mod summary;

pub use cost::{
    apply_savings_plan, apply_transfer, held_intervals, ledger_from_run, run_cost, RunCost,
};
pub use fairness::{jain_index, tenant_slowdowns};
pub use summary::{
    build_summary, CauseCounts, JobCounts, Quantiles, RunMeta, Summary, TenantFigures,
};
