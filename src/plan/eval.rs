//! Evaluating fleets: each fleet's scenario runs through the one run path
//! ([`crate::run::execute`]) under common random numbers (replication r of every fleet uses
//! seed + r), replications are added in rounds until every target's interval excludes its
//! bound, one target surely fails, or the cap is hit. Runs go in parallel on a rayon pool;
//! each finished replication is a durable record (the sweep's format), so `--resume` reads
//! it back instead of running it. A cache keeps every fleet: none is simulated twice.

use super::fleet::{assemble, FleetError};
use super::metrics::{lookup, replication_metrics};
use super::stats::{settled, Estimate, Settled};
use super::types::PlanSpec;
use super::PlanError;
use crate::engine::RngStreams;
use crate::scenario::Scenario;
use crate::sweep::Record;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A fleet's state.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Simulated.
    Ran,
    /// Not a valid scenario (shown with the reason; counts as failing every target).
    Invalid(String),
}

/// One replication of a fleet.
#[derive(Debug, Clone, PartialEq)]
pub struct Replication {
    /// Its seed.
    pub seed: u64,
    /// Its figures, `(column, value)`.
    pub metrics: Vec<(String, String)>,
}

/// A fleet evaluated.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Option index per decision.
    pub fleet: Vec<usize>,
    /// Its number in the grid.
    pub index: u64,
    /// Order of evaluation (0 first).
    pub order: usize,
    /// Ran or invalid.
    pub status: Status,
    /// Pools it leaves out.
    pub left_out: Vec<String>,
    /// Replications in seed order.
    pub reps: Vec<Replication>,
    /// Per target, its value in each replication.
    pub target_values: Vec<Vec<f64>>,
    /// The objective in each replication (scaled to its period).
    pub objective: Vec<f64>,
}

impl Candidate {
    /// The estimate of target `k`.
    pub fn target(&self, k: usize, level: f64) -> Estimate {
        Estimate::of(&self.target_values[k], level)
    }

    /// The objective's estimate.
    pub fn cost(&self, level: f64) -> Estimate {
        Estimate::of(&self.objective, level)
    }

    /// Mean objective (infinite for an invalid fleet).
    pub fn mean_cost(&self) -> f64 {
        if self.status != Status::Ran || self.objective.is_empty() {
            return f64::INFINITY;
        }
        self.objective.iter().sum::<f64>() / self.objective.len() as f64
    }

    /// Where each target stands.
    pub fn settled(&self, spec: &PlanSpec) -> Vec<Settled> {
        spec.targets
            .iter()
            .enumerate()
            .map(|(k, t)| {
                if self.status != Status::Ran {
                    Settled::Fails
                } else {
                    settled(&self.target(k, spec.reps.confidence), t.bound)
                }
            })
            .collect()
    }

    /// Needs more replications: no target surely fails and some target is open.
    pub fn open(&self, spec: &PlanSpec) -> bool {
        let s = self.settled(spec);
        !s.contains(&Settled::Fails) && s.contains(&Settled::Open)
    }

    /// Every target's mean meets its bound (the decision at the replications it has), or
    /// with `decide = "confident"`, every target's interval clears it.
    pub fn feasible(&self, spec: &PlanSpec) -> bool {
        if spec.reps.confident {
            return self.status == Status::Ran
                && !self.reps.is_empty()
                && self.settled(spec).iter().all(|s| *s == Settled::Holds);
        }
        self.status == Status::Ran
            && !self.reps.is_empty()
            && spec.targets.iter().enumerate().all(|(k, t)| {
                let v = &self.target_values[k];
                t.bound.holds(v.iter().sum::<f64>() / v.len() as f64)
            })
    }

