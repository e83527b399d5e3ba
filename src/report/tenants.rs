//! `tenants.csv`: a row per tenant when a run has more tenants than `summary.json` holds
//! (`metrics::MAX_TENANTS_IN_SUMMARY`): the figures of `summary.json`'s `by_tenant` and
//! `cost_by_tenant_usd`, named by their JSON paths joined by `_` (`wait_s_p95`).

use super::csv_out::{Cell, Column, ColumnType, CsvOut};
use crate::metrics::TenantFigures;
use std::path::Path;

/// A row: tenant, dollars, figures.
pub type TenantRow = (String, f64, TenantFigures);

macro_rules! columns {
    ($($name:expr => $kind:ident, |$r:ident| $e:expr);* $(;)?) => {
        vec![$(Column::new($name, ColumnType::$kind, |$r: &TenantRow| $e)),*]
    };
}

/// A quantile's four figures as columns `<name>_mean`, `_p50`, `_p95`, `_p99`.
macro_rules! quantiles {
    ($cols:ident, $field:literal, |$r:ident| $q:expr) => {
        $cols.extend(columns![
            concat!($field, "_mean") => Float, |$r| Cell::Float($q.mean);
            concat!($field, "_p50") => Float, |$r| Cell::Float($q.p50);
            concat!($field, "_p95") => Float, |$r| Cell::Float($q.p95);
            concat!($field, "_p99") => Float, |$r| Cell::Float($q.p99);
        ])
    };
}

/// As [`quantiles!`], with the censored quantiles' `_jobs` and `_censored` counts.
macro_rules! censored {
    ($cols:ident, $field:literal, |$r:ident| $q:expr) => {
        quantiles!($cols, $field, |$r| $q);
        $cols.extend(columns![
            concat!($field, "_jobs") => Int, |$r| Cell::Int($q.jobs as i64);
            concat!($field, "_censored") => Int, |$r| Cell::Int($q.censored as i64);
        ])
    };
}

/// The columns of `tenants.csv`, in the order `summary.json` writes a tenant's figures.
pub fn tenant_columns() -> Vec<Column<TenantRow>> {
    let mut c = columns![
        "tenant" => Text, |r| Cell::Text(&r.0);
        "cost_usd" => Float, |r| Cell::Fixed(r.1, 2);
        "completed" => Int, |r| Cell::Int(r.2.completed as i64);
    ];
    quantiles!(c, "wait_s", |r| r.2.wait_s);
    quantiles!(c, "jct_s", |r| r.2.jct_s);
    c.extend(columns![
        "lost_gpu_hours" => Float, |r| Cell::Float(r.2.lost_gpu_hours);
        "jobs" => Int, |r| Cell::Int(r.2.research.jobs as i64);
    ]);
    censored!(c, "wait_all_s", |r| r.2.research.wait_all_s);
    censored!(c, "queue_delay_all_s", |r| r.2.research.queue_delay_all_s);
    censored!(c, "jct_all_s", |r| r.2.research.jct_all_s);
    censored!(c, "bounded_slowdown_all", |r| r
        .2
        .research
        .bounded_slowdown_all);
    c.extend(columns![
        "finish_time_fairness_mean" => Float, |r| Cell::Float(r.2.research.finish_time_fairness_mean);
        "gpu_hours" => Float, |r| Cell::Float(r.2.research.gpu_hours);
    ]);
    c
}

/// Writes `rows` to `path` (atomically), with [`tenant_columns`].
pub fn write_tenants_csv(path: &Path, rows: &[TenantRow]) -> std::io::Result<()> {
    let columns = tenant_columns();
    super::write_streamed(path, |w| {
        let mut out = CsvOut::new(w);
        out.header(&columns)?;
        for r in rows {
            out.row(&columns, r)?;
        }
        out.finish().map(|_| ())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The leaves of a JSON value, paths joined by `_`.
    fn leaves(prefix: &str, v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    let p = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}_{k}")
                    };
                    leaves(&p, v, out);
                }
            }
            _ => out.push(prefix.to_string()),
        }
    }

    #[test]
    fn the_columns_are_summary_json_s_tenant_figures() {
        // The header must name every figure `summary.json` writes for a tenant, in its
        // order: a field added to `TenantFigures` without a column fails here.
        let mut want = vec!["tenant".to_string(), "cost_usd".to_string()];
        let v = serde_json::to_value(TenantFigures::default()).unwrap();
        leaves("", &v, &mut want);
        let got: Vec<&str> = tenant_columns().iter().map(|c| c.name).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_row_holds_its_tenant_s_figures() {
        let mut f = TenantFigures {
            completed: 3,
            ..Default::default()
        };
        f.wait_s.p95 = 12.5;
        f.research.jct_all_s.censored = 2;
        let rows = vec![("team, a".to_string(), 1234.5, f)];
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("tenants.csv");
        write_tenants_csv(&p, &rows).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let head = r.headers().unwrap().clone();
        let row = r.records().next().unwrap().unwrap();
        let get = |name: &str| row[head.iter().position(|h| h == name).unwrap()].to_string();
        assert_eq!(get("tenant"), "team, a");
        assert_eq!(get("cost_usd"), "1234.50");
        assert_eq!(get("completed"), "3");
        assert_eq!(get("wait_s_p95").parse::<f64>().unwrap(), 12.5);
        assert_eq!(get("jct_all_s_censored"), "2");
    }
}
