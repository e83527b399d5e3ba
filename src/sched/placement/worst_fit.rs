//! Worst fit: the node left with the most free resources (spreads load), the mirror of
//! best fit (not one of the FGD artifact's policies), with each node's free CPU and GPU
//! taken as shares of its own capacity.
//!
//! On the time-based cluster worst fit reads the free-GPU index: the node with the most
//! wholly free GPUs (a shared task first onto the tightest partly used GPU).

use super::{
    fits, Choice, ClusterRule, GpuPick, IndexOrder, NodeState, NodeType, Placement,
    PlacementContext, Task, FULL,
};

/// Worst fit over CPU and GPU.
#[derive(Debug, Clone, Copy, Default)]
pub struct WorstFit;

impl Placement for WorstFit {
    fn build(_: &PlacementContext) -> Self {
        WorstFit
    }
    fn choose(&self, ty: &NodeType, node: &NodeState, task: &Task) -> Option<Choice> {
        if !fits(ty, node, task) {
            return None;
        }
        let cpu = (node.cpu_free - task.cpu_milli) as f64 / ty.cpu_milli.max(1) as f64;
        let cap = ty.gpus as f64 * FULL as f64;
        let gpu = if cap > 0.0 {
            (node.gpu_free_total() - task.gpu_total()) as f64 / cap
        } else {
            0.0
        };
        // A shared task takes the roomiest GPU (the first in device order among equals).
        let pick = if task.is_shared() {
            let mut best = 0;
            for (i, &f) in node.gpu_free.iter().enumerate() {
                if f > node.gpu_free[best] {
                    best = i;
                }
            }
            GpuPick::Share(best as u8)
        } else if task.num_gpu == 0 {
            GpuPick::NoGpu
        } else {
            GpuPick::Whole
        };
        Some(Choice {
            score: cpu + gpu,
            pick,
        })
    }
    fn on_cluster(&self) -> ClusterRule {
        ClusterRule::Index(IndexOrder::MostFree)
    }
}
