//! The plan folder's files: `plan.json` (the plan and its answer), `candidates.csv` (every
//! fleet, every replication), `fleets.csv` (one row per fleet), `frontier.csv` and
//! `plan.md`. Rows go in grid order, so the bytes depend on neither threads nor resumes.

use super::answer::{Answer, Interval};
use super::eval::{Evaluator, Status};
use super::types::{Per, PlanSpec};
use crate::report::write_atomic;
use crate::sweep::fmt6;
use serde::Serialize;
use std::path::Path;

#[derive(Serialize)]
struct DecisionJson<'a> {
    label: &'a str,
    path: Option<&'a str>,
    monotone: bool,
    options: Vec<&'a str>,
}

#[derive(Serialize)]
struct TargetJson<'a> {
    label: &'a str,
    metric: &'a str,
    column: &'a str,
    op: &'static str,
    bound: f64,
    bound_text: &'a str,
}

#[derive(Serialize)]
struct PlanJson<'a> {
    plan: &'a str,
    question: Option<&'a str>,
    gpufleet_version: &'static str,
    hash: &'a str,
    scenario: String,
    objective: serde_json::Value,
    decisions: Vec<DecisionJson<'a>>,
    targets: Vec<TargetJson<'a>>,
    replications: serde_json::Value,
    search: &'static str,
    answer: &'a Answer,
}

fn io(e: csv::Error) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

fn num(x: f64) -> String {
    if x.is_finite() {
        fmt6(x)
    } else {
        String::new()
    }
}

fn interval_cols(v: &Interval) -> [String; 3] {
    [
        num(v.mean),
        v.lo.map(num).unwrap_or_default(),
        v.hi.map(num).unwrap_or_default(),
    ]
}

/// Writes every file of the plan folder `out`.
pub fn write_all(out: &Path, spec: &PlanSpec, ev: &Evaluator, a: &Answer) -> std::io::Result<()> {
    write_json(out, spec, a)?;
    write_candidates(out, spec, ev)?;
    write_fleets(out, spec, ev)?;
    write_frontier(out, spec, a)?;
    write_atomic(
        &out.join("plan.md"),
        super::text::markdown(spec, a).as_bytes(),
    )
}

fn write_json(out: &Path, spec: &PlanSpec, a: &Answer) -> std::io::Result<()> {
    let j = PlanJson {
        plan: &spec.name,
        question: spec.question.as_deref(),
        gpufleet_version: crate::VERSION,
        hash: &spec.hash,
        scenario: spec.scenario_given.clone(),
        objective: serde_json::json!({
            "minimize": spec.objective.metric,
            "per": match spec.objective.per {
                Per::Run => "run".to_string(),
                Per::Month => "month".to_string(),
                Per::Years(y) => format!("{y} years"),
            },
        }),
        decisions: spec
            .decisions
            .iter()
            .map(|d| DecisionJson {
                label: &d.label,
                path: d.path.as_deref(),
                monotone: d.monotone,
                options: d.options.iter().map(|o| o.value.as_str()).collect(),
            })
            .collect(),
        targets: spec
            .targets
            .iter()
            .map(|t| TargetJson {
                label: &t.label,
                metric: &t.metric,
                column: &t.key,
                op: t.bound.op(),
                bound: t.bound.value(),
                bound_text: &t.bound_text,
            })
            .collect(),
        replications: serde_json::json!({
            "min": spec.reps.min, "max": spec.reps.max, "step": spec.reps.step,
            "first_seed": spec.reps.seed, "confidence": spec.reps.confidence,
        }),
        search: if spec.search.grid { "grid" } else { "auto" },
        answer: a,
    };
    let mut bytes = serde_json::to_vec_pretty(&j).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    write_atomic(&out.join("plan.json"), &bytes)
}

