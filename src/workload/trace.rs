//! What every trace reader shares: the formats, one parsed row, and the sink that turns rows
//! into jobs while applying bad-row handling and the streaming filters (status, GPU count).
//!
//! Readers never hold the raw file: they parse one row at a time into a [`TraceRow`] that
//! borrows from the reader's line buffer and hand it to a [`RowSink`], which interns names
//! and keeps the job. Time-window, compression and load scaling need the whole trace and
//! are applied afterwards by [`super::shape`].

use super::{BadRows, TraceError};
use crate::engine::SimTime;
use crate::model::{GpuRequest, Job, TypeMask, Workload};
use indexmap::IndexMap;
use std::path::{Path, PathBuf};

pub use super::formats::TraceFormat;

/// A job's final state as its trace reports it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
#[value(rename_all = "snake_case")]
pub enum JobStatus {
    /// Finished normally (SWF 1, Helios COMPLETED, PAI Terminated, Philly Pass).
    Completed,
    /// Failed (SWF 0, Helios FAILED/TIMEOUT/NODE_FAIL/OUT_OF_MEMORY, PAI/Philly Failed).
    Failed,
    /// Cancelled or killed by its user (SWF 5, Helios CANCELLED, Philly Killed).
    Cancelled,
    /// The trace does not say (SWF -1, Tiresias, generic CSV, unknown words).
    Unknown,
}

impl JobStatus {
    /// Every status, in report order.
    pub const ALL: [JobStatus; 4] = [
        JobStatus::Completed,
        JobStatus::Failed,
        JobStatus::Cancelled,
        JobStatus::Unknown,
    ];
    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Completed => "completed",
            JobStatus::Failed => "failed",
            JobStatus::Cancelled => "cancelled",
            JobStatus::Unknown => "unknown",
        }
    }
    /// From its lower-case name.
    pub fn parse(s: &str) -> Option<JobStatus> {
        JobStatus::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

/// One trace row mapped onto gpufleet's terms, borrowing from the reader's buffer.
#[derive(Debug, Clone)]
pub struct TraceRow<'a> {
    /// Job name.
    pub name: &'a str,
    /// Submit time in ms on the trace's own clock (absolute or relative; see `TraceMeta`).
    pub submit_ms: i64,
    /// GPUs requested.
    pub gpus: GpuRequest,
    /// Allowed GPU models, `|`-separated; empty means any.
    pub gpu_types: &'a str,
    /// Run time in ms (0 is raised to 1 ms: every job does some work).
    pub work_ms: u64,
    /// Runtime estimate in ms, when the trace has one.
    pub estimate_ms: Option<u64>,
    /// Tenant (user, group or virtual cluster, per format).
    pub tenant: &'a str,
    /// Final state.
    pub status: JobStatus,
    /// CPU in milli-cores.
    pub cpu_milli: u32,
    /// Memory in MiB.
    pub mem_mib: u64,
}

/// Why one row is bad: the column and the reason. A row the trace itself marks unusable
/// (a job that never ran, one still running at the trace's end) uses the column
/// [`DROPPED`]: it is counted among the dropped rows with its reason, not as a bad row.
pub type RowError = (&'static str, String);

/// The "column" of a [`RowError`] that drops a row on purpose, counting it by reason.
pub const DROPPED: &str = "(dropped)";

/// Filters applied while streaming, before any job is kept.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowFilter {
    /// Keep only these statuses (all when empty).
    pub statuses: Vec<JobStatus>,
    /// Keep only jobs with at least this many GPUs (fractions count as their share).
    pub min_gpus: Option<f64>,
    /// Keep only jobs with at most this many GPUs.
    pub max_gpus: Option<f64>,
    /// Stop with an error once more jobs than this are kept (the scenario's `max_jobs`):
    /// memory stays bounded whatever the file's size.
    pub max_jobs: Option<u64>,
}

/// The error of a read or a generation that would keep more than `max` jobs.
pub fn too_many_jobs(max: u64) -> String {
    format!(
        "more than {max} jobs (max_jobs, the most a run holds in memory: about 0.6 KB a job); \
         set max_jobs higher (a scenario's `max_jobs`, `--max-jobs` on the trace commands), \
         or filter the trace (start/end, statuses)"
    )
}

/// What a read learned about the trace beyond its jobs.
#[derive(Debug, Clone, Default)]
pub struct TraceMeta {
    /// The file.
    pub file: PathBuf,
    /// Rows parsed successfully (kept or filtered).
    pub rows: u64,
    /// Rows per status (parsed rows, before filters), in `JobStatus::ALL` order.
    pub statuses: [u64; 4],
    /// The trace clock (ms) of submit time zero in the workload: the earliest submit.
    pub origin_ms: i64,
    /// True when the trace clock is wall-clock time (ms since 1970-01-01 00:00 on the
    /// trace's local clock), so hour of day and day of week mean something.
    pub wall_clock: bool,
    /// Jobs whose GPU request was rounded up to whole GPUs (PAI multi-instance shares).
    pub rounded_gpus: u64,
}

