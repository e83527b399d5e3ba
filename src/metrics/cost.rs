//! A run's cost ledger: the usage each pool recorded, priced by the run's prices
//! ([`RunPricing`]: each pool's [`PricingModel`], the savings plan, data transfer), and
//! every dollar attributed once. Pricing rules live in `pricing`; this module only builds
//! the usage records and attributes the bills.
//!
//! Attribution: each line of a pool's bill has a busy share (its own, for a commitment's
//! term; else busy GPU-time over the GPU-time the bill pays for). The busy dollars go to
//! the jobs that ran there, by the GPU-time each held in that pool, and each job's tenant
//! is charged the sum of its jobs' dollars; the rest is booked to nobody (idle compute,
//! unused commitment, or the owned/spot kind itself). A job that ran on spot and then on
//! demand pays each pool's rate for the time it spent there. Data moved with a job (its
//! checkpoint, its egress) is the job's too. So jobs sum to tenants, tenants and nobody
//! to pools, and pools to the total, kind by kind.

use crate::engine::SimTime;
use crate::faults::TransferKind;
use crate::pricing::{
    Bill, CostKind, Egress, HeldInterval, Ledger, LedgerKey, MoveScope, PoolPricing, PricingModel,
    RunPricing, TransferSpec, UsageRecord,
};
use crate::sim::{DownSpan, RunResult};
use std::collections::BTreeMap;

/// A run's costs: the ledger, each job's share in dollars, and each commitment's use.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunCost {
    /// Dollars by (pool, tenant, kind).
    pub ledger: Ledger,
    /// Dollars attributed to each job (indexed like the workload; 0 if it never ran).
    pub job_usd: Vec<f64>,
    /// Each commitment (a reservation's term, a capacity block, a savings plan's term)
    /// over the run, in pool order (the savings plan last).
    pub commitments: Vec<CommitmentUse>,
}

/// What one commitment owed within a run, and how much of it was used.
#[derive(Debug, Clone, PartialEq)]
pub struct CommitmentUse {
    /// The pool it is for (`None`: a savings plan, which covers the on-demand pools).
    pub pool: Option<u32>,
    /// `reserved`, `capacity_block` or `savings_plan`.
    pub kind: &'static str,
    /// Its term, in hours from the start of the run (negative: before it; infinite: no
    /// end).
    pub term_h: (f64, f64),
    /// Dollars owed within the run, used or not.
    pub owed_usd: f64,
    /// The part of it used (busy GPU-time, or usage the plan covered).
    pub used_usd: f64,
}

impl CommitmentUse {
    /// The part owed and not used.
    pub fn unused_usd(&self) -> f64 {
        self.owed_usd - self.used_usd
    }
}

/// The intervals each pool held: elastic pools (those with `billed_node_ms`) one interval
/// per node grant, from the autoscaler's record (a node still held at a horizon is cut
/// there); pools whose capacity exists only in a commitment's windows, those windows;
/// other fixed-size pools every node over `[0, end]`. A spot pool's intervals are cut
/// where its nodes were down: each span a node was up is an instance of its own, and one
/// the provider took away is billed to its reclaim time and marked as interrupted.
pub fn held_intervals(result: &RunResult) -> Vec<Vec<HeldInterval>> {
    let spans = spot_down_by_pool(result);
    let mut out: Vec<Vec<HeldInterval>> = Vec::with_capacity(result.pools.len());
    for (p, pool) in result.pools.iter().enumerate() {
        let elastic = pool.billed_node_ms.is_some();
        let windows = result.windows.get(p).filter(|w| !w.is_empty());
        let mut base: Vec<(Option<u32>, HeldInterval)> = Vec::new();
        if elastic {
            for iv in result
                .node_intervals
                .iter()
                .filter(|iv| iv.pool == p as u32)
            {
                if iv.requested < result.end {
                    base.push((
                        Some(iv.node),
                        HeldInterval {
                            requested: iv.requested,
                            ready: iv.ready,
                            // Released after the end only when the run ended with its work
                            // done and the node was kept to its paid block's end (see the
                            // simulation's wind-down).
                            released: iv.released.unwrap_or(result.end),
                            nodes: 1,
                            interrupted_by_provider: false,
                        },
                    ));
                }
            }
        } else if let Some(ws) = windows {
            for &(a, b) in ws {
                base.push((
                    None,
                    HeldInterval {
                        requested: a,
                        ready: a,
                        released: b,
                        nodes: pool.nodes,
                        interrupted_by_provider: false,
                    },
                ));
            }
        } else {
            base.push((None, HeldInterval::whole_run(pool.nodes, result.end)));
        }
        match spans.get(&(p as u32)) {
            None => out.push(base.into_iter().map(|(_, h)| h).collect()),
            Some(by_node) => out.push(cut_by_down_spans(result, p, base, by_node)),
        }
    }
    out
}

