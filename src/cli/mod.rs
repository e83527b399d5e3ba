//! The command line: clap commands that parse, call the library and print.
//!
//! Exit codes: 0 success, 2 bad input (scenario, trace, flags), 1 anything else.

mod compare;
mod fgd;
mod logging;
mod placement_comparison;
mod plan;
mod plot;
mod progress;
mod run;
mod spot;
mod sweep;
mod tco;
mod tco_sim;
mod trace;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// An error with the exit code it deserves.
#[derive(Debug)]
pub enum CliError {
    /// The user's input is wrong (exit 2).
    BadInput(anyhow::Error),
    /// Something else failed (exit 1).
    Failure(anyhow::Error),
}

impl CliError {
    /// The process exit code.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::BadInput(_) => 2,
            CliError::Failure(_) => 1,
        }
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::BadInput(e) | CliError::Failure(e) => write!(f, "{e:#}"),
        }
    }
}

/// What `validate` found in a file other than a scenario (a sweep, compare, plan, FGD or
/// placement-comparison file): a line for people, and the same facts for `--json`.
pub struct Checked {
    /// The human report (one line, or a few).
    pub text: String,
    /// The facts as JSON (`kind` and counts); `ok` and `file` are added when printed.
    pub facts: serde_json::Value,
}

/// Prints what `validate` found in `path`, as text or (`json`) as one JSON object: `{"ok":
/// true, "file", "kind", ...}`, or on failure `{"ok": false, "file", "problems": [{"path",
/// "line", "column", "message"}]}` as for scenarios (the error still sets the exit code).
fn report_checked(
    path: &std::path::Path,
    json: bool,
    checked: Result<Checked, CliError>,
) -> Result<(), CliError> {
    match checked {
        Ok(c) if json => {
            let mut j = c.facts;
            if let Some(m) = j.as_object_mut() {
                m.insert("ok".into(), true.into());
                m.insert("file".into(), path.display().to_string().into());
            }
            println!("{j}");
            Ok(())
        }
        Ok(c) => {
            println!("{}", c.text);
            Ok(())
        }
        Err(e) => {
            if json {
                println!("{}", run::problems_json(path, None, &e.to_string()));
            }
            Err(e)
        }
    }
}

/// The most worker threads `--threads` may ask for: 100,000 threads were spawned one by
/// one for minutes (and 5,000 ran out of processes), whatever the work.
pub const MAX_THREADS: usize = 1024;

/// `--threads N`: 0 (all cores) to [`MAX_THREADS`].
fn parse_threads(s: &str) -> Result<usize, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if n <= MAX_THREADS as u64 => Ok(n as usize),
        Ok(n) => Err(format!(
            "{n} threads is more than {MAX_THREADS} (0 means all cores)"
        )),
        Err(e) => Err(format!("{s:?} is not a thread count: {e}")),
    }
}

/// A number flag (`--min-gpus 2`, `--load-scale 1.5`) as the trace readers read a cell
/// ([`crate::workload::parse_number`]): `nan`, `inf`, `1e999` (infinity) and `1e-999`
/// (read as 0) are refused as written, not taken as another number.
fn parse_number_flag(s: &str) -> Result<f64, String> {
    crate::workload::parse_number(s).map_err(|e| e.to_string())
}

/// The most memory `--mem-mb` asks Slurm for, in MiB (16 TiB; 0 asked for a whole node).
pub const MAX_MEM_MB: u64 = 16 << 20;

/// The error of writing `path` (a file, or with `folder` a folder): bad input (2) when the
/// path given is wrong (a folder where the file goes, a file where the folder goes, or a
/// file where one of its folders should be), else the environment's failure (1).
pub(crate) fn write_failed(path: &std::path::Path, folder: bool, e: std::io::Error) -> CliError {
    let msg = anyhow::anyhow!("writing {}: {e}", path.display());
    let wrong = if folder {
        path.exists() && !path.is_dir()
    } else {
        path.is_dir()
    };
    if wrong || crate::run::file_in_path(path).is_some() {
        CliError::BadInput(msg)
    } else {
        CliError::Failure(msg)
    }
}

