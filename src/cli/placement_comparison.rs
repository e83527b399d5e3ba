//! `gpufleet run` / `validate` on a placement comparison scenario (`[placement_comparison]`):
//! the openb trace replayed in time on its real cluster under each placement.

use super::CliError;
use crate::engine::RngStreams;
use crate::metrics::{jain_index, tenant_slowdowns};
use crate::model::{CapacityKind, GpuType, PoolSpec};
use crate::pricing::PoolPricing;
use crate::report::write_atomic;
use crate::scenario::{CompareScenario, Scenario};
use crate::sim::SimConfig;
use crate::workload::{
    group_openb_nodes, openb_workload, read_openb_node_list, read_openb_pods, BadRows,
};
use anyhow::anyhow;
use rayon::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};

fn bad(e: impl std::fmt::Display) -> CliError {
    CliError::BadInput(anyhow!("{e}"))
}

/// True when the file at `path` is a placement comparison scenario.
pub fn is_compare_file(path: &Path) -> bool {
    crate::workload::read_small_text(path, crate::workload::MAX_SCENARIO_BYTES)
        .map(|t| crate::scenario::is_compare_scenario(&t))
        .unwrap_or(false)
}

/// One placement's figures.
#[derive(Debug, Clone, Serialize)]
pub struct CompareRow {
    /// Placement policy.
    pub placement: String,
    /// Jobs completed.
    pub completed: u64,
    /// Jobs no pool could ever hold.
    pub rejected: u64,
    /// Mean and 95th percentile wait, seconds.
    pub wait_mean_s: f64,
    /// 95th percentile wait, seconds.
    pub wait_p95_s: f64,
    /// Mean job completion time, seconds.
    pub jct_mean_s: f64,
    /// 95th percentile JCT, seconds.
    pub jct_p95_s: f64,
    /// Busy over provisioned GPU-time.
    pub utilization: f64,
    /// Jain's index over the tenants' (QoS classes') mean slowdowns.
    pub jain_slowdown: f64,
    /// Total cost, USD.
    pub cost_usd: f64,
}

/// The comparison as a scenario: one owned pool per node shape of the node list, each at its
/// flat price, under the queue policy, on the pod list with its arrivals compressed. The
/// placement is set per run.
fn build(s: &CompareScenario) -> Result<(Scenario, usize), CliError> {
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
    let mut w = openb_workload(&pods, &s.pods).map_err(bad)?;
    let mut types: Vec<String> = Vec::new();
    let (mut pools, mut rates) = (Vec::new(), Vec::new());
    for (model, spec, count) in group_openb_nodes(&nodes) {
        let name = if spec.gpus == 0 {
            "CPU".to_string()
        } else {
            model.clone()
        };
        let t = match types.iter().position(|x| *x == name) {
            Some(t) => t,
            None => {
                types.push(name.clone());
                types.len() - 1
            }
        };
        pools.push(PoolSpec {
            name: format!("{name}-{}gpu-{}c", spec.gpus, spec.cpu_milli / 1000),
            gpu_type: t,
            kind: CapacityKind::Owned,
            node: spec,
            nodes: ((count as f64 * s.cluster_fraction).ceil() as u32).max(1),
            speed: 1.0,
        });
        rates.push(PoolPricing::flat(if spec.gpus == 0 {
            s.usd_per_cpu_node_hour
        } else {
            s.usd_per_gpu_hour * spec.gpus as f64
        }));
    }
    for j in &mut w.jobs {
        j.submit = crate::engine::SimTime((j.submit.0 as f64 / s.arrival_compression) as u64);
    }
    let unknown = w.remap_types(&types);
    if !unknown.is_empty() {
        return Err(bad(format!(
            "{}: gpu_spec names models the node list lacks: {}",
            s.pods.display(),
            unknown.join(", ")
        )));
    }
    // Only the names matter here: speeds are 1 (the trace's run times are as measured).
    let gpu_types = types
        .iter()
        .map(|name| GpuType {
            name: name.clone(),
            memory_gb: 0.0,
            speed: 1.0,
            power_w: 0.0,
        })
        .collect();
    let sim = SimConfig {
        pools,
        policy: s.queue_policy,
        placement: crate::sched::placement::PlacementKind::default(),
        horizon: None,
        sample_every: None,
        options: crate::sched::SchedOptions::default(),
    };
    let jobs = w.jobs.len();
    Ok((
        Scenario::assembled(&s.name, &s.hash, gpu_types, sim, rates, w),
        jobs,
    ))
}

