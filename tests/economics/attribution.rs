//! Every dollar attributed once: spot billed over the spans each node was up (the
//! first-hour rule in the cluster path), each run segment charged at its own pool's
//! price, and jobs summing to tenants, tenants to pools, pools to the total, kind by kind,
//! over random scenarios with failures, spot interruptions, elastic pools and commitments.

use super::*;
use gpufleet::engine::RngStreams;
use gpufleet::pricing::{CostKind, PricingModel};
use gpufleet::run::{execute, Execution};
use gpufleet::scenario::Scenario;
use proptest::prelude::*;

/// Runs scenario text beside data files `files` (name, contents) through the run path.
fn run_files(text: &str, files: &[(&str, &str)]) -> Execution {
    let dir = tempfile::tempdir().unwrap();
    for (name, body) in files {
        std::fs::write(dir.path().join(name), body).unwrap();
    }
    let f = dir.path().join("s.toml");
    std::fs::write(&f, text).unwrap();
    let s = Scenario::load(&f).unwrap_or_else(|e| panic!("{e}\n{text}"));
    execute(&s, &RngStreams::new(s.seed)).unwrap()
}

fn spot_first_hour(first_hour_free: bool) -> String {
    format!(
        r#"name = "first-hour"
horizon = "8h"
[[pools]]
name = "spot"
gpu_type = "H100"
kind = "spot"
nodes = 1
gpus_per_node = 1
[pools.pricing]
kind = "spot"
price = {{ kind = "constant", value = 3.0 }}
first_hour_free = {first_hour_free}
[[spot_interruptions]]
pool = "spot"
model = "trace"
path = "avail.csv"
notice = "2m"
[workload]
kind = "csv"
path = "trace.csv"
"#
    )
}

/// Capacity gone at 0:40, 3:30 and 4:50, back at 1:00, 4:00 and 5:30.
const THREE_INTERRUPTIONS: &str = "date,availability
2024-01-01 00:00:00,1
2024-01-01 00:40:00,0
2024-01-01 01:00:00,1
2024-01-01 03:30:00,0
2024-01-01 04:00:00,1
2024-01-01 04:50:00,0
2024-01-01 05:30:00,1
";

#[test]
fn spot_first_hour_rule_on_a_trace_with_three_interruptions() {
    // One spot node at $3/h over 8 h, the provider taking the capacity back three times
    // with 2 minutes' notice: the node is down from each notice and its instance is
    // reclaimed at the notice's end. Instances (up spans, billed per second):
    //   [0:00, 0:40) interrupted after 40 min: free under the first-hour rule ($2 without)
    //   [1:00, 3:30) interrupted after 2.5 h:  $7.50
    //   [4:00, 4:50) interrupted after 50 min: free ($2.50 without)
    //   [5:30, 8:00) not interrupted:          $7.50
    // With the rule $15.00, without it $19.50. (Billing the pool's up share instead, as
    // before: up 8 h - 22 - 32 - 42 min = 6.4 h, $19.20, whatever the rule.)
    // A 10-minute preemptible job at 7:00 is charged its GPU-time's share of the bill:
    // the instances' GPU-time is 40 + 150 + 50 + 150 = 390 min, so 10/390 of $15.
    let job = "job_id,submit_s,gpus,duration_s,preemptible\na,25200,1,600,true\n";
    let files = |avail| [("avail.csv", avail), ("trace.csv", job)];
    let e = run_files(&spot_first_hour(true), &files(THREE_INTERRUPTIONS));
    let spot = e.cost.ledger.sum_where(|k| k.kind == CostKind::Spot);
    assert!((spot - 15.0).abs() < 1e-9, "{spot}");
    assert!((e.cost.job_usd[0] - 15.0 * 10.0 / 390.0).abs() < 1e-9);
    let e = run_files(&spot_first_hour(false), &files(THREE_INTERRUPTIONS));
    let spot = e.cost.ledger.sum_where(|k| k.kind == CostKind::Spot);
    assert!((spot - 19.5).abs() < 1e-9, "{spot}");
}

