//! The search for the cheapest feasible fleet.
//!
//! A decision is *monotone* when more never hurts the targets (node counts, caps): along
//! its axis, the fleets meeting the targets form an upper segment. The search uses that:
//!
//! 1. **Start**: the largest fleet (every monotone decision at its top, the others at the
//!    base scenario's option). If it fails, each non-monotone decision is scanned at the
//!    top; if nothing there is feasible, nothing with those options is (by monotonicity)
//!    and the answer is "infeasible", naming the closest fleet.
//! 2. **Bounds**: along each monotone axis, with the others at the top, bisection finds
//!    the smallest feasible option, a lower bound for that axis (all axes in lockstep, their
//!    midpoints evaluated in parallel).
//! 3. **Coordinate search**: from the cheapest feasible fleet, each axis in turn: bisection
//!    to the feasibility boundary (the others fixed), then a line search for the cheapest
//!    option above it (an expanding step while the cost falls, then a ternary search, which
//!    assumes the cost along one axis has a single valley); a non-monotone axis is scanned
//!    whole. Repeat until no axis improves.
//! 4. **Exchanges**: for every pair of monotone axes, one more of the first and as few of
//!    the second as still meet the targets (bisection); a cheaper result restarts step 3.
//!
//! Every fleet is simulated once (the evaluator's cache). The search can miss the optimum
//! when a decision marked monotone is not (then the bounds cut feasible fleets away), when
//! the cost along an axis has several valleys, when the optimum needs more than a one-step
//! exchange between two axes at once (three resources traded together), or when noise
//! flips a verdict near a bound. `search.method = "grid"` evaluates every fleet instead.

use super::eval::Evaluator;
use super::types::PlanSpec;
use super::PlanError;

/// Called after each batch with the evaluator and the phase's name.
pub type OnBatch<'b> = dyn FnMut(&Evaluator, &str) + 'b;

/// Runs the search; the answer is read from the evaluator's cache.
pub fn search<'a>(
    ev: &mut Evaluator<'a>,
    spec: &'a PlanSpec,
    on: &mut OnBatch,
) -> Result<(), PlanError> {
    if spec.search.grid {
        return grid(ev, spec, on);
    }
    let mut s = Search { ev, spec, on };
    s.run()
}

/// Every fleet of the grid, in grid order (batches of 64).
fn grid(ev: &mut Evaluator, spec: &PlanSpec, on: &mut OnBatch) -> Result<(), PlanError> {
    let n = spec.grid_size();
    let mut i = 0u64;
    while i < n && !ev.budget_hit {
        let batch: Vec<Vec<usize>> = (i..(i + 64).min(n)).map(|j| spec.fleet_at(j)).collect();
        ev.evaluate(&batch)?;
        on(ev, "grid");
        i += 64;
    }
    Ok(())
}

struct Search<'e, 'a, 'b> {
    ev: &'e mut Evaluator<'a>,
    spec: &'a PlanSpec,
    on: &'e mut OnBatch<'b>,
}

/// One bisection: along `axis` from `base`, the smallest option in `lo..=hi` that is
/// feasible, knowing (or assuming, by monotonicity) that `hi` is.
struct Bisection {
    base: Vec<usize>,
    axis: usize,
    lo: usize,
    hi: usize,
}

