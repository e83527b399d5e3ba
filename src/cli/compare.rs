//! `gpufleet compare`: policies or scenario variants on the same workload with common
//! random numbers, paired differences to a baseline, a folder of tables and charts.

use super::CliError;
use crate::compare::{headline, run_compare, write_comparison, CompareError, CompareSpec};
use anyhow::anyhow;
use clap::Args;
use std::path::PathBuf;

/// Examples shown by `gpufleet compare --help`.
pub const EXAMPLES: &str = "Examples:\n  gpufleet compare scenarios/compare/philly-policies.toml --out out/philly\n  gpufleet compare scenarios/quickstart.toml --policies fifo,easy_backfill,sjf --seeds 5\n  gpufleet compare FILE --seeds 10 --baseline fifo --metric jct_all_s_mean --log-x";

/// Arguments of `gpufleet compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// A compare file (with [[variant]] tables), or a scenario with --policies.
    pub file: PathBuf,
    /// Compare these queue policies on the scenario (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub policies: Vec<String>,
    /// Number of seeds (the scenario's seed, +1, ...); overrides the file's `seeds`.
    #[arg(long)]
    pub seeds: Option<usize>,
    /// The variant the others are compared with (default: the file's, or the first).
    #[arg(long)]
    pub baseline: Option<String>,
    /// A metric to report and chart (a `runs.csv` column; repeatable; replaces the defaults).
    #[arg(long = "metric")]
    pub metrics: Vec<String>,
    /// Draw the CDFs on a log time axis.
    #[arg(long)]
    pub log_x: bool,
    /// Paired intervals and p-values by a percentile bootstrap of N resamples of the seed
    /// pairs (100..=1000000) instead of the paired t.
    #[arg(long)]
    pub bootstrap: Option<i64>,
    /// Seed of the bootstrap's resampling (default: the file's `bootstrap_seed`, or 1).
    #[arg(long)]
    pub bootstrap_seed: Option<u64>,
    /// Output folder (default: out/<name>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Worker threads (default: all cores; at most 1024).
    #[arg(long, default_value_t = 0, value_parser = super::parse_threads)]
    pub threads: usize,
}

fn err(e: CompareError) -> CliError {
    if e.is_bad_input() {
        CliError::BadInput(anyhow!("{e}"))
    } else {
        CliError::Failure(anyhow!("{e}"))
    }
}

/// True when `path` is a compare file (`[[variant]]` tables, no pools).
pub fn is_compare_file(path: &std::path::Path) -> bool {
    crate::workload::read_small_text(path, crate::workload::MAX_SCENARIO_BYTES)
        .map(|t| crate::compare::is_compare_file_text(&t))
        .unwrap_or(false)
}

/// `gpufleet validate` of a compare file: every variant built and checked, nothing run.
pub fn validate(path: &std::path::Path) -> Result<super::Checked, CliError> {
    let spec = CompareSpec::load(path).map_err(err)?;
    spec.check_size().map_err(err)?;
    let (variants, seeds) = (spec.variants.len(), spec.seeds.len());
    Ok(super::Checked {
        text: format!(
            "{}: ok (comparison, {variants} variants x {seeds} seeds = {} runs)",
            path.display(),
            variants * seeds
        ),
        facts: serde_json::json!({
            "kind": "compare", "variants": variants, "seeds": seeds, "runs": variants * seeds,
        }),
    })
}

/// Runs `gpufleet compare`.
pub fn compare(a: CompareArgs, quiet: bool) -> Result<(), CliError> {
    let text = crate::workload::read_small_text(&a.file, crate::workload::MAX_SCENARIO_BYTES)
        .map_err(|e| CliError::BadInput(anyhow!("{}: cannot read: {e}", a.file.display())))?;
    let is_file = crate::compare::is_compare_file_text(&text);
    let mut spec = match (is_file, a.policies.is_empty()) {
        (true, true) => CompareSpec::load(&a.file).map_err(err)?,
        (true, false) => {
            return Err(CliError::BadInput(anyhow!(
                "{}: --policies goes with a scenario, not a compare file (its variants are in the file)",
                a.file.display()
            )))
        }
        (false, false) => {
            CompareSpec::of_policies(&a.file, &a.policies, a.seeds.unwrap_or(5)).map_err(err)?
        }
        (false, true) => {
            return Err(CliError::BadInput(anyhow!(
                "{}: not a compare file (no [[variant]] tables); to compare policies on a scenario, add --policies fifo,easy_backfill",
                a.file.display()
            )))
        }
    };
    if let Some(n) = a.seeds {
        spec.set_seed_count(n).map_err(err)?;
    }
    if let Some(b) = &a.baseline {
        spec.set_baseline(b).map_err(err)?;
    }
    if !a.metrics.is_empty() {
        if let Some(m) = a.metrics.iter().find(|m| !crate::compare::is_run_metric(m)) {
            return Err(CliError::BadInput(anyhow!(
                "--metric: {}",
                crate::compare::unknown_metric(m)
            )));
        }
        spec.metrics = a.metrics.clone();
    }
    spec.log_x |= a.log_x;
    match (a.bootstrap, a.bootstrap_seed) {
        (Some(n), seed) => {
            let seed = seed.or(spec.bootstrap.map(|b| b.seed)).unwrap_or(1);
            spec.bootstrap = Some(
                crate::compare::bootstrap_of(n, seed)
                    .map_err(|m| CliError::BadInput(anyhow!("--bootstrap: {m}")))?,
            );
        }
        (None, Some(seed)) => match &mut spec.bootstrap {
            Some(b) => b.seed = seed,
            None => {
                return Err(CliError::BadInput(anyhow!(
                    "--bootstrap-seed needs --bootstrap N (or `bootstrap = N` in the compare file)"
                )))
            }
        },
        (None, None) => {}
    }
    spec.check_size().map_err(err)?;
    let mut warned = std::collections::BTreeSet::new();
    for v in &spec.variants {
        for w in &v.scenario.warnings {
            if warned.insert(w.clone()) {
                tracing::warn!("{w}");
            }
        }
    }
    let dir = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(&spec.name));
    // The folder is checked before anything runs, written beside its target and swapped
    // into place once whole: it is always the previous comparison or this one.
    let folder = crate::run::FreshFolder::begin(&dir).map_err(super::folder_err)?;
    let c = run_compare(&spec, a.threads).map_err(err)?;
    write_comparison(folder.path(), &c)
        .map_err(|e| CliError::Failure(anyhow!("writing {}: {e}", dir.display())))?;
    folder.commit().map_err(super::folder_err)?;
    let cut: Vec<String> = c
        .runs
        .iter()
        .enumerate()
        .flat_map(|(v, runs)| {
            let spec = &c.spec;
            runs.iter()
                .zip(&spec.seeds)
                .filter(|(r, _)| r.cut_short)
                .map(move |(_, seed)| format!("{} seed {seed}", spec.variants[v].name))
        })
        .collect();
    super::warn_cut_short(&format!("{} of the runs", cut.len()), "", &cut, "");
    if quiet {
        println!("{}", dir.display());
        return Ok(());
    }
    println!(
        "gpufleet {} | compare {} | {} variants | seeds {:?}",
        crate::VERSION,
        spec.name,
        spec.variants.len(),
        spec.seeds
    );
    for l in headline(&c) {
        println!("{l}");
    }
    println!("wrote {}", dir.display());
    Ok(())
}
