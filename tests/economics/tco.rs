//! `gpufleet tco` by hand: break-even on NPV (ECONOMICS.md's formula, discounted), lead
//! time counted once, the per-year cash flow by component, spot as a discount on the
//! interruptible share, the command's files, and `--simulate` on the same demand.

use super::*;
use gpufleet::pricing::{TcoCandidate, TcoSpec};
use gpufleet::scenario::Scenario;

/// One 8-GPU node of `simple_owned()` against $40/node-hour on demand, one year, no
/// discounting, no price decline.
fn simple_spec() -> TcoSpec {
    TcoSpec {
        horizon_years: 1.0,
        discount_rate: 0.0,
        price_decline_per_year: 0.0,
        demand: vec![],
        on_demand_per_node_hour: 40.0,
        spot_per_node_hour: 12.0,
        spot_availability: 1.0,
        spot_trace: None,
        gpus_per_node: 8,
        owned: simple_owned(),
        reserved_discount_1y: 0.41,
        reserved_discount_3y: 0.64,
        candidates: vec![TcoCandidate::Buy { nodes: 1 }],
    }
}

const BUY1: TcoCandidate = TcoCandidate::Buy { nodes: 1 };

#[test]
fn break_even_on_npv_by_hand() {
    // ECONOMICS.md: u* = (annual capital + fixed opex) / (GPUs x 8760 x (p - variable)).
    // One owned node of 8 GPUs: capital $87,600/yr (capex 87,600 over 1 year, no
    // interest, no residual), colocation 100 x 10 kW x 12 = $12,000/yr, staff $87,600/yr,
    // idle power 2 kW x 1.5 x $0.10 x 8760 = $2,628/yr: fixed F = $189,828. Variable:
    // 8 kW x 1.5 x $0.10 = $1.20 per node-hour = $0.15 per GPU-hour. On demand $40 per
    // node-hour = $5 per GPU-hour. Over one year, undiscounted:
    // u* = 189,828 / (8 x 8760 x (5 - 0.15)) = 0.5585016.
    let spec = simple_spec();
    let got = spec.break_even(&BUY1).unwrap();
    assert!((got - 0.558_501_6).abs() < 1e-6, "{got}");
    // The textbook variant at the year-0 price is the same here.
    let y0 = spec.break_even_year0_price(&BUY1).unwrap();
    assert!((y0 - 0.558_501_6).abs() < 1e-6, "{y0}");
    // On NPV over 2 years, rental prices falling 20 %/year, discounted at 10 %/year at
    // each year's end (D0 = 1/1.1, D1 = 1/1.21): the fixed cost is the same each year,
    // the margin falls to $4 - 0.15 per GPU-hour in year 2:
    // u* = F (D0 + D1) / (8 x 8760 x (4.85 D0 + 3.85 D1)) = 329,452.8 / 531,970.9
    //    = 0.6193075 (the year-0 formula still says 0.5585).
    let two = TcoSpec {
        horizon_years: 2.0,
        price_decline_per_year: 0.2,
        discount_rate: 0.1,
        ..simple_spec()
    };
    let got = two.break_even(&BUY1).unwrap();
    assert!((got - 0.619_307_5).abs() < 1e-6, "{got}");
    // A reservation is paid whether used or not: at no price decline it breaks even at
    // 1 - discount, on NPV as in the formula.
    let r = spec
        .break_even(&TcoCandidate::Reserve { years: 1, nodes: 1 })
        .unwrap();
    assert!((r - 0.59).abs() < 1e-6, "{r}");
    // On-demand and spot have no fixed cost to break even on.
    assert_eq!(spec.break_even(&TcoCandidate::OnDemand { nodes: 1 }), None);
    let spot = TcoCandidate::Spot {
        nodes: 1,
        share: 0.5,
    };
    assert_eq!(spec.break_even(&spot), None);
}

