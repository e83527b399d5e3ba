//! The FGD paper's arrival-only experiment on an openb trace, as the artifact runs it
//! (hkust-adsl/kubernetes-scheduler-simulator; `Simulate` in `pkg/simulator/core.go`,
//! the run scripts in `experiments/run_scripts/`, the curves in `experiments/analysis/`).
//!
//! Per seed (the artifact's "tune seed"):
//! 1. **Pod order** (`SortClusterPods`, `pkg/simulator/simulator.go`, `--shuffle-pod=true`):
//!    the trace's pods, sorted by name, are shuffled.
//! 2. **Tuning** (`TunePodsByNodeTotalResource`, `tuneUpPods`, `tuneDownPods`): while the
//!    pods' GPU demand is under `tune` (1.3) times the cluster's milli-GPU, pods drawn
//!    uniformly from the trace (by name order) are appended after the shuffled ones; the
//!    draw stops at the first pod whose **milli-GPU per GPU** (not its total) would carry
//!    the demand past the target, as the artifact tests it. A trace already above the
//!    target loses pods drawn at random until it is not.
//! 3. **Node order** (`syncClusterResourceList`): nodes sorted by name get a random
//!    permutation as name prefixes, so a tie between equal scores goes to the first node
//!    in a random order fixed for the run; nodes are numbered in that order here.
//! 4. Pods arrive one by one and never leave; each is placed by the policy or fails.
//!    After every pod (placed or not) the arrived GPU demand, the allocated milli-GPU and
//!    the cluster's fragmentation are recorded (`ClusterGpuFragReport`,
//!    `pkg/simulator/analysis.go`).
//! 5. **Curves** (`merge_alloc_discrete.py`, `merge_frag_discrete.py`): each record falls
//!    in the bin of its arrived demand in % of the cluster's GPUs, rounded half to even;
//!    the point at `k` % is the mean over the records of bin `k` (over bins `k-1..=k+1`
//!    when bin `k` has none; missing when they have none either). Allocation is the
//!    allocated share of the cluster's milli-GPU, fragmentation the fragmented milli-GPU
//!    as a share of it. The artifact rounds each record to 0.01 first; full precision is
//!    kept here.
//!
//! The random streams are gpufleet's (the artifact's Go `math/rand` sequence is not
//! reproduced): the same rules, other draws.

use super::TypicalWorkload;
use super::{GroupedCluster, NodeType, PlacementContext, PlacementKind, Task, TypicalPod};
use crate::engine::RngStreams;
use crate::model::TypeMask;
use crate::workload::{OpenbNode, OpenbPod};
use rand::seq::SliceRandom;
use rand::Rng;
use rayon::prelude::*;
use std::collections::HashMap;

/// Points of the curve: arrived demand 0 %, 1 %, ..., 130 % of the cluster's GPUs.
pub const ARRIVED_POINTS: usize = 131;

/// The experiment's fixed inputs: cluster, trace, tuning ratio and FGD's typical workload.
#[derive(Debug, Clone)]
pub struct FgdExperiment {
    types: Vec<NodeType>,
    node_types: Vec<u32>,
    nodes_by_name: Vec<usize>,
    tasks: Vec<Task>,
    pods_by_name: Vec<usize>,
    shape_of: Vec<usize>,
    shapes: usize,
    gpu_capacity: u64,
    tune: f64,
    ctx: PlacementContext<'static>,
}

/// Why an FGD experiment cannot be built from its inputs.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FgdExperimentError {
    /// The tuning ratio is not a positive number.
    #[error("tune must be a positive number, not {0}")]
    BadTune(f64),
    /// The node list names more GPU models than a [`TypeMask`] holds.
    #[error("more than 64 GPU models in the node list")]
    TooManyModels,
    /// The node list has no GPU.
    #[error("the node list has no GPUs")]
    NoGpus,
    /// No pod asks for a GPU.
    #[error("the pod list asks for no GPUs")]
    NoGpuDemand,
}

/// One run: a policy, a seed and its curves.
#[derive(Debug, Clone, PartialEq)]
pub struct FgdRun {
    /// The policy.
    pub policy: PlacementKind,
    /// The seed.
    pub seed: u64,
    /// Allocated % of the cluster's GPUs at arrived demand 0..=130 % (index = percent;
    /// NaN where the run has no record near that point).
    pub curve: Vec<f64>,
    /// Fragmented % of the cluster's GPUs at the same points.
    pub frag: Vec<f64>,
    /// Pods that arrived (after tuning).
    pub pods: usize,
    /// Pods no node could hold.
    pub failed: usize,
}

/// The value of a curve at 100 % arrived demand.
pub fn allocation_at_100(curve: &[f64]) -> f64 {
    curve.get(100).copied().unwrap_or(f64::NAN)
}

