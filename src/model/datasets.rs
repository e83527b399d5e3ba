//! Datasets and where things are: a place (cloud, region, zone), the link between two
//! places and its bandwidth, datasets with a size and a home, and the staged copies a
//! region holds for a while.
//!
//! A job that reads a dataset needs a copy in its pool's region. The copy is either there
//! already (staged earlier and not yet expired, or still arriving: the job waits for the
//! rest of that transfer, at no charge), or it is staged from the dataset's home over the
//! link between the two places: `size x 8 / bandwidth` seconds (GB and Gbit/s), the link's
//! bandwidth capped by the storage's read bandwidth when that is given.

use crate::engine::SimTime;
use std::collections::BTreeMap;

/// Where a pool or a dataset is. An empty `cloud` is the scenario's default cloud.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Place {
    /// Provider ("aws", "gcp", "onprem").
    pub cloud: String,
    /// Region ("us-east-1").
    pub region: String,
    /// Availability zone ("us-east-1a"); empty when not given.
    pub zone: String,
}

/// The link data crosses between two places, which sets its bandwidth and its price.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Link {
    /// Within one zone.
    SameZone,
    /// Between zones of one region.
    CrossZone,
    /// Between regions of one cloud.
    CrossRegion,
    /// Between clouds (or a cloud and an owned data centre): over the internet.
    Internet,
}

impl Link {
    /// Every link, in output order.
    pub const ALL: [Link; 4] = [
        Link::SameZone,
        Link::CrossZone,
        Link::CrossRegion,
        Link::Internet,
    ];

    /// The spelling in scenario files and outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            Link::SameZone => "same_zone",
            Link::CrossZone => "cross_zone",
            Link::CrossRegion => "cross_region",
            Link::Internet => "internet",
        }
    }

    /// The link from `a` to `b`. An empty zone on either side counts as the same zone.
    pub fn between(a: &Place, b: &Place) -> Link {
        if a.cloud != b.cloud {
            Link::Internet
        } else if a.region != b.region {
            Link::CrossRegion
        } else if a.zone != b.zone && !a.zone.is_empty() && !b.zone.is_empty() {
            Link::CrossZone
        } else {
            Link::SameZone
        }
    }
}

/// Bandwidth per link, in Gbit/s; `None`: data across that link is read in place, not
/// staged (the default within a zone).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkBandwidths {
    /// Within a zone.
    pub same_zone_gbps: Option<f64>,
    /// Between zones of a region.
    pub cross_zone_gbps: Option<f64>,
    /// Between regions.
    pub cross_region_gbps: Option<f64>,
    /// Over the internet.
    pub internet_gbps: Option<f64>,
}

impl Default for LinkBandwidths {
    /// 100 Gbit/s across zones, 10 across regions, 1 over the internet, none in a zone.
    fn default() -> Self {
        LinkBandwidths {
            same_zone_gbps: None,
            cross_zone_gbps: Some(100.0),
            cross_region_gbps: Some(10.0),
            internet_gbps: Some(1.0),
        }
    }
}

impl LinkBandwidths {
    /// The bandwidth of `link`.
    pub fn of(&self, link: Link) -> Option<f64> {
        match link {
            Link::SameZone => self.same_zone_gbps,
            Link::CrossZone => self.cross_zone_gbps,
            Link::CrossRegion => self.cross_region_gbps,
            Link::Internet => self.internet_gbps,
        }
    }
}

/// How a dataset is stored at home (recorded; its read bandwidth caps every transfer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StorageKind {
    /// An object store (S3, GCS, Azure Blob).
    #[default]
    Object,
    /// A shared file system (NFS, Lustre, FSx).
    File,
    /// Block volumes.
    Block,
}

/// A dataset jobs read.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// Name (what traces and tenant shares refer to).
    pub name: String,
    /// Size in GB (10^9 bytes).
    pub size_gb: f64,
    /// Where it lives.
    pub home: Place,
    /// How it is stored.
    pub storage: StorageKind,
    /// The storage's read bandwidth, Gbit/s, if it caps transfers.
    pub read_gbps: Option<f64>,
}

/// A staged copy of a dataset in a region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Copy {
    /// When the copy is complete.
    pub ready: SimTime,
    /// When it is dropped (unless read again before).
    pub expires: SimTime,
    /// The link it was staged over.
    pub via: Link,
}

/// What a job must do to read its dataset in a place.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StagingPlan {
    /// The link a new transfer crosses (`None`: a copy is there or arriving).
    pub link: Option<Link>,
    /// GB moved (0 when a copy is reused).
    pub gb: f64,
    /// Wall time before the job can compute.
    pub wait: SimTime,
}

/// The datasets, each pool's place, the links, and the copies staged so far, keyed by
/// (dataset, region).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DataPlaces {
    /// The datasets, indexed like the workload's dataset table after resolution.
    pub datasets: Vec<Dataset>,
    /// Each pool's place.
    pub pools: Vec<Place>,
    /// Bandwidth per link.
    pub bandwidths: LinkBandwidths,
    /// How long a staged copy is kept after it was staged or last read.
    pub keep_for: SimTime,
    /// Per pool: its region's index (pools of one cloud and region share copies).
    region_of: Vec<u32>,
    /// Copies per (dataset, region index).
    copies: BTreeMap<(u32, u32), Copy>,
}

