//! Dot product (Tetris-style alignment, as the FGD paper's baseline): the node whose free
//! CPU and GPU have the smallest dot product with the task's request, both vectors scaled
//! by the largest node of the cluster (so a small node is not mistaken for an empty one).

use super::{
    fits, roomiest_pick, Choice, NodeState, NodeType, Placement, PlacementContext, Task, FULL,
};

/// Dot-product placement over CPU and GPU.
#[derive(Debug, Clone, Copy)]
pub struct DotProduct {
    cpu_scale: f64,
    gpu_scale: f64,
}

impl DotProduct {
    /// Scaled by the cluster's largest CPU and GPU count per node.
    pub fn new(max_cpu_milli: u32, max_gpus: u16) -> DotProduct {
        DotProduct {
            cpu_scale: max_cpu_milli.max(1) as f64,
            gpu_scale: (max_gpus.max(1) as u32 * FULL as u32) as f64,
        }
    }
}

impl Placement for DotProduct {
    fn build(ctx: &PlacementContext) -> Self {
        DotProduct::new(ctx.max_cpu_milli, ctx.max_gpus)
    }
    fn choose(&self, ty: &NodeType, node: &NodeState, task: &Task) -> Option<Choice> {
        if !fits(ty, node, task) {
            return None;
        }
        let (c, g) = (self.cpu_scale, self.gpu_scale);
        let dot = (node.cpu_free as f64 / c) * (task.cpu_milli as f64 / c)
            + (node.gpu_free_total() as f64 / g) * (task.gpu_total() as f64 / g);
        Some(Choice {
            score: -dot,
            pick: roomiest_pick(node, task),
        })
    }
}
