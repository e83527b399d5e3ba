//! Placement policies: where one task goes among the nodes that can hold it.
//!
//! One vocabulary for every run that places work: a policy implements [`Placement`],
//! which scores a read-only view of one node (its hardware, [`NodeType`]; its free CPU,
//! memory and per-GPU milli-GPU and the GPU tasks it holds, [`NodeState`]) for a
//! [`Task`] and picks the GPU(s) inside it; the highest score wins, ties as the policy
//! says ([`TieBreak`]). Scores depend only on the view and the task. Two clusters ask:
//!
//! - [`GroupedCluster`], for the FGD paper's arrival-only experiment ([`FgdExperiment`]):
//!   alike nodes share one state, so each distinct state is scored once and cached.
//! - [`Placer`], for the time-based simulation's [`Cluster`](crate::model::Cluster): per
//!   pool, either the cluster's free-GPU index is read ([`ClusterRule::Index`], best and
//!   worst fit, so a million-job replay never scans nodes) or every fitting node is
//!   scored ([`ClusterRule::Score`]).
//!
//! [`PlacementKind`] is the one enum naming them, in `[scheduler] placement`,
//! `[placement_comparison] placements` and `[fgd_experiment] policies` alike.
//!
//! Where each rule lives: a policy's score, its GPU pick inside a node and how it treats
//! CPU-only tasks are in its own file (`choose`), each citing the FGD artifact's file and
//! function it follows (hkust-adsl/kubernetes-scheduler-simulator, the code behind the
//! paper's curves); what a node holds is [`NodeState::mix`] (kept by [`apply`] in the
//! experiment, read from the cluster's holdings on the time-based cluster when the
//! policy's [`ClusterRule`] asks); the order ties go in is the policy's [`TieBreak`],
//! applied by the cluster that asks; the typical workload and the fragmentation measure
//! are in `typical.rs`; the experiment's node order, pod order and tuning in
//! `experiment.rs`.
//!
//! # Adding a placement
//!
//! One new file plus one registry line:
//! 1. `src/sched/placement/my_policy.rs` with a type implementing [`Placement`]
//!    (`build` from the [`PlacementContext`], `choose`, and `tie_break` / `on_cluster`
//!    where the defaults do not fit).
//! 2. A line `MyPolicy => my_policy::MyPolicy,` (with a `///` doc line) in the
//!    `placements!` list below. The scenario name is the file name (`my_policy`); the
//!    registry derives the enum variant, its name, [`PlacementKind::ALL`] and the build.

#[macro_use]
mod registry;

mod experiment;
mod grouped;
mod node;
mod placer;
mod typical;

placements! {
    /// A node chosen uniformly at random among those that fit.
    Random => random::RandomFit,
    /// The smallest dot product of free resources and the request (Tetris-style).
    DotProduct => dot_product::DotProduct,
    /// Nodes already holding tasks of the same GPU affinity tag first, idle ones next.
    GpuClustering => gpu_clustering::GpuClustering,
    /// Used GPUs first, then free GPUs of used nodes, then small idle nodes.
    GpuPacking => gpu_packing::GpuPacking,
    /// The node left with the least free CPU and GPU (scaled, summed); on the
    /// time-based cluster, the node with the fewest free GPUs that fit. The default.
    #[default]
    BestFit => best_fit::BestFit,
    /// Fragmentation gradient descent (Weng et al., ATC'23).
    Fgd => fgd::Fgd,
    /// The first node (lowest index) that fits.
    FirstFit => first_fit::FirstFit,
    /// The node left with the most free CPU and GPU; on the time-based cluster, the node
    /// with the most free GPUs.
    WorstFit => worst_fit::WorstFit,
    /// Best fit within a node; gangs into the fewest racks of the pool's fabric.
    RackPack => rack_pack::RackPack,
}

pub use best_fit::best_fit_score;
pub use dot_product::dot_product_score;
pub use experiment::{
    allocation_at_100, FgdExperiment, FgdExperimentError, FgdRun, ARRIVED_POINTS,
};
pub use fgd::fgd_score;
pub use gpu_clustering::clustering_score;
pub use gpu_packing::packing_score;
pub use grouped::GroupedCluster;
pub use node::{
    apply, fits, share_picks, tightest_gpu, tightest_pick, Choice, GpuPick, NodeState, NodeType,
    Task, TaskMix, FULL,
};
pub use placer::Placer;
pub use typical::{task_fragment, TypicalPod, TypicalWorkload};

use crate::model::Workload;
use std::sync::OnceLock;

/// Kubernetes' `framework.MaxNodeScore`: the FGD artifact's scores run from 0 to this.
pub const MAX_NODE_SCORE: i64 = 100;
/// The FGD artifact's `MaxSpecCpu` (`pkg/type/open-gpu-share/utils/const.go`): the CPU
/// (milli-cores) best fit and dot product divide by, the same for every node.
pub const MAX_SPEC_CPU: i64 = 128_000;
/// The FGD artifact's `MaxSpecGpu`: the milli-GPU best fit, dot product and GPU
/// clustering divide by.
pub const MAX_SPEC_GPU: i64 = 8_000;

