//! Goal-seeking fleet search (`gpufleet plan`): the cheapest fleet meeting service targets.
//!
//! A plan file names a base scenario, the decisions (dotted paths as in sweeps, each a range
//! of values or a list of named choices), the targets (summary figures with bounds) and the
//! objective. [`run_plan`] searches the decisions ([`search`]'s method: bisection to the
//! feasibility boundary along each monotone decision, then coordinate and exchange moves on
//! cost), evaluates each fleet with common random numbers and a sequential replication
//! rule ([`eval`]), and writes the answer: the recommendation with every target's interval
//! and how sure it is, runner-ups with paired cost differences, the cost-versus-service
//! frontier as a table and a chart, `plan.json`, `candidates.csv`, `fleets.csv`, `plan.md`.

mod answer;
mod chart;
mod eval;
mod fleet;
mod load;
mod metrics;
mod search;
mod slurm;
mod spec;
mod stats;
mod text;
mod types;
mod write;

pub use answer::{Answer, FleetFigure, Interval, RunnerUp, TargetFigure};
pub use eval::{Candidate, Evaluator, Progress, Replication, Status};
pub use fleet::{assemble, Assembled, FleetError};
pub use slurm::{estimate_job_mem_mb, PlanSlurm};
pub use stats::{confidence_holds, paired_difference, settled, t_quantile, Estimate, Settled};
pub use text::{dollars, duration};
pub use types::{
    Bound, Decision, DecisionOption, Derived, Objective, Per, PlanSpec, Replications,
    SearchSettings, Target, Unit,
};

use std::fmt;
use std::path::{Path, PathBuf};

/// A plan that cannot run: a bad plan file (each problem with its line), bad input
/// elsewhere, or a failure.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The plan file is wrong (exit code 2).
    Invalid {
        /// The plan file.
        file: PathBuf,
        /// (line, message), in line order.
        problems: Vec<(Option<usize>, String)>,
    },
    /// Bad input other than the plan file (a trace the scenario names): exit code 2.
    BadInput(String),
    /// Running or writing failed.
    Failed(String),
}

impl PlanError {
    pub(crate) fn one(file: &Path, line: Option<usize>, msg: String) -> PlanError {
        PlanError::many(file, vec![(line, msg)])
    }

    pub(crate) fn many(file: &Path, problems: Vec<(Option<usize>, String)>) -> PlanError {
        PlanError::Invalid {
            file: file.to_path_buf(),
            problems,
        }
    }

    /// True for errors in the user's input.
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, PlanError::Failed(_))
    }
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::Invalid { file, problems } => {
                crate::sweep::write_problems(f, file, problems)
            }
            PlanError::BadInput(m) | PlanError::Failed(m) => write!(f, "{m}"),
        }
    }
}

/// Options of [`run_plan`].
#[derive(Debug, Clone)]
pub struct PlanOptions {
    /// Output folder (records in `runs/`, then the answer's files); none: nothing written.
    pub out: Option<PathBuf>,
    /// Worker threads (0: all cores).
    pub threads: usize,
    /// Progress on stderr.
    pub progress: Progress,
    /// Read back the replications recorded in `out/runs/` instead of running them.
    pub resume: bool,
}

/// What [`run_plan`] did.
#[derive(Debug, Clone)]
pub struct PlanOutcome {
    /// The answer.
    pub answer: Answer,
    /// Replications simulated now.
    pub ran: usize,
    /// Replications read back from records.
    pub kept: usize,
    /// Files written (besides the records).
    pub files: Vec<PathBuf>,
}

/// Searches the plan, writes its folder (when `opts.out` is set) and returns the answer.
pub fn run_plan(spec: &PlanSpec, opts: &PlanOptions) -> Result<PlanOutcome, PlanError> {
    if let Some(out) = &opts.out {
        crate::run::check_reusable(out, "plan.json")
            .map_err(|e| PlanError::BadInput(e.to_string()))?;
        // The folder is rewritten in place: it says first that it is no longer whole.
        crate::report::remove_complete(out)
            .map_err(|e| PlanError::Failed(format!("{}: {e}", out.display())))?;
    }
    let mut ev = Evaluator::new(spec, opts.out.as_deref(), opts.threads, opts.resume)?;
    let started = std::time::Instant::now();
    let quiet = opts.progress == Progress::Quiet;
    let mut last = String::new();
    let mut on = |ev: &Evaluator, phase: &str| {
        if quiet {
            return;
        }
        let best = match ev.best() {
            Some(b) => format!(
                "best so far: {} at {} {}",
                spec.describe_short(&b.fleet),
                dollars(b.mean_cost()),
                spec.objective.period_words()
            ),
            None => "nothing feasible yet".into(),
        };
        // A line when the phase or the best fleet changes, and every 25 fleets.
        let key = format!("{phase}: {best} {}", ev.cache.len() / 25);
        if key != last {
            eprintln!(
                "plan: {phase}: {} fleets, {} replications; {best}  [{:.1} s]",
                ev.cache.len(),
                ev.replications(),
                started.elapsed().as_secs_f64()
            );
            last = key;
        }
    };
    search::search(&mut ev, spec, &mut on)?;
    let answer = answer::answer(spec, &ev);
    let mut files = Vec::new();
    if let Some(out) = &opts.out {
        let fail =
            |what: &str, e: &dyn fmt::Display| PlanError::Failed(format!("writing {what}: {e}"));
        write::write_all(out, spec, &ev, &answer)
            .map_err(|e| fail(&out.display().to_string(), &e))?;
        for f in [
            "plan.json",
            "plan.md",
            "candidates.csv",
            "fleets.csv",
            "frontier.csv",
        ] {
            files.push(out.join(f));
        }
        files.extend(chart::draw(out, spec, &ev).map_err(|e| fail("frontier chart", &e))?);
        crate::report::write_complete(out).map_err(|e| fail("complete.json", &e))?;
    }
    Ok(PlanOutcome {
        ran: ev.ran,
        kept: ev.kept,
        answer,
        files,
    })
}

/// True when `text` is a plan file (a `scenario` to start from and `[[decision]]` or
/// `[[target]]` tables) rather than a scenario, so `gpufleet run` and `validate` can tell.
pub fn is_plan_text(text: &str) -> bool {
    match text.parse::<toml::Table>() {
        Ok(t) => {
            t.get("scenario").is_some_and(toml::Value::is_str)
                && (t.contains_key("decision") || t.contains_key("target"))
        }
        Err(_) => false,
    }
}

/// The terminal summary of an answer.
pub fn summary(spec: &PlanSpec, a: &Answer) -> String {
    text::summary(spec, a)
}
