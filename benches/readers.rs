//! Trace reader throughput: a generated 1,000,000-row file per format, read in full
//! (parse, map, sort), reporting rows per second, by wall clock and by the process's CPU
//! time (the machine may be shared). Target: >= 1M rows/s per format.
//!
//!     cargo bench --bench readers            # 1M rows per format
//!     cargo bench --bench readers -- 200000  # fewer rows
//!     cargo bench --bench readers -- philly  # one format

use gpufleet::workload::{BadRows, RowFilter, SwfOptions, TraceFormat, TraceSpec};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

fn date(secs: u64) -> String {
    gpufleet::workload::format_datetime(1_585_699_200_000 + secs as i64 * 1000)
}

/// Writes `rows` rows of `format` to `path`, submit times increasing, sizes and times varied.
fn generate(format: TraceFormat, rows: u64, path: &Path) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let gpus = |i: u64| [1u64, 1, 2, 4, 8, 1, 16, 1][(i % 8) as usize];
    let dur = |i: u64| 30 + (i * 7919) % 86_400;
    match format {
        TraceFormat::Swf => {
            writeln!(
                f,
                "; MaxProcs: 1024\n; UnixStartTime: 749458803\n; TimeZone: -28800"
            )?;
            for i in 0..rows {
                writeln!(
                    f,
                    "{:>7} {:>9} {:>5} {:>6} {:>4} -1 -1 {:>4} {:>6} -1 1 {:>3} 1 -1 1 -1 -1 -1",
                    i + 1,
                    i * 3,
                    i % 100,
                    dur(i),
                    gpus(i),
                    gpus(i),
                    dur(i) * 2,
                    i % 300
                )?;
            }
        }
        TraceFormat::Helios => {
            writeln!(f, "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue")?;
            for i in 0..rows {
                let s = i * 3;
                writeln!(
                    f,
                    "{i},u{},vc{},{},{},1,COMPLETED,{},{},{},{},0",
                    i % 300,
                    i % 20,
                    gpus(i),
                    gpus(i) * 4,
                    date(s),
                    date(s),
                    date(s + dur(i)),
                    dur(i)
                )?;
            }
        }
        TraceFormat::Pai => {
            for i in 0..rows {
                let s = i * 3;
                writeln!(
                    f,
                    "job{i},worker,{},Terminated,{s},{},600,29.3,{},V100",
                    gpus(i),
                    s + dur(i),
                    if i % 5 == 0 { 50 } else { 100 }
                )?;
            }
        }
        TraceFormat::Philly => {
            writeln!(f, "[")?;
            for i in 0..rows {
                let s = i * 3;
                let g: Vec<String> = (0..gpus(i)).map(|k| format!("\"gpu{k}\"")).collect();
                writeln!(
                    f,
                    "{{\"status\": \"Pass\", \"vc\": \"vc{}\", \"jobid\": \"application_{i}\", \"attempts\": [{{\"start_time\": \"{}\", \"end_time\": \"{}\", \"detail\": [{{\"ip\": \"m{}\", \"gpus\": [{}]}}]}}], \"submitted_time\": \"{}\", \"user\": \"u{}\"}}{}",
                    i % 20,
                    date(s),
                    date(s + dur(i)),
                    i % 500,
                    g.join(", "),
                    date(s),
                    i % 300,
                    if i + 1 < rows { "," } else { "" }
                )?;
            }
            writeln!(f, "]")?;
        }
        TraceFormat::Tiresias => {
            writeln!(
                f,
                "job_id,num_gpu,submit_time,iterations,model_name,duration,interval"
            )?;
            for i in 0..rows {
                writeln!(
                    f,
                    "{i},{},{},{},resnet50,{},30",
                    gpus(i),
                    i * 3,
                    100 + i % 900,
                    dur(i)
                )?;
            }
        }
        TraceFormat::Openb => {
            writeln!(f, "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time")?;
            for i in 0..rows {
                let s = i * 3;
                let (n, m) = if i % 4 == 0 {
                    (1, 460)
                } else {
                    (gpus(i), 1000)
                };
                writeln!(
                    f,
                    "openb-pod-{i:07},{},{},{n},{m},{},LS,Running,{s},{},{s}",
                    n * 8000,
                    n * 16384,
                    if i % 3 == 0 { "V100M16|V100M32" } else { "" },
                    s + dur(i)
                )?;
            }
        }
        TraceFormat::Generic => {
            writeln!(f, "job_id,submit_s,gpus,duration_s,tenant")?;
            for i in 0..rows {
                writeln!(f, "j{i},{},{},{},t{}", i * 3, gpus(i), dur(i), i % 20)?;
            }
        }
    }
    f.flush()
}

/// CPU time of this process so far (user + system), from /proc/self/stat (Linux; 100 Hz
/// ticks), so that figures on a shared, busy machine can be read without the wait.
fn cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn main() {
    let rows: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let dir = std::env::temp_dir().join(format!("gpufleet-bench-readers-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("cannot create {}: {e}", dir.display());
        return;
    }
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a.parse::<u64>().is_err() && !a.starts_with('-'))
        .collect();
    println!("reading {rows} generated rows per format (best of 3)");
    for format in [
        TraceFormat::Generic,
        TraceFormat::Swf,
        TraceFormat::Helios,
        TraceFormat::Pai,
        TraceFormat::Philly,
        TraceFormat::Tiresias,
        TraceFormat::Openb,
    ] {
        if !only.is_empty() && !only.iter().any(|o| o == format.as_str()) {
            continue;
        }
        let path = dir.join(format!("trace.{}", format.as_str()));
        if let Err(e) = generate(format, rows, &path) {
            eprintln!("cannot write {}: {e}", path.display());
            continue;
        }
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let mut spec = TraceSpec::new(&path, format);
        spec.bad_rows = BadRows::Stop;
        spec.swf = SwfOptions::default();
        spec.filter = RowFilter::default();
        let mut best = f64::INFINITY;
        let mut best_cpu = f64::INFINITY;
        let mut jobs = 0;
        for _ in 0..3 {
            let c0 = cpu_secs();
            let t = Instant::now();
            match spec.read() {
                Ok((w, _)) => jobs = w.jobs.len(),
                Err(e) => {
                    eprintln!("{e}");
                    break;
                }
            }
            best = best.min(t.elapsed().as_secs_f64());
            if let (Some(a), Some(b)) = (c0, cpu_secs()) {
                best_cpu = best_cpu.min(b - a);
            }
        }
        println!(
            "{:<9} {:>8} jobs  {:>6.0} MB  wall {:>6.3} s  {:>5.2} M rows/s  {:>6.0} MB/s  | cpu {:>6.3} s  {:>5.2} M rows/s",
            format.as_str(),
            jobs,
            size as f64 / 1e6,
            best,
            rows as f64 / best / 1e6,
            size as f64 / best / 1e6,
            best_cpu,
            rows as f64 / best_cpu / 1e6
        );
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_dir(&dir);
}
