//! Validation of a pool's prices: `[pools.pricing]` and catalog look-ups (`instance`,
//! `region`), each model's table built by the model itself (`src/pricing/`); the data
//! transfer prices; and each run's draw of seeded spot prices.

use super::problems::Problems;
use super::raw::RawPool;
use super::raw_pricing::RawOwned;
use crate::engine::RngStreams;
use crate::pricing::{
    lookup, Egress, OwnedHardware, PoolPricing, PriceContext, PricingModel,
    Problems as PriceProblems, RunPricing, DEFAULT_EGRESS_CLOUD, HOURS_PER_YEAR,
};
use std::path::Path;

pub use crate::pricing::MeanRevertingSpec;

/// A pool's validated pricing.
pub(super) struct PoolPrice {
    /// The pool's price per node-hour as pool choice compares it (the model's
    /// [`PricingModel::comparison_rate`]).
    pub rate: f64,
    /// The pricing model.
    pub pricing: PoolPricing,
}

/// The scenario's collector seen by a pricing model: fields under `prefix` (`pools[2]`).
struct Scoped<'a> {
    p: &'a mut Problems,
    prefix: String,
}

impl PriceProblems for Scoped<'_> {
    fn err(&mut self, field: &str, message: String) {
        if self.prefix.is_empty() {
            self.p.err(field, message);
        } else {
            self.p.err(format!("{}.{field}", self.prefix), message);
        }
    }
}

/// Validates owned-hardware figures under `path`.
pub(super) fn owned(p: &mut Problems, path: &str, o: &RawOwned) -> OwnedHardware {
    OwnedHardware::from_fields(
        path,
        o,
        &mut Scoped {
            p,
            prefix: String::new(),
        },
    )
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
    let mut catalog_od = None;
    let mut catalog_spot = None;
    match (&rp.instance, &rp.region) {
        (Some(inst), Some(region)) => match lookup(inst, region) {
            Ok(e) => {
                catalog_od = e.on_demand;
                catalog_spot = e.spot;
            }
            Err(e) => p.err(format!("{path}.instance"), e.to_string()),
        },
        (Some(_), None) => p.err(format!("{path}.region"), "an instance needs a region"),
        // A region alone is the pool's place (datasets, checkpoint moves), owned or not.
        (None, _) => {}
    }
    let explicit = rp
        .price_per_node_hour
        .map(|x| p.usd_per_hour(&format!("{path}.price_per_node_hour"), x));
    let ctx = PriceContext {
        nodes,
        kind: rp.kind,
        on_demand: explicit.or(catalog_od),
        spot: explicit.or(catalog_spot),
        base,
    };
    let mut scoped = Scoped { p, prefix: path };
    let pricing = match &rp.pricing {
        None => PoolPricing::default_for(&ctx, &mut scoped),
        Some(c) => c.build(&ctx, &mut scoped),
    };
    if rp.autoscale.is_some() && !pricing.capacity_windows().is_empty() {
        scoped.err(
            "autoscale",
            format!(
                "a {} pricing bounds the pool's capacity to its window; such a pool cannot autoscale",
                pricing.kind_name()
            ),
        );
    }
    PoolPrice {
        rate: pricing.comparison_rate(nodes),
        pricing,
    }
}

/// The catalog's data transfer prices for `cloud` (the default cloud's if `None`); a
/// cloud the catalog lacks is a problem under `field`.
pub(super) fn catalog_egress(p: &mut Problems, field: &str, cloud: Option<&str>) -> Egress {
    match crate::pricing::egress(cloud.unwrap_or(DEFAULT_EGRESS_CLOUD)) {
        Ok(e) => e,
        Err(e) => {
            p.err(field, e.to_string());
            Egress {
                free_gb: 0.0,
                tiers: Vec::new(),
                cross_zone_per_gb: 0.0,
            }
        }
    }
}

/// The prices of data moved with checkpoints: `[transfer]`'s if the scenario has one,
/// else the catalog's for the default cloud.
pub(super) fn moves_egress(
    transfer: Option<&crate::pricing::TransferSpec>,
    p: &mut Problems,
) -> Egress {
    match transfer {
        Some(t) => t.egress.clone(),
        None => catalog_egress(p, "transfer.cloud", None),
    }
}

impl super::Scenario {
    /// Each pool's pricing for a run with `seed` (see [`super::Scenario::run_pricing`]).
    pub fn pool_pricing(&self, seed: u64) -> Vec<PoolPricing> {
        self.pool_pricing_from(&RngStreams::new(seed))
    }

    /// Each pool's pricing for a run drawing from `streams`: a seeded spot price process
    /// is drawn from the stream `spot_price/<pool>`, hourly over the horizon (two years
    /// without one).
    pub fn pool_pricing_from(&self, streams: &RngStreams) -> Vec<PoolPricing> {
        let hours = self
            .sim
            .horizon
            .map(|h| h.hours_f64().ceil() as usize + 1)
            .unwrap_or(2 * HOURS_PER_YEAR as usize);
        self.pricing
            .iter()
            .zip(&self.sim.pools)
            .map(|(pricing, pool)| pricing.for_run(streams, &pool.name, hours))
            .collect()
    }

    /// Everything that prices a run drawing from `streams`: the pools' models, the savings
    /// plan, the prices of data moved and `[transfer]`.
    pub fn run_pricing(&self, streams: &RngStreams) -> RunPricing {
        RunPricing {
            pools: self.pool_pricing_from(streams),
            savings_plan: self.savings_plan,
            moves: self.egress.clone(),
            transfer: self.transfer.clone(),
        }
    }
}
