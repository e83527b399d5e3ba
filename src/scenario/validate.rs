//! Validation as a pipeline: raw serde structs -> one function per section -> a typed
//! [`Scenario`]. Every stage pushes its problems into one [`Problems`] collector.
//!
//! 1. **Sections**, each on its own (timing, GPU types, pools, workload, economics,
//!    faults); a section reads only what it is given. Problems keep the order of the
//!    calls in [`sections`] (then `Problems::into_error` sorts them by line).
//! 2. **Gate**: stop if anything is wrong, so the later stages see only valid sections.
//! 3. **Rules across sections**: an elastic pool's billing follows its pricing, and the
//!    scheduler takes each pool's price per GPU-hour (its own problems, budget and
//!    tenant weights, are reported once the sections are valid). Limits over several
//!    sections (the job cap, the cap on timeline rows, bounded retries, progress under
//!    failures, jobs no pool holds) are functions `fn(&mut Problems, &Sections)` listed in
//!    `limits::RULES`; a new one is one more line there.
//! 4. **Gate**, then the typed [`Scenario`].

use super::faults::FaultInputs;
use super::limits::RunLimits;
use super::pools::Pools;
use super::problems::Problems;
use super::raw::RawScenario;
use super::{Scenario, WorkloadSource};
use crate::engine::SimTime;
use crate::faults::FaultConfig;
use crate::model::GpuType;
use crate::pricing::{Egress, SavingsPlan, TcoSpec, TransferSpec};
use crate::sched::spot_deadline::DeadlineSpec;
use crate::sim::SimConfig;
use std::path::Path;

/// The timeline sample interval when the scenario gives none: an hour.
const DEFAULT_SAMPLE_EVERY: SimTime = SimTime(3_600_000);

/// The sections of a scenario, each validated on its own (stage 1).
pub(super) struct Sections {
    /// `horizon`: when the run stops, if it does.
    pub horizon: Option<SimTime>,
    /// `timeline_interval`: how often the timeline is sampled.
    pub sample_every: Option<SimTime>,
    /// `[[gpu_types]]` and the built-in types pools name.
    pub gpu_types: Vec<GpuType>,
    /// `[[pools]]`.
    pub pools: Pools,
    /// `[workload]`.
    pub workload: WorkloadSource,
    /// `[tco]`.
    pub tco: Option<TcoSpec>,
    /// `[spot_deadline]`.
    pub spot_deadline: Option<DeadlineSpec>,
    /// `[savings_plan]`.
    pub savings_plan: Option<SavingsPlan>,
    /// `[transfer]`.
    pub transfer: Option<TransferSpec>,
    /// Prices of data moved with checkpoints (`[transfer]`'s, else the catalog's).
    pub egress: Egress,
    /// Failures, checkpointing, maintenance and spot interruptions.
    pub faults: Option<FaultConfig>,
    /// `max_jobs` and `oversized`.
    pub limits: RunLimits,
    /// `workload.measured_on`.
    pub measured_on: Option<super::MeasuredOn>,
    /// `[metrics]`.
    pub metrics: crate::metrics::MetricsOptions,
    /// What the file leaves to defaults a user should know about.
    pub warnings: Vec<String>,
}

/// Validates a parsed scenario; `text` is hashed, `base` resolves data paths.
pub(super) fn validate(raw: RawScenario, text: &str, base: &Path) -> Result<Scenario, Problems> {
    let mut c = Problems::new();
    let mut s = sections(&mut c, &raw, base);
    let (cloud, tags) = super::cloud::cloud(&mut c, &raw, &s.pools.specs, &s.gpu_types, base);
    c.gate()?;
    super::autoscale::inherit_billing(&mut s.pools.autoscale, &s.pools.pricing, &raw.pools);
    let mut sched = super::scheduler::scheduler(&mut c, &raw.scheduler, &mut s.pools);
    sched.options.cloud = cloud;
    for rule in super::limits::RULES {
        rule(&mut c, &s);
    }
    c.gate()?;
    if let Some(w) = super::limits::memory_warning(&s) {
        s.warnings.push(w);
    }
    Ok(Scenario {
        name: raw.name,
        description: raw.description.unwrap_or_default(),
        seed: raw.seed.unwrap_or(1),
        hash: super::text_hash(text),
        gpu_types: s.gpu_types,
        sim: SimConfig {
            pools: s.pools.specs,
            policy: sched.policy,
            placement: sched.placement,
            horizon: s.horizon,
            sample_every: s.sample_every,
            options: sched.options,
        },
        pricing: s.pools.pricing,
        tco: s.tco,
        spot_deadline: s.spot_deadline,
        savings_plan: s.savings_plan,
        transfer: s.transfer,
        egress: s.egress,
        workload: s.workload,
        faults: s.faults,
        limits: s.limits,
        tags,
        measured_on: s.measured_on,
        metrics: s.metrics,
        warnings: s.warnings,
        output_format: raw.output_format.unwrap_or_default(),
    })
}

