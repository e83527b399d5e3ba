//! Validation of `[[spot_interruptions]]`: which spot pool, the interruption model, the
//! notice and the replacement delay.
//!
//! ```toml
//! [[spot_interruptions]]
//! pool = "spot-h100"
//! model = "advisor"      # Poisson hazard from an AWS Spot Instance Advisor bucket:
//! bucket = "5-10"        # "<5", "5-10", "10-15", "15-20", ">20" (% interrupted a month)
//! # model = "poisson"; per_node_hour = 0.01
//! # model = "bathtub"    # GCP preemptible lifetime (Kadupitiya et al., HPDC'20 typical fit)
//! # model = "zone"; mean_up = "6h"; mean_down = "1h"      # the whole pool at once
//! # model = "trace"; path = "spot/us-east-1a_v100_1.csv"  # date,availability (1 = up)
//! # model = "trace"; path = "h100_16_probes.csv"; zone = "us-central1-a"  # GCP probes
//! notice = "2m"          # AWS 2 min; GCP and Azure 30 s
//! replace_after = "5m"   # per-node models: a new instance after an interruption
//! ```

use super::failures::{num, unknown_keys};
use super::problems::Problems;
use crate::engine::SimTime;
use crate::faults::{SpotInterruptions, SpotModel};
use crate::model::PoolSpec;
use crate::pricing::{
    read_availability_csv, read_gcp_probes, AdvisorBucket, Bathtub, PoissonHazard, ZoneOnOff,
};
use std::path::Path;

/// The fields a `[[spot_interruptions]]` table may have.
const KNOWN: [&str; 10] = [
    "pool",
    "model",
    "bucket",
    "per_node_hour",
    "mean_up",
    "mean_down",
    "path",
    "zone",
    "notice",
    "replace_after",
];

/// The keys of one model or another (the rest apply to every model).
const MODEL_KEYS: [&str; 6] = [
    "bucket",
    "per_node_hour",
    "mean_up",
    "mean_down",
    "path",
    "zone",
];

/// One `[[spot_interruptions]]` table, `spot_interruptions[i]`.
struct Table<'a> {
    /// Its field path.
    path: String,
    /// Its fields.
    t: &'a toml::Table,
}

impl Table<'_> {
    /// The string at `key`, if it is one.
    fn str(&self, key: &str) -> Option<&str> {
        self.t.get(key).and_then(|v| v.as_str())
    }

    /// The duration at `key` (`default` when absent); `None` (and a problem) if bad.
    fn duration(&self, c: &mut Problems, key: &str, default: SimTime) -> Option<SimTime> {
        match self.t.get(key) {
            None => Some(default),
            Some(v) => match v.as_str() {
                Some(text) => c.duration(&format!("{}.{key}", self.path), text),
                None => {
                    c.err(
                        format!("{}.{key}", self.path),
                        "must be a duration such as \"2m\"",
                    );
                    None
                }
            },
        }
    }
}

/// Validates `spot_interruptions[i]`; `None` when it has a problem.
pub(super) fn spot_interruptions(
    c: &mut Problems,
    i: usize,
    t: &toml::Table,
    pools: &[PoolSpec],
    base: &Path,
) -> Option<SpotInterruptions> {
    let t = Table {
        path: format!("spot_interruptions[{i}]"),
        t,
    };
    unknown_keys(c, &t.path, t.t, &KNOWN);
    let pool = pool(c, &t, pools);
    let notice = t.duration(c, "notice", SimTime::from_secs(120))?;
    let replace_after = t.duration(c, "replace_after", SimTime::from_secs(300))?;
    let model = model(c, &t, base)?;
    Some(SpotInterruptions {
        pool: pool?,
        model,
        notice,
        replace_after,
    })
}

/// The pool the table names.
fn pool(c: &mut Problems, t: &Table, pools: &[PoolSpec]) -> Option<usize> {
    let p = &t.path;
    match t.str("pool") {
        Some(n) => {
            let ix = pools.iter().position(|q| q.name == n);
            if ix.is_none() {
                c.err(
                    format!("{p}.pool"),
                    format!("{n:?} is not a pool of this scenario"),
                );
            }
            ix
        }
        None => {
            c.err(format!("{p}.pool"), "missing: the name of a spot pool");
            None
        }
    }
}

