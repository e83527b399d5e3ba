//! Workloads: every trace reader on real files (counts and sums checked against awk or
//! Python one-liners) and on hand-written fixtures; filters and shaping; bad input never
//! panics; the `gpufleet trace` commands. Generators and fitting: `workload/generators.rs`.

mod generators;

pub(crate) use crate::common::root;
use assert_cmd::Command;
use gpufleet::engine::{RngStreams, SimTime};
use gpufleet::model::{GpuRequest, Workload};
use gpufleet::workload::*;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

/// A real data file shipped in the repository's `data/` folder (the same bytes as the
/// shared data folder's copy, so the test runs on a fresh clone).
pub(crate) fn shipped(rel: &str) -> PathBuf {
    let p = root().join("data").join(rel);
    assert!(
        p.is_file(),
        "{} is missing: the real-data tests read the repository's data/",
        p.display()
    );
    p
}

fn fixture(name: &str) -> PathBuf {
    root().join("tests/data").join(name)
}

fn gpu_secs(w: &Workload) -> f64 {
    gpu_demand_secs(w)
}

fn read(path: &Path, format: TraceFormat) -> (Workload, TraceMeta) {
    TraceSpec::new(path, format).read().unwrap()
}

// ---------------------------------------------------------------- real files

#[test]
fn nasa_swf_read_in_full() {
    let path = shipped("swf/NASA-iPSC-1993-3.1-cln.swf");
    let (w, meta, header) = read_swf(
        &path,
        &SwfOptions::default(),
        BadRows::Stop,
        RowFilter::default(),
    )
    .unwrap();
    // grep -v '^;' NASA-iPSC-1993-3.1-cln.swf | awk '{n++; r+=$4; g+=$4*$5; u[$12]=1; if($5==128)f++}
    //   END{print n, r, g, length(u), f}'   ->   18239 13950781 474238015 69 420
    assert_eq!(w.jobs.len(), 18_239);
    assert_eq!(header.max_procs, Some(128));
    assert_eq!(header.max_jobs, Some(18_239));
    assert_eq!(w.tenants.len(), 69);
    assert_eq!(
        w.jobs
            .iter()
            .filter(|j| j.gpus == GpuRequest::Whole(128))
            .count(),
        420
    );
    // Run times of 0 s (173 jobs: awk '$4==0') become 1 ms, so sums differ by < 1 s.
    let run: f64 = w.jobs.iter().map(|j| j.work.secs_f64()).sum();
    assert!((run - 13_950_781.0).abs() < 1.0, "{run}");
    assert!(
        (gpu_secs(&w) - 474_238_015.0).abs() < 128.0,
        "{}",
        gpu_secs(&w)
    );
    assert_eq!(w.jobs.iter().filter(|j| j.work.0 == 1).count(), 173);
    // The header's UnixStartTime 749458803 + TimeZone -28800 = 1993-09-30 23:00:03 (PST).
    assert!(meta.wall_clock);
    assert_eq!(format_datetime(meta.origin_ms), "1993-09-30 23:00:03");
    // Processors to GPUs at 4 per GPU: sum of ceil(procs/4) (awk '{s+=int(($5+3)/4)}' -> 88,906).
    let (w4, ..) = read_swf(
        &path,
        &SwfOptions { procs_per_gpu: 4 },
        BadRows::Stop,
        RowFilter::default(),
    )
    .unwrap();
    let g4: u64 = w4.jobs.iter().map(|j| j.gpus.milli() / 1000).sum();
    let expect: u64 = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with(';') && !l.trim().is_empty())
        .map(|l| {
            l.split_whitespace()
                .nth(4)
                .unwrap()
                .parse::<u64>()
                .unwrap()
                .div_ceil(4)
        })
        .sum();
    assert_eq!(g4, expect);
}

#[test]
fn tiresias_read_in_full() {
    for path in [
        shipped("tiresias/60_job.csv"),
        root().join("data/tiresias/60_job.csv"),
    ] {
        let (w, _) = read(&path, TraceFormat::Tiresias);
        // awk -F, 'NR>1{n++; g+=$2; d+=$6; gs+=$2*$6} END{print n, g, d, gs}' -> 60 170 10705 26624
        assert_eq!(w.jobs.len(), 60);
        assert_eq!(
            w.jobs.iter().map(|j| j.gpus.milli() / 1000).sum::<u64>(),
            170
        );
        assert_eq!(w.jobs.iter().map(|j| j.work.0).sum::<u64>(), 10_705_000);
        assert_eq!(gpu_secs(&w), 26_624.0);
    }
}

