//! Validation of the failure, checkpoint and maintenance parts of a scenario.
//!
//! ```toml
//! failures = "llama3-h100"            # a preset, or a table:
//! [failures]
//! preset = "llama3-h100"              # optional base
//! rate_per_gpu_day = 4.7e-4           # or rate_per_node_day
//! distribution = "weibull"            # or "exponential" (default)
//! weibull_shape = 0.8
//! pools = ["owned"]                   # default: all pools
//! repair = "4h"                       # or { kind = "lognormal", median = "4h", sigma = 1 }
//! trace = "failures.csv"              # time_s,node[,cause][,repair_s]
//! [checkpoint]
//! interval = "young"                  # a duration, "young", "daly" or "none"
//! write_time = "2m"
//! restart_overhead = "10m"
//! max_retries = 100
//! size_gb = 500
//! [[maintenance]]
//! pool = "owned"
//! nodes = 2
//! start = "10d"
//! duration = "8h"
//! notice = "1h"
//! ```

use super::raw::{RawCheckpoint, RawMaintenance};
use super::validate::Collector;
use crate::engine::{parse_duration, SimTime};
use crate::faults::{
    preset_by_name, read_failure_trace, CheckpointPolicy, Checkpointing, FailureDist,
    FailureProcess, FaultConfig, Maintenance, Scope,
};
use crate::faults::{SpotInterruptions, SpotModel};
use crate::model::PoolSpec;
use crate::workload::DurationDist;
use std::path::Path;

const PRESETS: &str = "llama3-h100";

fn repair_dist(c: &mut Collector, v: &toml::Value) -> Option<DurationDist> {
    match v {
        toml::Value::String(s) => c
            .duration("failures.repair", s)
            .map(|value| DurationDist::Fixed { value }),
        toml::Value::Table(t) => {
            let kind = t.get("kind").and_then(|k| k.as_str()).unwrap_or("");
            let dur = |c: &mut Collector, key: &str| -> Option<SimTime> {
                match t.get(key).and_then(|x| x.as_str()) {
                    Some(s) => c.duration(&format!("failures.repair.{key}"), s),
                    None => {
                        c.err(
                            format!("failures.repair.{key}"),
                            "missing (a duration such as \"4h\")",
                        );
                        None
                    }
                }
            };
            match kind {
                "fixed" => dur(c, "value").map(|value| DurationDist::Fixed { value }),
                "exponential" => dur(c, "mean").map(|mean| DurationDist::Exponential { mean }),
                "lognormal" => {
                    let sigma = t
                        .get("sigma")
                        .and_then(|x| x.as_float().or(x.as_integer().map(|i| i as f64)))
                        .unwrap_or(-1.0);
                    if sigma.is_nan() || sigma <= 0.0 {
                        c.err("failures.repair.sigma", "must be a positive number");
                    }
                    dur(c, "median").map(|median| DurationDist::LogNormal { median, sigma })
                }
                other => {
                    c.err(
                        "failures.repair.kind",
                        format!("unknown kind {other:?} (known: fixed, exponential, lognormal)"),
                    );
                    None
                }
            }
        }
        _ => {
            c.err("failures.repair", "must be a duration or a table");
            None
        }
    }
}

fn num(v: &toml::Value) -> Option<f64> {
    v.as_float().or(v.as_integer().map(|i| i as f64))
}