/// Spot nodes' down spans, by pool and node, each node's in time order.
fn spot_down_by_pool(result: &RunResult) -> BTreeMap<u32, BTreeMap<u32, Vec<DownSpan>>> {
    let mut m: BTreeMap<u32, BTreeMap<u32, Vec<DownSpan>>> = BTreeMap::new();
    if let Some(f) = &result.faults {
        for s in &f.spot_down {
            m.entry(s.pool)
                .or_default()
                .entry(s.node)
                .or_default()
                .push(*s);
        }
    }
    for nodes in m.values_mut() {
        for v in nodes.values_mut() {
            v.sort_by_key(|s| s.from);
        }
    }
    m
}

/// A spot pool's held intervals cut, node by node, at the spans each node was down.
fn cut_by_down_spans(
    result: &RunResult,
    p: usize,
    base: Vec<(Option<u32>, HeldInterval)>,
    by_node: &BTreeMap<u32, Vec<DownSpan>>,
) -> Vec<HeldInterval> {
    let first = result.pools.iter().take(p).map(|q| q.nodes).sum::<u32>();
    let nodes = result.pools[p].nodes;
    let mut out = Vec::new();
    for (node, h) in base {
        match node {
            // An elastic node's own interval.
            Some(n) => cut_one(h, by_node.get(&n).map_or(&[][..], |v| v), &mut out),
            // A fixed pool's nodes: those never down share one interval.
            None => {
                let mut whole = 0;
                for n in first..first + nodes {
                    match by_node.get(&n) {
                        Some(v) => cut_one(HeldInterval { nodes: 1, ..h }, v, &mut out),
                        None => whole += 1,
                    }
                }
                if whole > 0 {
                    out.push(HeldInterval { nodes: whole, ..h });
                }
            }
        }
    }
    out
}

/// Cuts one node's interval `h` at its down `spans` (in time order) into `out`.
fn cut_one(h: HeldInterval, spans: &[DownSpan], out: &mut Vec<HeldInterval>) {
    let (mut start, mut ready) = (h.requested, h.ready);
    for s in spans {
        if s.to <= start || s.from >= h.released {
            continue;
        }
        if s.from > start {
            let billed_to = s.reclaimed.map_or(s.from, |r| r.max(s.from).min(s.to));
            out.push(HeldInterval {
                requested: start,
                ready: ready.min(s.from),
                released: billed_to.min(h.released),
                nodes: h.nodes,
                interrupted_by_provider: s.reclaimed.is_some(),
            });
        }
        start = s.to;
        ready = ready.max(s.to);
    }
    if start < h.released {
        out.push(HeldInterval {
            requested: start,
            ready: ready.min(h.released),
            ..h
        });
    }
}

/// Sums keyed by small integer pairs `(a, b)` with `b < width`, each in the order its terms
/// come: a dense table while it stays small (a million terms, no map lookup each), a map
/// beyond (a trace of very many tenants); both list their keys in ascending order.
enum Sums<T> {
    Dense { width: usize, cells: Vec<Option<T>> },
    Map(BTreeMap<(usize, usize), T>),
}

/// Cells of a dense [`Sums`] at most.
const DENSE_CELLS: usize = 1 << 16;

impl<T: Copy + std::ops::Add<Output = T>> Sums<T> {
    /// Sums of keys `(a, b)` with `a < rows` and `b < width`.
    fn new(rows: usize, width: usize) -> Sums<T> {
        match rows.checked_mul(width) {
            Some(n) if n <= DENSE_CELLS => Sums::Dense {
                width,
                cells: vec![None; n],
            },
            _ => Sums::Map(BTreeMap::new()),
        }
    }

    /// Adds `x` to key `(a, b)`'s sum, which starts at `zero` (`zero + x`, as a map's
    /// `entry().or_insert(zero)` then `+=` would).
    #[inline]
    fn add(&mut self, a: usize, b: usize, zero: T, x: T) {
        let cell = match self {
            Sums::Dense { width, cells } => &mut cells[a * *width + b],
            Sums::Map(m) => {
                let s = m.entry((a, b)).or_insert(zero);
                *s = *s + x;
                return;
            }
        };
        *cell = Some(cell.unwrap_or(zero) + x);
    }

