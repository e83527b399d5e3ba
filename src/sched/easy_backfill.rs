//! EASY backfill (Lifka, 1995; Mu'alem & Feitelson, 2001): jobs start in arrival order;
//! when the head cannot start it gets a reservation (the earliest time, by the running
//! jobs' estimates, at which it fits, and the nodes it would use then); a later job may
//! start now if it does not delay that reservation: it ends by the reservation time, or it
//! uses none of the reserved nodes.
//!
//! Speed: waiting jobs are grouped by request shape (GPUs, allowed types, preemptible);
//! each group keeps a min-tree over estimates, so "the earliest waiting job of this shape
//! that ends in time" costs O(log n). A pass looks at each shape once per job it starts,
//! never at every waiting job. The reservation is cached until the head changes, a job
//! ends earlier than planned, or capacity changes.
//!
//! One simplification: the shape does not include CPU and memory. When a shape's chosen
//! job fits by GPU but not by CPU or memory, the shape is skipped for the rest of the pass
//! (a later job of that shape with smaller CPU needs waits for the next pass).

use super::{ClassQueue, QueuePolicy, SchedCtx};
use crate::engine::SimTime;
use crate::model::{
    Allocation, GpuRequest, Job, JobId, JobMap, ReservedNodes, TypeMask, MILLI_PER_GPU,
};
use std::collections::{HashMap, VecDeque};

type ClassKey = (GpuRequest, TypeMask, bool);

/// The head job's reservation.
#[derive(Debug, Clone)]
struct Plan {
    head: JobId,
    pool: usize,
    shadow: SimTime,
    reserved: ReservedNodes,
}

/// EASY backfill policy.
#[derive(Debug, Default)]
pub struct EasyBackfill {
    order: VecDeque<JobId>,
    queued: JobMap<(u32, usize)>,
    classes: Vec<ClassQueue>,
    class_index: HashMap<ClassKey, u32>,
    next_seq: u64,
    plan: Option<Plan>,
    log: Option<Vec<(JobId, SimTime)>>,
}

impl EasyBackfill {
    /// A policy that records every reservation it makes (for tests and diagnostics).
    pub fn with_log() -> Self {
        EasyBackfill {
            log: Some(Vec::new()),
            ..Default::default()
        }
    }

    fn head(&mut self) -> Option<JobId> {
        while let Some(&id) = self.order.front() {
            if self.queued.contains_key(&id) {
                return Some(id);
            }
            self.order.pop_front();
        }
        None
    }

    fn dequeue(&mut self, id: JobId) {
        if let Some((c, pos)) = self.queued.remove(&id) {
            self.classes[c as usize].remove(pos);
        }
    }

    /// Where `id` could start now without delaying `plan` (not taking it yet).
    fn placement(ctx: &SchedCtx, id: JobId, plan: &Plan) -> Option<(Allocation, SimTime)> {
        let job = &ctx.jobs[id as usize];
        ctx.first_fit(id, |p| {
            let end = ctx
                .now
                .plus(ctx.pools.runtime_for(job, job.planned_work(), p));
            let avoid = (p == plan.pool && end > plan.shadow).then_some(&plan.reserved);
            let a = ctx
                .placer
                .find(ctx.cluster, p, job.gpus, job.cpu_milli, job.mem_mib, avoid)?;
            ctx.within_budget(id, &a, end).then_some((a, end))
        })
    }

    fn make_plan(ctx: &SchedCtx, head: JobId) -> Plan {
        let job = &ctx.jobs[head as usize];
        let mut best = Plan {
            head,
            pool: usize::MAX,
            shadow: SimTime::NEVER,
            reserved: ReservedNodes::default(),
        };
        for p in ctx.pools.eligible(job) {
            if let Some((shadow, reserved)) = project(ctx, p, job) {
                if shadow < best.shadow {
                    best = Plan {
                        head,
                        pool: p,
                        shadow,
                        reserved,
                    };
                }
            }
        }
        best
    }
}

