//! Random fit: any node that can hold the task, uniformly at random.

use super::{fits, roomiest_pick, Choice, NodeState, NodeType, Placement, Task};

/// Random fit: every fitting node scores the same, so the random tie-break decides.
#[derive(Debug, Clone, Copy, Default)]
pub struct RandomFit;

impl Placement for RandomFit {
    fn name(&self) -> &'static str {
        "random"
    }
    fn choose(&self, ty: &NodeType, node: &NodeState, task: &Task) -> Option<Choice> {
        fits(ty, node, task).then(|| Choice {
            score: 0.0,
            pick: roomiest_pick(node, task),
        })
    }
}
