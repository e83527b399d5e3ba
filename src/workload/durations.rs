//! What a trace's durations mean: the GPU they were measured on (a replay on other GPUs
//! scales them by the ratio of speeds) and the runtime estimates schedulers see (the
//! trace's, the true run times, or a model of inaccurate ones).
//!
//! A job's work is its run time on the reference GPU (speed 1.0). A trace measured on a
//! GPU of speed s_m holds run times d; its work is d x s_m, so on a pool of speed s the
//! job takes d x s_m / s: the trace's own run time on its own GPU type, scaled by the
//! ratio of speeds on any other. This happens once, when the workload is built, never in
//! the event loop.

use crate::engine::{RngStreams, SimTime};
use crate::model::Workload;
use rand::Rng;

/// The runtime estimates schedulers (backfilling, SJF) plan with.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Estimates {
    /// The trace's own (SWF requested time, PAI-sim estimates, ...); the true run time
    /// where it has none.
    #[default]
    Trace,
    /// The true run time of every job (perfect estimates).
    Exact,
    /// The "badness factor" model of inaccurate user estimates: each estimate is drawn
    /// uniformly from [r, (f + 1) r], r the true run time (Mu'alem and Feitelson, IEEE
    /// TPDS 12(6), 2001; as described by Tsafrir and Feitelson, "The Dynamics of
    /// Backfilling", IISWC 2006). Drawn from the run's `estimates` stream.
    Badness {
        /// f >= 0 (0 gives exact estimates).
        f: f64,
    },
}

impl Estimates {
    /// Sets every job's estimate of `w` under this model.
    pub fn apply(&self, w: &mut Workload, streams: &RngStreams) {
        match *self {
            Estimates::Trace => {}
            Estimates::Exact => {
                for j in &mut w.jobs {
                    j.estimate = None;
                }
            }
            Estimates::Badness { f } => {
                let mut rng = streams.stream("estimates");
                for j in &mut w.jobs {
                    let u: f64 = rng.random();
                    let e = j.work.0 as f64 * (1.0 + f.max(0.0) * u);
                    j.estimate = Some(SimTime(e.round().min(u64::MAX as f64 / 2.0) as u64));
                }
            }
        }
    }
}

/// Turns run times measured on a GPU of speed `speed` into reference-GPU work (work and
/// estimates times `speed`, to the millisecond; a job with some work keeps at least 1 ms).
pub fn to_reference_work(w: &mut Workload, speed: f64) {
    if !(speed.is_finite() && speed > 0.0) || speed == 1.0 {
        return;
    }
    let scale = |t: SimTime| {
        if t.0 == 0 {
            t
        } else {
            SimTime(((t.0 as f64 * speed).round().min(u64::MAX as f64 / 2.0) as u64).max(1))
        }
    };
    for j in &mut w.jobs {
        j.work = scale(j.work);
        j.estimate = j.estimate.map(scale);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{GpuRequest, Job, TypeMask};

    fn w(work_s: u64, est_s: Option<u64>) -> Workload {
        Workload {
            jobs: vec![Job {
                name: "j".into(),
                submit: SimTime::ZERO,
                gpus: GpuRequest::Whole(1),
                gpu_types: TypeMask::ANY,
                cpu_milli: 0,
                mem_mib: 0,
                work: SimTime::from_secs(work_s),
                estimate: est_s.map(SimTime::from_secs),
                tenant: 0,
                priority: 0,
                deadline: None,
                preemptible: false,
                tags: crate::model::JobTags::NONE,
            }],
            ..Default::default()
        }
    }

    #[test]
    fn measured_run_times_become_reference_work() {
        // 1,000 s measured on a GPU of speed 0.15 is 150 s of reference work: on that GPU
        // again it takes 150 / 0.15 = 1,000 s; on the reference GPU 150 s.
        let mut x = w(1000, Some(2000));
        to_reference_work(&mut x, 0.15);
        assert_eq!(x.jobs[0].work, SimTime::from_secs(150));
        assert_eq!(x.jobs[0].estimate, Some(SimTime::from_secs(300)));
    }

    #[test]
    fn badness_estimates_lie_in_r_to_f_plus_1_r() {
        let mut x = w(100, None);
        for _ in 0..9 {
            x.jobs.push(x.jobs[0].clone());
        }
        Estimates::Badness { f: 3.0 }.apply(&mut x, &RngStreams::new(1));
        for j in &x.jobs {
            let e = j.estimate.unwrap().0;
            assert!((100_000..=400_000).contains(&e), "{e}");
        }
        Estimates::Exact.apply(&mut x, &RngStreams::new(1));
        assert!(x.jobs.iter().all(|j| j.estimate.is_none()));
    }
}
