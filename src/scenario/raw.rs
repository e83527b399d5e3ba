//! The scenario file as written: serde structs that refuse unknown fields. Values keep
//! their written form (durations as strings); `validate` turns them into typed config.

use serde::Deserialize;

/// Top level of a scenario file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub horizon: Option<String>,
    #[serde(default)]
    pub timeline_interval: Option<String>,
    #[serde(default)]
    pub gpu_types: Vec<RawGpuType>,
    pub pools: Vec<RawPool>,
    #[serde(default)]
    pub scheduler: RawScheduler,
    pub workload: RawWorkload,
    /// `failures = "llama3-h100"` or a `[failures]` table (validated in `faults.rs`).
    #[serde(default)]
    pub failures: Option<toml::Value>,
    #[serde(default)]
    pub checkpoint: Option<RawCheckpoint>,
    #[serde(default)]
    pub maintenance: Vec<RawMaintenance>,
    /// `[[spot_interruptions]]` tables (validated in `faults.rs`).
    #[serde(default)]
    pub spot_interruptions: Vec<toml::Table>,
    #[serde(default)]
    pub tco: Option<super::raw_pricing::RawTco>,
    #[serde(default)]
    pub spot_deadline: Option<super::raw_pricing::RawSpotDeadline>,
    #[serde(default)]
    pub savings_plan: Option<super::raw_pricing::RawSavingsPlan>,
    #[serde(default)]
    pub transfer: Option<super::raw_pricing::RawTransfer>,
    /// The most jobs a run may hold (default 10,000,000).
    #[serde(default)]
    pub max_jobs: Option<i64>,
    /// What to do with jobs no pool can ever hold: `"error"` (default) or `"reject"`.
    #[serde(default)]
    pub oversized: Option<RawOversized>,
    #[serde(default)]
    pub datasets: Vec<super::raw_cloud::RawDataset>,
    #[serde(default)]
    pub data: Option<super::raw_cloud::RawData>,
    #[serde(default)]
    pub interconnect: Option<super::raw_cloud::RawInterconnect>,
    #[serde(default)]
    pub throughput: Option<super::raw_cloud::RawThroughput>,
    /// `[metrics]`: parameters of the research metrics.
    #[serde(default)]
    pub metrics: Option<RawMetrics>,
    /// `output_format = "csv" | "parquet" | "both"`: the run folder's table files.
    #[serde(default)]
    pub output_format: Option<crate::report::OutputFormat>,
}

/// `oversized = "error" | "reject"`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RawOversized {
    Error,
    Reject,
}

