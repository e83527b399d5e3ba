//! Scenarios with prices, bad input, and `gpufleet tco`.

use super::*;
use gpufleet::engine::RngStreams;
use gpufleet::metrics::run_cost;
use gpufleet::pricing::*;
use gpufleet::scenario::Scenario;
use gpufleet::sim::Simulation;
use std::path::Path;

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
    let cost = run_cost(&r, &s.pool_pricing(1));
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
    let cost = run_cost(&r, &s.pool_pricing(1));
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
        let cost = run_cost(&r, &pricing);
        assert!(close(cost.ledger.total(), 200.0, 1e-9));
        let cost = gpufleet::metrics::price_run(&r, &s.run_pricing(&RngStreams::new(1)), |_| 0);
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
    let mut cost = run_cost(&r, &s.pool_pricing(1));
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
fn buy_vs_rent_owned_pool_costs_by_hand() {
    // scenarios/buy-vs-rent-h100.toml, owned pool: 4 nodes for 14 days = 1344 node-hours.
    // Capital: (400,000 - 40,000 x 1.13^-5) x 0.13 / (1 - 1.13^-5) = $107,553.24 a year
    //   (python), / 8760 x 1344 = $16,501.32.
    // Facility: (124 $/kW-month x 10.2 kW / 730 h + 3 % x 400,000 / 8760 h) x 1344 = $4,169.71.
    // Staff: 60,000 / 8760 x 336 h = $2,301.37.
    // Power: (3 + 7.2 x utilization) kW x 1.4 x $0.0771 x 1344, at the pool's utilization.
    let dir = tempfile::tempdir().unwrap();
    bin()
        .args(["run", "-q"])
        .arg(root().join("scenarios/buy-vs-rent-h100.toml"))
        .arg("--out")
        .arg(dir.path())
        .assert()
        .success();
    let text = std::fs::read_to_string(dir.path().join("pools.csv")).unwrap();
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let h = rdr.headers().unwrap().clone();
    let row = rdr.records().next().unwrap().unwrap();
    let col = |name: &str| -> f64 {
        row[h.iter().position(|c| c == name).unwrap()]
            .parse()
            .unwrap()
    };
    assert_eq!(&row[0], "owned-h100");
    assert!((col("capital_usd") - 16_501.32).abs() < 0.01);
    assert!((col("facility_usd") - 4_169.71).abs() < 0.01);
    assert!((col("staff_usd") - 2_301.37).abs() < 0.01);
    let u = col("utilization");
    let power = (3.0 + 7.2 * u) * 1.4 * 0.0771 * 1344.0;
    assert!(
        (col("power_usd") - power).abs() < 0.01,
        "{} vs {power}",
        col("power_usd")
    );
    // No compute kinds for owned hardware; the effective $/GPU-hour is cost / busy hours.
    assert_eq!(col("busy_cost_usd") + col("idle_cost_usd"), 0.0);
    let eff = col("cost_usd") / col("busy_gpu_hours");
    assert!((col("usd_per_busy_gpu_hour") - eff).abs() < 1e-3);
}

#[test]
fn bad_tco_and_deadline_sections_name_their_fields() {
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
kind = "owned"
nodes = 1
gpus_per_node = 8
price_per_node_hour = 10.0
{WORK}
[tco]
horizon_years = 5
on_demand_per_node_hour = 98.0
gpus_per_node = 8
price_decline_per_year = 1.5
candidates = []
[tco.owned]
capex_per_node = 1000
life_years = 0
pue = 0.9
[spot_deadline]
trace = "nowhere.csv"
work = "10h"
deadline = "5h"
on_demand_per_hour = 3.0
spot_per_hour = 1.0
"#
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
        "tco.price_decline_per_year",
        "tco.candidates",
        "tco.owned.life_years",
        "tco.owned.pue",
        "spot_deadline.trace",
        "spot_deadline.deadline",
    ] {
        assert!(err.contains(want), "stderr lacks {want:?}:\n{err}");
    }
}

