//! Fragmentation gradient descent (Weng et al., "Beware of Fragmentation: Scheduling
//! GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC'23), as its
//! artifact scores it: `FGDScorePlugin.Score` and `calculateGpuShareFragExtendScore`
//! (`pkg/simulator/plugin/fgd_score.go`).
//!
//! The node's fragmentation for the typical workload ([`TypicalWorkload::fragmentation`])
//! is measured before and after the task; the score is
//! `int64(sigmoid((before - after) / 1000) * 100)`, an **integer** from 0 to 100, so
//! nodes whose fragmentation grows by amounts less than about 40 milli-GPU apart tie, and
//! the tie goes to the first node in the run's node order (as for every policy). The
//! paper describes the choice as the least fragmentation growth; the artifact's integer
//! score with its ties is followed.
//!
//! - A shared-GPU task is tried on each GPU that holds it, in device order; the first GPU
//!   with the highest score is the one taken (`allocateGpuIdBasedOnFGDScore`, the
//!   experiment's `gpuSelMethod = FGDScore`).
//! - A whole-GPU task takes the first wholly free GPUs (`NodeResource.Sub`,
//!   `AllocateExclusiveGpuId`).
//! - A CPU-only task is scored the same way (its CPU changes the node's fragmentation
//!   for the typical types that need CPU).
//!
//! `exp` is the platform's; Go's `math.Exp` may differ in the last bit, which moves a
//! score only when it sits exactly on an integer.

use super::{
    fits, share_picks, Choice, GpuPick, NodeState, NodeType, Placement, PlacementContext, Task,
    TypicalWorkload, FULL,
};
use std::collections::HashMap;
use std::sync::Mutex;

/// The key a node's fragmentation depends on: GPU model, free CPU, free milli-GPU
/// (sorted; the measure does not depend on the GPUs' order).
type FragKey = (u32, u32, Vec<u16>);

/// FGD placement, with a cache of each node state's fragmentation.
#[derive(Debug, Default)]
pub struct Fgd {
    typical: TypicalWorkload,
    cache: Mutex<HashMap<FragKey, f64>>,
}

impl Fgd {
    /// FGD against `typical`.
    pub fn new(typical: TypicalWorkload) -> Fgd {
        Fgd {
            typical,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The node's fragmentation for the typical workload (milli-GPU), cached.
    pub fn fragmentation(&self, ty: &NodeType, cpu_free: u32, gpu_free: &[u16]) -> f64 {
        let mut sorted = gpu_free.to_vec();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let key = (ty.model.map_or(u32::MAX, |m| m as u32), cpu_free, sorted);
        // A poisoned lock only means another thread panicked mid-insert: the map is fine.
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&f) = cache.get(&key) {
            return f;
        }
        let f = self.typical.fragmentation(ty, cpu_free, &key.2);
        cache.insert(key, f);
        f
    }
}

/// The artifact's score of a fragmentation change: `int64(sigmoid(d / 1000) * 100)`.
pub fn fgd_score(before: f64, after: f64) -> i64 {
    let x = (before - after) / 1000.0;
    let sigmoid = 1.0 / (1.0 + (-x).exp());
    (sigmoid * 100.0) as i64
}

impl Placement for Fgd {
    fn build(ctx: &PlacementContext) -> Self {
        Fgd::new(ctx.typical().clone())
    }
    fn choose(&self, ty: &NodeType, node: &NodeState, task: &Task) -> Option<Choice> {
        if !fits(ty, node, task) {
            return None;
        }
        let before = self.fragmentation(ty, node.cpu_free, &node.gpu_free);
        let cpu = node.cpu_free - task.cpu_milli;
        let mut gpus = node.gpu_free.clone();
        if task.is_shared() {
            let mut best: Option<(i64, GpuPick)> = None;
            for pick in share_picks(node, task) {
                let GpuPick::Share(i) = pick else { continue };
                gpus[i as usize] -= task.gpu_milli as u16;
                let s = fgd_score(before, self.fragmentation(ty, cpu, &gpus));
                gpus[i as usize] += task.gpu_milli as u16;
                // The first GPU in device order keeps a tie.
                if best.is_none_or(|(b, _)| s > b) {
                    best = Some((s, pick));
                }
            }
            return best.map(|(s, pick)| Choice {
                score: s as f64,
                pick,
            });
        }
        let pick = if task.num_gpu == 0 {
            GpuPick::NoGpu
        } else {
            let mut left = task.num_gpu;
            for f in gpus.iter_mut() {
                if left > 0 && *f == FULL {
                    *f = 0;
                    left -= 1;
                }
            }
            GpuPick::Whole
        };
        let s = fgd_score(before, self.fragmentation(ty, cpu, &gpus));
        Some(Choice {
            score: s as f64,
            pick,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_is_the_artifacts_integer_sigmoid() {
        // No change: sigmoid(0) = 0.5 -> 50. A growth of 1000 milli-GPU:
        // 100 / (1 + e) = 26.89 -> 26. A drop of 1000: 100 / (1 + 1/e) = 73.11 -> 73.
        assert_eq!(fgd_score(500.0, 500.0), 50);
        assert_eq!(fgd_score(0.0, 1000.0), 26);
        assert_eq!(fgd_score(1000.0, 0.0), 73);
        // A growth of 30 milli-GPU still scores 49 (100 / (1 + e^0.03) = 49.25): ties
        // with a growth of 20 (49.50).
        assert_eq!(fgd_score(0.0, 30.0), fgd_score(0.0, 20.0));
    }
}
