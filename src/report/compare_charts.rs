//! Charts of distributions across variants: CDFs overlaid (one curve per variant or sweep
//! point, linear or log time axis), drawn from pooled sketches, and the charts of a
//! comparison folder (`cdf-jct_all_s`, `cdf-queue_delay_all_s`, `bars-<metric>` with
//! 95 % intervals), redrawn from its files by `gpufleet plot DIR`.

use super::data::Table;
use super::labels::{metric_label, time_unit};
use super::render::{color, font, legend_line, render, tick, Chart, ChartError, DrawResult};
use super::run_charts::read_json;
use super::sweep_charts::Bars;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// Named CDF step series: `(legend, steps (value, share at or below))`.
pub type CdfSeries = Vec<(String, Vec<(f64, f64)>)>;

/// Empirical CDFs, one per series, over a time or ratio axis.
pub struct CdfOverlay {
    /// Chart title.
    pub title: String,
    /// The quantity, in words ("job completion time, all jobs").
    pub quantity: String,
    /// True for seconds (shown in h, min or s), false for a ratio.
    pub seconds: bool,
    /// Log x axis.
    pub log_x: bool,
    /// `(legend, steps (value, share at or below))`, values increasing.
    pub series: CdfSeries,
}

/// The smallest value with at least `q` of the series at or below it.
fn at(steps: &[(f64, f64)], q: f64) -> f64 {
    steps
        .iter()
        .find(|s| s.1 >= q - 1e-12)
        .or(steps.last())
        .map_or(0.0, |s| s.0)
}

impl Chart for CdfOverlay {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let top = self
            .series
            .iter()
            .map(|s| at(&s.1, if self.log_x { 1.0 } else { 0.99 }))
            .fold(0.0, f64::max);
        let (unit, scale) = if self.seconds {
            time_unit(top)
        } else {
            ("ratio", 1.0)
        };
        let x_max = (top / scale).max(1e-3);
        let low = self
            .series
            .iter()
            .flat_map(|s| s.1.iter().map(|p| p.0))
            .filter(|&x| x > 0.0)
            .fold(f64::INFINITY, f64::min);
        let x_min = if low.is_finite() {
            (low / scale).min(x_max / 10.0)
        } else {
            x_max / 1000.0
        };
        let unit_words = if unit == "ratio" {
            String::new()
        } else {
            format!(" ({unit})")
        };
        let cut = if self.log_x {
            ", log scale".to_string()
        } else {
            ", axis cut at the 99th percentile".to_string()
        };
        let x_desc = format!("{}{unit_words}{cut}", self.quantity);
        let mut c = ChartBuilder::on(root);
        c.caption(&self.title, font(20))
            .margin(14)
            .x_label_area_size(45)
            .y_label_area_size(60);
        // The two axis kinds are different types in plotters; the drawing is the same.
        macro_rules! body {
            ($chart:expr, $lo:expr) => {{
                let mut chart = $chart;
                chart
                    .configure_mesh()
                    .x_desc(x_desc.as_str())
                    .y_desc("share of jobs at or below (CDF)")
                    .label_style(font(14))
                    .x_label_formatter(&|v| {
                        // A log axis reaches below 0.01: keep one significant digit there.
                        if *v > 0.0 && *v < 0.01 {
                            format!("{v:.0e}")
                        } else {
                            tick(v)
                        }
                    })
                    .y_label_formatter(&tick)
                    .draw()?;
                for (i, (name, steps)) in self.series.iter().enumerate() {
                    let col = color(i);
                    let mut pts = vec![($lo, 0.0)];
                    for &(x, f) in steps {
                        let x = (x / scale).clamp($lo, x_max);
                        let prev = pts.last().map_or(0.0, |p| p.1);
                        pts.push((x, prev));
                        pts.push((x, f));
                    }
                    let last = pts.last().map_or(0.0, |p| p.1);
                    pts.push((x_max, last));
                    chart
                        .draw_series(LineSeries::new(pts, col.stroke_width(2)))?
                        .label(name.as_str())
                        .legend(legend_line(col));
                }
                chart
                    .configure_series_labels()
                    .label_font(font(14))
                    .position(SeriesLabelPosition::LowerRight)
                    .background_style(WHITE.mix(0.85))
                    .border_style(BLACK)
                    .draw()?;
            }};
        }
        if self.log_x {
            body!(
                c.build_cartesian_2d((x_min..x_max).log_scale(), 0.0..1.0)?,
                x_min
            );
        } else {
            body!(c.build_cartesian_2d(0.0..x_max, 0.0..1.0)?, 0.0);
        }
        Ok(())
    }
}

