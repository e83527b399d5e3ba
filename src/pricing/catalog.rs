//! The price catalog: real instance prices shipped in `data/prices/catalog.csv`, each row
//! with its source and date, looked up as `instance = "aws:p5.48xlarge"`, `region = "us-east-1"`;
//! and each provider's data transfer prices in `data/prices/egress.csv`, looked up by cloud.

use super::Egress;

/// The catalog text, embedded so that scenarios resolve instances without the data folder.
pub const CATALOG_CSV: &str = include_str!("../../data/prices/catalog.csv");

/// The egress price rows (`cloud,scope,up_to_gb,usd_per_gb,source,date`), embedded likewise.
pub const EGRESS_CSV: &str = include_str!("../../data/prices/egress.csv");

/// The cloud whose data transfer prices apply when a scenario names none.
pub const DEFAULT_EGRESS_CLOUD: &str = "aws";

/// A catalog look-up that found nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogError {
    /// The instance is not written `cloud:instance_type`.
    #[error("{instance:?} should be written cloud:instance_type, e.g. \"aws:p5.48xlarge\"")]
    BadName {
        /// As written.
        instance: String,
    },
    /// No row has this instance.
    #[error("{instance:?} is not in the price catalog; it has {known}")]
    UnknownInstance {
        /// As written.
        instance: String,
        /// The instances the catalog has, comma-separated.
        known: String,
    },
    /// The instance has no row for this region.
    #[error("{instance:?} has no price for region {region:?}; regions: {regions}")]
    UnknownRegion {
        /// As written.
        instance: String,
        /// As written.
        region: String,
        /// The regions it has, comma-separated.
        regions: String,
    },
    /// No egress rows for this cloud.
    #[error("no data transfer prices for cloud {cloud:?} in the price catalog; it has {known}")]
    UnknownEgressCloud {
        /// As written.
        cloud: String,
        /// The clouds it has, comma-separated.
        known: String,
    },
}

/// One catalog row.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogEntry {
    /// Cloud (`aws`, `gcp`).
    pub cloud: String,
    /// Instance or machine type.
    pub instance_type: String,
    /// GPU model.
    pub gpu: String,
    /// GPUs per instance.
    pub gpu_count: u32,
    /// Region.
    pub region: String,
    /// On-demand dollars per hour, if listed.
    pub on_demand: Option<f64>,
    /// Spot dollars per hour, if listed.
    pub spot: Option<f64>,
    /// Where the price comes from.
    pub source: String,
    /// When it was read.
    pub date: String,
}

/// All rows of the embedded catalog. Rows that fail to parse are a build defect, caught by
/// the unit test below; they are skipped here rather than panicking at run time.
pub fn catalog() -> Vec<CatalogEntry> {
    let mut rdr = csv::Reader::from_reader(CATALOG_CSV.as_bytes());
    rdr.records()
        .filter_map(|r| r.ok())
        .filter_map(|r| {
            let num = |i: usize| r.get(i).and_then(|s| s.trim().parse::<f64>().ok());
            Some(CatalogEntry {
                cloud: r.get(0)?.to_string(),
                instance_type: r.get(1)?.to_string(),
                gpu: r.get(2)?.to_string(),
                gpu_count: r.get(3)?.parse().ok()?,
                region: r.get(4)?.to_string(),
                on_demand: num(5),
                spot: num(6),
                source: r.get(7)?.to_string(),
                date: r.get(8)?.to_string(),
            })
        })
        .collect()
}

