//! Parquet output: a run's `jobs.parquet`, `pools.parquet` and `timeline.parquet` (and a
//! sweep's `runs.parquet`, `points.parquet`), written from the typed columns of
//! [`super::columns`] with the `parquet` crate's low-level writer (no Arrow: it is much
//! lighter to build, and the files are the same).
//!
//! Physical types: `int64` columns are `INT64`, `float64` are `DOUBLE`, `string` are
//! `BYTE_ARRAY` with the `STRING` logical type; nullable columns are `OPTIONAL`, the rest
//! `REQUIRED`. One row group, Snappy-compressed pages, dictionary encoding where the
//! writer finds it pays. The file's key-value metadata carries `gpufleet.version` and,
//! for a run, `gpufleet.seed`, `gpufleet.scenario` and `gpufleet.scenario_hash`. Output
//! depends only on the data: same run, same bytes.

use super::columns::{Columns, Values};
use super::files::{write_atomic, RunOutput};
use parquet::basic::{Compression, LogicalType, Repetition, Type as PhysicalType};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::path::Path;
use std::sync::Arc;

/// A table that could not be encoded as Parquet.
#[derive(Debug, thiserror::Error)]
#[error("encoding {table} as Parquet: {source}")]
pub struct ParquetError {
    /// The table (`jobs`, `pools`, ...).
    pub table: String,
    /// The encoder's error.
    pub source: parquet::errors::ParquetError,
}

fn field(name: &str, v: &Values) -> Result<Arc<Type>, parquet::errors::ParquetError> {
    let (physical, logical) = match v {
        Values::Int(_) | Values::NullableInt(_) => (PhysicalType::INT64, None),
        Values::Float(_) | Values::NullableFloat(_) => (PhysicalType::DOUBLE, None),
        Values::Text(_) | Values::NullableText(_) => {
            (PhysicalType::BYTE_ARRAY, Some(LogicalType::String))
        }
        Values::NullableBool(_) => (PhysicalType::BOOLEAN, None),
    };
    let repetition = if v.nullable() {
        Repetition::OPTIONAL
    } else {
        Repetition::REQUIRED
    };
    Ok(Arc::new(
        Type::primitive_type_builder(name, physical)
            .with_repetition(repetition)
            .with_logical_type(logical)
            .build()?,
    ))
}

/// Definition levels of a nullable column (1 present, 0 null) and its present values.
fn split<T: Clone>(v: &[Option<T>]) -> (Vec<i16>, Vec<T>) {
    let levels = v.iter().map(|x| i16::from(x.is_some())).collect();
    let present = v.iter().flatten().cloned().collect();
    (levels, present)
}

fn encode(
    t: &Columns,
    compression: Compression,
    meta: &[(&str, String)],
) -> Result<Vec<u8>, parquet::errors::ParquetError> {
    let fields = t
        .columns
        .iter()
        .map(|c| field(&c.name, &c.values))
        .collect::<Result<Vec<_>, _>>()?;
    let schema = Arc::new(
        Type::group_type_builder(t.name)
            .with_fields(fields)
            .build()?,
    );
    let mut kv = vec![KeyValue::new(
        "gpufleet.version".to_string(),
        crate::VERSION.to_string(),
    )];
    kv.extend(
        meta.iter()
            .map(|(k, v)| KeyValue::new(format!("gpufleet.{k}"), v.clone())),
    );
    let props = WriterProperties::builder()
        .set_compression(compression)
        .set_key_value_metadata(Some(kv))
        .build();
    let mut w = SerializedFileWriter::new(Vec::new(), schema, Arc::new(props))?;
    let mut rg = w.next_row_group()?;
    for c in &t.columns {
        let Some(mut cw) = rg.next_column()? else {
            break;
        };
        match &c.values {
            Values::Int(v) => {
                cw.typed::<Int64Type>().write_batch(v, None, None)?;
            }
            Values::Float(v) => {
                cw.typed::<DoubleType>().write_batch(v, None, None)?;
            }
            Values::NullableFloat(v) => {
                let (levels, present) = split(v);
                cw.typed::<DoubleType>()
                    .write_batch(&present, Some(&levels), None)?;
            }
            Values::NullableInt(v) => {
                let (levels, present) = split(v);
                cw.typed::<Int64Type>()
                    .write_batch(&present, Some(&levels), None)?;
            }
            Values::Text(v) => {
                let bytes: Vec<ByteArray> = v.iter().map(|s| ByteArray::from(s.as_str())).collect();
                cw.typed::<ByteArrayType>()
                    .write_batch(&bytes, None, None)?;
            }
            Values::NullableBool(v) => {
                let (levels, present) = split(v);
                cw.typed::<BoolType>()
                    .write_batch(&present, Some(&levels), None)?;
            }
            Values::NullableText(v) => {
                let (levels, present) = split(v);
                let bytes: Vec<ByteArray> = present
                    .iter()
                    .map(|s| ByteArray::from(s.as_str()))
                    .collect();
                cw.typed::<ByteArrayType>()
                    .write_batch(&bytes, Some(&levels), None)?;
            }
        }
        cw.close()?;
    }
    rg.close()?;
    w.into_inner()
}

