//! Pricing: what capacity costs, and the ledger that attributes every dollar to a pool,
//! a tenant and a kind of cost.
//!
//! Every way of paying for a pool implements one trait, [`PricingModel`]: given a neutral
//! [`UsageRecord`] (the intervals the pool held, its busy and provisioned GPU-time, node
//! time it was down, the GPU-time of each tenant and job) it returns a [`Bill`] of ledger lines ([`Charge`]: dollars by cost
//! kind, split into busy and idle shares by the GPU-time paid for), and it quotes the
//! [`PricingModel::comparison_rate`] that pool choice compares (the `cheapest` pool order,
//! throughput per dollar, budget caps), so a pool has one price. One model per file:
//! [`OnDemand`] (a flat rate is on-demand billed exactly), [`Reserved`] (a [`Reservation`]'s
//! terms, starting before or inside the run, renewed or not), [`CapacityBlock`], [`Spot`]
//! (a [`SpotPrice`] under [`SpotBilling`], over the spans each node was up) and
//! [`OwnedHardware`] (annuity, power, facility, staff). A commitment can bound a pool's
//! capacity in time ([`PricingModel::capacity_windows`]) and split its billing periods
//! ([`PricingModel::period_bounds`]); its lines carry their term and used share, which
//! `commitments.csv` reports. Two run-wide price lists act across pools: [`SavingsPlan`]
//! (settled hour by hour over the covered on-demand usage during its terms) and data
//! transfer ([`Egress`], [`TransferSpec`]), whose prices come
//! from the scenario or the catalog ([`egress`]). [`RunPricing`] bundles one run's prices;
//! `metrics` applies them and attributes the result, deciding no pricing rule itself.
//!
//! Spot availability models ([`AvailabilityTrace`], [`PoissonHazard`], [`Bathtub`],
//! [`ZoneOnOff`]) and the analytic buy-versus-rent tables ([`TcoSpec`], each candidate's
//! cash flow by year and component in [`TcoYear`]) live here too; the
//! price catalog ([`lookup`]) supplies real prices by instance and region.
//!
//! # Adding a pricing model
//!
//! One new file plus one registry line:
//! 1. `src/pricing/<model>.rs`: the model's struct; its table as written (a serde struct
//!    with `deny_unknown_fields`, the `[pools.pricing]` keys other than `kind`); `impl
//!    FromConfig` (validate the table against the pool's [`PriceContext`], recording
//!    problems under field paths such as `pricing.term`); and `impl PricingModel` (at least
//!    `kind_name`, `bill` and `comparison_rate`; the defaults of the others suit a model
//!    that does not bill by held time, is not rented at a list price, and draws nothing per
//!    run). As for any file, declare it below (`mod <model>;`) and re-export its struct and
//!    table.
//! 2. One line `Variant(Model),` in the `pricing_models!` list of `pool_pricing.rs`: it
//!    generates the [`PoolPricing`] variant, the `kind = "variant"` entry of
//!    [`PricingConfig`] and the dispatch. Scenario validation, the run path, pool choice,
//!    the ledger and `pools.csv` then take the model with no other change (document its
//!    keys in the README's pricing table).

mod billing;
mod capacity_block;
mod catalog;
mod config;
mod held;
mod ledger;
mod links;
mod model;
mod on_demand;
mod owned;
mod pool_pricing;
mod reserved;
mod run_pricing;
mod savings_plan;
mod spot;
mod spot_interruption;
mod spot_price;
mod spot_trace;
mod tco;
mod tco_years;
mod transfer;

pub use billing::{Billing, BillingConfig};
pub use capacity_block::{
    CapacityBlock, CapacityBlockConfig, CapacityBlockError, TERMINATION_LEAD, TERMINATION_WARNING,
};
pub use catalog::{
    catalog, egress, lookup, CatalogEntry, CatalogError, CATALOG_CSV, DEFAULT_EGRESS_CLOUD,
    EGRESS_CSV,
};
pub use config::{FromConfig, PriceContext, Problems, MAX_USD, MAX_USD_PER_HOUR};
pub use held::HeldInterval;
pub use ledger::{CostKind, Ledger, LedgerKey};
pub use links::LinkPrices;
pub use model::{Bill, CapacityWindow, Charge, PricingModel, UsageRecord, PERIODS_UNTIL};
pub use on_demand::{OnDemand, OnDemandConfig};
pub use owned::{annuity, OwnedConfig, OwnedHardware, OwnedHour, HOURS_PER_MONTH};
pub use pool_pricing::{PoolPricing, PricingConfig};
pub use reserved::{OutsideTerm, Payment, Reservation, Reserved, ReservedConfig, HOURS_PER_YEAR};
pub use run_pricing::RunPricing;
pub use savings_plan::{PlanSettlement, PlanTerm, SavingsPlan};
pub use spot::{MeanRevertingSpec, Spot, SpotConfig, SpotPriceConfig};
pub use spot_interruption::{AdvisorBucket, Bathtub, PoissonHazard, ZoneOnOff};
pub use spot_price::{read_spot_price_json, SpotBilling, SpotPrice};
pub use spot_trace::{read_availability_csv, read_gcp_probes, AvailabilityTrace, SpotTraceError};
pub use tco::{TcoCandidate, TcoRow, TcoSpec, MAX_TCO_CANDIDATES};
pub use tco_years::TcoYear;
pub use transfer::{transfer_seconds, Egress, MoveScope, TransferSpec};
