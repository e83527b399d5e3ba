//! Running a plan on a Slurm cluster. The search is adaptive (each round's fleets depend
//! on the last round's verdicts), so a plan runs as one Slurm job using all the CPUs it is
//! given (`--cpus-per-task`), its replications in parallel. Every replication is a durable
//! record, so a job that hits its time limit or is requeued resumes where it stopped
//! (`--resume`), and the answer is the same as a local run's, byte for byte.

use crate::sweep::slurm::{submit, SlurmError};
use std::path::{Path, PathBuf};

/// What to submit.
#[derive(Debug, Clone)]
pub struct PlanSlurm {
    /// The plan file (absolute).
    pub plan_file: PathBuf,
    /// The output folder (absolute).
    pub out: PathBuf,
    /// CPUs of the job (also `--threads`).
    pub threads: usize,
    /// Extra `sbatch` arguments (partition, time limit, account...).
    pub sbatch_args: Vec<String>,
    /// The gpufleet binary the job runs.
    pub binary: PathBuf,
}

fn quote(p: &Path) -> String {
    let s = p.display().to_string();
    format!("'{}'", s.replace('\'', "'\\''"))
}

impl PlanSlurm {
    /// The job script.
    pub fn script(&self) -> String {
        format!(
            "#!/bin/bash\n\
             # A gpufleet plan as one Slurm job; rerun or requeue it to resume.\n\
             #SBATCH --job-name=gpufleet-plan\n\
             #SBATCH --cpus-per-task={t}\n\
             #SBATCH --requeue\n\
             #SBATCH --output={log}/plan.log\n\
             set -euo pipefail\n\
             exec {bin} plan {file} --out {out} --threads {t} --resume --quiet\n",
            t = self.threads,
            log = self.out.join("slurm").display(),
            bin = quote(&self.binary),
            file = quote(&self.plan_file),
            out = quote(&self.out),
        )
    }

    /// Writes `OUT/slurm/plan.sh`; returns its path.
    pub fn write_script(&self) -> std::io::Result<PathBuf> {
        let dir = self.out.join("slurm");
        std::fs::create_dir_all(&dir)?;
        let p = dir.join("plan.sh");
        crate::report::write_atomic(&p, self.script().as_bytes())?;
        Ok(p)
    }

    /// Writes the script and submits it; returns the job id.
    pub fn submit(&self) -> Result<String, SlurmError> {
        let p = self.write_script().map_err(SlurmError::Scripts)?;
        let args = [
            vec!["--parsable".to_string()],
            self.sbatch_args.clone(),
            vec![p.display().to_string()],
        ]
        .concat();
        submit(&args)
    }
}
