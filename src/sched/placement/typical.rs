//! FGD's "typical workload" and the fragmentation measure built on it, as the FGD
//! artifact (hkust-adsl/kubernetes-scheduler-simulator) computes them.
//!
//! - Typical workload: `GetTypicalPods` (`pkg/utils/frag.go`) with the experiment's
//!   `typicalPodsConfig` (`scripts/generate_config_and_run.py`: `isInvolvedCpuPods:
//!   true`, `podPopularityThreshold: 95`, `podIncreaseStep: 1`, `gpuResWeight: 0`). Pods
//!   of the trace as listed (before tuning) are counted per type (CPU, milli-GPU per GPU,
//!   GPU count, GPU-model constraint; memory is not part of a type); types are taken most
//!   popular first (ties: the larger CPU, then milli-GPU, GPU count and model string
//!   first, the order of Go's `sort.Reverse` over `TargetPodList.Less`) until they cover
//!   the threshold share of the pods, **counted by pods, CPU-only pods included**; each
//!   type's popularity is its share of the pods taken. The paper speaks of the task
//!   types that make up most of the workload without fixing the count; the artifact's
//!   rule is followed.
//! - Fragmentation of a node: `NodeGpuShareFragAmount` and `GetNodePodFrag`
//!   (`pkg/utils/frag.go`). For each typical type, the node's free GPU capacity is all
//!   fragment unless the type fits the node's GPUs and CPU (class Q3, "satisfied"); then
//!   only the GPUs with less free milli-GPU than the type asks per GPU are. A CPU-only
//!   type (classes XL and XR) counts every free GPU as fragment, fit or not; a type whose
//!   GPU-model constraint excludes the node (class "no access") too. The sum over types,
//!   weighted by popularity, is `FragAmountSumExceptQ3` (milli-GPU).
//! - Fragmentation of the cluster (the artifact's `[Report] Frag amount`, logged by
//!   `ClusterGpuFragReport` in `pkg/simulator/analysis.go` after every pod) is the sum
//!   over nodes.

use super::node::task_shape;
use super::{NodeState, NodeType, Task};
use crate::model::{TypeMask, Workload};
use std::collections::HashMap;

/// The typical workload: task types with their popularity (shares summing to 1), in the
/// artifact's order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TypicalWorkload {
    /// Task types (memory 0) and each one's share of the pods taken.
    pub types: Vec<(Task, f64)>,
}

/// One pod as the typical workload counts it: its task and its GPU-model constraint as
/// written in the trace (`A|B`, empty for none; two spellings are two types, as in the
/// artifact, which keys types by the string).
#[derive(Debug, Clone, Copy)]
pub struct TypicalPod<'a> {
    /// The pod's task.
    pub task: Task,
    /// Its `gpu_spec`.
    pub spec: &'a str,
}

/// A pod type as the artifact keys it: CPU, milli-GPU per GPU, GPU count, model string.
type TypeKey<'a> = (u32, u32, u32, &'a str);

