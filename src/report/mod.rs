//! Output files of a run (`summary.json`, `jobs.csv`, `pools.csv`, `timeline.csv`) and
//! charts of runs and sweeps (SVG and PNG). Every file is written atomically: to a
//! temporary name, then renamed, so an interrupted run never leaves a half file that looks
//! whole. Columns are documented in `docs/outputs.md`.

pub mod columns;
mod csv_columns;
mod csv_out;
mod data;
mod deadline;
mod fgd;
mod files;
mod format;
mod render;
mod run_charts;
mod sweep_charts;

pub use csv_columns::{
    job_columns, pool_columns, timeline_columns, JobContext, JobRow, PoolRow, TimelineCell,
};
pub use csv_out::{write_table, Cell, Column, ColumnType, CsvOut};
pub use data::{Table, TableError, TableStream};
pub use deadline::write_deadline_csv;
pub use fgd::{
    finite_mean, mean_curve, mean_frag_curve, write_fgd, FgdExpected, FgdPolicySummary, FgdSummary,
};
pub use files::{write_atomic, write_run, write_streamed, RunOutput};
pub use format::{OutputFormat, PARQUET_BUILT};
mod tco_chart;

pub use render::{render, Chart, ChartError, DrawResult};
pub use run_charts::{plot_run, plot_run_dir, RunCharts};
pub use sweep_charts::{pareto_front, plot_sweep_dir};
pub use tco_chart::tco_chart;
#[cfg(feature = "parquet")]
pub mod parquet;
