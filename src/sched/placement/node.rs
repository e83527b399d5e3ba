//! What a placement policy sees of a node, and the task it places: the node's hardware
//! ([`NodeType`]), its free capacity and the GPU tags of what it holds ([`NodeState`]),
//! and the helpers every policy shares (does the task fit, which GPU it takes, the state
//! after).
//!
//! A node's GPUs are kept in device order (index = GPU number), as the FGD artifact keeps
//! them (`NodeResource.MilliGpuLeftList`, `pkg/type/resource.go`): some of its rules pick
//! the first GPU in that order among equals.

use crate::model::{GpuRequest, TypeMask, MILLI_PER_GPU};

/// Milli-GPU of one whole GPU, as `u16`.
pub const FULL: u16 = MILLI_PER_GPU as u16;

/// The hardware of a kind of node.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NodeType {
    /// GPU model index (into the caller's model table); `None` for CPU-only nodes.
    pub model: Option<usize>,
    /// GPUs per node.
    pub gpus: u16,
    /// CPU, milli-cores.
    pub cpu_milli: u32,
    /// Memory, MiB.
    pub mem_mib: u64,
}

/// The GPU affinity tags of the tasks a node holds, as the FGD artifact's GPU clustering
/// reads them (`GetGpuAffinityFromPodAnnotation`, `pkg/type/open-gpu-share/utils/pod.go`):
/// every shared-GPU task carries one tag `share-gpu` whatever its size, a task of `n`
/// whole GPUs the tag `n-gpu`, a CPU-only task none. Bit 0 is `share-gpu`, bit `n` is
/// `n-gpu` (tasks of 63 or more whole GPUs share bit 63).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskMix(pub u64);

impl TaskMix {
    /// No GPU task.
    pub const EMPTY: TaskMix = TaskMix(0);

    /// The tag bit of a task of `num_gpu` GPUs of `gpu_milli` each (0 for CPU-only).
    pub fn tag_of(num_gpu: u32, gpu_milli: u32) -> u64 {
        match (num_gpu, gpu_milli) {
            (0, _) => 0,
            (1, m) if m < MILLI_PER_GPU => 1,
            (n, _) => 1u64 << n.min(63),
        }
    }

    /// The tags with `task`'s added.
    pub fn with(self, task: &Task) -> TaskMix {
        TaskMix(self.0 | TaskMix::tag_of(task.num_gpu, task.gpu_milli))
    }

    /// How many distinct tags the node holds.
    pub fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// True when the node holds a task with `task`'s tag.
    pub fn has_tag_of(self, task: &Task) -> bool {
        let t = TaskMix::tag_of(task.num_gpu, task.gpu_milli);
        t != 0 && self.0 & t != 0
    }
}

/// The free capacity of a node: all a placement score may look at.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NodeState {
    /// Index of the node's [`NodeType`].
    pub ty: u32,
    /// Free CPU, milli-cores.
    pub cpu_free: u32,
    /// Free memory, MiB.
    pub mem_free: u64,
    /// Free milli-GPU of each GPU, in device order.
    pub gpu_free: Vec<u16>,
    /// GPU tags of the tasks already placed.
    pub mix: TaskMix,
}

impl NodeState {
    /// An empty node of type `ty` (index `ty_index`).
    pub fn empty(ty_index: u32, ty: &NodeType) -> NodeState {
        NodeState {
            ty: ty_index,
            cpu_free: ty.cpu_milli,
            mem_free: ty.mem_mib,
            gpu_free: vec![FULL; ty.gpus as usize],
            mix: TaskMix::EMPTY,
        }
    }

    /// Free milli-GPU summed over the node's GPUs.
    pub fn gpu_free_total(&self) -> u64 {
        self.gpu_free.iter().map(|&f| f as u64).sum()
    }

    /// Wholly free GPUs.
    pub fn full_gpus(&self) -> usize {
        self.gpu_free.iter().filter(|&&f| f == FULL).count()
    }
}

