//! Load-time shaping of a read trace: time window, GPU-type mapping, time compression and
//! load scaling (seeded thinning or replication to a target GPU demand).
//!
//! Order: window, then type mapping, then compression, then scaling. Every job removed is
//! counted in `Workload::filtered` with its reason.

use crate::engine::{RngStreams, SimTime};
use crate::model::Workload;
use rand::seq::SliceRandom;

/// What the load scale is relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScaleBase {
    /// The trace's own GPU demand (`factor = 2` doubles it).
    Original,
    /// The cluster's capacity over the trace's span (`factor = 0.8` offers 80 % load).
    Capacity,
}

/// Scale the total GPU demand (GPU-seconds of work) to a target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadScale {
    /// Target multiple.
    pub factor: f64,
    /// Of what.
    pub base: ScaleBase,
}

/// Shaping applied after reading.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shaping {
    /// Keep jobs submitted in `[start, end)` (offsets from the trace start); times then
    /// count from `start`.
    pub window: Option<(SimTime, Option<SimTime>)>,
    /// Rename trace GPU models to scenario GPU types (`V100M32 -> V100`).
    pub gpu_type_map: Vec<(String, String)>,
    /// Divide submit times by this factor (> 1 speeds the clock up; run times unchanged).
    pub time_compression: Option<f64>,
    /// Thin or replicate jobs to reach a target GPU demand.
    pub load_scale: Option<LoadScale>,
    /// The most jobs replication may make (the scenario's `max_jobs`).
    pub max_jobs: Option<u64>,
}

/// GPU-seconds of work of the jobs (the demand the load scale targets).
pub fn gpu_demand_secs(w: &Workload) -> f64 {
    w.jobs
        .iter()
        .map(|j| j.gpus.gpus_f64() * j.work.secs_f64())
        .sum()
}

fn count(w: &mut Workload, reason: &str, n: u64) {
    if n == 0 {
        return;
    }
    match w.filtered.iter_mut().find(|(r, _)| r == reason) {
        Some((_, k)) => *k += n,
        None => w.filtered.push((reason.to_string(), n)),
    }
}

/// Shaping that cannot be applied to a trace.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ShapeError {
    /// `time_compression` is not a positive number.
    #[error("time_compression must be positive, got {0}")]
    TimeCompression(f64),
    /// `time_compression` stretches the trace past the longest time a trace may hold.
    #[error("time_compression {factor:e}: the last submit, {secs} s after the first, would be more than 1e14 s later (about 3 million years); use a larger time_compression")]
    TimeCompressionSpan {
        /// The factor.
        factor: f64,
        /// The last submit before compression, seconds.
        secs: f64,
    },
    /// `load_scale` is not a positive number.
    #[error("load scale factor must be positive, got {0}")]
    LoadScale(f64),
    /// The trace asks for no GPU time, so there is nothing to scale.
    #[error("the trace has no GPU demand to scale")]
    NoDemand,
    /// `load_scale_of = "capacity"` with no GPUs or a trace of no length.
    #[error("scaling to capacity needs GPUs in the cluster and a trace spanning some time")]
    NoCapacity,
    /// Replication would make more jobs than `max_jobs` (checked before any copy is made).
    #[error("load_scale {}: replicating {jobs} jobs to about {} is more than max_jobs ({max}, the most a run holds in memory); lower load_scale, or set max_jobs higher (a scenario's `max_jobs`, `--max-jobs` on the trace commands)", crate::engine::short_number(*factor), crate::engine::short_number(*expect))]
    TooManyJobs {
        /// The factor.
        factor: f64,
        /// Jobs before scaling.
        jobs: usize,
        /// Jobs the scaling would make (about).
        expect: f64,
        /// The limit.
        max: u64,
    },
}

impl Shaping {
    /// Applies the shaping to `w`. `capacity_gpus` is the cluster's GPU count (needed for
    /// `ScaleBase::Capacity`); the "trace_scaling" stream of `streams` picks the jobs.
    pub fn apply(
        &self,
        w: &mut Workload,
        streams: &RngStreams,
        capacity_gpus: f64,
    ) -> Result<(), ShapeError> {
        if let Some((start, end)) = self.window {
            let before = w.jobs.len();
            w.jobs.retain(|j| j.submit >= start);
            let early = (before - w.jobs.len()) as u64;
            count(w, "before the time window", early);
            if let Some(end) = end {
                let n = w.jobs.len();
                w.jobs.retain(|j| j.submit < end);
                let late = (n - w.jobs.len()) as u64;
                count(w, "after the time window", late);
            }
            for j in &mut w.jobs {
                j.submit = j.submit.since(start);
            }
        }
        for (from, to) in &self.gpu_type_map {
            for t in &mut w.gpu_types {
                if t == from {
                    *t = to.clone();
                }
            }
        }
        if let Some(f) = self.time_compression {
            if !(f.is_finite() && f > 0.0) {
                return Err(ShapeError::TimeCompression(f));
            }
            // A factor near zero stretched every submit to the largest time there is
            // (1e-300 put all jobs 584 million years out, each run in 0 s): refused.
            let last = w.jobs.iter().map(|j| j.submit.0).max().unwrap_or(0) as f64;
            if last / f > super::MAX_TRACE_SECS * 1000.0 {
                return Err(ShapeError::TimeCompressionSpan {
                    factor: f,
                    secs: last / 1000.0,
                });
            }
            for j in &mut w.jobs {
                j.submit = SimTime((j.submit.0 as f64 / f).round() as u64);
            }
        }
        if let Some(s) = self.load_scale {
            self.scale(w, s, streams, capacity_gpus)?;
        }
        Ok(())
    }

