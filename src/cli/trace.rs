//! `gpufleet trace convert | inspect | fit`: read any supported trace format, turn it
//! into the generic CSV, summarise it, or fit a workload model to it.

use super::CliError;
use crate::engine::{parse_duration, SimTime};
use crate::workload::{
    fit_model, group_openb_nodes, model_to_toml, read_openb_node_list, read_pai_machines,
    trace_stats, write_generic_csv, BadRows, JobStatus, LoadScale, MachineGroup, MachineList,
    RowFilter, ScaleBase, Shaping, SwfOptions, TraceFormat, TraceSpec,
};
use anyhow::anyhow;
use clap::{Args, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};

/// Formats `trace convert` reads: every trace format, plus machine lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceFormat {
    /// A trace format (jobs).
    Trace(TraceFormat),
    /// Alibaba openb 2023 node list: written as scenario `[[pools]]` blocks.
    OpenbNodes,
    /// Alibaba PAI 2020 `pai_machine_spec.csv`: written as scenario `[[pools]]` blocks.
    PaiMachines,
}

impl SourceFormat {
    fn trace(self) -> Option<TraceFormat> {
        match self {
            SourceFormat::Trace(f) => Some(f),
            SourceFormat::PaiMachines | SourceFormat::OpenbNodes => None,
        }
    }
}

/// The trace formats' names (from their registry) and the machine lists'.
static SOURCE_FORMATS: std::sync::LazyLock<Vec<SourceFormat>> = std::sync::LazyLock::new(|| {
    let mut v: Vec<SourceFormat> = TraceFormat::ALL
        .iter()
        .map(|&f| SourceFormat::Trace(f))
        .collect();
    v.push(SourceFormat::OpenbNodes);
    v.push(SourceFormat::PaiMachines);
    v
});

impl ValueEnum for SourceFormat {
    fn value_variants<'a>() -> &'a [Self] {
        &SOURCE_FORMATS
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(match self {
            SourceFormat::Trace(f) => f.as_str(),
            SourceFormat::OpenbNodes => "openb_nodes",
            SourceFormat::PaiMachines => "pai_machines",
        }))
    }
}

/// How to read a trace: bad rows, format options and load-time filters.
#[derive(Debug, Clone, Args)]
pub struct ReadArgs {
    /// Skip bad rows (counting them) instead of stopping at the first.
    #[arg(long)]
    pub skip_bad_rows: bool,
    /// SWF: processors per GPU (GPUs = ceil(processors / this)).
    #[arg(long, default_value_t = 1)]
    pub procs_per_gpu: u32,
    /// PAI: the job table, to take each task's user from.
    #[arg(long)]
    pub pai_job_table: Option<PathBuf>,
    /// Keep only jobs with these statuses (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub status: Vec<JobStatus>,
    /// Keep only jobs with at least this many GPUs.
    #[arg(long, value_parser = super::parse_number_flag)]
    pub min_gpus: Option<f64>,
    /// Keep only jobs with at most this many GPUs.
    #[arg(long, value_parser = super::parse_number_flag)]
    pub max_gpus: Option<f64>,
    /// Keep jobs submitted from this offset after the trace start ("2d").
    #[arg(long)]
    pub start: Option<String>,
    /// Keep jobs submitted before this offset after the trace start ("30d").
    #[arg(long)]
    pub end: Option<String>,
    /// Rename a trace GPU model to a scenario GPU type (`V100M32=V100`; repeatable).
    #[arg(long, value_name = "FROM=TO")]
    pub gpu_type_map: Vec<String>,
    /// Divide submit times by this factor (2 = arrivals twice as dense).
    #[arg(long, value_parser = super::parse_number_flag)]
    pub time_compression: Option<f64>,
    /// Thin or replicate jobs (seeded) to this multiple of the trace's GPU demand.
    #[arg(long, value_parser = super::parse_number_flag)]
    pub load_scale: Option<f64>,
    /// Seed for load scaling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Stop with an error past this many jobs kept (each takes about 0.6 KB of memory;
    /// the default is a scenario's, 10,000,000)
    #[arg(long)]
    pub max_jobs: Option<u64>,
}

