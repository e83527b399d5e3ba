//! The trace formats gpufleet reads, as one registry: each line of `trace_formats!` names a
//! [`TraceFormat`] variant, its spelling in scenario files and on the command line, and the
//! [`TraceReader`] that reads it. Adding a format is one reader file (its `mod` line in
//! `workload/mod.rs`) and one line here.

use super::pai::{read_pai, read_pai_job_table};
use super::swf::{read_swf, SwfOptions};
use super::trace::{RowFilter, TraceMeta};
use super::{BadRows, TraceError, Workload};
use std::path::Path;

/// Options that only some formats read.
#[derive(Debug, Clone, Copy, Default)]
pub struct FormatOptions<'a> {
    /// SWF: processors per GPU.
    pub swf: SwfOptions,
    /// PAI: the job table to take each task's user from.
    pub pai_job_table: Option<&'a Path>,
}

/// A trace format's reader: streams `path` row by row into jobs, stopping at or skipping
/// bad rows (`bad`) and applying the streaming `filter`.
pub trait TraceReader {
    /// Reads the file.
    fn read(
        path: &Path,
        bad: BadRows,
        filter: RowFilter,
        options: &FormatOptions,
    ) -> Result<(Workload, TraceMeta), TraceError>;
}

/// Declares [`TraceFormat`] from `/// doc` + `Variant = "name" => Reader,` lines.
macro_rules! trace_formats {
    ($($(#[$attr:meta])+ $kind:ident = $name:literal => $reader:ty,)+) => {
        /// The trace formats gpufleet reads.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Deserialize, clap::ValueEnum)]
        pub enum TraceFormat {
            $($(#[$attr])+ #[serde(rename = $name)] #[value(name = $name)] $kind,)+
        }

        impl TraceFormat {
            /// Every format, in registry order.
            pub const ALL: [TraceFormat; [$($name),+].len()] = [$(TraceFormat::$kind),+];

            /// The spelling used in scenario files and on the command line.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(TraceFormat::$kind => $name,)+
                }
            }

            /// Reads `path` in this format (see [`TraceReader::read`]).
            pub fn read(
                self,
                path: &Path,
                bad: BadRows,
                filter: RowFilter,
                options: &FormatOptions,
            ) -> Result<(Workload, TraceMeta), TraceError> {
                match self {
                    $(TraceFormat::$kind => <$reader as TraceReader>::read(path, bad, filter, options),)+
                }
            }
        }
    };
}

trace_formats! {
    /// gpufleet's generic CSV (the lingua franca).
    Generic = "generic" => super::generic_csv::GenericCsv,
    /// Standard Workload Format (Parallel Workloads Archive).
    Swf = "swf" => Swf,
    /// SenseTime Helios job CSV.
    Helios = "helios" => super::helios::Helios,
    /// Alibaba PAI 2020 task table (`pai_task_table.csv`, no header), optionally joined
    /// with the job table for users.
    Pai = "pai" => Pai,
    /// Microsoft Philly job log (JSON array).
    Philly = "philly" => super::philly::Philly,
    /// Tiresias CSV (`job_id,num_gpu,submit_time,iterations,model_name,duration,interval`).
    Tiresias = "tiresias" => super::tiresias::Tiresias,
    /// Alibaba openb 2023 pod list (with the time columns).
    Openb = "openb" => super::openb_trace::OpenbTrace,
}

/// The SWF reader (processors per GPU from the options).
pub struct Swf;

impl TraceReader for Swf {
    fn read(
        path: &Path,
        bad: BadRows,
        filter: RowFilter,
        options: &FormatOptions,
    ) -> Result<(Workload, TraceMeta), TraceError> {
        read_swf(path, &options.swf, bad, filter).map(|(w, m, _)| (w, m))
    }
}

/// The PAI task-table reader (users from the job table, when given).
pub struct Pai;

impl TraceReader for Pai {
    fn read(
        path: &Path,
        bad: BadRows,
        filter: RowFilter,
        options: &FormatOptions,
    ) -> Result<(Workload, TraceMeta), TraceError> {
        let users = options
            .pai_job_table
            .map(|p| read_pai_job_table(p, bad, filter.max_jobs))
            .transpose()?;
        read_pai(path, users.as_ref(), bad, filter)
    }
}
