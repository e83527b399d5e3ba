//! Benchmark of the FGD paper's arrival-only experiment: six policies x 10 seeds on the
//! openb `default` and `gpushare40` traces (the artifact's 1,213-node GPU cluster), with
//! each policy's mean allocation and fragmentation at 100 % arrived demand beside the
//! artifact's. `FGD_SEEDS=n` and `FGD_TRACE=default|gpushare40` narrow it;
//! `FGD_PODS=path` runs another openb pod list (its rows in `FGD_EXPECTED_DIR`'s
//! `analysis_allo_discrete.csv` / `analysis_frag_discrete.csv`, if given, by the file's
//! stem), `FGD_NODES=path` another node list.

use gpufleet::sched::placement::{FgdExperiment, FgdRun, PlacementKind};
use gpufleet::workload::{read_expected_curves, read_openb_nodes, read_openb_pods, BadRows};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Mean of the finite values.
fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = v
        .filter(|x| x.is_finite())
        .fold((0.0, 0), |(s, n), x| (s + x, n + 1));
    s / n as f64
}

/// The artifact's mean at 100 % for `workload` and `label` in `file`, NaN if absent.
fn expected(file: &Path, workload: &str, label: &str) -> f64 {
    match read_expected_curves(file, Some(workload)) {
        Ok(c) => mean(
            c.iter()
                .filter(|c| c.policy == label)
                .map(|c| c.curve.get(100).copied().unwrap_or(f64::NAN)),
        ),
        Err(_) => f64::NAN,
    }
}

fn ours(runs: &[FgdRun], p: PlacementKind, frag: bool) -> f64 {
    mean(runs.iter().filter(|r| r.policy == p).map(
        |r| {
            if frag {
                r.frag[100]
            } else {
                r.curve[100]
            }
        },
    ))
}

fn main() {
    let seeds: u64 = std::env::var("FGD_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let dir = Path::new("data/openb-2023");
    let traces: Vec<(PathBuf, PathBuf, PathBuf)> = match std::env::var("FGD_PODS") {
        Ok(p) => {
            let e = PathBuf::from(std::env::var("FGD_EXPECTED_DIR").unwrap_or_default());
            vec![(
                PathBuf::from(p),
                e.join("analysis_allo_discrete.csv"),
                e.join("analysis_frag_discrete.csv"),
            )]
        }
        Err(_) => {
            let names: Vec<String> = match std::env::var("FGD_TRACE") {
                Ok(t) => vec![t],
                Err(_) => vec!["default".into(), "gpushare40".into()],
            };
            let e = Path::new("data/fgd-atc23");
            names
                .iter()
                .map(|t| {
                    (
                        dir.join(format!("openb_pod_list_{t}.csv")),
                        e.join("expected_alloc_default_gpushare40.csv"),
                        e.join("expected_frag_default_gpushare40.csv"),
                    )
                })
                .collect()
        }
    };
    let node_file = std::env::var("FGD_NODES")
        .map(PathBuf::from)
        .unwrap_or_else(|_| dir.join("openb_node_list_gpu_node.csv"));
    let nodes = read_openb_nodes(&node_file, BadRows::Stop).expect("node list");
    let mut total = 0.0;
    for (pods_file, alloc_file, frag_file) in traces {
        let workload = pods_file
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        let pods = read_openb_pods(&pods_file, BadRows::Stop, None).expect("pod list");
        let exp = FgdExperiment::new(&nodes, &pods.pods, 1.3, 0.95).expect("experiment");
        let seed_list: Vec<u64> = (42..42 + seeds).collect();
        print!("one run (seed 42, one thread):");
        for p in PlacementKind::FGD_PAPER {
            let t = Instant::now();
            let r = exp.run(p, 42);
            print!(
                " {} {:.0} ms ({} pods)",
                p.as_str(),
                t.elapsed().as_secs_f64() * 1000.0,
                r.pods
            );
        }
        println!();
        let t0 = Instant::now();
        let runs = exp.run_all(&PlacementKind::FGD_PAPER, &seed_list);
        let secs = t0.elapsed().as_secs_f64();
        total += secs;
        println!(
            "trace {workload}: {} runs in {secs:.2} s ({} threads)",
            runs.len(),
            rayon::current_num_threads()
        );
        println!(
            "{:<16} {:>8} {:>8} {:>7} | {:>8} {:>8} {:>7}",
            "at 100 %", "alloc", "artifact", "diff", "frag", "artifact", "diff"
        );
        for p in PlacementKind::FGD_PAPER {
            let label = p.artifact_label().unwrap_or("");
            let (a, f) = (ours(&runs, p, false), ours(&runs, p, true));
            let (ea, ef) = (
                expected(&alloc_file, &workload, label),
                expected(&frag_file, &workload, label),
            );
            println!(
                "{label:<16} {a:>8.2} {ea:>8.2} {:>+7.2} | {f:>8.2} {ef:>8.2} {:>+7.2}",
                a - ea,
                f - ef
            );
        }
    }
    println!("all traces: {total:.2} s");
}
