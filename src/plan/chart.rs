//! The frontier chart (`frontier.svg`, `frontier.png`): every fleet evaluated as cost
//! against the first target's figure, the frontier joined and labelled with its decision
//! values in words, the target's bound drawn as a line, the recommendation marked.

use super::answer::service;
use super::eval::{Evaluator, Status};
use super::types::{Bound, PlanSpec, Unit};
use crate::report::{render, Chart, ChartError, DrawResult};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

const FONT: &str = "sans-serif";

struct Point {
    x: f64,
    y: f64,
    feasible: bool,
    label: String,
}

struct Frontier {
    title: String,
    x_name: String,
    y_name: String,
    points: Vec<Point>,
    front: Vec<usize>,
    best: Option<usize>,
    bound: f64,
    bound_name: String,
}

/// Scale and axis name for the first target's unit.
fn x_scale(spec: &PlanSpec) -> (f64, String) {
    let t = &spec.targets[0];
    match t.unit {
        Unit::Seconds if t.bound.value().abs() >= 3_600.0 => {
            (1.0 / 3_600.0, format!("{} (hours)", t.label))
        }
        Unit::Seconds if t.bound.value().abs() >= 60.0 => {
            (1.0 / 60.0, format!("{} (minutes)", t.label))
        }
        Unit::Seconds => (1.0, format!("{} (seconds)", t.label)),
        Unit::Share => (100.0, format!("{} (% of jobs)", t.label)),
        Unit::Dollars => (1.0, format!("{} (US dollars)", t.label)),
        Unit::Number => (1.0, t.label.clone()),
    }
}

/// Draws the frontier chart into `out`.
pub fn draw(out: &Path, spec: &PlanSpec, ev: &Evaluator) -> Result<Vec<PathBuf>, ChartError> {
    let (scale, x_name) = x_scale(spec);
    let sign = match spec.targets[0].bound {
        Bound::Max(_) => 1.0,
        Bound::Min(_) => -1.0,
    };
    let mut cands: Vec<_> = ev
        .cache
        .values()
        .filter(|c| c.status == Status::Ran && !c.reps.is_empty())
        .collect();
    cands.sort_by_key(|c| c.index);
    let points: Vec<Point> = cands
        .iter()
        .map(|c| Point {
            x: sign * service(spec, c) * scale,
            y: c.mean_cost(),
            feasible: c.feasible(spec),
            label: spec.describe_short(&c.fleet),
        })
        .collect();
    let xy: Vec<(f64, f64)> = cands
        .iter()
        .map(|c| (service(spec, c), c.mean_cost()))
        .collect();
    let front = crate::report::pareto_front(&xy);
    let best = ev
        .best()
        .and_then(|b| cands.iter().position(|c| c.index == b.index));
    let t = &spec.targets[0];
    let chart = Frontier {
        title: format!("{}: cost versus {}", spec.name, t.label),
        x_name,
        y_name: format!(
            "{} {} (US dollars)",
            spec.objective.metric,
            spec.objective.period_words()
        ),
        points,
        front,
        best,
        bound: t.bound.value() * scale,
        bound_name: format!("target: {} {} {}", t.label, t.bound.op(), t.bound_text),
    };
    render(out, "frontier", &chart)
}

