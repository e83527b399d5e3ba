//! GPU clustering: tasks of one GPU shape (GPU count and milli-GPU each) are kept
//! together. A node holding only tasks of the task's shape comes first, then any other
//! node already holding GPU tasks, then an empty node; a shared task takes the tightest
//! GPU that holds it (next to its kind). CPU-only tasks go anywhere that fits. Ties at
//! random in the FGD experiment; on the time-based cluster (where the cluster records
//! what each node holds for it) to the lowest node, as for the other scored policies.

use super::{
    fits, tightest_pick, Choice, ClusterRule, NodeState, NodeType, Placement, PlacementContext,
    Task, TaskMix, TieBreak,
};

/// GPU clustering by task shape.
#[derive(Debug, Clone, Copy, Default)]
pub struct GpuClustering;

impl Placement for GpuClustering {
    fn build(_: &PlacementContext) -> Self {
        GpuClustering
    }
    fn choose(&self, ty: &NodeType, node: &NodeState, task: &Task) -> Option<Choice> {
        if !fits(ty, node, task) {
            return None;
        }
        let tier = match node.mix {
            _ if task.num_gpu == 0 => 0.0,
            TaskMix::Same(n, m) if (n, m) == (task.num_gpu, task.gpu_milli) => 2.0,
            TaskMix::Empty => 0.0,
            _ => 1.0,
        };
        Some(Choice {
            score: tier,
            pick: tightest_pick(node, task),
        })
    }
    fn on_cluster(&self) -> ClusterRule {
        ClusterRule::Score {
            ties: TieBreak::LowestNode,
            task_mix: true,
        }
    }
}
