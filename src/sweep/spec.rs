//! The sweep file as written: a base scenario, parameters by dotted path with their
//! values (lists, ranges, linear and log spaces), how they combine, and the seeds.

use super::value::{clean, ParamValue};
use serde::Deserialize;
use toml::Spanned;

/// How parameters combine into points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Every combination (cartesian product), the last parameter varying fastest.
    #[default]
    Grid,
    /// The i-th value of every parameter together; all lists have the same length.
    Zip,
    /// `samples` points from a Latin hypercube over the parameters' ranges.
    LatinHypercube,
}

/// Top level of a sweep file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSweep {
    /// Name of the sweep (default: the file stem).
    #[serde(default)]
    pub name: Option<String>,
    /// Base scenario, relative to the sweep file.
    pub scenario: Spanned<String>,
    /// How parameters combine.
    #[serde(default)]
    pub mode: Mode,
    /// Number of Latin-hypercube samples.
    #[serde(default)]
    pub samples: Option<Spanned<i64>>,
    /// Seed of the Latin-hypercube draw.
    #[serde(default)]
    pub sample_seed: Option<u64>,
    /// Seeds of the repetitions: a count (scenario seed, +1, ...) or a list.
    #[serde(default)]
    pub seeds: Option<Spanned<RawSeeds>>,
    /// The parameters.
    #[serde(default, rename = "param")]
    pub params: Vec<Spanned<RawParam>>,
    /// What the sweep's charts show.
    #[serde(default)]
    pub charts: Option<RawCharts>,
}

/// Seeds as a count or a list.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum RawSeeds {
    /// R repetitions: the scenario's seed, seed + 1, ..., seed + R - 1.
    Count(i64),
    /// These seeds.
    List(Vec<u64>),
}

/// One parameter: a dotted path and exactly one way of giving its values.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawParam {
    /// Dotted path in the scenario (`pools[1].nodes`).
    pub path: String,
    /// Name on charts (default: the path), e.g. "reserved nodes".
    #[serde(default)]
    pub label: Option<String>,
    /// Explicit values (any TOML value).
    #[serde(default)]
    pub values: Option<Vec<toml::Value>>,
    /// `{ start, end, step }`, end included.
    #[serde(default)]
    pub range: Option<RawRange>,
    /// `{ start, end, num }`: num evenly spaced values, ends included.
    #[serde(default)]
    pub linspace: Option<RawSpace>,
    /// `{ start, end, num }`: num values evenly spaced on a log scale, ends included.
    #[serde(default)]
    pub logspace: Option<RawSpace>,
}

/// `{ start, end, step }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRange {
    /// First value.
    pub start: toml::Value,
    /// Last value (included when the steps land on it).
    pub end: toml::Value,
    /// Step (default 1).
    #[serde(default)]
    pub step: Option<toml::Value>,
}

/// `{ start, end, num }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpace {
    /// First value.
    pub start: f64,
    /// Last value.
    pub end: f64,
    /// How many values.
    pub num: i64,
}

/// Chart choices of a sweep.
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RawCharts {
    /// Metrics (columns of `runs.csv`) to chart; default cost and p95 wait.
    #[serde(default)]
    pub metrics: Vec<String>,
    /// Draw the pooled JCT and queueing-delay CDFs on a log time axis.
    #[serde(default)]
    pub log_x: bool,
}

/// How a parameter's values are given, checked.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// A list.
    List(Vec<ParamValue>),
    /// A continuous interval (for Latin hypercubes); `log` for log-uniform.
    Interval {
        /// Low end.
        lo: f64,
        /// High end.
        hi: f64,
        /// Log-uniform.
        log: bool,
        /// Both ends and the step were integers.
        integer: bool,
        /// The values a grid would take.
        grid: Vec<ParamValue>,
    },
}

impl Values {
    /// The values a grid or zip takes.
    pub fn grid(&self) -> &[ParamValue] {
        match self {
            Values::List(v) => v,
            Values::Interval { grid, .. } => grid,
        }
    }
}