    /// Every key with its sum, keys ascending.
    fn into_sorted(self) -> Vec<((usize, usize), T)> {
        match self {
            Sums::Dense { width, cells } => cells
                .into_iter()
                .enumerate()
                .filter_map(|(k, c)| c.map(|x| ((k / width, k % width), x)))
                .collect(),
            Sums::Map(m) => m.into_iter().collect(),
        }
    }
}

/// Each pool's usage over the run, as pricing models read it. Node-time down (failures,
/// maintenance) is reported beside the held intervals, except for spot pools, whose
/// intervals already leave it out. Each job's GPU-time is in the record of every pool it
/// ran in, with the time it held there.
pub fn usage_records(result: &RunResult) -> Vec<UsageRecord> {
    let mut out: Vec<UsageRecord> = result
        .pools
        .iter()
        .zip(held_intervals(result))
        .enumerate()
        .map(|(p, (pool, held))| {
            let exact = pool.kind == crate::model::CapacityKind::Spot;
            UsageRecord {
                end: result.end,
                kind: pool.kind,
                nodes: pool.nodes,
                gpus_per_node: if pool.nodes > 0 {
                    (pool.gpus / pool.nodes as u64).max(1) as u32
                } else {
                    1
                },
                held,
                provisioned_gpu_ms: pool.provisioned_gpu_ms,
                busy_gpu_ms: pool.busy_gpu_ms,
                down_node_ms: result
                    .faults
                    .as_ref()
                    .filter(|_| !exact)
                    .map(|f| f.down_node_ms.get(p).copied().unwrap_or(0)),
                busy_by_period: result.busy_by_period.get(p).cloned().unwrap_or_default(),
                by_tenant: Vec::new(),
                by_job: Vec::new(),
            }
        })
        .collect();
    // Each pool's jobs and tenants in one pass: the vectors sized first (no regrowth of a
    // million entries), the tenants' sums dense (integers: the same sums in any order),
    // listed by tenant as before.
    let mut counts = vec![0usize; out.len()];
    let mut tenants = 0usize;
    for u in &result.job_usage {
        if let Some(c) = counts.get_mut(u.pool as usize) {
            *c += 1;
            tenants = tenants.max(u.tenant as usize + 1);
        }
    }
    for (rec, &c) in out.iter_mut().zip(&counts) {
        rec.by_job.reserve_exact(c);
    }
    let mut by_tenant = Sums::new(out.len(), tenants);
    for u in &result.job_usage {
        if let Some(rec) = out.get_mut(u.pool as usize) {
            rec.by_job.push((u.job as usize, u.tenant, u.gpu_ms));
            by_tenant.add(u.pool as usize, u.tenant as usize, 0, u.gpu_ms);
        }
    }
    for ((pool, tenant), ms) in by_tenant.into_sorted() {
        out[pool].by_tenant.push((tenant as u32, ms));
    }
    out
}