/// Collects rows into jobs: interns names, applies [`BadRows`] and the [`RowFilter`].
pub struct RowSink {
    file: PathBuf,
    bad: BadRows,
    filter: RowFilter,
    jobs: Vec<Job>,
    submits: Vec<i64>,
    names: crate::model::NameIndex,
    types: IndexMap<String, TypeMask>,
    w: Workload,
    filtered: IndexMap<String, u64>,
    /// What the reader learned; readers set `wall_clock` and `rounded_gpus`.
    pub meta: TraceMeta,
    /// The format's columns of a job's name, tenant and GPU types, named in errors.
    pub text_columns: [&'static str; 3],
    min_submit: i64,
    /// The line of each kept job, in file order (to name a repeated job's two lines).
    lines: Vec<u64>,
}

impl RowSink {
    /// A sink for rows of `file`.
    pub fn new(file: &Path, bad: BadRows, filter: RowFilter) -> RowSink {
        RowSink {
            file: file.to_path_buf(),
            bad,
            filter,
            jobs: Vec::new(),
            submits: Vec::new(),
            names: crate::model::NameIndex::default(),
            types: IndexMap::new(),
            w: Workload::default(),
            filtered: IndexMap::new(),
            meta: TraceMeta {
                file: file.to_path_buf(),
                ..TraceMeta::default()
            },
            text_columns: ["name", "tenant", "gpu_type"],
            min_submit: i64::MAX,
            lines: Vec::new(),
        }
    }

    /// The file being read.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// An error about the file as a whole.
    pub fn file_error(&self, reason: impl Into<String>) -> TraceError {
        TraceError::File {
            file: self.file.clone(),
            reason: reason.into(),
        }
    }

    /// Handles a bad row at `row`: an error under `Stop`, a count under `Skip`.
    pub fn bad_row(&mut self, row: u64, column: &str, reason: String) -> Result<(), TraceError> {
        match self.bad {
            BadRows::Stop => Err(TraceError::Row {
                file: self.file.clone(),
                row,
                column: column.to_string(),
                reason,
            }),
            BadRows::Skip => {
                self.w.skipped_rows += 1;
                Ok(())
            }
        }
    }

    /// Counts a row dropped on purpose (by a filter or because the trace marks it
    /// unusable, such as a job still running at the trace's end).
    pub fn drop_row(&mut self, reason: &str) {
        match self.filtered.get_mut(reason) {
            Some(n) => *n += 1,
            None => {
                self.filtered.insert(reason.to_string(), 1);
            }
        }
    }

    /// Takes one parsed row (or its error) found at `row`.
    pub fn take(
        &mut self,
        row: u64,
        parsed: Result<TraceRow<'_>, RowError>,
    ) -> Result<(), TraceError> {
        let r = match parsed {
            Ok(r) => r,
            Err((DROPPED, reason)) => {
                self.drop_row(&reason);
                return Ok(());
            }
            Err((col, reason)) => return self.bad_row(row, col, reason),
        };
        for (text, col) in [r.name, r.tenant, r.gpu_types]
            .into_iter()
            .zip(self.text_columns)
        {
            if let Err(e) = super::value::plain_text(text) {
                return self.bad_row(row, col, e.to_string());
            }
        }
        self.meta.rows += 1;
        self.meta.statuses[r.status as usize] += 1;
        self.min_submit = self.min_submit.min(r.submit_ms);
        let f = &self.filter;
        if !f.statuses.is_empty() && !f.statuses.contains(&r.status) {
            self.drop_row(&format!("status {}", r.status.as_str()));
            return Ok(());
        }
        let g = r.gpus.gpus_f64();
        if f.min_gpus.is_some_and(|m| g < m) {
            self.drop_row("fewer GPUs than min_gpus");
            return Ok(());
        }
        if f.max_gpus.is_some_and(|m| g > m) {
            self.drop_row("more GPUs than max_gpus");
            return Ok(());
        }
        if f.max_jobs.is_some_and(|m| self.jobs.len() as u64 >= m) {
            let m = f.max_jobs.unwrap_or(0);
            return Err(self.file_error(too_many_jobs(m)));
        }
        let tenant = self.names.tenant(&mut self.w, r.tenant);
        let gpu_types = if r.gpu_types.is_empty() {
            TypeMask::ANY
        } else if let Some(&m) = self.types.get(r.gpu_types) {
            m
        } else {
            match self.w.type_mask(r.gpu_types.split('|').map(str::trim)) {
                Some(m) => {
                    self.types.insert(r.gpu_types.to_string(), m);
                    m
                }
                None => return self.bad_row(row, "gpu_type", "more than 64 GPU types".into()),
            }
        };
        self.jobs.push(Job {
            name: r.name.to_string(),
            submit: SimTime::ZERO,
            gpus: r.gpus,
            gpu_types,
            cpu_milli: r.cpu_milli,
            mem_mib: r.mem_mib,
            work: SimTime(r.work_ms.max(1)),
            estimate: r.estimate_ms.map(SimTime),
            tenant,
            priority: 0,
            deadline: None,
            preemptible: false,
            tags: crate::model::JobTags::NONE,
        });
        self.submits.push(r.submit_ms);
        self.lines.push(row);
        Ok(())
    }

