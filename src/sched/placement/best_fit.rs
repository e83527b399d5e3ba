//! Best fit: the node left with the least free resources, CPU and GPU each as a share of
//! the node's capacity, summed with equal weights (the FGD paper's "weighted sum of all
//! dimensions").
//!
//! On the time-based cluster best fit reads the free-GPU index instead of scoring every
//! node: the node with the fewest wholly free GPUs that still hold the job (a shared task
//! first onto the tightest partly used GPU), at a cost in GPUs per node rather than nodes.

use super::{
    fits, left_shares, roomiest_pick, Choice, ClusterRule, IndexOrder, NodeState, NodeType,
    Placement, PlacementContext, Task,
};

/// Best fit over CPU and GPU.
#[derive(Debug, Clone, Copy, Default)]
pub struct BestFit;

impl Placement for BestFit {
    fn build(_: &PlacementContext) -> Self {
        BestFit
    }
    fn choose(&self, ty: &NodeType, node: &NodeState, task: &Task) -> Option<Choice> {
        if !fits(ty, node, task) {
            return None;
        }
        let (cpu, gpu) = left_shares(ty, node, task);
        Some(Choice {
            score: -(cpu + gpu),
            pick: roomiest_pick(node, task),
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
            cpu_milli: 10000,
            mem_mib: 100,
        };
        let empty = NodeState::empty(0, &ty);
        let mut used = empty.clone();
        used.gpu_free = vec![1000, 0];
        used.cpu_free = 5000;
        let t = Task {
            cpu_milli: 1000,
            mem_mib: 0,
            num_gpu: 1,
            gpu_milli: 1000,
            models: TypeMask::ANY,
        };
        // Left after: empty -> cpu 0.9 + gpu 0.5 = 1.4; used -> 0.4 + 0.0 = 0.4.
        let a = BestFit.choose(&ty, &empty, &t).unwrap().score;
        let b = BestFit.choose(&ty, &used, &t).unwrap().score;
        assert!((a + 1.4).abs() < 1e-12 && (b + 0.4).abs() < 1e-12);
    }
}
