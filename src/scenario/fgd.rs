//! Scenario files for the FGD paper's arrival-only placement experiment: a top-level
//! `[fgd_experiment]` table instead of pools and a workload. `gpufleet run` and
//! `gpufleet validate` recognise such files with [`is_fgd_scenario`].
//!
//! Any openb pod list and node list can be named by path (the artifact's 23 pod lists,
//! with or without time columns).
//!
//! ```toml
//! name = "fgd-openb-default"
//! max_jobs = 10_000_000      # optional: the most pods read (as a run scenario's max_jobs)
//! [fgd_experiment]
//! nodes = "../data/openb-2023/openb_node_list_gpu_node.csv"   # the artifact's cluster
//! pods = "../data/openb-2023/openb_pod_list_default.csv"
//! policies = ["random", "dot_product", "gpu_clustering", "gpu_packing", "best_fit", "fgd"]
//! seeds = [42, 43, 44, 45, 46, 47, 48, 49, 50, 51]
//! tune = 1.3                 # arrived demand grows to 130 % of the cluster's GPUs
//! typical_coverage = 0.95    # FGD's typical pod types: 95 % of the pods, by count
//! expected = "../data/fgd-atc23/expected_alloc_default_gpushare40.csv"  # optional
//! expected_fragmentation = "../data/fgd-atc23/expected_frag_default_gpushare40.csv"
//! expected_workload = "openb_pod_list_default"                           # their rows
//! ```

use super::{locate, text_hash, Problem, ScenarioError};
use crate::sched::placement::PlacementKind;
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFgdScenario {
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    max_jobs: Option<i64>,
    fgd_experiment: RawFgd,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFgd {
    nodes: String,
    pods: String,
    policies: Vec<PlacementKind>,
    seeds: Vec<u64>,
    #[serde(default)]
    tune: Option<f64>,
    #[serde(default)]
    typical_coverage: Option<f64>,
    #[serde(default)]
    skip_bad_rows: Option<bool>,
    #[serde(default)]
    expected: Option<String>,
    #[serde(default)]
    expected_fragmentation: Option<String>,
    #[serde(default)]
    expected_workload: Option<String>,
}

/// The most seeds an FGD experiment may list (as a comparison's `seeds`).
pub const MAX_FGD_SEEDS: usize = 10_000;

/// "`x` is listed twice" for the first entry of `items` seen before, in linear time.
pub(super) fn twice<T: std::hash::Hash + Eq>(
    items: &[T],
    name: impl Fn(&T) -> String,
) -> Option<String> {
    let mut seen = std::collections::HashSet::with_capacity(items.len());
    items.iter().find(|x| !seen.insert(*x)).map(|x| {
        format!(
            "{} is listed twice (of {} entries): each runs the whole experiment once",
            name(x),
            items.len()
        )
    })
}

/// A validated FGD experiment scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct FgdScenario {
    /// Scenario name (the default output folder's name).
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Hash of the scenario text.
    pub hash: String,
    /// Node list (openb format).
    pub nodes: PathBuf,
    /// Pod list (openb format).
    pub pods: PathBuf,
    /// Policies to run, in chart order.
    pub policies: Vec<PlacementKind>,
    /// Seeds; every policy runs under each.
    pub seeds: Vec<u64>,
    /// Target arrived demand as a multiple of the cluster's GPUs.
    pub tune: f64,
    /// Share of the trace's pods (by count, CPU-only pods included) FGD's typical pod
    /// types cover (the artifact's `podPopularityThreshold`, 95 %).
    pub typical_coverage: f64,
    /// Skip bad trace rows (counted) instead of stopping at the first.
    pub skip_bad_rows: bool,
    /// Published allocation curves to compare with (the artifact's
    /// `analysis_allo_discrete.csv`).
    pub expected: Option<PathBuf>,
    /// Published fragmentation curves (the artifact's `analysis_frag_discrete.csv`).
    pub expected_fragmentation: Option<PathBuf>,
    /// The workload name of the published rows to compare with (`openb_pod_list_default`).
    pub expected_workload: Option<String>,
    /// The most pods read from the pod list (top-level `max_jobs`, as in a run scenario;
    /// default [`crate::scenario::DEFAULT_MAX_JOBS`]): past it the read stops with an error.
    pub max_jobs: u64,
}

/// True when the TOML text is an FGD experiment scenario (has `[fgd_experiment]`).
pub fn is_fgd_scenario(text: &str) -> bool {
    text.parse::<toml::Table>()
        .map(|t| t.contains_key("fgd_experiment"))
        .unwrap_or(false)
}

fn problem(text: &str, path: &str, message: String) -> Problem {
    Problem {
        path: path.to_string(),
        line: locate::line_of_path(text, path),
        message,
    }
}

impl FgdScenario {
    /// Reads and validates an FGD scenario file; paths are relative to its folder.
    pub fn load(path: &Path) -> Result<FgdScenario, ScenarioError> {
        let err = |problems| ScenarioError {
            file: path.to_path_buf(),
            problems,
        };
        let text = super::read_scenario_text(path)?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        FgdScenario::parse(&text, &base).map_err(err)
    }