/// Validates failures, checkpointing and maintenance into a [`FaultConfig`] (None when the
/// scenario has none of them).
pub(super) fn validate_faults(
    c: &mut Collector,
    failures: Option<&toml::Value>,
    checkpoint: Option<&RawCheckpoint>,
    maintenance: &[RawMaintenance],
    spot: &[toml::Table],
    pools: &[PoolSpec],
    base: &Path,
) -> Option<FaultConfig> {
    if failures.is_none() && checkpoint.is_none() && maintenance.is_empty() && spot.is_empty() {
        return None;
    }
    let mut cfg = FaultConfig::none();
    match failures {
        None => {}
        Some(toml::Value::String(name)) => match preset_by_name(name) {
            Some(p) => cfg.processes.push((p.process, Vec::new())),
            None => c.err(
                "failures",
                format!("unknown failure preset {name:?} (known: {PRESETS})"),
            ),
        },
        Some(toml::Value::Table(t)) => {
            let known = [
                "preset",
                "rate_per_gpu_day",
                "rate_per_node_day",
                "distribution",
                "weibull_shape",
                "pools",
                "repair",
                "trace",
            ];
            for k in t.keys() {
                if !known.contains(&k.as_str()) {
                    c.err(
                        format!("failures.{k}"),
                        format!("unknown field `{k}`, expected one of {}", known.join(", ")),
                    );
                }
            }
            let mut process = match t.get("preset").map(|p| p.as_str()) {
                None => None,
                Some(Some(name)) => match preset_by_name(name) {
                    Some(p) => Some(p.process),
                    None => {
                        c.err(
                            "failures.preset",
                            format!("unknown failure preset {name:?} (known: {PRESETS})"),
                        );
                        None
                    }
                },
                Some(None) => {
                    c.err("failures.preset", "must be a preset name");
                    None
                }
            };
            let rate = match (t.get("rate_per_gpu_day"), t.get("rate_per_node_day")) {
                (Some(_), Some(_)) => {
                    c.err(
                        "failures",
                        "give rate_per_gpu_day or rate_per_node_day, not both",
                    );
                    None
                }
                (Some(v), None) => Some((Scope::Gpu, num(v), "failures.rate_per_gpu_day")),
                (None, Some(v)) => Some((Scope::Node, num(v), "failures.rate_per_node_day")),
                (None, None) => None,
            };
            if let Some((scope, r, path)) = rate {
                match r {
                    Some(r) if r.is_finite() && r >= 0.0 => {
                        let p = process.get_or_insert(FailureProcess {
                            rate_per_day: r,
                            scope,
                            dist: FailureDist::Exponential,
                            causes: Vec::new(),
                        });
                        p.rate_per_day = r;
                        p.scope = scope;
                    }
                    _ => c.err(path, "must be a non-negative number"),
                }
            }
            match t.get("distribution").map(|d| d.as_str()) {
                None | Some(Some("exponential")) => {}
                Some(Some("weibull")) => {
                    let shape = t.get("weibull_shape").and_then(num).unwrap_or(-1.0);
                    if !(shape > 0.0 && shape.is_finite()) {
                        c.err(
                            "failures.weibull_shape",
                            "a Weibull distribution needs a positive weibull_shape",
                        );
                    }
                    if let Some(p) = process.as_mut() {
                        p.dist = FailureDist::Weibull { shape };
                    }
                }
                Some(other) => c.err(
                    "failures.distribution",
                    format!("unknown distribution {other:?} (known: exponential, weibull)"),
                ),
            }
            let mut on = Vec::new();
            if let Some(v) = t.get("pools") {
                match v.as_array() {
                    Some(names) => {
                        for (i, n) in names.iter().enumerate() {
                            match n
                                .as_str()
                                .and_then(|n| pools.iter().position(|p| p.name == n))
                            {
                                Some(p) => on.push(p),
                                None => c.err(
                                    format!("failures.pools[{i}]"),
                                    format!("{n} is not a pool of this scenario"),
                                ),
                            }
                        }
                    }
                    None => c.err("failures.pools", "must be a list of pool names"),
                }
            }
            if let Some(r) = t.get("repair") {
                if let Some(d) = repair_dist(c, r) {
                    cfg.repair = d;
                }
            }
            if let Some(v) = t.get("trace") {
                match v.as_str() {
                    Some(path) => match read_failure_trace(&base.join(path)) {
                        Ok(tr) => {
                            for (i, f) in tr.iter().enumerate() {
                                let ok = match &f.pool {
                                    None => {
                                        (f.node as u64)
                                            < pools.iter().map(|p| p.nodes as u64).sum::<u64>()
                                    }
                                    Some(name) => {
                                        pools.iter().any(|p| &p.name == name && f.node < p.nodes)
                                    }
                                };
                                if !ok {
                                    c.err("failures.trace", format!("{path}: failure {} names node {:?}/{} which this cluster does not have", i + 1, f.pool, f.node));
                                }
                            }
                            cfg.trace = tr;
                        }
                        Err(e) => c.err("failures.trace", e.to_string()),
                    },
                    None => c.err("failures.trace", "must be a path"),
                }
            }
            if process.is_none() && cfg.trace.is_empty() {
                c.err(
                    "failures",
                    "give a preset, a rate (rate_per_gpu_day or rate_per_node_day) or a trace",
                );
            }
            if let Some(p) = process {
                cfg.processes.push((p, on));
            }
        }
        Some(_) => c.err(
            "failures",
            format!("must be a preset name ({PRESETS}) or a table"),
        ),
    }
    if let Some(ck) = checkpoint {
        let policy = match ck.interval.as_deref() {
            None | Some("none") => CheckpointPolicy::None,
            Some("young") => CheckpointPolicy::Young,
            Some("daly") => CheckpointPolicy::Daly,
            Some(d) => match parse_duration(d) {
                Ok(t) if t.0 > 0 => CheckpointPolicy::Fixed(t),
                _ => {
                    c.err(
                        "checkpoint.interval",
                        format!("{d:?} is not a duration, \"young\", \"daly\" or \"none\""),
                    );
                    CheckpointPolicy::None
                }
            },
        };
        let mut k = Checkpointing {
            policy,
            ..Default::default()
        };
        if let Some(w) = &ck.write_time {
            k.write = c.duration("checkpoint.write_time", w).unwrap_or_default();
        }
        if let Some(r) = &ck.restart_overhead {
            k.restart = c
                .duration("checkpoint.restart_overhead", r)
                .unwrap_or_default();
        }
        if let Some(m) = ck.max_retries {
            if m < 0 {
                c.err(
                    "checkpoint.max_retries",
                    format!("must be zero or more, got {m}"),
                );
            }
            k.max_retries = m.clamp(0, u32::MAX as i64) as u32;
        }
        k.size_gb = c.non_negative("checkpoint.size_gb", ck.size_gb.unwrap_or(0.0));
        if matches!(k.policy, CheckpointPolicy::Young | CheckpointPolicy::Daly) && k.write.0 == 0 {
            c.err(
                "checkpoint.write_time",
                "Young and Daly intervals need a write_time above zero",
            );
        }
        cfg.checkpointing = k;
    }
    for (i, m) in maintenance.iter().enumerate() {
        let p = format!("maintenance[{i}]");
        let pool = pools.iter().position(|q| q.name == m.pool);
        if pool.is_none() {
            c.err(
                format!("{p}.pool"),
                format!("{:?} is not a pool of this scenario", m.pool),
            );
        }
        if m.nodes < 1 {
            c.err(
                format!("{p}.nodes"),
                format!("must be at least 1, got {}", m.nodes),
            );
        }
        let start = c.duration(&format!("{p}.start"), &m.start);
        let duration = c.duration(&format!("{p}.duration"), &m.duration);
        let notice = match &m.notice {
            Some(n) => c.duration(&format!("{p}.notice"), n),
            None => Some(SimTime::ZERO),
        };
        if let (Some(pool), Some(start), Some(duration), Some(notice)) =
            (pool, start, duration, notice)
        {
            cfg.maintenance.push(Maintenance {
                pool,
                nodes: m.nodes.max(1) as u32,
                start,
                duration,
                notice,
            });
        }
    }
    for (i, t) in spot.iter().enumerate() {
        if let Some(sp) = spot_interruptions(c, i, t, pools, base) {
            cfg.spot.push(sp);
        }
    }
    Some(cfg)
}

