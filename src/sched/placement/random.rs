//! Random fit: any node that can hold the task, uniformly at random (on the time-based
//! cluster too, from the run's `placement` stream).

use super::{
    fits, roomiest_pick, Choice, ClusterRule, NodeState, NodeType, Placement, PlacementContext,
    Task, TieBreak,
};

/// Random fit: every fitting node scores the same, so the random tie-break decides.
#[derive(Debug, Clone, Copy, Default)]
pub struct RandomFit;

impl Placement for RandomFit {
    fn build(_: &PlacementContext) -> Self {
        RandomFit
    }
    fn choose(&self, ty: &NodeType, node: &NodeState, task: &Task) -> Option<Choice> {
        fits(ty, node, task).then(|| Choice {
            score: 0.0,
            pick: roomiest_pick(node, task),
        })
    }
    fn on_cluster(&self) -> ClusterRule {
        ClusterRule::Score {
            ties: TieBreak::Random,
            task_mix: false,
        }
    }
}
