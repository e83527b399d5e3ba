//! gpufleet's generic CSV trace: the documented lingua franca every other format converts to.
//!
//! Header row required; columns in any order. Required: `job_id`, `submit_s` (seconds
//! from the trace start, >= 0), `gpus` (a whole count >= 0, or a fraction of one GPU such
//! as `0.5`, to the milli-GPU: at least 0.0005), `duration_s` (run time on the reference
//! GPU, > 0; times are kept to the millisecond, a positive one under 1 ms as 1 ms).
//! Optional: `estimate_s` (runtime estimate for backfilling), `gpu_type` (allowed GPU
//! types, `|`-separated,
//! empty = any), `cpu` (cores), `mem_gib`, `tenant` (default `default`), `priority`
//! (integer), `deadline_s` (absolute, seconds), `preemptible` (`true`/`false`/`1`/`0`),
//! and the cloud model's tags ([`TAG_COLUMNS`]): `class` (job class, for throughput
//! tables), `dataset` (the dataset it reads) and `comm_share` (its communication share,
//! 0..=1); the writer adds these only when the workload has them.
//! An unknown column is an error (a typo must not silently drop data), and so is a
//! `job_id` on two rows or a control character in a name or tag. Rows need not be
//! sorted: jobs are sorted by submit time after reading, ties kept in file order.

use super::trace::{RowFilter, TraceMeta};
use super::value::{
    parse_bool, parse_gpus, parse_non_negative, parse_secs, plain_text, ValueError,
};
use super::{BadRows, TraceError};
use crate::engine::SimTime;
use crate::model::{GpuRequest, Job, TypeMask, Workload};
use std::io::{Read, Write};
use std::path::Path;

/// Every column the generic format knows, in the order the writer uses.
pub const GENERIC_CSV_COLUMNS: [&str; 12] = [
    "job_id",
    "submit_s",
    "gpus",
    "duration_s",
    "estimate_s",
    "gpu_type",
    "cpu",
    "mem_gib",
    "tenant",
    "priority",
    "deadline_s",
    "preemptible",
];

/// The optional tag columns, after [`GENERIC_CSV_COLUMNS`].
pub const TAG_COLUMNS: [&str; 3] = ["class", "dataset", "comm_share"];

/// Every column the reader knows.
const ALL: usize = 15;

fn column_name(k: usize) -> &'static str {
    if k < 12 {
        GENERIC_CSV_COLUMNS[k]
    } else {
        TAG_COLUMNS[k - 12]
    }
}

const REQUIRED: [&str; 4] = ["job_id", "submit_s", "gpus", "duration_s"];

/// Reads a generic CSV trace from `path`.
pub fn read_generic_csv(path: &Path, bad: BadRows) -> Result<Workload, TraceError> {
    read_generic_capped(path, bad, None)
}

/// Reads a generic CSV trace from `path`, failing once it holds more than `max_jobs` jobs.
pub fn read_generic_capped(
    path: &Path,
    bad: BadRows,
    max_jobs: Option<u64>,
) -> Result<Workload, TraceError> {
    read_generic_from(super::csv_rows::open(path)?, path, bad, max_jobs)
}