impl Chart for Frontier {
    fn size(&self) -> (u32, u32) {
        (1100, 650)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        // The axes cover the frontier and the bound (up to 4 bounds), not every far fleet.
        let front_pts = || self.front.iter().map(|&i| &self.points[i]);
        let fx1 = front_pts().map(|p| p.x).fold(self.bound, f64::max);
        let x_cap = if self.bound > 0.0 {
            fx1.min(self.bound * 4.0)
        } else {
            fx1
        };
        let (x0, x1) = front_pts()
            .map(|p| p.x)
            .chain([self.bound])
            .fold((f64::MAX, f64::MIN), |(a, b), x| {
                (a.min(x), b.max(x.min(x_cap)))
            });
        let xpad = ((x1 - x0) * 0.08).max(1e-6);
        let x_hi = x1 + xpad * 3.0;
        // The frontier by increasing x, cut where it leaves the axes.
        let mut line: Vec<(f64, f64)> = front_pts().map(|p| (p.x, p.y)).collect();
        line.sort_by(|a, b| a.0.total_cmp(&b.0));
        if let Some(k) = line.iter().position(|p| p.0 > x_hi) {
            if k > 0 {
                let (a, b) = (line[k - 1], line[k]);
                let y = a.1 + (b.1 - a.1) * (x_hi - a.0) / (b.0 - a.0);
                line.truncate(k);
                line.push((x_hi, y));
            } else {
                line.clear();
            }
        }
        let (y0, y1) = line
            .iter()
            .map(|p| p.1)
            .chain(self.best.map(|b| self.points[b].y))
            .fold((f64::MAX, f64::MIN), |(a, b), y| (a.min(y), b.max(y)));
        // No frontier in view (nothing meets the target): the fleets in view, or all.
        let span = |it: &mut dyn Iterator<Item = f64>| {
            it.filter(|y| y.is_finite())
                .fold((f64::MAX, f64::MIN), |(a, b), y| (a.min(y), b.max(y)))
        };
        let (y0, y1) = if y0 <= y1 {
            (y0, y1)
        } else {
            match span(&mut self.points.iter().filter(|p| p.x <= x_hi).map(|p| p.y)) {
                (a, b) if a <= b => (a, b),
                _ => match span(&mut self.points.iter().map(|p| p.y)) {
                    (a, b) if a <= b => (a, b),
                    _ => (0.0, 1.0),
                },
            }
        };
        let ypad = ((y1 - y0) * 0.12).max(1.0);
        let x_lo = if x0 >= 0.0 { 0.0 } else { x0 - xpad };
        let (y_lo, y_hi) = ((y0 - ypad).max(0.0), y1 + ypad * 3.0);
        let shown = |p: &Point| p.x >= x_lo && p.x <= x_hi && p.y >= y_lo && p.y <= y_hi;
        let hidden = self.points.iter().filter(|p| !shown(p)).count();
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, 20))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(95)
            .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)?;
        chart
            .configure_mesh()
            .x_desc(&self.x_name)
            .y_desc(&self.y_name)
            .label_style((FONT, 14))
            .y_label_formatter(&|v| super::text::dollars(*v))
            .draw()?;
        let grey = RGBColor(150, 150, 150);
        let blue = RGBColor(31, 119, 180);
        let red = RGBColor(214, 39, 40);
        let green = RGBColor(44, 160, 44);
        chart
            .draw_series(
                self.points
                    .iter()
                    .filter(|p| !p.feasible && shown(p))
                    .map(|p| Circle::new((p.x, p.y), 3, grey.filled())),
            )?
            .label(if hidden > 0 {
                format!("fleet evaluated, misses a target ({hidden} fleets off the axes)")
            } else {
                "fleet evaluated, misses a target".to_string()
            })
            .legend(move |(x, y)| Circle::new((x + 10, y), 3, grey.filled()));
        chart
            .draw_series(
                self.points
                    .iter()
                    .filter(|p| p.feasible && shown(p))
                    .map(|p| Circle::new((p.x, p.y), 4, blue.filled())),
            )?
            .label("fleet evaluated, meets every target")
            .legend(move |(x, y)| Circle::new((x + 10, y), 4, blue.filled()));
        let mut line: Vec<(f64, f64)> = self
            .front
            .iter()
            .map(|&i| (self.points[i].x, self.points[i].y))
            .collect();
        line.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart
            .draw_series(LineSeries::new(line, red.stroke_width(2)))?
            .label("frontier: no fleet is both cheaper and better")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], red.stroke_width(2)));
        let (top, bottom) = (y_hi, y_lo);
        let dash: Vec<(f64, f64)> = (0..40)
            .flat_map(|i| {
                let a = bottom + (top - bottom) * i as f64 / 40.0;
                let b = bottom + (top - bottom) * (i as f64 + 0.5) / 40.0;
                [(self.bound, a), (self.bound, b)]
            })
            .collect();
        chart
            .draw_series(
                dash.chunks(2)
                    .map(|s| PathElement::new(s.to_vec(), BLACK.stroke_width(2))),
            )?
            .label(self.bound_name.as_str())
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.stroke_width(2)));
        if let Some(b) = self.best {
            let p = &self.points[b];
            chart
                .draw_series([Circle::new((p.x, p.y), 8, green.stroke_width(3))])?
                .label(format!("recommended: {}", p.label))
                .legend(move |(x, y)| Circle::new((x + 10, y), 6, green.stroke_width(3)));
        }
        // Labels of the frontier's points, placed where they overlap no label already drawn.
        let mut placed: Vec<(i32, i32, i32, i32)> = Vec::new();
        let (width, height) = root.dim_in_pixel();
        let mut order: Vec<usize> = self
            .front
            .iter()
            .copied()
            .filter(|&i| shown(&self.points[i]))
            .collect();
        order.sort_by_key(|&i| (Some(i) != self.best, i));
        for i in order {
            let p = &self.points[i];
            let (px, py) = chart.backend_coord(&(p.x, p.y));
            let w = (p.label.chars().count() as f64 * 6.6) as i32;
            let h = 14;
            for (dx, dy) in [
                (8, -16),
                (8, 4),
                (-8 - w, -16),
                (-8 - w, 4),
                (8, -30),
                (8, 18),
            ] {
                let b = (px + dx, py + dy, px + dx + w, py + dy + h);
                let outside =
                    b.0 < 100 || b.2 > width as i32 - 8 || b.1 < 40 || b.3 > height as i32 - 50;
                let clash = outside
                    || placed
                        .iter()
                        .any(|q| b.0 < q.2 && q.0 < b.2 && b.1 < q.3 && q.1 < b.3);
                if !clash {
                    root.draw(&Text::new(
                        p.label.clone(),
                        (b.0, b.1),
                        (FONT, 12).into_font(),
                    ))?;
                    placed.push(b);
                    break;
                }
            }
        }
        chart
            .configure_series_labels()
            .label_font((FONT, 13))
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
        Ok(())
    }
}
