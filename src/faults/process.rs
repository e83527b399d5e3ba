//! Failure processes: when the next failure of a node comes.
//!
//! Exponential processes are memoryless, so a node with `g` GPUs failing at `r` per
//! GPU-day fails at `g r` per day (exact superposition). Weibull processes (shape `k`;
//! `k < 1` for infant mortality, `k > 1` for wear-out) are renewal processes per node with
//! the same mean time between failures as the configured rate.

use super::Cause;
use crate::engine::SimTime;
use rand::Rng;
use rand_distr::{Distribution, Exp, Weibull};

/// Whether a rate is per GPU or per node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Failures per GPU-day (a node's rate is its GPU count times this).
    Gpu,
    /// Failures per node-day.
    Node,
}

/// The distribution of times between failures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FailureDist {
    /// Exponential (constant hazard).
    Exponential,
    /// Weibull with this shape parameter.
    Weibull {
        /// Shape k.
        shape: f64,
    },
}

/// A failure process over the nodes of some pools.
#[derive(Debug, Clone, PartialEq)]
pub struct FailureProcess {
    /// Failures per GPU-day or node-day (see `scope`).
    pub rate_per_day: f64,
    /// Per GPU or per node.
    pub scope: Scope,
    /// Time-between-failures distribution.
    pub dist: FailureDist,
    /// Causes with weights (the reported cause of each failure is drawn from these).
    pub causes: Vec<Cause>,
}

impl FailureProcess {
    /// Mean failures per day of one node with `gpus` GPUs.
    pub fn node_rate_per_day(&self, gpus: u16) -> f64 {
        match self.scope {
            Scope::Gpu => self.rate_per_day * gpus as f64,
            Scope::Node => self.rate_per_day,
        }
    }

    /// Time from now to a node's next failure.
    pub fn next_gap(&self, gpus: u16, rng: &mut impl Rng) -> SimTime {
        let rate_per_s = self.node_rate_per_day(gpus) / 86_400.0;
        if rate_per_s.is_nan() || rate_per_s <= 0.0 {
            return SimTime::NEVER;
        }
        let mean_s = 1.0 / rate_per_s;
        let secs = match self.dist {
            FailureDist::Exponential => Exp::new(rate_per_s)
                .map(|d| d.sample(rng))
                .unwrap_or(f64::INFINITY),
            FailureDist::Weibull { shape } => {
                // Scale so that the mean is 1/rate: mean = scale * Gamma(1 + 1/k).
                let scale = mean_s / statrs::function::gamma::gamma(1.0 + 1.0 / shape);
                Weibull::new(scale, shape)
                    .map(|d| d.sample(rng))
                    .unwrap_or(f64::INFINITY)
            }
        };
        if secs.is_finite() {
            SimTime::from_secs_f64(secs).max(SimTime(1))
        } else {
            SimTime::NEVER
        }
    }

    /// Failures of one node with `gpus` GPUs expected over `span_s` seconds (for limits).
    ///
    /// Exponential, and Weibull with a shape of 1 or more: the span over the mean time
    /// between failures. A Weibull shape under 1 has a heavy tail: its mean is carried by
    /// rare gaps far longer than the span while most gaps are far shorter (at a shape of
    /// 0.01 almost all are under the clock's millisecond, and a node fails at every
    /// millisecond). Renewal theory bounds the count by the span over the mean gap *cut at
    /// the span*, `E[min(gap, span)] = mean P(1/k, (span/scale)^k)` (P the regularised
    /// lower incomplete gamma function), each gap being at least a millisecond.
    pub fn expected_node_failures(&self, gpus: u16, span_s: f64) -> f64 {
        let rate_per_s = self.node_rate_per_day(gpus) / 86_400.0;
        if rate_per_s.is_nan() || rate_per_s <= 0.0 || span_s.is_nan() || span_s <= 0.0 {
            return 0.0;
        }
        let by_mean = span_s * rate_per_s;
        let FailureDist::Weibull { shape } = self.dist else {
            return by_mean;
        };
        if shape.is_nan() || shape >= 1.0 {
            return by_mean;
        }
        /// The shortest gap between failures the clock resolves, seconds.
        const MIN_GAP_S: f64 = 1e-3;
        let g = statrs::function::gamma::gamma(1.0 + 1.0 / shape);
        if !g.is_finite() || shape <= 0.0 {
            // Gamma(1 + 1/k) past f64: the scale is nil, every gap under a millisecond.
            return span_s / MIN_GAP_S;
        }
        let mean_s = 1.0 / rate_per_s;
        let scale = mean_s / g;
        let x = (span_s / scale).powf(shape);
        let within = match statrs::function::gamma::checked_gamma_lr(1.0 / shape, x) {
            Ok(p) if p > 0.0 && p.is_finite() => (mean_s * p).max(MIN_GAP_S).min(span_s),
            // Underflow: gaps longer than the span.
            _ => span_s.min(mean_s),
        };
        (span_s / within).max(by_mean)
    }

    /// Draws a cause index (0 when the process has no causes).
    pub fn draw_cause(&self, rng: &mut impl Rng) -> usize {
        let total: f64 = self.causes.iter().map(|c| c.weight).sum();
        if total <= 0.0 {
            return 0;
        }
        let mut x = rng.random::<f64>() * total;
        for (i, c) in self.causes.iter().enumerate() {
            if x < c.weight {
                return i;
            }
            x -= c.weight;
        }
        self.causes.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heavy_tailed_weibull_failures_are_counted_by_their_gaps() {
        let p = |dist| FailureProcess {
            rate_per_day: 0.01,
            scope: Scope::Node,
            dist,
            causes: Vec::new(),
        };
        let ten_years = 10.0 * 365.0 * 86_400.0;
        // By the mean: 36.5 failures in ten years.
        let exp = p(FailureDist::Exponential).expected_node_failures(8, ten_years);
        assert!((exp - 36.5).abs() < 1e-9, "{exp}");
        let mild = p(FailureDist::Weibull { shape: 0.7 }).expected_node_failures(8, ten_years);
        assert!((36.5..100.0).contains(&mild), "{mild}");
        // A shape of 0.01: almost every gap under a millisecond.
        let wild = p(FailureDist::Weibull { shape: 0.01 }).expected_node_failures(8, ten_years);
        assert!(wild > 1e10, "{wild}");
        let nil = p(FailureDist::Weibull { shape: 1e-300 }).expected_node_failures(8, 1e-4);
        assert!(nil.is_finite(), "{nil}");
    }
    use crate::engine::RngStreams;

    #[test]
    fn weibull_mean_matches_rate() {
        let p = FailureProcess {
            rate_per_day: 1.0,
            scope: Scope::Node,
            dist: FailureDist::Weibull { shape: 0.7 },
            causes: vec![],
        };
        let mut rng = RngStreams::new(3).stream("t");
        let n = 200_000;
        let mean_days: f64 = (0..n)
            .map(|_| p.next_gap(8, &mut rng).secs_f64() / 86_400.0)
            .sum::<f64>()
            / n as f64;
        // Weibull(k = 0.7) has CV = sqrt(G(1+2/k)/G(1+1/k)^2 - 1) = 1.46; se of the mean 0.0033.
        assert!((mean_days - 1.0).abs() < 0.015, "{mean_days}");
    }
}
