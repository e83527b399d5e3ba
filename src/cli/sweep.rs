//! `gpufleet sweep FILE --out DIR` (local, sharded or on Slurm) and `gpufleet sweep merge`.

use super::CliError;
use crate::sweep::{
    merge, run_sweep, slurm::SlurmPlan, Plan, Progress, Shard, SweepError, SweepOptions,
};
use anyhow::anyhow;
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};

/// Examples shown by `gpufleet sweep --help`.
pub const EXAMPLES: &str = "Examples:\n  gpufleet sweep scenarios/sweeps/quickstart-mix.toml --out out/mix --threads 2\n  gpufleet sweep FILE --out out/s --shard 2/4          # one quarter of the runs\n  gpufleet sweep merge out/s1 out/s2 out/s3 out/s4 --out out/s\n  gpufleet sweep FILE --out /shared/s --slurm --shards 16 --sbatch-arg=--partition=cpu";

/// Arguments of `gpufleet sweep`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SweepArgs {
    /// `merge`: combine shard folders.
    #[command(subcommand)]
    pub action: Option<SweepAction>,
    /// Sweep file (TOML).
    #[arg(required = true)]
    pub file: Option<PathBuf>,
    /// Output folder.
    #[arg(long, required = true)]
    pub out: Option<PathBuf>,
    /// Worker threads (default: all cores; at most 1024).
    #[arg(long, default_value_t = 0, value_parser = super::parse_threads)]
    pub threads: usize,
    /// Keep runs already recorded in the output folder; run only the rest.
    #[arg(long)]
    pub resume: bool,
    /// Run only shard K of N (1-based), e.g. `--shard 2/8`.
    #[arg(long, conflicts_with = "slurm")]
    pub shard: Option<Shard>,
    /// Only check the sweep file and print its runs; run nothing.
    #[arg(long)]
    pub check: bool,
    /// Submit to Slurm: an array of `--shards` tasks and a merge job after them.
    #[arg(long)]
    pub slurm: bool,
    /// Number of Slurm array tasks (with --slurm; at most the sweep's runs).
    #[arg(long, default_value_t = 4, requires = "slurm")]
    pub shards: usize,
    /// Extra argument for sbatch (repeatable), e.g. `--sbatch-arg=--partition=cpu`.
    #[arg(long = "sbatch-arg", allow_hyphen_values = true, requires = "slurm")]
    pub sbatch_args: Vec<String>,
    /// With --slurm: write the scripts and print the sbatch commands without submitting.
    #[arg(long, requires = "slurm")]
    pub dry_run: bool,
    /// Print what was done as JSON on stdout (counts, folder; with --check the plan; with
    /// --slurm the job ids or, with --dry-run, the scripts and commands).
    #[arg(long)]
    pub json: bool,
    /// Also write runs.parquet and points.parquet (typed columns) beside the CSV files:
    /// `parquet` or `both` (the CSV files are always written: merge and resume read them).
    #[arg(long, value_enum)]
    pub format: Option<crate::report::OutputFormat>,
    /// With --slurm: memory per array task in MiB (default: estimated from the largest
    /// run; an `--sbatch-arg=--mem=...` wins over both). 1 to 16,777,216 (16 TiB).
    #[arg(long, requires = "slurm", value_parser = clap::value_parser!(u64).range(1..=super::MAX_MEM_MB))]
    pub mem_mb: Option<u64>,
    /// Keep each run's per-job table in DIR/jobs/run-NNNNNNN.csv (with `--format parquet`
    /// or `both`, also or only `.parquet`); without it a sweep keeps per-run sketches only.
    #[arg(long)]
    pub keep_jobs: bool,
}

/// `gpufleet sweep merge`.
#[derive(Debug, Subcommand)]
pub enum SweepAction {
    /// Combine shard folders into one sweep folder (same files as an unsharded run).
    Merge {
        /// Shard folders.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Output folder.
        #[arg(long)]
        out: PathBuf,
        /// Print what was merged as JSON on stdout (`merged`, `out`).
        #[arg(long)]
        json: bool,
        /// Also write runs.parquet and points.parquet: `parquet` or `both`.
        #[arg(long, value_enum)]
        format: Option<crate::report::OutputFormat>,
    },
}

fn err(e: SweepError) -> CliError {
    if e.is_bad_input() {
        CliError::BadInput(anyhow!("{e}"))
    } else {
        CliError::Failure(anyhow!("{e}"))
    }
}