/// The interruption model the table's `model` names, with its parameters.
fn model(c: &mut Problems, t: &Table, base: &Path) -> Option<SpotModel> {
    let p = &t.path;
    // Another model's parameter would be ignored silently (`mean_up` beside a Poisson
    // model): refused, naming the model's own.
    let own: &[&str] = match t.str("model") {
        Some("advisor") => &["bucket"],
        Some("poisson") => &["per_node_hour"],
        Some("bathtub") => &[],
        Some("zone") => &["mean_up", "mean_down"],
        Some("trace") => &["path", "zone"],
        _ => &MODEL_KEYS,
    };
    for key in MODEL_KEYS {
        if t.t.contains_key(key) && !own.contains(&key) {
            c.err(
                format!("{p}.{key}"),
                format!(
                    "not a parameter of the {:?} model (it takes: {})",
                    t.str("model").unwrap_or(""),
                    if own.is_empty() {
                        "none".to_string()
                    } else {
                        own.join(", ")
                    }
                ),
            );
        }
    }
    let model = match t.str("model") {
        Some("advisor") => SpotModel::Poisson(PoissonHazard::from_bucket(bucket(c, t)?)),
        Some("poisson") => match t.t.get("per_node_hour").and_then(num) {
            Some(r) if r.is_finite() && r >= 0.0 => {
                SpotModel::Poisson(PoissonHazard { per_hour: r })
            }
            _ => {
                c.err(
                    format!("{p}.per_node_hour"),
                    "a Poisson model needs per_node_hour >= 0",
                );
                return None;
            }
        },
        Some("bathtub") => SpotModel::Bathtub(Bathtub::default()),
        Some("zone") => {
            let up = t.duration(c, "mean_up", SimTime::ZERO)?;
            let down = t.duration(c, "mean_down", SimTime::ZERO)?;
            if up.0 == 0 || down.0 == 0 {
                c.err(
                    p.to_string(),
                    "a zone model needs mean_up and mean_down above zero",
                );
                return None;
            }
            SpotModel::Zone(ZoneOnOff {
                mean_up_h: up.hours_f64(),
                mean_down_h: down.hours_f64(),
            })
        }
        Some("trace") => SpotModel::Trace(trace(c, t, base)?),
        other => {
            c.err(
                format!("{p}.model"),
                format!("{other:?} is not a spot model (advisor, poisson, bathtub, zone, trace)"),
            );
            return None;
        }
    };
    Some(model)
}

/// An AWS Spot Instance Advisor bucket (`bucket`).
fn bucket(c: &mut Problems, t: &Table) -> Option<AdvisorBucket> {
    Some(match t.str("bucket") {
        Some("<5") => AdvisorBucket::Under5,
        Some("5-10") => AdvisorBucket::From5To10,
        Some("10-15") => AdvisorBucket::From10To15,
        Some("15-20") => AdvisorBucket::From15To20,
        Some(">20") => AdvisorBucket::Over20,
        other => {
            c.err(format!("{}.bucket", t.path), format!("{other:?} is not an Advisor bucket (\"<5\", \"5-10\", \"10-15\", \"15-20\", \">20\")"));
            return None;
        }
    })
}

/// An availability trace (`path`): AWS `date,availability`, or GCP probes of `zone`.
fn trace(c: &mut Problems, t: &Table, base: &Path) -> Option<crate::pricing::AvailabilityTrace> {
    let Some(path) = t.str("path") else {
        c.err(format!("{}.path", t.path), "a trace model needs a path");
        return None;
    };
    let full = base.join(path);
    if !c.data_file(format!("{}.path", t.path), &full) {
        return None;
    }
    let tr = match t.str("zone") {
        Some(zone) => read_gcp_probes(&full, zone),
        None => read_availability_csv(&full),
    };
    match tr {
        Ok(tr) => Some(tr),
        Err(e) => {
            c.err(format!("{}.path", t.path), e.to_string());
            None
        }
    }
}
