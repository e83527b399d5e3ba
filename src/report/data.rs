//! Reading back the CSV files of a run or sweep folder, so charts can be redrawn from
//! files alone (`gpufleet plot DIR`).

use std::path::{Path, PathBuf};

/// A CSV file of an output folder that cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The file cannot be opened, or its header row read.
    #[error("{path}: {source}")]
    Csv {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: csv::Error,
    },
    /// A row cannot be read (`row` is the line, the header being line 1).
    #[error("{path} row {row}: {source}")]
    Row {
        /// The file.
        path: PathBuf,
        /// The line.
        row: usize,
        /// The cause.
        source: csv::Error,
    },
    /// A column the chart needs is not there.
    #[error("{file}: no column `{name}`")]
    NoColumn {
        /// The file's name.
        file: String,
        /// The column.
        name: String,
    },
    /// A cell a chart reads as a number is not one a run could have written: text, NaN,
    /// infinite, or larger than [`MAX_FIGURE`] (`row` is the line, the header being 1).
    #[error("{} row {row}, column {column}: {text:?} is {why} (changed by hand? rerun to rewrite it)", path.display())]
    BadNumber {
        /// The file.
        path: PathBuf,
        /// The line.
        row: usize,
        /// The column.
        column: String,
        /// The cell (at most 40 characters of it).
        text: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A run folder has neither the CSV nor the Parquet copy of a table.
    #[error("neither {stem}.csv nor {stem}.parquet is in the folder (a run writes one of them; was it changed by hand?)")]
    Missing {
        /// The folder.
        dir: PathBuf,
        /// The table (`jobs`, `pools`, `timeline`).
        stem: &'static str,
    },
    /// A Parquet table cannot be read.
    #[error("{}: {message}", path.display())]
    Parquet {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A Parquet-only folder, but this build reads no Parquet (an environment problem).
    #[error("{}: this gpufleet was built without Parquet (the `parquet` feature), so it cannot read this Parquet-only folder", path.display())]
    NoParquet {
        /// The file.
        path: PathBuf,
    },
}

/// The largest magnitude of a figure charts read back from a folder: 1e30 (no run writes
/// more: its money, times and counts are bounded far below; a larger value, NaN or an
/// infinity was written by hand and would draw a meaningless or endless axis).
pub const MAX_FIGURE: f64 = 1e30;

/// A cell of a folder's table read as a number: `Ok(None)` when empty, an error saying
/// why when it is not a finite number of at most [`MAX_FIGURE`].
pub fn figure(text: &str) -> Result<Option<f64>, &'static str> {
    if text.is_empty() {
        return Ok(None);
    }
    match text.trim().parse::<f64>() {
        Err(_) => Err("not a number"),
        Ok(x) if !x.is_finite() => Err("not a finite number"),
        Ok(x) if x.abs() > MAX_FIGURE => Err("larger than any figure a run writes (1e30)"),
        Ok(x) => Ok(Some(x)),
    }
}

/// The error for the cell `text` of `path`, line `row`, column `column`.
fn bad_number(path: &Path, row: usize, column: &str, text: &str, why: &'static str) -> TableError {
    TableError::BadNumber {
        path: path.to_path_buf(),
        row,
        column: column.to_string(),
        text: text.chars().take(40).collect(),
        why,
    }
}

/// A table of a run folder, `<stem>.csv` or (in a Parquet-only folder) `<stem>.parquet`,
/// read row by row: each row holds only the columns asked for, in that order.
pub struct FolderTable {
    source: Source,
    rec: csv::StringRecord,
    /// The file read (for errors).
    path: PathBuf,
    /// The columns asked for.
    names: Vec<String>,
    /// Indices (into `names`) of the columns that must hold numbers.
    numbers: Vec<usize>,
    /// The line of the row last read (the header being 1).
    row: usize,
}

enum Source {
    Csv(TableStream, Vec<usize>),
    #[cfg(feature = "parquet")]
    Parquet(super::parquet::ParquetRows, PathBuf),
}

