//! A fleet (one option per decision) made into a scenario: the options' values are set in
//! the base scenario's document by dotted path, then every pool set to 0 nodes is left
//! out, with the sections that name it, and the result is validated like any scenario.
//!
//! Leaving a pool out: the pool's table goes from `[[pools]]`; `[[maintenance]]` and
//! `[[spot_interruptions]]` entries naming it go too; it is taken out of `failures.pools`
//! (and a `[failures]` table that struck only left-out pools goes). Decisions are applied
//! to the document before any pool is removed, so paths by index (`pools[2].nodes`) keep
//! naming the pools of the base scenario. Every other section names pools by name, and
//! random streams are named per pool, so the remaining pools see the same draws. A
//! `failures.trace` names nodes by position in the cluster, which leaving a pool out
//! would shift: such a scenario cannot have a pool left out (an error, not a guess).

use super::types::PlanSpec;
use crate::scenario::{Problem, Scenario, ScenarioError};
use crate::sweep::set_path;
use toml_edit::{DocumentMut, Item};

/// A fleet that cannot be made into a valid scenario.
#[derive(Debug, Clone, thiserror::Error)]
pub enum FleetError {
    /// Every pool was set to 0 nodes.
    #[error("every pool is left out (0 nodes): no fleet to run")]
    Empty,
    /// A value could not be set.
    #[error("`{path}`: {message}")]
    Set {
        /// The dotted path.
        path: String,
        /// Why.
        message: String,
    },
    /// A pool would be left out of a scenario whose failure trace names nodes by position.
    #[error("cannot leave pool {0:?} out: the scenario's failures.trace names nodes by their position in the cluster")]
    TraceNodes(String),
    /// The scenario made is invalid.
    #[error("{0}")]
    Invalid(ScenarioError),
}

impl FleetError {
    /// (field path, message) of each problem.
    pub fn problems(&self) -> Vec<(String, String)> {
        match self {
            FleetError::Invalid(e) => e
                .problems
                .iter()
                .map(|p: &Problem| (p.path.clone(), p.message.clone()))
                .collect(),
            FleetError::Set { path, message } => vec![(path.clone(), message.clone())],
            other => vec![(String::new(), other.to_string())],
        }
    }
}

/// A fleet's scenario and the pools it leaves out.
#[derive(Debug, Clone)]
pub struct Assembled {
    /// The validated scenario.
    pub scenario: Scenario,
    /// Names of the pools left out (0 nodes).
    pub left_out: Vec<String>,
}

/// Makes fleet `fleet` (an option index per decision) into a scenario.
pub fn assemble(spec: &PlanSpec, fleet: &[usize]) -> Result<Assembled, FleetError> {
    let mut doc: DocumentMut = spec
        .scenario_text
        .parse()
        .map_err(|e: toml_edit::TomlError| FleetError::Set {
            path: String::new(),
            message: e.to_string(),
        })?;
    for (d, &x) in spec.decisions.iter().zip(fleet) {
        for (path, v) in &d.options[x].sets {
            set_path(&mut doc, path, &mut |old| Ok(v.to_edit(old)?)).map_err(|e| {
                FleetError::Set {
                    path: path.clone(),
                    message: e.to_string(),
                }
            })?;
        }
    }
    let left_out = leave_out_empty_pools(&mut doc)?;
    // A fleet too small for some job is a candidate that fails the implicit
    // `jobs.rejected <= 0` target, not an invalid scenario: its oversized jobs are rejected
    // (unless the base scenario says otherwise).
    if doc.get("oversized").is_none() {
        doc.insert("oversized", toml_edit::value("reject"));
    }
    let text = doc.to_string();
    let dir = spec
        .scenario_path
        .parent()
        .unwrap_or(std::path::Path::new("."));
    let scenario = Scenario::parse(&text, &spec.scenario_path, dir).map_err(FleetError::Invalid)?;
    Ok(Assembled { scenario, left_out })
}

/// Removes the pools with `nodes = 0` and what names them; returns their names.
fn leave_out_empty_pools(doc: &mut DocumentMut) -> Result<Vec<String>, FleetError> {
    let Some(pools) = doc.get_mut("pools").and_then(Item::as_array_of_tables_mut) else {
        return Ok(Vec::new());
    };
    let zero = |t: &toml_edit::Table| t.get("nodes").and_then(|n| n.as_integer()) == Some(0);
    let name_of = |t: &toml_edit::Table| {
        t.get("name")
            .and_then(|n| n.as_str())
            .unwrap_or("")
            .to_string()
    };
    let left_out: Vec<String> = pools.iter().filter(|t| zero(t)).map(name_of).collect();
    if left_out.is_empty() {
        return Ok(left_out);
    }
    if pools.iter().all(zero) {
        return Err(FleetError::Empty);
    }
    pools.retain(|t| !zero(t));
    for section in ["maintenance", "spot_interruptions"] {
        if let Some(aot) = doc.get_mut(section).and_then(Item::as_array_of_tables_mut) {
            aot.retain(|t| {
                t.get("pool")
                    .and_then(|p| p.as_str())
                    .is_none_or(|p| !left_out.iter().any(|n| n == p))
            });
        }
    }
    let mut drop_failures = false;
    if let Some(f) = doc.get_mut("failures").and_then(Item::as_table_like_mut) {
        if f.contains_key("trace") {
            return Err(FleetError::TraceNodes(left_out[0].clone()));
        }
        if let Some(arr) = f.get_mut("pools").and_then(|i| i.as_array_mut()) {
            let before = arr.len();
            arr.retain(|v| v.as_str().is_none_or(|p| !left_out.iter().any(|n| n == p)));
            drop_failures = before > 0 && arr.is_empty();
        }
    }
    if drop_failures {
        doc.remove("failures");
    }
    Ok(left_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_pools_leave_with_what_names_them() {
        let mut d: DocumentMut = "[[pools]]\nname = \"a\"\nnodes = 2\n[[pools]]\nname = \"s\"\nnodes = 0\n[[spot_interruptions]]\npool = \"s\"\nmodel = \"zone\"\n[[maintenance]]\npool = \"a\"\nnodes = 1\n[failures]\npools = [\"s\"]\n"
            .parse()
            .unwrap();
        assert_eq!(
            leave_out_empty_pools(&mut d).unwrap(),
            vec!["s".to_string()]
        );
        let t = d.to_string();
        assert!(!t.contains("name = \"s\""), "{t}");
        assert!(!t.contains("spot_interruptions"), "{t}");
        assert!(t.contains("[[maintenance]]"), "{t}");
        assert!(!t.contains("failures"), "{t}");
        let mut all: DocumentMut = "[[pools]]\nname = \"a\"\nnodes = 0\n".parse().unwrap();
        assert!(matches!(
            leave_out_empty_pools(&mut all),
            Err(FleetError::Empty)
        ));
    }
}