/// `gpufleet validate` on a comparison scenario.
pub fn validate(path: &Path) -> Result<super::Checked, CliError> {
    let s = CompareScenario::load(path).map_err(bad)?;
    let (one, jobs) = build(&s)?;
    Ok(super::Checked {
        text: format!(
            "{}: ok (placement comparison, {} pools, {} jobs, {} placements)",
            path.display(),
            one.sim.pools.len(),
            jobs,
            s.placements.len()
        ),
        facts: serde_json::json!({
            "kind": "placement_comparison", "pools": one.sim.pools.len(),
            "jobs": jobs, "placements": s.placements.len(),
        }),
    })
}

/// `gpufleet run` on a comparison scenario.
pub fn run(path: &Path, out: Option<PathBuf>, quiet: bool, as_json: bool) -> Result<(), CliError> {
    let s = CompareScenario::load(path).map_err(bad)?;
    let (base, jobs) = build(&s)?;
    // The folder is checked before anything runs and swapped into place once whole.
    let dir = out.unwrap_or_else(|| PathBuf::from("out").join(&s.name));
    let folder = crate::run::FreshFolder::begin(&dir).map_err(super::folder_err)?;
    let rows: Vec<CompareRow> = s
        .placements
        .par_iter()
        .map(|&p| -> Result<CompareRow, CliError> {
            let mut one = base.clone();
            one.sim.placement = p;
            // The comparison has no seed of its own: its summaries say seed 0.
            let e =
                crate::run::execute(&one, &RngStreams::new(0)).map_err(super::run::run_error)?;
            let sum = &e.summary;
            Ok(CompareRow {
                placement: p.as_str().to_string(),
                completed: sum.jobs.completed,
                rejected: sum.jobs.rejected,
                wait_mean_s: sum.wait_s.mean,
                wait_p95_s: sum.wait_s.p95,
                jct_mean_s: sum.jct_s.mean,
                jct_p95_s: sum.jct_s.p95,
                utilization: sum.utilization,
                jain_slowdown: jain_index(&tenant_slowdowns(&e.workload, &e.result)),
                cost_usd: sum.cost_usd.get("total").copied().unwrap_or(0.0),
            })
        })
        .collect::<Result<_, _>>()?;
    let fail = |e: std::io::Error| CliError::Failure(anyhow!("writing {}: {e}", dir.display()));
    let into = folder.path();
    let mut csv = String::from("placement,completed,rejected,wait_mean_s,wait_p95_s,jct_mean_s,jct_p95_s,utilization,jain_slowdown,cost_usd\n");
    for r in &rows {
        csv.push_str(&format!(
            "{},{},{},{:.1},{:.1},{:.1},{:.1},{:.6},{:.6},{:.2}\n",
            r.placement,
            r.completed,
            r.rejected,
            r.wait_mean_s,
            r.wait_p95_s,
            r.jct_mean_s,
            r.jct_p95_s,
            r.utilization,
            r.jain_slowdown,
            r.cost_usd
        ));
    }
    write_atomic(&into.join("comparison.csv"), csv.as_bytes()).map_err(fail)?;
    let json = serde_json::json!({
        "scenario": s.name, "scenario_hash": s.hash, "version": crate::VERSION,
        "queue_policy": s.queue_policy.as_str(), "jobs": jobs, "placements": rows,
    });
    let text = serde_json::to_string_pretty(&json).map_err(|e| fail(std::io::Error::other(e)))?;
    write_atomic(&into.join("summary.json"), text.as_bytes()).map_err(fail)?;
    folder.commit().map_err(super::folder_err)?;
    if as_json {
        return super::print_summary(&dir);
    }
    if quiet {
        println!("{}", dir.display());
        return Ok(());
    }
    println!(
        "gpufleet {} | scenario {} | {} jobs | queue {}",
        crate::VERSION,
        s.name,
        jobs,
        s.queue_policy.as_str()
    );
    println!(
        "{:<12} {:>10} {:>10} {:>10} {:>10} {:>7} {:>6} {:>12}",
        "placement", "wait mean", "wait p95", "JCT mean", "JCT p95", "util", "Jain", "cost $"
    );
    for r in &rows {
        println!(
            "{:<12} {:>9.0}s {:>9.0}s {:>9.0}s {:>9.0}s {:>6.1}% {:>6.3} {:>12.0}",
            r.placement,
            r.wait_mean_s,
            r.wait_p95_s,
            r.jct_mean_s,
            r.jct_p95_s,
            r.utilization * 100.0,
            r.jain_slowdown,
            r.cost_usd
        );
    }
    println!("output     {}", dir.display());
    Ok(())
}
