//! `gpufleet plan` on the quickstart team with three decisions (owned nodes 0-24, on-demand
//! cap 0-16, spot cap 0-16: 7,225 fleets), `scenarios/plan-h100-team.toml`: the wall time
//! at 2 threads (target: under 30 s on a 2-core machine) and at 1, and the fleets and
//! replications simulated against the full grid's.
//!
//!     cargo bench --bench plan
//!
//! Measured 2026-12-01 on the shared 2-core machine (other builds running): 1.62 s wall at
//! 2 threads, 1.25 s at 1 (the difference is the machine's load, not the plan); 45 of the
//! 7,225 fleets (0.62 %), 185 replications against 21,675 for a full grid at the minimum 3
//! each (117x fewer); the same answer at both thread counts.

use gpufleet::plan::{run_plan, PlanOptions, PlanSpec, Progress};
use std::path::Path;
use std::time::Instant;

fn main() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/plan-h100-team.toml");
    let spec = PlanSpec::load(&file).expect("the shipped plan loads");
    let grid = spec.grid_size();
    let mut answers = Vec::new();
    for threads in [2usize, 1] {
        let opts = PlanOptions {
            out: None,
            threads,
            progress: Progress::Quiet,
            resume: false,
        };
        let t = Instant::now();
        let o = run_plan(&spec, &opts).expect("the plan runs");
        let secs = t.elapsed().as_secs_f64();
        let a = &o.answer;
        println!(
            "plan-h100-team, {threads} thread(s): {secs:.2} s wall; {} of {grid} fleets ({:.2} %), {} replications (a full grid at the minimum {} replications each: {}, {:.0}x more); answer: {}",
            a.fleets_evaluated,
            100.0 * a.fleets_evaluated as f64 / grid as f64,
            a.replications,
            spec.reps.min,
            grid * spec.reps.min as u64,
            (grid * spec.reps.min as u64) as f64 / a.replications as f64,
            a.recommended.as_ref().map(|r| r.words.as_str()).unwrap_or("infeasible"),
        );
        if threads == 2 && secs > 30.0 {
            println!("  SLOWER than the 30 s target");
        }
        answers.push(serde_json::to_string(a).unwrap_or_default());
    }
    assert_eq!(
        answers[0], answers[1],
        "the answer depends on the thread count"
    );
    println!("same answer at 1 and 2 threads");
}
