//! Validation of what a workload's durations mean and how runs are measured:
//! `workload.measured_on` (the GPU type a trace's run times were measured on),
//! `workload.estimates` (trace kind: the estimates schedulers see) and `[metrics]`
//! (`slowdown_bound`). A trace replayed without `measured_on` on GPUs of another speed
//! gets a warning: its run times are then taken as reference-GPU work.

use super::problems::Problems;
use super::raw::{RawMetrics, RawWorkload};
use crate::metrics::MetricsOptions;
use crate::model::{GpuType, PoolSpec};
use crate::workload::{Estimates, TraceFormat};

/// The GPU type a workload's durations were measured on.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredOn {
    /// Its name.
    pub gpu_type: String,
    /// Its speed relative to the reference GPU.
    pub speed: f64,
}

/// `[metrics]`.
pub(super) fn metrics(c: &mut Problems, raw: Option<&RawMetrics>) -> MetricsOptions {
    let mut m = MetricsOptions::default();
    if let Some(b) = raw.and_then(|r| r.slowdown_bound.as_deref()) {
        if let Some(t) = c.duration("metrics.slowdown_bound", b) {
            m.slowdown_bound = t;
        }
    }
    m
}

/// `measured_on` as written, whatever the workload kind.
fn written(raw: &RawWorkload) -> Option<&str> {
    match raw {
        RawWorkload::Trace(t) => t.measured_on.as_deref(),
        RawWorkload::Model(m) => m.measured_on.as_deref(),
        RawWorkload::Synthetic(s) => s.measured_on.as_deref(),
        RawWorkload::Csv { measured_on, .. } => measured_on.as_deref(),
        RawWorkload::PaiSim { .. } => None,
    }
}

/// Resolves `workload.measured_on` against the scenario's GPU types (a built-in type is
/// added to `types`), and says when a trace's run times are taken as reference-GPU work
/// on pools of another speed (the warnings).
pub(super) fn measured_on(
    c: &mut Problems,
    raw: &RawWorkload,
    types: &mut Vec<GpuType>,
    pools: &[PoolSpec],
) -> (Option<MeasuredOn>, Vec<String>) {
    if let Some(name) = written(raw) {
        let i = super::gpu_types::resolve(c, types, "workload.measured_on", name);
        let m = types.get(i).map(|t| MeasuredOn {
            gpu_type: t.name.clone(),
            speed: t.speed,
        });
        return (m, Vec::new());
    }
    // Only trace formats whose run times were measured on some real GPU warrant a warning:
    // gpufleet's generic CSV defines `duration_s` as reference-GPU time, and generated
    // workloads are written in reference-GPU terms.
    let format = match raw {
        RawWorkload::Trace(t) if t.format != TraceFormat::Generic => t.format,
        _ => return (None, Vec::new()),
    };
    let other: Vec<String> = pools
        .iter()
        .filter(|p| p.speed != 1.0)
        .map(|p| {
            let ty = types.get(p.gpu_type).map_or("?", |t| t.name.as_str());
            format!("{} ({ty}, speed {})", p.name, p.speed)
        })
        .collect();
    if other.is_empty() {
        return (None, Vec::new());
    }
    let w = format!(
        "workload: the {} trace's run times are taken as run times on the reference GPU \
         (speed 1.0), but pools {} run at other speeds, which stretches or shrinks them; \
         set `measured_on` to the GPU type the trace was measured on (e.g. measured_on = \"V100\") \
         so a replay scales by the ratio of speeds",
        format.as_str(),
        other.join(", ")
    );
    (None, vec![w])
}

/// `workload.estimates` (trace kind).
pub(super) fn estimates(c: &mut Problems, v: Option<&toml::Value>) -> Estimates {
    const HELP: &str = "must be \"trace\", \"exact\" or { kind = \"badness\", f = <number >= 0> }";
    match v {
        None => Estimates::Trace,
        Some(toml::Value::String(s)) if s == "trace" => Estimates::Trace,
        Some(toml::Value::String(s)) if s == "exact" => Estimates::Exact,
        Some(toml::Value::Table(t)) => {
            let kind = t.get("kind").and_then(|k| k.as_str());
            let f = t
                .get("f")
                .and_then(|f| f.as_float().or_else(|| f.as_integer().map(|i| i as f64)));
            let extra = t.keys().any(|k| k != "kind" && k != "f");
            match (kind, f) {
                (Some("badness"), Some(f)) if f.is_finite() && f >= 0.0 && !extra => {
                    Estimates::Badness { f }
                }
                _ => {
                    c.err("workload.estimates", HELP);
                    Estimates::Trace
                }
            }
        }
        Some(other) => {
            c.err("workload.estimates", format!("{HELP}, got {other}"));
            Estimates::Trace
        }
    }
}
