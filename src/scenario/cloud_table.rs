//! The throughput table file: CSV `class,<GPU type>,<GPU type>...`, one row per class,
//! each cell a throughput (any unit, one per row; an empty cell: not measured).
//! The class names and GPU types are kept (matched to the scenario's and written into
//! outputs), so a control character in either (a NUL byte, an escape) is refused with its
//! row and column; a throughput that reads as infinity or zero though written with digits
//! (`1e999`, `1e-999`) is refused as written.

use std::path::Path;

/// One row: a class and its (GPU type, throughput) cells.
pub(super) type Row = (String, Vec<(String, f64)>);

/// Reads `path` into rows of (class, [(type, throughput)]); an error names the row.
pub(super) fn read_table(path: &Path) -> Result<Vec<Row>, String> {
    let text = crate::workload::read_small_text(path, crate::workload::MAX_DATA_FILE_BYTES)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(text.as_bytes());
    let headers = rdr
        .headers()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .clone();
    for h in headers.iter() {
        crate::workload::plain_text(h.trim())
            .map_err(|e| format!("{}:1: header {:?}: {e}", path.display(), h.trim()))?;
    }
    if headers.get(0).map(str::trim) != Some("class") || headers.len() < 2 {
        return Err(format!(
            "{}: the header must be class,<GPU type>,... ",
            path.display()
        ));
    }
    let mut out = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let row = i + 2;
        let rec = rec.map_err(|e| format!("{}:{row}: {e}", path.display()))?;
        let class = rec.get(0).unwrap_or("").trim().to_string();
        if class.is_empty() {
            return Err(format!(
                "{}:{row}: column \"class\": missing value",
                path.display()
            ));
        }
        crate::workload::plain_text(&class)
            .map_err(|e| format!("{}:{row}: column \"class\": {e}", path.display()))?;
        let mut cells = Vec::new();
        for (k, h) in headers.iter().enumerate().skip(1) {
            let v = rec.get(k).unwrap_or("").trim();
            if v.is_empty() {
                continue;
            }
            match crate::workload::parse_number(v) {
                Ok(x) if x > 0.0 => cells.push((h.trim().to_string(), x)),
                Err(e) => {
                    return Err(format!(
                        "{}:{row}: column {:?}: {e}",
                        path.display(),
                        h.trim()
                    ))
                }
                Ok(_) => {
                    return Err(format!(
                        "{}:{row}: column {:?}: {v:?} is not a positive number",
                        path.display(),
                        h.trim()
                    ))
                }
            }
        }
        out.push((class, cells));
    }
    Ok(out)
}
