//! The statistics of a comparison: each metric's mean over seeds with its 95 % confidence
//! interval (Student t), and the paired difference of a variant to the baseline over the
//! same seeds (common random numbers), with its 95 % interval and the two-sided p-value
//! of the paired t test (H0: mean difference 0; t = mean(d) / (s_d / sqrt(n)), n - 1
//! degrees of freedom), or, with `bootstrap = N`, a seeded percentile bootstrap of the
//! mean paired difference (Efron and Tibshirani, "An Introduction to the Bootstrap",
//! 1993, ch. 13): the seed pairs resampled with replacement N times, the interval from the
//! 2.5th to the 97.5th percentile of the resampled means, and the two-sided p-value
//! 2 min(P*(mean <= 0), P*(mean >= 0)) (the smallest level whose percentile interval
//! excludes 0).

use super::spec::Bootstrap;
use crate::engine::RngStreams;
use crate::sweep::{ci95_half_width, mean};
use rand::Rng;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The name of the test, as written into outputs.
pub const TEST: &str = "paired t (two-sided), 95 % interval t(0.975, n-1) s_d / sqrt(n)";

/// The test in words for outputs: [`TEST`], or the bootstrap's description.
pub fn test_name(b: Option<&Bootstrap>) -> String {
    match b {
        None => TEST.to_string(),
        Some(b) => format!(
            "percentile bootstrap of the mean paired difference, {} resamples of the seed pairs (seed {}): 95 % interval = its 2.5th to 97.5th percentiles, p = 2 min(P*(d <= 0), P*(d >= 0))",
            b.resamples, b.seed
        ),
    }
}

/// The short name of the test for `differences.csv`'s `test` column.
pub fn test_short(b: Option<&Bootstrap>) -> &'static str {
    match b {
        None => "paired t",
        Some(_) => "bootstrap percentile",
    }
}

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
    /// Half-width of its 95 % interval (`None` with fewer than two pairs); for the
    /// bootstrap, half the interval's width (it need not be symmetric: see `low`, `high`).
    pub ci95: Option<f64>,
    /// The interval's ends.
    pub low: Option<f64>,
    /// Upper end.
    pub high: Option<f64>,
    /// Two-sided p-value (`None` with fewer than two pairs).
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
    let low = ci95.map(|h| dm - h);
    let high = ci95.map(|h| dm + h);
    Some(difference(dm, &b, ci95, low, high, p_value, n))
}

fn difference(
    dm: f64,
    baseline: &[f64],
    ci95: Option<f64>,
    low: Option<f64>,
    high: Option<f64>,
    p_value: Option<f64>,
    n: usize,
) -> PairedDifference {
    let bm = mean(baseline);
    let rel = |x: f64| (bm != 0.0).then(|| x / bm.abs() * 100.0);
    PairedDifference {
        mean: dm,
        ci95,
        low,
        high,
        p_value,
        relative_pct: rel(dm),
        relative_ci95_pct: ci95.and_then(rel),
        n,
    }
}

/// [`paired`] by the percentile bootstrap `b`: the resampling draws from the stream
/// `bootstrap/<key>` of `b.seed` (key: metric and variant), so each row's interval is
/// reproducible and independent of the others.
pub fn paired_bootstrap(
    variant: &[Option<f64>],
    baseline: &[Option<f64>],
    b: &Bootstrap,
    key: &str,
) -> Option<PairedDifference> {
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
    let base: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    let dm = mean(&d);
    if n < 2 {
        return Some(difference(dm, &base, None, None, None, None, n));
    }
    let mut rng = RngStreams::new(b.seed).keyed("bootstrap", key);
    let mut means: Vec<f64> = (0..b.resamples)
        .map(|_| (0..n).map(|_| d[rng.random_range(0..n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    let r = means.len();
    // Nearest-rank percentiles of the resampled means.
    let at = |q: f64| means[((q * r as f64).ceil() as usize).clamp(1, r) - 1];
    let (lo, hi) = (at(0.025), at(0.975));
    let below = means.iter().filter(|&&m| m <= 0.0).count() as f64 / r as f64;
    let above = means.iter().filter(|&&m| m >= 0.0).count() as f64 / r as f64;
    let p = (2.0 * below.min(above)).min(1.0);
    Some(difference(
        dm,
        &base,
        Some((hi - lo) / 2.0),
        Some(lo),
        Some(hi),
        Some(p),
        n,
    ))
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

    /// The percentile bootstrap against its large-sample theory: the resampled mean of n
    /// pairs has variance (plug-in variance) / n = s^2 (n - 1) / n^2, so the 95 % interval
    /// is about mean +- 1.96 sqrt(s^2 (n - 1)) / n. Differences 1..=30: mean 15.5, s^2 =
    /// n (n + 1) / 12 = 77.5, so +- 1.96 x 1.5803 = +- 3.097; every resampled mean is
    /// positive, so p = 0. Monte Carlo and the discreteness of the resampled means stay
    /// within 5 % at 20,000 resamples.
    #[test]
    fn bootstrap_matches_its_large_sample_theory() {
        let b = Bootstrap {
            resamples: 20_000,
            seed: 7,
        };
        let base: Vec<Option<f64>> = (0..30).map(|i| Some(100.0 + i as f64)).collect();
        let var: Vec<Option<f64>> = (0..30)
            .map(|i| Some(100.0 + 2.0 * i as f64 + 1.0))
            .collect();
        let d = paired_bootstrap(&var, &base, &b, "m/v").unwrap();
        assert!((d.mean - 15.5).abs() < 1e-12);
        let want = 1.96 * (77.5f64 * 29.0).sqrt() / 30.0;
        let (lo, hi) = (d.low.unwrap(), d.high.unwrap());
        assert!(
            ((hi - lo) / 2.0 - want).abs() < 0.05 * want,
            "[{lo}, {hi}] vs +-{want}"
        );
        assert!(
            ((15.5 - lo) - (hi - 15.5)).abs() < 0.1 * want,
            "[{lo}, {hi}]"
        );
        assert_eq!(d.p_value, Some(0.0));
        assert_eq!(d.ci95, Some((hi - lo) / 2.0));
        // Seeded: the same key repeats, another key draws another stream.
        assert_eq!(paired_bootstrap(&var, &base, &b, "m/v"), Some(d));
        assert_ne!(paired_bootstrap(&var, &base, &b, "m/w").unwrap().low, d.low);
        // Differences +-1 alternating: mean 0, half the resampled means on each side.
        let alt: Vec<Option<f64>> = (0..30)
            .map(|i| Some(100.0 + i as f64 + if i % 2 == 0 { 1.0 } else { -1.0 }))
            .collect();
        let z = paired_bootstrap(&alt, &base, &b, "m/v").unwrap();
        assert!(z.p_value.unwrap() > 0.8, "{:?}", z.p_value);
        assert!(z.low.unwrap() < 0.0 && z.high.unwrap() > 0.0);
        // Identical variants: exactly zero, a point interval, p = 1.
        let same = paired_bootstrap(&base, &base, &b, "m/v").unwrap();
        assert_eq!(
            (same.mean, same.ci95, same.low, same.high, same.p_value),
            (0.0, Some(0.0), Some(0.0), Some(0.0), Some(1.0))
        );
        // One pair: no interval.
        assert_eq!(
            paired_bootstrap(&var[..1], &base[..1], &b, "m/v")
                .unwrap()
                .ci95,
            None
        );
    }
}
