//! Validation of the `synthetic` workload kind: Poisson arrivals, a size mix, a duration
//! distribution, tenants.

use super::raw::{RawDuration, RawWorkload};
use super::validate::Collector;
use super::WorkloadSource;
use crate::engine::SimTime;
use crate::model::{GpuRequest, MILLI_PER_GPU};
use crate::workload::{DurationDist, SyntheticSpec};
use std::path::Path;

/// Validates a `kind = "synthetic"` workload (`w` is always that variant; any other is
/// reported as a problem rather than trusted).
pub(super) fn validate(
    c: &mut Collector,
    w: RawWorkload,
    horizon: Option<SimTime>,
    base: &Path,
) -> WorkloadSource {
    let RawWorkload::Synthetic {
        rate_per_hour,
        jobs,
        until,
        sizes,
        duration,
        tenants,
        preemptible_share,
        cpu_cores_per_gpu,
        memory_gib_per_gpu,
    } = w
    else {
        c.err("workload.kind", "expected a synthetic workload");
        return WorkloadSource::Synthetic(SyntheticSpec {
            rate_per_hour: 0.0,
            until: None,
            jobs: None,
            sizes: Vec::new(),
            duration: DurationDist::Fixed { value: SimTime(1) },
            tenants: Vec::new(),
            preemptible_share: 0.0,
            cpu_milli_per_gpu: 0,
            mem_mib_per_gpu: 0,
        });
    };
    c.positive("workload.rate_per_hour", rate_per_hour);
    let until = match until.as_deref() {
        Some(u) => c.duration("workload.until", u),
        None => horizon,
    };
    if let Some(n) = jobs {
        if n < 1 {
            c.err("workload.jobs", format!("must be at least 1, got {n}"));
        }
    }
    if until.is_none() && jobs.is_none() {
        c.err(
            "workload",
            "a synthetic workload needs `jobs`, `until` or a scenario `horizon` to end",
        );
    }
    let mut mix = Vec::new();
    if sizes.is_empty() {
        c.err(
            "workload.sizes",
            "give at least one size, e.g. [{ gpus = 1, weight = 1.0 }]",
        );
    }
    for (i, s) in sizes.iter().enumerate() {
        let p = format!("workload.sizes[{i}]");
        c.positive(&format!("{p}.weight"), s.weight);
        let req = if s.gpus >= 1.0 && s.gpus.fract() == 0.0 && s.gpus <= 1e6 {
            GpuRequest::Whole(s.gpus as u32)
        } else if s.gpus > 0.0 && s.gpus < 1.0 {
            GpuRequest::Fraction(((s.gpus * MILLI_PER_GPU as f64).round() as u16).clamp(1, 999))
        } else {
            c.err(
                format!("{p}.gpus"),
                format!(
                    "must be a whole count >= 1 or a fraction between 0 and 1, got {}",
                    s.gpus
                ),
            );
            GpuRequest::Whole(1)
        };
        mix.push((req, s.weight));
    }
    let dist = match duration {
        RawDuration::Lognormal { median, sigma } => {
            let m = c.duration("workload.duration.median", &median);
            c.positive("workload.duration.sigma", sigma);
            DurationDist::LogNormal {
                median: m.unwrap_or(SimTime(1)),
                sigma,
            }
        }
        RawDuration::Exponential { mean } => DurationDist::Exponential {
            mean: c
                .duration("workload.duration.mean", &mean)
                .unwrap_or(SimTime(1)),
        },
        RawDuration::Fixed { value } => DurationDist::Fixed {
            value: c
                .duration("workload.duration.value", &value)
                .unwrap_or(SimTime(1)),
        },
        other => super::workload_kinds::duration(c, "workload.duration", &other, base),
    };
    let mut ten = Vec::new();
    for (i, t) in tenants.iter().enumerate() {
        c.positive(&format!("workload.tenants[{i}].weight"), t.weight);
        ten.push((t.name.clone(), t.weight));
    }
    if ten.is_empty() {
        ten.push(("default".to_string(), 1.0));
    }
    let share = preemptible_share.unwrap_or(0.0);
    if !(0.0..=1.0).contains(&share) {
        c.err(
            "workload.preemptible_share",
            format!("must be between 0 and 1, got {share}"),
        );
    }
    let cpu = c.non_negative(
        "workload.cpu_cores_per_gpu",
        cpu_cores_per_gpu.unwrap_or(0.0),
    );
    let mem = c.non_negative(
        "workload.memory_gib_per_gpu",
        memory_gib_per_gpu.unwrap_or(0.0),
    );
    WorkloadSource::Synthetic(SyntheticSpec {
        rate_per_hour,
        until,
        jobs: jobs.map(|n| n.max(1) as u64),
        sizes: mix,
        duration: dist,
        tenants: ten,
        preemptible_share: share,
        cpu_milli_per_gpu: (cpu * 1000.0) as u32,
        mem_mib_per_gpu: (mem * 1024.0) as u64,
    })
}
