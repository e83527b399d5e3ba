//! Greedy list scheduling (the PAI-2020 simulator's policies): at each pass, take the
//! waiting jobs in key order and start every one that fits; a job that does not fit does
//! not block the jobs behind it, and nothing is reserved for it.
//!
//! Keys: arrival (submit time, ties by job id) or shortest true duration (ties by job id).
//!
//! Speed: waiting jobs are grouped by exact request shape (GPUs, allowed types,
//! preemptible, CPU, memory); each group is sorted by key, and an index holds each
//! group's first job. Within a pass free capacity only shrinks, so once a group's first
//! job does not fit, no job of that group fits: the pass visits each group's head once
//! plus one step per job it starts, O((C + s) log n) for C groups and s starts, never the
//! whole queue. A group is also skipped without a placement attempt when a smaller
//! request of the same kind already failed in this pass, or when its first job did not
//! fit at the end of an earlier pass and nothing in the cluster changed since (after an
//! arrival, say). A pass ends once no waiting request could fit any pool's free GPUs
//! (`needs.rs`: the smallest request against each pool's largest free node), so a queue
//! of many shapes (every job its own CPU or memory) is not walked after the cluster
//! filled up: 60,000 such jobs in overload took minutes. A group keeps the jobs that
//! come in key order (arrivals, under the arrival key) in a queue, O(1) to add and take,
//! and only the others (requeued jobs, shortest-first keys) in an ordered set.

use super::needs::LiveNeeds;
use super::{QueuePolicy, SchedCtx};
use crate::model::{GpuRequest, Job, JobId, TypeMask};
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::ops::Bound;

/// The order in which greedy list scheduling tries waiting jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GreedyKey {
    /// Submit time, ties by job id.
    Arrival,
    /// True duration (work on the reference GPU), ties by job id.
    ShortestDuration,
}

/// A request's shape: GPUs, allowed types, preemptible, CPU milli, memory MiB.
pub(crate) type Shape = (GpuRequest, TypeMask, bool, u32, u64);

/// One shape's waiting jobs in key order: those pushed in key order in a queue, the
/// rest in an ordered set; the group's first job is the smaller of the two fronts.
#[derive(Debug, Default)]
struct Group {
    in_order: VecDeque<(u64, JobId)>,
    late: BTreeSet<(u64, JobId)>,
}

impl Group {
    fn first(&self) -> Option<(u64, JobId)> {
        match (self.in_order.front(), self.late.first()) {
            (Some(&a), Some(&b)) => Some(a.min(b)),
            (a, b) => a.or(b).copied(),
        }
    }

    fn insert(&mut self, e: (u64, JobId)) {
        match self.in_order.back() {
            Some(&last) if e < last => {
                self.late.insert(e);
            }
            _ => self.in_order.push_back(e),
        }
    }

    /// Removes the first job, which is `e`.
    fn pop_first(&mut self, e: (u64, JobId)) {
        if self.in_order.front() == Some(&e) {
            self.in_order.pop_front();
        } else {
            self.late.remove(&e);
        }
    }
}

/// Greedy list scheduling.
#[derive(Debug)]
pub struct Greedy {
    key: GreedyKey,
    classes: Vec<Group>,
    shapes: Vec<Shape>,
    class_index: HashMap<Shape, u32>,
    heads: BTreeSet<(u64, JobId, u32)>,
    /// Per group: its first job when it last did not fit, and the cluster's change count
    /// at the end of that pass (`u64::MAX`: none). Free capacity only shrinks within a
    /// pass, so while the count and the job are unchanged the job still cannot start.
    stuck_at: Vec<(u64, JobId)>,
    /// The requests of the groups with a job waiting (a pass ends when none could fit).
    needs: LiveNeeds,
    len: usize,
}

impl Greedy {
    /// Greedy with the given key.
    pub fn new(key: GreedyKey) -> Greedy {
        Greedy {
            key,
            classes: Vec::new(),
            shapes: Vec::new(),
            class_index: HashMap::new(),
            heads: BTreeSet::new(),
            stuck_at: Vec::new(),
            needs: LiveNeeds::default(),
            len: 0,
        }
    }

    fn key_of(&self, job: &Job) -> u64 {
        match self.key {
            GreedyKey::Arrival => job.submit.0,
            GreedyKey::ShortestDuration => job.work.0,
        }
    }
}

/// True when `cand` cannot fit if `failed` did not (same types and spot eligibility,
/// at least as much of everything, and a request that is placed the same way).
pub(crate) fn dominated(failed: &Shape, cand: &Shape, min_gpn: u32) -> bool {
    dominated_in(failed, cand, min_gpn, false)
}

