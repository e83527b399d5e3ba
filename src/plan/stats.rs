//! Statistics over replications: the mean, a Student-t confidence interval, whether a
//! target is settled (its interval excludes the bound), how sure a target is to hold, and
//! paired differences between fleets run on common random numbers.

use super::types::Bound;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Mean and confidence interval of a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Replications.
    pub n: usize,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (0 for one value).
    pub sd: f64,
    /// Half-width of the interval (infinite for one value).
    pub half: f64,
}

impl Estimate {
    /// From values, at confidence level `level` (e.g. 0.95).
    pub fn of(x: &[f64], level: f64) -> Estimate {
        let n = x.len();
        if n == 0 {
            return Estimate {
                n,
                mean: f64::NAN,
                sd: f64::NAN,
                half: f64::INFINITY,
            };
        }
        let mean = x.iter().sum::<f64>() / n as f64;
        if n == 1 {
            return Estimate {
                n,
                mean,
                sd: 0.0,
                half: f64::INFINITY,
            };
        }
        let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64;
        let sd = var.sqrt();
        Estimate {
            n,
            mean,
            sd,
            half: t_quantile(level, n - 1) * sd / (n as f64).sqrt(),
        }
    }

    /// Low end of the interval.
    pub fn lo(&self) -> f64 {
        self.mean - self.half
    }

    /// High end of the interval.
    pub fn hi(&self) -> f64 {
        self.mean + self.half
    }
}

/// The two-sided `level` quantile of Student's t with `df` degrees of freedom.
pub fn t_quantile(level: f64, df: usize) -> f64 {
    StudentsT::new(0.0, 1.0, df as f64)
        .map(|t| t.inverse_cdf(0.5 + level / 2.0))
        .unwrap_or(f64::INFINITY)
}

/// Where a target stands after some replications.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// The interval lies on the right side of the bound.
    Holds,
    /// The interval lies on the wrong side.
    Fails,
    /// The interval contains the bound.
    Open,
}

/// Whether the interval of `e` excludes `bound`. Values that did not vary over at least two
/// replications settle on their side (a target of `jobs.unfinished <= 0` met every time).
pub fn settled(e: &Estimate, bound: Bound) -> Settled {
    if e.n == 0 || !e.mean.is_finite() {
        return Settled::Open;
    }
    if e.n >= 2 && e.sd == 0.0 {
        return if bound.holds(e.mean) {
            Settled::Holds
        } else {
            Settled::Fails
        };
    }
    let (ok, bad) = match bound {
        Bound::Max(b) => (e.hi() < b, e.lo() > b),
        Bound::Min(b) => (e.lo() > b, e.hi() < b),
    };
    if ok {
        Settled::Holds
    } else if bad {
        Settled::Fails
    } else {
        Settled::Open
    }
}

/// How sure we are that the long-run mean meets the bound: the Student-t probability
/// P(mean meets bound | replications), 1 or 0 when the values did not vary.
pub fn confidence_holds(e: &Estimate, bound: Bound) -> f64 {
    if e.n == 0 || !e.mean.is_finite() {
        return 0.0;
    }
    if e.n < 2 || e.sd == 0.0 {
        return if bound.holds(e.mean) { 1.0 } else { 0.0 };
    }
    let se = e.sd / (e.n as f64).sqrt();
    let z = match bound {
        Bound::Max(b) => (b - e.mean) / se,
        Bound::Min(b) => (e.mean - b) / se,
    };
    StudentsT::new(0.0, 1.0, (e.n - 1) as f64)
        .map(|t| t.cdf(z))
        .unwrap_or(0.5)
}

/// Mean and interval of the paired differences `b[i] - a[i]` over the replications both
/// have (common random numbers: the same seed for both fleets).
pub fn paired_difference(a: &[f64], b: &[f64], level: f64) -> Estimate {
    let n = a.len().min(b.len());
    let d: Vec<f64> = (0..n).map(|i| b[i] - a[i]).collect();
    Estimate::of(&d, level)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_t_table_and_settles() {
        // t(0.975, 4) = 2.776 (table). Sample 1..5: mean 3, s = sqrt(2.5), half = 1.963.
        let e = Estimate::of(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95);
        assert!((e.half - 2.776 * (2.5f64).sqrt() / 5f64.sqrt()).abs() < 1e-3);
        assert_eq!(settled(&e, Bound::Max(5.0)), Settled::Holds);
        assert_eq!(settled(&e, Bound::Max(4.0)), Settled::Open);
        assert_eq!(settled(&e, Bound::Max(0.5)), Settled::Fails);
        assert_eq!(settled(&e, Bound::Min(0.5)), Settled::Holds);
        // Exactly at the bound every time: holds (<=), and is sure.
        let z = Estimate::of(&[0.0, 0.0, 0.0], 0.95);
        assert_eq!(settled(&z, Bound::Max(0.0)), Settled::Holds);
        assert_eq!(confidence_holds(&z, Bound::Max(0.0)), 1.0);
        // Mean on the bound: a coin toss.
        assert!((confidence_holds(&e, Bound::Max(3.0)) - 0.5).abs() < 1e-9);
        let d = paired_difference(&[1.0, 2.0, 3.0], &[2.0, 3.0, 4.5], 0.95);
        assert!((d.mean - 7.0 / 6.0).abs() < 1e-12);
    }
}
