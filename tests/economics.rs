//! Economics: billing, reservations, savings plans, ownership, spot traces and interruption
//! models, the spot deadline policies, the ledger, scenarios with prices, and `gpufleet tco`.
//! Expected values come from hand calculation, the formulas in the shared ECONOMICS.md,
//! awk over the shared data files, or brute force; never from the code under test.

use crate::common::*;
use assert_cmd::Command;
use gpufleet::engine::{RngStreams, SimTime};
use gpufleet::metrics::run_cost;
use gpufleet::model::CapacityKind;
use gpufleet::pricing::*;
use gpufleet::scenario::Scenario;
use gpufleet::sched::spot_deadline::*;
use gpufleet::sched::PolicyKind;
use gpufleet::sim::Simulation;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn bin() -> Command {
    Command::cargo_bin("gpufleet").unwrap()
}

fn shared(rel: &str) -> PathBuf {
    root().join("../shared/data").join(rel)
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

// ---- billing -------------------------------------------------------------------------

#[test]
fn billing_rounds_up_to_granularity_with_minimum() {
    let od = OnDemand {
        usd_per_node_hour: 36.0,
        billing: Billing::PER_SECOND_60S_MIN,
    };
    let held = |ms: u64| HeldInterval {
        requested: SimTime(0),
        ready: SimTime(0),
        released: SimTime(ms),
        nodes: 1,
        interrupted_by_provider: false,
    };
    // 10 s held: billed the 60 s minimum = 36 / 60 = $0.60.
    assert!(close(od.cost(&held(10_000)), 0.60, 1e-12));
    // 90.2 s held: 91 s billed = 36 x 91 / 3600 = $0.91.
    assert!(close(od.cost(&held(90_200)), 0.91, 1e-12));
    // Per started hour: 61 min = 2 h = $72.
    let hourly = OnDemand {
        billing: Billing::PER_STARTED_HOUR,
        ..od
    };
    assert!(close(hourly.cost(&held(3_660_000)), 72.0, 1e-12));
    assert!(close(hourly.cost(&held(1)), 36.0, 1e-12));
}

// ---- commitments ---------------------------------------------------------------------

#[test]
fn reservation_break_even_is_one_minus_discount() {
    for d in [0.25, 0.37, 0.41, 0.64] {
        let r = Reservation::at_discount(4, 8760.0, 98.32, d);
        assert!(close(r.break_even_utilization(98.32), 1.0 - d, 1e-12));
    }
    // All upfront: $8760 for 1 year = $1/h effective against $2/h on demand -> 50 %.
    let r = Reservation {
        nodes: 1,
        term_start_h: 0.0,
        term_h: 8760.0,
        upfront_per_node: 8760.0,
        recurring_per_node_hour: 0.0,
    };
    assert!(close(r.break_even_utilization(2.0), 0.5, 1e-12));
}

#[test]
fn savings_plan_formula() {
    // C = $10/h at d = 50 % covers $20/h of on-demand usage.
    let sp = SavingsPlan {
        commitment_per_hour: 10.0,
        discount: 0.5,
    };
    assert!(close(sp.hour_cost(0.0), 10.0, 1e-12));
    assert!(close(sp.hour_cost(15.0), 10.0, 1e-12));
    assert!(close(sp.hour_cost(20.0), 10.0, 1e-12));
    assert!(close(sp.hour_cost(30.0), 20.0, 1e-12));
    // Unused: at D = 15 a quarter of the coverage is idle: $2.50 of the $10.
    assert!(close(sp.unused(15.0), 2.5, 1e-12));
}

#[test]
fn capacity_block_is_paid_upfront_in_full() {
    // 2 nodes x 14 days x $31.46 = 2 x 336 x 31.46 = $21,141.12, all of it in a 7-day run.
    let b = CapacityBlock {
        nodes: 2,
        start: SimTime::ZERO,
        duration: SimTime::from_hours_f64(336.0),
        usd_per_node_hour: 31.46,
    };
    assert!(close(
        b.cost_in(SimTime::from_hours_f64(168.0)),
        21_141.12,
        1e-9
    ));
}

// ---- owned hardware ------------------------------------------------------------------

#[test]
fn annuity_repays_the_capital() {
    // An annuity A over L years at rate r, plus the residual at the end, has a present
    // value equal to the capital: sum A (1+r)^-k + S (1+r)^-L = capex.
    for (capex, s, r, l) in [
        (400_000.0, 40_000.0, 0.13, 5.0),
        (200_000.0, 0.0, 0.08, 4.0),
    ] {
        let a = annuity(capex, s, r, l);
        let pv: f64 = (1..=l as i32)
            .map(|k| a / (1.0f64 + r).powi(k))
            .sum::<f64>()
            + s / (1.0f64 + r).powi(l as i32);
        assert!(close(pv, capex, 1e-9), "{pv} vs {capex}");
    }
    // Python: (400000 - 40000 * 1.13**-5) * 0.13 / (1 - 1.13**-5) = 107553.2356...
    assert!(close(
        annuity(400_000.0, 40_000.0, 0.13, 5.0),
        107_553.235_6,
        1e-9
    ));
    // r = 0: straight line.
    assert!(close(annuity(100.0, 20.0, 0.0, 4.0), 20.0, 1e-12));
}

fn simple_owned() -> OwnedHardware {
    OwnedHardware {
        capex_per_node: 87_600.0,
        residual_per_node: 0.0,
        life_years: 1.0,
        cost_of_capital: 0.0,
        idle_kw_per_node: 2.0,
        full_kw_per_node: 10.0,
        pue: 1.5,
        usd_per_kwh: 0.10,
        colo_usd_per_kw_month: 100.0,
        staff_usd_per_year: 87_600.0,
        maintenance_share_per_year: 0.0,
        lead_time_days: 0.0,
    }
}

#[test]
fn power_and_pue_arithmetic() {
    let o = simple_owned();
    // At 75 % load: (2 + 8 x 0.75) = 8 kW x 1.5 = 12 kW x $0.10 = $1.20/h per node.
    assert!(close(o.cost(1, 1.0, 0.75).power, 1.20, 1e-12));
    // Full load for a day on 3 nodes: 10 kW x 1.5 x 0.10 x 24 x 3 = $108.
    assert!(close(o.cost(3, 24.0, 1.0).power, 108.0, 1e-12));
}

#[test]
fn owned_hardware_at_zero_load_still_pays() {
    // Two owned nodes and no jobs for 30 days. By hand, per node-hour: capital
    // 87,600 / 8760 = $10; colocation 100 $/kW-month x 10 kW / 730 h = $1.369863;
    // power at idle 2 kW x 1.5 x $0.10 = $0.30; staff $87,600/year = $10/h for the pool.
    let w = workload(vec![]);
    let mut cfg = config(vec![pool("owned", 2, 8)], PolicyKind::Fifo);
    cfg.horizon = Some(SimTime::from_hours_f64(720.0));
    let r = Simulation::new(cfg, &w).run();
    let cost = run_cost(&r, &[PoolPricing::Owned(simple_owned())], |_| 0);
    let kind = |k: CostKind| cost.ledger.sum_where(|key| key.kind == k);
    assert!(close(kind(CostKind::Capital), 2.0 * 720.0 * 10.0, 1e-9));
    assert!(close(
        kind(CostKind::Facility),
        2.0 * 720.0 * 1000.0 / 730.0,
        1e-9
    ));
    assert!(close(kind(CostKind::Staff), 720.0 * 10.0, 1e-9));
    assert!(close(kind(CostKind::Power), 2.0 * 720.0 * 0.30, 1e-9));
    assert!(close(
        cost.ledger.total(),
        14_400.0 + 1_440_000.0 / 730.0 + 7_200.0 + 432.0,
        1e-9
    ));
    // No job, so no tenant pays anything.
    assert_eq!(cost.ledger.sum_where(|k| k.tenant.is_some()), 0.0);
}

// ---- transfer --------------------------------------------------------------------------

#[test]
fn egress_tiers_by_hand() {
    let e = Egress::aws_internet();
    assert_eq!(e.internet_cost(50.0), 0.0);
    // 200 GB: 100 free, 100 x $0.09 = $9.
    assert!(close(e.internet_cost(200.0), 9.0, 1e-12));
    // 20,000 GB: (10,240 - 100) x 0.09 + (20,000 - 10,240) x 0.085 = 912.6 + 829.6.
    assert!(close(e.internet_cost(20_000.0), 1_742.2, 1e-12));
    assert!(close(e.cross_zone_cost(300.0), 3.0, 1e-12));
    // 100 GB at 10 Gbit/s = 800 Gbit / 10 = 80 s.
    assert!(close(transfer_seconds(100.0, 10.0), 80.0, 1e-12));
}

// ---- spot traces and interruption models ---------------------------------------------

#[test]
fn aws_availability_readers_match_awk() {
    // awk -F, 'NR>1{n++; s+=$2} END{print n, s}' spot/aws-v100-2023-02/<zone>.csv
    for (zone, n, up) in [
        ("us-east-1a", 20158, 3360),
        ("us-east-1c", 20158, 9404),
        ("us-east-1f", 20158, 11917),
        ("us-east-2a", 20158, 15306),
        ("us-west-2b", 20158, 18242),
    ] {
        let t = read_availability_csv(&shared(&format!("spot/aws-v100-2023-02/{zone}_v100_1.csv")))
            .unwrap();
        assert_eq!(t.len(), n, "{zone}");
        assert!(
            close(t.available_fraction(), up as f64 / n as f64, 1e-12),
            "{zone}"
        );
        // Ticks of about 195 s (the trace's probing interval).
        assert!((190_000..200_000).contains(&t.tick().0), "{zone}");
    }
    // The project's own copy is the same trace.
    let own = read_availability_csv(&root().join("data/spot/us-east-1f_v100_1.csv")).unwrap();
    assert!(close(own.available_fraction(), 11917.0 / 20158.0, 1e-12));
}

#[test]
fn gcp_probe_reader_matches_awk() {
    // awk -F, 'NR>1{r[$4]+=$5; c[$4]+=$6} END{for (z in r) print z, r[z], c[z]}'
    //   spot/gcp-h100-2025-10/h100_16_probes.csv
    let f = shared("spot/gcp-h100-2025-10/h100_16_probes.csv");
    for (zone, created) in [
        ("asia-south2-b", 33610),
        ("asia-southeast1-b", 25457),
        ("asia-southeast1-c", 17705),
        ("europe-west1-c", 13876),
        ("europe-west3-c", 3812),
        ("us-central1-a", 31180),
        ("us-central1-b", 19110),
        ("us-central1-c", 26720),
        ("us-east4-a", 25177),
        ("us-east4-b", 19740),
        ("us-east5-a", 19089),
        ("us-west1-a", 17940),
        ("us-west1-b", 5520),
    ] {
        let t = read_gcp_probes(&f, zone).unwrap();
        assert_eq!(t.len(), 2104, "{zone}");
        // Every probe asked for 16: 2104 x 16 = 33,664 requested.
        assert!(
            close(t.available_fraction(), created as f64 / 33_664.0, 1e-12),
            "{zone}"
        );
    }
}

#[test]
fn spot_price_trace_mean_matches_python() {
    // python: sum(d['us-east-1f_v100_1']) / len(...) = 1.2650475121540714 over 20158 ticks.
    let p = read_spot_price_json(
        &root().join("data/spot/us-east-1f_v100_prices.json"),
        "us-east-1f_v100_1",
        SimTime::from_secs(195),
    )
    .unwrap();
    let end = SimTime::from_secs(195 * 20_158);
    assert!(close(p.mean_over(end), 1.265_047_512_154_071_4, 1e-9));
}

#[test]
fn poisson_interruptions_match_the_configured_rate() {
    // 10-15 % bucket -> 12.5 % of nodes interrupted per month: lambda x 730 h =
    // -ln(0.875) = 0.133531. Over 3000 node-months the count is Poisson with mean 400.6
    // and standard deviation 20.0; allow 4 sigma.
    let h = PoissonHazard::from_bucket(AdvisorBucket::From10To15);
    assert!(close(h.per_hour * 730.0, 0.133_531_392_6, 1e-6));
    let mut rng = RngStreams::new(17).stream("spot");
    let month = SimTime::from_hours_f64(730.0);
    let mut total = 0usize;
    let mut hit = 0usize;
    for _ in 0..3000 {
        let n = h.times(month, &mut rng).len();
        total += n;
        hit += (n > 0) as usize;
    }
    let mean = 3000.0 * 0.133_531_392_6;
    assert!((total as f64 - mean).abs() < 4.0 * mean.sqrt(), "{total}");
    // Share of nodes with at least one interruption: 12.5 % (binomial sd 0.6 %).
    assert!((hit as f64 / 3000.0 - 0.125).abs() < 0.025, "{hit}");
}

// ---- spot deadline policies ----------------------------------------------------------

fn zone_problems(zone: &str, starts: usize) -> Vec<DeadlineProblem> {
    let trace = read_availability_csv(&shared(&format!("spot/aws-v100-2023-02/{zone}_v100_1.csv")))
        .unwrap();
    let prices = read_spot_price_json(
        &shared("spot/aws-v100-2023-02/v100_spot_prices.json"),
        &format!("{zone}_v100_1"),
        trace.tick(),
    )
    .unwrap();
    let tick = trace.tick();
    let avail: Vec<bool> = (0..trace.len()).map(|k| trace.up(k)).collect();
    let per_tick: Vec<f64> = (0..trace.len())
        .map(|k| prices.at(SimTime(k as u64 * tick.0)) * tick.hours_f64())
        .collect();
    let spec = DeadlineSpec {
        trace: PathBuf::new(),
        work: SimTime::from_hours_f64(16.0),
        deadline: SimTime::from_hours_f64(24.0),
        changeover: SimTime::from_hours_f64(0.2),
        on_demand_per_hour: 3.06,
        prices: DeadlinePrices::Constant(0.0),
        starts: 1,
        first_hour_free: true,
    };
    let span = ticks(spec.deadline, tick) as usize;
    (0..starts)
        .map(|i| {
            let start = (avail.len() - span) * i / (starts - 1);
            problem_at(&spec, &avail, &per_tick, tick, start)
        })
        .collect()
}

/// On each zone trace, a 16 h job due in 24 h, started at 8 times spread over the trace.
/// Per start: Greedy and Uniform Progress meet the deadline and no policy beats the
/// optimum. Per trace (mean over the starts): optimum <= Uniform Progress <= on-demand.
/// Uniform Progress is not below on-demand at every single start: a spot run that dies
/// just after its changeover costs an extra on-demand changeover (the bench
/// `spot_deadline` prints the worst start per zone, up to 4 % above on-demand).
#[test]
fn deadline_policies_on_every_aws_zone_trace() {
    for zone in [
        "us-east-1a",
        "us-east-1c",
        "us-east-1f",
        "us-east-2a",
        "us-west-2b",
    ] {
        let (mut sum_od, mut sum_up, mut sum_opt) = (0.0, 0.0, 0.0);
        for (i, p) in zone_problems(zone, 8).iter().enumerate() {
            let od = simulate(p, &mut OnDemandOnly);
            let gr = simulate(p, &mut Greedy);
            let up = simulate(p, &mut UniformProgress);
            let opt = optimal_cost(p).expect("on-demand alone meets the deadline");
            assert!(
                od.met && gr.met && up.met,
                "{zone} start {i}: a policy missed"
            );
            // On-demand only: (work + one changeover) ticks at the on-demand price.
            assert!(close(
                od.cost,
                (p.work + p.changeover) as f64 * p.od_cost,
                1e-9
            ));
            assert!(
                opt <= up.cost + 1e-9,
                "{zone} {i}: opt {opt} > UP {}",
                up.cost
            );
            assert!(
                opt <= gr.cost + 1e-9,
                "{zone} {i}: opt {opt} > greedy {}",
                gr.cost
            );
            assert!(opt <= od.cost + 1e-9);
            sum_od += od.cost;
            sum_up += up.cost;
            sum_opt += opt;
        }
        assert!(sum_opt <= sum_up + 1e-9, "{zone}: optimum above UP");
        assert!(
            sum_up <= sum_od + 1e-9,
            "{zone}: UP {sum_up} above on-demand {sum_od}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn optimum_equals_brute_force_on_small_instances(
        up in proptest::collection::vec(any::<bool>(), 9),
        spot_price in proptest::collection::vec(0.1f64..2.0, 9),
        work in 1u32..5,
        extra in 0u32..4,
        changeover in 0u32..3,
        first_hour_free in any::<bool>(),
        hour_ticks in 1u32..4,
    ) {
        let deadline = (work + changeover + extra).min(9);
        let p = DeadlineProblem {
            spot_up: up,
            spot_cost: spot_price,
            od_cost: 1.5,
            work,
            deadline,
            changeover,
            first_hour_free,
            hour_ticks,
        };
        let dp = optimal_cost(&p);
        let bf = brute_force_cost(&p);
        match (dp, bf) {
            (Some(a), Some(b)) => prop_assert!((a - b).abs() < 1e-9, "dp {a} bf {b}"),
            (a, b) => prop_assert_eq!(a.is_some(), b.is_some()),
        }
        // The policies are feasible plans, so never cheaper than the optimum.
        if let Some(o) = dp {
            for pol in [&mut Greedy as &mut dyn SpotPolicy, &mut UniformProgress, &mut OnDemandOnly] {
                let out = simulate(&p, pol);
                if out.met {
                    prop_assert!(o <= out.cost + 1e-9);
                }
            }
        }
    }
}

// ---- the ledger ------------------------------------------------------------------------

fn pricing_of(k: u8, price: f64) -> PoolPricing {
    match k % 5 {
        0 => PoolPricing::flat(price),
        1 => PoolPricing::OnDemand(OnDemand {
            usd_per_node_hour: price,
            billing: Billing::PER_STARTED_HOUR,
        }),
        2 => PoolPricing::Reserved {
            reservation: Reservation {
                nodes: 2,
                term_start_h: -10.0,
                term_h: 40.0,
                upfront_per_node: 100.0,
                recurring_per_node_hour: price / 2.0,
            },
            outside: price,
        },
        3 => PoolPricing::Spot {
            price: SpotPrice::Constant(price / 3.0),
            billing: SpotBilling::default(),
        },
        _ => PoolPricing::Owned(simple_owned()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_split_of_the_ledger_sums_to_the_total(
        jobs in proptest::collection::vec((0u64..50_000, 1u32..9, 60u64..20_000, 0u32..3), 0..40),
        kinds in proptest::collection::vec(0u8..5, 1..4),
        price in 1.0f64..100.0,
    ) {
        let mut js: Vec<_> = jobs
            .iter()
            .map(|&(s, g, d, t)| {
                let mut j = job(s, g, d);
                j.tenant = t;
                j
            })
            .collect();
        js.sort_by_key(|j| j.submit);
        let mut w = workload(js);
        w.tenants = vec!["a".into(), "b".into(), "c".into()];
        let pools: Vec<_> = kinds
            .iter()
            .enumerate()
            .map(|(i, _)| {
                let mut p = pool(&format!("p{i}"), 2, 8);
                p.kind = CapacityKind::OnDemand;
                p
            })
            .collect();
        let pricing: Vec<_> = kinds.iter().map(|&k| pricing_of(k, price)).collect();
        let mut cfg = config(pools, PolicyKind::EasyBackfill);
        cfg.horizon = Some(SimTime::from_secs(40_000));
        let r = Simulation::new(cfg, &w).run();
        let cost = run_cost(&r, &pricing, |i| w.jobs[i].tenant);
        let l = &cost.ledger;
        let total = l.total();
        let tol = 1e-6 * (1.0 + total.abs());
        let by_pool: f64 = (0..kinds.len() as u32).map(|p| l.sum_where(|k| k.pool == p)).sum();
        let by_kind: f64 = CostKind::ALL.iter().map(|&c| l.sum_where(|k| k.kind == c)).sum();
        let by_tenant: f64 = [None, Some(0), Some(1), Some(2)]
            .iter()
            .map(|&t| l.sum_where(|k| k.tenant == t))
            .sum();
        prop_assert!((by_pool - total).abs() < tol);
        prop_assert!((by_kind - total).abs() < tol);
        prop_assert!((by_tenant - total).abs() < tol);
        // What jobs are charged is exactly what tenants are charged.
        let jobs_usd: f64 = cost.job_usd.iter().sum();
        prop_assert!((jobs_usd - l.sum_where(|k| k.tenant.is_some())).abs() < tol);
        prop_assert!(l.entries().all(|(_, v)| *v > -tol));
    }
}

// ---- scenarios with prices -----------------------------------------------------------

fn parse(text: &str) -> Result<Scenario, gpufleet::scenario::ScenarioError> {
    Scenario::parse(text, Path::new("test.toml"), &root().join("scenarios"))
}

const WORK: &str = r#"
[workload]
kind = "synthetic"
rate_per_hour = 1.0
jobs = 5
sizes = [{ gpus = 1, weight = 1 }]
duration = { kind = "fixed", value = "1h" }
"#;

#[test]
fn catalog_instance_prices_a_pool_and_explicit_prices_override() {
    let s = parse(&format!(
        r#"name = "c"
horizon = "10h"
[[pools]]
name = "p5"
gpu_type = "H100"
kind = "on_demand"
nodes = 2
gpus_per_node = 8
instance = "aws:p5.48xlarge"
region = "us-east-1"
[[pools]]
name = "mine"
gpu_type = "H100"
kind = "on_demand"
nodes = 1
gpus_per_node = 8
instance = "aws:p5.48xlarge"
region = "us-east-1"
price_per_node_hour = 50.0
{WORK}"#
    ))
    .unwrap();
    let w = s.build_workload(1).unwrap();
    let r = Simulation::new(s.sim.clone(), &w).run();
    let cost = run_cost(&r, &s.pool_pricing(1), |_| 0);
    // aws_gpu_instances.csv: p5.48xlarge us-east-1 = $98.32/h; 2 nodes x 10 h = $1966.40.
    assert!(close(
        cost.ledger.sum_where(|k| k.pool == 0),
        1_966.40,
        1e-9
    ));
    assert!(close(cost.ledger.sum_where(|k| k.pool == 1), 500.0, 1e-9));
}

#[test]
fn a_reservation_ending_mid_run_falls_back_to_on_demand() {
    // Term of 365 d began 350 d before: 15 d (360 h) of a 30-day run are committed at
    // 41 % off $32.7726 (p4d.24xlarge us-east-1), the other 360 h cost on-demand.
    let s = parse(&format!(
        r#"name = "r"
horizon = "30d"
[[pools]]
name = "res"
gpu_type = "A100"
kind = "reserved"
nodes = 4
gpus_per_node = 8
instance = "aws:p4d.24xlarge"
region = "us-east-1"
[pools.pricing]
kind = "reserved"
term = "365d"
term_started = "350d"
discount = 0.41
{WORK}"#
    ))
    .unwrap();
    let w = s.build_workload(1).unwrap();
    let r = Simulation::new(s.sim.clone(), &w).run();
    let cost = run_cost(&r, &s.pool_pricing(1), |_| 0);
    let want = 4.0 * 360.0 * 32.7726 * 0.59 + 4.0 * 360.0 * 32.7726;
    assert!(close(cost.ledger.total(), want, 1e-9));
    // The committed part is either used (busy) or unused commitment.
    let committed = cost
        .ledger
        .sum_where(|k| k.kind == CostKind::UnusedCommitment)
        + cost.ledger.sum_where(|k| k.kind == CostKind::BusyCompute);
    assert!(committed > 0.0 && committed < want);
}

#[test]
fn savings_plan_over_a_run_by_hand() {
    // One on-demand pool of 2 nodes at $10/h for 10 h: $20/h of usage at list price.
    let text = |c: f64| {
        format!(
            r#"name = "sp"
horizon = "10h"
[[pools]]
name = "od"
gpu_type = "H100"
kind = "on_demand"
nodes = 2
gpus_per_node = 8
price_per_node_hour = 10.0
[savings_plan]
commitment_per_hour = {c}
discount = 0.5
{WORK}"#
        )
    };
    for (c, total, unused) in [
        // C = $6/h covers $12/h: 6 + (20 - 12) = $14/h -> $140, nothing unused.
        (6.0, 140.0, 0.0),
        // C = $15/h covers $30/h: $15/h -> $150, a third unused: $5/h -> $50.
        (15.0, 150.0, 50.0),
    ] {
        let s = parse(&text(c)).unwrap();
        let w = s.build_workload(1).unwrap();
        let r = Simulation::new(s.sim.clone(), &w).run();
        let pricing = s.pool_pricing(1);
        let mut cost = run_cost(&r, &pricing, |_| 0);
        assert!(close(cost.ledger.total(), 200.0, 1e-9));
        gpufleet::metrics::apply_savings_plan(&mut cost, &r, &pricing, &s.savings_plan.unwrap());
        assert!(close(cost.ledger.total(), total, 1e-9), "C = {c}");
        let u = cost
            .ledger
            .sum_where(|k| k.kind == CostKind::UnusedCommitment);
        assert!((u - unused).abs() < 1e-9, "C = {c}: unused {u}");
    }
}

#[test]
fn transfer_is_priced_by_monthly_tier_and_booked_to_jobs() {
    // 5 one-hour jobs complete within the first month, 50 GB of egress and 10 GB cross-zone
    // each. Egress: 250 GB in the month, 100 free, 150 x $0.09 = $13.50; cross-zone
    // 5 x 10 x $0.01 = $0.50. The first two jobs' egress falls in the free 100 GB.
    let s = parse(&format!(
        r#"name = "t"
[[pools]]
name = "od"
gpu_type = "H100"
kind = "on_demand"
nodes = 1
gpus_per_node = 8
price_per_node_hour = 0.0
[transfer]
egress_gb_per_job = 50
cross_zone_gb_per_job = 10
{WORK}"#
    ))
    .unwrap();
    let w = s.build_workload(1).unwrap();
    let r = Simulation::new(s.sim.clone(), &w).run();
    let mut cost = run_cost(&r, &s.pool_pricing(1), |_| 0);
    gpufleet::metrics::apply_transfer(&mut cost, &r, s.transfer.as_ref().unwrap(), |_| 0);
    let t = cost.ledger.sum_where(|k| k.kind == CostKind::Transfer);
    assert!(close(t, 14.0, 1e-9), "{t}");
    let mut per_job = cost.job_usd.clone();
    per_job.sort_by(f64::total_cmp);
    let want = [0.1, 0.1, 4.6, 4.6, 4.6];
    for (a, b) in per_job.iter().zip(want) {
        assert!(close(*a, b, 1e-9), "{per_job:?}");
    }
}

#[test]
fn bad_pricing_input_is_reported_with_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.toml");
    std::fs::write(
        &f,
        format!(
            r#"name = "bad"
horizon = "1d"
[[pools]]
name = "x"
gpu_type = "H100"
kind = "on_demand"
nodes = 1
gpus_per_node = 8
instance = "aws:p9.huge"
region = "us-east-1"
[[pools]]
name = "y"
gpu_type = "H100"
kind = "on_demand"
nodes = 1
gpus_per_node = 8
price_per_node_hour = 3.0
[pools.pricing]
kind = "on_demand"
billing = "per_fortnight"
[[pools]]
name = "z"
gpu_type = "H100"
kind = "reserved"
nodes = 1
gpus_per_node = 8
price_per_node_hour = 3.0
[pools.pricing]
kind = "capacity_block"
duration = "15d"
{WORK}"#
        ),
    )
    .unwrap();
    let out = bin()
        .arg("validate")
        .arg(&f)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    for want in [
        "pools[0].instance",
        "aws:p9.huge",
        "pools[1].pricing.billing",
        "per_fortnight",
        "pools[2].pricing.duration",
        "multiple of 7",
    ] {
        assert!(err.contains(want), "stderr lacks {want:?}:\n{err}");
    }
}

#[test]
fn shipped_economics_scenarios_run_with_their_ledgers() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    bin()
        .args(["run", "-q"])
        .arg(root().join("scenarios/reserved-vs-on-demand.toml"))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let pools = std::fs::read_to_string(out.join("pools.csv")).unwrap();
    let mut rdr = csv::Reader::from_reader(pools.as_bytes());
    let h = rdr.headers().unwrap().clone();
    let col = |r: &csv::StringRecord, name: &str| -> f64 {
        r[h.iter().position(|c| c == name).unwrap()]
            .parse()
            .unwrap()
    };
    let rows: Vec<_> = rdr.records().map(|r| r.unwrap()).collect();
    // Reserved: 4 nodes x 720 h x 32.7726 x (1 - 0.41) = $55,687.20, used or not.
    assert!(close(col(&rows[0], "cost_usd"), 55_687.20, 1e-6));
    for r in &rows {
        let kinds = [
            "busy_cost_usd",
            "idle_cost_usd",
            "unused_commitment_usd",
            "spot_usd",
            "capital_usd",
            "power_usd",
            "facility_usd",
            "staff_usd",
            "transfer_usd",
        ];
        let sum: f64 = kinds.iter().map(|k| col(r, k)).sum();
        assert!((sum - col(r, "cost_usd")).abs() < 0.05);
    }

    let sd = dir.path().join("sd");
    bin()
        .args(["run", "-q"])
        .arg(root().join("scenarios/spot-deadline-v100.toml"))
        .arg("--out")
        .arg(&sd)
        .assert()
        .success();
    let csv_text = std::fs::read_to_string(sd.join("spot_deadline.csv")).unwrap();
    let n = csv_text.lines().count();
    assert_eq!(n, 1 + 8 * 4, "8 starts x 4 policies");
    assert!(
        !csv_text.contains(",false,"),
        "a policy missed its deadline"
    );
}

#[test]
fn tco_break_even_matches_the_formula() {
    // ECONOMICS.md: u* = (annual capital + fixed opex) / (GPUs x 8760 x (p - variable)).
    // One owned node of 8 GPUs, no price decline: capital $87,600/yr, colocation 100 x 10
    // x 12 = $12,000/yr, staff $87,600/yr, idle power 2 x 1.5 x 0.1 x 8760 = $2,628/yr:
    // fixed $189,828. Variable: 8 kW x 1.5 x $0.10 = $1.20 per node-hour = $0.15 per
    // GPU-hour. On demand $40/node-hour = $5 per GPU-hour.
    // u* = 189,828 / (8 x 8760 x (5 - 0.15)) = 0.558514...
    let spec = TcoSpec {
        horizon_years: 1.0,
        discount_rate: 0.0,
        price_decline_per_year: 0.0,
        demand: vec![],
        on_demand_per_node_hour: 40.0,
        spot_per_node_hour: 12.0,
        gpus_per_node: 8,
        owned: simple_owned(),
        reserved_discount_1y: 0.41,
        reserved_discount_3y: 0.64,
        candidates: vec![TcoCandidate::Buy { nodes: 1 }],
    };
    let want = 189_828.0 / (8.0 * 8760.0 * (5.0 - 0.15));
    let got = spec.break_even(&TcoCandidate::Buy { nodes: 1 }).unwrap();
    assert!((got - want).abs() < 1e-6, "{got} vs {want}");
    // A 1-year reservation breaks even at 1 - discount.
    let r = spec
        .break_even(&TcoCandidate::Reserve { years: 1, nodes: 1 })
        .unwrap();
    assert!((r - 0.59).abs() < 1e-6, "{r}");
    // Renting falls 20 %/year: year 2 costs 0.8 of year 1 for on-demand use.
    let path = TcoSpec {
        horizon_years: 2.0,
        price_decline_per_year: 0.2,
        ..spec
    };
    let od = TcoCandidate::OnDemand { nodes: 1 };
    let (y0, _) = path.year_cost(&od, 0.0, 1.0, 1.0);
    let (y1, _) = path.year_cost(&od, 1.0, 1.0, 1.0);
    assert!(close(y0, 40.0 * 8760.0, 1e-12) && close(y1, 0.8 * 40.0 * 8760.0, 1e-12));
}

#[test]
fn tco_command_writes_table_csv_and_chart() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .arg("tco")
        .arg(root().join("scenarios/buy-vs-rent-h100.toml"))
        .arg("--simulate")
        .arg("--out")
        .arg(dir.path())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    for want in [
        "break-even",
        "buy 4",
        "hybrid 4+2",
        "representative period",
        "wait p95",
    ] {
        assert!(text.contains(want), "tco output lacks {want:?}:\n{text}");
    }
    let csv_text = std::fs::read_to_string(dir.path().join("tco.csv")).unwrap();
    assert_eq!(
        csv_text
            .lines()
            .filter(|l| l.starts_with("analytic,"))
            .count(),
        7
    );
    assert_eq!(
        csv_text
            .lines()
            .filter(|l| l.starts_with("simulated,"))
            .count(),
        7
    );
    let svg = std::fs::read_to_string(dir.path().join("tco.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("break-even"));
    // A scenario without [tco] is bad input.
    bin()
        .arg("tco")
        .arg(root().join("scenarios/quickstart.toml"))
        .assert()
        .code(2);
}
