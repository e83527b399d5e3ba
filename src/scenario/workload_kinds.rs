//! Validation of the `trace` and `model` workload kinds and of the Weibull and empirical
//! duration distributions, collecting every problem with its field path.

use super::raw::{RawDuration, RawSize};
use super::raw_trace::{RawArrivals, RawModel, RawTrace};
use super::validate::Collector;
use crate::engine::SimTime;
use crate::model::{GpuRequest, MILLI_PER_GPU};
use crate::workload::{
    read_duration_column, ArrivalProcess, BadRows, DurationDist, LoadScale, RowFilter, ScaleBase,
    Shaping, SwfOptions, TenantMix, TraceSpec, WorkloadModel,
};
use std::path::Path;
use std::sync::Arc;

/// Validates a duration distribution at field path `p`.
pub(super) fn duration(c: &mut Collector, p: &str, d: &RawDuration, base: &Path) -> DurationDist {
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

fn size(c: &mut Collector, p: &str, s: &RawSize, allow_zero: bool) -> (GpuRequest, f64) {
    c.positive(&format!("{p}.weight"), s.weight);
    let req = if s.gpus >= 1.0 && s.gpus.fract() == 0.0 && s.gpus <= 1e6 {
        GpuRequest::Whole(s.gpus as u32)
    } else if s.gpus > 0.0 && s.gpus < 1.0 {
        GpuRequest::Fraction(((s.gpus * MILLI_PER_GPU as f64).round() as u16).clamp(1, 999))
    } else if allow_zero && s.gpus == 0.0 {
        GpuRequest::None
    } else {
        c.err(
            format!("{p}.gpus"),
            format!(
                "must be 0, a whole count >= 1 or a fraction between 0 and 1, got {}",
                s.gpus
            ),
        );
        GpuRequest::Whole(1)
    };
    (req, s.weight)
}

/// Validates `kind = "trace"`.
pub(super) fn trace(c: &mut Collector, t: RawTrace, base: &Path) -> TraceSpec {
    let full = base.join(&t.path);
    if !full.is_file() {
        c.err(
            "workload.path",
            format!("trace file {} does not exist", full.display()),
        );
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
        if !f.is_file() {
            c.err(
                "workload.pai_job_table",
                format!("file {} does not exist", f.display()),
            );
        }
        f
    });
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
    for (k, v) in [("min_gpus", t.min_gpus), ("max_gpus", t.max_gpus)] {
        if let Some(x) = v {
            c.non_negative(&format!("workload.{k}"), x);
        }
    }
    if let Some(f) = t.time_compression {
        c.positive("workload.time_compression", f);
    }
    if let Some(f) = t.load_scale {
        c.positive("workload.load_scale", f);
    }
    if t.load_scale_of.is_some() && t.load_scale.is_none() {
        c.err("workload.load_scale_of", "needs workload.load_scale");
    }
    TraceSpec {
        path: full,
        format: t.format,
        bad_rows: if t.skip_bad_rows {
            BadRows::Skip
        } else {
            BadRows::Stop
        },
        swf: SwfOptions {
            procs_per_gpu: procs.clamp(1, 1_000_000) as u32,
        },
        pai_job_table: pai,
        filter: RowFilter {
            statuses: t.statuses,
            min_gpus: t.min_gpus,
            max_gpus: t.max_gpus,
        },
        shaping: Shaping {
            window: (start.is_some() || end.is_some())
                .then(|| (start.unwrap_or(SimTime::ZERO), end)),
            gpu_type_map: t.gpu_type_map.into_iter().collect(),
            time_compression: t.time_compression,
            load_scale: t.load_scale.map(|factor| LoadScale {
                factor,
                base: t.load_scale_of.unwrap_or(ScaleBase::Original),
            }),
        },
    }
}

/// Validates `kind = "model"`; `horizon` ends it when neither `jobs` nor `until` does.
pub(super) fn model(
    c: &mut Collector,
    m: RawModel,
    horizon: Option<SimTime>,
    base: &Path,
) -> WorkloadModel {
    let arrivals = match m.arrivals {
        RawArrivals::Poisson { rate_per_hour } => ArrivalProcess::Poisson { rate_per_hour },
        RawArrivals::Profile {
            rate_per_hour,
            hourly,
            weekly,
        } => ArrivalProcess::Profile {
            rate_per_hour,
            hourly: hourly.unwrap_or_else(|| vec![1.0; 24]),
            weekly: weekly.unwrap_or_else(|| vec![1.0; 7]),
        },
        RawArrivals::Mmpp {
            rates_per_hour,
            mean_dwell,
        } => {
            if rates_per_hour.len() != 2 {
                c.err(
                    "workload.arrivals.rates_per_hour",
                    "needs two rates: [calm, burst]",
                );
            }
            if mean_dwell.len() != 2 {
                c.err(
                    "workload.arrivals.mean_dwell",
                    "needs two durations: [calm, burst]",
                );
            }
            let d: Vec<SimTime> = mean_dwell
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    c.duration(&format!("workload.arrivals.mean_dwell[{i}]"), s)
                        .unwrap_or(SimTime(1))
                })
                .collect();
            ArrivalProcess::Mmpp {
                rates_per_hour: [
                    rates_per_hour.first().copied().unwrap_or(1.0),
                    rates_per_hour.get(1).copied().unwrap_or(1.0),
                ],
                mean_dwell: [
                    d.first().copied().unwrap_or(SimTime(1)),
                    d.get(1).copied().unwrap_or(SimTime(1)),
                ],
            }
        }
    };
    if let Err(e) = arrivals.check() {
        let (field, msg) = e.split_once(": ").unwrap_or(("", e.as_str()));
        c.err(format!("workload.arrivals.{field}"), msg.to_string());
    }
    let until = match m.until.as_deref() {
        Some(u) => c.duration("workload.until", u),
        None => horizon,
    };
    if let Some(n) = m.jobs {
        if n < 1 {
            c.err("workload.jobs", format!("must be at least 1, got {n}"));
        }
    }
    if until.is_none() && m.jobs.is_none() {
        c.err(
            "workload",
            "a model workload needs `jobs`, `until` or a scenario `horizon` to end",
        );
    }
    if m.tenants.is_empty() {
        c.err(
            "workload.tenants",
            "give at least one [[workload.tenants]] with its sizes and duration",
        );
    }
    let mut tenants = Vec::new();
    for (i, t) in m.tenants.iter().enumerate() {
        let p = format!("workload.tenants[{i}]");
        c.positive(&format!("{p}.weight"), t.weight);
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
        tenants.push(TenantMix {
            name: t.name.clone(),
            weight: t.weight,
            sizes,
            duration: duration(c, &format!("{p}.duration"), &t.duration, base),
            preemptible_share: share,
        });
    }
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
    let cpu = c.non_negative(
        "workload.cpu_cores_per_gpu",
        m.cpu_cores_per_gpu.unwrap_or(0.0),
    );
    let mem = c.non_negative(
        "workload.memory_gib_per_gpu",
        m.memory_gib_per_gpu.unwrap_or(0.0),
    );
    WorkloadModel {
        arrivals,
        until,
        jobs: m.jobs.map(|n| n.max(1) as u64),
        tenants,
        rate_multiplier,
        duration_multiplier,
        growth_per_month: growth,
        cpu_milli_per_gpu: (cpu * 1000.0) as u32,
        mem_mib_per_gpu: (mem * 1024.0) as u64,
    }
}
