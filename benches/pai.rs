//! The PAI-2020 simulator's experiment shape at scale: a trace in the simulator's CSV
//! format (generated here like scripts/gen_pai_sim_trace.py), rewritten to 1,000 arrivals
//! per minute, on one pool of 6,500 fungible GPUs, under greedy FIFO and greedy SJF.
//! 20,000 and 1,000,000 jobs; prints read and replay times.
//!
//! Run: `cargo bench --bench pai`.

use gpufleet::engine::SimTime;
use gpufleet::model::{CapacityKind, NodeSpec, PoolSpec};
use gpufleet::sched::PolicyKind;
use gpufleet::sim::{SimConfig, Simulation};
use gpufleet::workload::{read_pai_sim_csv, PaiSimOptions};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp, LogNormal};
use std::io::Write;
use std::time::Instant;

fn write_trace(path: &std::path::Path, n: usize) {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(2020);
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(out, "job_id,user,gpu_type,num_inst,submit_time,duration,num_cpu,num_gpu,user_dur,group_dur,group_gpu_dur").unwrap();
    let gap = Exp::new(1.0 / 6.0).unwrap();
    let dur = LogNormal::new(600f64.ln(), 1.5).unwrap();
    let noise = LogNormal::new(0.0, 0.5).unwrap();
    let types = ["MISC", "T4", "P100", "V100", "V100M32"];
    let mut t = 0.0;
    for j in 0..n {
        t += gap.sample(&mut rng);
        let inst = if rng.random::<f64>() < 0.9 {
            1
        } else {
            [2, 4, 8, 16][rng.random_range(0..4)]
        };
        let u: f64 = rng.random();
        let gpu = if u < 0.70 {
            1
        } else if u < 0.80 {
            2
        } else if u < 0.87 {
            4
        } else if u < 0.95 {
            8
        } else {
            0
        };
        let cpu = [4, 6, 8, 12][rng.random_range(0..4)];
        let d = dur.sample(&mut rng).round().clamp(1.0, 5.0 * 86400.0);
        let e: Vec<f64> = (0..3)
            .map(|_| (d * noise.sample(&mut rng)).round().max(1.0))
            .collect();
        let user = rng.random_range(0..100);
        writeln!(
            out,
            "{j},u{user},{},{inst},{},{d},{cpu},{gpu},{},{},{}",
            types[j % 5],
            t as u64,
            e[0],
            e[1],
            e[2]
        )
        .unwrap();
    }
}

fn main() {
    let dir = std::env::temp_dir().join(format!("gpufleet-pai-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for n in [20_000usize, 1_000_000] {
        let path = dir.join(format!("pai-{n}.csv"));
        write_trace(&path, n);
        let t = Instant::now();
        let w = read_pai_sim_csv(
            &path,
            PaiSimOptions {
                arrivals_per_minute: Some(1000.0),
                ..Default::default()
            },
        )
        .unwrap();
        let read_s = t.elapsed().as_secs_f64();
        for policy in [PolicyKind::GreedyFifo, PolicyKind::GreedySjf] {
            let cfg = SimConfig {
                pools: vec![PoolSpec {
                    name: "pai".into(),
                    gpu_type: 0,
                    kind: CapacityKind::Owned,
                    node: NodeSpec {
                        gpus: 1,
                        cpu_milli: u32::MAX,
                        mem_mib: u64::MAX,
                    },
                    nodes: 6500,
                    speed: 1.0,
                }],
                policy,
                placement: Default::default(),
                horizon: None,
                sample_every: None,
                options: Default::default(),
            };
            let t = Instant::now();
            let r = Simulation::new(cfg, &w).run();
            let s = t.elapsed().as_secs_f64();
            let done = r.jobs.iter().filter(|j| j.end.is_some()).count();
            let mean_jct = w
                .jobs
                .iter()
                .zip(&r.jobs)
                .filter_map(|(j, rec)| rec.end.map(|e| e.since(j.submit).hours_f64()))
                .sum::<f64>()
                / done.max(1) as f64;
            println!(
                "{n:>9} jobs  read {read_s:>6.2} s  {:<11} replay {s:>7.3} s  {:>6.2} M events/s  mean JCT {mean_jct:.1} h  simulated {:.1} d",
                policy.as_str(),
                r.events as f64 / s / 1e6,
                r.end.hours_f64() / 24.0
            );
            let _ = SimTime::ZERO;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