#[test]
fn pai_machine_spec_as_cluster() {
    for path in [
        shipped("pai-2020/pai_machine_spec.csv"),
        root().join("data/pai-2020/pai_machine_spec.csv"),
    ] {
        let m = read_pai_machines(&path, BadRows::Stop).unwrap();
        // awk -F, '{n++; g+=$5; k[$2","$3","$4","$5]++} END{print n, g, length(k)}' -> 1897 6742 7
        assert_eq!((m.machines(), m.gpus(), m.groups.len()), (1_897, 6_742, 7));
        // The groups become pools of a scenario that validates.
        let text = format!(
            "name = \"pai\"\n{}\n[workload]\nkind = \"synthetic\"\nrate_per_hour = 1.0\njobs = 5\nsizes = [{{ gpus = 1, weight = 1 }}]\nduration = {{ kind = \"fixed\", value = \"1h\" }}\n",
            m.to_pools_toml()
        );
        let s = gpufleet::scenario::Scenario::parse(&text, Path::new("pai.toml"), Path::new("."))
            .unwrap();
        let gpus: u64 = s
            .sim
            .pools
            .iter()
            .map(|p| p.nodes as u64 * p.node.gpus as u64)
            .sum();
        assert_eq!(gpus, 6_742);
    }
}

#[test]
fn philly_runtimes_as_empirical_durations() {
    let v = read_duration_column(
        &root().join("data/philly/philly_job_runtimes.csv"),
        Some("runtime"),
    )
    .unwrap();
    // python3: v = [float(x) for x in open(f).read().split()[1:]]; len(v), statistics.median(v)
    //   -> 83154 1186.0
    assert_eq!(v.len(), 83_154);
    let mut s = v.clone();
    s.sort_by(f64::total_cmp);
    assert_eq!((s[41_576] + s[41_577]) / 2.0, 1186.0);
}

#[test]
fn openb_pod_list_as_a_trace() {
    let path = root().join("data/openb-2023/openb_pod_list_default.csv");
    let (w, meta) = read(&path, TraceFormat::Openb);
    // awk -F, 'NR>1{n++; ph[$8]++; g+=$4*$5} END{...}' -> 8152 pods; Succeeded 192,
    // Failed 1870, Pending 897, Running 5193; sum num_gpu x gpu_milli = 6,086,800.
    assert_eq!(w.jobs.len(), 8_152);
    assert_eq!(meta.statuses, [192, 1_870, 0, 897 + 5_193]);
    assert_eq!(
        w.jobs.iter().map(|j| j.gpus.milli()).sum::<u64>(),
        6_086_800
    );
    // The same jobs as the openb reader's own time-based workload.
    let own = openb_workload(&read_openb_pods(&path, BadRows::Stop, None).unwrap(), &path).unwrap();
    assert_eq!(own.jobs.len(), w.jobs.len());
    for (a, b) in own.jobs.iter().zip(&w.jobs) {
        assert_eq!(
            (&a.name, a.submit, a.work, a.gpus, a.preemptible),
            (&b.name, b.submit, b.work, b.gpus, b.preemptible)
        );
    }
    // Node list as a cluster: 1,523 nodes, 6,212 GPUs (awk -F, 'NR>1{n++; g+=$4}').
    let dir = tempfile::tempdir().unwrap();
    let pools = dir.path().join("pools.toml");
    let out = bin()
        .args(["trace", "convert", "--from", "openb_nodes"])
        .arg(root().join("data/openb-2023/openb_node_list_all_node.csv"))
        .arg(&pools)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("1523 machines (6212 GPUs)"), "{text}");
    // The GPU-node list: 1,213 nodes, the same 6,212 GPUs (awk -F, 'NR>1{n++; g+=$4}').
    let out = bin()
        .args(["trace", "convert", "--from", "openb_nodes"])
        .arg(root().join("data/openb-2023/openb_node_list_gpu_node.csv"))
        .arg(&pools)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("1213 machines (6212 GPUs)"));
    // gpushare40: 8,152 pods, sum num_gpu x gpu_milli = 5,641,250 (same awk as above).
    let (w, _) = read(
        &root().join("data/openb-2023/openb_pod_list_gpushare40.csv"),
        TraceFormat::Openb,
    );
    assert_eq!(w.jobs.len(), 8_152);
    assert_eq!(
        w.jobs.iter().map(|j| j.gpus.milli()).sum::<u64>(),
        5_641_250
    );
}

