//! Spot interruption models: a Poisson hazard from the AWS Spot Instance Advisor's monthly
//! buckets, the GCP preemptible "bathtub" lifetime, and a correlated zone-wide on/off process.

use crate::engine::{SimRng, SimTime};
use rand::Rng;

/// Hours in an average month (8760 / 12).
const HOURS_PER_MONTH: f64 = 730.0;

/// AWS Spot Instance Advisor interruption-frequency buckets (share of instances interrupted
/// over the last month).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdvisorBucket {
    /// Under 5 %.
    Under5,
    /// 5-10 %.
    From5To10,
    /// 10-15 %.
    From10To15,
    /// 15-20 %.
    From15To20,
    /// Over 20 %.
    Over20,
}

impl AdvisorBucket {
    /// The share of instances interrupted in a month this model uses: the bucket's middle
    /// (2.5, 7.5, 12.5, 17.5 %), and 25 % for the open-ended top bucket (an assumption).
    pub fn monthly_share(self) -> f64 {
        match self {
            AdvisorBucket::Under5 => 0.025,
            AdvisorBucket::From5To10 => 0.075,
            AdvisorBucket::From10To15 => 0.125,
            AdvisorBucket::From15To20 => 0.175,
            AdvisorBucket::Over20 => 0.25,
        }
    }
}

/// Interruptions as a Poisson process of constant rate per node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoissonHazard {
    /// Interruptions per node-hour.
    pub per_hour: f64,
}

impl PoissonHazard {
    /// The rate at which a share `s` of instances is interrupted within a month:
    /// `1 - exp(-lambda 730 h) = s`, so `lambda = -ln(1 - s) / 730`.
    pub fn from_monthly_share(s: f64) -> PoissonHazard {
        PoissonHazard {
            per_hour: -(1.0 - s.clamp(0.0, 0.999_999)).ln() / HOURS_PER_MONTH,
        }
    }

    /// From an Advisor bucket.
    pub fn from_bucket(b: AdvisorBucket) -> PoissonHazard {
        PoissonHazard::from_monthly_share(b.monthly_share())
    }

    /// Time until the next interruption of one node (exponential).
    pub fn next(&self, rng: &mut SimRng) -> SimTime {
        if self.per_hour <= 0.0 {
            return SimTime::NEVER;
        }
        let u: f64 = rng.random::<f64>();
        SimTime::from_hours_f64(-(1.0 - u).ln() / self.per_hour)
    }

    /// Interruption times of one node over `[0, horizon)` (a node is replaced at once).
    pub fn times(&self, horizon: SimTime, rng: &mut SimRng) -> Vec<SimTime> {
        let mut out = Vec::new();
        let mut t = SimTime::ZERO;
        loop {
            let dt = self.next(rng);
            if dt == SimTime::NEVER {
                break;
            }
            t = t.plus(dt);
            if t >= horizon {
                break;
            }
            out.push(t);
        }
        out
    }
}

/// GCP preemptible VM lifetime (Kadupitiya, Jadhao and Sharma, HPDC'20): CDF
/// `F(t) = A (1 - exp(-t / tau1) + exp((t - b) / tau2))`, and every VM stops at `b` (24 h).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bathtub {
    /// Scale A (typical 0.4-0.5).
    pub a: f64,
    /// Early-failure time constant, hours (typical 0.5-1.5).
    pub tau1_h: f64,
    /// End-of-life time constant, hours (typical 0.8).
    pub tau2_h: f64,
    /// Maximum lifetime, hours (24).
    pub b_h: f64,
}

impl Default for Bathtub {
    fn default() -> Self {
        Bathtub {
            a: 0.45,
            tau1_h: 1.0,
            tau2_h: 0.8,
            b_h: 24.0,
        }
    }
}

