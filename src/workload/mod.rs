//! Workloads: trace readers (one file per format) and synthetic generators, all yielding
//! a [`Workload`] of jobs in submit order.

mod arrivals;
mod csv_rows;
mod durations;
mod empirical;
mod fgd_expected;
mod fit;
mod formats;
mod generic_csv;
mod helios;
mod line_limit;
mod load;
mod model;
mod openb;
mod openb_summary;
mod openb_trace;
mod pai;
mod pai_machines;
mod pai_sim;
mod philly;
mod shape;
mod stats;
mod swf;
mod synthetic;
mod tags;
mod tiresias;
mod trace;
mod value;
pub use value::{gpu_fraction, too_many_secs, MAX_TRACE_SECS};

pub use arrivals::{
    expected_arrivals, expected_time_of, ArrivalError, ArrivalProcess, Arrivals, MAX_WEIGHT,
    MONTH_SECS,
};
pub use durations::{to_reference_work, Estimates};
pub use empirical::{read_duration_column, MAX_EMPIRICAL_VALUES};
pub use fgd_expected::{read_expected_curves, ExpectedCurve, MAX_EXPECTED_CELLS};
pub use fit::{fit_lognormal, fit_model, model_to_toml};
pub use formats::{FormatOptions, TraceReader};
pub use generic_csv::{
    read_generic_capped, read_generic_csv, write_generic_csv, GENERIC_CSV_COLUMNS,
};
pub use helios::{read_helios, read_helios_from};
pub use line_limit::{
    csv_too_long, not_a_data_file, open_limited, read_line_limited, read_small_text, too_long,
    LineLimit, LineTooLong, MAX_DATA_FILE_BYTES, MAX_LINE_BYTES, MAX_SCENARIO_BYTES,
};
pub use load::{read_format, OpenbLoad, TraceSpec};
pub use model::{SizeEstimate, TenantMix, WorkloadModel};
pub use openb::{
    group_openb_nodes, openb_workload, read_openb, read_openb_node_list, read_openb_nodes,
    read_openb_pods, OpenbNode, OpenbPod, OpenbPods, OPENB_NODE_COLUMNS, OPENB_POD_COLUMNS,
};
pub use openb_summary::{OpenbPodSummary, PodShape};
pub use openb_trace::read_openb_trace;
pub use pai::{read_pai, read_pai_from, read_pai_job_table, read_pai_job_table_from, PaiUsers};
pub use pai_machines::{read_pai_machines, read_pai_machines_from, MachineGroup, MachineList};
pub use pai_sim::{
    read_pai_sim_csv, read_pai_sim_from, PaiEstimate, PaiSimOptions, PAI_SIM_COLUMNS,
};
pub use philly::{read_philly, read_philly_from};
pub use shape::{gpu_demand_secs, LoadScale, ScaleBase, ShapeError, Shaping};
pub use stats::{format_datetime, hour_and_weekday, quantile, trace_stats, TraceStats};
pub use swf::{read_swf, read_swf_from, SwfHeader, SwfOptions};
pub use synthetic::{DurationDist, SyntheticSpec};
pub use tags::{apply_tags, DatasetShare, TagSpec};
pub use tiresias::{read_tiresias, read_tiresias_from};
pub use trace::{too_many_jobs, JobStatus, RowFilter, RowSink, TraceFormat, TraceMeta, TraceRow};
pub use value::{parse_datetime_ms, parse_number, plain_text, ValueError};

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
    #[error("{file}:{row}: column {:?}: {}", clip(.column, 80), clip(.reason, 600))]
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
    /// The trace cannot be shaped as the scenario asks.
    #[error("{file}: {source}")]
    Shape {
        /// The file.
        file: PathBuf,
        /// Why.
        source: ShapeError,
    },
    /// The file as a whole is wrong (missing header, no jobs).
    #[error("{file}: {}", clip(.reason, 600))]
    File {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// `s` cut to at most `max` bytes (at a character boundary) with the length it had, so
/// an error that quotes a cell or header of a hostile trace (a line may be a megabyte)
/// stays readable.
pub fn clip(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if s.len() <= max {
        return s.into();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes)", &s[..end], s.len()).into()
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