    /// Takes one parsed row found at `row` whose job, if kept, is of class `class`.
    pub fn take_classed(
        &mut self,
        row: u64,
        parsed: TraceRow<'_>,
        class: &str,
    ) -> Result<(), TraceError> {
        let before = self.jobs.len();
        self.take(row, Ok(parsed))?;
        let class = class.trim();
        if let Err(e) = super::value::plain_text(class) {
            if self.jobs.len() > before {
                self.jobs.pop();
                self.submits.pop();
                self.lines.pop();
                self.meta.rows -= 1;
            }
            return self.bad_row(row, "class", e.to_string());
        }
        if self.jobs.len() > before && !class.is_empty() {
            let Some(c) = self.names.class(&mut self.w, class) else {
                return self.bad_row(row, "class", "more than 65,535 classes".into());
            };
            if let Some(j) = self.jobs.last_mut() {
                j.tags.class = Some(c);
            }
        }
        Ok(())
    }

    /// Ends the read: submit times become offsets from the earliest submit, jobs are sorted
    /// by submit (stable: trace order breaks ties). Fails if the file held no row at all.
    pub fn finish(mut self) -> Result<(Workload, TraceMeta), TraceError> {
        if self.meta.rows == 0 && self.w.skipped_rows == 0 {
            return Err(self.file_error("no jobs in the file"));
        }
        let origin = if self.min_submit == i64::MAX {
            0
        } else {
            self.min_submit
        };
        self.meta.origin_ms = origin;
        for (j, &s) in self.jobs.iter_mut().zip(&self.submits) {
            j.submit = SimTime((s - origin).max(0) as u64);
        }
        let name_column = self.text_columns[0];
        refuse_repeats(
            &mut self.jobs,
            |j| j.name.as_str(),
            &self.lines,
            self.bad,
            &self.file,
            name_column,
            "job id",
            &mut self.w.skipped_rows,
        )?;
        self.w.jobs = self.jobs;
        self.w.filtered = self.filtered.into_iter().collect();
        self.w.sort_by_submit();
        Ok((self.w, self.meta))
    }
}

/// Refuses items of one name (the same job id on two rows, a node listed twice) among
/// `items`, kept in file order from the lines `lines`: every job of a run is told apart by
/// its name in `jobs.csv`, and a row given twice (a file concatenated with itself, a log
/// rotated twice) would double its work without a word. Under [`BadRows::Stop`] the
/// error names the first repeat's line, the line of the item it repeats and how many
/// rows repeat a name (`what`: "job id"); under [`BadRows::Skip`] each repeat is dropped
/// (the first row kept) and counted as a bad row. Costs a sort of the items' indices
/// (8 bytes an item while it runs). Returns the indices dropped (ascending), for a
/// caller holding a vector beside `items` to drop them too.
#[allow(clippy::too_many_arguments)]
pub fn refuse_repeats<T>(
    items: &mut Vec<T>,
    name: impl Fn(&T) -> &str,
    lines: &[u64],
    bad: BadRows,
    file: &Path,
    column: &str,
    what: &str,
    skipped: &mut u64,
) -> Result<Vec<usize>, TraceError> {
    let mut idx: Vec<usize> = (0..items.len()).collect();
    idx.sort_by(|&a, &b| name(&items[a]).cmp(name(&items[b])).then(a.cmp(&b)));
    let mut later: Vec<usize> = idx
        .windows(2)
        .filter(|w| name(&items[w[0]]) == name(&items[w[1]]))
        .map(|w| w[1])
        .collect();
    drop(idx);
    let Some(&first) = later.iter().min() else {
        return Ok(later);
    };
    if bad == BadRows::Stop {
        let repeated = name(&items[first]);
        let twin = items
            .iter()
            .position(|j| name(j) == repeated)
            .unwrap_or(first);
        let line = |i: usize| lines.get(i).copied().unwrap_or(0);
        return Err(TraceError::Row {
            file: file.to_path_buf(),
            row: line(first),
            column: column.to_string(),
            reason: format!(
                "{:?} is also on line {}; {} (each needs its own; --skip-bad-rows keeps \
                 the first of each)",
                super::clip(repeated, 200),
                line(twin),
                match later.len() {
                    1 => format!("1 row repeats an earlier row's {what}"),
                    n => format!("{n} rows repeat an earlier row's {what}"),
                }
            ),
        });
    }
    later.sort_unstable();
    *skipped += later.len() as u64;
    remove_at(items, &later);
    Ok(later)
}

/// Removes the items at `at` (ascending indices) from `v`, keeping the others' order.
pub fn remove_at<T>(v: &mut Vec<T>, at: &[usize]) {
    let mut drop_at = at.iter().copied().peekable();
    let mut i = 0;
    v.retain(|_| {
        let gone = drop_at.next_if_eq(&i).is_some();
        i += 1;
        !gone
    });
}
