//! Streaming CSV rows for the CSV-based readers: one reused record, line numbers for
//! errors, malformed rows (bad quoting, invalid UTF-8) handed to the sink as bad rows.

use super::trace::{RowError, RowSink, TraceRow};
use super::TraceError;
use std::io::Read;

/// Opens `path` for a CSV reader, its lines at most [`super::MAX_LINE_BYTES`] long.
pub fn open(
    path: &std::path::Path,
) -> Result<std::io::BufReader<super::LineLimit<std::fs::File>>, TraceError> {
    super::open_limited(path).map_err(|source| TraceError::Io {
        file: path.to_path_buf(),
        source,
    })
}

/// A CSV error that is about the file, not one row (it cannot be read on, or a line is
/// over the length limit): a [`TraceError`] whatever the bad-row rule.
pub fn fatal(path: &std::path::Path, e: &csv::Error) -> Option<TraceError> {
    match e.kind() {
        csv::ErrorKind::Io(io) => Some(TraceError::File {
            file: path.to_path_buf(),
            reason: match super::too_long(io) {
                Some(t) => t.to_string(),
                None => format!("cannot read: {io}"),
            },
        }),
        _ => None,
    }
}

/// A header row without a column the format requires, or with one of its columns twice.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MissingColumn {
    /// A required column is absent.
    #[error("missing required column {0:?} in the header row")]
    Missing(&'static str),
    /// A column appears twice (which one holds the values?).
    #[error("column {0:?} appears twice in the header row (columns {1} and {2})")]
    Twice(&'static str, usize, usize),
}

/// Column positions of `names` in a header record; the first missing name, or a name
/// given twice, is an error.
pub fn columns<const N: usize>(
    header: &csv::StringRecord,
    names: [&'static str; N],
    required: &[&'static str],
) -> Result<[usize; N], MissingColumn> {
    let mut col = [usize::MAX; N];
    for (i, h) in header.iter().enumerate() {
        if let Some(k) = names.iter().position(|n| *n == h.trim()) {
            if col[k] != usize::MAX {
                return Err(MissingColumn::Twice(names[k], col[k] + 1, i + 1));
            }
            col[k] = i;
        }
    }
    for r in required {
        let k = names.iter().position(|n| n == r).unwrap_or(0);
        if col[k] == usize::MAX {
            return Err(MissingColumn::Missing(r));
        }
    }
    Ok(col)
}

/// The field at column position `c` of `rec` (empty when absent or the row is short).
pub fn field(rec: &csv::StringRecord, c: usize) -> &str {
    if c == usize::MAX {
        ""
    } else {
        rec.get(c).unwrap_or("").trim()
    }
}

/// A CSV file being read: the header (if any) already taken.
pub struct CsvRows<R: Read> {
    rdr: csv::Reader<R>,
    /// The header record (empty when the format has none).
    pub header: csv::StringRecord,
}

impl<R: Read> CsvRows<R> {
    /// Starts reading `input`; with `has_header` the first record is taken as the header
    /// (an empty file or an unreadable header is an error about the file).
    pub fn new(input: R, has_header: bool, sink: &RowSink) -> Result<CsvRows<R>, TraceError> {
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(input);
        let mut header = csv::StringRecord::new();
        if has_header {
            match rdr.read_record(&mut header) {
                Ok(true) => {}
                Ok(false) => return Err(sink.file_error("empty file: no header row")),
                Err(e) => {
                    return Err(fatal(sink.file(), &e).unwrap_or_else(|| {
                        sink.file_error(format!("cannot read the header row: {e}"))
                    }))
                }
            }
        }
        Ok(CsvRows { rdr, header })
    }

    /// As [`CsvRows::feed`], with a job class beside each row (the Tiresias trace's
    /// model name): a kept row's job is tagged with it (an empty class tags nothing).
    pub fn feed_classed(
        mut self,
        sink: &mut RowSink,
        mut parse: impl for<'r> FnMut(
            &'r csv::StringRecord,
        ) -> Result<(TraceRow<'r>, &'r str), RowError>,
    ) -> Result<(), TraceError> {
        let mut rec = csv::StringRecord::new();
        loop {
            let line = self.rdr.position().line();
            match self.rdr.read_record(&mut rec) {
                Ok(false) => break,
                Ok(true) => {}
                Err(e) => {
                    // A line over the limit ends the read: skipped, it would silently take
                    // every row after it along.
                    if let Some(f) = fatal(sink.file(), &e) {
                        return Err(f);
                    }
                    let row = e.position().map(|p| p.line()).unwrap_or(line);
                    sink.bad_row(row, "", e.to_string())?;
                    continue;
                }
            }
            let row = rec.position().map(|p| p.line()).unwrap_or(line);
            if rec.len() == 1 && rec.get(0).is_some_and(|f| f.trim().is_empty()) {
                continue;
            }
            match parse(&rec) {
                Ok((r, class)) => sink.take_classed(row, r, class)?,
                Err(e) => sink.take(row, Err(e))?,
            }
        }
        Ok(())
    }

    /// Feeds every data record to `parse` (with two scratch strings a row may borrow
    /// from) and its result to `sink`. Rows with the wrong
    /// number of fields reach `parse` (`flexible`), which decides what it needs; blank
    /// lines are ignored; malformed rows (bad UTF-8) are bad rows.
    pub fn feed(
        mut self,
        sink: &mut RowSink,
        mut parse: impl for<'r> FnMut(
            &'r csv::StringRecord,
            &'r mut [String; 2],
        ) -> Result<TraceRow<'r>, RowError>,
    ) -> Result<(), TraceError> {
        let mut rec = csv::StringRecord::new();
        let mut scratch = [String::new(), String::new()];
        loop {
            let line = self.rdr.position().line();
            match self.rdr.read_record(&mut rec) {
                Ok(false) => break,
                Ok(true) => {}
                Err(e) => {
                    if let Some(f) = fatal(sink.file(), &e) {
                        return Err(f);
                    }
                    let row = e.position().map(|p| p.line()).unwrap_or(line);
                    sink.bad_row(row, "", e.to_string())?;
                    continue;
                }
            }
            let row = rec.position().map(|p| p.line()).unwrap_or(line);
            if rec.len() == 1 && rec.get(0).is_some_and(|f| f.trim().is_empty()) {
                continue;
            }
            let parsed = parse(&rec, &mut scratch);
            sink.take(row, parsed)?;
        }
        Ok(())
    }
}
