//! The registry of pricing models: [`PoolPricing`] (a pool's model, one variant per model)
//! and [`PricingConfig`] (`[pools.pricing]` as written, tagged by `kind`), both generated
//! from one list, so that adding a model is one file and one line here.

use super::{
    Bill, Billing, CapacityBlock, CapacityWindow, FromConfig, OnDemand, OwnedHardware,
    PriceContext, PricingModel, Problems, Reserved, Spot, UsageRecord,
};
use crate::engine::{RngStreams, SimTime};

/// Generates [`PoolPricing`], [`PricingConfig`] and the dispatch of [`PricingModel`] from
/// `Variant(Model)` lines; `kind = "variant"` (snake case) selects the model in a scenario.
macro_rules! pricing_models {
    ($($(#[$doc:meta])* $variant:ident($model:ty),)*) => {
        /// How one pool is paid for.
        #[derive(Debug, Clone, PartialEq)]
        pub enum PoolPricing {
            $($(#[$doc])* $variant($model),)*
        }

        /// `[pools.pricing]` as written: `kind` names the model, the other keys are its
        /// table.
        #[derive(Debug, Clone, PartialEq, serde::Deserialize)]
        #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
        pub enum PricingConfig {
            $($(#[$doc])* $variant(<$model as FromConfig>::Config),)*
        }

        impl PricingConfig {
            /// The model this table describes, its problems recorded in `problems`.
            pub fn build(&self, ctx: &PriceContext, problems: &mut dyn Problems) -> PoolPricing {
                match self {
                    $(PricingConfig::$variant(c) => {
                        PoolPricing::$variant(<$model>::from_config(c, ctx, problems))
                    })*
                }
            }
        }

        $(impl From<$model> for PoolPricing {
            fn from(m: $model) -> PoolPricing {
                PoolPricing::$variant(m)
            }
        })*

        impl PricingModel for PoolPricing {
            fn kind_name(&self) -> &'static str {
                match self { $(PoolPricing::$variant(m) => m.kind_name(),)* }
            }
            fn bill(&self, usage: &UsageRecord) -> Bill {
                match self { $(PoolPricing::$variant(m) => m.bill(usage),)* }
            }
            fn comparison_rate(&self, nodes: u32) -> f64 {
                match self { $(PoolPricing::$variant(m) => m.comparison_rate(nodes),)* }
            }
            fn interval_billing(&self) -> Option<Billing> {
                match self { $(PoolPricing::$variant(m) => m.interval_billing(),)* }
            }
            fn list_rate(&self) -> Option<f64> {
                match self { $(PoolPricing::$variant(m) => m.list_rate(),)* }
            }
            fn market_priced(&self) -> bool {
                match self { $(PoolPricing::$variant(m) => m.market_priced(),)* }
            }
            fn capacity_windows(&self) -> Vec<CapacityWindow> {
                match self { $(PoolPricing::$variant(m) => m.capacity_windows(),)* }
            }
            fn period_bounds(&self, until: SimTime) -> Vec<SimTime> {
                match self { $(PoolPricing::$variant(m) => m.period_bounds(until),)* }
            }
            fn for_run(&self, streams: &RngStreams, pool: &str, hours: usize) -> PoolPricing {
                match self {
                    $(PoolPricing::$variant(m) => {
                        PoolPricing::$variant(m.for_run(streams, pool, hours))
                    })*
                }
            }
        }
    };
}

pricing_models! {
    /// Rented per node-hour under a billing rule (a flat rate is on-demand billed exactly).
    OnDemand(OnDemand),
    /// Committed for a term; hours of the run outside it are rented on demand.
    Reserved(Reserved),
    /// A capacity block paid upfront.
    CapacityBlock(CapacityBlock),
    /// Spot capacity at a price path.
    Spot(Spot),
    /// Bought hardware.
    Owned(OwnedHardware),
}

impl PoolPricing {
    /// A flat rate per node-hour, billed exactly (the scenario's `price_per_node_hour`).
    pub fn flat(usd_per_node_hour: f64) -> PoolPricing {
        PoolPricing::OnDemand(OnDemand::flat(usd_per_node_hour))
    }

    /// The model of a pool with no pricing table: a flat rate at its list price (the spot
    /// price for spot capacity), billed exactly.
    pub fn default_for(ctx: &PriceContext, problems: &mut dyn Problems) -> PoolPricing {
        PoolPricing::flat(
            ctx.list()
                .unwrap_or_else(|| ctx.need(problems, "flat rate")),
        )
    }
}
