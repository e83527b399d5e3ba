//! The openb 2023 pod list as a trace format (`--format openb`, `kind = "trace"`), on top
//! of the `openb` reader: pods go through the common row sink so the status and GPU
//! filters, the shaping and `trace inspect` work on them as on every other format.
//!
//! Mapping (the same as [`super::openb_workload`]): submit = `creation_time`; work =
//! `deletion_time` minus `scheduled_time` (or the creation time), at least one second;
//! tenant = QoS class (`default` when empty); QoS `BE` (best effort) jobs are preemptible;
//! `gpu_spec` constrains the GPU model. `pod_phase` gives the status: Succeeded completed,
//! Failed failed, anything else (Running, Pending at the trace's end) unknown. Pods
//! without a creation or deletion time are dropped and counted; a pod list without the
//! time columns (the five-column variants) is refused.

use super::csv_rows::open;
use super::openb::PodList;
use super::trace::{JobStatus, RowFilter, RowSink, TraceMeta, TraceRow, DROPPED};
use super::{BadRows, TraceError, Workload};
use std::path::Path;

/// Reads an openb pod list as a trace: each pod goes to the row sink as it is read, so
/// the filters and `max_jobs` hold while reading (the list was read whole first, every
/// row of a 100-million-row file held before the cap was looked at).
pub fn read_openb_trace(
    path: &Path,
    bad: BadRows,
    filter: RowFilter,
) -> Result<(Workload, TraceMeta), TraceError> {
    trace_of(PodList::new(open(path)?, path)?, path, bad, filter)
}

/// As [`read_openb_trace`], of a list whose header is read.
pub(super) fn trace_of<R: std::io::Read>(
    list: PodList<R>,
    path: &Path,
    bad: BadRows,
    filter: RowFilter,
) -> Result<(Workload, TraceMeta), TraceError> {
    let mut sink = RowSink::new(path, bad, filter);
    sink.text_columns = ["name", "qos", "gpu_spec"];
    if !list.has_times {
        return Err(sink.file_error(
            "no creation_time/deletion_time columns: this pod list has no times to replay",
        ));
    }
    let mut spec = String::new();
    let mut pods = 0u64;
    let skipped = list.each(bad, |row, p| {
        pods += 1;
        let (Some(c), Some(d)) = (p.creation, p.deletion) else {
            return sink.take(row, Err((DROPPED, "no creation or deletion time".into())));
        };
        let start = p.scheduled.unwrap_or(c).clamp(c, d);
        spec.clear();
        spec.push_str(&p.gpu_spec.join("|"));
        let status = match p.phase.as_str() {
            "Succeeded" => JobStatus::Completed,
            "Failed" => JobStatus::Failed,
            _ => JobStatus::Unknown,
        };
        let row_data = TraceRow {
            name: &p.name,
            submit_ms: c.min(1 << 40) as i64 * 1000,
            gpus: p.gpu_request(),
            gpu_types: &spec,
            work_ms: (d - start).max(1).saturating_mul(1000),
            estimate_ms: None,
            tenant: if p.qos.is_empty() { "default" } else { &p.qos },
            status,
            cpu_milli: p.cpu_milli,
            mem_mib: p.mem_mib,
        };
        sink.take(row, Ok(row_data))
    })?;
    if pods == 0 {
        return Err(sink.file_error("no pods"));
    }
    let (mut w, meta) = sink.finish()?;
    w.skipped_rows += skipped;
    if let Some(be) = w.tenants.iter().position(|t| t == "BE") {
        for j in &mut w.jobs {
            j.preemptible = j.tenant as usize == be;
        }
    }
    Ok((w, meta))
}

/// The openb pod-list reader (as a trace in time).
pub struct OpenbTrace;

impl super::formats::TraceReader for OpenbTrace {
    fn read(
        path: &Path,
        bad: BadRows,
        filter: RowFilter,
        _options: &super::formats::FormatOptions,
    ) -> Result<(Workload, TraceMeta), TraceError> {
        read_openb_trace(path, bad, filter)
    }
}
