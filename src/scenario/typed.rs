//! The validated scenario: typed config that the run path consumes, with every value
//! checked and every path resolved.

use crate::model::GpuType;
use crate::sim::SimConfig;
use crate::workload::{BadRows, PaiSimOptions, SyntheticSpec};
use std::path::PathBuf;

/// Where a scenario's jobs come from.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkloadSource {
    /// Generated.
    Synthetic(SyntheticSpec),
    /// Read from a generic CSV trace.
    Csv {
        /// Resolved path of the trace.
        path: PathBuf,
        /// What to do with bad rows.
        bad_rows: BadRows,
    },
    /// Read from a trace in any supported format, filtered and shaped.
    Trace(crate::workload::TraceSpec),
    /// Generated from a workload model (arrival process and tenant mixes).
    Model(crate::workload::WorkloadModel),
    /// Given by the caller, already built (see [`Scenario::assembled`]).
    Given(std::sync::Arc<crate::model::Workload>),
    /// Read from a PAI-2020 simulator CSV.
    PaiSim {
        /// Resolved path of the trace.
        path: PathBuf,
        /// Reader options.
        options: PaiSimOptions,
    },
}

impl WorkloadSource {
    /// The trace file the workload is read from, if it is read from one.
    pub fn trace_path(&self) -> Option<&std::path::Path> {
        match self {
            WorkloadSource::Csv { path, .. } | WorkloadSource::PaiSim { path, .. } => Some(path),
            WorkloadSource::Trace(t) => Some(&t.path),
            _ => None,
        }
    }
}

/// A validated scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Master seed (the file's, or 1).
    pub seed: u64,
    /// Hash of the text.
    pub hash: String,
    /// GPU types.
    pub gpu_types: Vec<GpuType>,
    /// Simulation config (pools, policy, horizon).
    pub sim: SimConfig,
    /// Pricing model of each pool (see [`Scenario::pool_pricing`] for a run's seed).
    pub pricing: Vec<crate::pricing::PoolPricing>,
    /// `[tco]`: buy-versus-rent candidates for `gpufleet tco`.
    pub tco: Option<crate::pricing::TcoSpec>,
    /// `[spot_deadline]`: a deadline job on a spot trace.
    pub spot_deadline: Option<crate::sched::spot_deadline::DeadlineSpec>,
    /// `[savings_plan]`: a commitment covering the on-demand pools.
    pub savings_plan: Option<crate::pricing::SavingsPlan>,
    /// `[transfer]`: data moved per job and its prices.
    pub transfer: Option<crate::pricing::TransferSpec>,
    /// Prices of data moved with checkpoints between zones and regions.
    pub egress: crate::pricing::Egress,
    /// The workload.
    pub workload: WorkloadSource,
    /// Failures, maintenance and checkpointing, if configured.
    pub faults: Option<crate::faults::FaultConfig>,
    /// `max_jobs` and `oversized`.
    pub limits: super::RunLimits,
    /// Classes and datasets the workload's jobs are tagged with (`[throughput] mix`,
    /// `[[datasets]]` shares).
    pub tags: crate::workload::TagSpec,
    /// The GPU type the workload's run times were measured on (`workload.measured_on`):
    /// they become reference-GPU work by its speed when the workload is built.
    pub measured_on: Option<super::MeasuredOn>,
    /// Parameters of the research metrics (`[metrics]`).
    pub metrics: crate::metrics::MetricsOptions,
    /// Things the file leaves to defaults that a user should hear about (printed by the
    /// commands, never fatal).
    pub warnings: Vec<String>,
    /// The run folder's table files (`output_format`; default CSV).
    pub output_format: crate::report::OutputFormat,
}

impl Scenario {
    /// What a generated workload will make, estimated without generating it (`None` for
    /// a trace, which is read instead).
    pub fn workload_estimate(&self) -> Option<crate::workload::SizeEstimate> {
        match &self.workload {
            WorkloadSource::Synthetic(x) => Some(x.estimate()),
            WorkloadSource::Model(m) => Some(m.estimate()),
            _ => None,
        }
    }

    /// Builds the workload for a run with `seed` (see [`Scenario::workload_from`]).
    pub fn build_workload(
        &self,
        seed: u64,
    ) -> Result<crate::model::Workload, crate::workload::TraceError> {
        self.workload_from(&crate::engine::RngStreams::new(seed))
    }

    /// Builds the workload for a run drawing from `streams`, its GPU types mapped onto the
    /// scenario's, its run times turned into reference-GPU work by `measured_on` (a
    /// workload given prebuilt is taken as it is).
    pub fn workload_from(
        &self,
        streams: &crate::engine::RngStreams,
    ) -> Result<crate::model::Workload, crate::workload::TraceError> {
        // Every source stops at `max_jobs` (generators one job past it, to tell).
        let max = self.limits.max_jobs;
        let over = |n: usize| n as u64 > max;
        let generated = |file: &str| crate::workload::TraceError::File {
            file: PathBuf::from(file),
            reason: crate::workload::too_many_jobs(max),
        };
        let mut w = match &self.workload {
            WorkloadSource::Synthetic(spec) => {
                let mut spec = spec.clone();
                spec.jobs = Some(spec.jobs.unwrap_or(u64::MAX).min(max.saturating_add(1)));
                let w = spec.generate(streams);
                if over(w.jobs.len()) {
                    return Err(generated("[workload] synthetic"));
                }
                w
            }
            WorkloadSource::Csv { path, bad_rows } => {
                crate::workload::read_generic_capped(path, *bad_rows, Some(max))?
            }
            WorkloadSource::Trace(spec) => {
                let gpus: f64 = self
                    .sim
                    .pools
                    .iter()
                    .map(|p| p.nodes as f64 * p.node.gpus as f64)
                    .sum();
                let mut spec = spec.clone();
                spec.filter.max_jobs = Some(max);
                spec.shaping.max_jobs = Some(max);
                spec.load(streams, gpus)?.0
            }
            WorkloadSource::Model(m) => {
                let mut m = m.clone();
                m.jobs = Some(m.jobs.unwrap_or(u64::MAX).min(max.saturating_add(1)));
                let w = m.generate(streams);
                if over(w.jobs.len()) {
                    return Err(generated("[workload] model"));
                }
                w
            }
            WorkloadSource::PaiSim { path, options } => {
                let mut o = *options;
                o.max_jobs = Some(max);
                crate::workload::read_pai_sim_csv(path, o)?
            }
            WorkloadSource::Given(w) => w.as_ref().clone(),
        };
        if let (Some(m), false) = (
            &self.measured_on,
            matches!(self.workload, WorkloadSource::Given(_)),
        ) {
            crate::workload::to_reference_work(&mut w, m.speed);
        }
        let names: Vec<String> = self.gpu_types.iter().map(|t| t.name.clone()).collect();
        // Jobs constrained only to types this cluster lacks keep an empty mask and are rejected.
        let _unknown = w.remap_types(&names);
        crate::workload::apply_tags(&mut w, &self.tags, streams).map_err(|reason| {
            crate::workload::TraceError::File {
                file: self.workload_path().unwrap_or_else(|| "workload".into()),
                reason,
            }
        })?;
        Ok(w)
    }

    /// The workload's file, when it is read from one.
    fn workload_path(&self) -> Option<std::path::PathBuf> {
        match &self.workload {
            WorkloadSource::Csv { path, .. } | WorkloadSource::PaiSim { path, .. } => {
                Some(path.clone())
            }
            WorkloadSource::Trace(spec) => Some(spec.path.clone()),
            _ => None,
        }
    }
}
