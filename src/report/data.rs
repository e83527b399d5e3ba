//! Reading back the CSV files of a run or sweep folder, so charts can be redrawn from
//! files alone (`gpufleet plot DIR`).

use std::path::Path;

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
    pub fn read(path: &Path) -> Result<Table, String> {
        let mut r = csv::Reader::from_path(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let headers = r
            .headers()
            .map_err(|e| format!("{}: {e}", path.display()))?
            .iter()
            .map(String::from)
            .collect();
        let mut rows = Vec::new();
        for (i, rec) in r.records().enumerate() {
            let rec = rec.map_err(|e| format!("{} row {}: {e}", path.display(), i + 2))?;
            rows.push(rec.iter().map(String::from).collect());
        }
        Ok(Table { headers, rows })
    }

    /// Index of column `name`.
    pub fn col(&self, name: &str) -> Option<usize> {
        self.headers.iter().position(|h| h == name)
    }

    /// Index of column `name`, or an error naming it.
    pub fn need(&self, name: &str, file: &str) -> Result<usize, String> {
        self.col(name)
            .ok_or_else(|| format!("{file}: no column `{name}`"))
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
