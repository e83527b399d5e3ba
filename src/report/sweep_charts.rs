//! Charts of a sweep, drawn from `points.csv` and `sweep.json`: a metric against a
//! parameter with its 95 % confidence band (one line per value of a second parameter),
//! a heatmap over two parameters, bars comparing the values of a categorical parameter
//! (policies), cost against p95 wait with the Pareto front, and (from `distributions.csv`)
//! the points' pooled JCT and queueing-delay CDFs overlaid.

use super::data::Table;
use super::render::{
    color, font, legend_box, legend_line, render, tick, Chart, ChartError, DrawResult,
};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// A swept parameter as seen in `points.csv`.
struct Param {
    name: String,
    col: usize,
    /// Distinct values in order (numeric order when all are numbers).
    values: Vec<String>,
    numeric: bool,
}

fn params_of(t: &Table, names: &[String], labels: &[String]) -> Result<Vec<Param>, ChartError> {
    names
        .iter()
        .enumerate()
        .map(|(k, n)| {
            let col = t.need(n, "points.csv")?;
            let mut values: Vec<String> = Vec::new();
            for i in 0..t.rows.len() {
                let v = t.text(i, col);
                if !values.iter().any(|x| x == v) {
                    values.push(v.to_string());
                }
            }
            // Numbers a run could write (not NaN, not infinite) make a numeric axis; other
            // values are categories.
            let numeric = values
                .iter()
                .all(|v| super::data::figure(v).is_ok_and(|x| x.is_some()));
            if numeric {
                values.sort_by(|a, b| {
                    a.parse::<f64>()
                        .unwrap_or(0.0)
                        .total_cmp(&b.parse::<f64>().unwrap_or(0.0))
                });
            }
            Ok(Param {
                name: labels.get(k).cloned().unwrap_or_else(|| n.clone()),
                col,
                values,
                numeric,
            })
        })
        .collect()
}

/// Units of a metric, for axis labels.
fn unit(metric: &str) -> &'static str {
    if metric.contains("usd") {
        "US dollars"
    } else if metric.ends_with("_s") || metric.contains("_s_") || metric.contains("hours") {
        "hours"
    } else if metric.contains("utilization") {
        "fraction"
    } else {
        "count"
    }
}

/// Seconds become hours on charts.
fn scale(metric: &str) -> f64 {
    if metric.contains("_s_") || metric.ends_with("_s") {
        1.0 / 3600.0
    } else {
        1.0
    }
}

/// Rows where every parameter outside `free` has its first value.
fn base_rows(t: &Table, ps: &[Param], free: &[usize]) -> Vec<usize> {
    (0..t.rows.len())
        .filter(|&i| {
            ps.iter()
                .enumerate()
                .all(|(k, p)| free.contains(&k) || t.text(i, p.col) == p.values[0])
        })
        .collect()
}

fn others_note(ps: &[Param], free: &[usize]) -> String {
    let fixed: Vec<String> = ps
        .iter()
        .enumerate()
        .filter(|(k, p)| !free.contains(k) && p.values.len() > 1)
        .map(|(_, p)| format!("{}={}", p.name, p.values[0]))
        .collect();
    if fixed.is_empty() {
        String::new()
    } else {
        format!(" ({})", fixed.join(", "))
    }
}

/// A labelled line of (x, mean, CI half-width) points.
type Series = (String, Vec<(f64, f64, f64)>);

struct Lines {
    title: String,
    x_name: String,
    y_name: String,
    /// (label, points (x, mean, ci)).
    series: Vec<Series>,
}

