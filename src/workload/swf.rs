//! Reader for the Standard Workload Format (Parallel Workloads Archive, SWF 2.2).
//!
//! Each data line has 18 whitespace-separated fields; lines starting with `;` are header
//! comments (`UnixStartTime`, `TimeZone`, `MaxProcs`, ...). `-1` means unknown.
//!
//! Mapping onto gpufleet jobs:
//! - `job_id` (field 1) is the name; `submit` (2, seconds from the log start) the submit time.
//! - `run_time` (4) is the work; a run time of 0 becomes 1 ms; -1 (unknown) is a bad row.
//! - processors: `allocated` (5), or `requested` (8) when that is -1; GPUs are
//!   `ceil(processors / procs_per_gpu)` (default 1 processor = 1 GPU). Unknown in both is a
//!   bad row.
//! - `requested_time` (9), when positive, is the runtime estimate backfilling plans with.
//! - `user_id` (12) is the tenant (`u<N>`, or `unknown` for -1).
//! - `status` (11): 1 completed, 0 failed, 5 cancelled, anything else unknown; 2, 3 and 4
//!   mark a partial execution of a checkpointed or swapped job, whose summary line (same
//!   job number) holds the whole run: such lines are dropped and counted.
//! - A job number on two kept lines is a bad row (see [`super::trace::refuse_repeats`]).
//! - Dropped: wait time, CPU time, memory, executable, queue, partition, preceding job and
//!   think time (gpufleet computes its own waits).
//!
//! The clock is wall-clock when the header gives `UnixStartTime` (plus `TimeZone`, the
//! offset in seconds of the log's local standard time), otherwise relative.

use super::trace::{JobStatus, RowError, RowFilter, RowSink, TraceMeta, TraceRow, DROPPED};
use super::{BadRows, TraceError, Workload};
use crate::model::GpuRequest;
use std::io::BufRead;
use std::path::Path;

/// How SWF processors become GPUs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwfOptions {
    /// Processors per GPU (>= 1; default 1).
    pub procs_per_gpu: u32,
}

impl Default for SwfOptions {
    fn default() -> Self {
        SwfOptions { procs_per_gpu: 1 }
    }
}

/// What the SWF header says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SwfHeader {
    /// `MaxProcs` (or `MaxNodes` when `MaxProcs` is absent).
    pub max_procs: Option<u64>,
    /// `MaxJobs`.
    pub max_jobs: Option<u64>,
    /// `UnixStartTime`.
    pub unix_start: Option<i64>,
    /// `TimeZone` (seconds east of UTC).
    pub time_zone: Option<i64>,
}

const FIELDS: [&str; 18] = [
    "job_id",
    "submit",
    "wait",
    "run_time",
    "allocated_procs",
    "avg_cpu_time",
    "used_memory",
    "requested_procs",
    "requested_time",
    "requested_memory",
    "status",
    "user_id",
    "group_id",
    "executable",
    "queue",
    "partition",
    "preceding_job",
    "think_time",
];

/// Reads one header comment into `h`. A `UnixStartTime` or `TimeZone` that is not a whole
/// number is an error (it sets every submit time; left out, the clock would silently become
/// relative); other keys are informative and kept only when they read.
fn header_line(h: &mut SwfHeader, line: &str) -> Result<(), String> {
    let body = line.trim_start_matches(';').trim();
    let Some((k, v)) = body.split_once(':') else {
        return Ok(());
    };
    let v = v.trim();
    let whole = |key: &str| {
        v.parse::<i64>()
            .map(Some)
            .map_err(|_| format!("header {key}: {v:?} is not a whole number of seconds"))
    };
    match k.trim() {
        "MaxProcs" => h.max_procs = v.parse().ok(),
        "MaxNodes" if h.max_procs.is_none() => h.max_procs = v.parse().ok(),
        "MaxJobs" => h.max_jobs = v.parse().ok(),
        "UnixStartTime" => h.unix_start = whole("UnixStartTime")?,
        "TimeZone" => h.time_zone = whole("TimeZone")?,
        _ => {}
    }
    Ok(())
}

