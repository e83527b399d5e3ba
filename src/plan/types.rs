//! The checked plan: decisions with their options, targets with their bounds, the
//! objective, the replication rule and the search settings.

use crate::scenario::Scenario;
use crate::sweep::ParamValue;
use std::path::PathBuf;

/// A plan ready to search.
#[derive(Debug, Clone)]
pub struct PlanSpec {
    /// Name.
    pub name: String,
    /// The question in words, if the file gives one.
    pub question: Option<String>,
    /// The plan file.
    pub file: PathBuf,
    /// The base scenario file.
    pub scenario_path: PathBuf,
    /// The base scenario as the plan file names it (relative to the plan file).
    pub scenario_given: String,
    /// Its text, as read.
    pub scenario_text: String,
    /// The validated base scenario.
    pub base: Scenario,
    /// What may change, in the file's order.
    pub decisions: Vec<Decision>,
    /// What must hold.
    pub targets: Vec<Target>,
    /// What to minimise.
    pub objective: Objective,
    /// The sequential replication rule.
    pub reps: Replications,
    /// Search settings.
    pub search: SearchSettings,
    /// Hash of everything that decides a replication's figures (records of another plan
    /// are not reused).
    pub hash: String,
}

/// One decision and its options, in increasing order for a monotone one.
#[derive(Debug, Clone)]
pub struct Decision {
    /// Name in tables and words.
    pub label: String,
    /// Name on chart labels.
    pub short: String,
    /// The option in words with `{}` for the value, if the file gives one.
    pub template: Option<String>,
    /// The words for the value 0, if the file gives them.
    pub zero: Option<String>,
    /// The words for the value 1, if the file gives them.
    pub one: Option<String>,
    /// The dotted path (names resolved to indexes), for a path decision.
    pub path: Option<String>,
    /// More never hurts the targets: feasibility can only go from false to true as the
    /// option index grows, which the search uses.
    pub monotone: bool,
    /// A count (integer values): words put the number first ("6 owned nodes").
    pub count: bool,
    /// The options.
    pub options: Vec<DecisionOption>,
    /// The option the base scenario has (or the largest for a monotone decision).
    pub start: usize,
    /// Line in the plan file.
    pub line: Option<usize>,
}

/// One option of a decision: the fields it sets.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionOption {
    /// The value as shown in tables (`6`, `0.3`, `3-year`).
    pub value: String,
    /// (resolved dotted path, value) pairs to set.
    pub sets: Vec<(String, ParamValue)>,
}

impl Decision {
    /// The option `i` in words: "6 owned nodes", "preemptible share 0.3", "3-year term".
    pub fn words(&self, i: usize) -> String {
        let v = &self.options[i].value;
        if let (Some(z), "0") = (&self.zero, v.as_str()) {
            z.clone()
        } else if let (Some(o), "1") = (&self.one, v.as_str()) {
            o.clone()
        } else if let Some(t) = &self.template {
            t.replace("{}", v)
        } else if self.path.is_none() {
            v.clone()
        } else if self.count {
            format!("{v} {}", self.label)
        } else {
            format!("{} {v}", self.label)
        }
    }

    /// The option `i` for a chart label: "6 owned".
    pub fn short_words(&self, i: usize) -> String {
        let v = &self.options[i].value;
        if self.path.is_none() {
            v.clone()
        } else if self.count {
            format!("{v} {}", self.short)
        } else {
            format!("{} {v}", self.short)
        }
    }
}

/// A bound on a metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    /// The metric must be at most this.
    Max(f64),
    /// The metric must be at least this.
    Min(f64),
}

impl Bound {
    /// The bound's value.
    pub fn value(self) -> f64 {
        match self {
            Bound::Max(x) | Bound::Min(x) => x,
        }
    }

    /// True when `x` meets the bound.
    pub fn holds(self, x: f64) -> bool {
        match self {
            Bound::Max(b) => x <= b,
            Bound::Min(b) => x >= b,
        }
    }

