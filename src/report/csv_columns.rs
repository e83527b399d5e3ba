//! The columns of a run's tables (`jobs.csv`, `pools.csv`, `timeline.csv`), as data: one
//! line per column, name, type and how a row gives its value (new columns go at the end). Adding a column is one line
//! here (its figure computed where it belongs, in the job record or the summary) and one
//! row in `docs/outputs.md`; the CSV writer (and any other writer) takes the list as is.

use super::csv_out::{Cell, Column, ColumnType};
use crate::engine::SimTime;
use crate::model::{GpuRequest, Job};
use crate::sim::{JobOutcome, JobRecord, TimelineRow};

use ColumnType::{Float, Int, Text};

/// What every job row reads besides its own job and record.
pub struct JobContext<'a> {
    /// Tenant names (`Job::tenant` indexes them).
    pub tenants: &'a [String],
    /// Pool names, in pool order.
    pub pool_names: &'a [&'a str],
    /// Dollars attributed to each job.
    pub job_usd: &'a [f64],
    /// When the run stopped.
    pub end: SimTime,
    /// Why each rejected job could not run: (job index, reason), by index.
    pub reject_reasons: &'a [(u32, String)],
    /// Job class names (`Job::tags.class` indexes them).
    pub classes: &'a [String],
    /// Dataset names (`Job::tags.dataset` indexes them).
    pub datasets: &'a [String],
    /// The cloud model's per-job figures, when the run had it.
    pub cloud: Option<&'a crate::sim::CloudResult>,
}

/// One row of `jobs.csv`.
pub struct JobRow<'a> {
    /// The job's index in submit order.
    pub index: usize,
    /// The job.
    pub job: &'a Job,
    /// What happened to it.
    pub rec: &'a JobRecord,
    /// The rest of the run.
    pub ctx: &'a JobContext<'a>,
    /// Its research figures (none for a rejected job).
    pub fig: Option<crate::metrics::JobFigures>,
}

fn opt_secs(t: Option<SimTime>) -> Cell<'static> {
    t.map_or(Cell::Empty, Cell::Secs)
}

/// The columns of `jobs.csv`, in order.
pub fn job_columns<'a>() -> Vec<Column<JobRow<'a>>> {
    vec![
        Column::new("job_id", Int, |r| Cell::Int(r.index as i64)),
        Column::new("name", Text, |r| Cell::Text(&r.job.name)),
        Column::new("tenant", Text, |r| {
            Cell::Text(
                r.ctx
                    .tenants
                    .get(r.job.tenant as usize)
                    .map_or("", String::as_str),
            )
        }),
        Column::new("submit_s", Float, |r| Cell::Secs(r.job.submit)),
        Column::new("gpus", Float, |r| match r.job.gpus {
            GpuRequest::None => Cell::Float(0.0),
            other => Cell::Float(other.gpus_f64()),
        }),
        Column::new("start_s", Float, |r| opt_secs(r.rec.start)),
        Column::new("end_s", Float, |r| opt_secs(r.rec.end)),
        Column::new("wait_s", Float, |r| {
            opt_secs(r.rec.start.map(|s| s.since(r.job.submit)))
        }),
        Column::new("jct_s", Float, |r| match (r.rec.outcome, r.rec.end) {
            (JobOutcome::Completed, Some(e)) => Cell::Secs(e.since(r.job.submit)),
            _ => Cell::Empty,
        }),
        Column::new("pool", Text, |r| match r.rec.pool {
            Some(p) => Cell::Text(r.ctx.pool_names.get(p as usize).copied().unwrap_or("")),
            None => Cell::Empty,
        }),
        Column::new("gpus_held", Float, |r| {
            Cell::Float(r.rec.gpu_milli as f64 / 1000.0)
        }),
        Column::new("nodes", Int, |r| Cell::Int(r.rec.nodes as i64)),
        Column::new("outcome", Text, |r| Cell::Text(r.rec.outcome.as_str())),
        Column::new("preemptions", Int, |r| Cell::Int(r.rec.preemptions as i64)),
        Column::new("restarts", Int, |r| Cell::Int(r.rec.restarts as i64)),
        Column::new("useful_s", Float, |r| Cell::Secs(r.rec.useful)),
        Column::new("lost_s", Float, |r| Cell::Secs(r.rec.lost)),
        Column::new("checkpoint_s", Float, |r| Cell::Secs(r.rec.checkpoint)),
        Column::new("restart_s", Float, |r| Cell::Secs(r.rec.restart)),
        Column::new("ettr", Float, |r| match r.rec.start {
            Some(s) => {
                let wall = r.rec.end.unwrap_or(r.ctx.end).since(s).0;
                Cell::Float(if wall > 0 {
                    r.rec.useful.0 as f64 / wall as f64
                } else {
                    0.0
                })
            }
            None => Cell::Empty,
        }),
        Column::new("cost_usd", Float, |r| {
            Cell::Fixed(r.ctx.job_usd.get(r.index).copied().unwrap_or(0.0), 4)
        }),
        Column::new("reject_reason", Text, |r| {
            if r.rec.outcome != JobOutcome::Rejected {
                return Cell::Empty;
            }
            Cell::Text(reject_reason(r.ctx.reject_reasons, r.index))
        }),
        Column::new("queue_delay_s", Float, |r| {
            fig(r, |x| Some(x.queue_delay_s))
        }),
        Column::new("run_s", Float, |r| fig(r, |x| Some(x.run_s))),
        Column::new("slowdown", Float, |r| fig(r, |x| x.slowdown().map(|v| v.0))),
        Column::new("bounded_slowdown", Float, |r| {
            fig(r, |x| Some(x.bounded_slowdown))
        }),
        Column::new("finish_time_fairness", Float, |r| {
            fig(r, |x| x.ftf().map(|v| v.0))
        }),
        Column::new("gpu_hours", Float, |r| fig(r, |x| Some(x.gpu_hours))),
        Column::new("open_at_end", Text, |r| match figure(r) {
            Some(x) if x.open => Cell::Text("true"),
            Some(_) => Cell::Text("false"),
            None => Cell::Empty,
        }),
    ]
}

