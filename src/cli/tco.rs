//! `gpufleet tco`: buy versus rent for a scenario's workload and the candidate fleets of its
//! `[tco]` section. The analytic path is instant (a demand profile, given or measured from
//! one run of the scenario); `--simulate` also runs the scenario on each candidate fleet
//! for its horizon (a representative period) and scales the cost to the TCO horizon.

use super::CliError;
use crate::engine::{RngStreams, SimTime};
use crate::model::{CapacityKind, PoolSpec};
use crate::pricing::{
    PoolPricing, PricingModel, Reservation, Reserved, Spot, SpotBilling, SpotPrice, TcoCandidate,
    TcoRow, TcoSpec, HOURS_PER_YEAR,
};
use crate::report::{tco_chart, write_atomic};
use crate::scenario::Scenario;
use anyhow::anyhow;
use std::path::{Path, PathBuf};

/// One candidate run through the simulator.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulatedTco {
    /// Candidate label.
    pub candidate: String,
    /// Dollars over the simulated period.
    pub period_usd: f64,
    /// Dollars scaled to the TCO horizon (rented parts follow the price path).
    pub total_usd: f64,
    /// NPV of the scaled costs.
    pub npv_usd: f64,
    /// Busy GPU-hours in the period.
    pub busy_gpu_hours: f64,
    /// Dollars per busy GPU-hour in the period.
    pub usd_per_busy_gpu_hour: f64,
    /// Wait p50 and p95, seconds.
    pub wait_p50_s: f64,
    /// Wait p95, seconds.
    pub wait_p95_s: f64,
    /// Jobs unfinished at the end of the period.
    pub unfinished: u64,
    /// Utilization.
    pub utilization: f64,
}

fn pools_for(
    template: &PoolSpec,
    spec: &TcoSpec,
    c: &TcoCandidate,
) -> Vec<(PoolSpec, PoolPricing)> {
    let pool = |name: &str, kind: CapacityKind, nodes: u32| PoolSpec {
        name: name.to_string(),
        kind,
        nodes,
        ..template.clone()
    };
    let od = PoolPricing::flat(spec.on_demand_per_node_hour);
    let owned = PoolPricing::Owned(spec.owned);
    let mut v = Vec::new();
    match *c {
        TcoCandidate::Buy { nodes } => v.push((pool("owned", CapacityKind::Owned, nodes), owned)),
        TcoCandidate::OnDemand { nodes } => {
            v.push((pool("on-demand", CapacityKind::OnDemand, nodes), od))
        }
        TcoCandidate::Reserve { years, nodes } => {
            let d = if years >= 3 {
                spec.reserved_discount_3y
            } else {
                spec.reserved_discount_1y
            };
            let r = Reservation::at_discount(
                nodes,
                years as f64 * HOURS_PER_YEAR,
                spec.on_demand_per_node_hour,
                d,
            );
            v.push((
                pool("reserved", CapacityKind::Reserved, nodes),
                PoolPricing::Reserved(Reserved {
                    reservation: r,
                    outside: spec.on_demand_per_node_hour,
                }),
            ))
        }
        TcoCandidate::Hybrid { owned: b, burst } => {
            v.push((pool("owned", CapacityKind::Owned, b), owned));
            v.push((pool("burst", CapacityKind::OnDemand, burst), od));
        }
        TcoCandidate::Spot { nodes, share } => {
            let s = (share * nodes as f64).round() as u32;
            v.push((
                pool("spot", CapacityKind::Spot, s),
                PoolPricing::Spot(Spot::new(
                    SpotPrice::Constant(spec.spot_per_node_hour),
                    SpotBilling::default(),
                )),
            ));
            v.push((pool("on-demand", CapacityKind::OnDemand, nodes - s), od));
        }
    }
    v.retain(|(p, _)| p.nodes > 0);
    v
}

