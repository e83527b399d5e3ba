//! Running a sweep: its runs in parallel on a local rayon pool, each recorded durably as it
//! finishes, with progress on the terminal; `--resume` skips recorded runs, `--shard K/N`
//! takes every N-th run.

use super::plan::Plan;
use super::record::{path_of, Record};
use super::shared::{key_hash, SharedWorkloads};
use super::table::{write_manifest, write_tables};
use super::SweepError;
use crate::metrics::{RunSketches, Summary};
use crate::scenario::Scenario;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A bar on a terminal, plain lines otherwise (on stderr).
    Auto,
    /// Nothing.
    Quiet,
}

/// Shard `k` of `n` (1-based): runs whose number is `k - 1` modulo `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, 1..=n.
    pub k: usize,
    /// Number of shards.
    pub n: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("--shard {s}: expected K/N, e.g. 2/8"))?;
        let (k, n): (usize, usize) = match (k.trim().parse(), n.trim().parse()) {
            (Ok(k), Ok(n)) => (k, n),
            _ => return Err(format!("--shard {s}: K and N must be whole numbers")),
        };
        if n == 0 || k == 0 || k > n {
            return Err(format!("--shard {s}: need 1 <= K <= N"));
        }
        Ok(Shard { k, n })
    }
}

/// Options of [`run_sweep`].
#[derive(Debug, Clone)]
pub struct SweepOptions {
    /// Output folder.
    pub out: PathBuf,
    /// Worker threads (0: as many as cores).
    pub threads: usize,
    /// Progress display.
    pub progress: Progress,
    /// Keep recorded runs and run only the others.
    pub resume: bool,
    /// Run one shard only.
    pub shard: Option<Shard>,
    /// Keep each run's per-job table in `jobs/run-NNNNNNN.csv` (and `.parquet`) in this
    /// format (`gpufleet sweep --keep-jobs`); `None` keeps only the sketches.
    pub keep_jobs: Option<crate::report::OutputFormat>,
}

/// What [`run_sweep`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepOutcome {
    /// Runs this invocation was responsible for.
    pub runs: usize,
    /// Of which run now.
    pub ran: usize,
    /// Of which found recorded and kept.
    pub kept: usize,
    /// Records found damaged and redone.
    pub redone: usize,
    /// The runs made now that stopped before every job had ended (without a horizon, at a
    /// limit or with jobs nothing could start; their jobs count as unfinished), by number.
    pub cut_short: Vec<usize>,
}

/// Runs one scenario under `seed` and returns its summary, through the one run path
/// ([`crate::run::execute`]), so a sweep's run equals `gpufleet run` of the same point.
pub fn run_once(s: &Scenario, seed: u64) -> Result<Summary, String> {
    crate::run::execute(s, &crate::engine::RngStreams::new(seed))
        .map(|e| e.summary)
        .map_err(|e| e.to_string())
}

/// Numeric leaves of the summary as `(a_b_c, value)`, in the summary's order; the seed
/// (a column of its own) and the event count (a speed figure) are left out.
pub fn flatten_summary(s: &Summary) -> Vec<(String, String)> {
    summary_leaves(s, '_')
}

/// Numeric leaves of the summary as `(path, value)`, the path's parts joined by `sep`
/// (`.` gives summary.json's dotted paths), in the summary's order, without the seed and
/// the event count.
pub fn summary_leaves(s: &Summary, sep: char) -> Vec<(String, String)> {
    fn walk(prefix: &str, sep: char, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    let name = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}{sep}{k}")
                    };
                    walk(&name, sep, v, out);
                }
            }
            serde_json::Value::Number(n) if prefix != "seed" && prefix != "events" => {
                out.push((prefix.to_string(), n.to_string()));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Ok(v) = serde_json::to_value(s) {
        walk("", sep, &v, &mut out);
    }
    out
}

/// The kept per-job table of run `id` in `dir`, with extension `ext` (`csv`, `parquet`).
pub fn jobs_path(dir: &Path, id: usize, ext: &str) -> PathBuf {
    dir.join("jobs").join(format!("run-{id:07}.{ext}"))
}

/// The extensions of the per-job files `format` keeps.
fn job_exts(format: crate::report::OutputFormat) -> Vec<&'static str> {
    let mut v = Vec::new();
    if format.csv() {
        v.push("csv");
    }
    if format.parquet() {
        v.push("parquet");
    }
    v
}

