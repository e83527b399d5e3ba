//! A scenario from Python: its text with overrides written in (each a dotted field path
//! and a JSON value, as a sweep writes its parameters), parsed and validated by the
//! library. A bad scenario raises with the message `gpufleet validate` prints.

use crate::ScenarioError;
use gpufleet::scenario::Scenario;
use gpufleet::sweep::set_path;
use pyo3::PyResult;
use std::path::Path;
use toml_edit::{Array, DocumentMut, InlineTable, Value};

/// A JSON value as a TOML value; `null` has none.
fn toml_value(path: &str, v: &serde_json::Value) -> PyResult<Value> {
    Ok(match v {
        serde_json::Value::Null => {
            return Err(ScenarioError::new_err(format!(
                "override {path}: None has no TOML value"
            )))
        }
        serde_json::Value::Bool(b) => Value::from(*b),
        serde_json::Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Value::from(i),
            (None, Some(f)) => Value::from(f),
            _ => {
                return Err(ScenarioError::new_err(format!(
                    "override {path}: {n} is out of range"
                )))
            }
        },
        serde_json::Value::String(s) => Value::from(s.as_str()),
        serde_json::Value::Array(a) => {
            let mut out = Array::new();
            for x in a {
                out.push(toml_value(path, x)?);
            }
            Value::Array(out)
        }
        serde_json::Value::Object(m) => {
            let mut t = InlineTable::new();
            for (k, x) in m {
                t.insert(k, toml_value(path, x)?);
            }
            Value::InlineTable(t)
        }
    })
}

/// `text` with each `(path, json)` override written in. An integer written where the
/// scenario has a float becomes a float, so `nodes=4` and `rate_per_hour=4` both work.
pub fn apply(text: &str, overrides: &[(String, String)]) -> PyResult<String> {
    if overrides.is_empty() {
        return Ok(text.to_string());
    }
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        ScenarioError::new_err(format!("the scenario is not TOML: {}", e.message()))
    })?;
    for (path, json) in overrides {
        let v: serde_json::Value = serde_json::from_str(json)
            .map_err(|e| ScenarioError::new_err(format!("override {path}: {e}")))?;
        let new = toml_value(path, &v)?;
        set_path(&mut doc, path, &mut |old| {
            Ok(match (old, &new) {
                (Some(Value::Float(_)), Value::Integer(i)) => Value::from(*i.value() as f64),
                _ => new.clone(),
            })
        })
        .map_err(|e| ScenarioError::new_err(format!("override {path}: {e}")))?;
    }
    Ok(doc.to_string())
}

/// The scenario `text` (named `file` in messages, data paths relative to `base`) with
/// `overrides`, validated.
pub fn scenario(
    text: &str,
    file: &str,
    base: &str,
    overrides: &[(String, String)],
) -> PyResult<Scenario> {
    let text = apply(text, overrides)?;
    Scenario::parse(&text, Path::new(file), Path::new(base))
        .map_err(|e| ScenarioError::new_err(e.render(&text).trim_end().to_string()))
}
