//! Greedy: spot whenever it is there, until the slack runs out; then on-demand to the end.

use super::{slack, DeadlineProblem, JobState, Mode, SpotPolicy};

/// The Greedy policy of "Can't Be Late".
#[derive(Debug, Clone, Copy, Default)]
pub struct Greedy;

impl SpotPolicy for Greedy {
    fn name(&self) -> &'static str {
        "greedy"
    }

    fn decide(&mut self, p: &DeadlineProblem, s: &JobState, spot_up: bool) -> Mode {
        if s.mode == Mode::OnDemand {
            return Mode::OnDemand;
        }
        // A tick without progress costs one tick of slack; with none left, only
        // on-demand (or spot already making progress) still meets the deadline.
        let running_spot = s.mode == Mode::Spot && s.changeover_left == 0 && spot_up;
        if slack(p, s) < 1 && !running_spot {
            return Mode::OnDemand;
        }
        if spot_up {
            Mode::Spot
        } else {
            Mode::Idle
        }
    }
}
