//! Building a pricing model from its `[pools.pricing]` table: what the table resolves
//! against (the pool's size and list prices) and where its problems go (the scenario's
//! collector, under field paths relative to the pool).

use crate::engine::{parse_duration, SimTime};
use crate::model::CapacityKind;
use std::path::Path;

/// The largest hourly price a scenario may give: ten million dollars an hour (a whole
/// 8-GPU node rents for tens; bills of `1e308` an hour overflow to infinity).
pub const MAX_USD_PER_HOUR: f64 = 1e7;
/// The largest dollar amount a scenario may give (a node's price, a year's staff): a
/// trillion dollars, past any fleet.
pub const MAX_USD: f64 = 1e12;

/// Where problems in a pool's pricing go. Field paths are relative to the pool
/// (`pricing.billing`, `price_per_node_hour`); the scenario's collector adds the pool's
/// path and keeps collecting, so one pass reports every problem.
pub trait Problems {
    /// Records that `field` is wrong.
    fn err(&mut self, field: &str, message: String);

    /// `text` as a duration, or zero after recording why not.
    fn duration(&mut self, field: &str, text: &str) -> SimTime {
        match parse_duration(text) {
            Ok(t) => t,
            Err(e) => {
                self.err(field, e.to_string());
                SimTime::ZERO
            }
        }
    }

    /// `x` if it is finite and not negative, else zero after recording why.
    fn nonneg(&mut self, field: &str, x: f64) -> f64 {
        if !(x.is_finite() && x >= 0.0) {
            self.err(
                field,
                format!(
                    "must be zero or more, got {}",
                    crate::engine::short_number(x)
                ),
            );
            return 0.0;
        }
        x
    }

    /// `x`, dollars an hour, if it lies in `0..=`[`MAX_USD_PER_HOUR`], else zero after
    /// recording why.
    fn usd_per_hour(&mut self, field: &str, x: f64) -> f64 {
        self.within(field, x, MAX_USD_PER_HOUR, "dollars an hour")
    }

    /// `x`, dollars, if it lies in `0..=`[`MAX_USD`], else zero after recording why.
    fn usd(&mut self, field: &str, x: f64) -> f64 {
        self.within(field, x, MAX_USD, "dollars")
    }

    /// `x` if it lies in `0..=max` (in `unit`), else zero after recording why.
    fn within(&mut self, field: &str, x: f64, max: f64, unit: &str) -> f64 {
        if !(x.is_finite() && (0.0..=max).contains(&x)) {
            self.err(
                field,
                format!(
                    "must be between 0 and {} {unit}, got {}",
                    crate::engine::short_number(max),
                    crate::engine::short_number(x)
                ),
            );
            return 0.0;
        }
        x
    }

    /// `x` if it lies in `0..=1`, else zero after recording why.
    fn share(&mut self, field: &str, x: f64) -> f64 {
        if !(0.0..=1.0).contains(&x) {
            self.err(
                field,
                format!(
                    "must be between 0 and 1, got {}",
                    crate::engine::short_number(x)
                ),
            );
            return 0.0;
        }
        x
    }
}

/// What a pool's pricing table is resolved against.
#[derive(Debug, Clone, Copy)]
pub struct PriceContext<'a> {
    /// Nodes of the pool.
    pub nodes: u32,
    /// Its capacity kind.
    pub kind: CapacityKind,
    /// Its on-demand price per node-hour: `price_per_node_hour` as written, else the
    /// catalog's for its instance and region.
    pub on_demand: Option<f64>,
    /// Its spot price per node-hour: `price_per_node_hour` as written, else the catalog's.
    pub spot: Option<f64>,
    /// Folder that relative data paths (spot price traces) resolve against.
    pub base: &'a Path,
}

impl PriceContext<'_> {
    /// Records that the model needs a price the pool does not give (`what` says which),
    /// and returns zero.
    pub fn need(&self, problems: &mut dyn Problems, what: &str) -> f64 {
        problems.err(
            "price_per_node_hour",
            format!(
                "give price_per_node_hour, or instance and region from the price catalog ({what})"
            ),
        );
        0.0
    }

    /// The pool's list price: spot for spot capacity, on-demand otherwise.
    pub fn list(&self) -> Option<f64> {
        if self.kind == CapacityKind::Spot {
            self.spot
        } else {
            self.on_demand
        }
    }
}

/// A pricing model built from its table in the scenario file.
pub trait FromConfig: Sized {
    /// The table as written (`[pools.pricing]` less its `kind`).
    type Config;

    /// The model, after recording every problem of `config` in `problems` (a model with
    /// problems is still returned, with neutral values, so validation can go on).
    fn from_config(config: &Self::Config, ctx: &PriceContext, problems: &mut dyn Problems) -> Self;
}
