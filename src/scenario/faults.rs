//! Validation of what interrupts work: failures (see `failures`), checkpointing,
//! maintenance windows and spot interruptions (see `spot_interruptions`), into one
//! [`FaultConfig`].
//!
//! ```toml
//! [checkpoint]
//! interval = "young"                  # a duration, "young", "daly" or "none"
//! write_time = "2m"
//! restart_overhead = "10m"
//! max_retries = 10000
//! size_gb = 500
//! [[maintenance]]
//! pool = "owned"
//! nodes = 2
//! start = "10d"
//! duration = "8h"
//! notice = "1h"
//! ```

use super::problems::Problems;
use super::raw::{RawCheckpoint, RawMaintenance};
use crate::engine::{parse_duration, SimTime};
use crate::faults::{CheckpointPolicy, Checkpointing, FaultConfig, Maintenance};
use crate::model::PoolSpec;
use std::path::Path;

/// The parts of a scenario that describe failures, checkpoints, maintenance and spot
/// interruptions.
pub(super) struct FaultInputs<'a> {
    pub failures: Option<&'a toml::Value>,
    pub checkpoint: Option<&'a RawCheckpoint>,
    pub maintenance: &'a [RawMaintenance],
    pub spot: &'a [toml::Table],
    /// `(region, zone)` of each pool.
    pub locations: Vec<(String, String)>,
}

/// Validates failures, checkpointing, maintenance and spot interruptions into a
/// [`FaultConfig`] (None when the scenario has none of them).
pub(super) fn faults(
    c: &mut Problems,
    inputs: FaultInputs,
    pools: &[PoolSpec],
    base: &Path,
) -> Option<FaultConfig> {
    let FaultInputs {
        failures,
        checkpoint,
        maintenance,
        spot,
        locations,
    } = inputs;
    if failures.is_none() && checkpoint.is_none() && maintenance.is_empty() && spot.is_empty() {
        return None;
    }
    let mut cfg = FaultConfig::none();
    cfg.migration.locations = locations;
    if let Some(f) = failures {
        super::failures::failures(c, f, pools, base, &mut cfg);
    }
    if let Some(ck) = checkpoint {
        cfg.checkpointing = self::checkpoint(c, ck, &mut cfg.migration.bandwidth_gbps);
    }
    for (i, m) in maintenance.iter().enumerate() {
        if let Some(m) = window(c, i, m, pools) {
            cfg.maintenance.push(m);
        }
    }
    for (i, t) in spot.iter().enumerate() {
        if let Some(sp) = super::spot_interruptions::spot_interruptions(c, i, t, pools, base) {
            cfg.spot.push(sp);
        }
    }
    Some(cfg)
}

/// `[checkpoint]`; `transfer_gbps`, when given, sets the bandwidth of checkpoint moves.
fn checkpoint(c: &mut Problems, ck: &RawCheckpoint, bandwidth_gbps: &mut f64) -> Checkpointing {
    let mut k = Checkpointing {
        policy: interval(c, ck.interval.as_deref()),
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
    k.size_gb = c.within(
        "checkpoint.size_gb",
        ck.size_gb.unwrap_or(0.0),
        super::sections::MAX_GB,
        "GB",
    );
    if let Some(bw) = ck.transfer_gbps {
        *bandwidth_gbps = c.positive("checkpoint.transfer_gbps", bw);
    }
    if matches!(k.policy, CheckpointPolicy::Young | CheckpointPolicy::Daly) && k.write.0 == 0 {
        c.err(
            "checkpoint.write_time",
            "Young and Daly intervals need a write_time above zero",
        );
    }
    k
}

/// `checkpoint.interval`: a duration, "young", "daly" or "none" (the default).
fn interval(c: &mut Problems, text: Option<&str>) -> CheckpointPolicy {
    match text {
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
    }
}

/// `maintenance[i]`: a window taking nodes of a pool out of service.
fn window(
    c: &mut Problems,
    i: usize,
    m: &RawMaintenance,
    pools: &[PoolSpec],
) -> Option<Maintenance> {
    let p = format!("maintenance[{i}]");
    let pool = pools.iter().position(|q| q.name == m.pool);
    if pool.is_none() {
        c.err(
            format!("{p}.pool"),
            format!("{:?} is not a pool of this scenario", m.pool),
        );
    }
    // More nodes than the pool has would be taken as all of them, silently.
    let most = pool.map_or(i64::from(u32::MAX), |q| i64::from(pools[q].nodes));
    if m.nodes < 1 || m.nodes > most {
        c.err(
            format!("{p}.nodes"),
            format!(
                "must be between 1 and the pool's nodes ({most}), got {}",
                m.nodes
            ),
        );
    }
    let start = c.duration(&format!("{p}.start"), &m.start);
    let duration = c.duration(&format!("{p}.duration"), &m.duration);
    let notice = match &m.notice {
        Some(n) => c.duration(&format!("{p}.notice"), n),
        None => Some(SimTime::ZERO),
    };
    Some(Maintenance {
        pool: pool?,
        nodes: m.nodes.clamp(1, most) as u32,
        start: start?,
        duration: duration?,
        notice: notice?,
    })
}