    /// Parses and validates scenario text; `base` resolves data paths.
    pub fn parse(text: &str, base: &Path) -> Result<FgdScenario, Vec<Problem>> {
        let raw: RawFgdScenario = toml::from_str(text).map_err(|e| {
            vec![Problem {
                path: String::new(),
                line: e.span().map(|s| locate::line_of_offset(text, s.start)),
                message: e.message().trim().to_string(),
            }]
        })?;
        let lost = super::lost_float_problems(text);
        if !lost.is_empty() {
            return Err(lost);
        }
        let f = raw.fgd_experiment;
        let mut problems = Vec::new();
        let max_jobs = super::limits::max_jobs_key(raw.max_jobs).unwrap_or_else(|m| {
            problems.push(problem(text, "max_jobs", m));
            super::DEFAULT_MAX_JOBS
        });
        let tune = f.tune.unwrap_or(1.3);
        if !(tune.is_finite() && tune > 0.0 && tune <= 10.0) {
            problems.push(problem(
                text,
                "fgd_experiment.tune",
                format!("{tune} must be above 0 and at most 10"),
            ));
        }
        let coverage = f.typical_coverage.unwrap_or(0.95);
        if !(coverage > 0.0 && coverage <= 1.0) {
            problems.push(problem(
                text,
                "fgd_experiment.typical_coverage",
                format!("{coverage} must be above 0 and at most 1"),
            ));
        }
        if f.policies.is_empty() {
            problems.push(problem(
                text,
                "fgd_experiment.policies",
                "name at least one policy".into(),
            ));
        }
        if f.seeds.is_empty() {
            problems.push(problem(
                text,
                "fgd_experiment.seeds",
                "give at least one seed".into(),
            ));
        }
        // Each policy runs once per seed: a list of a million seeds (or one policy named a
        // million times) validated and then ran for days.
        if f.seeds.len() > MAX_FGD_SEEDS {
            problems.push(problem(
                text,
                "fgd_experiment.seeds",
                format!(
                    "{} seeds, more than {MAX_FGD_SEEDS} (each runs every policy)",
                    f.seeds.len()
                ),
            ));
        }
        if let Some(m) = twice(&f.seeds, |s| s.to_string()) {
            problems.push(problem(text, "fgd_experiment.seeds", m));
        }
        if let Some(m) = twice(&f.policies, |p| p.as_str().to_string()) {
            problems.push(problem(text, "fgd_experiment.policies", m));
        }
        let resolve = |p: &str, field: &str, problems: &mut Vec<Problem>| {
            let full = base.join(p);
            if let Some(why) = crate::workload::not_a_data_file(&full) {
                problems.push(problem(text, field, why));
            }
            full
        };
        let nodes = resolve(&f.nodes, "fgd_experiment.nodes", &mut problems);
        let pods = resolve(&f.pods, "fgd_experiment.pods", &mut problems);
        let expected = f
            .expected
            .map(|e| resolve(&e, "fgd_experiment.expected", &mut problems));
        let expected_fragmentation = f
            .expected_fragmentation
            .map(|e| resolve(&e, "fgd_experiment.expected_fragmentation", &mut problems));
        let has_curves = expected.is_some() || expected_fragmentation.is_some();
        if has_curves != f.expected_workload.is_some() {
            problems.push(problem(
                text,
                "fgd_experiment.expected_workload",
                "give expected_workload (the workload name of the published rows) with \
                 expected or expected_fragmentation, and not without"
                    .into(),
            ));
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(FgdScenario {
            name: raw.name,
            description: raw.description.unwrap_or_default(),
            hash: text_hash(text),
            nodes,
            pods,
            policies: f.policies,
            seeds: f.seeds,
            tune,
            typical_coverage: coverage,
            skip_bad_rows: f.skip_bad_rows.unwrap_or(false),
            expected,
            expected_fragmentation,
            expected_workload: f.expected_workload,
            max_jobs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_and_validates() {
        let text = "name = \"x\"\n[fgd_experiment]\nnodes = \"n.csv\"\npods = \"p.csv\"\npolicies = [\"fgd\"]\nseeds = [1]\ntune = -1\n";
        assert!(is_fgd_scenario(text));
        assert!(!is_fgd_scenario("name = \"q\"\n[[pools]]\n"));
        let p = FgdScenario::parse(text, Path::new("/nonexistent")).unwrap_err();
        let fields: Vec<&str> = p.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(
            fields,
            [
                "fgd_experiment.tune",
                "fgd_experiment.nodes",
                "fgd_experiment.pods"
            ]
        );
        assert_eq!(p[0].line, Some(7));
        let bad = text.replace("\"fgd\"", "\"fastest\"");
        let p = FgdScenario::parse(&bad, Path::new(".")).unwrap_err();
        assert!(p[0].message.contains("fastest"), "{:?}", p[0]);
    }
}
