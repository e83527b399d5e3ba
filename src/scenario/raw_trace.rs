//! Raw scenario structs of the `trace` and `model` workload kinds (see `workload_kinds`
//! for their validation).

use super::raw::{RawDuration, RawSize};
use crate::workload::{JobStatus, ScaleBase, TraceFormat};
use indexmap::IndexMap;
use serde::Deserialize;

/// `[workload] kind = "trace"`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTrace {
    pub path: String,
    pub format: TraceFormat,
    #[serde(default)]
    pub skip_bad_rows: bool,
    #[serde(default)]
    pub procs_per_gpu: Option<i64>,
    #[serde(default)]
    pub pai_job_table: Option<String>,
    #[serde(default)]
    pub start: Option<String>,
    #[serde(default)]
    pub end: Option<String>,
    #[serde(default)]
    pub statuses: Vec<JobStatus>,
    #[serde(default)]
    pub min_gpus: Option<f64>,
    #[serde(default)]
    pub max_gpus: Option<f64>,
    #[serde(default)]
    pub gpu_type_map: IndexMap<String, String>,
    #[serde(default)]
    pub time_compression: Option<f64>,
    #[serde(default)]
    pub load_scale: Option<f64>,
    #[serde(default)]
    pub load_scale_of: Option<ScaleBase>,
    /// The GPU type the trace's run times were measured on.
    #[serde(default)]
    pub measured_on: Option<String>,
    /// `"trace"`, `"exact"` or `{ kind = "badness", f = 3 }`.
    #[serde(default)]
    pub estimates: Option<toml::Value>,
}

/// `[workload] kind = "model"`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawModel {
    #[serde(default)]
    pub jobs: Option<i64>,
    #[serde(default)]
    pub until: Option<String>,
    pub arrivals: RawArrivals,
    pub tenants: Vec<RawTenantMix>,
    #[serde(default)]
    pub rate_multiplier: Option<f64>,
    #[serde(default)]
    pub duration_multiplier: Option<f64>,
    #[serde(default)]
    pub growth_per_month: Option<f64>,
    #[serde(default)]
    pub cpu_cores_per_gpu: Option<f64>,
    #[serde(default)]
    pub memory_gib_per_gpu: Option<f64>,
    #[serde(default)]
    pub measured_on: Option<String>,
}

/// An arrival process.
#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RawArrivals {
    Poisson {
        rate_per_hour: f64,
    },
    Profile {
        rate_per_hour: f64,
        #[serde(default)]
        hourly: Option<Vec<f64>>,
        #[serde(default)]
        weekly: Option<Vec<f64>>,
    },
    Mmpp {
        rates_per_hour: Vec<f64>,
        mean_dwell: Vec<String>,
    },
}

/// A tenant with its own mix.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTenantMix {
    pub name: String,
    pub weight: f64,
    pub sizes: Vec<RawSize>,
    pub duration: RawDuration,
    #[serde(default)]
    pub preemptible_share: Option<f64>,
}