impl TypicalWorkload {
    /// The artifact's typical workload of `pods`: the most popular types until they
    /// cover `threshold` (0..=1, the artifact's 95 % = 0.95) of the pods by count.
    pub fn from_pods<'a>(pods: impl IntoIterator<Item = TypicalPod<'a>>, threshold: f64) -> Self {
        let mut counts: HashMap<TypeKey<'a>, (Task, u64)> = HashMap::new();
        for p in pods {
            let t = p.task;
            // A CPU-only pod has no GPU annotations: no milli-GPU and no model constraint.
            let (gpu_milli, spec, models) = if t.num_gpu == 0 {
                (0, "", TypeMask::ANY)
            } else {
                (t.gpu_milli, p.spec, t.models)
            };
            let task = Task {
                cpu_milli: t.cpu_milli,
                mem_mib: 0,
                num_gpu: t.num_gpu,
                gpu_milli,
                models,
            };
            counts
                .entry((t.cpu_milli, gpu_milli, t.num_gpu, spec))
                .or_insert((task, 0))
                .1 += 1;
        }
        let mut all: Vec<(TypeKey, Task, u64)> =
            counts.into_iter().map(|(k, (t, c))| (k, t, c)).collect();
        // Most popular first; among equals the larger (CPU, milli-GPU, GPUs, model) first.
        all.sort_by(|a, b| b.2.cmp(&a.2).then(b.0.cmp(&a.0)));
        let total: f64 = all.iter().map(|a| a.2 as f64).sum();
        let expected = threshold.clamp(0.0, 1.0) * 100.0 * total / 100.0;
        let mut cum = 0.0;
        let mut taken = 0;
        while cum < expected && taken < all.len() {
            cum += all[taken].2 as f64;
            taken += 1;
        }
        let renormalise = taken < all.len();
        let types = all[..taken]
            .iter()
            .map(|(_, t, c)| {
                let mut p = *c as f64 / total;
                if renormalise {
                    p /= cum / total;
                }
                (*t, p)
            })
            .collect();
        TypicalWorkload { types }
    }

    /// The typical workload of a time-based workload's jobs (single-node shapes, no
    /// model constraints), by the same rule at 95 %.
    pub fn of_workload(w: &Workload) -> Self {
        let pods = w.jobs.iter().map(|j| {
            let (num_gpu, gpu_milli) = task_shape(j.gpus);
            TypicalPod {
                task: Task {
                    cpu_milli: j.cpu_milli,
                    mem_mib: 0,
                    num_gpu,
                    gpu_milli,
                    models: TypeMask::ANY,
                },
                spec: "",
            }
        });
        TypicalWorkload::from_pods(pods, 0.95)
    }

    /// The node's fragmentation for this workload (milli-GPU): the artifact's
    /// `NodeGpuShareFragAmountScore`, summed in its order (per class over the types,
    /// then over the classes) so that equal states give bit-equal values.
    pub fn fragmentation(&self, ty: &NodeType, cpu_free: u32, gpu_free: &[u16]) -> f64 {
        // Classes: 0 Q1 lack both, 1 Q2 lack GPU, 2 Q3 satisfied, 3 Q4 lack CPU,
        // 4 XL satisfied (CPU-only), 5 XR lack CPU (CPU-only), 6 no access.
        let mut data = [0.0f64; 7];
        let total: u64 = gpu_free.iter().map(|&f| f as u64).sum();
        for (t, freq) in &self.types {
            let cpu_ok = cpu_free >= t.cpu_milli;
            let class = if t.gpu_milli == 0 {
                if cpu_ok {
                    4
                } else {
                    5
                }
            } else if !accessible(ty, t) {
                6
            } else {
                let room = gpu_free
                    .iter()
                    .filter(|&&f| f as u32 >= t.gpu_milli)
                    .count();
                match (room >= t.num_gpu as usize, cpu_ok) {
                    (true, true) => 2,
                    (true, false) => 3,
                    (false, true) => 1,
                    (false, false) => 0,
                }
            };
            if class == 2 {
                let frag: u64 = gpu_free
                    .iter()
                    .filter(|&&f| (f as u32) < t.gpu_milli)
                    .map(|&f| f as u64)
                    .sum();
                data[1] += freq * frag as f64;
                data[2] += freq * (total - frag) as f64;
            } else {
                data[class] += freq * total as f64;
            }
        }
        data.iter()
            .enumerate()
            .filter(|&(i, _)| i != 2)
            .map(|(_, v)| v)
            .fold(0.0, |a, v| a + v)
    }

    /// [`Self::fragmentation`] of a node state.
    pub fn node_fragmentation(&self, ty: &NodeType, node: &NodeState) -> f64 {
        self.fragmentation(ty, node.cpu_free, &node.gpu_free)
    }
}

