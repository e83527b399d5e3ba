//! Spot deadline policies on the five shared AWS V100 zone traces: time per optimum (DP)
//! and the cost of each policy relative to on-demand only, over 40 start times per zone.
//! Run: `cargo bench --bench spot_deadline` (the traces are in `data/spot/`).

use gpufleet::engine::SimTime;
use gpufleet::pricing::{read_availability_csv, read_spot_price_json};
use gpufleet::sched::spot_deadline::*;
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    // The repository's copies of the shared `spot/aws-v100-2023-02/` (data/README.md).
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/spot");
    let (work_h, deadline_h) = (16.0, 24.0);
    println!("job: {work_h} h of work, deadline {deadline_h} h, changeover 0.2 h, first hour free");
    let mut dp_time = 0.0;
    let mut dp_runs = 0;
    for zone in [
        "us-east-1a",
        "us-east-1c",
        "us-east-1f",
        "us-east-2a",
        "us-west-2b",
    ] {
        let trace = read_availability_csv(&dir.join(format!("{zone}_v100_1.csv"))).unwrap();
        let tick = trace.tick();
        let prices = read_spot_price_json(
            &dir.join("v100_spot_prices.json"),
            &format!("{zone}_v100_1"),
            tick,
        )
        .unwrap();
        let avail: Vec<bool> = (0..trace.len()).map(|k| trace.up(k)).collect();
        let per: Vec<f64> = (0..trace.len())
            .map(|k| prices.at(SimTime(k as u64 * tick.0)) * tick.hours_f64())
            .collect();
        let spec = DeadlineSpec {
            trace: PathBuf::new(),
            trace_zone: None,
            work: SimTime::from_hours_f64(work_h),
            deadline: SimTime::from_hours_f64(deadline_h),
            changeover: SimTime::from_hours_f64(0.2),
            on_demand_per_hour: 3.06,
            prices: DeadlinePrices::Constant(0.0),
            starts: 1,
            first_hour_free: true,
        };
        let span = ticks(spec.deadline, tick) as usize;
        let n = 40;
        let mut sums = [0.0f64; 3];
        let mut worst = [0.0f64; 2];
        for i in 0..n {
            let start = (avail.len() - span) * i / (n - 1);
            let p = problem_at(&spec, &avail, &per, tick, start);
            let od = simulate(&p, &mut OnDemandOnly).cost;
            let gr = simulate(&p, &mut Greedy).cost / od;
            let up = simulate(&p, &mut UniformProgress).cost / od;
            let clock = Instant::now();
            let opt = optimal_cost(&p).unwrap() / od;
            dp_time += clock.elapsed().as_secs_f64();
            dp_runs += 1;
            sums[0] += gr;
            sums[1] += up;
            sums[2] += opt;
            worst[0] = worst[0].max(gr);
            worst[1] = worst[1].max(up);
        }
        let m = |x: f64| x / n as f64;
        println!(
            "{zone}: cost / on-demand  greedy {:.3} (worst {:.3})  uniform progress {:.3} (worst {:.3})  optimum {:.3}",
            m(sums[0]), worst[0], m(sums[1]), worst[1], m(sums[2])
        );
    }
    println!(
        "optimum (DP): {:.1} ms per problem over {dp_runs} problems",
        dp_time / dp_runs as f64 * 1e3
    );
}