/// Looks up `cloud:instance` in `region`. `Err` says what the catalog has instead.
pub fn lookup(instance: &str, region: &str) -> Result<CatalogEntry, CatalogError> {
    let Some((cloud, itype)) = instance.split_once(':') else {
        return Err(CatalogError::BadName {
            instance: instance.to_string(),
        });
    };
    let all = catalog();
    let same: Vec<&CatalogEntry> = all
        .iter()
        .filter(|e| e.cloud == cloud && e.instance_type == itype)
        .collect();
    if same.is_empty() {
        let mut names: Vec<String> = all
            .iter()
            .map(|e| format!("{}:{}", e.cloud, e.instance_type))
            .collect();
        names.dedup();
        return Err(CatalogError::UnknownInstance {
            instance: instance.to_string(),
            known: names.join(", "),
        });
    }
    same.iter()
        .find(|e| e.region == region)
        .map(|e| (*e).clone())
        .ok_or_else(|| CatalogError::UnknownRegion {
            instance: instance.to_string(),
            region: region.to_string(),
            regions: same
                .iter()
                .map(|e| e.region.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// The rows of [`EGRESS_CSV`], read once a process: every scenario with data transfer
/// prices looks its cloud up, and a sweep of 100,000 points built a CSV reader for each.
fn egress_rows() -> &'static [csv::StringRecord] {
    static ROWS: std::sync::OnceLock<Vec<csv::StringRecord>> = std::sync::OnceLock::new();
    ROWS.get_or_init(|| {
        csv::Reader::from_reader(EGRESS_CSV.as_bytes())
            .records()
            .filter_map(|r| r.ok())
            .collect()
    })
}

/// `cloud`'s data transfer prices from the catalog: the free monthly internet volume
/// (`internet_free`), the internet tiers in file order (`internet`; an empty `up_to_gb` is
/// the open-ended last tier) and the cross-zone price (`cross_zone`). Rows that fail to
/// parse are a build defect, caught by the unit test below.
pub fn egress(cloud: &str) -> Result<Egress, CatalogError> {
    let rows = egress_rows();
    let num = |r: &csv::StringRecord, i: usize| r.get(i).and_then(|s| s.trim().parse::<f64>().ok());
    let mut found = false;
    let mut out = Egress {
        free_gb: 0.0,
        tiers: Vec::new(),
        cross_zone_per_gb: 0.0,
    };
    for r in rows.iter().filter(|r| r.get(0) == Some(cloud)) {
        found = true;
        let price = num(r, 3).unwrap_or(0.0);
        match r.get(1) {
            Some("internet_free") => out.free_gb = num(r, 2).unwrap_or(0.0),
            Some("internet") => out.tiers.push((num(r, 2).unwrap_or(f64::INFINITY), price)),
            Some("cross_zone") => out.cross_zone_per_gb = price,
            _ => {}
        }
    }
    if !found {
        let mut known: Vec<&str> = rows.iter().filter_map(|r| r.get(0)).collect();
        known.dedup();
        return Err(CatalogError::UnknownEgressCloud {
            cloud: cloud.to_string(),
            known: known.join(", "),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_parses_and_p5_is_listed() {
        let n = CATALOG_CSV.lines().count() - 1;
        assert_eq!(catalog().len(), n);
        // aws_gpu_instances.csv: p5.48xlarge us-east-1 $98.32 on-demand, $23.1583 spot.
        let e = lookup("aws:p5.48xlarge", "us-east-1").unwrap();
        assert_eq!(
            (e.on_demand, e.spot, e.gpu_count),
            (Some(98.32), Some(23.1583), 8)
        );
        assert!(lookup("aws:p5.48xlarge", "mars-1").is_err());
        assert!(lookup("p5.48xlarge", "us-east-1").is_err());
    }

    #[test]
    fn every_egress_row_parses_and_aws_matches_economics_md() {
        // ECONOMICS.md: 100 GB/month free, then $0.09/GB to 10 TB, $0.085 to 50 TB, $0.07
        // to 150 TB, $0.05 above; cross-zone $0.01/GB each way.
        let mut rdr = csv::Reader::from_reader(EGRESS_CSV.as_bytes());
        for r in rdr.records() {
            let r = r.unwrap();
            assert!(r.get(3).unwrap().parse::<f64>().is_ok(), "{r:?}");
            let up = r.get(2).unwrap();
            assert!(up.is_empty() || up.parse::<f64>().is_ok(), "{r:?}");
        }
        let e = egress(DEFAULT_EGRESS_CLOUD).unwrap();
        assert_eq!(e.free_gb, 100.0);
        assert_eq!(
            e.tiers,
            vec![
                (10_240.0, 0.09),
                (51_200.0, 0.085),
                (153_600.0, 0.07),
                (f64::INFINITY, 0.05)
            ]
        );
        assert_eq!(e.cross_zone_per_gb, 0.01);
        assert!(egress("mars").is_err());
    }
}
