//! Loading a trace of any format: the reader for the format, the streaming filters, then
//! the shaping. What `[workload] kind = "trace"` and `gpufleet trace` both use.

use super::formats::{FormatOptions, TraceFormat};
use super::shape::Shaping;
use super::swf::SwfOptions;
use super::trace::{RowFilter, TraceMeta};
use super::{BadRows, TraceError, Workload};
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
    /// The runtime estimates schedulers see (applied after shaping).
    pub estimates: super::Estimates,
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
            estimates: super::Estimates::Trace,
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
        let (w, meta) = self.read()?;
        self.shape(w, meta, streams, capacity_gpus)
    }

    /// An openb pod list (`format` openb) in one pass, whatever its kind: a list with the
    /// time columns read, filtered and shaped as [`TraceSpec::load`] does; a list without
    /// them as pods, at most `max_pods` (its header told which, and the file was opened
    /// once: a pipe or FIFO given as the list cannot be read a second time).
    pub fn load_openb(
        &self,
        streams: &RngStreams,
        capacity_gpus: f64,
        max_pods: Option<u64>,
    ) -> Result<OpenbLoad, TraceError> {
        let list = super::openb::PodList::new(super::csv_rows::open(&self.path)?, &self.path)?;
        if !list.has_times {
            return super::openb::pods_of(list, &self.path, self.bad_rows, max_pods)
                .map(OpenbLoad::Pods);
        }
        let (w, meta) =
            super::openb_trace::trace_of(list, &self.path, self.bad_rows, self.filter.clone())?;
        let (w, meta) = self.shape(counted(&self.path, w), meta, streams, capacity_gpus)?;
        Ok(OpenbLoad::Trace(Box::new((w, meta))))
    }

    /// Shapes a read trace and gives it its runtime estimates.
    fn shape(
        &self,
        mut w: Workload,
        meta: TraceMeta,
        streams: &RngStreams,
        capacity_gpus: f64,
    ) -> Result<(Workload, TraceMeta), TraceError> {
        self.shaping
            .apply(&mut w, streams, capacity_gpus)
            .map_err(|source| TraceError::Shape {
                file: self.path.clone(),
                source,
            })?;
        self.estimates.apply(&mut w, streams);
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
    let options = FormatOptions {
        swf: *swf,
        pai_job_table,
    };
    let (w, meta) = format.read(path, bad, filter, &options)?;
    Ok((counted(path, w), meta))
}

/// Every skipped row counted against a file: the trace's own, unless a joined file (the
/// PAI job table) already claimed its share.
fn counted(path: &Path, mut w: Workload) -> Workload {
    if w.skipped_by_file.is_empty() && w.skipped_rows > 0 {
        w.skipped_by_file
            .push((path.display().to_string(), w.skipped_rows));
    }
    w
}

/// An openb pod list read by [`TraceSpec::load_openb`].
#[derive(Debug)]
pub enum OpenbLoad {
    /// A list with the time columns, as a trace (boxed: the pods are a few words).
    Trace(Box<(Workload, TraceMeta)>),
    /// A list without them, as pods.
    Pods(super::OpenbPods),
}
