//! Validation of the cloud sections: `[[datasets]]` and `[data]` (where data lives and
//! how it moves), each pool's place (`cloud`, `region`, `zone`) and `fabric`,
//! `[interconnect]` (communication shares) and `[throughput]` (a class x GPU type table),
//! into the scheduler's [`CloudOptions`] and the workload's [`TagSpec`].
//!
//! ```toml
//! [[datasets]]
//! name = "imagenet"
//! size = "2TB"
//! region = "us-east-1"        # cloud = "aws" by default; zone, storage, read_gbps
//! tenant_shares = { vision = 0.8 }
//! [data]
//! cross_region_gbps = 10
//! keep_for = "24h"
//! locality_wait = "auto"
//! ```

use super::problems::Problems;
use super::raw::RawScenario;
use super::raw_cloud::{RawFabric, RawThroughput};
use crate::model::datasets::{DataPlaces, Dataset, LinkBandwidths, Place};
use crate::model::fabric::Fabric;
use crate::model::throughput::ThroughputTable;
use crate::model::{GpuType, PoolSpec};
use crate::pricing::{LinkPrices, DEFAULT_EGRESS_CLOUD};
use crate::sched::cloud::{CloudOptions, DataOptions, FabricOptions, LocalityWait};
use crate::workload::{DatasetShare, TagSpec};
use std::path::Path;

/// The cloud name of an owned data centre: its transfers cost nothing.
const ONPREM: &str = "onprem";

/// Validates the cloud sections of `raw` for `pools` of `types`.
pub(super) fn cloud(
    c: &mut Problems,
    raw: &RawScenario,
    pools: &[PoolSpec],
    types: &[GpuType],
    base: &Path,
) -> (CloudOptions, TagSpec) {
    let mut tags = TagSpec::default();
    let data = data(c, raw, &mut tags);
    let fabric = fabrics(c, raw);
    let speeds = raw.throughput.as_ref().and_then(|t| {
        let table = throughput(c, t, types, base)?;
        tags.class_mix = t.mix.iter().map(|(k, &v)| (k.clone(), v)).collect();
        for (k, &v) in &t.mix {
            c.nonneg(&format!("throughput.mix.{k}"), v);
        }
        let names: Vec<&str> = pools
            .iter()
            .map(|p| types[p.gpu_type].name.as_str())
            .collect();
        let ref_speed = types
            .iter()
            .find(|g| g.name == table.reference)
            .map_or(1.0, |g| g.speed);
        match table.resolve(&names) {
            Ok(mut s) => {
                s.speeds.iter_mut().for_each(|x| *x *= ref_speed);
                // Each class on each GPU type once (pools of one type share a speed).
                for (i, &x) in s.speeds.iter().enumerate() {
                    let (class, pool) = (&s.classes[i / s.pools], i % s.pools);
                    if !names[..pool].contains(&names[pool]) {
                        let path = format!("throughput.classes.{class}.{}", names[pool]);
                        c.speed(&path, x);
                    }
                }
                Some(s)
            }
            Err((class, ty)) => {
                c.err(
                    format!("throughput.classes.{class}"),
                    format!("no throughput on {ty:?}, the GPU type of a pool (or the reference)"),
                );
                None
            }
        }
    });
    (
        CloudOptions {
            speeds,
            fabric,
            data,
        },
        tags,
    )
}

/// Each pool's place: its `cloud` (else its instance's, else the default), region, zone.
fn places(raw: &RawScenario) -> Vec<Place> {
    raw.pools
        .iter()
        .map(|p| Place {
            cloud: p
                .cloud
                .clone()
                .or_else(|| {
                    p.instance
                        .as_deref()
                        .and_then(|i| i.split_once(':'))
                        .map(|x| x.0.to_string())
                })
                .unwrap_or_else(|| DEFAULT_EGRESS_CLOUD.to_string()),
            region: p.region.clone().unwrap_or_default(),
            zone: p.zone.clone().unwrap_or_default(),
        })
        .collect()
}

