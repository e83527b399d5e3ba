//! A deadline job as a scenario describes it, run over a spot availability trace at
//! evenly spaced start ticks.

use super::{compare_all, DeadlineProblem};
use crate::engine::SimTime;
use crate::pricing::{
    read_availability_csv, read_gcp_probes, read_spot_price_json, AvailabilityTrace, SpotPrice,
    SpotTraceError,
};
use std::path::PathBuf;

/// Where spot prices come from.
#[derive(Debug, Clone, PartialEq)]
pub enum DeadlinePrices {
    /// One spot price per hour.
    Constant(f64),
    /// Per-tick prices from a JSON file of `zone -> [price, ...]` aligned with the trace.
    Trace {
        /// The JSON file.
        path: PathBuf,
        /// The zone's key.
        zone: String,
    },
}

/// A validated `[spot_deadline]` section.
#[derive(Debug, Clone, PartialEq)]
pub struct DeadlineSpec {
    /// The availability trace: a `date,availability` CSV, or a GCP probe CSV when
    /// `trace_zone` names the zone to read (spot counts as there when any instance launched).
    pub trace: PathBuf,
    /// Zone of a GCP probe CSV.
    pub trace_zone: Option<String>,
    /// Work (on one instance).
    pub work: SimTime,
    /// Deadline from the job's start.
    pub deadline: SimTime,
    /// Changeover delay per instance start (default 0.2 h).
    pub changeover: SimTime,
    /// On-demand dollars per hour.
    pub on_demand_per_hour: f64,
    /// Spot prices.
    pub prices: DeadlinePrices,
    /// Start ticks to try, evenly spaced over the trace.
    pub starts: u32,
    /// AWS rule: spot interrupted within its first hour is free.
    pub first_hour_free: bool,
}

/// One row of `spot_deadline.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct DeadlineRow {
    /// Start tick in the trace.
    pub start_tick: usize,
    /// Policy.
    pub policy: &'static str,
    /// Dollars paid.
    pub cost_usd: f64,
    /// True if the deadline was met.
    pub met: bool,
    /// Hours from start to done (the deadline when missed; for the optimum, the deadline).
    pub finished_h: f64,
    /// Hours on spot.
    pub spot_h: f64,
    /// Hours on on-demand.
    pub on_demand_h: f64,
}

/// Ticks in `t` at `tick` (rounded to nearest).
pub fn ticks(t: SimTime, tick: SimTime) -> u32 {
    ((t.0 as f64) / (tick.0.max(1) as f64)).round() as u32
}

/// Builds the problem starting at `start` over `avail` and per-tick spot dollars.
pub fn problem_at(
    spec: &DeadlineSpec,
    avail: &[bool],
    spot_per_tick: &[f64],
    tick: SimTime,
    start: usize,
) -> DeadlineProblem {
    let deadline = ticks(spec.deadline, tick);
    let end = (start + deadline as usize).min(avail.len());
    DeadlineProblem {
        spot_up: avail[start.min(end)..end].to_vec(),
        spot_cost: spot_per_tick[start.min(end)..end].to_vec(),
        od_cost: spec.on_demand_per_hour * tick.hours_f64(),
        work: ticks(spec.work, tick).max(1),
        deadline,
        changeover: ticks(spec.changeover, tick),
        first_hour_free: spec.first_hour_free,
        hour_ticks: ticks(SimTime::from_secs(3600), tick).max(1),
    }
}

/// Reads the spec's availability trace in its format.
pub fn read_trace(spec: &DeadlineSpec) -> Result<AvailabilityTrace, SpotTraceError> {
    match &spec.trace_zone {
        Some(zone) => read_gcp_probes(&spec.trace, zone),
        None => read_availability_csv(&spec.trace),
    }
}

/// The trace of a spec read and checked: availability and per-tick spot dollars, the
/// tick, the ticks a start leaves room for and the number of starts.
struct Prepared {
    avail: Vec<bool>,
    prices: Vec<f64>,
    tick: SimTime,
    room: usize,
    starts: usize,
}

