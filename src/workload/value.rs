//! One trace cell read as a value: integers, numbers, seconds, GPU counts, booleans and
//! date-times, each with a typed error that quotes the cell.

use crate::engine::SimTime;
use crate::model::{GpuRequest, MILLI_PER_GPU};

/// The most GPUs one job may ask for.
const MAX_GPUS: u64 = 1_000_000;

/// A trace cell that is not the value its column holds; the message quotes the cell.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// Not a whole number of zero or more.
    #[error("{0:?} is not a non-negative integer")]
    NotUnsigned(String),
    /// Not an integer.
    #[error("{0:?} is not an integer")]
    NotAnInteger(String),
    /// Not a finite number.
    #[error("{0:?} is not a number")]
    NotANumber(String),
    /// Below zero.
    #[error("{0:?} is negative")]
    Negative(String),
    /// Too large to be a time.
    #[error("{}", too_many_secs(.0))]
    TooLarge(String),
    /// Not a finite number of zero or more (`what`: "number of cores", ...).
    #[error("{value:?} is not a non-negative {what}")]
    NotNonNegative {
        /// The cell.
        value: String,
        /// What the column counts.
        what: &'static str,
    },
    /// Not a number of seconds.
    #[error("{0:?} is not a number of seconds")]
    NotSeconds(String),
    /// A number of seconds below zero (or not finite).
    #[error("{0:?} must be a non-negative number of seconds")]
    NegativeSeconds(String),
    /// More GPUs than a job may ask for.
    #[error("{0} GPUs is more than 1000000")]
    TooManyGpus(u64),
    /// A whole GPU count too large to hold (written as in the cell).
    #[error("{0:?} GPUs is more than 1000000")]
    TooManyGpusText(String),
    /// Not a GPU count.
    #[error("{0:?} is not a GPU count")]
    NotAGpuCount(String),
    /// A fractional GPU request outside (0, 1).
    #[error("{0:?}: a fractional GPU request must be between 0 and 1")]
    BadFraction(String),
    /// A fractional GPU request below the resolution of one milli-GPU.
    #[error("{0:?} of a GPU is below the smallest fraction, 0.001 (it would be rounded to none or up to ten times more)")]
    TinyFraction(String),
    /// Not a boolean.
    #[error("{0:?} is not true/false")]
    NotABool(String),
    /// Not `YYYY-MM-DD HH:MM:SS`.
    #[error("{0:?} is not a date-time (YYYY-MM-DD HH:MM:SS)")]
    NotADateTime(String),
    /// A date-time with a time zone, in a trace on its own clock.
    #[error("{0:?} has a time zone: this trace's times are on its own clock (YYYY-MM-DD HH:MM:SS, no zone)")]
    ZonedDateTime(String),
}

/// The most seconds a trace time may hold (about 3 million years): a time past it (an
/// SWF run time of 2^63 s, a duration of 1e308) is refused, not clamped to the largest
/// time the simulator represents.
pub const MAX_TRACE_SECS: f64 = 1e14;

/// The message of a time past [`MAX_TRACE_SECS`]: the cell quoted.
pub fn too_many_secs(v: &str) -> String {
    format!("{v:?} seconds is too large (more than 1e14, about 3 million years)")
}

/// Parses a non-negative integer, naming the value in the error.
pub fn parse_u64(v: &str) -> Result<u64, ValueError> {
    v.trim()
        .parse::<u64>()
        .map_err(|_| ValueError::NotUnsigned(v.to_string()))
}

/// Parses a finite float.
pub fn parse_f64(v: &str) -> Result<f64, ValueError> {
    match v.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(ValueError::NotANumber(v.to_string())),
    }
}

/// Seconds (finite, >= 0) as milliseconds.
pub fn secs_to_ms(v: &str) -> Result<i64, ValueError> {
    let x = parse_f64(v)?;
    if x < 0.0 {
        return Err(ValueError::Negative(v.to_string()));
    }
    if x > MAX_TRACE_SECS {
        return Err(ValueError::TooLarge(v.to_string()));
    }
    Ok((x * 1000.0).round() as i64)
}

/// A GPU count as a whole number (0 = CPU-only).
pub fn whole_gpus(n: u64) -> Result<GpuRequest, ValueError> {
    match n {
        0 => Ok(GpuRequest::None),
        n if n <= MAX_GPUS => Ok(GpuRequest::Whole(n as u32)),
        n => Err(ValueError::TooManyGpus(n)),
    }
}

