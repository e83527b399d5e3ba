//! Limits as policy: stage-3 rules of the validation pipeline that refuse, naming the field
//! and the limit, a scenario that cannot finish in bounded time and memory. Each is one
//! `fn(&mut Problems, &Sections)` in [`RULES`]; sizes are estimated from the sections
//! (rates, counts, spans), never by generating the workload.
//!
//! | limit | default | what it bounds |
//! |---|---|---|
//! | `max_jobs` | 10,000,000 | jobs a run holds (about 0.6 KB each); generated workloads are estimated, traces and replication stop at it |
//! | timeline rows | 1,000,000 | `timeline.csv` rows (samples x pools); longer runs widen the interval |
//! | `checkpoint.max_retries` | 10,000 (also the most allowed without a horizon) | restarts of a killed job (a Llama 3 scale job restarts about 460 times in 59 days) |
//! | a checkpoint write or restart | shorter than a node's mean time between failures | progress of a job under failures |
//! | `failures.repair` mean, a spot node's `replace_after` | 100 years | how long a node stays down (a finite mean: a log-normal's sigma bounds it) |
//! | a run without a horizon | 100 years after its last arrival, 10,000,000 failure and interruption events + 1,000 a job (at most 100,000,000) | jobs that never end (they stop as unfinished, with a warning) |
//! | node failures | 100,000,000 over the run (a trace's span once read; Weibull shapes under 1 by their gaps) | failure events |
//! | spot interruptions | 100,000,000 over the run | interruption events and zone spells (each held in memory) |
//! | spans | 100 years | `horizon`, generated arrivals |
//! | MMPP state changes | 100,000,000 | the arrival generator's loop |

use super::problems::Problems;
use super::validate::Sections;
use super::WorkloadSource;
use crate::engine::SimTime;
use crate::faults::CheckpointPolicy;
use crate::workload::{ArrivalProcess, SizeEstimate};

/// The most jobs a run holds unless the scenario's `max_jobs` says otherwise.
pub const DEFAULT_MAX_JOBS: u64 = 10_000_000;
/// The most `timeline.csv` rows (samples times pools) a scenario may ask for (the
/// simulation widens the interval of a run that goes on longer than its scenario said).
pub const MAX_TIMELINE_ROWS: f64 = crate::sim::MAX_TIMELINE_ROWS as f64;
/// The most restarts per job a run without a horizon may allow.
pub const MAX_RETRIES_WITHOUT_HORIZON: u32 = 10_000;
/// The longest simulated span: 100 years.
pub const MAX_SPAN: SimTime = crate::sim::MAX_RUN_SPAN;
/// The most node failures expected over a run.
pub const MAX_FAILURES: f64 = 1e8;
/// The most state changes of an MMPP arrival process over its generated span.
pub const MAX_ARRIVAL_SEGMENTS: f64 = 1e8;

/// Limits a scenario sets for itself (top-level `max_jobs` and `oversized`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunLimits {
    /// The most jobs a run may hold.
    pub max_jobs: u64,
    /// What to do with jobs no pool can ever hold.
    pub oversized: super::Oversized,
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits {
            max_jobs: DEFAULT_MAX_JOBS,
            oversized: super::Oversized::Error,
        }
    }
}

/// A top-level `max_jobs` key as given (`None`: the default), or why it is refused. Run,
/// FGD and placement-comparison scenarios read it alike.
pub(super) fn max_jobs_key(given: Option<i64>) -> Result<u64, String> {
    match given {
        None => Ok(DEFAULT_MAX_JOBS),
        Some(m) if m < 1 => Err(format!("must be at least 1, got {m}")),
        Some(m) => Ok(m as u64),
    }
}

/// The stage-3 limit rules, in the order they run.
pub(super) const RULES: &[fn(&mut Problems, &Sections)] = &[
    spans,
    job_cap,
    job_lengths,
    timeline_cap,
    bounded_retries,
    progress_under_failures,
    repairs_end,
    fault_counts,
    super::oversized::generated_sizes_fit,
];

