//! The buy-versus-rent chart: dollars per useful GPU-hour against utilization for each
//! candidate, with each candidate's break-even point against on-demand marked.

use crate::pricing::TcoSpec;
use plotters::prelude::*;

/// The chart as SVG text.
pub fn tco_chart(spec: &TcoSpec, title: &str) -> String {
    super::render::register_fonts();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 520)).into_drawing_area();
        let _ = draw(&root, spec, title);
        let _ = root.present();
    }
    svg
}

fn draw(
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    spec: &TcoSpec,
    title: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    root.fill(&WHITE)?;
    let us: Vec<f64> = (1..=100).map(|i| i as f64 / 100.0).collect();
    let curves: Vec<(String, Vec<(f64, f64)>)> = spec
        .candidates
        .iter()
        .filter(|c| c.capacity() > 0)
        .map(|c| {
            (
                c.label(),
                us.iter()
                    .map(|&u| (u, spec.usd_per_gpu_hour_at(c, u)))
                    .filter(|(_, y)| y.is_finite())
                    .collect(),
            )
        })
        .collect();
    // Scale the y axis to twice the on-demand price so that low-utilization owned costs
    // (which grow as 1/u) do not flatten everything else.
    let od = spec.on_demand_per_node_hour / spec.gpus_per_node.max(1) as f64;
    let y_max = (od * 2.5).max(1e-6);
    let mut chart = ChartBuilder::on(root)
        .caption(
            format!("{title}: $ per useful GPU-hour vs utilization"),
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..1.0, 0.0..y_max)?;
    chart
        .configure_mesh()
        .x_desc("utilization of the candidate's capacity")
        .y_desc("$ per useful GPU-hour (horizon average)")
        .draw()?;
    let colors = [
        BLUE,
        RED,
        GREEN,
        MAGENTA,
        CYAN,
        BLACK,
        RGBColor(255, 140, 0),
        RGBColor(128, 0, 128),
        RGBColor(139, 69, 19),
        RGBColor(128, 128, 0),
    ];
    for (i, (label, pts)) in curves.iter().enumerate() {
        let color = colors[i % colors.len()];
        let clipped: Vec<(f64, f64)> = pts.iter().map(|&(u, y)| (u, y.min(y_max))).collect();
        chart
            .draw_series(LineSeries::new(clipped, color.stroke_width(2)))?
            .label(label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    for (i, c) in spec
        .candidates
        .iter()
        .filter(|c| c.capacity() > 0)
        .enumerate()
    {
        if let Some(u) = spec.break_even(c) {
            let y = spec.usd_per_gpu_hour_at(c, u.max(0.01)).min(y_max);
            let color = colors[i % colors.len()];
            chart.draw_series(std::iter::once(Circle::new((u, y), 6, color.filled())))?;
            // Stagger the labels so that nearby break-even points stay readable.
            let dy = y_max * 0.045 * (1.0 + (i % 4) as f64);
            chart.draw_series(std::iter::once(Text::new(
                format!("break-even {:.0} %", u * 100.0),
                (u + 0.01, (y + dy).min(y_max * 0.97)),
                ("sans-serif", 13).into_font().color(&color),
            )))?;
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()?;
    Ok(())
}
