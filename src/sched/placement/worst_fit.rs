//! Worst fit: the node left with the most free resources (spreads load), the mirror of
//! best fit.
//!
//! On the time-based cluster worst fit reads the free-GPU index: the node with the most
//! wholly free GPUs (a shared task first onto the tightest partly used GPU).

use super::{
    fits, left_shares, roomiest_pick, Choice, ClusterRule, IndexOrder, NodeState, NodeType,
    Placement, PlacementContext, Task,
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
        let (cpu, gpu) = left_shares(ty, node, task);
        Some(Choice {
            score: cpu + gpu,
            pick: roomiest_pick(node, task),
        })
    }
    fn on_cluster(&self) -> ClusterRule {
        ClusterRule::Index(IndexOrder::MostFree)
    }
}
