//! Validation of the scenario-wide economics sections: `[tco]`, `[spot_deadline]`,
//! `[savings_plan]` and `[transfer]`.

use super::pricing::owned;
use super::problems::Problems;
use super::raw_pricing::{RawCandidate, RawSavingsPlan, RawSpotDeadline, RawTco, RawTransfer};
use crate::engine::SimTime;
use crate::pricing::{lookup, TcoCandidate, TcoSpec};
use crate::sched::spot_deadline::{DeadlinePrices, DeadlineSpec};
use std::path::Path;

/// Validates `[tco]`; `base` resolves `spot_trace`.
pub(super) fn tco(t: &RawTco, base: &Path, p: &mut Problems) -> TcoSpec {
    let (spot_availability, spot_trace) = spot_availability(p, t, base);
    let (od, spot) = tco_prices(p, t);
    if !(t.horizon_years > 0.0 && t.horizon_years <= 30.0) {
        p.err(
            "tco.horizon_years",
            format!("must be in (0, 30], got {}", t.horizon_years),
        );
    }
    if !(1..=1024).contains(&t.gpus_per_node) {
        p.err(
            "tco.gpus_per_node",
            format!("must be 1..=1024, got {}", t.gpus_per_node),
        );
    }
    let demand = demand(p, t);
    let candidates = candidates(p, &t.candidates);
    TcoSpec {
        horizon_years: t.horizon_years,
        discount_rate: p.within(
            "tco.discount_rate",
            t.discount_rate.unwrap_or(0.08),
            1.0,
            "(a share a year)",
        ),
        price_decline_per_year: p.share(
            "tco.price_decline_per_year",
            t.price_decline_per_year.unwrap_or(0.0),
        ),
        demand,
        on_demand_per_node_hour: od,
        spot_per_node_hour: spot,
        spot_availability,
        spot_trace,
        gpus_per_node: t.gpus_per_node.clamp(1, 1024) as u32,
        owned: owned(p, "tco.owned", &t.owned),
        // Epoch AI's estimated AWS GPU discounts: 41 % (1 y), 64 % (3 y) (ECONOMICS.md).
        reserved_discount_1y: p.share(
            "tco.reserved_discount_1y",
            t.reserved_discount_1y.unwrap_or(0.41),
        ),
        reserved_discount_3y: p.share(
            "tco.reserved_discount_3y",
            t.reserved_discount_3y.unwrap_or(0.64),
        ),
        candidates,
    }
}

/// The share of time spot capacity is there: given, or read from `spot_trace` (then the
/// trace too).
fn spot_availability(
    p: &mut Problems,
    t: &RawTco,
    base: &Path,
) -> (f64, Option<crate::pricing::AvailabilityTrace>) {
    match (t.spot_availability, &t.spot_trace) {
        (Some(a), None) => (p.share("tco.spot_availability", a), None),
        (None, Some(f)) if !p.data_file("tco.spot_trace", &base.join(f)) => (1.0, None),
        (None, Some(f)) => match crate::pricing::read_availability_csv(&base.join(f)) {
            Ok(tr) => (tr.available_fraction(), Some(tr)),
            Err(e) => {
                p.err("tco.spot_trace", e.to_string());
                (1.0, None)
            }
        },
        (None, None) => (1.0, None),
        (Some(_), Some(_)) => {
            p.err(
                "tco.spot_availability",
                "give spot_availability or spot_trace, not both",
            );
            (1.0, None)
        }
    }
}

/// The on-demand and spot prices per node-hour: given, or from the price catalog (spot
/// defaults to 30 % of on-demand, or a `spot_discount` off it).
fn tco_prices(p: &mut Problems, t: &RawTco) -> (f64, f64) {
    let (mut od, mut spot) = (t.on_demand_per_node_hour, None);
    if let (Some(inst), Some(region)) = (&t.instance, &t.region) {
        match lookup(inst, region) {
            Ok(e) => {
                od = od.or(e.on_demand);
                spot = e.spot;
            }
            Err(e) => p.err("tco.instance", e.to_string()),
        }
    }
    let od = match od {
        Some(x) => p.usd_per_hour("tco.on_demand_per_node_hour", x),
        None => {
            p.err(
                "tco.on_demand_per_node_hour",
                "give on_demand_per_node_hour, or instance and region from the price catalog",
            );
            0.0
        }
    };
    let spot = match t.spot_discount {
        Some(d) => od * (1.0 - p.share("tco.spot_discount", d)),
        None => spot.unwrap_or(od * 0.3),
    };
    (od, spot)
}