// ---------------------------------------------------------------- fixtures

#[test]
fn helios_fixture() {
    let (w, meta) = read(&fixture("helios_fixture.csv"), TraceFormat::Helios);
    // By hand: h6 never ran (dropped); h7's duration is end - start = 1,800 s. GPU-seconds:
    // 1x3600 + 8x600 + 0x5 + 16x7200 + 2x43200 + 1x1800 = 211,800.
    assert_eq!(w.jobs.len(), 6);
    assert_eq!(gpu_secs(&w), 211_800.0);
    assert_eq!(meta.statuses, [3, 2, 1, 0]);
    assert_eq!(w.filtered.iter().map(|f| f.1).sum::<u64>(), 1);
    assert_eq!(w.jobs.last().unwrap().submit, SimTime::from_secs(86_400));
    let mut spec = TraceSpec::new(fixture("helios_fixture.csv"), TraceFormat::Helios);
    spec.filter.statuses = vec![JobStatus::Completed];
    spec.filter.min_gpus = Some(1.0);
    let (w, _) = spec.read().unwrap();
    // Completed with >= 1 GPU: h1 and h7 (h3 is CPU-only).
    assert_eq!(
        w.jobs.iter().map(|j| j.name.as_str()).collect::<Vec<_>>(),
        ["h1", "h7"]
    );
    let dropped: std::collections::BTreeMap<_, _> = w.filtered.iter().cloned().collect();
    assert_eq!(dropped["status failed"], 2);
    assert_eq!(dropped["status cancelled"], 1);
    assert_eq!(dropped["fewer GPUs than min_gpus"], 1);
}

#[test]
fn pai_fixture_with_job_table() {
    let mut spec = TraceSpec::new(fixture("pai_task_fixture.csv"), TraceFormat::Pai);
    spec.pai_job_table = Some(fixture("pai_job_fixture.csv"));
    let (w, meta) = spec.read().unwrap();
    // By hand: j5 (no end) and j6 (no start) dropped; GPU-seconds 4x3600 + 0 + 0.5x600 +
    // 4x7200 + 1x100 (3 x 25 % rounded up to one GPU) = 43,600.
    assert_eq!(w.jobs.len(), 5);
    assert_eq!(gpu_secs(&w), 43_600.0);
    assert_eq!(meta.rounded_gpus, 1);
    assert_eq!(w.filtered.iter().map(|f| f.1).sum::<u64>(), 2);
    let user = |name: &str| {
        let j = w.jobs.iter().find(|j| j.name == name).unwrap();
        w.tenants[j.tenant as usize].clone()
    };
    assert_eq!(user("j1/ps"), "alice");
    assert_eq!(user("j2/tensorflow"), "bob");
    assert_eq!(user("j4/worker"), "unknown");
    assert_eq!(
        w.jobs
            .iter()
            .filter(|j| matches!(j.gpus, GpuRequest::Fraction(500)))
            .count(),
        1
    );
    // GPU-type mapping: V100M32 onto V100, then onto a cluster that only has V100 and T4.
    let mut spec2 = spec.clone();
    spec2.shaping.gpu_type_map = vec![("V100M32".into(), "V100".into())];
    let (mut w2, _) = spec2.load(&RngStreams::new(1), 0.0).unwrap();
    let unknown = w2.remap_types(&["V100".into(), "T4".into()]);
    assert_eq!(unknown, vec!["P100".to_string()]);
    let j3 = w2.jobs.iter().find(|j| j.name == "j3/worker").unwrap();
    assert!(j3.gpu_types.allows(0) && !j3.gpu_types.allows(1));
}

#[test]
fn philly_fixture() {
    let (w, meta) = read(&fixture("philly_fixture.json"), TraceFormat::Philly);
    // By hand: application_4 never ran; job 2 ran 600 + 1200 s on its last attempt's 2 GPUs;
    // job 3 on 16 GPUs for 10 s; job 5 on none. GPU-seconds 4x3600 + 2x1800 + 16x10 = 18,160.
    assert_eq!(w.jobs.len(), 4);
    assert_eq!(gpu_secs(&w), 18_160.0);
    assert_eq!(meta.statuses, [2, 1, 1, 0]);
    let j3 = w.jobs.iter().find(|j| j.name == "application_3").unwrap();
    assert_eq!(w.tenants[j3.tenant as usize], "vc2");
    let j5 = w.jobs.iter().find(|j| j.name == "application_5").unwrap();
    assert_eq!(
        (j5.gpus, j5.work.0, w.tenants[j5.tenant as usize].as_str()),
        (GpuRequest::None, 100_000, "u5")
    );
    assert_eq!(j5.submit, SimTime::from_secs(3 * 3600));
}

