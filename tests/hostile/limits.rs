//! Scenarios that cannot finish in bounded time or memory: refused by `validate` and
//! `run` (exit 2, the field and the limit named), or bounded and finished.

use super::{gpufleet, put, scenario, scratch};
use std::path::Path;

/// A synthetic workload table of `jobs` jobs at `rate` per hour, each one GPU for `dur`.
fn synthetic(jobs: &str, rate: &str, dur: &str) -> String {
    format!(
        "[workload]\nkind = \"synthetic\"\n{jobs}\nrate_per_hour = {rate}\nsizes = [{{ gpus = 1, weight = 1 }}]\nduration = {{ kind = \"fixed\", value = \"{dur}\" }}\n"
    )
}

/// Failures every `per_day` node-days, repaired in a minute.
fn failures(per_day: f64) -> String {
    format!("[failures]\nrate_per_node_day = {per_day}\nrepair = \"1m\"\n")
}

#[test]
fn failures_without_checkpoint_or_horizon_end() {
    // A 10-hour job on a node failing every 6 minutes (240 a day) never completes without
    // checkpoints; with the finite default max_retries it fails after its retries and the
    // run ends.
    let d = scratch();
    let body = format!(
        "{}\n{}",
        synthetic("jobs = 3", "1.0", "10h"),
        failures(240.0)
    );
    let f = put(d.path(), "s.toml", &scenario("", &body));
    let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]);
    assert_eq!(e.code, 0, "{e:#?}");
    let summary = std::fs::read_to_string(d.path().join("o/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(v["jobs"]["failed"], 3, "every job gives up: {summary}");
}

#[test]
fn failures_under_a_job_that_never_starts_stop_at_a_cap_that_follows_the_workload() {
    // One job that a $1 budget keeps off the only pool (10 GPU-hours at $1.50), on two
    // on-demand nodes struck by failures once a minute (a Poisson process in calendar
    // time; a strike on a node that is down does nothing) and repaired in a minute: without
    // a horizon the job waits for ever while strikes and repairs go on. A node is down
    // after a failure for a minute, then up until the next strike (a minute on average):
    // 720 failures a node-day, so each day brings 2 x 1,440 strikes + 1,440 repairs =
    // 4,320 events. The run stops after 10,000,000 + 1,000 a job such events: 2,315.05
    // days (55,561 hours) and 3,333,667 failures, not after 100,000,000 events (a minute of
    // replay), and says so on the terminal and in summary.json. Strikes and repairs
    // could still change what the scheduler sees, so this is not the "stuck" stop.
    let d = scratch();
    let text = format!(
        "{}\n[failures]\nrate_per_node_day = 1440\nrepair = \"1m\"\n",
        crate::common::budget_bound_scenario(2)
    );
    let f = put(d.path(), "s.toml", &text);
    let e = gpufleet(d.path(), &["run", f.to_str().unwrap(), "--out", "o"]);
    assert_eq!(e.code, 0, "{e:#?}");
    assert!(
        e.stderr.contains("failure and interruption events"),
        "the warning names the limit: {e:#?}"
    );
    let summary = std::fs::read_to_string(d.path().join("o/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(v["cut_short"], "fault_events", "{summary}");
    assert_eq!(v["jobs"]["unfinished"], 1, "{summary}");
    // Failures are a third of the events give or take the draws' spread (about 1,500).
    let failures = v["node_failures"]["total"].as_f64().unwrap();
    assert!(
        (failures - 3_333_667.0).abs() < 10_000.0,
        "{failures} failures: {summary}"
    );
    // The span, over millions of draws, within 1 %.
    let hours = v["simulated_hours"].as_f64().unwrap();
    assert!(
        (hours / 55_561.0 - 1.0).abs() < 0.01,
        "simulated {hours} h: {summary}"
    );
}

#[test]
fn unbounded_retries_without_horizon_are_refused() {
    let d = scratch();
    let body = format!(
        "{}\n{}\n[checkpoint]\ninterval = \"none\"\nmax_retries = 4294967295\n",
        synthetic("jobs = 3", "1.0", "10h"),
        failures(240.0)
    );
    let f = put(d.path(), "s.toml", &scenario("", &body));
    for cmd in ["validate", "run"] {
        gpufleet(d.path(), &[cmd, f.to_str().unwrap()]).refused(2, &["s.toml", "max_retries"]);
    }
}

#[test]
fn a_checkpoint_longer_than_the_time_between_failures_is_refused() {
    // Failures every hour per node (24 a node-day); a two-hour checkpoint write never
    // completes before the next failure.
    let d = scratch();
    let body = format!(
        "{}\n{}\n[checkpoint]\ninterval = \"30m\"\nwrite_time = \"2h\"\n",
        synthetic("jobs = 3", "1.0", "10h"),
        failures(24.0)
    );
    let f = put(d.path(), "s.toml", &scenario("", &body));
    gpufleet(d.path(), &["validate", f.to_str().unwrap()]).refused(2, &["s.toml", "write_time"]);
}

#[test]
fn a_model_until_centuries_is_refused_without_generating() {
    let d = scratch();
    let body = "[workload]\nkind = \"model\"\nuntil = \"300000d\"\narrivals = { kind = \"poisson\", rate_per_hour = 100.0 }\n\n[[workload.tenants]]\nname = \"a\"\nweight = 1\nsizes = [{ gpus = 1, weight = 1 }]\nduration = { kind = \"fixed\", value = \"1h\" }\n";
    let f = put(d.path(), "s.toml", &scenario("", body));
    gpufleet(d.path(), &["validate", f.to_str().unwrap()]).refused(2, &["s.toml", "until"]);
}

#[test]
fn a_billion_jobs_without_horizon_are_refused() {
    let d = scratch();
    // 10^9 jobs at 10^6 an hour: 1,000 hours, well inside the span limit.
    let body = synthetic("jobs = 1000000000", "1000000.0", "1h");
    let f = put(d.path(), "s.toml", &scenario("", &body));
    gpufleet(d.path(), &["validate", f.to_str().unwrap()]).refused(2, &["s.toml", "max_jobs"]);
    // An explicit max_jobs is the user's bound: validation takes it, and says how many
    // jobs that is, without generating them (it answers at once).
    let f = put(
        d.path(),
        "t.toml",
        &scenario("max_jobs = 1000000000", &body),
    );
    let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
    assert_eq!(e.code, 0, "{e:#?}");
    assert!(e.stdout.contains("1000000000 jobs"), "{e:#?}");
    assert!(e.secs < 10.0, "{e:#?}");
    // ... and warns what that many jobs hold in memory: 10^9 x 640 bytes = 640 GB.
    assert!(e.stderr.contains("640.0 GB of memory"), "{e:#?}");
    // An explicit max_jobs above what the workload makes warns of nothing.
    let small = synthetic("jobs = 1000", "100.0", "1h");
    let f = put(
        d.path(),
        "u.toml",
        &scenario("max_jobs = 1000000000", &small),
    );
    let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
    assert_eq!(e.code, 0, "{e:#?}");
    assert!(!e.stderr.contains("GB of memory"), "{e:#?}");
}

#[test]
fn a_near_zero_arrival_rate_is_refused() {
    // 10 jobs at one per 10^12 hours span 10^13 hours: far past the 100-year limit.
    let d = scratch();
    let body = synthetic("jobs = 10", "1e-12", "1h");
    let f = put(d.path(), "s.toml", &scenario("", &body));
    gpufleet(d.path(), &["validate", f.to_str().unwrap()])
        .refused(2, &["s.toml", "workload.jobs", "years"]);
}

#[test]
fn a_replicated_trace_stops_at_the_job_cap() {
    // load_scale = 1e9 of a 3-row trace would be 3e9 jobs in memory.
    let d = scratch();
    put(
        d.path(),
        "t.csv",
        "job_id,submit_s,gpus,duration_s\na,0,1,60\nb,10,1,60\nc,20,1,60\n",
    );
    let body = "[workload]\nkind = \"trace\"\nformat = \"generic\"\npath = \"t.csv\"\nload_scale = 1e9\nload_scale_of = \"original\"\n";
    let f = put(d.path(), "s.toml", &scenario("", body));
    gpufleet(d.path(), &["validate", f.to_str().unwrap()]).refused(2, &["max_jobs"]);
}

#[test]
fn a_replicated_trace_on_the_command_line_stops_at_the_job_cap() {
    // `trace fit|inspect|convert --load-scale 1e300` had no job cap: copies were made
    // until the memory ran out.
    let d = scratch();
    put(
        d.path(),
        "t.csv",
        "job_id,submit_s,gpus,duration_s\na,0,1,60\nb,10,1,60\nc,20,1,60\n",
    );
    for cmd in [
        &["trace", "fit", "t.csv", "--format", "generic"][..],
        &["trace", "inspect", "t.csv", "--format", "generic"][..],
        &["trace", "convert", "--from", "generic", "t.csv", "o.csv"][..],
    ] {
        let mut args = cmd.to_vec();
        args.extend(["--load-scale", "1e300"]);
        let e = gpufleet(d.path(), &args);
        e.refused(2, &["load_scale 1e300", "about 3e300", "10000000"]);
        assert!(e.secs < 10.0, "{cmd:?}: {e:#?}");
    }
}

#[test]
fn a_tco_of_a_hundred_thousand_candidates_is_refused_before_costing() {
    // Each candidate is costed hour by hour over the years (about 0.3 MB apiece): 100,000
    // of them ran for minutes into tens of GB.
    let d = scratch();
    let base = std::fs::read_to_string(format!(
        "{}/scenarios/buy-vs-rent-h100.toml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let start = base.find("candidates = [").expect("a candidates list");
    let end = start + base[start..].find("\n]").expect("its end") + 2;
    let many: Vec<String> = (0..100_000)
        .map(|i| format!("  {{ kind = \"buy\", nodes = {} }}", i % 50 + 1))
        .collect();
    let text = format!(
        "{}candidates = [\n{}\n]{}",
        &base[..start],
        many.join(",\n"),
        &base[end..]
    );
    let f = put(d.path(), "tco.toml", &text);
    for extra in [&[][..], &["--simulate"][..]] {
        let mut args = vec!["tco", f.to_str().unwrap(), "--out", "o"];
        args.extend(extra);
        let e = gpufleet(d.path(), &args);
        e.refused(2, &["tco.toml", "tco.candidates", "100000", "1000"]);
        assert!(e.secs < 10.0, "{extra:?}: {e:#?}");
    }
}

#[test]
fn a_duration_of_2_pow_63_ms_is_bounded() {
    // 9.2e15 s: past any horizon the simulator can represent with its timeline.
    let d = scratch();
    put(
        d.path(),
        "t.csv",
        "job_id,submit_s,gpus,duration_s\na,0,1,9223372036854775\nb,10,1,60\n",
    );
    let body = "[workload]\nkind = \"csv\"\npath = \"t.csv\"\n";
    let f = put(
        d.path(),
        "s.toml",
        &scenario("timeline_interval = \"1h\"", body),
    );
    let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]);
    if e.code == 0 {
        // Bounded: the timeline stayed under its row limit (1,000,000 rows).
        let tl = std::fs::read_to_string(d.path().join("o/timeline.csv")).unwrap();
        assert!(
            tl.lines().count() <= 1_000_001,
            "{} rows",
            tl.lines().count()
        );
    } else {
        e.refused(2, &["t.csv", "duration_s"]);
    }
}

#[test]
fn a_one_second_timeline_over_years_is_widened_loudly() {
    // 10 years at 1 s is 3.2e8 samples: over the 1,000,000-row limit.
    let d = scratch();
    let body = synthetic("jobs = 5", "1.0", "1h");
    let f = put(
        d.path(),
        "s.toml",
        &scenario("horizon = \"3650d\"\ntimeline_interval = \"1s\"", &body),
    );
    gpufleet(d.path(), &["validate", f.to_str().unwrap()])
        .refused(2, &["s.toml", "timeline_interval"]);
}

#[test]
fn trace_fit_over_a_huge_span_ends() {
    // Two rows 10^15 s apart: a fit that steps through the span hour by hour would take
    // about 25 minutes.
    let d = scratch();
    put(
        d.path(),
        "t.csv",
        "job_id,submit_s,gpus,duration_s\na,0,1,60\nb,1000000000000000,1,60\n",
    );
    let e = gpufleet(
        d.path(),
        &[
            "trace", "fit", "t.csv", "--format", "generic", "--out", "w.toml",
        ],
    );
    assert!(e.secs < 30.0, "{e:#?}");
}

#[test]
fn a_spot_deadline_with_a_changeover_of_weeks_ends() {
    let root = env!("CARGO_MANIFEST_DIR");
    let d = scratch();
    let body = format!(
        "{}\n[spot_deadline]\ntrace = \"{root}/data/spot/us-east-1f_v100_1.csv\"\nprices = \"{root}/data/spot/us-east-1f_v100_prices.json\"\nprices_zone = \"us-east-1f_v100_1\"\nwork = \"24h\"\ndeadline = \"36h\"\nchangeover = \"21d\"\non_demand_per_hour = 3.06\nstarts = 8\n",
        synthetic("jobs = 3", "1.0", "1h")
    );
    let f = put(d.path(), "s.toml", &scenario("", &body));
    let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]);
    if e.code != 0 {
        e.refused(2, &["changeover"]);
    }
}

#[test]
fn a_deeply_nested_scenario_is_refused() {
    // 100,000 nested arrays: a recursive parser without a depth limit overflows its stack.
    let d = scratch();
    let text = format!("name = {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let f = put(d.path(), "s.toml", &text);
    gpufleet(d.path(), &["validate", f.to_str().unwrap()]).refused(2, &["s.toml"]);
}

#[test]
fn a_huge_scenario_file_is_refused_unread() {
    let d = scratch();
    let f = super::zeros(d.path(), "s.toml", 3 << 30);
    gpufleet(d.path(), &["validate", f.to_str().unwrap()]).refused(2, &["s.toml"]);
}

#[test]
fn an_endless_device_as_the_scenario_is_refused_at_the_limit() {
    // /dev/zero has no length to refuse it by: it is read up to the limit, in large
    // chunks (read a few bytes at a time, this took 10 s).
    let d = scratch();
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let e = gpufleet(d.path(), &["validate", "/dev/zero"]);
    e.refused(2, &["/dev/zero", "bytes"]);
    assert!(e.secs < 5.0, "{e:#?}");
}

#[test]
fn binary_garbage_is_bad_input() {
    let d = scratch();
    let bytes: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let f = d.path().join("s.toml");
    std::fs::write(&f, bytes).unwrap();
    gpufleet(d.path(), &["validate", f.to_str().unwrap()]).refused(2, &["s.toml"]);
}

/// A sweep over `params` (TOML `[[param]]` tables) of a small valid scenario.
fn sweep_of(d: &std::path::Path, top: &str, params: &str) -> std::path::PathBuf {
    let body = "[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 10\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n";
    put(d, "s.toml", &scenario("", body));
    put(
        d,
        "sweep.toml",
        &format!("name = \"w\"\nscenario = \"s.toml\"\n{top}\n{params}"),
    )
}

#[test]
fn a_grid_of_a_trillion_points_is_refused_before_it_is_built() {
    // 1,000,000 x 1,000,000 points: the grid alone would be terabytes.
    let d = scratch();
    let p = "[[param]]\npath = \"pools[0].nodes\"\nrange = { start = 1, end = 1000000 }\n\
             [[param]]\npath = \"seed\"\nrange = { start = 1, end = 1000000 }\n";
    let f = sweep_of(d.path(), "mode = \"grid\"", p);
    let e = gpufleet(
        d.path(),
        &["sweep", f.to_str().unwrap(), "--out", "o", "--check"],
    );
    e.refused(2, &["sweep.toml", "points", "1000000 x 1000000", "100,000"]);
    assert!(e.secs < 10.0, "{e:#?}");
}

#[test]
fn points_times_seeds_above_the_run_cap_are_refused() {
    // 1,000 points x 100,000 seeds = 1e8 runs.
    let d = scratch();
    let p = "[[param]]\npath = \"pools[0].nodes\"\nrange = { start = 1, end = 1000 }\n";
    let f = sweep_of(d.path(), "mode = \"grid\"\nseeds = 100000", p);
    let e = gpufleet(
        d.path(),
        &["sweep", f.to_str().unwrap(), "--out", "o", "--check"],
    );
    e.refused(2, &["sweep.toml", "100,000,000 runs", "10,000,000"]);
    // Zipped parameters past the point cap: 200,001 values each.
    let p = "[[param]]\npath = \"pools[0].nodes\"\nrange = { start = 1, end = 200001 }\n\
             [[param]]\npath = \"seed\"\nrange = { start = 1, end = 200001 }\n";
    let f = sweep_of(d.path(), "mode = \"zip\"", p);
    gpufleet(
        d.path(),
        &["sweep", f.to_str().unwrap(), "--out", "o", "--check"],
    )
    .refused(2, &["sweep.toml", "200,001 points"]);
}

#[test]
fn trace_jobs_after_the_horizon_are_counted_not_dropped_silently() {
    // 10 jobs, one every 1,000 s, and a horizon of 1 h: jobs 0-3 (0..3000 s) are
    // submitted; the 6 after 3,600 s are not simulated and must be counted.
    let d = scratch();
    let mut t = String::from("job_id,submit_s,gpus,duration_s\n");
    for i in 0..10 {
        t.push_str(&format!("j{i},{},1,60\n", i * 1000));
    }
    put(d.path(), "t.csv", &t);
    let body = "[workload]\nkind = \"csv\"\npath = \"t.csv\"\n";
    let f = put(d.path(), "s.toml", &scenario("horizon = \"1h\"", body));
    let e = gpufleet(d.path(), &["run", f.to_str().unwrap(), "--out", "o"]);
    assert_eq!(e.code, 0, "{e:#?}");
    assert!(e.stdout.contains("4 submitted"), "{}", e.stdout);
    assert!(
        e.stdout
            .contains("6 more jobs of the workload arrive after the end of the run"),
        "{}",
        e.stdout
    );
    let s = std::fs::read_to_string(d.path().join("o/summary.json")).unwrap();
    assert!(s.contains("\"not_submitted\": 6"), "{s}");
}

#[test]
fn spot_interruptions_without_bound_are_refused_before_the_run() {
    // Zone spells of 2 ms over 100 years (1.6e12 of them), and a per-node hazard of 1e9
    // an hour on 16 nodes (each replaced after the default 5 min: 168 million over 100
    // years): both held every spell or interruption in memory until the allocator died.
    let d = scratch();
    let spot = "[[pools]]\nname = \"s\"\ngpu_type = \"H100\"\nkind = \"spot\"\nnodes = 16\ngpus_per_node = 8\nprice_per_node_hour = 30.0\n";
    let body = "[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 10\npreemptible_share = 1.0\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n";
    for (model, n) in [
        (
            "model = \"zone\"\nmean_up = \"1ms\"\nmean_down = \"1ms\"",
            "1.6e12",
        ),
        ("model = \"poisson\"\nper_node_hour = 1e9", "168,"),
    ] {
        let f = put(
            d.path(),
            "s.toml",
            &scenario(
                "horizon = \"36500d\"\ntimeline_interval = \"1d\"",
                &format!("{spot}\n[[spot_interruptions]]\npool = \"s\"\n{model}\n\n{body}"),
            ),
        );
        for cmd in ["validate", "run"] {
            let e = gpufleet(d.path(), &[cmd, f.to_str().unwrap()]);
            e.refused(2, &["s.toml", "spot_interruptions", n, "100,000,000"]);
        }
    }
}

#[test]
fn a_renewing_savings_plan_of_a_millisecond_is_refused() {
    // Renewed every millisecond over 100 years: 3e12 terms.
    let d = scratch();
    let body = "[savings_plan]\ncommitment_per_hour = 10.0\ndiscount = 0.3\nterm = \"1ms\"\nrenew = true\n\n[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 10\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n";
    let f = put(
        d.path(),
        "s.toml",
        &scenario("horizon = \"36500d\"\ntimeline_interval = \"1d\"", body),
    );
    gpufleet(d.path(), &["run", f.to_str().unwrap()]).refused(2, &["savings_plan.term", "1h"]);
}

#[test]
fn fleets_past_the_node_and_pool_caps_are_refused_before_they_are_built() {
    // 200 pools of a million nodes (each pool within its own cap) ended in an allocation
    // failure (abort, 11 GB); 20,000 pools ran for half a minute summing the ledger.
    let d = scratch();
    let body = "[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 10\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n";
    let pool = |i: usize, nodes: u64| {
        format!("[[pools]]\nname = \"q{i}\"\ngpu_type = \"H100\"\nkind = \"owned\"\nnodes = {nodes}\ngpus_per_node = 8\nprice_per_node_hour = 1.0\n")
    };
    let big: String = (0..200).map(|i| pool(i, 1_000_000)).collect();
    let f = put(d.path(), "s.toml", &scenario("", &format!("{body}\n{big}")));
    for cmd in ["validate", "run"] {
        let e = gpufleet(d.path(), &[cmd, f.to_str().unwrap()]);
        e.refused(2, &["s.toml", "pools", "nodes in all pools", "1000000"]);
        assert!(e.secs < 10.0, "{e:#?}");
    }
    let many: String = (0..1_001).map(|i| pool(i, 1)).collect();
    let f = put(
        d.path(),
        "m.toml",
        &scenario("", &format!("{body}\n{many}")),
    );
    let e = gpufleet(d.path(), &["run", f.to_str().unwrap()]);
    e.refused(2, &["m.toml", "pools", "1002 pools", "1000"]);
    assert!(e.secs < 10.0, "{e:#?}");
}

#[test]
fn maintenance_of_more_nodes_than_the_pool_has_is_refused() {
    // 10^9 nodes of a 2-node pool was taken as "all of them" without a word (and a count
    // past u32 wrapped round).
    let d = scratch();
    let body = "[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 10\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n\n[[maintenance]]\npool = \"p\"\nnodes = 1000000000\nstart = \"1h\"\nduration = \"1h\"\n";
    let f = put(d.path(), "s.toml", &scenario("", body));
    gpufleet(d.path(), &["validate", f.to_str().unwrap()])
        .refused(2, &["s.toml", "maintenance[0].nodes", "(2)"]);
}

#[test]
fn a_spot_parameter_of_another_model_is_refused() {
    // `mean_up` (a zone model's) beside a Poisson model was ignored silently.
    let d = scratch();
    let body = "[[pools]]\nname = \"s\"\ngpu_type = \"H100\"\nkind = \"spot\"\nnodes = 2\ngpus_per_node = 8\nprice_per_node_hour = 3.0\n\n[[spot_interruptions]]\npool = \"s\"\nmodel = \"poisson\"\nper_node_hour = 0.01\nmean_up = \"2m\"\n\n[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 10\npreemptible_share = 1.0\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n";
    let f = put(d.path(), "s.toml", &scenario("", body));
    gpufleet(d.path(), &["validate", f.to_str().unwrap()]).refused(
        2,
        &["s.toml", "spot_interruptions[0].mean_up", "per_node_hour"],
    );
}

#[test]
fn a_sweep_range_past_u64_values_is_refused_not_empty() {
    // From i64::MIN to i64::MAX (or a step of 1e-300) the count wrapped round to zero
    // values: an "ok" sweep of 0 runs.
    let d = scratch();
    for p in [
        "[[param]]\npath = \"pools[0].nodes\"\nrange = { start = -9223372036854775808, end = 9223372036854775807 }\n",
        "[[param]]\npath = \"workload.rate_per_hour\"\nrange = { start = 1.0, end = 2.0, step = 1e-300 }\n",
    ] {
        let f = sweep_of(d.path(), "mode = \"grid\"", p);
        let e = gpufleet(
            d.path(),
            &["sweep", f.to_str().unwrap(), "--out", "o", "--check"],
        );
        e.refused(2, &["sweep.toml", "range", "values, more than 1000000"]);
    }
}

#[test]
fn a_failure_trace_naming_missing_nodes_answers_at_once() {
    // 2,000,000 failures of a node the cluster lacks: one problem each ran past a minute.
    let d = scratch();
    let mut t = String::with_capacity(24 << 20);
    t.push_str("time_s,node\n");
    for i in 0..2_000_000 {
        t.push_str(&format!("{i},99\n"));
    }
    put(d.path(), "f.csv", &t);
    let body = "[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 10\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n\n[failures]\ntrace = \"f.csv\"\n";
    let f = put(d.path(), "s.toml", &scenario("", body));
    let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
    e.refused(2, &["s.toml", "failures.trace", "node 99", "1999999 more"]);
    assert!(e.secs < 15.0, "{e:#?}");
    // A failure a million millennia away is refused, not moved to the end of time.
    put(
        d.path(),
        "g.csv",
        "time_s,node,cause,repair_s\n100,0,x,1e308\n",
    );
    let f = put(
        d.path(),
        "t.toml",
        &scenario("", &body.replace("f.csv", "g.csv")),
    );
    let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
    e.refused(2, &["g.csv", "repair_s", "too large"]);
    // The trace's own problem is the only one: "give a preset, a rate or a trace" came
    // first, though a trace was given.
    assert!(!e.stderr.contains("give a preset"), "{}", e.stderr);
}

#[test]
fn an_unknown_chart_metric_of_a_sweep_is_named_not_dropped() {
    let d = scratch();
    let p = "[[param]]\npath = \"seed\"\nvalues = [1]\n\n[charts]\nmetrics = [\"wait_s_p95\", \"no_such_figure\"]\n";
    let f = sweep_of(d.path(), "mode = \"grid\"", p);
    let e = gpufleet(d.path(), &["sweep", f.to_str().unwrap(), "--out", "o"]);
    assert_eq!(e.code, 0, "{e:#?}");
    assert!(
        e.stderr.contains("charts.metrics") && e.stderr.contains("no_such_figure"),
        "{}",
        e.stderr
    );
}

#[test]
fn a_thread_count_past_the_limit_is_refused_at_once() {
    // --threads 100000 spawned threads one by one for minutes before any run.
    let d = scratch();
    let f = sweep_of(
        d.path(),
        "mode = \"grid\"",
        "[[param]]\npath = \"seed\"\nvalues = [1]\n",
    );
    let e = gpufleet(
        d.path(),
        &[
            "sweep",
            f.to_str().unwrap(),
            "--out",
            "o",
            "--threads",
            "100000",
        ],
    );
    e.refused(2, &["--threads", "1024"]);
    assert!(e.secs < 5.0, "{e:#?}");
}

#[test]
fn an_hourly_price_past_any_machine_is_refused_not_billed_as_infinity() {
    // 1e308 dollars a node-hour ran with exit 0 and bills of infinity (`null` in the
    // summary); a price over ten million dollars an hour is refused, naming the field.
    let d = scratch();
    let body = "[[pools]]\nname = \"q\"\ngpu_type = \"H100\"\nkind = \"on_demand\"\nnodes = 1\ngpus_per_node = 8\nprice_per_node_hour = 1e308\n\n[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 10\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n";
    let f = put(d.path(), "s.toml", &scenario("", body));
    gpufleet(d.path(), &["validate", f.to_str().unwrap()]).refused(
        2,
        &["s.toml", "pools[1].price_per_node_hour", "dollars an hour"],
    );
    // A real price still passes.
    let ok = body.replace("1e308", "98.32");
    let f = put(d.path(), "ok.toml", &scenario("", &ok));
    let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
    assert_eq!(e.code, 0, "{e:#?}");
}

#[test]
fn a_gpu_speed_past_any_generation_is_refused() {
    // `speed = 1e-300` ran with exit 0 and every run time clamped to the clock's end; a
    // speed a thousand times off the reference either way is refused, naming the field.
    let d = scratch();
    let body = "[[gpu_types]]\nname = \"Slow\"\nspeed = 1e-300\n\n[[pools]]\nname = \"q\"\ngpu_type = \"Slow\"\nkind = \"on_demand\"\nnodes = 1\ngpus_per_node = 8\nprice_per_node_hour = 10.0\n\n[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 10\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n";
    for bad in ["1e-300", "1e300", "0.0009"] {
        let text = body.replace("1e-300", bad);
        let f = put(d.path(), "s.toml", &scenario("", &text));
        for cmd in ["validate", "run"] {
            gpufleet(d.path(), &[cmd, f.to_str().unwrap()]).refused(
                2,
                &["s.toml", "gpu_types[0].speed", "between 0.001 and 1000"],
            );
        }
    }
    // The slowest and fastest allowed pass.
    for ok in ["0.001", "1000.0"] {
        let f = put(
            d.path(),
            "ok.toml",
            &scenario("", &body.replace("1e-300", ok)),
        );
        let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
        assert_eq!(e.code, 0, "{e:#?}");
    }
}

#[test]
fn a_comparison_too_large_to_run_is_refused_at_once() {
    // 100,000 variants built every one as a whole scenario before refusing or running; a
    // list of a million seeds and a bootstrap of 1e6 resamples x 10,000 seeds were taken.
    let d = scratch();
    let body = "[[pools]]\nname = \"q\"\ngpu_type = \"H100\"\nkind = \"on_demand\"\nnodes = 1\ngpus_per_node = 8\nprice_per_node_hour = 10.0\n\n[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 10\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n";
    put(d.path(), "base.toml", &scenario("", body));
    let mut many = String::from("scenario = \"base.toml\"\n");
    for i in 0..100_000 {
        many.push_str(&format!(
            "[[variant]]\nname = \"v{i}\"\nset = {{ \"scheduler.policy\" = \"fifo\" }}\n"
        ));
    }
    let f = put(d.path(), "many.toml", &many);
    let e = gpufleet(d.path(), &["compare", f.to_str().unwrap(), "--out", "o"]);
    e.refused(2, &["many.toml", "100000 variants, more than 1000"]);
    assert!(e.secs < 10.0, "{e:#?}");
    let two = "scenario = \"base.toml\"\n[[variant]]\nname = \"a\"\nset = { \"pools[q].nodes\" = 1 }\n[[variant]]\nname = \"b\"\nset = { \"pools[q].nodes\" = 2 }\n";
    let seeds: Vec<String> = (0..20_000).map(|i| i.to_string()).collect();
    let f = put(
        d.path(),
        "seeds.toml",
        &format!("seeds = [{}]\n{two}", seeds.join(", ")),
    );
    gpufleet(d.path(), &["compare", f.to_str().unwrap(), "--out", "o"])
        .refused(2, &["seeds.toml", "20000 seeds, more than 10000"]);
    let f = put(d.path(), "boot.toml", two);
    let args = [
        "compare",
        f.to_str().unwrap(),
        "--out",
        "o",
        "--seeds",
        "10000",
        "--bootstrap",
        "1000000",
    ];
    let e = gpufleet(d.path(), &args);
    e.refused(2, &["bootstrap", "draws, more than 1e10"]);
    assert!(!d.path().join("o").exists(), "nothing ran");
}

#[test]
fn money_and_sizes_past_any_real_figure_are_refused_in_every_pricing_model() {
    // Prices inside the pricing models (reserved, spot, owned), transfer prices and sizes
    // took 1e308 with exit 0 and bills of infinity; each is refused, naming its field.
    let d = scratch();
    let work = "[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 10\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n";
    let pool = |kind: &str, pricing: &str| {
        format!("[[pools]]\nname = \"q\"\ngpu_type = \"H100\"\nkind = \"{kind}\"\nnodes = 1\ngpus_per_node = 8\nprice_per_node_hour = 10.0\n[pools.pricing]\n{pricing}\n\n{work}")
    };
    let owned = "kind = \"owned\"\ncapex_per_node = 400000\nlife_years = 5\n";
    let cases: Vec<(String, &str)> = vec![
        (
            pool(
                "reserved",
                "kind = \"reserved\"\nterm = \"365d\"\nrecurring_per_node_hour = 1e308",
            ),
            "pricing.recurring_per_node_hour",
        ),
        (
            pool(
                "reserved",
                "kind = \"reserved\"\nterm = \"365d\"\nupfront_per_node = 1e308",
            ),
            "pricing.upfront_per_node",
        ),
        (
            pool(
                "spot",
                "kind = \"spot\"\nprice = { kind = \"constant\", value = 1e308 }",
            ),
            "pricing.price.value",
        ),
        (
            pool(
                "owned",
                "kind = \"owned\"\ncapex_per_node = 1e308\nlife_years = 5",
            ),
            "pricing.capex_per_node",
        ),
        (pool("owned", &format!("{owned}pue = 1e308")), "pricing.pue"),
        (
            pool("owned", &format!("{owned}usd_per_kwh = 1e308")),
            "pricing.usd_per_kwh",
        ),
        (
            pool("owned", &format!("{owned}cost_of_capital = 1e308")),
            "pricing.cost_of_capital",
        ),
        (
            pool(
                "owned",
                "kind = \"owned\"\ncapex_per_node = 400000\nlife_years = 1e308",
            ),
            "pricing.life_years",
        ),
        (
            format!("{work}\n[transfer]\ncross_zone_per_gb = 1e308\n"),
            "transfer.cross_zone_per_gb",
        ),
        (
            format!("{work}\n[transfer]\negress_gb_per_job = 1e308\n"),
            "transfer.egress_gb_per_job",
        ),
    ];
    for (i, (body, field)) in cases.iter().enumerate() {
        let f = put(d.path(), &format!("s{i}.toml"), &scenario("", body));
        gpufleet(d.path(), &["validate", f.to_str().unwrap()])
            .refused(2, &[&format!("s{i}.toml"), field, "must be", "got 1e308"]);
        // The same scenario with a real figure passes.
        let real = if field.contains("cost_of_capital") {
            "0.1"
        } else {
            "2"
        };
        let ok = body.replace("1e308", real);
        let f = put(d.path(), &format!("ok{i}.toml"), &scenario("", &ok));
        let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
        assert_eq!(e.code, 0, "{e:#?}");
    }
}

/// A model workload table with `extra` keys, `arrivals` and `tenants` (TOML text).
fn model(extra: &str, arrivals: &str, tenant_weight: &str) -> String {
    format!(
        "[workload]\nkind = \"model\"\n{extra}\n[workload.arrivals]\n{arrivals}\n\
         [[workload.tenants]]\nname = \"t\"\nweight = {tenant_weight}\n\
         sizes = [{{ gpus = 1, weight = 1 }}]\nduration = {{ kind = \"fixed\", value = \"1h\" }}\n"
    )
}

#[test]
fn a_model_whose_rate_is_all_but_zero_ends() {
    // A rate of 2e-300 an hour drew no arrival and stepped through day segments for ever
    // (the generator hung); it ends with no arrivals in its ten days.
    let d = scratch();
    let body = model(
        "rate_multiplier = 1e-300",
        "kind = \"poisson\"\nrate_per_hour = 2",
        "1",
    );
    let f = put(d.path(), "s.toml", &scenario("horizon = \"10d\"", &body));
    let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]);
    assert_eq!(e.code, 0, "{e:#?}");
    let summary = std::fs::read_to_string(d.path().join("o/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(v["jobs"]["submitted"], 0, "{summary}");
}

#[test]
fn weights_whose_sum_is_infinite_are_refused() {
    // Two weights of 1e308 add up to infinity: the mix then drew its last entry only
    // (every job 2 GPUs, every job tenant b) and an arrival profile drew no job at all,
    // with exit 0.
    let d = scratch();
    let sizes = "[workload]\nkind = \"synthetic\"\njobs = 10\nrate_per_hour = 2\n\
        sizes = [{ gpus = 1, weight = 1e308 }, { gpus = 2, weight = 1e308 }]\n\
        tenants = [{ name = \"a\", weight = 1 }, { name = \"b\", weight = 1e308 }]\n\
        duration = { kind = \"fixed\", value = \"1h\" }\n";
    let f = put(d.path(), "s.toml", &scenario("", sizes));
    gpufleet(d.path(), &["validate", f.to_str().unwrap()]).refused(
        2,
        &[
            "s.toml",
            "workload.sizes[0].weight",
            "workload.sizes[1].weight",
            "workload.tenants[1].weight",
            "at most 1e12",
        ],
    );
    let hourly = vec!["1e308"; 24].join(", ");
    let body = model(
        "",
        &format!("kind = \"profile\"\nrate_per_hour = 2\nhourly = [{hourly}]"),
        "1",
    );
    let f = put(d.path(), "m.toml", &scenario("horizon = \"10d\"", &body));
    gpufleet(d.path(), &["validate", f.to_str().unwrap()])
        .refused(2, &["m.toml", "workload.arrivals.hourly", "at most 1e12"]);
    let f = put(
        d.path(),
        "w.toml",
        &scenario(
            "",
            &format!(
                "{}[scheduler]\npolicy = \"fair_share\"\ntenant_weights = {{ default = inf }}\n",
                synthetic("jobs = 3", "1", "1h")
            ),
        ),
    );
    gpufleet(d.path(), &["validate", f.to_str().unwrap()])
        .refused(2, &["w.toml", "scheduler.tenant_weights.default"]);
    // Large but real weights still validate.
    let body = model("", "kind = \"poisson\"\nrate_per_hour = 2", "1e9");
    let f = put(d.path(), "ok.toml", &scenario("horizon = \"10d\"", &body));
    let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
    assert_eq!(e.code, 0, "{e:#?}");
}

#[test]
fn a_horizon_of_zero_is_refused() {
    // A run stopping at 0 generated nothing and reported nothing lost, with exit 0.
    let d = scratch();
    let body = synthetic("jobs = 50", "2", "1h");
    let f = put(d.path(), "s.toml", &scenario("horizon = \"0s\"", &body));
    gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"])
        .refused(2, &["s.toml", "horizon", "longer than zero"]);
    let f = put(d.path(), "ok.toml", &scenario("horizon = \"1ms\"", &body));
    let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
    assert_eq!(e.code, 0, "{e:#?}");
}

#[test]
fn a_duration_without_a_finite_mean_is_named_at_its_field() {
    // A lognormal sigma of 1e300 (or a Weibull shape of 1e-300) without a horizon was
    // refused as "unbounded timeline rows" at `timeline_interval`, blaming the wrong field.
    let d = scratch();
    for (dist, ok) in [
        (
            "{ kind = \"lognormal\", median = \"1h\", sigma = 1e300 }",
            "{ kind = \"lognormal\", median = \"1h\", sigma = 2.0 }",
        ),
        (
            "{ kind = \"weibull\", scale = \"1h\", shape = 1e-300 }",
            "{ kind = \"weibull\", scale = \"1h\", shape = 0.5 }",
        ),
    ] {
        let body = |d: &str| {
            format!("[workload]\nkind = \"synthetic\"\nrate_per_hour = 2.0\njobs = 50\nsizes = [{{ gpus = 1, weight = 1 }}]\nduration = {d}\n")
        };
        let f = put(d.path(), "s.toml", &scenario("", &body(dist)));
        let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
        e.refused(
            2,
            &[
                "s.toml",
                "workload.duration",
                "mean run time",
                "past the longest span",
            ],
        );
        assert!(!e.stderr.contains("timeline_interval"), "{}", e.stderr);
        let f = put(d.path(), "ok.toml", &scenario("", &body(ok)));
        let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
        assert_eq!(e.code, 0, "{e:#?}");
        // With a horizon the run is bounded by it, and runs.
        let f = put(
            d.path(),
            "h.toml",
            &scenario("horizon = \"2d\"", &body(dist)),
        );
        let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]);
        assert_eq!(e.code, 0, "{e:#?}");
    }
}

#[test]
fn an_unknown_compare_metric_is_refused_before_the_runs() {
    // `--metric no_such_metric` (or a misspelt `metrics` entry) ran every variant, printed
    // "no run has this metric" (nothing at all under -q) and exited 0.
    let d = scratch();
    let body = "[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 10\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n";
    let s = put(d.path(), "s.toml", &scenario("", body));
    let args = [
        "compare",
        "-q",
        s.to_str().unwrap(),
        "--policies",
        "fifo,sjf",
        "--seeds",
        "2",
        "--out",
        "o",
    ];
    let mut bad = args.to_vec();
    bad.extend(["--metric", "wait_s_p95", "--metric", "no_such_metric"]);
    gpufleet(d.path(), &bad).refused(2, &["--metric", "no_such_metric"]);
    assert!(!d.path().join("o").exists());
    let c = put(
        d.path(),
        "c.toml",
        "name = \"c\"\nscenario = \"s.toml\"\nseeds = 2\nmetrics = [\"utilisation\"]\n\n[[variant]]\nname = \"a\"\nset = { \"scheduler.policy\" = \"fifo\" }\n",
    );
    for cmd in ["validate", "compare"] {
        gpufleet(d.path(), &[cmd, c.to_str().unwrap()])
            .refused(2, &["c.toml", "metrics", "utilisation"]);
    }
    // Real figures, a per-pool cost among them, still run.
    let mut good = args.to_vec();
    good.extend(["--metric", "wait_s_p95", "--metric", "cost_usd_p"]);
    assert_eq!(gpufleet(d.path(), &good).code, 0);
}

#[test]
fn a_time_compression_near_zero_is_refused_not_clamped() {
    // time_compression = 1e-300 put every job at the largest time there is (584 million
    // years), each "run" in 0 s, and the run exited 0.
    let d = scratch();
    put(
        d.path(),
        "t.csv",
        "job_id,submit_s,gpus,duration_s\na,0,1,60\nb,50,1,60\n",
    );
    let body = "[workload]\nkind = \"trace\"\nformat = \"generic\"\npath = \"t.csv\"\ntime_compression = 1e-300\n";
    let f = put(d.path(), "s.toml", &scenario("", body));
    for cmd in ["validate", "run"] {
        gpufleet(d.path(), &[cmd, f.to_str().unwrap()])
            .refused(2, &["t.csv", "time_compression", "1e-300"]);
    }
    // A real compression still runs.
    let f = put(
        d.path(),
        "ok.toml",
        &scenario("", &body.replace("1e-300", "0.5")),
    );
    assert_eq!(
        gpufleet(d.path(), &["validate", f.to_str().unwrap()]).code,
        0
    );
}

#[test]
fn trace_commands_keep_at_most_max_jobs() {
    // `trace inspect|convert|fit` kept every row of any trace (100 million rows: about
    // 60 GB); they stop at a scenario's default cap, or `--max-jobs`.
    let d = scratch();
    let f = put(
        d.path(),
        "four.csv",
        "job_id,submit_s,duration_s,gpus\na,0,60,1\nb,1,60,1\nc,2,60,1\nd,3,60,1\n",
    );
    let f = f.to_str().unwrap();
    for cmd in [
        vec!["trace", "inspect", f, "--format", "generic"],
        vec!["trace", "convert", "--from", "generic", f, "out.csv"],
        vec!["trace", "fit", f, "--format", "generic"],
    ] {
        let mut args = cmd.clone();
        args.extend(["--max-jobs", "3"]);
        let e = gpufleet(d.path(), &args);
        e.refused(2, &["four.csv", "more than 3 jobs", "--max-jobs"]);
        let mut args = cmd.clone();
        args.extend(["--max-jobs", "4"]);
        let e = gpufleet(d.path(), &args);
        assert_eq!(e.code, 0, "{cmd:?}: {e:#?}");
    }
    // A scenario's `max_jobs` holds for a generic trace read as `kind = "trace"` (it was
    // applied to every other format, and to `kind = "csv"`, but not this one).
    let text = scenario(
        "max_jobs = 3",
        "[workload]\nkind = \"trace\"\nformat = \"generic\"\npath = \"four.csv\"\n",
    );
    let s = put(d.path(), "s.toml", &text);
    let e = gpufleet(d.path(), &["run", s.to_str().unwrap(), "--out", "r", "-q"]);
    e.refused(2, &["four.csv", "more than 3 jobs"]);
    // Replication is held to the same cap.
    let e = gpufleet(
        d.path(),
        &[
            "trace",
            "inspect",
            f,
            "--format",
            "generic",
            "--load-scale",
            "2",
            "--max-jobs",
            "5",
        ],
    );
    e.refused(2, &["load_scale 2", "max_jobs (5", "--max-jobs"]);
}

#[test]
fn pai_job_tables_and_openb_pod_lists_stop_at_max_jobs_while_reading() {
    // The PAI job table and the openb pod list were read whole whatever `max_jobs` said
    // (the openb trace was capped only after every pod was held). Each file here has four
    // good rows, then a bad one: held to three jobs, the read stops at the fourth, before
    // the bad row; held to four, it reads on to the bad row and names it.
    let d = scratch();
    put(
        d.path(),
        "task.csv",
        "j1,t1,1,Terminated,0,100,100,1,100,\nj2,t1,1,Terminated,0,100,100,1,100,\n",
    );
    put(
        d.path(),
        "jobs.csv",
        "j1,i1,alice,Terminated,0,100\nj2,i2,bob,Terminated,0,100\n\
         j3,i3,bob,Terminated,0,100\nj4,i4,carol,Terminated,0,100\nj5,i5\n",
    );
    let pai = |max: &str| {
        gpufleet(
            d.path(),
            &[
                "trace",
                "inspect",
                "task.csv",
                "--format",
                "pai",
                "--pai-job-table",
                "jobs.csv",
                "--max-jobs",
                max,
            ],
        )
    };
    let e = pai("3");
    e.refused(2, &["jobs.csv", "more than 3 jobs", "--max-jobs"]);
    assert!(!e.stderr.contains("jobs.csv:5"), "{e:#?}");
    pai("4").refused(2, &["jobs.csv:5", "2 fields"]);
    // A scenario's `max_jobs` reaches the job table too.
    let text = scenario(
        "max_jobs = 3",
        "[workload]\nkind = \"trace\"\nformat = \"pai\"\npath = \"task.csv\"\npai_job_table = \"jobs.csv\"\n",
    );
    let s = put(d.path(), "s.toml", &text);
    let e = gpufleet(d.path(), &["run", s.to_str().unwrap(), "--out", "r", "-q"]);
    e.refused(2, &["jobs.csv", "more than 3 jobs"]);

    // openb: with the time columns (a trace in time) and without (a list of pods).
    let full = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n\
        a,1000,10,1,1000,,LS,Succeeded,0,60,0\nb,1000,10,1,1000,,LS,Succeeded,1,60,1\n\
        c,1000,10,1,1000,,LS,Succeeded,2,60,2\nd,1000,10,1,1000,,LS,Succeeded,3,60,3\n\
        e,x,10,1,1000,,LS,Succeeded,4,60,4\n";
    let short = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n\
        a,1000,10,1,1000\nb,1000,10,1,1000\nc,1000,10,1,1000\nd,1000,10,1,1000\ne,x,10,1,1000\n";
    put(d.path(), "pods.csv", full);
    put(d.path(), "short.csv", short);
    for (file, cmd) in [
        (
            "pods.csv",
            vec!["trace", "inspect", "pods.csv", "--format", "openb"],
        ),
        (
            "pods.csv",
            vec!["trace", "convert", "--from", "openb", "pods.csv", "o.csv"],
        ),
        (
            "pods.csv",
            vec!["trace", "fit", "pods.csv", "--format", "openb"],
        ),
        (
            "short.csv",
            vec!["trace", "inspect", "short.csv", "--format", "openb"],
        ),
    ] {
        let mut args = cmd.clone();
        args.extend(["--max-jobs", "3"]);
        let e = gpufleet(d.path(), &args);
        e.refused(2, &[file, "more than 3 jobs", "--max-jobs"]);
        assert!(!e.stderr.contains(&format!("{file}:6")), "{cmd:?}: {e:#?}");
        let mut args = cmd.clone();
        args.extend(["--max-jobs", "4"]);
        let e = gpufleet(d.path(), &args);
        e.refused(2, &[&format!("{file}:6"), "cpu_milli"]);
    }
    let text = scenario(
        "max_jobs = 3",
        "[workload]\nkind = \"trace\"\nformat = \"openb\"\npath = \"pods.csv\"\n",
    );
    let s = put(d.path(), "s.toml", &text);
    let e = gpufleet(d.path(), &["run", s.to_str().unwrap(), "--out", "r", "-q"]);
    e.refused(2, &["pods.csv", "more than 3 jobs"]);
    assert!(!e.stderr.contains("pods.csv:6"), "{e:#?}");
}

/// A node list (`openb`: header first) or a PAI machine spec of `n` distinct CPU-only
/// machines, each with its own core count.
fn machines(d: &Path, name: &str, openb: bool, n: u32) -> std::path::PathBuf {
    let mut text = String::with_capacity(n as usize * 24);
    if openb {
        text.push_str("sn,cpu_milli,memory_mib,gpu,model\n");
    }
    for i in 0..n {
        if openb {
            text.push_str(&format!("n{i},{},1024,0,\n", 1000 + i));
        } else {
            text.push_str(&format!("m{i},CPU,{},512,0\n", 1 + i));
        }
    }
    put(d, name, &text)
}

#[test]
fn node_lists_past_the_node_cap_are_refused_while_reading() {
    // A node list or machine spec was read whole whatever its length (the cluster it made
    // past a million nodes was refused only as a scenario, if ever); now it stops at the
    // cap on a cluster's nodes, 1,000,000 (as a scenario's pools together).
    let d = scratch();
    let over = MILLION + 1;
    for (openb, from) in [(true, "openb_nodes"), (false, "pai_machines")] {
        let f = machines(d.path(), "big.csv", openb, over);
        let e = gpufleet(
            d.path(),
            &[
                "trace",
                "convert",
                "--from",
                from,
                f.to_str().unwrap(),
                "/dev/null",
            ],
        );
        let what = if openb { "nodes" } else { "machines" };
        e.refused(2, &["big.csv", &format!("more than 1000000 {what}")]);
    }
}

/// The node cap.
const MILLION: u32 = 1_000_000;

#[test]
fn a_node_list_of_distinct_machines_groups_in_linear_time() {
    // Grouping identical machines searched every group for each machine: 300,000 distinct
    // machines took 45 billion comparisons (minutes); each group is now found in constant
    // time.
    let d = scratch();
    for (openb, from) in [(true, "openb_nodes"), (false, "pai_machines")] {
        let f = machines(d.path(), "distinct.csv", openb, 300_000);
        let e = gpufleet(
            d.path(),
            &[
                "trace",
                "convert",
                "--from",
                from,
                f.to_str().unwrap(),
                "/dev/null",
            ],
        );
        assert_eq!(e.code, 0, "{from}: {e:#?}");
        assert!(e.stdout.contains("300000 machines"), "{from}: {e:#?}");
        assert!(e.secs < 20.0, "{from}: {e:#?}");
    }
}

#[test]
fn a_weibull_shape_whose_gaps_vanish_under_a_millisecond_is_refused() {
    // weibull_shape = 0.01 at 0.01 failures a node-day: a mean gap of 100 days, but almost
    // every gap under the clock's millisecond. Counted by the mean (73 failures in ten
    // years) it passed, and the run failed a node at every millisecond for ever.
    let d = scratch();
    let body = |shape: &str| {
        format!(
            "{}\n[failures]\nrate_per_node_day = 0.01\ndistribution = \"weibull\"\nweibull_shape = {shape}\nrepair = \"0s\"\n",
            synthetic("jobs = 3", "1.0", "1h")
        )
    };
    let f = put(
        d.path(),
        "s.toml",
        &scenario("horizon = \"3650d\"", &body("0.01")),
    );
    for cmd in ["validate", "run"] {
        let e = gpufleet(d.path(), &[cmd, f.to_str().unwrap()]);
        e.refused(2, &["s.toml", "failures", "100,000,000", "weibull_shape"]);
        assert!(e.secs < 10.0, "{e:#?}");
    }
    // Infant mortality as measured (a shape of 0.7) still runs.
    let f = put(
        d.path(),
        "ok.toml",
        &scenario("horizon = \"3650d\"", &body("0.7")),
    );
    let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]);
    assert_eq!(e.code, 0, "{e:#?}");
}

