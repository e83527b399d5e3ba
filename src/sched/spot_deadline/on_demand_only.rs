//! On-demand only: the baseline that never uses spot.

use super::{DeadlineProblem, JobState, Mode, SpotPolicy};

/// Always on-demand.
#[derive(Debug, Clone, Copy, Default)]
pub struct OnDemandOnly;

impl SpotPolicy for OnDemandOnly {
    fn name(&self) -> &'static str {
        "on_demand_only"
    }

    fn decide(&mut self, _p: &DeadlineProblem, _s: &JobState, _up: bool) -> Mode {
        Mode::OnDemand
    }
}
