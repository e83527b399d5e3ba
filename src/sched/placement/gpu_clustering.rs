//! GPU clustering, as the FGD artifact scores it: `GpuClusteringScorePlugin.Score`
//! (`pkg/simulator/plugin/gpu_clustering_score.go`). Tasks are grouped by GPU affinity
//! tag ([`TaskMix`]): one tag `share-gpu` for every shared-GPU task whatever its size,
//! `n-gpu` for a task of `n` whole GPUs. Four integer score bands (Kubernetes'
//! `MaxNodeScore` = 100), best first:
//!
//! - `(75, 100]`: the node holds only tasks of the task's tag;
//! - `(50, 75]`: it holds the task's tag and others;
//! - `(25, 50]`: it holds no GPU task (idle);
//! - `[0, 25]`: it holds only other tags.
//!
//! Inside a band the score adds `25 * (8000 - free milli-GPU of the node) / 8000`
//! (integer division; 8000 is the artifact's `MaxSpecGpu`), so fuller nodes come first.
//! A CPU-only task scores 0 everywhere (`MinNodeScore`) and goes to the first node that
//! fits in the run's node order. A shared task takes the tightest GPU that holds it
//! (`gpuSelMethod = best`). The paper only says tasks of one kind are kept together; the
//! artifact's bands are followed.
//!
//! On the time-based cluster the tags come from what each node holds (the cluster records
//! holdings for this policy), ties to the lowest node.

use super::{
    fits, tightest_pick, Choice, ClusterRule, NodeState, NodeType, Placement, PlacementContext,
    Task, TaskMix, TieBreak, MAX_NODE_SCORE, MAX_SPEC_GPU,
};

/// GPU clustering by affinity tag.
#[derive(Debug, Clone, Copy, Default)]
pub struct GpuClustering;

/// The artifact's clustering score of `task` on a node with `mix` and `gpu_free_total`.
pub fn clustering_score(mix: TaskMix, gpu_free_total: u64, task: &Task) -> i64 {
    if task.num_gpu == 0 || TaskMix::tag_of(task.num_gpu, task.gpu_milli) == 0 {
        return 0;
    }
    let fill = MAX_NODE_SCORE / 4 * (MAX_SPEC_GPU - gpu_free_total as i64) / MAX_SPEC_GPU;
    let band = if mix.has_tag_of(task) {
        if mix.count() == 1 {
            3
        } else {
            2
        }
    } else if mix.count() == 0 {
        1
    } else {
        0
    };
    fill + MAX_NODE_SCORE * band / 4
}

impl Placement for GpuClustering {
    fn build(_: &PlacementContext) -> Self {
        GpuClustering
    }
    fn choose(&self, ty: &NodeType, node: &NodeState, task: &Task) -> Option<Choice> {
        if !fits(ty, node, task) {
            return None;
        }
        Some(Choice {
            score: clustering_score(node.mix, node.gpu_free_total(), task) as f64,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TypeMask;

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
    fn bands_by_hand() {
        let share = task(1, 300);
        let one = task(1, 1000);
        let only_share = TaskMix::EMPTY.with(&task(1, 700));
        let both = only_share.with(&one);
        // 8 GPUs, 5000 free: fill = 25 x 3000 / 8000 = 9 (integer).
        assert_eq!(clustering_score(only_share, 5000, &share), 75 + 9);
        assert_eq!(clustering_score(both, 5000, &share), 50 + 9);
        assert_eq!(clustering_score(TaskMix::EMPTY, 8000, &share), 25);
        assert_eq!(clustering_score(TaskMix::EMPTY.with(&one), 5000, &share), 9);
        // An idle 2-GPU node (2000 free): 25 x 6000 / 8000 = 18, +25.
        assert_eq!(clustering_score(TaskMix::EMPTY, 2000, &one), 43);
        assert_eq!(clustering_score(both, 0, &task(0, 0)), 0);
    }
}
