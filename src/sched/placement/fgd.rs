//! Fragmentation gradient descent (Weng et al., "Beware of Fragmentation: Scheduling
//! GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC'23), from the
//! paper's definitions.
//!
//! A node's fragmentation for one task type is the free GPU capacity that task could not
//! use there: all of it when the task cannot run on the node at all (too little CPU, no
//! GPU of its model, not enough GPU room), otherwise the free milli-GPU of each GPU too
//! small for the task's request (for whole-GPU tasks: every partly used GPU). A CPU-only
//! task that fits leaves no fragment. The node's fragmentation for the workload is the
//! popularity-weighted sum over the typical task types. A task goes where (node and GPU)
//! that fragmentation grows least.

use super::{
    apply, fits, share_picks, Choice, GpuPick, NodeState, NodeType, Placement, PlacementContext,
    Task, FULL,
};
use super::node::task_shape;
use crate::model::{TypeMask, Workload};
use std::collections::HashMap;
use std::sync::Mutex;

/// The typical workload: task types (memory ignored) with their popularity (counts).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TypicalWorkload {
    /// Task types and how many tasks of each the trace holds, most popular first.
    pub types: Vec<(Task, u64)>,
}

impl TypicalWorkload {
    /// Task types in order of popularity (task count), taken until they cover
    /// `coverage` (0..=1) of the trace's GPU demand; CPU-only types are kept in their
    /// place in that order (they add no GPU demand, but do count as task types). Each
    /// type's weight is its task count. Ties in popularity go by the type's fields, so the
    /// result never depends on input order.
    ///
    /// Coverage counts GPU demand, not tasks: by task count, 95 % leaves out the
    /// 8-GPU tasks (0.5 % of openb's pods but 5.8 % of its GPU demand), FGD then sees no
    /// cost in breaking up empty 8-GPU nodes and falls about 3.7 points below the
    /// artifact's curve.
    pub fn from_tasks<'a>(tasks: impl IntoIterator<Item = &'a Task>, coverage: f64) -> Self {
        let mut counts: HashMap<Task, u64> = HashMap::new();
        for t in tasks {
            let key = Task { mem_mib: 0, ..*t };
            *counts.entry(key).or_insert(0) += 1;
        }
        let mut all: Vec<(Task, u64)> = counts.into_iter().collect();
        all.sort_by(|a, b| {
            let ka = (a.0.cpu_milli, a.0.num_gpu, a.0.gpu_milli, a.0.models.0);
            let kb = (b.0.cpu_milli, b.0.num_gpu, b.0.gpu_milli, b.0.models.0);
            b.1.cmp(&a.1).then(ka.cmp(&kb))
        });
        let gpu_total: u64 = all.iter().map(|(t, c)| t.gpu_total() * c).sum();
        let need = (coverage.clamp(0.0, 1.0) * gpu_total as f64).ceil() as u64;
        let mut types = Vec::new();
        let mut cum = 0u64;
        for (t, c) in all {
            if cum >= need && !types.is_empty() {
                break;
            }
            cum += t.gpu_total() * c;
            types.push((t, c));
        }
        TypicalWorkload { types }
    }

    /// The typical workload of a time-based workload's jobs (single-node shapes; 95 % of
    /// the GPU demand, as in the experiment).
    pub fn of_workload(w: &Workload) -> Self {
        let tasks: Vec<Task> = w
            .jobs
            .iter()
            .map(|j| {
                let (num_gpu, gpu_milli) = task_shape(j.gpus);
                Task {
                    cpu_milli: j.cpu_milli,
                    mem_mib: 0,
                    num_gpu,
                    gpu_milli,
                    models: TypeMask::ANY,
                }
            })
            .collect();
        TypicalWorkload::from_tasks(&tasks, 0.95)
    }
}

/// Free milli-GPU of a node that task `t` could not use.
pub fn task_fragment(ty: &NodeType, node: &NodeState, t: &Task) -> u64 {
    if ty.gpus == 0 {
        return 0;
    }
    let all = node.gpu_free_total();
    if node.cpu_free < t.cpu_milli {
        return all;
    }
    if t.num_gpu == 0 {
        return 0;
    }
    if !ty.model.is_some_and(|m| t.models.allows(m)) {
        return all;
    }
    if t.is_shared() {
        let m = t.gpu_milli as u16;
        if node.gpu_free.first().is_none_or(|&f| f < m) {
            return all;
        }
        node.gpu_free
            .iter()
            .filter(|&&f| f < m)
            .map(|&f| f as u64)
            .sum()
    } else {
        if node.full_gpus() < t.num_gpu as usize {
            return all;
        }
        node.gpu_free
            .iter()
            .filter(|&&f| f < FULL)
            .map(|&f| f as u64)
            .sum()
    }
}

/// FGD placement, with a cache of each node state's fragmentation.
#[derive(Debug, Default)]
pub struct Fgd {
    typical: TypicalWorkload,
    cache: Mutex<HashMap<NodeState, u64>>,
}

impl Fgd {
    /// FGD against `typical`.
    pub fn new(typical: TypicalWorkload) -> Fgd {
        Fgd {
            typical,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The node's fragmentation for the typical workload: sum over task types of
    /// popularity (count) times [`task_fragment`], in milli-GPU x tasks.
    pub fn fragmentation(&self, ty: &NodeType, node: &NodeState) -> u64 {
        // A poisoned lock only means another thread panicked mid-insert: the map is fine.
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&f) = cache.get(node) {
            return f;
        }
        let f = self
            .typical
            .types
            .iter()
            .map(|(t, w)| w * task_fragment(ty, node, t))
            .sum();
        cache.insert(node.clone(), f);
        f
    }
}

impl Placement for Fgd {
    fn build(ctx: &PlacementContext) -> Self {
        Fgd::new(ctx.typical().clone())
    }
    fn choose(&self, ty: &NodeType, node: &NodeState, task: &Task) -> Option<Choice> {
        if !fits(ty, node, task) {
            return None;
        }
        let before = self.fragmentation(ty, node) as i64;
        let mut best: Option<(i64, GpuPick)> = None;
        let mut consider = |pick: GpuPick| {
            let after = self.fragmentation(ty, &apply(node, task, pick)) as i64;
            let d = after - before;
            // `<=`: among equal growth the later (tighter) GPU wins.
            if best.is_none_or(|(b, _)| d <= b) {
                best = Some((d, pick));
            }
        };
        if task.is_shared() {
            for p in share_picks(node, task) {
                consider(p);
            }
        } else if task.num_gpu == 0 {
            consider(GpuPick::NoGpu);
        } else {
            consider(GpuPick::Whole);
        }
        best.map(|(d, pick)| Choice {
            score: -(d as f64),
            pick,
        })
    }
}
