//! Worst fit: the node left with the most free resources (spreads load), the mirror of
//! best fit.

use super::{fits, left_shares, roomiest_pick, Choice, NodeState, NodeType, Placement, Task};

/// Worst fit over CPU and GPU.
#[derive(Debug, Clone, Copy, Default)]
pub struct WorstFit;

impl Placement for WorstFit {
    fn name(&self) -> &'static str {
        "worst_fit"
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
}