/// Memory a run holds per job, bytes: measured with `benches/end_to_end.rs` (peak 6.1 GB
/// for 10,000,000 jobs with failures, 657 MiB for 1,000,000 without, outputs included).
pub const BYTES_PER_JOB: f64 = 640.0;

/// A warning when `max_jobs` was raised past the default and the run may hold more jobs
/// than it (a trace's size is not known before reading: then `max_jobs` is the bound): how
/// much memory that many jobs take, so a user learns it before the machine does.
pub(super) fn memory_warning(s: &Sections) -> Option<String> {
    let max = s.limits.max_jobs;
    if max <= DEFAULT_MAX_JOBS {
        return None;
    }
    let (jobs, what) = match estimate(s) {
        Some(e) if e.jobs.min(max as f64) <= DEFAULT_MAX_JOBS as f64 => return None,
        Some(e) => (e.jobs.min(max as f64), "about"),
        None => (max as f64, "up to"),
    };
    Some(format!(
        "max_jobs = {} lets this run hold {what} {} jobs: about {:.1} GB of memory at {} bytes a job (the default cap, {}, is about {:.1} GB)",
        count(max as f64),
        count(jobs),
        jobs * BYTES_PER_JOB / 1e9,
        BYTES_PER_JOB,
        count(DEFAULT_MAX_JOBS as f64),
        DEFAULT_MAX_JOBS as f64 * BYTES_PER_JOB / 1e9,
    ))
}

/// What the generated workload will make, if it is generated.
fn estimate(s: &Sections) -> Option<SizeEstimate> {
    match &s.workload {
        WorkloadSource::Synthetic(x) => Some(x.estimate()),
        WorkloadSource::Model(m) => Some(m.estimate()),
        _ => None,
    }
}

/// The field that ends a generated workload: `workload.jobs` when the count does,
/// `horizon` when the horizon does, else `workload.until`.
fn end_field(s: &Sections, e: &SizeEstimate) -> &'static str {
    let until = match &s.workload {
        WorkloadSource::Synthetic(x) => x.until,
        WorkloadSource::Model(m) => m.until,
        _ => None,
    };
    if e.exact {
        "workload.jobs"
    } else if until.is_some() && until == s.horizon {
        "horizon"
    } else {
        "workload.until"
    }
}

/// How long the run lasts at least: the horizon, or (without one) the generated arrivals
/// plus a mean duration; `None` when unknown before reading a trace.
fn run_span_secs(s: &Sections) -> Option<f64> {
    if let Some(h) = s.horizon {
        return Some(h.secs_f64());
    }
    let e = estimate(s)?;
    let mean_h = match &s.workload {
        WorkloadSource::Synthetic(x) => x.duration.mean_hours(),
        WorkloadSource::Model(m) => m
            .tenants
            .iter()
            .map(|t| t.duration.mean_hours() * m.duration_multiplier)
            .fold(0.0, f64::max),
        _ => 0.0,
    };
    Some(e.span_secs + mean_h * 3600.0)
}

/// A count for messages: `12,345,678` below a trillion, `1.2e15` above.
pub(crate) fn count(x: f64) -> String {
    if !x.is_finite() {
        return "unbounded".to_string();
    }
    if x >= 1e12 {
        return format!("{x:.1e}");
    }
    let digits = format!("{}", x.round() as u64);
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A duration in the largest unit that keeps it above one (`90s`, `2.5h`, `3d`), as a
/// scenario file would write it.
fn human(t: SimTime) -> String {
    let s = t.secs_f64();
    let (v, u) = if s < 1.0 {
        (s * 1000.0, "ms")
    } else if s < 60.0 {
        (s, "s")
    } else if s < 3600.0 {
        (s / 60.0, "m")
    } else if s < 86_400.0 {
        (s / 3600.0, "h")
    } else {
        (s / 86_400.0, "d")
    };
    if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}{u}")
    } else {
        format!("{v:.1}{u}")
    }
}

