//! Parquet output: every file has the schema documented in docs/outputs.md, and every
//! cell equals the CSV's (read back with the `parquet` crate's own reader, cell by cell);
//! `--format parquet` drops the CSV tables; the scenario's `output_format` is the default;
//! same run, same bytes.
#![cfg(feature = "parquet")]

use crate::common::root;
use assert_cmd::Command;
use parquet::basic::Type as Physical;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use std::path::Path;

fn gpufleet() -> Command {
    Command::cargo_bin("gpufleet").unwrap()
}

/// `(column, type, nullable)` for `file` from the tables of docs/outputs.md.
fn documented(file: &str) -> Vec<(String, String, bool)> {
    let doc = std::fs::read_to_string(root().join("docs/outputs.md")).unwrap();
    let head = format!("### {file}\n");
    let at = doc
        .find(&head)
        .unwrap_or_else(|| panic!("docs/outputs.md has no {head}"));
    doc[at + head.len()..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            (
                cells[0].trim_matches('`').to_string(),
                cells[1].to_string(),
                cells[2] == "yes",
            )
        })
        .collect()
}

fn run_both(dir: &Path, scenario: &Path, seed: &str) {
    gpufleet()
        .args(["run", scenario.to_str().unwrap(), "--out"])
        .arg(dir)
        .args(["--seed", seed, "--format", "both", "-q"])
        .assert()
        .success();
}

/// Checks `stem.parquet` against the docs and, cell by cell, against `stem.csv`.
fn check_table(dir: &Path, stem: &str) -> usize {
    check_table_docs(dir, stem, documented(&format!("{stem}.parquet")))
}

/// `check_table` against the documented columns `docs`.
fn check_table_docs(dir: &Path, stem: &str, docs: Vec<(String, String, bool)>) -> usize {
    let file = format!("{stem}.parquet");
    let reader = SerializedFileReader::new(std::fs::File::open(dir.join(&file)).unwrap()).unwrap();
    let schema = reader.metadata().file_metadata().schema_descr();
    assert_eq!(schema.num_columns(), docs.len(), "{file}: column count");
    for (c, (name, ty, nullable)) in schema.columns().iter().zip(&docs) {
        assert_eq!(c.name(), name, "{file}");
        let physical = match ty.as_str() {
            "int64" => Physical::INT64,
            "float64" => Physical::DOUBLE,
            "string" => Physical::BYTE_ARRAY,
            "bool" => Physical::BOOLEAN,
            other => panic!("{file}: documented type {other}"),
        };
        assert_eq!(c.physical_type(), physical, "{file}.{name}");
        assert_eq!(
            c.self_type().is_optional(),
            *nullable,
            "{file}.{name} nullability"
        );
    }
    let mut csv = csv::Reader::from_path(dir.join(format!("{stem}.csv"))).unwrap();
    let headers: Vec<String> = csv.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        headers,
        docs.iter().map(|d| d.0.clone()).collect::<Vec<_>>(),
        "{stem}.csv and {file} have the same columns"
    );
    let mut rows = 0;
    let mut parquet_rows = reader.get_row_iter(None).unwrap();
    for rec in csv.records() {
        let rec = rec.unwrap();
        let row = parquet_rows
            .next()
            .expect("as many rows as the CSV")
            .unwrap();
        for ((name, field), cell) in row.get_column_iter().zip(rec.iter()) {
            match field {
                Field::Null => assert_eq!(cell, "", "{file} row {rows} {name}"),
                Field::Long(i) => assert_eq!(
                    cell.parse::<i64>().ok(),
                    Some(*i),
                    "{file} row {rows} {name}"
                ),
                Field::Double(x) => assert_eq!(
                    cell.parse::<f64>().ok(),
                    Some(*x),
                    "{file} row {rows} {name}: CSV {cell}"
                ),
                Field::Str(s) => assert_eq!(cell, s, "{file} row {rows} {name}"),
                Field::Bool(b) => assert_eq!(cell, b.to_string(), "{file} row {rows} {name}"),
                other => panic!("{file}.{name}: unexpected {other:?}"),
            }
        }
        rows += 1;
    }
    assert!(
        parquet_rows.next().is_none(),
        "{file}: more rows than the CSV"
    );
    rows
}