fn figure<'r>(r: &'r JobRow) -> Option<&'r crate::metrics::JobFigures> {
    r.fig.as_ref()
}

fn fig(r: &JobRow, value: impl Fn(&crate::metrics::JobFigures) -> Option<f64>) -> Cell<'static> {
    figure(r).and_then(value).map_or(Cell::Empty, Cell::Float)
}

fn cloud_job(r: &JobRow) -> crate::sim::JobCloud {
    r.ctx
        .cloud
        .and_then(|c| c.jobs.get(r.index).copied())
        .unwrap_or_default()
}

fn ran(r: &JobRow) -> bool {
    r.rec.start.is_some()
}

/// The cloud columns of `jobs.csv` (after the others), present only when the run had the
/// cloud model: `class` with job classes, the dataset columns with datasets, the spread
/// columns with fabrics or a throughput table.
pub fn cloud_job_columns<'a>(
    has_classes: bool,
    data: bool,
    spread: bool,
) -> Vec<Column<JobRow<'a>>> {
    let mut v = Vec::new();
    if has_classes {
        v.push(Column::new("class", Text, |r: &JobRow| {
            r.job
                .tags
                .class
                .and_then(|k| r.ctx.classes.get(k as usize))
                .map_or(Cell::Text(""), |s| Cell::Text(s))
        }));
    }
    if data {
        v.push(Column::new("dataset", Text, |r: &JobRow| {
            r.job
                .tags
                .dataset
                .and_then(|k| r.ctx.datasets.get(k as usize))
                .map_or(Cell::Text(""), |s| Cell::Text(s))
        }));
        v.push(Column::new("staged_gb", Float, |r: &JobRow| {
            Cell::Float(cloud_job(r).staged_gb)
        }));
        v.push(Column::new("staging_s", Float, |r: &JobRow| {
            Cell::Secs(cloud_job(r).staging)
        }));
        v.push(Column::new("transfer_usd", Float, |r: &JobRow| {
            Cell::Fixed(cloud_job(r).transfer_usd, 4)
        }));
    }
    if spread {
        v.push(Column::new("racks", Int, |r: &JobRow| {
            if ran(r) {
                Cell::Int(cloud_job(r).racks as i64)
            } else {
                Cell::Empty
            }
        }));
        v.push(Column::new("speed_factor", Float, |r: &JobRow| {
            if ran(r) {
                Cell::Float(cloud_job(r).speed_factor)
            } else {
                Cell::Empty
            }
        }));
        v.push(Column::new("speed", Float, |r: &JobRow| {
            if ran(r) {
                Cell::Float(cloud_job(r).speed)
            } else {
                Cell::Empty
            }
        }));
    }
    v
}

/// Why rejected job `index` could not run, from `reasons` ((job index, reason), sorted by
/// index); a rejection without a recorded reason is one no eligible pool can ever hold.
pub fn reject_reason(reasons: &[(u32, String)], index: usize) -> &str {
    match reasons.binary_search_by_key(&(index as u32), |x| x.0) {
        Ok(k) => &reasons[k].1,
        Err(_) => "no eligible pool can ever hold it",
    }
}

