//! The statistics of a comparison: each metric's mean over seeds with its 95 % confidence
//! interval (Student t), and the paired difference of a variant to the baseline over the
//! same seeds (common random numbers), with its 95 % interval and the two-sided p-value
//! of the paired t test (H0: mean difference 0; t = mean(d) / (s_d / sqrt(n)), n - 1
//! degrees of freedom).

use crate::sweep::{ci95_half_width, mean};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The name of the test, as written into outputs.
pub const TEST: &str = "paired t (two-sided), 95 % interval t(0.975, n-1) s_d / sqrt(n)";

/// A metric's figures for one variant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Mean over the seeds.
    pub mean: f64,
    /// Half-width of its 95 % confidence interval (`None` with one seed).
    pub ci95: Option<f64>,
    /// Seeds with a value.
    pub n: usize,
}

/// Mean and interval of `x`.
pub fn estimate(x: &[f64]) -> Option<Estimate> {
    (!x.is_empty()).then(|| Estimate {
        mean: mean(x),
        ci95: ci95_half_width(x),
        n: x.len(),
    })
}

/// A variant's paired difference to the baseline on one metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedDifference {
    /// Mean of variant - baseline over the pairs.
    pub mean: f64,
    /// Half-width of its 95 % interval (`None` with fewer than two pairs).
    pub ci95: Option<f64>,
    /// Two-sided p-value of the paired t test (`None` with fewer than two pairs).
    pub p_value: Option<f64>,
    /// The difference as a percentage of the baseline's mean (`None` when that is 0).
    pub relative_pct: Option<f64>,
    /// The interval's half-width in the same percentage.
    pub relative_ci95_pct: Option<f64>,
    /// Seed pairs.
    pub n: usize,
}

/// The paired difference of `variant` to `baseline`, values per seed in the same order
/// (`None` where a run lacks the metric; such seeds are left out of both).
pub fn paired(variant: &[Option<f64>], baseline: &[Option<f64>]) -> Option<PairedDifference> {
    let pairs: Vec<(f64, f64)> = variant
        .iter()
        .zip(baseline)
        .filter_map(|(v, b)| Some(((*v)?, (*b)?)))
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let n = pairs.len();
    let d: Vec<f64> = pairs.iter().map(|(v, b)| v - b).collect();
    let b: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    let dm = mean(&d);
    let (ci95, p_value) = if n < 2 {
        (None, None)
    } else {
        let var = d.iter().map(|x| (x - dm) * (x - dm)).sum::<f64>() / (n - 1) as f64;
        let se = var.sqrt() / (n as f64).sqrt();
        let t = StudentsT::new(0.0, 1.0, (n - 1) as f64).ok();
        if se == 0.0 || !se.is_finite() {
            // Every pair differs by the same amount: no spread, so the interval is a point;
            // a difference of exactly zero is no evidence against H0, any other is total.
            (Some(0.0), Some(if dm == 0.0 { 1.0 } else { 0.0 }))
        } else {
            match t {
                Some(t) => {
                    let q = t.inverse_cdf(0.975);
                    let stat = (dm / se).abs();
                    (
                        Some(q * se),
                        Some((2.0 * (1.0 - t.cdf(stat))).clamp(0.0, 1.0)),
                    )
                }
                None => (None, None),
            }
        }
    };
    let bm = mean(&b);
    let rel = |x: f64| (bm != 0.0).then(|| x / bm.abs() * 100.0);
    Some(PairedDifference {
        mean: dm,
        ci95,
        p_value,
        relative_pct: rel(dm),
        relative_ci95_pct: ci95.and_then(rel),
        n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paired_t_by_hand() {
        // Differences 1, 2, 3: mean 2, s_d = 1, se = 1/sqrt(3) = 0.57735; t = 3.4641 with
        // 2 df; t(0.975, 2) = 4.3027 (table), so the half-width is 2.4841; the two-sided
        // p-value of t = 3.4641 on 2 df is 0.0742 (2 (1 - F(3.4641)), F from the t table's
        // closed form for 2 df: F(t) = 1/2 + t / (2 sqrt(2 + t^2))).
        let v = [Some(11.0), Some(22.0), Some(33.0)];
        let b = [Some(10.0), Some(20.0), Some(30.0)];
        let d = paired(&v, &b).unwrap();
        assert!((d.mean - 2.0).abs() < 1e-12);
        assert!((d.ci95.unwrap() - 4.3027 / 3f64.sqrt()).abs() < 1e-3);
        let t: f64 = 2.0 * 3f64.sqrt();
        let p = 2.0 * (1.0 - (0.5 + t / (2.0 * (2.0 + t * t).sqrt())));
        assert!((d.p_value.unwrap() - p).abs() < 1e-9, "{:?} {p}", d.p_value);
        // Relative to the baseline's mean 20: +10 %.
        assert!((d.relative_pct.unwrap() - 10.0).abs() < 1e-9);
        // Identical variants: exactly zero, no width, p = 1.
        let z = paired(&b, &b).unwrap();
        assert_eq!((z.mean, z.ci95, z.p_value), (0.0, Some(0.0), Some(1.0)));
    }
}
