//! A run's three tables (jobs, pools, timeline) as typed columns: one schema, shared by
//! the Parquet files and the Python package, built from the same in-memory data as the
//! CSV files and holding the same values.
//!
//! Types: counts and identifiers are 64-bit integers, everything else is a 64-bit float,
//! names are UTF-8 strings. Times are seconds as float64 (millisecond precision), as in
//! the CSV files, so a column has the same name, unit and value in both. A value the CSV
//! leaves empty (a job that never started has no `start_s`) is null. Floats are rounded to
//! the CSV's precision (times to the millisecond, dollars of a pool to the cent, dollars of
//! a job to 1/10,000, other floats to 6 decimals), so a Parquet value equals the number
//! written in the CSV.

use super::files::RunOutput;
use crate::engine::SimTime;
use crate::model::GpuRequest;
use crate::pricing::CostKind;
use crate::sim::JobOutcome;

/// The values of one column.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// 64-bit integers, never null.
    Int(Vec<i64>),
    /// 64-bit floats, never null.
    Float(Vec<f64>),
    /// 64-bit floats, null where `None`.
    NullableFloat(Vec<Option<f64>>),
    /// 64-bit integers, null where `None`.
    NullableInt(Vec<Option<i64>>),
    /// UTF-8 strings, never null.
    Text(Vec<String>),
    /// UTF-8 strings, null where `None`.
    NullableText(Vec<Option<String>>),
    /// Booleans, null where `None`.
    NullableBool(Vec<Option<bool>>),
}

impl Values {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            Values::Int(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::NullableFloat(v) => v.len(),
            Values::Text(v) => v.len(),
            Values::NullableText(v) => v.len(),
            Values::NullableInt(v) => v.len(),
            Values::NullableBool(v) => v.len(),
        }
    }

    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The type's name in the documented schema (`int64`, `float64`, `string`, `bool`).
    pub fn type_name(&self) -> &'static str {
        match self {
            Values::Int(_) | Values::NullableInt(_) => "int64",
            Values::Float(_) | Values::NullableFloat(_) => "float64",
            Values::Text(_) | Values::NullableText(_) => "string",
            Values::NullableBool(_) => "bool",
        }
    }

    /// True when the column may hold nulls.
    pub fn nullable(&self) -> bool {
        matches!(
            self,
            Values::NullableFloat(_)
                | Values::NullableText(_)
                | Values::NullableInt(_)
                | Values::NullableBool(_)
        )
    }
}

/// A named column.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The column's name (the same as the CSV header).
    pub name: String,
    /// Its values.
    pub values: Values,
}

/// A table: columns of equal length, in the CSV's order.
#[derive(Debug, Clone, PartialEq)]
pub struct Columns {
    /// The table's name (`jobs`, `pools`, `timeline`).
    pub name: &'static str,
    /// Its columns.
    pub columns: Vec<Column>,
}

impl Columns {
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.values.len())
    }

    /// The column `name`, if present.
    pub fn get(&self, name: &str) -> Option<&Values> {
        self.columns
            .iter()
            .find(|c| c.name == name)
            .map(|c| &c.values)
    }
}

/// `x` rounded to `decimals` places exactly as the CSV's `{:.N}` text is (and never -0):
/// by scaling, which is exact unless the scaled value lies within its rounding error of a
/// half (or is too large to carry a fraction); those rare cases take the decimal text.
pub(super) fn round(x: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    let y = x * scale;
    let frac = y - y.floor();
    if y.abs() >= 4.5e15 || (frac - 0.5).abs() <= y.abs() * 1e-15 + 1e-12 {
        let text = format!("{x:.*}", decimals as usize);
        return text.parse::<f64>().unwrap_or(y.round() / scale) + 0.0;
    }
    y.round() / scale + 0.0
}

/// Seconds, to the millisecond.
pub(super) fn secs(t: SimTime) -> f64 {
    t.0 as f64 / 1000.0
}

