//! Running a sweep on a Slurm cluster: a job array of N shard tasks
//! (`--shard $SLURM_ARRAY_TASK_ID/N`), then a merge job that waits for all of them
//! (`--dependency=afterok`). The scripts are written into `OUT/slurm/` so they can be read,
//! resubmitted or adapted.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What to submit.
#[derive(Debug, Clone)]
pub struct SlurmPlan {
    /// The sweep file (absolute).
    pub sweep_file: PathBuf,
    /// The output folder (absolute); shards go to `OUT/shards/K`.
    pub out: PathBuf,
    /// Number of array tasks.
    pub shards: usize,
    /// Threads per task (also `--cpus-per-task`).
    pub threads: usize,
    /// Extra `sbatch` arguments (partition, time limit, account...).
    pub sbatch_args: Vec<String>,
    /// The gpufleet binary the tasks run.
    pub binary: PathBuf,
    /// Memory per array task in MiB (`#SBATCH --mem`), unless an sbatch argument sets
    /// `--mem`, `--mem-per-cpu` or `--mem-per-gpu` itself.
    pub mem_mb: Option<u64>,
    /// Tasks keep each run's per-job table in this format (`--keep-jobs`); the merge job
    /// copies them into `OUT/jobs/`.
    pub keep_jobs: Option<crate::report::OutputFormat>,
}

/// Resident memory of a gpufleet process besides its runs, in MiB (binary, allocator,
/// thread stacks): a one-run sweep of 15k jobs peaks at 13 MiB; 64 leaves room.
pub const BASE_MIB: u64 = 64;
/// Bytes one run of a sweep holds per job of its workload (the workload, the job records,
/// the queue and the policy's state). Measured peak RSS of `gpufleet sweep` (one thread,
/// sweep-base.toml's fleet): 13 MiB at 14,579 jobs, 248 MiB at 719,943, so about 350
/// bytes a job; 1 KiB leaves about 3x for fault, preemption and policy records.
pub const BYTES_PER_JOB: u64 = 1024;

/// The memory an array task of `plan` needs with `threads` runs at once, in MiB: the
/// largest run's estimate (its workload's job count times [`BYTES_PER_JOB`], plus its
/// timeline samples) times the threads, plus [`BASE_MIB`]. Workloads are built to count
/// their jobs: every point's when there are at most 64, else 64 spread evenly from the
/// first to the last; a point whose workload cannot be built counts as zero (its run
/// will report the error).
pub fn estimate_task_mem_mb(plan: &crate::sweep::Plan, threads: usize) -> u64 {
    let n = plan.points.len();
    let picks: Vec<usize> = if n <= 64 {
        (0..n).collect()
    } else {
        (0..64).map(|i| i * (n - 1) / 63).collect()
    };
    let seed = plan.seeds.first().copied().unwrap_or(1);
    let largest = picks
        .iter()
        .map(|&i| run_mem_bytes(&plan.points[i].scenario, seed))
        .max()
        .unwrap_or(0);
    BASE_MIB + (largest * threads.max(1) as u64).div_ceil(1 << 20)
}

/// The bytes one run of `s` on `seed` holds: its workload's job count times
/// [`BYTES_PER_JOB`], plus its timeline samples (0 jobs when the workload cannot be built:
/// the run will report the error). Also used by `gpufleet plan --slurm`.
pub fn run_mem_bytes(s: &crate::scenario::Scenario, seed: u64) -> u64 {
    let jobs = s.build_workload(seed).map_or(0, |w| w.jobs.len() as u64);
    let samples = match (s.sim.horizon, s.sim.sample_every) {
        (Some(h), Some(dt)) if dt.0 > 0 => h.0 / dt.0 + 1,
        _ => 0,
    };
    // A timeline sample holds a few words per pool.
    jobs * BYTES_PER_JOB + samples * (64 + 24 * s.sim.pools.len() as u64)
}

/// Refuses sbatch arguments that would break a script: empty ones, ones that are not
/// options, and ones holding a line break. Also used by `gpufleet plan --slurm`.
pub fn check_sbatch_args(args: &[String]) -> Result<(), SbatchArgError> {
    for a in args {
        let why = if a.trim().is_empty() {
            Some("empty")
        } else if a.contains('\n') || a.contains('\r') {
            Some("holds a line break")
        } else if !a.starts_with('-') {
            Some("not an option (write it as --name=value, e.g. --partition=cpu)")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(SbatchArgError {
                arg: a.clone(),
                why,
            });
        }
    }
    Ok(())
}

/// True when one of `args` sets the job's memory itself (`--mem`, `--mem-per-cpu`,
/// `--mem-per-gpu`).
pub fn sets_memory(args: &[String]) -> bool {
    args.iter().any(|a| {
        ["--mem", "--mem-per-cpu", "--mem-per-gpu"]
            .iter()
            .any(|m| a == m || a.starts_with(&format!("{m}=")))
    })
}

/// An sbatch argument that cannot go into a script.
#[derive(Debug, thiserror::Error)]
#[error("--sbatch-arg {arg:?}: {why}")]
pub struct SbatchArgError {
    /// The argument.
    pub arg: String,
    /// What is wrong with it.
    pub why: &'static str,
}

fn quote(p: &Path) -> String {
    let s = p.display().to_string();
    format!("'{}'", s.replace('\'', "'\\''"))
}

impl SlurmPlan {
    /// Refuses sbatch arguments that would break the scripts: empty ones, ones that are
    /// not options, and ones holding a line break.
    pub fn check_args(&self) -> Result<(), SbatchArgError> {
        check_sbatch_args(&self.sbatch_args)
    }

