//! The answer read from the evaluated fleets: the recommendation (cheapest feasible fleet)
//! with each target's value, interval and how sure it is to hold; the runner-ups with the
//! paired cost difference; the cost-versus-service frontier; or, when nothing is feasible,
//! the closest fleet and the targets it fails.

use super::eval::{Candidate, Evaluator, Status};
use super::stats::{confidence_holds, paired_difference, Estimate, Settled};
use super::types::{Bound, PlanSpec};
use serde::Serialize;

/// A figure with its confidence interval.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Interval {
    /// Mean over the replications.
    pub mean: f64,
    /// Low end of the interval (null with one replication).
    pub lo: Option<f64>,
    /// High end.
    pub hi: Option<f64>,
}

impl From<Estimate> for Interval {
    fn from(e: Estimate) -> Interval {
        let fin = |x: f64| x.is_finite().then_some(x);
        Interval {
            mean: e.mean,
            lo: fin(e.lo()),
            hi: fin(e.hi()),
        }
    }
}

/// One target at one fleet.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TargetFigure {
    /// The target's name.
    pub label: String,
    /// The metric.
    pub metric: String,
    /// `<=` or `>=`.
    pub op: &'static str,
    /// The bound (number; seconds for a time, a fraction for a share).
    pub bound: f64,
    /// The bound as written.
    pub bound_text: String,
    /// Value and interval.
    pub value: Interval,
    /// The mean meets the bound.
    pub holds: bool,
    /// "holds", "fails" or "open" (the interval contains the bound).
    pub settled: &'static str,
    /// Replications in which the target held.
    pub held_in: usize,
    /// Replications.
    pub replications: usize,
    /// Student-t probability that the long-run mean meets the bound.
    pub confidence: f64,
}

/// One fleet's figures.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FleetFigure {
    /// Its number in the grid.
    pub fleet: u64,
    /// Option value per decision, in the decisions' order.
    pub values: Vec<String>,
    /// In words.
    pub words: String,
    /// For chart labels.
    pub short: String,
    /// Pools left out (0 nodes).
    pub left_out: Vec<String>,
    /// Objective with its interval.
    pub cost: Interval,
    /// Targets.
    pub targets: Vec<TargetFigure>,
    /// Every target's mean meets its bound.
    pub feasible: bool,
    /// Some target's interval still contained its bound at the replication cap.
    pub at_cap: bool,
    /// Replications.
    pub replications: usize,
    /// Why the fleet could not run, if it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
}

/// A runner-up: a fleet and how much more it costs than the recommendation.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunnerUp {
    /// The fleet.
    pub fleet: FleetFigure,
    /// Its objective minus the recommendation's, paired over common seeds.
    pub extra_cost: Interval,
}

/// What the plan found.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Answer {
    /// Some fleet meets every target.
    pub feasible: bool,
    /// The cheapest feasible fleet.
    pub recommended: Option<FleetFigure>,
    /// When none is feasible: the fleet closest to meeting the targets.
    pub closest: Option<FleetFigure>,
    /// The targets the closest fleet fails.
    pub failing: Vec<String>,
    /// The next cheapest feasible fleets.
    pub runner_ups: Vec<RunnerUp>,
    /// Fleets no other evaluated fleet beats on both cost and the first target, by cost.
    pub frontier: Vec<FleetFigure>,
    /// Fleets simulated.
    pub fleets_evaluated: usize,
    /// Fleets in the decision space.
    pub grid_fleets: u64,
    /// Replications simulated or read back.
    pub replications: usize,
    /// The search stopped at `search.max_fleets`.
    pub budget_hit: bool,
}