impl Chart for Lines {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let all = self.series.iter().flat_map(|s| s.1.iter());
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, m, c) in all {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(m - c);
            y1 = y1.max(m + c);
        }
        if x0 >= x1 {
            x1 = x0 + 1.0;
        }
        let pad = ((y1 - y0) * 0.08).max(1e-9);
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, font(20))
            .margin(14)
            .x_label_area_size(45)
            .y_label_area_size(80)
            // Headroom above the lines for the legend; no band below zero (every metric
            // charted is a count, a time, a fraction or a cost).
            .build_cartesian_2d(x0..x1, (y0 - pad).max(0.0)..y1 + (y1 - y0 + pad) * 0.45)?;
        chart
            .configure_mesh()
            .x_desc(&self.x_name)
            .y_desc(&self.y_name)
            .label_style(font(14))
            .y_label_formatter(&tick)
            .draw()?;
        for (i, (label, pts)) in self.series.iter().enumerate() {
            let c = color(i);
            let mut band: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, p.1 + p.2)).collect();
            band.extend(pts.iter().rev().map(|p| (p.0, (p.1 - p.2).max(0.0))));
            chart.draw_series(std::iter::once(Polygon::new(band, c.mix(0.2).filled())))?;
            chart
                .draw_series(LineSeries::new(
                    pts.iter().map(|p| (p.0, p.1)),
                    c.stroke_width(2),
                ))?
                .label(label.as_str())
                .legend(legend_line(c));
            chart.draw_series(pts.iter().map(|p| Circle::new((p.0, p.1), 3, c.filled())))?;
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

struct Heatmap {
    title: String,
    x: (String, Vec<String>),
    y: (String, Vec<String>),
    metric: String,
    /// cells[xi][yi] = mean.
    cells: Vec<Vec<Option<f64>>>,
}

