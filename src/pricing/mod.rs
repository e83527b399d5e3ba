//! Pricing: what capacity costs, and the ledger that attributes every dollar to a pool,
//! a tenant and a kind of cost.
//!
//! One file per pricing model: [`OnDemand`] (billing granularity and minimum over held
//! intervals), [`Reservation`] (prorated terms), [`SavingsPlan`], [`CapacityBlock`], spot
//! prices ([`SpotPrice`]) and availability ([`AvailabilityTrace`], [`PoissonHazard`],
//! [`Bathtub`], [`ZoneOnOff`]), [`OwnedHardware`] (annuity, power, facility, staff) and
//! data transfer ([`Egress`]). A pool picks one with [`PoolPricing`]; the price catalog
//! ([`lookup`]) supplies real prices by instance and region.

mod billing;
mod capacity_block;
mod catalog;
mod held;
mod ledger;
mod on_demand;
mod owned;
mod pool_pricing;
mod reserved;
mod savings_plan;
mod spot_interruption;
mod spot_price;
mod spot_trace;
mod tco;
mod transfer;

pub use billing::Billing;
pub use capacity_block::CapacityBlock;
pub use catalog::{catalog, lookup, CatalogEntry, CATALOG_CSV};
pub use held::HeldInterval;
pub use ledger::{CostKind, Ledger, LedgerKey};
pub use on_demand::OnDemand;
pub use owned::{annuity, OwnedHardware, OwnedHour, HOURS_PER_MONTH};
pub use pool_pricing::{Charge, PoolPricing};
pub use reserved::{Reservation, HOURS_PER_YEAR};
pub use savings_plan::SavingsPlan;
pub use spot_interruption::{AdvisorBucket, Bathtub, PoissonHazard, ZoneOnOff};
pub use spot_price::{read_spot_price_json, SpotBilling, SpotPrice};
pub use spot_trace::{
    parse_timestamp, read_availability_csv, read_gcp_probes, AvailabilityTrace, SpotTraceError,
};
pub use tco::{TcoCandidate, TcoRow, TcoSpec};
pub use transfer::{transfer_seconds, Egress, TransferSpec};

use serde::{Deserialize, Serialize};

/// A pool's flat price (the scenario's `price_per_node_hour`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FlatRate {
    /// US dollars per node-hour.
    pub usd_per_node_hour: f64,
}