#[test]
fn unsorted_rows_are_sorted_with_ties_in_file_order() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("u.swf");
    std::fs::write(&p, "3 50 0 1 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n1 10 0 1 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n2 50 0 1 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n").unwrap();
    let (w, _) = read(&p, TraceFormat::Swf);
    assert_eq!(
        w.jobs.iter().map(|j| j.name.as_str()).collect::<Vec<_>>(),
        ["1", "3", "2"]
    );
}

#[test]
fn load_scaling_to_capacity() {
    // Tiresias: 26,624 GPU-s over a span of 1,779 s (last submit; awk 'NR>1{m=$3} END{print m}').
    let mut spec = TraceSpec::new(
        root().join("data/tiresias/60_job.csv"),
        TraceFormat::Tiresias,
    );
    spec.shaping.load_scale = Some(LoadScale {
        factor: 2.0,
        base: ScaleBase::Capacity,
    });
    let (w, _) = spec.load(&RngStreams::new(9), 64.0).unwrap();
    let target = 2.0 * 64.0 * 1779.0;
    // Replication stops within one job (at most 8 GPUs x 1,800 s) above the target.
    assert!(
        gpu_secs(&w) >= target && gpu_secs(&w) < target + 8.0 * 1800.0,
        "{}",
        gpu_secs(&w)
    );
    let (again, _) = spec.load(&RngStreams::new(9), 64.0).unwrap();
    assert_eq!(w.jobs, again.jobs, "seeded scaling is reproducible");
}

// ---------------------------------------------------------------- bad input

fn every_reader(bytes: &[u8]) {
    let p = Path::new("fuzz");
    let f = RowFilter::default;
    for bad in [BadRows::Stop, BadRows::Skip] {
        let _ = read_swf_from(bytes, p, &SwfOptions::default(), bad, f());
        let _ = read_helios_from(bytes, p, bad, f());
        let _ = read_pai_from(bytes, p, None, bad, f());
        let _ = read_pai_job_table_from(bytes, p, bad, None);
        let _ = read_pai_machines_from(bytes, p, bad);
        let _ = read_philly_from(bytes, p, bad, f());
        let _ = read_tiresias_from(bytes, p, bad, f());
    }
}

/// The openb and generic CSV readers take a path: write the bytes to a file first.
fn openb_reader(bytes: &[u8]) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("pods.csv");
    std::fs::write(&p, bytes).unwrap();
    for bad in [BadRows::Stop, BadRows::Skip] {
        let _ = read_openb_trace(&p, bad, RowFilter::default());
        let _ = read_generic_csv(&p, bad);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]
    #[test]
    fn readers_never_panic_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        every_reader(&bytes);
        openb_reader(&bytes);
    }

    #[test]
    fn openb_never_panics_on_mangled_rows(cut in 0usize..400, flip in 0usize..400, byte in any::<u8>()) {
        let mut b = b"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\nopenb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061\nopenb-pod-0002,8000,100,2,1000,V100M16|V100M32,BE,Failed,5,6,\n".to_vec();
        let i = flip % b.len();
        b[i] = byte;
        b.truncate(cut % (b.len() + 1));
        openb_reader(&b);
    }

    #[test]
    fn readers_never_panic_on_mangled_fixtures(cut in 0usize..2000, flip in 0usize..2000, byte in any::<u8>()) {
        for f in ["helios_fixture.csv", "pai_task_fixture.csv", "philly_fixture.json"] {
            let mut b = std::fs::read(fixture(f)).unwrap();
            if !b.is_empty() {
                let i = flip % b.len();
                b[i] = byte;
                b.truncate(cut % (b.len() + 1));
            }
            every_reader(&b);
        }
    }
}

