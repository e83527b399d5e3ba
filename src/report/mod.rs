//! Output files of a run (`summary.json`, `jobs.csv`, `pools.csv`, `timeline.csv`) and
//! charts of runs and sweeps (SVG and PNG). Every file is written atomically: to a
//! temporary name, then renamed, so an interrupted run never leaves a half file that looks
//! whole; a `jobs.csv` of 100,000 rows or more goes to the device around the page cache
//! (`direct.rs`). Columns are documented in `docs/outputs.md`.

mod cloud_columns;
pub mod columns;
mod commitments;
mod compare_charts;
mod complete;
mod csv_columns;
mod csv_out;
mod data;
mod deadline;
mod direct;
mod fgd;
mod files;
mod format;
mod labels;
mod render;
mod run_charts;
mod streamed;
mod sweep_charts;
mod tenants;

pub use commitments::write_commitments_csv;
pub use compare_charts::{cdf_series, plot_compare_dir, CdfOverlay, CdfSeries, CHARTED};
pub use complete::{
    check_complete, complete_names, is_data_file, remove_complete, write_complete,
    write_complete_known, CompleteError, COMPLETE,
};
pub use csv_columns::{
    job_columns, pool_columns, timeline_columns, JobContext, JobRow, PoolRow, TimelineCell,
};
pub use csv_out::{write_table, Cell, Column, ColumnType, CsvOut};
pub use data::{FolderTable, Table, TableError, TableStream};
pub use deadline::write_deadline_csv;
pub use direct::FileSum;
pub use fgd::{
    finite_mean, mean_curve, mean_frag_curve, write_fgd, FgdExpected, FgdPolicySummary, FgdSummary,
};
pub use files::{
    write_atomic, write_jobs_csv, write_rest, write_run, write_streamed, write_summary, JobsCsv,
    RunOutput, RunRest,
};
pub use format::{OutputFormat, PARQUET_BUILT};
pub use labels::{metric_label, time_unit, Label};
pub use tenants::write_tenants_csv;
mod tco_chart;

pub use render::{render, Chart, ChartError, DrawResult};
pub use run_charts::{plot_run, plot_run_dir, RunCharts};
pub use streamed::StreamedRows;
pub use sweep_charts::{pareto_front, plot_sweep_dir};
pub use tco_chart::write_tco_charts;
#[cfg(feature = "parquet")]
pub mod parquet;
