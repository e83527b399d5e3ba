//! The one problems collector of scenario validation: every section's checks push into it
//! under a field path (`pools[2].billing.minimum`), and at the end it becomes a
//! [`ScenarioError`] with each problem's line found in the text.

use super::{locate, Problem, ScenarioError};
use crate::engine::{parse_duration, SimTime};
use std::path::Path;

pub use crate::pricing::MAX_USD_PER_HOUR;

/// The largest relative weight (of a size, a tenant, an hour of an arrival profile):
/// far past any real ratio, and a million of them still add up to a finite sum.
pub const MAX_WEIGHT: f64 = crate::workload::MAX_WEIGHT;

/// The slowest and fastest GPU speed relative to the reference (speed 1): a thousand times
/// either way spans every GPU generation; beyond it a job's run time would pass any
/// simulated span (a speed of `1e-300` makes a minute's job last past the clock's end).
pub const SPEED_RANGE: (f64, f64) = (1e-3, 1e3);

/// Problems found so far, in the order the checks found them.
#[derive(Debug, Default)]
pub(super) struct Problems(Vec<Problem>);

impl Problems {
    /// An empty collector.
    pub(super) fn new() -> Problems {
        Problems::default()
    }

    /// True when nothing is wrong (yet).
    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Records that the value at `path` is wrong.
    /// True when `file`, a data file the scenario names at `path`, is a regular file;
    /// otherwise records why not (missing, a folder, a pipe or device) and is false.
    pub(super) fn data_file(&mut self, path: impl Into<String>, file: &Path) -> bool {
        match crate::workload::not_a_data_file(file) {
            None => true,
            Some(why) => {
                self.err(path, why);
                false
            }
        }
    }

    /// Records the problem `message` at field `path`.
    pub(super) fn err(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(Problem {
            path: path.into(),
            line: None,
            message: message.into(),
        });
    }

    /// `Err(self)` when a problem was found, so a stage can stop at a gate with `?`.
    pub(super) fn gate(&mut self) -> Result<(), Problems> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(std::mem::take(self))
        }
    }

    /// The duration written at `path`, or `None` (and a problem) if it is not one.
    pub(super) fn duration(&mut self, path: &str, text: &str) -> Option<SimTime> {
        match parse_duration(text) {
            Ok(t) => Some(t),
            Err(e) => {
                self.err(path, e.to_string());
                None
            }
        }
    }

    /// Like [`Problems::duration`], but a bad duration reads as zero, so that the checks
    /// after it (such as "must be longer than zero") still run.
    pub(super) fn dur(&mut self, path: &str, text: &str) -> SimTime {
        self.duration(path, text).unwrap_or(SimTime::ZERO)
    }

    /// `x`, which must be a finite number above zero.
    pub(super) fn positive(&mut self, path: &str, x: f64) -> f64 {
        if !(x.is_finite() && x > 0.0) {
            self.err(
                path,
                format!(
                    "must be a positive number, got {}",
                    crate::engine::short_number(x)
                ),
            );
        }
        x
    }

    /// `x`, a relative weight (of a size, a tenant): above zero and at most
    /// [`MAX_WEIGHT`], so that a mix's weights add up to a finite sum (two weights of
    /// `1e308` add up to infinity, and the mix then drew its last entry only).
    pub(super) fn weight(&mut self, path: &str, x: f64) -> f64 {
        if !(x.is_finite() && x > 0.0 && x <= MAX_WEIGHT) {
            self.err(
                path,
                format!(
                    "must be a positive weight of at most {MAX_WEIGHT:e} (weights are relative), got {}",
                    crate::engine::short_number(x)
                ),
            );
        }
        x
    }

    /// `x`, a speed relative to the reference GPU, within [`SPEED_RANGE`].
    pub(super) fn speed(&mut self, path: &str, x: f64) -> f64 {
        let (lo, hi) = SPEED_RANGE;
        if !(x.is_finite() && (lo..=hi).contains(&x)) {
            self.err(
                path,
                format!(
                    "must be between {lo} and {hi} (a speed relative to the reference GPU), got {}",
                    crate::engine::short_number(x)
                ),
            );
        }
        x
    }

    /// `x`, which must be finite and zero or more; zero when it is not.
    pub(super) fn nonneg(&mut self, path: &str, x: f64) -> f64 {
        if !(x.is_finite() && x >= 0.0) {
            self.err(
                path,
                format!(
                    "must be zero or more, got {}",
                    crate::engine::short_number(x)
                ),
            );
            return 0.0;
        }
        x
    }

    /// `x`, a price in dollars an hour: zero or more and at most [`MAX_USD_PER_HOUR`] (a
    /// larger one would not describe any machine, and bills of `1e308` overflow to
    /// infinity); zero when it is not.
    pub(super) fn usd_per_hour(&mut self, path: &str, x: f64) -> f64 {
        self.within(path, x, MAX_USD_PER_HOUR, "dollars an hour")
    }

    /// `x`, which must be finite, zero or more and at most `max` (in `unit`: a bound past
    /// any real figure, so that sums of figures stay finite); zero when it is not.
    pub(super) fn within(&mut self, path: &str, x: f64, max: f64, unit: &str) -> f64 {
        if !(x.is_finite() && (0.0..=max).contains(&x)) {
            self.err(
                path,
                format!(
                    "must be between 0 and {} {unit}, got {}",
                    crate::engine::short_number(max),
                    crate::engine::short_number(x)
                ),
            );
            return 0.0;
        }
        x
    }

    /// `x`, which must be a share between 0 and 1; zero when it is not.
    pub(super) fn share(&mut self, path: &str, x: f64) -> f64 {
        if !(0.0..=1.0).contains(&x) {
            self.err(
                path,
                format!(
                    "must be between 0 and 1, got {}",
                    crate::engine::short_number(x)
                ),
            );
            return 0.0;
        }
        x
    }

    /// The error naming `file`: each problem gets the line of its field path in `text`
    /// (where the parser did not give one), and problems are put in line order.
    pub(super) fn into_error(self, file: &Path, text: &str) -> ScenarioError {
        let mut problems = self.0;
        for p in &mut problems {
            if p.line.is_none() {
                p.line = locate::line_of_path(text, &p.path);
            }
            p.message = super::suggest::with_suggestion(&p.message);
        }
        problems.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
        ScenarioError {
            file: file.to_path_buf(),
            problems,
        }
    }
}