/// The `trace` subcommands.
#[derive(Debug, Subcommand)]
pub enum TraceCommand {
    /// Convert a trace into gpufleet's generic CSV (or a machine list into [[pools]]).
    #[command(
        after_help = "Examples:\n  gpufleet trace convert --from swf NASA-iPSC-1993-3.1-cln.swf nasa.csv\n  gpufleet trace convert --from pai_machines pai_machine_spec.csv pools.toml"
    )]
    Convert {
        /// Format of the input.
        #[arg(long, value_enum)]
        from: SourceFormat,
        /// Input file.
        input: PathBuf,
        /// Output file (generic CSV; TOML for pai_machines and openb_nodes).
        output: PathBuf,
        /// Reading options.
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Summarise a trace: jobs, span, GPU-hours, sizes, durations, arrivals by hour.
    #[command(
        after_help = "Example:\n  gpufleet trace inspect data/tiresias/60_job.csv --format tiresias --json"
    )]
    Inspect {
        /// Trace file.
        file: PathBuf,
        /// Its format.
        #[arg(long, value_enum)]
        format: TraceFormat,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Reading options.
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Fit a workload model to a trace and print it as a scenario [workload] block.
    #[command(
        after_help = "Example:\n  gpufleet trace fit trace.swf --format swf --out workload.toml"
    )]
    Fit {
        /// Trace file.
        file: PathBuf,
        /// Its format.
        #[arg(long, value_enum)]
        format: TraceFormat,
        /// Write the block here instead of printing it.
        #[arg(long)]
        out: Option<PathBuf>,
        /// The most tenant mixes in the model: with more tenants in the trace, the busiest N - 1
        /// keep their own mix and the rest are pooled as "other".
        #[arg(long, default_value_t = 5)]
        tenants: usize,
        /// Reading options.
        #[command(flatten)]
        read: ReadArgs,
    },
}

fn bad(e: impl std::fmt::Display) -> CliError {
    CliError::BadInput(anyhow!("{e}"))
}

fn spec(file: &Path, format: TraceFormat, r: &ReadArgs) -> Result<TraceSpec, CliError> {
    let dur = |flag: &str, v: &Option<String>| -> Result<Option<SimTime>, CliError> {
        v.as_deref()
            .map(|s| parse_duration(s).map_err(|e| bad(format!("--{flag}: {e}"))))
            .transpose()
    };
    let (start, end) = (dur("start", &r.start)?, dur("end", &r.end)?);
    if r.procs_per_gpu == 0 {
        return Err(bad("--procs-per-gpu: must be at least 1"));
    }
    let max_jobs = r.max_jobs.unwrap_or(crate::scenario::DEFAULT_MAX_JOBS);
    let mut s = TraceSpec::new(file, format);
    s.bad_rows = if r.skip_bad_rows {
        BadRows::Skip
    } else {
        BadRows::Stop
    };
    s.swf = SwfOptions {
        procs_per_gpu: r.procs_per_gpu,
    };
    s.pai_job_table = r.pai_job_table.clone();
    s.filter = RowFilter {
        statuses: r.status.clone(),
        min_gpus: r.min_gpus,
        max_gpus: r.max_gpus,
        // A trace of 100 million rows was kept whole (about 60 GB) before this cap.
        max_jobs: Some(max_jobs),
    };
    let mut map = Vec::new();
    for m in &r.gpu_type_map {
        match m.split_once('=') {
            Some((a, b)) if !a.trim().is_empty() && !b.trim().is_empty() => {
                map.push((a.trim().to_string(), b.trim().to_string()))
            }
            _ => return Err(bad(format!("--gpu-type-map: {m:?} is not FROM=TO"))),
        }
    }
    for (flag, v) in [("min-gpus", r.min_gpus), ("max-gpus", r.max_gpus)] {
        if v.is_some_and(|x| x < 0.0) {
            return Err(bad(format!(
                "--{flag}: must be 0 or more, got {}",
                v.unwrap_or_default()
            )));
        }
    }
    for (flag, v) in [
        ("time-compression", r.time_compression),
        ("load-scale", r.load_scale),
    ] {
        if let Some(x) = v {
            if !(x.is_finite() && x > 0.0) {
                return Err(bad(format!("--{flag}: must be positive, got {x}")));
            }
        }
    }
    s.shaping = Shaping {
        window: (start.is_some() || end.is_some()).then(|| (start.unwrap_or(SimTime::ZERO), end)),
        gpu_type_map: map,
        time_compression: r.time_compression,
        load_scale: r.load_scale.map(|factor| LoadScale {
            factor,
            base: ScaleBase::Original,
        }),
        // Replication stops where a run's would (a factor of 1e300 made copies until the
        // memory ran out).
        max_jobs: Some(max_jobs),
    };
    Ok(s)
}

