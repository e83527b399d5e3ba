//! Job tags a workload gets beyond what its trace says: classes drawn from a mix for jobs
//! without one, datasets drawn by each tenant's shares for jobs without one, and the
//! trace's dataset names mapped onto the scenario's datasets.
//!
//! Draws come from their own streams (`classes`, `datasets`), one uniform number per job
//! in submit order, so adding tags shifts no other draw of the run.

use crate::engine::RngStreams;
use crate::model::Workload;
use rand::Rng;

/// A dataset's shares of the jobs that read it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DatasetShare {
    /// Share of every tenant's jobs.
    pub share: f64,
    /// Share per tenant name (overrides `share`).
    pub tenants: Vec<(String, f64)>,
}

/// What to tag a workload's jobs with.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TagSpec {
    /// The scenario's datasets, in order, with their shares.
    pub datasets: Vec<(String, DatasetShare)>,
    /// Classes for jobs without one, by weight.
    pub class_mix: Vec<(String, f64)>,
}

impl TagSpec {
    /// True when there is nothing to tag.
    pub fn is_empty(&self) -> bool {
        self.datasets.is_empty() && self.class_mix.is_empty()
    }
}

/// Tags `w` by `spec`: trace dataset names become indices into the scenario's datasets
/// (an unknown name is an error naming it), jobs without a dataset draw one by their
/// tenant's shares, jobs without a class draw one from the mix.
pub fn apply_tags(w: &mut Workload, spec: &TagSpec, streams: &RngStreams) -> Result<(), String> {
    if spec.is_empty() {
        if let Some(name) = w.datasets.first() {
            return Err(format!(
                "the workload's jobs read dataset {name:?}, but the scenario has no [[datasets]]"
            ));
        }
        return Ok(());
    }
    let names: Vec<&str> = spec.datasets.iter().map(|d| d.0.as_str()).collect();
    let map: Vec<Option<u32>> = w
        .datasets
        .iter()
        .map(|n| names.iter().position(|s| s == n).map(|i| i as u32))
        .collect();
    if let Some((i, _)) = map.iter().enumerate().find(|(_, m)| m.is_none()) {
        return Err(format!(
            "the workload's jobs read dataset {:?}, which is not one of the scenario's \
             [[datasets]] ({})",
            w.datasets[i],
            names.join(", ")
        ));
    }
    for j in &mut w.jobs {
        j.tags.dataset = j
            .tags
            .dataset
            .and_then(|d| map.get(d as usize).copied().flatten());
    }
    w.datasets = names.iter().map(|s| s.to_string()).collect();
    // Per tenant: the cumulative shares of the datasets.
    let shares: Vec<Vec<f64>> = w
        .tenants
        .iter()
        .map(|t| {
            spec.datasets
                .iter()
                .map(|(_, s)| {
                    s.tenants
                        .iter()
                        .find(|(n, _)| n == t)
                        .map_or(s.share, |x| x.1)
                })
                .collect()
        })
        .collect();
    if shares.iter().flatten().any(|&s| s > 0.0) {
        let mut rng = streams.stream("datasets");
        for j in &mut w.jobs {
            let u: f64 = rng.random();
            if j.tags.dataset.is_some() {
                continue;
            }
            let Some(row) = shares.get(j.tenant as usize) else {
                continue;
            };
            let mut acc = 0.0;
            for (d, &s) in row.iter().enumerate() {
                acc += s;
                if u < acc {
                    j.tags.dataset = Some(d as u32);
                    break;
                }
            }
        }
    }
    let total: f64 = spec.class_mix.iter().map(|c| c.1).sum();
    if total > 0.0 {
        let idx: Vec<u16> = spec
            .class_mix
            .iter()
            .map(|(n, _)| w.class_index(n).ok_or("more than 65,535 job classes"))
            .collect::<Result<_, _>>()?;
        let mut rng = streams.stream("classes");
        for j in &mut w.jobs {
            let u: f64 = rng.random::<f64>() * total;
            if j.tags.class.is_some() {
                continue;
            }
            let mut acc = 0.0;
            for (k, (_, wgt)) in spec.class_mix.iter().enumerate() {
                acc += wgt;
                if u < acc || k + 1 == idx.len() {
                    j.tags.class = Some(idx[k]);
                    break;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimTime;
    use crate::model::{GpuRequest, Job, JobTags, TypeMask};

    fn w(n: usize) -> Workload {
        let mut w = Workload {
            tenants: vec!["a".into(), "b".into()],
            ..Default::default()
        };
        for i in 0..n {
            w.jobs.push(Job {
                name: i.to_string(),
                submit: SimTime(i as u64),
                gpus: GpuRequest::Whole(1),
                gpu_types: TypeMask::ANY,
                cpu_milli: 0,
                mem_mib: 0,
                work: SimTime(1000),
                estimate: None,
                tenant: (i % 2) as u32,
                priority: 0,
                deadline: None,
                preemptible: false,
                tags: JobTags::NONE,
            });
        }
        w
    }

    /// Tenant "a" reads "d" always, "b" never: exactly the even jobs read it. A 3:1 mix
    /// over 4,000 jobs gives about 3,000 of the first class (binomial sd ~27).
    #[test]
    fn shares_and_mix() {
        let mut wl = w(4000);
        let spec = TagSpec {
            datasets: vec![(
                "d".into(),
                DatasetShare {
                    share: 0.0,
                    tenants: vec![("a".into(), 1.0)],
                },
            )],
            class_mix: vec![("x".into(), 3.0), ("y".into(), 1.0)],
        };
        apply_tags(&mut wl, &spec, &RngStreams::new(1)).unwrap();
        for (i, j) in wl.jobs.iter().enumerate() {
            assert_eq!(j.tags.dataset.is_some(), i % 2 == 0);
        }
        let x = wl.jobs.iter().filter(|j| j.tags.class == Some(0)).count();
        assert!((2850..3150).contains(&x), "{x}");
        assert_eq!(wl.classes, vec!["x", "y"]);
        // A trace naming an unknown dataset is an error naming it.
        let mut bad = w(1);
        bad.datasets = vec!["nope".into()];
        bad.jobs[0].tags.dataset = Some(0);
        let e = apply_tags(&mut bad, &spec, &RngStreams::new(1)).unwrap_err();
        assert!(e.contains("nope"), "{e}");
    }
}