    /// Sum of the targets' relative violations at their means (0 when feasible).
    pub fn violation(&self, spec: &PlanSpec) -> f64 {
        if self.status != Status::Ran || self.reps.is_empty() {
            return f64::INFINITY;
        }
        spec.targets
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let v = &self.target_values[k];
                t.bound.violation(v.iter().sum::<f64>() / v.len() as f64)
            })
            .sum()
    }
}

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Lines on stderr.
    Lines,
    /// Nothing.
    Quiet,
}

/// The fleets evaluated so far and the machinery to evaluate more.
pub struct Evaluator<'a> {
    spec: &'a PlanSpec,
    out: Option<PathBuf>,
    resume: bool,
    pool: rayon::ThreadPool,
    /// Every fleet evaluated, by option indexes.
    pub cache: BTreeMap<Vec<usize>, Candidate>,
    /// Replications simulated by this invocation.
    pub ran: usize,
    /// Replications read back from records.
    pub kept: usize,
    /// The search reached `max_fleets` and stopped there.
    pub budget_hit: bool,
    checked: bool,
    /// One built workload per seed for the fleets whose workloads are built alike.
    shared: crate::sweep::SharedWorkloads,
}

impl<'a> Evaluator<'a> {
    /// An evaluator writing records under `out/runs/` (none without `out`) on `threads`
    /// threads (0: all cores); with `resume`, records already there are read back.
    pub fn new(
        spec: &'a PlanSpec,
        out: Option<&Path>,
        threads: usize,
        resume: bool,
    ) -> Result<Evaluator<'a>, PlanError> {
        if let Some(o) = out {
            let runs = o.join("runs");
            if !resume {
                let _ = std::fs::remove_dir_all(&runs);
            }
            std::fs::create_dir_all(&runs)
                .map_err(|e| PlanError::Failed(format!("{}: {e}", runs.display())))?;
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| PlanError::Failed(format!("thread pool: {e}")))?;
        let shared = crate::sweep::SharedWorkloads::new(pool.current_num_threads() + 1);
        Ok(Evaluator {
            shared,
            spec,
            out: out.map(Path::to_path_buf),
            resume,
            pool,
            cache: BTreeMap::new(),
            ran: 0,
            kept: 0,
            budget_hit: false,
            checked: false,
        })
    }

    /// Replications in the cache.
    pub fn replications(&self) -> usize {
        self.cache.values().map(|c| c.reps.len()).sum()
    }

    /// The candidate of `fleet`, once evaluated.
    pub fn get(&self, fleet: &[usize]) -> Option<&Candidate> {
        self.cache.get(fleet)
    }

    /// True when `fleet` is evaluated and feasible.
    pub fn feasible(&self, fleet: &[usize]) -> bool {
        self.get(fleet).is_some_and(|c| c.feasible(self.spec))
    }

    /// Mean objective of `fleet` (infinite when not evaluated, invalid or infeasible).
    pub fn feasible_cost(&self, fleet: &[usize]) -> f64 {
        match self.get(fleet) {
            Some(c) if c.feasible(self.spec) => c.mean_cost(),
            _ => f64::INFINITY,
        }
    }

    /// The cheapest feasible fleet so far (ties: the lower grid number).
    pub fn best(&self) -> Option<&Candidate> {
        self.cache
            .values()
            .filter(|c| c.feasible(self.spec))
            .min_by(|a, b| {
                a.mean_cost()
                    .total_cmp(&b.mean_cost())
                    .then(a.index.cmp(&b.index))
            })
    }

    /// Evaluates `fleets` (those not yet in the cache), with the sequential replication
    /// rule; runs their replications in parallel.
    pub fn evaluate(&mut self, fleets: &[Vec<usize>]) -> Result<(), PlanError> {
        let mut new: Vec<Vec<usize>> = Vec::new();
        for f in fleets {
            if !self.cache.contains_key(f) && !new.contains(f) {
                new.push(f.clone());
            }
        }
        let room = self.spec.search.max_fleets.saturating_sub(self.cache.len());
        if new.len() > room {
            new.truncate(room);
            self.budget_hit = true;
        }
        if new.is_empty() {
            return Ok(());
        }
        let spec = self.spec;
        let mut scenarios: Vec<Option<Scenario>> = Vec::new();
        let mut cands: Vec<Candidate> = Vec::new();
        for f in &new {
            let (status, left_out, scenario) = match assemble(spec, f) {
                Ok(a) => (Status::Ran, a.left_out, Some(a.scenario)),
                Err(FleetError::Empty) => (
                    Status::Invalid("every pool left out".into()),
                    Vec::new(),
                    None,
                ),
                Err(e) => (
                    Status::Invalid(e.to_string().lines().collect::<Vec<_>>().join("; ")),
                    Vec::new(),
                    None,
                ),
            };
            scenarios.push(scenario);
            cands.push(Candidate {
                fleet: f.clone(),
                index: spec.fleet_index(f),
                order: self.cache.len() + cands.len(),
                status,
                left_out,
                reps: Vec::new(),
                target_values: vec![Vec::new(); spec.targets.len()],
                objective: Vec::new(),
            });
        }
        loop {
            let mut jobs: Vec<(usize, usize)> = Vec::new();
            for (i, c) in cands.iter().enumerate() {
                if c.status != Status::Ran {
                    continue;
                }
                let n = c.reps.len();
                let more = if n == 0 {
                    spec.reps.min
                } else if n < spec.reps.max && c.open(spec) {
                    spec.reps.step.min(spec.reps.max - n)
                } else {
                    0
                };
                jobs.extend((n..n + more).map(|r| (i, r)));
            }
            if jobs.is_empty() {
                break;
            }
            let out = self.out.as_deref();
            let resume = self.resume;
            let shared = &self.shared;
            // Made replication by replication, fleets whose workloads are built alike
            // together (they share one built workload); taken in the jobs' order.
            let mut order: Vec<(usize, u64, usize)> = jobs
                .iter()
                .enumerate()
                .map(|(k, &(i, r))| {
                    let h = scenarios[i]
                        .as_ref()
                        .map_or(0, crate::sweep::workload_key_hash);
                    (r, h, k)
                })
                .collect();
            order.sort_unstable();
            let mut made: Vec<(usize, Made)> = self.pool.install(|| {
                order
                    .par_iter()
                    .map(|&(_, _, k)| {
                        let (i, r) = jobs[k];
                        let res = scenarios[i]
                            .as_ref()
                            .ok_or_else(|| {
                                PlanError::Failed("internal: no scenario for a valid fleet".into())
                            })
                            .and_then(|s| replicate(spec, &cands[i], s, r, out, resume, shared));
                        (k, res)
                    })
                    .collect()
            });
            // Each job was made once: back in the jobs' order.
            made.sort_unstable_by_key(|m| m.0);
            for (&(i, _), (_, res)) in jobs.iter().zip(made) {
                let (rep, kept) = res?;
                if kept {
                    self.kept += 1;
                } else {
                    self.ran += 1;
                }
                if !self.checked {
                    check_columns(spec, &rep.metrics)?;
                    self.checked = true;
                }
                push(spec, &mut cands[i], rep)?;
            }
        }
        for c in cands {
            self.cache.insert(c.fleet.clone(), c);
        }
        Ok(())
    }
}