#[test]
fn spot_node_time_taken_away_is_not_billed() {
    // 4 spot nodes at a constant $2/h for 100 h, the whole pool going away and back (zone
    // model), without the first-hour rule. A node is down from its notice on; its
    // instance is billed until the provider reclaims it, the notice's end (2 min later).
    // Billed: $2 x 4 x (100 h x the share of node-time up, which pools.csv reports from
    // the failure summary as `availability`, + 2 min per outage), the outages counted in
    // summary.json (`node_failures`, one per node).
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("spot.toml");
    std::fs::write(
        &f,
        format!(
            r#"name = "spot-billing"
horizon = "100h"
seed = 9
# The jobs are not preemptible, so none can run on spot: rejected, and said so.
oversized = "reject"
[[pools]]
name = "spot"
gpu_type = "H100"
kind = "spot"
nodes = 4
gpus_per_node = 8
[pools.pricing]
kind = "spot"
price = {{ kind = "constant", value = 2.0 }}
first_hour_free = false
[[spot_interruptions]]
pool = "spot"
model = "zone"
mean_up = "6h"
mean_down = "2h"
{WORK}"#
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    bin()
        .args(["run", "-q"])
        .arg(&f)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let text = std::fs::read_to_string(out.join("pools.csv")).unwrap();
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let h = rdr.headers().unwrap().clone();
    let row = rdr.records().next().unwrap().unwrap();
    let col = |name: &str| -> f64 {
        row[h.iter().position(|c| c == name).unwrap()]
            .parse()
            .unwrap()
    };
    let a = col("availability");
    assert!(a > 0.0 && a < 1.0, "the zone never went away: {a}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let outages = summary["node_failures"]["by_cause"]["spot zone outage"]
        .as_f64()
        .unwrap()
        / 4.0;
    assert!(outages >= 1.0);
    let want = 2.0 * 4.0 * (100.0 * a + outages * 2.0 / 60.0);
    // pools.csv rounds availability to 4 decimals: $800 x 0.00005 = $0.04.
    assert!(
        (col("spot_usd") - want).abs() < 0.05,
        "{} vs {want}",
        col("spot_usd")
    );
}

#[test]
fn checkpoint_moves_are_priced_by_the_scenario_transfer_prices() {
    // The job of `migration_time_and_transfer_cost` (tests/faults.rs) from a scenario file:
    // killed at 70 min in zone a, it restarts in zone b of the same region and moves its
    // 100 GB checkpoint. Without `[transfer]` the catalog's AWS prices apply: 100 GB x
    // $0.01 each way = $2.00. With `[transfer] cross_zone_per_gb = 0.05`: 100 x 0.05 x 2
    // = $10.00 (README: checkpoint moves use the transfer prices).
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("failures.csv"), "time_s,node\n4200,0\n").unwrap();
    let text = |transfer: &str| {
        format!(
            r#"name = "moves"
[[pools]]
name = "a"
gpu_type = "H100"
kind = "on_demand"
nodes = 1
gpus_per_node = 1
price_per_node_hour = 0.0
instance = "aws:p5.48xlarge"
region = "us-east-1"
zone = "us-east-1a"
[[pools]]
name = "b"
gpu_type = "H100"
kind = "on_demand"
nodes = 1
gpus_per_node = 1
price_per_node_hour = 0.0
instance = "aws:p5.48xlarge"
region = "us-east-1"
zone = "us-east-1b"
[failures]
trace = "failures.csv"
[checkpoint]
interval = "30m"
write_time = "2m"
restart_overhead = "5m"
size_gb = 100
transfer_gbps = 10
[workload]
kind = "synthetic"
rate_per_hour = 1.0
jobs = 1
sizes = [{{ gpus = 1, weight = 1 }}]
duration = {{ kind = "fixed", value = "100m" }}
{transfer}
"#
        )
    };
    let transfer_usd = |t: &str| {
        let s = Scenario::parse(&text(t), Path::new("moves.toml"), dir.path()).unwrap();
        let e = gpufleet::run::execute(&s, &gpufleet::engine::RngStreams::new(1)).unwrap();
        assert_eq!(e.result.jobs[0].restarts, 1);
        e.cost.ledger.sum_where(|k| k.kind == CostKind::Transfer)
    };
    let usd = transfer_usd("");
    assert!(close(usd, 2.0, 1e-9), "{usd}");
    let usd = transfer_usd("[transfer]\ncross_zone_per_gb = 0.05");
    assert!(close(usd, 10.0, 1e-9), "{usd}");
}

#[test]
fn pool_choice_compares_the_price_the_ledger_bills() {
    // Per GPU-hour, from each pool's pricing model: a 1-year reservation at 41 % off
    // $32.7726 (p4d.24xlarge us-east-1, 8 GPUs) = 32.7726 x 0.59 / 8 = $2.41698; spot at a
    // constant $6.00 per node-hour = $0.75; a flat $10 per node-hour = $1.25.
    let s = parse(&format!(
        r#"name = "rates"
horizon = "10d"
[[pools]]
name = "res"
gpu_type = "A100"
kind = "reserved"
nodes = 2
gpus_per_node = 8
instance = "aws:p4d.24xlarge"
region = "us-east-1"
[pools.pricing]
kind = "reserved"
term = "365d"
discount = 0.41
[[pools]]
name = "spot"
gpu_type = "A100"
kind = "spot"
nodes = 2
gpus_per_node = 8
[pools.pricing]
kind = "spot"
price = {{ kind = "constant", value = 6.0 }}
[[pools]]
name = "flat"
gpu_type = "A100"
kind = "on_demand"
nodes = 1
gpus_per_node = 8
price_per_node_hour = 10.0
[scheduler]
pool_order = "cheapest"
{WORK}"#
    ))
    .unwrap();
    let want = [32.7726 * 0.59 / 8.0, 0.75, 1.25];
    for (got, want) in s.sim.options.gpu_hour_usd.iter().zip(want) {
        assert!(close(*got, want, 1e-12), "{got} vs {want}");
    }
    assert_eq!(s.sim.options.gpu_hour_usd.len(), 3);
}
