//! Reader for the Tiresias simulator's job CSV (`60_job.csv` and its kin).
//!
//! Schema (header row, columns in any order):
//! `job_id,num_gpu,submit_time,iterations,model_name,duration,interval`.
//!
//! Mapping onto gpufleet jobs:
//! - `job_id` is the name, `submit_time` (seconds from the trace start) the submit time,
//!   `num_gpu` the whole GPU count, `duration` (seconds) the work.
//! - Every job belongs to tenant `default`; the status is unknown (the format has none).
//! - `model_name` is the job's class (what a `[throughput]` table is keyed by).
//! - Dropped: `iterations` and `interval` (Tiresias' own model of progress; gpufleet
//!   models work as run time on the reference GPU).

use super::csv_rows::{columns, field, open, CsvRows};
use super::trace::{JobStatus, RowFilter, RowSink, TraceMeta, TraceRow};
use super::value::{parse_u64, secs_to_ms, whole_gpus};
use super::{BadRows, TraceError, Workload};
use std::io::Read;
use std::path::Path;

const NAMES: [&str; 7] = [
    "job_id",
    "num_gpu",
    "submit_time",
    "iterations",
    "model_name",
    "duration",
    "interval",
];

/// Reads a Tiresias CSV from `path`.
pub fn read_tiresias(
    path: &Path,
    bad: BadRows,
    filter: RowFilter,
) -> Result<(Workload, TraceMeta), TraceError> {
    read_tiresias_from(open(path)?, path, bad, filter)
}

/// Reads Tiresias CSV from any reader (`path` names it in errors).
pub fn read_tiresias_from<R: Read>(
    input: R,
    path: &Path,
    bad: BadRows,
    filter: RowFilter,
) -> Result<(Workload, TraceMeta), TraceError> {
    let mut sink = RowSink::new(path, bad, filter);
    sink.text_columns = ["job_id", "tenant", "gpu_type"];
    let rows = CsvRows::new(input, true, &sink)?;
    let col = columns(
        &rows.header,
        NAMES,
        &["job_id", "num_gpu", "submit_time", "duration"],
    )
    .map_err(|r| sink.file_error(r.to_string()))?;
    rows.feed_classed(&mut sink, |rec| {
        let f = |k: usize| field(rec, col[k]);
        let name = f(0);
        if name.is_empty() {
            return Err(("job_id", "missing value".into()));
        }
        let gpus = parse_u64(f(1))
            .and_then(whole_gpus)
            .map_err(|e| ("num_gpu", e.to_string()))?;
        let submit_ms = secs_to_ms(f(2)).map_err(|e| ("submit_time", e.to_string()))?;
        let work_ms = secs_to_ms(f(5)).map_err(|e| ("duration", e.to_string()))? as u64;
        let class = f(4);
        Ok((
            TraceRow {
                name,
                submit_ms,
                gpus,
                gpu_types: "",
                work_ms,
                estimate_ms: None,
                tenant: "default",
                status: JobStatus::Unknown,
                cpu_milli: 0,
                mem_mib: 0,
            },
            class,
        ))
    })?;
    sink.finish()
}

/// The Tiresias reader.
pub struct Tiresias;

impl super::formats::TraceReader for Tiresias {
    fn read(
        path: &Path,
        bad: BadRows,
        filter: RowFilter,
        _options: &super::formats::FormatOptions,
    ) -> Result<(Workload, TraceMeta), TraceError> {
        read_tiresias(path, bad, filter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::GpuRequest;

    #[test]
    fn reads_and_rejects() {
        let t = "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n0,1,10,606,vgg19,164,30\n1,8,0,133,vgg11,147,23\n";
        let (w, _) = read_tiresias_from(
            t.as_bytes(),
            Path::new("t.csv"),
            BadRows::Stop,
            RowFilter::default(),
        )
        .unwrap();
        assert_eq!(w.jobs[0].name, "1");
        assert_eq!(w.jobs[0].gpus, GpuRequest::Whole(8));
        assert_eq!(w.jobs[1].submit.0, 10_000);
        assert_eq!(w.jobs[1].work.0, 164_000);
        // model_name is the class, interned in row order.
        assert_eq!(w.classes, vec!["vgg19", "vgg11"]);
        assert_eq!(w.jobs[0].tags.class, Some(1));
        let e = read_tiresias_from(
            "job_id,num_gpu,submit_time,duration\n0,1,-4,5\n".as_bytes(),
            Path::new("t.csv"),
            BadRows::Stop,
            RowFilter::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("t.csv:2") && e.contains("submit_time"), "{e}");
    }
}
