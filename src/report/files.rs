//! Writing a run's folder: each table streamed row by row from the columns of `columns`
//! through the CSV writer of `csv_out`, each file through a temporary name and a rename.

use super::csv_columns::{
    job_columns, pool_columns, timeline_columns, JobContext, JobRow, PoolRow, TimelineCell,
};
use super::csv_out::{row_into, write_blocks_par, write_rows_par, write_table, Column};
use crate::metrics::{FigureContext, Summary};
use crate::model::Workload;
use crate::pricing::Ledger;
use crate::sim::RunResult;
use std::io::Write;
use std::path::Path;

/// Everything a run folder is made from.
pub struct RunOutput<'a> {
    /// The workload run.
    pub workload: &'a Workload,
    /// Its result.
    pub result: &'a RunResult,
    /// The summary.
    pub summary: &'a Summary,
    /// Every eligible job's research figures (the summary's job table).
    pub job_figures: &'a crate::metrics::JobTable,
    /// The ledger.
    pub ledger: &'a Ledger,
    /// GPU type name per pool.
    pub pool_gpu_types: Vec<String>,
    /// Dollars attributed to each job (indexed like the workload).
    pub job_usd: &'a [f64],
    /// Pricing model name per pool.
    pub pool_pricing: Vec<String>,
    /// Why each rejected job could not run: (job index, reason), sorted by index.
    pub reject_reasons: &'a [(u32, String)],
    /// `jobs.csv` rows formatted during the run, if it made them.
    pub streamed: Option<&'a super::StreamedRows>,
}

/// What a run folder's files other than `summary.json` and `jobs.csv` are made from
/// (`pools.csv`, `timeline.csv`, the charts): none of them needs the summary.
#[derive(Clone, Copy)]
pub struct RunRest<'a> {
    /// The scenario's name (the charts' title).
    pub title: &'a str,
    /// The workload run.
    pub workload: &'a Workload,
    /// Its result.
    pub result: &'a RunResult,
    /// The ledger.
    pub ledger: &'a Ledger,
    /// GPU type name per pool.
    pub pool_gpu_types: &'a [String],
    /// Pricing model name per pool.
    pub pool_pricing: &'a [String],
}

impl<'a> RunOutput<'a> {
    /// What this run's other files are made from.
    pub fn rest(&self) -> RunRest<'_> {
        RunRest {
            title: &self.summary.scenario,
            workload: self.workload,
            result: self.result,
            ledger: self.ledger,
            pool_gpu_types: &self.pool_gpu_types,
            pool_pricing: &self.pool_pricing,
        }
    }
}

/// Writes `bytes` to `path` through a temporary file and a rename; on error the temporary
/// file is removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_streamed(path, |w| w.write_all(bytes))
}

/// Writes `path` through a temporary file and a rename, the bytes coming from `fill`
/// (buffered, streamed: nothing is held whole in memory). On any error the temporary file
/// is removed, so a failed write leaves neither a half file nor a `*.tmp`.
pub fn write_streamed(
    path: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<&std::fs::File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    through_tmp(path, |tmp| {
        let f = std::fs::File::create(tmp)?;
        {
            let mut w = std::io::BufWriter::with_capacity(1 << 16, &f);
            fill(&mut w)?;
            w.flush()?;
        }
        Ok((f, ()))
    })
}

/// [`write_streamed`] for a large file: its bytes go to the device from an aligned buffer
/// rather than through the page cache where the file system allows it
/// ([`super::direct::DirectFile`]); the same bytes either way. Returns their size and
/// checksum, worked out as they were written.
pub fn write_streamed_direct(
    path: &Path,
    fill: impl FnOnce(&mut super::direct::DirectFile) -> std::io::Result<()>,
) -> std::io::Result<super::direct::FileSum> {
    through_tmp(path, |tmp| {
        let mut f = super::direct::DirectFile::create(tmp)?;
        fill(&mut f)?;
        f.finish()
    })
}

