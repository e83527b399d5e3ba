//! Uniform Progress: keep progress on the straight line `work * t / deadline`, using
//! on-demand only when behind it, with a safety net near the deadline.

use super::{DeadlineProblem, JobState, Mode, SpotPolicy};

/// The Uniform Progress policy of "Can't Be Late", with its safety net: once the time left
/// is less than the work left plus two changeovers, stay on-demand to the end.
#[derive(Debug, Clone, Copy, Default)]
pub struct UniformProgress;

impl SpotPolicy for UniformProgress {
    fn name(&self) -> &'static str {
        "uniform_progress"
    }

    fn decide(&mut self, p: &DeadlineProblem, s: &JobState, spot_up: bool) -> Mode {
        let left = p.deadline as i64 - s.t as i64;
        let rem = p.work as i64 - s.progress as i64;
        // Safety net (one extra tick so that a changeover of zero ticks is still safe).
        if left < rem + 2 * p.changeover as i64 + 1 {
            return Mode::OnDemand;
        }
        // Behind the line: progress * deadline < work * t.
        let behind = (s.progress as u64) * (p.deadline as u64) < (p.work as u64) * (s.t as u64);
        if spot_up {
            // Stay on-demand while behind rather than paying a changeover to spot and back.
            if s.mode == Mode::OnDemand && behind {
                Mode::OnDemand
            } else {
                Mode::Spot
            }
        } else if behind {
            Mode::OnDemand
        } else {
            Mode::Idle
        }
    }
}