impl FgdExperiment {
    /// Builds the experiment from an openb node list and pod list. `threshold` is the
    /// share of the pods (by count) FGD's typical workload covers (the artifact: 0.95;
    /// see [`TypicalWorkload::from_pods`]).
    pub fn new(
        nodes: &[OpenbNode],
        pods: &[OpenbPod],
        tune: f64,
        threshold: f64,
    ) -> Result<FgdExperiment, FgdExperimentError> {
        if !(tune.is_finite() && tune > 0.0) {
            return Err(FgdExperimentError::BadTune(tune));
        }
        let mut models: Vec<String> = Vec::new();
        let mut types: Vec<NodeType> = Vec::new();
        let mut node_types = Vec::with_capacity(nodes.len());
        for n in nodes {
            let model = (n.gpus > 0).then(|| match models.iter().position(|m| *m == n.model) {
                Some(i) => i,
                None => {
                    models.push(n.model.clone());
                    models.len() - 1
                }
            });
            let ty = NodeType {
                model,
                gpus: n.gpus as u16,
                cpu_milli: n.cpu_milli,
                mem_mib: n.mem_mib,
            };
            let t = match types.iter().position(|t| *t == ty) {
                Some(t) => t,
                None => {
                    types.push(ty);
                    types.len() - 1
                }
            };
            node_types.push(t as u32);
        }
        if models.len() > 64 {
            return Err(FgdExperimentError::TooManyModels);
        }
        let gpu_capacity: u64 = nodes.iter().map(|n| n.gpus as u64 * 1000).sum();
        if gpu_capacity == 0 {
            return Err(FgdExperimentError::NoGpus);
        }
        let tasks: Vec<Task> = pods
            .iter()
            .map(|p| Task {
                cpu_milli: p.cpu_milli,
                mem_mib: p.mem_mib,
                num_gpu: p.num_gpu,
                gpu_milli: p.gpu_milli,
                // A spec naming no model of this cluster allows nothing: the pod fails.
                models: if p.gpu_spec.is_empty() {
                    TypeMask::ANY
                } else {
                    TypeMask(
                        p.gpu_spec
                            .iter()
                            .filter_map(|s| models.iter().position(|m| m == s))
                            .fold(0u64, |m, i| m | 1u64 << i),
                    )
                },
            })
            .collect();
        if tasks.iter().all(|t| t.gpu_total() == 0) {
            return Err(FgdExperimentError::NoGpuDemand);
        }
        let mut ids: HashMap<Task, usize> = HashMap::new();
        let shape_of = tasks
            .iter()
            .map(|t| {
                let n = ids.len();
                *ids.entry(*t).or_insert(n)
            })
            .collect();
        let specs: Vec<String> = pods.iter().map(|p| p.gpu_spec.join("|")).collect();
        let typical = TypicalWorkload::from_pods(
            tasks.iter().zip(&specs).map(|(&task, spec)| TypicalPod {
                task,
                spec: spec.as_str(),
            }),
            threshold,
        );
        let mut pods_by_name: Vec<usize> = (0..pods.len()).collect();
        pods_by_name.sort_by(|&a, &b| pods[a].name.cmp(&pods[b].name));
        let mut nodes_by_name: Vec<usize> = (0..nodes.len()).collect();
        nodes_by_name.sort_by(|&a, &b| nodes[a].sn.cmp(&nodes[b].sn));
        Ok(FgdExperiment {
            types,
            node_types,
            nodes_by_name,
            shapes: ids.len(),
            tasks,
            pods_by_name,
            shape_of,
            gpu_capacity,
            tune,
            ctx: PlacementContext::new(
                typical,
                nodes.iter().map(|n| n.cpu_milli).max().unwrap_or(0),
                nodes.iter().map(|n| n.gpus as u16).max().unwrap_or(0),
            ),
        })
    }

    /// GPUs in the cluster, in milli-GPU.
    pub fn gpu_capacity(&self) -> u64 {
        self.gpu_capacity
    }

    /// FGD's typical workload.
    pub fn typical(&self) -> &TypicalWorkload {
        self.ctx.typical()
    }

    /// The pods of one seed, in arrival order (indices into the pod list): the trace
    /// shuffled, then the pods tuning appends (or less the pods it removes).
    pub fn arrivals(&self, seed: u64) -> Vec<usize> {
        let streams = RngStreams::new(seed);
        let mut order = self.pods_by_name.clone();
        order.shuffle(&mut streams.stream("fgd-shuffle"));
        let target = self.tune * self.gpu_capacity as f64;
        let mut total: u64 = self.tasks.iter().map(Task::gpu_total).sum();
        let mut rng = streams.stream("fgd-tune");
        if (total as f64) > target {
            while total as f64 > target && !order.is_empty() {
                let i = order.remove(rng.random_range(0..order.len()));
                total -= self.tasks[i].gpu_total();
            }
        } else if (total as f64) < target {
            loop {
                let i = self.pods_by_name[rng.random_range(0..self.pods_by_name.len())];
                let t = &self.tasks[i];
                // The artifact compares with the pod's milli-GPU per GPU, then adds its total.
                if (total + t.gpu_milli as u64) as f64 > target {
                    break;
                }
                total += t.gpu_total();
                order.push(i);
            }
        }
        order
    }

