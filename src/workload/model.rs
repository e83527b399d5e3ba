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

/// What a generator will make, estimated without generating: the expected number of jobs
/// and the expected time of the last arrival.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SizeEstimate {
    /// Expected jobs.
    pub jobs: f64,
    /// Expected time of the last arrival, seconds.
    pub span_secs: f64,
    /// True when a `jobs` count bounds the generation (the count is exact).
    pub exact: bool,
}

impl SizeEstimate {
    /// From a job count and an end time (either may be absent), the mean rate and growth.
    pub fn of(
        jobs: Option<u64>,
        until: Option<SimTime>,
        rate_per_hour: f64,
        growth: f64,
    ) -> SizeEstimate {
        let by_time =
            until.map(|u| super::arrivals::expected_arrivals(rate_per_hour, growth, u.secs_f64()));
        match (jobs, by_time) {
            (Some(n), Some(m)) if (n as f64) <= m => SizeEstimate {
                jobs: n as f64,
                span_secs: super::arrivals::expected_time_of(n as f64, rate_per_hour, growth),
                exact: true,
            },
            (_, Some(m)) => SizeEstimate {
                jobs: m,
                span_secs: until.map_or(0.0, |u| u.secs_f64()),
                exact: false,
            },
            (Some(n), None) => SizeEstimate {
                jobs: n as f64,
                span_secs: super::arrivals::expected_time_of(n as f64, rate_per_hour, growth),
                exact: true,
            },
            (None, None) => SizeEstimate {
                jobs: f64::INFINITY,
                span_secs: f64::INFINITY,
                exact: false,
            },
        }
    }
}

impl SizeEstimate {
    /// Jobs to reserve room for: the expected count plus six standard deviations, at most
    /// `limit` (so a generous limit costs no memory).
    pub fn capacity_hint(&self, limit: u64) -> usize {
        let n = if self.exact {
            self.jobs
        } else {
            self.jobs + 6.0 * self.jobs.sqrt() + 16.0
        };
        if n.is_finite() {
            (n.max(0.0) as u64).min(limit).min(1 << 28) as usize
        } else {
            0
        }
    }
}

/// The name of generated job `i`: `job-<i>`.
pub(super) fn job_name(i: u64) -> String {
    let mut s = String::with_capacity(14);
    s.push_str("job-");
    let mut digits = [0u8; 20];
    let mut k = digits.len();
    let mut v = i;
    loop {
        k -= 1;
        digits[k] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &d in &digits[k..] {
        s.push(d as char);
    }
    s
}

impl WorkloadModel {
    /// The time generation stops at when neither `jobs` nor `until` ends it: ten years.
    pub const DEFAULT_UNTIL: SimTime = SimTime(10 * 365 * 86_400_000);

    /// What [`WorkloadModel::generate`] will make, estimated from the arrival process's
    /// mean rate (times the multiplier, with growth) without generating.
    pub fn estimate(&self) -> SizeEstimate {
        let until = self.until.or(Some(Self::DEFAULT_UNTIL));
        SizeEstimate::of(
            self.jobs,
            until,
            self.arrivals.mean_rate_per_hour() * self.rate_multiplier,
            self.growth_per_month,
        )
    }

    /// Generates the workload from `streams`.
    pub fn generate(&self, streams: &RngStreams) -> Workload {
        let mut w = Workload::default();
        let mut names = crate::model::NameIndex::default();
        for t in &self.tenants {
            names.tenant(&mut w, &t.name);
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
        let limit = self.jobs.unwrap_or(u64::MAX);
        w.jobs.reserve(self.estimate().capacity_hint(limit));
        // Without a job count or end time the model is unbounded: stop at ten years.
        let until = self.until.unwrap_or(Self::DEFAULT_UNTIL);
        let mut arrivals =
            Arrivals::new(&self.arrivals, self.rate_multiplier, self.growth_per_month)
                .until(until.secs_f64());
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
                name: job_name(i),
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
