//! The figures a summary can have, known before anything runs: what plans' targets and
//! objectives, and comparisons' metrics, may name (checked at once, not after the runs).

use super::{CloudFigures, Summary};
use std::sync::OnceLock;

/// Every figure of a summary with each optional part present: its leaves, as dotted paths,
/// and the paths of its maps, whose keys the run names (pools, kinds, tenants, causes,
/// regions, links).
#[derive(Debug)]
pub struct SummaryShape {
    leaves: Vec<String>,
    maps: Vec<String>,
}

impl SummaryShape {
    /// The shape (worked out once).
    pub fn get() -> &'static SummaryShape {
        static SHAPE: OnceLock<SummaryShape> = OnceLock::new();
        SHAPE.get_or_init(|| {
            let full = Summary {
                cloud: Some(CloudFigures {
                    data: Some(Default::default()),
                    spread: Some(Default::default()),
                }),
                ..Default::default()
            };
            let mut shape = SummaryShape {
                leaves: Vec::new(),
                maps: Vec::new(),
            };
            if let Ok(v) = serde_json::to_value(&full) {
                shape.walk("", &v);
            }
            shape
        })
    }

    fn walk(&mut self, prefix: &str, v: &serde_json::Value) {
        match v {
            // A map the default summary leaves empty: its keys come from the run.
            serde_json::Value::Object(o) if o.is_empty() => self.maps.push(prefix.to_string()),
            serde_json::Value::Object(o) => {
                for (k, v) in o {
                    let name = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    self.walk(&name, v);
                }
            }
            serde_json::Value::Number(_) => self.leaves.push(prefix.to_string()),
            _ => {}
        }
    }

    /// True when `key`, a figure's path joined by `_` (a `runs.csv` column: `wait_s_p95`),
    /// can be a figure of a summary: a leaf, or a key under one of its maps.
    pub fn knows(&self, key: &str) -> bool {
        let flat = |p: &str| p.replace('.', "_");
        self.leaves.iter().any(|l| flat(l) == key)
            || self.maps.iter().any(|m| {
                let m = flat(m);
                key.len() > m.len() + 1 && key.starts_with(&m) && key.as_bytes()[m.len()] == b'_'
            })
    }

    /// Dotted names of the figures that start like `key` (its first word), at most 12; some
    /// common ones when none does.
    pub fn near(&self, key: &str) -> Vec<&str> {
        let head = key.split(['_', '.']).next().unwrap_or("");
        let v: Vec<&str> = self
            .leaves
            .iter()
            .filter(|k| k.starts_with(head))
            .take(12)
            .map(String::as_str)
            .collect();
        if v.is_empty() {
            vec![
                "wait_all_s.p95",
                "jct_all_s.p95",
                "cost_usd.total",
                "utilization",
            ]
        } else {
            v
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_and_named_parts_are_known_and_the_rest_not() {
        let s = SummaryShape::get();
        for good in [
            "cost_usd_total",
            "wait_all_s_p95",
            "utilization",
            "jobs_rejected",
            "cost_usd_owned-h100",
            "by_tenant_research_wait_s_p95",
            "node_failures_by_cause_NIC",
            "cloud_data_by_region_aws_us-east-1_gb",
        ] {
            assert!(s.knows(good), "{good}");
        }
        for bad in [
            "costs_total",
            "wait_all_s_p96",
            "utilisation",
            "cost_usd",
            "cost_usd_",
        ] {
            assert!(!s.knows(bad), "{bad}");
        }
        assert!(s.near("wait_all_s_p96").contains(&"wait_all_s.p95"));
    }
}
