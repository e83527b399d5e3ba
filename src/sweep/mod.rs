//! Parameter sweeps: a sweep file expanded into runs ([`Plan`]), run in parallel with
//! durable per-run records ([`run_sweep`]), resumed, sharded, merged ([`merge`]), and
//! submitted to Slurm as a job array ([`slurm`]). Outputs: `runs.csv` (one row per run)
//! and `points.csv` (mean and 95 % confidence half-width per point).

mod exec;
mod merge;
mod overrides;
mod plan;
mod record;
mod shared;
pub mod slurm;
mod spec;
mod stats;
mod table;
mod value;

pub use exec::{
    flatten_summary, run_once, run_sweep, summary_leaves, Progress, Shard, SweepOptions,
    SweepOutcome,
};
pub use merge::merge;
pub use overrides::{get_path, parse_path, resolve_names, set_path, PathError, Segment};
pub use plan::{describe, latin_hypercube, Plan, Point, RunId};
pub use record::{ReadRecordError, Record, RecordError};
pub use shared::{key_hash as workload_key_hash, workload_key, SharedWorkloads, MAX_SHARED_JOBS};
pub use slurm::SlurmError;
pub use spec::{param_values, Mode, ParamError, RawParam, RawRange, RawSpace, Values};
pub use stats::{ci95_half_width, mean};
pub use table::{fmt6, read_manifest, write_tables, Manifest, ManifestError};
pub use value::{clean, ParamValue, ParamValueError};

use std::fmt;
use std::path::{Path, PathBuf};

/// A sweep that cannot run: bad sweep file (each problem with its line), or a failure.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// The sweep file or its parameters are wrong (exit code 2).
    Invalid {
        /// The sweep file.
        file: PathBuf,
        /// (line, message), in line order.
        problems: Vec<(Option<usize>, String)>,
    },
    /// Bad input other than the sweep file (shard folders, flags): exit code 2.
    BadInput(String),
    /// Running or writing failed.
    Failed(String),
}

impl SweepError {
    pub(crate) fn one(file: &Path, line: Option<usize>, msg: String) -> SweepError {
        SweepError::Invalid {
            file: file.to_path_buf(),
            problems: vec![(line, msg)],
        }
    }
    pub(crate) fn many(file: &Path, problems: Vec<(Option<usize>, String)>) -> SweepError {
        SweepError::Invalid {
            file: file.to_path_buf(),
            problems,
        }
    }
    /// True for errors in the user's input.
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, SweepError::Failed(_))
    }
}

/// The problems of a sweep, compare or plan file's floats that TOML reads as zero or a
/// denormal though written with digits (`values = [1e-999]`), as (line, "field: why"),
/// by the scenario files' check ([`crate::scenario::lost_float_problems`]): a swept 0
/// would be told "got 0" of a number the file does not hold, a denormal printed in 324
/// digits.
pub fn lost_float_lines(text: &str) -> Vec<(Option<usize>, String)> {
    crate::scenario::lost_float_problems(text)
        .into_iter()
        .map(|p| (p.line, format!("{}: {}", p.path, p.message)))
        .collect()
}

/// Writes a file's problems as the sweep, compare and plan errors show them: the file and
/// the count, then one problem a line, with its line number when known.
pub(crate) fn write_problems(
    f: &mut fmt::Formatter<'_>,
    file: &Path,
    problems: &[(Option<usize>, String)],
) -> fmt::Result {
    let n = problems.len();
    write!(
        f,
        "{}: {n} problem{}",
        file.display(),
        if n == 1 { "" } else { "s" }
    )?;
    for (l, m) in problems {
        match l {
            Some(l) => write!(f, "\n  line {l}: {m}")?,
            None => write!(f, "\n  {m}")?,
        }
    }
    Ok(())
}

impl fmt::Display for SweepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SweepError::Invalid { file, problems } => write_problems(f, file, problems),
            SweepError::BadInput(m) | SweepError::Failed(m) => write!(f, "{m}"),
        }
    }
}