    fn sets_memory(&self) -> bool {
        sets_memory(&self.sbatch_args)
    }

    /// The `#SBATCH` options of the array script, after `#SBATCH `: job name, CPUs,
    /// memory, log file, then the user's sbatch arguments (so a resubmitted task keeps
    /// its partition and time limit; later options win in sbatch).
    pub fn array_directives(&self) -> Vec<String> {
        let mut d = vec![
            "--job-name=gpufleet-sweep".to_string(),
            format!("--cpus-per-task={}", self.threads),
        ];
        if let (Some(m), false) = (self.mem_mb, self.sets_memory()) {
            d.push(format!("--mem={m}M"));
        }
        d.push(format!(
            "--output={}/shard-%a.log",
            self.out.join("slurm").display()
        ));
        d.extend(self.sbatch_args.iter().cloned());
        d
    }

    /// The `#SBATCH` options of the merge script (the user's arguments too).
    pub fn merge_directives(&self) -> Vec<String> {
        let mut d = vec![
            "--job-name=gpufleet-merge".to_string(),
            "--cpus-per-task=1".to_string(),
            format!("--output={}/merge.log", self.out.join("slurm").display()),
        ];
        d.extend(self.sbatch_args.iter().cloned());
        d
    }

    fn header(directives: &[String]) -> String {
        directives
            .iter()
            .map(|d| format!("#SBATCH {d}\n"))
            .collect()
    }

    /// The array task script.
    pub fn array_script(&self) -> String {
        format!(
            "#!/bin/bash\n\
             # One shard of a gpufleet sweep; submitted as a job array of {n} tasks.\n\
             {head}\
             set -euo pipefail\n\
             exec {bin} sweep {file} --out {out}/shards/$SLURM_ARRAY_TASK_ID --shard $SLURM_ARRAY_TASK_ID/{n} --threads {t} --resume --quiet{keep}\n",
            keep = self
                .keep_jobs
                .map(|f| format!(" --keep-jobs --format {}", f.as_str()))
                .unwrap_or_default(),
            n = self.shards,
            t = self.threads,
            head = Self::header(&self.array_directives()),
            bin = quote(&self.binary),
            file = quote(&self.sweep_file),
            out = quote(&self.out),
        )
    }

    /// The merge job script.
    pub fn merge_script(&self) -> String {
        let dirs: Vec<String> = (1..=self.shards)
            .map(|k| quote(&self.out.join("shards").join(k.to_string())))
            .collect();
        format!(
            "#!/bin/bash\n\
             # Merges the {n} shards of a gpufleet sweep once all have succeeded.\n\
             {head}\
             set -euo pipefail\n\
             {bin} sweep merge {dirs} --out {out}\n\
             exec {bin} plot {out}\n",
            n = self.shards,
            head = Self::header(&self.merge_directives()),
            bin = quote(&self.binary),
            dirs = dirs.join(" "),
            out = quote(&self.out),
        )
    }

    /// Writes the scripts; returns their paths (array, merge).
    pub fn write_scripts(&self) -> std::io::Result<(PathBuf, PathBuf)> {
        let dir = self.out.join("slurm");
        std::fs::create_dir_all(&dir)?;
        let a = dir.join("array.sh");
        let m = dir.join("merge.sh");
        crate::report::write_atomic(&a, self.array_script().as_bytes())?;
        crate::report::write_atomic(&m, self.merge_script().as_bytes())?;
        Ok((a, m))
    }

    /// Submits the array and the merge job with `sbatch`; returns their job ids. The
    /// user's sbatch arguments are in the scripts' `#SBATCH` lines, not on the command.
    pub fn submit(&self) -> Result<(String, String), SlurmError> {
        let (a, m) = self.write_scripts().map_err(SlurmError::Scripts)?;
        let array = sbatch(
            &[
                vec![
                    "--parsable".to_string(),
                    format!("--array=1-{}", self.shards),
                ],
                vec![a.display().to_string()],
            ]
            .concat(),
        )?;
        let merge = sbatch(
            &[
                vec![
                    "--parsable".to_string(),
                    format!("--dependency=afterok:{array}"),
                ],
                vec![m.display().to_string()],
            ]
            .concat(),
        )?;
        Ok((array, merge))
    }
}

/// A submission to Slurm that did not go through.
#[derive(Debug, thiserror::Error)]
pub enum SlurmError {
    /// The scripts could not be written.
    #[error("writing Slurm scripts: {0}")]
    Scripts(std::io::Error),
    /// `sbatch` could not be started.
    #[error("cannot run sbatch (is Slurm installed and on PATH?): {0}")]
    Spawn(std::io::Error),
    /// `sbatch` refused the job.
    #[error("sbatch {args} failed: {stderr}")]
    Refused {
        /// Its arguments.
        args: String,
        /// What it printed on stderr.
        stderr: String,
    },
    /// `sbatch` succeeded without printing a job id.
    #[error("sbatch printed no job id: {0:?}")]
    NoJobId(String),
}

/// Runs `sbatch --parsable`-style `args` and returns the job id (for other commands'
/// job scripts, e.g. `gpufleet plan --slurm`).
pub fn submit(args: &[String]) -> Result<String, SlurmError> {
    sbatch(args)
}

fn sbatch(args: &[String]) -> Result<String, SlurmError> {
    let out = Command::new("sbatch")
        .args(args)
        .output()
        .map_err(SlurmError::Spawn)?;
    if !out.status.success() {
        return Err(SlurmError::Refused {
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    // --parsable prints "jobid" or "jobid;cluster".
    let text = String::from_utf8_lossy(&out.stdout);
    let id = text.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        return Err(SlurmError::NoJobId(text.into_owned()));
    }
    Ok(id)
}
