//! Charts of one run, drawn from its folder's files: GPUs busy and provisioned by pool over
//! time, queue length over time, cost breakdown by pool, and wait / JCT distributions.

use super::data::FolderTable;
use super::files::RunRest;
use super::render::{
    color, font, legend_box, legend_line, render, tick, Chart, ChartError, DrawResult,
};
use crate::pricing::CostKind;
use crate::sim::JobOutcome;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// One sample time: (hours, per pool (busy, provisioned), queued, running).
type Sample = (f64, Vec<(f64, f64)>, f64, f64);

/// Most points drawn over all the series of a timeline chart: longer timelines are drawn
/// as means over bins of consecutive samples, so a chart stays small (well under 1 MB of
/// SVG) whatever the run's length.
const MAX_TIMELINE_POINTS: usize = 24_000;

/// Most points of a distribution curve: above this many jobs, the curve is drawn through
/// this many exact quantiles (the values at ranks ceil(k n / 1000)).
const CDF_POINTS: usize = 1000;

/// The sampled timeline of a run, binned for drawing.
struct Timeline {
    pools: Vec<String>,
    rows: Vec<Sample>,
    /// Samples averaged into each drawn point (1: every sample drawn).
    bin: usize,
}

impl Timeline {
    /// `rows` binned to at most [`MAX_TIMELINE_POINTS`] over its series: each drawn point
    /// the mean of `bin` consecutive samples, at their mean time.
    fn binned(pools: Vec<String>, rows: Vec<Sample>) -> Timeline {
        let per_series = (MAX_TIMELINE_POINTS / (2 * pools.len() + 2)).clamp(200, 1500);
        let bin = rows.len().div_ceil(per_series).max(1);
        if bin == 1 {
            return Timeline { pools, rows, bin };
        }
        let rows = rows
            .chunks(bin)
            .map(|c| {
                let k = c.len() as f64;
                let mut pools = vec![(0.0, 0.0); c[0].1.len()];
                for r in c {
                    for (acc, x) in pools.iter_mut().zip(&r.1) {
                        acc.0 += x.0 / k;
                        acc.1 += x.1 / k;
                    }
                }
                (
                    c.iter().map(|r| r.0).sum::<f64>() / k,
                    pools,
                    c.iter().map(|r| r.2).sum::<f64>() / k,
                    c.iter().map(|r| r.3).sum::<f64>() / k,
                )
            })
            .collect();
        Timeline { pools, rows, bin }
    }

    /// The time axis' label.
    fn x_desc(&self) -> String {
        if self.bin == 1 {
            "simulated time (hours)".to_string()
        } else {
            format!(
                "simulated time (hours; each point the mean of {} samples)",
                self.bin
            )
        }
    }
}

/// The timeline of a run's result.
fn timeline_of(out: &RunRest) -> Timeline {
    let pools: Vec<String> = out.result.pools.iter().map(|p| p.name.clone()).collect();
    let rows = out
        .result
        .timeline
        .iter()
        .map(|r| {
            (
                r.time.hours_f64(),
                r.pools
                    .iter()
                    .map(|&(b, p)| (b as f64 / 1000.0, p as f64 / 1000.0))
                    .collect(),
                r.queued as f64,
                r.running as f64,
            )
        })
        .collect();
    Timeline::binned(pools, rows)
}