#[test]
fn a_job_interrupted_on_spot_pays_each_pool_for_its_own_segment() {
    // Pools: spot (1 node, 1 GPU, $1/h, no first-hour rule, no notice) and on-demand
    // (1 node, 1 GPU, $10/h), 3 hours. A preemptible job of 2 h starts on spot at 0;
    // spot capacity goes at 1 h for good. With notice >= the checkpoint write time (0 s)
    // the job keeps its work, restarts on demand at 1 h and ends at 2 h.
    // Spot: $1 for the hour up, all of it busy: the job's $1. On demand: $30 for 3 h, a
    // third busy: the job's $10. The job costs $11 (charging all its 2 GPU-hours at the
    // pool it last ran in would give $20).
    let text = r#"name = "segments"
horizon = "3h"
[[pools]]
name = "spot"
gpu_type = "H100"
kind = "spot"
nodes = 1
gpus_per_node = 1
[pools.pricing]
kind = "spot"
price = { kind = "constant", value = 1.0 }
first_hour_free = false
notice = "0s"
[[pools]]
name = "od"
gpu_type = "H100"
kind = "on_demand"
nodes = 1
gpus_per_node = 1
price_per_node_hour = 10.0
[checkpoint]
interval = "10m"
write_time = "0s"
restart_overhead = "0s"
[[spot_interruptions]]
pool = "spot"
model = "trace"
path = "avail.csv"
notice = "0s"
[workload]
kind = "csv"
path = "trace.csv"
"#;
    let avail =
        "date,availability\n2024-01-01 00:00:00,1\n2024-01-01 01:00:00,0\n2024-01-01 03:00:00,0\n";
    let job = "job_id,submit_s,gpus,duration_s,preemptible\na,0,1,7200,true\n";
    let e = run_files(text, &[("avail.csv", avail), ("trace.csv", job)]);
    let r = &e.result.jobs[0];
    assert_eq!(r.end.map(|t| t.secs_f64()), Some(7200.0));
    assert!(
        (e.cost.job_usd[0] - 11.0).abs() < 1e-9,
        "{}",
        e.cost.job_usd[0]
    );
    let l = &e.cost.ledger;
    assert!((l.sum_where(|k| k.tenant == Some(0)) - 11.0).abs() < 1e-9);
    assert!((l.total() - 31.0).abs() < 1e-9);
}

#[test]
fn spot_checkpointing_jobs_sum_to_tenants_to_the_cent() {
    // The shipped scenario: jobs interrupted on spot finish on demand. Each tenant's
    // charge is the sum of its jobs' (to the cent), and what no job caused is idle.
    let s = Scenario::load(&root().join("scenarios/spot-checkpointing.toml")).unwrap();
    let e = execute(&s, &RngStreams::new(s.seed)).unwrap();
    let moved = e
        .result
        .jobs
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            let pools: Vec<u32> = e
                .result
                .job_usage
                .iter()
                .filter(|u| u.job as usize == *i)
                .map(|u| u.pool)
                .collect();
            pools.len() > 1
        })
        .count();
    assert!(moved > 0, "no job ran in both pools");
    let l = &e.cost.ledger;
    for (t, name) in e.workload.tenants.iter().enumerate() {
        let jobs: f64 = e
            .workload
            .jobs
            .iter()
            .enumerate()
            .filter(|(_, j)| j.tenant as usize == t)
            .map(|(i, _)| e.cost.job_usd[i])
            .sum();
        let tenant = l.sum_where(|k| k.tenant == Some(t as u32));
        assert!(
            (jobs - tenant).abs() < 0.005,
            "{name}: jobs {jobs} vs tenant {tenant}"
        );
        assert!(
            (e.summary.cost_by_tenant_usd[name] - (jobs * 100.0).round() / 100.0).abs() < 0.011
        );
    }
    let jobs: f64 = e.cost.job_usd.iter().sum();
    let nobody = l.sum_where(|k| k.tenant.is_none());
    assert!((jobs + nobody - l.total()).abs() < 0.005);
}

// ---- random scenarios ------------------------------------------------------------------

/// One pool of a random scenario: its kind (0 owned, 1 on-demand flat, 2 on-demand
/// elastic, 3 spot with zone outages, 4 reserved inside the run, 5 capacity block),
/// nodes, GPUs per node, a zone (checkpoints moved between zones are charged), and a
/// free parameter for the kind.
type PoolDraw = (u8, u32, u16, bool, u8);

