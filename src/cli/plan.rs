//! `gpufleet plan FILE --out DIR`: the cheapest fleet meeting the plan's targets (locally,
//! resumed, or as a Slurm job).

use super::CliError;
use crate::plan::{run_plan, summary, PlanError, PlanOptions, PlanSlurm, PlanSpec, Progress};
use anyhow::anyhow;
use clap::Args;
use std::path::{Path, PathBuf};

/// Examples shown by `gpufleet plan --help`.
pub const EXAMPLES: &str = "Examples:\n  gpufleet plan scenarios/plan-h100-team.toml --out out/plan\n  gpufleet plan FILE --out out/plan --resume          # keep the replications already recorded\n  gpufleet plan FILE --check                          # check the plan file, run nothing\n  gpufleet plan FILE --out /shared/plan --slurm --threads 16 --sbatch-arg=--partition=cpu";

/// Arguments of `gpufleet plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Plan file (TOML).
    pub file: PathBuf,
    /// Output folder (default: out/<plan name>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Worker threads (default: all cores; at most 1024).
    #[arg(long, default_value_t = 0, value_parser = super::parse_threads)]
    pub threads: usize,
    /// No progress output; print only the answer's first line (the global `-q`).
    #[arg(skip)]
    pub quiet: bool,
    /// Keep the replications recorded in the output folder; run only the others.
    #[arg(long)]
    pub resume: bool,
    /// Only check the plan file and print its decisions; run nothing.
    #[arg(long)]
    pub check: bool,
    /// Submit the plan to Slurm as one job with --threads CPUs (resumable).
    #[arg(long)]
    pub slurm: bool,
    /// Extra argument for sbatch (repeatable), e.g. `--sbatch-arg=--partition=cpu`.
    #[arg(long = "sbatch-arg", allow_hyphen_values = true, requires = "slurm")]
    pub sbatch_args: Vec<String>,
    /// With --slurm: write the script and print the sbatch command without submitting.
    #[arg(long, requires = "slurm")]
    pub dry_run: bool,
    /// With --slurm: memory of the job in MiB (default: estimated from the largest run
    /// times --threads; an `--sbatch-arg=--mem=...` wins over both). 1 to 16,777,216 (16 TiB).
    #[arg(long, requires = "slurm", value_parser = clap::value_parser!(u64).range(1..=super::MAX_MEM_MB))]
    pub mem_mb: Option<u64>,
}

/// True when `path` is a plan file (so `gpufleet run` and `validate` hand it here).
pub fn is_plan_file(path: &Path) -> bool {
    crate::workload::read_small_text(path, crate::workload::MAX_SCENARIO_BYTES)
        .map(|t| crate::plan::is_plan_text(&t))
        .unwrap_or(false)
}

/// `gpufleet run PLAN.toml`: runs the plan (its seeds come from `[replications]`).
pub fn run_file(
    path: &Path,
    out: Option<PathBuf>,
    seed: Option<u64>,
    quiet: bool,
) -> Result<(), CliError> {
    if seed.is_some() {
        return Err(CliError::BadInput(anyhow!(
            "{}: a plan's seeds come from its [replications] table, not --seed",
            path.display()
        )));
    }
    plan(PlanArgs {
        file: path.to_path_buf(),
        out,
        threads: 0,
        quiet,
        resume: false,
        check: false,
        slurm: false,
        sbatch_args: Vec::new(),
        dry_run: false,
        mem_mb: None,
    })
}

/// `gpufleet validate PLAN.toml`.
pub fn validate(path: &Path) -> Result<super::Checked, CliError> {
    let spec = PlanSpec::load(path).map_err(err)?;
    Ok(checked(path, &spec))
}

/// What `plan --check` and `validate` report of a plan: its decisions and their options.
fn checked(path: &Path, spec: &PlanSpec) -> super::Checked {
    let mut text = format!(
        "{}: ok ({} decisions, {} fleets in the grid, {} targets; replications {}..{})",
        path.display(),
        spec.decisions.len(),
        spec.grid_size(),
        spec.targets.len(),
        spec.reps.min,
        spec.reps.max
    );
    for d in &spec.decisions {
        text.push_str(&format!(
            "\n  {}{}: {} options ({} .. {})",
            d.label,
            if d.monotone { " (monotone)" } else { "" },
            d.options.len(),
            d.options.first().map(|o| o.value.as_str()).unwrap_or(""),
            d.options.last().map(|o| o.value.as_str()).unwrap_or("")
        ));
    }
    let decisions: Vec<serde_json::Value> = spec
        .decisions
        .iter()
        .map(|d| {
            serde_json::json!({
                "label": d.label, "monotone": d.monotone,
                "options": d.options.iter().map(|o| o.value.as_str()).collect::<Vec<_>>(),
            })
        })
        .collect();
    super::Checked {
        text,
        facts: serde_json::json!({
            "kind": "plan", "decisions": decisions, "fleets": spec.grid_size(),
            "targets": spec.targets.len(),
            "replications": { "min": spec.reps.min, "max": spec.reps.max },
        }),
    }
}

fn err(e: PlanError) -> CliError {
    if e.is_bad_input() {
        CliError::BadInput(anyhow!("{e}"))
    } else {
        CliError::Failure(anyhow!("{e}"))
    }
}

fn absolute(p: &Path) -> Result<PathBuf, CliError> {
    std::path::absolute(p).map_err(|e| CliError::Failure(anyhow!("{}: {e}", p.display())))
}

/// Runs `gpufleet plan`.
pub fn plan(a: PlanArgs) -> Result<(), CliError> {
    let spec = PlanSpec::load(&a.file).map_err(err)?;
    if a.check {
        println!("{}", checked(&a.file, &spec).text);
        return Ok(());
    }
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(&spec.name));
    if a.slurm {
        let threads = a.threads.max(1);
        let job = PlanSlurm {
            plan_file: absolute(&a.file)?,
            out: absolute(&out)?,
            threads,
            sbatch_args: a.sbatch_args,
            binary: std::env::current_exe()
                .map_err(|e| CliError::Failure(anyhow!("finding the gpufleet binary: {e}")))?,
            mem_mb: Some(
                a.mem_mb
                    .unwrap_or_else(|| crate::plan::estimate_job_mem_mb(&spec, threads)),
            ),
        };
        job.check_args()
            .map_err(|e| CliError::BadInput(anyhow!("{e}")))?;
        if a.dry_run {
            let p = job
                .write_script()
                .map_err(|e| CliError::Failure(anyhow!("writing the script: {e}")))?;
            println!("sbatch --parsable {}", p.display());
            return Ok(());
        }
        let id = job
            .submit()
            .map_err(|e| CliError::Failure(anyhow!("{e}")))?;
        println!(
            "submitted plan job {id} ({} CPUs); answer in {}",
            job.threads,
            job.out.display()
        );
        println!("{id}");
        return Ok(());
    }
    let opts = PlanOptions {
        out: Some(out.clone()),
        threads: a.threads,
        progress: if a.quiet {
            Progress::Quiet
        } else {
            Progress::Lines
        },
        resume: a.resume,
    };
    let started = std::time::Instant::now();
    let o = run_plan(&spec, &opts).map_err(err)?;
    let text = summary(&spec, &o.answer);
    if a.quiet {
        println!("{}", text.lines().next().unwrap_or(""));
    } else {
        print!("{text}");
        println!(
            "  {} replications run now, {} read back, in {:.1} s; wrote {}",
            o.ran,
            o.kept,
            started.elapsed().as_secs_f64(),
            out.display()
        );
    }
    Ok(())
}