fn absolute(p: &Path) -> Result<PathBuf, CliError> {
    std::path::absolute(p).map_err(|e| CliError::Failure(anyhow!("{}: {e}", p.display())))
}

fn parquet_too(format: Option<crate::report::OutputFormat>, out: &Path) -> Result<(), CliError> {
    if !format.is_some_and(|f| f.parquet()) {
        return Ok(());
    }
    #[cfg(feature = "parquet")]
    {
        // The Parquet tables come after `complete.json`: it is written anew to list them.
        crate::report::parquet::write_sweep_parquet(out)
            .and_then(|()| crate::report::write_complete(out))
            .map_err(|e| CliError::Failure(anyhow!("writing Parquet into {}: {e}", out.display())))
    }
    #[cfg(not(feature = "parquet"))]
    {
        let _ = out;
        Err(super::run::run_error(crate::run::RunError::NoParquet))
    }
}

/// True when `path` is a sweep file (`[[param]]` tables, no pools).
pub fn is_sweep_file(path: &Path) -> bool {
    crate::workload::read_small_text(path, crate::workload::MAX_SCENARIO_BYTES)
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok())
        .is_some_and(|t| t.contains_key("param") && !t.contains_key("pools"))
}

/// `gpufleet validate` of a sweep file: every point built and checked, nothing run.
pub fn validate(path: &Path) -> Result<super::Checked, CliError> {
    let plan = Plan::load(path).map_err(err)?;
    Ok(super::Checked {
        text: format!(
            "{}: ok (sweep, {} points x {} seeds = {} runs)",
            path.display(),
            plan.points.len(),
            plan.seeds.len(),
            plan.runs()
        ),
        facts: serde_json::json!({
            "kind": "sweep", "points": plan.points.len(), "seeds": plan.seeds.len(),
            "runs": plan.runs(),
        }),
    })
}

