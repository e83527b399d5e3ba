//! `gpufleet tco --simulate`: the analytic path's demand replayed through the simulator on
//! each candidate fleet, rented pools elastic under their billing rules, the period's
//! cost scaled to the TCO horizon with the analytic path's definitions.
//!
//! The demand (`[tco].demand`, or the profile measured from one run of the scenario) is a
//! step function of busy GPUs over a representative period, replayed as jobs that hold
//! exactly those GPUs: the step function is cut into layers (GPU `i` is busy while the
//! demand exceeds `i`), each maximal busy span of a layer is a GPU held from its start to
//! its end, spans alike are grouped into jobs of up to a node's GPUs, and jobs are cut at
//! each hour so that work interrupted on spot goes back to spot when it can. The
//! candidate's spot share of the demand is preemptible. Rented pools (on demand, spot)
//! rent a node when demand needs one, at once (no provisioning delay), and release it as
//! soon as it is idle and its paid block is over; they are billed by the scenario's own
//! on-demand and spot pools' rules, or AWS's where it has none (per second with a 60 s
//! minimum, spot's first hour free).

use super::CliError;
use crate::engine::{RngStreams, SimTime};
use crate::faults::{CheckpointPolicy, FaultConfig, SpotInterruptions, SpotModel};
use crate::model::{CapacityKind, GpuRequest, Job, PoolSpec, TypeMask, Workload};
use crate::pricing::{
    AvailabilityTrace, Billing, OnDemand, PoolPricing, PricingModel, Reservation, Reserved, Spot,
    SpotBilling, SpotPrice, TcoCandidate, TcoSpec, HOURS_PER_YEAR,
};
use crate::scenario::Scenario;
use crate::sched::{Autoscale, PoolOrder};

/// One candidate run through the simulator.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulatedTco {
    /// Candidate label.
    pub candidate: String,
    /// Dollars over the simulated period.
    pub period_usd: f64,
    /// Dollars scaled to the TCO horizon.
    pub total_usd: f64,
    /// NPV of the scaled costs.
    pub npv_usd: f64,
    /// Busy GPU-hours in the period.
    pub busy_gpu_hours: f64,
    /// Total over the busy GPU-hours scaled to the horizon.
    pub usd_per_useful_gpu_hour: f64,
    /// Share of the demanded GPU-hours not served within the period.
    pub unserved_share: f64,
    /// Wait p50, seconds.
    pub wait_p50_s: f64,
    /// Wait p95, seconds.
    pub wait_p95_s: f64,
    /// Jobs unfinished at the end of the period.
    pub unfinished: u64,
    /// Busy share of the candidate's capacity over the period.
    pub utilization: f64,
}

/// A demand step: `gpus` busy GPUs over `[from, to)`.
pub type Step = (SimTime, SimTime, u32);

/// The demand profile laid out over `period`: each day, each level `(GPUs, share)` in
/// the order given, for its share of the day.
pub fn daily_steps(profile: &[(f64, f64)], period: SimTime) -> Vec<Step> {
    let day = SimTime::from_hours_f64(24.0).0;
    let mut out = Vec::new();
    let mut d0 = 0u64;
    while d0 < period.0 {
        let mut cum = 0.0;
        let mut from = d0;
        for &(gpus, share) in profile {
            cum += share;
            let to = (d0 + (cum * day as f64).round() as u64).min(period.0);
            if to > from {
                out.push((SimTime(from), SimTime(to), gpus.round().max(0.0) as u32));
            }
            from = to;
        }
        d0 += day;
    }
    out
}

