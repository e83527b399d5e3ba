//! `gpufleet._gpufleet`: the native half of the Python package. Each function takes a
//! scenario (or sweep) as text with the name and folder it came from, calls the library's
//! one run path (`gpufleet::run`, `gpufleet::sweep`) with the GIL released, and hands back
//! plain values: the summary as JSON text and each table as the bytes of a Parquet file,
//! which `gpufleet/__init__.py` turns into dicts and pyarrow tables.
//!
//! Errors: bad input raises `gpufleet.ScenarioError` (a `ValueError`) with the message the
//! command line prints (line, column, the offending text underlined); an output folder
//! that cannot be written raises `OSError`.

mod source;

use gpufleet::engine::RngStreams;
use gpufleet::report::columns::{run_tables, Columns};
use gpufleet::report::parquet::{parquet_bytes, run_metadata, sweep_tables};
use gpufleet::report::OutputFormat;
use gpufleet::run::RunError;
use gpufleet::scenario::Scenario;
use gpufleet::sweep::{run_sweep, Plan, Progress, Shard, SweepError, SweepOptions};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict};
use std::path::{Path, PathBuf};

create_exception!(
    _gpufleet,
    ScenarioError,
    PyValueError,
    "A scenario, sweep or override that is not valid; the message names the file, line, column and field."
);

/// An integer argument that is not a bool: `True` is an int to Python, and `seed=True`
/// ran seed 1 (pyo3 names the argument in the error).
struct Int<T>(T);

impl<'a, 'py, T: FromPyObject<'a, 'py>> FromPyObject<'a, 'py> for Int<T> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_instance_of::<PyBool>() {
            return Err(PyTypeError::new_err("must be an integer, not bool"));
        }
        T::extract(obj).map(Int).map_err(Into::into)
    }
}

/// A run error as a Python exception.
fn run_err(e: RunError) -> PyErr {
    if e.is_bad_input() {
        ScenarioError::new_err(e.to_string())
    } else {
        PyOSError::new_err(e.to_string())
    }
}

fn sweep_err(e: SweepError) -> PyErr {
    if e.is_bad_input() {
        ScenarioError::new_err(e.to_string().trim_end().to_string())
    } else {
        PyOSError::new_err(e.to_string())
    }
}

fn format_of(name: Option<&str>, s: &Scenario) -> PyResult<OutputFormat> {
    match name {
        None => Ok(s.output_format),
        Some(n) => OutputFormat::from_name(n).ok_or_else(|| {
            ScenarioError::new_err(format!(
                "format: unknown format {n:?} (known: csv, parquet, both)"
            ))
        }),
    }
}

/// Tables as (name, Parquet bytes), uncompressed: they go straight to a reader.
fn encode(tables: &[Columns], meta: &[(&str, String)]) -> PyResult<Vec<(String, Vec<u8>)>> {
    tables
        .iter()
        .map(|t| {
            parquet_bytes(t, false, meta)
                .map(|b| (t.name.to_string(), b))
                .map_err(|e| PyOSError::new_err(e.to_string()))
        })
        .collect()
}

/// Runs a scenario; returns `{"summary": json, "jobs": bytes, "pools": bytes,
/// "timeline": bytes, "seed": int, "scenario": str, "out": str | None}`.
#[pyfunction]
#[pyo3(signature = (text, file, base, seed=None, overrides=Vec::new(), out=None, format=None))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    text: String,
    file: String,
    base: String,
    seed: Option<Int<u64>>,
    overrides: Vec<(String, String)>,
    out: Option<PathBuf>,
    format: Option<String>,
) -> PyResult<Py<PyDict>> {
    let seed = seed.map(|Int(s)| s);
    let s = source::scenario(&text, &file, &base, &overrides)?;
    let format = format_of(format.as_deref(), &s)?;
    let seed = seed.unwrap_or(s.seed);
    let (summary, tables, wrote) = py.detach(|| -> PyResult<_> {
        let e = gpufleet::run::execute(&s, &RngStreams::new(seed)).map_err(run_err)?;
        if let Some(dir) = &out {
            gpufleet::run::write_folder_as(&s, &e, dir, format).map_err(run_err)?;
        }
        let output = gpufleet::run::output(&s, &e);
        let tables = encode(&run_tables(&output), &run_metadata(&output))?;
        let summary =
            serde_json::to_string(&e.summary).map_err(|e| PyOSError::new_err(e.to_string()))?;
        Ok((summary, tables, out.clone()))
    })?;
    let d = PyDict::new(py);
    d.set_item("summary", summary)?;
    for (name, bytes) in tables {
        d.set_item(name, PyBytes::new(py, &bytes))?;
    }
    d.set_item("seed", seed)?;
    d.set_item("scenario", s.name.clone())?;
    d.set_item("out", wrote.map(|p| p.display().to_string()))?;
    Ok(d.unbind())
}