/// Runs `gpufleet sweep`.
pub fn sweep(a: SweepArgs, quiet: bool) -> Result<(), CliError> {
    if let Some(SweepAction::Merge {
        dirs,
        out,
        json,
        format,
    }) = &a.action
    {
        let n = merge(dirs, out).map_err(err)?;
        super::plot::plot_quiet(out)?;
        parquet_too(*format, out)?;
        if *json {
            println!(
                "{}",
                serde_json::json!({ "merged": n, "out": out.display().to_string() })
            );
        } else {
            println!("merged {n} runs into {}", out.display());
        }
        return Ok(());
    }
    let (Some(file), Some(out)) = (a.file.clone(), a.out.clone()) else {
        return Err(CliError::BadInput(anyhow!(
            "sweep: give FILE and --out DIR"
        )));
    };
    let plan = Plan::load(&file).map_err(err)?;
    if a.check && a.json {
        println!(
            "{}",
            serde_json::json!({
                "ok": true,
                "file": file.display().to_string(),
                "sweep": plan.name,
                "points": plan.points.len(),
                "seeds": plan.seeds,
                "runs": plan.runs(),
                "params": plan.params,
            })
        );
        return Ok(());
    }
    if a.check {
        println!(
            "{}: ok ({} points x {} seeds = {} runs; parameters {})",
            file.display(),
            plan.points.len(),
            plan.seeds.len(),
            plan.runs(),
            plan.params.join(", ")
        );
        return Ok(());
    }
    if a.slurm {
        if a.shards == 0 {
            return Err(CliError::BadInput(anyhow!("--shards must be at least 1")));
        }
        if a.shards > plan.runs() {
            // 10^12 shards asked for 24 TB of task lists (an abort).
            return Err(CliError::BadInput(anyhow!(
                "--shards {}: more than the sweep's {} runs (a task would have none)",
                a.shards,
                plan.runs()
            )));
        }
        let threads = a.threads.max(1);
        let mem_mb = match a.mem_mb {
            Some(m) => Some(m),
            None => Some(crate::sweep::slurm::estimate_task_mem_mb(&plan, threads)),
        };
        let sp = SlurmPlan {
            sweep_file: absolute(&file)?,
            out: absolute(&out)?,
            shards: a.shards,
            threads,
            sbatch_args: a.sbatch_args.clone(),
            binary: std::env::current_exe()
                .map_err(|e| CliError::Failure(anyhow!("finding the gpufleet binary: {e}")))?,
            mem_mb,
            keep_jobs: a.keep_jobs.then(|| a.format.unwrap_or_default()),
        };
        sp.check_args()
            .map_err(|e| CliError::BadInput(anyhow!("{e}")))?;
        if a.dry_run {
            let (arr, m) = sp
                .write_scripts()
                .map_err(|e| CliError::Failure(anyhow!("writing scripts: {e}")))?;
            let array_cmd = format!(
                "sbatch --parsable --array=1-{} {}",
                sp.shards,
                arr.display()
            );
            let merge_cmd = format!("sbatch --dependency=afterok:<array job id> {}", m.display());
            if a.json {
                println!(
                    "{}",
                    serde_json::json!({
                        "array_script": arr.display().to_string(),
                        "merge_script": m.display().to_string(),
                        "commands": [array_cmd, merge_cmd],
                        "array_directives": sp.array_directives(),
                        "merge_directives": sp.merge_directives(),
                        "runs": plan.runs(),
                    })
                );
                return Ok(());
            }
            println!("{array_cmd}");
            for d in sp.array_directives() {
                println!("  #SBATCH {d}");
            }
            println!("{merge_cmd}");
            for d in sp.merge_directives() {
                println!("  #SBATCH {d}");
            }
            return Ok(());
        }
        let (array, merge_id) = sp.submit().map_err(|e| CliError::Failure(anyhow!("{e}")))?;
        if a.json {
            println!(
                "{}",
                serde_json::json!({
                    "array_job": array,
                    "merge_job": merge_id,
                    "tasks": sp.shards,
                    "runs": plan.runs(),
                    "out": sp.out.display().to_string(),
                })
            );
            return Ok(());
        }
        println!(
            "submitted array job {array} ({} tasks, {} runs) and merge job {merge_id}; results in {}",
            sp.shards,
            plan.runs(),
            sp.out.display()
        );
        println!("{array} {merge_id}");
        return Ok(());
    }
    if let Some(sh) = a.shard {
        // As `--slurm --shards`: a split into more shards than runs leaves some shard
        // with none (shard 3/3 of 2 runs wrote an empty folder and exited 0), and a merge
        // of all N shards could not be made.
        if sh.n > plan.runs() {
            return Err(CliError::BadInput(anyhow!(
                "--shard {}/{}: {} shards are more than the sweep's {} runs (a shard would have none); use --shard K/N with N at most {}",
                sh.k,
                sh.n,
                sh.n,
                plan.runs(),
                plan.runs()
            )));
        }
    }
    let opts = SweepOptions {
        out: out.clone(),
        threads: a.threads,
        progress: if quiet || a.json {
            Progress::Quiet
        } else {
            Progress::Auto
        },
        resume: a.resume,
        shard: a.shard,
        keep_jobs: a.keep_jobs.then(|| a.format.unwrap_or_default()),
    };
    if opts.keep_jobs.is_some_and(|f| f.parquet()) && !crate::report::PARQUET_BUILT {
        return Err(super::run::run_error(crate::run::RunError::NoParquet));
    }
    let started = std::time::Instant::now();
    let o = run_sweep(&plan, &opts).map_err(err)?;
    if a.shard.is_none() {
        super::plot::plot_quiet(&out)?;
    }
    parquet_too(a.format, &out)?;
    let seconds = started.elapsed().as_secs_f64();
    tracing::info!(runs = o.runs, seconds, "sweep done");
    let cut: Vec<String> = o.cut_short.iter().map(|r| r.to_string()).collect();
    super::warn_cut_short(
        &format!("{} of the {} runs made", cut.len(), o.ran),
        "runs ",
        &cut,
        " (jobs_unfinished in runs.csv)",
    );
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "sweep": plan.name,
                "runs": o.runs,
                "ran": o.ran,
                "kept": o.kept,
                "redone": o.redone,
                "cut_short": o.cut_short.len(),
                "seconds": seconds,
                "out": out.display().to_string(),
            })
        );
        return Ok(());
    }
    if !quiet {
        println!(
            "sweep {}: {} runs ({} run now, {} kept, {} redone) in {:.1} s; wrote {}",
            plan.name,
            o.runs,
            o.ran,
            o.kept,
            o.redone,
            seconds,
            out.display()
        );
    }
    Ok(())
}
