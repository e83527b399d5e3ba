//! `gpufleet plot DIR`: redraws the charts of a run, sweep or comparison folder from its
//! files.

use super::CliError;
use anyhow::anyhow;
use std::path::Path;

/// Draws the charts of `dir` without printing.
pub fn plot_quiet(dir: &Path) -> Result<Vec<std::path::PathBuf>, CliError> {
    let r = if dir.join("sweep.json").is_file() {
        crate::report::plot_sweep_dir(dir)
    } else if dir.join("compare.json").is_file() {
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

/// `gpufleet plot DIR`.
pub fn plot(dir: &Path) -> Result<(), CliError> {
    for p in plot_quiet(dir)? {
        println!("{}", p.display());
    }
    Ok(())
}
