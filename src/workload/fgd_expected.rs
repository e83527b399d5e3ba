//! The FGD artifact's expected curves: allocation (`analysis_allo_discrete.csv`,
//! `workload,sc_policy,tune,seed,total_gpus,0,1,...,130`) and fragmentation
//! (`analysis_frag_discrete.csv`, the same without `total_gpus`), one row per workload,
//! policy and seed, each arrived-demand column holding the allocated (or fragmented) % of
//! the cluster's GPUs. An empty cell (a point the run never reached) reads as NaN; a
//! number past the float range (`1e999`, `1e-999`, `nan`) is refused as written. The
//! workload and policy names of the rows kept are written into outputs, so a control
//! character in one is refused with its row and column (rows of another workload are
//! skipped unread).

use super::TraceError;
use std::path::Path;

/// One published curve.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectedCurve {
    /// The trace (`openb_pod_list_default`).
    pub workload: String,
    /// The artifact's policy label (`06-FGD`).
    pub policy: String,
    /// The seed.
    pub seed: u64,
    /// Allocated % at arrived demand 0..=130 %.
    pub curve: Vec<f64>,
}

/// The most values (cells) a file of published curves may hold: 10,000,000 (the shipped
/// ones hold a few thousand; rows are read into memory).
pub const MAX_EXPECTED_CELLS: usize = 10_000_000;

/// Reads the curves of `workload` (every workload when `None`).
pub fn read_expected_curves(
    path: &Path,
    workload: Option<&str>,
) -> Result<Vec<ExpectedCurve>, TraceError> {
    let file = super::csv_rows::open(path)?;
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(file);
    let headers = rdr
        .headers()
        .map_err(|e| TraceError::File {
            file: path.to_path_buf(),
            reason: format!("cannot read the header row: {e}"),
        })?
        .clone();
    let want = ["workload", "sc_policy", "tune", "seed"];
    if headers.len() < want.len() + 1 || headers.iter().zip(want).any(|(h, w)| h.trim() != w) {
        return Err(TraceError::File {
            file: path.to_path_buf(),
            reason: format!(
                "the header must start with {} (then total_gpus, optional) then 0,1,...",
                want.join(",")
            ),
        });
    }
    let first = if headers.get(4).is_some_and(|h| h.trim() == "total_gpus") {
        5
    } else {
        4
    };
    for (k, h) in headers.iter().enumerate().skip(first) {
        if h.trim() != (k - first).to_string() {
            return Err(TraceError::File {
                file: path.to_path_buf(),
                reason: format!(
                    "column {} is {h:?}: the points must be 0,1,2,... in order",
                    k + 1
                ),
            });
        }
    }
    let mut out = Vec::new();
    let mut cells = 0usize;
    for (i, rec) in rdr.records().enumerate() {
        let row = i as u64 + 2;
        let bad = |column: &str, reason: String| TraceError::Row {
            file: path.to_path_buf(),
            row,
            column: column.to_string(),
            reason,
        };
        let rec = rec.map_err(|e| bad("", e.to_string()))?;
        cells += rec.len();
        if cells > MAX_EXPECTED_CELLS {
            return Err(bad(
                "",
                format!("more than {MAX_EXPECTED_CELLS} values, the most a file of published curves may hold"),
            ));
        }
        let w = rec.get(0).unwrap_or("").trim();
        if workload.is_some_and(|x| x != w) {
            continue;
        }
        let seed = rec
            .get(3)
            .unwrap_or("")
            .trim()
            .parse()
            .map_err(|_| bad("seed", "not an integer".into()))?;
        let mut curve = Vec::with_capacity(headers.len() - first);
        for k in first..headers.len() {
            let v = rec.get(k).unwrap_or("").trim();
            if v.is_empty() {
                curve.push(f64::NAN);
                continue;
            }
            curve.push(super::value::parse_number(v).map_err(|e| bad(&headers[k], e.to_string()))?);
        }
        let policy = rec.get(1).unwrap_or("").trim();
        super::value::plain_text(w).map_err(|e| bad("workload", e.to_string()))?;
        super::value::plain_text(policy).map_err(|e| bad("sc_policy", e.to_string()))?;
        out.push(ExpectedCurve {
            workload: w.to_string(),
            policy: policy.to_string(),
            seed,
            curve,
        });
    }
    Ok(out)
}
