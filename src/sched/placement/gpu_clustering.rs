//! GPU clustering: tasks of one GPU shape (GPU count and milli-GPU each) are kept
//! together. A node holding only tasks of the task's shape comes first, then any other
//! node already holding GPU tasks, then an empty node; a shared task takes the tightest
//! GPU that holds it (next to its kind). CPU-only tasks go anywhere that fits. Ties at
//! random.

use super::{fits, tightest_pick, Choice, NodeState, NodeType, Placement, Task, TaskMix};

/// GPU clustering by task shape.
#[derive(Debug, Clone, Copy, Default)]
pub struct GpuClustering;

impl Placement for GpuClustering {
    fn name(&self) -> &'static str {
        "gpu_clustering"
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
}
