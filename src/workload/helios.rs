//! Reader for SenseTime Helios job logs (SC'21; `cluster_log.csv` per cluster).
//!
//! Schema (header row, columns in any order):
//! `job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue`,
//! times as `YYYY-MM-DD HH:MM:SS` on the cluster's local clock.
//!
//! Mapping onto gpufleet jobs:
//! - `job_id` is the name; `submit_time` the submit time (wall clock, no zone applied).
//! - `gpu_num` the whole GPU count (0 = CPU-only job); `cpu_num` the CPU cores.
//! - `duration` (seconds) is the work; when empty it is `end_time - start_time`; a job
//!   with neither (never started) is dropped and counted as "never ran".
//! - `vc` (virtual cluster) is the tenant (`user` when `vc` is absent or empty).
//! - `state`: COMPLETED completed; CANCELLED cancelled; FAILED, TIMEOUT, NODE_FAIL,
//!   OUT_OF_MEMORY failed; anything else unknown.
//! - Dropped: `node_num` (placement is gpufleet's), `start_time`/`end_time` beyond the
//!   duration, and `queue` (the trace's own wait: gpufleet computes its own).
//!
//! The Helios data are not distributed with this project; the reader is tested on
//! hand-written fixtures built from the published schema.

use super::csv_rows::{columns, field, open, CsvRows};
use super::trace::{JobStatus, RowError, RowFilter, RowSink, TraceMeta, TraceRow, DROPPED};
use super::value::{parse_datetime_ms, parse_f64, parse_u64, whole_gpus};
use super::{BadRows, TraceError, Workload};
use std::io::Read;
use std::path::Path;

const NAMES: [&str; 12] = [
    "job_id",
    "user",
    "vc",
    "gpu_num",
    "cpu_num",
    "node_num",
    "state",
    "submit_time",
    "start_time",
    "end_time",
    "duration",
    "queue",
];

/// The marker a parse returns for a job that never ran (dropped and counted, not bad).
pub(crate) const NEVER_RAN: &str = "never ran (no duration, no start/end)";

fn status(s: &str) -> JobStatus {
    match s {
        "COMPLETED" => JobStatus::Completed,
        "CANCELLED" => JobStatus::Cancelled,
        "FAILED" | "TIMEOUT" | "NODE_FAIL" | "OUT_OF_MEMORY" => JobStatus::Failed,
        _ => JobStatus::Unknown,
    }
}

fn parse<'r>(rec: &'r csv::StringRecord, col: &[usize; 12]) -> Result<TraceRow<'r>, RowError> {
    let f = |k: usize| field(rec, col[k]);
    let name = f(0);
    if name.is_empty() {
        return Err(("job_id", "missing value".into()));
    }
    let gpus = parse_u64(f(3))
        .and_then(whole_gpus)
        .map_err(|e| ("gpu_num", e.to_string()))?;
    let cpu = match f(4) {
        "" => 0.0,
        v => match parse_f64(v) {
            Ok(x) if (0.0..1e6).contains(&x) => x,
            Ok(_) => return Err(("cpu_num", format!("{v:?} is not a non-negative number"))),
            // Overflow, underflow, `nan`: the value's own error says which.
            Err(e) => return Err(("cpu_num", e.to_string())),
        },
    };
    let submit = parse_datetime_ms(f(7)).map_err(|e| ("submit_time", e.to_string()))?;
    let work_ms = match f(10) {
        "" => {
            let (s, e) = (f(8), f(9));
            if s.is_empty() || e.is_empty() {
                return Err((DROPPED, NEVER_RAN.into()));
            }
            let s = parse_datetime_ms(s).map_err(|e| ("start_time", e.to_string()))?;
            let e = parse_datetime_ms(e).map_err(|e| ("end_time", e.to_string()))?;
            if e < s {
                return Err(("end_time", "end_time is before start_time".into()));
            }
            (e - s) as u64
        }
        v => match parse_f64(v) {
            Ok(x) if (0.0..1e12).contains(&x) => (x * 1000.0).round() as u64,
            Err(e) => return Err(("duration", e.to_string())),
            Ok(_) => {
                return Err((
                    "duration",
                    format!("{v:?} is not a non-negative number of seconds"),
                ))
            }
        },
    };
    let tenant = match f(2) {
        "" => f(1),
        vc => vc,
    };
    Ok(TraceRow {
        name,
        submit_ms: submit,
        gpus,
        gpu_types: "",
        work_ms,
        estimate_ms: None,
        tenant: if tenant.is_empty() { "default" } else { tenant },
        status: status(f(6)),
        cpu_milli: (cpu * 1000.0).round() as u32,
        mem_mib: 0,
    })
}

