//! `jobs.csv` rows formatted while the simulation runs: the simulation hands out each job
//! that ended for good ([`crate::sim::EndedSink`]); a second thread works out its figures
//! and formats its row around the two cells only the end of the run knows (`cost_usd`,
//! from the run's bills, and `reject_reason`). Writing the file then copies those rows
//! and formats the two cells, instead of formatting a million rows after the simulation.
//!
//! The rows are exactly those of [`super::write_jobs_csv`]'s own path. A job's row depends
//! only on its job, its record, its figures and the run's fixed names; the record of a
//! job that ended for good is final, and its figures are the same when the figure
//! context guessed at the start (pools at their configured size, tenants with eligible
//! jobs) equals the run's. [`StreamedRows::usable`] checks that, and the pool names;
//! where it fails (an elastic pool changed the cluster's size, a horizon left a tenant
//! without jobs, the run had the cloud model's extra columns), the rows are formatted
//! after the run as before.

use super::csv_columns::{job_columns, JobContext, JobRow};
use super::csv_out::cell;
use crate::engine::SimTime;
use crate::metrics::FigureContext;
use crate::model::Workload;
use crate::sim::{Ended, JobOutcome, RunResult};
use std::sync::mpsc::Receiver;

/// The first column only the end of the run knows, and the one after it.
const LATE: [&str; 2] = ["cost_usd", "reject_reason"];

/// No row for this job.
const NONE: u64 = u64::MAX;

/// Bytes of one chunk of row text.
const CHUNK: usize = 4 << 20;

/// Rows of jobs that ended for good, formatted during the run.
#[derive(Debug, Default)]
pub struct StreamedRows {
    /// Row text in chunks of about [`CHUNK`] bytes (filled, never grown: no copies), each
    /// row as two pieces: the cells before the late ones (each followed by a comma), then
    /// the cells after them (each preceded by one) and the line break.
    text: Vec<Vec<u8>>,
    /// Per job: where its row starts (`NONE`: no row; else the chunk in the high 32 bits,
    /// the offset in it in the low 32), the length of its first piece and of the whole.
    spans: Vec<(u64, u32, u32)>,
    /// The figure context the rows were made under.
    context: Option<FigureContext>,
    /// The pool names the rows were made with.
    pool_names: Vec<String>,
}

/// Reads what the rows of `batch` read of their jobs, once through with nothing waiting on
/// it: the jobs ended in an order unrelated to where they sit in memory, and these loads,
/// independent of each other, are in flight together (the row thread is otherwise bound
/// by waiting on one cache miss at a time, and it, not the simulation, sets the pace).
fn warm_up(w: &Workload, batch: &[Ended]) {
    let mut any = 0u64;
    for e in batch {
        if let Some(j) = w.jobs.get(e.job as usize) {
            let name = j.name.as_bytes().first().copied().unwrap_or(0);
            any ^= j.submit.0 ^ j.work.0 ^ u64::from(j.tenant) ^ u64::from(name);
        }
    }
    std::hint::black_box(any);
}

