//! Validation of a pool's prices: `[pools.pricing]` and catalog look-ups (`instance`,
//! `region`); and each run's draw of seeded spot prices.

use super::problems::Problems;
use super::raw::RawPool;
use super::raw_pricing::{RawBilling, RawOwned, RawPricing, RawSpotPrice};
use crate::engine::SimTime;
use crate::pricing::{
    lookup, Billing, CapacityBlock, OnDemand, OwnedHardware, PoolPricing, Reservation, SpotBilling,
    SpotPrice, HOURS_PER_YEAR,
};
use std::path::Path;

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

/// A pool's validated pricing.
pub(super) struct PoolPrice {
    /// The pool's typical price per node-hour (what `Scenario::rates` holds, for policies
    /// that compare pools by price): the flat or on-demand price, a spot path's mean, or
    /// the yearly effective rate of owned or reserved capacity at zero load.
    pub rate: f64,
    /// The pricing model.
    pub pricing: PoolPricing,
    /// Set when the spot price is a seeded process.
    pub process: Option<MeanRevertingSpec>,
}

impl Problems {
    /// A billing rule at `path`: a name (`per_second`, the default; `per_hour`; `exact`)
    /// or an explicit granularity and minimum.
    fn billing(&mut self, path: &str, b: &Option<RawBilling>) -> Billing {
        match b {
            None => Billing::PER_SECOND_60S_MIN,
            Some(RawBilling::Named(n)) => match n.as_str() {
                "per_second" => Billing::PER_SECOND_60S_MIN,
                "per_hour" => Billing::PER_STARTED_HOUR,
                "exact" => Billing::EXACT,
                other => {
                    self.err(
                        path,
                        format!("unknown billing {other:?}: per_second, per_hour, exact, or {{ granularity = \"1s\", minimum = \"60s\" }}"),
                    );
                    Billing::EXACT
                }
            },
            Some(RawBilling::Explicit {
                granularity,
                minimum,
            }) => {
                let g = self.dur(&format!("{path}.granularity"), granularity);
                if g == SimTime::ZERO {
                    self.err(format!("{path}.granularity"), "must be longer than zero");
                }
                let m = minimum
                    .as_deref()
                    .map(|m| self.dur(&format!("{path}.minimum"), m))
                    .unwrap_or(SimTime::ZERO);
                Billing {
                    granularity: g.max(SimTime(1)),
                    minimum: m,
                }
            }
        }
    }
}

/// Validates owned-hardware figures under `path`.
pub(super) fn owned(p: &mut Problems, path: &str, o: &RawOwned) -> OwnedHardware {
    let f = |p: &mut Problems, name: &str, v: Option<f64>, default: f64| {
        p.nonneg(&format!("{path}.{name}"), v.unwrap_or(default))
    };
    let life = o.life_years;
    if !(life.is_finite() && life > 0.0) {
        p.err(
            format!("{path}.life_years"),
            format!("must be positive, got {life}"),
        );
    }
    let lead = o
        .lead_time
        .as_deref()
        .map(|l| p.dur(&format!("{path}.lead_time"), l))
        .unwrap_or(SimTime::ZERO);
    let pue = o.pue.unwrap_or(1.4);
    if !(pue.is_finite() && pue >= 1.0) {
        p.err(
            format!("{path}.pue"),
            format!("must be 1 or more, got {pue}"),
        );
    }
    let idle = f(p, "idle_kw_per_node", o.idle_kw_per_node, 0.0);
    let full = f(p, "full_kw_per_node", o.full_kw_per_node, 0.0);
    if idle > full {
        p.err(
            format!("{path}.idle_kw_per_node"),
            format!("idle power {idle} kW exceeds full-load power {full} kW"),
        );
    }
    OwnedHardware {
        capex_per_node: p.nonneg(&format!("{path}.capex_per_node"), o.capex_per_node),
        residual_per_node: f(p, "residual_per_node", o.residual_per_node, 0.0),
        life_years: life.max(1e-9),
        cost_of_capital: f(p, "cost_of_capital", o.cost_of_capital, 0.0),
        idle_kw_per_node: idle,
        full_kw_per_node: full,
        pue: pue.max(1.0),
        // EIA US industrial ~7-9 c/kWh; Epoch AI uses $0.0771 (ECONOMICS.md).
        usd_per_kwh: f(p, "usd_per_kwh", o.usd_per_kwh, 0.0771),
        colo_usd_per_kw_month: f(p, "colo_usd_per_kw_month", o.colo_usd_per_kw_month, 0.0),
        staff_usd_per_year: f(p, "staff_usd_per_year", o.staff_usd_per_year, 0.0),
        maintenance_share_per_year: f(
            p,
            "maintenance_share_per_year",
            o.maintenance_share_per_year,
            0.0,
        ),
        lead_time_days: lead.hours_f64() / 24.0,
    }
}

