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
//! Cost: per timeline sample (never per event), one look at each up node with a free GPU
//! (wholly busy nodes have nothing to fragment and are not visited), nodes in the same
//! state scored once. The typical workload of a very large trace is drawn from a
//! systematic sample of its jobs (see `TYPICAL_SAMPLE`).

use crate::model::{Cluster, Workload};
use crate::sched::placement::{NodeState, NodeType, TaskMix, TypicalWorkload, FULL};

/// Measures each pool's fragmentation against a fixed typical workload.
pub(super) struct Fragmentation {
    /// Typical task types and their shares (FGD's popularity).
    typical: TypicalWorkload,
    /// The most CPU any typical task asks: more free CPU than this never matters.
    max_cpu: u32,
    /// The node being scored.
    scratch: NodeState,
    /// Scores of whole-GPU node states in the current pool: (free GPUs, CPU key, score).
    seen: Vec<(usize, u32, f64)>,
}

/// Workloads up to this many jobs give FGD's typical workload from every job; larger ones
/// from every k-th job (k = ceil(jobs / this)), which estimates the task types' shares to
/// within a fraction of a percent at a bounded cost.
const TYPICAL_SAMPLE: usize = 100_000;

impl Fragmentation {
    /// A meter for `w`'s typical workload.
    pub(super) fn of_workload(w: &Workload) -> Fragmentation {
        let typical = if w.jobs.len() <= TYPICAL_SAMPLE {
            TypicalWorkload::of_workload(w)
        } else {
            let k = w.jobs.len().div_ceil(TYPICAL_SAMPLE);
            let sample = Workload {
                jobs: w.jobs.iter().step_by(k).cloned().collect(),
                ..Default::default()
            };
            TypicalWorkload::of_workload(&sample)
        };
        let max_cpu = typical
            .types
            .iter()
            .map(|t| t.0.cpu_milli)
            .max()
            .unwrap_or(0);
        Fragmentation {
            typical,
            max_cpu,
            scratch: NodeState {
                ty: 0,
                cpu_free: 0,
                mem_free: 0,
                gpu_free: Vec::new(),
                mix: TaskMix::EMPTY,
            },
            seen: Vec::new(),
        }
    }

    /// The popularity-weighted fragment of the node in `self.scratch` (milli-GPU).
    fn score(&self, ty: &NodeType) -> f64 {
        self.typical.node_fragmentation(ty, &self.scratch)
    }

    /// Fragmentation of each pool's up nodes now, in milli-GPU (rounded).
    ///
    /// Wholly busy nodes are never visited: the cluster's index lists the up nodes by
    /// wholly free GPUs, and those with a partly used GPU apart. A node without partly
    /// used GPUs is scored by (free GPUs, free CPU up to what any typical task asks) once
    /// per sample; a node with one is scored on its own.
    pub(super) fn measure(&mut self, cluster: &Cluster) -> Vec<u64> {
        let mut out = Vec::with_capacity(cluster.pools().len());
        for pool in cluster.pools() {
            if self.typical.types.is_empty() {
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
            // Popularity-weighted fragment, milli-GPU, summed in node-index order.
            let mut sum = 0.0f64;
            let partly = |free: &[u16]| free.iter().any(|&f| f > 0 && f < FULL);
            for k in 1..pool.bucket_count() {
                for &n in pool.bucket(k) {
                    let free = cluster.node_free_milli(n);
                    if partly(free) {
                        continue;
                    }
                    let cpu = cluster.node_free_host(n).0;
                    let key = if cpu >= self.max_cpu { u32::MAX } else { cpu };
                    let f = match self.seen.iter().find(|s| s.0 == k && s.1 == key) {
                        Some(s) => s.2,
                        None => {
                            self.fill(cpu, free);
                            let f = self.score(&ty);
                            self.seen.push((k, key, f));
                            f
                        }
                    };
                    sum += f;
                }
            }
            for &n in pool.partial() {
                if !cluster.is_up(n) {
                    continue;
                }
                let cpu = cluster.node_free_host(n).0;
                self.fill(cpu, cluster.node_free_milli(n));
                sum += self.score(&ty);
            }
            out.push(sum.round().max(0.0) as u64);
        }
        out
    }

    /// Puts a node's free CPU and free GPU shares (sorted, most free first) in `scratch`.
    fn fill(&mut self, cpu: u32, free: &[u16]) {
        self.scratch.cpu_free = cpu;
        self.scratch.gpu_free.clear();
        self.scratch.gpu_free.extend_from_slice(free);
        self.scratch.gpu_free.sort_unstable_by(|a, b| b.cmp(a));
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
            tags: crate::model::JobTags::NONE,
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
