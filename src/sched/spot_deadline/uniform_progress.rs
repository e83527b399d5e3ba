//! Uniform Progress: keep progress on the straight line `work * t / deadline`, using
//! on-demand only when behind it, with a safety net near the deadline.

use super::{DeadlineProblem, JobState, Mode, SpotPolicy};

/// The Uniform Progress policy of "Can't Be Late": spot whenever it is there; when it is
/// not, on-demand if progress is behind the line `work * t / deadline`, else wait. Two
/// guards keep changeovers from eating the savings: once on on-demand it stays there until
/// spot returns with progress at least one changeover ahead of the line (hysteresis), and
/// the safety net: once the time left is less than the work left plus two changeovers, it
/// stays on on-demand to the end.
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
        // Progress ahead of the line, in ticks of work (scaled by the deadline to stay
        // in integers): progress * deadline - work * t.
        let lead = s.progress as i64 * p.deadline as i64 - p.work as i64 * s.t as i64;
        let behind = lead < 0;
        let d = p.changeover as i64 * p.deadline as i64;
        match (s.mode, spot_up) {
            (Mode::OnDemand, true) if lead >= d => Mode::Spot,
            (Mode::OnDemand, _) => Mode::OnDemand,
            (_, true) => Mode::Spot,
            (_, false) if behind => Mode::OnDemand,
            (_, false) => Mode::Idle,
        }
    }
}