/// Jobs holding the GPUs of `steps`: layered spans grouped into jobs of up to
/// `gpus_per_node` GPUs, cut at every hour; a share `preemptible` of each step's GPUs
/// (rounded) is preemptible. Work is given at `speed`, so a job runs for its span.
pub fn demand_workload(
    steps: &[Step],
    gpus_per_node: u32,
    speed: f64,
    preemptible: f64,
) -> Workload {
    let split = |g: u32| {
        let p = (g as f64 * preemptible).round() as u32;
        (g - p.min(g), p.min(g))
    };
    let mut spans: Vec<(SimTime, SimTime, u32, bool)> = Vec::new();
    for (pre, pick) in [(false, 0usize), (true, 1usize)] {
        let mut open: Vec<SimTime> = Vec::new();
        let mut close = |open: &mut Vec<SimTime>, level: usize, t: SimTime| {
            while open.len() > level {
                let start = open.pop().unwrap_or(t);
                match spans.last_mut() {
                    Some(s) if s.0 == start && s.1 == t && s.3 == pre => s.2 += 1,
                    _ => spans.push((start, t, 1, pre)),
                }
            }
        };
        for &(from, _, g) in steps {
            let parts = split(g);
            let level = if pick == 0 { parts.0 } else { parts.1 } as usize;
            close(&mut open, level, from);
            while open.len() < level {
                open.push(from);
            }
        }
        let end = steps.last().map_or(SimTime::ZERO, |s| s.1);
        close(&mut open, 0, end);
    }
    let hour = SimTime::from_hours_f64(1.0).0;
    let gpn = gpus_per_node.max(1);
    let mut jobs = Vec::new();
    for (start, end, gpus, pre) in spans {
        // Cut at the hour marks.
        let mut a = start.0;
        while a < end.0 {
            let b = ((a / hour + 1) * hour).min(end.0);
            let mut left = gpus;
            while left > 0 {
                let g = left.min(gpn);
                left -= g;
                let held = SimTime(b - a);
                jobs.push(Job {
                    name: format!("demand-{}", jobs.len()),
                    submit: SimTime(a),
                    gpus: GpuRequest::Whole(g),
                    gpu_types: TypeMask::ANY,
                    cpu_milli: 0,
                    mem_mib: 0,
                    work: SimTime((held.0 as f64 * speed).round().max(1.0) as u64),
                    estimate: Some(held),
                    tenant: 0,
                    priority: 0,
                    deadline: None,
                    preemptible: pre,
                    tags: crate::model::JobTags::NONE,
                });
            }
            a = b;
        }
    }
    let mut w = Workload {
        jobs,
        tenants: vec!["demand".into()],
        ..Default::default()
    };
    w.sort_by_submit();
    w
}

/// An elastic pool rented at once and released as soon as it is idle, billed by `billing`.
fn elastic(billing: Billing) -> Autoscale {
    Autoscale {
        min_nodes: 0,
        provisioning_delay: SimTime::ZERO,
        idle_timeout: SimTime::ZERO,
        billing_increment: billing.granularity,
        billing_minimum: billing.minimum,
        scale_up_after: SimTime::ZERO,
        availability: Vec::new(),
    }
}

/// The rental billing rules of the simulated fleets: the scenario's first on-demand
/// pool's rounding, and its first spot pool's rules (rounding, first hour, notice); where
/// it has no such pool, AWS's (per second, 60 s minimum; spot's first hour free, 2 min
/// notice).
#[derive(Debug, Clone, Copy)]
struct Rules {
    on_demand: Billing,
    spot: SpotBilling,
}

impl Rules {
    fn of(s: &Scenario) -> Rules {
        let on_demand = s
            .pricing
            .iter()
            .find_map(|m| match m {
                PoolPricing::OnDemand(o) => Some(o.billing),
                _ => None,
            })
            .unwrap_or(Billing::PER_SECOND_60S_MIN);
        let spot = s
            .pricing
            .iter()
            .find_map(|m| match m {
                PoolPricing::Spot(x) => Some(x.billing),
                _ => None,
            })
            .unwrap_or_default();
        Rules { on_demand, spot }
    }
}