/// Checks a scenario without running it; returns what `gpufleet validate --json` prints.
#[pyfunction]
#[pyo3(signature = (text, file, base, overrides=Vec::new()))]
fn validate(
    py: Python<'_>,
    text: String,
    file: String,
    base: String,
    overrides: Vec<(String, String)>,
) -> PyResult<String> {
    let s = source::scenario(&text, &file, &base, &overrides)?;
    let v = py.detach(|| gpufleet::run::validate(&s)).map_err(run_err)?;
    let mut j = serde_json::to_value(&v).map_err(|e| PyOSError::new_err(e.to_string()))?;
    if let Some(m) = j.as_object_mut() {
        m.insert("file".into(), file.into());
        m.insert("ok".into(), true.into());
    }
    Ok(j.to_string())
}

/// Runs a sweep into folder `out`; returns `{"runs": bytes, "points": bytes | None,
/// "outcome": json}` (the tables of `runs.csv` and `points.csv`, typed).
#[pyfunction]
#[pyo3(signature = (text, file, base, out, threads=Int(0), resume=false, shard=None, charts=true, format=None))]
#[allow(clippy::too_many_arguments)]
fn sweep(
    py: Python<'_>,
    text: String,
    file: String,
    base: String,
    out: PathBuf,
    threads: Int<usize>,
    resume: bool,
    shard: Option<String>,
    charts: bool,
    format: Option<String>,
) -> PyResult<Py<PyDict>> {
    let Int(threads) = threads;
    if threads > gpufleet::cli::MAX_THREADS {
        return Err(PyValueError::new_err(format!(
            "threads: {threads} is more than {} (0 means all cores)",
            gpufleet::cli::MAX_THREADS
        )));
    }
    let plan = Plan::parse(&text, Path::new(&file), Path::new(&base)).map_err(sweep_err)?;
    let shard = shard
        .map(|t| {
            t.parse::<Shard>()
                .map_err(|e| ScenarioError::new_err(format!("shard: {e}")))
        })
        .transpose()?;
    let parquet_files = match format.as_deref() {
        None | Some("csv") => false,
        Some("parquet") | Some("both") => true,
        Some(n) => {
            return Err(ScenarioError::new_err(format!(
                "format: unknown format {n:?} (known: csv, parquet, both)"
            )))
        }
    };
    let opts = SweepOptions {
        out: out.clone(),
        threads,
        progress: Progress::Quiet,
        resume,
        shard,
        keep_jobs: None,
    };
    let (outcome, tables) = py.detach(|| -> PyResult<_> {
        let o = run_sweep(&plan, &opts).map_err(sweep_err)?;
        if charts && shard.is_none() {
            gpufleet::report::plot_sweep_dir(&out)
                .map_err(|e| PyOSError::new_err(e.to_string()))?;
        }
        if parquet_files {
            gpufleet::report::parquet::write_sweep_parquet(&out)
                .map_err(|e| PyOSError::new_err(e.to_string()))?;
        }
        let tables = sweep_tables(&out).map_err(|e| PyOSError::new_err(e.to_string()))?;
        Ok((o, encode(&tables, &[])?))
    })?;
    let d = PyDict::new(py);
    for (name, bytes) in tables {
        d.set_item(name, PyBytes::new(py, &bytes))?;
    }
    let o = serde_json::json!({
        "sweep": plan.name,
        "runs": outcome.runs,
        "ran": outcome.ran,
        "kept": outcome.kept,
        "redone": outcome.redone,
        "points": plan.points.len(),
        "seeds": plan.seeds,
        "params": plan.params,
        "out": out.display().to_string(),
    });
    d.set_item("outcome", o.to_string())?;
    Ok(d.unbind())
}

/// The built-in quickstart scenario's text.
#[pyfunction]
fn default_scenario() -> &'static str {
    gpufleet::scenario::DEFAULT_SCENARIO
}

/// The version of the gpufleet library inside this module.
#[pyfunction]
fn version() -> &'static str {
    gpufleet::VERSION
}

// `plan` (issue 12, `gpufleet plan`) and `compare` (issue 13, `gpufleet compare`) belong
// here once the library has them: a #[pyfunction] each taking (text, file, base, ...) like
// `run`, calling the library with the GIL released, added to the module below.
// gpufleet/__init__.py exposes them as gpufleet.plan / gpufleet.compare as soon as this
// module has attributes of those names (gpufleet.HAS_PLAN, gpufleet.HAS_COMPARE).

/// The native module.
#[pymodule]
fn _gpufleet(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(default_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    Ok(())
}