/// One `[[spot_interruptions]]` table:
/// ```toml
/// [[spot_interruptions]]
/// pool = "spot-h100"
/// model = "advisor"      # Poisson hazard from an AWS Spot Instance Advisor bucket:
/// bucket = "5-10"        # "<5", "5-10", "10-15", "15-20", ">20" (% interrupted a month)
/// # model = "poisson"; per_node_hour = 0.01
/// # model = "bathtub"    # GCP preemptible lifetime (Kadupitiya et al., HPDC'20 typical fit)
/// # model = "zone"; mean_up = "6h"; mean_down = "1h"      # the whole pool at once
/// # model = "trace"; path = "spot/us-east-1a_v100_1.csv"  # date,availability (1 = up)
/// # model = "trace"; path = "h100_16_probes.csv"; zone = "us-central1-a"  # GCP probes
/// notice = "2m"          # AWS 2 min; GCP and Azure 30 s
/// replace_after = "5m"   # per-node models: a new instance after an interruption
/// ```
fn spot_interruptions(
    c: &mut Collector,
    i: usize,
    t: &toml::Table,
    pools: &[PoolSpec],
    base: &Path,
) -> Option<SpotInterruptions> {
    use crate::pricing::{
        read_availability_csv, read_gcp_probes, AdvisorBucket, Bathtub, PoissonHazard, ZoneOnOff,
    };
    let p = format!("spot_interruptions[{i}]");
    let known = [
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
    for k in t.keys() {
        if !known.contains(&k.as_str()) {
            c.err(
                format!("{p}.{k}"),
                format!("unknown field `{k}`, expected one of {}", known.join(", ")),
            );
        }
    }
    let s = |key: &str| t.get(key).and_then(|v| v.as_str());
    let pool = match s("pool").map(|n| (n, pools.iter().position(|q| q.name == n))) {
        Some((_, Some(ix))) => Some(ix),
        Some((n, None)) => {
            c.err(
                format!("{p}.pool"),
                format!("{n:?} is not a pool of this scenario"),
            );
            None
        }
        None => {
            c.err(format!("{p}.pool"), "missing: the name of a spot pool");
            None
        }
    };
    let dur = |c: &mut Collector, key: &str, default: SimTime| -> Option<SimTime> {
        match t.get(key) {
            None => Some(default),
            Some(v) => match v.as_str() {
                Some(text) => c.duration(&format!("{p}.{key}"), text),
                None => {
                    c.err(format!("{p}.{key}"), "must be a duration such as \"2m\"");
                    None
                }
            },
        }
    };
    let notice = dur(c, "notice", SimTime::from_secs(120))?;
    let replace_after = dur(c, "replace_after", SimTime::from_secs(300))?;
    let model = match s("model") {
        Some("advisor") => {
            let b = match s("bucket") {
                Some("<5") => AdvisorBucket::Under5,
                Some("5-10") => AdvisorBucket::From5To10,
                Some("10-15") => AdvisorBucket::From10To15,
                Some("15-20") => AdvisorBucket::From15To20,
                Some(">20") => AdvisorBucket::Over20,
                other => {
                    c.err(format!("{p}.bucket"), format!("{other:?} is not an Advisor bucket (\"<5\", \"5-10\", \"10-15\", \"15-20\", \">20\")"));
                    return None;
                }
            };
            SpotModel::Poisson(PoissonHazard::from_bucket(b))
        }
        Some("poisson") => match t.get("per_node_hour").and_then(num) {
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
            let up = dur(c, "mean_up", SimTime::ZERO)?;
            let down = dur(c, "mean_down", SimTime::ZERO)?;
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
        Some("trace") => {
            let Some(path) = s("path") else {
                c.err(format!("{p}.path"), "a trace model needs a path");
                return None;
            };
            let full = base.join(path);
            let tr = match s("zone") {
                Some(zone) => read_gcp_probes(&full, zone),
                None => read_availability_csv(&full),
            };
            match tr {
                Ok(tr) => SpotModel::Trace(tr),
                Err(e) => {
                    c.err(format!("{p}.path"), e.to_string());
                    return None;
                }
            }
        }
        other => {
            c.err(
                format!("{p}.model"),
                format!("{other:?} is not a spot model (advisor, poisson, bathtub, zone, trace)"),
            );
            return None;
        }
    };
    Some(SpotInterruptions {
        pool: pool?,
        model,
        notice,
        replace_after,
    })
}
