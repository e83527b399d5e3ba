//! `jobs.csv` rows formatted during the simulation (`gpufleet run`'s path) are byte for
//! byte those formatted after it, on the shipped scenarios and on runs built to break the
//! guesses the early rows rest on: jobs that fail past their retries, jobs still open at
//! a horizon, a tenant whose only jobs are rejected, pools that grow, the cloud model's
//! extra columns, a savings plan spread over the bills.

use super::common::root;
use gpufleet::engine::RngStreams;
use gpufleet::scenario::Scenario;
use std::path::Path;

/// Writes `s`'s `jobs.csv` with rows made during the run and after it; returns both
/// files' bytes and how many rows were made during the run and could be used.
fn both_ways(s: &Scenario) -> (Vec<u8>, Vec<u8>, usize) {
    let dir = tempfile::tempdir().unwrap();
    let streams = RngStreams::new(s.seed);
    let early = gpufleet::run::execute_watched(s, &streams, None, true).unwrap();
    let late = gpufleet::run::execute_watched(s, &streams, None, false).unwrap();
    assert!(late.streamed.is_none());
    let rows = early.streamed.as_ref().expect("rows made during the run");
    let used = if rows.usable(&early.result, &early.job_figures.context) {
        rows.rows()
    } else {
        0
    };
    let (a, b) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
    gpufleet::report::write_jobs_csv(&a, &gpufleet::run::output(s, &early).jobs_csv()).unwrap();
    gpufleet::report::write_jobs_csv(&b, &gpufleet::run::output(s, &late).jobs_csv()).unwrap();
    (std::fs::read(a).unwrap(), std::fs::read(b).unwrap(), used)
}

fn parsed(text: &str) -> Scenario {
    Scenario::parse(text, Path::new("t.toml"), &root().join("scenarios")).unwrap()
}

#[test]
fn shipped_scenarios_write_the_same_rows_either_way() {
    let mut used_somewhere = 0;
    for name in [
        "quickstart",
        "quickstart-mix",
        "spot-checkpointing",
        "burst-to-on-demand",
        "data-gravity",
        "commitments-in-time",
        "pai-sim-compat",
        "swf-nasa",
        "trace_tiresias",
        "heterogeneous",
    ] {
        let s = Scenario::load(&root().join("scenarios").join(format!("{name}.toml"))).unwrap();
        let (early, late, used) = both_ways(&s);
        assert!(
            early == late,
            "{name}: jobs.csv differs between the two paths"
        );
        used_somewhere += used;
    }
    // The comparison means something only if the early rows were used.
    assert!(used_somewhere > 1000, "{used_somewhere} early rows used");
}

/// A small synthetic run: 2 tenants on 4 nodes of 8 GPUs, with `extra` appended.
fn synthetic(extra: &str) -> String {
    format!(
        r#"name = "streamed"
seed = 5
{extra}

[[pools]]
name = "p"
gpu_type = "H100"
kind = "owned"
nodes = 4
gpus_per_node = 8
price_per_node_hour = 10.0

[scheduler]
policy = "fifo"

[workload]
kind = "synthetic"
rate_per_hour = 6.0
jobs = 400
sizes = [ {{ gpus = 1, weight = 3 }}, {{ gpus = 8, weight = 1 }}, {{ gpus = 16, weight = 1 }} ]
duration = {{ kind = "lognormal", median = "2h", sigma = 1.0 }}
tenants = [ {{ name = "a", weight = 1 }}, {{ name = "b", weight = 1 }} ]
"#
    )
}

#[test]
fn failures_past_retries_write_the_same_rows_and_use_the_early_ones() {
    // Frequent failures and one retry: many jobs fail, and their rows are made early.
    let s = parsed(&format!(
        "{}\n[failures]\nrate_per_node_day = 2.0\nrepair = \"1h\"\n\n[checkpoint]\ninterval = \"30m\"\nwrite_time = \"1m\"\nrestart_overhead = \"2m\"\nmax_retries = 1\n",
        synthetic("")
    ));
    let (early, late, used) = both_ways(&s);
    assert!(early == late);
    let text = String::from_utf8(late).unwrap();
    assert!(text.contains(",failed,"), "some jobs failed");
    assert!(used > 100, "{used} early rows used");
}