pub(super) fn col(name: &str, values: Values) -> Column {
    Column {
        name: name.to_string(),
        values,
    }
}

/// The `jobs` table: one row per submitted job (the columns of `jobs.csv`).
pub fn jobs(out: &RunOutput) -> Columns {
    let (w, r) = (out.workload, out.result);
    let rows: Vec<usize> = (0..w.jobs.len().min(r.jobs.len()))
        .filter(|&i| r.jobs[i].submitted)
        .collect();
    let pool_name = |p: u32| r.pools.get(p as usize).map(|u| u.name.clone());
    let ints = |f: &dyn Fn(usize) -> i64| Values::Int(rows.iter().map(|&i| f(i)).collect());
    let floats = |f: &dyn Fn(usize) -> f64| Values::Float(rows.iter().map(|&i| f(i)).collect());
    let maybe = |f: &dyn Fn(usize) -> Option<f64>| {
        Values::NullableFloat(rows.iter().map(|&i| f(i)).collect())
    };
    let ettr = |i: usize| {
        let rec = &r.jobs[i];
        rec.start.map(|s| {
            let wall = rec.end.unwrap_or(r.end).since(s).0;
            round(
                if wall > 0 {
                    rec.useful.0 as f64 / wall as f64
                } else {
                    0.0
                },
                6,
            )
        })
    };
    // The research figures of each job (none for a rejected one), as in `jobs.csv`.
    let table = out.job_figures;
    let mut figures: Vec<Option<&crate::metrics::JobFigures>> = vec![None; w.jobs.len()];
    for x in &table.jobs {
        if let Some(slot) = figures.get_mut(x.job as usize) {
            *slot = Some(x);
        }
    }
    let fig = |g: &dyn Fn(&crate::metrics::JobFigures) -> Option<f64>| {
        Values::NullableFloat(
            rows.iter()
                .map(|&i| figures[i].and_then(g).map(|v| round(v, 6)))
                .collect(),
        )
    };
    Columns {
        name: "jobs",
        columns: vec![
            col("job_id", ints(&|i| i as i64)),
            col(
                "name",
                Values::Text(rows.iter().map(|&i| w.jobs[i].name.clone()).collect()),
            ),
            col(
                "tenant",
                Values::Text(
                    rows.iter()
                        .map(|&i| {
                            w.tenants
                                .get(w.jobs[i].tenant as usize)
                                .cloned()
                                .unwrap_or_default()
                        })
                        .collect(),
                ),
            ),
            col("submit_s", floats(&|i| secs(w.jobs[i].submit))),
            col(
                "gpus",
                floats(&|i| match w.jobs[i].gpus {
                    GpuRequest::None => 0.0,
                    g => round(g.gpus_f64(), 6),
                }),
            ),
            col("start_s", maybe(&|i| r.jobs[i].start.map(secs))),
            col("end_s", maybe(&|i| r.jobs[i].end.map(secs))),
            col(
                "wait_s",
                maybe(&|i| r.jobs[i].start.map(|s| secs(s.since(w.jobs[i].submit)))),
            ),
            col(
                "jct_s",
                maybe(&|i| match (r.jobs[i].outcome, r.jobs[i].end) {
                    (JobOutcome::Completed, Some(e)) => Some(secs(e.since(w.jobs[i].submit))),
                    _ => None,
                }),
            ),
            col(
                "pool",
                Values::NullableText(
                    rows.iter()
                        .map(|&i| r.jobs[i].pool.and_then(pool_name))
                        .collect(),
                ),
            ),
            col(
                "gpus_held",
                floats(&|i| round(r.jobs[i].gpu_milli as f64 / 1000.0, 6)),
            ),
            col("nodes", ints(&|i| r.jobs[i].nodes as i64)),
            col(
                "outcome",
                Values::Text(
                    rows.iter()
                        .map(|&i| r.jobs[i].outcome.as_str().to_string())
                        .collect(),
                ),
            ),
            col("preemptions", ints(&|i| r.jobs[i].preemptions as i64)),
            col("restarts", ints(&|i| r.jobs[i].restarts as i64)),
            col("useful_s", floats(&|i| secs(r.jobs[i].useful))),
            col("lost_s", floats(&|i| secs(r.jobs[i].lost))),
            col("checkpoint_s", floats(&|i| secs(r.jobs[i].checkpoint))),
            col("restart_s", floats(&|i| secs(r.jobs[i].restart))),
            col("ettr", maybe(&ettr)),
            col(
                "cost_usd",
                floats(&|i| round(out.job_usd.get(i).copied().unwrap_or(0.0), 4)),
            ),
            col(
                "reject_reason",
                Values::NullableText(
                    rows.iter()
                        .map(|&i| {
                            (r.jobs[i].outcome == JobOutcome::Rejected).then(|| {
                                super::csv_columns::reject_reason(out.reject_reasons, i).to_string()
                            })
                        })
                        .collect(),
                ),
            ),
            col("queue_delay_s", fig(&|x| Some(x.queue_delay_s))),
            col("run_s", fig(&|x| Some(x.run_s))),
            col("slowdown", fig(&|x| x.slowdown().map(|v| v.0))),
            col("bounded_slowdown", fig(&|x| Some(x.bounded_slowdown))),
            col("finish_time_fairness", fig(&|x| x.ftf().map(|v| v.0))),
            col("gpu_hours", fig(&|x| Some(x.gpu_hours))),
            col(
                "open_at_end",
                Values::NullableBool(rows.iter().map(|&i| figures[i].map(|x| x.open)).collect()),
            ),
        ]
        .into_iter()
        .chain(super::cloud_columns::columns(w, r, &rows))
        .collect(),
    }
}

