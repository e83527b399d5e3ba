//! Writing a run's folder.

use crate::engine::SimTime;
use crate::metrics::Summary;
use crate::model::{GpuRequest, Workload};
use crate::pricing::{CostKind, Ledger};
use crate::sim::RunResult;
use std::io::Write;
use std::path::Path;

/// Everything a run folder is made from.
pub struct RunOutput<'a> {
    /// The workload run.
    pub workload: &'a Workload,
    /// Its result.
    pub result: &'a RunResult,
    /// The summary.
    pub summary: &'a Summary,
    /// The ledger.
    pub ledger: &'a Ledger,
    /// GPU type name per pool.
    pub pool_gpu_types: Vec<String>,
    /// Dollars attributed to each job (indexed like the workload).
    pub job_usd: &'a [f64],
    /// Pricing model name per pool.
    pub pool_pricing: Vec<String>,
}

/// Writes `bytes` to `path` through a temporary file and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

/// Seconds with millisecond precision, without trailing zeros but always with a decimal
/// point ("12.0", "0.5"), so a reader that infers types takes the column as floats.
pub fn secs(t: SimTime) -> String {
    with_point(t.secs_text())
}

/// `s` (a number's text) with ".0" appended when it has no decimal point: every float a
/// CSV table holds is written as a float, whole or not ("3.0", never "3").
fn with_point(mut s: String) -> String {
    if !s.contains(['.', 'e', 'E', 'N', 'n']) {
        s.push_str(".0");
    }
    s
}

/// A float to at most 6 decimals, trailing zeros dropped down to one ("0.5", "2.0").
fn f(x: f64) -> String {
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0');
    match s {
        "-0." => "0.0".to_string(),
        _ if s.ends_with('.') => format!("{s}0"),
        _ => s.to_string(),
    }
}

/// Dollars to the cent, never "-0.00".
fn cents(x: f64) -> String {
    let s = format!("{x:.2}");
    if s == "-0.00" {
        "0.00".to_string()
    } else {
        s
    }
}

fn csv_bytes(header: &[&str], rows: impl Iterator<Item = Vec<String>>) -> std::io::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header)?;
    for r in rows {
        w.write_record(&r)?;
    }
    w.into_inner()
        .map_err(|e| std::io::Error::other(e.to_string()))
}