/// Makes `path` by `make`, which writes the temporary file it is given and returns it
/// (with what it says of it): then synced and renamed into place; on any error the
/// temporary file is removed.
fn through_tmp<T>(
    path: &Path,
    make: impl FnOnce(&Path) -> std::io::Result<(std::fs::File, T)>,
) -> std::io::Result<T> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let result = (|| {
        let (f, said) = make(&tmp)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(said)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes a table of `columns` over `rows` to `path` (see [`write_streamed`]).
fn write_csv<R>(
    path: &Path,
    columns: &[Column<R>],
    rows: impl IntoIterator<Item = R>,
) -> std::io::Result<()> {
    write_streamed(path, |w| write_table(w, columns, rows).map(|_| ()))
}

/// Writes the run folder `dir` (created if needed): `summary.json`, `jobs.csv`,
/// `pools.csv`, `timeline.csv` and the run's charts, drawn from the data in memory.
pub fn write_run(dir: &Path, out: &RunOutput) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    write_summary(dir, out.summary)?;

    // jobs.csv (formatted in parallel blocks) beside the small files and the charts.
    let (jobs, rest) = rayon::join(
        || write_jobs_csv(&dir.join("jobs.csv"), &out.jobs_csv()).map(|_| ()),
        || write_rest(dir, &out.rest()),
    );
    jobs?;
    rest
}

/// Writes `summary.json` into `dir`.
pub fn write_summary(dir: &Path, summary: &Summary) -> std::io::Result<()> {
    let mut json = serde_json::to_vec_pretty(summary).map_err(std::io::Error::other)?;
    json.push(b'\n');
    write_atomic(&dir.join("summary.json"), &json)
}

/// Writes `pools.csv`, `timeline.csv` and the run's charts into `dir`.
pub fn write_rest(dir: &Path, out: &RunRest) -> std::io::Result<()> {
    let r = out.result;
    let pool_names: Vec<&str> = r.pools.iter().map(|p| p.name.as_str()).collect();
    write_csv(&dir.join("pools.csv"), &pool_columns(), pool_rows(out))?;
    let cells = r.timeline.iter().flat_map(|row| {
        let names = &pool_names;
        (0..row.pools.len()).map(move |pool| TimelineCell {
            row,
            pool,
            name: names.get(pool).copied().unwrap_or(""),
        })
    });
    write_csv(&dir.join("timeline.csv"), &timeline_columns(), cells)?;
    super::run_charts::plot_run(dir, &super::run_charts::RunCharts::from_run(out))
        .map_err(std::io::Error::other)?;
    Ok(())
}

/// What `jobs.csv` is written from: a run's jobs and records, its bills and the context
/// its jobs' figures are worked out in (no summary: the file can be written while the
/// summary is made).
#[derive(Clone, Copy)]
pub struct JobsCsv<'a> {
    /// The workload run.
    pub workload: &'a Workload,
    /// Its result.
    pub result: &'a RunResult,
    /// Dollars attributed to each job (indexed like the workload).
    pub job_usd: &'a [f64],
    /// Why each rejected job could not run: (job index, reason), sorted by index.
    pub reject_reasons: &'a [(u32, String)],
    /// Rows formatted during the run, if it made them.
    pub streamed: Option<&'a super::StreamedRows>,
    /// The run's figure context ([`crate::metrics::FigureContext::of_run`]).
    pub context: &'a FigureContext,
}

impl<'a> RunOutput<'a> {
    /// What this run's `jobs.csv` is written from.
    pub fn jobs_csv(&self) -> JobsCsv<'a> {
        JobsCsv {
            workload: self.workload,
            result: self.result,
            job_usd: self.job_usd,
            reject_reasons: self.reject_reasons,
            streamed: self.streamed,
            context: &self.job_figures.context,
        }
    }
}

