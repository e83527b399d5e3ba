//! Commitments in time, by hand: reservations and capacity blocks that begin and end inside
//! a run (capacity only in their window), renewal, payment options, savings plans with a
//! term, and each commitment's used and unused share (`commitments.csv`).

use super::*;
use gpufleet::engine::RngStreams;
use gpufleet::metrics::{CommitmentUse, RunCost};
use gpufleet::pricing::CostKind;
use gpufleet::run::{execute, Execution};
use gpufleet::scenario::Scenario;
use gpufleet::sim::JobOutcome;
use std::path::Path;

/// Runs scenario text whose trace (generic CSV) is `trace`, through the run path.
fn run_with_trace(text: &str, trace: &str) -> (Scenario, Execution) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("trace.csv"), trace).unwrap();
    let f = dir.path().join("s.toml");
    std::fs::write(&f, text).unwrap();
    let s = Scenario::load(&f).unwrap();
    let e = execute(&s, &RngStreams::new(s.seed)).unwrap();
    (s, e)
}

fn rows(cost: &RunCost, kind: &str) -> Vec<CommitmentUse> {
    cost.commitments
        .iter()
        .filter(|c| c.kind == kind)
        .cloned()
        .collect()
}

const DAY: u64 = 86_400;

fn reservation_day_90(outside: &str) -> String {
    format!(
        r#"name = "r90"
horizon = "730d"
[[pools]]
name = "res"
gpu_type = "H100"
kind = "reserved"
nodes = 2
gpus_per_node = 1
price_per_node_hour = 2.0
[pools.pricing]
kind = "reserved"
term = "365d"
start = "90d"
discount = 0.5
payment = "all_upfront"
{outside}
[workload]
kind = "csv"
path = "trace.csv"
"#
    )
}

#[test]
fn a_one_year_reservation_from_day_90_of_two_years_used_half() {
    // 2 nodes of 1 GPU, a 1-year term from day 90 at 50 % off $2/h, all upfront: the
    // effective price is $1/node-hour (upfront $8,760 per node for 8,760 h). The run
    // spans 2 years and the term lies inside it: owed 2 x 8,760 h x $1 = $17,520, used or
    // not, upfront spread evenly over the term (paying it all upfront does not change the
    // run's bill). One job of 1 GPU keeps one of the two nodes busy: used 50 %, $8,760
    // used and $8,760 unused.
    //
    // With the nodes only in the term (outside_term = "none"), the job (submitted at 0,
    // 800 days of work) waits until day 90, runs to the term's end at day 455, is taken
    // off (checkpointed) and never runs again.
    let job = format!("job_id,submit_s,gpus,duration_s\na,0,1,{}\n", 800 * DAY);
    let (_, e) = run_with_trace(&reservation_day_90("outside_term = \"none\""), &job);
    let r = rows(&e.cost, "reserved");
    assert_eq!(r.len(), 1);
    assert!((r[0].term_h.0 - 90.0 * 24.0).abs() < 1e-9);
    assert!((r[0].term_h.1 - 455.0 * 24.0).abs() < 1e-9);
    assert!((r[0].owed_usd - 17_520.0).abs() < 1e-6, "{}", r[0].owed_usd);
    assert!((r[0].used_usd - 8_760.0).abs() < 1e-6, "{}", r[0].used_usd);
    assert!((r[0].unused_usd() - 8_760.0).abs() < 1e-6);
    let l = &e.cost.ledger;
    assert!((l.total() - 17_520.0).abs() < 1e-6, "{}", l.total());
    assert!((l.sum_where(|k| k.kind == CostKind::UnusedCommitment) - 8_760.0).abs() < 1e-6);
    assert!((l.sum_where(|k| k.tenant == Some(0)) - 8_760.0).abs() < 1e-6);
    let job = &e.result.jobs[0];
    assert_eq!(job.start.map(|t| t.secs_f64()), Some((90 * DAY) as f64));
    assert_eq!(job.outcome, JobOutcome::Unfinished);
    assert_eq!(job.restarts, 1);
    assert_eq!(job.held.secs_f64(), (365 * DAY) as f64);
    // Capacity exists only in the window: 2 GPUs x 365 days provisioned.
    assert_eq!(
        e.result.pools[0].provisioned_gpu_ms,
        2 * 365 * DAY as u128 * 1000
    );

    // With the nodes rented on demand outside the term (the default), the job runs from
    // day 0 to the end: the term is used 50 % as before, and the 365 days outside it cost
    // 2 nodes x 8,760 h x $2 = $35,040, of which the busy half ($17,520) is the job's.
    let (_, e) = run_with_trace(&reservation_day_90(""), &job_csv(800));
    let r = rows(&e.cost, "reserved");
    assert!((r[0].owed_usd - 17_520.0).abs() < 1e-6);
    assert!((r[0].used_usd - 8_760.0).abs() < 1e-6, "{}", r[0].used_usd);
    let l = &e.cost.ledger;
    assert!(
        (l.total() - 17_520.0 - 35_040.0).abs() < 1e-6,
        "{}",
        l.total()
    );
    assert!((l.sum_where(|k| k.kind == CostKind::IdleCompute) - 17_520.0).abs() < 1e-6);
    assert!((e.cost.job_usd[0] - 8_760.0 - 17_520.0).abs() < 1e-6);
}