#[test]
fn bad_rows_stop_with_place_or_are_skipped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    // (file, format, text, line of the bad row, column or reason it names)
    let cases: [(&str, TraceFormat, &str, u32, &str); 5] = [
        ("t.csv", TraceFormat::Tiresias, "job_id,num_gpu,submit_time,duration\n0,1,0,5\n1,two,3,5\n2,1,4,5\n", 3, "num_gpu"),
        ("h.csv", TraceFormat::Helios, "job_id,gpu_num,submit_time,duration\na,1,2020-01-01 00:00:00,5\nb,1,2020-01-01 00:00,5\nc,1,2020-01-01 00:00:09,5\n", 3, "submit_time"),
        ("p.csv", TraceFormat::Pai, "j1,w,1,Terminated,0,5,1,1,100,T4\nj2,w,1,Terminated,9,-5\nj3,w,1,Terminated,1,5,1,1,100,T4\n", 2, "task table has 10"),
        ("s.swf", TraceFormat::Swf, "1 0 0 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n2 0 0 5 1 -1 -1 1\n3 0 0 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n", 2, "18"),
        ("x.json", TraceFormat::Philly, r#"[{"jobid":"a","submitted_time":"2017-01-01 00:00:00","attempts":[{"start_time":"2017-01-01 00:00:00","end_time":"2017-01-01 00:00:05","detail":[]}]},{"jobid":"b","submitted_time":"yesterday"},{"jobid":"c","submitted_time":"2017-01-01 00:00:00","attempts":[{"start_time":"2017-01-01 00:00:00","end_time":"2017-01-01 00:00:05","detail":[]}]}]"#, 1, "job 2: \"yesterday\""),
    ];
    for (name, format, text, row, col) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let e = TraceSpec::new(&p, format).read().unwrap_err().to_string();
        assert!(
            e.contains(&format!("{name}:{row}")) && e.contains(col),
            "{name}: {e}"
        );
        let mut s = TraceSpec::new(&p, format);
        s.bad_rows = BadRows::Skip;
        let (w, _) = s.read().unwrap();
        assert_eq!((w.jobs.len(), w.skipped_rows), (2, 1), "{name}");
        // Empty files are an error naming the file.
        std::fs::write(&p, "").unwrap();
        let e = TraceSpec::new(&p, format).read().unwrap_err().to_string();
        assert!(e.contains(name), "{e}");
    }
}

// ---------------------------------------------------------------- CLI

fn bin() -> Command {
    Command::cargo_bin("gpufleet").unwrap()
}

#[test]
fn trace_inspect_convert_fit_commands() {
    let t = root().join("data/tiresias/60_job.csv");
    let out = bin()
        .args(["trace", "inspect"])
        .arg(&t)
        .args(["--format", "tiresias", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["jobs"], 60);
    // awk: 26,624 GPU-s = 7.3956 GPU-hours; sizes 1:30, 2:10, 4:10, 8:10 (cut -d, -f2 | sort | uniq -c).
    assert!((v["gpu_hours"].as_f64().unwrap() - 26_624.0 / 3600.0).abs() < 1e-9);
    assert_eq!(v["gpu_histogram"]["1"], 30);
    assert_eq!(v["gpu_histogram"]["8"], 10);
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("t.csv");
    bin()
        .args(["trace", "convert", "--from", "tiresias"])
        .arg(&t)
        .arg(&csv)
        .assert()
        .success();
    let a = read_generic_csv(&csv, BadRows::Stop).unwrap();
    let (b, _) = read(&t, TraceFormat::Tiresias);
    assert_eq!(a.jobs, b.jobs);
    let toml = dir.path().join("w.toml");
    bin()
        .args(["trace", "fit"])
        .arg(&t)
        .args(["--format", "tiresias", "--out"])
        .arg(&toml)
        .assert()
        .success();
    assert!(std::fs::read_to_string(&toml)
        .unwrap()
        .contains("kind = \"model\""));
    // A wrong format is a usage error (exit 2), as is a trace that is not in that format.
    bin()
        .args(["trace", "inspect"])
        .arg(&t)
        .args(["--format", "nope"])
        .assert()
        .code(2);
    let out = bin()
        .args(["trace", "inspect"])
        .arg(&t)
        .args(["--format", "swf"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("60_job.csv:1"), "{err}");
    // Skipping bad rows reports the count.
    let out = bin()
        .args(["trace", "convert", "--from", "swf", "--skip-bad-rows"])
        .arg(&t)
        .arg(&csv)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("60_job.csv: skipped 61 bad rows"));
}
