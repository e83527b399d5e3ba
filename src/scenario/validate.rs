//! Validation: raw scenario structs into typed config, collecting every problem.

use super::raw::{RawPaiEstimate, RawScenario, RawWorkload};
use super::Problem;
use crate::engine::{parse_duration, SimTime};
use crate::model::{GpuType, NodeSpec, PoolSpec};
use crate::pricing::PricingModel;
use crate::sched::PolicyKind;
use crate::sim::SimConfig;
use crate::workload::{BadRows, PaiEstimate, PaiSimOptions, SyntheticSpec};
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
}

pub(super) struct Collector(pub(super) Vec<Problem>);

impl Collector {
    pub(super) fn err(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(Problem {
            path: path.into(),
            line: None,
            message: message.into(),
        });
    }
    pub(super) fn duration(&mut self, path: &str, text: &str) -> Option<SimTime> {
        match parse_duration(text) {
            Ok(t) => Some(t),
            Err(e) => {
                self.err(path, e.to_string());
                None
            }
        }
    }
    pub(super) fn positive(&mut self, path: &str, x: f64) -> f64 {
        if !(x.is_finite() && x > 0.0) {
            self.err(path, format!("must be a positive number, got {x}"));
        }
        x
    }
    pub(super) fn non_negative(&mut self, path: &str, x: f64) -> f64 {
        if !(x.is_finite() && x >= 0.0) {
            self.err(path, format!("must be zero or more, got {x}"));
        }
        x
    }
}

/// Known GPU types, so that a scenario may name one without describing it. Figures from
/// the vendors' data sheets (memory, board power); speed is relative to the H100 SXM at
/// 1.0 and is only a coarse default: override it for your workload.
fn builtin_gpu(name: &str) -> Option<GpuType> {
    let (mem, speed, power) = match name {
        "H100" => (80.0, 1.0, 700.0),
        "H200" => (141.0, 1.2, 700.0),
        "A100" => (80.0, 0.4, 400.0),
        "V100" => (32.0, 0.15, 300.0),
        "A10" => (24.0, 0.12, 150.0),
        "T4" => (16.0, 0.05, 70.0),
        "L4" => (24.0, 0.1, 72.0),
        _ => return None,
    };
    Some(GpuType {
        name: name.to_string(),
        memory_gb: mem,
        speed,
        power_w: power,
    })
}

/// An elastic pool's autoscaler from its `[pools.autoscale]` table.
fn autoscale_of(
    c: &mut Collector,
    p: &str,
    a: &super::raw::RawAutoscale,
    rp: &super::raw::RawPool,
    nodes: u32,
) -> crate::sched::Autoscale {
    use crate::model::CapacityKind;
    let d = crate::sched::Autoscale::default();
    let at = format!("{p}.autoscale");
    if !matches!(rp.kind, CapacityKind::OnDemand | CapacityKind::Spot) {
        c.err(
            format!("{p}.kind"),
            format!(
                "only on_demand and spot pools can autoscale, not {}",
                rp.kind
            ),
        );
    }
    let min = a.min_nodes.unwrap_or(0);
    if min < 0 || min > nodes as i64 {
        c.err(
            format!("{at}.min_nodes"),
            format!("must be between 0 and the pool's nodes ({nodes}), got {min}"),
        );
    }
    let mut dur = |field: &str, v: &Option<String>, default: SimTime| match v {
        Some(text) => c
            .duration(&format!("{at}.{field}"), text)
            .unwrap_or(default),
        None => default,
    };
    let provisioning_delay = dur(
        "provisioning_delay",
        &a.provisioning_delay,
        d.provisioning_delay,
    );
    let idle_timeout = dur("idle_timeout", &a.idle_timeout, d.idle_timeout);
    let billing_increment = dur(
        "billing_increment",
        &a.billing_increment,
        d.billing_increment,
    );
    let billing_minimum = dur("billing_minimum", &a.billing_minimum, d.billing_minimum);
    let scale_up_after = dur("scale_up_after", &a.scale_up_after, d.scale_up_after);
    if billing_increment == SimTime::ZERO {
        c.err(
            format!("{at}.billing_increment"),
            "must be longer than zero",
        );
    }
    let mut availability = Vec::new();
    for (i, s) in a.availability.iter().enumerate() {
        let t = c.duration(&format!("{at}.availability[{i}].at"), &s.at);
        if s.nodes < 0 {
            c.err(
                format!("{at}.availability[{i}].nodes"),
                format!("must be zero or more, got {}", s.nodes),
            );
        }
        if let Some(t) = t {
            if availability.last().is_some_and(|&(prev, _)| prev >= t) {
                c.err(format!("{at}.availability[{i}].at"), "times must increase");
            }
            availability.push((t, s.nodes.clamp(0, u32::MAX as i64) as u32));
        }
    }
    crate::sched::Autoscale {
        min_nodes: min.clamp(0, nodes as i64) as u32,
        provisioning_delay,
        idle_timeout,
        billing_increment,
        billing_minimum,
        scale_up_after,
        availability,
    }
}

