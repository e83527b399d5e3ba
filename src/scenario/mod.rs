//! Scenario files: TOML parsed into raw serde structs that refuse unknown fields, then
//! validated into a typed [`Scenario`]. Validation collects every problem it finds and
//! names each by its field path and line (`pools[1].nodes (line 14): must be at least 1`).
//!
//! The pipeline (see `validate`): `raw*` (the file as written) -> one function per
//! section, all pushing into one problems collector (`problems`) -> `typed` (the
//! [`Scenario`]). Sections: `gpu_types`, `pools` (with `pricing` and `autoscale`),
//! `scheduler`, `workload_source` (with `synthetic` and `workload_kinds`), `sections`
//! (`[tco]`, `[spot_deadline]`, `[savings_plan]`, `[transfer]`) and `faults` (with
//! `failures` and `spot_interruptions`).

mod autoscale;
mod cloud;
mod cloud_table;
mod compare;
mod failures;
mod faults;
mod fgd;
mod fleet;
mod gpu_types;
mod limits;
mod locate;
mod measured;
mod oversized;
mod pools;
mod pricing;
mod problems;
mod raw;
mod raw_cloud;
mod raw_pricing;
mod raw_trace;
mod scheduler;
mod sections;
mod snippet;
mod spot_interruptions;
mod suggest;
mod synthetic;
mod typed;
mod validate;
mod workload_kinds;
mod workload_source;

pub use compare::{is_compare_scenario, CompareScenario};
pub use fgd::{is_fgd_scenario, FgdScenario};
pub(crate) use limits::count;
pub use limits::{check_trace_span, RunLimits, BYTES_PER_JOB, DEFAULT_MAX_JOBS, MAX_TIMELINE_ROWS};
pub use measured::{format_default, FormatDefault, MeasuredOn};
pub use oversized::{
    job_unplaceable, oversized_message, placeable, unplaceable_among, unplaceable_jobs,
    why_unplaceable, Oversized,
};
pub use pricing::MeanRevertingSpec;
pub use snippet::{column_of, span_of_path};
pub use suggest::{closest, with_suggestion};
pub use typed::{Scenario, WorkloadSource};

use std::fmt;
use std::path::{Path, PathBuf};

/// The scenario the binary runs when given none: `scenarios/quickstart.toml`.
pub const DEFAULT_SCENARIO: &str = include_str!("../../scenarios/quickstart.toml");

/// One problem in a scenario file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Field path (`pools[2].billing.minimum`), empty for the file as a whole.
    pub path: String,
    /// Line in the file, where known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// A scenario that could not be read or is invalid; lists every problem found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ScenarioError {
    /// The file (or `<built-in>`).
    pub file: PathBuf,
    /// The problems, in file order.
    pub problems: Vec<Problem>,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        writeln!(
            f,
            "{}: {} problem{}",
            self.file.display(),
            n,
            if n == 1 { "" } else { "s" }
        )?;
        for p in &self.problems {
            let at = match (p.path.is_empty(), p.line) {
                (true, Some(l)) => format!("line {l}"),
                (true, None) => String::new(),
                (false, Some(l)) => format!("{} (line {l})", p.path),
                (false, None) => p.path.clone(),
            };
            if at.is_empty() {
                writeln!(f, "  {}", p.message)?;
            } else {
                writeln!(f, "  {at}: {}", p.message)?;
            }
        }
        Ok(())
    }
}

/// The text of the scenario-like file `path` (at most
/// [`crate::workload::MAX_SCENARIO_BYTES`]), or the error naming it.
pub(crate) fn read_scenario_text(path: &Path) -> Result<String, ScenarioError> {
    crate::workload::read_small_text(path, crate::workload::MAX_SCENARIO_BYTES).map_err(|e| {
        ScenarioError {
            file: path.to_path_buf(),
            problems: vec![Problem {
                path: String::new(),
                line: None,
                message: format!("cannot read: {e}"),
            }],
        }
    })
}

impl Scenario {
    /// Reads and validates a scenario file; data paths are relative to its folder.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let text = read_scenario_text(path)?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Scenario::parse(&text, path, &base)
    }

    /// The built-in default scenario (data paths relative to the working directory).
    pub fn builtin() -> Result<Scenario, ScenarioError> {
        Scenario::parse(
            DEFAULT_SCENARIO,
            Path::new("<built-in quickstart>"),
            Path::new("."),
        )
    }

    /// Parses and validates scenario text; `file` names it in errors, `base` resolves paths.
    pub fn parse(text: &str, file: &Path, base: &Path) -> Result<Scenario, ScenarioError> {
        let raw: raw::RawScenario = toml::from_str(text).map_err(|e| ScenarioError {
            file: file.to_path_buf(),
            problems: vec![Problem {
                path: String::new(),
                line: e.span().map(|s| locate::line_of_offset(text, s.start)),
                message: suggest::with_suggestion(e.message().trim()),
            }],
        })?;
        lost_floats_error(text, file)?;
        validate::validate(raw, text, base).map_err(|problems| problems.into_error(file, text))
    }
}

/// The error of a scenario file whose floats TOML reads as zero or a denormal though
/// written with digits (`gpus = 1e-999`; see [`lost_float_problems`]).
fn lost_floats_error(text: &str, file: &Path) -> Result<(), ScenarioError> {
    let problems = lost_float_problems(text);
    if problems.is_empty() {
        return Ok(());
    }
    Err(ScenarioError {
        file: file.to_path_buf(),
        problems,
    })
}

/// A problem at each float of a scenario-like file that TOML reads as zero or a denormal
/// though it is written with digits (`gpus = 1e-999`, `4.9e-324`: see
/// [`locate::lost_floats`]): validated, it would be told "got 0" of a number the file
/// does not hold.
pub fn lost_float_problems(text: &str) -> Vec<Problem> {
    locate::lost_floats(text)
        .into_iter()
        .map(|(line, path, written)| Problem {
            path,
            line: Some(line),
            message: format!(
                "{written} is too close to zero: under 2.2e-308 a number reads as 0 \
                 (or loses its digits); write 0 for zero"
            ),
        })
        .collect()
}

/// FNV-1a 64 of a text, as 16 hex digits (the scenario hash in outputs).
pub fn text_hash(text: &str) -> String {
    let mut h = TextHasher::default();
    h.push(text);
    h.finish()
}

/// [`text_hash`] fed piece by piece: the hash of the pieces' concatenation without
/// building it (a sweep hashes every point's scenario text: 300 MB at 100,000 points).
#[derive(Debug, Clone, Copy)]
pub struct TextHasher(u64);

impl Default for TextHasher {
    fn default() -> Self {
        TextHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl TextHasher {
    /// Adds `text` after what was pushed before.
    pub fn push(&mut self, text: &str) {
        for b in text.bytes() {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01B3);
        }
    }

    /// The hash so far, as 16 hex digits.
    pub fn finish(&self) -> String {
        format!("{:016x}", self.0)
    }
}

#[cfg(test)]
mod hash_tests {
    use super::*;

    #[test]
    fn the_hash_is_fnv1a_64_whole_or_in_pieces() {
        // FNV-1a 64 test vectors (Fowler, Noll and Vo's reference set): "" and "foobar".
        assert_eq!(text_hash(""), "cbf29ce484222325");
        assert_eq!(text_hash("foobar"), "85944171f73967e8");
        let mut h = TextHasher::default();
        for piece in ["fo", "", "ob", "ar"] {
            h.push(piece);
        }
        assert_eq!(h.finish(), "85944171f73967e8");
    }
}