/// Reads a Helios job CSV from `path`.
pub fn read_helios(
    path: &Path,
    bad: BadRows,
    filter: RowFilter,
) -> Result<(Workload, TraceMeta), TraceError> {
    read_helios_from(open(path)?, path, bad, filter)
}

/// Reads Helios CSV from any reader (`path` names it in errors).
pub fn read_helios_from<R: Read>(
    input: R,
    path: &Path,
    bad: BadRows,
    filter: RowFilter,
) -> Result<(Workload, TraceMeta), TraceError> {
    let mut sink = RowSink::new(path, bad, filter);
    sink.text_columns = ["job_id", "vc", "gpu_type"];
    let rows = CsvRows::new(input, true, &sink)?;
    let col = columns(&rows.header, NAMES, &["job_id", "gpu_num", "submit_time"])
        .map_err(|r| sink.file_error(r.to_string()))?;
    if col[10] == usize::MAX && (col[8] == usize::MAX || col[9] == usize::MAX) {
        return Err(sink.file_error("needs a duration column, or start_time and end_time"));
    }
    rows.feed(&mut sink, |rec, _| parse(rec, &col))?;
    sink.meta.wall_clock = true;
    sink.finish()
}

/// The Helios reader.
pub struct Helios;

impl super::formats::TraceReader for Helios {
    fn read(
        path: &Path,
        bad: BadRows,
        filter: RowFilter,
        _options: &super::formats::FormatOptions,
    ) -> Result<(Workload, TraceMeta), TraceError> {
        read_helios(path, bad, filter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::GpuRequest;

    const FIXTURE: &str = "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n\
        j1,alice,vcA,8,32,1,COMPLETED,2020-04-01 10:00:00,2020-04-01 10:05:00,2020-04-01 11:05:00,3600,300\n\
        j2,bob,,0,4,1,FAILED,2020-04-01 09:00:00,2020-04-01 09:00:00,2020-04-01 09:00:30,,0\n\
        j3,bob,vcB,2,8,1,CANCELLED,2020-04-01 09:30:00,,,,0\n";

    #[test]
    fn maps_fixture() {
        let (w, meta) = read_helios_from(
            FIXTURE.as_bytes(),
            Path::new("h.csv"),
            BadRows::Stop,
            RowFilter::default(),
        )
        .unwrap();
        assert_eq!(w.jobs.len(), 2);
        assert_eq!(w.filtered, vec![(NEVER_RAN.to_string(), 1)]);
        // j2 is first (09:00), j1 an hour later.
        assert_eq!(w.jobs[0].name, "j2");
        assert_eq!(w.jobs[0].gpus, GpuRequest::None);
        assert_eq!(w.jobs[0].work.0, 30_000);
        assert_eq!(w.tenants[w.jobs[0].tenant as usize], "bob");
        assert_eq!(w.jobs[1].submit.0, 3_600_000);
        assert_eq!(w.jobs[1].gpus, GpuRequest::Whole(8));
        assert_eq!(w.jobs[1].cpu_milli, 32_000);
        assert_eq!(w.tenants[w.jobs[1].tenant as usize], "vcA");
        assert_eq!(meta.statuses, [1, 1, 0, 0]);
    }

    #[test]
    fn bad_rows() {
        let text = "job_id,gpu_num,submit_time,duration\na,1,2020-01-01 00:00:00,5\nb,x,2020-01-01 00:00:00,5\n";
        let e = read_helios_from(
            text.as_bytes(),
            Path::new("h.csv"),
            BadRows::Stop,
            RowFilter::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("h.csv:3") && e.contains("gpu_num"), "{e}");
        let e = read_helios_from(
            "job_id,gpu_num\n".as_bytes(),
            Path::new("h.csv"),
            BadRows::Stop,
            RowFilter::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("submit_time"), "{e}");
    }
}
