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
    /// Infinity or not-a-number, written as such.
    #[error("{0:?} is not a finite number")]
    NotFinite(String),
    /// A number too large to hold (`1e999`): it read as infinity.
    #[error("{0:?} is too large a number (past 1.8e308, it reads as infinity)")]
    Overflow(String),
    /// A number written with non-zero digits that reads as zero or a denormal (`1e-999`).
    #[error("{0:?} is too close to zero (under 2.2e-308, it reads as zero; write 0 for zero)")]
    Underflow(String),
    /// A text cell holding a control character (a NUL byte, a line break, an escape).
    #[error(
        "{value:?} holds a control character ({code} at byte {at}): names and tags are plain text"
    )]
    ControlChar {
        /// The cell.
        value: String,
        /// The character, as `U+0000`.
        code: String,
        /// Its byte offset in the cell.
        at: usize,
    },
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
    #[error("{0:?} is not a GPU count (a whole number of GPUs, or a fraction of one GPU between 0 and 1)")]
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

/// Parses a number as written in a trace cell or a flag: what Rust's `f64` parser reads
/// (a leading `+`, exponents; surrounding spaces trimmed), but never silently another
/// value: `inf`/`nan` and numbers past the range (`1e999`, read as infinity) or below it
/// (`1e-999` or a denormal, read as zero or a lossy tiny value) are errors that say so.
/// A zero written as `-0` is zero.
pub fn parse_number(v: &str) -> Result<f64, ValueError> {
    let t = v.trim();
    let x: f64 = t
        .parse()
        .map_err(|_| ValueError::NotANumber(v.to_string()))?;
    if x.is_nan() || x.is_infinite() {
        let word = t.trim_start_matches(['+', '-']).to_ascii_lowercase();
        return Err(if word.starts_with("inf") || word.starts_with("nan") {
            ValueError::NotFinite(v.to_string())
        } else {
            ValueError::Overflow(v.to_string())
        });
    }
    if x == 0.0 {
        // Zero as written (`0`, `-0`, `0.0e5`), or non-zero digits that underflowed.
        let mantissa = t.split(['e', 'E']).next().unwrap_or("");
        if mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
            return Err(ValueError::Underflow(v.to_string()));
        }
        return Ok(0.0);
    }
    if !x.is_normal() {
        return Err(ValueError::Underflow(v.to_string()));
    }
    Ok(x)
}

/// `v` if it holds no control character (`char::is_control`: NUL, tab, a line break
/// inside a quoted field, an escape, DEL, C1 codes): a job's name, tenant, GPU types and
/// tags are written into `jobs.csv`, logs and charts as they are, where such a byte
/// corrupts a line or a terminal.
pub fn plain_text(v: &str) -> Result<&str, ValueError> {
    match v.char_indices().find(|(_, c)| c.is_control()) {
        None => Ok(v),
        Some((at, c)) => Err(ValueError::ControlChar {
            value: v.to_string(),
            code: format!("U+{:04X}", c as u32),
            at,
        }),
    }
}

/// Parses a non-negative integer, naming the value in the error.
pub fn parse_u64(v: &str) -> Result<u64, ValueError> {
    v.trim()
        .parse::<u64>()
        .map_err(|_| ValueError::NotUnsigned(v.to_string()))
}

/// Parses a finite float ([`parse_number`]).
pub fn parse_f64(v: &str) -> Result<f64, ValueError> {
    parse_number(v)
}

/// Seconds (finite, >= 0) as milliseconds.
pub fn secs_to_ms(v: &str) -> Result<i64, ValueError> {
    let x = match parse_f64(v) {
        Err(ValueError::Overflow(_)) => return Err(ValueError::TooLarge(v.to_string())),
        x => x?,
    };
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
    match parse_number(v) {
        Ok(x) if x >= 0.0 => Ok(x),
        Err(e @ (ValueError::Overflow(_) | ValueError::Underflow(_))) => Err(e),
        _ => Err(ValueError::NotNonNegative {
            value: v.to_string(),
            what,
        }),
    }
}

/// Seconds (finite, >= 0) as a time.
pub fn parse_secs(v: &str) -> Result<SimTime, ValueError> {
    let x = match parse_number(v) {
        Ok(x) => x,
        Err(ValueError::NotANumber(_)) => return Err(ValueError::NotSeconds(v.to_string())),
        Err(ValueError::Overflow(_)) => return Err(ValueError::TooLarge(v.to_string())),
        Err(e) => return Err(e),
    };
    if x < 0.0 {
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
    let x = match parse_number(v) {
        Ok(x) => x,
        Err(ValueError::Overflow(_)) => return Err(ValueError::TooManyGpusText(v.to_string())),
        Err(ValueError::Underflow(_)) => return Err(ValueError::TinyFraction(v.to_string())),
        Err(_) => return Err(ValueError::NotAGpuCount(v.to_string())),
    };
    if x == 0.0 {
        // `-0`, `0.0`: no GPU, as `0` is.
        return Ok(GpuRequest::None);
    }
    if x > MAX_GPUS as f64 {
        // A count past u32 (4294967296, 1e12, inf): too many, not a bad fraction.
        return Err(ValueError::TooManyGpusText(v.to_string()));
    }
    if x < 0.0 {
        return Err(ValueError::Negative(v.to_string()));
    }
    if x >= 1.0 {
        // `2.0`, `1e3`, `1.5`: a count must be a whole number, a fraction under one GPU.
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
