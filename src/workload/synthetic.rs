//! A synthetic workload generator: Poisson arrivals, a job-size mix as weights over GPU
//! counts, log-normal or exponential durations, and a tenant mix. Each concern draws from
//! its own random stream, so changing the size mix does not move the arrival times.

use crate::engine::{RngStreams, SimTime};
use crate::model::{GpuRequest, Job, TypeMask, Workload};
use rand::Rng;
use rand_distr::{Distribution, Exp, LogNormal};

/// A job-duration distribution (work on the reference GPU).
#[derive(Debug, Clone, PartialEq)]
pub enum DurationDist {
    /// Log-normal with the given median and shape (sigma of the underlying normal).
    LogNormal {
        /// Median duration.
        median: SimTime,
        /// Sigma of ln(duration).
        sigma: f64,
    },
    /// Exponential with the given mean.
    Exponential {
        /// Mean duration.
        mean: SimTime,
    },
    /// Every job lasts the same.
    Fixed {
        /// The duration.
        value: SimTime,
    },
    /// Weibull with the given scale and shape (shape < 1: heavy tail of long jobs).
    Weibull {
        /// Scale (the 63rd percentile).
        scale: SimTime,
        /// Shape k.
        shape: f64,
    },
    /// Resampled uniformly from observed durations (seconds), e.g. a column of a real trace.
    Empirical {
        /// The observed durations in seconds (non-empty).
        secs: std::sync::Arc<Vec<f64>>,
    },
}

impl DurationDist {
    /// The mean of the distribution, in hours.
    pub fn mean_hours(&self) -> f64 {
        match self {
            DurationDist::LogNormal { median, sigma } => {
                median.hours_f64() * (sigma * sigma / 2.0).exp()
            }
            DurationDist::Exponential { mean } => mean.hours_f64(),
            DurationDist::Fixed { value } => value.hours_f64(),
            DurationDist::Weibull { scale, shape } => {
                scale.hours_f64() * statrs::function::gamma::gamma(1.0 + 1.0 / shape)
            }
            DurationDist::Empirical { secs } => {
                secs.iter().sum::<f64>() / secs.len().max(1) as f64 / 3600.0
            }
        }
    }

    /// Draws one duration (at least 1 ms).
    pub fn sample(&self, rng: &mut impl Rng) -> SimTime {
        let secs = match self {
            DurationDist::LogNormal { median, sigma } => {
                let mu = median.secs_f64().max(1e-3).ln();
                LogNormal::new(mu, *sigma)
                    .map(|d| d.sample(rng))
                    .unwrap_or(median.secs_f64())
            }
            DurationDist::Exponential { mean } => Exp::new(1.0 / mean.secs_f64().max(1e-3))
                .map(|d| d.sample(rng))
                .unwrap_or(mean.secs_f64()),
            DurationDist::Fixed { value } => value.secs_f64(),
            DurationDist::Weibull { scale, shape } => {
                rand_distr::Weibull::new(scale.secs_f64(), *shape)
                    .map(|d| d.sample(rng))
                    .unwrap_or(scale.secs_f64())
            }
            DurationDist::Empirical { secs } => {
                if secs.is_empty() {
                    0.0
                } else {
                    secs[rng.random_range(0..secs.len())]
                }
            }
        };
        // At least one millisecond: a job always does some work.
        SimTime::from_secs_f64(secs).max(SimTime(1))
    }
}

/// A generated workload's description (validated; see `scenario` for the file form).
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticSpec {
    /// Mean arrivals per hour (Poisson).
    pub rate_per_hour: f64,
    /// Generate jobs arriving before this time...
    pub until: Option<SimTime>,
    /// ...or exactly this many jobs (whichever comes first when both are set).
    pub jobs: Option<u64>,
    /// Job sizes with their weights.
    pub sizes: Vec<(GpuRequest, f64)>,
    /// Duration distribution.
    pub duration: DurationDist,
    /// Tenants with their weights (at least one).
    pub tenants: Vec<(String, f64)>,
    /// Share of jobs that are preemptible (may use spot).
    pub preemptible_share: f64,
    /// CPU milli-cores requested per GPU.
    pub cpu_milli_per_gpu: u32,
    /// Memory MiB requested per GPU.
    pub mem_mib_per_gpu: u64,
}

fn pick<T: Copy>(items: &[(T, f64)], total: f64, rng: &mut impl Rng) -> T {
    let mut x = rng.random::<f64>() * total;
    for &(v, w) in items {
        if x < w {
            return v;
        }
        x -= w;
    }
    items[items.len() - 1].0
}

impl SyntheticSpec {
    /// The submit times, in order, from stream "arrivals": up to `jobs` of them, those
    /// before `until`.
    fn arrivals(&self, streams: &RngStreams) -> Vec<SimTime> {
        let mut arr = streams.stream("arrivals");
        let gap = Exp::new(self.rate_per_hour / 3600.0).ok();
        let limit = self.jobs.unwrap_or(u64::MAX);
        let mut out = Vec::with_capacity(self.estimate().capacity_hint(limit));
        let mut t_secs = 0.0f64;
        while (out.len() as u64) < limit {
            t_secs += gap
                .as_ref()
                .map(|g| g.sample(&mut arr))
                .unwrap_or(f64::INFINITY);
            if !t_secs.is_finite() {
                break;
            }
            let submit = SimTime::from_secs_f64(t_secs);
            if self.until.is_some_and(|u| submit >= u) {
                break;
            }
            out.push(submit);
        }
        out
    }

