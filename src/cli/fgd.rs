//! `gpufleet run` / `gpufleet validate` on an FGD experiment scenario (one with an
//! `[fgd_experiment]` table): the FGD paper's arrival-only placement experiment.

use super::CliError;
use crate::report::{
    finite_mean, mean_curve, mean_frag_curve, write_fgd, FgdExpected, FgdPolicySummary, FgdSummary,
};
use crate::scenario::FgdScenario;
use crate::sched::placement::{allocation_at_100, FgdExperiment, PlacementKind};
use crate::workload::{read_expected_curves, read_openb_node_list, read_openb_pods, BadRows};
use anyhow::anyhow;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn bad(e: impl std::fmt::Display) -> CliError {
    CliError::BadInput(anyhow!("{e}"))
}

/// True when the file at `path` is an FGD experiment scenario.
pub fn is_fgd_file(path: &Path) -> bool {
    crate::workload::read_small_text(path, crate::workload::MAX_SCENARIO_BYTES)
        .map(|t| crate::scenario::is_fgd_scenario(&t))
        .unwrap_or(false)
}

fn build(s: &FgdScenario) -> Result<(FgdExperiment, usize), CliError> {
    let rows = if s.skip_bad_rows {
        BadRows::Skip
    } else {
        BadRows::Stop
    };
    let (nodes, skipped) = read_openb_node_list(&s.nodes, rows).map_err(bad)?;
    super::report_skipped(&s.nodes, skipped);
    // Held to the scenario's job cap while reading.
    let max = s.max_jobs;
    let pods = read_openb_pods(&s.pods, rows, Some(max)).map_err(bad)?;
    super::report_skipped(&s.pods, pods.skipped_rows);
    let exp = FgdExperiment::new(&nodes, &pods.pods, s.tune, s.typical_coverage)
        .map_err(|e| bad(format!("{}: {e}", s.pods.display())))?;
    Ok((exp, pods.pods.len()))
}

/// Mean published curve per policy (by the artifact's label) in `path`, rows of
/// `workload`; points a row lacks are skipped.
fn published(
    path: Option<&Path>,
    workload: Option<&str>,
    policies: &[PlacementKind],
) -> Result<Vec<Option<Vec<f64>>>, CliError> {
    let (Some(path), Some(workload)) = (path, workload) else {
        return Ok(vec![None; policies.len()]);
    };
    let curves = read_expected_curves(path, Some(workload)).map_err(bad)?;
    if curves.is_empty() {
        return Err(bad(format!(
            "{}: no rows of workload {workload:?}",
            path.display()
        )));
    }
    Ok(policies
        .iter()
        .map(|p| {
            let label = p.artifact_label()?;
            let mine: Vec<&Vec<f64>> = curves
                .iter()
                .filter(|c| c.policy == label)
                .map(|c| &c.curve)
                .collect();
            let n = mine.iter().map(|c| c.len()).min()?;
            Some(
                (0..n)
                    .map(|x| finite_mean(mine.iter().map(|c| c[x])))
                    .collect(),
            )
        })
        .collect())
}

/// The published curves the scenario names.
fn expected(s: &FgdScenario) -> Result<FgdExpected, CliError> {
    let w = s.expected_workload.as_deref();
    Ok(FgdExpected {
        allocation: published(s.expected.as_deref(), w, &s.policies)?,
        fragmentation: published(s.expected_fragmentation.as_deref(), w, &s.policies)?,
    })
}

/// `gpufleet validate` on an FGD scenario: reads everything, runs nothing.
pub fn validate(path: &Path) -> Result<super::Checked, CliError> {
    let s = FgdScenario::load(path).map_err(bad)?;
    let (exp, pods) = build(&s)?;
    expected(&s)?;
    let gpus = exp.gpu_capacity() / 1000;
    Ok(super::Checked {
        text: format!(
            "{}: ok (FGD experiment, {gpus} GPUs, {pods} pods, {} policies x {} seeds)",
            path.display(),
            s.policies.len(),
            s.seeds.len()
        ),
        facts: serde_json::json!({
            "kind": "fgd", "gpus": gpus, "pods": pods,
            "policies": s.policies.len(), "seeds": s.seeds.len(),
        }),
    })
}