/// The costs of a finished run under its prices: the pools' bills (the savings plan
/// settled over the on-demand ones), attributed to jobs and tenants; data moved with
/// checkpoints; then each completed job's traffic. `tenant_of` gives job `i`'s tenant.
/// The one costing step of the run path.
pub fn price_run(
    result: &RunResult,
    pricing: &RunPricing,
    tenant_of: impl Fn(usize) -> u32,
) -> RunCost {
    let usage = usage_records(result);
    let mut bills = bills(&usage, &pricing.pools);
    let mut plan_rows = Vec::new();
    let mut unused = Vec::new();
    if let Some(plan) = &pricing.savings_plan {
        let s = plan.settle(&usage, &pricing.pools, result.end);
        let is_covered = |p: usize| s.covered.contains(&p);
        let compute = |k: CostKind| matches!(k, CostKind::BusyCompute | CostKind::IdleCompute);
        let listed: f64 = bills
            .iter()
            .enumerate()
            .filter(|(p, _)| is_covered(*p))
            .flat_map(|(_, b)| b.iter().flat_map(|b| b.charges.iter()))
            .filter(|c| compute(c.busy) && compute(c.idle))
            .map(|c| c.usd)
            .sum();
        if s.list_by_pool.iter().sum::<f64>() > 0.0 && listed > 0.0 {
            let factor = s.consumed / listed;
            for (p, b) in bills.iter_mut().enumerate() {
                let Some(b) = b.as_mut().filter(|_| is_covered(p)) else {
                    continue;
                };
                for c in b.charges.iter_mut() {
                    if compute(c.busy) && compute(c.idle) {
                        c.usd *= factor;
                    }
                }
            }
        }
        unused = s.unused_by_pool.clone();
        for t in &s.terms {
            plan_rows.push(CommitmentUse {
                pool: None,
                kind: "savings_plan",
                term_h: (
                    t.start.hours_f64(),
                    if t.end == crate::engine::SimTime::NEVER {
                        f64::INFINITY
                    } else {
                        t.end.hours_f64()
                    },
                ),
                owed_usd: t.owed,
                used_usd: t.owed - t.unused,
            });
        }
    }
    let mut cost = attribute(
        result.jobs.len(),
        &usage,
        &pricing.pools,
        &bills,
        &result.job_busy_by_period,
    );
    for (p, usd) in unused {
        cost.ledger.add(
            LedgerKey {
                pool: p as u32,
                tenant: None,
                kind: CostKind::UnusedCommitment,
            },
            usd,
        );
    }
    cost.commitments.extend(plan_rows);
    book_moves(&mut cost, result, &pricing.moves);
    book_staging(&mut cost, result, &tenant_of);
    if let Some(t) = &pricing.transfer {
        apply_transfer(&mut cost, result, t, tenant_of);
    }
    cost
}

/// The pools' bills alone (no savings plan, no data transfer), attributed.
pub fn run_cost(result: &RunResult, pricing: &[PoolPricing]) -> RunCost {
    let usage = usage_records(result);
    let bills = bills(&usage, pricing);
    attribute(
        result.jobs.len(),
        &usage,
        pricing,
        &bills,
        &result.job_busy_by_period,
    )
}

/// The ledger of the pools' bills alone (see [`run_cost`]).
pub fn ledger_from_run(result: &RunResult, pricing: &[PoolPricing]) -> Ledger {
    run_cost(result, pricing).ledger
}

fn bills(usage: &[UsageRecord], pricing: &[PoolPricing]) -> Vec<Option<Bill>> {
    usage
        .iter()
        .enumerate()
        .map(|(p, u)| pricing.get(p).map(|m| m.bill(u)))
        .collect()
}

/// Which of a pool's jobs a line's busy dollars go to: all that ran in the pool, those
/// that ran inside a commitment's term, or those that ran outside every term of the bill
/// (a reservation's on-demand fallback).
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
enum Scope {
    Whole,
    Term(SimTime, SimTime),
    Outside,
}

/// A term in hours from the run's start as simulated times (as the models' periods).
fn term_times((a, b): (f64, f64)) -> (SimTime, SimTime) {
    let at = |h: f64| {
        if h.is_finite() {
            SimTime::from_hours_f64(h.max(0.0))
        } else if h > 0.0 {
            SimTime::NEVER
        } else {
            SimTime::ZERO
        }
    };
    (at(a), at(b))
}

/// When [`weights`] would weigh every job of the pool by its whole GPU-time (no split,
/// or the whole scope), the total the weights divide by (`max(1)` of the sum), so the
/// caller reads them in place: `ms as f64 / total as f64`, the same weights.
fn whole_weights(
    u: &UsageRecord,
    periods: &[(u32, SimTime, SimTime, u128)],
    scope: Scope,
) -> Option<u128> {
    (periods.is_empty() || scope == Scope::Whole)
        .then(|| u.by_job.iter().map(|&(_, _, ms)| ms).sum::<u128>().max(1))
}