/// When, by planned ends, `job` first fits in pool `p`, and on which nodes.
fn project(ctx: &SchedCtx, p: usize, job: &Job) -> Option<(SimTime, ReservedNodes)> {
    let cluster = &*ctx.cluster;
    let k = cluster.nodes_needed(p, job.gpus, job.cpu_milli, job.mem_mib)?;
    let gpn = cluster.pools()[p].spec.node.gpus as u32;
    let (cpu, mem) = (job.cpu_milli.div_ceil(k), job.mem_mib.div_ceil(k as u64));
    let gang = matches!(job.gpus, GpuRequest::Whole(w) if w > gpn);
    let full = MILLI_PER_GPU as u16;
    let currently_free: Vec<u32> = if gang {
        cluster
            .free_nodes(p)
            .iter()
            .copied()
            .filter(|&n| {
                let (c, m) = cluster.node_free_host(n);
                c >= cpu && m >= mem
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut overlay: HashMap<u32, (Vec<u16>, u32, u64)> = HashMap::new();
    let mut newly_free: Vec<u32> = Vec::new();
    for (end, rid) in ctx.running.by_planned_end(p) {
        let Some(r) = ctx.running.get(rid) else {
            continue;
        };
        for &(n, c, m) in &r.alloc.hosts {
            let e = overlay.entry(n).or_insert_with(|| {
                let (fc, fm) = cluster.node_free_host(n);
                (cluster.node_free_milli(n).to_vec(), fc, fm)
            });
            e.1 += c;
            e.2 += m;
        }
        for s in &r.alloc.gpus {
            if let Some(e) = overlay.get_mut(&s.node) {
                e.0[s.gpu as usize] += s.milli;
            }
        }
        let when = end.max(ctx.now);
        for &(n, _, _) in &r.alloc.hosts {
            if !cluster.is_up(n) {
                continue;
            }
            let (gpus, c, m) = &overlay[&n];
            if *c < cpu || *m < mem {
                continue;
            }
            let fits = match job.gpus {
                GpuRequest::None => true,
                GpuRequest::Fraction(f) => gpus.iter().any(|&g| g >= f),
                GpuRequest::Whole(w) if !gang => {
                    gpus.iter().filter(|&&g| g == full).count() as u32 >= w
                }
                GpuRequest::Whole(_) => gpus.iter().all(|&g| g == full),
            };
            if !fits {
                continue;
            }
            if !gang {
                return Some((when, ReservedNodes(vec![n])));
            }
            if !newly_free.contains(&n) && !currently_free.contains(&n) {
                newly_free.push(n);
            }
            if newly_free.len() + currently_free.len() >= k as usize {
                let mut nodes = newly_free.clone();
                nodes.extend(
                    currently_free
                        .iter()
                        .rev()
                        .take(k as usize - newly_free.len()),
                );
                nodes.sort_unstable();
                return Some((when, ReservedNodes(nodes)));
            }
        }
    }
    None
}

impl QueuePolicy for EasyBackfill {
    fn name(&self) -> &'static str {
        "easy_backfill"
    }

    fn push(&mut self, id: JobId, job: &Job) {
        let key = (job.gpus, job.gpu_types, job.preemptible);
        let c = *self.class_index.entry(key).or_insert_with(|| {
            self.classes.push(ClassQueue::default());
            (self.classes.len() - 1) as u32
        });
        let seq = self.next_seq;
        self.next_seq += 1;
        let pos = self.classes[c as usize].push(id, seq, job.planned_work().0);
        self.queued.insert(id, (c, pos));
        self.order.push_back(id);
    }

    fn len(&self) -> usize {
        self.queued.len()
    }

    fn invalidate(&mut self) {
        self.plan = None;
    }

    fn schedule(&mut self, ctx: &mut SchedCtx) {
        // 1. Start jobs in arrival order while the head fits.
        let head = loop {
            let Some(head) = self.head() else { return };
            if !ctx.try_start(head, None) {
                break head;
            }
            self.dequeue(head);
        };
        // The head waits; it is not a backfill candidate.
        if let Some(&(c, pos)) = self.queued.get(&head) {
            self.classes[c as usize].remove(pos);
        }
        // 2. Its reservation (cached while still valid).
        if self.plan.as_ref().is_none_or(|p| p.head != head) {
            let plan = Self::make_plan(ctx, head);
            if let Some(log) = &mut self.log {
                log.push((head, plan.shadow));
            }
            self.plan = Some(plan);
        }
        let Some(plan) = self.plan.clone() else {
            return;
        };
        // 3. Backfill: repeatedly start the earliest-arrived job that does not delay it.
        let mut blocked = vec![false; self.classes.len()];
        loop {
            let mut best: Option<(u64, JobId, usize, Allocation, SimTime)> = None;
            for (c, q) in self.classes.iter().enumerate() {
                if blocked[c] || q.is_empty() {
                    continue;
                }
                let Some((_, first, seq)) = q.first() else {
                    continue;
                };
                if best.as_ref().is_some_and(|b| b.0 < seq) {
                    continue; // nothing in this class arrived before the best so far
                }
                let cand = match Self::placement(ctx, first, &plan) {
                    Some((a, end)) => Some((seq, first, a, end)),
                    None => {
                        // Only a job that ends before the reservation can still start.
                        let job = &ctx.jobs[first as usize];
                        let max_speed = ctx.pools.max_speed_for(job);
                        let window = plan.shadow.since(ctx.now).0 as f64 * max_speed;
                        let window = if plan.shadow == SimTime::NEVER {
                            u64::MAX - 1
                        } else {
                            window as u64
                        };
                        match q.first_le(window) {
                            Some((_, id, s)) if id != first => {
                                Self::placement(ctx, id, &plan).map(|(a, end)| (s, id, a, end))
                            }
                            _ => None,
                        }
                    }
                };
                match cand {
                    Some((s, id, a, end)) => {
                        if best.as_ref().is_none_or(|b| s < b.0) {
                            best = Some((s, id, c, a, end));
                        }
                    }
                    None => blocked[c] = true,
                }
            }
            let Some((_, id, _, a, end)) = best else {
                break;
            };
            self.dequeue(id);
            ctx.start(id, a, end);
        }
    }

    fn reservation_log(&self) -> Option<&[(JobId, SimTime)]> {
        self.log.as_deref()
    }
}