fn job_csv(days: u64) -> String {
    format!("job_id,submit_s,gpus,duration_s\na,0,1,{}\n", days * DAY)
}

#[test]
fn a_renewed_reservation_bills_each_term_inside_the_run() {
    // A 100-hour term from the run's start, renewed, at $3/node-hour on 1 node, over a
    // 250-hour run: terms [0, 100), [100, 200), [200, 300), the last 50 h inside the run:
    // owed $300, $300, $150. The job (1 GPU, 120 h) uses all of the first term, 20 h of
    // the second and nothing of the third.
    let text = r#"name = "renew"
horizon = "250h"
[[pools]]
name = "res"
gpu_type = "H100"
kind = "reserved"
nodes = 1
gpus_per_node = 1
price_per_node_hour = 5.0
[pools.pricing]
kind = "reserved"
term = "100h"
recurring_per_node_hour = 3.0
renew = true
outside_term = "none"
[workload]
kind = "csv"
path = "trace.csv"
"#;
    let (_, e) = run_with_trace(text, "job_id,submit_s,gpus,duration_s\na,0,1,432000\n");
    let r = rows(&e.cost, "reserved");
    let got: Vec<(f64, f64, f64)> = r
        .iter()
        .map(|c| (c.term_h.0, c.owed_usd, c.used_usd))
        .collect();
    let want = [
        (0.0, 300.0, 300.0),
        (100.0, 300.0, 60.0),
        (200.0, 150.0, 0.0),
    ];
    assert_eq!(got.len(), 3, "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g.0 - w.0).abs() < 1e-9 && (g.1 - w.1).abs() < 1e-6,
            "{got:?}"
        );
        assert!((g.2 - w.2).abs() < 1e-6, "{got:?}");
    }
    assert!((e.cost.ledger.total() - 750.0).abs() < 1e-6);
}

fn block(horizon: &str) -> String {
    format!(
        r#"name = "block"
horizon = "{horizon}"
timeline_interval = "1d"
[[pools]]
name = "cb"
gpu_type = "H100"
kind = "reserved"
nodes = 2
gpus_per_node = 8
price_per_node_hour = 10.0
[pools.pricing]
kind = "capacity_block"
start = "10d"
duration = "7d"
[workload]
kind = "csv"
path = "trace.csv"
"#
    )
}

#[test]
fn a_seven_day_capacity_block_from_day_10() {
    // 2 nodes x 8 GPUs at $10/node-hour for 7 days from day 10: $3,360, paid upfront.
    // The nodes exist only in the window; AWS terminates instances from 30 minutes before
    // the block's end (warning 10 minutes before that), so jobs run in [10 d, 17 d - 30 min).
    // Three 8-GPU jobs submitted at 0: A and B (2 days) run days 10-12; C (5 days) starts
    // at day 12 and is taken off at 17 d - 30 min, after 4 d 23.5 h, checkpointed; it
    // never runs again. Busy: 2 x 8 x 48 + 8 x 119.5 = 1,724 GPU-hours of the block's
    // 2 x 8 x 168 = 2,688: used $3,360 x 1,724 / 2,688 = $2,155, unused $1,205.
    let trace = format!(
        "job_id,submit_s,gpus,duration_s\nA,0,8,{d2}\nB,0,8,{d2}\nC,0,8,{d5}\n",
        d2 = 2 * DAY,
        d5 = 5 * DAY
    );
    let (_, e) = run_with_trace(&block("30d"), &trace);
    let r = rows(&e.cost, "capacity_block");
    assert_eq!(r.len(), 1);
    assert!((r[0].owed_usd - 3_360.0).abs() < 1e-6);
    assert!((r[0].used_usd - 2_155.0).abs() < 1e-6, "{}", r[0].used_usd);
    assert!((e.cost.ledger.total() - 3_360.0).abs() < 1e-6);
    let jobs = &e.result.jobs;
    let day = |d: f64| d * DAY as f64;
    assert_eq!(jobs[0].start.unwrap().secs_f64(), day(10.0));
    assert_eq!(jobs[2].start.unwrap().secs_f64(), day(12.0));
    assert_eq!(jobs[2].outcome, JobOutcome::Unfinished);
    assert_eq!(jobs[2].held.secs_f64(), day(5.0) - 1_800.0);
    // The timeline sees the block's GPUs only from day 10 to day 17.
    let provisioned: Vec<u64> = e.result.timeline.iter().map(|t| t.pools[0].1).collect();
    assert_eq!(provisioned[9], 0);
    assert_eq!(provisioned[10], 16_000);
    assert_eq!(provisioned[16], 16_000);
    assert_eq!(provisioned[17], 0);
    // Paid upfront: a run ending at day 12, inside the block, owes all of it.
    let (_, e) = run_with_trace(&block("12d"), &trace);
    assert!((e.cost.ledger.total() - 3_360.0).abs() < 1e-6);
    // A block after the run's end owes nothing in it.
    let (_, e) = run_with_trace(&block("9d"), &trace);
    assert!(e.cost.ledger.total().abs() < 1e-9);
    assert!(e.result.jobs.iter().all(|j| j.start.is_none()));
}