/// An openb node list as groups of identical machines (CPU-only nodes as type `CPU`).
fn openb_machine_list(path: &Path, b: BadRows) -> Result<MachineList, CliError> {
    let (nodes, skipped_rows) = read_openb_node_list(path, b).map_err(bad)?;
    let groups = group_openb_nodes(&nodes)
        .into_iter()
        .map(|(model, spec, count)| MachineGroup {
            gpu_type: if model.is_empty() {
                "CPU".into()
            } else {
                model
            },
            gpus: spec.gpus as u32,
            cpu_cores: spec.cpu_milli as f64 / 1000.0,
            mem_gib: spec.mem_mib as f64 / 1024.0,
            count,
        })
        .collect();
    Ok(MachineList {
        groups,
        skipped_rows,
    })
}

/// Writes `bytes` to `path`: a regular file (or a new one) atomically (a temporary name,
/// then a rename); a device, FIFO or socket (`/dev/stdout`, `/dev/null`, or a link to
/// one) directly, never replaced by a file (the rename put a regular file in place of
/// `/dev/null` or `/dev/full` and said it had written there).
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        use std::io::Write;
        return std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|mut f| f.write_all(bytes).and_then(|_| f.flush()))
            .map_err(|e| super::write_failed(path, false, e));
    }
    let tmp = path.with_extension("tmp-gpufleet");
    std::fs::write(&tmp, bytes)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| {
            // A rename onto a folder fails after the write: no temporary file left behind.
            let _ = std::fs::remove_file(&tmp);
            super::write_failed(path, false, e)
        })
}

/// Refuses an output `out` (given as `what`) that is the input file `input` itself (the
/// same file, by any path): `trace convert t.csv t.csv` and `trace fit t.csv --out t.csv`
/// replaced the trace with their output, exit 0. A device such as `/dev/stdout` may be both.
fn not_the_input(out: &Path, input: &Path, what: &str) -> Result<(), CliError> {
    use std::os::unix::fs::MetadataExt;
    let (Ok(a), Ok(b)) = (std::fs::metadata(out), std::fs::metadata(input)) else {
        return Ok(());
    };
    if a.is_file() && a.dev() == b.dev() && a.ino() == b.ino() {
        return Err(bad(format!(
            "{what} {}: is the input file {} itself, which it would replace: give another output file",
            out.display(),
            input.display()
        )));
    }
    Ok(())
}

/// Prints to stdout; a closed pipe (`| head`) ends the output quietly instead of panicking.
fn say(text: &str) -> Result<(), CliError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::Failure(anyhow!("writing to stdout: {e}"))),
    }
}

/// Tells the user (on stderr) how many trace rows were skipped as bad or dropped, and why.
pub(super) fn report_drops(w: &crate::model::Workload) {
    for (file, n) in &w.skipped_by_file {
        super::report_skipped(Path::new(file), *n);
    }
    for (why, n) in &w.filtered {
        eprintln!("dropped {n} rows: {why}");
    }
}

