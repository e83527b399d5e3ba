//! The cloud figures of a run's summary: data staged (per region and link), how runs were
//! spread over nodes and racks, and the work done per hour; absent from `summary.json`
//! when the scenario configures no datasets, fabrics or throughput table.

use crate::model::Workload;
use crate::sim::{JobOutcome, RunResult};
use indexmap::IndexMap;
use serde::Serialize;

/// Data moved into one region or over one link.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct MovedData {
    /// GB moved.
    pub gb: f64,
    /// Dollars.
    pub usd: f64,
    /// Transfers.
    pub transfers: u64,
    /// Hours jobs waited on them (per job; jobs sharing a transfer in flight each count).
    pub staging_hours: f64,
}

/// Datasets staged over the run.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct DataFigures {
    /// GB moved in all.
    pub staged_gb: f64,
    /// Dollars of the transfers.
    pub transfer_usd: f64,
    /// Hours jobs waited for data in all.
    pub staging_hours: f64,
    /// GPU-hours held while waiting for data.
    pub staging_gpu_hours: f64,
    /// Transfers made.
    pub transfers: u64,
    /// Reads served by a copy already in the region (staged or arriving).
    pub reuses: u64,
    /// Per destination "cloud/region".
    pub by_region: IndexMap<String, MovedData>,
    /// Per link (`same_zone`, `cross_zone`, `cross_region`, `internet`).
    pub by_link: IndexMap<String, MovedData>,
}

/// How runs were spread and how fast they ran.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct SpreadFigures {
    /// Jobs whose last run spanned several nodes.
    pub multi_node_jobs: u64,
    /// Jobs whose last run spanned several racks.
    pub multi_rack_jobs: u64,
    /// Mean fabric speed factor of multi-node jobs' last runs (1 when there are none).
    pub mean_multi_node_speed_factor: f64,
    /// Reference GPU-hours of work completed (work x GPUs of completed jobs).
    pub completed_work_gpu_hours: f64,
    /// The same per simulated hour: the fleet's throughput in reference GPUs.
    pub throughput_reference_gpus: f64,
}

/// The cloud part of the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct CloudFigures {
    /// Datasets staged, when the scenario has datasets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<DataFigures>,
    /// Spread and speed, when it has fabrics or a throughput table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<SpreadFigures>,
}

fn r3(x: f64) -> f64 {
    let r = (x * 1000.0).round() / 1000.0;
    if r == 0.0 {
        0.0
    } else {
        r
    }
}

/// The cloud figures of `r` (None without the cloud part).
pub fn cloud_figures(w: &Workload, r: &RunResult) -> Option<CloudFigures> {
    let c = r.cloud.as_ref()?;
    let data = c.data.then(|| {
        let mut d = DataFigures {
            reuses: c.reuses,
            ..Default::default()
        };
        for (j, rec) in c.jobs.iter().zip(&r.jobs) {
            d.staged_gb += j.staged_gb;
            d.transfer_usd += j.transfer_usd;
            d.staging_hours += j.staging.hours_f64();
            d.staging_gpu_hours += j.staging.hours_f64() * rec.gpu_milli as f64 / 1000.0;
        }
        for ((region, link), t) in &c.transfers {
            d.transfers += t.transfers;
            for (key, map) in [
                (region.clone(), &mut d.by_region),
                (link.as_str().to_string(), &mut d.by_link),
            ] {
                let m = map.entry(key).or_default();
                m.gb += t.gb;
                m.usd += t.usd;
                m.transfers += t.transfers;
                m.staging_hours += t.staging.hours_f64();
            }
        }
        d.by_link.sort_keys();
        for m in d.by_region.values_mut().chain(d.by_link.values_mut()) {
            m.gb = r3(m.gb);
            m.usd = r3(m.usd);
            m.staging_hours = r3(m.staging_hours);
        }
        d.staged_gb = r3(d.staged_gb);
        d.transfer_usd = r3(d.transfer_usd);
        d.staging_hours = r3(d.staging_hours);
        d.staging_gpu_hours = r3(d.staging_gpu_hours);
        d
    });
    let spread = c.spread.then(|| {
        let mut s = SpreadFigures::default();
        let mut factor = 0.0;
        for ((j, rec), job) in c.jobs.iter().zip(&r.jobs).zip(&w.jobs) {
            if rec.start.is_none() {
                continue;
            }
            if j.nodes > 1 {
                s.multi_node_jobs += 1;
                factor += j.speed_factor;
            }
            if j.racks > 1 {
                s.multi_rack_jobs += 1;
            }
            if rec.outcome == JobOutcome::Completed {
                s.completed_work_gpu_hours += job.work.hours_f64() * job.gpus.gpus_f64();
            }
        }
        s.mean_multi_node_speed_factor = if s.multi_node_jobs > 0 {
            r3(factor / s.multi_node_jobs as f64)
        } else {
            1.0
        };
        let hours = r.end.hours_f64();
        s.throughput_reference_gpus = if hours > 0.0 {
            r3(s.completed_work_gpu_hours / hours)
        } else {
            0.0
        };
        s.completed_work_gpu_hours = r3(s.completed_work_gpu_hours);
        s
    });
    Some(CloudFigures { data, spread })
}
