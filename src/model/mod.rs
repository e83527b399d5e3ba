//! The modelled fleet and its work: GPU types, nodes, pools of capacity, jobs.
//!
//! Knows nothing of files or policies; `sched` decides what runs where, `sim` drives time.

mod cluster;
mod gpu;
mod job;

pub use cluster::{
    Allocation, Cluster, GpuSlice, Holding, NodeSpec, Pool, PoolSpec, ReservedNodes,
};
pub use gpu::{CapacityKind, GpuType, TypeMask};
pub use job::{GpuRequest, Job, JobId, JobIdHasher, JobMap, Workload, MILLI_PER_GPU};
