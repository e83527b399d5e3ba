//! Metrics: quantiles of waits and completion times, the research figures (queueing
//! delay, slowdowns, fairness, makespan), the cost ledger of a run, the summary every run
//! writes, and a mergeable quantile sketch that keeps a run's distributions compactly.

mod cloud;
mod cost;
mod fairness;
mod jobs;
mod pooled;
mod research;
mod shape;
mod sketch;
mod sort;
mod sort_floats;
mod summary;

pub use cloud::{cloud_figures, CloudFigures, DataFigures, MovedData, SpreadFigures};
pub use cost::{
    apply_transfer, held_intervals, ledger_from_run, price_run, run_cost, usage_records,
    CommitmentUse, RunCost,
};
pub use fairness::{jain_index, tenant_slowdowns};
pub use jobs::{
    job_table, tenants_among, Censored, FigureContext, JobFigures, JobTable, MetricsOptions,
};
pub use pooled::{distribution_header, distribution_rows, pool, table_num, POOLED_QUANTILES};
pub use research::{
    research_figures, tenant_research, FinishTimeFairness, GpuHoursByOutcome, PerJob,
    ResearchFigures, TenantFairness, TenantResearch,
};
pub use shape::SummaryShape;
pub use sketch::{QuantileSketch, RunSketches, SketchError, DISTRIBUTIONS};
pub use sort_floats::sort_floats;
pub use summary::{
    build_summary, build_summary_from, build_summary_with, CauseCounts, CensoredQuantiles,
    JobCounts, Quantiles, RunMeta, Summary, TenantFigures,
};
