//! Validation of the `synthetic` workload kind: Poisson arrivals, a size mix, a duration
//! distribution, tenants.

use super::problems::Problems;
use super::raw::RawSynthetic;
use super::workload_kinds::{duration, size};
use crate::engine::SimTime;
use crate::workload::SyntheticSpec;
use std::path::Path;

/// Validates a `kind = "synthetic"` workload; `horizon` ends it when neither `jobs` nor
/// `until` does.
pub(super) fn synthetic(
    c: &mut Problems,
    w: &RawSynthetic,
    horizon: Option<SimTime>,
    base: &Path,
) -> SyntheticSpec {
    c.positive("workload.rate_per_hour", w.rate_per_hour);
    let until = end(c, "synthetic", w.until.as_deref(), w.jobs, horizon);
    if w.sizes.is_empty() {
        c.err(
            "workload.sizes",
            "give at least one size, e.g. [{ gpus = 1, weight = 1.0 }]",
        );
    }
    let sizes = w
        .sizes
        .iter()
        .enumerate()
        .map(|(i, s)| size(c, &format!("workload.sizes[{i}]"), s, false))
        .collect();
    let duration = duration(c, "workload.duration", &w.duration, base);
    let mut tenants = Vec::new();
    for (i, t) in w.tenants.iter().enumerate() {
        c.weight(&format!("workload.tenants[{i}].weight"), t.weight);
        tenants.push((t.name.clone(), t.weight));
    }
    if tenants.is_empty() {
        tenants.push(("default".to_string(), 1.0));
    }
    let share = w.preemptible_share.unwrap_or(0.0);
    if !(0.0..=1.0).contains(&share) {
        c.err(
            "workload.preemptible_share",
            format!("must be between 0 and 1, got {share}"),
        );
    }
    let (cpu_milli_per_gpu, mem_mib_per_gpu) =
        per_gpu(c, w.cpu_cores_per_gpu, w.memory_gib_per_gpu);
    SyntheticSpec {
        rate_per_hour: w.rate_per_hour,
        until,
        jobs: w.jobs.map(|n| n.max(1) as u64),
        sizes,
        duration,
        tenants,
        preemptible_share: share,
        cpu_milli_per_gpu,
        mem_mib_per_gpu,
    }
}

/// When a generated workload of `kind` stops: at `until` (or the scenario's horizon, when
/// earlier or alone) or after `jobs` jobs, whichever comes first; it needs one of them.
pub(super) fn end(
    c: &mut Problems,
    kind: &str,
    until: Option<&str>,
    jobs: Option<i64>,
    horizon: Option<SimTime>,
) -> Option<SimTime> {
    // Jobs after the horizon are never submitted: generation stops there too.
    let until = match (until, horizon) {
        (Some(u), h) => c
            .duration("workload.until", u)
            .map(|u| h.map_or(u, |h| u.min(h))),
        (None, h) => h,
    };
    if let Some(n) = jobs {
        if n < 1 {
            c.err("workload.jobs", format!("must be at least 1, got {n}"));
        }
    }
    if until.is_none() && jobs.is_none() {
        c.err(
            "workload",
            format!("a {kind} workload needs `jobs`, `until` or a scenario `horizon` to end"),
        );
    }
    until
}

/// CPU (milli-cores) and memory (MiB) a job asks for per GPU, from
/// `workload.cpu_cores_per_gpu` and `workload.memory_gib_per_gpu` (default none).
pub(super) fn per_gpu(c: &mut Problems, cpu: Option<f64>, mem: Option<f64>) -> (u32, u64) {
    let cpu = c.nonneg("workload.cpu_cores_per_gpu", cpu.unwrap_or(0.0));
    let mem = c.nonneg("workload.memory_gib_per_gpu", mem.unwrap_or(0.0));
    ((cpu * 1000.0) as u32, (mem * 1024.0) as u64)
}
