//! Datasets and regions, worked by hand: staging time from size and bandwidth, the
//! catalog's transfer prices, copies reused within their keep time, the data-aware pool
//! choice and its locality wait.

use gpufleet::engine::{RngStreams, SimTime};
use gpufleet::run::{execute, Execution};
use gpufleet::scenario::Scenario;
use std::path::Path;

/// Scenario text with `pools`, the dataset block and a CSV trace written beside it.
fn run(text: &str, trace: &str) -> Execution {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.csv"), trace).unwrap();
    let s = Scenario::parse(text, Path::new("t.toml"), dir.path()).unwrap();
    execute(&s, &RngStreams::new(s.seed)).unwrap()
}

const WEST: &str = r#"name = "staging"
[[pools]]
name = "west"
gpu_type = "H100"
kind = "on_demand"
nodes = 1
gpus_per_node = 8
price_per_node_hour = 8.0
region = "us-west-2"
zone = "us-west-2a"
[[datasets]]
name = "d"
size = "2TB"
region = "us-east-1"
zone = "us-east-1a"
[data]
cross_region_gbps = 10
keep_for = "2h"
[workload]
kind = "csv"
path = "t.csv"
"#;

const TRACE: &str = "job_id,submit_s,gpus,duration_s,dataset\n\
a,0,8,3600,d\n\
b,0,8,3600,d\n\
c,20000,8,3600,d\n";

/// 2 TB in us-east-1, a job in us-west-2 at 10 Gbit/s: 2,000 GB x 8 / 10 = 1,600 s
/// before it computes, and 2,000 GB x $0.02 (AWS inter-region, catalog) = $40. Job b
/// waits for the one node (a ends at 1,600 + 3,600 = 5,200 s), finds the copy (ready at
/// 1,600 s, kept 2 h: to 8,800 s) and pays nothing: it ends at 8,800 s. Its read keeps
/// the copy to 5,200 + 7,200 = 12,400 s; job c at 20,000 s finds none and stages again.
#[test]
fn staging_time_tier_cost_and_reuse() {
    let e = run(WEST, TRACE);
    let c = e.result.cloud.as_ref().unwrap();
    let end = |i: usize| e.result.jobs[i].end.unwrap();
    assert_eq!(end(0), SimTime::from_secs(5200));
    assert_eq!(c.jobs[0].staging, SimTime::from_secs(1600));
    assert!((c.jobs[0].transfer_usd - 40.0).abs() < 1e-9);
    assert_eq!(c.jobs[0].staged_gb, 2000.0);
    assert_eq!(end(1), SimTime::from_secs(8800));
    assert_eq!(
        (c.jobs[1].staging, c.jobs[1].transfer_usd),
        (SimTime::ZERO, 0.0)
    );
    assert_eq!(end(2), SimTime::from_secs(20000 + 1600 + 3600));
    assert!((c.jobs[2].transfer_usd - 40.0).abs() < 1e-9);
    assert_eq!(c.reuses, 1);
    // The ledger carries the transfers; job a's bill is its held time at $1/GPU-hour
    // (5,200 s x 8 GPUs) plus $40.
    let transfer = e
        .summary
        .cost_by_kind_usd
        .get("transfer")
        .copied()
        .unwrap_or(0.0);
    assert!((transfer - 80.0).abs() < 1e-6, "{transfer}");
    let a = e.cost.job_usd[0];
    assert!((a - (5200.0 / 3600.0 * 8.0 + 40.0)).abs() < 1e-6, "{a}");
    // Totals per region and link.
    let d = e.summary.cloud.as_ref().unwrap().data.as_ref().unwrap();
    assert_eq!(d.by_region["aws/us-west-2"].transfers, 2);
    assert!((d.by_link["cross_region"].gb - 4000.0).abs() < 1e-9);
}

/// Over the internet (a pool of another cloud) the same 2 TB pays AWS's internet tiers:
/// 100 GB free, then 1,900 GB x $0.09 = $171; at 10 Gbit/s again 1,600 s.
#[test]
fn internet_staging_pays_the_tiers() {
    let text = WEST
        .replace(
            "region = \"us-west-2\"",
            "cloud = \"gcp\"\nregion = \"us-west1\"",
        )
        .replace("cross_region_gbps = 10", "internet_gbps = 10");
    let e = run(
        &text,
        "job_id,submit_s,gpus,duration_s,dataset\na,0,8,3600,d\n",
    );
    let c = e.result.cloud.as_ref().unwrap();
    assert_eq!(c.jobs[0].staging, SimTime::from_secs(1600));
    assert!((c.jobs[0].transfer_usd - 171.0).abs() < 1e-9);
}

const TWO_REGIONS: &str = r#"name = "gravity"
[[pools]]
name = "near"
gpu_type = "H100"
kind = "on_demand"
nodes = 1
gpus_per_node = 8
price_per_node_hour = 16.0
region = "us-east-1"
[[pools]]
name = "far"
gpu_type = "H100"
kind = "on_demand"
nodes = 1
gpus_per_node = 8
price_per_node_hour = 8.0
region = "us-west-2"
[scheduler]
policy = "fifo"
pool_order = "data_aware"
[[datasets]]
name = "d"
size_gb = SIZE
region = "us-east-1"
[data]
cross_region_gbps = 10
keep_for = "0s"
[workload]
kind = "csv"
path = "t.csv"
"#;

