//! Loading a trace of any format: the reader for the format, the streaming filters, then
//! the shaping. What `[workload] kind = "trace"` and `gpufleet trace` both use.

use super::pai::{read_pai, read_pai_job_table};
use super::shape::Shaping;
use super::swf::{read_swf, SwfOptions};
use super::trace::{RowFilter, TraceFormat, TraceMeta};
use super::{
    read_generic_csv, read_helios, read_philly, read_tiresias, BadRows, TraceError, Workload,
};
use crate::engine::RngStreams;
use std::path::{Path, PathBuf};

/// A trace to load: where, in what format, how to read and shape it.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceSpec {
    /// The file.
    pub path: PathBuf,
    /// Its format.
    pub format: TraceFormat,
    /// Stop or skip at bad rows.
    pub bad_rows: BadRows,
    /// SWF: processors per GPU.
    pub swf: SwfOptions,
    /// PAI: the job table to take users from.
    pub pai_job_table: Option<PathBuf>,
    /// Streaming filters (status, GPU count).
    pub filter: RowFilter,
    /// Window, type mapping, compression, load scaling.
    pub shaping: Shaping,
}

impl TraceSpec {
    /// A spec reading `path` as `format` with defaults (stop at bad rows, no filters).
    pub fn new(path: impl Into<PathBuf>, format: TraceFormat) -> TraceSpec {
        TraceSpec {
            path: path.into(),
            format,
            bad_rows: BadRows::Stop,
            swf: SwfOptions::default(),
            pai_job_table: None,
            filter: RowFilter::default(),
            shaping: Shaping::default(),
        }
    }

    /// Reads (and filters) the trace without shaping it.
    pub fn read(&self) -> Result<(Workload, TraceMeta), TraceError> {
        read_format(
            &self.path,
            self.format,
            self.bad_rows,
            &self.swf,
            self.pai_job_table.as_deref(),
            self.filter.clone(),
        )
    }

    /// Reads, filters and shapes the trace. `capacity_gpus` is the cluster's GPU count
    /// (for load scaling relative to capacity); `streams` seeds the scaling.
    pub fn load(
        &self,
        streams: &RngStreams,
        capacity_gpus: f64,
    ) -> Result<(Workload, TraceMeta), TraceError> {
        let (mut w, meta) = self.read()?;
        self.shaping
            .apply(&mut w, streams, capacity_gpus)
            .map_err(|source| TraceError::Shape {
                file: self.path.clone(),
                source,
            })?;
        Ok((w, meta))
    }
}

/// Reads `path` as `format`, applying the streaming `filter`.
pub fn read_format(
    path: &Path,
    format: TraceFormat,
    bad: BadRows,
    swf: &SwfOptions,
    pai_job_table: Option<&Path>,
    filter: RowFilter,
) -> Result<(Workload, TraceMeta), TraceError> {
    match format {
        TraceFormat::Generic => {
            let mut w = read_generic_csv(path, bad)?;
            // The generic reader has no status or filter; apply the GPU filter here.
            let before = w.jobs.len();
            if let Some(m) = filter.min_gpus {
                w.jobs.retain(|j| j.gpus.gpus_f64() >= m);
            }
            let mid = w.jobs.len();
            if let Some(m) = filter.max_gpus {
                w.jobs.retain(|j| j.gpus.gpus_f64() <= m);
            }
            let (a, b) = ((before - mid) as u64, (mid - w.jobs.len()) as u64);
            if a > 0 {
                w.filtered.push(("fewer GPUs than min_gpus".into(), a));
            }
            if b > 0 {
                w.filtered.push(("more GPUs than max_gpus".into(), b));
            }
            let meta = TraceMeta {
                file: path.to_path_buf(),
                rows: before as u64,
                statuses: [0, 0, 0, before as u64],
                ..TraceMeta::default()
            };
            if !filter.statuses.is_empty() && !filter.statuses.contains(&super::JobStatus::Unknown)
            {
                return Err(TraceError::File {
                    file: path.to_path_buf(),
                    reason: "the generic CSV has no job status to filter on".into(),
                });
            }
            Ok((w, meta))
        }
        TraceFormat::Swf => read_swf(path, swf, bad, filter).map(|(w, m, _)| (w, m)),
        TraceFormat::Helios => read_helios(path, bad, filter),
        TraceFormat::Pai => {
            let users = pai_job_table
                .map(|p| read_pai_job_table(p, bad))
                .transpose()?;
            read_pai(path, users.as_ref(), bad, filter)
        }
        TraceFormat::Philly => read_philly(path, bad, filter),
        TraceFormat::Tiresias => read_tiresias(path, bad, filter),
        TraceFormat::Openb => super::read_openb_trace(path, bad, filter),
    }
}
