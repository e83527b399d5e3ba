//! `gpufleet tco`: buy versus rent for the candidate fleets of a scenario's `[tco]`
//! section. The analytic path is instant (a demand profile, given or measured from one run
//! of the scenario), costed year by year by the definitions of `pricing::TcoYear`;
//! `--simulate` replays the same demand through the simulator on each candidate fleet
//! (`tco_sim.rs`). Writes `tco.csv`, `tco_years.csv` and the charts.

use super::tco_sim::{daily_steps, simulate, SimulatedTco, Step};
use super::CliError;
use crate::engine::{RngStreams, SimTime};
use crate::pricing::{TcoRow, TcoSpec, TcoYear};
use crate::report::write_atomic;
use crate::scenario::Scenario;
use anyhow::anyhow;
use std::path::{Path, PathBuf};

/// A demand profile: `(busy node-equivalents, share of hours)`.
type Profile = Vec<(f64, f64)>;

/// The simulated period when `[tco].demand` is given and the scenario has no horizon.
const DEFAULT_PERIOD_DAYS: f64 = 7.0;

/// The demand profile measured from one run of the scenario as written (busy
/// node-equivalents, each hourly timeline sample weighing the same), and the same demand
/// as steps of busy GPUs over the run, for the simulated path.
fn measured_demand(
    s: &Scenario,
    spec: &TcoSpec,
    seed: u64,
) -> Result<(Profile, Vec<Step>), CliError> {
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
    let busy = |row: &crate::sim::TimelineRow| -> f64 {
        row.pools.iter().map(|p| p.0).sum::<u64>() as f64 / 1000.0
    };
    let profile = r
        .timeline
        .iter()
        .map(|row| (busy(row) / g, 1.0 / n))
        .collect();
    let steps = r
        .timeline
        .iter()
        .enumerate()
        .map(|(k, row)| {
            let to = r.timeline.get(k + 1).map_or(r.end, |next| next.time);
            (row.time, to, busy(row).round() as u32)
        })
        .filter(|&(a, b, _)| b > a)
        .collect();
    Ok((profile, steps))
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
    // The folder is checked before anything runs and swapped into place once whole.
    let dir = out.unwrap_or_else(|| PathBuf::from("out").join(format!("{}-tco", s.name)));
    let folder = crate::run::FreshFolder::begin(&dir).map_err(super::folder_err)?;
    let (demand, steps, source) = if spec.demand.is_empty() {
        let (profile, steps) = measured_demand(&s, &spec, seed)?;
        (
            profile,
            steps,
            "measured from one run of the scenario, hourly",
        )
    } else {
        let period = s
            .sim
            .horizon
            .unwrap_or(SimTime::from_hours_f64(24.0 * DEFAULT_PERIOD_DAYS));
        (
            spec.demand_nodes(),
            daily_steps(&spec.demand, period),
            "from [tco].demand",
        )
    };
    let rows = spec.analytic(&demand);
    let years: Vec<(String, Vec<TcoYear>)> = spec
        .candidates
        .iter()
        .map(|c| (c.label(), spec.cash_flow(c, &demand)))
        .collect();
    say!(
        "gpufleet tco | scenario {} | horizon {} years | discount rate {:.1} % | rental price decline {:.0} %/year",
        s.name,
        spec.horizon_years,
        spec.discount_rate * 100.0,
        spec.price_decline_per_year * 100.0
    );
    say!("analytic path (demand profile {source}):");
    if !json {
        print_rows(&rows);
    }
    let sims = if simulate_too {
        let sims = simulate(&s, &spec, &steps, seed)?;
        let period = steps.last().map_or(0.0, |x| x.1.hours_f64() / 24.0);
        say!(
            "simulated path: the same demand ({source}) replayed over {period:.1} days as jobs holding the demanded GPUs on each candidate fleet; rented pools elastic (rented when demand needs a node, released when idle; billed by the scenario's own on-demand and spot pools' rules, AWS's where it has none), the period scaled to {} years as above:",
            spec.horizon_years
        );
        say!(
            "  {:<20} {:>12} {:>12} {:>12} {:>10} {:>9} {:>10} {:>10}",
            "candidate",
            "period",
            "total",
            "NPV",
            "$/GPU-h",
            "unserved",
            "wait p50",
            "wait p95"
        );
        for r in &sims {
            say!(
                "  {:<20} {:>12} {:>12} {:>12} {:>10.3} {:>8.1}% {:>9.0}s {:>9.0}s",
                r.candidate,
                money(r.period_usd),
                money(r.total_usd),
                money(r.npv_usd),
                r.usd_per_useful_gpu_hour,
                r.unserved_share * 100.0,
                r.wait_p50_s,
                r.wait_p95_s,
            );
        }
        sims
    } else {
        Vec::new()
    };
    let into = folder.path();
    let w = |name: &str, bytes: &[u8]| {
        write_atomic(&into.join(name), bytes)
            .map_err(|e| CliError::Failure(anyhow!("writing {name}: {e}")))
    };
    let csv = tco_csv(&rows, &sims).map_err(|e| CliError::Failure(anyhow!("tco.csv: {e}")))?;
    w("tco.csv", &csv)?;
    let csv = years_csv(&years).map_err(|e| CliError::Failure(anyhow!("tco_years.csv: {e}")))?;
    w("tco_years.csv", &csv)?;
    crate::report::write_tco_charts(into, &spec, &s.name, &years)
        .map_err(|e| CliError::Failure(anyhow!("{e}")))?;
    folder.commit().map_err(super::folder_err)?;
    if json {
        println!("{}", tco_json(&s.name, &spec, &rows, &sims, &dir));
    }
    say!("wrote {}", dir.display());
    Ok(())
}