/// Data-aware choice, one 8-GPU job of 1 h: near costs $16; far costs $8 x (1 h + staging)
/// plus $0.02/GB. 500 GB: staging 400 s, far = 8 x 4,000 / 3,600 + 10 = $18.89 > $16:
/// near. 100 GB: 80 s, far = 8 x 3,680 / 3,600 + 2 = $10.18: far.
#[test]
fn data_aware_choice_weighs_transfer_against_price() {
    let one = "job_id,submit_s,gpus,duration_s,dataset\na,0,8,3600,d\n";
    let e = run(&TWO_REGIONS.replace("SIZE", "500"), one);
    assert_eq!(e.result.jobs[0].pool, Some(0));
    let e = run(&TWO_REGIONS.replace("SIZE", "100"), one);
    assert_eq!(e.result.jobs[0].pool, Some(1));
    assert_eq!(e.result.jobs[0].end, Some(SimTime::from_secs(3680)));
}

/// Locality wait "auto": with near busy (job a holds it to 3,600 s) job b, which would
/// stage 4,000 GB for 3,200 s far away, waits for near up to 3,200 s; near frees at
/// 3,600 s > 3,200 s, so b goes far at 3,200 s and ends at 3,200 + 3,200 + 3,600. With
/// 1,000 GB (800 s of staging) b waits 800 s, then goes far.
#[test]
fn locality_wait_is_the_staging_time() {
    let text = TWO_REGIONS
        .replace("pool_order = \"data_aware\"", "")
        .replace(
            "keep_for = \"0s\"",
            "keep_for = \"0s\"\nlocality_wait = \"auto\"",
        );
    let two = "job_id,submit_s,gpus,duration_s,dataset\na,0,8,3600,d\nb,0,8,3600,d\n";
    let e = run(&text.replace("SIZE", "4000"), two);
    let b = &e.result.jobs[1];
    assert_eq!((b.pool, b.start), (Some(1), Some(SimTime::from_secs(3200))));
    assert_eq!(b.end, Some(SimTime::from_secs(3200 + 3200 + 3600)));
    let e = run(&text.replace("SIZE", "1000"), two);
    assert_eq!(e.result.jobs[1].start, Some(SimTime::from_secs(800)));
}

/// Bad data sections get errors naming the field.
#[test]
fn bad_data_sections_name_the_field() {
    let err = |t: &str| {
        Scenario::parse(t, Path::new("t.toml"), Path::new("."))
            .unwrap_err()
            .to_string()
    };
    let e = err(&WEST.replace("size = \"2TB\"", "size = \"2 XB\""));
    assert!(e.contains("datasets[0].size"), "{e}");
    let e = err(&WEST.replace("region = \"us-west-2\"\n", ""));
    assert!(e.contains("pools[0].region"), "{e}");
    let e = err(&WEST.replace("keep_for = \"2h\"", "locality_wait = \"soon\""));
    assert!(e.contains("data.locality_wait"), "{e}");
    let e = err(&WEST.replace("zone = \"us-east-1a\"", "cloud = \"mars\""));
    assert!(e.contains("datasets[0].cloud"), "{e}");
}

/// A trace naming a dataset the scenario lacks is an error naming it.
#[test]
fn unknown_dataset_in_the_trace_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("t.csv"),
        "job_id,submit_s,gpus,duration_s,dataset\na,0,8,3600,nope\n",
    )
    .unwrap();
    let s = Scenario::parse(WEST, Path::new("t.toml"), dir.path()).unwrap();
    let e = execute(&s, &RngStreams::new(1)).err().unwrap().to_string();
    assert!(e.contains("nope"), "{e}");
}

/// A copy still in flight: job a stages 2 TB into us-west-2 over 0..1,600 s on pool
/// west; job b arrives at 600 s, finds west full and takes west2 (same region), where the
/// copy lands at 1,600 s: it waits 1,000 s, pays nothing, ends at 600 + 1,000 + 3,600 =
/// 5,200 s. The region's and the link's staging hours count both waits, (1,600 + 1,000)
/// / 3,600 = 0.722 h, the run's total; one transfer, one reuse.
#[test]
fn a_copy_in_flight_is_waited_for_and_counted_on_its_link() {
    let text = WEST.replace(
        "[[datasets]]",
        "[[pools]]\nname = \"west2\"\ngpu_type = \"H100\"\nkind = \"on_demand\"\nnodes = 1\n\
         gpus_per_node = 8\nprice_per_node_hour = 8.0\nregion = \"us-west-2\"\n\
         zone = \"us-west-2a\"\n[[datasets]]",
    );
    let e = run(
        &text,
        "job_id,submit_s,gpus,duration_s,dataset\na,0,8,3600,d\nb,600,8,3600,d\n",
    );
    let c = e.result.cloud.as_ref().unwrap();
    assert_eq!(e.result.jobs[1].pool, Some(1));
    assert_eq!(c.jobs[1].staging, SimTime::from_secs(1000));
    assert_eq!(c.jobs[1].transfer_usd, 0.0);
    assert_eq!(e.result.jobs[1].end, Some(SimTime::from_secs(5200)));
    let d = e.summary.cloud.as_ref().unwrap().data.as_ref().unwrap();
    assert_eq!((d.transfers, d.reuses), (1, 1));
    assert_eq!(d.staging_hours, 0.722);
    assert_eq!(d.by_region["aws/us-west-2"].staging_hours, 0.722);
    assert_eq!(d.by_link["cross_region"].staging_hours, 0.722);
    assert_eq!(d.by_link["cross_region"].transfers, 1);
}
