//! Which files carry a run's tables: CSV (the default), Parquet, or both.

use serde::Deserialize;

/// The table files of a run folder (`output_format` in a scenario, `--format` on the
/// command line, `format=` in Python).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum OutputFormat {
    /// `jobs.csv`, `pools.csv`, `timeline.csv`.
    #[default]
    Csv,
    /// `jobs.parquet`, `pools.parquet`, `timeline.parquet` (typed columns), no CSV tables.
    Parquet,
    /// Both sets of files.
    Both,
}

impl OutputFormat {
    /// The name as written in a scenario or on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            OutputFormat::Csv => "csv",
            OutputFormat::Parquet => "parquet",
            OutputFormat::Both => "both",
        }
    }

    /// The format named `name`, if it is one.
    pub fn from_name(name: &str) -> Option<OutputFormat> {
        match name {
            "csv" => Some(OutputFormat::Csv),
            "parquet" => Some(OutputFormat::Parquet),
            "both" => Some(OutputFormat::Both),
            _ => None,
        }
    }

    /// True when the CSV tables are kept.
    pub fn csv(self) -> bool {
        self != OutputFormat::Parquet
    }

    /// True when the Parquet tables are written.
    pub fn parquet(self) -> bool {
        self != OutputFormat::Csv
    }
}

/// True when this build can write Parquet (the `parquet` feature, on by default).
pub const PARQUET_BUILT: bool = cfg!(feature = "parquet");