/// One task to place: a single pod on a single node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Task {
    /// CPU, milli-cores.
    pub cpu_milli: u32,
    /// Memory, MiB.
    pub mem_mib: u64,
    /// GPUs (0 = CPU-only).
    pub num_gpu: u32,
    /// Milli-GPU per GPU: 1000 for whole GPUs, less for a share of one GPU.
    pub gpu_milli: u32,
    /// GPU models allowed.
    pub models: TypeMask,
}

impl Task {
    /// Total milli-GPU asked for.
    pub fn gpu_total(&self) -> u64 {
        self.num_gpu as u64 * self.gpu_milli as u64
    }
    /// True when the task shares one GPU.
    pub fn is_shared(&self) -> bool {
        self.num_gpu == 1 && self.gpu_milli < MILLI_PER_GPU
    }
}

/// A job's GPU request as a task's `(num_gpu, gpu_milli)`.
pub(crate) fn task_shape(req: GpuRequest) -> (u32, u32) {
    match req {
        GpuRequest::None => (0, 0),
        GpuRequest::Fraction(m) => (1, m as u32),
        GpuRequest::Whole(n) => (n, MILLI_PER_GPU),
    }
}

/// Which GPUs of the node a task takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuPick {
    /// No GPU (CPU-only task).
    NoGpu,
    /// The first `num_gpu` wholly free GPUs in device order (the artifact's
    /// `AllocateExclusiveGpuId`, `pkg/type/resource.go`).
    Whole,
    /// A share of the GPU at this device index.
    Share(u8),
    /// A share of a GPU drawn uniformly among the node's GPUs that hold it (the
    /// artifact's `allocateGpuIdBasedOnRandomFit`, `pkg/simulator/plugin/open_gpu_share.go`);
    /// the cluster that places the task draws it.
    RandomShare,
}

/// A feasible placement on a node state: its score (higher is better) and GPU pick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Choice {
    /// The score; equal scores are ties.
    pub score: f64,
    /// The GPUs taken.
    pub pick: GpuPick,
}

/// True when `task` fits a node of type `ty` in state `node` (CPU, memory, GPU model, GPUs):
/// the artifact's filters (Kubernetes' `NodeResourcesFit` for CPU and memory, its
/// `Open-Gpu-Share` `Filter` for the GPU model and room).
pub fn fits(ty: &NodeType, node: &NodeState, task: &Task) -> bool {
    if node.cpu_free < task.cpu_milli || node.mem_free < task.mem_mib {
        return false;
    }
    if task.num_gpu == 0 {
        return true;
    }
    if !ty.model.is_some_and(|m| task.models.allows(m)) {
        return false;
    }
    if task.is_shared() {
        node.gpu_free.iter().any(|&f| f as u32 >= task.gpu_milli)
    } else {
        node.full_gpus() >= task.num_gpu as usize
    }
}

/// The tightest GPU that holds a share of `milli` (the first in device order among
/// equals), if any.
pub fn tightest_gpu(node: &NodeState, milli: u32) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, &f) in node.gpu_free.iter().enumerate() {
        if f as u32 >= milli && best.is_none_or(|b| f < node.gpu_free[b]) {
            best = Some(i);
        }
    }
    best
}

/// The artifact's default GPU pick (`allocateGpuIdBasedOnBestFit`,
/// `pkg/simulator/plugin/open_gpu_share.go`, its `gpuSelMethod = best`): whole GPUs, or
/// the tightest GPU that still holds the share, first in device order among equals.
pub fn tightest_pick(node: &NodeState, task: &Task) -> GpuPick {
    if task.num_gpu == 0 {
        GpuPick::NoGpu
    } else if task.is_shared() {
        GpuPick::Share(tightest_gpu(node, task.gpu_milli).unwrap_or(0) as u8)
    } else {
        GpuPick::Whole
    }
}

/// Device indices of the GPUs that hold a share of `milli`, in device order.
pub fn share_picks<'a>(node: &'a NodeState, task: &Task) -> impl Iterator<Item = GpuPick> + 'a {
    let m = task.gpu_milli;
    (0..node.gpu_free.len())
        .filter(move |&i| node.gpu_free[i] as u32 >= m)
        .map(|i| GpuPick::Share(i as u8))
}