/// The artifact's `IsNodeAccessibleToPod`: a type without a model constraint goes
/// anywhere (a CPU-only node included), one with a constraint only to a node of a named
/// model.
fn accessible(ty: &NodeType, t: &Task) -> bool {
    t.models == TypeMask::ANY || ty.model.is_some_and(|m| t.models.allows(m))
}

/// Free milli-GPU of a node that task type `t` could not use: the fragment the type sees
/// (all the node's free GPU capacity unless the type fits; then the GPUs too small for
/// it). Its popularity-weighted sum over the typical types is the node's fragmentation.
pub fn task_fragment(ty: &NodeType, node: &NodeState, t: &Task) -> u64 {
    let one = TypicalWorkload {
        types: vec![(*t, 1.0)],
    };
    one.node_fragmentation(ty, node) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(cpu: u32, n: u32, m: u32) -> Task {
        Task {
            cpu_milli: cpu,
            mem_mib: 0,
            num_gpu: n,
            gpu_milli: m,
            models: TypeMask::ANY,
        }
    }

    #[test]
    fn counts_by_pods_with_cpu_pods_and_renormalises() {
        // 10 pods: 5 of A (1 GPU), 3 CPU-only, 1 of B, 1 of C (same count as B but more
        // CPU, so C comes first). 90 % of 10 pods = 9: A (5), CPU (8), C (9) are taken.
        let a = task(4000, 1, 1000);
        let cpu = task(2000, 0, 0);
        let b = task(1000, 1, 500);
        let c = task(8000, 1, 500);
        let mut pods = vec![a; 5];
        pods.extend([cpu; 3]);
        pods.push(b);
        pods.push(c);
        let w =
            TypicalWorkload::from_pods(pods.iter().map(|&task| TypicalPod { task, spec: "" }), 0.9);
        let got: Vec<(u32, f64)> = w.types.iter().map(|(t, p)| (t.cpu_milli, *p)).collect();
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].0, 4000);
        assert_eq!(got[1].0, 2000);
        assert_eq!(got[2].0, 8000);
        // Shares renormalised over the 9 pods taken: 5/9, 3/9, 1/9.
        for (g, want) in got.iter().zip([5.0 / 9.0, 3.0 / 9.0, 1.0 / 9.0]) {
            assert!((g.1 - want).abs() < 1e-12, "{got:?}");
        }
    }

    #[test]
    fn fragmentation_by_hand() {
        let ty = NodeType {
            model: Some(0),
            gpus: 4,
            cpu_milli: 16000,
            mem_mib: 0,
        };
        // Free: GPUs 1000, 600, 200, 0; CPU 4000. Free GPU total 1800.
        let w = TypicalWorkload {
            types: vec![
                (task(2000, 1, 500), 0.5),  // fits: fragment = the 200-GPU = 200
                (task(8000, 1, 500), 0.25), // lacks CPU: all 1800
                (task(1000, 0, 0), 0.25),   // CPU-only: all 1800
            ],
        };
        let f = w.fragmentation(&ty, 4000, &[1000, 600, 200, 0]);
        // 0.5 x 200 + 0.25 x 1800 + 0.25 x 1800 = 100 + 450 + 450 = 1000.
        assert!((f - 1000.0).abs() < 1e-9, "{f}");
        // Two whole GPUs need two wholly free GPUs: only one, so all 1800 is fragment.
        let two = task_fragment(&ty, &NodeState::empty(0, &ty), &task(0, 2, 1000));
        assert_eq!(two, 0);
        let mut s = NodeState::empty(0, &ty);
        s.gpu_free = vec![1000, 600, 200, 0];
        assert_eq!(task_fragment(&ty, &s, &task(0, 2, 1000)), 1800);
        // A model constraint the node lacks: no access, all fragment.
        let mut v100 = task(0, 1, 500);
        v100.models = TypeMask::single(3);
        assert_eq!(task_fragment(&ty, &s, &v100), 1800);
    }
}