/// One row of `pools.csv`: a pool's figures, computed once.
pub struct PoolRow {
    /// Pool name.
    pub pool: String,
    /// Capacity kind.
    pub kind: &'static str,
    /// GPU type name.
    pub gpu_type: String,
    /// Nodes (an elastic pool: its maximum).
    pub nodes: u32,
    /// GPUs.
    pub gpus: u64,
    /// GPU-hours provisioned.
    pub provisioned_gpu_hours: f64,
    /// GPU-hours busy.
    pub busy_gpu_hours: f64,
    /// Share of node-time the nodes were up.
    pub availability: f64,
    /// Pricing model name.
    pub pricing: String,
    /// Cost in total, then by kind: busy compute, idle compute, unused commitment, spot,
    /// capital, power, facility, staff, transfer.
    pub usd: [f64; 10],
}

/// The columns of `pools.csv`, in order.
pub fn pool_columns() -> Vec<Column<PoolRow>> {
    vec![
        Column::new("pool", Text, |r| Cell::Text(&r.pool)),
        Column::new("kind", Text, |r| Cell::Text(r.kind)),
        Column::new("gpu_type", Text, |r| Cell::Text(&r.gpu_type)),
        Column::new("nodes", Int, |r| Cell::Int(r.nodes as i64)),
        Column::new("gpus", Int, |r| Cell::Int(r.gpus as i64)),
        Column::new("provisioned_gpu_hours", Float, |r| {
            Cell::Float(r.provisioned_gpu_hours)
        }),
        Column::new("busy_gpu_hours", Float, |r| Cell::Float(r.busy_gpu_hours)),
        Column::new("utilization", Float, |r| {
            Cell::Float(if r.provisioned_gpu_hours > 0.0 {
                r.busy_gpu_hours / r.provisioned_gpu_hours
            } else {
                0.0
            })
        }),
        Column::new("cost_usd", Float, |r| Cell::Fixed(r.usd[0], 2)),
        Column::new("busy_cost_usd", Float, |r| Cell::Fixed(r.usd[1], 2)),
        Column::new("idle_cost_usd", Float, |r| Cell::Fixed(r.usd[2], 2)),
        Column::new("availability", Float, |r| Cell::Float(r.availability)),
        Column::new("pricing", Text, |r| Cell::Text(&r.pricing)),
        Column::new("unused_commitment_usd", Float, |r| Cell::Fixed(r.usd[3], 2)),
        Column::new("spot_usd", Float, |r| Cell::Fixed(r.usd[4], 2)),
        Column::new("capital_usd", Float, |r| Cell::Fixed(r.usd[5], 2)),
        Column::new("power_usd", Float, |r| Cell::Fixed(r.usd[6], 2)),
        Column::new("facility_usd", Float, |r| Cell::Fixed(r.usd[7], 2)),
        Column::new("staff_usd", Float, |r| Cell::Fixed(r.usd[8], 2)),
        Column::new("transfer_usd", Float, |r| Cell::Fixed(r.usd[9], 2)),
        Column::new("usd_per_busy_gpu_hour", Float, |r| {
            Cell::Fixed(
                if r.busy_gpu_hours > 0.0 {
                    r.usd[0] / r.busy_gpu_hours
                } else {
                    0.0
                },
                4,
            )
        }),
    ]
}

/// One row of `timeline.csv`: one pool at one sample time.
pub struct TimelineCell<'a> {
    /// The sample.
    pub row: &'a TimelineRow,
    /// The pool's index.
    pub pool: usize,
    /// The pool's name.
    pub name: &'a str,
}

/// The columns of `timeline.csv`, in order.
pub fn timeline_columns<'a>() -> Vec<Column<TimelineCell<'a>>> {
    vec![
        Column::new("time_s", Float, |r| Cell::Secs(r.row.time)),
        Column::new("time_h", Float, |r| Cell::Float(r.row.time.hours_f64())),
        Column::new("pool", Text, |r| Cell::Text(r.name)),
        Column::new("busy_gpus", Float, |r| {
            Cell::Float(r.row.pools.get(r.pool).map_or(0, |x| x.0) as f64 / 1000.0)
        }),
        Column::new("provisioned_gpus", Float, |r| {
            Cell::Float(r.row.pools.get(r.pool).map_or(0, |x| x.1) as f64 / 1000.0)
        }),
        Column::new("queued_jobs", Int, |r| Cell::Int(r.row.queued as i64)),
        Column::new("running_jobs", Int, |r| Cell::Int(r.row.running as i64)),
        Column::new("nodes_up", Int, |r| {
            Cell::Int(r.row.nodes.get(r.pool).copied().unwrap_or(0) as i64)
        }),
        Column::new("frag_gpus", Float, |r| {
            Cell::Float(r.row.frag_milli.get(r.pool).copied().unwrap_or(0) as f64 / 1000.0)
        }),
    ]
}
