//! GPU packing, as the FGD artifact scores it: `GpuPackingScorePlugin.Score` and
//! `getPackingScore` (`pkg/simulator/plugin/gpu_packing_score.go`), integer scores
//! (Kubernetes' `MaxNodeScore` = 100), highest first:
//!
//! 1. the task fits on GPUs already in use (a shared task on a partly used GPU):
//!    `max(100 - sum(free % of each GPU taken) / 10, 50)`, the tighter the better;
//! 2. it must take wholly free GPUs of a node with some GPU in use:
//!    `max(50 - wholly free GPUs it takes, 33)`;
//! 3. the node is idle: `max(33 - its GPUs, its GPUs)` — small idle nodes first (the
//!    artifact caps with the GPU count where its comment says the minimum score).
//!
//! The GPUs a task would take are the tightest that hold it (GPUs sorted by free
//! milli-GPU, ascending, stable in device order), and that is also where it goes
//! (`gpuSelMethod = best`, `allocateGpuIdBasedOnBestFit`). A CPU-only task scores 0
//! everywhere (`podGpuMilli <= 0` returns `MinNodeScore`), so it goes to the first node
//! that fits in the run's node order. The paper names the policy without its tiers; the
//! artifact's tiers are followed.

use super::{
    fits, tightest_pick, Choice, NodeState, NodeType, Placement, PlacementContext, Task, FULL,
    MAX_NODE_SCORE,
};

/// GPU packing by the artifact's tiers.
#[derive(Debug, Clone, Copy, Default)]
pub struct GpuPacking;

/// The artifact's packing score of `task` (which fits) on `node`.
pub fn packing_score(node: &NodeState, task: &Task) -> i64 {
    if task.num_gpu == 0 || task.gpu_milli == 0 {
        return 0;
    }
    let gpus = node.gpu_free.len() as i64;
    let fully_free = node.full_gpus() as i64;
    if fully_free == gpus {
        return (MAX_NODE_SCORE / 3 - fully_free).max(fully_free);
    }
    let mut order: Vec<usize> = (0..node.gpu_free.len()).collect();
    order.sort_by_key(|&i| node.gpu_free[i]); // stable: device order among equals
    let mut need = task.num_gpu;
    let (mut free_to_use, mut pct_sum) = (0i64, 0i64);
    for i in order {
        if need == 0 {
            break;
        }
        let f = node.gpu_free[i];
        if task.gpu_milli <= f as u32 {
            need -= 1;
            pct_sum += f as i64 * 100 / FULL as i64;
            if f == FULL {
                free_to_use += 1;
            }
        }
    }
    if need != 0 {
        return 0;
    }
    if free_to_use > 0 {
        (MAX_NODE_SCORE / 2 - free_to_use).max(MAX_NODE_SCORE / 3)
    } else {
        (MAX_NODE_SCORE - pct_sum / 10).max(MAX_NODE_SCORE / 2)
    }
}

impl Placement for GpuPacking {
    fn build(_: &PlacementContext) -> Self {
        GpuPacking
    }
    fn choose(&self, ty: &NodeType, node: &NodeState, task: &Task) -> Option<Choice> {
        if !fits(ty, node, task) {
            return None;
        }
        Some(Choice {
            score: packing_score(node, task) as f64,
            pick: tightest_pick(node, task),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TypeMask;

    fn state(free: &[u16]) -> NodeState {
        NodeState {
            ty: 0,
            cpu_free: 1000,
            mem_free: 0,
            gpu_free: free.to_vec(),
            mix: Default::default(),
        }
    }

    fn task(n: u32, m: u32) -> Task {
        Task {
            cpu_milli: 0,
            mem_mib: 0,
            num_gpu: n,
            gpu_milli: m,
            models: TypeMask::ANY,
        }
    }

    #[test]
    fn tiers_by_hand() {
        // Idle nodes: 33 - 8 = 25 for 8 GPUs, 33 - 2 = 31 for 2: the small node first.
        assert_eq!(packing_score(&state(&[1000; 8]), &task(1, 500)), 25);
        assert_eq!(packing_score(&state(&[1000; 2]), &task(1, 500)), 31);
        // A share on a used GPU with 700 free: 100 - 70 / 10 = 93; with 300: 97.
        assert_eq!(packing_score(&state(&[1000, 700]), &task(1, 500)), 93);
        assert_eq!(packing_score(&state(&[300, 1000]), &task(1, 200)), 97);
        // A share that only fits a free GPU of a used node: 50 - 1 = 49.
        assert_eq!(packing_score(&state(&[1000, 100]), &task(1, 500)), 49);
        // Two whole GPUs on a used node: 50 - 2 = 48. CPU-only: 0.
        assert_eq!(packing_score(&state(&[1000, 1000, 0]), &task(2, 1000)), 48);
        assert_eq!(packing_score(&state(&[1000, 100]), &task(0, 0)), 0);
    }
}
