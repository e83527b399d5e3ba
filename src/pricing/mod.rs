//! Pricing: what capacity costs, and the ledger that attributes every dollar to a pool,
//! a tenant and a kind of cost.
//!
//! The foundation prices every pool at a flat rate per node-hour (for owned pools, an
//! amortized figure). The ledger splits each pool's cost into busy and idle GPU-time; the
//! busy part is attributed to tenants in proportion to the GPU-time their jobs held.

mod ledger;

pub use ledger::{CostKind, Ledger, LedgerKey};

use serde::{Deserialize, Serialize};

/// A pool's price.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FlatRate {
    /// US dollars per node-hour.
    pub usd_per_node_hour: f64,
}
