//! `gpufleet plot DIR`: redraws the charts of a run, sweep or comparison folder from its
//! files.

use super::CliError;
use anyhow::anyhow;
use std::path::Path;

/// Draws the charts of `dir` without printing. The folder is checked first against its
/// completion manifest (`complete.json`: a file missing, truncated or changed is named,
/// exit 2); a folder without one (an older gpufleet's, or a sweep that did not finish)
/// must hold every table its kind has.
pub fn plot_quiet(dir: &Path) -> Result<Vec<std::path::PathBuf>, CliError> {
    // A file or device given as DIR is the user's path at fault (2), not the file system.
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(CliError::BadInput(anyhow!(
                "{}: not a folder; plot takes the output folder of a run, a sweep or a comparison",
                dir.display()
            )))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(CliError::BadInput(anyhow!(
                "{}: no such folder",
                dir.display()
            )))
        }
        Err(e) if crate::run::file_in_path(dir).is_some() => {
            return Err(CliError::BadInput(anyhow!("{}: {e}", dir.display())))
        }
        Err(e) => return Err(CliError::Failure(anyhow!("{}: {e}", dir.display()))),
    }
    let whole = match crate::report::check_complete(dir) {
        Ok(w) => w,
        Err(e @ crate::report::CompleteError::Damaged { .. }) => {
            return Err(CliError::BadInput(anyhow!(
                "{e}\n  ({} is not the complete output of the command that wrote it)",
                dir.display()
            )))
        }
        Err(e) => return Err(CliError::Failure(anyhow!("{e}"))),
    };
    if let Some(other) = other_command(dir) {
        return Err(CliError::BadInput(anyhow!(
            "{}: {other}; plot redraws the charts of a run, a (merged) sweep or a comparison folder",
            dir.display()
        )));
    }
    let r = if dir.join("sweep.json").is_file() {
        if !whole {
            need(
                dir,
                "a sweep",
                "rerun the sweep (with --resume, its runs are kept)",
                &["runs.csv", "points.csv"],
            )?;
        }
        crate::report::plot_sweep_dir(dir)
    } else if dir.join("compare.json").is_file() {
        if !whole {
            need(dir, "a comparison", "rerun the comparison", &COMPARE_FILES)?;
        }
        crate::report::plot_compare_dir(dir)
    } else if dir.join("summary.json").is_file() {
        crate::report::plot_run_dir(dir)
    } else {
        return Err(CliError::BadInput(anyhow!(
            "{}: not a run folder (summary.json), a sweep folder (sweep.json) or a comparison folder (compare.json)",
            dir.display()
        )));
    };
    r.map_err(|e| {
        let e2 = anyhow!("{}: {e}", dir.display());
        if e.is_bad_input() {
            CliError::BadInput(e2)
        } else {
            CliError::Failure(e2)
        }
    })
}

/// The tables of a comparison folder (`gpufleet compare`).
const COMPARE_FILES: [&str; 4] = [
    "compare.csv",
    "differences.csv",
    "runs.csv",
    "distributions.csv",
];

/// Refuses a folder of `kind` without its completion manifest that lacks one of `files`
/// (exit 2, naming it): the folder is not whole, whatever the other files say.
fn need(dir: &Path, kind: &str, fix: &str, files: &[&str]) -> Result<(), CliError> {
    match files.iter().find(|f| !dir.join(f).is_file()) {
        Some(f) => Err(CliError::BadInput(anyhow!(
            "{}: {kind} folder without {f} (nor {}): incomplete; {fix}",
            dir.display(),
            crate::report::COMPLETE
        ))),
        None => Ok(()),
    }
}

/// What wrote `dir`, when it is the folder of a command `plot` does not redraw: a shard of
/// a sweep, a plan, a TCO, an FGD experiment or a placement comparison (the last two hold
/// a `summary.json`, and were taken for a run folder missing its tables).
fn other_command(dir: &Path) -> Option<&'static str> {
    let has = |f: &str| dir.join(f).is_file();
    if has("shard.json") {
        Some("a shard of a sweep (shard.json): merge the shards with `gpufleet sweep merge`, then plot the merged folder")
    } else if has("plan.json") {
        Some("a plan folder (plan.json): a plan draws its charts as it runs")
    } else if has("tco.csv") && !has("summary.json") {
        Some("a TCO folder (tco.csv): `gpufleet tco` draws its charts as it runs")
    } else if has("summary.json") && has("allocation.csv") && has("fragmentation.csv") {
        Some(
            "an FGD experiment folder (allocation.csv): the experiment draws its charts as it runs",
        )
    } else if has("summary.json")
        && has("comparison.csv")
        && !has("jobs.csv")
        && !has("jobs.parquet")
    {
        Some("a placement comparison folder (comparison.csv): it has no charts to redraw")
    } else {
        None
    }
}

/// `gpufleet plot DIR`.
pub fn plot(dir: &Path) -> Result<(), CliError> {
    for p in plot_quiet(dir)? {
        println!("{}", p.display());
    }
    Ok(())
}
