//! Spot strategies for a job with a deadline ("Can't Be Late", Wu et al., NSDI'24): run on
//! spot when it is there, on on-demand otherwise, and finish by the deadline.
//!
//! Time is in trace ticks. A job needs `work` ticks of progress by `deadline` ticks after
//! it starts. Every start of an instance (from idle, or switching between spot and
//! on-demand) first spends `changeover` ticks without progress, paid at the new mode's
//! price. Spot can only be used at ticks where the trace has it; when spot vanishes the
//! job drops to idle. With `first_hour_free` (the AWS rule), a spot run the provider
//! interrupts within its first hour is refunded. All policies and the offline optimum share
//! one [`step`], so their costs are comparable.

mod greedy;
mod on_demand_only;
mod optimum;
mod spec;
mod uniform_progress;

pub use greedy::Greedy;
pub use on_demand_only::OnDemandOnly;
pub use optimum::{brute_force_cost, optimal_cost, optimum_steps, MAX_OPTIMUM_STEPS};
pub use spec::{
    preflight, problem_at, read_trace, run_spec, ticks, DeadlinePrices, DeadlineRow, DeadlineSpec,
};
pub use uniform_progress::UniformProgress;

/// Where the job runs during a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Not running, not paying.
    Idle,
    /// On a spot instance.
    Spot,
    /// On an on-demand instance.
    OnDemand,
}

/// The job's state at the start of a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct JobState {
    /// Ticks since the job started.
    pub t: u32,
    /// Ticks of work done.
    pub progress: u32,
    /// Mode of the last tick.
    pub mode: Mode,
    /// Changeover ticks still to spend before the current mode makes progress.
    pub changeover_left: u32,
    /// Ticks the current spot run has lasted (0 when not on spot), capped at
    /// [`DeadlineProblem::age_cap`].
    pub spot_age: u32,
}

impl JobState {
    /// The state before the first tick.
    pub const START: JobState = JobState {
        t: 0,
        progress: 0,
        mode: Mode::Idle,
        changeover_left: 0,
        spot_age: 0,
    };
}

/// A deadline job on one availability trace.
#[derive(Debug, Clone, PartialEq)]
pub struct DeadlineProblem {
    /// Spot usable at each tick from the job's start.
    pub spot_up: Vec<bool>,
    /// Spot dollars for each tick from the job's start.
    pub spot_cost: Vec<f64>,
    /// On-demand dollars per tick.
    pub od_cost: f64,
    /// Ticks of work.
    pub work: u32,
    /// Ticks to the deadline.
    pub deadline: u32,
    /// Changeover ticks per start.
    pub changeover: u32,
    /// AWS rule: a spot run interrupted by the provider within its first hour is free.
    pub first_hour_free: bool,
    /// Ticks in an hour (for the first-hour rule).
    pub hour_ticks: u32,
}

impl DeadlineProblem {
    /// The cap on a spot run's age that keeps every distinction the rules make: the
    /// changeover, and the first hour when it is free.
    pub fn age_cap(&self) -> u32 {
        let h = if self.first_hour_free {
            self.hour_ticks
        } else {
            0
        };
        self.changeover.max(h).max(1)
    }
}

/// A spot policy: picks the mode of each tick.
pub trait SpotPolicy {
    /// The policy's name in outputs.
    fn name(&self) -> &'static str;
    /// The mode for the tick starting in state `s`, with spot usable or not.
    fn decide(&mut self, p: &DeadlineProblem, s: &JobState, spot_up: bool) -> Mode;
}

/// Applies `action` for one tick: returns the next state and the tick's cost. An action
/// of `Spot` while spot is down is treated as `Idle`.
pub fn step(p: &DeadlineProblem, s: &JobState, action: Mode) -> (JobState, f64) {
    let k = s.t as usize;
    let up = p.spot_up.get(k).copied().unwrap_or(false);
    let action = if action == Mode::Spot && !up {
        Mode::Idle
    } else {
        action
    };
    let price = match action {
        Mode::Idle => 0.0,
        Mode::Spot => p.spot_cost.get(k).copied().unwrap_or(0.0),
        Mode::OnDemand => p.od_cost,
    };
    // The provider took spot away from a running spot instance: refund a run younger
    // than an hour under the AWS rule.
    let mut refund = 0.0;
    if s.mode == Mode::Spot && !up && p.first_hour_free && s.spot_age < p.hour_ticks {
        let from = k.saturating_sub(s.spot_age as usize);
        refund = p.spot_cost.get(from..k).map_or(0.0, |c| c.iter().sum());
    }
    let mut n = JobState {
        t: s.t + 1,
        progress: s.progress,
        mode: action,
        changeover_left: 0,
        spot_age: 0,
    };
    if action == Mode::Spot {
        let age = if s.mode == Mode::Spot {
            s.spot_age + 1
        } else {
            1
        };
        n.spot_age = age.min(p.age_cap());
    }
    if action != Mode::Idle {
        let left = if action == s.mode {
            s.changeover_left
        } else {
            p.changeover
        };
        if left > 0 {
            n.changeover_left = left - 1;
        } else {
            n.progress += 1;
        }
    }
    (n, price - refund)
}

/// The outcome of one policy on one problem.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeadlineOutcome {
    /// Dollars paid.
    pub cost: f64,
    /// Tick at which the work was done (or the deadline, if it was not).
    pub finished: u32,
    /// True if the work was done by the deadline.
    pub met: bool,
    /// Ticks on spot.
    pub spot_ticks: u32,
    /// Ticks on on-demand.
    pub od_ticks: u32,
}

/// Runs `policy` from the start until the work is done or the deadline passes.
pub fn simulate(p: &DeadlineProblem, policy: &mut dyn SpotPolicy) -> DeadlineOutcome {
    let mut s = JobState::START;
    let mut out = DeadlineOutcome {
        cost: 0.0,
        finished: p.deadline,
        met: false,
        spot_ticks: 0,
        od_ticks: 0,
    };
    while s.progress < p.work && s.t < p.deadline {
        let up = p.spot_up.get(s.t as usize).copied().unwrap_or(false);
        let a = policy.decide(p, &s, up);
        let (n, c) = step(p, &s, a);
        match n.mode {
            Mode::Spot => out.spot_ticks += 1,
            Mode::OnDemand => out.od_ticks += 1,
            Mode::Idle => {}
        }
        out.cost += c;
        s = n;
    }
    out.met = s.progress >= p.work;
    if out.met {
        out.finished = s.t;
    }
    out
}

/// Slack in ticks: time left minus work left minus one changeover. Going on-demand now
/// meets the deadline exactly when this is at least zero.
pub fn slack(p: &DeadlineProblem, s: &JobState) -> i64 {
    p.deadline as i64 - s.t as i64 - (p.work as i64 - s.progress as i64) - p.changeover as i64
}

/// Runs every policy and the optimum on `p`: `(name, outcome)` in a fixed order.
pub fn compare_all(p: &DeadlineProblem) -> Vec<(&'static str, DeadlineOutcome)> {
    let mut out = Vec::new();
    let mut pols: Vec<Box<dyn SpotPolicy>> = vec![
        Box::new(OnDemandOnly),
        Box::new(Greedy),
        Box::new(UniformProgress),
    ];
    for pol in pols.iter_mut() {
        out.push((pol.name(), simulate(p, pol.as_mut())));
    }
    let opt = optimal_cost(p);
    out.push((
        "optimum",
        DeadlineOutcome {
            cost: opt.unwrap_or(f64::INFINITY),
            finished: p.deadline,
            met: opt.is_some(),
            spot_ticks: 0,
            od_ticks: 0,
        },
    ));
    out
}