fn parse_line<'a>(
    fields: &[&'a str; 18],
    opts: &SwfOptions,
    base_ms: i64,
    user_buf: &'a mut String,
) -> Result<TraceRow<'a>, RowError> {
    let int = |k: usize| -> Result<i64, RowError> {
        let v = fields[k];
        v.parse::<i64>()
            .or_else(|_| match v.parse::<f64>() {
                Ok(x) if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e15 => Ok(x as i64),
                _ => Err(()),
            })
            .map_err(|_| (FIELDS[k], format!("{v:?} is not an integer")))
    };
    // Times past MAX_TRACE_SECS are refused, not clamped to the largest time there is.
    let secs = |k: usize| -> Result<i64, RowError> {
        let v = int(k)?;
        if v as f64 > super::value::MAX_TRACE_SECS {
            return Err((FIELDS[k], super::value::too_many_secs(fields[k])));
        }
        Ok(v)
    };
    let submit = secs(1)?;
    if submit < 0 {
        return Err((FIELDS[1], format!("submit time {submit} is negative")));
    }
    let run = secs(3)?;
    if run < 0 {
        return Err((FIELDS[3], "run time is unknown (-1)".into()));
    }
    let alloc = int(4)?;
    let req = int(7)?;
    let procs = if alloc >= 0 { alloc } else { req };
    if procs < 0 {
        return Err((
            FIELDS[4],
            "processors unknown (allocated and requested are -1)".into(),
        ));
    }
    let per = opts.procs_per_gpu.max(1) as i64;
    let gpus = (procs + per - 1) / per;
    let gpus = match gpus {
        0 => GpuRequest::None,
        g if g <= 1_000_000 => GpuRequest::Whole(g as u32),
        g => return Err((FIELDS[4], format!("{g} GPUs is more than 1000000"))),
    };
    let req_time = secs(8)?;
    let status = match int(10)? {
        // A checkpointed or swapped job has a summary line (status 0, 1 or 5) for its whole
        // run and one line per partial execution, under the same job number: the partial
        // lines are dropped (and counted), not replayed as jobs of their own.
        2..=4 => return Err((DROPPED, PARTIAL.into())),
        1 => JobStatus::Completed,
        0 => JobStatus::Failed,
        5 => JobStatus::Cancelled,
        _ => JobStatus::Unknown,
    };
    let user = int(11)?;
    user_buf.clear();
    if user < 0 {
        user_buf.push_str("unknown");
    } else {
        use std::fmt::Write;
        let _ = write!(user_buf, "u{user}");
    }
    Ok(TraceRow {
        name: fields[0],
        submit_ms: base_ms.saturating_add(submit.saturating_mul(1000)),
        gpus,
        gpu_types: "",
        work_ms: (run as u64).saturating_mul(1000),
        estimate_ms: (req_time > 0).then(|| (req_time as u64).saturating_mul(1000)),
        tenant: user_buf.as_str(),
        status,
        cpu_milli: 0,
        mem_mib: 0,
    })
}

/// Why an SWF partial-execution line (status 2, 3 or 4) is dropped.
const PARTIAL: &str = "partial execution (status 2-4: its job's summary line holds the whole run)";

/// Reads an SWF log from `path`.
pub fn read_swf(
    path: &Path,
    opts: &SwfOptions,
    bad: BadRows,
    filter: RowFilter,
) -> Result<(Workload, TraceMeta, SwfHeader), TraceError> {
    // Line ends as every reader reads them (`\r\n` and a lone `\r` as `\n`).
    let file = super::open_limited(path).map_err(|source| TraceError::Io {
        file: path.to_path_buf(),
        source,
    })?;
    read_swf_from(file, path, opts, bad, filter)
}

