use gpufleet::engine::SimTime;
use gpufleet::pricing::*;
use gpufleet::sched::spot_deadline::*;
use std::path::PathBuf;
fn main() {
    let sh = PathBuf::from("../shared/data/spot/aws-v100-2023-02");
    let (work, dl): (f64, f64) = (
        std::env::args().nth(1).unwrap().parse().unwrap(),
        std::env::args().nth(2).unwrap().parse().unwrap(),
    );
    for zone in [
        "us-east-1a",
        "us-east-1c",
        "us-east-1f",
        "us-east-2a",
        "us-west-2b",
    ] {
        let trace = read_availability_csv(&sh.join(format!("{zone}_v100_1.csv"))).unwrap();
        let prices = read_spot_price_json(
            &sh.join("v100_spot_prices.json"),
            &format!("{zone}_v100_1"),
            trace.tick(),
        )
        .unwrap();
        let tick = trace.tick();
        let avail: Vec<bool> = (0..trace.len()).map(|k| trace.up(k)).collect();
        let per: Vec<f64> = (0..trace.len())
            .map(|k| prices.at(SimTime(k as u64 * tick.0)) * tick.hours_f64())
            .collect();
        let spec = DeadlineSpec {
            trace: PathBuf::new(),
            work: SimTime::from_hours_f64(work),
            deadline: SimTime::from_hours_f64(dl),
            changeover: SimTime::from_hours_f64(0.2),
            on_demand_per_hour: 3.06,
            prices: DeadlinePrices::Constant(0.0),
            starts: 1,
        };
        let span = ticks(spec.deadline, tick) as usize;
        let n = 40;
        let (mut worst_up, mut worst_gr, mut sum_up, mut sum_gr, mut sum_opt) =
            (0.0f64, 0.0f64, 0.0, 0.0, 0.0);
        for i in 0..n {
            let start = (avail.len() - span) * i / (n - 1);
            let p = problem_at(&spec, &avail, &per, tick, start);
            let od = simulate(&p, &mut OnDemandOnly).cost;
            let up = simulate(&p, &mut UniformProgress);
            let gr = simulate(&p, &mut Greedy);
            assert!(up.met && gr.met);
            worst_up = worst_up.max(up.cost / od);
            worst_gr = worst_gr.max(gr.cost / od);
            sum_up += up.cost / od;
            sum_gr += gr.cost / od;
            if i % 4 == 0 {
                sum_opt += optimal_cost(&p).unwrap() / od;
            }
        }
        println!("{zone}: UP worst {worst_up:.3} mean {:.3} | greedy worst {worst_gr:.3} mean {:.3} | opt mean {:.3}", sum_up / n as f64, sum_gr / n as f64, sum_opt / 10.0);
    }
}