fn read_generic_from<R: Read>(
    input: R,
    path: &Path,
    bad: BadRows,
    max_jobs: Option<u64>,
) -> Result<Workload, TraceError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(input);
    let file_err = |reason: String| TraceError::File {
        file: path.to_path_buf(),
        reason,
    };
    let headers = rdr
        .headers()
        .map_err(|e| file_err(format!("cannot read the header row: {e}")))?
        .clone();
    let mut col = [usize::MAX; ALL];
    for (i, h) in headers.iter().enumerate() {
        let h = h.trim();
        match (0..ALL).position(|k| column_name(k) == h) {
            Some(k) if col[k] != usize::MAX => {
                return Err(TraceError::Row {
                    file: path.to_path_buf(),
                    row: 1,
                    column: h.to_string(),
                    reason: format!("appears twice (columns {} and {})", col[k] + 1, i + 1),
                })
            }
            Some(k) => col[k] = i,
            None => {
                return Err(TraceError::Row {
                    file: path.to_path_buf(),
                    row: 1,
                    column: h.to_string(),
                    reason: format!(
                        "unknown column (known: {}, {})",
                        GENERIC_CSV_COLUMNS.join(", "),
                        TAG_COLUMNS.join(", ")
                    ),
                })
            }
        }
    }
    for r in REQUIRED {
        let k = GENERIC_CSV_COLUMNS
            .iter()
            .position(|c| *c == r)
            .unwrap_or(0);
        if col[k] == usize::MAX {
            return Err(file_err(format!(
                "missing required column {r:?} in the header row"
            )));
        }
    }
    let mut w = Workload::default();
    let mut names = crate::model::NameIndex::default();
    let mut rec = csv::StringRecord::new();
    let mut lines: Vec<u64> = Vec::new();
    loop {
        let line = rdr.position().line() + 1;
        match rdr.read_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                if let Some(f) = super::csv_rows::fatal(path, &e) {
                    return Err(f);
                }
                let row = e.position().map(|p| p.line()).unwrap_or(line);
                let err = TraceError::Row {
                    file: path.to_path_buf(),
                    row,
                    column: String::new(),
                    reason: e.to_string(),
                };
                match bad {
                    BadRows::Stop => return Err(err),
                    BadRows::Skip => {
                        w.skipped_rows += 1;
                        continue;
                    }
                }
            }
        }
        let row = rec.position().map(|p| p.line()).unwrap_or(line);
        match parse_row(&rec, &col, &mut w, &mut names) {
            Ok(_) if max_jobs.is_some_and(|m| w.jobs.len() as u64 >= m) => {
                return Err(file_err(super::trace::too_many_jobs(max_jobs.unwrap_or(0))))
            }
            Ok(job) => {
                w.jobs.push(job);
                lines.push(row);
            }
            Err((k, reason)) => match bad {
                BadRows::Stop => {
                    return Err(TraceError::Row {
                        file: path.to_path_buf(),
                        row,
                        column: column_name(k).to_string(),
                        reason,
                    })
                }
                BadRows::Skip => w.skipped_rows += 1,
            },
        }
    }
    // A header with no row under it is no trace, as for every other reader (it read as a
    // workload of no jobs, and a run of it ended with exit 0).
    if w.jobs.is_empty() && w.skipped_rows == 0 {
        return Err(file_err("no jobs in the file".into()));
    }
    super::trace::refuse_repeats(
        &mut w.jobs,
        |j| j.name.as_str(),
        &lines,
        bad,
        path,
        "job_id",
        "job id",
        &mut w.skipped_rows,
    )?;
    w.sort_by_submit();
    Ok(w)
}

fn parse_row(
    rec: &csv::StringRecord,
    col: &[usize; ALL],
    w: &mut Workload,
    names: &mut crate::model::NameIndex,
) -> Result<Job, (usize, String)> {
    let get =
        |k: usize| -> Option<&str> { (col[k] != usize::MAX).then(|| rec.get(col[k])).flatten() };
    let need = |k: usize| -> Result<&str, (usize, String)> {
        match get(k) {
            Some(v) if !v.trim().is_empty() => Ok(v),
            _ => Err((k, "missing value".to_string())),
        }
    };
    let name = need(0)?.trim().to_string();
    let submit = parse_secs(need(1)?).map_err(|e| (1, e.to_string()))?;
    let gpus = parse_gpus(need(2)?).map_err(|e| (2, e.to_string()))?;
    let work = parse_secs(need(3)?).map_err(|e| (3, e.to_string()))?;
    // A positive duration under half a millisecond is the clock's resolution, 1 ms, as
    // every other duration is rounded to it (it was refused as "must be positive").
    let work = match work.0 {
        0 if super::value::parse_number(need(3)?).is_ok_and(|x| x > 0.0) => SimTime(1),
        0 => return Err((3, "duration must be positive".into())),
        _ => work,
    };
    let opt = |k: usize| get(k).map(str::trim).filter(|v| !v.is_empty());
    // Names and tags are written out as they are: no control character in them.
    for k in [0, 5, 8, 12, 13] {
        if let Some(v) = opt(k) {
            plain_text(v).map_err(|e| (k, e.to_string()))?;
        }
    }
    let estimate = opt(4)
        .map(parse_secs)
        .transpose()
        .map_err(|e| (4, e.to_string()))?;
    let gpu_types = match opt(5) {
        None => TypeMask::ANY,
        Some(v) => w
            .type_mask(v.split('|').map(str::trim))
            .ok_or((5, "more than 64 GPU types".to_string()))?,
    };
    let num = |k: usize, what: &'static str| -> Result<f64, (usize, String)> {
        match opt(k) {
            None => Ok(0.0),
            Some(v) => parse_non_negative(v, what).map_err(|e| (k, e.to_string())),
        }
    };
    let cpu = num(6, "number of cores")?;
    let mem = num(7, "number of GiB")?;
    let tenant = names.tenant(w, opt(8).unwrap_or("default"));
    let priority = match opt(9) {
        None => 0,
        Some(v) => v
            .parse::<i32>()
            .map_err(|_| (9, ValueError::NotAnInteger(v.to_string()).to_string()))?,
    };
    let deadline = opt(10)
        .map(parse_secs)
        .transpose()
        .map_err(|e| (10, e.to_string()))?;
    let preemptible = parse_bool(get(11).unwrap_or("")).map_err(|e| (11, e.to_string()))?;
    let mut tags = crate::model::JobTags::NONE;
    if let Some(c) = opt(12) {
        tags.class = Some(
            names
                .class(w, c)
                .ok_or((12, "more than 65,535 classes".to_string()))?,
        );
    }
    if let Some(d) = opt(13) {
        tags.dataset = names.dataset(w, d);
    }
    if let Some(v) = opt(14) {
        match v.parse::<f32>() {
            Ok(x) if (0.0..=1.0).contains(&x) => tags.comm_share = Some(x),
            _ => return Err((14, format!("{v:?} is not a share between 0 and 1"))),
        }
    }
    Ok(Job {
        name,
        submit,
        gpus,
        gpu_types,
        cpu_milli: (cpu * 1000.0).round() as u32,
        mem_mib: (mem * 1024.0).round() as u64,
        work,
        estimate,
        tenant,
        priority,
        deadline,
        preemptible,
        tags,
    })
}