/// `[metrics]`.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RawMetrics {
    /// The bound of bounded slowdown ("10s").
    #[serde(default)]
    pub slowdown_bound: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCheckpoint {
    /// A duration ("30m"), or "young", "daly", "none".
    #[serde(default)]
    pub interval: Option<String>,
    #[serde(default)]
    pub write_time: Option<String>,
    #[serde(default)]
    pub restart_overhead: Option<String>,
    #[serde(default)]
    pub max_retries: Option<i64>,
    #[serde(default)]
    pub size_gb: Option<f64>,
    /// Bandwidth for moving checkpoints between zones or regions, Gbit/s.
    #[serde(default)]
    pub transfer_gbps: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMaintenance {
    pub pool: String,
    pub nodes: i64,
    pub start: String,
    pub duration: String,
    #[serde(default)]
    pub notice: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawGpuType {
    pub name: String,
    #[serde(default)]
    pub memory_gb: Option<f64>,
    #[serde(default)]
    pub speed: Option<f64>,
    #[serde(default)]
    pub power_w: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPool {
    pub name: String,
    pub gpu_type: String,
    pub kind: crate::model::CapacityKind,
    pub nodes: i64,
    pub gpus_per_node: i64,
    #[serde(default)]
    pub cpu_cores_per_node: Option<f64>,
    #[serde(default)]
    pub memory_gib_per_node: Option<f64>,
    #[serde(default)]
    pub price_per_node_hour: Option<f64>,
    #[serde(default)]
    pub instance: Option<String>,
    #[serde(default)]
    pub region: Option<String>,
    /// Availability zone (for checkpoint moves between pools; see `[checkpoint]`).
    #[serde(default)]
    pub zone: Option<String>,
    #[serde(default)]
    pub pricing: Option<super::raw_pricing::RawPricing>,
    /// One pool of `nodes x gpus_per_node` fungible GPUs, no node boundaries.
    #[serde(default)]
    pub fungible: bool,
    /// Elastic pool: `nodes` is its maximum.
    #[serde(default)]
    pub autoscale: Option<RawAutoscale>,
    /// Provider of the pool's place (default: the instance's cloud, else the default).
    #[serde(default)]
    pub cloud: Option<String>,
    /// The pool's interconnect.
    #[serde(default)]
    pub fabric: Option<super::raw_cloud::RawFabric>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAutoscale {
    #[serde(default)]
    pub min_nodes: Option<i64>,
    #[serde(default)]
    pub provisioning_delay: Option<String>,
    #[serde(default)]
    pub idle_timeout: Option<String>,
    #[serde(default)]
    pub billing_increment: Option<String>,
    #[serde(default)]
    pub billing_minimum: Option<String>,
    #[serde(default)]
    pub scale_up_after: Option<String>,
    #[serde(default)]
    pub availability: Vec<RawStock>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStock {
    pub at: String,
    pub nodes: i64,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RawScheduler {
    #[serde(default)]
    pub policy: Option<crate::sched::PolicyKind>,
    #[serde(default)]
    pub placement: Option<crate::sched::placement::PlacementKind>,
    #[serde(default)]
    pub pool_order: Option<crate::sched::PoolOrder>,
    #[serde(default)]
    pub tenant_weights: std::collections::BTreeMap<String, f64>,
    #[serde(default)]
    pub budget: Option<RawBudget>,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RawBudget {
    #[serde(default)]
    pub total_usd: Option<f64>,
    #[serde(default)]
    pub per_tenant_usd: std::collections::BTreeMap<String, f64>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RawWorkload {
    /// Generated: Poisson arrivals, a size mix, a duration distribution.
    Synthetic(RawSynthetic),
    Csv {
        path: String,
        #[serde(default)]
        skip_bad_rows: bool,
        #[serde(default)]
        measured_on: Option<String>,
    },
    /// A trace in any supported format, filtered and shaped at load time.
    Trace(super::raw_trace::RawTrace),
    /// A generative model (what `gpufleet trace fit` writes).
    Model(super::raw_trace::RawModel),
    PaiSim {
        path: String,
        #[serde(default)]
        skip_bad_rows: bool,
        #[serde(default)]
        arrivals_per_minute: Option<f64>,
        #[serde(default)]
        estimate: Option<RawPaiEstimate>,
        #[serde(default)]
        use_gpu_type: bool,
    },
}

/// `[workload] kind = "synthetic"`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSynthetic {
    pub rate_per_hour: f64,
    #[serde(default)]
    pub jobs: Option<i64>,
    #[serde(default)]
    pub until: Option<String>,
    pub sizes: Vec<RawSize>,
    pub duration: RawDuration,
    #[serde(default)]
    pub tenants: Vec<RawTenant>,
    #[serde(default)]
    pub preemptible_share: Option<f64>,
    #[serde(default)]
    pub cpu_cores_per_gpu: Option<f64>,
    #[serde(default)]
    pub memory_gib_per_gpu: Option<f64>,
    #[serde(default)]
    pub measured_on: Option<String>,
}

#[derive(Debug, Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
pub enum RawPaiEstimate {
    None,
    UserDur,
    GroupDur,
    GroupGpuDur,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSize {
    pub gpus: f64,
    pub weight: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTenant {
    pub name: String,
    pub weight: f64,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RawDuration {
    Lognormal {
        median: String,
        sigma: f64,
    },
    Exponential {
        mean: String,
    },
    Fixed {
        value: String,
    },
    Weibull {
        scale: String,
        shape: f64,
    },
    Empirical {
        path: String,
        #[serde(default)]
        column: Option<String>,
    },
}