/// gpufleet: simulate a GPU fleet, its scheduler and its bill.
#[derive(Debug, Parser)]
#[command(name = "gpufleet", version, about, long_about = None, after_help = "Examples:\n  gpufleet run                                   # the built-in quickstart scenario\n  gpufleet run scenarios/quickstart.toml --out out/q --seed 7\n  gpufleet validate scenarios/quickstart.toml")]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// More log output on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, e.g.
    /// `RUST_LOG=gpufleet=debug`, overrides).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// Less output: no progress bars, only errors logged; `run` prints only the output
    /// folder.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a scenario and write its output folder.
    #[command(
        after_help = "Examples:\n  gpufleet run\n  gpufleet run scenarios/quickstart.toml --out out/quickstart --seed 42\n  gpufleet run scenarios/fgd-openb-default.toml     # the FGD paper's placement experiment (all its seeds; --seed N runs one)"
    )]
    Run {
        /// Scenario file (TOML). Without one, runs the built-in quickstart scenario.
        scenario: Option<PathBuf>,
        /// Output folder (default: out/<scenario name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Master seed (default: the scenario's `seed`).
        #[arg(long)]
        seed: Option<u64>,
        /// Table files: csv, parquet (jobs/pools/timeline.parquet) or both (default: the
        /// scenario's `output_format`, else csv).
        #[arg(long, value_enum)]
        format: Option<crate::report::OutputFormat>,
        /// Print the run's summary (summary.json) on stdout instead of the human summary.
        #[arg(long)]
        json: bool,
    },
    /// Buy versus rent: cost candidate fleets for a scenario's workload over years.
    #[command(
        after_help = "Examples:\n  gpufleet tco scenarios/buy-vs-rent-h100.toml\n  gpufleet tco scenarios/buy-vs-rent-h100.toml --simulate --out out/bvr"
    )]
    Tco {
        /// Scenario file (TOML) with a [tco] section.
        scenario: PathBuf,
        /// Output folder for tco.csv and tco.svg (default: out/<scenario name>-tco).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Also run the scenario on every candidate fleet (slower; shows queueing).
        #[arg(long)]
        simulate: bool,
        /// Master seed (default: the scenario's `seed`).
        #[arg(long)]
        seed: Option<u64>,
        /// Print the candidates' figures as JSON on stdout instead of the tables.
        #[arg(long)]
        json: bool,
    },
    /// Check a scenario file (or a sweep, compare, plan, FGD or placement-comparison file)
    /// without running it.
    #[command(
        after_help = "Examples:\n  gpufleet validate scenarios/quickstart.toml\n  gpufleet validate s.toml --json | jq .problems\n  gpufleet validate scenarios/sweeps/heterogeneous.toml     # every point built and checked"
    )]
    Validate {
        /// Scenario file (TOML), or a sweep, compare, plan, FGD or placement-comparison file.
        scenario: PathBuf,
        /// Print the result as JSON on stdout (`ok`, counts, or `problems` with path,
        /// line, column and message); the exit code is the same.
        #[arg(long)]
        json: bool,
    },
    /// Run a parameter sweep (or merge sweep shards).
    #[command(after_help = sweep::EXAMPLES)]
    Sweep(sweep::SweepArgs),
    /// Compare policies or scenario variants on the same workload (common random numbers,
    /// paired differences to a baseline).
    #[command(after_help = compare::EXAMPLES)]
    Compare(compare::CompareArgs),
    /// Redraw the charts of a run, sweep or comparison folder.
    #[command(
        after_help = "Examples:\n  gpufleet plot out/quickstart\n  gpufleet plot out/my-sweep"
    )]
    Plot {
        /// A run folder (with summary.json), a (merged) sweep folder (with sweep.json) or a
        /// comparison folder (with compare.json).
        dir: PathBuf,
    },
    /// Work with traces: convert, inspect, fit a workload model.
    #[command(
        subcommand,
        after_help = "Examples:\n  gpufleet trace inspect log.swf --format swf\n  gpufleet trace convert --from philly cluster_job_log jobs.csv\n  gpufleet trace fit log.swf --format swf --out workload.toml"
    )]
    Trace(trace::TraceCommand),
    /// Find the cheapest fleet that meets a plan's service targets.
    #[command(after_help = plan::EXAMPLES)]
    Plan(plan::PlanArgs),
    /// Print a shell completion script.
    #[command(
        after_help = "Examples:\n  gpufleet completions bash > ~/.local/share/bash-completion/completions/gpufleet\n  gpufleet completions zsh > ~/.zfunc/_gpufleet\n  gpufleet completions fish > ~/.config/fish/completions/gpufleet.fish"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (gpufleet.1), or write one page per command into a folder.
    #[command(
        after_help = "Examples:\n  gpufleet man | man -l -\n  gpufleet man --out /usr/local/share/man/man1"
    )]
    Man {
        /// Write gpufleet.1 and gpufleet-<command>.1 into this folder instead.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

/// Runs the parsed command line.
pub fn main_with(cli: Cli) -> Result<(), CliError> {
    logging::init(cli.verbose, cli.quiet);
    let quiet = cli.quiet;
    match cli.command {
        Command::Run {
            scenario,
            out,
            seed,
            format,
            json,
        } => match scenario.as_deref() {
            // Their folders have their own tables; `--format` was ignored without a word.
            Some(p)
                if format.is_some()
                    && (fgd::is_fgd_file(p)
                        || placement_comparison::is_compare_file(p)
                        || plan::is_plan_file(p)) =>
            {
                Err(CliError::BadInput(anyhow::anyhow!(
                    "{}: --format applies to a scenario's run folder; an FGD experiment, placement comparison or plan writes its own CSV tables",
                    p.display()
                )))
            }
            Some(p) if fgd::is_fgd_file(p) => fgd::run(p, out, seed, quiet, json),
            Some(p) if placement_comparison::is_compare_file(p) => {
                placement_comparison::run(p, out, quiet, json)
            }
            Some(p) if plan::is_plan_file(p) && json => Err(CliError::BadInput(anyhow::anyhow!(
                "{}: a plan has no summary.json for --json; its answer is plan.json in the output folder",
                p.display()
            ))),
            Some(p) if plan::is_plan_file(p) => plan::run_file(p, out, seed, quiet),
            _ => run::run(
                scenario.as_deref(),
                run::RunFlags {
                    out,
                    seed,
                    quiet,
                    format,
                    json,
                },
            ),
        },
        Command::Validate { scenario, json } if fgd::is_fgd_file(&scenario) => {
            report_checked(&scenario, json, fgd::validate(&scenario))
        }
        Command::Validate { scenario, json }
            if placement_comparison::is_compare_file(&scenario) =>
        {
            report_checked(&scenario, json, placement_comparison::validate(&scenario))
        }
        Command::Validate { scenario, json } if plan::is_plan_file(&scenario) => {
            report_checked(&scenario, json, plan::validate(&scenario))
        }
        Command::Validate { scenario, json } if compare::is_compare_file(&scenario) => {
            report_checked(&scenario, json, compare::validate(&scenario))
        }
        Command::Validate { scenario, json } if sweep::is_sweep_file(&scenario) => {
            report_checked(&scenario, json, sweep::validate(&scenario))
        }
        Command::Validate { scenario, json } => run::validate(&scenario, json),
        Command::Trace(cmd) => trace::trace(cmd),
        Command::Tco {
            scenario,
            out,
            simulate,
            seed,
            json,
        } => tco::tco(&scenario, out, simulate, seed, json),
        Command::Sweep(args) => sweep::sweep(args, quiet),
        Command::Compare(args) => compare::compare(args, quiet),
        Command::Plot { dir } => plot::plot(&dir),
        Command::Plan(mut args) => {
            args.quiet |= quiet;
            plan::plan(args)
        }
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            // Into memory first: clap_complete panics on a failed write to stdout.
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut cmd, "gpufleet", &mut buf);
            to_stdout(&buf)
        }
        Command::Man { out } => man(out),
    }
}