    /// How far `x` is on the wrong side, relative to the bound (0 when it holds).
    pub fn violation(self, x: f64) -> f64 {
        let (over, b) = match self {
            Bound::Max(b) => (x - b, b),
            Bound::Min(b) => (b - x, b),
        };
        if over <= 0.0 {
            0.0
        } else if b == 0.0 {
            over
        } else {
            over / b.abs()
        }
    }

    /// `<=` or `>=`.
    pub fn op(self) -> &'static str {
        match self {
            Bound::Max(_) => "<=",
            Bound::Min(_) => ">=",
        }
    }
}

/// How a target's figure is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Seconds (shown as a duration).
    Seconds,
    /// A share of jobs (shown in percent).
    Share,
    /// Dollars.
    Dollars,
    /// A plain number.
    Number,
}

/// A figure computed by the plan from a run's jobs (not in `summary.json`).
#[derive(Debug, Clone, PartialEq)]
pub enum Derived {
    /// Share of covered jobs whose censored wait (`wait_all_s`) or completion time
    /// (`jct_all_s`) exceeds `secs`.
    Over {
        /// `wait_all_s` or `jct_all_s`.
        of: String,
        /// The threshold in seconds.
        secs: f64,
    },
    /// Share of jobs with a deadline that did not complete by it.
    DeadlineMissed,
}

/// One target.
#[derive(Debug, Clone)]
pub struct Target {
    /// The metric as written (`wait_all_s.p95`, `wait_all_s over 1h`).
    pub metric: String,
    /// Its column in the records (`wait_all_s_p95`).
    pub key: String,
    /// The bound.
    pub bound: Bound,
    /// The bound as written ("1h", "1%").
    pub bound_text: String,
    /// Name in words.
    pub label: String,
    /// How its figure is shown.
    pub unit: Unit,
    /// A figure the plan computes, if not a summary field.
    pub derived: Option<Derived>,
    /// Line in the plan file.
    pub line: Option<usize>,
}

/// The period the objective is scaled to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Per {
    /// As simulated.
    Run,
    /// A 30-day month at the simulated rate.
    Month,
    /// `years` 365-day years at the simulated rate.
    Years(f64),
}

/// What to minimise.
#[derive(Debug, Clone)]
pub struct Objective {
    /// The metric as written.
    pub metric: String,
    /// Its column in the records.
    pub key: String,
    /// The period.
    pub per: Per,
    /// Line in the plan file.
    pub line: Option<usize>,
}

impl Objective {
    /// The objective from a replication's metric value and its simulated hours.
    pub fn scale(&self, x: f64, simulated_hours: f64) -> f64 {
        let h = simulated_hours.max(1e-9);
        match self.per {
            Per::Run => x,
            Per::Month => x * 720.0 / h,
            Per::Years(y) => x * 8760.0 * y / h,
        }
    }

    /// "per month", "over 3 years", "over the simulated 30 days".
    pub fn period_words(&self) -> String {
        match self.per {
            Per::Run => "over the simulated period".into(),
            Per::Month => "per month".into(),
            Per::Years(1.0) => "per year".into(),
            Per::Years(y) => format!("over {y} years"),
        }
    }
}

/// The sequential replication rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Replications {
    /// First replications of every fleet.
    pub min: usize,
    /// Cap.
    pub max: usize,
    /// Added per round while undecided.
    pub step: usize,
    /// Seed of replication 0; replication r uses `seed + r`.
    pub seed: u64,
    /// Confidence level of the intervals.
    pub confidence: f64,
    /// A fleet is feasible only when every target's interval clears its bound (else: when
    /// every mean meets it).
    pub confident: bool,
}

impl Replications {
    /// Seed of replication `r`.
    pub fn seed_of(&self, r: usize) -> u64 {
        self.seed.wrapping_add(r as u64)
    }
}

/// How to search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchSettings {
    /// Simulate every fleet of the grid (the brute-force oracle).
    pub grid: bool,
    /// Runner-ups reported.
    pub runner_ups: usize,
    /// Most fleets simulated.
    pub max_fleets: usize,
}