impl Search<'_, '_, '_> {
    fn eval(&mut self, fleets: &[Vec<usize>], phase: &str) -> Result<(), PlanError> {
        self.ev.evaluate(fleets)?;
        (self.on)(self.ev, phase);
        Ok(())
    }

    fn cost(&self, f: &[usize]) -> f64 {
        self.ev.feasible_cost(f)
    }

    fn run(&mut self) -> Result<(), PlanError> {
        let spec = self.spec;
        let k = spec.decisions.len();
        let mono: Vec<usize> = (0..k).filter(|&i| spec.decisions[i].monotone).collect();
        let top = spec.top();
        self.eval(std::slice::from_ref(&top), "the largest fleet")?;
        if !self.ev.feasible(&top) {
            for i in (0..k).filter(|&i| !spec.decisions[i].monotone) {
                let line = self.along(&top, i);
                self.eval(&line, "options at the largest fleet")?;
            }
            if self.ev.best().is_none() {
                return Ok(());
            }
        }
        let Some(start) = self.ev.best().map(|c| c.fleet.clone()) else {
            return Ok(());
        };
        // Bounds per monotone axis, the others at the start's (top) options.
        let jobs: Vec<Bisection> = mono
            .iter()
            .map(|&i| Bisection {
                base: start.clone(),
                axis: i,
                lo: 0,
                hi: start[i],
            })
            .collect();
        let found = self.bisect(jobs, "bisection per decision")?;
        let mut lower = vec![0usize; k];
        for (&i, v) in mono.iter().zip(found) {
            lower[i] = v;
        }
        let mut x = match self.ev.best() {
            Some(c) => c.fleet.clone(),
            None => return Ok(()),
        };
        for _ in 0..200 {
            if self.ev.budget_hit {
                break;
            }
            let mut improved = false;
            for i in 0..k {
                let y = if spec.decisions[i].monotone {
                    self.line_monotone(&x, i, lower[i])?
                } else {
                    let line = self.along(&x, i);
                    self.eval(&line, "coordinate search")?;
                    line.into_iter()
                        .min_by(|a, b| self.cost(a).total_cmp(&self.cost(b)))
                        .unwrap_or_else(|| x.clone())
                };
                if self.cost(&y) < self.cost(&x) {
                    if y[i] != x[i] && !spec.decisions[i].monotone {
                        // Bounds found under other options of a non-monotone decision.
                        lower = vec![0; k];
                    }
                    x = y;
                    improved = true;
                }
            }
            if improved {
                continue;
            }
            match self.exchange(&x, &mono, &lower)? {
                Some(y) => x = y,
                None => break,
            }
        }
        Ok(())
    }

    /// Every option of axis `i` with the others at `x`.
    fn along(&self, x: &[usize], i: usize) -> Vec<Vec<usize>> {
        (0..self.spec.decisions[i].options.len())
            .map(|v| {
                let mut f = x.to_vec();
                f[i] = v;
                f
            })
            .collect()
    }

    /// Bisections in lockstep: each round evaluates every open midpoint together.
    fn bisect(&mut self, mut jobs: Vec<Bisection>, phase: &str) -> Result<Vec<usize>, PlanError> {
        loop {
            let mids: Vec<Vec<usize>> = jobs
                .iter()
                .filter(|b| b.lo < b.hi)
                .map(|b| {
                    let mut f = b.base.clone();
                    f[b.axis] = (b.lo + b.hi) / 2;
                    f
                })
                .collect();
            if mids.is_empty() || self.ev.budget_hit {
                break;
            }
            self.eval(&mids, phase)?;
            for b in jobs.iter_mut().filter(|b| b.lo < b.hi) {
                let mid = (b.lo + b.hi) / 2;
                let mut f = b.base.clone();
                f[b.axis] = mid;
                if self.ev.feasible(&f) {
                    b.hi = mid;
                } else if self.ev.get(&f).is_some() {
                    b.lo = mid + 1;
                } else {
                    // Not evaluated (budget): stop this one where it is.
                    b.lo = b.hi;
                }
            }
        }
        Ok(jobs.into_iter().map(|b| b.hi).collect())
    }

    /// Along monotone axis `i` from `x` (feasible): the boundary by bisection, then the
    /// cheapest option above it by an expanding step and a ternary search.
    fn line_monotone(
        &mut self,
        x: &[usize],
        i: usize,
        lower: usize,
    ) -> Result<Vec<usize>, PlanError> {
        let n = self.spec.decisions[i].options.len();
        let b = self.bisect(
            vec![Bisection {
                base: x.to_vec(),
                axis: i,
                lo: lower.min(x[i]),
                hi: x[i],
            }],
            "coordinate search",
        )?;
        let l = b[0];
        let at = |v: usize| {
            let mut f = x.to_vec();
            f[i] = v;
            f
        };
        self.eval(&[at(l)], "coordinate search")?;
        // Expanding steps while the cost falls.
        let (mut best, mut step) = (l, 1usize);
        let mut hi = n - 1;
        while best < n - 1 {
            let next = (best + step).min(n - 1);
            self.eval(&[at(next)], "line search on cost")?;
            if self.cost(&at(next)) < self.cost(&at(best)) {
                best = next;
                step *= 2;
            } else {
                hi = next;
                break;
            }
        }
        // Ternary search in the valley's bracket.
        let mut a = best.saturating_sub(step / 2).max(l);
        let mut c = hi;
        while c > a + 2 {
            let m1 = a + (c - a) / 3;
            let m2 = c - (c - a) / 3;
            self.eval(&[at(m1), at(m2)], "line search on cost")?;
            if self.cost(&at(m1)) <= self.cost(&at(m2)) {
                c = m2;
            } else {
                a = m1;
            }
        }
        let rest: Vec<Vec<usize>> = (a..=c).map(at).collect();
        self.eval(&rest, "line search on cost")?;
        let mut pick = at(l);
        for f in (a..=c).map(at).chain([at(best), x.to_vec()]) {
            if self.cost(&f) < self.cost(&pick) {
                pick = f;
            }
        }
        Ok(pick)
    }

    /// One more of axis `i`, as few of axis `j` as still feasible, for every pair; the
    /// cheapest result if it beats `x`.
    fn exchange(
        &mut self,
        x: &[usize],
        mono: &[usize],
        lower: &[usize],
    ) -> Result<Option<Vec<usize>>, PlanError> {
        let mut jobs = Vec::new();
        for &i in mono {
            for &j in mono {
                let n_i = self.spec.decisions[i].options.len();
                if i == j || x[i] + 1 >= n_i || x[j] == 0 {
                    continue;
                }
                let mut base = x.to_vec();
                base[i] += 1;
                jobs.push(Bisection {
                    base,
                    axis: j,
                    lo: lower[j].min(x[j]),
                    hi: x[j],
                });
            }
        }
        let bases: Vec<(Vec<usize>, usize)> =
            jobs.iter().map(|b| (b.base.clone(), b.axis)).collect();
        let found = self.bisect(jobs, "exchanges between decisions")?;
        let mut pick: Option<Vec<usize>> = None;
        for ((base, j), v) in bases.into_iter().zip(found) {
            let mut f = base;
            f[j] = v;
            if v == x[j] {
                continue;
            }
            self.eval(&[f.clone()], "exchanges between decisions")?;
            let better = pick.as_ref().is_none_or(|p| self.cost(&f) < self.cost(p));
            if self.cost(&f) < self.cost(x) && better {
                pick = Some(f);
            }
        }
        Ok(pick)
    }
}