#[test]
fn failures_over_a_trace_without_horizon_are_counted_once_it_is_read() {
    // A trace's span is unknown until it is read, so failures and spot interruptions were
    // never counted: one 63-year job on a quiet pool kept a run going while 1,000 other
    // nodes failed 1,000 times a day each (a hang), or lost spot nodes 100 times an hour
    // each (an abort on memory).
    let d = scratch();
    put(
        d.path(),
        "long.csv",
        "job_id,submit_s,gpus,duration_s\na,0,1,2000000000\n",
    );
    let two = |kind: &str, top: &str, faults: &str| {
        format!(
            "name = \"t\"\nseed = 1\n{top}\n[[pools]]\nname = \"p\"\ngpu_type = \"H100\"\nkind = \"owned\"\nnodes = 2\ngpus_per_node = 8\nprice_per_node_hour = 12.0\n\n[[pools]]\nname = \"q\"\ngpu_type = \"H100\"\nkind = \"{kind}\"\nnodes = 1000\ngpus_per_node = 8\nprice_per_node_hour = 12.0\n\n[workload]\nkind = \"csv\"\npath = \"long.csv\"\n\n{faults}"
        )
    };
    let failures = "[failures]\nrate_per_node_day = 1000\nrepair = \"1m\"\npools = [\"q\"]\n";
    let spot = "[[spot_interruptions]]\npool = \"q\"\nmodel = \"poisson\"\nper_node_hour = 100\n";
    for (kind, faults, field) in [
        ("owned", failures, "failures"),
        ("spot", spot, "spot_interruptions"),
    ] {
        let f = put(d.path(), "s.toml", &two(kind, "", faults));
        for cmd in ["validate", "run"] {
            let e = gpufleet(d.path(), &[cmd, f.to_str().unwrap()]);
            e.refused(2, &["long.csv", field, "100,000,000", "horizon"]);
            assert!(e.secs < 10.0, "{e:#?}");
        }
        // A horizon bounds the run: a day of it is within the limits.
        let f = put(d.path(), "h.toml", &two(kind, "horizon = \"1d\"", faults));
        let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
        assert_eq!(e.code, 0, "{e:#?}");
    }
}