/// Runs `id` and builds its record: the summary's figures and the sketches of its jobs'
/// waits, queueing delays, JCTs and bounded slowdowns (one O(jobs) pass); with `keep`,
/// first writes the run's per-job table(s) into `out/jobs/`, so a record on disk means its
/// files are whole.
fn record_of(
    plan: &Plan,
    id: usize,
    out: &Path,
    keep: Option<crate::report::OutputFormat>,
    shared: &SharedWorkloads,
    cut: &Mutex<Vec<usize>>,
) -> Result<Record, String> {
    let r = plan.run(id);
    let point = &plan.points[r.point];
    let s = &point.scenario;
    let streams = crate::engine::RngStreams::new(r.seed);
    let e = match shared.workload_for(s, r.seed) {
        Some(w) => crate::run::execute_built(s, w, &streams),
        None => crate::run::execute(s, &streams),
    }
    .map_err(|e| e.to_string())?;
    if e.result.cut_short.is_some() {
        cut.lock().unwrap_or_else(|p| p.into_inner()).push(id);
    }
    let sketches = RunSketches::of(&e.job_figures)
        .sketches
        .into_iter()
        .map(|(k, v)| (k, v.encode()))
        .collect();
    if let Some(format) = keep {
        let output = crate::run::output(s, &e);
        for ext in job_exts(format) {
            let path = jobs_path(out, id, ext);
            let res = match ext {
                "csv" => crate::report::write_jobs_csv(&path, &output.jobs_csv()).map(|_| ()),
                _ => write_jobs_parquet(&path, &output),
            };
            res.map_err(|e| format!("writing {}: {e}", path.display()))?;
        }
    }
    Ok(Record {
        run: id,
        point: r.point,
        seed: r.seed,
        params: plan
            .params
            .iter()
            .cloned()
            .zip(point.values.iter().map(|v| v.cell()))
            .collect(),
        metrics: flatten_summary(&e.summary),
        sketches,
    })
}

#[cfg(feature = "parquet")]
fn write_jobs_parquet(path: &Path, out: &crate::report::RunOutput) -> std::io::Result<()> {
    use crate::report::parquet::{parquet_bytes, run_metadata};
    let t = crate::report::columns::jobs(out);
    let bytes = parquet_bytes(&t, true, &run_metadata(out)).map_err(std::io::Error::other)?;
    crate::report::write_atomic(path, &bytes)
}

#[cfg(not(feature = "parquet"))]
fn write_jobs_parquet(_: &Path, _: &crate::report::RunOutput) -> std::io::Result<()> {
    Err(std::io::Error::other(
        "this gpufleet was built without Parquet support",
    ))
}

/// A kept record that can stand as it is: it has the sketches and, with `keep`, its
/// per-job files (otherwise the run is redone).
fn complete(r: &Record, out: &Path, keep: Option<crate::report::OutputFormat>) -> bool {
    !r.sketches.is_empty()
        && keep.is_none_or(|f| {
            job_exts(f)
                .iter()
                .all(|x| jobs_path(out, r.run, x).is_file())
        })
}

/// The runs of `shard` (all runs without one).
pub fn runs_of(plan: &Plan, shard: Option<Shard>) -> Vec<usize> {
    (0..plan.runs())
        .filter(|id| shard.is_none_or(|s| id % s.n == s.k - 1))
        .collect()
}

/// Refuses an output folder `out` that is a file or lies under one: the path given is
/// wrong (bad input), which the file system would report as a failure of its own.
pub fn check_out(out: &Path) -> Result<(), SweepError> {
    // `/dev/null` is no file: `is_file` let it through to fail as the environment (1).
    if let Some(reason) = crate::run::wrong_folder(out) {
        return Err(SweepError::BadInput(format!(
            "output folder {}: {reason}",
            out.display()
        )));
    }
    crate::run::check_reusable(out, "sweep.json").map_err(|e| SweepError::BadInput(e.to_string()))
}