/// Reads SWF from any buffered reader (`path` names it in errors).
pub fn read_swf_from<R: BufRead>(
    mut input: R,
    path: &Path,
    opts: &SwfOptions,
    bad: BadRows,
    filter: RowFilter,
) -> Result<(Workload, TraceMeta, SwfHeader), TraceError> {
    let mut sink = RowSink::new(path, bad, filter);
    sink.text_columns = [FIELDS[0], FIELDS[11], "gpu_type"];
    let mut header = SwfHeader::default();
    let mut buf = Vec::with_capacity(256);
    let mut user = String::new();
    let mut line_no = 0u64;
    let mut base_ms: Option<i64> = None;
    loop {
        line_no += 1;
        let more = super::read_line_limited(&mut input, &mut buf, line_no).map_err(|source| {
            TraceError::Io {
                file: path.to_path_buf(),
                source,
            }
        })?;
        if !more {
            break;
        }
        let Ok(line) = std::str::from_utf8(&buf) else {
            sink.bad_row(line_no, "", "not UTF-8 text".into())?;
            continue;
        };
        // A UTF-8 byte-order mark (as some editors save) opens the first line.
        let line = line.strip_prefix('\u{feff}').unwrap_or(line).trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with(';') {
            if let Err(m) = header_line(&mut header, line) {
                return Err(sink.file_error(m));
            }
            continue;
        }
        let base = match base_ms {
            Some(b) => b,
            None => {
                // A start or zone past any clock wrapped (release arithmetic) or saturated
                // every submit time to the same instant: refused, not replayed.
                let u = header.unix_start.unwrap_or(0);
                let tz = header.time_zone.unwrap_or(0);
                if u.unsigned_abs() as f64 > super::value::MAX_TRACE_SECS {
                    return Err(sink.file_error(format!(
                        "header UnixStartTime: {}",
                        super::value::too_many_secs(&u.to_string())
                    )));
                }
                if tz.unsigned_abs() > 86_400 {
                    return Err(sink.file_error(format!(
                        "header TimeZone: {tz} seconds is more than a day from UTC"
                    )));
                }
                let b = if header.unix_start.is_some() {
                    (u + tz) * 1000
                } else {
                    0
                };
                base_ms = Some(b);
                b
            }
        };
        let mut fields = [""; 18];
        let mut n = 0;
        for f in line.split_ascii_whitespace() {
            if n < 18 {
                fields[n] = f;
            }
            n += 1;
        }
        if n != 18 {
            sink.bad_row(line_no, "", format!("{n} fields, SWF has 18"))?;
            continue;
        }
        let row = parse_line(&fields, opts, base, &mut user);
        sink.take(line_no, row)?;
    }
    sink.meta.wall_clock = header.unix_start.is_some();
    let (w, meta) = sink.finish()?;
    Ok((w, meta, header))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(
        text: &str,
        opts: SwfOptions,
        bad: BadRows,
    ) -> Result<(Workload, TraceMeta, SwfHeader), TraceError> {
        read_swf_from(
            text.as_bytes(),
            Path::new("t.swf"),
            &opts,
            bad,
            RowFilter::default(),
        )
    }

    #[test]
    fn maps_fields() {
        let text = "; MaxProcs: 64\n; UnixStartTime: 100\n; TimeZone: -10\n\
            1 5 2 30 8 -1 -1 8 60 -1 1 3 1 -1 -1 -1 -1 -1\n\
            2 9 0 0 -1 -1 -1 3 -1 -1 5 -1 1 -1 -1 -1 -1 -1\n";
        let (w, meta, h) = read(text, SwfOptions { procs_per_gpu: 2 }, BadRows::Stop).unwrap();
        assert_eq!(h.max_procs, Some(64));
        assert_eq!(meta.origin_ms, (100 - 10 + 5) * 1000);
        assert!(meta.wall_clock);
        assert_eq!(w.jobs[0].gpus, GpuRequest::Whole(4));
        assert_eq!(w.jobs[0].estimate.map(|e| e.0), Some(60_000));
        assert_eq!(w.tenants, vec!["u3", "unknown"]);
        // Job 2: requested 3 procs / 2 per GPU -> 2 GPUs; run time 0 -> 1 ms; submit 4 s later.
        assert_eq!(w.jobs[1].gpus, GpuRequest::Whole(2));
        assert_eq!(w.jobs[1].work.0, 1);
        assert_eq!(w.jobs[1].submit.0, 4000);
        assert_eq!(meta.statuses, [1, 0, 1, 0]);
    }

    #[test]
    fn bad_lines() {
        let text = "1 5 2 30 8\n2 x 0 1 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n3 1 0 1 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";
        let e = read(text, SwfOptions::default(), BadRows::Stop)
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.swf:1") && e.contains("5 fields"), "{e}");
        let (w, ..) = read(text, SwfOptions::default(), BadRows::Skip).unwrap();
        assert_eq!((w.jobs.len(), w.skipped_rows), (1, 2));
        let e = read(
            "1 -5 0 1 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
            SwfOptions::default(),
            BadRows::Stop,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("submit") && e.contains("negative"), "{e}");
        assert!(read("; only a header\n", SwfOptions::default(), BadRows::Stop).is_err());
    }
}
