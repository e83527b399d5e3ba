//! GPU packing: a shared-GPU task goes first onto a GPU already in use that has room;
//! then any task goes to a node with some GPU in use; idle nodes come last. Ties at
//! random.

use super::{fits, roomiest_pick, Choice, NodeState, NodeType, Placement, Task, FULL};

/// GPU packing by tiers.
#[derive(Debug, Clone, Copy, Default)]
pub struct GpuPacking;

impl Placement for GpuPacking {
    fn name(&self) -> &'static str {
        "gpu_packing"
    }
    fn choose(&self, ty: &NodeType, node: &NodeState, task: &Task) -> Option<Choice> {
        if !fits(ty, node, task) {
            return None;
        }
        let pick = roomiest_pick(node, task);
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
