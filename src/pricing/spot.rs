//! Spot capacity as a pool's pricing: a price path (constant, a per-tick trace, or a
//! mean-reverting process drawn per run) under the spot billing rules; time the provider
//! took the capacity away is not billed.

use super::{
    read_spot_price_json, Bill, BillingConfig, Charge, CostKind, FromConfig, PriceContext,
    PricingModel, Problems, SpotBilling, SpotPrice, UsageRecord,
};
use crate::engine::{RngStreams, SimTime};
use serde::Deserialize;

/// A spot price drawn per run from the run's seed (a mean-reverting process).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanRevertingSpec {
    /// Long-run mean, $/node-hour.
    pub mean: f64,
    /// Pull towards the mean per hour.
    pub theta_per_hour: f64,
    /// Standard deviation of the hourly shock, $.
    pub sigma_per_hour: f64,
    /// Lowest price.
    pub floor: f64,
}

/// A pool of spot capacity.
#[derive(Debug, Clone, PartialEq)]
pub struct Spot {
    /// Price over time (a seeded process: its mean, until drawn for a run).
    pub price: SpotPrice,
    /// Billing rules.
    pub billing: SpotBilling,
    /// Set when the price is a seeded process, drawn per run by [`PricingModel::for_run`].
    pub process: Option<MeanRevertingSpec>,
}

impl Spot {
    /// Spot at `price` under `billing`.
    pub fn new(price: SpotPrice, billing: SpotBilling) -> Spot {
        Spot {
            price,
            billing,
            process: None,
        }
    }
}

/// `[pools.pricing] kind = "spot"` as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpotConfig {
    /// Price model (the pool's spot price, constant, if omitted).
    #[serde(default)]
    pub price: Option<SpotPriceConfig>,
    /// Billing rule (per second with a 60 s minimum if omitted).
    #[serde(default)]
    pub billing: Option<BillingConfig>,
    /// AWS's rule: an instance interrupted within its first hour is free (default true).
    #[serde(default)]
    pub first_hour_free: Option<bool>,
    /// Interruption notice ("2m" if omitted).
    #[serde(default)]
    pub notice: Option<String>,
}

/// A spot price model as written (`price = { kind = "constant", value = 2.0 }`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SpotPriceConfig {
    /// One price throughout.
    Constant {
        /// Dollars per node-hour.
        value: f64,
    },
    /// One zone's per-tick prices from a JSON file of `zone -> [price, ...]`.
    Trace {
        /// The file, relative to the scenario.
        path: String,
        /// The zone.
        zone: String,
        /// Length of a tick ("195s").
        tick: String,
    },
    /// A mean-reverting process drawn per run.
    MeanReverting {
        /// Long-run mean, $/node-hour.
        mean: f64,
        /// Pull towards the mean per hour, 0..=1.
        theta_per_hour: f64,
        /// Standard deviation of the hourly shock, $.
        sigma_per_hour: f64,
        /// Lowest price (zero if omitted).
        #[serde(default)]
        floor: Option<f64>,
    },
}

impl PricingModel for Spot {
    fn kind_name(&self) -> &'static str {
        "spot"
    }

    /// Each held interval under the spot billing rules (rounding and minimum per
    /// interval; AWS's first hour free for an instance the provider interrupts within
    /// it). The intervals of a spot pool are the spans its nodes were up, each an
    /// instance of its own; the bill pays for their GPU-time. A record whose intervals do
    /// not leave the time nodes were down out (`down_node_ms`) is scaled to the share of
    /// node-time that was up instead.
    fn bill(&self, usage: &UsageRecord) -> Bill {
        let usd: f64 = usage
            .held
            .iter()
            .map(|h| self.billing.cost(h, &self.price))
            .sum();
        let line = |usd| vec![Charge::new(CostKind::Spot, CostKind::Spot, usd)];
        match usage.down_node_ms {
            Some(down) => {
                let node_ms = usage.nodes as f64 * usage.end.0 as f64;
                let up_share = if node_ms > 0.0 {
                    (1.0 - down as f64 / node_ms).clamp(0.0, 1.0)
                } else {
                    1.0
                };
                Bill {
                    charges: line(usd * up_share),
                    paid_gpu_ms: usage.provisioned_gpu_ms as f64 * up_share,
                }
            }
            None => Bill {
                charges: line(usd),
                paid_gpu_ms: usage
                    .held
                    .iter()
                    .map(|h| usage.gpu_ms_of(h.nodes, h.ready, h.released))
                    .sum(),
            },
        }
    }

    /// The price path's mean over its first 30 days.
    fn comparison_rate(&self, _nodes: u32) -> f64 {
        self.price.mean_over(SimTime::from_hours_f64(720.0))
    }

    fn interval_billing(&self) -> Option<super::Billing> {
        Some(self.billing.billing)
    }

    fn market_priced(&self) -> bool {
        true
    }

    fn for_run(&self, streams: &RngStreams, pool: &str, hours: usize) -> Self {
        match self.process {
            Some(m) => {
                let mut rng = streams.stream(&format!("spot_price/{pool}"));
                Spot {
                    price: SpotPrice::mean_reverting(
                        m.mean,
                        m.theta_per_hour,
                        m.sigma_per_hour,
                        m.floor,
                        hours,
                        &mut rng,
                    ),
                    billing: self.billing,
                    process: None,
                }
            }
            None => self.clone(),
        }
    }
}