fn secs(t: SimTime) -> String {
    t.secs_text()
}

/// Writes `w` in the generic format (all columns).
pub fn write_generic_csv<W: Write>(w: &Workload, out: W) -> std::io::Result<()> {
    let mut wr = csv::Writer::from_writer(out);
    let tags = [
        w.jobs.iter().any(|j| j.tags.class.is_some()),
        w.jobs.iter().any(|j| j.tags.dataset.is_some()),
        w.jobs.iter().any(|j| j.tags.comm_share.is_some()),
    ];
    let mut header: Vec<&str> = GENERIC_CSV_COLUMNS.to_vec();
    header.extend(TAG_COLUMNS.iter().zip(tags).filter(|x| x.1).map(|x| *x.0));
    wr.write_record(&header)?;
    for j in &w.jobs {
        let gpus = match j.gpus {
            GpuRequest::None => "0".to_string(),
            GpuRequest::Whole(n) => n.to_string(),
            GpuRequest::Fraction(m) => format!("0.{m:03}"),
        };
        let types = if j.gpu_types.is_any() {
            String::new()
        } else {
            (0..w.gpu_types.len())
                .filter(|&i| j.gpu_types.allows(i))
                .map(|i| w.gpu_types[i].as_str())
                .collect::<Vec<_>>()
                .join("|")
        };
        let mut extra: Vec<String> = Vec::new();
        if tags[0] {
            extra.push(
                j.tags
                    .class
                    .and_then(|c| w.classes.get(c as usize).cloned())
                    .unwrap_or_default(),
            );
        }
        if tags[1] {
            extra.push(
                j.tags
                    .dataset
                    .and_then(|d| w.datasets.get(d as usize).cloned())
                    .unwrap_or_default(),
            );
        }
        if tags[2] {
            extra.push(j.tags.comm_share.map(|x| x.to_string()).unwrap_or_default());
        }
        let cells = [
            j.name.as_str(),
            &secs(j.submit),
            &gpus,
            &secs(j.work),
            &j.estimate.map(secs).unwrap_or_default(),
            &types,
            &format!("{}", j.cpu_milli as f64 / 1000.0),
            &format!("{}", j.mem_mib as f64 / 1024.0),
            &w.tenants
                .get(j.tenant as usize)
                .cloned()
                .unwrap_or_default(),
            &j.priority.to_string(),
            &j.deadline.map(secs).unwrap_or_default(),
            if j.preemptible { "true" } else { "false" },
        ];
        wr.write_record(
            cells
                .iter()
                .copied()
                .chain(extra.iter().map(String::as_str)),
        )?;
    }
    wr.flush()
}

/// The generic CSV reader as a trace format: the GPU-count filters apply (the format has
/// no status to filter on).
pub struct GenericCsv;