/// The timeline of a run folder's `timeline.csv`, streamed row by row.
fn read_timeline(dir: &Path) -> Result<Timeline, ChartError> {
    let (ch, cp, cb, cv, cq, cr) = (0, 1, 2, 3, 4, 5);
    let mut t = FolderTable::open(
        dir,
        "timeline",
        &[
            "time_h",
            "pool",
            "busy_gpus",
            "provisioned_gpus",
            "queued_jobs",
            "running_jobs",
        ],
    )?
    .numbers(&[ch, cb, cv, cq, cr]);
    let mut pools: Vec<String> = Vec::new();
    let mut rows: Vec<Sample> = Vec::new();
    while let Some(rec) = t.next_row()? {
        let num = |c: usize| {
            rec.get(c)
                .and_then(|x| x.parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        let name = rec.get(cp).unwrap_or("");
        let p = match pools.iter().position(|x| x == name) {
            Some(p) => p,
            None => {
                pools.push(name.to_string());
                for r in &mut rows {
                    r.1.push((0.0, 0.0));
                }
                pools.len() - 1
            }
        };
        let h = num(ch);
        if rows.last().is_none_or(|r| r.0 != h) {
            rows.push((h, vec![(0.0, 0.0); pools.len()], num(cq), num(cr)));
        }
        if let Some(last) = rows.last_mut() {
            last.1[p] = (num(cb), num(cv));
        }
    }
    Ok(Timeline::binned(pools, rows))
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
            .x_desc(tl.x_desc())
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
            .x_desc(tl.x_desc())
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

/// Distributions of waits and completion times, in hours: each series its name, its job
/// count, its points (value, fraction at or below) and its 99th percentile.
struct Cdf {
    title: String,
    series: Vec<Distribution>,
}

/// One distribution curve, drawn from exact quantiles of the values.
struct Distribution {
    name: String,
    jobs: usize,
    points: Vec<(f64, f64)>,
    p99: f64,
}

impl Distribution {
    /// The curve of `v` (sorted here): every distinct value when there are at most
    /// [`CDF_POINTS`] values, else the values at ranks ceil(k n / CDF_POINTS), k = 1..
    fn of(name: &str, mut v: Vec<f64>) -> Distribution {
        crate::metrics::sort_floats(&mut v);
        let n = v.len();
        let at = |rank: usize| v[rank.clamp(1, n) - 1];
        let mut points: Vec<(f64, f64)> = Vec::new();
        if n <= CDF_POINTS {
            for (i, &x) in v.iter().enumerate() {
                if i + 1 < n && v[i + 1] == x {
                    continue;
                }
                points.push((x, (i + 1) as f64 / n as f64));
            }
        } else {
            for k in 1..=CDF_POINTS {
                let rank = (k * n).div_ceil(CDF_POINTS);
                let (x, y) = (at(rank), rank as f64 / n as f64);
                match points.last_mut() {
                    Some(last) if last.0 == x => last.1 = y,
                    _ => points.push((x, y)),
                }
            }
        }
        Distribution {
            name: name.to_string(),
            jobs: n,
            p99: if n == 0 {
                0.0
            } else {
                at((n as f64 * 0.99).ceil() as usize)
            },
            points,
        }
    }
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
            .map(|s| s.p99)
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
        for (i, d) in self.series.iter().enumerate() {
            let c = color(i);
            let mut pts = vec![(0.0, 0.0)];
            for &(x, y) in &d.points {
                let prev = pts.last().map(|p| p.1).unwrap_or(0.0);
                pts.push((x.min(x_max), prev));
                pts.push((x.min(x_max), y));
            }
            chart
                .draw_series(LineSeries::new(pts, c.stroke_width(2)))?
                .label(format!("{} ({} jobs)", d.name, d.jobs))
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

/// What a run's charts are drawn from: its timeline (binned), its cost by pool, and the
/// distributions of wait and completion time (exact quantiles), all small.
pub struct RunCharts {
    title: String,
    timeline: Option<Timeline>,
    costs: Option<Costs>,
    cdf: Option<Cdf>,
}

impl RunCharts {
    /// From a run's data in memory (no file is read).
    pub fn from_run(out: &RunRest) -> RunCharts {
        let title = out.title.to_string();
        let (r, w) = (out.result, out.workload);
        let mut waits = Vec::new();
        let mut jcts = Vec::new();
        for (j, rec) in w.jobs.iter().zip(&r.jobs).filter(|(_, rec)| rec.submitted) {
            if let Some(s) = rec.start {
                waits.push(s.since(j.submit).hours_f64());
            }
            if let (JobOutcome::Completed, Some(e)) = (rec.outcome, rec.end) {
                jcts.push(e.since(j.submit).hours_f64());
            }
        }
        let n = r.pools.len();
        let bills = out.ledger.by_pool_and_kind(n);
        let pool = |k: CostKind, p: usize| bills[p][k as usize + 1];
        RunCharts {
            timeline: Some(timeline_of(out)),
            costs: Some(Costs {
                title: title.clone(),
                pools: r.pools.iter().map(|p| p.name.clone()).collect(),
                busy: (0..n)
                    .map(|p| cents(pool(CostKind::BusyCompute, p)))
                    .collect(),
                idle: (0..n)
                    .map(|p| cents(pool(CostKind::IdleCompute, p)))
                    .collect(),
            }),
            cdf: Some(Cdf {
                title: title.clone(),
                series: vec![
                    Distribution::of("wait", waits),
                    Distribution::of("JCT", jcts),
                ],
            }),
            title,
        }
    }

    /// From a run folder's files (for `gpufleet plot`): `summary.json`, and where present
    /// `timeline.csv`, `pools.csv` and the two time columns of `jobs.csv`, each streamed.
    pub fn from_dir(dir: &Path) -> Result<RunCharts, ChartError> {
        let summary = read_json(dir, "summary.json")?;
        let title = summary["scenario"].as_str().unwrap_or("run").to_string();
        // Each table from its CSV or, in a Parquet-only folder, its Parquet copy; a folder
        // with neither is an error, not a chart quietly left out.
        let timeline = Some(read_timeline(dir)?);
        let costs = {
            let mut t =
                FolderTable::open(dir, "pools", &["pool", "busy_cost_usd", "idle_cost_usd"])?
                    .numbers(&[1, 2]);
            let mut c = Costs {
                title: title.clone(),
                pools: Vec::new(),
                busy: Vec::new(),
                idle: Vec::new(),
            };
            while let Some(rec) = t.next_row()? {
                let num = |k: usize| rec.get(k).and_then(|x| x.parse().ok()).unwrap_or(0.0);
                c.pools.push(rec.get(0).unwrap_or("").to_string());
                c.busy.push(num(1));
                c.idle.push(num(2));
            }
            Some(c)
        };
        let cdf = {
            let mut t = FolderTable::open(dir, "jobs", &["wait_s", "jct_s"])?.numbers(&[0, 1]);
            let (mut waits, mut jcts) = (Vec::new(), Vec::new());
            while let Some(rec) = t.next_row()? {
                let num = |k: usize| rec.get(k).and_then(|x| x.parse::<f64>().ok());
                waits.extend(num(0).map(|s| s / 3600.0));
                jcts.extend(num(1).map(|s| s / 3600.0));
            }
            Some(Cdf {
                title: title.clone(),
                series: vec![
                    Distribution::of("wait", waits),
                    Distribution::of("JCT", jcts),
                ],
            })
        };
        Ok(RunCharts {
            title,
            timeline,
            costs,
            cdf,
        })
    }
}

/// Dollars rounded to the cent, as `pools.csv` has them (so a redrawn chart is the same).
fn cents(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Draws the charts of `data` into `dir`; returns the files written.
pub fn plot_run(dir: &Path, data: &RunCharts) -> Result<Vec<PathBuf>, ChartError> {
    let mut out = Vec::new();
    if let Some(tl) = data.timeline.as_ref().filter(|t| !t.rows.is_empty()) {
        out.extend(render(dir, "timeline", &Gpus(tl, &data.title))?);
        out.extend(render(dir, "queue", &Queue(tl, &data.title))?);
    }
    if let Some(c) = &data.costs {
        out.extend(render(dir, "cost", c)?);
    }
    if let Some(c) = &data.cdf {
        out.extend(render(dir, "cdf", c)?);
    }
    Ok(out)
}

/// Draws every chart of the run folder `dir` from its files; returns the files written.
pub fn plot_run_dir(dir: &Path) -> Result<Vec<PathBuf>, ChartError> {
    plot_run(dir, &RunCharts::from_dir(dir)?)
}

/// Reads the JSON file `name` of the folder `dir`.
pub(super) fn read_json(dir: &Path, name: &'static str) -> Result<serde_json::Value, ChartError> {
    let text =
        crate::workload::read_small_text(&dir.join(name), crate::workload::MAX_DATA_FILE_BYTES)
            .map_err(|source| ChartError::Read { file: name, source })?;
    // Every folder's JSON file is an object: `[]` or `1` drew charts of nothing titled
    // "run" with exit 0.
    serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&text)
        .map(serde_json::Value::Object)
        .map_err(|source| ChartError::Json { file: name, source })
}
