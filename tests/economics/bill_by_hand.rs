//! A run's whole bill worked out by hand, line by line and job by job: an on-demand pool,
//! a reservation whose term lies inside the run (on demand outside it) and a spot pool
//! the provider interrupts; each job's dollars, each tenant's, each pool's and the total,
//! every figure from the hand calculation in the comments.

use gpufleet::engine::RngStreams;
use gpufleet::pricing::CostKind;
use gpufleet::run::execute;
use gpufleet::scenario::Scenario;

const SCENARIO: &str = r#"name = "bill-by-hand"
horizon = "10h"
[[gpu_types]]
name = "GA"
memory_gb = 80
speed = 1.0
[[gpu_types]]
name = "GR"
memory_gb = 80
speed = 1.0
[[gpu_types]]
name = "GS"
memory_gb = 80
speed = 1.0
[[pools]]
name = "od"
gpu_type = "GA"
kind = "on_demand"
nodes = 1
gpus_per_node = 2
price_per_node_hour = 4.0
[[pools]]
name = "res"
gpu_type = "GR"
kind = "reserved"
nodes = 1
gpus_per_node = 1
price_per_node_hour = 10.0
[pools.pricing]
kind = "reserved"
term = "4h"
start = "2h"
discount = 0.5
payment = "all_upfront"
outside_term = "on_demand"
[[pools]]
name = "spot"
gpu_type = "GS"
kind = "spot"
nodes = 1
gpus_per_node = 1
[pools.pricing]
kind = "spot"
price = { kind = "constant", value = 3.0 }
first_hour_free = false
[[spot_interruptions]]
pool = "spot"
model = "trace"
path = "avail.csv"
notice = "2m"
[workload]
kind = "csv"
path = "trace.csv"
"#;

/// Spot capacity gone from 0:30 to 1:00.
const AVAIL: &str = "date,availability
2024-01-01 00:00:00,1
2024-01-01 00:30:00,0
2024-01-01 01:00:00,1
";

/// Jobs pinned to their pools by GPU type (types of the same speed, so a job runs for
/// its duration wherever it is).
const TRACE: &str = "job_id,submit_s,gpus,duration_s,gpu_type,tenant,preemptible
j1,0,2,10800,GA,a,false
j2,18000,1,7200,GA,b,false
j3,7200,1,7200,GR,a,false
j4,25200,1,3600,GR,b,false
j5,5400,1,10800,GS,c,true
";

#[test]
fn a_mixed_run_bills_and_attributes_as_worked_by_hand() {
    // Run of 10 h.
    // od: 1 node x 2 GPUs at $4/node-h, held 10 h: $40.00, 20 GPU-h paid. Busy: j1 2 GPUs
    //   x 3 h = 6 GPU-h, j2 1 GPU x 2 h = 2 GPU-h: $40 x 8/20 = $16 busy ($2/GPU-h):
    //   j1 $12, j2 $4; idle $24.
    // res: term [2 h, 6 h) all upfront at 50 % off $10: 4 h x $5 = $20 owed; j3 runs
    //   [2 h, 4 h) inside it: used 2 of 4 GPU-h, $10 to j3, $10 unused. Outside the term
    //   (6 h) on demand at $10: $60; j4 runs [7 h, 8 h): 1 of 6 GPU-h, $10 to j4, $50
    //   idle. (Spreading the pool's $20 of busy dollars over its 3 busy GPU-hours alike,
    //   as a pool-wide average, would give j3 $13.33 and j4 $6.67.)
    // spot: $3/h per second, no first-hour rule. Instances: [0, 0:30) reclaimed at the
    //   end of the 2-minute notice, $1.50; [1:00, 10:00) $27.00: $28.50 for 9.5 GPU-h.
    //   j5 runs [1:30, 4:30): 3 of 9.5 GPU-h, $28.50 x 3/9.5 = $9.00 (= 3 h x $3); idle
    //   $19.50.
    // Jobs $12 + $4 + $10 + $10 + $9 = $45; tenants a $22, b $14, c $9; nobody $103.50;
    // pools $40 + $80 + $28.50 = $148.50 = the total.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("avail.csv"), AVAIL).unwrap();
    std::fs::write(dir.path().join("trace.csv"), TRACE).unwrap();
    let f = dir.path().join("s.toml");
    std::fs::write(&f, SCENARIO).unwrap();
    let s = Scenario::load(&f).unwrap();
    let e = execute(&s, &RngStreams::new(s.seed)).unwrap();
    let starts: Vec<(String, Option<f64>, Option<u32>)> = e
        .result
        .jobs
        .iter()
        .zip(&e.workload.jobs)
        .map(|(r, j)| (j.name.clone(), r.start.map(|t| t.hours_f64()), r.pool))
        .collect();
    let want = [
        ("j1", 0.0, 0),
        ("j5", 1.5, 2),
        ("j3", 2.0, 1),
        ("j2", 5.0, 0),
        ("j4", 7.0, 1),
    ];
    let want: Vec<(String, Option<f64>, Option<u32>)> = want
        .iter()
        .map(|&(n, t, p)| (n.to_string(), Some(t), Some(p)))
        .collect();
    assert_eq!(starts, want);
    let job = |name: &str| e.workload.jobs.iter().position(|j| j.name == name).unwrap();
    let cent = |a: f64, b: f64| (a - b).abs() < 0.005;
    let jobs = [
        ("j1", 12.0),
        ("j2", 4.0),
        ("j3", 10.0),
        ("j4", 10.0),
        ("j5", 9.0),
    ];
    for (name, want) in jobs {
        let i = job(name);
        assert!(
            cent(e.cost.job_usd[i], want),
            "{name}: {} vs {want}",
            e.cost.job_usd[i]
        );
    }
    let l = &e.cost.ledger;
    let tenant = |name: &str| {
        let t = e.workload.tenants.iter().position(|x| x == name).unwrap() as u32;
        l.sum_where(|k| k.tenant == Some(t))
    };
    assert!(cent(tenant("a"), 22.0), "{}", tenant("a"));
    assert!(cent(tenant("b"), 14.0), "{}", tenant("b"));
    assert!(cent(tenant("c"), 9.0), "{}", tenant("c"));
    assert!(cent(l.sum_where(|k| k.tenant.is_none()), 103.5));
    for (p, want) in [40.0, 80.0, 28.5].iter().enumerate() {
        let got = l.sum_where(|k| k.pool == p as u32);
        assert!(cent(got, *want), "pool {p}: {got} vs {want}");
    }
    assert!(cent(l.total(), 148.5), "{}", l.total());
    // By kind: idle compute $24 (od) + $50 (res outside its term), the unused $10 of the
    // term, spot $28.50, busy compute $16 + $20.
    let kind = |c: CostKind| l.sum_where(|k| k.kind == c);
    assert!(cent(kind(CostKind::IdleCompute), 74.0));
    assert!(cent(kind(CostKind::UnusedCommitment), 10.0));
    assert!(cent(kind(CostKind::Spot), 28.5));
    assert!(cent(kind(CostKind::BusyCompute), 36.0));
    let c: Vec<_> = e.cost.commitments.iter().collect();
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].term_h, (2.0, 6.0));
    assert!(cent(c[0].owed_usd, 20.0) && cent(c[0].used_usd, 10.0));
    // The summary's tenant figures are the same dollars.
    assert!(cent(e.summary.cost_by_tenant_usd["a"], 22.0));
}
