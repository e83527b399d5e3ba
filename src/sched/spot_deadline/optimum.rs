//! The omniscient optimum: the least cost of meeting the deadline knowing the whole
//! availability trace, by dynamic programming over ticks; and a brute-force oracle.

use super::{step, DeadlineProblem, JobState, Mode};

const MODES: [Mode; 3] = [Mode::Idle, Mode::Spot, Mode::OnDemand];

/// The reachable non-progress parts of a state: idle; on-demand with `0..=d` changeover
/// ticks left; spot of age `1..=cap` (its changeover left is `d - age`, so not stored).
struct Slots {
    d: u32,
    cap: u32,
}

impl Slots {
    fn per_progress(&self) -> usize {
        (2 + self.d + self.cap) as usize
    }
    fn slot(&self, s: &JobState) -> usize {
        match s.mode {
            Mode::Idle => 0,
            Mode::OnDemand => 1 + s.changeover_left as usize,
            Mode::Spot => (1 + self.d + s.spot_age) as usize,
        }
    }
    fn state(&self, t: u32, progress: u32, slot: usize) -> JobState {
        let slot = slot as u32;
        let (mode, left, age) = if slot == 0 {
            (Mode::Idle, 0, 0)
        } else if slot <= 1 + self.d {
            (Mode::OnDemand, slot - 1, 0)
        } else {
            let age = slot - 1 - self.d;
            (Mode::Spot, self.d.saturating_sub(age), age)
        };
        JobState {
            t,
            progress,
            mode,
            changeover_left: left,
            spot_age: age,
        }
    }
}

/// The most steps (state-action evaluations) the optimum may take for one start: about a
/// few seconds of work. [`optimum_steps`] says how many a problem needs.
pub const MAX_OPTIMUM_STEPS: f64 = 1e9;

/// Steps [`optimal_cost`] takes on `p`: ticks x progress x states per progress x 3 actions
/// (0 when the problem is infeasible at once: a changeover plus the work past the deadline).
pub fn optimum_steps(p: &DeadlineProblem) -> f64 {
    if p.changeover as u64 + p.work as u64 > p.deadline as u64 {
        return 0.0;
    }
    let per = 2.0 + p.changeover as f64 + p.age_cap() as f64;
    p.deadline as f64 * p.work as f64 * per * 3.0
}

/// The least cost of finishing `p.work` by `p.deadline`, or `None` if impossible.
/// Backward induction over ticks; a state is (progress, mode, changeover left, spot age).
/// Memory grows with work x (changeover + first hour), time with that times the deadline
/// (see [`optimum_steps`]; callers bound it by [`MAX_OPTIMUM_STEPS`]).
pub fn optimal_cost(p: &DeadlineProblem) -> Option<f64> {
    // Every instance start spends `changeover` ticks without progress: with fewer ticks
    // than that plus the work, no schedule meets the deadline.
    if p.changeover as u64 + p.work as u64 > p.deadline as u64 {
        return None;
    }
    let w = p.work as usize;
    let slots = Slots {
        d: p.changeover,
        cap: p.age_cap(),
    };
    let k = slots.per_progress();
    let size = (w + 1) * k;
    // next[state] = least cost from the start of tick t+1; at the deadline only done
    // states are worth 0.
    let mut next = vec![f64::INFINITY; size];
    next[w * k..].fill(0.0);
    let mut cur = vec![f64::INFINITY; size];
    for t in (0..p.deadline).rev() {
        cur[w * k..].fill(0.0);
        for prog in 0..w {
            for slot in 0..k {
                let s = slots.state(t, prog as u32, slot);
                let mut best = f64::INFINITY;
                for a in MODES {
                    let (n, cost) = step(p, &s, a);
                    let v = next[n.progress as usize * k + slots.slot(&n)];
                    if cost + v < best {
                        best = cost + v;
                    }
                }
                cur[prog * k + slot] = best;
            }
        }
        std::mem::swap(&mut cur, &mut next);
    }
    let v = next[0];
    v.is_finite().then_some(v)
}

/// The least cost by trying every sequence of actions (3^deadline): an oracle for tiny
/// problems only.
pub fn brute_force_cost(p: &DeadlineProblem) -> Option<f64> {
    fn go(p: &DeadlineProblem, s: JobState) -> f64 {
        if s.progress >= p.work {
            return 0.0;
        }
        if s.t >= p.deadline {
            return f64::INFINITY;
        }
        let mut best = f64::INFINITY;
        for a in MODES {
            let (n, c) = step(p, &s, a);
            best = best.min(c + go(p, n));
        }
        best
    }
    let v = go(p, JobState::START);
    v.is_finite().then_some(v)
}