/// The `pools` table: one row per pool (the columns of `pools.csv`).
pub fn pools(out: &RunOutput) -> Columns {
    let r = out.result;
    let n = r.pools.len();
    let ledger = out.ledger;
    let bills = ledger.by_pool_and_kind(n);
    let of = |p: usize, kind: Option<CostKind>| bills[p][kind.map_or(0, |k| k as usize + 1)];
    let hours = |ms: u128| ms as f64 / 3.6e6;
    let float = |f: &dyn Fn(usize) -> f64| Values::Float((0..n).map(f).collect());
    let dollars = |kind: CostKind| float(&|p| round(of(p, Some(kind)), 2));
    let availability = |p: usize| {
        let u = &r.pools[p];
        let node_ms = u.nodes as f64 * r.end.0 as f64;
        let down = r
            .faults
            .as_ref()
            .and_then(|f| f.down_node_ms.get(p))
            .copied()
            .unwrap_or(0) as f64;
        round(
            if node_ms > 0.0 {
                1.0 - down / node_ms
            } else {
                1.0
            },
            6,
        )
    };
    let text = |f: &dyn Fn(usize) -> String| Values::Text((0..n).map(f).collect());
    Columns {
        name: "pools",
        columns: vec![
            col("pool", text(&|p| r.pools[p].name.clone())),
            col("kind", text(&|p| r.pools[p].kind.as_str().to_string())),
            col(
                "gpu_type",
                text(&|p| out.pool_gpu_types.get(p).cloned().unwrap_or_default()),
            ),
            col(
                "nodes",
                Values::Int((0..n).map(|p| r.pools[p].nodes as i64).collect()),
            ),
            col(
                "gpus",
                Values::Int((0..n).map(|p| r.pools[p].gpus as i64).collect()),
            ),
            col(
                "provisioned_gpu_hours",
                float(&|p| round(hours(r.pools[p].provisioned_gpu_ms), 6)),
            ),
            col(
                "busy_gpu_hours",
                float(&|p| round(hours(r.pools[p].busy_gpu_ms), 6)),
            ),
            col(
                "utilization",
                float(&|p| {
                    let prov = hours(r.pools[p].provisioned_gpu_ms);
                    let busy = hours(r.pools[p].busy_gpu_ms);
                    round(if prov > 0.0 { busy / prov } else { 0.0 }, 6)
                }),
            ),
            col("cost_usd", float(&|p| round(of(p, None), 2))),
            col("busy_cost_usd", dollars(CostKind::BusyCompute)),
            col("idle_cost_usd", dollars(CostKind::IdleCompute)),
            col("availability", float(&availability)),
            col(
                "pricing",
                text(&|p| out.pool_pricing.get(p).cloned().unwrap_or_default()),
            ),
            col("unused_commitment_usd", dollars(CostKind::UnusedCommitment)),
            col("spot_usd", dollars(CostKind::Spot)),
            col("capital_usd", dollars(CostKind::Capital)),
            col("power_usd", dollars(CostKind::Power)),
            col("facility_usd", dollars(CostKind::Facility)),
            col("staff_usd", dollars(CostKind::Staff)),
            col("transfer_usd", dollars(CostKind::Transfer)),
            col(
                "usd_per_busy_gpu_hour",
                float(&|p| {
                    let busy = hours(r.pools[p].busy_gpu_ms);
                    round(if busy > 0.0 { of(p, None) / busy } else { 0.0 }, 4)
                }),
            ),
        ],
    }
}