/// The cloud scenarios' jobs tables carry the cloud columns in the CSV's order, each of
/// the documented type, with the CSV's values (staging, spread, classes).
#[test]
fn cloud_columns_have_the_documented_schema_and_the_csv_values() {
    let d = tempfile::tempdir().unwrap();
    let cloud = documented("jobs.parquet: cloud columns");
    for (i, (s, cols)) in [
        (
            "scenarios/data-gravity.toml",
            &["dataset", "staged_gb", "staging_s", "transfer_usd"][..],
        ),
        (
            "scenarios/topology.toml",
            &["racks", "speed_factor", "speed"][..],
        ),
        (
            "scenarios/heterogeneous.toml",
            &["class", "racks", "speed_factor", "speed"][..],
        ),
    ]
    .iter()
    .enumerate()
    {
        let dir = d.path().join(i.to_string());
        run_both(&dir, &root().join(s), "3");
        let mut docs = documented("jobs.parquet");
        let base = docs.len();
        docs.extend(
            cloud
                .iter()
                .filter(|c| cols.contains(&c.0.as_str()))
                .cloned(),
        );
        assert_eq!(docs.len(), base + cols.len(), "{s}");
        let jobs = check_table_docs(&dir, "jobs", docs);
        assert!(jobs > 10, "{s}: {jobs} jobs");
    }
}

#[test]
fn tables_have_the_documented_schema_and_the_csv_values() {
    let d = tempfile::tempdir().unwrap();
    // The quickstart month (jobs that never start, reserved and on-demand pools) and a
    // spot run with checkpoints (preemptions, restarts, lost time, ETTR below 1).
    for (i, s) in [
        "scenarios/quickstart.toml",
        "scenarios/spot-checkpointing.toml",
    ]
    .iter()
    .enumerate()
    {
        let p = root().join(s);
        let dir = d.path().join(i.to_string());
        run_both(&dir, &p, "3");
        let jobs = check_table(&dir, "jobs");
        assert!(jobs > 10, "{s}: {jobs} jobs");
        check_table(&dir, "pools");
        check_table(&dir, "timeline");
    }
}

#[test]
fn parquet_only_drops_the_csv_tables_and_is_deterministic() {
    let d = tempfile::tempdir().unwrap();
    let s = root().join("tests/data/sweep-base.toml");
    for k in ["a", "b"] {
        gpufleet()
            .args(["run", s.to_str().unwrap(), "--out"])
            .arg(d.path().join(k))
            .args(["--format", "parquet", "-q"])
            .assert()
            .success();
    }
    let a = d.path().join("a");
    for t in ["jobs", "pools", "timeline"] {
        assert!(!a.join(format!("{t}.csv")).exists(), "{t}.csv left");
        let x = std::fs::read(a.join(format!("{t}.parquet"))).unwrap();
        assert_eq!(&x[..4], b"PAR1");
        assert_eq!(
            x,
            std::fs::read(d.path().join("b").join(format!("{t}.parquet"))).unwrap()
        );
    }
    assert!(a.join("summary.json").is_file() && a.join("timeline.svg").is_file());
    // Key-value metadata: the seed of the run (sweep-base.toml says seed = 5).
    let r =
        SerializedFileReader::new(std::fs::File::open(a.join("jobs.parquet")).unwrap()).unwrap();
    let kv = r.metadata().file_metadata().key_value_metadata().unwrap();
    let seed = kv.iter().find(|k| k.key == "gpufleet.seed").unwrap();
    assert_eq!(seed.value.as_deref(), Some("5"));
}

#[test]
fn the_scenario_chooses_the_default_format() {
    let d = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("tests/data/sweep-base.toml")).unwrap();
    let f = d.path().join("s.toml");
    std::fs::write(&f, format!("output_format = \"parquet\"\n{text}")).unwrap();
    gpufleet()
        .args(["run", f.to_str().unwrap(), "--out"])
        .arg(d.path().join("r"))
        .arg("-q")
        .assert()
        .success();
    assert!(d.path().join("r/jobs.parquet").is_file());
    assert!(!d.path().join("r/jobs.csv").exists());
    // --format on the command line wins.
    gpufleet()
        .args(["run", f.to_str().unwrap(), "--out"])
        .arg(d.path().join("c"))
        .args(["--format", "csv", "-q"])
        .assert()
        .success();
    assert!(d.path().join("c/jobs.csv").is_file());
    assert!(!d.path().join("c/jobs.parquet").exists());
    // A misspelt format is bad input, with a suggestion.
    std::fs::write(&f, format!("output_format = \"parqet\"\n{text}")).unwrap();
    let a = gpufleet()
        .args(["validate", f.to_str().unwrap()])
        .assert()
        .code(2);
    let e = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(e.contains("did you mean `parquet`?"), "{e}");
}