/// `horizon`, generated spans and MMPP state changes within their limits.
fn spans(c: &mut Problems, s: &Sections) {
    let years = MAX_SPAN.secs_f64() / (365.0 * 86_400.0);
    if s.horizon.is_some_and(|h| h > MAX_SPAN) {
        c.err(
            "horizon",
            format!("longer than {years:.0} years, the longest span gpufleet simulates"),
        );
    }
    let Some(e) = estimate(s) else { return };
    let span = e
        .span_secs
        .min(s.horizon.map_or(f64::INFINITY, |h| h.secs_f64()));
    if span > MAX_SPAN.secs_f64() && s.horizon.is_none() {
        c.err(
            end_field(s, &e),
            format!(
                "arrivals would span about {} years, more than the {years:.0} gpufleet simulates",
                count(span / (365.0 * 86_400.0))
            ),
        );
        return;
    }
    if let WorkloadSource::Model(m) = &s.workload {
        if let ArrivalProcess::Mmpp { mean_dwell, .. } = &m.arrivals {
            let cycle = (mean_dwell[0].secs_f64() + mean_dwell[1].secs_f64()).max(1e-3);
            let changes = 2.0 * span.min(MAX_SPAN.secs_f64()) / cycle;
            if changes > MAX_ARRIVAL_SEGMENTS {
                c.err(
                    "workload.arrivals.mean_dwell",
                    format!(
                        "about {} burst state changes over the arrivals, more than {}: use longer dwell times",
                        count(changes),
                        count(MAX_ARRIVAL_SEGMENTS)
                    ),
                );
            }
        }
    }
}

/// A generated workload within `max_jobs`: its expected count, plus six standard deviations
/// of a Poisson count when time ends it, at most `max_jobs`.
fn job_cap(c: &mut Problems, s: &Sections) {
    let Some(e) = estimate(s) else { return };
    let max = s.limits.max_jobs as f64;
    let upper = if e.exact {
        e.jobs
    } else {
        e.jobs + 6.0 * e.jobs.sqrt()
    };
    if upper > max {
        c.err(
            end_field(s, &e),
            format!(
                "would generate about {} jobs, more than max_jobs = {} (the most a run holds in memory, about 0.6 KB a job); generate fewer, or set max_jobs higher",
                count(e.jobs),
                count(max)
            ),
        );
    }
}

/// At most [`MAX_TIMELINE_ROWS`] timeline rows over the run's known span.
fn timeline_cap(c: &mut Problems, s: &Sections) {
    let (Some(dt), Some(span)) = (s.sample_every, run_span_secs(s)) else {
        return;
    };
    // A span past the longest is its own problem (`spans`, `job_lengths` name it).
    if dt.0 == 0 || span.is_nan() || span > MAX_SPAN.secs_f64() {
        return;
    }
    let pools = s.pools.specs.len().max(1) as f64;
    let rows = (span / dt.secs_f64()).floor() * pools;
    if rows > MAX_TIMELINE_ROWS {
        let min_dt = span * pools / MAX_TIMELINE_ROWS;
        c.err(
            "timeline_interval",
            format!(
                "{} samples of {} pools is {} timeline rows, more than {}: sample every {} or longer{}",
                count(span / dt.secs_f64()),
                pools,
                count(rows),
                count(MAX_TIMELINE_ROWS),
                human(SimTime::from_secs_f64(min_dt.ceil())),
                if s.horizon.is_none() { " (or set a horizon)" } else { "" }
            ),
        );
    }
}