/// `gpufleet run` on an FGD scenario; `seed` narrows the run to that one seed.
pub fn run(
    path: &Path,
    out: Option<PathBuf>,
    seed: Option<u64>,
    quiet: bool,
    json: bool,
) -> Result<(), CliError> {
    let mut s = FgdScenario::load(path).map_err(bad)?;
    if let Some(seed) = seed {
        s.seeds = vec![seed];
    }
    let (exp, trace_pods) = build(&s)?;
    let expected = expected(&s)?;
    // The folder is checked before anything runs and swapped into place once whole.
    let dir = out.unwrap_or_else(|| PathBuf::from("out").join(&s.name));
    let folder = crate::run::FreshFolder::begin(&dir).map_err(super::folder_err)?;
    let clock = Instant::now();
    let runs = exp.run_all(&s.policies, &s.seeds);
    let wall = clock.elapsed().as_secs_f64();
    let policies: Vec<FgdPolicySummary> = s
        .policies
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            summary_of(
                &runs,
                p,
                expected.allocation[i].as_deref(),
                expected.fragmentation[i].as_deref(),
            )
        })
        .collect();
    let summary = FgdSummary {
        scenario: s.name.clone(),
        scenario_hash: s.hash.clone(),
        version: crate::VERSION.to_string(),
        seeds: s.seeds.clone(),
        tune: s.tune,
        typical_coverage: s.typical_coverage,
        cluster_gpus: exp.gpu_capacity() as f64 / 1000.0,
        trace_pods,
        policies,
    };
    write_fgd(folder.path(), &runs, &summary, &s.policies, &expected)
        .map_err(|e| CliError::Failure(anyhow!("writing {}: {e}", dir.display())))?;
    folder.commit().map_err(super::folder_err)?;
    if json {
        return super::print_summary(&dir);
    }
    if quiet {
        println!("{}", dir.display());
        return Ok(());
    }
    println!(
        "gpufleet {} | scenario {} | FGD experiment | {} runs in {wall:.1} s",
        crate::VERSION,
        s.name,
        runs.len()
    );
    println!(
        "at 100 % arrived demand, mean over {} seeds (% of the cluster's GPUs):",
        s.seeds.len()
    );
    println!(
        "{:<16} {:>9} {:>9} {:>7} | {:>9} {:>9} {:>7}",
        "policy", "allocated", "artifact", "diff", "fragment", "artifact", "diff"
    );
    for p in &summary.policies {
        let f = |v: Option<f64>, sign: bool| match v {
            Some(x) if sign && x.is_finite() => format!("{x:+.2}"),
            Some(x) if x.is_finite() => format!("{x:.2}"),
            _ => "-".into(),
        };
        println!(
            "{:<16} {:>9} {:>9} {:>7} | {:>9} {:>9} {:>7}",
            p.policy,
            f(Some(p.mean_allocated_pct_at_100), false),
            f(p.expected_pct_at_100, false),
            f(p.diff_at_100, true),
            f(Some(p.mean_frag_pct_at_100), false),
            f(p.expected_frag_pct_at_100, false),
            f(p.frag_diff_at_100, true)
        );
    }
    println!("output     {}", dir.display());
    Ok(())
}

fn summary_of(
    runs: &[crate::sched::placement::FgdRun],
    p: PlacementKind,
    e: Option<&[f64]>,
    ef: Option<&[f64]>,
) -> FgdPolicySummary {
    let curve = mean_curve(runs, p);
    let frag = mean_frag_curve(runs, p);
    let mine: Vec<_> = runs.iter().filter(|r| r.policy == p).collect();
    let ours = allocation_at_100(&curve);
    let ours_f = allocation_at_100(&frag);
    let exp100 = e.and_then(|e| e.get(100).copied());
    let expf = ef.and_then(|e| e.get(100).copied());
    FgdPolicySummary {
        policy: p.as_str().to_string(),
        artifact_label: p.artifact_label().map(str::to_string),
        mean_allocated_pct_at_100: ours,
        mean_allocated_pct_at_130: curve.get(130).copied().unwrap_or(f64::NAN),
        expected_pct_at_100: exp100,
        diff_at_100: exp100.map(|x| ours - x),
        mean_failed_pods: mine.iter().map(|r| r.failed as f64).sum::<f64>()
            / mine.len().max(1) as f64,
        mean_frag_pct_at_100: ours_f,
        expected_frag_pct_at_100: expf,
        frag_diff_at_100: expf.map(|x| ours_f - x),
    }
}