/// Stage 1: every section on its own.
fn sections(c: &mut Problems, raw: &RawScenario, base: &Path) -> Sections {
    let (horizon, sample_every) = timing(c, raw);
    let mut gpu_types = super::gpu_types::gpu_types(c, &raw.gpu_types);
    let pools = super::pools::pools(c, &raw.pools, &mut gpu_types, base);
    let (measured_on, warnings) =
        super::measured::measured_on(c, &raw.workload, &mut gpu_types, &pools.specs);
    super::gpu_types::check_count(c, &gpu_types);
    let metrics = super::measured::metrics(c, raw.metrics.as_ref());
    let workload = super::workload_source::workload(c, &raw.workload, horizon, base);
    let tco = raw.tco.as_ref().map(|t| super::sections::tco(t, base, c));
    let spot_deadline = raw
        .spot_deadline
        .as_ref()
        .map(|s| super::sections::spot_deadline(s, base, c));
    let savings_plan = raw
        .savings_plan
        .as_ref()
        .map(|s| super::sections::savings_plan(s, c));
    let transfer = raw
        .transfer
        .as_ref()
        .map(|t| super::sections::transfer(t, c));
    let egress = super::pricing::moves_egress(transfer.as_ref(), c);
    let faults = super::faults::faults(c, fault_inputs(raw), &pools.specs, base);
    let limits = limits(c, raw);
    Sections {
        horizon,
        sample_every,
        gpu_types,
        pools,
        workload,
        tco,
        spot_deadline,
        savings_plan,
        transfer,
        egress,
        faults,
        limits,
        measured_on,
        metrics,
        warnings,
    }
}

/// `max_jobs` and `oversized`.
fn limits(c: &mut Problems, raw: &RawScenario) -> RunLimits {
    let mut l = RunLimits::default();
    match super::limits::max_jobs_key(raw.max_jobs) {
        Ok(m) => l.max_jobs = m,
        Err(m) => c.err("max_jobs", m),
    }
    if let Some(super::raw::RawOversized::Reject) = raw.oversized {
        l.oversized = super::Oversized::Reject;
    }
    l
}

/// `horizon` and `timeline_interval`.
fn timing(c: &mut Problems, raw: &RawScenario) -> (Option<SimTime>, Option<SimTime>) {
    let horizon = raw
        .horizon
        .as_deref()
        .and_then(|h| c.duration("horizon", h));
    let sample = match raw.timeline_interval.as_deref() {
        Some(t) => c.duration("timeline_interval", t),
        None => Some(DEFAULT_SAMPLE_EVERY),
    };
    if sample == Some(SimTime::ZERO) {
        c.err("timeline_interval", "must be longer than zero");
    }
    // A run that stops at once simulates nothing: its jobs would vanish with exit 0.
    if horizon == Some(SimTime::ZERO) {
        c.err("horizon", "must be longer than zero");
    }
    (horizon, sample)
}

/// The fault sections of `raw`, with each pool's region and zone (for checkpoint moves).
fn fault_inputs(raw: &RawScenario) -> FaultInputs<'_> {
    FaultInputs {
        failures: raw.failures.as_ref(),
        checkpoint: raw.checkpoint.as_ref(),
        maintenance: &raw.maintenance,
        spot: &raw.spot_interruptions,
        locations: raw
            .pools
            .iter()
            .map(|p| {
                (
                    p.region.clone().unwrap_or_default(),
                    p.zone.clone().unwrap_or_default(),
                )
            })
            .collect(),
    }
}