/// A replication made, or why not; `true` when read back from its record.
type Made = Result<(Replication, bool), PlanError>;

/// Adds a replication's figures to a candidate.
fn push(spec: &PlanSpec, c: &mut Candidate, rep: Replication) -> Result<(), PlanError> {
    let missing = |key: &str| {
        PlanError::Failed(format!(
            "fleet ({}), seed {}: no figure `{key}`",
            spec.describe(&c.fleet),
            rep.seed
        ))
    };
    for (k, t) in spec.targets.iter().enumerate() {
        let v = lookup(&rep.metrics, &t.key).ok_or_else(|| missing(&t.key))?;
        c.target_values[k].push(v);
    }
    let x =
        lookup(&rep.metrics, &spec.objective.key).ok_or_else(|| missing(&spec.objective.key))?;
    let hours = lookup(&rep.metrics, "simulated_hours").unwrap_or(1.0);
    c.objective.push(spec.objective.scale(x, hours));
    c.reps.push(rep);
    Ok(())
}

/// Replication `r` of candidate `c`: read back from its record, or run and recorded.
/// Returns it and whether it came from a record.
fn replicate(
    spec: &PlanSpec,
    c: &Candidate,
    s: &Scenario,
    r: usize,
    out: Option<&Path>,
    resume: bool,
    shared: &crate::sweep::SharedWorkloads,
) -> Result<(Replication, bool), PlanError> {
    let seed = spec.reps.seed_of(r);
    let id = (c.index as usize)
        .saturating_mul(spec.reps.max)
        .saturating_add(r);
    if let (Some(dir), true) = (out, resume) {
        if let Ok(Some(rec)) = Record::read(dir, id, &spec.hash) {
            if rec.seed == seed && rec.point as u64 == c.index {
                return Ok((
                    Replication {
                        seed,
                        metrics: rec.metrics,
                    },
                    true,
                ));
            }
        }
    }
    let streams = RngStreams::new(seed);
    let e = match shared.workload_for(s, seed) {
        Some(w) => crate::run::execute_built(s, w, &streams),
        None => crate::run::execute(s, &streams),
    }
    .map_err(|e| {
        let msg = format!("fleet ({}), seed {seed}: {e}", spec.describe(&c.fleet));
        if e.is_bad_input() {
            PlanError::BadInput(msg)
        } else {
            PlanError::Failed(msg)
        }
    })?;
    let metrics = replication_metrics(spec, &e, &c.left_out);
    if let Some(dir) = out {
        let rec = Record {
            run: id,
            point: c.index as usize,
            seed,
            params: spec
                .decisions
                .iter()
                .zip(&c.fleet)
                .map(|(d, &x)| (d.label.clone(), d.options[x].value.clone()))
                .collect(),
            metrics: metrics.clone(),
            sketches: Vec::new(),
        };
        rec.write(dir, &spec.hash)
            .map_err(|e| PlanError::Failed(format!("writing the record of run {id}: {e}")))?;
    }
    Ok((Replication { seed, metrics }, false))
}

