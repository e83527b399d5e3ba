//! The price of moving a dataset over a link, from one cloud's transfer prices: nothing
//! within a zone, the cross-zone price each way between zones (as checkpoint moves pay,
//! [`Egress::move_charges`]), the catalog's `cross_region` price between regions (the
//! internet tiers when the catalog has none, as checkpoint moves are priced), and the
//! internet tiers by the month's cumulative volume over the internet.

use super::{CatalogError, Egress, EGRESS_CSV};
use crate::model::datasets::Link;

/// One sending cloud's transfer prices.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkPrices {
    /// Internet tiers and the cross-zone price.
    pub egress: Egress,
    /// Dollars per GB between regions (`None`: priced as internet egress).
    pub cross_region_per_gb: Option<f64>,
}

impl LinkPrices {
    /// Free transfer (an owned data centre's own links).
    pub fn free() -> LinkPrices {
        LinkPrices {
            egress: Egress {
                free_gb: 0.0,
                tiers: Vec::new(),
                cross_zone_per_gb: 0.0,
            },
            cross_region_per_gb: Some(0.0),
        }
    }

    /// `cloud`'s prices from the catalog (`data/prices/egress.csv`).
    pub fn from_catalog(cloud: &str) -> Result<LinkPrices, CatalogError> {
        let egress = super::egress(cloud)?;
        let mut rdr = csv::Reader::from_reader(EGRESS_CSV.as_bytes());
        let cross_region_per_gb = rdr
            .records()
            .filter_map(|r| r.ok())
            .find(|r| r.get(0) == Some(cloud) && r.get(1) == Some("cross_region"))
            .and_then(|r| r.get(3).and_then(|s| s.trim().parse::<f64>().ok()));
        Ok(LinkPrices {
            egress,
            cross_region_per_gb,
        })
    }

    /// Dollars for `gb` more over `link` when `month_gb` already left over the internet
    /// (or, without a cross-region price, across regions) this month.
    pub fn charge(&self, link: Link, gb: f64, month_gb: f64) -> f64 {
        let tiered = |e: &Egress| e.internet_cost(month_gb + gb) - e.internet_cost(month_gb);
        match link {
            Link::SameZone => 0.0,
            Link::CrossZone => 2.0 * self.egress.cross_zone_cost(gb),
            Link::CrossRegion => match self.cross_region_per_gb {
                Some(p) => gb * p,
                None => tiered(&self.egress),
            },
            Link::Internet => tiered(&self.egress),
        }
    }

    /// True when a move over `link` counts towards the month's tiered volume.
    pub fn tiered(&self, link: Link) -> bool {
        match link {
            Link::Internet => true,
            Link::CrossRegion => self.cross_region_per_gb.is_none(),
            Link::SameZone | Link::CrossZone => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The catalog's AWS rows: $0.02/GB between regions, so 2,000 GB cost $40; over the
    /// internet 100 GB free then $0.09/GB: 2,000 GB cost 1,900 x 0.09 = $171; across zones
    /// $0.01 each way: $40.
    #[test]
    fn aws_links() {
        let p = LinkPrices::from_catalog("aws").unwrap();
        assert_eq!(p.cross_region_per_gb, Some(0.02));
        assert!((p.charge(Link::CrossRegion, 2000.0, 0.0) - 40.0).abs() < 1e-9);
        assert!((p.charge(Link::Internet, 2000.0, 0.0) - 171.0).abs() < 1e-9);
        assert!((p.charge(Link::CrossZone, 2000.0, 0.0) - 40.0).abs() < 1e-9);
        assert_eq!(p.charge(Link::SameZone, 2000.0, 0.0), 0.0);
        // Past 10,240 GB this month the next GB costs $0.085.
        assert!((p.charge(Link::Internet, 1.0, 10_240.0) - 0.085).abs() < 1e-9);
        assert!(LinkPrices::from_catalog("mars").is_err());
    }
}