/// Runs the scenario's workload on each candidate fleet (built from the scenario's first
/// pool's node type) and scales the period's cost to the horizon.
pub fn simulate(s: &Scenario, spec: &TcoSpec, seed: u64) -> Result<Vec<SimulatedTco>, CliError> {
    let workload = s
        .build_workload(seed)
        .map_err(|e| CliError::BadInput(anyhow!("{e}")))?;
    let template = s
        .sim
        .pools
        .first()
        .cloned()
        .ok_or_else(|| CliError::BadInput(anyhow!("the scenario has no pool")))?;
    let streams = RngStreams::new(seed);
    let mut out = Vec::new();
    for c in &spec.candidates {
        let pools = pools_for(&template, spec, c);
        if pools.is_empty() {
            continue;
        }
        let kinds: Vec<PoolPricing> = pools.iter().map(|(_, p)| p.clone()).collect();
        // The candidate fleet alone: no timeline, and the sections that name the original
        // pools (failures, savings plan, transfers) left out.
        let mut one = s.with_fleet(pools);
        one.sim.sample_every = None;
        one.faults = None;
        one.savings_plan = None;
        one.transfer = None;
        let e = crate::run::execute_workload(&one, workload.clone(), &streams);
        let (result, cost, sum) = (&e.result, &e.cost, &e.summary);
        let hours = result.end.hours_f64().max(1e-9);
        // Rented pools follow the price path; owned and reserved do not.
        let mut rented_per_h = 0.0;
        let mut fixed_per_h = 0.0;
        for (p, pr) in kinds.iter().enumerate() {
            let usd = cost.ledger.sum_where(|k| k.pool == p as u32) / hours;
            if pr.market_priced() {
                rented_per_h += usd;
            } else {
                fixed_per_h += usd;
            }
        }
        let (mut total, mut npv) = (0.0, 0.0);
        for (y, len) in spec.years() {
            let yr = len * HOURS_PER_YEAR * (fixed_per_h + rented_per_h * spec.price_factor(y));
            total += yr;
            npv += yr * spec.discount(y, len);
        }
        out.push(SimulatedTco {
            candidate: c.label(),
            period_usd: sum.cost_usd["total"],
            total_usd: total,
            npv_usd: npv,
            busy_gpu_hours: sum.gpu_hours.busy,
            usd_per_busy_gpu_hour: sum.cost_per_busy_gpu_hour_usd,
            wait_p50_s: sum.wait_s.p50,
            wait_p95_s: sum.wait_s.p95,
            unfinished: sum.jobs.unfinished,
            utilization: sum.utilization,
        });
    }
    Ok(out)
}

/// The demand profile (busy node-equivalents, share) measured from one run of the
/// scenario as written: each timeline sample weighs the same.
fn measured_demand(s: &Scenario, spec: &TcoSpec, seed: u64) -> Result<Vec<(f64, f64)>, CliError> {
    let workload = s
        .build_workload(seed)
        .map_err(|e| CliError::BadInput(anyhow!("{e}")))?;
    // The scenario as written, sampled hourly at least, without failures.
    let mut one = s.clone();
    one.sim.sample_every.get_or_insert(SimTime::from_secs(3600));
    one.faults = None;
    let e = crate::run::execute_workload(&one, workload, &RngStreams::new(seed));
    let r = &e.result;
    let n = r.timeline.len().max(1) as f64;
    let g = spec.gpus_per_node.max(1) as f64;
    Ok(r.timeline
        .iter()
        .map(|row| {
            let busy: u64 = row.pools.iter().map(|p| p.0).sum();
            (busy as f64 / 1000.0 / g, 1.0 / n)
        })
        .collect())
}

fn money(x: f64) -> String {
    if !x.is_finite() {
        "-".into()
    } else if x.abs() >= 1e6 {
        format!("${:.2}M", x / 1e6)
    } else {
        format!("${:.0}", x)
    }
}

