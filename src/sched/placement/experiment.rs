//! The FGD paper's arrival-only experiment on an openb trace.
//!
//! The trace is first "tuned" to `tune` (1.3) times the cluster's GPU capacity by
//! appending pods drawn uniformly at random (seeded) until the next one would pass that
//! target; all pods are then shuffled (seeded) and arrive one by one, never leaving.
//! Each is placed by the policy or counted as failed. The curve records the allocated
//! share of the cluster's milli-GPU when the arrived GPU demand first reaches 0 %, 1 %,
//! ..., 130 % of capacity.

use super::{GroupedCluster, NodeType, PlacementContext, PlacementKind, Task, TypicalWorkload};
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
    tasks: Vec<Task>,
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

/// One run: a policy, a seed and its curve.
#[derive(Debug, Clone, PartialEq)]
pub struct FgdRun {
    /// The policy.
    pub policy: PlacementKind,
    /// The seed.
    pub seed: u64,
    /// Allocated % of the cluster's GPUs at arrived demand 0..=130 % (index = percent).
    pub curve: Vec<f64>,
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
    /// Builds the experiment from an openb node list and pod list. `coverage` is the
    /// share of the trace's GPU demand FGD's typical workload covers (the paper: 0.95; see
    /// [`TypicalWorkload::from_tasks`]).
    pub fn new(
        nodes: &[OpenbNode],
        pods: &[OpenbPod],
        tune: f64,
        coverage: f64,
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
        let typical = TypicalWorkload::from_tasks(&tasks, coverage);
        Ok(FgdExperiment {
            types,
            node_types,
            shapes: ids.len(),
            tasks,
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

    /// The pods of one seed, in arrival order: the trace tuned to the target, shuffled.
    pub fn arrivals(&self, seed: u64) -> Vec<usize> {
        let streams = RngStreams::new(seed);
        let mut order: Vec<usize> = (0..self.tasks.len()).collect();
        let target = (self.tune * self.gpu_capacity as f64).floor() as u64;
        let mut total: u64 = self.tasks.iter().map(Task::gpu_total).sum();
        let mut rng = streams.stream("fgd-tune");
        // Guard against a target no pod can approach (a trace of CPU-only pods is refused
        // in `new`, so a GPU pod eventually passes the target).
        while total <= target {
            let i = rng.random_range(0..self.tasks.len());
            let g = self.tasks[i].gpu_total();
            if total + g > target {
                break;
            }
            total += g;
            order.push(i);
        }
        order.shuffle(&mut streams.stream("fgd-shuffle"));
        order
    }

    /// Runs one policy under one seed.
    pub fn run(&self, policy: PlacementKind, seed: u64) -> FgdRun {
        let order = self.arrivals(seed);
        let placement = policy.build(&self.ctx);
        let mut cluster = GroupedCluster::new(self.types.clone(), &self.node_types, self.shapes);
        let mut rng = RngStreams::new(seed).stream("placement");
        let cap = self.gpu_capacity as u128;
        let (mut arrived, mut allocated) = (0u64, 0u64);
        let mut failed = 0usize;
        let mut curve = Vec::with_capacity(ARRIVED_POINTS);
        for &i in &order {
            let t = &self.tasks[i];
            arrived += t.gpu_total();
            match cluster.place(placement.as_ref(), t, self.shape_of[i], &mut rng) {
                Some(_) => allocated += t.gpu_total(),
                None => failed += 1,
            }
            while curve.len() < ARRIVED_POINTS && arrived as u128 * 100 >= curve.len() as u128 * cap
            {
                curve.push(allocated as f64 * 100.0 / self.gpu_capacity as f64);
            }
        }
        let last = allocated as f64 * 100.0 / self.gpu_capacity as f64;
        curve.resize(ARRIVED_POINTS, last);
        FgdRun {
            policy,
            seed,
            curve,
            pods: order.len(),
            failed,
        }
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