/// The pools of candidate `c`, from `template`'s node type: each with its pricing and,
/// for rented pools, its autoscaler.
fn pools_for(
    template: &PoolSpec,
    spec: &TcoSpec,
    c: &TcoCandidate,
    rules: Rules,
) -> Vec<(PoolSpec, PoolPricing, Option<Autoscale>)> {
    let pool = |name: &str, kind: CapacityKind, nodes: u32| PoolSpec {
        name: name.to_string(),
        kind,
        nodes,
        ..template.clone()
    };
    let billing = rules.on_demand;
    let od = || {
        PoolPricing::OnDemand(OnDemand {
            usd_per_node_hour: spec.on_demand_per_node_hour,
            billing,
        })
    };
    let owned = PoolPricing::Owned(spec.owned);
    let mut v = Vec::new();
    match *c {
        TcoCandidate::Buy { nodes } => {
            v.push((pool("owned", CapacityKind::Owned, nodes), owned, None))
        }
        TcoCandidate::OnDemand { nodes } => v.push((
            pool("on-demand", CapacityKind::OnDemand, nodes),
            od(),
            Some(elastic(billing)),
        )),
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
                PoolPricing::Reserved(Reserved::new(r, spec.on_demand_per_node_hour)),
                None,
            ))
        }
        TcoCandidate::Hybrid { owned: b, burst } => {
            v.push((pool("owned", CapacityKind::Owned, b), owned, None));
            v.push((
                pool("burst", CapacityKind::OnDemand, burst),
                od(),
                Some(elastic(billing)),
            ));
        }
        TcoCandidate::Spot { nodes, share } => {
            let s = (share * nodes as f64).ceil() as u32;
            v.push((
                pool("spot", CapacityKind::Spot, s),
                PoolPricing::Spot(Spot::new(
                    SpotPrice::Constant(spec.spot_per_node_hour),
                    rules.spot,
                )),
                Some(elastic(rules.spot.billing)),
            ));
            v.push((
                pool("on-demand", CapacityKind::OnDemand, nodes),
                od(),
                Some(elastic(billing)),
            ));
        }
    }
    v.retain(|(p, _, _)| p.nodes > 0);
    v
}

/// When spot can be had over `period`: `spot_trace` from its start, else a share
/// `spot_availability` of each day (its first hours); `None` when always.
fn spot_availability(spec: &TcoSpec, period: SimTime) -> Option<AvailabilityTrace> {
    if let Some(t) = &spec.spot_trace {
        return Some(t.clone());
    }
    let a = spec.spot_availability;
    if a >= 1.0 {
        return None;
    }
    let day = 86_400i64;
    let mut tr = AvailabilityTrace {
        epoch_s: Vec::new(),
        available: Vec::new(),
    };
    let days = (period.0 / 1000).div_ceil(day as u64) as i64;
    for k in 0..days.max(1) {
        tr.epoch_s.push(k * day);
        tr.available.push(1.0);
        tr.epoch_s.push(k * day + (a * day as f64).round() as i64);
        tr.available.push(0.0);
    }
    tr.epoch_s.push(days.max(1) * day);
    tr.available.push(1.0);
    Some(tr)
}

