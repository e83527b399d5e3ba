//! Output of the FGD experiment: `allocation.csv` and `fragmentation.csv` (every curve),
//! `comparison.csv` and `summary.json` (each policy's means at 100 % arrived demand beside
//! the published ones), `allocation.svg/.png` and `fragmentation.svg/.png`.

use super::render::{color, font, render, Chart, DrawResult};
use super::write_atomic;
use crate::sched::placement::{FgdRun, PlacementKind, ARRIVED_POINTS};
use plotters::coord::Shift;
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
    /// Mean fragmented % of the cluster's GPUs at 100 % arrived demand.
    pub mean_frag_pct_at_100: f64,
    /// The artifact's mean fragmentation at 100 %, where given.
    pub expected_frag_pct_at_100: Option<f64>,
    /// Ours minus the artifact's.
    pub frag_diff_at_100: Option<f64>,
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
    /// FGD's typical pod types: share of the pods they cover.
    pub typical_coverage: f64,
    /// GPUs in the cluster.
    pub cluster_gpus: f64,
    /// Pods in the trace before tuning.
    pub trace_pods: usize,
    /// Per policy.
    pub policies: Vec<FgdPolicySummary>,
}

/// The published mean curves per policy (same order as the policies), where given.
#[derive(Debug, Clone, Default)]
pub struct FgdExpected {
    /// Allocation.
    pub allocation: Vec<Option<Vec<f64>>>,
    /// Fragmentation.
    pub fragmentation: Vec<Option<Vec<f64>>>,
}

/// Mean over `values`' finite entries (NaN when none is).
pub fn finite_mean(values: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = values
        .filter(|v| v.is_finite())
        .fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 {
        f64::NAN
    } else {
        s / n as f64
    }
}

/// Mean allocation curve of `policy` over its runs (points a run lacks are skipped).
pub fn mean_curve(runs: &[FgdRun], policy: PlacementKind) -> Vec<f64> {
    mean_of(runs, policy, |r| &r.curve)
}

/// Mean fragmentation curve of `policy` over its runs.
pub fn mean_frag_curve(runs: &[FgdRun], policy: PlacementKind) -> Vec<f64> {
    mean_of(runs, policy, |r| &r.frag)
}

fn mean_of(runs: &[FgdRun], policy: PlacementKind, f: impl Fn(&FgdRun) -> &Vec<f64>) -> Vec<f64> {
    let mine: Vec<&FgdRun> = runs.iter().filter(|r| r.policy == policy).collect();
    (0..ARRIVED_POINTS)
        .map(|x| {
            finite_mean(
                mine.iter()
                    .map(|r| f(r).get(x).copied().unwrap_or(f64::NAN)),
            )
        })
        .collect()
}

fn cell(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.4}")
    } else {
        String::new()
    }
}

fn curve_csv(runs: &[FgdRun], column: &str, f: impl Fn(&FgdRun) -> &Vec<f64>) -> String {
    let mut csv = format!("policy,seed,arrived_pct,{column}\n");
    for r in runs {
        for (x, &v) in f(r).iter().enumerate() {
            csv.push_str(&format!(
                "{},{},{x},{}\n",
                r.policy.as_str(),
                r.seed,
                cell(v)
            ));
        }
    }
    csv
}

/// Writes the folder: `allocation.csv`, `fragmentation.csv`, `comparison.csv`,
/// `summary.json` and the two charts (SVG and PNG).
pub fn write_fgd(
    dir: &Path,
    runs: &[FgdRun],
    summary: &FgdSummary,
    policies: &[PlacementKind],
    expected: &FgdExpected,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let alloc = curve_csv(runs, "allocated_pct", |r| &r.curve);
    write_atomic(&dir.join("allocation.csv"), alloc.as_bytes())?;
    let frag = curve_csv(runs, "frag_pct", |r| &r.frag);
    write_atomic(&dir.join("fragmentation.csv"), frag.as_bytes())?;
    let mut cmp = String::from(
        "policy,artifact_label,mean_allocated_pct_at_100,expected_pct_at_100,diff_at_100,\
         mean_frag_pct_at_100,expected_frag_pct_at_100,frag_diff_at_100\n",
    );
    let opt = |v: Option<f64>| v.map(cell).unwrap_or_default();
    for p in &summary.policies {
        cmp.push_str(&format!(
            "{},{},{},{},{},{},{},{}\n",
            p.policy,
            p.artifact_label.clone().unwrap_or_default(),
            cell(p.mean_allocated_pct_at_100),
            opt(p.expected_pct_at_100),
            opt(p.diff_at_100),
            cell(p.mean_frag_pct_at_100),
            opt(p.expected_frag_pct_at_100),
            opt(p.frag_diff_at_100),
        ));
    }
    write_atomic(&dir.join("comparison.csv"), cmp.as_bytes())?;
    let json = serde_json::to_string_pretty(summary).map_err(std::io::Error::other)?;
    write_atomic(&dir.join("summary.json"), json.as_bytes())?;
    let charts = [
        (
            "allocation",
            "GPU allocation",
            "allocated GPUs (% of cluster)",
            policies
                .iter()
                .map(|&p| mean_curve(runs, p))
                .collect::<Vec<_>>(),
            &expected.allocation,
        ),
        (
            "fragmentation",
            "GPU fragmentation",
            "fragmented GPUs (% of cluster)",
            policies.iter().map(|&p| mean_frag_curve(runs, p)).collect(),
            &expected.fragmentation,
        ),
    ];
    for (stem, what, y_desc, ours, theirs) in charts {
        let chart = CurveChart {
            title: format!(
                "{}: {what} vs arrived demand (mean over seeds)",
                summary.scenario
            ),
            y_desc,
            labels: policies.iter().map(|p| p.as_str().to_string()).collect(),
            ours,
            theirs: theirs.clone(),
        };
        render(dir, stem, &chart).map_err(std::io::Error::other)?;
    }
    Ok(())
}

