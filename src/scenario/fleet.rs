//! Scenarios assembled in code rather than read from a file: a scenario around a workload
//! the caller built (the placement comparison, library users), and a scenario's variant
//! on another fleet (the candidates of `tco --simulate`, plans). Both are run through the
//! one run path ([`crate::run`]) like any scenario read from a file.

use super::{Scenario, WorkloadSource};
use crate::model::{GpuType, PoolSpec, Workload};
use crate::pricing::PoolPricing;
use crate::sim::SimConfig;
use std::sync::Arc;

impl Scenario {
    /// A scenario around `workload`: the fleet and scheduler of `sim`, one pricing model per
    /// pool, no failures and no extra sections (data moves priced at the catalog's default
    /// cloud). `hash` identifies the input in outputs.
    pub fn assembled(
        name: &str,
        hash: &str,
        gpu_types: Vec<GpuType>,
        sim: SimConfig,
        pricing: Vec<PoolPricing>,
        workload: Workload,
    ) -> Scenario {
        Scenario {
            name: name.to_string(),
            description: String::new(),
            seed: 1,
            hash: hash.to_string(),
            gpu_types,
            pricing,
            sim,
            tco: None,
            spot_deadline: None,
            savings_plan: None,
            transfer: None,
            // The built-in catalog always has the default cloud's rows.
            egress: super::pricing::moves_egress(None, &mut super::problems::Problems::new()),
            workload: WorkloadSource::Given(Arc::new(workload)),
            faults: None,
            // A fleet assembled by a caller (a comparison, a TCO candidate) rejects what
            // it cannot hold, as the comparison expects.
            limits: super::RunLimits {
                oversized: super::Oversized::Reject,
                ..Default::default()
            },
            tags: Default::default(),
            measured_on: None,
            metrics: Default::default(),
            warnings: Vec::new(),
            output_format: Default::default(),
        }
    }

    /// This scenario on another fleet: `fleet` replaces the pools and their pricing (each
    /// pool's pricing as given, drawn per run if it is market priced). Everything else
    /// is kept, including sections that name pools by index (failures, autoscalers, savings
    /// plans): a caller whose fleet does not line up with the original clears those.
    pub fn with_fleet(&self, fleet: Vec<(PoolSpec, PoolPricing)>) -> Scenario {
        let (pools, pricing): (Vec<PoolSpec>, Vec<PoolPricing>) = fleet.into_iter().unzip();
        let mut s = self.clone();
        s.sim.pools = pools;
        s.pricing = pricing;
        s
    }
}
