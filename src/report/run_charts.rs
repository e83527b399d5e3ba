//! Charts of one run, drawn from its folder's files: GPUs busy and provisioned by pool over
//! time, queue length over time, cost breakdown by pool, and wait / JCT distributions.

use super::data::Table;
use super::render::{
    color, font, legend_box, legend_line, render, tick, Chart, ChartError, DrawResult,
};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// One sample time: (hours, per pool (busy, provisioned), queued, running).
type Sample = (f64, Vec<(f64, f64)>, f64, f64);

/// The sampled timeline of a run.
struct Timeline {
    pools: Vec<String>,
    rows: Vec<Sample>,
}

fn read_timeline(dir: &Path) -> Result<Timeline, ChartError> {
    let t = Table::read(&dir.join("timeline.csv"))?;
    let f = "timeline.csv";
    let (ch, cp, cb, cv, cq, cr) = (
        t.need("time_h", f)?,
        t.need("pool", f)?,
        t.need("busy_gpus", f)?,
        t.need("provisioned_gpus", f)?,
        t.need("queued_jobs", f)?,
        t.need("running_jobs", f)?,
    );
    let mut pools: Vec<String> = Vec::new();
    for i in 0..t.rows.len() {
        let p = t.text(i, cp);
        if !pools.iter().any(|x| x == p) {
            pools.push(p.to_string());
        }
    }
    let mut rows: Vec<Sample> = Vec::new();
    for i in 0..t.rows.len() {
        let h = t.num(i, ch).unwrap_or(0.0);
        if rows.last().is_none_or(|r| r.0 != h) {
            rows.push((
                h,
                vec![(0.0, 0.0); pools.len()],
                t.num(i, cq).unwrap_or(0.0),
                t.num(i, cr).unwrap_or(0.0),
            ));
        }
        let p = pools.iter().position(|x| x == t.text(i, cp)).unwrap_or(0);
        if let Some(last) = rows.last_mut() {
            last.1[p] = (t.num(i, cb).unwrap_or(0.0), t.num(i, cv).unwrap_or(0.0));
        }
    }
    Ok(Timeline { pools, rows })
}

struct Gpus<'a>(&'a Timeline, &'a str);

impl Chart for Gpus<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let (tl, title) = (self.0, self.1);
        root.fill(&WHITE)?;
        let t_max = tl.rows.last().map(|r| r.0).unwrap_or(1.0).max(1e-3);
        let top = tl
            .rows
            .iter()
            .map(|r| r.1.iter().map(|x| x.0.max(x.1)).sum::<f64>())
            .fold(1.0, f64::max);
        let mut chart = ChartBuilder::on(root)
            .caption(
                format!("{title}: GPUs busy and provisioned by pool"),
                font(22),
            )
            .margin(14)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..t_max, 0.0..top * 1.15)?;
        chart
            .configure_mesh()
            .x_desc("simulated time (hours)")
            .y_desc("GPUs")
            .label_style(font(14))
            .y_label_formatter(&tick)
            .draw()?;
        let n = tl.pools.len();
        let cum = |upto: usize, which: usize| -> Vec<(f64, f64)> {
            tl.rows
                .iter()
                .map(|r| {
                    let s: f64 = r.1[..=upto]
                        .iter()
                        .map(|x| if which == 0 { x.0 } else { x.1 })
                        .sum();
                    (r.0, s)
                })
                .collect()
        };
        // Stacked areas: draw the highest stack first, lower pools over it.
        for p in (0..n).rev() {
            let c = color(p);
            chart
                .draw_series(AreaSeries::new(cum(p, 0), 0.0, c.mix(0.55)).border_style(c))?
                .label(format!("busy: {}", tl.pools[p]))
                .legend(legend_box(c));
        }
        for p in 0..n {
            let c = color(p);
            chart
                .draw_series(LineSeries::new(cum(p, 1), c.stroke_width(2)))?
                .label(format!("provisioned, up to {}", tl.pools[p]))
                .legend(legend_line(c));
        }
        chart
            .configure_series_labels()
            .label_font(font(14))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
        Ok(())
    }
}

struct Queue<'a>(&'a Timeline, &'a str);

impl Chart for Queue<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let (tl, title) = (self.0, self.1);
        root.fill(&WHITE)?;
        let t_max = tl.rows.last().map(|r| r.0).unwrap_or(1.0).max(1e-3);
        let top = tl.rows.iter().map(|r| r.2.max(r.3)).fold(1.0, f64::max);
        let mut chart = ChartBuilder::on(root)
            .caption(format!("{title}: jobs queued and running"), font(22))
            .margin(14)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..t_max, 0.0..top * 1.15)?;
        chart
            .configure_mesh()
            .x_desc("simulated time (hours)")
            .y_desc("jobs")
            .label_style(font(14))
            .y_label_formatter(&tick)
            .draw()?;
        for (i, name) in ["queued jobs", "running jobs"].iter().enumerate() {
            let c = color(i + 3 * i);
            let pts = tl
                .rows
                .iter()
                .map(|r| (r.0, if i == 0 { r.2 } else { r.3 }));
            chart
                .draw_series(LineSeries::new(pts, c.stroke_width(2)))?
                .label(*name)
                .legend(legend_line(c));
        }
        chart
            .configure_series_labels()
            .label_font(font(14))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        Ok(())
    }
}

struct Costs {
    title: String,
    pools: Vec<String>,
    busy: Vec<f64>,
    idle: Vec<f64>,
}