/// Mean curves per policy, solid, with the artifact's dashed in the same colour.
struct CurveChart {
    title: String,
    y_desc: &'static str,
    labels: Vec<String>,
    ours: Vec<Vec<f64>>,
    theirs: Vec<Option<Vec<f64>>>,
}

/// The x range drawn: where the curves part.
const X_FROM: f64 = 50.0;

impl CurveChart {
    fn y_range(&self) -> (f64, f64) {
        let all = self
            .ours
            .iter()
            .chain(self.theirs.iter().flatten())
            .flat_map(|c| c.iter().skip(X_FROM as usize).copied())
            .filter(|v| v.is_finite());
        let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(v), h.max(v))
        });
        if !lo.is_finite() {
            return (0.0, 100.0);
        }
        ((lo - 2.0).floor().max(0.0), (hi + 2.0).ceil().min(100.0))
    }
}

impl Chart for CurveChart {
    fn size(&self) -> (u32, u32) {
        (1000, 560)
    }
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let (plot, legend) = root.split_horizontally(800);
        let (lo, hi) = self.y_range();
        let top = (ARRIVED_POINTS - 1) as f64;
        let mut chart = ChartBuilder::on(&plot)
            .caption(&self.title, font(17))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(55)
            .build_cartesian_2d(X_FROM..top, lo..hi)?;
        chart
            .configure_mesh()
            .x_desc("arrived GPU demand (% of cluster GPUs)")
            .y_desc(self.y_desc)
            .label_style(font(13))
            .axis_desc_style(font(14))
            .draw()?;
        let points = |c: &[f64]| -> Vec<(f64, f64)> {
            c.iter()
                .enumerate()
                .filter(|(x, v)| *x as f64 >= X_FROM && v.is_finite())
                .map(|(x, &v)| (x as f64, v))
                .collect()
        };
        for (i, c) in self.ours.iter().enumerate() {
            let col = color(i);
            chart.draw_series(LineSeries::new(points(c), col.stroke_width(2)))?;
            if let Some(Some(e)) = self.theirs.get(i) {
                chart.draw_series(DashedLineSeries::new(points(e), 5, 4, col.stroke_width(1)))?;
            }
        }
        // The legend beside the plot, so it never covers a curve.
        let mut y = 60;
        for (i, l) in self.labels.iter().enumerate() {
            let col = color(i);
            legend.draw(&PathElement::new(
                vec![(10, y), (40, y)],
                col.stroke_width(3),
            ))?;
            legend.draw(&Text::new(l.clone(), (48, y - 8), font(14)))?;
            y += 24;
        }
        if self.theirs.iter().any(Option::is_some) {
            y += 12;
            let grey = RGBColor(90, 90, 90);
            legend.draw(&PathElement::new(
                vec![(10, y), (40, y)],
                grey.stroke_width(2),
            ))?;
            legend.draw(&Text::new("gpufleet", (48, y - 8), font(13)))?;
            y += 22;
            for x in [10, 19, 28, 37] {
                legend.draw(&PathElement::new(
                    vec![(x, y), (x + 5, y)],
                    grey.stroke_width(1),
                ))?;
            }
            legend.draw(&Text::new("FGD artifact", (48, y - 8), font(13)))?;
        }
        Ok(())
    }
}
