//! Validation of `failures`: a preset name, or a table of a failure process (rate,
//! distribution, pools), repair times and a failure trace.
//!
//! ```toml
//! failures = "llama3-h100"            # a preset, or a table:
//! [failures]
//! preset = "llama3-h100"              # optional base
//! rate_per_gpu_day = 4.7e-4           # or rate_per_node_day
//! distribution = "weibull"            # or "exponential" (default)
//! weibull_shape = 0.8
//! pools = ["owned"]                   # default: all pools
//! repair = "4h"                       # or { kind = "lognormal", median = "4h", sigma = 1 }
//! trace = "failures.csv"              # time_s,node[,cause][,repair_s]
//! ```

use super::problems::Problems;
use crate::engine::SimTime;
use crate::faults::{
    preset_by_name, read_failure_trace, FailureDist, FailureProcess, FaultConfig, Scope,
    TraceFailure,
};
use crate::model::PoolSpec;
use crate::workload::DurationDist;
use std::path::Path;

/// The failure presets, for messages.
const PRESETS: &str = "llama3-h100";

/// The fields a `[failures]` table may have.
const KNOWN: [&str; 8] = [
    "preset",
    "rate_per_gpu_day",
    "rate_per_node_day",
    "distribution",
    "weibull_shape",
    "pools",
    "repair",
    "trace",
];

/// A TOML number (integer or float) as `f64`.
pub(super) fn num(v: &toml::Value) -> Option<f64> {
    v.as_float().or(v.as_integer().map(|i| i as f64))
}

/// Reports every key of `t` (at field path `at`) that is not in `known`.
pub(super) fn unknown_keys(c: &mut Problems, at: &str, t: &toml::Table, known: &[&str]) {
    for k in t.keys() {
        if !known.contains(&k.as_str()) {
            c.err(
                format!("{at}.{k}"),
                format!("unknown field `{k}`, expected one of {}", known.join(", ")),
            );
        }
    }
}

/// Validates `failures` into `cfg`: its processes, repair time and trace.
pub(super) fn failures(
    c: &mut Problems,
    v: &toml::Value,
    pools: &[PoolSpec],
    base: &Path,
    cfg: &mut FaultConfig,
) {
    match v {
        toml::Value::String(name) => match preset_by_name(name) {
            Some(p) => cfg.processes.push((p.process, Vec::new())),
            None => c.err(
                "failures",
                format!("unknown failure preset {name:?} (known: {PRESETS})"),
            ),
        },
        toml::Value::Table(t) => table(c, t, pools, base, cfg),
        _ => c.err(
            "failures",
            format!("must be a preset name ({PRESETS}) or a table"),
        ),
    }
}

/// A `[failures]` table.
fn table(
    c: &mut Problems,
    t: &toml::Table,
    pools: &[PoolSpec],
    base: &Path,
    cfg: &mut FaultConfig,
) {
    unknown_keys(c, "failures", t, &KNOWN);
    let mut process = preset(c, t);
    rate(c, t, &mut process);
    distribution(c, t, &mut process);
    let on = t
        .get("pools")
        .map(|v| on_pools(c, v, pools))
        .unwrap_or_default();
    if let Some(d) = t.get("repair").and_then(|r| repair_dist(c, r)) {
        cfg.repair = d;
    }
    if let Some(v) = t.get("trace") {
        cfg.trace = trace(c, v, pools, base);
    }
    // A trace given but unreadable has its own problem; this one would mislead.
    if process.is_none() && t.get("trace").is_none() {
        c.err(
            "failures",
            "give a preset, a rate (rate_per_gpu_day or rate_per_node_day) or a trace",
        );
    }
    if let Some(p) = process {
        cfg.processes.push((p, on));
    }
}

/// The process of `failures.preset`, the base the other fields change.
fn preset(c: &mut Problems, t: &toml::Table) -> Option<FailureProcess> {
    match t.get("preset").map(|p| p.as_str()) {
        None => None,
        Some(Some(name)) => match preset_by_name(name) {
            Some(p) => Some(p.process),
            None => {
                c.err(
                    "failures.preset",
                    format!("unknown failure preset {name:?} (known: {PRESETS})"),
                );
                None
            }
        },
        Some(None) => {
            c.err("failures.preset", "must be a preset name");
            None
        }
    }
}

/// `rate_per_gpu_day` or `rate_per_node_day`: sets the rate and scope of `process`
/// (an exponential process when there is no preset).
fn rate(c: &mut Problems, t: &toml::Table, process: &mut Option<FailureProcess>) {
    let (scope, r, path) = match (t.get("rate_per_gpu_day"), t.get("rate_per_node_day")) {
        (Some(_), Some(_)) => {
            c.err(
                "failures",
                "give rate_per_gpu_day or rate_per_node_day, not both",
            );
            return;
        }
        (Some(v), None) => (Scope::Gpu, num(v), "failures.rate_per_gpu_day"),
        (None, Some(v)) => (Scope::Node, num(v), "failures.rate_per_node_day"),
        (None, None) => return,
    };
    match r {
        Some(r) if r.is_finite() && r >= 0.0 => {
            let p = process.get_or_insert(FailureProcess {
                rate_per_day: r,
                scope,
                dist: FailureDist::Exponential,
                causes: Vec::new(),
            });
            p.rate_per_day = r;
            p.scope = scope;
        }
        _ => c.err(path, "must be a non-negative number"),
    }
}

