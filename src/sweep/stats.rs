//! Mean and the 95 % confidence half-width of a small sample (Student t).

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Arithmetic mean (summed in the given order, so results are reproducible).
pub fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// Half-width of the 95 % confidence interval of the mean: t(0.975, n-1) x s / sqrt(n),
/// with s the sample standard deviation. `None` for fewer than two values.
pub fn ci95_half_width(x: &[f64]) -> Option<f64> {
    let n = x.len();
    if n < 2 {
        return None;
    }
    let m = mean(x);
    let var = x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1) as f64;
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
        .ok()?
        .inverse_cdf(0.975);
    Some(t * var.sqrt() / (n as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_t_table() {
        // t(0.975, 4) = 2.776 (standard t table). Sample 1..5: mean 3, s = sqrt(2.5).
        let h = ci95_half_width(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert!(
            (h - 2.776 * 2.5f64.sqrt() / 5f64.sqrt()).abs() < 1e-3,
            "{h}"
        );
        assert_eq!(ci95_half_width(&[1.0]), None);
        assert_eq!(ci95_half_width(&[2.0, 2.0]), Some(0.0));
    }
}
