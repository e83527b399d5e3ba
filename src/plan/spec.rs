//! The plan file as written: a base scenario, the decisions (dotted paths with their
//! values, or named choices), the targets, the objective, the replication rule and the
//! search settings. Serde structs that refuse unknown fields; `load` checks them.

use crate::sweep::{RawRange, RawSpace};
use serde::Deserialize;
use toml::Spanned;

/// Top level of a plan file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPlanFile {
    /// Name of the plan (default: the file stem).
    #[serde(default)]
    pub name: Option<String>,
    /// One line saying what question the plan answers.
    #[serde(default)]
    pub question: Option<String>,
    /// Base scenario, relative to the plan file.
    pub scenario: Spanned<String>,
    /// What may change.
    #[serde(default, rename = "decision")]
    pub decisions: Vec<Spanned<RawDecision>>,
    /// What must hold.
    #[serde(default, rename = "target")]
    pub targets: Vec<Spanned<RawTarget>>,
    /// What to minimise.
    #[serde(default)]
    pub objective: Option<Spanned<RawObjective>>,
    /// How many replications, with which seeds.
    #[serde(default)]
    pub replications: Option<Spanned<RawReplications>>,
    /// How to search.
    #[serde(default)]
    pub search: Option<Spanned<RawSearch>>,
}

/// One decision: a dotted path with its values (`range`, `values`, `linspace`), or a list
/// of named `choice`s, each setting several paths.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDecision {
    /// Dotted path in the scenario (`pools[owned-h100].nodes`, `workload.preemptible_share`).
    #[serde(default)]
    pub path: Option<String>,
    /// Name in tables and words ("owned nodes"); default: the path.
    #[serde(default)]
    pub label: Option<String>,
    /// The option in words, `{}` standing for the value ("at most {} spot nodes");
    /// default: "6 owned nodes" for a count, "preemptible share 0.3" otherwise.
    #[serde(default)]
    pub words: Option<String>,
    /// The words for the value 0, where they differ ("no spot bursts").
    #[serde(default)]
    pub zero: Option<String>,
    /// The words for the value 1, where they differ ("up to 1 spot node").
    #[serde(default)]
    pub one: Option<String>,
    /// Short name on chart labels ("owned"); default: the label.
    #[serde(default)]
    pub short: Option<String>,
    /// `{ start, end, step }`, end included (integers for a count).
    #[serde(default)]
    pub range: Option<RawRange>,
    /// Explicit values, in increasing order for a monotone decision.
    #[serde(default)]
    pub values: Option<Vec<toml::Value>>,
    /// `{ start, end, num }`.
    #[serde(default)]
    pub linspace: Option<RawSpace>,
    /// Named options, each setting one or more paths.
    #[serde(default)]
    pub choice: Option<Vec<RawChoice>>,
    /// More never hurts the targets (default: true for node counts, false otherwise).
    #[serde(default)]
    pub monotone: Option<bool>,
}

/// One named option of a `choice` decision.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawChoice {
    /// Its name in words ("3-year reservation").
    pub name: String,
    /// Dotted path = value, for every field the option sets.
    pub set: toml::Table,
}

/// One target: a summary metric (dotted path) and a bound.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTarget {
    /// A numeric field of `summary.json` by dotted path (`wait_all_s.p95`,
    /// `jobs.unfinished`, `ettr`), or `deadline_missed`, or with `over` the censored
    /// `wait_all_s` / `jct_all_s`.
    pub metric: String,
    /// Upper bound: a number, a duration ("1h") for a time, a share ("1%").
    #[serde(default)]
    pub max: Option<toml::Value>,
    /// Lower bound, likewise.
    #[serde(default)]
    pub min: Option<toml::Value>,
    /// With `wait_all_s` or `jct_all_s`: the share of jobs above this duration.
    #[serde(default)]
    pub over: Option<String>,
    /// Name in words ("p95 queue wait").
    #[serde(default)]
    pub label: Option<String>,
}

/// `[objective]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawObjective {
    /// The metric to minimise (default `cost_usd.total`).
    #[serde(default)]
    pub minimize: Option<String>,
    /// Scale to a period: "run" (as simulated, default), "month" (30 days), "year".
    #[serde(default)]
    pub per: Option<String>,
    /// With `per = "year"`: over this many years.
    #[serde(default)]
    pub years: Option<f64>,
}

/// `[replications]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawReplications {
    /// Replications every fleet gets first (default 3).
    #[serde(default)]
    pub min: Option<i64>,
    /// Cap (default 10).
    #[serde(default)]
    pub max: Option<i64>,
    /// Added per round while a fleet is undecided (default 2).
    #[serde(default)]
    pub step: Option<i64>,
    /// First seed; replication r uses seed + r (default: the scenario's seed).
    #[serde(default)]
    pub seed: Option<u64>,
    /// How a fleet's verdict is reached: "mean" (every target's mean meets its bound,
    /// default) or "confident" (every target's interval clears its bound).
    #[serde(default)]
    pub decide: Option<String>,
    /// Confidence level of the intervals (default 0.95).
    #[serde(default)]
    pub confidence: Option<f64>,
}

/// `[search]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSearch {
    /// "auto" (bisection + coordinate search, default) or "grid" (every fleet).
    #[serde(default)]
    pub method: Option<String>,
    /// Runner-up fleets reported (default 3).
    #[serde(default)]
    pub runner_ups: Option<i64>,
    /// Let a fleet reject jobs that can never fit it (default false: a fleet whose pools
    /// are too small for some job fails the implicit target `jobs.rejected <= 0`).
    #[serde(default)]
    pub allow_rejected: Option<bool>,
    /// Most fleets simulated before the search stops and says so (default 2000).
    #[serde(default)]
    pub max_fleets: Option<i64>,
}