#[test]
fn a_sweep_writes_typed_runs_and_points() {
    let d = tempfile::tempdir().unwrap();
    std::fs::copy(
        root().join("tests/data/sweep-base.toml"),
        d.path().join("base.toml"),
    )
    .unwrap();
    let f = d.path().join("sweep.toml");
    std::fs::write(
        &f,
        "name = \"p\"\nscenario = \"base.toml\"\nseeds = 2\n[[param]]\npath = \"scheduler.policy\"\nvalues = [\"fifo\", \"sjf\"]\n",
    )
    .unwrap();
    let out = d.path().join("s");
    gpufleet()
        .args([
            "sweep",
            f.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
            "--format",
            "parquet",
        ])
        .assert()
        .success();
    assert!(
        out.join("runs.csv").is_file(),
        "CSV kept for merge and resume"
    );
    let r =
        SerializedFileReader::new(std::fs::File::open(out.join("runs.parquet")).unwrap()).unwrap();
    let types: Vec<(String, Physical)> = r
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| (c.name().to_string(), c.physical_type()))
        .collect();
    let of = |n: &str| types.iter().find(|(c, _)| c == n).map(|(_, t)| *t);
    assert_eq!(of("run"), Some(Physical::INT64));
    assert_eq!(of("scheduler.policy"), Some(Physical::BYTE_ARRAY));
    assert_eq!(of("jobs_submitted"), Some(Physical::INT64));
    assert_eq!(of("wait_s_p95"), Some(Physical::DOUBLE));
    assert_eq!(r.metadata().file_metadata().num_rows(), 4);
    let p = SerializedFileReader::new(std::fs::File::open(out.join("points.parquet")).unwrap())
        .unwrap();
    // Means of integer counts are float64 whatever their values.
    let c = p.metadata().file_metadata().schema_descr();
    let mean = c
        .columns()
        .iter()
        .find(|c| c.name() == "jobs_submitted_mean")
        .unwrap();
    assert_eq!(mean.physical_type(), Physical::DOUBLE);
}

/// `gpufleet plot` of a Parquet-only folder reads the Parquet tables: the redrawn charts
/// are the run's own, byte for byte (as a CSV folder's are). A folder with neither copy of
/// a table is refused (exit 2, the table named), where it once drew nothing with exit 0.
#[test]
fn plot_redraws_a_parquet_only_folder_and_refuses_a_missing_table() {
    let d = tempfile::tempdir().unwrap();
    let s = root().join("tests/data/sweep-base.toml");
    let (pq, csv) = (d.path().join("pq"), d.path().join("csv"));
    for (dir, format) in [(&pq, "parquet"), (&csv, "csv")] {
        gpufleet()
            .args(["run", s.to_str().unwrap(), "--out"])
            .arg(dir)
            .args(["--format", format, "-q"])
            .assert()
            .success();
    }
    let charts = ["timeline", "queue", "cost", "cdf"];
    let drawn: Vec<Vec<u8>> = charts
        .iter()
        .map(|c| std::fs::read(pq.join(format!("{c}.svg"))).unwrap())
        .collect();
    for c in charts {
        std::fs::remove_file(pq.join(format!("{c}.svg"))).unwrap();
    }
    let out = gpufleet().arg("plot").arg(&pq).assert().success();
    let listed = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    for (c, before) in charts.iter().zip(&drawn) {
        assert!(listed.contains(&format!("{c}.svg")), "{c}: {listed}");
        let again = std::fs::read(pq.join(format!("{c}.svg"))).unwrap();
        assert!(again == *before, "{c}.svg redrawn differently");
        // The same run written as CSV draws the same chart.
        let from_csv = std::fs::read(csv.join(format!("{c}.svg"))).unwrap();
        assert!(again == from_csv, "{c}.svg differs between formats");
    }
    for table in ["jobs", "pools", "timeline"] {
        let dir = d.path().join(format!("without-{table}"));
        std::fs::create_dir(&dir).unwrap();
        for e in std::fs::read_dir(&pq).unwrap() {
            let p = e.unwrap().path();
            if p.file_name().unwrap() != format!("{table}.parquet").as_str() {
                std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
            }
        }
        // The completion manifest names the file gone.
        let a = gpufleet().arg("plot").arg(&dir).assert().code(2);
        let e = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
        assert!(e.contains(&format!("{table}.parquet: missing")), "{e}");
        // Without one (an older gpufleet's folder), the table is named all the same.
        std::fs::remove_file(dir.join("complete.json")).unwrap();
        let a = gpufleet().arg("plot").arg(&dir).assert().code(2);
        let e = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
        assert!(
            e.contains(&format!("neither {table}.csv nor {table}.parquet")),
            "{table}: {e}"
        );
    }
    // A damaged Parquet table is an error naming it, not a panic.
    let dir = d.path().join("damaged");
    std::fs::create_dir(&dir).unwrap();
    for e in std::fs::read_dir(&pq).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
    }
    let jobs = std::fs::read(dir.join("jobs.parquet")).unwrap();
    std::fs::write(dir.join("jobs.parquet"), &jobs[..jobs.len() / 2]).unwrap();
    let a = gpufleet().arg("plot").arg(&dir).assert().code(2);
    let e = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(e.contains("jobs.parquet") && e.contains("truncated"), "{e}");
    std::fs::remove_file(dir.join("complete.json")).unwrap();
    let a = gpufleet().arg("plot").arg(&dir).assert().code(2);
    let e = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(e.contains("jobs.parquet") && !e.contains("panicked"), "{e}");
}
