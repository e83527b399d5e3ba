//! Helpers shared by the integration tests.
#![allow(dead_code)]

use gpufleet::engine::SimTime;
use gpufleet::model::{CapacityKind, GpuRequest, Job, NodeSpec, PoolSpec, TypeMask, Workload};
use gpufleet::sched::PolicyKind;
use gpufleet::sim::SimConfig;
use std::path::PathBuf;

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A job with the given submit time (s), GPUs and work (s).
pub fn job(submit_s: u64, gpus: u32, work_s: u64) -> Job {
    Job {
        name: format!("j{submit_s}"),
        submit: SimTime::from_secs(submit_s),
        gpus: GpuRequest::Whole(gpus),
        gpu_types: TypeMask::ANY,
        cpu_milli: 0,
        mem_mib: 0,
        work: SimTime::from_secs(work_s),
        estimate: None,
        tenant: 0,
        priority: 0,
        deadline: None,
        preemptible: false,
        tags: gpufleet::model::JobTags::NONE,
    }
}

/// A workload from jobs (sorted by submit, stable).
pub fn workload(jobs: Vec<Job>) -> Workload {
    let mut w = Workload {
        jobs,
        tenants: vec!["default".into()],
        ..Default::default()
    };
    w.sort_by_submit();
    w
}

/// One owned pool of `nodes` nodes with `gpus` GPUs each.
pub fn pool(name: &str, nodes: u32, gpus: u16) -> PoolSpec {
    PoolSpec {
        name: name.into(),
        gpu_type: 0,
        kind: CapacityKind::Owned,
        node: NodeSpec {
            gpus,
            cpu_milli: 1_000_000,
            mem_mib: 1 << 30,
        },
        nodes,
        speed: 1.0,
    }
}

/// A config with the given pools and policy, no horizon, no timeline.
pub fn config(pools: Vec<PoolSpec>, policy: PolicyKind) -> SimConfig {
    SimConfig {
        pools,
        policy,
        placement: Default::default(),
        horizon: None,
        sample_every: None,
        options: Default::default(),
    }
}

/// A scenario of one job (1 GPU for 10 hours, $1.50 a GPU-hour: $15) on one on-demand pool
/// of `nodes` 8-GPU nodes, without a horizon, under a $1 budget: the job can never start.
pub fn budget_bound_scenario(nodes: u32) -> String {
    format!(
        "name = \"budget\"\nseed = 1\n\n[[pools]]\nname = \"od\"\ngpu_type = \"H100\"\nkind = \"on_demand\"\nnodes = {nodes}\ngpus_per_node = 8\nprice_per_node_hour = 12.0\n\n[scheduler.budget]\ntotal_usd = 1.0\n\n[workload]\nkind = \"synthetic\"\njobs = 1\nrate_per_hour = 1.0\nsizes = [{{ gpus = 1, weight = 1 }}]\nduration = {{ kind = \"fixed\", value = \"10h\" }}\n"
    )
}