impl Chart for Costs {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let n = self.pools.len();
        let top = (0..n)
            .map(|i| self.busy[i] + self.idle[i])
            .fold(1.0, f64::max);
        let names = self.pools.clone();
        let mut chart = ChartBuilder::on(root)
            .caption(format!("{}: cost by pool", self.title), font(22))
            .margin(14)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d((0..n.saturating_sub(1)).into_segmented(), 0.0..top * 1.2)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("pool")
            .y_desc("cost (US dollars)")
            .label_style(font(14))
            .y_label_formatter(&tick)
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => {
                    names.get(*i).cloned().unwrap_or_default()
                }
                SegmentValue::Last => String::new(),
            })
            .draw()?;
        let bar = |i: usize, lo: f64, hi: f64, c: RGBColor| {
            let mut r = Rectangle::new(
                [
                    (SegmentValue::Exact(i), lo),
                    (SegmentValue::Exact(i + 1), hi),
                ],
                c.filled(),
            );
            r.set_margin(0, 0, 25, 25);
            r
        };
        let (cb, ci) = (color(0), color(7));
        chart
            .draw_series((0..n).map(|i| bar(i, 0.0, self.busy[i], cb)))?
            .label("busy compute")
            .legend(legend_box(cb));
        chart
            .draw_series((0..n).map(|i| bar(i, self.busy[i], self.busy[i] + self.idle[i], ci)))?
            .label("idle compute")
            .legend(legend_box(ci));
        chart
            .configure_series_labels()
            .label_font(font(14))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        Ok(())
    }
}

/// Empirical CDFs of waits and completion times, in hours.
struct Cdf {
    title: String,
    series: Vec<(String, Vec<f64>)>,
}

/// Points of the empirical CDF of sorted `v`: (value, fraction at or below).
fn ecdf(v: &[f64]) -> Vec<(f64, f64)> {
    let n = v.len() as f64;
    let mut out = Vec::with_capacity(v.len() + 1);
    for (i, &x) in v.iter().enumerate() {
        if i + 1 < v.len() && v[i + 1] == x {
            continue;
        }
        out.push((x, (i + 1) as f64 / n));
    }
    out
}

impl Chart for Cdf {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        // Up to the largest 99th percentile, so a long tail does not flatten the curves.
        let x_max = self
            .series
            .iter()
            .filter(|s| !s.1.is_empty())
            .map(|s| s.1[((s.1.len() as f64 * 0.99).ceil() as usize).clamp(1, s.1.len()) - 1])
            .fold(0.0, f64::max)
            .max(1e-3);
        let mut chart = ChartBuilder::on(root)
            .caption(
                format!("{}: distribution of wait and JCT", self.title),
                font(22),
            )
            .margin(14)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..x_max, 0.0..1.0)?;
        chart
            .configure_mesh()
            .x_desc("hours (axis cut at the 99th percentile)")
            .y_desc("fraction of jobs at or below (CDF)")
            .label_style(font(14))
            .y_label_formatter(&tick)
            .draw()?;
        for (i, (name, v)) in self.series.iter().enumerate() {
            let c = color(i);
            let mut pts = vec![(0.0, 0.0)];
            for (x, y) in ecdf(v) {
                let prev = pts.last().map(|p| p.1).unwrap_or(0.0);
                pts.push((x.min(x_max), prev));
                pts.push((x.min(x_max), y));
            }
            chart
                .draw_series(LineSeries::new(pts, c.stroke_width(2)))?
                .label(format!("{name} ({} jobs)", v.len()))
                .legend(legend_line(c));
        }
        chart
            .configure_series_labels()
            .label_font(font(14))
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        Ok(())
    }
}

/// Draws every chart of the run folder `dir`; returns the files written.
pub fn plot_run_dir(dir: &Path) -> Result<Vec<PathBuf>, ChartError> {
    let summary = read_json(dir, "summary.json")?;
    let title = summary["scenario"].as_str().unwrap_or("run").to_string();
    let mut out = Vec::new();
    if dir.join("timeline.csv").is_file() {
        let tl = read_timeline(dir)?;
        if !tl.rows.is_empty() {
            out.extend(render(dir, "timeline", &Gpus(&tl, &title))?);
            out.extend(render(dir, "queue", &Queue(&tl, &title))?);
        }
    }
    if dir.join("pools.csv").is_file() {
        let t = Table::read(&dir.join("pools.csv"))?;
        let (cp, cb, ci) = (
            t.need("pool", "pools.csv")?,
            t.need("busy_cost_usd", "pools.csv")?,
            t.need("idle_cost_usd", "pools.csv")?,
        );
        let n = t.rows.len();
        out.extend(render(
            dir,
            "cost",
            &Costs {
                title: title.clone(),
                pools: (0..n).map(|i| t.text(i, cp).to_string()).collect(),
                busy: (0..n).map(|i| t.num(i, cb).unwrap_or(0.0)).collect(),
                idle: (0..n).map(|i| t.num(i, ci).unwrap_or(0.0)).collect(),
            },
        )?);
    }
    if dir.join("jobs.csv").is_file() {
        let t = Table::read(&dir.join("jobs.csv"))?;
        let mut series = Vec::new();
        for (col, name) in [("wait_s", "wait"), ("jct_s", "JCT")] {
            let c = t.need(col, "jobs.csv")?;
            let mut v: Vec<f64> = (0..t.rows.len())
                .filter_map(|i| t.num(i, c))
                .map(|s| s / 3600.0)
                .collect();
            v.sort_by(f64::total_cmp);
            series.push((name.to_string(), v));
        }
        out.extend(render(dir, "cdf", &Cdf { title, series })?);
    }
    Ok(out)
}

/// Reads the JSON file `name` of the folder `dir`.
pub(super) fn read_json(dir: &Path, name: &'static str) -> Result<serde_json::Value, ChartError> {
    let text = std::fs::read_to_string(dir.join(name))
        .map_err(|source| ChartError::Read { file: name, source })?;
    serde_json::from_str(&text).map_err(|source| ChartError::Json { file: name, source })
}