/// `distribution` (and `weibull_shape`) of the time between failures.
fn distribution(c: &mut Problems, t: &toml::Table, process: &mut Option<FailureProcess>) {
    match t.get("distribution").map(|d| d.as_str()) {
        None | Some(Some("exponential")) => {}
        Some(Some("weibull")) => {
            let shape = t.get("weibull_shape").and_then(num).unwrap_or(-1.0);
            if !(shape > 0.0 && shape.is_finite()) {
                c.err(
                    "failures.weibull_shape",
                    "a Weibull distribution needs a positive weibull_shape",
                );
            }
            if let Some(p) = process.as_mut() {
                p.dist = FailureDist::Weibull { shape };
            }
        }
        Some(other) => c.err(
            "failures.distribution",
            format!("unknown distribution {other:?} (known: exponential, weibull)"),
        ),
    }
}

/// `failures.pools`: the indexes of the pools the process strikes.
fn on_pools(c: &mut Problems, v: &toml::Value, pools: &[PoolSpec]) -> Vec<usize> {
    let Some(names) = v.as_array() else {
        c.err("failures.pools", "must be a list of pool names");
        return Vec::new();
    };
    let mut on = Vec::new();
    for (i, n) in names.iter().enumerate() {
        match n
            .as_str()
            .and_then(|n| pools.iter().position(|p| p.name == n))
        {
            Some(p) => on.push(p),
            None => c.err(
                format!("failures.pools[{i}]"),
                format!("{n} is not a pool of this scenario"),
            ),
        }
    }
    on
}

/// `failures.repair`: a fixed duration, or a table of a distribution.
fn repair_dist(c: &mut Problems, v: &toml::Value) -> Option<DurationDist> {
    let t = match v {
        toml::Value::String(s) => {
            return c
                .duration("failures.repair", s)
                .map(|value| DurationDist::Fixed { value })
        }
        toml::Value::Table(t) => t,
        _ => {
            c.err("failures.repair", "must be a duration or a table");
            return None;
        }
    };
    let dur = |c: &mut Problems, key: &str| -> Option<SimTime> {
        match t.get(key).and_then(|x| x.as_str()) {
            Some(s) => c.duration(&format!("failures.repair.{key}"), s),
            None => {
                c.err(
                    format!("failures.repair.{key}"),
                    "missing (a duration such as \"4h\")",
                );
                None
            }
        }
    };
    // A key of another kind (`mean` with `kind = "fixed"`) or a typo was dropped silently.
    let known: &[&str] = match t.get("kind").and_then(|k| k.as_str()).unwrap_or("") {
        "fixed" => &["kind", "value"],
        "exponential" => &["kind", "mean"],
        "lognormal" => &["kind", "median", "sigma"],
        _ => &["kind"],
    };
    unknown_keys(c, "failures.repair", t, known);
    match t.get("kind").and_then(|k| k.as_str()).unwrap_or("") {
        "fixed" => dur(c, "value").map(|value| DurationDist::Fixed { value }),
        "exponential" => dur(c, "mean").map(|mean| DurationDist::Exponential { mean }),
        "lognormal" => {
            let sigma = t.get("sigma").and_then(num).unwrap_or(-1.0);
            if sigma.is_nan() || sigma <= 0.0 {
                c.err("failures.repair.sigma", "must be a positive number");
            }
            dur(c, "median").map(|median| DurationDist::LogNormal { median, sigma })
        }
        other => {
            c.err(
                "failures.repair.kind",
                format!("unknown kind {other:?} (known: fixed, exponential, lognormal)"),
            );
            None
        }
    }
}

/// `failures.trace`: failures read from a file, each naming a node the cluster has.
fn trace(c: &mut Problems, v: &toml::Value, pools: &[PoolSpec], base: &Path) -> Vec<TraceFailure> {
    let Some(path) = v.as_str() else {
        c.err("failures.trace", "must be a path");
        return Vec::new();
    };
    if !c.data_file("failures.trace", &base.join(path)) {
        return Vec::new();
    }
    let tr = match read_failure_trace(&base.join(path)) {
        Ok(tr) => tr,
        Err(e) => {
            c.err("failures.trace", e.to_string());
            return Vec::new();
        }
    };
    let all_nodes: u64 = pools.iter().map(|p| p.nodes as u64).sum();
    // One problem for the first such failure and a count of the others: a trace of
    // millions of rows naming a node the cluster lacks made millions of problems (and no
    // answer in minutes).
    let missing = |f: &&crate::faults::TraceFailure| match &f.pool {
        None => (f.node as u64) >= all_nodes,
        Some(name) => !pools.iter().any(|p| &p.name == name && f.node < p.nodes),
    };
    if let Some((i, f)) = tr.iter().enumerate().find(|(_, f)| missing(f)) {
        let more = tr.iter().filter(missing).count() - 1;
        c.err(
            "failures.trace",
            format!(
                "{path}: failure {} (in time order) names node {}{} which this cluster does not have{}",
                i + 1,
                f.pool.as_ref().map(|p| format!("{p}/")).unwrap_or_default(),
                f.node,
                if more > 0 {
                    format!(" (and {more} more failures name such nodes)")
                } else {
                    String::new()
                }
            ),
        );
    }
    tr
}
