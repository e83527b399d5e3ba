//! The FGD paper's fragmentation measure over a running cluster, sampled into the
//! timeline (Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with
//! Fragmentation Gradient Descent", USENIX ATC'23, section 3).
//!
//! A node's fragmentation for a task type is the free GPU capacity that task could not use
//! there ([`task_fragment`], the placement layer's rule, called, not copied); for the
//! workload it is the expectation over the typical task types, each weighted by its
//! popularity share: F_n = sum_m p_m F_n(m), with p_m = count_m / sum of counts. A pool's
//! figure is the sum over its up nodes, in milli-GPU. The typical workload is the one FGD
//! itself uses in a time-based run ([`TypicalWorkload::of_workload`]: task types by
//! popularity until they cover 95 % of the GPU demand).
//!
//! Cost: one pass over the nodes per timeline sample (never per event); wholly busy nodes
//! are skipped (they have nothing free to fragment), and nodes in the same state within a
//! sample are scored once.

use crate::model::{Cluster, Workload};
use crate::sched::placement::{task_fragment, NodeState, NodeType, Task, TaskMix, TypicalWorkload};
use std::collections::HashMap;

/// Measures each pool's fragmentation against a fixed typical workload.
pub(super) struct Fragmentation {
    /// Typical task types and their counts.
    types: Vec<(Task, u64)>,
    /// Sum of the counts.
    total: u64,
    /// The node being scored.
    scratch: NodeState,
    /// Scores of the node states seen in the current sample (cleared per pool).
    seen: HashMap<(u32, Vec<u16>), u128>,
}

impl Fragmentation {
    /// A meter for `w`'s typical workload.
    pub(super) fn of_workload(w: &Workload) -> Fragmentation {
        let types = TypicalWorkload::of_workload(w).types;
        let total = types.iter().map(|t| t.1).sum();
        Fragmentation {
            types,
            total,
            scratch: NodeState {
                ty: 0,
                cpu_free: 0,
                mem_free: 0,
                gpu_free: Vec::new(),
                mix: TaskMix::Empty,
            },
            seen: HashMap::new(),
        }
    }

    /// Fragmentation of each pool's up nodes now, in milli-GPU (rounded).
    pub(super) fn measure(&mut self, cluster: &Cluster) -> Vec<u64> {
        let mut out = Vec::with_capacity(cluster.pools().len());
        for (p, pool) in cluster.pools().iter().enumerate() {
            if self.total == 0 {
                out.push(0);
                continue;
            }
            let spec = &pool.spec;
            let ty = NodeType {
                model: Some(spec.gpu_type),
                gpus: spec.node.gpus,
                cpu_milli: spec.node.cpu_milli,
                mem_mib: spec.node.mem_mib,
            };
            self.seen.clear();
            // Weighted sum in milli-GPU x task counts; divided by the total count once.
            let mut sum: u128 = 0;
            for n in cluster.pool_nodes(p) {
                if !cluster.is_up(n) {
                    continue;
                }
                let free = cluster.node_free_milli(n);
                if free.iter().all(|&f| f == 0) {
                    continue;
                }
                let cpu = cluster.node_free_host(n).0;
                self.scratch.cpu_free = cpu;
                self.scratch.gpu_free.clear();
                self.scratch.gpu_free.extend_from_slice(free);
                self.scratch.gpu_free.sort_unstable_by(|a, b| b.cmp(a));
                let key = (cpu, std::mem::take(&mut self.scratch.gpu_free));
                let f = match self.seen.get(&key) {
                    Some(&f) => f,
                    None => {
                        self.scratch.gpu_free = key.1.clone();
                        let f = self
                            .types
                            .iter()
                            .map(|(t, w)| *w as u128 * task_fragment(&ty, &self.scratch, t) as u128)
                            .sum();
                        self.seen.insert(key.clone(), f);
                        f
                    }
                };
                self.scratch.gpu_free = key.1;
                sum += f;
            }
            let total = self.total as u128;
            out.push(((sum + total / 2) / total) as u64);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimTime;
    use crate::model::{
        Allocation, CapacityKind, GpuRequest, GpuSlice, Job, NodeSpec, PoolSpec, TypeMask,
    };

    fn job(gpus: GpuRequest) -> Job {
        Job {
            name: "j".into(),
            submit: SimTime::ZERO,
            gpus,
            gpu_types: TypeMask::ANY,
            cpu_milli: 0,
            mem_mib: 0,
            work: SimTime::from_secs(1),
            estimate: None,
            tenant: 0,
            priority: 0,
            deadline: None,
            preemptible: false,
        }
    }

    /// Two task types, one 1-GPU task and one 0.5-GPU task each (so p = 1/2, 1/2), on one
    /// 2-GPU node. Empty: neither type leaves a fragment (0). With 0.7 of GPU 0 taken, the
    /// node has 0.3 + 1.0 free: the 1-GPU type cannot use the 0.3 (F = 300 milli), the
    /// 0.5-GPU type cannot either (0.3 < 0.5: F = 300); expectation 300 milli-GPU. With both
    /// GPUs at 0.7 taken: the 1-GPU type fits nowhere (F = all free = 600), the 0.5 type
    /// neither (600): 600.
    #[test]
    fn fragmentation_by_hand() {
        let w = Workload {
            jobs: vec![job(GpuRequest::Whole(1)), job(GpuRequest::Fraction(500))],
            tenants: vec!["t".into()],
            ..Default::default()
        };
        let pool = PoolSpec {
            name: "p".into(),
            gpu_type: 0,
            kind: CapacityKind::Owned,
            node: NodeSpec {
                gpus: 2,
                cpu_milli: 1_000_000,
                mem_mib: 1 << 30,
            },
            nodes: 1,
            speed: 1.0,
        };
        let mut c = Cluster::new(vec![pool]);
        let mut m = Fragmentation::of_workload(&w);
        assert_eq!(m.measure(&c), vec![0]);
        let take = |g: u16| Allocation {
            pool: 0,
            hosts: vec![(0, 0, 0)],
            gpus: vec![GpuSlice {
                node: 0,
                gpu: g,
                milli: 700,
            }],
        };
        c.take(&take(0));
        assert_eq!(m.measure(&c), vec![300]);
        c.take(&take(1));
        assert_eq!(m.measure(&c), vec![600]);
    }
}
