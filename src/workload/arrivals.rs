//! Arrival processes: homogeneous Poisson, a daily and weekly rate profile
//! (non-homogeneous Poisson by thinning) and a two-state Markov-modulated Poisson process
//! (bursts), each scaled by a rate multiplier and a monthly growth.
//!
//! Time 0 of a generated workload is Monday 00:00 on the profile's clock. Time is cut into
//! segments over which the base rate is constant (an hour of the profile, a state of the
//! MMPP, a day otherwise); in each, candidates are drawn at the segment's highest rate and
//! kept with probability rate/bound (Lewis and Shedler's thinning), which also covers the
//! continuous growth factor `(1 + growth)^(t / 30 days)`.

use crate::engine::SimTime;
use rand::Rng;
use rand_distr::{Distribution, Exp};

/// Seconds in the month used by growth rates (30 days).
pub const MONTH_SECS: f64 = 30.0 * 86_400.0;

/// The largest relative weight a mix or profile may give (a size, a tenant, an hour):
/// past any real ratio, and a million of them still add up to a finite sum.
pub const MAX_WEIGHT: f64 = 1e12;

/// How jobs arrive.
#[derive(Debug, Clone, PartialEq)]
pub enum ArrivalProcess {
    /// Poisson with a constant rate.
    Poisson {
        /// Mean arrivals per hour.
        rate_per_hour: f64,
    },
    /// Poisson with a rate following a daily and weekly profile: the rate in hour `h` of
    /// weekday `d` (0 = Monday) is `rate_per_hour * hourly[h] * weekly[d] / c`, where `c`
    /// is the mean of `hourly[h] * weekly[d]` over the week, so `rate_per_hour` is the
    /// mean rate.
    Profile {
        /// Mean arrivals per hour over a week.
        rate_per_hour: f64,
        /// Relative weight of each hour of the day (24 values).
        hourly: Vec<f64>,
        /// Relative weight of each day of the week, Monday first (7 values).
        weekly: Vec<f64>,
    },
    /// Two-state Markov-modulated Poisson: rate `rates_per_hour[s]` while in state `s`,
    /// each state lasting an exponential time with mean `mean_dwell[s]`; starts in state 0.
    Mmpp {
        /// Arrivals per hour in the calm and the burst state.
        rates_per_hour: [f64; 2],
        /// Mean time spent in each state.
        mean_dwell: [SimTime; 2],
    },
}

impl ArrivalProcess {
    /// The long-run mean arrivals per hour (before multiplier and growth).
    pub fn mean_rate_per_hour(&self) -> f64 {
        match self {
            ArrivalProcess::Poisson { rate_per_hour }
            | ArrivalProcess::Profile { rate_per_hour, .. } => *rate_per_hour,
            ArrivalProcess::Mmpp {
                rates_per_hour: r,
                mean_dwell: d,
            } => {
                let (a, b) = (d[0].secs_f64(), d[1].secs_f64());
                if a + b <= 0.0 {
                    r[0]
                } else {
                    (r[0] * a + r[1] * b) / (a + b)
                }
            }
        }
    }