    /// What [`SyntheticSpec::generate`] will make, estimated without generating.
    pub fn estimate(&self) -> super::model::SizeEstimate {
        super::model::SizeEstimate::of(self.jobs, self.until, self.rate_per_hour, 0.0)
    }

    /// Generates the workload from `streams` (streams "arrivals", "sizes", "durations",
    /// "tenants", "preemptible").
    pub fn generate(&self, streams: &RngStreams) -> Workload {
        let mut w = Workload::default();
        let mut names = crate::model::NameIndex::default();
        for (name, _) in &self.tenants {
            names.tenant(&mut w, name);
        }
        let submits = self.arrivals(streams);
        let n = submits.len();
        // Each concern draws from its own stream, in job order, so the columns are drawn at
        // once (the same values as one loop drawing them in turn) and then zipped.
        let size_total: f64 = self.sizes.iter().map(|s| s.1).sum();
        let tenant_w: Vec<(u32, f64)> = self
            .tenants
            .iter()
            .enumerate()
            .map(|(i, t)| (i as u32, t.1))
            .collect();
        let tenant_total: f64 = tenant_w.iter().map(|t| t.1).sum();
        let ((gpus, work), (tenants, preemptible)) = rayon::join(
            || {
                rayon::join(
                    || {
                        let mut rng = streams.stream("sizes");
                        (0..n)
                            .map(|_| pick(&self.sizes, size_total, &mut rng))
                            .collect::<Vec<_>>()
                    },
                    || {
                        let mut rng = streams.stream("durations");
                        (0..n)
                            .map(|_| self.duration.sample(&mut rng))
                            .collect::<Vec<_>>()
                    },
                )
            },
            || {
                rayon::join(
                    || {
                        let mut rng = streams.stream("tenants");
                        (0..n)
                            .map(|_| pick(&tenant_w, tenant_total, &mut rng))
                            .collect::<Vec<_>>()
                    },
                    || {
                        let mut rng = streams.stream("preemptible");
                        (0..n)
                            .map(|_| rng.random::<f64>() < self.preemptible_share)
                            .collect::<Vec<_>>()
                    },
                )
            },
        );
        use rayon::prelude::*;
        w.jobs = (0..n)
            .into_par_iter()
            .map(|i| {
                let g = gpus[i].gpus_f64();
                Job {
                    name: super::model::job_name(i as u64),
                    submit: submits[i],
                    gpus: gpus[i],
                    gpu_types: TypeMask::ANY,
                    cpu_milli: (self.cpu_milli_per_gpu as f64 * g).round() as u32,
                    mem_mib: (self.mem_mib_per_gpu as f64 * g).round() as u64,
                    work: work[i],
                    estimate: None,
                    tenant: tenants[i],
                    priority: 0,
                    deadline: None,
                    preemptible: preemptible[i],
                    tags: crate::model::JobTags::NONE,
                }
            })
            .collect();
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> SyntheticSpec {
        SyntheticSpec {
            rate_per_hour: 60.0,
            until: None,
            jobs: Some(50_000),
            sizes: vec![(GpuRequest::Whole(1), 3.0), (GpuRequest::Whole(8), 1.0)],
            duration: DurationDist::LogNormal {
                median: SimTime::from_secs(3600),
                sigma: 1.0,
            },
            tenants: vec![("a".into(), 1.0), ("b".into(), 1.0)],
            preemptible_share: 0.5,
            cpu_milli_per_gpu: 0,
            mem_mib_per_gpu: 0,
        }
    }

    #[test]
    fn rates_and_mixes_match_parameters() {
        let w = spec().generate(&RngStreams::new(1));
        let n = w.jobs.len() as f64;
        // Poisson: mean gap 60 s; the sample mean of 50k gaps has sd 60/sqrt(50k) = 0.27 s.
        let span = w.jobs.last().unwrap().submit.secs_f64();
        assert!(
            (span / n - 60.0).abs() < 4.0 * 60.0 / n.sqrt(),
            "mean gap {}",
            span / n
        );
        // Size mix 3:1 -> share of 8-GPU jobs 0.25, sd sqrt(.25*.75/50k) = 0.0019.
        let big = w
            .jobs
            .iter()
            .filter(|j| j.gpus == GpuRequest::Whole(8))
            .count() as f64
            / n;
        assert!((big - 0.25).abs() < 0.008, "{big}");
        // Log-normal median 1 h.
        let mut d: Vec<u64> = w.jobs.iter().map(|j| j.work.0).collect();
        d.sort_unstable();
        let med = d[d.len() / 2] as f64 / 3.6e6;
        assert!((med - 1.0).abs() < 0.03, "{med}");
    }

    #[test]
    fn streams_are_independent_of_each_other() {
        let a = spec().generate(&RngStreams::new(3));
        let mut s2 = spec();
        s2.sizes = vec![(GpuRequest::Whole(2), 1.0)];
        let b = s2.generate(&RngStreams::new(3));
        assert_eq!(a.jobs[100].submit, b.jobs[100].submit);
        assert_eq!(a.jobs[100].work, b.jobs[100].work);
    }
}
