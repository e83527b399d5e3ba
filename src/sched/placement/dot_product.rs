//! Dot product (Tetris-style alignment), as the FGD artifact scores it:
//! `DotProductScorePlugin.Score` and `calculateDotProductScore`
//! (`pkg/simulator/plugin/dot_product_score.go`) with the experiment's `dimExtMethod =
//! merge` and `normMethod = max` (`experiments/run_scripts/generate_run_scripts.py`):
//! free CPU and free milli-GPU of the node, and the task's request, each divided by the
//! artifact's `MaxSpecCpu` (128000) and `MaxSpecGpu` (8000) (`GenerateSchedulingMatchGroups`,
//! `pkg/utils/utils.go`); the score is `int64(100 * (1 - dot / 2))`, the smallest dot
//! product first, nodes within one point tie and go to the first in the run's node order.
//! CPU-only tasks are scored the same way (their GPU term is zero). A shared task takes the
//! tightest GPU that holds it (`merge` keeps `gpuSelMethod = best`).

use super::{
    fits, tightest_pick, Choice, NodeState, NodeType, Placement, PlacementContext, Task,
    MAX_NODE_SCORE, MAX_SPEC_CPU, MAX_SPEC_GPU,
};

/// Dot-product placement over CPU and GPU.
#[derive(Debug, Clone, Copy, Default)]
pub struct DotProduct;

/// The artifact's dot-product score of `task` (which fits) on `node`.
pub fn dot_product_score(node: &NodeState, task: &Task) -> i64 {
    let (c, g) = (MAX_SPEC_CPU as f64, MAX_SPEC_GPU as f64);
    let free = [node.cpu_free as f64 / c, node.gpu_free_total() as f64 / g];
    let req = [task.cpu_milli as f64 / c, task.gpu_total() as f64 / g];
    let mut dot = 0.0;
    for i in 0..2 {
        dot += free[i] * req[i];
    }
    let score = 1.0 - dot / 2.0;
    (MAX_NODE_SCORE as f64 * score) as i64
}

impl Placement for DotProduct {
    fn build(_: &PlacementContext) -> Self {
        DotProduct
    }
    fn choose(&self, ty: &NodeType, node: &NodeState, task: &Task) -> Option<Choice> {
        if !fits(ty, node, task) {
            return None;
        }
        Some(Choice {
            score: dot_product_score(node, task) as f64,
            pick: tightest_pick(node, task),
        })
    }
}