#[test]
fn a_horizon_leaves_open_jobs_and_the_rows_still_agree() {
    let s = parsed(&synthetic("horizon = \"2d\""));
    let (early, late, used) = both_ways(&s);
    assert!(early == late);
    let text = String::from_utf8(late).unwrap();
    assert!(text.contains(",true\n"), "some jobs open at the end");
    assert!(used > 10);
}

#[test]
fn a_tenant_with_only_rejected_jobs_falls_back_and_agrees() {
    // Tenant "b" only asks for 64 GPUs, more than the pool holds: rejected, so the run has
    // one tenant with eligible jobs where the early rows guessed two.
    let text = synthetic("oversized = \"reject\"").replace(
        "tenants = [ { name = \"a\", weight = 1 }, { name = \"b\", weight = 1 } ]",
        "tenants = [ { name = \"a\", weight = 1 } ]",
    );
    let mut s = parsed(&text);
    let streams = RngStreams::new(s.seed);
    let mut w = s.workload_from(&streams).unwrap();
    let b = w.tenant_index("b");
    for j in w.jobs.iter_mut().step_by(7) {
        j.tenant = b;
        j.gpus = gpufleet::model::GpuRequest::Whole(64);
    }
    s.workload = gpufleet::scenario::WorkloadSource::Given(std::sync::Arc::new(w));
    let (early, late, used) = both_ways(&s);
    assert!(early == late);
    assert_eq!(
        used, 0,
        "the guessed context was wrong, so no early row is used"
    );
}

/// Every file of folder `dir`, by name, with its bytes.
fn files_of(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// `run::execute_into` (what `gpufleet run` does: `jobs.csv` and the other tables and
/// charts written while the summary is made) leaves the folder `execute` and
/// `write_folder_as` leave, file for file and byte for byte, in each output format and on
/// runs where the early rows hold and where they do not.
#[test]
fn the_overlapped_folder_is_the_folder_written_after_the_summary() {
    use gpufleet::report::OutputFormat;
    let mut formats = vec![OutputFormat::Csv];
    if gpufleet::report::PARQUET_BUILT {
        formats.extend([OutputFormat::Both, OutputFormat::Parquet]);
    }
    let mut scenarios: Vec<Scenario> = ["quickstart", "commitments-in-time", "spot-deadline-v100"]
        .iter()
        .map(|n| Scenario::load(&root().join("scenarios").join(format!("{n}.toml"))).unwrap())
        .collect();
    // Jobs open at a horizon (their rows are made after the run) and a burst pool that
    // grows (the guessed figure context is wrong: every row is made after the run).
    scenarios.push(parsed(&synthetic("horizon = \"2d\"")));
    scenarios
        .push(Scenario::load(&root().join("scenarios").join("burst-to-on-demand.toml")).unwrap());
    let mut compared = 0;
    for s in &scenarios {
        for &format in &formats {
            let dir = tempfile::tempdir().unwrap();
            let (a, b) = (dir.path().join("a"), dir.path().join("b"));
            let streams = RngStreams::new(s.seed);
            let (e, written) = gpufleet::run::execute_into(s, &streams, None, &a, format).unwrap();
            let f = gpufleet::run::execute(s, &streams).unwrap();
            let later = gpufleet::run::write_folder_as(s, &f, &b, format).unwrap();
            assert_eq!(e.summary, f.summary, "{}: the summaries differ", s.name);
            assert_eq!(written.deadline.is_some(), later.deadline.is_some());
            let (fa, fb) = (files_of(&a), files_of(&b));
            assert_eq!(
                fa.keys().collect::<Vec<_>>(),
                fb.keys().collect::<Vec<_>>(),
                "{}: not the same files",
                s.name
            );
            for (name, bytes) in &fa {
                assert!(
                    *bytes == fb[name],
                    "{} ({format:?}): {name} differs",
                    s.name
                );
                compared += 1;
            }
        }
    }
    assert!(compared >= 5 * 10, "{compared} files compared");
}