/// Without a horizon the run lasts until its jobs end: a duration distribution whose mean
/// passes the longest span (a lognormal `sigma` of 1e300, a Weibull `shape` of 1e-300) is
/// refused at its own field, not as a timeline without bound.
fn job_lengths(c: &mut Problems, s: &Sections) {
    if s.horizon.is_some() {
        return;
    }
    let mut check = |path: String, hours: f64| {
        if hours.is_nan() || hours * 3600.0 > MAX_SPAN.secs_f64() {
            c.err(
                path,
                format!(
                    "{}, past the longest span (100 years): jobs would not end; give a distribution with a smaller mean (a smaller sigma, a larger shape) or a horizon",
                    if hours.is_finite() {
                        format!("a mean run time of {} hours", count(hours))
                    } else {
                        "an unbounded mean run time".into()
                    }
                ),
            );
        }
    };
    match &s.workload {
        WorkloadSource::Synthetic(x) => check("workload.duration".into(), x.duration.mean_hours()),
        WorkloadSource::Model(m) => {
            for (i, t) in m.tenants.iter().enumerate() {
                let hours = t.duration.mean_hours() * m.duration_multiplier;
                check(format!("workload.tenants[{i}].duration"), hours);
            }
        }
        _ => {}
    }
}

/// True when something in the faults kills running jobs (so they restart).
fn kills_jobs(s: &Sections) -> bool {
    s.faults
        .as_ref()
        .is_some_and(|f| !f.processes.is_empty() || !f.trace.is_empty() || !f.spot.is_empty())
}

/// Without a horizon, a job may restart at most [`MAX_RETRIES_WITHOUT_HORIZON`] times.
fn bounded_retries(c: &mut Problems, s: &Sections) {
    let Some(f) = &s.faults else { return };
    if s.horizon.is_some() || !kills_jobs(s) {
        return;
    }
    let m = f.checkpointing.max_retries;
    if m > MAX_RETRIES_WITHOUT_HORIZON {
        c.err(
            "checkpoint.max_retries",
            format!(
                "{m} restarts per job with failures and no horizon may never end: at most {MAX_RETRIES_WITHOUT_HORIZON} unless a horizon bounds the run"
            ),
        );
    }
}

/// A failed node must come back within the longest span simulated: a mean repair of
/// millennia (or an infinite one, a log-normal with a large sigma) leaves jobs waiting for
/// nodes that never return while failures go on being drawn on the nodes still up.
fn repairs_end(c: &mut Problems, s: &Sections) {
    let Some(f) = &s.faults else { return };
    let limit_h = MAX_SPAN.hours_f64();
    if !f.processes.is_empty() || !f.trace.is_empty() {
        let mean_h = f.repair.mean_hours();
        if mean_h.is_nan() || mean_h > limit_h {
            c.err(
                "failures.repair",
                format!(
                    "a mean repair time of {} is longer than 100 years, the longest span gpufleet simulates: a failed node would never come back{}",
                    if mean_h.is_finite() { format!("{:.3e} years", mean_h / 8760.0) } else { "infinity".to_string() },
                    match f.repair {
                        crate::workload::DurationDist::LogNormal { .. } => " (a log-normal's mean is median x exp(sigma^2 / 2): lower sigma)",
                        _ => "",
                    }
                ),
            );
        }
    }
    for (i, sp) in f.spot.iter().enumerate() {
        if sp.replace_after > MAX_SPAN {
            c.err(
                format!("spot_interruptions[{i}].replace_after"),
                format!(
                    "{} is longer than 100 years, the longest span gpufleet simulates: an interrupted node would never come back",
                    human(sp.replace_after)
                ),
            );
        }
    }
}