/// Maps the pages of `v`'s spare capacity in one call (`madvise(MADV_POPULATE_WRITE)`,
/// Linux 5.14 on) rather than one fault at a time as rows fill them: 176 MB of row text
/// for a million jobs is that many fresh pages taken while the simulation runs on the
/// other core, and faulted page by page they slowed it by a few percent (0.77-0.78 s
/// -> 0.73-0.74 s for the simulated phase at 1M jobs, alternated runs). A kernel that
/// does not know the advice refuses it and the pages fault in as before.
fn populate(v: &mut Vec<u8>) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        // The libc crate may not name it yet (Linux 5.14).
        const MADV_POPULATE_WRITE: libc::c_int = 23;
        let spare = v.spare_capacity_mut();
        let p = spare.as_mut_ptr() as usize;
        let (start, end) = (p.div_ceil(PAGE) * PAGE, (p + spare.len()) / PAGE * PAGE);
        if end > start {
            // SAFETY: advice on whole pages inside `v`'s own allocation (it writes nothing
            // the program can see: the pages read as they would, zeros never read).
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, MADV_POPULATE_WRITE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// Where the late columns sit in `jobs.csv` (the index of the first), if they are where
/// the rows expect them.
pub fn late_columns() -> Option<usize> {
    let cols = job_columns();
    let at = cols.iter().position(|c| c.name == LATE[0])?;
    (cols.get(at + 1).map(|c| c.name) == Some(LATE[1])).then_some(at)
}

impl StreamedRows {
    /// Formats the row of every job received on `rx` until the run closes it: `w` is the
    /// workload, `pool_names` the pools' names and `context` the figure context expected.
    pub fn consume(
        rx: Receiver<Vec<Ended>>,
        w: &Workload,
        pool_names: Vec<String>,
        context: FigureContext,
    ) -> StreamedRows {
        let fctx = context.clone();
        let mut out = StreamedRows {
            text: Vec::new(),
            spans: vec![(NONE, 0, 0); w.jobs.len()],
            context: Some(context),
            pool_names,
        };
        let Some(late) = late_columns() else {
            // Nothing to do but drain (the run must not block on a full channel).
            for _ in rx {}
            out.context = None;
            return out;
        };
        let names: Vec<&str> = out.pool_names.iter().map(String::as_str).collect();
        let ctx = JobContext {
            tenants: &w.tenants,
            pool_names: &names,
            job_usd: &[],
            end: SimTime::ZERO,
            reject_reasons: &[],
            classes: &w.classes,
            datasets: &w.datasets,
            cloud: None,
        };
        let mut figures = Vec::new();
        let mut line = Vec::with_capacity(512);
        for batch in rx {
            warm_up(w, &batch);
            // The run end is read only for jobs still open, and these have ended.
            figures.clear();
            figures.extend(batch.iter().filter_map(|e| {
                let job = w.jobs.get(e.job as usize)?;
                Some(fctx.figures(e.job as usize, job, &e.record, e.gpu_ms, SimTime::ZERO))
            }));
            let columns = job_columns();
            let mut figs = figures.iter();
            for e in &batch {
                let i = e.job as usize;
                let Some(job) = w.jobs.get(i) else {
                    continue;
                };
                let (Some(fig), Some(span)) = (figs.next(), out.spans.get_mut(i)) else {
                    continue;
                };
                let row = JobRow {
                    index: i,
                    job,
                    rec: &e.record,
                    ctx: &ctx,
                    fig: Some(*fig),
                };
                line.clear();
                for c in &columns[..late] {
                    cell(&mut line, (c.cell)(&row));
                    line.push(b',');
                }
                let head = line.len();
                for c in &columns[late + 2..] {
                    line.push(b',');
                    cell(&mut line, (c.cell)(&row));
                }
                line.push(b'\n');
                let (Ok(head), Ok(len)) = (u32::try_from(head), u32::try_from(line.len())) else {
                    continue;
                };
                let fits = out
                    .text
                    .last()
                    .is_some_and(|c| c.capacity() - c.len() >= line.len());
                if !fits {
                    let mut chunk = Vec::with_capacity(CHUNK.max(line.len()));
                    populate(&mut chunk);
                    out.text.push(chunk);
                }
                let k = out.text.len() - 1;
                let chunk = &mut out.text[k];
                let Ok(at) = u32::try_from(chunk.len()) else {
                    continue;
                };
                chunk.extend_from_slice(&line);
                *span = ((k as u64) << 32 | at as u64, head, len);
            }
        }
        out
    }

    /// Whether the rows hold for run `r`, whose figure context is `context`.
    pub fn usable(&self, r: &RunResult, context: &FigureContext) -> bool {
        self.context.as_ref() == Some(context)
            && r.cloud.is_none()
            && r.pools.len() == self.pool_names.len()
            && r.pools
                .iter()
                .zip(&self.pool_names)
                .all(|(p, n)| p.name == *n)
    }

    /// Appends job `i`'s row for `row` (its final job row) to `buf`, the late cells
    /// formatted now; false (nothing appended) when the job has no row here.
    pub fn append<'a>(
        &self,
        buf: &mut Vec<u8>,
        row: &JobRow<'a>,
        late: &[super::Column<JobRow<'a>>],
    ) -> bool {
        let Some(&(start, head, len)) = self.spans.get(row.index) else {
            return false;
        };
        if start == NONE
            || !matches!(row.rec.outcome, JobOutcome::Completed | JobOutcome::Failed)
            || late.len() != 2
        {
            return false;
        }
        let (k, at) = ((start >> 32) as usize, (start & u32::MAX as u64) as usize);
        let (head, len) = (head as usize, len as usize);
        let Some(text) = self.text.get(k).and_then(|c| c.get(at..at + len)) else {
            return false;
        };
        buf.extend_from_slice(&text[..head]);
        cell(buf, (late[0].cell)(row));
        buf.push(b',');
        cell(buf, (late[1].cell)(row));
        buf.extend_from_slice(&text[head..]);
        true
    }

    /// Asks the memory system for job `i`'s row ahead of its [`StreamedRows::append`]:
    /// rows sit in the order their jobs ended, so the file's order reads them at random,
    /// and a loop that prefetches a few rows ahead has those misses in flight together
    /// instead of one after another.
    #[inline]
    pub fn prefetch(&self, i: usize) {
        #[cfg(target_arch = "x86_64")]
        if let Some(&(start, _, len)) = self.spans.get(i) {
            if start == NONE {
                return;
            }
            let (k, at) = ((start >> 32) as usize, (start & u32::MAX as u64) as usize);
            if let Some(text) = self.text.get(k).and_then(|c| c.get(at..at + len as usize)) {
                for line in text.chunks(64) {
                    // SAFETY: a prefetch of memory within a live slice (a hint: it reads
                    // nothing and cannot fault).
                    unsafe {
                        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                            line.as_ptr().cast(),
                        )
                    };
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }

    /// How many rows were formatted during the run.
    pub fn rows(&self) -> usize {
        self.spans.iter().filter(|s| s.0 != NONE).count()
    }
}
