//! `commitments.csv`: each commitment of a run (a reservation's term, a capacity block,
//! a savings plan's term), what it owed within the run, and its used and unused shares.

use super::write_atomic;
use crate::metrics::CommitmentUse;
use std::path::Path;

/// Writes `rows` to `path` (atomically); `pools` names the pools.
pub fn write_commitments_csv(
    path: &Path,
    rows: &[CommitmentUse],
    pools: &[String],
) -> std::io::Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "commitment",
        "kind",
        "pool",
        "term_start_h",
        "term_end_h",
        "owed_usd",
        "used_usd",
        "unused_usd",
        "used_share",
    ])?;
    let f = |x: f64| format!("{:.4}", x + 0.0);
    let mut seen: Vec<(Option<u32>, usize)> = Vec::new();
    for r in rows {
        let name = match r.pool {
            Some(p) => pools.get(p as usize).cloned().unwrap_or_default(),
            None => "savings_plan".to_string(),
        };
        // Terms of one commitment are numbered in order: "p4d-reserved#1", "#2", ...
        let k = match seen.iter_mut().find(|(p, _)| *p == r.pool) {
            Some(e) => {
                e.1 += 1;
                e.1
            }
            None => {
                seen.push((r.pool, 1));
                1
            }
        };
        let end = if r.term_h.1.is_finite() {
            f(r.term_h.1)
        } else {
            String::new()
        };
        w.write_record([
            format!("{name}#{k}"),
            r.kind.to_string(),
            r.pool.map(|_| name.clone()).unwrap_or_default(),
            f(r.term_h.0),
            end,
            f(r.owed_usd),
            f(r.used_usd),
            f(r.unused_usd()),
            if r.owed_usd > 0.0 {
                f(r.used_usd / r.owed_usd)
            } else {
                String::new()
            },
        ])?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    write_atomic(path, &bytes)
}