/// Runs a `trace` subcommand.
pub fn trace(cmd: TraceCommand) -> Result<(), CliError> {
    match cmd {
        TraceCommand::Convert {
            from,
            input,
            output,
            read,
        } => {
            not_the_input(&output, &input, "OUT")?;
            let Some(format) = from.trace() else {
                let b = if read.skip_bad_rows {
                    BadRows::Skip
                } else {
                    BadRows::Stop
                };
                let list = if from == SourceFormat::OpenbNodes {
                    openb_machine_list(&input, b)?
                } else {
                    read_pai_machines(&input, b).map_err(bad)?
                };
                write_atomic(&output, list.to_pools_toml().as_bytes())?;
                super::report_skipped(&input, list.skipped_rows);
                println!(
                    "{} machines ({} GPUs) in {} pools -> {}",
                    list.machines(),
                    list.gpus(),
                    list.groups.len(),
                    output.display()
                );
                return Ok(());
            };
            let s = spec(&input, format, &read)?;
            let (w, _) = s
                .load(&crate::engine::RngStreams::new(read.seed), 0.0)
                .map_err(bad)?;
            let mut out = Vec::new();
            write_generic_csv(&w, &mut out).map_err(|e| CliError::Failure(anyhow!("{e}")))?;
            write_atomic(&output, &out)?;
            report_drops(&w);
            println!("{} jobs -> {}", w.jobs.len(), output.display());
            Ok(())
        }
        TraceCommand::Inspect {
            file,
            format,
            json,
            read,
        } => {
            let s = spec(&file, format, &read)?;
            let streams = crate::engine::RngStreams::new(read.seed);
            let (w, meta) = if format == TraceFormat::Openb {
                // A pod list without times (the FGD artifact's multi-GPU lists) is described
                // as a list of pods; only replay in time needs the times. One pass either
                // way (its header was read, then the whole list again: a pipe lost its
                // header to the first read).
                let max = read.max_jobs.unwrap_or(crate::scenario::DEFAULT_MAX_JOBS);
                match s.load_openb(&streams, 0.0, Some(max)).map_err(bad)? {
                    crate::workload::OpenbLoad::Trace(t) => *t,
                    crate::workload::OpenbLoad::Pods(pods) => {
                        let st = crate::workload::OpenbPodSummary::of(&pods);
                        return if json {
                            let text = serde_json::to_string_pretty(&st)
                                .map_err(|e| CliError::Failure(anyhow!("{e}")))?;
                            say(&format!("{text}\n"))
                        } else {
                            say(&format!("{}\n{}", file.display(), st.to_text()))
                        };
                    }
                }
            } else {
                s.load(&streams, 0.0).map_err(bad)?
            };
            let st = trace_stats(&w, &meta, format.as_str());
            if json {
                let text = serde_json::to_string_pretty(&st)
                    .map_err(|e| CliError::Failure(anyhow!("{e}")))?;
                say(&format!("{text}\n"))
            } else {
                say(&st.to_text())
            }
        }
        TraceCommand::Fit {
            file,
            format,
            out,
            tenants,
            read,
        } => {
            if let Some(o) = &out {
                not_the_input(o, &file, "--out")?;
            }
            let s = spec(&file, format, &read)?;
            let (w, meta) = s
                .load(&crate::engine::RngStreams::new(read.seed), 0.0)
                .map_err(bad)?;
            if w.jobs.is_empty() {
                return Err(bad(format!("{}: no jobs left to fit", file.display())));
            }
            report_drops(&w);
            let model = fit_model(&w, &meta, tenants.max(1));
            let source = format!(
                "{} (format {}, {} jobs over {:.1} days)",
                file.display(),
                format.as_str(),
                w.jobs.len(),
                w.jobs
                    .last()
                    .map(|j| j.submit.hours_f64() / 24.0)
                    .unwrap_or(0.0)
            );
            let text = model_to_toml(&model, &source);
            match out {
                Some(p) => {
                    write_atomic(&p, text.as_bytes())?;
                    println!("wrote {}", p.display());
                }
                None => say(&text)?,
            }
            Ok(())
        }
    }
}
