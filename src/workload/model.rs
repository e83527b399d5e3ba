//! A workload model: an arrival process shared by tenants that each have their own job
//! sizes and durations, with knobs a planner turns ("twice the jobs, longer runs, 5 %
//! growth a month"). `gpufleet trace fit` writes one of these from a trace.
//!
//! Each arrival picks a tenant by weight, then a size and a duration from that tenant's
//! mix. Random streams: "arrivals", "tenants", "sizes", "durations", "preemptible".

use super::arrivals::{ArrivalProcess, Arrivals};
use super::synthetic::DurationDist;
use crate::engine::{RngStreams, SimTime};
use crate::model::{GpuRequest, Job, TypeMask, Workload};
use rand::Rng;

/// One tenant's share of the arrivals and its own job mix.
#[derive(Debug, Clone, PartialEq)]
pub struct TenantMix {
    /// Tenant name.
    pub name: String,
    /// Relative share of arrivals.
    pub weight: f64,
    /// Job sizes with weights.
    pub sizes: Vec<(GpuRequest, f64)>,
    /// Duration distribution (work on the reference GPU).
    pub duration: DurationDist,
    /// Share of the tenant's jobs that are preemptible.
    pub preemptible_share: f64,
}

/// A generative workload model.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadModel {
    /// How jobs arrive.
    pub arrivals: ArrivalProcess,
    /// Generate jobs arriving before this time...
    pub until: Option<SimTime>,
    /// ...or this many jobs (whichever comes first).
    pub jobs: Option<u64>,
    /// Tenants (at least one).
    pub tenants: Vec<TenantMix>,
    /// Multiplies the arrival rate.
    pub rate_multiplier: f64,
    /// Multiplies every duration.
    pub duration_multiplier: f64,
    /// Arrival-rate growth per 30-day month (0.05 = 5 % more each month).
    pub growth_per_month: f64,
    /// CPU milli-cores per GPU requested.
    pub cpu_milli_per_gpu: u32,
    /// Memory MiB per GPU requested.
    pub mem_mib_per_gpu: u64,
}

fn pick<T: Copy>(items: &[(T, f64)], rng: &mut impl Rng) -> Option<T> {
    let total: f64 = items.iter().map(|i| i.1).sum();
    let mut x = rng.random::<f64>() * total;
    for &(v, w) in items {
        if x < w {
            return Some(v);
        }
        x -= w;
    }
    items.last().map(|i| i.0)
}

impl WorkloadModel {
    /// Generates the workload from `streams`.
    pub fn generate(&self, streams: &RngStreams) -> Workload {
        let mut w = Workload::default();
        for t in &self.tenants {
            w.tenant_index(&t.name);
        }
        let mut arr_rng = streams.stream("arrivals");
        let mut ten_rng = streams.stream("tenants");
        let mut size_rng = streams.stream("sizes");
        let mut dur_rng = streams.stream("durations");
        let mut pre_rng = streams.stream("preemptible");
        let tenant_w: Vec<(usize, f64)> = self
            .tenants
            .iter()
            .enumerate()
            .map(|(i, t)| (i, t.weight))
            .collect();
        let mut arrivals =
            Arrivals::new(&self.arrivals, self.rate_multiplier, self.growth_per_month);
        let limit = self.jobs.unwrap_or(u64::MAX);
        // Without a job count or end time the model is unbounded: stop at ten years.
        let until = self.until.unwrap_or(SimTime::from_secs(10 * 365 * 86_400));
        let mut i = 0u64;
        while i < limit {
            let Some(t) = arrivals.next_secs(&mut arr_rng) else {
                break;
            };
            let submit = SimTime::from_secs_f64(t);
            if submit >= until {
                break;
            }
            let Some(k) = pick(&tenant_w, &mut ten_rng) else {
                break;
            };
            let mix = &self.tenants[k];
            let gpus = pick(&mix.sizes, &mut size_rng).unwrap_or(GpuRequest::Whole(1));
            let base = mix.duration.sample(&mut dur_rng);
            let work =
                SimTime::from_secs_f64(base.secs_f64() * self.duration_multiplier).max(SimTime(1));
            let preemptible = pre_rng.random::<f64>() < mix.preemptible_share;
            let g = gpus.gpus_f64();
            w.jobs.push(Job {
                name: format!("job-{i}"),
                submit,
                gpus,
                gpu_types: TypeMask::ANY,
                cpu_milli: (self.cpu_milli_per_gpu as f64 * g).round() as u32,
                mem_mib: (self.mem_mib_per_gpu as f64 * g).round() as u64,
                work,
                estimate: None,
                tenant: k as u32,
                priority: 0,
                deadline: None,
                preemptible,
                tags: crate::model::JobTags::NONE,
            });
            i += 1;
        }
        w
    }
}
