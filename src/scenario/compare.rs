//! Scenario files for a time-based comparison of placement policies on an openb trace
//! and its real cluster: a top-level `[placement_comparison]` table.
//!
//! ```toml
//! name = "compare-schedulers-openb"
//! [placement_comparison]
//! nodes = "../data/openb-2023/openb_node_list_all_node.csv"
//! pods = "../data/openb-2023/openb_pod_list_default.csv"
//! queue_policy = "easy_backfill"
//! placements = ["best_fit", "worst_fit", "first_fit", "gpu_packing", "dot_product", "fgd"]
//! usd_per_gpu_hour = 1.0        # GPU nodes cost gpus x this per hour
//! usd_per_cpu_node_hour = 0.5   # CPU-only nodes
//! arrival_compression = 100     # submit times / 100, durations kept (default 1)
//! cluster_fraction = 0.25       # keep a quarter of each node group (default 1)
//! ```
//!
//! `placements` takes any [`PlacementKind`] name, as `[scheduler] placement` does.

use super::{locate, text_hash, Problem, ScenarioError};
use crate::sched::placement::PlacementKind;
use crate::sched::PolicyKind;
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCompareScenario {
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    max_jobs: Option<i64>,
    placement_comparison: RawCompare,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCompare {
    nodes: String,
    pods: String,
    #[serde(default)]
    queue_policy: Option<PolicyKind>,
    placements: Vec<PlacementKind>,
    usd_per_gpu_hour: f64,
    usd_per_cpu_node_hour: f64,
    #[serde(default)]
    skip_bad_rows: Option<bool>,
    #[serde(default)]
    arrival_compression: Option<f64>,
    #[serde(default)]
    cluster_fraction: Option<f64>,
}

/// A validated placement comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareScenario {
    /// Scenario name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Hash of the text.
    pub hash: String,
    /// openb node list.
    pub nodes: PathBuf,
    /// openb pod list (with time columns).
    pub pods: PathBuf,
    /// Queue policy for every run.
    pub queue_policy: PolicyKind,
    /// Placements compared.
    pub placements: Vec<PlacementKind>,
    /// Price of a GPU node per GPU-hour.
    pub usd_per_gpu_hour: f64,
    /// Price of a CPU-only node per hour.
    pub usd_per_cpu_node_hour: f64,
    /// Skip bad trace rows (counted).
    pub skip_bad_rows: bool,
    /// Submit times are divided by this (durations kept): the trace lists 8,152 pods over
    /// 149 days, a load of well under 1 % of its cluster; compressing arrivals makes them
    /// compete.
    pub arrival_compression: f64,
    /// Share of each group of identical nodes kept (rounded up): a smaller cluster under
    /// the same trace.
    pub cluster_fraction: f64,
    /// The most pods read from the pod list (top-level `max_jobs`, as in a run scenario;
    /// default [`crate::scenario::DEFAULT_MAX_JOBS`]): past it the read stops with an error.
    pub max_jobs: u64,
}

/// True when the TOML text is a placement comparison (has `[placement_comparison]`).
pub fn is_compare_scenario(text: &str) -> bool {
    text.parse::<toml::Table>()
        .map(|t| t.contains_key("placement_comparison"))
        .unwrap_or(false)
}

impl CompareScenario {
    /// Reads and validates a comparison scenario; paths relative to its folder.
    pub fn load(path: &Path) -> Result<CompareScenario, ScenarioError> {
        let err = |problems| ScenarioError {
            file: path.to_path_buf(),
            problems,
        };
        let text = super::read_scenario_text(path)?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let raw: RawCompareScenario = toml::from_str(&text).map_err(|e| {
            err(vec![Problem {
                path: String::new(),
                line: e.span().map(|s| locate::line_of_offset(&text, s.start)),
                message: e.message().trim().to_string(),
            }])
        })?;
        let lost = super::lost_float_problems(&text);
        if !lost.is_empty() {
            return Err(err(lost));
        }
        let c = raw.placement_comparison;
        let mut problems = Vec::new();
        let max_jobs = super::limits::max_jobs_key(raw.max_jobs).unwrap_or_else(|message| {
            problems.push(Problem {
                path: "max_jobs".into(),
                line: locate::line_of_path(&text, "max_jobs"),
                message,
            });
            super::DEFAULT_MAX_JOBS
        });
        let mut check = |ok: bool, field: &str, message: String| {
            if !ok {
                problems.push(Problem {
                    path: format!("placement_comparison.{field}"),
                    line: locate::line_of_path(&text, &format!("placement_comparison.{field}")),
                    message,
                });
            }
        };
        let (nodes, pods) = (base.join(&c.nodes), base.join(&c.pods));
        for (file, field) in [(&nodes, "nodes"), (&pods, "pods")] {
            let why = crate::workload::not_a_data_file(file);
            check(why.is_none(), field, why.unwrap_or_default());
        }
        check(
            !c.placements.is_empty(),
            "placements",
            "name at least one placement".into(),
        );
        // One run per entry: a placement named a million times validated and ran for days.
        let dup = super::fgd::twice(&c.placements, |p| p.as_str().to_string());
        check(dup.is_none(), "placements", dup.clone().unwrap_or_default());
        for (v, f) in [
            (c.usd_per_gpu_hour, "usd_per_gpu_hour"),
            (c.usd_per_cpu_node_hour, "usd_per_cpu_node_hour"),
        ] {
            check(
                v.is_finite() && v >= 0.0,
                f,
                format!("{v} must be a price >= 0"),
            );
        }
        let k = c.arrival_compression.unwrap_or(1.0);
        check(
            k.is_finite() && k >= 1.0,
            "arrival_compression",
            format!("{k} must be >= 1"),
        );
        let f = c.cluster_fraction.unwrap_or(1.0);
        check(
            f > 0.0 && f <= 1.0,
            "cluster_fraction",
            format!("{f} must be in (0, 1]"),
        );
        if !problems.is_empty() {
            return Err(err(problems));
        }
        Ok(CompareScenario {
            name: raw.name,
            description: raw.description.unwrap_or_default(),
            hash: text_hash(&text),
            nodes,
            pods,
            queue_policy: c.queue_policy.unwrap_or(PolicyKind::EasyBackfill),
            placements: c.placements,
            usd_per_gpu_hour: c.usd_per_gpu_hour,
            usd_per_cpu_node_hour: c.usd_per_cpu_node_hour,
            skip_bad_rows: c.skip_bad_rows.unwrap_or(false),
            arrival_compression: k,
            cluster_fraction: f,
            max_jobs,
        })
    }
}