#[test]
fn break_even_on_npv_for_the_readme_h100_case() {
    // scenarios/buy-vs-rent-h100.toml, "buy 4": 4 nodes x 8 H100 at $400,000, residual
    // $40,000 after 5 years, 13 % cost of capital, 3 / 10.2 kW idle / full, PUE 1.4,
    // $0.0771/kWh, colocation $124/kW-month, maintenance 3 %/year, staff $60,000/year,
    // 90 days' lead time; on demand $98.32/node-hour falling 20 %/year; 8 % discount rate;
    // 5 years.
    // Per node-year (ECONOMICS.md): capital (400,000 - 40,000 x 1.13^-5) x 0.13 /
    //   (1 - 1.13^-5) = $107,553.24; idle power 3 x 1.4 x 0.0771 x 8760 = $2,836.63;
    //   colocation 124 x 10.2 x 12 = $15,177.60; maintenance $12,000.
    //   Fixed for 4 nodes F = 4 x 137,567.47 + 60,000 = $610,270.00 a year.
    // Variable at full load V = 4 x 8760 x 7.2 x 1.4 x 0.0771 = $27,231.97 a year.
    // Ownership starts on arrival: year 1 owned for f0 = 1 - 90/365 = 0.753425, the
    // others whole. Lead-time cover rents the same use on demand, so it cancels against
    // renting on demand; the break-even on NPV is
    //   u* = sum D_y f_y F / sum D_y f_y (8760 x 4 x p_y - V),
    //   p_y = 98.32 x 0.8^y, D_y = 1.08^-(y+1):
    //   = 0.2649405.
    // At the year-0 price without lead time (the textbook variant):
    //   F / (32 x 8760 x (12.29 - 0.09714)) = 0.1785511.
    let s = Scenario::load(&root().join("scenarios/buy-vs-rent-h100.toml")).unwrap();
    let spec = s.tco.unwrap();
    let buy4 = TcoCandidate::Buy { nodes: 4 };
    let got = spec.break_even(&buy4).unwrap();
    assert!((got - 0.264_940_5).abs() < 1e-6, "{got}");
    let y0 = spec.break_even_year0_price(&buy4).unwrap();
    assert!((y0 - 0.178_551_1).abs() < 1e-6, "{y0}");
}

#[test]
fn lead_time_is_counted_once_and_the_cash_flow_adds_up() {
    // The simple node with a 73-day (0.2-year) lead time, demand of the whole node, one
    // year: owned for 0.8 of the year, rented on demand for the first 0.2.
    //   capex 0.8 x 87,600 = 70,080 (no residual, no interest: straight line)
    //   power 0.8 x 8760 x 10 kW x 1.5 x 0.10 = 10,512 (full load)
    //   colocation 0.8 x 12,000 = 9,600; staff 0.8 x 87,600 = 70,080
    //   lead-time cover 0.2 x 8760 x $40 = 70,080
    //   total 230,352 (charging a whole year of ownership plus the cover would add
    //   0.2 x (87,600 + 13,140 + 12,000 + 87,600) = 40,068).
    let mut spec = simple_spec();
    spec.owned.lead_time_days = 73.0;
    let y = spec.cash_flow(&BUY1, &[(1.0, 1.0)]);
    assert_eq!(y.len(), 1);
    let y = y[0];
    let near = |a: f64, b: f64| (a - b).abs() < 1e-6;
    assert!(near(y.capex, 70_080.0) && near(y.residual, 0.0), "{y:?}");
    assert!(
        near(y.power, 10_512.0) && near(y.colocation, 9_600.0),
        "{y:?}"
    );
    assert!(near(y.staff, 70_080.0) && near(y.maintenance, 0.0), "{y:?}");
    assert!(near(y.lead_time_cover, 70_080.0) && near(y.on_demand, 70_080.0));
    assert!(near(y.total(), 230_352.0), "{}", y.total());
    // With a residual and a cost of capital, capex and residual are the two parts of the
    // annuity: capex 100,000 at 10 % over 2 years recovers 100,000 x 0.1 / (1 - 1.1^-2)
    // = 57,619.05 a year; a 20,000 residual credits 20,000 x 0.1 x 1.1^-2 / (1 - 1.1^-2)
    // = 9,523.81 a year; together the ECONOMICS.md annuity (100,000 - 20,000 x 1.1^-2) x
    // 0.1 / (1 - 1.1^-2) = 48,095.24.
    spec.owned.lead_time_days = 0.0;
    spec.owned.capex_per_node = 100_000.0;
    spec.owned.residual_per_node = 20_000.0;
    spec.owned.cost_of_capital = 0.1;
    spec.owned.life_years = 2.0;
    let y = spec.cash_flow(&BUY1, &[(0.0, 1.0)])[0];
    assert!((y.capex - 57_619.05).abs() < 0.01, "{}", y.capex);
    assert!((y.residual + 9_523.81).abs() < 0.01, "{}", y.residual);
    assert!((y.maintenance).abs() < 1e-9);
}