/// Runs the sweep into `opts.out`: `sweep.json`, `runs/` (one record per run), then
/// `runs.csv`, (unsharded) `points.csv` and, last, `complete.json` (removed first, with
/// the old tables and charts).
pub fn run_sweep(plan: &Plan, opts: &SweepOptions) -> Result<SweepOutcome, SweepError> {
    let out = &opts.out;
    let fail = |what: &str, e: std::io::Error| SweepError::Failed(format!("{what}: {e}"));
    check_out(out)?;
    std::fs::create_dir_all(out.join("runs")).map_err(|e| fail(&out.display().to_string(), e))?;
    if opts.keep_jobs.is_some() {
        std::fs::create_dir_all(out.join("jobs"))
            .map_err(|e| fail(&out.join("jobs").display().to_string(), e))?;
    }
    super::table::clear_outputs(out).map_err(|e| fail(&out.display().to_string(), e))?;
    let ids = runs_of(plan, opts.shard);
    let mut pending = Vec::new();
    let mut kept = Vec::new();
    let mut redone = 0;
    clear_temporaries(out);
    for &id in &ids {
        if !opts.resume {
            let _ = std::fs::remove_file(path_of(out, id));
            for ext in ["csv", "parquet"] {
                let _ = std::fs::remove_file(jobs_path(out, id, ext));
            }
            pending.push(id);
            continue;
        }
        match Record::read(out, id, &plan.hash) {
            Ok(Some(r)) if complete(&r, out, opts.keep_jobs) => kept.push(r),
            Ok(Some(_)) => {
                redone += 1;
                pending.push(id);
            }
            Ok(None) => pending.push(id),
            Err(_) => {
                redone += 1;
                pending.push(id);
            }
        }
    }
    write_manifest(plan, out, opts.shard).map_err(|e| fail("writing sweep.json", e))?;
    order_by_workload(plan, &mut pending);

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()
        .map_err(|e| SweepError::Failed(format!("thread pool: {e}")))?;
    let show = Shower::new(opts.progress, ids.len(), kept.len());
    let errors: Mutex<Vec<(usize, String)>> = Mutex::new(Vec::new());
    let shared = SharedWorkloads::new(pool.current_num_threads() + 1);
    let cut = Mutex::new(Vec::new());
    pool.install(|| {
        pending.par_iter().for_each(|&id| {
            let res = record_of(plan, id, out, opts.keep_jobs, &shared, &cut).and_then(|r| {
                r.write(out, &plan.hash)
                    .map_err(|e| format!("writing {}: {e}", path_of(out, id).display()))
            });
            if let Err(e) = res {
                errors
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((id, e));
            }
            show.tick();
        })
    });
    show.finish();
    let mut errors = errors.into_inner().unwrap_or_else(|p| p.into_inner());
    if !errors.is_empty() {
        errors.sort();
        let list: Vec<String> = errors
            .iter()
            .take(10)
            .map(|(id, e)| format!("  run {id}: {e}"))
            .collect();
        return Err(SweepError::Failed(format!(
            "{} of {} runs failed (finished runs are recorded; fix and rerun with --resume):\n{}",
            errors.len(),
            pending.len(),
            list.join("\n")
        )));
    }
    // The tables are built from the records on disk, as a resume or a merge would.
    let mut records = Vec::with_capacity(ids.len());
    for &id in &ids {
        match Record::read(out, id, &plan.hash) {
            Ok(Some(r)) => records.push(r),
            Ok(None) => return Err(SweepError::Failed(format!("run {id}: record missing"))),
            Err(e) => return Err(SweepError::Failed(e.to_string())),
        }
    }
    write_tables(out, &plan.params, &records, opts.shard.is_none())
        .map_err(|e| fail("writing tables", e))?;
    crate::report::write_complete(out).map_err(|e| fail("writing complete.json", e))?;
    Ok(SweepOutcome {
        runs: ids.len(),
        ran: pending.len(),
        kept: kept.len(),
        redone,
        cut_short: {
            let mut cut = cut.into_inner().unwrap_or_else(|p| p.into_inner());
            cut.sort_unstable();
            cut
        },
    })
}

/// Orders the runs to make so that those sharing a workload follow one another: by seed,
/// then by the point's workload (a hash of its description), then by number. Only the
/// order in which runs are made changes; each is recorded under its number.
fn order_by_workload(plan: &Plan, ids: &mut [usize]) {
    let mut hashes: Vec<Option<u64>> = vec![None; plan.points.len()];
    let mut keyed: Vec<(u64, u64, usize)> = ids
        .iter()
        .map(|&id| {
            let r = plan.run(id);
            let h =
                *hashes[r.point].get_or_insert_with(|| key_hash(&plan.points[r.point].scenario));
            (r.seed, h, id)
        })
        .collect();
    keyed.sort_unstable();
    for (slot, k) in ids.iter_mut().zip(keyed) {
        *slot = k.2;
    }
}

fn clear_temporaries(out: &Path) {
    for sub in ["runs", "jobs"] {
        if let Ok(rd) = std::fs::read_dir(out.join(sub)) {
            for e in rd.flatten() {
                if e.file_name().to_string_lossy().ends_with(".tmp") {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
    }
}

/// Progress: an indicatif bar on a terminal, a line every few percent otherwise.
struct Shower {
    bar: Option<ProgressBar>,
    lines: bool,
    total: usize,
    done: AtomicUsize,
    start: Instant,
    last_pct: AtomicUsize,
}

impl Shower {
    fn new(mode: Progress, total: usize, already: usize) -> Shower {
        let term = std::io::stderr().is_terminal();
        let bar = (mode == Progress::Auto && term).then(|| {
            let b = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template("{bar:40} {pos}/{len} runs  {per_sec}  ETA {eta}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b.set_position(already as u64);
            b
        });
        Shower {
            bar,
            lines: mode == Progress::Auto && !term,
            total,
            done: AtomicUsize::new(already),
            start: Instant::now(),
            last_pct: AtomicUsize::new(0),
        }
    }

    fn tick(&self) {
        let d = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(b) = &self.bar {
            b.inc(1);
        } else if self.lines {
            let pct = d * 100 / self.total.max(1);
            let step = pct / 10 * 10;
            if step > self.last_pct.fetch_max(step, Ordering::Relaxed) || d == self.total {
                let secs = self.start.elapsed().as_secs_f64().max(1e-9);
                eprintln!(
                    "sweep: {d}/{} runs done ({pct} %), {:.1} runs/s",
                    self.total,
                    d as f64 / secs
                );
            }
        }
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish();
        }
    }
}
