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
}

fn quote(p: &Path) -> String {
    let s = p.display().to_string();
    format!("'{}'", s.replace('\'', "'\\''"))
}

impl SlurmPlan {
    /// The array task script.
    pub fn array_script(&self) -> String {
        format!(
            "#!/bin/bash\n\
             # One shard of a gpufleet sweep; submitted as a job array of {n} tasks.\n\
             #SBATCH --job-name=gpufleet-sweep\n\
             #SBATCH --cpus-per-task={t}\n\
             #SBATCH --output={log}/shard-%a.log\n\
             set -euo pipefail\n\
             exec {bin} sweep {file} --out {out}/shards/$SLURM_ARRAY_TASK_ID --shard $SLURM_ARRAY_TASK_ID/{n} --threads {t} --resume --quiet\n",
            n = self.shards,
            t = self.threads,
            log = self.out.join("slurm").display(),
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
             #SBATCH --job-name=gpufleet-merge\n\
             #SBATCH --cpus-per-task=1\n\
             #SBATCH --output={log}/merge.log\n\
             set -euo pipefail\n\
             {bin} sweep merge {dirs} --out {out}\n\
             exec {bin} plot {out}\n",
            n = self.shards,
            log = self.out.join("slurm").display(),
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

    /// Submits the array and the merge job with `sbatch`; returns their job ids.
    pub fn submit(&self) -> Result<(String, String), SlurmError> {
        let (a, m) = self.write_scripts().map_err(SlurmError::Scripts)?;
        let array = sbatch(
            &[
                vec![
                    "--parsable".to_string(),
                    format!("--array=1-{}", self.shards),
                ],
                self.sbatch_args.clone(),
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
                self.sbatch_args.clone(),
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