fn viridis(t: f64) -> RGBColor {
    // A few stops of matplotlib's viridis, linearly interpolated.
    const S: [(f64, f64, f64); 5] = [
        (68.0, 1.0, 84.0),
        (59.0, 82.0, 139.0),
        (33.0, 145.0, 140.0),
        (94.0, 201.0, 98.0),
        (253.0, 231.0, 37.0),
    ];
    let t = t.clamp(0.0, 1.0) * 4.0;
    let i = (t.floor() as usize).min(3);
    let f = t - i as f64;
    let (a, b) = (S[i], S[i + 1]);
    let mix = |x: f64, y: f64| (x + (y - x) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

impl Chart for Heatmap {
    fn size(&self) -> (u32, u32) {
        // Wider for many or long category names.
        ((240 + self.x.1.len() * 120).max(960) as u32, 600)
    }
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let (main, bar) = root.split_horizontally(self.size().0 - 140);
        let vals: Vec<f64> = self.cells.iter().flatten().flatten().copied().collect();
        let lo = vals.iter().copied().fold(f64::MAX, f64::min);
        let hi = vals.iter().copied().fold(f64::MIN, f64::max);
        let span = if hi > lo { hi - lo } else { 1.0 };
        let (nx, ny) = (self.x.1.len(), self.y.1.len());
        let (xl, yl) = (self.x.1.clone(), self.y.1.clone());
        let mut chart = ChartBuilder::on(&main)
            .caption(&self.title, font(20))
            .margin(14)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d(
                (0..nx.saturating_sub(1)).into_segmented(),
                (0..ny.saturating_sub(1)).into_segmented(),
            )?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc(&self.x.0)
            .y_desc(&self.y.0)
            .label_style(font(14))
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => xl.get(*i).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .y_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => yl.get(*i).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .draw()?;
        for xi in 0..nx {
            for yi in 0..ny {
                let Some(v) = self.cells[xi][yi] else {
                    continue;
                };
                let t = (v - lo) / span;
                chart.draw_series(std::iter::once(Rectangle::new(
                    [
                        (SegmentValue::Exact(xi), SegmentValue::Exact(yi)),
                        (SegmentValue::Exact(xi + 1), SegmentValue::Exact(yi + 1)),
                    ],
                    viridis(t).filled(),
                )))?;
                let txt = if t > 0.6 { BLACK } else { WHITE };
                chart.draw_series(std::iter::once(Text::new(
                    short(v),
                    (SegmentValue::CenterOf(xi), SegmentValue::CenterOf(yi)),
                    font(13)
                        .color(&txt)
                        .pos(plotters::style::text_anchor::Pos::new(
                            plotters::style::text_anchor::HPos::Center,
                            plotters::style::text_anchor::VPos::Center,
                        )),
                )))?;
            }
        }
        // Colour bar as the legend.
        let mut cb = ChartBuilder::on(&bar)
            .margin_top(60)
            .margin_bottom(60)
            .margin_right(10)
            .y_label_area_size(70)
            .set_label_area_size(LabelAreaPosition::Right, 0)
            .build_cartesian_2d(0.0..1.0, lo..lo + span)?;
        cb.configure_mesh()
            .disable_mesh()
            .disable_x_axis()
            .y_desc(format!("{} ({})", self.metric, unit(&self.metric)))
            .label_style(font(12))
            .y_label_formatter(&tick)
            .y_labels(6)
            .draw()?;
        cb.draw_series((0..100).map(|i| {
            let a = lo + span * i as f64 / 100.0;
            let b = lo + span * (i + 1) as f64 / 100.0;
            Rectangle::new([(0.0, a), (1.0, b)], viridis(i as f64 / 99.0).filled())
        }))?;
        Ok(())
    }
}

fn short(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.2}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// Bars with 95 % interval whiskers, one group per value of a second parameter (also the
/// bars of a comparison, one group).
pub(super) struct Bars {
    pub(super) title: String,
    pub(super) x_name: String,
    pub(super) y_name: String,
    pub(super) labels: Vec<String>,
    /// One group of bars per value of a second parameter: (legend, (mean, ci) per label).
    pub(super) groups: Vec<(String, Vec<(f64, f64)>)>,
}

impl Bars {
    fn plot_width(&self) -> u32 {
        self.size().0 - 80 - 28
    }
}

impl Chart for Bars {
    fn size(&self) -> (u32, u32) {
        // Room for long category names such as "throughput_per_dollar".
        ((120 + self.labels.len() * 150).max(960) as u32, 560)
    }
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let n = self.labels.len();
        let top = self
            .groups
            .iter()
            .flat_map(|g| g.1.iter())
            .map(|v| v.0 + v.1)
            .fold(1e-9, f64::max);
        let labels = self.labels.clone();
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, font(20))
            .margin(14)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d(
                (0..n.saturating_sub(1)).into_segmented(),
                0.0..top * (1.3 + 0.12 * self.groups.len() as f64),
            )?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc(&self.x_name)
            .y_desc(&self.y_name)
            .label_style(font(14))
            .y_label_formatter(&tick)
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .draw()?;
        // Bars of group j sit side by side inside each category's segment.
        let seg = self.plot_width() / n.max(1) as u32;
        let m = self.groups.len().max(1) as u32;
        let pad = seg / 8;
        let bw = (seg - 2 * pad) / m;
        for (j, (legend, values)) in self.groups.iter().enumerate() {
            let c = color(j);
            let (l, r) = (
                pad + j as u32 * bw,
                seg.saturating_sub(pad + (j as u32 + 1) * bw),
            );
            chart
                .draw_series(values.iter().enumerate().map(|(i, v)| {
                    let mut rect = Rectangle::new(
                        [
                            (SegmentValue::Exact(i), 0.0),
                            (SegmentValue::Exact(i + 1), v.0),
                        ],
                        c.filled(),
                    );
                    rect.set_margin(0, 0, l, r + 2);
                    rect
                }))?
                .label(legend.as_str())
                .legend(legend_box(c));
            // The CI whisker at the bar's centre, in pixels from the segment's left edge.
            let centre = (l + (seg - r)) / 2;
            chart.draw_series(values.iter().enumerate().map(|(i, v)| {
                let mut w = Rectangle::new(
                    [
                        (SegmentValue::Exact(i), (v.0 - v.1).max(0.0)),
                        (SegmentValue::Exact(i + 1), v.0 + v.1),
                    ],
                    BLACK.filled(),
                );
                w.set_margin(
                    0,
                    0,
                    centre.saturating_sub(1),
                    seg.saturating_sub(centre + 1),
                );
                w
            }))?;
        }
        chart
            .draw_series(std::iter::empty::<Circle<(SegmentValue<usize>, f64), i32>>())?
            .label("95 % confidence interval (whisker)")
            .legend(legend_line(RGBColor(0, 0, 0)));
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

struct Pareto {
    title: String,
    /// (wait hours, cost, label).
    points: Vec<(f64, f64, String)>,
}

/// Indices of the points no other point beats on both wait and cost, by increasing wait.
pub fn pareto_front(points: &[(f64, f64)]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..points.len()).collect();
    idx.sort_by(|&a, &b| {
        points[a]
            .0
            .total_cmp(&points[b].0)
            .then(points[a].1.total_cmp(&points[b].1))
    });
    let mut best = f64::INFINITY;
    let mut out = Vec::new();
    for i in idx {
        if points[i].1 < best {
            best = points[i].1;
            out.push(i);
        }
    }
    out
}

