//! A comparison's folder: `compare.csv` (each metric per variant, mean and 95 % interval),
//! `differences.csv` (paired differences to the baseline), `runs.csv` (every run's
//! figures), `distributions.csv` (each variant's pooled CDFs from the runs' sketches),
//! `compare.json` (the identity and the reported metrics) and charts; and the lines the
//! terminal shows. Rows follow the spec's orders, so the bytes never depend on threads.

use super::exec::Comparison;
use super::stats::{estimate, paired, paired_bootstrap, test_name, test_short, PairedDifference};
use crate::metrics::QuantileSketch;
use crate::report::{metric_label, write_atomic};
use serde_json::{json, Map, Value};
use std::path::Path;

use crate::metrics::table_num as num;

fn opt(x: Option<f64>) -> String {
    x.map(num).unwrap_or_default()
}

fn csv(rows: Vec<Vec<String>>) -> std::io::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.write_record(&r)?;
    }
    w.into_inner()
        .map_err(|e| std::io::Error::other(e.to_string()))
}

/// One metric of one variant with its paired difference to the baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricRow {
    /// The metric.
    pub metric: String,
    /// The variant.
    pub variant: String,
    /// Mean over seeds.
    pub mean: f64,
    /// 95 % half-width.
    pub ci95: Option<f64>,
    /// Seeds.
    pub runs: usize,
    /// Paired difference to the baseline (`None` for the baseline itself).
    pub diff: Option<PairedDifference>,
}

impl Comparison {
    /// Every (metric, variant) row, metrics in order, then variants in order.
    pub fn rows(&self, metrics: &[String]) -> Vec<MetricRow> {
        let b = self.spec.baseline;
        let mut out = Vec::new();
        for m in metrics {
            let base = self.values(b, m);
            for (v, var) in self.spec.variants.iter().enumerate() {
                let vals = self.values(v, m);
                let xs: Vec<f64> = vals.iter().flatten().copied().collect();
                let Some(e) = estimate(&xs) else { continue };
                out.push(MetricRow {
                    metric: m.clone(),
                    variant: var.name.clone(),
                    mean: e.mean,
                    ci95: e.ci95,
                    runs: e.n,
                    diff: match (v == b, &self.spec.bootstrap) {
                        (true, _) => None,
                        (false, None) => paired(&vals, &base),
                        (false, Some(bs)) => {
                            paired_bootstrap(&vals, &base, bs, &format!("{m}/{}", var.name))
                        }
                    },
                });
            }
        }
        out
    }
}

/// Each variant's distributions pooled over its seeds: `[variant][distribution]`, in the
/// order of [`crate::metrics::DISTRIBUTIONS`].
pub fn pooled_sketches(c: &Comparison) -> Vec<Vec<QuantileSketch>> {
    c.runs
        .iter()
        .map(|runs| crate::metrics::pool(runs.iter().map(|r| &r.sketches)))
        .collect()
}

/// Writes the comparison's folder `dir` (created if needed), charts included.
pub fn write_comparison(dir: &Path, c: &Comparison) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let spec = &c.spec;
    let all = c.rows(&c.metric_names);
    let base = &spec.variants[spec.baseline].name;

    let mut rows = vec![vec!["variant", "metric", "mean", "ci95", "runs"]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>()];
    let mut diffs = vec![[
        "variant",
        "baseline",
        "metric",
        "diff_mean",
        "diff_ci95",
        "diff_low",
        "diff_high",
        "relative_pct",
        "relative_ci95_pct",
        "p_value",
        "pairs",
        "test",
    ]
    .into_iter()
    .map(String::from)
    .collect::<Vec<_>>()];
    // Variant-major order reads best per variant; rows() is metric-major.
    for var in &spec.variants {
        for r in all.iter().filter(|r| r.variant == var.name) {
            rows.push(vec![
                r.variant.clone(),
                r.metric.clone(),
                num(r.mean),
                opt(r.ci95),
                r.runs.to_string(),
            ]);
            if let Some(d) = &r.diff {
                diffs.push(vec![
                    r.variant.clone(),
                    base.clone(),
                    r.metric.clone(),
                    num(d.mean),
                    opt(d.ci95),
                    opt(d.low),
                    opt(d.high),
                    opt(d.relative_pct),
                    opt(d.relative_ci95_pct),
                    opt(d.p_value),
                    d.n.to_string(),
                    test_short(spec.bootstrap.as_ref()).into(),
                ]);
            }
        }
    }
    write_atomic(&dir.join("compare.csv"), &csv(rows)?)?;
    write_atomic(&dir.join("differences.csv"), &csv(diffs)?)?;

    let mut runs = vec![{
        let mut h = vec!["variant".to_string(), "seed".to_string()];
        h.extend(c.metric_names.iter().cloned());
        h
    }];
    for (v, var) in spec.variants.iter().enumerate() {
        for (k, seed) in spec.seeds.iter().enumerate() {
            let mut row = vec![var.name.clone(), seed.to_string()];
            for m in &c.metric_names {
                let x = c.runs[v][k].metrics.iter().find(|x| &x.0 == m).map(|x| x.1);
                row.push(opt(x));
            }
            runs.push(row);
        }
    }
    write_atomic(&dir.join("runs.csv"), &csv(runs)?)?;

    let pooled = pooled_sketches(c);
    let mut dist = vec![crate::metrics::distribution_header("variant")];
    for (v, var) in spec.variants.iter().enumerate() {
        dist.extend(crate::metrics::distribution_rows(&var.name, &pooled[v]));
    }
    write_atomic(&dir.join("distributions.csv"), &csv(dist)?)?;

    let mut json = serde_json::to_vec_pretty(&manifest(c)).map_err(std::io::Error::other)?;
    json.push(b'\n');
    write_atomic(&dir.join("compare.json"), &json)?;
    crate::report::plot_compare_dir(dir).map_err(std::io::Error::other)?;
    Ok(())
}