/// Each job's weight (its share of the GPU-time) within `scope`, as `(job, tenant,
/// weight)`: from the per-period split when the pool has one, else (or when nobody ran
/// in the scope) over all the pool's jobs.
fn weights(
    u: &UsageRecord,
    periods: &[(u32, SimTime, SimTime, u128)],
    terms: &[(SimTime, SimTime)],
    scope: Scope,
) -> Vec<(usize, u32, f64)> {
    let whole = || {
        let total: u128 = u.by_job.iter().map(|&(_, _, ms)| ms).sum();
        u.by_job
            .iter()
            .map(|&(j, t, ms)| (j, t, ms as f64 / total.max(1) as f64))
            .collect()
    };
    if periods.is_empty() || scope == Scope::Whole {
        return whole();
    }
    let inside = |f: SimTime, t: SimTime, (a, b): (SimTime, SimTime)| f >= a && t <= b;
    let mut ms: BTreeMap<u32, u128> = BTreeMap::new();
    for &(job, f, t, x) in periods {
        let keep = match scope {
            Scope::Term(a, b) => inside(f, t, (a, b)),
            _ => !terms.iter().any(|&w| inside(f, t, w)),
        };
        if keep {
            *ms.entry(job).or_insert(0) += x;
        }
    }
    let total: u128 = ms.values().sum();
    if total == 0 {
        return whole();
    }
    let tenant: BTreeMap<usize, u32> = u.by_job.iter().map(|&(j, t, _)| (j, t)).collect();
    ms.into_iter()
        .map(|(j, x)| {
            let j = j as usize;
            (
                j,
                tenant.get(&j).copied().unwrap_or(0),
                x as f64 / total as f64,
            )
        })
        .collect()
}

/// Books each pool's bill: each line's busy share to the jobs that ran there by the
/// GPU-time they held (a commitment's line: the GPU-time they held inside its term; a
/// reservation's fallback line: outside its terms), and to their tenants as the sum of
/// their jobs; the rest to nobody; and each commitment's line as its use. `periods` is
/// each pool's busy GPU-time split job by job at its billing periods
/// ([`RunResult::job_busy_by_period`]; empty: no split).
fn attribute(
    jobs: usize,
    usage: &[UsageRecord],
    pricing: &[PoolPricing],
    bills: &[Option<Bill>],
    periods: &[Vec<(u32, SimTime, SimTime, u128)>],
) -> RunCost {
    let mut ledger = Ledger::default();
    let mut job_usd = vec![0.0; jobs];
    let mut commitments = Vec::new();
    for (p, (u, bill)) in usage.iter().zip(bills).enumerate() {
        let Some(bill) = bill else { continue };
        let pool = p as u32;
        let job_ms: u128 = u.by_job.iter().map(|&(_, _, ms)| ms).sum();
        let split = periods.get(p).map_or(&[][..], |v| v.as_slice());
        let terms: Vec<(SimTime, SimTime)> = bill
            .charges
            .iter()
            .filter_map(|c| c.term.map(term_times))
            .collect();
        // Busy dollars of the pool by the jobs they go to and kind, in booking order.
        let mut busy: Vec<(Scope, CostKind, f64)> = Vec::new();
        for charge in &bill.charges {
            let share = if job_ms > 0 {
                bill.share_of(charge, u)
            } else {
                0.0
            };
            let busy_usd = charge.usd * share;
            ledger.add(
                LedgerKey {
                    pool,
                    tenant: None,
                    kind: charge.idle,
                },
                charge.usd - busy_usd,
            );
            let scope = match charge.term {
                _ if split.is_empty() => Scope::Whole,
                Some(t) => {
                    let (a, b) = term_times(t);
                    Scope::Term(a, b)
                }
                None if terms.is_empty() => Scope::Whole,
                None => Scope::Outside,
            };
            match busy
                .iter_mut()
                .find(|(s, k, _)| *s == scope && *k == charge.busy)
            {
                Some(b) => b.2 += busy_usd,
                None => busy.push((scope, charge.busy, busy_usd)),
            }
            if let Some(term_h) = charge.term {
                commitments.push(CommitmentUse {
                    pool: Some(pool),
                    kind: pricing.get(p).map_or("", |m| m.kind_name()),
                    term_h,
                    owed_usd: charge.usd,
                    used_usd: busy_usd,
                });
            }
        }
        if job_ms == 0 {
            continue;
        }
        // Each (tenant, kind)'s dollars, summed in job order per kind as a map of them
        // would sum them, but in a dense table (a million jobs: no map lookup each).
        let kinds: Vec<CostKind> = {
            let mut k: Vec<CostKind> = busy.iter().map(|b| b.1).collect();
            k.sort();
            k.dedup();
            k
        };
        let tenant_count = u.by_job.iter().map(|b| b.1 as usize + 1).max().unwrap_or(1);
        let mut sums = Sums::new(tenant_count, kinds.len());
        let mut scopes: Vec<Scope> = Vec::new();
        for &(s, _, _) in &busy {
            if !scopes.contains(&s) {
                scopes.push(s);
            }
        }
        for scope in scopes {
            let mut book = |j: usize, tenant: u32, w: f64, kind: usize, usd: f64| {
                let x = usd * w;
                sums.add(tenant as usize, kind, 0.0, x);
                if let Some(slot) = job_usd.get_mut(j) {
                    *slot += x;
                }
            };
            let lines = busy
                .iter()
                .filter(|b| b.0 == scope)
                .map(|&(_, kind, usd)| (kinds.binary_search(&kind).unwrap_or(0), usd));
            match whole_weights(u, split, scope) {
                // Every job of the pool by its share: read in place, not gathered.
                Some(total) => {
                    for (kind, usd) in lines {
                        for &(j, tenant, ms) in &u.by_job {
                            book(j, tenant, ms as f64 / total as f64, kind, usd);
                        }
                    }
                }
                None => {
                    let ws = weights(u, split, &terms, scope);
                    for (kind, usd) in lines {
                        for &(j, tenant, w) in &ws {
                            book(j, tenant, w, kind, usd);
                        }
                    }
                }
            }
        }
        let tenants = sums
            .into_sorted()
            .into_iter()
            .map(|((tenant, kind), usd)| ((tenant as u32, kinds[kind]), usd));
        for ((tenant, kind), usd) in tenants {
            ledger.add(
                LedgerKey {
                    pool,
                    tenant: Some(tenant),
                    kind,
                },
                usd,
            );
        }
    }
    RunCost {
        ledger,
        job_usd,
        commitments,
    }
}

