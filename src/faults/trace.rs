//! Failure traces: `time_s,node[,cause][,repair_s]` CSV rows instead of a random process.
//! `node` is a node index (0-based over all pools in scenario order) or `pool/index`.
//! The text cells (`node`'s pool name and `cause`) are kept: the cause is written into
//! the run's outputs and the pool name into errors, so a control character (a NUL byte,
//! an escape) in either is refused with its row and column; a number that reads as
//! infinity or underflows to zero (`1e999`, `1e-999`) is refused as written.

use crate::engine::SimTime;
use crate::workload::TraceError;
use std::path::Path;

/// One failure from a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceFailure {
    /// When.
    pub time: SimTime,
    /// Pool name (None: `node` is a global index).
    pub pool: Option<String>,
    /// Node index (global, or within `pool`).
    pub node: u32,
    /// Cause, if given.
    pub cause: String,
    /// Repair time, if given (else the scenario's repair distribution).
    pub repair: Option<SimTime>,
}

/// The most failures a failure trace may hold: 10,000,000 (as a run's jobs).
pub const MAX_TRACE_FAILURES: usize = 10_000_000;

/// Reads a failure trace; every bad row is an error naming the row and column.
pub fn read_failure_trace(path: &Path) -> Result<Vec<TraceFailure>, TraceError> {
    let text = crate::workload::read_small_text(path, crate::workload::MAX_DATA_FILE_BYTES)
        .map_err(|source| TraceError::Io {
            file: path.to_path_buf(),
            source,
        })?;
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    let header: Vec<String> = match lines.next() {
        Some((_, h)) => h.split(',').map(|s| s.trim().to_string()).collect(),
        None => {
            return Err(TraceError::File {
                file: path.to_path_buf(),
                reason: "empty file (expected a header time_s,node[,cause][,repair_s])".into(),
            })
        }
    };
    let mut seen = std::collections::HashSet::new();
    if let Some(twice) = header.iter().find(|h| !h.is_empty() && !seen.insert(*h)) {
        return Err(TraceError::Row {
            file: path.to_path_buf(),
            row: 1,
            column: crate::workload::clip(twice, 80).into_owned(),
            reason: "appears twice in the header row".into(),
        });
    }
    let col = |n: &str| header.iter().position(|h| h == n);
    let (Some(ct), Some(cn)) = (col("time_s"), col("node")) else {
        return Err(TraceError::File {
            file: path.to_path_buf(),
            reason: "header must have columns time_s and node".into(),
        });
    };
    let (cc, cr) = (col("cause"), col("repair_s"));
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let row = i as u64 + 1;
        if out.len() >= MAX_TRACE_FAILURES {
            return Err(TraceError::File {
                file: path.to_path_buf(),
                reason: format!(
                    "row {row}: more than {MAX_TRACE_FAILURES} failures, the most a failure trace may hold (each about 100 bytes of memory; rows of 4 bytes filled gigabytes)"
                ),
            });
        }
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let bad = |column: &str, reason: String| TraceError::Row {
            file: path.to_path_buf(),
            row,
            column: column.into(),
            reason,
        };
        let secs = |column: &str, v: &str| match crate::workload::parse_number(v) {
            Ok(x) if x >= 0.0 => Ok(x),
            Ok(_) => Err(bad(
                column,
                format!("{v:?} is not a non-negative number of seconds"),
            )),
            Err(e) => Err(bad(column, e.to_string())),
        };
        let t = secs("time_s", f.get(ct).unwrap_or(&""))?;
        if t > crate::workload::MAX_TRACE_SECS {
            return Err(bad(
                "time_s",
                crate::workload::too_many_secs(f.get(ct).unwrap_or(&"")),
            ));
        }
        let node_text = f.get(cn).copied().unwrap_or("");
        crate::workload::plain_text(node_text).map_err(|e| bad("node", e.to_string()))?;
        if let Some(cause) = cc.and_then(|c| f.get(c)) {
            crate::workload::plain_text(cause).map_err(|e| bad("cause", e.to_string()))?;
        }
        let (pool, idx) = match node_text.split_once('/') {
            Some((p, i)) => (Some(p.to_string()), i),
            None => (None, node_text),
        };
        let node: u32 = idx.parse().map_err(|_| {
            bad(
                "node",
                format!("{node_text:?} is not a node index or pool/index"),
            )
        })?;
        let repair = match cr.and_then(|c| f.get(c)).filter(|v| !v.is_empty()) {
            None => None,
            Some(v) => Some(SimTime::from_secs_f64(secs("repair_s", v).and_then(
                |x| {
                    if x > crate::workload::MAX_TRACE_SECS {
                        Err(bad("repair_s", crate::workload::too_many_secs(v)))
                    } else {
                        Ok(x)
                    }
                },
            )?)),
        };
        out.push(TraceFailure {
            time: SimTime::from_secs_f64(t),
            pool,
            node,
            cause: cc
                .and_then(|c| f.get(c))
                .map(|s| s.to_string())
                .unwrap_or_else(|| "trace".into()),
            repair,
        });
    }
    out.sort_by_key(|f| f.time);
    Ok(out)
}
