//! Random fit, as the FGD artifact does it: `RandomScorePlugin.PreScore`
//! (`pkg/simulator/plugin/random_score.go`) draws one of the nodes that fit uniformly at
//! random and scores it alone; a shared task then takes a GPU drawn uniformly among the
//! node's GPUs that hold it (`gpuSelMethod = random`, `allocateGpuIdBasedOnRandomFit`,
//! `open_gpu_share.go`). On the time-based cluster too, from the run's `placement` stream.

use super::{
    fits, Choice, ClusterRule, GpuPick, NodeState, NodeType, Placement, PlacementContext, Task,
    TieBreak,
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
            pick: if task.num_gpu == 0 {
                GpuPick::NoGpu
            } else if task.is_shared() {
                GpuPick::RandomShare
            } else {
                GpuPick::Whole
            },
        })
    }
    fn tie_break(&self) -> TieBreak {
        TieBreak::Random
    }
    fn on_cluster(&self) -> ClusterRule {
        ClusterRule::Score {
            ties: TieBreak::Random,
            task_mix: false,
        }
    }
}