/// Books each checkpoint moved between places to its destination pool, the job and its
/// Books each job's dataset transfers (priced by the simulation's staging part at the
/// link's catalog price, tiers by the month's volume) to its pool, tenant and itself.
fn book_staging(cost: &mut RunCost, result: &RunResult, tenant_of: &impl Fn(usize) -> u32) {
    let Some(c) = &result.cloud else { return };
    for (i, (j, r)) in c.jobs.iter().zip(&result.jobs).enumerate() {
        if let (Some(pool), true) = (r.pool, j.transfer_usd != 0.0) {
            cost.ledger.add(
                LedgerKey {
                    pool,
                    tenant: Some(tenant_of(i)),
                    kind: CostKind::Transfer,
                },
                j.transfer_usd,
            );
            if let Some(x) = cost.job_usd.get_mut(i) {
                *x += j.transfer_usd;
            }
        }
    }
}

/// tenant, at the move's price.
fn book_moves(cost: &mut RunCost, result: &RunResult, moves: &Egress) {
    let Some(f) = &result.faults else { return };
    let scope = |k: TransferKind| match k {
        TransferKind::CrossZone => MoveScope::CrossZone,
        TransferKind::CrossRegion => MoveScope::CrossRegion,
    };
    let prices = moves.move_charges(f.transfers.iter().map(|m| (m.gb, scope(m.kind))));
    for (m, usd) in f.transfers.iter().zip(prices) {
        cost.ledger.add(
            LedgerKey {
                pool: m.pool,
                tenant: Some(m.tenant),
                kind: CostKind::Transfer,
            },
            usd,
        );
        if let Some(x) = cost.job_usd.get_mut(m.job as usize) {
            *x += usd;
        }
    }
}

/// Charges each completed job's traffic (as [`price_run`] does), in order of end time, at
/// [`TransferSpec::job_charges`]; booked to the job's pool and tenant as `transfer`.
pub fn apply_transfer(
    cost: &mut RunCost,
    result: &RunResult,
    spec: &TransferSpec,
    tenant_of: impl Fn(usize) -> u32,
) {
    let mut done: Vec<(u64, usize, u32)> = result
        .jobs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.outcome == crate::sim::JobOutcome::Completed)
        .filter_map(|(i, r)| Some((r.end?.0, i, r.pool?)))
        .collect();
    done.sort_unstable();
    let ends: Vec<crate::engine::SimTime> = done
        .iter()
        .map(|&(end, _, _)| crate::engine::SimTime(end))
        .collect();
    for (&(_, i, pool), usd) in done.iter().zip(spec.job_charges(&ends)) {
        if usd != 0.0 {
            cost.ledger.add(
                LedgerKey {
                    pool,
                    tenant: Some(tenant_of(i)),
                    kind: CostKind::Transfer,
                },
                usd,
            );
            cost.job_usd[i] += usd;
        }
    }
}