fn pool_text(i: usize, (kind, nodes, gpn, east, x): PoolDraw) -> (String, String) {
    let zone = if east { "a" } else { "b" };
    let head = |k: &str| {
        format!(
            "[[pools]]\nname = \"p{i}\"\ngpu_type = \"H100\"\nkind = \"{k}\"\nnodes = {nodes}\ngpus_per_node = {gpn}\nzone = \"{zone}\"\nprice_per_node_hour = {}\n",
            10 + 7 * i
        )
    };
    let mut extra = String::new();
    let body = match kind % 6 {
        0 => head("owned")
            + "[pools.pricing]\nkind = \"owned\"\ncapex_per_node = 200000\nlife_years = 4\ncost_of_capital = 0.1\nidle_kw_per_node = 2\nfull_kw_per_node = 8\nstaff_usd_per_year = 50000\n",
        1 => head("on_demand"),
        2 => {
            head("on_demand")
                + &format!(
                    "[pools.pricing]\nkind = \"on_demand\"\nbilling = \"{}\"\n[pools.autoscale]\nmin_nodes = 0\nprovisioning_delay = \"5m\"\nidle_timeout = \"10m\"\n",
                    if x % 2 == 0 { "per_second" } else { "per_hour" }
                )
        }
        3 => {
            extra = format!(
                "[[spot_interruptions]]\npool = \"p{i}\"\nmodel = \"zone\"\nmean_up = \"{}h\"\nmean_down = \"1h\"\n",
                1 + x % 6
            );
            head("spot")
                + &format!(
                    "[pools.pricing]\nkind = \"spot\"\nprice = {{ kind = \"constant\", value = {} }}\nfirst_hour_free = {}\n",
                    3 + i,
                    x % 2 == 0
                )
        }
        4 => {
            head("reserved")
                + &format!(
                    "[pools.pricing]\nkind = \"reserved\"\nterm = \"{}h\"\nstart = \"{}h\"\ndiscount = 0.4\nrenew = {}\noutside_term = \"{}\"\n",
                    12 + x % 30,
                    x % 20,
                    x % 3 == 0,
                    if x % 2 == 0 { "none" } else { "on_demand" }
                )
        }
        _ => {
            head("reserved")
                + &format!(
                    "[pools.pricing]\nkind = \"capacity_block\"\nstart = \"{}h\"\nduration = \"1d\"\n",
                    x % 36
                )
        }
    };
    (body, extra)
}