pub(super) fn validate(
    raw: RawScenario,
    text: &str,
    base: &std::path::Path,
) -> Result<Scenario, Vec<Problem>> {
    let mut c = Collector(Vec::new());
    let horizon = raw
        .horizon
        .as_deref()
        .and_then(|h| c.duration("horizon", h));
    let sample = match raw.timeline_interval.as_deref() {
        Some(t) => c.duration("timeline_interval", t),
        None => Some(SimTime::from_secs(3600)),
    };
    if sample == Some(SimTime::ZERO) {
        c.err("timeline_interval", "must be longer than zero");
    }
    let mut gpu_types: Vec<GpuType> = Vec::new();
    for (i, g) in raw.gpu_types.iter().enumerate() {
        let p = format!("gpu_types[{i}]");
        if gpu_types.iter().any(|t| t.name == g.name) {
            c.err(
                format!("{p}.name"),
                format!("GPU type {:?} is defined twice", g.name),
            );
        }
        let base_t = builtin_gpu(&g.name);
        let speed = c.positive(
            &format!("{p}.speed"),
            g.speed.or(base_t.as_ref().map(|b| b.speed)).unwrap_or(1.0),
        );
        let mem = c.non_negative(
            &format!("{p}.memory_gb"),
            g.memory_gb
                .or(base_t.as_ref().map(|b| b.memory_gb))
                .unwrap_or(0.0),
        );
        let power = c.non_negative(
            &format!("{p}.power_w"),
            g.power_w
                .or(base_t.as_ref().map(|b| b.power_w))
                .unwrap_or(0.0),
        );
        gpu_types.push(GpuType {
            name: g.name.clone(),
            memory_gb: mem,
            speed,
            power_w: power,
        });
    }
    if raw.pools.is_empty() {
        c.err("pools", "a scenario needs at least one pool");
    }
    let mut pools = Vec::new();
    let mut autoscale: Vec<Option<crate::sched::Autoscale>> = Vec::new();
    let mut pricing = Vec::new();
    for (i, rp) in raw.pools.iter().enumerate() {
        let p = format!("pools[{i}]");
        if rp.name == "total" || rp.name.is_empty() {
            c.err(
                format!("{p}.name"),
                "a pool name must be non-empty and not \"total\"",
            );
        }
        if raw.pools[..i].iter().any(|q| q.name == rp.name) {
            c.err(
                format!("{p}.name"),
                format!("pool name {:?} is used twice", rp.name),
            );
        }
        let t = match gpu_types.iter().position(|t| t.name == rp.gpu_type) {
            Some(t) => t,
            None => match builtin_gpu(&rp.gpu_type) {
                Some(g) => {
                    gpu_types.push(g);
                    gpu_types.len() - 1
                }
                None => {
                    c.err(
                        format!("{p}.gpu_type"),
                        format!("unknown GPU type {:?}: define it under [[gpu_types]] (built in: H100, H200, A100, V100, A10, T4, L4)", rp.gpu_type),
                    );
                    0
                }
            },
        };
        if rp.nodes < 1 || rp.nodes > 1_000_000 {
            c.err(
                format!("{p}.nodes"),
                format!("must be between 1 and 1000000, got {}", rp.nodes),
            );
        }
        if rp.gpus_per_node < 0 || rp.gpus_per_node > 1024 {
            c.err(
                format!("{p}.gpus_per_node"),
                format!("must be between 0 and 1024, got {}", rp.gpus_per_node),
            );
        }
        let gpn = rp.gpus_per_node.clamp(0, 1024) as u16;
        let cpu = c.non_negative(
            &format!("{p}.cpu_cores_per_node"),
            rp.cpu_cores_per_node.unwrap_or(gpn as f64 * 16.0),
        );
        let mem = c.non_negative(
            &format!("{p}.memory_gib_per_node"),
            rp.memory_gib_per_node.unwrap_or(gpn as f64 * 256.0),
        );
        let priced =
            super::pricing::pool_price(i, rp, rp.nodes.clamp(1, 1_000_000) as u32, base, &mut c.0);
        let price = priced.rate;
        let nodes = rp.nodes.clamp(1, 1_000_000) as u32;
        autoscale.push(
            rp.autoscale
                .as_ref()
                .map(|a| autoscale_of(&mut c, &p, a, rp, nodes)),
        );
        if rp.fungible && rp.autoscale.is_some() {
            c.err(
                format!("{p}.fungible"),
                "a fungible pool cannot autoscale (it has no nodes to rent)",
            );
        }
        if rp.fungible {
            // No node boundaries: every GPU is a slot of its own with no CPU or memory
            // limit, so any job that asks for at most the pool's GPUs fits once they are free.
            let slots = nodes as u64 * gpn as u64;
            if gpn == 0 || slots > 10_000_000 {
                c.err(
                    format!("{p}.fungible"),
                    format!("a fungible pool needs 1 to 10000000 GPUs, got {slots}"),
                );
            }
            pools.push(PoolSpec {
                name: rp.name.clone(),
                gpu_type: t,
                kind: rp.kind,
                node: NodeSpec {
                    gpus: 1,
                    cpu_milli: u32::MAX,
                    mem_mib: u64::MAX,
                },
                nodes: slots.clamp(1, 10_000_000) as u32,
                speed: 1.0,
            });
            if rp.pricing.is_some() {
                c.err(
                    format!("{p}.pricing"),
                    "pricing models bill whole nodes; a fungible pool takes only price_per_node_hour",
                );
            }
            // A fungible pool bills each GPU slot at a flat share of the node price.
            let slot_price = price / gpn.max(1) as f64;
            pricing.push(crate::pricing::PoolPricing::flat(slot_price));
            continue;
        }
        pricing.push(priced.pricing);
        pools.push(PoolSpec {
            name: rp.name.clone(),
            gpu_type: t,
            kind: rp.kind,
            node: NodeSpec {
                gpus: gpn,
                cpu_milli: (cpu * 1000.0) as u32,
                mem_mib: (mem * 1024.0) as u64,
            },
            nodes,
            speed: 1.0,
        });
    }
    for p in &mut pools {
        if let Some(t) = gpu_types.get(p.gpu_type) {
            p.speed = t.speed;
        }
    }
    if gpu_types.len() > 64 {
        c.err("gpu_types", "at most 64 GPU types");
    }
    let workload = match raw.workload {
        RawWorkload::Trace(t) => {
            WorkloadSource::Trace(super::workload_kinds::trace(&mut c, t, base))
        }
        RawWorkload::Model(m) => {
            WorkloadSource::Model(super::workload_kinds::model(&mut c, m, horizon, base))
        }
        RawWorkload::Csv {
            path,
            skip_bad_rows,
        } => {
            let full = base.join(&path);
            if !full.is_file() {
                c.err(
                    "workload.path",
                    format!("trace file {} does not exist", full.display()),
                );
            }
            WorkloadSource::Csv {
                path: full,
                bad_rows: if skip_bad_rows {
                    BadRows::Skip
                } else {
                    BadRows::Stop
                },
            }
        }
        RawWorkload::PaiSim {
            path,
            skip_bad_rows,
            arrivals_per_minute,
            estimate,
            use_gpu_type,
        } => {
            let full = base.join(&path);
            if !full.is_file() {
                c.err(
                    "workload.path",
                    format!("trace file {} does not exist", full.display()),
                );
            }
            if let Some(r) = arrivals_per_minute {
                c.positive("workload.arrivals_per_minute", r);
            }
            WorkloadSource::PaiSim {
                path: full,
                options: PaiSimOptions {
                    arrivals_per_minute,
                    estimate: match estimate.unwrap_or(RawPaiEstimate::None) {
                        RawPaiEstimate::None => PaiEstimate::None,
                        RawPaiEstimate::UserDur => PaiEstimate::User,
                        RawPaiEstimate::GroupDur => PaiEstimate::Group,
                        RawPaiEstimate::GroupGpuDur => PaiEstimate::GroupGpu,
                    },
                    use_gpu_type,
                    bad_rows: if skip_bad_rows {
                        BadRows::Skip
                    } else {
                        BadRows::Stop
                    },
                },
            }
        }
        w @ RawWorkload::Synthetic { .. } => super::synthetic::validate(&mut c, w, horizon, base),
    };
    let tco = raw
        .tco
        .as_ref()
        .map(|t| super::sections::tco(t, base, &mut c.0));
    let spot_deadline = raw
        .spot_deadline
        .as_ref()
        .map(|s| super::sections::spot_deadline(s, base, &mut c.0));
    let savings_plan = raw
        .savings_plan
        .as_ref()
        .map(|s| super::sections::savings_plan(s, &mut c.0));
    let transfer = raw
        .transfer
        .as_ref()
        .map(|t| super::sections::transfer(t, &mut c.0));
    let egress = super::pricing::moves_egress(transfer.as_ref(), &mut c.0);
    let locations = raw
        .pools
        .iter()
        .map(|p| {
            (
                p.region.clone().unwrap_or_default(),
                p.zone.clone().unwrap_or_default(),
            )
        })
        .collect();
    let inputs = super::faults::FaultInputs {
        failures: raw.failures.as_ref(),
        checkpoint: raw.checkpoint.as_ref(),
        maintenance: &raw.maintenance,
        spot: &raw.spot_interruptions,
        locations,
    };
    let faults = super::faults::validate_faults(&mut c, inputs, &pools, base);
    if !c.0.is_empty() {
        return Err(c.0);
    }
    // An elastic pool's release rule follows its bill: unless the autoscale table says
    // otherwise, billing blocks and minimum come from the pool's pricing.
    for (p, a) in autoscale.iter_mut().enumerate() {
        let (Some(a), Some(rp)) = (a.as_mut(), raw.pools.get(p)) else {
            continue;
        };
        let billing = pricing.get(p).and_then(|m| m.interval_billing());
        if let (Some(b), Some(ra)) = (billing, rp.autoscale.as_ref()) {
            if ra.billing_increment.is_none() {
                a.billing_increment = b.granularity.max(crate::engine::SimTime(1));
            }
            if ra.billing_minimum.is_none() {
                a.billing_minimum = b.minimum;
            }
        }
    }
    let mut budget = crate::sched::BudgetCaps::default();
    if let Some(b) = &raw.scheduler.budget {
        if let Some(t) = b.total_usd {
            budget.total_usd = Some(c.non_negative("scheduler.budget.total_usd", t));
        }
        for (name, &usd) in &b.per_tenant_usd {
            c.non_negative(&format!("scheduler.budget.per_tenant_usd.{name}"), usd);
            budget.per_tenant_usd.push((name.clone(), usd));
        }
    }
    let mut weights = Vec::new();
    for (name, &w) in &raw.scheduler.tenant_weights {
        c.positive(&format!("scheduler.tenant_weights.{name}"), w);
        weights.push((name.clone(), w));
    }
    if !c.0.is_empty() {
        return Err(c.0);
    }
    let gpu_hour_usd: Vec<f64> = pools
        .iter()
        .zip(&pricing)
        .map(|(p, m)| m.gpu_hour_rate(p.nodes, p.node.gpus))
        .collect();
    Ok(Scenario {
        name: raw.name,
        description: raw.description.unwrap_or_default(),
        seed: raw.seed.unwrap_or(1),
        hash: super::text_hash(text),
        gpu_types,
        sim: SimConfig {
            pools,
            policy: raw.scheduler.policy.unwrap_or(PolicyKind::EasyBackfill),
            placement: raw.scheduler.placement.unwrap_or_default(),
            horizon,
            sample_every: sample,
            options: crate::sched::SchedOptions {
                gpu_hour_usd: gpu_hour_usd.clone(),
                autoscale,
                pool_order: raw.scheduler.pool_order.unwrap_or_default(),
                budget,
                tenant_weights_by_name: weights,
                ..Default::default()
            },
        },
        pricing,
        tco,
        spot_deadline,
        savings_plan,
        transfer,
        egress,
        workload,
        faults,
    })
}