/// The `timeline` table: one row per sample time and pool (the columns of
/// `timeline.csv`).
pub fn timeline(out: &RunOutput) -> Columns {
    let r = out.result;
    let rows: Vec<(usize, usize)> = r
        .timeline
        .iter()
        .enumerate()
        .flat_map(|(t, row)| (0..row.pools.len()).map(move |p| (t, p)))
        .collect();
    let float = |f: &dyn Fn(usize, usize) -> f64| {
        Values::Float(rows.iter().map(|&(t, p)| f(t, p)).collect())
    };
    let int = |f: &dyn Fn(usize, usize) -> u64| {
        Values::Int(rows.iter().map(|&(t, p)| f(t, p) as i64).collect())
    };
    let tl = &r.timeline;
    Columns {
        name: "timeline",
        columns: vec![
            col("time_s", float(&|t, _| secs(tl[t].time))),
            col("time_h", float(&|t, _| round(tl[t].time.hours_f64(), 6))),
            col(
                "pool",
                Values::Text(
                    rows.iter()
                        .map(|&(_, p)| r.pools.get(p).map(|u| u.name.clone()).unwrap_or_default())
                        .collect(),
                ),
            ),
            col(
                "busy_gpus",
                float(&|t, p| round(tl[t].pools[p].0 as f64 / 1000.0, 6)),
            ),
            col(
                "provisioned_gpus",
                float(&|t, p| round(tl[t].pools[p].1 as f64 / 1000.0, 6)),
            ),
            col("queued_jobs", int(&|t, _| tl[t].queued)),
            col("running_jobs", int(&|t, _| tl[t].running)),
            col(
                "nodes_up",
                int(&|t, p| tl[t].nodes.get(p).copied().unwrap_or(0)),
            ),
            col(
                "frag_gpus",
                float(&|t, p| {
                    round(
                        tl[t].frag_milli.get(p).copied().unwrap_or(0) as f64 / 1000.0,
                        6,
                    )
                }),
            ),
        ],
    }
}