/// The figures of candidate `c`.
pub fn figure(spec: &PlanSpec, c: &Candidate) -> FleetFigure {
    let level = spec.reps.confidence;
    let settled = c.settled(spec);
    let targets = spec
        .targets
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let e = c.target(k, level);
            let v = &c.target_values[k];
            TargetFigure {
                label: t.label.clone(),
                metric: t.metric.clone(),
                op: t.bound.op(),
                bound: t.bound.value(),
                bound_text: t.bound_text.clone(),
                value: e.into(),
                holds: c.status == Status::Ran && !v.is_empty() && t.bound.holds(e.mean),
                settled: match settled[k] {
                    Settled::Holds => "holds",
                    Settled::Fails => "fails",
                    Settled::Open => "open",
                },
                held_in: v.iter().filter(|&&x| t.bound.holds(x)).count(),
                replications: v.len(),
                confidence: confidence_holds(&e, t.bound),
            }
        })
        .collect();
    FleetFigure {
        fleet: c.index,
        values: spec
            .decisions
            .iter()
            .zip(&c.fleet)
            .map(|(d, &x)| d.options[x].value.clone())
            .collect(),
        words: spec.describe(&c.fleet),
        short: spec.describe_short(&c.fleet),
        left_out: c.left_out.clone(),
        cost: c.cost(level).into(),
        targets,
        feasible: c.feasible(spec),
        at_cap: c.open(spec) && c.reps.len() >= spec.reps.max,
        replications: c.reps.len(),
        invalid: match &c.status {
            Status::Invalid(m) => Some(m.clone()),
            Status::Ran => None,
        },
    }
}

/// The service figure of the frontier (smaller is better): the first target's mean,
/// negated for a lower bound.
pub fn service(spec: &PlanSpec, c: &Candidate) -> f64 {
    let e = c.target(0, spec.reps.confidence);
    match spec.targets[0].bound {
        Bound::Max(_) => e.mean,
        Bound::Min(_) => -e.mean,
    }
}

/// Reads the answer from the evaluator.
pub fn answer(spec: &PlanSpec, ev: &Evaluator) -> Answer {
    let level = spec.reps.confidence;
    let ran: Vec<&Candidate> = ev
        .cache
        .values()
        .filter(|c| c.status == Status::Ran && !c.reps.is_empty())
        .collect();
    let mut feasible: Vec<&Candidate> = ran.iter().copied().filter(|c| c.feasible(spec)).collect();
    feasible.sort_by(|a, b| {
        a.mean_cost()
            .total_cmp(&b.mean_cost())
            .then(a.index.cmp(&b.index))
    });
    let best = feasible.first().copied();
    let runner_ups = match best {
        Some(b) => feasible[1..]
            .iter()
            .take(spec.search.runner_ups)
            .map(|c| RunnerUp {
                fleet: figure(spec, c),
                extra_cost: paired_difference(&b.objective, &c.objective, level).into(),
            })
            .collect(),
        None => Vec::new(),
    };
    let closest = if best.is_none() {
        ran.iter()
            .copied()
            .min_by(|a, b| {
                a.violation(spec)
                    .total_cmp(&b.violation(spec))
                    .then(a.mean_cost().total_cmp(&b.mean_cost()))
                    .then(a.index.cmp(&b.index))
            })
            .map(|c| figure(spec, c))
    } else {
        None
    };
    let failing = closest
        .as_ref()
        .map(|c| {
            c.targets
                .iter()
                .filter(|t| !t.holds)
                .map(|t| t.label.clone())
                .collect()
        })
        .unwrap_or_default();
    let pts: Vec<(f64, f64)> = ran
        .iter()
        .map(|c| (service(spec, c), c.mean_cost()))
        .collect();
    let mut front: Vec<&Candidate> = crate::report::pareto_front(&pts)
        .into_iter()
        .map(|i| ran[i])
        .collect();
    front.sort_by(|a, b| {
        a.mean_cost()
            .total_cmp(&b.mean_cost())
            .then(a.index.cmp(&b.index))
    });
    Answer {
        feasible: best.is_some(),
        recommended: best.map(|c| figure(spec, c)),
        closest,
        failing,
        runner_ups,
        frontier: front.into_iter().map(|c| figure(spec, c)).collect(),
        fleets_evaluated: ev.cache.len(),
        grid_fleets: spec.grid_size(),
        replications: ev.replications(),
        budget_hit: ev.budget_hit,
    }
}