#[test]
fn a_savings_plan_with_a_term_inside_the_run() {
    // One on-demand pool of 2 nodes at $10/h for 10 h: $20/h at list price. A plan of
    // $6/h at 50 % off (covering $12/h) from hour 2 for 5 hours: those hours cost
    // 6 + (20 - 12) = $14, the other 5 cost $20: $70 + $100 = $170. The plan's term owes
    // $30 and is fully used.
    let text = r#"name = "sp"
horizon = "10h"
[[pools]]
name = "od"
gpu_type = "H100"
kind = "on_demand"
nodes = 2
gpus_per_node = 8
price_per_node_hour = 10.0
[savings_plan]
commitment_per_hour = 6.0
discount = 0.5
start = "2h"
term = "5h"
[workload]
kind = "csv"
path = "trace.csv"
"#;
    let (_, e) = run_with_trace(text, "job_id,submit_s,gpus,duration_s\na,0,1,3600\n");
    assert!(
        (e.cost.ledger.total() - 170.0).abs() < 1e-9,
        "{}",
        e.cost.ledger.total()
    );
    let r = rows(&e.cost, "savings_plan");
    assert_eq!(r.len(), 1);
    assert!((r[0].owed_usd - 30.0).abs() < 1e-9 && (r[0].used_usd - 30.0).abs() < 1e-9);
    assert!((r[0].term_h.0 - 2.0).abs() < 1e-12 && (r[0].term_h.1 - 7.0).abs() < 1e-12);
}

#[test]
fn commitments_csv_is_written_with_each_term() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("trace.csv"), job_csv(800)).unwrap();
    let f = dir.path().join("s.toml");
    std::fs::write(&f, reservation_day_90("outside_term = \"none\"")).unwrap();
    let out = dir.path().join("out");
    bin()
        .args(["run", "-q"])
        .arg(&f)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let text = std::fs::read_to_string(out.join("commitments.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "commitment,kind,pool,term_start_h,term_end_h,owed_usd,used_usd,unused_usd,used_share"
    );
    assert_eq!(
        lines.next().unwrap(),
        "res#1,reserved,res,2160.0000,10920.0000,17520.0000,8760.0000,8760.0000,0.5000"
    );
    // A run without commitments writes none.
    let plain = root().join("scenarios/quickstart.toml");
    let out2 = dir.path().join("out2");
    bin()
        .args(["run", "-q"])
        .arg(&plain)
        .arg("--out")
        .arg(&out2)
        .assert()
        .success();
    assert!(!Path::new(&out2.join("commitments.csv")).exists());
}

#[test]
fn bad_commitment_keys_name_their_fields() {
    let pool = |pricing: &str, extra: &str| {
        format!(
            r#"name = "bad"
horizon = "10d"
[[pools]]
name = "p"
gpu_type = "H100"
kind = "on_demand"
nodes = 2
gpus_per_node = 8
price_per_node_hour = 10.0
{extra}
[pools.pricing]
{pricing}
[workload]
kind = "synthetic"
rate_per_hour = 1.0
jobs = 2
sizes = [{{ gpus = 1, weight = 1 }}]
duration = {{ kind = "fixed", value = "1h" }}
"#
        )
    };
    let err = |text: &str| {
        Scenario::parse(text, Path::new("bad.toml"), Path::new("."))
            .unwrap_err()
            .to_string()
    };
    let e = err(&pool(
        "kind = \"reserved\"\nterm = \"30d\"\nstart = \"1d\"\nterm_started = \"2d\"\ndiscount = 0.3",
        "",
    ));
    assert!(e.contains("pools[0].pricing.start"), "{e}");
    let e = err(&pool(
        "kind = \"reserved\"\nterm = \"30d\"\nrecurring_per_node_hour = 3.0\npayment = \"all_upfront\"",
        "",
    ));
    assert!(e.contains("pools[0].pricing.payment"), "{e}");
    let e = err(&pool(
        "kind = \"reserved\"\nterm = \"30d\"\ndiscount = 0.3\noutside_term = \"never\"",
        "",
    ));
    assert!(e.contains("pools[0].pricing.outside_term"), "{e}");
    let e = err(&pool(
        "kind = \"capacity_block\"\nduration = \"7d\"",
        "[pools.autoscale]\nmin_nodes = 0",
    ));
    assert!(e.contains("pools[0].autoscale"), "{e}");
    let text = pool("kind = \"on_demand\"", "").replace(
        "[workload]",
        "[savings_plan]\ncommitment_per_hour = 1.0\ndiscount = 0.3\nrenew = true\n[workload]",
    );
    let e = err(&text);
    assert!(e.contains("savings_plan.renew"), "{e}");
}
