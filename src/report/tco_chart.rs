//! The buy-versus-rent charts of `gpufleet tco`: NPV per useful GPU-hour against
//! utilization for each candidate with its break-even point on NPV marked (`tco`), and
//! each candidate's cost year by year stacked by component (`tco_years`), as SVG and PNG.

use super::render::{color, font, legend_line, render, tick, Chart, DrawResult};
use super::ChartError;
use crate::pricing::{TcoSpec, TcoYear};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// Draws `tco.svg`/`.png` and `tco_years.svg`/`.png` into `dir`; `years` holds each
/// candidate's cash flow; returns the paths written.
pub fn write_tco_charts(
    dir: &Path,
    spec: &TcoSpec,
    title: &str,
    years: &[(String, Vec<TcoYear>)],
) -> Result<Vec<PathBuf>, ChartError> {
    let mut out = render(dir, "tco", &BreakEvenChart { spec, title })?;
    out.extend(render(dir, "tco_years", &YearsChart { title, years })?);
    Ok(out)
}

/// NPV per useful GPU-hour against utilization, break-even points marked.
struct BreakEvenChart<'a> {
    spec: &'a TcoSpec,
    title: &'a str,
}

impl Chart for BreakEvenChart<'_> {
    fn size(&self) -> (u32, u32) {
        (960, 560)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let spec = self.spec;
        root.fill(&WHITE)?;
        let us: Vec<f64> = (1..=100).map(|i| i as f64 / 100.0).collect();
        let cands: Vec<_> = spec
            .candidates
            .iter()
            .filter(|c| c.capacity() > 0)
            .collect();
        // The y axis reaches 2.5 times today's on-demand price per GPU-hour, so that the
        // 1/u growth of owned costs at low utilization does not flatten everything else.
        let od = spec.on_demand_per_node_hour / spec.gpus_per_node.max(1) as f64;
        let y_max = (od * 2.5).max(1e-6);
        let mut chart = ChartBuilder::on(root)
            .caption(
                format!("{}: NPV per useful GPU-hour vs utilization", self.title),
                font(20),
            )
            .margin(14)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(0.0..1.0, 0.0..y_max)?;
        chart
            .configure_mesh()
            .x_desc("utilization of the candidate's capacity (flat over the horizon)")
            .y_desc(format!(
                "$ NPV per useful GPU-hour (at {:.0} %/year)",
                spec.discount_rate * 100.0
            ))
            .y_label_formatter(&tick)
            .light_line_style(RGBColor(238, 238, 238))
            .label_style(font(13))
            .axis_desc_style(font(14))
            .draw()?;
        for (i, c) in cands.iter().enumerate() {
            let col = color(i);
            let pts: Vec<(f64, f64)> = us
                .iter()
                .map(|&u| (u, spec.npv_per_gpu_hour_at(c, u)))
                .filter(|(_, y)| y.is_finite())
                .map(|(u, y)| (u, y.min(y_max)))
                .collect();
            chart
                .draw_series(LineSeries::new(pts, col.stroke_width(2)))?
                .label(c.label())
                .legend(legend_line(col));
        }
        // Break-even points on the curves, and their values listed in the free space
        // above the on-demand line (labels beside each point would collide).
        let mut listed = 0;
        for (i, c) in cands.iter().enumerate() {
            let Some(u) = spec.break_even(c) else {
                continue;
            };
            let col = color(i);
            let y = spec.npv_per_gpu_hour_at(c, u.max(0.01)).min(y_max);
            chart.draw_series(std::iter::once(Circle::new((u, y), 6, col.filled())))?;
            chart.draw_series(std::iter::once(Text::new(
                format!("break-even {}: {:.1} %", c.label(), u * 100.0),
                (0.42, y_max * (0.95 - 0.055 * listed as f64)),
                font(14).color(&col),
            )))?;
            listed += 1;
        }
        chart
            .configure_series_labels()
            .label_font(font(13))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
        Ok(())
    }
}