/// A checkpoint write and a restart each shorter than the mean time between failures of a
/// one-node job on every pool that fails (bigger jobs fail more often still): else no
/// checkpoint completes and jobs restart until they give up.
fn progress_under_failures(c: &mut Problems, s: &Sections) {
    let Some(f) = &s.faults else { return };
    let ck = &f.checkpointing;
    for (p, spec) in s.pools.specs.iter().enumerate() {
        let per_day: f64 = f
            .processes
            .iter()
            .filter(|(_, pools)| pools.is_empty() || pools.contains(&p))
            .map(|(proc_, _)| proc_.node_rate_per_day(spec.node.gpus))
            .sum();
        if per_day.is_nan() || per_day <= 0.0 {
            continue;
        }
        let mtbf = SimTime::from_secs_f64(86_400.0 / per_day);
        let checks = [
            (
                "checkpoint.write_time",
                ck.write,
                ck.policy != CheckpointPolicy::None,
            ),
            ("checkpoint.restart_overhead", ck.restart, true),
        ];
        for (path, t, applies) in checks {
            if applies && t.0 > 0 && t >= mtbf {
                c.err(
                    path,
                    format!(
                        "{} is not shorter than the mean time between failures of one node of pool {} ({}): no job would make progress",
                        human(t),
                        spec.name,
                        human(mtbf)
                    ),
                );
                return;
            }
        }
    }
}

/// At most [`MAX_FAILURES`] node failures, and as many spot interruptions (per-node
/// interruptions, or pool-wide spells), expected over the run's known span.
fn fault_counts(c: &mut Problems, s: &Sections) {
    let Some(f) = &s.faults else { return };
    let Some(span) = run_span_secs(s) else { return };
    let span = span.min(MAX_SPAN.secs_f64());
    if let Some(m) = too_many_failures(f, &s.pools.specs, span) {
        c.err("failures", m);
    }
    if let Some(m) = too_many_interruptions(f, &s.pools.specs, span) {
        c.err("spot_interruptions", m);
    }
}

/// The node failures `f`'s processes make on `pools` over `span` seconds, when more than
/// [`MAX_FAILURES`]: the message. A Weibull process with a shape under 1 is counted by its
/// gaps as they fall within the span, not by its mean (a shape of 0.01 has a mean of
/// months and almost every gap under a millisecond: a failure at every millisecond).
fn too_many_failures(
    f: &crate::faults::FaultConfig,
    pools: &[crate::model::PoolSpec],
    span: f64,
) -> Option<String> {
    let n: f64 = pools
        .iter()
        .enumerate()
        .map(|(p, spec)| {
            f.processes
                .iter()
                .filter(|(_, pools)| pools.is_empty() || pools.contains(&p))
                .map(|(pr, _)| pr.expected_node_failures(spec.node.gpus, span) * spec.nodes as f64)
                .sum::<f64>()
        })
        .sum();
    let heavy = f.processes.iter().any(
        |(pr, _)| matches!(pr.dist, crate::faults::FailureDist::Weibull { shape } if shape < 1.0),
    );
    (n.is_nan() || n > MAX_FAILURES).then(|| {
        format!(
            "about {} node failures over the run, more than {}: lower the rate{} or shorten the run",
            count(n),
            count(MAX_FAILURES),
            if heavy {
                ", raise weibull_shape (below 1 most gaps are far shorter than the mean)"
            } else {
                ""
            }
        )
    })
}

/// Mean time, hours, from one spot interruption of a node to the next (its lifetime
/// plus the wait for a replacement), or of a pool-wide spell (up plus down); `None` for
/// an availability trace, whose length bounds it.
fn spot_cycle_hours(i: &crate::faults::SpotInterruptions) -> Option<f64> {
    use crate::faults::SpotModel;
    let replace = i.replace_after.hours_f64();
    match &i.model {
        SpotModel::Poisson(h) => Some(1.0 / h.per_hour + replace),
        SpotModel::Bathtub(b) => {
            // Mean lifetime = the integral of the survival 1 - F over [0, b] (midpoints).
            let n = 1000;
            let dt = b.b_h / n as f64;
            let life: f64 = (0..n)
                .map(|k| (1.0 - b.cdf((k as f64 + 0.5) * dt)).max(0.0) * dt)
                .sum();
            Some(life + replace)
        }
        SpotModel::Zone(z) => Some(z.mean_up_h + z.mean_down_h),
        SpotModel::Trace(_) => None,
    }
}