/// How ties between equally scored nodes are broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TieBreak {
    /// Uniformly at random over the tied nodes, from the run's `placement` random stream
    /// (random fit, whose every fitting node ties).
    Random,
    /// The lowest node index: the first tied node in the cluster's node order. The FGD
    /// artifact's patched scheduler takes the first node by name among equal scores
    /// (`selectHost`, `vendor/k8s.io/kubernetes/pkg/scheduler/core/generic_scheduler.go`)
    /// and prefixes node names with a random permutation drawn per run
    /// (`syncClusterResourceList`, `pkg/simulator/simulator.go`); the experiment numbers
    /// its nodes in such an order per seed.
    LowestNode,
}

/// Which end of the free-GPU index a policy reads on the time-based cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexOrder {
    /// The node with the fewest wholly free GPUs that still fit (packs, keeps big holes).
    FewestFree,
    /// The node with the most wholly free GPUs (spreads load).
    MostFree,
}

/// How a policy finds a node on the time-based cluster ([`Placer`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusterRule {
    /// Read the cluster's free-GPU index instead of scoring nodes: time in GPUs per node,
    /// not nodes. A shared task first takes the tightest partly used GPU that holds it.
    Index(IndexOrder),
    /// Score every fitting node of the pool with [`Placement::choose`].
    Score {
        /// How ties are broken.
        ties: TieBreak,
        /// Whether the node views carry what each node holds ([`NodeState::mix`]); the
        /// cluster then records holdings on every take and give-back.
        task_mix: bool,
    },
}

/// A placement policy: scores a node for a task.
pub trait Placement: Send + Sync {
    /// The policy for a run described by `ctx`.
    fn build(ctx: &PlacementContext) -> Self
    where
        Self: Sized;

    /// The score of putting `task` on a node of type `ty` in state `node` (higher is
    /// better), with the GPUs it would take; `None` when it does not fit.
    fn choose(&self, ty: &NodeType, node: &NodeState, task: &Task) -> Option<Choice>;

    /// How ties are broken in the FGD experiment ([`GroupedCluster`]).
    fn tie_break(&self) -> TieBreak {
        TieBreak::LowestNode
    }

    /// How the policy runs on the time-based cluster. The default scores every fitting
    /// node, ties to the lowest node, without holdings (the rule the placement
    /// comparison's results were produced with).
    fn on_cluster(&self) -> ClusterRule {
        ClusterRule::Score {
            ties: TieBreak::LowestNode,
            task_mix: false,
        }
    }

    /// True when every node the policy accepts scores the same (first fit): with ties to
    /// the lowest node, a scan of the pool's nodes stops at the first it accepts instead
    /// of scoring all of them (100,000 nodes made every placement a full scan).
    fn scores_alike(&self) -> bool {
        false
    }

    /// Whether gangs go into the fewest racks of a pool with racks (`rack_pack`); other
    /// policies take a gang's nodes as they come.
    fn packs_racks(&self) -> bool {
        false
    }
}

impl PlacementKind {
    /// The six policies of the FGD paper's experiment, in its order.
    pub const FGD_PAPER: [PlacementKind; 6] = [
        PlacementKind::Random,
        PlacementKind::DotProduct,
        PlacementKind::GpuClustering,
        PlacementKind::GpuPacking,
        PlacementKind::BestFit,
        PlacementKind::Fgd,
    ];

    /// The label the FGD artifact gives the policy (`01-Random` ... `06-FGD`), if any.
    pub fn artifact_label(self) -> Option<&'static str> {
        Some(match self {
            PlacementKind::Random => "01-Random",
            PlacementKind::DotProduct => "02-DotProd",
            PlacementKind::GpuClustering => "03-GpuClustering",
            PlacementKind::GpuPacking => "04-GpuPacking",
            PlacementKind::BestFit => "05-BestFit",
            PlacementKind::Fgd => "06-FGD",
            _ => return None,
        })
    }
}

/// What some policies need to know of the cluster and workload when they are built.
#[derive(Debug, Clone, Default)]
pub struct PlacementContext<'w> {
    /// The most CPU any node has (for policies scaled by the cluster; the FGD artifact's
    /// scale by the fixed [`MAX_SPEC_CPU`] instead).
    pub max_cpu_milli: u32,
    /// The most GPUs any node has.
    pub max_gpus: u16,
    typical: OnceLock<TypicalWorkload>,
    workload: Option<&'w Workload>,
}

impl<'w> PlacementContext<'w> {
    /// A context with FGD's typical workload given.
    pub fn new(typical: TypicalWorkload, max_cpu_milli: u32, max_gpus: u16) -> Self {
        PlacementContext {
            max_cpu_milli,
            max_gpus,
            typical: OnceLock::from(typical),
            workload: None,
        }
    }

    /// A context for a time-based run of `workload`: FGD's typical workload is drawn from
    /// its jobs ([`TypicalWorkload::of_workload`]) only if a policy asks for it.
    pub fn of_workload(workload: &'w Workload, max_cpu_milli: u32, max_gpus: u16) -> Self {
        PlacementContext {
            max_cpu_milli,
            max_gpus,
            typical: OnceLock::new(),
            workload: Some(workload),
        }
    }

    /// FGD's typical workload (empty when neither given nor drawable from a workload).
    pub fn typical(&self) -> &TypicalWorkload {
        self.typical.get_or_init(|| {
            self.workload
                .map(TypicalWorkload::of_workload)
                .unwrap_or_default()
        })
    }
}
