//! Validation of what a workload's durations mean and how runs are measured:
//! `workload.measured_on` (the GPU type a trace's run times were measured on),
//! `workload.estimates` (trace kind: the estimates schedulers see) and `[metrics]`
//! (`slowdown_bound`). A trace format whose cluster's GPUs are documented has a default
//! ([`format_default`]); a trace replayed with neither on GPUs of another speed gets a
//! warning: its run times are then taken as reference-GPU work.

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

/// The documented GPU type a trace format's run times were measured on, with its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatDefault {
    /// The built-in GPU type.
    pub gpu_type: &'static str,
    /// Where that is documented.
    pub source: &'static str,
}

/// The `measured_on` a trace of `format` gets when the workload names none: only where the
/// trace's GPUs are documented and uniform.
///
/// - `helios`: V100. Only the Venus cluster's trace is public (HeliosData README); the
///   artifact (HeliosArtifact, Hu et al., SC'21) describes the datacenter's GPU compute
///   node as 8 x Tesla V100-SXM2, from its Volta cluster. A trace of another Helios
///   cluster, should one be released, may need its own `measured_on`.
/// - `philly`: none: the trace gives GPU memory sizes (12 GB and 24 GB machines) but not
///   the GPU models (msr-fiddle/philly-traces machine list; Jeon et al., ATC'19), a mix.
/// - `tiresias`: none: a Philly-like job list (SymbioticLab/Tiresias) that names no GPU.
/// - `pai`: none: PAI-2020 mixes T4, P100, V100, V100M32 and MISC machines
///   (`pai_machine_spec.csv`; Weng et al., NSDI'22).
/// - `openb`: none: its nodes mix GPU models (G2, G3, T4, P100, V100M16, V100M32, A10 in
///   `openb_node_list_gpu_node.csv`).
/// - `swf`, `generic`: none (SWF logs are CPU clusters; the generic CSV is defined in
///   reference-GPU time).
pub fn format_default(format: TraceFormat) -> Option<FormatDefault> {
    match format {
        TraceFormat::Helios => Some(FormatDefault {
            gpu_type: "V100",
            source: "Helios (Hu et al., SC'21; HeliosArtifact): the public Venus trace's nodes are 8 x V100-SXM2",
        }),
        _ => None,
    }
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
    if let Some(d) = format_default(format) {
        let i = super::gpu_types::resolve(c, types, "workload.measured_on", d.gpu_type);
        let m = types.get(i).map(|t| MeasuredOn {
            gpu_type: t.name.clone(),
            speed: t.speed,
        });
        return (m, Vec::new());
    }
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
