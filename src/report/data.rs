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

/// A table of a run folder, `<stem>.csv` or (in a Parquet-only folder) `<stem>.parquet`,
/// read row by row: each row holds only the columns asked for, in that order.
pub struct FolderTable {
    source: Source,
    rec: csv::StringRecord,
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
        })
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
        match &mut self.source {
            Source::Csv(t, cols) => {
                let Some(row) = t.next_row()? else {
                    return Ok(None);
                };
                self.rec.clear();
                for &c in cols.iter() {
                    self.rec.push_field(row.get(c).unwrap_or(""));
                }
                Ok(Some(&self.rec))
            }
            #[cfg(feature = "parquet")]
            Source::Parquet(rows, path) => {
                let rec = &mut self.rec;
                let next =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rows.next_into(rec)))
                        .unwrap_or_else(|_| Err("the file is damaged".into()));
                match next {
                    Ok(true) => Ok(Some(&self.rec)),
                    Ok(false) => Ok(None),
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
        let mut r = csv::Reader::from_path(path).map_err(csv_error)?;
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

    /// Cell `(row, col)` as text.
    pub fn text(&self, row: usize, col: usize) -> &str {
        self.rows
            .get(row)
            .and_then(|r| r.get(col))
            .map(String::as_str)
            .unwrap_or("")
    }
}