/// Writes the run folder `dir` (created if needed).
pub fn write_run(dir: &Path, out: &RunOutput) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut json = serde_json::to_vec_pretty(out.summary).map_err(std::io::Error::other)?;
    json.push(b'\n');
    write_atomic(&dir.join("summary.json"), &json)?;

    let w = out.workload;
    let r = out.result;
    let pool_names: Vec<&str> = r.pools.iter().map(|p| p.name.as_str()).collect();
    let opts = crate::metrics::MetricsOptions {
        slowdown_bound: SimTime::from_secs_f64(out.summary.research.slowdown_bound_s),
    };
    let table = crate::metrics::job_table(w, r, &opts);
    let mut figures = table.jobs.iter().peekable();
    let mut header = vec![
        "job_id",
        "name",
        "tenant",
        "submit_s",
        "gpus",
        "start_s",
        "end_s",
        "wait_s",
        "jct_s",
        "pool",
        "gpus_held",
        "nodes",
        "outcome",
        "preemptions",
        "restarts",
        "useful_s",
        "lost_s",
        "checkpoint_s",
        "restart_s",
        "ettr",
        "cost_usd",
        "queue_delay_s",
        "run_s",
        "slowdown",
        "bounded_slowdown",
        "finish_time_fairness",
        "gpu_hours",
        "open_at_end",
    ];
    header.extend(crate::report::cloud_columns::header(w, r));
    let jobs = csv_bytes(
        &header,
        w.jobs
            .iter()
            .zip(&r.jobs)
            .enumerate()
            .filter(|(_, (_, rec))| rec.submitted)
            .map(|(i, (j, rec))| {
                // The job's research figures (none for a rejected job), in job order.
                let fig = figures.next_if(|f| f.job as usize == i);
                let gpus = match j.gpus {
                    GpuRequest::None => "0.0".to_string(),
                    other => f(other.gpus_f64()),
                };
                let mut row = vec![
                    i.to_string(),
                    j.name.clone(),
                    w.tenants
                        .get(j.tenant as usize)
                        .cloned()
                        .unwrap_or_default(),
                    secs(j.submit),
                    gpus,
                    rec.start.map(secs).unwrap_or_default(),
                    rec.end.map(secs).unwrap_or_default(),
                    rec.start
                        .map(|s| secs(s.since(j.submit)))
                        .unwrap_or_default(),
                    match (rec.outcome, rec.end) {
                        (crate::sim::JobOutcome::Completed, Some(e)) => secs(e.since(j.submit)),
                        _ => String::new(),
                    },
                    rec.pool
                        .map(|p| pool_names[p as usize].to_string())
                        .unwrap_or_default(),
                    f(rec.gpu_milli as f64 / 1000.0),
                    rec.nodes.to_string(),
                    rec.outcome.as_str().to_string(),
                    rec.preemptions.to_string(),
                    rec.restarts.to_string(),
                    secs(rec.useful),
                    secs(rec.lost),
                    secs(rec.checkpoint),
                    secs(rec.restart),
                    match rec.start {
                        Some(s) => {
                            let wall = rec.end.unwrap_or(r.end).since(s).0;
                            f(if wall > 0 {
                                rec.useful.0 as f64 / wall as f64
                            } else {
                                0.0
                            })
                        }
                        None => String::new(),
                    },
                    format!("{:.4}", out.job_usd.get(i).copied().unwrap_or(0.0) + 0.0),
                ];
                match fig {
                    Some(x) => {
                        let opt = |v: Option<(f64, bool)>| v.map(|v| f(v.0)).unwrap_or_default();
                        row.extend([
                            f(x.queue_delay_s),
                            f(x.run_s),
                            opt(x.slowdown()),
                            f(x.bounded_slowdown),
                            opt(x.ftf()),
                            f(x.gpu_hours),
                            x.open.to_string(),
                        ]);
                    }
                    None => row.extend(std::iter::repeat_n(String::new(), 7)),
                }
                row.extend(crate::report::cloud_columns::row(w, r, i));
                row
            }),
    )?;
    write_atomic(&dir.join("jobs.csv"), &jobs)?;

    let ledger = out.ledger;
    let pools = csv_bytes(
        &[
            "pool",
            "kind",
            "gpu_type",
            "nodes",
            "gpus",
            "provisioned_gpu_hours",
            "busy_gpu_hours",
            "utilization",
            "cost_usd",
            "busy_cost_usd",
            "idle_cost_usd",
            "availability",
            "pricing",
            "unused_commitment_usd",
            "spot_usd",
            "capital_usd",
            "power_usd",
            "facility_usd",
            "staff_usd",
            "transfer_usd",
            "usd_per_busy_gpu_hour",
        ],
        r.pools.iter().enumerate().map(|(p, u)| {
            // Share of node-time the pool's nodes were up (failures and maintenance take
            // nodes down).
            let node_ms = u.nodes as f64 * r.end.0 as f64;
            let down = r
                .faults
                .as_ref()
                .and_then(|f| f.down_node_ms.get(p))
                .copied()
                .unwrap_or(0) as f64;
            let availability = if node_ms > 0.0 {
                1.0 - down / node_ms
            } else {
                1.0
            };
            let prov = u.provisioned_gpu_ms as f64 / 3.6e6;
            let busy = u.busy_gpu_ms as f64 / 3.6e6;
            let of = |kind: Option<CostKind>| {
                ledger.sum_where(|k| k.pool == p as u32 && kind.is_none_or(|x| k.kind == x))
            };
            vec![
                u.name.clone(),
                u.kind.as_str().to_string(),
                out.pool_gpu_types.get(p).cloned().unwrap_or_default(),
                u.nodes.to_string(),
                u.gpus.to_string(),
                f(prov),
                f(busy),
                f(if prov > 0.0 { busy / prov } else { 0.0 }),
                cents(of(None)),
                cents(of(Some(CostKind::BusyCompute))),
                cents(of(Some(CostKind::IdleCompute))),
                f(availability),
                out.pool_pricing.get(p).cloned().unwrap_or_default(),
                cents(of(Some(CostKind::UnusedCommitment))),
                cents(of(Some(CostKind::Spot))),
                cents(of(Some(CostKind::Capital))),
                cents(of(Some(CostKind::Power))),
                cents(of(Some(CostKind::Facility))),
                cents(of(Some(CostKind::Staff))),
                cents(of(Some(CostKind::Transfer))),
                format!("{:.4}", if busy > 0.0 { of(None) / busy } else { 0.0 }),
            ]
        }),
    )?;
    write_atomic(&dir.join("pools.csv"), &pools)?;

    let pool_names = &pool_names;
    let timeline = csv_bytes(
        &[
            "time_s",
            "time_h",
            "pool",
            "busy_gpus",
            "provisioned_gpus",
            "queued_jobs",
            "running_jobs",
            "nodes_up",
            "frag_gpus",
        ],
        r.timeline.iter().flat_map(|row| {
            row.pools.iter().enumerate().map(move |(p, &(busy, prov))| {
                vec![
                    secs(row.time),
                    f(row.time.hours_f64()),
                    pool_names[p].to_string(),
                    f(busy as f64 / 1000.0),
                    f(prov as f64 / 1000.0),
                    row.queued.to_string(),
                    row.running.to_string(),
                    row.nodes.get(p).copied().unwrap_or(0).to_string(),
                    f(row.frag_milli.get(p).copied().unwrap_or(0) as f64 / 1000.0),
                ]
            })
        }),
    )?;
    write_atomic(&dir.join("timeline.csv"), &timeline)?;
    super::plot_run_dir(dir).map_err(std::io::Error::other)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_always_carry_a_decimal_point() {
        // Whole values are where type inference goes wrong: "3" reads as an integer.
        assert_eq!(f(3.0), "3.0");
        assert_eq!(f(0.0), "0.0");
        assert_eq!(f(-0.0), "0.0");
        assert_eq!(f(-1e-9), "0.0");
        assert_eq!(f(0.5), "0.5");
        assert_eq!(f(1.0 / 3.0), "0.333333");
        assert_eq!(f(-2.25), "-2.25");
        assert_eq!(f(1e20), "100000000000000000000.0");
        assert_eq!(secs(SimTime(12_000)), "12.0");
        assert_eq!(secs(SimTime(0)), "0.0");
        assert_eq!(secs(SimTime(2_507_592_365)), "2507592.365");
        assert_eq!(secs(SimTime(500)), "0.5");
    }
}