/// Checks `spec` against its files without running it: `Err` for a trace or price file
/// that does not fit it (the file and line named), `Ok(Some(why))` when the omniscient
/// optimum would take more than [`super::optimum::MAX_OPTIMUM_STEPS`] steps (so
/// `validate` refuses what `run` would only refuse after simulating the scenario).
pub fn preflight(spec: &DeadlineSpec) -> Result<Option<String>, SpotTraceError> {
    let p = prepare(spec)?;
    Ok(too_many_steps(spec, &p))
}

/// The message when the optimum over `p`'s starts would take too many steps.
fn too_many_steps(spec: &DeadlineSpec, p: &Prepared) -> Option<String> {
    let k = p.starts;
    let steps = super::optimum::optimum_steps(&problem_at(spec, &p.avail, &p.prices, p.tick, 0));
    (steps * k as f64 > super::optimum::MAX_OPTIMUM_STEPS).then(|| {
        format!(
            "the omniscient optimum over {k} start(s) would take about {:.1e} steps (deadline x work x (changeover + first hour), in ticks of {} s), more than {:.0e}: use a shorter changeover or deadline, fewer starts, or a coarser trace",
            steps * k as f64,
            p.tick.secs_text(),
            super::optimum::MAX_OPTIMUM_STEPS
        )
    })
}

/// Reads `spec`'s trace and prices and checks they cover its deadline.
fn prepare(spec: &DeadlineSpec) -> Result<Prepared, SpotTraceError> {
    let trace = read_trace(spec)?;
    let tick = trace.tick();
    let n = trace.len();
    let avail: Vec<bool> = (0..n).map(|k| trace.up(k)).collect();
    let prices: Vec<f64> = match &spec.prices {
        DeadlinePrices::Constant(p) => vec![p * tick.hours_f64(); n],
        DeadlinePrices::Trace { path, zone } => {
            let sp = read_spot_price_json(path, zone, tick)?;
            match sp {
                SpotPrice::Trace { prices, .. } => {
                    if prices.len() != n {
                        return Err(SpotTraceError::Row {
                            file: path.display().to_string(),
                            line: 1,
                            field: zone.clone(),
                            message: format!(
                                "{} prices for {} availability ticks in {}",
                                prices.len(),
                                n,
                                spec.trace.display()
                            ),
                        });
                    }
                    prices.iter().map(|p| p * tick.hours_f64()).collect()
                }
                SpotPrice::Constant(p) => vec![p * tick.hours_f64(); n],
            }
        }
    };
    let span = ticks(spec.deadline, tick) as usize;
    if span > n {
        return Err(SpotTraceError::Row {
            file: spec.trace.display().to_string(),
            line: 1,
            field: "date".into(),
            message: format!("the trace is shorter ({n} ticks) than the deadline ({span} ticks)"),
        });
    }
    let room = n - span;
    // More starts than ticks to start at would repeat starts.
    let starts = (spec.starts.max(1) as usize).min(room + 1);
    Ok(Prepared {
        avail,
        prices,
        tick,
        room,
        starts,
    })
}

/// Runs every policy at `spec.starts` start ticks spread over the trace (each leaving a
/// full deadline of trace after it).
pub fn run_spec(spec: &DeadlineSpec) -> Result<Vec<DeadlineRow>, SpotTraceError> {
    let prep = prepare(spec)?;
    if let Some(message) = too_many_steps(spec, &prep) {
        return Err(SpotTraceError::Row {
            file: spec.trace.display().to_string(),
            line: 1,
            field: "spot_deadline".into(),
            message,
        });
    }
    let Prepared {
        avail,
        prices,
        tick,
        room,
        starts: k,
    } = prep;
    let mut rows = Vec::new();
    for i in 0..k {
        let start = if k == 1 { 0 } else { room * i / (k - 1) };
        let p = problem_at(spec, &avail, &prices, tick, start);
        let h = tick.hours_f64();
        for (name, o) in compare_all(&p) {
            rows.push(DeadlineRow {
                start_tick: start,
                policy: name,
                cost_usd: o.cost,
                met: o.met,
                finished_h: o.finished as f64 * h,
                spot_h: o.spot_ticks as f64 * h,
                on_demand_h: o.od_ticks as f64 * h,
            });
        }
    }
    Ok(rows)
}
