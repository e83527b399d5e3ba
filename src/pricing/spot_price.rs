//! Spot prices: constant, a per-tick price trace, or a seeded mean-reverting process; and
//! the spot billing rules (AWS's first interrupted hour is free).
//! A price trace file's zone names are only compared with the scenario's zone (the
//! zone's prices are numbers, checked); when none matches, the error lists them quoted
//! and escaped, so a control character in one never reaches the terminal as it is.

use super::{Billing, HeldInterval, SpotTraceError};
use crate::engine::{SimRng, SimTime};
use rand_distr::{Distribution, StandardNormal};
use std::collections::BTreeMap;
use std::path::Path;

/// A spot price over time, dollars per node-hour.
#[derive(Debug, Clone, PartialEq)]
pub enum SpotPrice {
    /// One price throughout.
    Constant(f64),
    /// Piecewise constant: `prices[k]` holds over `[k tick, (k+1) tick)`; the last price
    /// holds after the trace ends.
    Trace {
        /// Length of a tick.
        tick: SimTime,
        /// Price per tick.
        prices: Vec<f64>,
    },
}

impl SpotPrice {
    /// A mean-reverting (Ornstein-Uhlenbeck, Euler steps) price path with hourly ticks over
    /// `hours`: `x += theta (mean - x) + sigma z`, floored at `floor`. Starts at `mean`.
    pub fn mean_reverting(
        mean: f64,
        theta_per_hour: f64,
        sigma_per_hour: f64,
        floor: f64,
        hours: usize,
        rng: &mut SimRng,
    ) -> SpotPrice {
        let mut x = mean;
        let mut prices = Vec::with_capacity(hours.max(1));
        for _ in 0..hours.max(1) {
            prices.push(x);
            let z: f64 = StandardNormal.sample(rng);
            x = (x + theta_per_hour * (mean - x) + sigma_per_hour * z).max(floor);
        }
        SpotPrice::Trace {
            tick: SimTime(3_600_000),
            prices,
        }
    }

    /// Price at `t`.
    pub fn at(&self, t: SimTime) -> f64 {
        match self {
            SpotPrice::Constant(p) => *p,
            SpotPrice::Trace { tick, prices } => {
                let k = (t.0 / tick.0.max(1)) as usize;
                prices.get(k).or(prices.last()).copied().unwrap_or(0.0)
            }
        }
    }

    /// Dollars for one node held over `[a, b)`: the integral of the price.
    pub fn integral(&self, a: SimTime, b: SimTime) -> f64 {
        if b <= a {
            return 0.0;
        }
        match self {
            SpotPrice::Constant(p) => p * b.since(a).hours_f64(),
            SpotPrice::Trace { tick, prices } => {
                let g = tick.0.max(1);
                let mut sum = 0.0;
                let mut t = a.0;
                while t < b.0 {
                    let k = t / g;
                    let next = ((k + 1) * g).min(b.0);
                    let p = prices
                        .get(k as usize)
                        .or(prices.last())
                        .copied()
                        .unwrap_or(0.0);
                    if k as usize >= prices.len() {
                        // Past the trace: the last price holds to the end.
                        sum += p * (b.0 - t) as f64 / 3.6e6;
                        break;
                    }
                    sum += p * (next - t) as f64 / 3.6e6;
                    t = next;
                }
                sum
            }
        }
    }

    /// Mean price over `[0, end)`.
    pub fn mean_over(&self, end: SimTime) -> f64 {
        if end.0 == 0 {
            return self.at(SimTime::ZERO);
        }
        self.integral(SimTime::ZERO, end) / end.hours_f64()
    }
}

