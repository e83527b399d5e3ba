//! Validation of the `trace` and `model` workload kinds, and of what the generated kinds
//! share: duration distributions and size mixes.

use super::problems::Problems;
use super::raw::{RawDuration, RawSize};
use super::raw_trace::{RawArrivals, RawModel, RawTenantMix, RawTrace};
use crate::engine::SimTime;
use crate::model::GpuRequest;
use crate::workload::{
    read_duration_column, ArrivalProcess, DurationDist, LoadScale, RowFilter, ScaleBase, Shaping,
    SwfOptions, TenantMix, TraceSpec, WorkloadModel,
};
use std::path::Path;
use std::sync::Arc;

/// Validates a duration distribution at field path `p`.
pub(super) fn duration(c: &mut Problems, p: &str, d: &RawDuration, base: &Path) -> DurationDist {
    match d {
        RawDuration::Lognormal { median, sigma } => {
            let m = c.duration(&format!("{p}.median"), median);
            c.positive(&format!("{p}.sigma"), *sigma);
            DurationDist::LogNormal {
                median: m.unwrap_or(SimTime(1)),
                sigma: *sigma,
            }
        }
        RawDuration::Exponential { mean } => DurationDist::Exponential {
            mean: c.duration(&format!("{p}.mean"), mean).unwrap_or(SimTime(1)),
        },
        RawDuration::Fixed { value } => DurationDist::Fixed {
            value: c
                .duration(&format!("{p}.value"), value)
                .unwrap_or(SimTime(1)),
        },
        RawDuration::Weibull { scale, shape } => {
            let s = c.duration(&format!("{p}.scale"), scale);
            c.positive(&format!("{p}.shape"), *shape);
            DurationDist::Weibull {
                scale: s.unwrap_or(SimTime(1)),
                shape: *shape,
            }
        }
        RawDuration::Empirical { path, .. }
            if !c.data_file(format!("{p}.path"), &base.join(path)) =>
        {
            DurationDist::Fixed { value: SimTime(1) }
        }
        RawDuration::Empirical { path, column } => {
            match read_duration_column(&base.join(path), column.as_deref()) {
                Ok(v) => DurationDist::Empirical { secs: Arc::new(v) },
                Err(e) => {
                    c.err(format!("{p}.path"), e.to_string());
                    DurationDist::Fixed { value: SimTime(1) }
                }
            }
        }
    }
}

/// One entry of a size mix at field path `p`: a GPU request and its weight. A request of
/// zero GPUs (a CPU-only job) is allowed only where `allow_zero` says so.
pub(super) fn size(c: &mut Problems, p: &str, s: &RawSize, allow_zero: bool) -> (GpuRequest, f64) {
    c.weight(&format!("{p}.weight"), s.weight);
    let req = if s.gpus >= 1.0 && s.gpus.fract() == 0.0 && s.gpus <= 1e6 {
        GpuRequest::Whole(s.gpus as u32)
    } else if s.gpus > 0.0 && s.gpus < 1.0 {
        crate::workload::gpu_fraction(s.gpus).unwrap_or_else(|| {
            c.err(
                format!("{p}.gpus"),
                format!(
                    "{} of a GPU is below the smallest fraction, 0.001 (it would be rounded to none or up to ten times more)",
                    crate::engine::short_number(s.gpus)
                ),
            );
            GpuRequest::Fraction(1)
        })
    } else if allow_zero && s.gpus == 0.0 {
        GpuRequest::None
    } else {
        let zero = if allow_zero { "0, " } else { "" };
        // Zero (`0`, `-0`) where a job needs a GPU is named as such, not as a bad count.
        let what = if s.gpus == 0.0 {
            " (no GPU; sizes of generated jobs ask for at least a fraction of one)"
        } else {
            ""
        };
        c.err(
            format!("{p}.gpus"),
            format!(
                "must be {zero}a whole count from 1 to 1000000 or a fraction between 0 and 1, got {}{what}",
                crate::engine::short_number(s.gpus)
            ),
        );
        GpuRequest::Whole(1)
    };
    (req, s.weight)
}