/// The spot interruptions `f` makes on `pools` over `span` seconds, when more than
/// [`MAX_FAILURES`]: the message.
fn too_many_interruptions(
    f: &crate::faults::FaultConfig,
    pools: &[crate::model::PoolSpec],
    span: f64,
) -> Option<String> {
    let hours = span / 3600.0;
    let n: f64 = f
        .spot
        .iter()
        .filter_map(|i| {
            let cycle = spot_cycle_hours(i)?;
            let nodes = match i.model {
                crate::faults::SpotModel::Zone(_) => 1.0,
                _ => pools.get(i.pool).map_or(0.0, |p| p.nodes as f64),
            };
            Some(if cycle > 0.0 {
                nodes * hours / cycle
            } else {
                f64::INFINITY
            })
        })
        .sum();
    (n.is_nan() || n > MAX_FAILURES).then(|| {
        format!(
            "about {} spot interruptions over the run, more than {}: lower the rate, lengthen the spells or shorten the run",
            count(n),
            count(MAX_FAILURES)
        )
    })
}

/// A trace's workload is known only once read: without a horizon the run lasts at least
/// until its last job could end (its submit plus its run time), and
/// node failures and spot interruptions over that span are held to the same limits as a
/// generated workload's, and a savings plan (settled hour by hour) to the longest span.
/// `Err` is the message, naming the field and the limit.
pub fn check_trace_span(s: &super::Scenario, w: &crate::model::Workload) -> Result<(), String> {
    if s.sim.horizon.is_some() || s.workload_estimate().is_some() {
        return Ok(());
    }
    // Each job's submit plus its work at the reference speed (the run's least span), and
    // at the slowest pool's speed (its longest).
    let slowest = s
        .sim
        .pools
        .iter()
        .map(|p| p.speed)
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min)
        .min(1.0);
    let (end, longest) = w.jobs.iter().fold((0.0f64, 0.0f64), |(a, b), j| {
        let (t, work) = (j.submit.secs_f64(), j.work.secs_f64());
        (a.max(t + work), b.max(t + work / slowest))
    });
    let span = end.min(MAX_SPAN.secs_f64());
    let years = end / (365.0 * 86_400.0);
    let faults = |check: fn(
        &crate::faults::FaultConfig,
        &[crate::model::PoolSpec],
        f64,
    ) -> Option<String>| {
        s.faults.as_ref().and_then(|f| check(f, &s.sim.pools, span))
    };
    // A savings plan is settled hour by hour over the whole run (a trace job of a million
    // years held a vector of its hours until the allocator aborted).
    let plan = (s.savings_plan.is_some() && longest > MAX_SPAN.secs_f64()).then(|| {
        format!(
            "settled hour by hour over up to {} years (on the slowest pool), more than the {:.0} gpufleet simulates",
            count(longest / (365.0 * 86_400.0)),
            MAX_SPAN.secs_f64() / (365.0 * 86_400.0)
        )
    });
    let problems: Vec<String> = [
        ("failures", faults(too_many_failures)),
        ("spot_interruptions", faults(too_many_interruptions)),
        ("savings_plan", plan),
    ]
    .into_iter()
    .filter_map(|(field, m)| m.map(|m| format!("{field}: {m}")))
    .collect();
    if problems.is_empty() {
        return Ok(());
    }
    Err(format!(
        "the workload's jobs run until {} at least (no horizon): {}; or set a horizon",
        if years >= 1.0 {
            format!("{years:.1} years")
        } else {
            human(SimTime::from_secs_f64(end))
        },
        problems.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn counts_read_well() {
        assert_eq!(count(1234567.0), "1,234,567");
        assert_eq!(count(999.0), "999");
        assert_eq!(count(2.5e15), "2.5e15");
        assert_eq!(count(f64::INFINITY), "unbounded");
    }
}