fn random_scenario(
    pools: &[PoolDraw],
    seed: u64,
    failures: bool,
    plan: Option<(f64, u8)>,
    egress: bool,
) -> String {
    let mut text =
        format!("name = \"random\"\nseed = {seed}\nhorizon = \"3d\"\ntimeline_interval = \"6h\"\noversized = \"reject\"\n");
    let mut extras = String::new();
    for (i, &p) in pools.iter().enumerate() {
        let (body, extra) = pool_text(i, p);
        text += &body;
        extras += &extra;
    }
    text += "[scheduler]\npolicy = \"easy_backfill\"\npool_order = \"by_kind\"\n";
    text += r#"[workload]
kind = "synthetic"
rate_per_hour = 2.0
until = "2d"
sizes = [{ gpus = 1, weight = 4 }, { gpus = 2, weight = 2 }, { gpus = 4, weight = 2 }, { gpus = 8, weight = 1 }]
duration = { kind = "lognormal", median = "2h", sigma = 1.0 }
tenants = [{ name = "a", weight = 1 }, { name = "b", weight = 1 }, { name = "c", weight = 1 }]
preemptible_share = 0.5
"#;
    text += "[checkpoint]\ninterval = \"30m\"\nwrite_time = \"1m\"\nrestart_overhead = \"2m\"\nsize_gb = 20\n";
    if failures {
        text += "[failures]\nrate_per_gpu_day = 0.02\nrepair = \"3h\"\n";
    }
    if let Some((c, start)) = plan {
        text += &format!(
            "[savings_plan]\ncommitment_per_hour = {c}\ndiscount = 0.3\nstart = \"{start}h\"\nterm = \"1d\"\nrenew = true\n"
        );
    }
    if egress {
        text += "[transfer]\negress_gb_per_job = 50\n";
    }
    text + &extras
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Jobs sum to tenants, tenants (and nobody) to pools, pools to the total, kind by
    /// kind; a pool's ledger is its bill; a job that ran only in flat-priced pools costs
    /// its GPU-hours at those prices; no commitment is used beyond what it owed.
    #[test]
    fn every_dollar_is_attributed_once(
        pools in proptest::collection::vec((0u8..6, 1u32..4, prop_oneof![Just(4u16), Just(8u16)], any::<bool>(), any::<u8>()), 1..4),
        seed in 1u64..1000,
        failures in any::<bool>(),
        plan in proptest::option::of((1.0f64..60.0, 0u8..30)),
        egress in any::<bool>(),
    ) {
        let text = random_scenario(&pools, seed, failures, plan, egress);
        let e = run_files(&text, &[]);
        let l = &e.cost.ledger;
        let total = l.total();
        let tol = 1e-6 * (1.0 + total.abs());
        // Jobs to tenants.
        for t in 0..3u32 {
            let jobs: f64 = e.workload.jobs.iter().enumerate()
                .filter(|(_, j)| j.tenant == t)
                .map(|(i, _)| e.cost.job_usd[i])
                .sum();
            let tenant = l.sum_where(|k| k.tenant == Some(t));
            prop_assert!((jobs - tenant).abs() < tol, "tenant {t}: {jobs} vs {tenant}\n{text}");
        }
        // Tenants and nobody to pools, pools to the total, kinds to the total.
        let mut pools_sum = 0.0;
        for p in 0..pools.len() as u32 {
            let pool = l.sum_where(|k| k.pool == p);
            let parts: f64 = [None, Some(0), Some(1), Some(2)].iter()
                .map(|&t| l.sum_where(|k| k.pool == p && k.tenant == t))
                .sum();
            prop_assert!((pool - parts).abs() < tol);
            pools_sum += pool;
        }
        prop_assert!((pools_sum - total).abs() < tol);
        let kinds: f64 = CostKind::ALL.iter().map(|&c| l.sum_where(|k| k.kind == c)).sum();
        prop_assert!((kinds - total).abs() < tol);
        prop_assert!(l.entries().all(|(_, v)| *v > -tol), "{text}");
        prop_assert!(e.cost.job_usd.iter().all(|&x| x > -tol));
        // A pool's ledger, transfers and the savings plan aside, is its bill.
        let usage = gpufleet::metrics::usage_records(&e.result);
        // The plan scales the on-demand pools and books its unused part to them (or to
        // pool 0 when there is none).
        let covered = |p: usize| plan.is_some() && (p == 0 || matches!(pools[p].0 % 6, 1 | 2));
        for (p, u) in usage.iter().enumerate() {
            if covered(p) {
                continue;
            }
            let bill = e.pricing.pools[p].bill(u).total();
            let booked = l.sum_where(|k| k.pool == p as u32 && k.kind != CostKind::Transfer);
            prop_assert!((bill - booked).abs() < tol, "pool {p}: bill {bill} vs {booked}\n{text}");
        }
        // Jobs that ran only in fixed flat-priced pools (no plan, no data moved) cost
        // their GPU-hours times each pool's price per GPU-hour.
        if plan.is_none() && !egress {
            let moved: Vec<u32> = e.result.faults.iter()
                .flat_map(|f| f.transfers.iter().map(|m| m.job))
                .collect();
            for (i, _) in e.workload.jobs.iter().enumerate() {
                let segs: Vec<_> = e.result.job_usage.iter().filter(|u| u.job as usize == i).collect();
                if segs.is_empty() || moved.contains(&(i as u32))
                    || !segs.iter().all(|u| pools[u.pool as usize].0 % 6 == 1) {
                    continue;
                }
                let want: f64 = segs.iter().map(|u| {
                    let (_, _, gpn, _, _) = pools[u.pool as usize];
                    let price = (10 + 7 * u.pool) as f64 / gpn as f64;
                    u.gpu_ms as f64 / 3.6e6 * price
                }).sum();
                prop_assert!((e.cost.job_usd[i] - want).abs() < 1e-6 * (1.0 + want),
                    "job {i}: {} vs {want}", e.cost.job_usd[i]);
            }
        }
        for c in &e.cost.commitments {
            prop_assert!(c.used_usd > -tol && c.used_usd <= c.owed_usd + tol, "{c:?}");
        }
    }
}