impl super::formats::TraceReader for GenericCsv {
    fn read(
        path: &Path,
        bad: BadRows,
        filter: RowFilter,
        _options: &super::formats::FormatOptions,
    ) -> Result<(Workload, TraceMeta), TraceError> {
        // Capped while reading, before the GPU filters (a scenario's `max_jobs` was not
        // applied to a generic trace: 100 million rows were kept whole).
        let mut w = read_generic_capped(path, bad, filter.max_jobs)?;
        // The generic reader has no status or filter; apply the GPU filter here.
        let before = w.jobs.len();
        if let Some(m) = filter.min_gpus {
            w.jobs.retain(|j| j.gpus.gpus_f64() >= m);
        }
        let mid = w.jobs.len();
        if let Some(m) = filter.max_gpus {
            w.jobs.retain(|j| j.gpus.gpus_f64() <= m);
        }
        let (a, b) = ((before - mid) as u64, (mid - w.jobs.len()) as u64);
        if a > 0 {
            w.filtered.push(("fewer GPUs than min_gpus".into(), a));
        }
        if b > 0 {
            w.filtered.push(("more GPUs than max_gpus".into(), b));
        }
        let meta = TraceMeta {
            file: path.to_path_buf(),
            rows: before as u64,
            statuses: [0, 0, 0, before as u64],
            ..TraceMeta::default()
        };
        if !filter.statuses.is_empty() && !filter.statuses.contains(&super::JobStatus::Unknown) {
            return Err(TraceError::File {
                file: path.to_path_buf(),
                reason: "the generic CSV has no job status to filter on".into(),
            });
        }
        Ok((w, meta))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, bad: BadRows) -> Result<Workload, TraceError> {
        read_generic_from(text.as_bytes(), Path::new("t.csv"), bad, None)
    }

    #[test]
    fn reads_and_sorts() {
        let w = read("job_id,submit_s,gpus,duration_s,tenant,gpu_type\nb,10,2,60,x,A100|H100\na,5,0.25,1.5,y,\n", BadRows::Stop).unwrap();
        assert_eq!(w.jobs.len(), 2);
        assert_eq!(w.jobs[0].name, "a");
        assert_eq!(w.jobs[0].gpus, GpuRequest::Fraction(250));
        assert_eq!(w.jobs[0].work, SimTime(1500));
        assert_eq!(w.jobs[1].gpu_types, TypeMask(0b11));
        assert_eq!(w.tenants, vec!["x", "y"]);
    }

    #[test]
    fn bad_rows_name_row_and_column() {
        let text = "job_id,submit_s,gpus,duration_s\na,0,1,10\nb,-3,1,10\nc,0,1,10\n";
        let e = read(text, BadRows::Stop).unwrap_err().to_string();
        assert!(e.contains("t.csv:3") && e.contains("submit_s"), "{e}");
        let w = read(text, BadRows::Skip).unwrap();
        assert_eq!((w.jobs.len(), w.skipped_rows), (2, 1));
        let e = read("job_id,submit_s,gpus,duration_s,color\n", BadRows::Stop)
            .unwrap_err()
            .to_string();
        assert!(e.contains("color"), "{e}");
        let e = read("job_id,submit_s,gpus\n", BadRows::Stop)
            .unwrap_err()
            .to_string();
        assert!(e.contains("duration_s"), "{e}");
        let e = read(
            "job_id,submit_s,gpus,duration_s\na,1,1.5,3\n",
            BadRows::Stop,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("gpus"), "{e}");
    }

    #[test]
    fn tag_columns_read_and_round_trip() {
        let text = "job_id,submit_s,gpus,duration_s,estimate_s,gpu_type,cpu,mem_gib,tenant,priority,deadline_s,preemptible,class,dataset,comm_share\na,0,8,10,,,0,0,t,0,,false,bert,imagenet,0.3\nb,1,1,10,,,0,0,t,0,,false,,,\n";
        let w = read(text, BadRows::Stop).unwrap();
        assert_eq!(w.classes, vec!["bert"]);
        assert_eq!(w.datasets, vec!["imagenet"]);
        assert_eq!(w.jobs[0].tags.class, Some(0));
        assert_eq!(w.jobs[0].tags.dataset, Some(0));
        assert_eq!(w.jobs[0].tags.comm_share, Some(0.3));
        assert_eq!(w.jobs[1].tags, crate::model::JobTags::NONE);
        let mut out = Vec::new();
        write_generic_csv(&w, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), text);
        let e = read(
            "job_id,submit_s,gpus,duration_s,comm_share\na,0,1,1,1.5\n",
            BadRows::Stop,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("t.csv:2") && e.contains("comm_share"), "{e}");
    }

    #[test]
    fn round_trips() {
        let text = "job_id,submit_s,gpus,duration_s,estimate_s,gpu_type,cpu,mem_gib,tenant,priority,deadline_s,preemptible\na,1.5,0.125,10,20,T4,2,4,t,3,100,true\n";
        let w = read(text, BadRows::Stop).unwrap();
        let mut out = Vec::new();
        write_generic_csv(&w, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), text);
    }
}