impl Bathtub {
    /// The CDF at `t_h` hours, clipped to 1 (and 1 from `b` on).
    pub fn cdf(&self, t_h: f64) -> f64 {
        if t_h <= 0.0 {
            return 0.0;
        }
        if t_h >= self.b_h {
            return 1.0;
        }
        (self.a * (1.0 - (-t_h / self.tau1_h).exp() + ((t_h - self.b_h) / self.tau2_h).exp()))
            .min(1.0)
    }

    /// Hazard `f / (1 - F)` at `t_h` hours, per hour.
    pub fn hazard(&self, t_h: f64) -> f64 {
        let f = self.a
            * ((-t_h / self.tau1_h).exp() / self.tau1_h
                + ((t_h - self.b_h) / self.tau2_h).exp() / self.tau2_h);
        let s = 1.0 - self.cdf(t_h);
        if s <= 0.0 {
            f64::INFINITY
        } else {
            f / s
        }
    }

    /// A lifetime drawn by inverting the CDF (bisection); mass above `F(b-)` stops at `b`.
    pub fn sample(&self, rng: &mut SimRng) -> SimTime {
        let u: f64 = rng.random::<f64>();
        let (mut lo, mut hi) = (0.0, self.b_h);
        if u >= self.cdf(self.b_h * (1.0 - 1e-12)) {
            return SimTime::from_hours_f64(self.b_h);
        }
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if self.cdf(mid) < u {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        SimTime::from_hours_f64(hi)
    }
}

/// A whole zone going away and coming back at once: up and down spells are exponential.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZoneOnOff {
    /// Mean up spell, hours.
    pub mean_up_h: f64,
    /// Mean down spell, hours.
    pub mean_down_h: f64,
}

impl ZoneOnOff {
    /// Long-run available share: up / (up + down).
    pub fn expected_available(&self) -> f64 {
        self.mean_up_h / (self.mean_up_h + self.mean_down_h)
    }

    /// Down spells `[start, end)` over `[0, horizon)`, starting up.
    pub fn outages(&self, horizon: SimTime, rng: &mut SimRng) -> Vec<(SimTime, SimTime)> {
        let mut out = Vec::new();
        let mut t = 0.0f64;
        let end = horizon.hours_f64();
        let exp = |mean: f64, rng: &mut SimRng| -> f64 {
            let u: f64 = rng.random::<f64>();
            -(1.0 - u).ln() * mean
        };
        while t < end {
            t += exp(self.mean_up_h, rng);
            if t >= end {
                break;
            }
            let d = exp(self.mean_down_h, rng);
            out.push((
                SimTime::from_hours_f64(t),
                SimTime::from_hours_f64((t + d).min(end)),
            ));
            t += d;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RngStreams;

    #[test]
    fn bathtub_samples_follow_the_cdf() {
        let b = Bathtub::default();
        let mut rng = RngStreams::new(3).stream("bathtub");
        let n = 20_000;
        let xs: Vec<f64> = (0..n).map(|_| b.sample(&mut rng).hours_f64()).collect();
        for t in [0.5, 2.0, 12.0, 23.0] {
            let emp = xs.iter().filter(|&&x| x <= t).count() as f64 / n as f64;
            // Binomial standard error at n = 20000 is at most 0.0036; allow 5 sigma.
            assert!(
                (emp - b.cdf(t)).abs() < 0.018,
                "t={t}: {emp} vs {}",
                b.cdf(t)
            );
        }
        assert!(xs.iter().all(|&x| x <= 24.0 + 1e-9));
    }

    #[test]
    fn zone_on_off_long_run_share() {
        let z = ZoneOnOff {
            mean_up_h: 6.0,
            mean_down_h: 2.0,
        };
        let mut rng = RngStreams::new(5).stream("zone");
        let h = SimTime::from_hours_f64(200_000.0);
        let down: f64 = z
            .outages(h, &mut rng)
            .iter()
            .map(|(a, b)| b.since(*a).hours_f64())
            .sum();
        let up = 1.0 - down / h.hours_f64();
        assert!((up - 0.75).abs() < 0.01, "{up}");
    }
}
