//! A parameter's value: how it is written into the scenario and into CSV columns.

use std::fmt;

/// One value of a swept parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string (policy names, durations such as "2h").
    Str(String),
    /// A boolean.
    Bool(bool),
    /// Anything else (arrays, inline tables), in its TOML spelling.
    Toml(String),
}

/// Rounds away binary noise (0.30000000000000004 -> 0.3) by keeping 12 significant digits.
pub fn clean(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    format!("{x:.11e}").parse().unwrap_or(x)
}

/// A parameter value that cannot be written into the scenario document.
#[derive(Debug, Clone, thiserror::Error)]
#[error("cannot use {text} as a value: {source}")]
pub struct ParamValueError {
    /// The value, in its TOML spelling.
    pub text: String,
    /// Why TOML refuses it.
    pub source: toml_edit::TomlError,
}

impl ParamValue {
    /// From a value of the sweep file.
    pub fn from_toml(v: &toml::Value) -> ParamValue {
        match v {
            toml::Value::Integer(i) => ParamValue::Int(*i),
            toml::Value::Float(f) => ParamValue::Float(*f),
            toml::Value::String(s) => ParamValue::Str(s.clone()),
            toml::Value::Boolean(b) => ParamValue::Bool(*b),
            other => ParamValue::Toml(other.to_string()),
        }
    }

    /// The number, for numeric values.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ParamValue::Int(i) => Some(*i as f64),
            ParamValue::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// The value for the scenario document. `like` is the value it replaces, if any: where
    /// it is an integer, a whole float is written as an integer; where it is a float,
    /// integers are written as floats.
    pub fn to_edit(
        &self,
        like: Option<&toml_edit::Value>,
    ) -> Result<toml_edit::Value, ParamValueError> {
        let int_field = matches!(like, Some(toml_edit::Value::Integer(_)));
        let float_field = matches!(like, Some(toml_edit::Value::Float(_)));
        Ok(match self {
            ParamValue::Int(i) if float_field => toml_edit::Value::from(*i as f64),
            ParamValue::Int(i) => toml_edit::Value::from(*i),
            // A whole float where the scenario wrote an integer stays an integer; any other
            // float is written as is, and the scenario's validation judges it.
            ParamValue::Float(f) if int_field && f.fract() == 0.0 && f.abs() < 9.0e15 => {
                toml_edit::Value::from(*f as i64)
            }
            ParamValue::Float(f) => toml_edit::Value::from(*f),
            ParamValue::Str(s) => toml_edit::Value::from(s.as_str()),
            ParamValue::Bool(b) => toml_edit::Value::from(*b),
            ParamValue::Toml(t) => {
                t.parse::<toml_edit::Value>()
                    .map_err(|source| ParamValueError {
                        text: t.clone(),
                        source,
                    })?
            }
        })
    }
}

impl ParamValue {
    /// The value as a `runs.csv` / `points.csv` cell: as [`Display`](fmt::Display) writes
    /// it, but a float always with a decimal point (`2.0`, not `2`), so a column of floats
    /// is read as floats by readers that infer types.
    pub fn cell(&self) -> String {
        let mut t = self.to_string();
        if matches!(self, ParamValue::Float(x) if x.is_finite()) && !t.contains(['.', 'e', 'E']) {
            t.push_str(".0");
        }
        t
    }
}

impl fmt::Display for ParamValue {
    /// The spelling in messages and chart labels (CSV cells: [`ParamValue::cell`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Int(i) => write!(f, "{i}"),
            // Past 1e15 or under 1e-4 in exponent form (1e300 was written with 301
            // digits in labels, messages and cells).
            ParamValue::Float(x)
                if x.is_finite() && *x != 0.0 && !(1e-4..1e15).contains(&x.abs()) =>
            {
                write!(f, "{x:e}")
            }
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Str(s) => write!(f, "{s}"),
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Toml(t) => write!(f, "{t}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_far_from_one_are_written_in_exponent_form() {
        assert_eq!(ParamValue::Float(1e300).to_string(), "1e300");
        assert_eq!(ParamValue::Float(-2.5e-7).cell(), "-2.5e-7");
        assert_eq!(ParamValue::Float(1e6).cell(), "1000000.0");
        assert_eq!(ParamValue::Float(0.25).to_string(), "0.25");
        // Read back as the same number.
        assert_eq!(
            ParamValue::Float(1.5e300).cell().parse::<f64>(),
            Ok(1.5e300)
        );
    }

    #[test]
    fn clean_removes_binary_noise() {
        assert_eq!(clean(0.1 + 0.2), 0.3);
        assert_eq!(clean(1.0 / 3.0), 0.333333333333);
        assert_eq!(ParamValue::Float(0.25).to_string(), "0.25");
        // Cells: a whole float keeps a decimal point, an integer has none.
        assert_eq!(ParamValue::Float(2.0).cell(), "2.0");
        assert_eq!(ParamValue::Float(-0.5).cell(), "-0.5");
        assert_eq!(ParamValue::Int(2).cell(), "2");
        assert_eq!(ParamValue::Str("sjf".into()).cell(), "sjf");
    }

    #[test]
    fn whole_floats_stay_integers_where_the_scenario_has_one() {
        let int = toml_edit::Value::from(3i64);
        let v = ParamValue::Float(4.0).to_edit(Some(&int)).unwrap();
        assert_eq!(v.as_integer(), Some(4));
        let v = ParamValue::Float(4.5).to_edit(Some(&int)).unwrap();
        assert_eq!(v.as_float(), Some(4.5));
        let fl = toml_edit::Value::from(1.5f64);
        assert_eq!(
            ParamValue::Int(2).to_edit(Some(&fl)).unwrap().as_float(),
            Some(2.0)
        );
    }
}