/// Reads one zone's per-tick prices from a JSON object of `zone -> [price, ...]` (the
/// format of `spot/aws-v100-2023-02/v100_spot_prices.json`).
pub fn read_spot_price_json(
    path: &Path,
    zone: &str,
    tick: SimTime,
) -> Result<SpotPrice, SpotTraceError> {
    let file = path.display().to_string();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut super::spot_trace::open_capped(path, false)?, &mut text)
        .map_err(|e| SpotTraceError::Io {
            file: file.clone(),
            message: e.to_string(),
        })?;
    let map: BTreeMap<String, Vec<f64>> =
        serde_json::from_str(&text).map_err(|e| SpotTraceError::Row {
            file: file.clone(),
            line: e.line(),
            field: "price".into(),
            message: e.to_string(),
        })?;
    let prices = map.get(zone).ok_or_else(|| SpotTraceError::Row {
        file: file.clone(),
        line: 1,
        field: "zone".into(),
        message: format!(
            "no zone {zone:?}; the file has {}",
            // Quoted and escaped: a key is the file's text, and a NUL or an escape in one
            // went to the terminal as it was.
            map.keys()
                .map(|k| format!("{k:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })?;
    let max = super::MAX_USD_PER_HOUR;
    if let Some(i) = prices
        .iter()
        .position(|p| !(p.is_finite() && (0.0..=max).contains(p)))
    {
        return Err(SpotTraceError::Row {
            file,
            line: 1,
            field: format!("{zone}[{i}]"),
            message: format!(
                "a price must be between 0 and {max:e} dollars an hour, got {}",
                prices[i]
            ),
        });
    }
    Ok(SpotPrice::Trace {
        tick,
        prices: prices.clone(),
    })
}

/// How spot time is billed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpotBilling {
    /// Rounding of each held interval.
    pub billing: Billing,
    /// AWS rule: an instance the provider interrupts within its first hour costs nothing.
    pub first_hour_free: bool,
    /// Warning given before an interruption (AWS 2 min, GCP and Azure 30 s).
    pub notice: SimTime,
}

impl Default for SpotBilling {
    fn default() -> Self {
        SpotBilling {
            billing: Billing::PER_SECOND_60S_MIN,
            first_hour_free: true,
            notice: SimTime::from_secs(120),
        }
    }
}

impl SpotBilling {
    /// The bill of one held interval at `price`. Billing rounds the held time up; the
    /// price path is integrated over the held span and scaled by the rounding.
    pub fn cost(&self, h: &HeldInterval, price: &SpotPrice) -> f64 {
        if self.first_hour_free && h.interrupted_by_provider && h.held() < SimTime(3_600_000) {
            return 0.0;
        }
        let held = h.held();
        let raw = price.integral(h.requested, h.released);
        let scale = if held.0 > 0 {
            self.billing.billed(held).0 as f64 / held.0 as f64
        } else {
            0.0
        };
        let minimum_only = if held.0 == 0 {
            price.at(h.requested) * self.billing.billed(held).hours_f64()
        } else {
            0.0
        };
        h.nodes as f64 * (raw * scale + minimum_only)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integral_over_a_trace() {
        // Ticks of 1 h at $1, $2, $3: from 0.5 h to 2.5 h = 0.5 + 2 + 1.5 = $4.
        let p = SpotPrice::Trace {
            tick: SimTime(3_600_000),
            prices: vec![1.0, 2.0, 3.0],
        };
        let v = p.integral(SimTime(1_800_000), SimTime(9_000_000));
        assert!((v - 4.0).abs() < 1e-9);
        // After the end the last price holds: 3 h to 5 h at $3 = $6.
        assert!((p.integral(SimTime(10_800_000), SimTime(18_000_000)) - 6.0).abs() < 1e-9);
    }

    #[test]
    fn first_interrupted_hour_is_free_on_aws_only() {
        let h = HeldInterval {
            requested: SimTime(0),
            ready: SimTime(0),
            released: SimTime(1_800_000),
            nodes: 1,
            interrupted_by_provider: true,
        };
        let p = SpotPrice::Constant(2.0);
        let aws = SpotBilling::default();
        assert_eq!(aws.cost(&h, &p), 0.0);
        let gcp = SpotBilling {
            first_hour_free: false,
            ..aws
        };
        assert!((gcp.cost(&h, &p) - 1.0).abs() < 1e-9);
    }
}