/// `[[datasets]]` and `[data]`.
fn data(c: &mut Problems, raw: &RawScenario, tags: &mut TagSpec) -> Option<DataOptions> {
    if raw.datasets.is_empty() {
        if raw.data.is_some() {
            c.err("data", "[data] needs at least one [[datasets]]");
        }
        return None;
    }
    let pools = places(raw);
    for (i, p) in pools.iter().enumerate() {
        if p.region.is_empty() {
            c.err(
                format!("pools[{i}].region"),
                "every pool needs a region when the scenario has datasets",
            );
        }
    }
    let mut datasets = Vec::new();
    let mut prices: Vec<(String, LinkPrices)> = Vec::new();
    let mut price_of = Vec::new();
    for (i, d) in raw.datasets.iter().enumerate() {
        let f = format!("datasets[{i}]");
        if d.name.is_empty() || raw.datasets[..i].iter().any(|e| e.name == d.name) {
            c.err(
                format!("{f}.name"),
                format!("{:?} is empty or used twice", d.name),
            );
        }
        let size_gb = match (&d.size, d.size_gb) {
            (Some(s), None) => parse_size_gb(s).unwrap_or_else(|| {
                c.err(
                    format!("{f}.size"),
                    format!("{s:?} is not a size such as \"2TB\", \"500GB\" or \"1.5TiB\""),
                );
                0.0
            }),
            (None, Some(g)) => c.within(&format!("{f}.size_gb"), g, super::sections::MAX_GB, "GB"),
            _ => {
                c.err(format!("{f}.size"), "give one of size and size_gb");
                0.0
            }
        };
        let cloud = d
            .cloud
            .clone()
            .unwrap_or_else(|| DEFAULT_EGRESS_CLOUD.into());
        let k = match prices.iter().position(|(n, _)| *n == cloud) {
            Some(k) => k,
            None => {
                let lp = if cloud == ONPREM {
                    LinkPrices::free()
                } else {
                    match LinkPrices::from_catalog(&cloud) {
                        Ok(lp) => lp,
                        Err(e) => {
                            c.err(format!("{f}.cloud"), format!("{e} (or \"{ONPREM}\")"));
                            LinkPrices::free()
                        }
                    }
                };
                prices.push((cloud.clone(), lp));
                prices.len() - 1
            }
        };
        price_of.push(k);
        if let Some(r) = d.read_gbps {
            c.positive(&format!("{f}.read_gbps"), r);
        }
        let mut share = DatasetShare {
            share: d.share.map_or(0.0, |s| c.share(&format!("{f}.share"), s)),
            tenants: Vec::new(),
        };
        for (t, &s) in &d.tenant_shares {
            share
                .tenants
                .push((t.clone(), c.share(&format!("{f}.tenant_shares.{t}"), s)));
        }
        tags.datasets.push((d.name.clone(), share));
        datasets.push(Dataset {
            name: d.name.clone(),
            size_gb,
            home: Place {
                cloud,
                region: d.region.clone(),
                zone: d.zone.clone().unwrap_or_default(),
            },
            storage: d.storage.unwrap_or_default(),
            read_gbps: d.read_gbps,
        });
    }
    check_share_sums(c, tags);
    let rd = raw.data.as_ref();
    let mut bw = LinkBandwidths::default();
    let set = |c: &mut Problems, key: &str, v: Option<f64>, slot: &mut Option<f64>| {
        if let Some(x) = v {
            *slot = Some(c.positive(&format!("data.{key}"), x));
        }
    };
    if let Some(r) = rd {
        set(
            c,
            "same_zone_gbps",
            r.same_zone_gbps,
            &mut bw.same_zone_gbps,
        );
        set(
            c,
            "cross_zone_gbps",
            r.cross_zone_gbps,
            &mut bw.cross_zone_gbps,
        );
        set(
            c,
            "cross_region_gbps",
            r.cross_region_gbps,
            &mut bw.cross_region_gbps,
        );
        set(c, "internet_gbps", r.internet_gbps, &mut bw.internet_gbps);
    }
    let keep_for = rd
        .and_then(|r| r.keep_for.as_deref())
        .and_then(|k| c.duration("data.keep_for", k))
        .unwrap_or(crate::engine::SimTime::from_secs(24 * 3600));
    let locality_wait = match rd.and_then(|r| r.locality_wait.as_deref()) {
        None | Some("none") => LocalityWait::None,
        Some("auto") => LocalityWait::Auto,
        Some(d) => match crate::engine::parse_duration(d) {
            Ok(t) => LocalityWait::Fixed(t),
            Err(_) => {
                c.err(
                    "data.locality_wait",
                    format!("{d:?} is not \"none\", \"auto\" or a duration"),
                );
                LocalityWait::None
            }
        },
    };
    Some(DataOptions {
        places: DataPlaces::new(datasets, pools, bw, keep_for),
        prices: prices.into_iter().map(|x| x.1).collect(),
        price_of,
        locality_wait,
    })
}

/// A tenant's shares over all datasets must not pass 1.
fn check_share_sums(c: &mut Problems, tags: &TagSpec) {
    let mut names: Vec<&str> = tags
        .datasets
        .iter()
        .flat_map(|d| d.1.tenants.iter().map(|t| t.0.as_str()))
        .collect();
    names.sort_unstable();
    names.dedup();
    let sum = |t: Option<&str>| -> f64 {
        tags.datasets
            .iter()
            .map(|(_, s)| {
                t.and_then(|t| s.tenants.iter().find(|x| x.0 == t))
                    .map_or(s.share, |x| x.1)
            })
            .sum()
    };
    if sum(None) > 1.0 + 1e-9 {
        c.err("datasets", "the datasets' shares add up to more than 1");
    }
    for t in names {
        if sum(Some(t)) > 1.0 + 1e-9 {
            c.err(
                "datasets",
                format!("tenant {t:?}'s shares over the datasets add up to more than 1"),
            );
        }
    }
}