/// Table `t` as the bytes of a Parquet file; `compressed` chooses Snappy (files) or none
/// (bytes handed straight to a reader in memory). `meta` goes into the key-value metadata
/// as `gpufleet.<key>`.
pub fn parquet_bytes(
    t: &Columns,
    compressed: bool,
    meta: &[(&str, String)],
) -> Result<Vec<u8>, ParquetError> {
    let compression = if compressed {
        Compression::SNAPPY
    } else {
        Compression::UNCOMPRESSED
    };
    encode(t, compression, meta).map_err(|source| ParquetError {
        table: t.name.to_string(),
        source,
    })
}

/// The key-value metadata of a run's files: seed, scenario name and hash.
pub fn run_metadata(out: &RunOutput) -> Vec<(&'static str, String)> {
    vec![
        ("seed", out.summary.seed.to_string()),
        ("scenario", out.summary.scenario.clone()),
        ("scenario_hash", out.summary.scenario_hash.clone()),
    ]
}

/// Writes `jobs.parquet`, `pools.parquet` and `timeline.parquet` into `dir` (which must
/// exist), each atomically.
pub fn write_run_parquet(dir: &Path, out: &RunOutput) -> std::io::Result<()> {
    let meta = run_metadata(out);
    for t in super::columns::run_tables(out) {
        let bytes = parquet_bytes(&t, true, &meta).map_err(std::io::Error::other)?;
        write_atomic(&dir.join(format!("{}.parquet", t.name)), &bytes)?;
    }
    Ok(())
}

/// Writes `runs.parquet` (and `points.parquet` where `points.csv` exists) beside a sweep
/// folder's CSV files, typed by [`super::columns::infer`] (`_mean` and `_ci95` columns are
/// always float64).
pub fn write_sweep_parquet(dir: &Path) -> std::io::Result<()> {
    for t in sweep_tables(dir).map_err(std::io::Error::other)? {
        let bytes = parquet_bytes(&t, true, &[]).map_err(std::io::Error::other)?;
        write_atomic(&dir.join(format!("{}.parquet", t.name)), &bytes)?;
    }
    Ok(())
}

/// A sweep folder's `runs.csv` and (if present) `points.csv` as typed tables.
pub fn sweep_tables(dir: &Path) -> Result<Vec<Columns>, super::TableError> {
    let mut out = Vec::new();
    let runs = super::Table::read(&dir.join("runs.csv"))?;
    out.push(super::columns::infer("runs", &runs, |_| false));
    if dir.join("points.csv").is_file() {
        let points = super::Table::read(&dir.join("points.csv"))?;
        out.push(super::columns::infer("points", &points, |h| {
            h.ends_with("_mean") || h.ends_with("_ci95") || h.contains("_pooled_")
        }));
    }
    Ok(out)
}

/// A Parquet table of a run folder read row by row (one row group's pages at a time), only
/// the columns asked for, each cell as the text its CSV twin holds (an empty cell for a
/// null): what `gpufleet plot` reads from a Parquet-only folder.
pub struct ParquetRows {
    rows: parquet::record::reader::RowIter<'static>,
    names: Vec<String>,
}

impl ParquetRows {
    /// Opens `path` for the columns `names` (in that order); an error names a column the
    /// file lacks.
    pub fn open(path: &Path, names: &[&str]) -> Result<ParquetRows, String> {
        use parquet::file::reader::{FileReader, SerializedFileReader};
        let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
        let reader = SerializedFileReader::new(file).map_err(|e| e.to_string())?;
        let schema = reader.metadata().file_metadata().schema().clone();
        let mut fields = Vec::new();
        for f in schema.get_fields() {
            if names.contains(&f.name()) {
                fields.push(f.clone());
            }
        }
        if let Some(n) = names
            .iter()
            .find(|n| !fields.iter().any(|f| f.name() == **n))
        {
            return Err(format!("no column `{n}`"));
        }
        let projection = Type::group_type_builder(schema.name())
            .with_fields(fields)
            .build()
            .map_err(|e| e.to_string())?;
        let rows = parquet::record::reader::RowIter::from_file_into(Box::new(reader))
            .project(Some(projection))
            .map_err(|e| e.to_string())?;
        Ok(ParquetRows {
            rows,
            names: names.iter().map(|n| n.to_string()).collect(),
        })
    }

    /// Puts the next row into `rec` (the columns in the order asked); false at the end.
    pub fn next_into(&mut self, rec: &mut csv::StringRecord) -> Result<bool, String> {
        use parquet::record::Field;
        let Some(row) = self.rows.next() else {
            return Ok(false);
        };
        let row = row.map_err(|e| e.to_string())?;
        rec.clear();
        for name in &self.names {
            let cell = row.get_column_iter().find(|(n, _)| *n == name);
            match cell.map(|c| c.1) {
                None | Some(Field::Null) => rec.push_field(""),
                Some(Field::Double(x)) => rec.push_field(&x.to_string()),
                Some(Field::Long(x)) => rec.push_field(&x.to_string()),
                Some(Field::Str(s)) => rec.push_field(s),
                Some(other) => rec.push_field(&other.to_string()),
            }
        }
        Ok(true)
    }
}
