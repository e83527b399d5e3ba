//! The scenario file's pricing sections as written: `[pools.pricing]` (tagged by `kind`,
//! each model's table defined beside the model), `[tco]`, `[spot_deadline]`,
//! `[savings_plan]` and `[transfer]`.

use serde::Deserialize;

/// `[pools.pricing]`: how a pool is paid for, tagged by `kind`; each model's table is
/// defined beside the model in `src/pricing/` (see [`crate::pricing::PricingConfig`]).
pub use crate::pricing::PricingConfig as RawPricing;

/// Owned hardware figures (`[pools.pricing] kind = "owned"`, `[tco.owned]`).
pub use crate::pricing::OwnedConfig as RawOwned;

/// `[tco]`: buy-versus-rent candidates for `gpufleet tco`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTco {
    pub horizon_years: f64,
    #[serde(default)]
    pub discount_rate: Option<f64>,
    #[serde(default)]
    pub price_decline_per_year: Option<f64>,
    /// Utilization profile for the analytic path: `[{ gpus, share }]`.
    #[serde(default)]
    pub demand: Vec<RawDemand>,
    pub on_demand_per_node_hour: Option<f64>,
    #[serde(default)]
    pub instance: Option<String>,
    #[serde(default)]
    pub region: Option<String>,
    pub gpus_per_node: i64,
    pub owned: RawOwned,
    #[serde(default)]
    pub spot_discount: Option<f64>,
    #[serde(default)]
    pub spot_availability: Option<f64>,
    #[serde(default)]
    pub spot_trace: Option<String>,
    #[serde(default)]
    pub reserved_discount_1y: Option<f64>,
    #[serde(default)]
    pub reserved_discount_3y: Option<f64>,
    pub candidates: Vec<RawCandidate>,
}

/// One point of the demand profile: `gpus` busy for a `share` of the hours.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDemand {
    pub gpus: f64,
    pub share: f64,
}

/// A candidate fleet.
#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RawCandidate {
    Buy { nodes: i64 },
    OnDemand { nodes: i64 },
    Reserve1y { nodes: i64 },
    Reserve3y { nodes: i64 },
    Hybrid { owned_nodes: i64, burst_nodes: i64 },
    Spot { nodes: i64, spot_share: f64 },
}

/// `[spot_deadline]`: a deadline job run on spot with the Can't Be Late policies.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpotDeadline {
    pub trace: String,
    /// For a GCP probe CSV: the zone to read.
    #[serde(default)]
    pub trace_zone: Option<String>,
    pub work: String,
    pub deadline: String,
    #[serde(default)]
    pub changeover: Option<String>,
    pub on_demand_per_hour: f64,
    #[serde(default)]
    pub spot_per_hour: Option<f64>,
    #[serde(default)]
    pub prices: Option<String>,
    #[serde(default)]
    pub prices_zone: Option<String>,
    #[serde(default)]
    pub starts: Option<i64>,
    #[serde(default)]
    pub first_hour_free: Option<bool>,
}

/// `[savings_plan]`: a $/h commitment at a discount over the on-demand pools.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSavingsPlan {
    pub commitment_per_hour: f64,
    pub discount: f64,
    /// When the term begins, from the start of the run (default 0).
    #[serde(default)]
    pub start: Option<String>,
    /// Length of the term ("365d", "3y"; default: the rest of the run).
    #[serde(default)]
    pub term: Option<String>,
    /// A new term begins when one ends (default false).
    #[serde(default)]
    pub renew: Option<bool>,
}

/// `[transfer]`: data each completed job moves, and its prices.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTransfer {
    /// The cloud whose catalog prices apply (`data/prices/egress.csv`; default "aws").
    #[serde(default)]
    pub cloud: Option<String>,
    #[serde(default)]
    pub egress_gb_per_job: Option<f64>,
    #[serde(default)]
    pub cross_zone_gb_per_job: Option<f64>,
    #[serde(default)]
    pub free_gb_per_month: Option<f64>,
    #[serde(default)]
    pub tiers: Option<Vec<RawTier>>,
    #[serde(default)]
    pub cross_zone_per_gb: Option<f64>,
}

/// One egress tier: the price up to a cumulative monthly volume (omit `up_to_gb` for the
/// last, open-ended tier).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTier {
    #[serde(default)]
    pub up_to_gb: Option<f64>,
    pub usd_per_gb: f64,
}