/// A table read back as text (a sweep's `runs.csv` or `points.csv`), typed column by
/// column: `int64` when every non-empty cell is an integer, `float64` when every one is a
/// number (or when `float` says the column is a float whatever its cells), `string`
/// otherwise; empty cells are null.
pub fn infer(name: &'static str, t: &super::Table, float: impl Fn(&str) -> bool) -> Columns {
    let cell = |r: usize, c: usize| t.rows[r].get(c).map(String::as_str).unwrap_or("");
    let columns = t
        .headers
        .iter()
        .enumerate()
        .map(|(c, h)| {
            let cells = || (0..t.rows.len()).map(|r| cell(r, c));
            let full = cells().all(|x| !x.is_empty());
            let ints = cells().all(|x| x.is_empty() || x.parse::<i64>().is_ok());
            let nums = cells().all(|x| x.is_empty() || x.parse::<f64>().is_ok());
            let values = if ints && full && !float(h) {
                Values::Int(cells().map(|x| x.parse().unwrap_or(0)).collect())
            } else if nums && full {
                Values::Float(cells().map(|x| x.parse().unwrap_or(0.0)).collect())
            } else if nums {
                Values::NullableFloat(cells().map(|x| x.parse().ok()).collect())
            } else if full {
                Values::Text(cells().map(String::from).collect())
            } else {
                Values::NullableText(
                    cells()
                        .map(|x| (!x.is_empty()).then(|| x.to_string()))
                        .collect(),
                )
            };
            col(h, values)
        })
        .collect();
    Columns { name, columns }
}

/// The three tables of a run, in file order.
pub fn run_tables(out: &RunOutput) -> [Columns; 3] {
    [jobs(out), pools(out), timeline(out)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_matches_the_decimal_text() {
        // The CSV writes {:.d} (exact decimal rounding); the double parsed from that text
        // must be the one the column holds.
        for (x, d) in [
            (0.1234565, 6),
            (2.0 / 3.0, 6),
            (1e-7, 6),
            (12345.6789012, 6),
            (0.5, 6),
            (2.675, 2),
            (1.005, 2),
            (98765.43215, 4),
            (1234567.8912345, 6),
            (-0.0000005, 6),
        ] {
            let text = format!("{x:.*}", d as usize);
            assert_eq!(round(x, d), text.parse::<f64>().unwrap(), "{x} to {d}");
        }
        assert_eq!(
            round(-1e-9, 6).to_bits(),
            0f64.to_bits(),
            "no negative zero"
        );
    }

    #[test]
    fn rounding_agrees_with_the_decimal_text_on_random_values() {
        // Oracle: the text the CSV writes, parsed. Values across magnitudes, and values
        // built to sit on a tie (k + 0.5 ulps away from a half) where scaling alone errs.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(17);
        for i in 0..200_000 {
            let d = [2, 4, 6][i % 3];
            let x = if i % 2 == 0 {
                rng.random::<f64>() * 10f64.powi(rng.random_range(-3..9))
            } else {
                (rng.random_range(0..10_000_000u64) as f64 + 0.5) / 10f64.powi(d)
            };
            let text = format!("{x:.*}", d as usize);
            assert_eq!(
                round(x, d),
                text.parse::<f64>().unwrap() + 0.0,
                "{x} to {d}"
            );
        }
    }

    #[test]
    fn inferred_types_follow_every_cell() {
        let t = super::super::Table {
            headers: ["run", "policy", "wait", "gap", "mean"]
                .map(String::from)
                .to_vec(),
            rows: vec![
                ["0", "fifo", "12", "", "3"].map(String::from).to_vec(),
                ["1", "sjf", "2.5", "1", "4"].map(String::from).to_vec(),
            ],
        };
        let c = infer("runs", &t, |h| h == "mean");
        assert_eq!(c.get("run"), Some(&Values::Int(vec![0, 1])));
        assert_eq!(c.get("policy").map(Values::type_name), Some("string"));
        // One cell with a decimal point makes the whole column float64.
        assert_eq!(c.get("wait"), Some(&Values::Float(vec![12.0, 2.5])));
        assert_eq!(
            c.get("gap"),
            Some(&Values::NullableFloat(vec![None, Some(1.0)]))
        );
        assert_eq!(c.get("mean"), Some(&Values::Float(vec![3.0, 4.0])));
    }

    #[test]
    fn seconds_are_milliseconds_over_1000() {
        assert_eq!(secs(SimTime(2_507_592_365)), 2_507_592.365);
        assert_eq!(secs(SimTime(0)), 0.0);
    }
}
