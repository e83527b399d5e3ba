//! Pricing models by hand: billing, commitments, ownership, transfer, and the ledger.

use super::*;
use gpufleet::engine::SimTime;
use gpufleet::metrics::run_cost;
use gpufleet::model::CapacityKind;
use gpufleet::pricing::*;
use gpufleet::sched::PolicyKind;
use gpufleet::sim::Simulation;
use proptest::prelude::*;

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
    let sp = SavingsPlan::new(10.0, 0.5);
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
    let cost = run_cost(&r, &[PoolPricing::Owned(simple_owned())]);
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
    let e = egress("aws").unwrap();
    assert_eq!(e.internet_cost(50.0), 0.0);
    // 200 GB: 100 free, 100 x $0.09 = $9.
    assert!(close(e.internet_cost(200.0), 9.0, 1e-12));
    // 20,000 GB: (10,240 - 100) x 0.09 + (20,000 - 10,240) x 0.085 = 912.6 + 829.6.
    assert!(close(e.internet_cost(20_000.0), 1_742.2, 1e-12));
    assert!(close(e.cross_zone_cost(300.0), 3.0, 1e-12));
    // 100 GB at 10 Gbit/s = 800 Gbit / 10 = 80 s.
    assert!(close(transfer_seconds(100.0, 10.0), 80.0, 1e-12));
}

// ---- the ledger ------------------------------------------------------------------------

fn pricing_of(k: u8, price: f64) -> PoolPricing {
    match k % 5 {
        0 => PoolPricing::flat(price),
        1 => PoolPricing::OnDemand(OnDemand {
            usd_per_node_hour: price,
            billing: Billing::PER_STARTED_HOUR,
        }),
        2 => PoolPricing::Reserved(Reserved::new(
            Reservation {
                nodes: 2,
                term_start_h: -10.0,
                term_h: 40.0,
                upfront_per_node: 100.0,
                recurring_per_node_hour: price / 2.0,
            },
            price,
        )),
        3 => PoolPricing::Spot(Spot::new(
            SpotPrice::Constant(price / 3.0),
            SpotBilling::default(),
        )),
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
        plan in proptest::option::of((0.0f64..200.0, 0.0f64..0.7)),
        egress_gb in 0.0f64..500.0,
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
        let mut cost = run_cost(&r, &pricing);
        let before = cost.ledger.total();
        let od_list: f64 = pricing
            .iter()
            .map(|p| match p {
                PoolPricing::OnDemand(o) => 2.0 * o.usd_per_node_hour,
                _ => 0.0,
            })
            .sum();
        if let Some((c, d)) = plan {
            let sp = SavingsPlan::new(c, d);
            let od_before: f64 = cost.ledger.sum_where(|k| {
                matches!(pricing[k.pool as usize], PoolPricing::OnDemand(_))
            });
            let mut rp = RunPricing::new(pricing.clone(), egress("aws").unwrap());
            rp.savings_plan = Some(sp);
            cost = gpufleet::metrics::price_run(&r, &rp, |i| w.jobs[i].tenant);
            // Fixed pools: usage D = sum of nodes x rate every hour, so the on-demand part
            // becomes hours x (C + max(0, D - C / (1 - d))) (ECONOMICS.md), with C landing on
            // the first pool when there is no on-demand pool.
            let hours = r.end.hours_f64();
            let want = before - od_before + hours * (c + (od_list - c / (1.0 - d)).max(0.0));
            let t = cost.ledger.total();
            prop_assert!((t - want).abs() < 1e-6 * (1.0 + want), "{t} vs {want}");
        }
        let spec = TransferSpec {
            egress: egress("aws").unwrap(),
            egress_gb_per_job: egress_gb,
            cross_zone_gb_per_job: 1.0,
        };
        gpufleet::metrics::apply_transfer(&mut cost, &r, &spec, |i| w.jobs[i].tenant);
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

#[test]
fn reported_held_intervals_are_billed_from_request_to_release() {
    // A pool that held 2 nodes from 0 (ready after 5 min of provisioning) to 65 min, and 1
    // node from 2 h for 10 s: per-second billing with a 60 s minimum at $36/node-hour =
    // 2 x 65 min ($78) + 60 s ($0.60) = $78.60, whatever the run's length.
    let end = SimTime::from_hours_f64(10.0);
    let iv = |req: u64, ready: u64, rel: u64, nodes: u32| HeldInterval {
        requested: SimTime(req),
        ready: SimTime(ready),
        released: SimTime(rel),
        nodes,
        interrupted_by_provider: false,
    };
    let mut held = vec![
        iv(0, 300_000, 3_900_000, 2),
        iv(7_200_000, 7_200_000, 7_210_000, 1),
    ];
    let od = PoolPricing::OnDemand(OnDemand {
        usd_per_node_hour: 36.0,
        billing: Billing::PER_SECOND_60S_MIN,
    });
    let total = |m: &PoolPricing, h: &[HeldInterval]| -> f64 {
        let usage = UsageRecord {
            end,
            kind: CapacityKind::OnDemand,
            nodes: 3,
            gpus_per_node: 8,
            held: h.to_vec(),
            provisioned_gpu_ms: 0,
            busy_gpu_ms: 0,
            down_node_ms: None,
            busy_by_period: Vec::new(),
            by_tenant: Vec::new(),
            by_job: Vec::new(),
        };
        m.bill(&usage).charges.iter().map(|c| c.usd).sum()
    };
    assert!((total(&od, &held) - 78.60).abs() < 1e-9);
    // The same grants on spot at $12/h, the first one interrupted by the provider after
    // 65 min (past the free first hour: paid, 2 x 65/60 x 12 = $26) and the second after
    // 10 s (free under the AWS rule).
    held[0].interrupted_by_provider = true;
    held[1].interrupted_by_provider = true;
    let spot = PoolPricing::Spot(Spot::new(SpotPrice::Constant(12.0), SpotBilling::default()));
    assert!((total(&spot, &held) - 26.0).abs() < 1e-9);
}