/// Validates `kind = "trace"`.
pub(super) fn trace(c: &mut Problems, t: &RawTrace, base: &Path) -> TraceSpec {
    let full = base.join(&t.path);
    if let Some(why) = crate::workload::not_a_data_file(&full) {
        c.err("workload.path", format!("trace file {why}"));
    }
    let procs = t.procs_per_gpu.unwrap_or(1);
    if !(1..=1_000_000).contains(&procs) {
        c.err(
            "workload.procs_per_gpu",
            format!("must be between 1 and 1000000, got {procs}"),
        );
    }
    let pai = t.pai_job_table.as_ref().map(|p| {
        let f = base.join(p);
        if let Some(why) = crate::workload::not_a_data_file(&f) {
            c.err("workload.pai_job_table", format!("file {why}"));
        }
        f
    });
    let window = window(c, t);
    for (k, v) in [("min_gpus", t.min_gpus), ("max_gpus", t.max_gpus)] {
        if let Some(x) = v {
            c.nonneg(&format!("workload.{k}"), x);
        }
    }
    scale_factors(c, t);
    let estimates = super::measured::estimates(c, t.estimates.as_ref());
    TraceSpec {
        path: full,
        format: t.format,
        bad_rows: super::workload_source::bad_rows(t.skip_bad_rows),
        swf: SwfOptions {
            procs_per_gpu: procs.clamp(1, 1_000_000) as u32,
        },
        pai_job_table: pai,
        filter: RowFilter {
            statuses: t.statuses.clone(),
            min_gpus: t.min_gpus,
            max_gpus: t.max_gpus,
            max_jobs: None,
        },
        shaping: Shaping {
            window,
            gpu_type_map: t.gpu_type_map.clone().into_iter().collect(),
            time_compression: t.time_compression,
            load_scale: t.load_scale.map(|factor| LoadScale {
                factor,
                base: t.load_scale_of.unwrap_or(ScaleBase::Original),
            }),
            max_jobs: None,
        },
        estimates,
    }
}

/// A trace's time window (`workload.start`, `workload.end`), if it has one.
fn window(c: &mut Problems, t: &RawTrace) -> Option<(SimTime, Option<SimTime>)> {
    let start = t
        .start
        .as_deref()
        .and_then(|s| c.duration("workload.start", s));
    let end = t.end.as_deref().and_then(|s| c.duration("workload.end", s));
    if let (Some(a), Some(b)) = (start, end) {
        if b <= a {
            c.err("workload.end", "must be after workload.start");
        }
    }
    (start.is_some() || end.is_some()).then(|| (start.unwrap_or(SimTime::ZERO), end))
}

/// A trace's time compression and load scaling must be positive.
fn scale_factors(c: &mut Problems, t: &RawTrace) {
    if let Some(f) = t.time_compression {
        c.positive("workload.time_compression", f);
    }
    if let Some(f) = t.load_scale {
        c.positive("workload.load_scale", f);
    }
    if t.load_scale_of.is_some() && t.load_scale.is_none() {
        c.err("workload.load_scale_of", "needs workload.load_scale");
    }
}

