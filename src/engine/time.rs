//! Simulated time as integer milliseconds, and the one place human durations are parsed.

use std::fmt;

/// Milliseconds in one second.
pub const MS_PER_SECOND: u64 = 1_000;
/// Milliseconds in one hour.
pub const MS_PER_HOUR: u64 = 3_600_000;

/// A point in simulated time, or a span of it: milliseconds since the start of the run.
///
/// Integer time keeps runs exactly reproducible: no float rounding decides which of two
/// events comes first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    /// The start of the run.
    pub const ZERO: SimTime = SimTime(0);
    /// A time later than any event (used for "never").
    pub const NEVER: SimTime = SimTime(u64::MAX);

    /// From whole seconds.
    pub fn from_secs(s: u64) -> Self {
        SimTime(s.saturating_mul(MS_PER_SECOND))
    }
    /// From fractional seconds, rounded to the nearest millisecond (negative clamps to 0).
    pub fn from_secs_f64(s: f64) -> Self {
        if s.is_nan() || s <= 0.0 {
            SimTime(0)
        } else if s >= (u64::MAX / 2) as f64 / 1000.0 {
            SimTime(u64::MAX / 2)
        } else {
            SimTime((s * 1000.0).round() as u64)
        }
    }
    /// From fractional hours.
    pub fn from_hours_f64(h: f64) -> Self {
        Self::from_secs_f64(h * 3600.0)
    }
    /// Milliseconds.
    pub fn ms(self) -> u64 {
        self.0
    }
    /// Seconds as a float.
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }
    /// Hours as a float.
    pub fn hours_f64(self) -> f64 {
        self.0 as f64 / MS_PER_HOUR as f64
    }
    /// Seconds as text with millisecond precision and no trailing zeros ("12", "1.5").
    pub fn secs_text(self) -> String {
        let ms = self.0;
        if ms.is_multiple_of(1000) {
            format!("{}", ms / 1000)
        } else {
            format!("{}.{:03}", ms / 1000, ms % 1000)
                .trim_end_matches('0')
                .to_string()
        }
    }
    /// `self + d`, saturating at `NEVER`.
    pub fn plus(self, d: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
    /// `self - earlier`, or zero if `earlier` is later.
    pub fn since(self, earlier: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(earlier.0))
    }
}

impl fmt::Display for SimTime {
    /// Human form: the largest unit that divides the value exactly ("90s", "36h", "1500ms").
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0;
        for (unit, size) in [
            ("d", 86_400_000u64),
            ("h", 3_600_000),
            ("m", 60_000),
            ("s", 1_000),
        ] {
            if ms > 0 && ms.is_multiple_of(size) {
                return write!(f, "{}{}", ms / size, unit);
            }
        }
        write!(f, "{}ms", ms)
    }
}

/// Why a duration string could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{input:?} is not a duration (expected a number and a unit: \"500ms\", \"90s\", \"15m\", \"36h\", \"30d\", \"2w\")")]
pub struct DurationError {
    /// The text that was given.
    pub input: String,
}

/// Parses "500ms", "90s", "1.5h", "15m", "36h", "30d", "2w" (also "90 s") into simulated time.
///
/// A bare number is refused: every duration in a scenario file says its unit.
pub fn parse_duration(text: &str) -> Result<SimTime, DurationError> {
    let err = || DurationError {
        input: text.to_string(),
    };
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(err)?;
    let (num, unit) = t.split_at(split);
    let unit = unit.trim();
    if num.is_empty() {
        return Err(err());
    }
    let value: f64 = num.parse().map_err(|_| err())?;
    let factor: f64 = match unit {
        "ms" => 1.0,
        "s" | "sec" | "secs" => 1e3,
        "m" | "min" | "mins" => 60e3,
        "h" | "hr" | "hrs" => 3_600e3,
        "d" | "day" | "days" => 86_400e3,
        "w" | "week" | "weeks" => 604_800e3,
        "y" | "year" | "years" => 365.0 * 86_400e3,
        _ => return Err(err()),
    };
    let ms = value * factor;
    if !ms.is_finite() || ms > 1e17 {
        return Err(err());
    }
    Ok(SimTime(ms.round() as u64))
}

/// Days since 1970-01-01 of the civil date `y-m-d` (proleptic Gregorian), or `None` when
/// there is no such day: a month outside 1..=12, or a day past its month's end (2020-02-31
/// was read as 2020-03-02). Every date reader goes through it.
pub fn civil_day(y: i64, m: u32, d: u32) -> Option<i64> {
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let month_days = match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => return None,
    };
    (1..=month_days)
        .contains(&d)
        .then(|| days_from_civil(y, m, d))
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian), the date taken as valid.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(parse_duration("90s").unwrap(), SimTime(90_000));
        assert_eq!(parse_duration("15m").unwrap(), SimTime(900_000));
        assert_eq!(parse_duration("36h").unwrap(), SimTime(129_600_000));
        assert_eq!(parse_duration("30d").unwrap(), SimTime(2_592_000_000));
        assert_eq!(parse_duration("1.5h").unwrap(), SimTime(5_400_000));
        assert_eq!(parse_duration("250ms").unwrap(), SimTime(250));
        assert_eq!(parse_duration(" 2 w ").unwrap(), SimTime(1_209_600_000));
    }

    #[test]
    fn refuses_bad_text() {
        for bad in [
            "",
            "90",
            "6o s",
            "h",
            "-5s",
            "1.2.3s",
            "5 parsecs",
            "1e400s",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn displays_largest_exact_unit() {
        assert_eq!(SimTime(90_000).to_string(), "90s");
        assert_eq!(SimTime(129_600_000).to_string(), "36h");
        assert_eq!(SimTime(1_500).to_string(), "1500ms");
        assert_eq!(SimTime(0).to_string(), "0ms");
    }
}
