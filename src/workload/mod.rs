//! Workloads: trace readers (one file per format) and synthetic generators, all yielding
//! a [`Workload`] of jobs in submit order.

mod fgd_expected;
mod generic_csv;
mod openb;
mod synthetic;

pub use fgd_expected::{read_expected_curves, ExpectedCurve};
pub use generic_csv::{read_generic_csv, write_generic_csv, GENERIC_CSV_COLUMNS};
pub use openb::{
    group_openb_nodes, openb_workload, read_openb, read_openb_nodes, read_openb_pods, OpenbNode,
    OpenbPod, OpenbPods, OPENB_NODE_COLUMNS, OPENB_POD_COLUMNS,
};
pub use synthetic::{DurationDist, SyntheticSpec};

pub use crate::model::Workload;
use std::path::PathBuf;

/// A bad trace row or file, with where it is.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be opened or read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A row is malformed.
    #[error("{file}:{row}: column {column:?}: {reason}")]
    Row {
        /// The file.
        file: PathBuf,
        /// Line number (1-based, the header is line 1).
        row: u64,
        /// Column name.
        column: String,
        /// What is wrong.
        reason: String,
    },
    /// The file as a whole is wrong (missing header, no jobs).
    #[error("{file}: {reason}")]
    File {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// What to do with a bad row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BadRows {
    /// Stop at the first bad row with its file, row and column (the default).
    #[default]
    Stop,
    /// Skip bad rows, counting them in `Workload::skipped_rows`.
    Skip,
}