    fn scale(
        &self,
        w: &mut Workload,
        s: LoadScale,
        streams: &RngStreams,
        capacity_gpus: f64,
    ) -> Result<(), ShapeError> {
        if !(s.factor.is_finite() && s.factor > 0.0) {
            return Err(ShapeError::LoadScale(s.factor));
        }
        let demand = gpu_demand_secs(w);
        if demand <= 0.0 {
            return Err(ShapeError::NoDemand);
        }
        let target = match s.base {
            ScaleBase::Original => s.factor * demand,
            ScaleBase::Capacity => {
                let span = w.jobs.last().map(|j| j.submit.secs_f64()).unwrap_or(0.0);
                if capacity_gpus <= 0.0 || span <= 0.0 {
                    return Err(ShapeError::NoCapacity);
                }
                s.factor * capacity_gpus * span
            }
        };
        let mut rng = streams.stream("trace_scaling");
        let mut order: Vec<usize> = (0..w.jobs.len()).collect();
        order.shuffle(&mut rng);
        let demand_of =
            |i: usize, w: &Workload| w.jobs[i].gpus.gpus_f64() * w.jobs[i].work.secs_f64();
        if target < demand {
            // Thin: keep jobs in random order until the kept demand reaches the target.
            let mut keep = vec![false; w.jobs.len()];
            let mut acc = 0.0;
            for &i in &order {
                if acc >= target {
                    break;
                }
                keep[i] = true;
                acc += demand_of(i, w);
            }
            let before = w.jobs.len();
            let mut k = keep.into_iter();
            w.jobs.retain(|_| k.next().unwrap_or(false));
            let n = (before - w.jobs.len()) as u64;
            count(w, "thinned by load scaling", n);
            return Ok(());
        }
        // Replicate: whole copies of every job, then copies of random jobs for the rest.
        // Copies arrive with their original (same submit time), named `<name>#<k>`.
        let expect = w.jobs.len() as f64 * target / demand;
        if let Some(max) = self.max_jobs.filter(|&m| expect > m as f64) {
            return Err(ShapeError::TooManyJobs {
                factor: s.factor,
                jobs: w.jobs.len(),
                expect: expect.round(),
                max,
            });
        }
        let whole = (target / demand).floor() as usize;
        let originals = w.jobs.len();
        let mut acc = demand * whole as f64;
        let mut extra = Vec::new();
        for k in 2..=whole {
            for i in 0..originals {
                let mut j = w.jobs[i].clone();
                j.name = format!("{}#{k}", j.name);
                extra.push(j);
            }
        }
        for &i in &order {
            if acc >= target {
                break;
            }
            let mut j = w.jobs[i].clone();
            j.name = format!("{}#{}", j.name, whole + 1);
            acc += demand_of(i, w);
            extra.push(j);
        }
        w.jobs.extend(extra);
        w.sort_by_submit();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{GpuRequest, Job, TypeMask};

    fn wl(n: u64) -> Workload {
        let mut w = Workload::default();
        for i in 0..n {
            w.jobs.push(Job {
                name: format!("j{i}"),
                submit: SimTime::from_secs(i * 10),
                gpus: GpuRequest::Whole(1 + (i % 4) as u32),
                gpu_types: TypeMask::ANY,
                cpu_milli: 0,
                mem_mib: 0,
                work: SimTime::from_secs(100),
                estimate: None,
                tenant: 0,
                priority: 0,
                deadline: None,
                preemptible: false,
                tags: crate::model::JobTags::NONE,
            });
        }
        w
    }

    #[test]
    fn window_and_compression() {
        let mut w = wl(10);
        let s = Shaping {
            window: Some((SimTime::from_secs(20), Some(SimTime::from_secs(60)))),
            time_compression: Some(2.0),
            ..Default::default()
        };
        s.apply(&mut w, &RngStreams::new(1), 0.0).unwrap();
        // Jobs at 20, 30, 40, 50 s kept; shifted to 0..30 s, then halved.
        assert_eq!(
            w.jobs.iter().map(|j| j.submit.0).collect::<Vec<_>>(),
            vec![0, 5000, 10000, 15000]
        );
        assert_eq!(
            w.filtered,
            vec![
                ("before the time window".into(), 2),
                ("after the time window".into(), 4)
            ]
        );
    }

    #[test]
    fn scaling_reaches_target() {
        // Demand per job: gpus x 100 s; 1000 jobs with 1..4 GPUs: 250,000 GPU-s in all.
        for factor in [0.3, 1.0, 2.5] {
            let mut w = wl(1000);
            let s = Shaping {
                load_scale: Some(LoadScale {
                    factor,
                    base: ScaleBase::Original,
                }),
                ..Default::default()
            };
            s.apply(&mut w, &RngStreams::new(4), 0.0).unwrap();
            let d = gpu_demand_secs(&w);
            let target = factor * 250_000.0;
            // Within one job's demand (at most 400 GPU-s) of the target.
            assert!(d >= target && d < target + 400.0, "{factor}: {d}");
        }
    }
}