/// `gpufleet tco FILE [--out DIR] [--simulate] [--seed N] [--json]`.
pub fn tco(
    path: &Path,
    out: Option<PathBuf>,
    simulate_too: bool,
    seed: Option<u64>,
    json: bool,
) -> Result<(), CliError> {
    // With --json, stdout gets one JSON object instead of the tables.
    macro_rules! say {
        ($($t:tt)*) => {
            if !json {
                println!($($t)*);
            }
        };
    }
    let s = Scenario::load(path).map_err(|e| {
        CliError::BadInput(anyhow!(
            "{}",
            super::run::rendered(&e, Some(path)).trim_end()
        ))
    })?;
    let spec = s.tco.clone().ok_or_else(|| {
        CliError::BadInput(anyhow!(
            "{}: no [tco] section; add one with horizon_years, gpus_per_node, owned and candidates (see README)",
            path.display()
        ))
    })?;
    let seed = seed.unwrap_or(s.seed);
    if let Some(first) = s.sim.pools.first() {
        if first.node.gpus as u32 != spec.gpus_per_node {
            return Err(CliError::BadInput(anyhow!(
                "{}: tco.gpus_per_node is {} but the first pool ({}) has {} GPUs per node; the candidates are built from that pool's nodes",
                path.display(),
                spec.gpus_per_node,
                first.name,
                first.node.gpus
            )));
        }
    }
    let (demand, source) = if spec.demand.is_empty() {
        (
            measured_demand(&s, &spec, seed)?,
            "measured from one run of the scenario",
        )
    } else {
        (spec.demand_nodes(), "from [tco].demand")
    };
    let rows = spec.analytic(&demand);
    say!(
        "gpufleet tco | scenario {} | horizon {} years | discount rate {:.1} % | rental price decline {:.0} %/year",
        s.name,
        spec.horizon_years,
        spec.discount_rate * 100.0,
        spec.price_decline_per_year * 100.0
    );
    say!("analytic path (demand profile {source}):");
    say!(
        "  {:<20} {:>12} {:>12} {:>10} {:>9} {:>9} {:>10}",
        "candidate",
        "total",
        "NPV",
        "$/GPU-h",
        "util",
        "unserved",
        "break-even"
    );
    for r in &rows {
        say!(
            "  {:<20} {:>12} {:>12} {:>10.3} {:>8.1}% {:>8.1}% {:>10}",
            r.candidate,
            money(r.total_usd),
            money(r.npv_usd),
            r.usd_per_useful_gpu_hour,
            r.utilization * 100.0,
            r.unserved_share * 100.0,
            r.break_even_utilization
                .map(|u| format!("{:.1}%", u * 100.0))
                .unwrap_or_else(|| "-".into())
        );
    }
    let sims = if simulate_too {
        let sims = simulate(&s, &spec, seed)?;
        let period = s.sim.horizon.map(|h| h.hours_f64() / 24.0);
        say!(
            "simulated path: each candidate ran the scenario's {} as a representative period, scaled to {} years (fixed-size pools: rented nodes are held, and paid, for the whole period):",
            period.map(|d| format!("{d:.1} days")).unwrap_or_else(|| "workload".into()),
            spec.horizon_years
        );
        say!(
            "  {:<20} {:>12} {:>12} {:>12} {:>10} {:>10} {:>10} {:>6}",
            "candidate",
            "period",
            "total",
            "NPV",
            "$/GPU-h",
            "wait p50",
            "wait p95",
            "unfin"
        );
        for r in &sims {
            say!(
                "  {:<20} {:>12} {:>12} {:>12} {:>10.3} {:>9.0}s {:>9.0}s {:>6}",
                r.candidate,
                money(r.period_usd),
                money(r.total_usd),
                money(r.npv_usd),
                r.usd_per_busy_gpu_hour,
                r.wait_p50_s,
                r.wait_p95_s,
                r.unfinished
            );
        }
        sims
    } else {
        Vec::new()
    };
    let dir = out.unwrap_or_else(|| PathBuf::from("out").join(format!("{}-tco", s.name)));
    std::fs::create_dir_all(&dir)
        .map_err(|e| CliError::Failure(anyhow!("creating {}: {e}", dir.display())))?;
    let csv = tco_csv(&rows, &sims).map_err(|e| CliError::Failure(anyhow!("tco.csv: {e}")))?;
    let w = |name: &str, bytes: &[u8]| {
        write_atomic(&dir.join(name), bytes)
            .map_err(|e| CliError::Failure(anyhow!("writing {name}: {e}")))
    };
    w("tco.csv", &csv)?;
    w("tco.svg", tco_chart(&spec, &s.name).as_bytes())?;
    if json {
        println!("{}", tco_json(&s.name, &spec, &rows, &sims, &dir));
    }
    say!("wrote {}", dir.display());
    Ok(())
}