#[test]
fn fair_share_over_many_waiting_tenants_ends() {
    // 60,000 tenants with one job each, arriving every second on 16 GPUs: every pass
    // tried each waiting tenant's job (20,000 tenants took 42 s, 200,000 hours). A pass
    // now passes a shape that does not fit over at once.
    let d = scratch();
    let mut t = String::from("job_id,submit_s,gpus,duration_s,tenant\n");
    for i in 0..60_000 {
        t.push_str(&format!("j{i},{i},1,3600,t{i}\n"));
    }
    put(d.path(), "t.csv", &t);
    let body =
        "[scheduler]\npolicy = \"fair_share\"\n\n[workload]\nkind = \"csv\"\npath = \"t.csv\"\n";
    let f = put(
        d.path(),
        "s.toml",
        &scenario("timeline_interval = \"1d\"", body),
    );
    let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]);
    assert_eq!(e.code, 0, "{e:#?}");
    assert!(e.secs < 30.0, "{e:#?}");
    let summary = std::fs::read_to_string(d.path().join("o/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(v["jobs"]["completed"], 60_000, "{summary}");
}

#[test]
fn a_queue_of_many_distinct_shapes_ends() {
    // 30,000 jobs of one GPU, each asking for its own memory (so each its own shape), one
    // a second on 16 GPUs: greedy and fair share tried every shape on every event once
    // the cluster was full (greedy FIFO 71 s, fair share past 100 s). A pass now ends
    // when no waiting request could fit.
    let d = scratch();
    let mut t = String::from("job_id,submit_s,gpus,duration_s,tenant,mem_gib\n");
    for i in 0..30_000 {
        t.push_str(&format!(
            "j{i},{i},1,3600,t{i},{}\n",
            1.0 + i as f64 / 1000.0
        ));
    }
    put(d.path(), "t.csv", &t);
    for policy in ["greedy_fifo", "greedy_sjf", "fair_share"] {
        let body = format!(
            "[scheduler]\npolicy = \"{policy}\"\n\n[workload]\nkind = \"csv\"\npath = \"t.csv\"\n"
        );
        let f = put(
            d.path(),
            "s.toml",
            &scenario("timeline_interval = \"1d\"", &body),
        );
        let e = gpufleet(
            d.path(),
            &["run", "-q", f.to_str().unwrap(), "--out", policy],
        );
        assert_eq!(e.code, 0, "{e:#?}");
        assert!(e.secs < 20.0, "{policy}: {e:#?}");
        let summary = std::fs::read_to_string(d.path().join(policy).join("summary.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
        assert_eq!(v["jobs"]["completed"], 30_000, "{policy}: {summary}");
    }
}

#[test]
fn a_failure_trace_past_ten_million_rows_is_refused_while_reading() {
    // Rows of four bytes ("0,0\n") held about 100 bytes each: a trace within the 256 MiB
    // file limit held 7 GB. It stops at 10,000,000 failures, naming the row.
    let d = scratch();
    let mut t = String::with_capacity(41 << 20);
    t.push_str("time_s,node\n");
    for _ in 0..10_000_001 {
        t.push_str("0,0\n");
    }
    put(d.path(), "f.csv", &t);
    drop(t);
    let body = format!(
        "{}\n[failures]\ntrace = \"f.csv\"\n",
        synthetic("jobs = 3", "1.0", "1h")
    );
    let f = put(d.path(), "s.toml", &scenario("", &body));
    let e = gpufleet(d.path(), &["validate", f.to_str().unwrap()]);
    e.refused(2, &["f.csv", "row 10000002", "more than 10000000 failures"]);
}

#[test]
fn experiments_listing_a_run_many_times_are_refused_at_once() {
    // An FGD experiment of a million seeds (or one policy named a million times), or a
    // placement comparison naming one placement a million times, validated "ok" and ran
    // for days.
    let root = env!("CARGO_MANIFEST_DIR");
    let data = format!("{root}/data/openb-2023");
    let d = scratch();
    let fgd = |policies: &str, seeds: &str| {
        format!("name = \"f\"\n[fgd_experiment]\nnodes = \"{data}/openb_node_list_gpu_node.csv\"\npods = \"{data}/openb_pod_list_default.csv\"\npolicies = [{policies}]\nseeds = [{seeds}]\n")
    };
    let many: Vec<String> = (0..10_001).map(|i| i.to_string()).collect();
    let cases = [
        (fgd("\"fgd\"", &many.join(",")), "fgd_experiment.seeds", "10001 seeds, more than 10000"),
        (fgd("\"fgd\"", "1, 2, 1"), "fgd_experiment.seeds", "1 is listed twice"),
        (fgd("\"fgd\", \"best_fit\", \"fgd\"", "1"), "fgd_experiment.policies", "fgd is listed twice"),
        (
            format!("name = \"c\"\n[placement_comparison]\nnodes = \"{data}/openb_node_list_all_node.csv\"\npods = \"{data}/openb_pod_list_default.csv\"\nplacements = [\"best_fit\", \"fgd\", \"best_fit\"]\nusd_per_gpu_hour = 1.0\nusd_per_cpu_node_hour = 0.5\n"),
            "placement_comparison.placements",
            "best_fit is listed twice",
        ),
    ];
    for (text, field, what) in cases {
        let f = put(d.path(), "x.toml", &text);
        for args in [
            &["validate", f.to_str().unwrap()][..],
            &["run", f.to_str().unwrap(), "--out", "o"][..],
        ] {
            let e = gpufleet(d.path(), args);
            e.refused(2, &["x.toml", field, what]);
            assert!(e.secs < 10.0, "{e:#?}");
        }
    }
}

#[test]
fn a_savings_plan_over_a_trace_of_millennia_is_refused_once_it_is_read() {
    // A savings plan is settled hour by hour over the whole run: a trace job of 2.8
    // million years (90,000,000,000,000 s, within the trace limit) without a horizon held
    // a vector of its hours until the allocator aborted.
    let d = scratch();
    put(
        d.path(),
        "long.csv",
        "job_id,submit_s,gpus,duration_s\na,0,1,90000000000000\n",
    );
    let body = "[savings_plan]\ncommitment_per_hour = 10.0\ndiscount = 0.3\nterm = \"1h\"\nrenew = true\n\n[workload]\nkind = \"csv\"\npath = \"long.csv\"\n";
    let f = put(d.path(), "s.toml", &scenario("", body));
    for cmd in ["validate", "run"] {
        let e = gpufleet(d.path(), &[cmd, f.to_str().unwrap()]);
        e.refused(2, &["long.csv", "savings_plan", "100", "horizon"]);
        assert!(e.secs < 10.0, "{e:#?}");
    }
    // Without the plan the same trace runs (the timeline widened).
    let f = put(
        d.path(),
        "ok.toml",
        &scenario("", "[workload]\nkind = \"csv\"\npath = \"long.csv\"\n"),
    );
    let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]);
    assert_eq!(e.code, 0, "{e:#?}");
}

#[test]
fn fgd_and_placement_comparisons_hold_to_their_max_jobs() {
    // Their pod cap was a fixed 10,000,000: no key to lower it (or raise it) as a run
    // scenario's `max_jobs` does, and `max_jobs` was an unknown key.
    let d = scratch();
    put(
        d.path(),
        "nodes.csv",
        "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,8,V100M32\n",
    );
    let mut pods = String::from("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n");
    for i in 0..5 {
        pods.push_str(&format!("p{i},1000,1000,1,1000,,LS,Running,{i},1000,{i}\n"));
    }
    put(d.path(), "pods.csv", &pods);
    let fgd = |max: &str| {
        format!("name = \"f\"\n{max}\n[fgd_experiment]\nnodes = \"nodes.csv\"\npods = \"pods.csv\"\npolicies = [\"fgd\"]\nseeds = [1]\n")
    };
    let cmp = |max: &str| {
        format!("name = \"c\"\n{max}\n[placement_comparison]\nnodes = \"nodes.csv\"\npods = \"pods.csv\"\nplacements = [\"best_fit\"]\nusd_per_gpu_hour = 2.0\nusd_per_cpu_node_hour = 0.5\n")
    };
    for (name, text) in [
        ("fgd.toml", &fgd as &dyn Fn(&str) -> String),
        ("cmp.toml", &cmp),
    ] {
        put(d.path(), name, &text("max_jobs = 3"));
        gpufleet(d.path(), &["validate", name]).refused(2, &["pods.csv", "max_jobs"]);
        put(d.path(), name, &text("max_jobs = 0"));
        gpufleet(d.path(), &["validate", name]).refused(2, &[name, "max_jobs", "at least 1"]);
        put(d.path(), name, &text("max_jobs = 5"));
        let e = gpufleet(d.path(), &["validate", name]);
        assert_eq!(e.code, 0, "{name}: {e:#?}");
    }
}

#[test]
fn an_unknown_key_in_a_repair_distribution_is_named_not_dropped() {
    // `repair = { kind = "lognormal", median = "8h", sigma = 1, mean = "2h" }` (or a typo)
    // passed: the key was dropped without a word.
    let d = scratch();
    for (table, key) in [
        (
            "{ kind = \"lognormal\", median = \"8h\", sigma = 1.0, mean = \"2h\" }",
            "mean",
        ),
        ("{ kind = \"fixed\", value = \"4h\", sigam = 2 }", "sigam"),
        (
            "{ kind = \"exponential\", mean = \"4h\", median = \"1h\" }",
            "median",
        ),
    ] {
        let text = scenario(
            "horizon = \"30d\"",
            &format!(
                "[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\nsizes = [ {{ gpus = 1, weight = 1 }} ]\nduration = {{ kind = \"fixed\", value = \"1h\" }}\n\n[failures]\nrate_per_gpu_day = 0.001\nrepair = {table}\n\n[checkpoint]\ninterval = \"30m\"\nwrite_time = \"1m\"\nrestart_overhead = \"5m\"\nmax_retries = 10\n"
            ),
        );
        let f = put(d.path(), "s.toml", &text);
        gpufleet(d.path(), &["validate", f.to_str().unwrap()]).refused(
            2,
            &["s.toml", &format!("failures.repair.{key}"), "unknown field"],
        );
    }
}

#[test]
fn a_renewing_reservation_of_minutes_is_refused() {
    // Renewed every minute: the first 10,000 terms (a week) were billed as the
    // reservation and the rest of the run silently at the on-demand price. An hourly
    // renewal over 800 days (19,200 terms) is billed whole.
    let d = scratch();
    let body = "[[pools]]\nname = \"r\"\ngpu_type = \"H100\"\nkind = \"reserved\"\nnodes = 1\ngpus_per_node = 8\nprice_per_node_hour = 30.0\n[pools.pricing]\nkind = \"reserved\"\nterm = \"1m\"\nrenew = true\ndiscount = 0.4\n\n[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 10\nsizes = [ { gpus = 1, weight = 1 } ]\nduration = { kind = \"exponential\", mean = \"1h\" }\n";
    let f = put(d.path(), "s.toml", &scenario("horizon = \"800d\"", body));
    gpufleet(d.path(), &["validate", f.to_str().unwrap()])
        .refused(2, &["pricing.term", "at least 1h"]);
    let ok = body.replace("term = \"1m\"", "term = \"1h\"");
    let f = put(d.path(), "s.toml", &scenario("horizon = \"800d\"", &ok));
    let out = d.path().join("out");
    let e = gpufleet(
        d.path(),
        &[
            "run",
            "-q",
            f.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(e.code, 0, "{e:#?}");
    // By hand: 800 d x 24 h x 1 node x $30 x (1 - 0.4) = $345,600, every hour in a term
    // (before: 10,000 terms at $18 and 9,200 hours on demand at $30, $456,000).
    let pools = std::fs::read_to_string(out.join("pools.csv")).unwrap();
    let row = pools.lines().find(|l| l.starts_with("r,")).expect("pool r");
    let head: Vec<&str> = pools.lines().next().unwrap().split(',').collect();
    let at = head.iter().position(|h| *h == "cost_usd").unwrap();
    let cost: f64 = row.split(',').nth(at).unwrap().parse().unwrap();
    assert!((cost - 345_600.0).abs() < 0.01, "{cost}");
}

#[test]
fn slurm_flags_without_slurm_or_past_any_cluster_are_refused_naming_the_flag() {
    // `sweep --dry-run` and `plan --dry-run` without --slurm ran everything (a plan into
    // out/<name> of the working folder), and `--shards 3` ran the whole sweep: the flag
    // ignored, exit 0. `--slurm --shards 1000000000000` aborted on a 24 TB allocation;
    // `--mem-mb 0` wrote `#SBATCH --mem=0M`, which asks Slurm for a whole node; `--shard
    // 1/2 --slurm` submitted every run. `compare --policies fifo,fifo` ran one variant
    // twice under one name.
    let d = scratch();
    let f = sweep_of(
        d.path(),
        "mode = \"grid\"",
        "[[param]]\npath = \"seed\"\nvalues = [1, 2]\n",
    );
    let f = f.to_str().unwrap();
    let plan = format!("{}/tests/data/slurm-plan.toml", env!("CARGO_MANIFEST_DIR"));
    let cases: Vec<(Vec<&str>, &[&str])> = vec![
        (
            vec!["sweep", f, "--out", "o", "--dry-run"],
            &["--dry-run", "--slurm"],
        ),
        (
            vec!["sweep", f, "--out", "o", "--shards", "3"],
            &["--shards", "--slurm"],
        ),
        (
            vec!["sweep", f, "--out", "o", "--mem-mb", "100"],
            &["--mem-mb", "--slurm"],
        ),
        (
            vec!["sweep", f, "--out", "o", "--sbatch-arg=--time=1:00"],
            &["--sbatch-arg", "--slurm"],
        ),
        (
            vec![
                "sweep",
                f,
                "--out",
                "o",
                "--shard",
                "1/2",
                "--slurm",
                "--dry-run",
            ],
            &["--shard", "--slurm"],
        ),
        (
            vec![
                "sweep",
                f,
                "--out",
                "o",
                "--slurm",
                "--shards",
                "1000000000000",
                "--dry-run",
            ],
            &["--shards", "1000000000000", "2 runs"],
        ),
        (
            vec![
                "sweep",
                f,
                "--out",
                "o",
                "--slurm",
                "--mem-mb",
                "0",
                "--dry-run",
            ],
            &["--mem-mb", "0"],
        ),
        (
            vec![
                "sweep",
                f,
                "--out",
                "o",
                "--slurm",
                "--mem-mb",
                "99999999999",
                "--dry-run",
            ],
            &["--mem-mb"],
        ),
        (
            vec!["plan", &plan, "--out", "o", "--dry-run"],
            &["--dry-run", "--slurm"],
        ),
        (
            vec![
                "plan",
                &plan,
                "--out",
                "o",
                "--slurm",
                "--mem-mb",
                "0",
                "--dry-run",
            ],
            &["--mem-mb", "0"],
        ),
    ];
    for (args, parts) in cases {
        let e = gpufleet(d.path(), &args);
        e.refused(2, parts);
        assert!(e.secs < 5.0, "{args:?}: {e:#?}");
        assert!(!d.path().join("o").exists(), "{args:?} wrote its folder");
        assert!(!d.path().join("out").exists(), "{args:?} wrote out/");
    }
    let s = format!("{}/scenarios/quickstart.toml", env!("CARGO_MANIFEST_DIR"));
    let e = gpufleet(
        d.path(),
        &["compare", &s, "--policies", "fifo,sjf,fifo", "--out", "c"],
    );
    e.refused(2, &["--policies", "\"fifo\"", "twice"]);
    assert!(e.secs < 5.0, "{e:#?}");
}

#[test]
fn a_repair_of_millennia_is_refused() {
    // A node that stays down longer than the longest span simulated never comes back:
    // a fixed repair of 50,000 days (137 years), and a log-normal of median one hour
    // whose sigma of 30 makes its mean exp(450) hours (infinite as a float).
    for repair in [
        "\"50000d\"",
        "{ kind = \"lognormal\", median = \"1h\", sigma = 30 }",
    ] {
        let d = scratch();
        let body = format!(
            "{}\n[failures]\nrate_per_node_day = 1\nrepair = {repair}\n",
            synthetic("jobs = 3", "1.0", "10h")
        );
        let f = put(d.path(), "s.toml", &scenario("", &body));
        for cmd in ["validate", "run"] {
            gpufleet(d.path(), &[cmd, f.to_str().unwrap()]).refused(
                2,
                &["s.toml", "failures.repair", "100 years", "never come back"],
            );
        }
    }
}

#[test]
fn a_job_waiting_on_nodes_down_for_decades_ends_the_run_at_the_span_limit() {
    // Two 8-GPU nodes, each failing 24 times a day and repaired after 30,000 days (82
    // years: allowed); one job needs both nodes for 10 hours without checkpoints. Both
    // nodes are up together for 10 hours only before the first failure (probability
    // e^-20), so without a horizon the job waits, the failures go on being drawn, and
    // the run must stop 100 years after the arrival with the job unfinished and say so.
    let d = scratch();
    let body = "[workload]\nkind = \"synthetic\"\njobs = 1\nrate_per_hour = 1\nsizes = [{ gpus = 16, weight = 1 }]\nduration = { kind = \"fixed\", value = \"10h\" }\n[failures]\nrate_per_node_day = 24\nrepair = \"30000d\"\n";
    let f = put(d.path(), "s.toml", &scenario("", body));
    let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]);
    assert_eq!(e.code, 0, "{e:#?}");
    for part in ["without a horizon", "100 years", "1 job not ended"] {
        assert!(e.stderr.contains(part), "{part:?} missing: {e:#?}");
    }
    let summary = std::fs::read_to_string(d.path().join("o/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(v["jobs"]["unfinished"], 1, "{summary}");
    assert_eq!(v["jobs"]["completed"], 0, "{summary}");
    // Simulated to 100 years after the arrival at the latest (and past the 82-year repair).
    let hours = v["simulated_hours"].as_f64().unwrap();
    assert!(
        hours > 82.0 * 365.0 * 24.0 && hours <= 100.0 * 365.0 * 24.0 + 24.0,
        "{hours} h"
    );
}

#[test]
fn jobs_a_spent_budget_keeps_waiting_end_the_run_rather_than_a_century_of_renting() {
    // Jobs of 24 GPUs fit only the elastic on-demand pool (3 of its 4 nodes; the two owned
    // nodes hold 16), where a $1 cap refuses them: nothing can ever start them. Without a
    // horizon the run used to go on for 100 years, renting nodes for them, letting them go
    // idle and renting again ($1.4M billed on a $10 cap in a variant of
    // burst-to-on-demand.toml). It must end at the last arrival, rent nothing, count the
    // three jobs unfinished and say why.
    let d = scratch();
    let body = "[[pools]]\nname = \"od\"\ngpu_type = \"H100\"\nkind = \"on_demand\"\nnodes = 4\ngpus_per_node = 8\nprice_per_node_hour = 80.0\n[pools.autoscale]\nprovisioning_delay = \"5m\"\nidle_timeout = \"15m\"\n[scheduler]\npolicy = \"fifo\"\n[scheduler.budget]\ntotal_usd = 1\n[workload]\nkind = \"synthetic\"\njobs = 3\nrate_per_hour = 1\nsizes = [{ gpus = 24, weight = 1 }]\nduration = { kind = \"fixed\", value = \"1h\" }\n";
    let f = put(
        d.path(),
        "s.toml",
        &scenario("timeline_interval = \"1h\"", body),
    );
    let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]);
    assert_eq!(e.code, 0, "{e:#?}");
    assert!(e.secs < 5.0, "{e:#?}");
    for part in ["3 jobs waiting", "nothing left to happen", "budget"] {
        assert!(e.stderr.contains(part), "{part:?} missing: {e:#?}");
    }
    let summary = std::fs::read_to_string(d.path().join("o/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(v["jobs"]["unfinished"], 3, "{summary}");
    // Three arrivals at rate 1 an hour: the last within a few days, not a century.
    let hours = v["simulated_hours"].as_f64().unwrap();
    assert!(hours < 24.0 * 30.0, "{hours} h");
    let pools = std::fs::read_to_string(d.path().join("o/pools.csv")).unwrap();
    let od = pools.lines().find(|l| l.starts_with("od,")).unwrap();
    let header: Vec<&str> = pools.lines().next().unwrap().split(',').collect();
    let cost = od
        .split(',')
        .nth(header.iter().position(|h| *h == "cost_usd").unwrap());
    let cost: f64 = cost.unwrap().parse().unwrap();
    assert_eq!(cost, 0.0, "nothing rented: {pools}");
}

/// A trace of `n` one-GPU jobs of 10 s, one a second, each of its own tenant.
fn tenant_trace(d: &Path, n: usize) -> std::path::PathBuf {
    let mut t = String::from("job_id,submit_s,gpus,duration_s,tenant\n");
    for i in 0..n {
        t.push_str(&format!("j{i},{i},1,10,user{i}\n"));
    }
    put(d, "t.csv", &t);
    put(
        d,
        "s.toml",
        &scenario("", "[workload]\nkind = \"csv\"\npath = \"t.csv\"\n"),
    )
}

#[test]
fn thousands_of_tenants_go_to_tenants_csv_not_summary_json() {
    // 1,500 users: past the 1,000 summary.json holds, so their figures move to
    // tenants.csv. Each user has one 10-second job that starts on arrival (at most 10
    // run at once on 16 GPUs): completed 1, wait 0, completion time 10 s.
    let d = scratch();
    let f = tenant_trace(d.path(), 1500);
    let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]);
    assert_eq!(e.code, 0, "{e:#?}");
    let summary = std::fs::read_to_string(d.path().join("o/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(v["tenants_in_csv"], 1500, "{summary}");
    assert_eq!(v["by_tenant"].as_object().map(|m| m.len()), Some(0));
    assert_eq!(
        v["cost_by_tenant_usd"].as_object().map(|m| m.len()),
        Some(0)
    );
    assert!(
        summary.len() < 20_000,
        "summary.json of {} bytes",
        summary.len()
    );
    let text = std::fs::read_to_string(d.path().join("o/tenants.csv")).unwrap();
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let head = r.headers().unwrap().clone();
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    assert_eq!(rows.len(), 1500);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(&row[col("tenant")], format!("user{i}"));
        assert_eq!(&row[col("completed")], "1");
        assert_eq!(row[col("wait_s_mean")].parse::<f64>().unwrap(), 0.0);
        assert_eq!(row[col("jct_s_p99")].parse::<f64>().unwrap(), 10.0);
        // One GPU for 10 s.
        let gh: f64 = row[col("gpu_hours")].parse().unwrap();
        assert!((gh - 10.0 / 3600.0).abs() < 1e-3, "{gh}");
    }
    // complete.json lists it with the other data files.
    let manifest = std::fs::read_to_string(d.path().join("o/complete.json")).unwrap();
    assert!(manifest.contains("tenants.csv"), "{manifest}");
}

#[test]
fn a_thousand_tenants_stay_in_summary_json() {
    let d = scratch();
    let f = tenant_trace(d.path(), 1000);
    let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]);
    assert_eq!(e.code, 0, "{e:#?}");
    let summary = std::fs::read_to_string(d.path().join("o/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert!(v.get("tenants_in_csv").is_none(), "{summary}");
    assert_eq!(v["by_tenant"].as_object().map(|m| m.len()), Some(1000));
    assert_eq!(v["by_tenant"]["user7"]["completed"], 1);
    assert!(!d.path().join("o/tenants.csv").exists());
}

#[test]
fn a_sweep_over_a_trace_of_many_tenants_keeps_its_records_small() {
    // 4 runs over 20,000 users: each run's record was a column per tenant and figure
    // (600,000 metrics a run; 200,000 users exhausted 3 GB and aborted).
    let d = scratch();
    tenant_trace(d.path(), 20_000);
    let sw = put(
        d.path(),
        "sw.toml",
        "name = \"sw\"\nscenario = \"s.toml\"\nseeds = 2\n[[param]]\npath = \"scheduler.policy\"\nvalues = [\"fifo\", \"easy_backfill\"]\n",
    );
    let e = gpufleet(
        d.path(),
        &[
            "sweep",
            sw.to_str().unwrap(),
            "--out",
            "o",
            "--threads",
            "2",
        ],
    );
    assert_eq!(e.code, 0, "{e:#?}");
    let runs = std::fs::read_to_string(d.path().join("o/runs.csv")).unwrap();
    let header = runs.lines().next().unwrap();
    assert!(
        header.split(',').count() < 500 && !header.contains("user1"),
        "{} columns",
        header.split(',').count()
    );
}

#[test]
fn a_spot_deadline_optimum_too_large_is_refused_by_validate_before_any_run() {
    // 20 days of work by a 44-day deadline in ticks of 195 s: about 9,700 x 19,500 ticks,
    // times (changeover + the first hour) ticks, times 8 starts, is far past 1e9 steps.
    // `validate` must say so (it said ok, and `run` refused only after simulating).
    let root = env!("CARGO_MANIFEST_DIR");
    let d = scratch();
    let body = format!(
        "{}\n[spot_deadline]\ntrace = \"{root}/data/spot/us-east-1f_v100_1.csv\"\nprices = \"{root}/data/spot/us-east-1f_v100_prices.json\"\nprices_zone = \"us-east-1f_v100_1\"\nwork = \"20d\"\ndeadline = \"44d\"\nchangeover = \"1ms\"\non_demand_per_hour = 3.06\nstarts = 8\n",
        synthetic("jobs = 3", "1.0", "1h")
    );
    let f = put(d.path(), "s.toml", &scenario("", &body));
    for cmd in ["validate", "run"] {
        let e = gpufleet(d.path(), &[cmd, f.to_str().unwrap()]);
        e.refused(2, &["s.toml", "spot_deadline", "steps"]);
        assert!(!d.path().join("o").exists());
    }
    // A deadline longer than the 45-day trace: named by validate too.
    let body = body.replace("deadline = \"44d\"", "deadline = \"400d\"");
    let f = put(d.path(), "s.toml", &scenario("", &body));
    gpufleet(d.path(), &["validate", f.to_str().unwrap()])
        .refused(2, &["s.toml", "spot_deadline.trace", "shorter"]);
}

#[test]
fn a_run_larger_than_the_memory_limit_is_refused_before_it_simulates() {
    // A 3-row trace replicated 1,000,000 times: 3,000,000 jobs (under max_jobs), about
    // 0.3 + 3e6 x 640 B = 2.2 GB, above this suite's 2 GiB address-space cap (the case
    // needs a cap of at most 2.2 GB). The run must say so (exit 1: the environment's
    // limit), not abort on an allocation half-way.
    if super::mem_cap_mib() > 2100 {
        return;
    }
    let d = scratch();
    put(
        d.path(),
        "t.csv",
        "job_id,submit_s,gpus,duration_s\na,0,1,60\nb,10,1,60\nc,20,1,60\n",
    );
    let body = "[workload]\nkind = \"trace\"\nformat = \"generic\"\npath = \"t.csv\"\nload_scale = 1e6\nload_scale_of = \"original\"\n";
    let f = put(d.path(), "s.toml", &scenario("", body));
    gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"])
        .refused(1, &["3000000 jobs", "ulimit -v"]);
    assert!(!d.path().join("o").exists());
}

#[test]
fn an_hourly_timeline_of_a_hundred_thousand_nodes_is_widened_loudly() {
    // Each timeline sample looks at every idle node (fragmentation): 20,000 hourly samples
    // of 100,000 nodes is 2e9 node visits for a run of 20,000 one-hour jobs. Past 5e8
    // visits the interval doubles, and the run says so.
    let d = scratch();
    let text = "name = \"wide\"\nseed = 1\ntimeline_interval = \"1h\"\n[[pools]]\nname = \"p\"\ngpu_type = \"H100\"\nkind = \"owned\"\nnodes = 100000\ngpus_per_node = 1\nprice_per_node_hour = 1.0\n[scheduler]\npolicy = \"fifo\"\nplacement = \"first_fit\"\n[workload]\nkind = \"synthetic\"\njobs = 20000\nrate_per_hour = 1\nsizes = [{ gpus = 1, weight = 1 }]\nduration = { kind = \"fixed\", value = \"1h\" }\n";
    let f = put(d.path(), "s.toml", text);
    let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]);
    assert_eq!(e.code, 0, "{e:#?}");
    assert!(e.stderr.contains("node visits"), "{e:#?}");
    let rows = std::fs::read_to_string(d.path().join("o/timeline.csv"))
        .unwrap()
        .lines()
        .count()
        - 1;
    // At most 5e8 / 1e5 = 5,000 samples before a halving, 2,500 after.
    assert!(rows <= 5_000, "{rows} timeline rows");
    let summary = std::fs::read_to_string(d.path().join("o/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(v["jobs"]["completed"], 20000, "{summary}");
}