/// `run --json` of an FGD experiment or a placement comparison: the folder's
/// `summary.json` on stdout byte for byte, as `run --json` prints a run's.
fn print_summary(dir: &std::path::Path) -> Result<(), CliError> {
    let path = dir.join("summary.json");
    let bytes = std::fs::read(&path)
        .map_err(|e| CliError::Failure(anyhow::anyhow!("reading {}: {e}", path.display())))?;
    to_stdout(&bytes)
}

/// Writes `bytes` to stdout and flushes: a failed write (a full disk, `> /dev/full`) is the
/// environment's failure (exit 1), not output lost with exit 0.
pub(crate) fn to_stdout(bytes: &[u8]) -> Result<(), CliError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| CliError::Failure(anyhow::anyhow!("writing to stdout: {e}")))
}

/// Says on the terminal how many bad rows of `path` were skipped (`skip_bad_rows`), when any
/// were: rows a user let through are counted, never dropped without a word.
fn report_skipped(path: &std::path::Path, skipped: u64) {
    if skipped > 0 {
        eprintln!("{}: skipped {skipped} bad rows", path.display());
    }
}

/// Warns that runs of a sweep or a comparison stopped before every job had ended:
/// `count` says how many ("2 of the runs"), `names` which (the first five shown, after
/// `prefix`), `see` where their unfinished jobs show (may be empty).
pub(crate) fn warn_cut_short(count: &str, prefix: &str, names: &[String], see: &str) {
    if names.is_empty() {
        return;
    }
    eprintln!(
        "warning: {count} stopped before every job had ended ({prefix}{}{}): without a horizon, at a limit (100 years, the failure-event cap) or with waiting jobs nothing could start; their jobs count as unfinished{see}; set a horizon, or check what keeps them waiting",
        names.iter().take(5).cloned().collect::<Vec<_>>().join(", "),
        if names.len() > 5 { ", ..." } else { "" }
    );
}