/// The analytic table, then what the break-even column means and its named variants.
fn print_rows(rows: &[TcoRow]) {
    println!(
        "  {:<20} {:>12} {:>12} {:>10} {:>8} {:>9} {:>11}",
        "candidate", "total", "NPV", "$/GPU-h", "util", "unserved", "break-even"
    );
    let pct = |u: Option<f64>| {
        u.map(|u| format!("{:.1}%", u * 100.0))
            .unwrap_or_else(|| "-".into())
    };
    for r in rows {
        println!(
            "  {:<20} {:>12} {:>12} {:>10.3} {:>7.1}% {:>8.1}% {:>11}",
            r.candidate,
            money(r.total_usd),
            money(r.npv_usd),
            r.usd_per_useful_gpu_hour,
            r.utilization * 100.0,
            r.unserved_share * 100.0,
            if r.spot.is_some() {
                "n/a".to_string()
            } else {
                pct(r.break_even_utilization)
            }
        );
    }
    println!(
        "  break-even: the flat utilization above which the candidate's NPV is below renting the same use on demand; ownership from the hardware's arrival, demand rented on demand until then"
    );
    let textbook: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            r.break_even_year0_price
                .map(|u| format!("{} {:.1} %", r.candidate, u * 100.0))
        })
        .collect();
    if !textbook.is_empty() {
        println!(
            "  break-even at the year-0 price (a year's capital and fixed costs over the on-demand price less the running cost per GPU-hour; for a reservation 1 - its discount; undiscounted, no lead time): {}",
            textbook.join(", ")
        );
    }
    for r in rows {
        if let Some((on_spot, discount)) = r.spot {
            println!(
                "  {}: {:.1} % of the use runs on spot (interruptible share x availability) at {:.1} % off on demand: NPV {:.1} % below on demand; no break-even (spot has no fixed cost to recover)",
                r.candidate,
                on_spot * 100.0,
                discount * 100.0,
                r.saving_vs_on_demand * 100.0
            );
        }
    }
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
                "break_even_utilization": if r.spot.is_some() { None } else { r.break_even_utilization },
                "break_even_year0_price": r.break_even_year0_price,
                "on_spot_share": r.spot.map(|x| x.0),
                "spot_discount": r.spot.map(|x| x.1),
                "saving_vs_on_demand": r.saving_vs_on_demand,
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
                "usd_per_useful_gpu_hour": r.usd_per_useful_gpu_hour,
                "unserved_share": r.unserved_share,
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
        "break_even_year0_price",
        "on_spot_share",
        "spot_discount",
        "saving_vs_on_demand",
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
            r.break_even_year0_price.map(f).unwrap_or_default(),
            r.spot.map(|s| f(s.0)).unwrap_or_default(),
            r.spot.map(|s| f(s.1)).unwrap_or_default(),
            f(r.saving_vs_on_demand),
        ])?;
    }
    for r in sims {
        w.write_record([
            "simulated".to_string(),
            r.candidate.clone(),
            f(r.total_usd),
            f(r.npv_usd),
            f(r.usd_per_useful_gpu_hour),
            f(r.utilization),
            f(r.unserved_share),
            String::new(),
            f(r.period_usd),
            f(r.wait_p50_s),
            f(r.wait_p95_s),
            r.unfinished.to_string(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ])?;
    }
    w.into_inner()
        .map_err(|e| csv::Error::from(std::io::Error::other(e.to_string())))
}

fn years_csv(years: &[(String, Vec<TcoYear>)]) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "candidate",
        "year",
        "start_year",
        "years",
        "capex_usd",
        "residual_usd",
        "power_usd",
        "colocation_usd",
        "staff_usd",
        "maintenance_usd",
        "on_demand_usd",
        "lead_time_cover_usd",
        "reserved_usd",
        "spot_usd",
        "total_usd",
        "discount_factor",
        "npv_usd",
        "served_node_hours",
    ])?;
    let f = |x: f64| format!("{:.4}", x + 0.0);
    for (name, ys) in years {
        for (k, y) in ys.iter().enumerate() {
            w.write_record([
                name.clone(),
                (k + 1).to_string(),
                f(y.start),
                f(y.length),
                f(y.capex),
                f(y.residual),
                f(y.power),
                f(y.colocation),
                f(y.staff),
                f(y.maintenance),
                f(y.on_demand),
                f(y.lead_time_cover),
                f(y.reserved),
                f(y.spot),
                f(y.total()),
                format!("{:.6}", y.discount_factor),
                f(y.npv()),
                f(y.served_node_hours),
            ])?;
        }
    }
    w.into_inner()
        .map_err(|e| csv::Error::from(std::io::Error::other(e.to_string())))
}
