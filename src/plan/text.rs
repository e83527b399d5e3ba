//! The answer in words: figures in their units (dollars, durations, percentages), the
//! terminal summary and `plan.md`, a page a manager can read.

use super::answer::{Answer, FleetFigure, Interval, TargetFigure};
use super::types::{PlanSpec, Unit};

/// Dollars with thousands separators: "$81,234" (cents below $100).
pub fn dollars(x: f64) -> String {
    if !x.is_finite() {
        return "n/a".into();
    }
    let neg = x < 0.0;
    let a = x.abs();
    let s = if a < 100.0 {
        format!("{a:.2}")
    } else {
        let whole = format!("{:.0}", a);
        let mut out = String::new();
        for (i, ch) in whole.chars().enumerate() {
            if i > 0 && (whole.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(ch);
        }
        out
    };
    format!("{}${s}", if neg { "-" } else { "" })
}

/// A duration in seconds in words: "1.5 h", "42 min", "35 s".
pub fn duration(secs: f64) -> String {
    if !secs.is_finite() {
        return "n/a".into();
    }
    let a = secs.abs();
    if a >= 86_400.0 * 2.0 {
        format!("{:.1} d", secs / 86_400.0)
    } else if a >= 3_600.0 {
        format!("{:.2} h", secs / 3_600.0)
    } else if a >= 60.0 {
        format!("{:.1} min", secs / 60.0)
    } else {
        format!("{secs:.1} s")
    }
}

/// A figure of a target in its unit.
pub fn in_unit(x: f64, unit: Unit) -> String {
    match unit {
        Unit::Seconds => duration(x),
        Unit::Share => format!("{:.2} %", x * 100.0),
        Unit::Dollars => dollars(x),
        Unit::Number => {
            if x.fract() == 0.0 && x.abs() < 1e12 {
                format!("{x:.0}")
            } else {
                format!("{x:.4}")
            }
        }
    }
}

/// "12.3 min (95 % CI 10.1 min to 14.5 min)".
pub fn with_ci(v: &Interval, unit: Unit, level: f64) -> String {
    match (v.lo, v.hi) {
        (Some(lo), Some(hi)) => format!(
            "{} ({:.0} % CI {} to {})",
            in_unit(v.mean, unit),
            level * 100.0,
            in_unit(lo, unit),
            in_unit(hi, unit)
        ),
        _ => format!("{} (one replication, no interval)", in_unit(v.mean, unit)),
    }
}

fn target_line(spec: &PlanSpec, k: usize, t: &TargetFigure) -> String {
    let unit = spec.targets[k].unit;
    let state = match t.settled {
        "holds" => "met",
        "fails" => "missed",
        _ if t.holds => "met on average, but the interval still contains the bound",
        _ => "missed on average, but the interval still contains the bound",
    };
    format!(
        "{}: {} against {} {}: {state}; held in {} of {} replications, {:.1} % sure the long-run mean meets it",
        t.label,
        with_ci(&t.value, unit, spec.reps.confidence),
        t.op,
        t.bound_text,
        t.held_in,
        t.replications,
        t.confidence * 100.0
    )
}

fn cost_words(spec: &PlanSpec, c: &Interval) -> String {
    format!(
        "{} {}",
        with_ci(c, Unit::Dollars, spec.reps.confidence),
        spec.objective.period_words()
    )
}

fn fleet_block(spec: &PlanSpec, f: &FleetFigure, out: &mut String, bullet: &str) {
    out.push_str(&format!("{bullet}cost: {}\n", cost_words(spec, &f.cost)));
    for (k, t) in f.targets.iter().enumerate() {
        out.push_str(&format!("{bullet}{}\n", target_line(spec, k, t)));
    }
    if !f.left_out.is_empty() {
        out.push_str(&format!(
            "{bullet}pools left out (0 nodes): {}\n",
            f.left_out.join(", ")
        ));
    }
    if f.at_cap {
        out.push_str(&format!(
            "{bullet}stopped at the replication cap ({}) with an interval still containing a bound: the verdict rests on the mean\n",
            spec.reps.max
        ));
    }
}

/// The terminal summary.
pub fn summary(spec: &PlanSpec, a: &Answer) -> String {
    let mut s = format!("plan {}: ", spec.name);
    match (&a.recommended, &a.closest) {
        (Some(r), _) => {
            s.push_str(&format!("recommended fleet: {}\n", r.words));
            fleet_block(spec, r, &mut s, "  ");
            for (i, ru) in a.runner_ups.iter().enumerate() {
                s.push_str(&format!(
                    "  runner-up {}: {}: {} more {}\n",
                    i + 1,
                    ru.fleet.words,
                    with_ci(&ru.extra_cost, Unit::Dollars, spec.reps.confidence),
                    spec.objective.period_words()
                ));
            }
        }
        (None, Some(c)) => {
            s.push_str(&format!(
                "no fleet in range meets every target. Closest: {} (fails: {})\n",
                c.words,
                a.failing.join("; ")
            ));
            fleet_block(spec, c, &mut s, "  ");
        }
        (None, None) => s.push_str("no fleet could be run\n"),
    }
    s.push_str(&format!(
        "  searched {} of {} fleets ({} replications){}\n",
        a.fleets_evaluated,
        a.grid_fleets,
        a.replications,
        if a.budget_hit {
            "; stopped at search.max_fleets"
        } else {
            ""
        }
    ));
    s
}

/// `plan.md`.
pub fn markdown(spec: &PlanSpec, a: &Answer) -> String {
    let level = spec.reps.confidence;
    let mut s = format!("# Plan: {}\n\n", spec.name);
    if let Some(q) = &spec.question {
        s.push_str(&format!("**Question.** {q}\n\n"));
    }
    s.push_str("**Targets.** ");
    let ts: Vec<String> = spec
        .targets
        .iter()
        .map(|t| format!("{} {} {}", t.label, t.bound.op(), t.bound_text))
        .collect();
    s.push_str(&ts.join("; "));
    s.push_str(&format!(
        ". **Objective:** the lowest {} {}.\n\n",
        spec.objective.metric,
        spec.objective.period_words()
    ));
    match (&a.recommended, &a.closest) {
        (Some(r), _) => {
            s.push_str(&format!("## Answer\n\n**{}**\n\n", r.words));
            fleet_block(spec, r, &mut s, "- ");
            if !a.runner_ups.is_empty() {
                s.push_str("\n## Runner-ups\n\n| fleet | extra cost | interval | meets the targets |\n|---|---|---|---|\n");
                for ru in &a.runner_ups {
                    let (lo, hi) = (ru.extra_cost.lo, ru.extra_cost.hi);
                    s.push_str(&format!(
                        "| {} | {} | {} | {} |\n",
                        ru.fleet.words,
                        dollars(ru.extra_cost.mean),
                        match (lo, hi) {
                            (Some(lo), Some(hi)) => format!("{} to {}", dollars(lo), dollars(hi)),
                            _ => "n/a".into(),
                        },
                        if ru.fleet.at_cap {
                            "on average (at the cap)"
                        } else {
                            "yes"
                        }
                    ));
                }
                s.push_str(&format!(
                    "\nExtra cost is {} more than the answer, paired over the same seeds (common random numbers), with a {:.0} % interval; an interval that contains $0 means the two fleets cannot be told apart at these replications.\n",
                    spec.objective.period_words(),
                    level * 100.0
                ));
            }
        }
        (None, Some(c)) => {
            s.push_str(&format!(
                "## Answer\n\n**No fleet in the ranges given meets every target.** The closest is **{}**; it fails: {}.\n\n",
                c.words,
                a.failing.join("; ")
            ));
            fleet_block(spec, c, &mut s, "- ");
            s.push_str("\nWiden the ranges (more nodes, a larger cap) or relax the targets.\n");
        }
        (None, None) => s.push_str("## Answer\n\nNo fleet could be run.\n"),
    }
    if !a.frontier.is_empty() {
        let t0 = &spec.targets[0];
        s.push_str(&format!(
            "\n## Cost versus {} (the frontier)\n\nFleets no other evaluated fleet beats on both cost and {} (chart: `frontier.png`).\n\n| fleet | cost | {} | meets every target |\n|---|---|---|---|\n",
            t0.label, t0.label, t0.label
        ));
        for f in &a.frontier {
            s.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                f.words,
                dollars(f.cost.mean),
                in_unit(f.targets[0].value.mean, t0.unit),
                if f.feasible { "yes" } else { "no" }
            ));
        }
    }
    s.push_str(&format!(
        "\n## How this was found\n\n{} of the {} possible fleets were simulated ({} replications; every fleet ran on the same seeds {}..{}). Each fleet got {} replications, and {} more at a time (up to {}) while a target's {:.0} % interval still contained its bound. Bisection along each decision found where the targets start to hold, then a coordinate and exchange search looked for the cheapest fleet; see the README's `gpufleet plan` section for when this can miss the optimum.{}\n",
        a.fleets_evaluated,
        a.grid_fleets,
        a.replications,
        spec.reps.seed,
        spec.reps.seed_of(spec.reps.max - 1),
        spec.reps.min,
        spec.reps.step,
        spec.reps.max,
        level * 100.0,
        if a.budget_hit {
            " **The search stopped at search.max_fleets before it was done.**"
        } else {
            ""
        }
    ));
    s
}
