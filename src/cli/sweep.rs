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
    /// Worker threads (default: all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// No progress output.
    #[arg(long, short)]
    pub quiet: bool,
    /// Keep runs already recorded in the output folder; run only the rest.
    #[arg(long)]
    pub resume: bool,
    /// Run only shard K of N (1-based), e.g. `--shard 2/8`.
    #[arg(long)]
    pub shard: Option<Shard>,
    /// Only check the sweep file and print its runs; run nothing.
    #[arg(long)]
    pub check: bool,
    /// Submit to Slurm: an array of `--shards` tasks and a merge job after them.
    #[arg(long)]
    pub slurm: bool,
    /// Number of Slurm array tasks (with --slurm).
    #[arg(long, default_value_t = 4)]
    pub shards: usize,
    /// Extra argument for sbatch (repeatable), e.g. `--sbatch-arg=--partition=cpu`.
    #[arg(long = "sbatch-arg", allow_hyphen_values = true)]
    pub sbatch_args: Vec<String>,
    /// With --slurm: write the scripts and print the sbatch commands without submitting.
    #[arg(long)]
    pub dry_run: bool,
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

/// Runs `gpufleet sweep`.
pub fn sweep(a: SweepArgs) -> Result<(), CliError> {
    if let Some(SweepAction::Merge { dirs, out }) = a.action {
        let n = merge(&dirs, &out).map_err(err)?;
        super::plot::plot_quiet(&out)?;
        println!("merged {n} runs into {}", out.display());
        return Ok(());
    }
    let (Some(file), Some(out)) = (a.file, a.out) else {
        return Err(CliError::BadInput(anyhow!(
            "sweep: give FILE and --out DIR"
        )));
    };
    let plan = Plan::load(&file).map_err(err)?;
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
        let sp = SlurmPlan {
            sweep_file: absolute(&file)?,
            out: absolute(&out)?,
            shards: a.shards,
            threads: a.threads.max(1),
            sbatch_args: a.sbatch_args,
            binary: std::env::current_exe()
                .map_err(|e| CliError::Failure(anyhow!("finding the gpufleet binary: {e}")))?,
        };
        if a.dry_run {
            let (arr, m) = sp
                .write_scripts()
                .map_err(|e| CliError::Failure(anyhow!("writing scripts: {e}")))?;
            println!(
                "sbatch --parsable --array=1-{} {}",
                sp.shards,
                arr.display()
            );
            println!("sbatch --dependency=afterok:<array job id> {}", m.display());
            return Ok(());
        }
        let (array, merge_id) = sp.submit().map_err(|e| CliError::Failure(anyhow!("{e}")))?;
        println!(
            "submitted array job {array} ({} tasks, {} runs) and merge job {merge_id}; results in {}",
            sp.shards,
            plan.runs(),
            sp.out.display()
        );
        println!("{array} {merge_id}");
        return Ok(());
    }
    let opts = SweepOptions {
        out: out.clone(),
        threads: a.threads,
        progress: if a.quiet {
            Progress::Quiet
        } else {
            Progress::Auto
        },
        resume: a.resume,
        shard: a.shard,
    };
    let started = std::time::Instant::now();
    let o = run_sweep(&plan, &opts).map_err(err)?;
    if a.shard.is_none() {
        super::plot::plot_quiet(&out)?;
    }
    if !a.quiet {
        println!(
            "sweep {}: {} runs ({} run now, {} kept, {} redone) in {:.1} s; wrote {}",
            plan.name,
            o.runs,
            o.ran,
            o.kept,
            o.redone,
            started.elapsed().as_secs_f64(),
            out.display()
        );
    }
    Ok(())
}