impl FolderTable {
    /// Opens the table `stem` of the folder `dir` for the columns `names`: an error when
    /// neither copy is there or a column is missing.
    pub fn open(dir: &Path, stem: &'static str, names: &[&str]) -> Result<FolderTable, TableError> {
        let csv = dir.join(format!("{stem}.csv"));
        let parquet = dir.join(format!("{stem}.parquet"));
        let path = if csv.is_file() {
            csv.clone()
        } else {
            parquet.clone()
        };
        let source = if csv.is_file() {
            let t = TableStream::open(&csv)?;
            let file = format!("{stem}.csv");
            let cols = names
                .iter()
                .map(|n| t.need(n, &file))
                .collect::<Result<Vec<_>, _>>()?;
            Source::Csv(t, cols)
        } else if parquet.is_file() {
            Self::parquet(parquet, names)?
        } else {
            return Err(TableError::Missing {
                dir: dir.to_path_buf(),
                stem,
            });
        };
        Ok(FolderTable {
            source,
            rec: csv::StringRecord::new(),
            path,
            names: names.iter().map(|n| n.to_string()).collect(),
            numbers: Vec::new(),
            row: 1,
        })
    }

    /// Makes every row's columns `numbers` (indices into the names asked for) be checked
    /// by [`figure`]: a cell that is not empty or a number a run could write is an error
    /// naming the file, row and column, not a value charted as 0 or dropped.
    pub fn numbers(mut self, numbers: &[usize]) -> FolderTable {
        self.numbers = numbers.to_vec();
        self
    }

    #[cfg(feature = "parquet")]
    fn parquet(path: PathBuf, names: &[&str]) -> Result<Source, TableError> {
        // The reader is a third party's: a damaged file must not end the program.
        let opened = std::panic::catch_unwind(|| super::parquet::ParquetRows::open(&path, names))
            .unwrap_or_else(|_| Err("the file is damaged".into()));
        match opened {
            Ok(rows) => Ok(Source::Parquet(rows, path)),
            Err(message) => Err(TableError::Parquet { path, message }),
        }
    }

    #[cfg(not(feature = "parquet"))]
    fn parquet(path: PathBuf, _names: &[&str]) -> Result<Source, TableError> {
        Err(TableError::NoParquet { path })
    }

    /// The next row (the columns asked for, in order), or `None` at the end.
    pub fn next_row(&mut self) -> Result<Option<&csv::StringRecord>, TableError> {
        if !self.advance()? {
            return Ok(None);
        }
        self.row += 1;
        for &k in &self.numbers {
            let text = self.rec.get(k).unwrap_or("");
            if let Err(why) = figure(text) {
                let column = self.names.get(k).map_or("", String::as_str);
                return Err(bad_number(&self.path, self.row, column, text, why));
            }
        }
        Ok(Some(&self.rec))
    }

    /// Reads the next row into `rec`; `false` at the end.
    fn advance(&mut self) -> Result<bool, TableError> {
        match &mut self.source {
            Source::Csv(t, cols) => {
                let Some(row) = t.next_row()? else {
                    return Ok(false);
                };
                self.rec.clear();
                for &c in cols.iter() {
                    self.rec.push_field(row.get(c).unwrap_or(""));
                }
                Ok(true)
            }
            #[cfg(feature = "parquet")]
            Source::Parquet(rows, path) => {
                let rec = &mut self.rec;
                let next =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rows.next_into(rec)))
                        .unwrap_or_else(|_| Err("the file is damaged".into()));
                match next {
                    Ok(more) => Ok(more),
                    Err(message) => Err(TableError::Parquet {
                        path: path.clone(),
                        message,
                    }),
                }
            }
        }
    }
}

/// A CSV file read row by row (lines at most [`crate::workload::MAX_LINE_BYTES`]), one
/// reused record at a time: what charts read from files a run may have made large.
pub struct TableStream {
    path: PathBuf,
    rdr: csv::Reader<std::io::BufReader<crate::workload::LineLimit<std::fs::File>>>,
    headers: Vec<String>,
    rec: csv::StringRecord,
    line: usize,
}