/// As [`dominated`]; with `hostless` (no pool limits CPU or memory, as a fungible pool)
/// CPU and memory do not matter.
pub(crate) fn dominated_in(failed: &Shape, cand: &Shape, min_gpn: u32, hostless: bool) -> bool {
    if failed.1 != cand.1 || failed.2 != cand.2 {
        return false;
    }
    if !hostless && (cand.3 < failed.3 || cand.4 < failed.4) {
        return false;
    }
    if hostless {
        let gpu_ok = match (failed.0, cand.0) {
            (GpuRequest::Fraction(a), GpuRequest::Fraction(b)) => b >= a,
            (GpuRequest::Fraction(_), GpuRequest::Whole(_)) => true,
            (GpuRequest::Whole(a), GpuRequest::Whole(b)) => b >= a,
            _ => false,
        };
        return gpu_ok;
    }
    let gpu_ok = match (failed.0, cand.0) {
        (GpuRequest::None, GpuRequest::None) => true,
        (GpuRequest::Fraction(a), GpuRequest::Fraction(b)) => b >= a,
        (GpuRequest::Fraction(_), GpuRequest::Whole(_)) => true,
        (GpuRequest::Whole(a), GpuRequest::Whole(b)) => b >= a,
        _ => false,
    };
    // A gang job splits its CPU and memory over more nodes than a smaller one, so host
    // needs per node are comparable only when there are none or the job is single-node.
    let host_ok = match cand.0 {
        GpuRequest::Whole(w) if w > min_gpn => (cand.3, cand.4) == (0, 0),
        _ => true,
    };
    gpu_ok && host_ok
}

/// Fewest GPUs per node over the cluster's pools.
pub(crate) fn min_node_gpus(ctx: &SchedCtx) -> u32 {
    ctx.cluster
        .pools()
        .iter()
        .map(|p| p.spec.node.gpus as u32)
        .min()
        .unwrap_or(0)
}

/// A job's shape.
pub(crate) fn shape_of(job: &Job) -> Shape {
    (
        job.gpus,
        job.gpu_types,
        job.preemptible,
        job.cpu_milli,
        job.mem_mib,
    )
}

impl QueuePolicy for Greedy {
    fn name(&self) -> &'static str {
        match self.key {
            GreedyKey::Arrival => "greedy_fifo",
            GreedyKey::ShortestDuration => "greedy_sjf",
        }
    }

    fn push(&mut self, id: JobId, job: &Job) {
        let shape = (
            job.gpus,
            job.gpu_types,
            job.preemptible,
            job.cpu_milli,
            job.mem_mib,
        );
        let c = *self.class_index.entry(shape).or_insert_with(|| {
            self.classes.push(Group::default());
            self.stuck_at.push((u64::MAX, 0));
            self.shapes.push(shape);
            (self.classes.len() - 1) as u32
        });
        let k = self.key_of(job);
        let class = &mut self.classes[c as usize];
        if let Some((hk, hid)) = class.first() {
            if (k, id) < (hk, hid) {
                self.heads.remove(&(hk, hid, c));
                self.heads.insert((k, id, c));
            }
        } else {
            self.heads.insert((k, id, c));
            self.needs.add(job.gpus);
        }
        class.insert((k, id));
        self.len += 1;
    }

    fn len(&self) -> usize {
        self.len
    }

    fn schedule(&mut self, ctx: &mut SchedCtx) {
        let min_gpn = min_node_gpus(ctx);
        let hostless = ctx
            .cluster
            .pools()
            .iter()
            .all(|p| p.spec.node.cpu_milli == u32::MAX && p.spec.node.mem_mib == u64::MAX);
        let mut failed: Vec<Shape> = Vec::new();
        // Groups that did not fit, to mark once the pass is over. Where pools are ranked
        // by data or prices in time, nothing is remembered.
        let memo = ctx.fit_ignores_time();
        let unchanged = ctx.cluster.changes();
        let mut stuck: Vec<(u32, JobId)> = Vec::new();
        let mut cursor: Option<(u64, JobId, u32)> = None;
        // Free capacity only shrinks within a pass: once no waiting request could fit
        // anywhere, the rest of the groups would all fail.
        let mut room = !memo || !self.needs.none_fits(ctx.cluster);
        while room {
            let next = match cursor {
                None => self.heads.first().copied(),
                Some(c) => self
                    .heads
                    .range((Bound::Excluded(c), Bound::Unbounded))
                    .next()
                    .copied(),
            };
            let Some(h) = next else { break };
            cursor = Some(h);
            let (k, id, c) = h;
            let shape = self.shapes[c as usize];
            if memo && self.stuck_at[c as usize] == (unchanged, id) {
                stuck.push((c, id));
                if failed.len() < 32 {
                    failed.push(shape);
                }
                continue;
            }
            if failed
                .iter()
                .any(|f| dominated_in(f, &shape, min_gpn, hostless))
            {
                stuck.push((c, id));
                continue;
            }
            if ctx.try_start(id, None) {
                self.len -= 1;
                self.heads.remove(&h);
                let class = &mut self.classes[c as usize];
                class.pop_first((k, id));
                // The group's next job sorts after the cursor, so this pass reaches it.
                if let Some((k2, id2)) = class.first() {
                    self.heads.insert((k2, id2, c));
                } else {
                    self.needs.remove(shape.0);
                }
                room = !memo || !self.needs.none_fits(ctx.cluster);
            } else {
                stuck.push((c, id));
                if failed.len() < 32 {
                    failed.push(shape);
                }
            }
        }
        if memo {
            let now = ctx.cluster.changes();
            for (c, id) in stuck {
                self.stuck_at[c as usize] = (now, id);
            }
        }
    }
}