fn num(v: &toml::Value) -> Option<f64> {
    match v {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// A parameter whose values are not specified well.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParamError {
    /// Not exactly one way of giving the values.
    #[error("give exactly one of `values`, `range`, `linspace`, `logspace` (found {0})")]
    NotOneSpec(usize),
    /// `values = []`.
    #[error("`values` is empty")]
    EmptyValues,
    /// A `range` bound or step that is not a number.
    #[error("`range` needs numbers for start, end and step")]
    RangeNotNumbers,
    /// A `range` running backwards or with a step that is not positive.
    #[error("`range` needs start <= end and a positive step (got {start}, {end}, {step})")]
    BadRange {
        /// Start.
        start: f64,
        /// End.
        end: f64,
        /// Step.
        step: f64,
    },
    /// A `range` of too many values.
    #[error("`range` gives {0} values, more than 1000000")]
    TooManyValues(String),
    /// `num` out of bounds.
    #[error("`num` must be between 1 and 1000000, got {0}")]
    BadNum(i64),
    /// A start or end that is not finite.
    #[error("start and end must be finite")]
    NotFinite,
    /// A `logspace` touching zero or below.
    #[error("`logspace` needs start and end above zero")]
    LogNotPositive,
}

/// Checks one parameter's value specification.
pub fn param_values(p: &RawParam) -> Result<Values, ParamError> {
    let given = [
        p.values.is_some(),
        p.range.is_some(),
        p.linspace.is_some(),
        p.logspace.is_some(),
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    if given != 1 {
        return Err(ParamError::NotOneSpec(given));
    }
    if let Some(v) = &p.values {
        if v.is_empty() {
            return Err(ParamError::EmptyValues);
        }
        return Ok(Values::List(v.iter().map(ParamValue::from_toml).collect()));
    }
    if let Some(r) = &p.range {
        let step = r.step.clone().unwrap_or(toml::Value::Integer(1));
        let (Some(a), Some(b), Some(s)) = (num(&r.start), num(&r.end), num(&step)) else {
            return Err(ParamError::RangeNotNumbers);
        };
        if !(s > 0.0 && s.is_finite() && a.is_finite() && b.is_finite()) || b < a {
            return Err(ParamError::BadRange {
                start: a,
                end: b,
                step: s,
            });
        }
        // Counted in floating point: from i64::MIN to i64::MAX, or with a step of 1e-300,
        // the count passes u64 and an integer count wrapped round to 0 values (an empty,
        // "ok" sweep).
        let nf = ((b - a) / s + 1e-9).floor() + 1.0;
        if nf.is_nan() || nf > 1e6 {
            return Err(ParamError::TooManyValues(if nf < 1e15 {
                format!("{nf:.0}")
            } else {
                format!("{nf:.1e}")
            }));
        }
        let n = nf as u64;
        let integer = [&r.start, &r.end, &step]
            .iter()
            .all(|v| matches!(v, toml::Value::Integer(_)));
        let grid = (0..n)
            .map(|i| {
                let x = a + i as f64 * s;
                if integer {
                    ParamValue::Int(x.round() as i64)
                } else {
                    ParamValue::Float(clean(x))
                }
            })
            .collect();
        return Ok(Values::Interval {
            lo: a,
            hi: b,
            log: false,
            integer,
            grid,
        });
    }
    let (sp, log) = match (&p.linspace, &p.logspace) {
        (Some(s), _) => (s, false),
        (None, Some(s)) => (s, true),
        (None, None) => return Err(ParamError::NotOneSpec(0)),
    };
    if sp.num < 1 || sp.num > 1_000_000 {
        return Err(ParamError::BadNum(sp.num));
    }
    if !(sp.start.is_finite() && sp.end.is_finite()) {
        return Err(ParamError::NotFinite);
    }
    if log && !(sp.start > 0.0 && sp.end > 0.0) {
        return Err(ParamError::LogNotPositive);
    }
    let n = sp.num as usize;
    let grid = (0..n)
        .map(|i| {
            let f = if n == 1 {
                0.0
            } else {
                i as f64 / (n - 1) as f64
            };
            let x = if log {
                (sp.start.ln() + f * (sp.end.ln() - sp.start.ln())).exp()
            } else {
                sp.start + f * (sp.end - sp.start)
            };
            ParamValue::Float(clean(x))
        })
        .collect();
    Ok(Values::Interval {
        lo: sp.start.min(sp.end),
        hi: sp.start.max(sp.end),
        log,
        integer: false,
        grid,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> RawParam {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn spaces_match_hand_values() {
        let g = |t: &str| param_values(&raw(t)).unwrap().grid().to_vec();
        use ParamValue::*;
        assert_eq!(
            g("path='x'\nrange={start=1,end=7,step=3}"),
            vec![Int(1), Int(4), Int(7)]
        );
        assert_eq!(
            g("path='x'\nrange={start=0.1,end=0.3,step=0.1}"),
            vec![Float(0.1), Float(0.2), Float(0.3)]
        );
        assert_eq!(
            g("path='x'\nlinspace={start=0,end=1,num=5}"),
            vec![Float(0.0), Float(0.25), Float(0.5), Float(0.75), Float(1.0)]
        );
        // 10^-1, 10^0, 10^1, 10^2.
        assert_eq!(
            g("path='x'\nlogspace={start=0.1,end=100,num=4}"),
            vec![Float(0.1), Float(1.0), Float(10.0), Float(100.0)]
        );
        assert!(param_values(&raw("path='x'")).is_err());
        assert!(param_values(&raw("path='x'\nvalues=[1]\nrange={start=1,end=2}")).is_err());
        assert!(param_values(&raw("path='x'\nlogspace={start=0,end=1,num=3}")).is_err());
    }
}