    /// Checks the parameters; the error names the field.
    pub fn check(&self) -> Result<(), ArrivalError> {
        let ok = |x: f64| x.is_finite() && x >= 0.0;
        let positive_rate = |r: f64| {
            if ok(r) && r > 0.0 {
                Ok(())
            } else {
                Err(ArrivalError::new(
                    "rate_per_hour",
                    format!("must be positive, got {r}"),
                ))
            }
        };
        let weights = |w: &[f64], n: usize| {
            w.len() == n
                && w.iter().all(|&x| ok(x) && x <= MAX_WEIGHT)
                && w.iter().sum::<f64>() > 0.0
        };
        match self {
            ArrivalProcess::Poisson { rate_per_hour } => positive_rate(*rate_per_hour),
            ArrivalProcess::Profile {
                rate_per_hour,
                hourly,
                weekly,
            } => {
                positive_rate(*rate_per_hour)?;
                if !weights(hourly, 24) {
                    return Err(ArrivalError::new(
                        "hourly",
                        "needs 24 non-negative weights of at most 1e12, not all zero",
                    ));
                }
                if !weights(weekly, 7) {
                    return Err(ArrivalError::new(
                        "weekly",
                        "needs 7 non-negative weights of at most 1e12 (Monday first), not all zero",
                    ));
                }
                Ok(())
            }
            ArrivalProcess::Mmpp {
                rates_per_hour,
                mean_dwell,
            } => {
                if !rates_per_hour.iter().all(|&x| ok(x))
                    || rates_per_hour.iter().sum::<f64>() <= 0.0
                {
                    return Err(ArrivalError::new(
                        "rates_per_hour",
                        "needs two non-negative rates, not both zero",
                    ));
                }
                if mean_dwell.iter().any(|d| d.0 == 0) {
                    return Err(ArrivalError::new(
                        "mean_dwell",
                        "both states need a positive mean dwell time",
                    ));
                }
                Ok(())
            }
        }
    }
}

/// The expected arrivals over `[0, secs]` at a mean rate of `rate_per_hour` growing by
/// `growth` per 30-day month: `r M / ln(1 + g) ((1 + g)^(t / M) - 1)` (`r t` without growth).
pub fn expected_arrivals(rate_per_hour: f64, growth: f64, secs: f64) -> f64 {
    let r = rate_per_hour / 3600.0;
    if growth == 0.0 || growth <= -1.0 {
        return r * secs;
    }
    let l = (1.0 + growth).ln();
    r * MONTH_SECS / l * ((secs / MONTH_SECS * l).exp() - 1.0)
}

/// The time (seconds) by which `n` arrivals are expected, the inverse of
/// [`expected_arrivals`]; infinite when they never are (a shrinking rate).
pub fn expected_time_of(n: f64, rate_per_hour: f64, growth: f64) -> f64 {
    let r = rate_per_hour / 3600.0;
    if r.is_nan() || r <= 0.0 {
        return f64::INFINITY;
    }
    if growth == 0.0 || growth <= -1.0 {
        return n / r;
    }
    let l = (1.0 + growth).ln();
    let arg = 1.0 + n * l / (r * MONTH_SECS);
    if arg <= 0.0 {
        return f64::INFINITY;
    }
    MONTH_SECS * arg.ln() / l
}

/// An arrival process with a bad parameter: the field and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct ArrivalError {
    /// The parameter (`rate_per_hour`, `hourly`, `weekly`, `rates_per_hour`, `mean_dwell`).
    pub field: &'static str,
    /// What is wrong.
    pub message: String,
}

impl ArrivalError {
    fn new(field: &'static str, message: impl Into<String>) -> ArrivalError {
        ArrivalError {
            field,
            message: message.into(),
        }
    }
}

/// Draws arrival times (seconds) from a process, in increasing order.
pub struct Arrivals<'a> {
    process: &'a ArrivalProcess,
    multiplier: f64,
    growth: f64,
    t: f64,
    seg_end: f64,
    seg_rate: f64,
    state: usize,
    norm: f64,
    end: f64,
}

impl<'a> Arrivals<'a> {
    /// Starts at time 0 with the rate multiplied by `multiplier` and growing by `growth`
    /// per 30-day month (0.1 = 10 % more jobs each month).
    pub fn new(process: &'a ArrivalProcess, multiplier: f64, growth: f64) -> Arrivals<'a> {
        let norm = match process {
            ArrivalProcess::Profile { hourly, weekly, .. } => {
                let h: f64 = hourly.iter().sum::<f64>() / 24.0;
                let d: f64 = weekly.iter().sum::<f64>() / 7.0;
                (h * d).max(f64::MIN_POSITIVE)
            }
            _ => 1.0,
        };
        Arrivals {
            process,
            multiplier,
            growth,
            t: 0.0,
            seg_end: 0.0,
            seg_rate: 0.0,
            state: 1,
            norm,
            end: 1e13,
        }
    }

    /// Stops drawing at `secs`: [`Arrivals::next_secs`] answers `None` once no arrival
    /// can come before it (a rate of `1e-300` an hour would otherwise step through
    /// segments for ever, finding none).
    pub fn until(mut self, secs: f64) -> Arrivals<'a> {
        self.end = secs.min(1e13);
        self
    }