/// A component of a year's cost: its name and how to read it.
type Part = (&'static str, fn(&TcoYear) -> f64);

/// Components of a year's cost, in stacking order, with their names.
const PARTS: [Part; 9] = [
    ("capex (capital recovery)", |y| y.capex),
    ("power", |y| y.power),
    ("colocation", |y| y.colocation),
    ("maintenance", |y| y.maintenance),
    ("staff", |y| y.staff),
    ("rental: on demand", |y| y.on_demand),
    ("rental: reserved", |y| y.reserved),
    ("rental: spot", |y| y.spot),
    ("residual (resale credit)", |y| y.residual),
];

/// Each candidate's yearly cost stacked by component, one panel per candidate.
struct YearsChart<'a> {
    title: &'a str,
    years: &'a [(String, Vec<TcoYear>)],
}

impl YearsChart<'_> {
    fn grid(&self) -> (usize, usize) {
        let n = self.years.len().max(1);
        let cols = n.min(4);
        (cols, n.div_ceil(cols))
    }
}

impl Chart for YearsChart<'_> {
    fn size(&self) -> (u32, u32) {
        let (cols, rows) = self.grid();
        let w = 300 * cols as u32 + 40;
        let legend_rows = PARTS.len().div_ceil(((w - 20) / 240).max(1) as usize) as u32;
        (w, 280 * rows as u32 + 60 + 26 * legend_rows + 18)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let root = root.titled(
            &format!(
                "{}: cost per year by component ($M, undiscounted)",
                self.title
            ),
            font(20),
        )?;
        let (w, h) = root.dim_in_pixel();
        let per_row = ((w.saturating_sub(20)) / 240).max(1) as usize;
        let legend_h = 26 * PARTS.len().div_ceil(per_row) as u32 + 18;
        let (panels, legend) = root.split_vertically(h.saturating_sub(legend_h));
        // One scale for every panel: the highest positive stack and the deepest credit.
        let (mut top, mut bottom) = (0.0f64, 0.0f64);
        for (_, ys) in self.years {
            for y in ys {
                let pos: f64 = PARTS.iter().map(|(_, f)| f(y).max(0.0)).sum();
                let neg: f64 = PARTS.iter().map(|(_, f)| f(y).min(0.0)).sum();
                top = top.max(pos / 1e6);
                bottom = bottom.min(neg / 1e6);
            }
        }
        let top = if top > 0.0 { top * 1.08 } else { 1.0 };
        let bottom = bottom * 1.15;
        let (cols, rows) = self.grid();
        let cells = panels.split_evenly((rows, cols));
        for (k, (name, ys)) in self.years.iter().enumerate() {
            let Some(area) = cells.get(k) else { break };
            let n = ys.len().max(1);
            let mut chart = ChartBuilder::on(area)
                .caption(name, font(15))
                .margin(8)
                .x_label_area_size(28)
                .y_label_area_size(46)
                .build_cartesian_2d(-0.5..n as f64 - 0.5, bottom..top)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .light_line_style(WHITE)
                .x_labels(n + 1)
                .x_label_formatter(&|x| {
                    let k = x.round();
                    if (x - k).abs() < 1e-6 && k >= 0.0 {
                        format!("y{}", k as i64 + 1)
                    } else {
                        String::new()
                    }
                })
                .y_labels(6)
                .y_label_formatter(&|v| format!("{v:.1}"))
                .label_style(font(11))
                .draw()?;
            for (j, y) in ys.iter().enumerate() {
                let x0 = j as f64 - 0.35;
                let x1 = x0 + 0.7 * y.length.clamp(0.05, 1.0);
                let (mut up, mut down) = (0.0, 0.0);
                for (i, (_, f)) in PARTS.iter().enumerate() {
                    let v = f(y) / 1e6;
                    if v == 0.0 {
                        continue;
                    }
                    let (a, b) = if v > 0.0 {
                        let a = up;
                        up += v;
                        (a, up)
                    } else {
                        let a = down;
                        down += v;
                        (down, a)
                    };
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(x0, a), (x1, b)],
                        color(i).filled(),
                    )))?;
                }
            }
        }
        // The shared legend, below the panels.
        for (i, (label, _)) in PARTS.iter().enumerate() {
            let x = 20 + (i % per_row) as i32 * 240;
            let y = 8 + (i / per_row) as i32 * 26;
            legend.draw(&Rectangle::new(
                [(x, y), (x + 14, y + 14)],
                color(i).filled(),
            ))?;
            legend.draw(&Text::new(label.to_string(), (x + 20, y), font(14)))?;
        }
        Ok(())
    }
}