/// The `--json` output: the analytic and simulated candidates with their figures.
fn tco_json(
    name: &str,
    spec: &TcoSpec,
    rows: &[TcoRow],
    sims: &[SimulatedTco],
    dir: &Path,
) -> serde_json::Value {
    let analytic: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "candidate": r.candidate,
                "total_usd": r.total_usd,
                "npv_usd": r.npv_usd,
                "useful_gpu_hours": r.useful_gpu_hours,
                "usd_per_useful_gpu_hour": r.usd_per_useful_gpu_hour,
                "utilization": r.utilization,
                "unserved_share": r.unserved_share,
                "break_even_utilization": r.break_even_utilization,
            })
        })
        .collect();
    let simulated: Vec<serde_json::Value> = sims
        .iter()
        .map(|r| {
            serde_json::json!({
                "candidate": r.candidate,
                "period_usd": r.period_usd,
                "total_usd": r.total_usd,
                "npv_usd": r.npv_usd,
                "busy_gpu_hours": r.busy_gpu_hours,
                "usd_per_busy_gpu_hour": r.usd_per_busy_gpu_hour,
                "wait_p50_s": r.wait_p50_s,
                "wait_p95_s": r.wait_p95_s,
                "unfinished_jobs": r.unfinished,
                "utilization": r.utilization,
            })
        })
        .collect();
    serde_json::json!({
        "scenario": name,
        "horizon_years": spec.horizon_years,
        "discount_rate": spec.discount_rate,
        "price_decline_per_year": spec.price_decline_per_year,
        "analytic": analytic,
        "simulated": simulated,
        "out": dir.display().to_string(),
    })
}

fn tco_csv(rows: &[TcoRow], sims: &[SimulatedTco]) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "path",
        "candidate",
        "total_usd",
        "npv_usd",
        "usd_per_useful_gpu_hour",
        "utilization",
        "unserved_share",
        "break_even_utilization",
        "period_usd",
        "wait_p50_s",
        "wait_p95_s",
        "unfinished_jobs",
    ])?;
    let f = |x: f64| format!("{x:.4}");
    for r in rows {
        w.write_record([
            "analytic".to_string(),
            r.candidate.clone(),
            f(r.total_usd),
            f(r.npv_usd),
            f(r.usd_per_useful_gpu_hour),
            f(r.utilization),
            f(r.unserved_share),
            r.break_even_utilization.map(f).unwrap_or_default(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ])?;
    }
    for r in sims {
        w.write_record([
            "simulated".to_string(),
            r.candidate.clone(),
            f(r.total_usd),
            f(r.npv_usd),
            f(r.usd_per_busy_gpu_hour),
            f(r.utilization),
            String::new(),
            String::new(),
            f(r.period_usd),
            f(r.wait_p50_s),
            f(r.wait_p95_s),
            r.unfinished.to_string(),
        ])?;
    }
    w.into_inner()
        .map_err(|e| csv::Error::from(std::io::Error::other(e.to_string())))
}