/// An output folder that cannot be begun or put in place, with the exit code it deserves
/// (its target is bad input; the file system failing is the environment).
pub(crate) fn folder_err(e: crate::run::FolderError) -> CliError {
    run::run_error(e.into())
}

/// `gpufleet man [--out DIR]`.
fn man(out: Option<PathBuf>) -> Result<(), CliError> {
    let cmd = <Cli as clap::CommandFactory>::command();
    let fail = |e: std::io::Error| CliError::Failure(anyhow::anyhow!("writing the man page: {e}"));
    match out {
        None => {
            let mut buf = Vec::new();
            clap_mangen::Man::new(cmd).render(&mut buf).map_err(fail)?;
            use std::io::Write;
            std::io::stdout().write_all(&buf).map_err(fail)
        }
        Some(dir) => {
            std::fs::create_dir_all(&dir).map_err(|e| write_failed(&dir, true, e))?;
            // As `clap_mangen::generate_to`, but each page through a temporary file and a
            // rename: on a full disk it left a page of 0 bytes under its final name.
            fn pages(cmd: clap::Command, dir: &std::path::Path) -> std::io::Result<()> {
                for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
                    pages(sub, dir)?;
                }
                let man = clap_mangen::Man::new(cmd);
                let mut buf = Vec::new();
                man.render(&mut buf)?;
                crate::report::write_atomic(&dir.join(man.get_filename()), &buf)
            }
            let mut cmd = cmd.disable_help_subcommand(true);
            cmd.build();
            pages(cmd, &dir).map_err(|e| write_failed(&dir, true, e))?;
            println!("wrote {}", dir.display());
            Ok(())
        }
    }
}
