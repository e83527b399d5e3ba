//! The simulation engine: simulated time, the event queue and per-concern RNG streams.
//!
//! Knows nothing of GPUs, money or files; `sim` builds the GPU simulation on top of it.

mod queue;
mod rng;
mod time;

pub use queue::{EventQueue, Scheduled};
pub use rng::{stream_seed, RngStreams, SimRng};
pub use time::{
    civil_day, parse_datetime, parse_duration, DateTime, DurationError, SimTime, MS_PER_HOUR,
    MS_PER_SECOND,
};

/// `x` as a message shows it: plain from 1e-4 to a million (`1000`, `0.5`), else in
/// exponent form (`1e12`, `1e-300`), never hundreds of digits.
pub fn short_number(x: f64) -> String {
    if x == 0.0 {
        // Negative zero (`-0`, `-0.0`) is zero.
        "0".to_string()
    } else if x.is_finite() && x != 0.0 && !(1e-4..1e6).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn short_numbers_stay_short() {
        let s = super::short_number;
        assert_eq!(s(1e308), "1e308");
        assert_eq!(s(1e-300), "1e-300");
        assert_eq!(s(-2.5e7), "-2.5e7");
        assert_eq!(s(1000.0), "1000");
        assert_eq!(s(0.5), "0.5");
        assert_eq!(s(0.0), "0");
        assert_eq!(s(-0.0), "0");
        assert_eq!(s(4.9e-324), "5e-324");
        assert_eq!(s(f64::NAN), "NaN");
        assert_eq!(s(f64::INFINITY), "inf");
    }
}