/// The pooled CDF steps of `distribution` per series from a `distributions.csv`-shaped
/// table keyed by column `key` (`variant`, `point`), series in order of appearance.
pub fn cdf_series(
    t: &Table,
    file: &str,
    key: &str,
    distribution: &str,
) -> Result<CdfSeries, ChartError> {
    let (ck, cd, cv, cf) = (
        t.need(key, file)?,
        t.need("distribution", file)?,
        t.need("value", file)?,
        t.need("cdf", file)?,
    );
    t.check_numbers(Path::new(file), &[cv, cf])?;
    let mut out: CdfSeries = Vec::new();
    for i in 0..t.rows.len() {
        if t.text(i, cd) != distribution {
            continue;
        }
        let name = t.text(i, ck).to_string();
        let p = (t.num(i, cv).unwrap_or(0.0), t.num(i, cf).unwrap_or(0.0));
        match out.iter_mut().find(|s| s.0 == name) {
            Some(s) => s.1.push(p),
            None => out.push((name, vec![p])),
        }
    }
    Ok(out)
}

/// The distributions a comparison charts, with their words.
pub const CHARTED: [(&str, &str); 2] = [
    ("jct_all_s", "job completion time, all jobs"),
    ("queue_delay_all_s", "total queueing delay, all jobs"),
];

/// Most series one CDF chart overlays (more would be unreadable; the title says so).
pub const MAX_CDF_SERIES: usize = 10;

/// Draws a sweep folder's `cdf-jct_all_s` and `cdf-queue_delay_all_s` from its
/// `distributions.csv` (keyed by `point`): one curve per point, pooled over `seeds`,
/// legends from `legends` (point number, words), the first [`MAX_CDF_SERIES`] points.
pub fn plot_point_cdfs(
    dir: &Path,
    name: &str,
    seeds: usize,
    log_x: bool,
    legends: &[(String, String)],
) -> Result<Vec<PathBuf>, ChartError> {
    let dist = Table::read(&dir.join("distributions.csv"))?;
    let mut out = Vec::new();
    for (d, words) in CHARTED {
        let mut series = cdf_series(&dist, "distributions.csv", "point", d)?;
        if series.is_empty() {
            continue;
        }
        let n = series.len();
        series.truncate(MAX_CDF_SERIES);
        for s in &mut series {
            if let Some(l) = legends.iter().find(|l| l.0 == s.0) {
                s.0 = l.1.clone();
            }
        }
        let shown = if n > MAX_CDF_SERIES {
            format!(", first {MAX_CDF_SERIES} of {n} points")
        } else {
            String::new()
        };
        out.extend(render(
            dir,
            &format!("cdf-{d}"),
            &CdfOverlay {
                title: format!("{name}: {words}, pooled over {seeds} seeds{shown}"),
                quantity: words.to_string(),
                seconds: true,
                log_x,
                series,
            },
        )?);
    }
    Ok(out)
}

/// Draws every chart of the comparison folder `dir`; returns the files written.
pub fn plot_compare_dir(dir: &Path) -> Result<Vec<PathBuf>, ChartError> {
    let m = read_json(dir, "compare.json")?;
    let name = m["compare"].as_str().unwrap_or("compare").to_string();
    let log_x = m["log_x"].as_bool().unwrap_or(false);
    let seeds = m["seeds"].as_array().map_or(0, |a| a.len());
    let metrics: Vec<String> = m["metrics"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    let dist = Table::read(&dir.join("distributions.csv"))?;
    for (d, words) in CHARTED {
        let series = cdf_series(&dist, "distributions.csv", "variant", d)?;
        if series.is_empty() {
            continue;
        }
        out.extend(render(
            dir,
            &format!("cdf-{d}"),
            &CdfOverlay {
                title: format!("{name}: {words}, pooled over {seeds} seeds"),
                quantity: words.to_string(),
                seconds: true,
                log_x,
                series,
            },
        )?);
    }
    let t = Table::read(&dir.join("compare.csv"))?;
    let (cv, cm, cmean, cci) = (
        t.need("variant", "compare.csv")?,
        t.need("metric", "compare.csv")?,
        t.need("mean", "compare.csv")?,
        t.need("ci95", "compare.csv")?,
    );
    t.check_numbers(Path::new("compare.csv"), &[cmean, cci])?;
    for metric in &metrics {
        let rows: Vec<usize> = (0..t.rows.len())
            .filter(|&i| t.text(i, cm) == metric)
            .collect();
        if rows.is_empty() {
            continue;
        }
        let top = rows
            .iter()
            .map(|&i| t.num(i, cmean).unwrap_or(0.0).abs())
            .fold(0.0, f64::max);
        let l = metric_label(metric, top);
        let values = rows
            .iter()
            .map(|&i| {
                (
                    t.num(i, cmean).unwrap_or(0.0) / l.scale,
                    t.num(i, cci).unwrap_or(0.0) / l.scale,
                )
            })
            .collect();
        out.extend(render(
            dir,
            &format!("bars-{metric}"),
            &Bars {
                title: format!("{name}: {} ({seeds} seeds)", l.words),
                x_name: "variant".into(),
                y_name: format!("{} ({})", l.words, l.unit),
                labels: rows.iter().map(|&i| t.text(i, cv).to_string()).collect(),
                groups: vec![("mean over seeds".into(), values)],
            },
        )?);
    }
    Ok(out)
}