/// Resolves pool `i`'s prices: explicit `price_per_node_hour` overrides the catalog row
/// named by `instance` and `region`; `[pools.pricing]` picks the model (default: the flat
/// rate billed exactly, as before pricing models existed).
pub(super) fn pool_price(
    i: usize,
    rp: &RawPool,
    nodes: u32,
    base: &Path,
    p: &mut Problems,
) -> PoolPrice {
    let path = format!("pools[{i}]");
    let is_spot = matches!(rp.pricing, Some(RawPricing::Spot { .. }))
        || (rp.pricing.is_none() && rp.kind == crate::model::CapacityKind::Spot);
    let mut catalog_od = None;
    let mut catalog_spot = None;
    match (&rp.instance, &rp.region) {
        (Some(inst), Some(region)) => match lookup(inst, region) {
            Ok(e) => {
                catalog_od = e.on_demand;
                catalog_spot = e.spot;
            }
            Err(m) => p.err(format!("{path}.instance"), m),
        },
        (Some(_), None) => p.err(format!("{path}.region"), "an instance needs a region"),
        (None, Some(_)) => p.err(format!("{path}.instance"), "a region needs an instance"),
        (None, None) => {}
    }
    let explicit = rp
        .price_per_node_hour
        .map(|x| p.nonneg(&format!("{path}.price_per_node_hour"), x));
    let base_price = explicit.or(if is_spot { catalog_spot } else { catalog_od });
    let od_price = explicit.or(catalog_od);
    let need = |p: &mut Problems, what: &str| -> f64 {
        p.err(
            format!("{path}.price_per_node_hour"),
            format!(
                "give price_per_node_hour, or instance and region from the price catalog ({what})"
            ),
        );
        0.0
    };
    let mut process = None;
    let pricing = match &rp.pricing {
        None => PoolPricing::flat(base_price.unwrap_or_else(|| need(p, "flat rate"))),
        Some(RawPricing::OnDemand { billing }) => PoolPricing::OnDemand(OnDemand {
            usd_per_node_hour: od_price.unwrap_or_else(|| need(p, "on-demand price")),
            billing: p.billing(&format!("{path}.pricing.billing"), billing),
        }),
        Some(RawPricing::Reserved {
            term,
            term_started,
            upfront_per_node,
            recurring_per_node_hour,
            discount,
        }) => {
            let pp = format!("{path}.pricing");
            let term_h = p.dur(&format!("{pp}.term"), term).hours_f64();
            if term_h <= 0.0 {
                p.err(format!("{pp}.term"), "must be longer than zero");
            }
            let started = term_started
                .as_deref()
                .map(|s| p.dur(&format!("{pp}.term_started"), s).hours_f64())
                .unwrap_or(0.0);
            let od = od_price.unwrap_or(0.0);
            let recurring = match (recurring_per_node_hour, discount) {
                (Some(r), None) => p.nonneg(&format!("{pp}.recurring_per_node_hour"), *r),
                (None, Some(d)) => {
                    let d = p.share(&format!("{pp}.discount"), *d);
                    if od_price.is_none() {
                        need(p, "a discount needs the on-demand price");
                    }
                    od * (1.0 - d)
                }
                (Some(_), Some(_)) => {
                    p.err(&pp, "give recurring_per_node_hour or discount, not both");
                    0.0
                }
                (None, None) => {
                    if upfront_per_node.is_none() {
                        p.err(
                            &pp,
                            "give recurring_per_node_hour, discount or upfront_per_node",
                        );
                    }
                    0.0
                }
            };
            PoolPricing::Reserved {
                reservation: Reservation {
                    nodes,
                    term_start_h: -started,
                    term_h: term_h.max(1e-9),
                    upfront_per_node: p.nonneg(
                        &format!("{pp}.upfront_per_node"),
                        upfront_per_node.unwrap_or(0.0),
                    ),
                    recurring_per_node_hour: recurring,
                },
                outside: od,
            }
        }
        Some(RawPricing::CapacityBlock { start, duration }) => {
            let pp = format!("{path}.pricing");
            let d = p.dur(&format!("{pp}.duration"), duration);
            if let Err(m) = CapacityBlock::check_duration(d) {
                p.err(format!("{pp}.duration"), m);
            }
            let s = start
                .as_deref()
                .map(|s| p.dur(&format!("{pp}.start"), s))
                .unwrap_or(SimTime::ZERO);
            PoolPricing::CapacityBlock(CapacityBlock {
                nodes,
                start: s,
                duration: d,
                usd_per_node_hour: od_price.unwrap_or_else(|| need(p, "block price")),
            })
        }
        Some(RawPricing::Spot {
            price,
            billing,
            first_hour_free,
            notice,
        }) => {
            let pp = format!("{path}.pricing");
            let sp = match price {
                None => SpotPrice::Constant(base_price.unwrap_or_else(|| need(p, "spot price"))),
                Some(RawSpotPrice::Constant { value }) => {
                    SpotPrice::Constant(p.nonneg(&format!("{pp}.price.value"), *value))
                }
                Some(RawSpotPrice::Trace {
                    path: f,
                    zone,
                    tick,
                }) => {
                    let tick = p.dur(&format!("{pp}.price.tick"), tick).max(SimTime(1));
                    match crate::pricing::read_spot_price_json(&base.join(f), zone, tick) {
                        Ok(sp) => sp,
                        Err(e) => {
                            p.err(format!("{pp}.price.path"), e.to_string());
                            SpotPrice::Constant(0.0)
                        }
                    }
                }
                Some(RawSpotPrice::MeanReverting {
                    mean,
                    theta_per_hour,
                    sigma_per_hour,
                    floor,
                }) => {
                    let spec = MeanRevertingSpec {
                        mean: p.nonneg(&format!("{pp}.price.mean"), *mean),
                        theta_per_hour: p
                            .share(&format!("{pp}.price.theta_per_hour"), *theta_per_hour),
                        sigma_per_hour: p
                            .nonneg(&format!("{pp}.price.sigma_per_hour"), *sigma_per_hour),
                        floor: p.nonneg(&format!("{pp}.price.floor"), floor.unwrap_or(0.0)),
                    };
                    process = Some(spec);
                    SpotPrice::Constant(spec.mean)
                }
            };
            PoolPricing::Spot {
                price: sp,
                billing: SpotBilling {
                    billing: p.billing(&format!("{pp}.billing"), billing),
                    first_hour_free: first_hour_free.unwrap_or(true),
                    notice: notice
                        .as_deref()
                        .map(|n| p.dur(&format!("{pp}.notice"), n))
                        .unwrap_or(SimTime::from_secs(120)),
                },
            }
        }
        Some(RawPricing::Owned(o)) => PoolPricing::Owned(owned(p, &format!("{path}.pricing"), o)),
    };
    let rate = match &pricing {
        PoolPricing::Owned(_) | PoolPricing::Reserved { .. } => {
            pricing.effective_rate(nodes, SimTime::from_hours_f64(HOURS_PER_YEAR), 0.0)
        }
        // A spot price path: its mean over the first 30 days (the rate policies compare).
        PoolPricing::Spot { price, .. } => price.mean_over(SimTime::from_hours_f64(720.0)),
        _ => base_price.unwrap_or(0.0),
    };
    PoolPrice {
        rate,
        pricing,
        process,
    }
}

impl super::Scenario {
    /// Each pool's pricing for a run with `seed`: seeded spot price processes are drawn
    /// from the stream `spot_price/<pool>`, hourly over the horizon (two years without one).
    pub fn pool_pricing(&self, seed: u64) -> Vec<PoolPricing> {
        let streams = crate::engine::RngStreams::new(seed);
        let hours = self
            .sim
            .horizon
            .map(|h| h.hours_f64().ceil() as usize + 1)
            .unwrap_or(2 * HOURS_PER_YEAR as usize);
        self.pricing
            .iter()
            .zip(&self.spot_processes)
            .zip(&self.sim.pools)
            .map(|((pricing, process), pool)| match (pricing, process) {
                (PoolPricing::Spot { billing, .. }, Some(m)) => {
                    let mut rng = streams.stream(&format!("spot_price/{}", pool.name));
                    PoolPricing::Spot {
                        price: SpotPrice::mean_reverting(
                            m.mean,
                            m.theta_per_hour,
                            m.sigma_per_hour,
                            m.floor,
                            hours,
                            &mut rng,
                        ),
                        billing: *billing,
                    }
                }
                _ => pricing.clone(),
            })
            .collect()
    }
}
