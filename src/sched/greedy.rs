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
//! request of the same kind already failed in this pass.

use super::{QueuePolicy, SchedCtx};
use crate::model::{GpuRequest, Job, JobId, TypeMask};
use std::collections::{BTreeSet, HashMap};
use std::ops::Bound;

/// The order in which greedy list scheduling tries waiting jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GreedyKey {
    /// Submit time, ties by job id.
    Arrival,
    /// True duration (work on the reference GPU), ties by job id.
    ShortestDuration,
}

type Shape = (GpuRequest, TypeMask, bool, u32, u64);

/// Greedy list scheduling.
#[derive(Debug)]
pub struct Greedy {
    key: GreedyKey,
    classes: Vec<BTreeSet<(u64, JobId)>>,
    shapes: Vec<Shape>,
    class_index: HashMap<Shape, u32>,
    heads: BTreeSet<(u64, JobId, u32)>,
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
fn dominated(failed: &Shape, cand: &Shape, min_gpn: u32) -> bool {
    if failed.1 != cand.1 || failed.2 != cand.2 || cand.3 < failed.3 || cand.4 < failed.4 {
        return false;
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
            self.classes.push(BTreeSet::new());
            self.shapes.push(shape);
            (self.classes.len() - 1) as u32
        });
        let k = self.key_of(job);
        let class = &mut self.classes[c as usize];
        if let Some(&(hk, hid)) = class.first() {
            if (k, id) < (hk, hid) {
                self.heads.remove(&(hk, hid, c));
                self.heads.insert((k, id, c));
            }
        } else {
            self.heads.insert((k, id, c));
        }
        class.insert((k, id));
        self.len += 1;
    }

    fn len(&self) -> usize {
        self.len
    }

    fn schedule(&mut self, ctx: &mut SchedCtx) {
        let min_gpn = ctx
            .cluster
            .pools()
            .iter()
            .map(|p| p.spec.node.gpus as u32)
            .min()
            .unwrap_or(0);
        let mut failed: Vec<Shape> = Vec::new();
        let mut cursor: Option<(u64, JobId, u32)> = None;
        loop {
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
            if failed.iter().any(|f| dominated(f, &shape, min_gpn)) {
                continue;
            }
            if ctx.try_start(id, None) {
                self.len -= 1;
                self.heads.remove(&h);
                let class = &mut self.classes[c as usize];
                class.remove(&(k, id));
                // The group's next job sorts after the cursor, so this pass reaches it.
                if let Some(&(k2, id2)) = class.first() {
                    self.heads.insert((k2, id2, c));
                }
            } else if failed.len() < 32 {
                failed.push(shape);
            }
        }
    }
}