impl TableStream {
    /// Opens `path` and reads its header row.
    pub fn open(path: &Path) -> Result<TableStream, TableError> {
        let csv_error = |source| TableError::Csv {
            path: path.to_path_buf(),
            source,
        };
        let input = crate::workload::open_limited(path).map_err(|e| csv_error(e.into()))?;
        let mut rdr = csv::ReaderBuilder::new().flexible(true).from_reader(input);
        let headers = rdr
            .headers()
            .map_err(csv_error)?
            .iter()
            .map(String::from)
            .collect();
        Ok(TableStream {
            path: path.to_path_buf(),
            rdr,
            headers,
            rec: csv::StringRecord::new(),
            line: 1,
        })
    }

    /// Index of column `name`, or an error naming it.
    pub fn need(&self, name: &str, file: &str) -> Result<usize, TableError> {
        self.headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| TableError::NoColumn {
                file: file.to_string(),
                name: name.to_string(),
            })
    }

    /// The next row, or `None` at the end.
    pub fn next_row(&mut self) -> Result<Option<&csv::StringRecord>, TableError> {
        self.line += 1;
        match self.rdr.read_record(&mut self.rec) {
            Ok(true) => Ok(Some(&self.rec)),
            Ok(false) => Ok(None),
            Err(source) => Err(TableError::Row {
                path: self.path.clone(),
                row: self.line,
                source,
            }),
        }
    }
}

/// A CSV file: header and rows of text.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// Column names.
    pub headers: Vec<String>,
    /// Rows.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Reads `path`.
    pub fn read(path: &Path) -> Result<Table, TableError> {
        let csv_error = |source| TableError::Csv {
            path: path.to_path_buf(),
            source,
        };
        // Lines of at most MAX_LINE_BYTES: a file of zero bytes is one endless "line".
        let input = crate::workload::open_limited(path).map_err(|e| csv_error(e.into()))?;
        let mut r = csv::Reader::from_reader(input);
        let headers = r
            .headers()
            .map_err(csv_error)?
            .iter()
            .map(String::from)
            .collect();
        let mut rows = Vec::new();
        for (i, rec) in r.records().enumerate() {
            let rec = rec.map_err(|source| TableError::Row {
                path: path.to_path_buf(),
                row: i + 2,
                source,
            })?;
            rows.push(rec.iter().map(String::from).collect());
        }
        Ok(Table { headers, rows })
    }

    /// Index of column `name`.
    pub fn col(&self, name: &str) -> Option<usize> {
        self.headers.iter().position(|h| h == name)
    }

    /// Index of column `name`, or an error naming it.
    pub fn need(&self, name: &str, file: &str) -> Result<usize, TableError> {
        self.col(name).ok_or_else(|| TableError::NoColumn {
            file: file.to_string(),
            name: name.to_string(),
        })
    }

    /// Cell `(row, col)` as a number (None if empty or not a number).
    pub fn num(&self, row: usize, col: usize) -> Option<f64> {
        self.rows.get(row)?.get(col)?.parse().ok()
    }

    /// Checks the cells of columns `cols` with [`figure`]: the first that is not empty or
    /// a number a run could write is an error naming the file, row and column.
    pub fn check_numbers(&self, path: &Path, cols: &[usize]) -> Result<(), TableError> {
        for (i, row) in self.rows.iter().enumerate() {
            for &c in cols {
                let text = row.get(c).map_or("", String::as_str);
                if let Err(why) = figure(text) {
                    let column = self.headers.get(c).map_or("", String::as_str);
                    return Err(bad_number(path, i + 2, column, text, why));
                }
            }
        }
        Ok(())
    }

    /// Cell `(row, col)` as text.
    pub fn text(&self, row: usize, col: usize) -> &str {
        self.rows
            .get(row)
            .and_then(|r| r.get(col))
            .map(String::as_str)
            .unwrap_or("")
    }
}