#[test]
fn rental_price_path_and_spot_share() {
    // Renting falls 20 %/year: year 2 costs 0.8 of year 1 for the same use.
    let spec = TcoSpec {
        horizon_years: 2.0,
        price_decline_per_year: 0.2,
        spot_availability: 0.5,
        ..simple_spec()
    };
    let od = TcoCandidate::OnDemand { nodes: 1 };
    let y = spec.cash_flow(&od, &[(1.0, 1.0)]);
    assert!(close(y[0].on_demand, 40.0 * 8760.0, 1e-12));
    assert!(close(y[1].on_demand, 0.8 * 40.0 * 8760.0, 1e-12));
    // A 60 % interruptible share with spot there half the time: 30 % of the use at $12,
    // 70 % at $40 = $31.60 per node-hour in year 1.
    let spot = TcoCandidate::Spot {
        nodes: 1,
        share: 0.6,
    };
    let y = spec.cash_flow(&spot, &[(1.0, 1.0)]);
    assert!(close(y[0].spot + y[0].on_demand, 31.6 * 8760.0, 1e-12));
    // Shown as a discount on the interruptible share: 30 % of use at 70 % off.
    let rows = TcoSpec {
        candidates: vec![spot],
        ..spec.clone()
    }
    .analytic(&[(1.0, 1.0)]);
    let (on_spot, disc) = rows[0].spot.unwrap();
    assert!(close(on_spot, 0.3, 1e-12) && close(disc, 0.7, 1e-12));
    // NPV 30 % x 70 % = 21 % below renting it all on demand.
    assert!(close(rows[0].saving_vs_on_demand, 0.21, 1e-9));
    assert_eq!(rows[0].break_even_utilization, None);
}