    fn growth_at(&self, t: f64) -> f64 {
        if self.growth == 0.0 {
            1.0
        } else {
            (1.0 + self.growth).max(0.0).powf(t / MONTH_SECS)
        }
    }

    /// Starts the segment beginning at `self.t`.
    fn next_segment(&mut self, rng: &mut impl Rng) {
        match self.process {
            ArrivalProcess::Poisson { rate_per_hour } => {
                self.seg_rate = rate_per_hour / 3600.0;
                self.seg_end = self.t + 86_400.0;
            }
            ArrivalProcess::Profile {
                rate_per_hour,
                hourly,
                weekly,
            } => {
                let hour = (self.t / 3600.0).floor();
                let h = (hour as u64 % 24) as usize;
                let d = ((hour as u64 / 24) % 7) as usize;
                self.seg_rate = rate_per_hour / 3600.0 * hourly[h] * weekly[d] / self.norm;
                self.seg_end = (hour + 1.0) * 3600.0;
            }
            ArrivalProcess::Mmpp {
                rates_per_hour,
                mean_dwell,
            } => {
                self.state = 1 - self.state;
                let mean = mean_dwell[self.state].secs_f64().max(1e-3);
                let dwell = Exp::new(1.0 / mean).map(|e| e.sample(rng)).unwrap_or(mean);
                self.seg_rate = rates_per_hour[self.state] / 3600.0;
                self.seg_end = self.t + dwell.max(1e-3);
            }
        }
    }

    /// The next arrival time in seconds (`None` only when the rate is zero forever).
    pub fn next_secs(&mut self, rng: &mut impl Rng) -> Option<f64> {
        let mut idle_segments = 0u32;
        loop {
            if self.t > self.end {
                return None;
            }
            if self.t >= self.seg_end {
                self.next_segment(rng);
            }
            let base = self.seg_rate * self.multiplier;
            let bound = base * self.growth_at(self.t).max(self.growth_at(self.seg_end));
            if !(bound.is_finite() && bound > 0.0) {
                self.t = self.seg_end;
                idle_segments += 1;
                // A whole year of zero-rate segments: nothing will ever arrive.
                if idle_segments > 24 * 366 {
                    return None;
                }
                continue;
            }
            idle_segments = 0;
            let gap = -(1.0 - rng.random::<f64>()).ln() / bound;
            if self.t + gap >= self.seg_end {
                self.t = self.seg_end;
                continue;
            }
            self.t += gap;
            let rate = base * self.growth_at(self.t);
            if rng.random::<f64>() * bound < rate {
                return Some(self.t);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn mmpp_mean_rate() {
        let p = ArrivalProcess::Mmpp {
            rates_per_hour: [1.0, 10.0],
            mean_dwell: [SimTime::from_secs(3 * 3600), SimTime::from_secs(3600)],
        };
        // (1 x 3 + 10 x 1) / 4 = 3.25 per hour.
        assert!((p.mean_rate_per_hour() - 3.25).abs() < 1e-12);
        let mut a = Arrivals::new(&p, 1.0, 0.0);
        let mut rng = crate::engine::SimRng::seed_from_u64(5);
        let mut n = 0u64;
        let horizon = 20_000.0 * 3600.0;
        while a.next_secs(&mut rng).is_some_and(|t| t < horizon) {
            n += 1;
        }
        let rate = n as f64 / 20_000.0;
        // The count's variance is inflated by the state switching; 5 % is ample at 65k arrivals.
        assert!((rate - 3.25).abs() < 0.16, "{rate}");
    }
}