/// Parses a job trace's date-time ([`crate::engine::parse_datetime`]: `YYYY-MM-DD
/// HH:MM:SS`, a `T` for the space, a fraction of a second to the millisecond) as ms since
/// 1970-01-01 00:00 on the trace's own clock. A time zone (`Z`, `±HH:MM`) is refused: the
/// job traces' times are on their cluster's local clock (hour of day and day of week are
/// read from it), and one zoned time among them could not be placed on that clock.
pub fn parse_datetime_ms(v: &str) -> Result<i64, ValueError> {
    match crate::engine::parse_datetime(v) {
        Some(t) if t.offset_s.is_none() => Ok(t.local_ms),
        Some(_) => Err(ValueError::ZonedDateTime(v.to_string())),
        None => Err(ValueError::NotADateTime(v.to_string())),
    }
}

/// A finite number of zero or more; `what` names it in the error.
pub fn parse_non_negative(v: &str, what: &'static str) -> Result<f64, ValueError> {
    match v.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(ValueError::NotNonNegative {
            value: v.to_string(),
            what,
        }),
    }
}

/// Seconds (finite, >= 0) as a time.
pub fn parse_secs(v: &str) -> Result<SimTime, ValueError> {
    let x: f64 = v
        .trim()
        .parse()
        .map_err(|_| ValueError::NotSeconds(v.to_string()))?;
    if !x.is_finite() || x < 0.0 {
        return Err(ValueError::NegativeSeconds(v.to_string()));
    }
    if x > MAX_TRACE_SECS {
        return Err(ValueError::TooLarge(v.to_string()));
    }
    Ok(SimTime::from_secs_f64(x))
}

/// Parses a GPU amount: "0", "3", "0.5" (a fraction of one GPU, to the milli-GPU).
pub fn parse_gpus(v: &str) -> Result<GpuRequest, ValueError> {
    let v = v.trim();
    if let Ok(n) = v.parse::<u32>() {
        return whole_gpus(n.into());
    }
    let x: f64 = v
        .parse()
        .map_err(|_| ValueError::NotAGpuCount(v.to_string()))?;
    if x > MAX_GPUS as f64 {
        // A count past u32 (4294967296, 1e12, inf): too many, not a bad fraction.
        return Err(ValueError::TooManyGpusText(v.to_string()));
    }
    if !(x > 0.0 && x < 1.0) {
        return Err(ValueError::BadFraction(v.to_string()));
    }
    gpu_fraction(x).ok_or_else(|| ValueError::TinyFraction(v.to_string()))
}

/// A fraction `x` of one GPU (0 < x < 1) to the milli-GPU: `None` when it rounds to no
/// milli-GPU at all (below 0.0005), which rounding up to 0.001 would inflate up to ten
/// times or more; just under one GPU (0.9995 and up) stays 0.999.
pub fn gpu_fraction(x: f64) -> Option<GpuRequest> {
    let m = (x * MILLI_PER_GPU as f64).round();
    (m >= 1.0).then(|| GpuRequest::Fraction(m.min(999.0) as u16))
}

/// `true`/`1`/`yes` or `false`/`0`/`no`/empty.
pub fn parse_bool(v: &str) -> Result<bool, ValueError> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" => Ok(true),
        "false" | "0" | "no" | "" => Ok(false),
        _ => Err(ValueError::NotABool(v.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datetimes() {
        // 2020-07-01 00:00:00 UTC is unix 1593561600 (date -u -d 2020-07-01 +%s).
        assert_eq!(
            parse_datetime_ms("2020-07-01 00:00:00"),
            Ok(1_593_561_600_000)
        );
        assert_eq!(parse_datetime_ms("1970-01-02T00:00:01"), Ok(86_401_000));
        assert!(parse_datetime_ms("2020-02-29 00:00:00").is_ok());
        // To the millisecond (only the tenths were kept: 0.25 s was 200 ms).
        assert_eq!(parse_datetime_ms("1970-01-01 00:00:00.25"), Ok(250));
        // A job trace's times are on its own clock: a zone is refused, by name.
        let e = parse_datetime_ms("2020-07-01 00:00:00+02:00").unwrap_err();
        assert_eq!(
            e,
            ValueError::ZonedDateTime("2020-07-01 00:00:00+02:00".into())
        );
        assert!(e.to_string().contains("time zone"), "{e}");
        for bad in [
            "",
            "2020-13-01 00:00:00",
            "2020-07-01",
            "2020-07-01 25:00:00",
            "2020-02-30 00:00:00",
            "2019-02-29 00:00:00",
            "2020-04-31 00:00:00",
            "abcd-ef-gh ij:kl:mn",
        ] {
            assert!(parse_datetime_ms(bad).is_err(), "{bad}");
        }
    }
}