    /// Each node's place in the run's node order (index = node in the node list): the
    /// nodes sorted by name, numbered by a random permutation.
    pub fn node_order(&self, seed: u64) -> Vec<u32> {
        let mut perm: Vec<u32> = (0..self.node_types.len() as u32).collect();
        perm.shuffle(&mut RngStreams::new(seed).stream("fgd-node-order"));
        let mut rank = vec![0u32; self.node_types.len()];
        for (i, &n) in self.nodes_by_name.iter().enumerate() {
            rank[n] = perm[i];
        }
        rank
    }

    /// Runs one policy under one seed.
    pub fn run(&self, policy: PlacementKind, seed: u64) -> FgdRun {
        self.run_traced(policy, seed).0
    }

    /// Runs one policy under one seed, with the node (index into the node list) each
    /// arriving pod went to, `None` for a pod that failed.
    pub fn run_traced(&self, policy: PlacementKind, seed: u64) -> (FgdRun, Vec<Option<u32>>) {
        let order = self.arrivals(seed);
        let rank = self.node_order(seed);
        let mut by_rank = vec![0u32; rank.len()];
        for (n, &r) in rank.iter().enumerate() {
            by_rank[r as usize] = n as u32;
        }
        let ranked_types: Vec<u32> = by_rank
            .iter()
            .map(|&n| self.node_types[n as usize])
            .collect();
        let placement = policy.build(&self.ctx);
        let mut cluster = GroupedCluster::new(self.types.clone(), &ranked_types, self.shapes)
            .with_fragmentation(self.ctx.typical().clone());
        let mut rng = RngStreams::new(seed).stream("placement");
        let gpus = (self.gpu_capacity / 1000) as f64;
        let (mut arrived, mut allocated) = (0u64, 0u64);
        let mut failed = 0usize;
        let mut bins = vec![(0.0f64, 0.0f64, 0u32); ARRIVED_POINTS];
        let mut went = Vec::with_capacity(order.len());
        for &i in &order {
            let t = &self.tasks[i];
            arrived += t.gpu_total();
            match cluster.place(placement.as_ref(), t, self.shape_of[i], &mut rng) {
                Some(r) => {
                    allocated += t.gpu_total();
                    went.push(Some(by_rank[r as usize]));
                }
                None => {
                    failed += 1;
                    went.push(None);
                }
            }
            let k = (arrived as f64 / gpus / 10.0).round_ties_even();
            if k <= (ARRIVED_POINTS - 1) as f64 {
                let b = &mut bins[k as usize];
                b.0 += allocated as f64 / gpus / 10.0;
                b.1 += 100.0 * cluster.fragmentation() / 1000.0 / gpus;
                b.2 += 1;
            }
        }
        let (curve, frag) = curves(&bins);
        let run = FgdRun {
            policy,
            seed,
            curve,
            frag,
            pods: order.len(),
            failed,
        };
        (run, went)
    }

    /// Runs every policy under every seed in parallel; results in (policy, seed) order.
    pub fn run_all(&self, policies: &[PlacementKind], seeds: &[u64]) -> Vec<FgdRun> {
        let jobs: Vec<(PlacementKind, u64)> = policies
            .iter()
            .flat_map(|&p| seeds.iter().map(move |&s| (p, s)))
            .collect();
        jobs.par_iter().map(|&(p, s)| self.run(p, s)).collect()
    }
}

/// The artifact's discrete curves from per-bin sums `(allocated %, fragmented %, count)`.
fn curves(bins: &[(f64, f64, u32)]) -> (Vec<f64>, Vec<f64>) {
    let mut alloc = Vec::with_capacity(bins.len());
    let mut frag = Vec::with_capacity(bins.len());
    for k in 0..bins.len() {
        let (a, f, n) = if bins[k].2 > 0 {
            bins[k]
        } else {
            bins[k.saturating_sub(1)..(k + 2).min(bins.len())]
                .iter()
                .fold((0.0, 0.0, 0), |s, b| (s.0 + b.0, s.1 + b.1, s.2 + b.2))
        };
        if n == 0 {
            alloc.push(f64::NAN);
            frag.push(f64::NAN);
        } else {
            alloc.push(a / n as f64);
            frag.push(f / n as f64);
        }
    }
    (alloc, frag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_bins_borrow_their_neighbours() {
        // Bin 0: two records (10, 20); bin 1 empty; bin 2: one record (40); bin 3 and 4
        // empty. Point 1 pools bins 0..=2: (10 + 20 + 40) / 3; point 3 pools bins 2..=4:
        // 40; point 4 pools bins 3..=4: none.
        let bins = vec![
            (30.0, 3.0, 2),
            (0.0, 0.0, 0),
            (40.0, 4.0, 1),
            (0.0, 0.0, 0),
            (0.0, 0.0, 0),
        ];
        let (a, f) = curves(&bins);
        assert_eq!(a[0], 15.0);
        assert!((a[1] - 70.0 / 3.0).abs() < 1e-12);
        assert_eq!(a[2], 40.0);
        assert_eq!(a[3], 40.0);
        assert!(a[4].is_nan() && f[4].is_nan());
        assert!((f[1] - 7.0 / 3.0).abs() < 1e-12);
    }
}
