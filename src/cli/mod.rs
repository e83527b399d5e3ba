//! The command line: clap commands that parse, call the library and print.
//!
//! Exit codes: 0 success, 2 bad input (scenario, trace, flags), 1 anything else.

mod compare;
mod fgd;
mod placement_comparison;
mod plot;
mod run;
mod spot;
mod sweep;
mod tco;
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

/// gpufleet: simulate a GPU fleet, its scheduler and its bill.
#[derive(Debug, Parser)]
#[command(name = "gpufleet", version, about, long_about = None, after_help = "Examples:\n  gpufleet run                                   # the built-in quickstart scenario\n  gpufleet run scenarios/quickstart.toml --out out/q --seed 7\n  gpufleet validate scenarios/quickstart.toml")]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
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
        /// Print only the output folder.
        #[arg(long, short)]
        quiet: bool,
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
    },
    /// Check a scenario file without running it.
    #[command(after_help = "Example:\n  gpufleet validate scenarios/quickstart.toml")]
    Validate {
        /// Scenario file (TOML).
        scenario: PathBuf,
    },
    /// Run a parameter sweep (or merge sweep shards).
    #[command(after_help = sweep::EXAMPLES)]
    Sweep(sweep::SweepArgs),
    /// Compare policies or scenario variants on the same workload (common random numbers,
    /// paired differences to a baseline).
    #[command(after_help = compare::EXAMPLES)]
    Compare(compare::CompareArgs),
    /// Redraw the charts of a run folder or a sweep folder.
    #[command(
        after_help = "Examples:\n  gpufleet plot out/quickstart\n  gpufleet plot out/my-sweep"
    )]
    Plot {
        /// A run folder (with summary.json) or a sweep folder (with sweep.json).
        dir: PathBuf,
    },
    /// Work with traces: convert, inspect, fit a workload model.
    #[command(
        subcommand,
        after_help = "Examples:\n  gpufleet trace inspect log.swf --format swf\n  gpufleet trace convert --from philly cluster_job_log jobs.csv\n  gpufleet trace fit log.swf --format swf --out workload.toml"
    )]
    Trace(trace::TraceCommand),
}

/// Runs the parsed command line.
pub fn main_with(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Run {
            scenario,
            out,
            seed,
            quiet,
        } => match scenario.as_deref() {
            Some(p) if fgd::is_fgd_file(p) => fgd::run(p, out, seed, quiet),
            Some(p) if placement_comparison::is_compare_file(p) => {
                placement_comparison::run(p, out, quiet)
            }
            _ => run::run(scenario.as_deref(), out, seed, quiet),
        },
        Command::Validate { scenario } if fgd::is_fgd_file(&scenario) => fgd::validate(&scenario),
        Command::Validate { scenario } if placement_comparison::is_compare_file(&scenario) => {
            placement_comparison::validate(&scenario)
        }
        Command::Validate { scenario } => run::validate(&scenario),
        Command::Trace(cmd) => trace::trace(cmd),
        Command::Tco {
            scenario,
            out,
            simulate,
            seed,
        } => tco::tco(&scenario, out, simulate, seed),
        Command::Sweep(args) => sweep::sweep(args),
        Command::Compare(args) => compare::compare(args),
        Command::Plot { dir } => plot::plot(&dir),
    }
}