/// `compare.json`: what was compared and the reported metrics' figures.
fn manifest(c: &Comparison) -> Value {
    let spec = &c.spec;
    let variants: Vec<Value> = spec
        .variants
        .iter()
        .enumerate()
        .map(|(v, var)| {
            let set: Map<String, Value> = var
                .set
                .iter()
                .map(|(p, x)| (p.clone(), Value::String(x.clone())))
                .collect();
            json!({
                "name": var.name,
                "set": set,
                "scenario_hash": var.scenario.hash,
                "shares_workload_with": spec.variants[c.shares_workload_with[v]].name,
            })
        })
        .collect();
    let mut results = Map::new();
    for r in c.rows(&spec.metrics) {
        let e = results
            .entry(r.metric.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        let mut o = json!({ "mean": r.mean, "ci95": r.ci95, "runs": r.runs });
        if let Some(d) = r.diff {
            o["diff"] = json!({
                "mean": d.mean,
                "ci95": d.ci95,
                "relative_pct": d.relative_pct,
                "relative_ci95_pct": d.relative_ci95_pct,
                "p_value": d.p_value,
                "pairs": d.n,
            });
        }
        if let Value::Object(m) = e {
            m.insert(r.variant.clone(), o);
        }
    }
    json!({
        "compare": spec.name,
        "scenario": spec.scenario_file.file_name().map(|f| f.to_string_lossy().into_owned()),
        "gpufleet_version": crate::VERSION,
        "seeds": spec.seeds,
        "baseline": spec.variants[spec.baseline].name,
        "test": test_name(spec.bootstrap.as_ref()),
        "confidence": 0.95,
        "log_x": spec.log_x,
        "metrics": spec.metrics,
        "variants": variants,
        "results": results,
    })
}

/// The terminal's report: per reported metric, each variant's mean +- interval and its
/// paired difference to the baseline ("easy_backfill vs fifo: -48.0 % +- 3.1 %").
pub fn headline(c: &Comparison) -> Vec<String> {
    let spec = &c.spec;
    let base = &spec.variants[spec.baseline].name;
    let mut out = vec![format!(
        "{} variants x {} seeds (common random numbers); baseline {base}; 95 % intervals, {}",
        spec.variants.len(),
        spec.seeds.len(),
        test_name(spec.bootstrap.as_ref())
    )];
    let rows = c.rows(&spec.metrics);
    for m in &spec.metrics {
        let mine: Vec<&MetricRow> = rows.iter().filter(|r| &r.metric == m).collect();
        if mine.is_empty() {
            out.push(format!("{m}: no run has this metric"));
            continue;
        }
        let top = mine.iter().map(|r| r.mean.abs()).fold(0.0, f64::max);
        let l = metric_label(m, top);
        let show = |x: f64| format!("{:.3}", x / l.scale);
        out.push(format!("{} ({})", l.words, l.unit));
        for r in &mine {
            let ci = r
                .ci95
                .map(|h| format!(" ± {}", show(h)))
                .unwrap_or_default();
            let mut line = format!("  {:<24} {}{ci}", r.variant, show(r.mean));
            match &r.diff {
                None => line.push_str("   (baseline)"),
                Some(d) => {
                    let rel = match (d.relative_pct, d.relative_ci95_pct) {
                        (Some(p), Some(h)) => format!("{p:+.1} % ± {h:.1} %"),
                        (Some(p), None) => format!("{p:+.1} %"),
                        _ => format!("{:+}", show(d.mean)),
                    };
                    let p = d
                        .p_value
                        .map(|p| {
                            format!(
                                ", p = {}",
                                if p < 1e-4 {
                                    format!("{p:.1e}")
                                } else {
                                    format!("{p:.4}")
                                }
                            )
                        })
                        .unwrap_or_default();
                    line.push_str(&format!("   vs {base}: {rel}{p}"));
                }
            }
            out.push(line);
        }
    }
    out
}
