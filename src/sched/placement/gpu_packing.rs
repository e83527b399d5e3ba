//! GPU packing: a shared-GPU task goes first onto a GPU already in use that has room (the
//! tightest such GPU); then a GPU task goes to a node with some GPU in use; idle nodes
//! come last. CPU-only tasks have no GPU to pack and go to any node that fits. Ties at
//! random.

use super::{
    fits, tightest_pick, Choice, NodeState, NodeType, Placement, PlacementContext, Task, FULL,
};

/// GPU packing by tiers.
#[derive(Debug, Clone, Copy, Default)]
pub struct GpuPacking;

impl Placement for GpuPacking {
    fn build(_: &PlacementContext) -> Self {
        GpuPacking
    }
    fn choose(&self, ty: &NodeType, node: &NodeState, task: &Task) -> Option<Choice> {
        if !fits(ty, node, task) {
            return None;
        }
        // Packing means sharing an occupied GPU: the tightest one that holds the task.
        let pick = tightest_pick(node, task);
        if task.num_gpu == 0 {
            // A CPU-only task has no GPU to pack: every fitting node is alike.
            return Some(Choice { score: 0.0, pick });
        }
        let used = node.gpu_free.iter().any(|&f| f < FULL);
        let shares_used_gpu = task.is_shared()
            && node
                .gpu_free
                .iter()
                .any(|&f| f < FULL && f as u32 >= task.gpu_milli);
        let tier = if shares_used_gpu {
            2.0
        } else if used {
            1.0
        } else {
            0.0
        };
        Some(Choice { score: tier, pick })
    }
}
