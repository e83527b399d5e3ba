//! Running a plan on a Slurm cluster. The search is adaptive (each round's fleets depend
//! on the last round's verdicts), so a plan runs as one Slurm job using all the CPUs it is
//! given (`--cpus-per-task`), its replications in parallel. Every replication is a durable
//! record, so a job that hits its time limit or is requeued resumes where it stopped
//! (`--resume`), and the answer is the same as a local run's, byte for byte.

use crate::plan::fleet::assemble;
use crate::plan::PlanSpec;
use crate::sweep::slurm::{
    check_sbatch_args, run_mem_bytes, sets_memory, submit, SbatchArgError, SlurmError, BASE_MIB,
};
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
    /// Memory of the job in MiB (`#SBATCH --mem`), unless an sbatch argument sets
    /// `--mem`, `--mem-per-cpu` or `--mem-per-gpu` itself.
    pub mem_mb: Option<u64>,
}

/// The memory a plan job running `threads` replications at once needs, in MiB: the
/// largest run's estimate (the sweep's [`run_mem_bytes`]) times the threads, plus the
/// sweep's [`BASE_MIB`]. The runs estimated are the base scenario, the fleets with every
/// decision at its first and at its last option, and, per decision, up to 8 of its
/// options spread evenly with the others at their last (decisions may change the
/// workload too); a fleet that cannot be assembled counts as zero.
pub fn estimate_job_mem_mb(spec: &PlanSpec, threads: usize) -> u64 {
    let seed = spec.reps.seed_of(0);
    let n: Vec<usize> = spec.decisions.iter().map(|d| d.options.len()).collect();
    let last: Vec<usize> = n.iter().map(|&k| k.saturating_sub(1)).collect();
    let mut fleets = vec![vec![0; n.len()], last.clone()];
    for (i, &k) in n.iter().enumerate() {
        let picks = k.min(8);
        for j in 0..picks {
            let mut f = last.clone();
            f[i] = if picks > 1 {
                j * (k - 1) / (picks - 1)
            } else {
                0
            };
            fleets.push(f);
        }
    }
    let largest = fleets
        .iter()
        .filter_map(|f| assemble(spec, f).ok())
        .map(|a| run_mem_bytes(&a.scenario, seed))
        .chain(std::iter::once(run_mem_bytes(&spec.base, seed)))
        .max()
        .unwrap_or(0);
    BASE_MIB + (largest * threads.max(1) as u64).div_ceil(1 << 20)
}

fn quote(p: &Path) -> String {
    let s = p.display().to_string();
    format!("'{}'", s.replace('\'', "'\\''"))
}

impl PlanSlurm {
    /// Refuses sbatch arguments that would break the script (the sweep's rules).
    pub fn check_args(&self) -> Result<(), SbatchArgError> {
        check_sbatch_args(&self.sbatch_args)
    }

    /// The `#SBATCH` options of the script, after `#SBATCH `: job name, CPUs, memory,
    /// requeue, log file, then the user's sbatch arguments (so a requeued job keeps its
    /// partition and time limit; later options win in sbatch).
    pub fn directives(&self) -> Vec<String> {
        let mut d = vec![
            "--job-name=gpufleet-plan".to_string(),
            format!("--cpus-per-task={}", self.threads),
        ];
        if let (Some(m), false) = (self.mem_mb, sets_memory(&self.sbatch_args)) {
            d.push(format!("--mem={m}M"));
        }
        d.push("--requeue".to_string());
        d.push(format!(
            "--output={}/plan.log",
            self.out.join("slurm").display()
        ));
        d.extend(self.sbatch_args.iter().cloned());
        d
    }

    /// The job script.
    pub fn script(&self) -> String {
        let head: String = self
            .directives()
            .iter()
            .map(|d| format!("#SBATCH {d}\n"))
            .collect();
        format!(
            "#!/bin/bash\n\
             # A gpufleet plan as one Slurm job; rerun or requeue it to resume.\n\
             {head}\
             set -euo pipefail\n\
             exec {bin} plan {file} --out {out} --threads {t} --resume --quiet\n",
            t = self.threads,
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
        let args = ["--parsable".to_string(), p.display().to_string()];
        submit(&args)
    }
}
