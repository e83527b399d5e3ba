//! First fit: the lowest-numbered node that can hold the task.

use super::{
    fits, tightest_pick, Choice, NodeState, NodeType, Placement, PlacementContext, Task, TieBreak,
};

/// First fit: every fitting node scores the same; the lowest node index wins.
#[derive(Debug, Clone, Copy, Default)]
pub struct FirstFit;

impl Placement for FirstFit {
    fn build(_: &PlacementContext) -> Self {
        FirstFit
    }
    fn choose(&self, ty: &NodeType, node: &NodeState, task: &Task) -> Option<Choice> {
        fits(ty, node, task).then(|| Choice {
            score: 0.0,
            pick: tightest_pick(node, task),
        })
    }
    fn tie_break(&self) -> TieBreak {
        TieBreak::LowestNode
    }
    fn scores_alike(&self) -> bool {
        true
    }
}