impl Scenario {
    /// Builds the workload for a run with `seed`, its GPU types mapped onto the scenario's.
    pub fn build_workload(
        &self,
        seed: u64,
    ) -> Result<crate::model::Workload, crate::workload::TraceError> {
        let mut w = match &self.workload {
            WorkloadSource::Synthetic(spec) => spec.generate(&crate::engine::RngStreams::new(seed)),
            WorkloadSource::Csv { path, bad_rows } => {
                crate::workload::read_generic_csv(path, *bad_rows)?
            }
            WorkloadSource::Trace(spec) => {
                let gpus: f64 = self
                    .sim
                    .pools
                    .iter()
                    .map(|p| p.nodes as f64 * p.node.gpus as f64)
                    .sum();
                spec.load(&crate::engine::RngStreams::new(seed), gpus)?.0
            }
            WorkloadSource::Model(m) => m.generate(&crate::engine::RngStreams::new(seed)),
            WorkloadSource::PaiSim { path, options } => {
                crate::workload::read_pai_sim_csv(path, *options)?
            }
            WorkloadSource::Given(w) => w.as_ref().clone(),
        };
        let names: Vec<String> = self.gpu_types.iter().map(|t| t.name.clone()).collect();
        // Jobs constrained only to types this cluster lacks keep an empty mask and are rejected.
        let _unknown = w.remap_types(&names);
        Ok(w)
    }
}
