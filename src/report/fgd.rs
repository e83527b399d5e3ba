//! Output of the FGD experiment: `allocation.csv` (every curve), `comparison.csv` and
//! `summary.json` (each policy's mean beside the published one), `allocation.svg`.

use super::write_atomic;
use crate::sched::placement::{FgdRun, PlacementKind, ARRIVED_POINTS};
use plotters::prelude::*;
use serde::Serialize;
use std::path::Path;

/// One policy's figures.
#[derive(Debug, Clone, Serialize)]
pub struct FgdPolicySummary {
    /// gpufleet's name of the policy.
    pub policy: String,
    /// The artifact's label, if it has one.
    pub artifact_label: Option<String>,
    /// Mean allocated % at 100 % arrived demand over the seeds.
    pub mean_allocated_pct_at_100: f64,
    /// The same at 130 %.
    pub mean_allocated_pct_at_130: f64,
    /// The artifact's mean at 100 %, where given.
    pub expected_pct_at_100: Option<f64>,
    /// Ours minus the artifact's.
    pub diff_at_100: Option<f64>,
    /// Mean count of pods no node could hold.
    pub mean_failed_pods: f64,
}

/// Everything the experiment's folder is written from.
#[derive(Debug, Clone, Serialize)]
pub struct FgdSummary {
    /// Scenario name.
    pub scenario: String,
    /// Hash of the scenario text.
    pub scenario_hash: String,
    /// gpufleet version.
    pub version: String,
    /// Seeds run.
    pub seeds: Vec<u64>,
    /// Tuning target (multiple of the cluster's GPUs).
    pub tune: f64,
    /// FGD's typical-workload coverage.
    pub typical_coverage: f64,
    /// GPUs in the cluster.
    pub cluster_gpus: f64,
    /// Pods in the trace before tuning.
    pub trace_pods: usize,
    /// Per policy.
    pub policies: Vec<FgdPolicySummary>,
}

/// Mean curve of `policy` over its runs.
pub fn mean_curve(runs: &[FgdRun], policy: PlacementKind) -> Vec<f64> {
    let mine: Vec<&FgdRun> = runs.iter().filter(|r| r.policy == policy).collect();
    (0..ARRIVED_POINTS)
        .map(|x| mine.iter().map(|r| r.curve[x]).sum::<f64>() / mine.len().max(1) as f64)
        .collect()
}

/// Writes the folder: `allocation.csv`, `comparison.csv`, `summary.json`, `allocation.svg`.
/// `expected` holds the artifact's mean curve per policy (same order as `policies`).
pub fn write_fgd(
    dir: &Path,
    runs: &[FgdRun],
    summary: &FgdSummary,
    policies: &[PlacementKind],
    expected: &[Option<Vec<f64>>],
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut csv = String::from("policy,seed,arrived_pct,allocated_pct\n");
    for r in runs {
        for (x, v) in r.curve.iter().enumerate() {
            csv.push_str(&format!("{},{},{x},{v:.4}\n", r.policy.as_str(), r.seed));
        }
    }
    write_atomic(&dir.join("allocation.csv"), csv.as_bytes())?;
    let mut cmp = String::from(
        "policy,artifact_label,mean_allocated_pct_at_100,expected_pct_at_100,diff_at_100\n",
    );
    let opt = |v: Option<f64>| v.map(|x| format!("{x:.4}")).unwrap_or_default();
    for p in &summary.policies {
        cmp.push_str(&format!(
            "{},{},{:.4},{},{}\n",
            p.policy,
            p.artifact_label.clone().unwrap_or_default(),
            p.mean_allocated_pct_at_100,
            opt(p.expected_pct_at_100),
            opt(p.diff_at_100)
        ));
    }
    write_atomic(&dir.join("comparison.csv"), cmp.as_bytes())?;
    let json = serde_json::to_string_pretty(summary).map_err(std::io::Error::other)?;
    write_atomic(&dir.join("summary.json"), json.as_bytes())?;
    let svg = chart(runs, policies, expected, &summary.scenario);
    write_atomic(&dir.join("allocation.svg"), svg.as_bytes())
}

fn chart(
    runs: &[FgdRun],
    policies: &[PlacementKind],
    expected: &[Option<Vec<f64>>],
    title: &str,
) -> String {
    super::render::register_fonts();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 560)).into_drawing_area();
        let _ = draw(&root, runs, policies, expected, title);
        let _ = root.present();
    }
    svg
}

fn draw(
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    runs: &[FgdRun],
    policies: &[PlacementKind],
    expected: &[Option<Vec<f64>>],
    title: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    root.fill(&WHITE)?;
    let top = (ARRIVED_POINTS - 1) as f64;
    let mut chart = ChartBuilder::on(root)
        .caption(
            format!("{title}: GPU allocation vs arrived demand (mean over seeds)"),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(60.0..top, 60.0..100.0)?;
    chart
        .configure_mesh()
        .x_desc("arrived GPU demand (% of cluster GPUs)")
        .y_desc("allocated GPUs (%)")
        .draw()?;
    let colors = [
        RED,
        BLUE,
        GREEN,
        MAGENTA,
        CYAN,
        BLACK,
        RGBColor(200, 120, 0),
    ];
    for (i, &p) in policies.iter().enumerate() {
        let color = colors[i % colors.len()];
        let pts: Vec<(f64, f64)> = mean_curve(runs, p)
            .into_iter()
            .enumerate()
            .map(|(x, v)| (x as f64, v))
            .collect();
        chart
            .draw_series(LineSeries::new(pts, color.stroke_width(2)))?
            .label(p.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        if let Some(Some(e)) = expected.get(i) {
            let pts: Vec<(f64, f64)> = e.iter().enumerate().map(|(x, &v)| (x as f64, v)).collect();
            chart
                .draw_series(DashedLineSeries::new(pts, 4, 4, color.stroke_width(1)))?
                .label(format!("{} (artifact)", p.as_str()))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()?;
    Ok(())
}