/// Runs `demand` (steps over the period) on each candidate fleet and scales each period's
/// cost to the horizon.
pub fn simulate(
    s: &Scenario,
    spec: &TcoSpec,
    steps: &[Step],
    seed: u64,
) -> Result<Vec<SimulatedTco>, CliError> {
    let template = s
        .sim
        .pools
        .first()
        .cloned()
        .ok_or_else(|| CliError::BadInput(anyhow::anyhow!("the scenario has no pool")))?;
    let period = steps.last().map_or(SimTime::ZERO, |s| s.1);
    let demand_gpu_h: f64 = steps
        .iter()
        .map(|&(a, b, g)| g as f64 * b.since(a).hours_f64())
        .sum();
    let streams = RngStreams::new(seed);
    let gpn = spec.gpus_per_node.max(1) as f64;
    let rules = Rules::of(s);
    let mut out = Vec::new();
    for c in &spec.candidates {
        let fleet = pools_for(&template, spec, c, rules);
        if fleet.is_empty() {
            continue;
        }
        let share = match *c {
            TcoCandidate::Spot { share, .. } => share,
            _ => 0.0,
        };
        let w = demand_workload(steps, spec.gpus_per_node, template.speed, share);
        let autoscale: Vec<Option<Autoscale>> = fleet.iter().map(|f| f.2.clone()).collect();
        let kinds: Vec<PoolPricing> = fleet.iter().map(|f| f.1.clone()).collect();
        let mut one = s.with_fleet(fleet.into_iter().map(|(p, m, _)| (p, m)).collect());
        one.sim.horizon = Some(period);
        one.sim.sample_every = None;
        one.sim.options.autoscale = autoscale;
        one.sim.options.pool_order = PoolOrder::ByKind;
        one.sim.options.budget = Default::default();
        one.sim.options.gpu_hour_usd = one
            .sim
            .pools
            .iter()
            .zip(&kinds)
            .map(|(p, m)| m.gpu_hour_rate(p.nodes, p.node.gpus))
            .collect();
        one.faults = None;
        one.savings_plan = None;
        one.transfer = None;
        if let Some(trace) = kinds
            .iter()
            .position(|k| matches!(k, PoolPricing::Spot(_)))
            .and_then(|p| Some((p, spot_availability(spec, period)?)))
        {
            // Interrupted demand checkpoints in its notice and moves on demand.
            let mut f = FaultConfig::none();
            f.checkpointing.policy = CheckpointPolicy::Fixed(SimTime::from_hours_f64(1.0));
            f.spot.push(SpotInterruptions {
                pool: trace.0,
                model: SpotModel::Trace(trace.1),
                notice: rules.spot.notice,
                replace_after: SimTime::ZERO,
            });
            one.faults = Some(f);
        }
        let e = crate::run::execute_workload(&one, w, &streams);
        let (result, cost, sum) = (&e.result, &e.cost, &e.summary);
        let hours = result.end.hours_f64().max(1e-9);
        let (mut total, mut npv) = (0.0, 0.0);
        let by_pool = cost.ledger.sums_by(kinds.len(), |k| Some(k.pool as usize));
        for (y, len) in spec.years() {
            let h = HOURS_PER_YEAR * len;
            let mut yr = 0.0;
            for (p, m) in kinds.iter().enumerate() {
                let per_h = by_pool[p] / hours;
                yr += match m {
                    PoolPricing::Owned(_) => {
                        // Owned from the hardware's arrival; its use rented on demand until then.
                        let owned = spec.owned_years(y, len);
                        let busy_nodes = result.pools[p].busy_gpu_ms as f64 / 3.6e6 / gpn / hours;
                        per_h * HOURS_PER_YEAR * owned
                            + (len - owned)
                                * HOURS_PER_YEAR
                                * busy_nodes
                                * spec.on_demand_per_node_hour
                                * spec.price_factor(y)
                    }
                    PoolPricing::Reserved(r) => {
                        let term = r.reservation.term_h / HOURS_PER_YEAR;
                        let start = (y / term).floor() * term;
                        per_h * h * spec.price_factor(start)
                    }
                    _ => per_h * h * spec.price_factor(y),
                };
            }
            total += yr;
            npv += yr * spec.discount(y, len);
        }
        let busy = sum.gpu_hours.busy;
        let scaled_busy = busy / hours * HOURS_PER_YEAR * spec.horizon_years;
        let capacity: f64 = one
            .sim
            .pools
            .iter()
            .map(|p| p.nodes as f64 * p.node.gpus as f64)
            .sum::<f64>()
            .min(c.capacity() as f64 * gpn);
        out.push(SimulatedTco {
            candidate: c.label(),
            period_usd: cost.ledger.total(),
            total_usd: total,
            npv_usd: npv,
            busy_gpu_hours: busy,
            usd_per_useful_gpu_hour: if scaled_busy > 0.0 {
                total / scaled_busy
            } else {
                f64::INFINITY
            },
            unserved_share: if demand_gpu_h > 0.0 {
                (1.0 - busy / demand_gpu_h).max(0.0)
            } else {
                0.0
            },
            wait_p50_s: sum.wait_s.p50,
            wait_p95_s: sum.wait_s.p95,
            unfinished: sum.jobs.unfinished,
            utilization: if capacity > 0.0 {
                busy / (capacity * hours)
            } else {
                0.0
            },
        });
    }
    Ok(out)
}
