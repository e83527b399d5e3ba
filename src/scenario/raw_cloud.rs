//! The cloud sections as written: `[[datasets]]`, `[data]`, `[interconnect]`,
//! `[throughput]` and a pool's `fabric` table (validated in `cloud.rs`).

use serde::Deserialize;
use std::collections::BTreeMap;

/// `[[datasets]]`: a dataset jobs read.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDataset {
    pub name: String,
    /// "2TB", "500 GB", "1.5 TiB".
    #[serde(default)]
    pub size: Option<String>,
    #[serde(default)]
    pub size_gb: Option<f64>,
    #[serde(default)]
    pub cloud: Option<String>,
    pub region: String,
    #[serde(default)]
    pub zone: Option<String>,
    #[serde(default)]
    pub storage: Option<crate::model::datasets::StorageKind>,
    #[serde(default)]
    pub read_gbps: Option<f64>,
    /// Share of every tenant's jobs (without a dataset of their own) that read it.
    #[serde(default)]
    pub share: Option<f64>,
    /// Share per tenant name (overrides `share` for that tenant).
    #[serde(default)]
    pub tenant_shares: BTreeMap<String, f64>,
}

/// `[data]`: link bandwidths, how long copies stay, the locality wait.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawData {
    #[serde(default)]
    pub same_zone_gbps: Option<f64>,
    #[serde(default)]
    pub cross_zone_gbps: Option<f64>,
    #[serde(default)]
    pub cross_region_gbps: Option<f64>,
    #[serde(default)]
    pub internet_gbps: Option<f64>,
    /// How long a staged copy stays after it was staged or last read ("24h").
    #[serde(default)]
    pub keep_for: Option<String>,
    /// "none", "auto" or a duration.
    #[serde(default)]
    pub locality_wait: Option<String>,
}

/// `[pools.fabric]`: a pool's interconnect.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFabric {
    pub intra: crate::model::fabric::IntraNode,
    pub intra_gbps: f64,
    pub inter: crate::model::fabric::InterNode,
    pub inter_gbps: f64,
    #[serde(default)]
    pub nodes_per_rack: Option<i64>,
    #[serde(default)]
    pub oversubscription: Option<f64>,
}

/// `[interconnect]`: communication shares and the reference bandwidth.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawInterconnect {
    #[serde(default)]
    pub reference_gbps: Option<f64>,
    /// Communication share of jobs that give none and whose class has none.
    #[serde(default)]
    pub comm_share: Option<f64>,
    /// Communication share per class.
    #[serde(default)]
    pub class_comm_share: BTreeMap<String, f64>,
}

/// `[throughput]`: a class x GPU type table, inline or from a CSV file, and a class mix.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawThroughput {
    /// The GPU type speeds are relative to.
    pub reference: String,
    /// CSV `class,<type>,<type>...` of throughputs, relative to the scenario file.
    #[serde(default)]
    pub file: Option<String>,
    /// Inline rows: class -> { type = throughput }.
    #[serde(default)]
    pub classes: BTreeMap<String, BTreeMap<String, f64>>,
    /// Classes drawn for jobs without one, by weight.
    #[serde(default)]
    pub mix: BTreeMap<String, f64>,
}