fn write_candidates(out: &Path, spec: &PlanSpec, ev: &Evaluator) -> std::io::Result<()> {
    let mut cands: Vec<_> = ev.cache.values().collect();
    cands.sort_by_key(|c| c.index);
    let mut metrics: Vec<String> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for c in &cands {
        for r in &c.reps {
            for (k, _) in &r.metrics {
                if seen.insert(k.clone()) {
                    metrics.push(k.clone());
                }
            }
        }
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut head: Vec<String> = vec!["fleet".into()];
    head.extend(spec.decisions.iter().map(|d| d.label.clone()));
    head.extend(["replication", "seed", "objective"].map(String::from));
    head.extend(metrics.iter().cloned());
    w.write_record(&head).map_err(io)?;
    for c in &cands {
        for (r, rep) in c.reps.iter().enumerate() {
            let mut row = vec![c.index.to_string()];
            row.extend(
                spec.decisions
                    .iter()
                    .zip(&c.fleet)
                    .map(|(d, &x)| d.options[x].value.clone()),
            );
            row.push(r.to_string());
            row.push(rep.seed.to_string());
            row.push(num(c.objective[r]));
            for m in &metrics {
                row.push(
                    rep.metrics
                        .iter()
                        .find(|(k, _)| k == m)
                        .map(|(_, v)| v.clone())
                        .unwrap_or_default(),
                );
            }
            w.write_record(&row).map_err(io)?;
        }
    }
    let bytes = w
        .into_inner()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    write_atomic(&out.join("candidates.csv"), &bytes)
}

fn write_fleets(out: &Path, spec: &PlanSpec, ev: &Evaluator) -> std::io::Result<()> {
    let mut cands: Vec<_> = ev.cache.values().collect();
    cands.sort_by_key(|c| c.index);
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut head: Vec<String> = vec!["fleet".into()];
    head.extend(spec.decisions.iter().map(|d| d.label.clone()));
    head.extend(
        [
            "fleet_words",
            "order",
            "replications",
            "feasible",
            "at_cap",
            "objective_mean",
            "objective_lo",
            "objective_hi",
        ]
        .map(String::from),
    );
    for t in &spec.targets {
        for s in ["mean", "lo", "hi", "confidence"] {
            head.push(format!("{}_{s}", t.key));
        }
    }
    head.push("invalid".into());
    w.write_record(&head).map_err(io)?;
    for c in &cands {
        let f = super::answer::figure(spec, c);
        let mut row = vec![c.index.to_string()];
        row.extend(f.values.iter().cloned());
        row.push(f.words.clone());
        row.push(c.order.to_string());
        row.push(f.replications.to_string());
        row.push(f.feasible.to_string());
        row.push(f.at_cap.to_string());
        row.extend(interval_cols(&f.cost));
        for t in &f.targets {
            row.extend(interval_cols(&t.value));
            row.push(num(t.confidence));
        }
        row.push(match &c.status {
            Status::Invalid(m) => m.clone(),
            Status::Ran => String::new(),
        });
        w.write_record(&row).map_err(io)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    write_atomic(&out.join("fleets.csv"), &bytes)
}

fn write_frontier(out: &Path, spec: &PlanSpec, a: &Answer) -> std::io::Result<()> {
    let t0 = &spec.targets[0];
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut head: Vec<String> = vec!["fleet".into()];
    head.extend(spec.decisions.iter().map(|d| d.label.clone()));
    head.extend(
        [
            "fleet_words",
            "feasible",
            "objective_mean",
            "objective_lo",
            "objective_hi",
        ]
        .map(String::from),
    );
    for s in ["mean", "lo", "hi"] {
        head.push(format!("{}_{s}", t0.key));
    }
    w.write_record(&head).map_err(io)?;
    for f in &a.frontier {
        let mut row = vec![f.fleet.to_string()];
        row.extend(f.values.iter().cloned());
        row.push(f.words.clone());
        row.push(f.feasible.to_string());
        row.extend(interval_cols(&f.cost));
        row.extend(interval_cols(&f.targets[0].value));
        w.write_record(&row).map_err(io)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    write_atomic(&out.join("frontier.csv"), &bytes)
}
