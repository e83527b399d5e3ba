//! Placement policies as node scorers for the time-based simulation: the cluster asks
//! each fitting node for a score ([`NodeScorer`]), the policies answer from a
//! [`NodeState`] built from the node's free capacity.

use super::{
    GpuPick, NodeState, NodeType, Placement, PlacementContext, PlacementKind, Task, TaskMix,
    TypicalWorkload,
};
use crate::model::{GpuRequest, NodeChoice, NodeScorer, NodeView, TypeMask, Workload};

/// A placement policy answering the cluster's node scores.
pub struct PolicyScorer {
    kind: PlacementKind,
    policy: Box<dyn Placement>,
}

impl std::fmt::Debug for PolicyScorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PolicyScorer({})", self.kind.as_str())
    }
}

/// FGD's typical workload from a workload's jobs (single-node shapes; 95 % of the GPU
/// demand, as in the experiment).
pub fn typical_of_workload(w: &Workload) -> TypicalWorkload {
    let tasks: Vec<Task> = w
        .jobs
        .iter()
        .map(|j| {
            let (num_gpu, gpu_milli) = match j.gpus {
                GpuRequest::None => (0, 0),
                GpuRequest::Fraction(m) => (1, m as u32),
                GpuRequest::Whole(n) => (n, 1000),
            };
            Task {
                cpu_milli: j.cpu_milli,
                mem_mib: 0,
                num_gpu,
                gpu_milli,
                models: TypeMask::ANY,
            }
        })
        .collect();
    TypicalWorkload::from_tasks(&tasks, 0.95)
}

impl PolicyScorer {
    /// The scorer for a scored node choice, or `None` for best/worst fit (which use the
    /// cluster's own index). `max_cpu_milli`/`max_gpus` scale the dot product.
    pub fn for_choice(
        choice: NodeChoice,
        workload: &Workload,
        max_cpu_milli: u32,
        max_gpus: u16,
    ) -> Option<PolicyScorer> {
        let kind = match choice {
            NodeChoice::BestFit | NodeChoice::WorstFit => return None,
            NodeChoice::FirstFit => PlacementKind::FirstFit,
            NodeChoice::GpuPacking => PlacementKind::GpuPacking,
            NodeChoice::DotProduct => PlacementKind::DotProduct,
            NodeChoice::Fgd => PlacementKind::Fgd,
        };
        let typical = if kind == PlacementKind::Fgd {
            typical_of_workload(workload)
        } else {
            TypicalWorkload::default()
        };
        let ctx = PlacementContext {
            typical,
            max_cpu_milli,
            max_gpus,
        };
        Some(PolicyScorer {
            kind,
            policy: kind.build(&ctx),
        })
    }
}

impl NodeScorer for PolicyScorer {
    fn score(&self, v: &NodeView, req: GpuRequest, cpu: u32, mem: u64) -> Option<(f64, u16)> {
        let ty = NodeType {
            model: Some(v.gpu_type),
            gpus: v.spec.gpus,
            cpu_milli: v.spec.cpu_milli,
            mem_mib: v.spec.mem_mib,
        };
        let mut gpu_free = v.free_milli.to_vec();
        gpu_free.sort_unstable_by(|a, b| b.cmp(a));
        let state = NodeState {
            ty: 0,
            cpu_free: v.cpu_free,
            mem_free: v.mem_free,
            gpu_free,
            mix: TaskMix::Empty,
        };
        let (num_gpu, gpu_milli) = match req {
            GpuRequest::None => (0, 0),
            GpuRequest::Fraction(m) => (1, m as u32),
            GpuRequest::Whole(n) => (n, 1000),
        };
        let task = Task {
            cpu_milli: cpu,
            mem_mib: mem,
            num_gpu,
            gpu_milli,
            models: TypeMask::ANY,
        };
        let c = self.policy.choose(&ty, &state, &task)?;
        let gpu = match c.pick {
            GpuPick::Share(i) => {
                let want = state.gpu_free[i as usize];
                v.free_milli.iter().position(|&f| f == want)? as u16
            }
            GpuPick::Whole | GpuPick::NoGpu => 0,
        };
        // First fit: lower node index wins ties already; all scores equal.
        Some((c.score, gpu))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CapacityKind, Cluster, NodeSpec, PoolSpec};
    use std::sync::Arc;

    #[test]
    fn cluster_uses_the_scorer() {
        let spec = NodeSpec {
            gpus: 2,
            cpu_milli: 8000,
            mem_mib: 1000,
        };
        let mut c = Cluster::new(vec![PoolSpec {
            name: "p".into(),
            gpu_type: 0,
            kind: CapacityKind::Owned,
            node: spec,
            nodes: 3,
            speed: 1.0,
        }]);
        c.set_node_choice(NodeChoice::GpuPacking);
        let w = Workload::default();
        c.set_scorer(Arc::new(
            PolicyScorer::for_choice(NodeChoice::GpuPacking, &w, 8000, 2).unwrap(),
        ));
        let a = c.find(0, GpuRequest::Fraction(300), 100, 10, None).unwrap();
        c.take(&a);
        let used = a.gpus[0].node;
        // Packing puts the next share on the same, already used GPU.
        let b = c.find(0, GpuRequest::Fraction(500), 100, 10, None).unwrap();
        assert_eq!((b.gpus[0].node, b.gpus[0].gpu), (used, a.gpus[0].gpu));
        c.take(&b);
        // A 2-GPU job cannot use that node (one GPU is partly used).
        let g = c.find(0, GpuRequest::Whole(2), 100, 10, None).unwrap();
        assert_ne!(g.gpus[0].node, used);
        assert_eq!(g.gpus.len(), 2);
    }
}
