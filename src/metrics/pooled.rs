//! Distributions pooled across runs: the runs' sketches merged per distribution (the
//! pooled quantiles of every job of every seed, not an average of per-seed quantiles),
//! and the `distributions.csv` rows (one CDF step per row) that comparisons and sweeps
//! write and their CDF charts are drawn from.

use super::sketch::{QuantileSketch, RunSketches, DISTRIBUTIONS};

/// The quantiles `points.csv` gives per pooled distribution, with their column suffixes.
pub const POOLED_QUANTILES: [(f64, &str); 3] = [(0.5, "p50"), (0.95, "p95"), (0.99, "p99")];

/// The header of `distributions.csv`, its first column named `key` (`variant`, `point`).
pub fn distribution_header(key: &str) -> Vec<String> {
    [key, "distribution", "value", "cdf", "jobs", "censored"]
        .into_iter()
        .map(String::from)
        .collect()
}

/// Every distribution of [`DISTRIBUTIONS`] pooled over `runs`: the sketches merged (bucket
/// counts added), so the result answers for all their jobs together within the sketches'
/// relative error. Runs without a distribution add nothing to it.
pub fn pool<'a>(runs: impl IntoIterator<Item = &'a RunSketches>) -> Vec<QuantileSketch> {
    let mut out: Vec<QuantileSketch> = DISTRIBUTIONS
        .iter()
        .map(|_| QuantileSketch::default())
        .collect();
    for r in runs {
        for (d, s) in DISTRIBUTIONS.iter().zip(out.iter_mut()) {
            if let Some(x) = r.get(d) {
                s.merge(x);
            }
        }
    }
    out
}

/// A number for a table: up to 6 decimals without trailing zeros; tiny values in
/// scientific notation so that small values keep their digits.
pub fn table_num(x: f64) -> String {
    if x != 0.0 && x.abs() < 1e-4 {
        return format!("{x:.4e}");
    }
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

/// The `distributions.csv` rows of one series `key` (a variant or point): for each
/// distribution, one row per CDF step (`value`, share at or below), with the pooled job
/// count and how many of them are censored (lower bounds at the horizon).
pub fn distribution_rows(key: &str, pooled: &[QuantileSketch]) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for (name, s) in DISTRIBUTIONS.iter().zip(pooled) {
        for (x, f) in s.cdf() {
            rows.push(vec![
                key.to_string(),
                name.to_string(),
                table_num(x),
                table_num(f),
                s.count().to_string(),
                s.censored().to_string(),
            ]);
        }
    }
    rows
}
