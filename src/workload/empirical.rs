//! Observed durations for an empirical duration distribution: one numeric column (seconds)
//! of a CSV file with a header row, such as `data/philly_job_runtimes.csv`.

use super::csv_rows::open;
use super::TraceError;
use std::path::Path;

/// The most values an empirical duration column may hold: 10,000,000 (80 MB; a column
/// read without a bound from an endless file held values until the allocator aborted).
pub const MAX_EMPIRICAL_VALUES: usize = 10_000_000;

/// Reads the `column` (default: the first) of the CSV at `path` as durations in seconds.
/// Every value must be a finite number >= 0; the file must hold at least one.
pub fn read_duration_column(path: &Path, column: Option<&str>) -> Result<Vec<f64>, TraceError> {
    let mut rdr = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(open(path)?);
    let file_err = |reason: String| TraceError::File {
        file: path.to_path_buf(),
        reason,
    };
    let headers = rdr
        .headers()
        .map_err(|e| file_err(format!("cannot read the header row: {e}")))?
        .clone();
    let (k, name) = match column {
        None => (0, headers.get(0).unwrap_or("").to_string()),
        Some(c) => match headers.iter().position(|h| h.trim() == c) {
            Some(k) => (k, c.to_string()),
            None => return Err(file_err(format!("no column {c:?} in the header row"))),
        },
    };
    let mut out = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| TraceError::Row {
            file: path.to_path_buf(),
            row: e.position().map(|p| p.line()).unwrap_or(0),
            column: name.clone(),
            reason: e.to_string(),
        })?;
        let row = rec.position().map(|p| p.line()).unwrap_or(0);
        if out.len() >= MAX_EMPIRICAL_VALUES {
            return Err(TraceError::Row {
                file: path.to_path_buf(),
                row,
                column: name.clone(),
                reason: format!(
                    "more than {MAX_EMPIRICAL_VALUES} durations, the most an empirical distribution holds (a sample that size resamples as well as the whole)"
                ),
            });
        }
        let v = rec.get(k).unwrap_or("").trim();
        match super::value::parse_number(v) {
            Ok(x) if x >= 0.0 => out.push(x),
            Err(e) => {
                return Err(TraceError::Row {
                    file: path.to_path_buf(),
                    row,
                    column: name.clone(),
                    reason: e.to_string(),
                })
            }
            Ok(_) => {
                return Err(TraceError::Row {
                    file: path.to_path_buf(),
                    row,
                    column: name.clone(),
                    reason: format!("{v:?} is not a non-negative number of seconds"),
                })
            }
        }
    }
    if out.is_empty() {
        return Err(file_err("no durations in the file".into()));
    }
    Ok(out)
}
