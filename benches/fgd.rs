//! Benchmark of the FGD paper's arrival-only experiment: six policies x 10 seeds on the
//! openb `default` and `gpushare40` traces, with each policy's mean at 100 % arrived
//! demand beside the artifact's. `FGD_SEEDS=n` and `FGD_TRACE=default|gpushare40` narrow it.

use gpufleet::sched::placement::{allocation_at_100, FgdExperiment, PlacementKind};
use gpufleet::workload::{read_openb_nodes, read_openb_pods, BadRows};
use std::path::Path;
use std::time::Instant;

fn expected(trace: &str, label: &str) -> f64 {
    let text = std::fs::read_to_string("data/fgd-atc23/expected_alloc_default_gpushare40.csv")
        .unwrap_or_default();
    let (mut sum, mut n) = (0.0, 0);
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() > 105 && f[0] == format!("openb_pod_list_{trace}") && f[1] == label {
            sum += f[105].parse::<f64>().unwrap_or(f64::NAN);
            n += 1;
        }
    }
    sum / n as f64
}

fn main() {
    let seeds: u64 = std::env::var("FGD_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let traces: Vec<String> = match std::env::var("FGD_TRACE") {
        Ok(t) => vec![t],
        Err(_) => vec!["default".into(), "gpushare40".into()],
    };
    let dir = Path::new("data/openb-2023");
    let nodes = read_openb_nodes(&dir.join("openb_node_list_all_node.csv"), BadRows::Stop)
        .expect("node list");
    for trace in traces {
        let pods = read_openb_pods(
            &dir.join(format!("openb_pod_list_{trace}.csv")),
            BadRows::Stop,
        )
        .expect("pod list");
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
        println!(
            "trace {trace}: {} runs in {secs:.2} s ({} threads)",
            runs.len(),
            rayon::current_num_threads()
        );
        println!(
            "{:<16} {:>8} {:>8} {:>7}",
            "policy", "ours", "paper", "diff"
        );
        for p in PlacementKind::FGD_PAPER {
            let v: Vec<f64> = runs
                .iter()
                .filter(|r| r.policy == p)
                .map(|r| allocation_at_100(&r.curve))
                .collect();
            let ours = v.iter().sum::<f64>() / v.len() as f64;
            let label = p.artifact_label().unwrap_or("");
            let paper = expected(&trace, label);
            println!(
                "{label:<16} {ours:>8.2} {paper:>8.2} {:>+7.2}",
                ours - paper
            );
        }
    }
}