impl DataPlaces {
    /// No copies yet.
    pub fn new(
        datasets: Vec<Dataset>,
        pools: Vec<Place>,
        bandwidths: LinkBandwidths,
        keep_for: SimTime,
    ) -> Self {
        let mut regions: Vec<(&str, &str)> = Vec::new();
        let region_of = pools
            .iter()
            .map(|p| {
                let key = (p.cloud.as_str(), p.region.as_str());
                match regions.iter().position(|r| *r == key) {
                    Some(i) => i as u32,
                    None => {
                        regions.push(key);
                        (regions.len() - 1) as u32
                    }
                }
            })
            .collect();
        DataPlaces {
            datasets,
            pools,
            bandwidths,
            keep_for,
            region_of,
            copies: BTreeMap::new(),
        }
    }

    /// The live copy of dataset `d` in pool `p`'s region at `now`, if any.
    pub fn copy(&self, d: u32, p: usize, now: SimTime) -> Option<Copy> {
        let r = *self.region_of.get(p)?;
        self.copies
            .get(&(d, r))
            .copied()
            .filter(|c| c.expires > now || c.ready > now)
    }

    /// What reading dataset `d` in pool `p` at `now` takes, without doing it.
    pub fn plan(&self, d: u32, p: usize, now: SimTime) -> StagingPlan {
        let none = StagingPlan {
            link: None,
            gb: 0.0,
            wait: SimTime::ZERO,
        };
        if let Some(c) = self.copy(d, p, now) {
            return StagingPlan {
                wait: c.ready.since(now),
                ..none
            };
        }
        let (Some(ds), Some(at)) = (self.datasets.get(d as usize), self.pools.get(p)) else {
            return none;
        };
        let link = Link::between(&ds.home, at);
        let bw = match (self.bandwidths.of(link), ds.read_gbps) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        // A link without a bandwidth is read in place: nothing is staged.
        let Some(g) = bw.filter(|g| *g > 0.0) else {
            return none;
        };
        let wait = SimTime::from_secs_f64(ds.size_gb * 8.0 / g);
        StagingPlan {
            link: Some(link),
            gb: ds.size_gb,
            wait,
        }
    }

    /// Reads dataset `d` in pool `p` at `now`: stages a copy if none is live (the plan
    /// returned says what was done), and keeps the region's copy `keep_for` past the
    /// time this read can start.
    pub fn read(&mut self, d: u32, p: usize, now: SimTime) -> StagingPlan {
        let plan = self.plan(d, p, now);
        let Some(&r) = self.region_of.get(p) else {
            return plan;
        };
        let ready = now.plus(plan.wait);
        let expires = ready.plus(self.keep_for);
        if let Some(via) = plan.link {
            self.copies.insert(
                (d, r),
                Copy {
                    ready,
                    expires,
                    via,
                },
            );
        } else if let Some(c) = self.copies.get_mut(&(d, r)) {
            if c.expires > now || c.ready > now {
                c.expires = c.expires.max(expires);
            }
        }
        plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(cloud: &str, region: &str, zone: &str) -> Place {
        Place {
            cloud: cloud.into(),
            region: region.into(),
            zone: zone.into(),
        }
    }

    #[test]
    fn links_between_places() {
        let a = place("aws", "us-east-1", "us-east-1a");
        assert_eq!(Link::between(&a, &a), Link::SameZone);
        assert_eq!(
            Link::between(&a, &place("aws", "us-east-1", "us-east-1b")),
            Link::CrossZone
        );
        assert_eq!(
            Link::between(&a, &place("aws", "us-east-1", "")),
            Link::SameZone
        );
        assert_eq!(
            Link::between(&a, &place("aws", "us-west-2", "us-west-2a")),
            Link::CrossRegion
        );
        assert_eq!(
            Link::between(&a, &place("onprem", "dc1", "")),
            Link::Internet
        );
    }

    /// 2 TB = 2,000 GB = 16,000 Gbit; at 10 Gbit/s: 1,600 s. A second read 100 s later
    /// waits for the rest of the transfer (1,500 s) and moves nothing; one after the copy
    /// expired stages again.
    #[test]
    fn staging_time_and_reuse() {
        let ds = Dataset {
            name: "d".into(),
            size_gb: 2000.0,
            home: place("aws", "us-east-1", "us-east-1a"),
            storage: StorageKind::Object,
            read_gbps: None,
        };
        let pools = vec![
            place("aws", "us-west-2", "us-west-2a"),
            place("aws", "us-west-2", "us-west-2b"),
            place("aws", "us-east-1", "us-east-1a"),
        ];
        let mut d = DataPlaces::new(
            vec![ds],
            pools,
            LinkBandwidths {
                cross_region_gbps: Some(10.0),
                ..Default::default()
            },
            SimTime::from_secs(3600),
        );
        let p = d.read(0, 0, SimTime::ZERO);
        assert_eq!(p.link, Some(Link::CrossRegion));
        assert_eq!(p.wait, SimTime::from_secs(1600));
        let q = d.read(0, 0, SimTime::from_secs(100));
        assert_eq!(
            (q.link, q.gb, q.wait),
            (None, 0.0, SimTime::from_secs(1500))
        );
        // Copy ready at 1,600 s, kept to 1,600 + 3,600 = 5,200 s.
        assert!(d.copy(0, 0, SimTime::from_secs(5199)).is_some());
        // A zone of the same region reuses the copy (copies are per region).
        assert_eq!(d.plan(0, 1, SimTime::from_secs(5000)).link, None);
        let r = d.read(0, 0, SimTime::from_secs(5200));
        assert_eq!(r.link, Some(Link::CrossRegion));
        // At home, in the same zone: read in place by default (no same-zone bandwidth).
        let h = d.plan(0, 2, SimTime::ZERO);
        assert_eq!((h.link, h.gb, h.wait), (None, 0.0, SimTime::ZERO));
    }
}
