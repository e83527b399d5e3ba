//! Rendering a chart to SVG and PNG. Text is drawn with DejaVu Sans, shipped in
//! `assets/fonts/` (Bitstream Vera licence) and rasterised by plotters' pure-Rust
//! `ab_glyph` path, so no system font library is needed.

use super::files::write_atomic;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Once;

static FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
static INIT: Once = Once::new();

/// The font family every chart uses.
pub const FONT_FAMILY: &str = "sans-serif";

pub(crate) fn register_fonts() {
    INIT.call_once(|| {
        for style in [FontStyle::Normal, FontStyle::Bold] {
            let _ = plotters::style::register_font(FONT_FAMILY, style, FONT);
        }
    });
}

/// A chart that could not be drawn or written, or a run or sweep folder whose files
/// cannot be read back for its charts.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// A file of the folder cannot be read (`file` is its name).
    #[error("{file}: {source}")]
    Read {
        /// The file's name.
        file: &'static str,
        /// The cause.
        source: std::io::Error,
    },
    /// A JSON file of the folder is not valid.
    #[error("{file}: {source}")]
    Json {
        /// The file's name.
        file: &'static str,
        /// The cause.
        source: serde_json::Error,
    },
    /// A CSV file of the folder cannot be read.
    #[error(transparent)]
    Table(#[from] super::data::TableError),
    /// Drawing failed (the plotters error, as text: its type depends on the backend).
    #[error("drawing {chart}: {message}")]
    Draw {
        /// The chart (`cost`, `cost.png`).
        chart: String,
        /// What went wrong.
        message: String,
    },
    /// Encoding the PNG into `path` failed.
    #[error("writing {path}: {message}")]
    Encode {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A chart file cannot be written.
    #[error("{path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl ChartError {
    /// True when the folder's files are at fault (missing, unreadable as data: exit code
    /// 2); false when the environment is (a chart cannot be written or drawn: exit code 1).
    pub fn is_bad_input(&self) -> bool {
        match self {
            ChartError::Read { source, .. } => matches!(
                source.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::InvalidData
            ),
            ChartError::Table(super::data::TableError::NoParquet { .. }) => false,
            ChartError::Json { .. } | ChartError::Table(_) => true,
            ChartError::Draw { .. } | ChartError::Encode { .. } | ChartError::Write { .. } => false,
        }
    }
}

/// Result of drawing.
pub type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// A chart that can draw itself on any plotters backend.
pub trait Chart {
    /// Pixel size.
    fn size(&self) -> (u32, u32) {
        (960, 540)
    }
    /// Draws onto `root`.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static;
}

/// Colours of series, in order (Tableau 10).
pub const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Colour of series `i`.
pub fn color(i: usize) -> RGBColor {
    COLORS[i % COLORS.len()]
}

/// A text style of the chart font.
pub fn font(size: u32) -> TextStyle<'static> {
    (FONT_FAMILY, size).into_font().into()
}

/// Draws `chart` into `dir/stem.svg` and `dir/stem.png`; returns the paths written.
pub fn render(dir: &Path, stem: &str, chart: &impl Chart) -> Result<Vec<PathBuf>, ChartError> {
    register_fonts();
    let (w, h) = chart.size();
    let draw = |chart: &str, e: &dyn std::fmt::Display| ChartError::Draw {
        chart: chart.to_string(),
        message: e.to_string(),
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        chart.draw(&root).map_err(|e| draw(stem, &e))?;
        root.present().map_err(|e| draw(stem, &e))?;
    }
    let svg_path = dir.join(format!("{stem}.svg"));
    if let Err(source) = write_atomic(&svg_path, svg.as_bytes()) {
        return Err(ChartError::Write {
            path: svg_path,
            source,
        });
    }
    let png_path = dir.join(format!("{stem}.png"));
    // The encoder picks the format by extension, so the temporary name ends in .png too.
    let tmp = dir.join(format!(".{stem}.tmp.png"));
    let png = (|| {
        let root = BitMapBackend::new(&tmp, (w, h)).into_drawing_area();
        chart
            .draw(&root)
            .map_err(|e| draw(&format!("{stem}.png"), &e))?;
        root.present().map_err(|e| ChartError::Encode {
            path: png_path.clone(),
            message: e.to_string(),
        })?;
        drop(root);
        std::fs::rename(&tmp, &png_path).map_err(|source| ChartError::Write {
            path: png_path.clone(),
            source,
        })
    })();
    if png.is_err() {
        // A full disk left the half-written `.STEM.tmp.png` behind.
        let _ = std::fs::remove_file(&tmp);
    }
    png?;
    Ok(vec![svg_path, png_path])
}

/// A legend entry: a short line in `c`.
pub fn legend_line(c: RGBColor) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(3))
}

/// A legend entry: a filled square in `c`.
pub fn legend_box(c: RGBColor) -> impl Fn((i32, i32)) -> Rectangle<(i32, i32)> {
    move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], c.filled())
}

/// An axis tick label: whole numbers for large values, a few decimals for small ones.
pub fn tick(v: &f64) -> String {
    let a = v.abs();
    if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 10.0 || a == 0.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}