/// Validates `kind = "model"`; `horizon` ends it when neither `jobs` nor `until` does.
pub(super) fn model(
    c: &mut Problems,
    m: &RawModel,
    horizon: Option<SimTime>,
    base: &Path,
) -> WorkloadModel {
    let arrivals = arrivals(c, &m.arrivals);
    let until = super::synthetic::end(c, "model", m.until.as_deref(), m.jobs, horizon);
    if m.tenants.is_empty() {
        c.err(
            "workload.tenants",
            "give at least one [[workload.tenants]] with its sizes and duration",
        );
    }
    let tenants = m
        .tenants
        .iter()
        .enumerate()
        .map(|(i, t)| tenant(c, &format!("workload.tenants[{i}]"), t, base))
        .collect();
    let rate_multiplier = c.positive("workload.rate_multiplier", m.rate_multiplier.unwrap_or(1.0));
    let duration_multiplier = c.positive(
        "workload.duration_multiplier",
        m.duration_multiplier.unwrap_or(1.0),
    );
    let growth = m.growth_per_month.unwrap_or(0.0);
    if !(growth.is_finite() && growth > -1.0 && growth <= 100.0) {
        c.err(
            "workload.growth_per_month",
            format!("must be above -1 and at most 100, got {growth}"),
        );
    }
    let (cpu_milli_per_gpu, mem_mib_per_gpu) =
        super::synthetic::per_gpu(c, m.cpu_cores_per_gpu, m.memory_gib_per_gpu);
    WorkloadModel {
        arrivals,
        until,
        jobs: m.jobs.map(|n| n.max(1) as u64),
        tenants,
        rate_multiplier,
        duration_multiplier,
        growth_per_month: growth,
        cpu_milli_per_gpu,
        mem_mib_per_gpu,
    }
}

/// A model's arrival process (`workload.arrivals`).
fn arrivals(c: &mut Problems, a: &RawArrivals) -> ArrivalProcess {
    let arrivals = match a {
        RawArrivals::Poisson { rate_per_hour } => ArrivalProcess::Poisson {
            rate_per_hour: *rate_per_hour,
        },
        RawArrivals::Profile {
            rate_per_hour,
            hourly,
            weekly,
        } => ArrivalProcess::Profile {
            rate_per_hour: *rate_per_hour,
            hourly: hourly.clone().unwrap_or_else(|| vec![1.0; 24]),
            weekly: weekly.clone().unwrap_or_else(|| vec![1.0; 7]),
        },
        RawArrivals::Mmpp {
            rates_per_hour,
            mean_dwell,
        } => mmpp(c, rates_per_hour, mean_dwell),
    };
    if let Err(e) = arrivals.check() {
        c.err(format!("workload.arrivals.{}", e.field), e.message);
    }
    arrivals
}

/// A two-state Markov-modulated Poisson process: `[calm, burst]` rates and dwell times.
fn mmpp(c: &mut Problems, rates: &[f64], dwell: &[String]) -> ArrivalProcess {
    if rates.len() != 2 {
        c.err(
            "workload.arrivals.rates_per_hour",
            "needs two rates: [calm, burst]",
        );
    }
    if dwell.len() != 2 {
        c.err(
            "workload.arrivals.mean_dwell",
            "needs two durations: [calm, burst]",
        );
    }
    let d: Vec<SimTime> = dwell
        .iter()
        .enumerate()
        .map(|(i, s)| {
            c.duration(&format!("workload.arrivals.mean_dwell[{i}]"), s)
                .unwrap_or(SimTime(1))
        })
        .collect();
    ArrivalProcess::Mmpp {
        rates_per_hour: [
            rates.first().copied().unwrap_or(1.0),
            rates.get(1).copied().unwrap_or(1.0),
        ],
        mean_dwell: [
            d.first().copied().unwrap_or(SimTime(1)),
            d.get(1).copied().unwrap_or(SimTime(1)),
        ],
    }
}

/// One `[[workload.tenants]]` of a model, at field path `p`.
fn tenant(c: &mut Problems, p: &str, t: &RawTenantMix, base: &Path) -> TenantMix {
    c.weight(&format!("{p}.weight"), t.weight);
    if t.sizes.is_empty() {
        c.err(format!("{p}.sizes"), "give at least one size");
    }
    let sizes = t
        .sizes
        .iter()
        .enumerate()
        .map(|(k, s)| size(c, &format!("{p}.sizes[{k}]"), s, true))
        .collect();
    let share = t.preemptible_share.unwrap_or(0.0);
    if !(0.0..=1.0).contains(&share) {
        c.err(
            format!("{p}.preemptible_share"),
            format!("must be between 0 and 1, got {share}"),
        );
    }
    TenantMix {
        name: t.name.clone(),
        weight: t.weight,
        sizes,
        duration: duration(c, &format!("{p}.duration"), &t.duration, base),
        preemptible_share: share,
    }
}
