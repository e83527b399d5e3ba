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

use super::openb::read_openb_pods;
use super::trace::{JobStatus, RowFilter, RowSink, TraceMeta, TraceRow, DROPPED};
use super::{BadRows, TraceError, Workload};
use std::path::Path;

/// Reads an openb pod list as a trace.
pub fn read_openb_trace(
    path: &Path,
    bad: BadRows,
    filter: RowFilter,
) -> Result<(Workload, TraceMeta), TraceError> {
    let pods = read_openb_pods(path, bad)?;
    let mut sink = RowSink::new(path, bad, filter);
    if !pods.has_times {
        return Err(sink.file_error(
            "no creation_time/deletion_time columns: this pod list has no times to replay",
        ));
    }
    let mut spec = String::new();
    for (i, p) in pods.pods.iter().enumerate() {
        // Rows are numbered as lines of the file: the header is line 1.
        let row = i as u64 + 2;
        let (Some(c), Some(d)) = (p.creation, p.deletion) else {
            sink.take(row, Err((DROPPED, "no creation or deletion time".into())))?;
            continue;
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
        sink.take(row, Ok(row_data))?;
    }
    let (mut w, meta) = sink.finish()?;
    w.skipped_rows += pods.skipped_rows;
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