#[test]
fn tco_command_writes_tables_and_charts() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .arg("tco")
        .arg(root().join("scenarios/buy-vs-rent-h100.toml"))
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
        "26.5%",
        "year-0 price",
        "no break-even (spot has no fixed cost",
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
    // tco_years.csv: 7 candidates x 5 years; each row's parts add up to its total.
    let years = std::fs::read_to_string(dir.path().join("tco_years.csv")).unwrap();
    let mut rdr = csv::Reader::from_reader(years.as_bytes());
    let h = rdr.headers().unwrap().clone();
    let col = |r: &csv::StringRecord, n: &str| -> f64 {
        r[h.iter().position(|c| c == n).unwrap()].parse().unwrap()
    };
    let rows: Vec<_> = rdr.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 35);
    for r in &rows {
        let parts: f64 = [
            "capex_usd",
            "residual_usd",
            "power_usd",
            "colocation_usd",
            "staff_usd",
            "maintenance_usd",
            "on_demand_usd",
            "reserved_usd",
            "spot_usd",
        ]
        .iter()
        .map(|n| col(r, n))
        .sum();
        assert!((parts - col(r, "total_usd")).abs() < 0.01);
    }
    for chart in ["tco.svg", "tco.png", "tco_years.svg", "tco_years.png"] {
        assert!(dir.path().join(chart).is_file(), "{chart} missing");
    }
    let svg = std::fs::read_to_string(dir.path().join("tco.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("break-even"));
    // A scenario without [tco] is bad input.
    bin()
        .arg("tco")
        .arg(root().join("scenarios/quickstart.toml"))
        .assert()
        .code(2);
}

#[test]
fn simulated_on_demand_equals_the_analytic_figure_to_the_cent() {
    // A constant full demand of 2 nodes x 8 GPUs, replayed over 2 days: the on-demand
    // candidate rents both nodes for the whole period, billed per second, and its cost
    // scaled to 3 years (prices falling 20 %/year) equals the analytic path's
    // 2 x 8760 x $98.32 x (1 + 0.8 + 0.64) = $4,203,062.02 to the cent; likewise its NPV.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("full.toml");
    std::fs::write(
        &f,
        r#"name = "full-demand"
horizon = "2d"
[[pools]]
name = "p5"
gpu_type = "H100"
kind = "on_demand"
nodes = 2
gpus_per_node = 8
price_per_node_hour = 98.32
[workload]
kind = "synthetic"
rate_per_hour = 1.0
jobs = 5
sizes = [{ gpus = 1, weight = 1 }]
duration = { kind = "fixed", value = "1h" }
[tco]
horizon_years = 3
discount_rate = 0.08
price_decline_per_year = 0.2
on_demand_per_node_hour = 98.32
gpus_per_node = 8
spot_availability = 0.5
demand = [{ gpus = 16, share = 1.0 }]
candidates = [
  { kind = "on_demand", nodes = 2 },
  { kind = "buy", nodes = 2 },
  { kind = "spot", nodes = 2, spot_share = 0.5 },
  { kind = "hybrid", owned_nodes = 1, burst_nodes = 1 },
]
[tco.owned]
capex_per_node = 400000
life_years = 5
"#,
    )
    .unwrap();
    let out = dir.path().join("out");
    let stdout = bin()
        .arg("tco")
        .arg(&f)
        .arg("--simulate")
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(stdout).unwrap();
    assert!(text.contains("replayed over 2.0 days"), "{text}");
    let csv_text = std::fs::read_to_string(out.join("tco.csv")).unwrap();
    let mut rdr = csv::Reader::from_reader(csv_text.as_bytes());
    let h = rdr.headers().unwrap().clone();
    let rows: Vec<_> = rdr.records().map(|r| r.unwrap()).collect();
    let get = |path: &str, cand: &str, col: &str| -> f64 {
        let r = rows
            .iter()
            .find(|r| &r[0] == path && &r[1] == cand)
            .unwrap();
        r[h.iter().position(|c| c == col).unwrap()].parse().unwrap()
    };
    let want: f64 = 2.0 * 8760.0 * 98.32 * (1.0 + 0.8 + 0.64);
    assert!((want - 4_203_062.016).abs() < 1e-3);
    let analytic = get("analytic", "on-demand 2", "total_usd");
    let simulated = get("simulated", "on-demand 2", "total_usd");
    assert!((analytic - want).abs() < 0.005, "{analytic}");
    assert!(
        (simulated - analytic).abs() < 0.005,
        "{simulated} vs {analytic}"
    );
    let npv = |p| get(p, "on-demand 2", "npv_usd");
    assert!((npv("simulated") - npv("analytic")).abs() < 0.005);
    assert_eq!(get("simulated", "on-demand 2", "unserved_share"), 0.0);
    // Owned hardware from its arrival (no lead time here) costs the same per hour in
    // both paths at full use: the simulated owned pool bills the same annuity, power and
    // facility (to a cent per million).
    let a = get("analytic", "buy 2", "total_usd");
    let s = get("simulated", "buy 2", "total_usd");
    assert!((a - s).abs() < 1e-6 * a, "{s} vs {a}");
}

#[test]
fn simulated_rentals_follow_the_scenario_pools_billing_rules() {
    // Demand of 2 nodes x 8 GPUs for the first 30 % of each day (7 h 12 min), none the
    // rest, replayed over 2 days on "on_demand 2" at $98.32/node-hour. Billed per second
    // (the pool's default) the nodes cost 2 x 2 days x 7.2 h x 98.32 = $2,831.62; with
    // the scenario's pool billed per started hour each day's hold rounds up to 8 h:
    // 2 x 2 x 8 x 98.32 = $3,146.24.
    let run = |billing: &str| -> f64 {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("s.toml");
        std::fs::write(
            &f,
            format!(
                r#"name = "billing-rules"
horizon = "2d"
[[pools]]
name = "p5"
gpu_type = "H100"
kind = "on_demand"
nodes = 2
gpus_per_node = 8
price_per_node_hour = 98.32
[pools.pricing]
kind = "on_demand"
billing = "{billing}"
[workload]
kind = "synthetic"
rate_per_hour = 1.0
jobs = 5
sizes = [{{ gpus = 1, weight = 1 }}]
duration = {{ kind = "fixed", value = "1h" }}
[tco]
horizon_years = 1
on_demand_per_node_hour = 98.32
gpus_per_node = 8
demand = [{{ gpus = 16, share = 0.3 }}, {{ gpus = 0, share = 0.7 }}]
candidates = [{{ kind = "on_demand", nodes = 2 }}]
[tco.owned]
capex_per_node = 400000
life_years = 5
"#
            ),
        )
        .unwrap();
        let out = dir.path().join("out");
        bin()
            .arg("tco")
            .arg(&f)
            .arg("--simulate")
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
        let text = std::fs::read_to_string(out.join("tco.csv")).unwrap();
        let mut rdr = csv::Reader::from_reader(text.as_bytes());
        let h = rdr.headers().unwrap().clone();
        let col = h.iter().position(|c| c == "period_usd").unwrap();
        let row = rdr
            .records()
            .map(|r| r.unwrap())
            .find(|r| &r[0] == "simulated")
            .unwrap();
        row[col].parse().unwrap()
    };
    let per_second = run("per_second");
    assert!((per_second - 2_831.616).abs() < 0.01, "{per_second}");
    let per_hour = run("per_hour");
    assert!((per_hour - 3_146.24).abs() < 0.01, "{per_hour}");
}
