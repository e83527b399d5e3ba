//! The price catalog: real instance prices shipped in `data/prices/catalog.csv`, each row
//! with its source and date, looked up as `instance = "aws:p5.48xlarge"`, `region = "us-east-1"`.

/// The catalog text, embedded so that scenarios resolve instances without the data folder.
pub const CATALOG_CSV: &str = include_str!("../../data/prices/catalog.csv");

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
pub fn lookup(instance: &str, region: &str) -> Result<CatalogEntry, String> {
    let Some((cloud, itype)) = instance.split_once(':') else {
        return Err(format!(
            "{instance:?} should be written cloud:instance_type, e.g. \"aws:p5.48xlarge\""
        ));
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
        return Err(format!(
            "{instance:?} is not in the price catalog; it has {}",
            names.join(", ")
        ));
    }
    same.iter()
        .find(|e| e.region == region)
        .map(|e| (*e).clone())
        .ok_or_else(|| {
            format!(
                "{instance:?} has no price for region {region:?}; regions: {}",
                same.iter()
                    .map(|e| e.region.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
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
}