/// The demand distribution: `(gpus, share of time)` pairs whose shares add up to 1.
fn demand(p: &mut Problems, t: &RawTco) -> Vec<(f64, f64)> {
    let mut demand = Vec::new();
    let mut total_share = 0.0;
    for (i, d) in t.demand.iter().enumerate() {
        demand.push((
            p.within(&format!("tco.demand[{i}].gpus"), d.gpus, 1e8, "GPUs"),
            p.share(&format!("tco.demand[{i}].share"), d.share),
        ));
        total_share += d.share;
    }
    if !demand.is_empty() && (total_share - 1.0).abs() > 1e-6 {
        p.err(
            "tco.demand",
            format!("shares must add up to 1, they add up to {total_share}"),
        );
    }
    demand
}

/// The candidate fleets to cost; at least one.
fn candidates(p: &mut Problems, raw: &[RawCandidate]) -> Vec<TcoCandidate> {
    let mut cands = Vec::new();
    let max = crate::pricing::MAX_TCO_CANDIDATES;
    if raw.len() > max {
        // Refused before any is built: each holds its years hour by hour.
        p.err(
            "tco.candidates",
            format!(
                "{} candidates, more than {max} (each is costed hour by hour over the horizon; split the list)",
                raw.len()
            ),
        );
        return cands;
    }
    for (i, c) in raw.iter().enumerate() {
        let n = |p: &mut Problems, field: &str, v: i64| -> u32 {
            if !(0..=1_000_000).contains(&v) {
                p.err(
                    format!("tco.candidates[{i}].{field}"),
                    format!("must be 0..=1000000, got {v}"),
                );
            }
            v.clamp(0, 1_000_000) as u32
        };
        cands.push(match c {
            RawCandidate::Buy { nodes } => TcoCandidate::Buy {
                nodes: n(p, "nodes", *nodes),
            },
            RawCandidate::OnDemand { nodes } => TcoCandidate::OnDemand {
                nodes: n(p, "nodes", *nodes),
            },
            RawCandidate::Reserve1y { nodes } => TcoCandidate::Reserve {
                years: 1,
                nodes: n(p, "nodes", *nodes),
            },
            RawCandidate::Reserve3y { nodes } => TcoCandidate::Reserve {
                years: 3,
                nodes: n(p, "nodes", *nodes),
            },
            RawCandidate::Hybrid {
                owned_nodes,
                burst_nodes,
            } => TcoCandidate::Hybrid {
                owned: n(p, "owned_nodes", *owned_nodes),
                burst: n(p, "burst_nodes", *burst_nodes),
            },
            RawCandidate::Spot { nodes, spot_share } => TcoCandidate::Spot {
                nodes: n(p, "nodes", *nodes),
                share: p.share(&format!("tco.candidates[{i}].spot_share"), *spot_share),
            },
        });
    }
    if cands.is_empty() {
        p.err("tco.candidates", "give at least one candidate");
    }
    cands
}

/// Validates `[savings_plan]`.
pub(super) fn savings_plan(s: &RawSavingsPlan, p: &mut Problems) -> crate::pricing::SavingsPlan {
    let d = s.discount;
    if !(0.0..1.0).contains(&d) {
        p.err(
            "savings_plan.discount",
            format!("must be at least 0 and below 1, got {d}"),
        );
    }
    let term = s.term.as_deref().map(|t| p.dur("savings_plan.term", t));
    // Plans are billed by the hour (AWS sells terms of 1 and 3 years): a term shorter
    // than an hour would renew more often than it is billed.
    if term.is_some_and(|t| t < SimTime::from_secs(3600)) {
        p.err(
            "savings_plan.term",
            "must be at least 1h (plans are billed by the hour; AWS's terms are 1 and 3 years)",
        );
    }
    if s.renew.is_some() && term.is_none() {
        p.err(
            "savings_plan.renew",
            "renew needs a term (without one the plan covers the rest of the run)",
        );
    }
    crate::pricing::SavingsPlan {
        commitment_per_hour: p
            .usd_per_hour("savings_plan.commitment_per_hour", s.commitment_per_hour),
        discount: d.clamp(0.0, 0.99),
        start: s
            .start
            .as_deref()
            .map(|t| p.dur("savings_plan.start", t))
            .unwrap_or(SimTime::ZERO),
        term,
        renew: s.renew.unwrap_or(false),
    }
}

/// The most gigabytes a size may give: an exabyte.
pub(super) const MAX_GB: f64 = 1e9;
/// The highest price of a gigabyte moved: a thousand dollars (clouds charge cents).
const MAX_USD_PER_GB: f64 = 1e3;

