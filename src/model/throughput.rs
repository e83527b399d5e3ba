//! Per-workload GPU speeds: a job class x GPU type throughput table (as Gavel's simulator
//! uses, Narayanan et al., OSDI'20), resolved onto a run's pools.
//!
//! A table row gives a class's throughput (steps or samples per second, any unit, one per
//! row) on each GPU type; the class's speed on a type is its throughput there over its
//! throughput on the table's reference type, so work (run time on the reference GPU)
//! takes `work / speed` on that type. A job with no class, or a class the table lacks,
//! keeps its pool's one speed.

/// Class speeds per pool: `speed(c, p)` for the table's classes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClassSpeeds {
    /// Class names, in table order.
    pub classes: Vec<String>,
    /// Number of pools.
    pub pools: usize,
    /// Class-major: `speeds[c * pools + p]`.
    pub speeds: Vec<f64>,
}

impl ClassSpeeds {
    /// From class names and their speed in each pool (one row per class).
    pub fn new(rows: Vec<(String, Vec<f64>)>, pools: usize) -> ClassSpeeds {
        let mut out = ClassSpeeds {
            classes: Vec::with_capacity(rows.len()),
            pools,
            speeds: Vec::with_capacity(rows.len() * pools),
        };
        for (name, mut s) in rows {
            s.resize(pools, 1.0);
            out.classes.push(name);
            out.speeds.extend(s);
        }
        out
    }

    /// Index of class `name`.
    pub fn class(&self, name: &str) -> Option<usize> {
        self.classes.iter().position(|c| c == name)
    }

    /// Speed of class `c` in pool `p`.
    pub fn speed(&self, c: usize, p: usize) -> f64 {
        self.speeds.get(c * self.pools + p).copied().unwrap_or(1.0)
    }
}

/// A throughput table as read: per class, its throughput per GPU type name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ThroughputTable {
    /// The GPU type every class's speed is relative to.
    pub reference: String,
    /// Rows: class name and (GPU type, throughput) pairs.
    pub rows: Vec<(String, Vec<(String, f64)>)>,
}

impl ThroughputTable {
    /// The throughput of class row `c` on GPU type `ty`.
    pub fn get(&self, c: usize, ty: &str) -> Option<f64> {
        self.rows
            .get(c)?
            .1
            .iter()
            .find(|(t, _)| t == ty)
            .map(|x| x.1)
    }

    /// Class row `c`'s speed on `ty` relative to the reference type.
    pub fn relative(&self, c: usize, ty: &str) -> Option<f64> {
        let r = self.get(c, &self.reference)?;
        let x = self.get(c, ty)?;
        (r > 0.0).then(|| x / r)
    }

    /// Resolved onto pools whose GPU type names are `pool_types`; `None` in the first
    /// (class, type) the table lacks.
    pub fn resolve(&self, pool_types: &[&str]) -> Result<ClassSpeeds, (String, String)> {
        let mut rows = Vec::with_capacity(self.rows.len());
        for (c, (name, _)) in self.rows.iter().enumerate() {
            let mut s = Vec::with_capacity(pool_types.len());
            for ty in pool_types {
                match self.relative(c, ty) {
                    Some(v) => s.push(v),
                    None => return Err((name.clone(), ty.to_string())),
                }
            }
            rows.push((name.clone(), s));
        }
        Ok(ClassSpeeds::new(rows, pool_types.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gavel's measured throughputs (scheduler/simulation_throughputs.json, one worker,
    /// alone): ResNet-50 (batch size 64) 0.619 steps/s on a K80 and 4.395 on a V100, so
    /// against the V100 a K80 runs it at 0.619 / 4.395 = 0.1409.
    #[test]
    fn speeds_are_relative_to_the_reference_type() {
        let t = ThroughputTable {
            reference: "V100".into(),
            rows: vec![(
                "resnet50".into(),
                vec![("K80".into(), 0.619), ("V100".into(), 4.395)],
            )],
        };
        let s = t.resolve(&["V100", "K80"]).unwrap();
        assert_eq!(s.speed(0, 0), 1.0);
        assert!((s.speed(0, 1) - 0.619 / 4.395).abs() < 1e-12);
        assert_eq!(
            t.resolve(&["P100"]).unwrap_err(),
            ("resnet50".to_string(), "P100".to_string())
        );
    }
}
