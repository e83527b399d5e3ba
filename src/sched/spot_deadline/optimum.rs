//! The omniscient optimum: the least cost of meeting the deadline knowing the whole
//! availability trace, by dynamic programming over ticks; and a brute-force oracle.

use super::{step, DeadlineProblem, JobState, Mode};

const MODES: [Mode; 3] = [Mode::Idle, Mode::Spot, Mode::OnDemand];

fn mode_index(m: Mode) -> usize {
    match m {
        Mode::Idle => 0,
        Mode::Spot => 1,
        Mode::OnDemand => 2,
    }
}

/// The least cost of finishing `p.work` by `p.deadline`, or `None` if impossible.
/// Backward induction over ticks with states (progress, mode, changeover left); memory
/// grows with work x changeover, time with deadline x work x changeover.
pub fn optimal_cost(p: &DeadlineProblem) -> Option<f64> {
    let w = p.work as usize;
    let c = p.changeover as usize + 1;
    let idx = |prog: usize, m: usize, left: usize| (prog * 3 + m) * c + left;
    let size = (w + 1) * 3 * c;
    // next[state] = least cost from the start of tick t+1; at the deadline only done
    // states are worth 0.
    let mut next = vec![f64::INFINITY; size];
    for m in 0..3 {
        for left in 0..c {
            next[idx(w, m, left)] = 0.0;
        }
    }
    let mut cur = vec![f64::INFINITY; size];
    for t in (0..p.deadline).rev() {
        for prog in 0..=w {
            for (mi, &m) in MODES.iter().enumerate() {
                for left in 0..c {
                    let i = idx(prog, mi, left);
                    if prog == w {
                        cur[i] = 0.0;
                        continue;
                    }
                    let s = JobState {
                        t,
                        progress: prog as u32,
                        mode: m,
                        changeover_left: left as u32,
                    };
                    let mut best = f64::INFINITY;
                    for a in MODES {
                        let (n, cost) = step(p, &s, a);
                        let v = next[idx(
                            n.progress as usize,
                            mode_index(n.mode),
                            n.changeover_left as usize,
                        )];
                        if cost + v < best {
                            best = cost + v;
                        }
                    }
                    cur[i] = best;
                }
            }
        }
        std::mem::swap(&mut cur, &mut next);
    }
    let v = next[idx(0, 0, 0)];
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
    let v = go(
        p,
        JobState {
            t: 0,
            progress: 0,
            mode: Mode::Idle,
            changeover_left: 0,
        },
    );
    v.is_finite().then_some(v)
}