/// Writes a run's `jobs.csv` to `path` (see [`write_streamed`]), its rows formatted in
/// parallel blocks: the run folder's table, also kept per run by `gpufleet sweep --keep-jobs`.
/// A job's figures are worked out as its row is (as [`crate::metrics::job_table`] does),
/// unless its row was formatted during the run. A large table is written around the page
/// cache and its size and checksum returned (`None`: a small one, read back when needed).
pub fn write_jobs_csv(
    path: &Path,
    out: &JobsCsv,
) -> std::io::Result<Option<super::direct::FileSum>> {
    let w = out.workload;
    let r = out.result;
    let pool_names: Vec<&str> = r.pools.iter().map(|p| p.name.as_str()).collect();
    let ctx = JobContext {
        tenants: &w.tenants,
        pool_names: &pool_names,
        job_usd: out.job_usd,
        end: r.end,
        reject_reasons: out.reject_reasons,
        classes: &w.classes,
        datasets: &w.datasets,
        cloud: r.cloud.as_ref(),
    };
    let mut columns = job_columns();
    if let Some(c) = &r.cloud {
        columns.extend(super::csv_columns::cloud_job_columns(
            !w.classes.is_empty(),
            c.data,
            c.spread,
        ));
    }
    let n = w.jobs.len().min(r.jobs.len());
    let usage = &r.job_usage;
    let figures = |i: usize, rec: &crate::sim::JobRecord| {
        if rec.outcome == crate::sim::JobOutcome::Rejected {
            return None;
        }
        // `job_usage` is in job order: job i's entries, summed as the job table sums them.
        let first = usage.partition_point(|u| (u.job as usize) < i);
        let gpu_ms: u128 = usage[first..]
            .iter()
            .take_while(|u| u.job as usize == i)
            .map(|u| u.gpu_ms)
            .sum();
        Some(out.context.figures(i, &w.jobs[i], rec, gpu_ms, r.end))
    };
    let job_row = |index: usize, fig: bool| {
        let rec = &r.jobs[index];
        rec.submitted.then(|| JobRow {
            index,
            job: &w.jobs[index],
            rec,
            ctx: &ctx,
            fig: if fig { figures(index, rec) } else { None },
        })
    };
    // Rows formatted during the run, where they hold: only the late cells are new.
    let streamed = out
        .streamed
        .filter(|s| s.usable(r, out.context))
        .zip(super::streamed::late_columns());
    // A table of many rows goes to the device directly (no copy into fresh cache pages).
    let write = |path: &Path, fill: &dyn Fn(&mut dyn Write) -> std::io::Result<()>| {
        if n >= DIRECT_FROM_ROWS {
            write_streamed_direct(path, |f| fill(f)).map(Some)
        } else {
            write_streamed(path, |f| fill(f)).map(|()| None)
        }
    };
    write(path, &|f: &mut dyn Write| match streamed {
        Some((rows, late)) => {
            let late = &columns[late..late + 2];
            write_blocks_par(f, &columns, n, |i, buf| {
                rows.prefetch(i + PREFETCH_ROWS);
                // The late cells read no figure: the row's own are worked out only when
                // it has to be formatted whole.
                if let Some(row) = job_row(i, false) {
                    if !rows.append(buf, &row, late) {
                        row_into(buf, &columns, &job_row(i, true).unwrap_or(row));
                    }
                }
            })
            .map(|_| ())
        }
        None => write_rows_par(f, &columns, n, |i| job_row(i, true)).map(|_| ()),
    })
}

/// How far ahead of the row being written the next rows are prefetched.
const PREFETCH_ROWS: usize = 12;

/// `jobs.csv` tables of this many rows or more are written around the page cache
/// ([`write_streamed_direct`]): about 20 MB and up.
const DIRECT_FROM_ROWS: usize = 100_000;

/// Each pool's figures for `pools.csv`.
fn pool_rows(out: &RunRest) -> Vec<PoolRow> {
    let (r, ledger) = (out.result, out.ledger);
    // Sums by pool and by (pool, kind), in one pass each over the ledger.
    let bills = ledger.by_pool_and_kind(r.pools.len());
    r.pools
        .iter()
        .enumerate()
        .map(|(p, u)| {
            // Share of node-time the pool's nodes were up (failures and maintenance take
            // nodes down).
            let node_ms = u.nodes as f64 * r.end.0 as f64;
            let down = r
                .faults
                .as_ref()
                .and_then(|f| f.down_node_ms.get(p))
                .copied()
                .unwrap_or(0) as f64;
            let usd = bills[p];
            PoolRow {
                pool: u.name.clone(),
                kind: u.kind.as_str(),
                gpu_type: out.pool_gpu_types.get(p).cloned().unwrap_or_default(),
                nodes: u.nodes,
                gpus: u.gpus,
                provisioned_gpu_hours: u.provisioned_gpu_ms as f64 / 3.6e6,
                busy_gpu_hours: u.busy_gpu_ms as f64 / 3.6e6,
                availability: if node_ms > 0.0 {
                    1.0 - down / node_ms
                } else {
                    1.0
                },
                pricing: out.pool_pricing.get(p).cloned().unwrap_or_default(),
                usd,
            }
        })
        .collect()
}
