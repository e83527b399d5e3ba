//! Simulated time as integer milliseconds, and the one place human durations and trace
//! date-times are parsed.

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

/// A date-time read by [`parse_datetime`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateTime {
    /// Milliseconds since 1970-01-01 00:00 on the clock the text is written in.
    pub local_ms: i64,
    /// The zone's offset from UTC in seconds, when the text names one (`Z` is 0).
    pub offset_s: Option<i32>,
}

impl DateTime {
    /// Milliseconds since 1970-01-01 00:00 UTC: the local clock less the zone's offset
    /// (a time without a zone is taken as UTC).
    pub fn utc_ms(self) -> i64 {
        self.local_ms - self.offset_s.unwrap_or(0) as i64 * 1000
    }
}

/// Parses a date-time as the traces write it, for every reader of dates (the job traces'
/// `submit_time`s, the spot traces' `date` and `scheduled_at`):
/// `YYYY-MM-DD HH:MM:SS` (or a `T` for the space), then optionally `.` and one or more
/// digits of a second (kept to the millisecond, further digits dropped), then optionally a
/// zone, `Z` or `±HH:MM` (or `±HHMM`). Space around it is ignored. Fields are digits only
/// (no sign), the date must exist ([`civil_day`]: no February 30th), hours 0..=23,
/// minutes 0..=59, seconds 0..=60 (a leap second); a zone's hours at most 23, its
/// minutes at most 59. `None` for anything else: each caller names the field and row.
pub fn parse_datetime(text: &str) -> Option<DateTime> {
    let b = text.trim().as_bytes();
    if b.len() < 19
        || b[4] != b'-'
        || b[7] != b'-'
        || !(b[10] == b' ' || b[10] == b'T')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        b.get(r)?.iter().try_fold(0i64, |x, &c| {
            c.is_ascii_digit().then(|| x * 10 + (c - b'0') as i64)
        })
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let day = civil_day(y, mo as u32, d as u32)?;
    let mut rest = &b[19..];
    let mut frac_ms = 0;
    if let Some(r) = rest.strip_prefix(b".") {
        let n = r.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return None;
        }
        // Milliseconds: the first three digits, padded ("0.5" is 500 ms).
        frac_ms = r[..n.min(3)]
            .iter()
            .chain([b'0'; 3].iter())
            .take(3)
            .fold(0, |x, &c| x * 10 + (c - b'0') as i64);
        rest = &r[n..];
    }
    let offset_s = match rest {
        [] => None,
        [b'Z'] => Some(0),
        [sign @ (b'+' | b'-'), zone @ ..] => {
            let (oh, om) = match zone {
                [h1, h2, b':', m1, m2] | [h1, h2, m1, m2] => {
                    let two = |a: u8, b: u8| {
                        (a.is_ascii_digit() && b.is_ascii_digit())
                            .then(|| ((a - b'0') * 10 + (b - b'0')) as i32)
                    };
                    (two(*h1, *h2)?, two(*m1, *m2)?)
                }
                _ => return None,
            };
            if oh > 23 || om > 59 {
                return None;
            }
            let sign = if *sign == b'+' { 1 } else { -1 };
            Some(sign * (oh * 3600 + om * 60))
        }
        _ => return None,
    };
    Some(DateTime {
        local_ms: (day * 86_400 + h * 3600 + mi * 60 + s) * 1000 + frac_ms,
        offset_s,
    })
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

    #[test]
    fn parses_the_traces_datetimes() {
        let at = |t: &str| parse_datetime(t).map(|d| (d.local_ms, d.offset_s));
        // 2020-07-01 00:00:00 UTC is unix 1593561600 (date -u -d 2020-07-01 +%s).
        assert_eq!(at("2020-07-01 00:00:00"), Some((1_593_561_600_000, None)));
        assert_eq!(at(" 1970-01-02T00:00:01\n"), Some((86_401_000, None)));
        // A fraction to the millisecond: 0.5 s is 500 ms, further digits dropped.
        assert_eq!(at("1970-01-01 00:00:00.5"), Some((500, None)));
        assert_eq!(at("1970-01-01 00:00:00.05"), Some((50, None)));
        assert_eq!(at("1970-01-01 00:00:00.123456"), Some((123, None)));
        // Zones: Z, ±HH:MM, ±HHMM; the UTC time is the local one less the offset.
        assert_eq!(at("1970-01-01 00:00:00Z"), Some((0, Some(0))));
        let t = parse_datetime("1970-01-01 01:00:00+01:00").unwrap();
        assert_eq!(
            (t.local_ms, t.offset_s, t.utc_ms()),
            (3_600_000, Some(3600), 0)
        );
        // 00:00 at -07:30 is 07:30 UTC: 27,000 s.
        let t = parse_datetime("1970-01-01 00:00:00.250-0730").unwrap();
        assert_eq!((t.offset_s, t.utc_ms()), (Some(-27_000), 27_000_250));
        // A leap second, 2024-02-29.
        assert!(parse_datetime("2016-12-31 23:59:60").is_some());
        assert!(parse_datetime("2024-02-29 00:00:00").is_some());
        for bad in [
            "",
            "2020-07-01",
            "2020-13-01 00:00:00",
            "2020-02-30 00:00:00",
            "2019-02-29 00:00:00",
            "2020-07-01 24:00:00",
            "2020-07-01 00:60:00",
            "2020-07-01 00:00:61",
            "2020-07-01 00:00x00",
            "2020-+1-01 00:00:00",
            "2020-07-01 00:00:00.",
            "2020-07-01 00:00:00.5.",
            "2020-07-01 00:00:00z",
            "2020-07-01 00:00:00Zx",
            "2020-07-01 00:00:00+1:00",
            "2020-07-01 00:00:00+01:0",
            "2020-07-01 00:00:00+01:00x",
            "2020-07-01 00:00:00+24:00",
            "2020-07-01 00:00:00+01:60",
            "2020-07-01 00:00:00 UTC",
            "2020-07-01 00:00:0\u{e9}",
            "\u{ff12}020-07-01 00:00:00",
            "abcd-ef-gh ij:kl:mn",
        ] {
            assert_eq!(parse_datetime(bad), None, "{bad:?}");
        }
    }
}
