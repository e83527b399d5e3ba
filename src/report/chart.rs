//! Charts of a run, drawn with plotters into SVG text.

use crate::sim::RunResult;
use plotters::prelude::*;

/// GPUs busy and provisioned over time (all pools stacked by pool), and the queue length.
pub fn timeline_chart(r: &RunResult, title: &str) -> String {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 480)).into_drawing_area();
        let _ = draw(&root, r, title);
        let _ = root.present();
    }
    svg
}

fn draw(
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    r: &RunResult,
    title: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    root.fill(&WHITE)?;
    let t_max = r
        .timeline
        .last()
        .map(|row| row.time.hours_f64())
        .unwrap_or(1.0)
        .max(1e-3);
    let gpus: f64 = r.pools.iter().map(|p| p.gpus as f64).sum::<f64>().max(1.0);
    let mut chart = ChartBuilder::on(root)
        .caption(
            format!("{title}: GPUs busy by pool over time"),
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..t_max, 0.0..gpus * 1.05)?;
    chart
        .configure_mesh()
        .x_desc("simulated time (hours)")
        .y_desc("GPUs")
        .draw()?;
    let colors = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];
    let mut below = vec![0.0f64; r.timeline.len()];
    for (p, pool) in r.pools.iter().enumerate() {
        let color = colors[p % colors.len()];
        let pts: Vec<(f64, f64)> = r
            .timeline
            .iter()
            .enumerate()
            .map(|(i, row)| {
                below[i] += row.pools[p].0 as f64 / 1000.0;
                (row.time.hours_f64(), below[i])
            })
            .collect();
        chart
            .draw_series(LineSeries::new(pts, color.stroke_width(2)))?
            .label(format!("busy, cumulative to {}", pool.name))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    let cap: Vec<(f64, f64)> = vec![(0.0, gpus), (t_max, gpus)];
    chart
        .draw_series(LineSeries::new(cap, BLACK.stroke_width(1)))?
        .label("provisioned GPUs")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()?;
    Ok(())
}
