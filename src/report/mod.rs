//! Output files of a run (`summary.json`, `jobs.csv`, `pools.csv`, `timeline.csv`) and
//! charts. Every file is written atomically: to a temporary name, then renamed, so an
//! interrupted run never leaves a half file that looks whole. Columns are documented in
//! `docs/outputs.md`.

mod chart;
mod fgd;
mod files;

pub use chart::timeline_chart;
pub use fgd::{mean_curve, write_fgd, FgdPolicySummary, FgdSummary};
pub use files::{write_atomic, write_run, RunOutput};
mod tco_chart;

pub use tco_chart::tco_chart;