impl FromConfig for Spot {
    type Config = SpotConfig;

    fn from_config(c: &SpotConfig, ctx: &PriceContext, problems: &mut dyn Problems) -> Self {
        let mut process = None;
        let price = match &c.price {
            None => {
                SpotPrice::Constant(ctx.spot.unwrap_or_else(|| ctx.need(problems, "spot price")))
            }
            Some(SpotPriceConfig::Constant { value }) => {
                SpotPrice::Constant(problems.usd_per_hour("pricing.price.value", *value))
            }
            Some(SpotPriceConfig::Trace { path, zone, tick }) => {
                let tick = problems
                    .duration("pricing.price.tick", tick)
                    .max(SimTime(1));
                match read_spot_price_json(&ctx.base.join(path), zone, tick) {
                    Ok(sp) => sp,
                    Err(e) => {
                        problems.err("pricing.price.path", e.to_string());
                        SpotPrice::Constant(0.0)
                    }
                }
            }
            Some(SpotPriceConfig::MeanReverting {
                mean,
                theta_per_hour,
                sigma_per_hour,
                floor,
            }) => {
                let spec = MeanRevertingSpec {
                    mean: problems.usd_per_hour("pricing.price.mean", *mean),
                    theta_per_hour: problems.share("pricing.price.theta_per_hour", *theta_per_hour),
                    sigma_per_hour: problems
                        .usd_per_hour("pricing.price.sigma_per_hour", *sigma_per_hour),
                    floor: problems.usd_per_hour("pricing.price.floor", floor.unwrap_or(0.0)),
                };
                process = Some(spec);
                SpotPrice::Constant(spec.mean)
            }
        };
        Spot {
            price,
            billing: SpotBilling {
                billing: super::Billing::from_config(
                    "pricing.billing",
                    c.billing.as_ref(),
                    problems,
                ),
                first_hour_free: c.first_hour_free.unwrap_or(true),
                notice: c
                    .notice
                    .as_deref()
                    .map(|n| problems.duration("pricing.notice", n))
                    .unwrap_or(SimTime::from_secs(120)),
            },
            process,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CapacityKind;

    #[test]
    fn node_time_down_is_not_billed() {
        // 2 nodes held 10 h at $3/h, 5 of the 20 node-hours down: 15 x $3 = $45, and the
        // bill pays for three quarters of the provisioned GPU-time.
        let spot = Spot::new(SpotPrice::Constant(3.0), SpotBilling::default());
        let mut usage =
            UsageRecord::idle_whole_run(CapacityKind::Spot, 2, SimTime::from_hours_f64(10.0));
        usage.provisioned_gpu_ms = 1_000;
        usage.down_node_ms = Some(5 * 3_600_000);
        let bill = spot.bill(&usage);
        assert!((bill.charges[0].usd - 45.0).abs() < 1e-9);
        assert!((bill.paid_gpu_ms - 750.0).abs() < 1e-9);
    }

    #[test]
    fn a_seeded_price_is_drawn_per_run_and_per_pool() {
        let spot = Spot {
            process: Some(MeanRevertingSpec {
                mean: 20.0,
                theta_per_hour: 0.2,
                sigma_per_hour: 1.5,
                floor: 5.0,
            }),
            ..Spot::new(SpotPrice::Constant(20.0), SpotBilling::default())
        };
        let streams = RngStreams::new(7);
        let a = spot.for_run(&streams, "a", 100);
        // The same seed and pool draw the same path; another pool draws its own, so adding
        // a pool does not shift this one's prices.
        assert_eq!(a, spot.for_run(&RngStreams::new(7), "a", 100));
        assert_ne!(a, spot.for_run(&streams, "b", 100));
        // The process starts at its mean and never falls below its floor.
        let SpotPrice::Trace { prices, .. } = &a.price else {
            panic!("a drawn process is a price trace");
        };
        assert_eq!((prices.len(), prices[0]), (100, 20.0));
        assert!(prices.iter().all(|&p| p >= 5.0));
        // Without a process, every run sees the same model.
        let fixed = Spot::new(SpotPrice::Constant(3.0), SpotBilling::default());
        assert_eq!(fixed.for_run(&streams, "a", 100), fixed);
    }
}
