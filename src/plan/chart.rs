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
        let xs = self.points.iter().map(|p| p.x).chain([self.bound]);
        let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
        let (y0, y1) = self
            .points
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.y), b.max(p.y)));
        let xpad = ((x1 - x0) * 0.08).max(1e-6);
        let ypad = ((y1 - y0) * 0.12).max(1.0);
        let x_lo = if x0 >= 0.0 { 0.0 } else { x0 - xpad };
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, 20))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(95)
            .build_cartesian_2d(x_lo..x1 + xpad * 3.0, (y0 - ypad).max(0.0)..y1 + ypad * 2.0)?;
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
                    .filter(|p| !p.feasible)
                    .map(|p| Circle::new((p.x, p.y), 3, grey.filled())),
            )?
            .label("fleet evaluated, misses a target")
            .legend(move |(x, y)| Circle::new((x + 10, y), 3, grey.filled()));
        chart
            .draw_series(
                self.points
                    .iter()
                    .filter(|p| p.feasible)
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
        let top = y1 + ypad * 2.0;
        let bottom = (y0 - ypad).max(0.0);
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
        // Labels of the frontier's points (at most 14, alternating above and below).
        let mut labelled: Vec<usize> = self.front.clone();
        labelled.sort_by(|&a, &b| self.points[a].x.total_cmp(&self.points[b].x));
        let stride = labelled.len().div_ceil(14).max(1);
        for (n, &i) in labelled.iter().enumerate().filter(|(n, _)| n % stride == 0) {
            let p = &self.points[i];
            let dy = if n % 2 == 0 { -18 } else { 8 };
            chart.draw_series([EmptyElement::at((p.x, p.y))
                + Text::new(p.label.clone(), (6, dy), (FONT, 12).into_font())])?;
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