/// After the first replication: every target and the objective name a figure the runs have.
fn check_columns(spec: &PlanSpec, metrics: &[(String, String)]) -> Result<(), PlanError> {
    let mut problems = Vec::new();
    let near = |key: &str| {
        let head = key.split('_').next().unwrap_or("");
        let mut v: Vec<String> = metrics
            .iter()
            .map(|(k, _)| k.clone())
            .filter(|k| k.starts_with(head))
            .take(12)
            .collect();
        if v.is_empty() {
            v = metrics.iter().map(|(k, _)| k.clone()).take(12).collect();
        }
        v.join(", ")
    };
    for t in &spec.targets {
        if lookup(metrics, &t.key).is_none() {
            problems.push((
                t.line,
                format!(
                    "target `{}`: summary.json has no such figure (as columns: {} ...; dotted, e.g. wait_all_s.p95)",
                    t.metric,
                    near(&t.key)
                ),
            ));
        }
        if t.derived == Some(super::types::Derived::DeadlineMissed)
            && lookup(metrics, "deadline_jobs") == Some(0.0)
        {
            problems.push((
                t.line,
                "target `deadline_missed`: no job of the workload has a deadline (a csv trace's deadline_s column)".into(),
            ));
        }
    }
    if lookup(metrics, &spec.objective.key).is_none() {
        problems.push((
            spec.objective.line,
            format!(
                "objective `{}`: summary.json has no such figure (columns: {} ...)",
                spec.objective.metric,
                near(&spec.objective.key)
            ),
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(PlanError::many(&spec.file, problems))
    }
}
