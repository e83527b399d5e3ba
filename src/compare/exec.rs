//! Running a comparison with common random numbers: every variant runs under the same
//! seeds, and variants whose workloads are built alike share one workload per seed (built
//! once, handed to each run prebuilt), so they see the same arrivals, sizes and run
//! times; each concern's random stream is derived from `(seed, stream name)`, so faults
//! and spot draws match too. Every run goes through the one run path ([`crate::run`]).

use super::spec::CompareSpec;
use super::CompareError;
use crate::engine::RngStreams;
use crate::metrics::RunSketches;
use crate::model::Workload;
use crate::scenario::{Scenario, WorkloadSource};
use rayon::prelude::*;
use std::sync::Arc;

/// What one run of a variant produced.
#[derive(Debug, Clone)]
pub struct RunFigures {
    /// Numeric figures of its summary, `summary.json` paths joined by `_`.
    pub metrics: Vec<(String, f64)>,
    /// Its distributions (wait, queueing delay, JCT, bounded slowdown).
    pub sketches: RunSketches,
    /// It stopped before every job had ended (without a horizon: at a limit, or with
    /// waiting jobs nothing could start); its jobs count as unfinished.
    pub cut_short: bool,
}

/// A finished comparison: every variant's runs, seed by seed.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// What was compared.
    pub spec: CompareSpec,
    /// `runs[variant][seed]`, in the spec's orders.
    pub runs: Vec<Vec<RunFigures>>,
    /// Every metric any run has, in order of first appearance.
    pub metric_names: Vec<String>,
    /// For each variant, the index of the variant whose workload it shares per seed.
    pub shares_workload_with: Vec<usize>,
}

/// What decides a variant's workload (everything its build reads, job limit and tags
/// included: a variant that changed `max_jobs` once ran its baseline's whole trace):
/// variants equal on it share one per seed; `i` makes a workload given in memory its own.
fn workload_key(s: &Scenario, i: usize) -> Result<String, usize> {
    crate::sweep::workload_key(s).ok_or(i)
}

impl Comparison {
    /// The values of `metric` for variant `v`, seed by seed.
    pub fn values(&self, v: usize, metric: &str) -> Vec<Option<f64>> {
        self.runs[v]
            .iter()
            .map(|r| r.metrics.iter().find(|m| m.0 == metric).map(|m| m.1))
            .collect()
    }
}

/// Runs every variant of `spec` under every seed on `threads` threads (0: all cores).
/// Same spec, same results, at any thread count.
pub fn run_compare(spec: &CompareSpec, threads: usize) -> Result<Comparison, CompareError> {
    spec.check_size()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CompareError::Failed(format!("thread pool: {e}")))?;
    let nv = spec.variants.len();
    // The first variant of each group of alike workloads builds it.
    let keys: Vec<_> = spec
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| workload_key(&v.scenario, i))
        .collect();
    let shares: Vec<usize> = (0..nv)
        .map(|i| (0..=i).find(|&j| keys[j] == keys[i]).unwrap_or(i))
        .collect();
    let builders: Vec<usize> = (0..nv).filter(|&i| shares[i] == i).collect();
    let jobs: Vec<(usize, u64)> = builders
        .iter()
        .flat_map(|&b| spec.seeds.iter().map(move |&s| (b, s)))
        .collect();
    let built: Vec<Result<Arc<Workload>, CompareError>> = pool.install(|| {
        jobs.par_iter()
            .map(|&(b, seed)| {
                spec.variants[b]
                    .scenario
                    .workload_from(&RngStreams::new(seed))
                    .map(Arc::new)
                    .map_err(|e| {
                        CompareError::BadInput(format!("variant `{}`: {e}", spec.variants[b].name))
                    })
            })
            .collect()
    });
    let mut workloads = Vec::with_capacity(built.len());
    for w in built {
        workloads.push(w?);
    }
    let workload_of = |v: usize, k: usize| {
        let b = builders.iter().position(|&x| x == shares[v]).unwrap_or(0);
        workloads[b * spec.seeds.len() + k].clone()
    };
    let tasks: Vec<(usize, usize)> = (0..nv)
        .flat_map(|v| (0..spec.seeds.len()).map(move |k| (v, k)))
        .collect();
    let results: Vec<Result<RunFigures, CompareError>> = pool.install(|| {
        tasks
            .par_iter()
            .map(|&(v, k)| {
                let variant = &spec.variants[v];
                let mut s = variant.scenario.clone();
                s.workload = WorkloadSource::Given(workload_of(v, k));
                let streams = RngStreams::new(spec.seeds[k]);
                let e = crate::run::execute(&s, &streams).map_err(|e| {
                    let m = format!("variant `{}`, seed {}: {e}", variant.name, spec.seeds[k]);
                    if e.is_bad_input() {
                        CompareError::BadInput(m)
                    } else {
                        CompareError::Failed(m)
                    }
                })?;
                let table = &e.job_figures;
                let metrics = crate::sweep::flatten_summary(&e.summary)
                    .into_iter()
                    .filter_map(|(k, v)| v.parse::<f64>().ok().map(|x| (k, x)))
                    .collect();
                Ok(RunFigures {
                    metrics,
                    sketches: RunSketches::of(table),
                    cut_short: e.result.cut_short.is_some(),
                })
            })
            .collect()
    });
    let mut runs: Vec<Vec<RunFigures>> = vec![Vec::new(); nv];
    for ((v, _), r) in tasks.iter().zip(results) {
        runs[*v].push(r?);
    }
    let mut metric_names: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for r in runs.iter().flatten() {
        for (m, _) in &r.metrics {
            if seen.insert(m.clone()) {
                metric_names.push(m.clone());
            }
        }
    }
    Ok(Comparison {
        spec: spec.clone(),
        runs,
        metric_names,
        shares_workload_with: shares,
    })
}
