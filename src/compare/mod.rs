//! Paired comparisons with common random numbers: several policies (or scenario
//! variants) on the same workload, the same seeds, the same arrivals and run times; each
//! metric per variant with its 95 % confidence interval, and each variant's paired
//! difference to a baseline with its interval and p-value (paired t). Outputs: a folder
//! of CSV/JSON tables and charts (overlaid JCT and queueing-delay CDFs, bars with
//! intervals), documented in `docs/outputs.md`.
//!
//! - [`CompareSpec`]: what is compared (a compare file, or a scenario and policies);
//! - [`run_compare`]: the runs, through [`crate::run`], in parallel, deterministic;
//! - [`write_comparison`]: the folder; [`headline`]: the lines the terminal shows.

mod exec;
mod output;
mod spec;
mod stats;

pub use exec::{run_compare, Comparison, RunFigures};
pub use output::{headline, pooled_sketches, write_comparison, MetricRow};
pub use spec::{
    bootstrap_of, is_compare_file_text, is_run_metric, unknown_metric, Bootstrap, CompareSpec,
    Variant, DEFAULT_METRICS, MAX_RESAMPLES,
};
pub use stats::{estimate, paired, paired_bootstrap, test_name, Estimate, PairedDifference, TEST};

use std::fmt;
use std::path::{Path, PathBuf};

/// A comparison that cannot be run: a bad compare file (each problem with its line), other
/// bad input (flags, a variant's trace), or a failure of the environment.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// The compare file or its variants are wrong (exit code 2).
    Invalid {
        /// The compare file (or the scenario, for `--policies`).
        file: PathBuf,
        /// (line, message), in file order.
        problems: Vec<(Option<usize>, String)>,
    },
    /// Bad input other than the compare file: flags, a trace (exit code 2).
    BadInput(String),
    /// Running or writing failed.
    Failed(String),
}

impl CompareError {
    pub(crate) fn one(file: &Path, line: Option<usize>, msg: String) -> CompareError {
        CompareError::Invalid {
            file: file.to_path_buf(),
            problems: vec![(line, msg)],
        }
    }
    pub(crate) fn many(file: &Path, problems: Vec<(Option<usize>, String)>) -> CompareError {
        CompareError::Invalid {
            file: file.to_path_buf(),
            problems,
        }
    }
    /// True for errors in the user's input.
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, CompareError::Failed(_))
    }
}

impl fmt::Display for CompareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompareError::Invalid { file, problems } => {
                crate::sweep::write_problems(f, file, problems)
            }
            CompareError::BadInput(m) | CompareError::Failed(m) => write!(f, "{m}"),
        }
    }
}
