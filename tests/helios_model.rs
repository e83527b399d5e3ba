//! The Helios Venus-shaped model workload (scenarios/model_helios_venus.toml) against the
//! published per-cluster statistics it was built from (data/helios/helios_cluster_summary.csv,
//! row Venus; Hu et al., SC'21), within sampling error.

use crate::common::root;
use gpufleet::model::GpuRequest;
use gpufleet::scenario::Scenario;

/// A published figure of the Venus row of the summary, read from the shipped CSV.
fn venus(column: &str) -> f64 {
    let text = std::fs::read_to_string(root().join("data/helios/helios_cluster_summary.csv"))
        .expect("data/helios/helios_cluster_summary.csv");
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let i = r
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == column)
        .unwrap_or_else(|| panic!("no column {column}"));
    r.records()
        .map(|x| x.unwrap())
        .find(|x| &x[0] == "Venus")
        .map(|x| x[i].parse().unwrap())
        .unwrap()
}

/// The scenario generated over the whole trace period, 183 days (April - September 2020),
/// so its job count is comparable with the trace's 125,303 GPU jobs.
fn six_months() -> Scenario {
    let d = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("scenarios/model_helios_venus.toml"))
        .unwrap()
        .replace("horizon = \"30d\"", "horizon = \"183d\"")
        .replace("until = \"30d\"", "until = \"183d\"");
    assert!(text.contains("183d"));
    let p = d.path().join("venus.toml");
    std::fs::write(&p, text).unwrap();
    Scenario::load(&p).unwrap()
}