impl Chart for Pareto {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let xy: Vec<(f64, f64)> = self.points.iter().map(|p| (p.0, p.1)).collect();
        let front = pareto_front(&xy);
        let x1 = xy.iter().map(|p| p.0).fold(1e-6, f64::max);
        let y0 = xy.iter().map(|p| p.1).fold(f64::MAX, f64::min);
        let y1 = xy.iter().map(|p| p.1).fold(f64::MIN, f64::max);
        let pad = ((y1 - y0) * 0.1).max(1.0);
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, font(20))
            .margin(14)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d(0.0..x1 * 1.1, (y0 - pad).max(0.0)..y1 + pad * 2.0)?;
        chart
            .configure_mesh()
            .x_desc("p95 wait (hours, mean over seeds)")
            .y_desc("total cost (US dollars, mean over seeds)")
            .label_style(font(14))
            .y_label_formatter(&tick)
            .draw()?;
        let grey = color(7);
        chart
            .draw_series(xy.iter().map(|&p| Circle::new(p, 4, grey.filled())))?
            .label("sweep points")
            .legend(move |(x, y)| Circle::new((x + 10, y), 4, grey.filled()));
        let red = color(3);
        chart
            .draw_series(LineSeries::new(
                front.iter().map(|&i| xy[i]),
                red.stroke_width(2),
            ))?
            .label("Pareto front (no point is cheaper and faster)")
            .legend(legend_line(red));
        chart.draw_series(front.iter().map(|&i| Circle::new(xy[i], 5, red.filled())))?;
        if front.len() <= 10 {
            chart.draw_series(
                front
                    .iter()
                    .map(|&i| Text::new(self.points[i].2.clone(), (xy[i].0, xy[i].1), font(11))),
            )?;
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

/// Draws the charts of the sweep folder `dir`; returns the files written.
pub fn plot_sweep_dir(dir: &Path) -> Result<Vec<PathBuf>, ChartError> {
    let m = super::run_charts::read_json(dir, "sweep.json")?;
    let strings = |k: &str| -> Vec<String> {
        m[k].as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let name = m["sweep"].as_str().unwrap_or("sweep").to_string();
    let t = Table::read(&dir.join("points.csv"))?;
    let ps = params_of(&t, &strings("params"), &strings("labels"))?;
    let varying: Vec<usize> = (0..ps.len()).filter(|&k| ps[k].values.len() > 1).collect();
    let mut out = Vec::new();
    let mut metrics = strings("chart_metrics");
    metrics.retain(|mm| {
        let known = t.col(&format!("{mm}_mean")).is_some();
        if !known {
            // Not dropped silently: a misspelt `[charts] metrics` entry draws nothing.
            tracing::warn!(
                "charts.metrics: {mm:?} is not a figure of points.csv (a column {mm}_mean), so it is not charted"
            );
        }
        known
    });
    // Every figure charted is checked first: a cell changed by hand is named, not drawn
    // as 0 or as an endless axis.
    let mut charted = Vec::new();
    for metric in &metrics {
        charted.push(t.need(&format!("{metric}_mean"), "points.csv")?);
        charted.push(t.need(&format!("{metric}_ci95"), "points.csv")?);
    }
    charted.extend(t.col("wait_s_p95_mean"));
    charted.extend(t.col("cost_usd_total_mean"));
    t.check_numbers(Path::new("points.csv"), &charted)?;
    for metric in &metrics {
        let cm = t.need(&format!("{metric}_mean"), "points.csv")?;
        let cc = t.need(&format!("{metric}_ci95"), "points.csv")?;
        let sc = scale(metric);
        let ylab = format!("{metric} ({})", unit(metric));
        let get = |i: usize| {
            (
                t.num(i, cm).unwrap_or(0.0) * sc,
                t.num(i, cc).unwrap_or(0.0) * sc,
            )
        };
        // Metric against the first numeric varying parameter, one line per second parameter.
        if let Some(&kx) = varying.iter().find(|&&k| ps[k].numeric) {
            let ks = varying.iter().copied().find(|&k| k != kx);
            let free: Vec<usize> = std::iter::once(kx).chain(ks).collect();
            let rows = base_rows(&t, &ps, &free);
            let groups: Vec<String> = match ks {
                Some(k) => ps[k].values.clone(),
                None => vec![String::new()],
            };
            let mut series = Vec::new();
            // As many lines as the palette tells apart; the title says when some are left out.
            let most = super::compare_charts::MAX_CDF_SERIES;
            let shown = if groups.len() > most {
                format!(", first {most} of {} lines", groups.len())
            } else {
                String::new()
            };
            for g in groups.iter().take(most) {
                let mut pts: Vec<(f64, f64, f64)> = rows
                    .iter()
                    .filter(|&&i| ks.is_none_or(|k| t.text(i, ps[k].col) == g))
                    .map(|&i| {
                        let (mu, ci) = get(i);
                        (t.num(i, ps[kx].col).unwrap_or(0.0), mu, ci)
                    })
                    .collect();
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                let label = match ks {
                    Some(k) => format!("{} = {g}", ps[k].name),
                    None => "mean over seeds".to_string(),
                };
                series.push((label, pts));
            }
            out.extend(render(
                dir,
                &format!("line-{metric}"),
                &Lines {
                    title: format!(
                        "{name}: {metric} vs {}, 95 % CI band{}{shown}",
                        ps[kx].name,
                        others_note(&ps, &free)
                    ),
                    x_name: ps[kx].name.clone(),
                    y_name: ylab.clone(),
                    series,
                },
            )?);
        }
        // Heatmap over the first two varying parameters.
        if varying.len() >= 2 {
            let (kx, ky) = (varying[0], varying[1]);
            let rows = base_rows(&t, &ps, &[kx, ky]);
            let mut cells = vec![vec![None; ps[ky].values.len()]; ps[kx].values.len()];
            for &i in &rows {
                let xi = ps[kx]
                    .values
                    .iter()
                    .position(|v| v == t.text(i, ps[kx].col));
                let yi = ps[ky]
                    .values
                    .iter()
                    .position(|v| v == t.text(i, ps[ky].col));
                if let (Some(xi), Some(yi)) = (xi, yi) {
                    cells[xi][yi] = Some(get(i).0);
                }
            }
            out.extend(render(
                dir,
                &format!("heatmap-{metric}"),
                &Heatmap {
                    title: format!(
                        "{name}: mean {metric} ({}){}",
                        unit(metric),
                        others_note(&ps, &[kx, ky])
                    ),
                    x: (ps[kx].name.clone(), ps[kx].values.clone()),
                    y: (ps[ky].name.clone(), ps[ky].values.clone()),
                    metric: metric.clone(),
                    cells,
                },
            )?);
        }
        // Bars for a categorical parameter (such as the scheduling policy), grouped by a
        // second varying parameter.
        if let Some(&kc) = varying.iter().find(|&&k| !ps[k].numeric) {
            let kg = varying.iter().copied().find(|&k| k != kc);
            let free: Vec<usize> = std::iter::once(kc).chain(kg).collect();
            let rows = base_rows(&t, &ps, &free);
            let labels = ps[kc].values.clone();
            let group_values: Vec<Option<String>> = match kg {
                Some(k) => ps[k].values.iter().take(6).cloned().map(Some).collect(),
                None => vec![None],
            };
            let groups = group_values
                .iter()
                .map(|g| {
                    let legend = match (kg, g) {
                        (Some(k), Some(g)) => format!("{} = {g}", ps[k].name),
                        _ => "mean over seeds".to_string(),
                    };
                    let values = labels
                        .iter()
                        .map(|l| {
                            rows.iter()
                                .find(|&&i| {
                                    t.text(i, ps[kc].col) == l
                                        && kg
                                            .zip(g.as_ref())
                                            .is_none_or(|(k, g)| t.text(i, ps[k].col) == g)
                                })
                                .map(|&i| get(i))
                                .unwrap_or((0.0, 0.0))
                        })
                        .collect();
                    (legend, values)
                })
                .collect();
            out.extend(render(
                dir,
                &format!("bars-{metric}"),
                &Bars {
                    title: format!(
                        "{name}: {metric} by {}{}",
                        ps[kc].name,
                        others_note(&ps, &free)
                    ),
                    x_name: ps[kc].name.clone(),
                    y_name: ylab.clone(),
                    labels,
                    groups,
                },
            )?);
        }
    }
    // A sweep writes `distributions.csv` exactly when its points have pooled quantiles;
    // without it the CDF charts of an earlier plot would stay as if redrawn.
    let (d0, q0) = (
        crate::metrics::DISTRIBUTIONS[0],
        crate::metrics::POOLED_QUANTILES[0].1,
    );
    let pooled = t.col(&format!("{d0}_pooled_{q0}")).is_some();
    if pooled && !dir.join("distributions.csv").is_file() {
        return Err(ChartError::Read {
            file: "distributions.csv",
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "missing, though points.csv has pooled quantiles (changed by hand? rerun the sweep to rewrite it)",
            ),
        });
    }
    if pooled {
        let cp = t.need("point", "points.csv")?;
        let legends: Vec<(String, String)> = (0..t.rows.len())
            .map(|i| {
                let words: Vec<String> = varying
                    .iter()
                    .map(|&k| format!("{} = {}", ps[k].name, t.text(i, ps[k].col)))
                    .collect();
                let p = t.text(i, cp).to_string();
                let legend = if words.is_empty() {
                    format!("point {p}")
                } else {
                    words.join(", ")
                };
                (p, legend)
            })
            .collect();
        let seeds = m["seeds"].as_array().map_or(0, |a| a.len());
        let log_x = m["log_x"].as_bool().unwrap_or(false);
        out.extend(super::compare_charts::plot_point_cdfs(
            dir, &name, seeds, log_x, &legends,
        )?);
    }
    if let (Some(cw), Some(cc)) = (t.col("wait_s_p95_mean"), t.col("cost_usd_total_mean")) {
        let points = (0..t.rows.len())
            .map(|i| {
                let label = ps
                    .iter()
                    .filter(|p| p.values.len() > 1)
                    .map(|p| t.text(i, p.col).to_string())
                    .collect::<Vec<_>>()
                    .join(",");
                (
                    t.num(i, cw).unwrap_or(0.0) / 3600.0,
                    t.num(i, cc).unwrap_or(0.0),
                    label,
                )
            })
            .collect();
        out.extend(render(
            dir,
            "pareto",
            &Pareto {
                title: format!("{name}: cost against p95 wait"),
                points,
            },
        )?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pareto_front_by_hand() {
        // (1,5) (2,3) (3,4) (4,1): (3,4) is beaten by (2,3); the rest form the front.
        let pts = [(1.0, 5.0), (3.0, 4.0), (2.0, 3.0), (4.0, 1.0)];
        assert_eq!(pareto_front(&pts), vec![0, 2, 3]);
    }
}