/// "2TB", "500 GB", "1.5TiB" in GB (10^9 bytes).
pub(super) fn parse_size_gb(s: &str) -> Option<f64> {
    let t = s.trim();
    let split = t
        .find(|ch: char| !(ch.is_ascii_digit() || ch == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let x: f64 = num
        .parse()
        .ok()
        .filter(|x: &f64| x.is_finite() && *x >= 0.0)?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "mb" => 1e-3,
        "gb" => 1.0,
        "tb" => 1e3,
        "pb" => 1e6,
        "gib" => 1.073_741_824,
        "tib" => 1_099.511_627_776,
        _ => return None,
    };
    Some(x * scale)
}

/// Each pool's `fabric` and `[interconnect]`.
fn fabrics(c: &mut Problems, raw: &RawScenario) -> Option<FabricOptions> {
    let any = raw.pools.iter().any(|p| p.fabric.is_some());
    let ic = raw.interconnect.as_ref();
    if !any {
        if ic.is_some() {
            c.err("interconnect", "[interconnect] needs a pool with a fabric");
        }
        return None;
    }
    let pools = raw
        .pools
        .iter()
        .enumerate()
        .map(|(i, p)| p.fabric.as_ref().map(|f| fabric(c, i, f)))
        .collect();
    let mut o = FabricOptions {
        pools,
        ..Default::default()
    };
    if let Some(ic) = ic {
        o.reference_gbps = ic
            .reference_gbps
            .map(|x| c.positive("interconnect.reference_gbps", x));
        o.default_share = ic
            .comm_share
            .map_or(0.0, |x| c.share("interconnect.comm_share", x));
        for (k, &v) in &ic.class_comm_share {
            let v = c.share(&format!("interconnect.class_comm_share.{k}"), v);
            o.class_shares.push((k.clone(), v));
        }
    }
    Some(o)
}

fn fabric(c: &mut Problems, i: usize, f: &RawFabric) -> Fabric {
    let p = format!("pools[{i}].fabric");
    let npr = f.nodes_per_rack.unwrap_or(0);
    if !(0..=1_000_000).contains(&npr) {
        c.err(
            format!("{p}.nodes_per_rack"),
            format!("must be 0..=1000000, got {npr}"),
        );
    }
    let over = f.oversubscription.unwrap_or(1.0);
    if !over.is_finite() || over < 1.0 {
        c.err(
            format!("{p}.oversubscription"),
            format!("must be at least 1 (4 is 4:1), got {over}"),
        );
    }
    Fabric {
        intra: f.intra,
        intra_gbps: c.positive(&format!("{p}.intra_gbps"), f.intra_gbps),
        inter: f.inter,
        inter_gbps: c.positive(&format!("{p}.inter_gbps"), f.inter_gbps),
        nodes_per_rack: npr.clamp(0, 1_000_000) as u32,
        oversubscription: over.max(1.0),
    }
}

/// `[throughput]`: inline rows and/or a CSV file.
fn throughput(
    c: &mut Problems,
    t: &RawThroughput,
    types: &[GpuType],
    base: &Path,
) -> Option<ThroughputTable> {
    if !types.iter().any(|g| g.name == t.reference) {
        c.err(
            "throughput.reference",
            format!("{:?} is not a GPU type of this scenario", t.reference),
        );
        return None;
    }
    let mut table = ThroughputTable {
        reference: t.reference.clone(),
        rows: Vec::new(),
    };
    for (class, row) in &t.classes {
        let mut r = Vec::new();
        for (ty, &x) in row {
            r.push((
                ty.clone(),
                c.positive(&format!("throughput.classes.{class}.{ty}"), x),
            ));
        }
        table.rows.push((class.clone(), r));
    }
    if let Some(f) = t
        .file
        .as_ref()
        .filter(|f| c.data_file("throughput.file", &base.join(f)))
    {
        match super::cloud_table::read_table(&base.join(f)) {
            Ok(rows) => {
                for row in rows {
                    if table.rows.iter().any(|r| r.0 == row.0) {
                        c.err(
                            "throughput.file",
                            format!("class {:?} is given twice", row.0),
                        );
                    }
                    table.rows.push(row);
                }
            }
            Err(e) => c.err("throughput.file", e),
        }
    }
    if table.rows.is_empty() {
        c.err("throughput", "give classes or a file");
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::parse_size_gb;

    #[test]
    fn sizes() {
        assert_eq!(parse_size_gb("2TB"), Some(2000.0));
        assert_eq!(parse_size_gb("500 GB"), Some(500.0));
        assert_eq!(parse_size_gb("1TiB"), Some(1099.511627776));
        assert_eq!(parse_size_gb("2 XB"), None);
        assert_eq!(parse_size_gb("-1GB"), None);
    }
}
