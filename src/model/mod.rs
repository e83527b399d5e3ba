//! The modelled fleet and its work: GPU types, nodes, pools of capacity, jobs; where
//! data lives (`datasets`), pools' interconnects (`fabric`) and per-class GPU speeds
//! (`throughput`).
//!
//! Knows nothing of files or policies; `sched` decides what runs where, `sim` drives time.

mod cluster;
pub mod datasets;
pub mod fabric;
mod gpu;
mod job;
mod pool_index;
pub mod throughput;

pub use cluster::{
    Allocation, Cluster, GpuSlice, Holding, NodeSpec, Pool, PoolSpec, ReservedNodes, MAX_NODES,
    MAX_SEARCHES,
};
pub use gpu::{CapacityKind, GpuType, TypeMask};
pub use job::{
    GpuRequest, Job, JobId, JobIdHasher, JobMap, JobTags, NameIndex, Workload, MILLI_PER_GPU,
};
pub use pool_index::PoolFit;
pub(crate) use pool_index::{first_leaf_from, groups_in_order};
