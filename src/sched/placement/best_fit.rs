//! Best fit, as the FGD artifact scores it: `BestFitScorePlugin.Score` and
//! `getBestFitScore` (`pkg/simulator/plugin/best_fit_score.go`). The node left with the
//! least free resources wins: `s = 0.5 (free CPU - request) / 128000 +
//! 0.5 (free milli-GPU - request) / 8000` (the artifact's `MaxSpecCpu` and `MaxSpecGpu`, the same for every
//! node, not the node's capacity), scored `int64((1 - s) * 100)`, so nodes within one
//! point tie and go to the first in the run's node order. The plugin then rescales the
//! scores to 0..100 (`NormalizeScore`, `plugin_utils.go`); that keeps the highest score
//! alone at the top, so it never changes the choice and is left out. A shared task takes
//! the tightest GPU that holds it (`gpuSelMethod = best`). The paper calls this a weighted
//! sum of all dimensions; the artifact's weights and scales are followed.
//!
//! On the time-based cluster best fit reads the free-GPU index instead of scoring every
//! node: the node with the fewest wholly free GPUs that still hold the job (a shared task
//! first onto the tightest partly used GPU), at a cost in GPUs per node rather than nodes.

use super::{
    fits, tightest_pick, Choice, ClusterRule, IndexOrder, NodeState, NodeType, Placement,
    PlacementContext, Task, MAX_NODE_SCORE, MAX_SPEC_CPU, MAX_SPEC_GPU,
};

/// Best fit over CPU and GPU.
#[derive(Debug, Clone, Copy, Default)]
pub struct BestFit;

/// The artifact's best-fit score of `task` (which fits) on `node`.
pub fn best_fit_score(node: &NodeState, task: &Task) -> i64 {
    let free = [node.cpu_free as f64, node.gpu_free_total() as f64];
    let req = [task.cpu_milli as f64, task.gpu_total() as f64];
    let max = [MAX_SPEC_CPU as f64, MAX_SPEC_GPU as f64];
    let mut s = 0.0;
    for i in 0..2 {
        s += (free[i] - req[i]) / max[i] * 0.5;
    }
    ((1.0 - s) * MAX_NODE_SCORE as f64) as i64
}

impl Placement for BestFit {
    fn build(_: &PlacementContext) -> Self {
        BestFit
    }
    fn choose(&self, ty: &NodeType, node: &NodeState, task: &Task) -> Option<Choice> {
        if !fits(ty, node, task) {
            return None;
        }
        Some(Choice {
            score: best_fit_score(node, task) as f64,
            pick: tightest_pick(node, task),
        })
    }
    fn on_cluster(&self) -> ClusterRule {
        ClusterRule::Index(IndexOrder::FewestFree)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{NodeState, NodeType, Placement, Task};
    use super::*;
    use crate::model::TypeMask;

    #[test]
    fn fuller_node_scores_higher() {
        let ty = NodeType {
            model: Some(0),
            gpus: 2,
            cpu_milli: 64000,
            mem_mib: 100,
        };
        let empty = NodeState::empty(0, &ty);
        let mut used = empty.clone();
        used.gpu_free = vec![1000, 0];
        used.cpu_free = 32000;
        let t = Task {
            cpu_milli: 16000,
            mem_mib: 0,
            num_gpu: 1,
            gpu_milli: 1000,
            models: TypeMask::ANY,
        };
        // Empty: 0.5 x 48000/128000 + 0.5 x 1000/8000 = 0.1875 + 0.0625 = 0.25 -> 75.
        // Used: 0.5 x 16000/128000 + 0 = 0.0625 -> 93.75 -> 93.
        assert_eq!(BestFit.choose(&ty, &empty, &t).unwrap().score, 75.0);
        assert_eq!(BestFit.choose(&ty, &used, &t).unwrap().score, 93.0);
    }
}