/// Validates `[transfer]` (the catalog's tiers for its `cloud`, AWS by default, unless given).
pub(super) fn transfer(t: &RawTransfer, p: &mut Problems) -> crate::pricing::TransferSpec {
    let mut egress = super::pricing::catalog_egress(p, "transfer.cloud", t.cloud.as_deref());
    if let Some(f) = t.free_gb_per_month {
        egress.free_gb = p.within("transfer.free_gb_per_month", f, MAX_GB, "GB");
    }
    if let Some(c) = t.cross_zone_per_gb {
        egress.cross_zone_per_gb = p.within(
            "transfer.cross_zone_per_gb",
            c,
            MAX_USD_PER_GB,
            "dollars a GB",
        );
    }
    if let Some(tiers) = &t.tiers {
        let mut out = Vec::new();
        let mut last = 0.0;
        for (i, tier) in tiers.iter().enumerate() {
            let up = tier.up_to_gb.unwrap_or(f64::INFINITY);
            if up <= last || (tier.up_to_gb.is_none() && i + 1 != tiers.len()) {
                p.err(
                    format!("transfer.tiers[{i}].up_to_gb"),
                    "tiers must rise, and only the last may omit up_to_gb",
                );
            }
            last = up;
            out.push((
                up,
                p.within(
                    &format!("transfer.tiers[{i}].usd_per_gb"),
                    tier.usd_per_gb,
                    MAX_USD_PER_GB,
                    "dollars a GB",
                ),
            ));
        }
        egress.tiers = out;
    }
    crate::pricing::TransferSpec {
        egress,
        egress_gb_per_job: p.within(
            "transfer.egress_gb_per_job",
            t.egress_gb_per_job.unwrap_or(0.0),
            MAX_GB,
            "GB",
        ),
        cross_zone_gb_per_job: p.within(
            "transfer.cross_zone_gb_per_job",
            t.cross_zone_gb_per_job.unwrap_or(0.0),
            MAX_GB,
            "GB",
        ),
    }
}

/// Validates `[spot_deadline]`.
pub(super) fn spot_deadline(s: &RawSpotDeadline, base: &Path, p: &mut Problems) -> DeadlineSpec {
    let trace = base.join(&s.trace);
    if let Some(why) = crate::workload::not_a_data_file(&trace) {
        p.err("spot_deadline.trace", format!("trace file {why}"));
    }
    let work = p.dur("spot_deadline.work", &s.work);
    let deadline = p.dur("spot_deadline.deadline", &s.deadline);
    if work == SimTime::ZERO || deadline < work {
        p.err(
            "spot_deadline.deadline",
            "the deadline must be at least the work, and the work longer than zero",
        );
    }
    let changeover = s
        .changeover
        .as_deref()
        .map(|c| p.dur("spot_deadline.changeover", c))
        .unwrap_or(SimTime::from_hours_f64(0.2));
    let od = p.usd_per_hour("spot_deadline.on_demand_per_hour", s.on_demand_per_hour);
    let prices = match (&s.prices, &s.prices_zone, s.spot_per_hour) {
        (Some(f), Some(z), None) => {
            p.data_file("spot_deadline.prices", &base.join(f));
            DeadlinePrices::Trace {
                path: base.join(f),
                zone: z.clone(),
            }
        }
        (None, None, Some(c)) => {
            DeadlinePrices::Constant(p.usd_per_hour("spot_deadline.spot_per_hour", c))
        }
        _ => {
            p.err(
                "spot_deadline",
                "give spot_per_hour, or prices (a JSON price file) with prices_zone",
            );
            DeadlinePrices::Constant(0.0)
        }
    };
    let starts = s.starts.unwrap_or(5);
    if !(1..=1000).contains(&starts) {
        p.err(
            "spot_deadline.starts",
            format!("must be 1..=1000, got {starts}"),
        );
    }
    let spec = DeadlineSpec {
        trace,
        trace_zone: s.trace_zone.clone(),
        work,
        deadline,
        changeover,
        on_demand_per_hour: od,
        prices,
        starts: starts.clamp(1, 1000) as u32,
        first_hour_free: s.first_hour_free.unwrap_or(true),
    };
    // The files against the spec, and the optimum's size, now rather than after the
    // simulation (`run` wrote this section's table last and refused it only then).
    if p.is_empty() {
        match crate::sched::spot_deadline::preflight(&spec) {
            Err(e) => p.err("spot_deadline.trace", e.to_string()),
            Ok(Some(why)) => p.err("spot_deadline", why),
            Ok(None) => {}
        }
    }
    spec
}