#[test]
fn generated_jobs_match_the_published_venus_figures_within_sampling_error() {
    let s = six_months();
    let m = s.measured_on.as_ref().expect("measured_on");
    assert_eq!(m.gpu_type, "V100");
    let w = s.build_workload(1).unwrap();
    let n = w.jobs.len() as f64;
    // Job count: Poisson with mean = the trace's GPU jobs over the same 183 days; sd sqrt(N).
    let jobs = venus("gpu_job_num");
    assert!(
        (n - jobs).abs() < 4.0 * jobs.sqrt() + 0.001 * jobs,
        "{n} jobs vs {jobs}"
    );
    // Run times as measured on V100s: the work in reference-GPU seconds over V100's speed.
    let mut run: Vec<f64> = w.jobs.iter().map(|j| j.work.secs_f64() / m.speed).collect();
    run.sort_by(f64::total_cmp);
    let (mean, median) = (venus("avg_run_time_gpu"), venus("med_run_time_gpu"));
    let sigma = (2.0 * (mean / median).ln()).sqrt();
    // Sample median of a log-normal: ln(median) has standard error sqrt(pi/2) sigma/sqrt(n).
    let se_ln_med = (std::f64::consts::PI / 2.0).sqrt() * sigma / n.sqrt();
    let got_med = run[run.len() / 2];
    assert!(
        (got_med / median).ln().abs() < 4.0 * se_ln_med + 0.01,
        "median {got_med} vs {median} (4 se = {})",
        4.0 * se_ln_med
    );
    // The mean through the log moments: exp(mu + s^2/2), whose log has standard error
    // sqrt(sigma^2/n + sigma^4/(2n)) (delta method, normal log run times).
    let logs: Vec<f64> = run.iter().map(|x| x.ln()).collect();
    let mu = logs.iter().sum::<f64>() / n;
    let s2 = logs.iter().map(|x| (x - mu).powi(2)).sum::<f64>() / (n - 1.0);
    let implied = (mu + s2 / 2.0).exp();
    let se = (sigma.powi(2) / n + sigma.powi(4) / (2.0 * n)).sqrt();
    assert!(
        (implied / mean).ln().abs() < 4.0 * se + 0.01,
        "implied mean {implied} vs {mean}"
    );
    // The plain sample mean converges slowly under this tail: its relative standard error
    // is sqrt(exp(sigma^2) - 1) / sqrt(n) (about 18 % here); 4 of them.
    let sample_mean = run.iter().sum::<f64>() / n;
    let rse = ((sigma.powi(2)).exp() - 1.0).sqrt() / n.sqrt();
    assert!(
        (sample_mean / mean - 1.0).abs() < 4.0 * rse,
        "sample mean {sample_mean} vs {mean}"
    );
    // GPUs per job: median 1 exactly; mean within 4 standard errors (sd of the mix over
    // sqrt(n)) plus the mix's own 0.004 rounding (6.740 for 6.736).
    let mut gpus: Vec<f64> = w
        .jobs
        .iter()
        .map(|j| match j.gpus {
            GpuRequest::Whole(g) => g as f64,
            _ => panic!("a Helios GPU job asks for whole GPUs"),
        })
        .collect();
    gpus.sort_by(f64::total_cmp);
    assert_eq!(gpus[gpus.len() / 2], venus("med_gpu_num"));
    let g_mean = gpus.iter().sum::<f64>() / n;
    let g_sd = (gpus.iter().map(|g| (g - g_mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let avg = venus("avg_gpu_num");
    assert!(
        (g_mean - avg).abs() < 4.0 * g_sd / n.sqrt() + 0.005,
        "mean GPUs {g_mean} vs {avg}"
    );
    println!(
        "venus model: {n} jobs (trace {jobs}); median run {got_med:.1} s ({median}); mean via \
         log moments {implied:.0} s, sample mean {sample_mean:.0} s ({mean}); GPUs mean \
         {g_mean:.3} ({avg})"
    );
    // The cluster: 1,024 GPUs against the published 1,022 (0.2 %).
    let cluster: f64 = s
        .sim
        .pools
        .iter()
        .map(|p| p.nodes as f64 * p.node.gpus as f64)
        .sum();
    assert!((cluster / venus("gpu_num") - 1.0).abs() < 0.005);
}

/// Writes a one-pool A100 scenario (not the reference GPU: its speed is not 1) replaying
/// `trace` (copied beside it) in `format`, with
/// `extra` workload lines; returns the validated scenario.
fn trace_on_a100(dir: &std::path::Path, trace: &str, format: &str, extra: &str) -> Scenario {
    let name = std::path::Path::new(trace).file_name().unwrap();
    std::fs::copy(root().join(trace), dir.join(name)).unwrap();
    let p = dir.join("s.toml");
    std::fs::write(
        &p,
        format!(
            "name = \"t\"\n[[pools]]\nname = \"h\"\ngpu_type = \"A100\"\nkind = \"owned\"\nnodes = 4\ngpus_per_node = 8\nprice_per_node_hour = 10.0\n[scheduler]\npolicy = \"fifo\"\n[workload]\nkind = \"trace\"\nformat = \"{format}\"\npath = \"{}\"\n{extra}",
            name.to_string_lossy()
        ),
    )
    .unwrap();
    Scenario::load(&p).unwrap()
}

/// Per-format defaults: a Helios trace without `measured_on` is taken as measured on V100
/// (its documented GPUs), so on A100s a job's 3,600 s becomes 3,600 x speed(V100) of
/// reference work, with no warning; a Philly trace (GPUs undocumented, mixed) gets no
/// default and keeps the warning; a written `measured_on` wins over the default.
#[test]
fn documented_trace_formats_default_their_measured_on() {
    let d = tempfile::tempdir().unwrap();
    let s = trace_on_a100(d.path(), "tests/data/helios_fixture.csv", "helios", "");
    let m = s.measured_on.as_ref().expect("helios default");
    assert_eq!(m.gpu_type, "V100");
    assert!(
        s.warnings.iter().all(|w| !w.contains("measured_on")),
        "{:?}",
        s.warnings
    );
    let v100 = s.gpu_types.iter().find(|t| t.name == "V100").unwrap().speed;
    let w = s.build_workload(1).unwrap();
    // h1 ran 3,600 s (tests/data/helios_fixture.csv).
    let h1 = w.jobs.iter().find(|j| j.name == "h1").unwrap();
    assert!(
        (h1.work.secs_f64() - 3600.0 * v100).abs() < 1e-3,
        "{}",
        h1.work.secs_f64()
    );
    let g = gpufleet::scenario::format_default(gpufleet::workload::TraceFormat::Helios);
    assert_eq!(g.map(|g| g.gpu_type), Some("V100"));

    let d2 = tempfile::tempdir().unwrap();
    let s = trace_on_a100(
        d2.path(),
        "tests/data/helios_fixture.csv",
        "helios",
        "measured_on = \"T4\"\n",
    );
    assert_eq!(s.measured_on.as_ref().unwrap().gpu_type, "T4");

    let d3 = tempfile::tempdir().unwrap();
    let s = trace_on_a100(d3.path(), "tests/data/philly_fixture.json", "philly", "");
    assert!(s.measured_on.is_none());
    assert!(
        s.warnings.iter().any(|w| w.contains("measured_on")),
        "{:?}",
        s.warnings
    );
}