/// The state after placing `task` with `pick` (which must fit and not be
/// [`GpuPick::RandomShare`], which the cluster resolves first).
pub fn apply(node: &NodeState, task: &Task, pick: GpuPick) -> NodeState {
    let mut n = node.clone();
    n.cpu_free -= task.cpu_milli;
    n.mem_free -= task.mem_mib;
    match pick {
        GpuPick::NoGpu => return n,
        GpuPick::Whole => {
            let mut left = task.num_gpu;
            for f in n.gpu_free.iter_mut() {
                if left == 0 {
                    break;
                }
                if *f == FULL {
                    *f = 0;
                    left -= 1;
                }
            }
        }
        GpuPick::Share(i) => n.gpu_free[i as usize] -= task.gpu_milli as u16,
        GpuPick::RandomShare => unreachable!("the cluster resolves a random share first"),
    }
    n.mix = n.mix.with(task);
    n
}

/// The `r`-th (from 0) GPU of `node` that holds a share of `milli`, in device order.
pub(crate) fn nth_share_gpu(node: &NodeState, milli: u32, r: usize) -> Option<usize> {
    node.gpu_free
        .iter()
        .enumerate()
        .filter(|(_, &f)| f as u32 >= milli)
        .nth(r)
        .map(|(i, _)| i)
}

/// Number of GPUs of `node` that hold a share of `milli`.
pub(crate) fn share_gpu_count(node: &NodeState, milli: u32) -> usize {
    node.gpu_free.iter().filter(|&&f| f as u32 >= milli).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty() -> NodeType {
        NodeType {
            model: Some(0),
            gpus: 4,
            cpu_milli: 32000,
            mem_mib: 1000,
        }
    }

    fn task(cpu: u32, n: u32, m: u32) -> Task {
        Task {
            cpu_milli: cpu,
            mem_mib: 0,
            num_gpu: n,
            gpu_milli: m,
            models: TypeMask::ANY,
        }
    }

    #[test]
    fn fits_and_apply_in_device_order() {
        let t = ty();
        let s = NodeState::empty(0, &t);
        let a = task(1000, 1, 300);
        assert!(fits(&t, &s, &a));
        // All GPUs free: the tightest is the first (device 0).
        let s2 = apply(&s, &a, tightest_pick(&s, &a));
        assert_eq!(s2.gpu_free, vec![700, 1000, 1000, 1000]);
        assert_eq!(s2.mix, TaskMix(1));
        // The tightest GPU holding 600 is device 0 (700 left); two GPUs could hold it
        // besides the wholly free ones: 4 in all.
        let b = task(1000, 1, 600);
        assert_eq!(tightest_pick(&s2, &b), GpuPick::Share(0));
        assert_eq!(share_picks(&s2, &b).count(), 4);
        // Three whole GPUs take the first three wholly free devices: 1, 2, 3.
        let s3 = apply(&s2, &task(0, 3, 1000), GpuPick::Whole);
        assert_eq!(s3.gpu_free, vec![700, 0, 0, 0]);
        assert_eq!(s3.mix, TaskMix(1 | 1 << 3));
        assert_eq!(s3.mix.count(), 2);
        assert!(!fits(&t, &s3, &task(0, 1, 1000)));
        assert!(!fits(&t, &s3, &task(40000, 0, 0)));
        let mut wrong = task(0, 1, 1000);
        wrong.models = TypeMask::single(1);
        assert!(!fits(&t, &s, &wrong));
    }

    #[test]
    fn every_shared_task_carries_one_tag() {
        let m = TaskMix::EMPTY.with(&task(0, 1, 300));
        assert!(m.has_tag_of(&task(0, 1, 700)));
        assert!(!m.has_tag_of(&task(0, 1, 1000)));
        assert!(!m.has_tag_of(&task(0, 0, 0)));
        assert_eq!(m.with(&task(0, 0, 0)), m);
    }
}
