//! Reader for the Microsoft Philly job log (`cluster_job_log`, ATC'19): one JSON array of
//! jobs, read element by element (the array is never held whole).
//!
//! Each job: `jobid`, `user`, `vc`, `submitted_time`, `status` (Pass/Killed/Failed) and
//! `attempts`, each with `start_time`, `end_time` (`YYYY-MM-DD HH:MM:SS`, or null/`"None"`)
//! and `detail`, a list of machines with their `gpus` (a list of GPU names).
//!
//! Mapping onto gpufleet jobs:
//! - `jobid` is the name, `submitted_time` the submit time, `vc` the tenant (`user` when
//!   `vc` is missing).
//! - The work is the sum over attempts of `end_time - start_time` (attempts without both
//!   times add nothing); a job with no timed attempt is dropped and counted as "never ran".
//! - The GPU count is the number of GPUs of the last timed attempt (the one that ended the
//!   job); 0 GPUs makes a CPU-only job.
//! - `status`: Pass completed, Killed cancelled, Failed failed, else unknown.
//! - Dropped: machine names (placement is gpufleet's) and per-attempt timing beyond the sum.
//!
//! Jobs are found by a splitter that tracks strings and brackets, so each job is parsed
//! on its own: the row in an error is the line where the job's object starts, and the
//! message says which job of the array it is. A job with a syntax error, a wrong type or a
//! missing field is a bad row (skippable); text outside the job objects (no `[`, an
//! unclosed array) is an error about the file. Commas between jobs are not checked.
//!
//! The Philly log is not distributed with this project; the reader is tested on
//! hand-written fixtures built from the published schema.

use super::trace::{JobStatus, RowError, RowFilter, RowSink, TraceMeta, TraceRow, DROPPED};
use super::value::{parse_datetime_ms, whole_gpus};
use super::{BadRows, TraceError, Workload};
use serde::de::{Deserializer, IgnoredAny, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::io::BufRead;
use std::path::Path;

/// A JSON string (borrowed when it has no escapes), or null.
#[derive(Default)]
struct Text<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or null")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Text<'a>, E> {
                Ok(Text(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Text<'a>, E> {
                Ok(Text(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Text<'a>, E> {
                Ok(Text(None))
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<Text<'a>, E> {
                Ok(Text(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl Text<'_> {
    fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

#[derive(Deserialize)]
struct Job<'a> {
    #[serde(borrow, default)]
    jobid: Text<'a>,
    #[serde(borrow, default)]
    user: Text<'a>,
    #[serde(borrow, default)]
    vc: Text<'a>,
    #[serde(borrow, default)]
    submitted_time: Text<'a>,
    #[serde(borrow, default)]
    status: Text<'a>,
    #[serde(borrow, default)]
    attempts: Option<Vec<Attempt<'a>>>,
}

#[derive(Deserialize)]
struct Attempt<'a> {
    #[serde(borrow, default)]
    start_time: Text<'a>,
    #[serde(borrow, default)]
    end_time: Text<'a>,
    #[serde(default)]
    detail: Option<Vec<Machine>>,
}

#[derive(Deserialize)]
struct Machine {
    #[serde(default)]
    gpus: Option<Vec<IgnoredAny>>,
}

/// Names the first field of `raw` whose JSON type is wrong (the slow path, on errors only).
fn wrong_field(raw: &[u8]) -> &'static str {
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(raw) else {
        return "";
    };
    let Some(o) = v.as_object() else {
        return "(job)";
    };
    let str_or_null = |k: &str| o.get(k).is_none_or(|x| x.is_string() || x.is_null());
    for k in ["jobid", "user", "vc", "submitted_time", "status"] {
        if !str_or_null(k) {
            return match k {
                "jobid" => "jobid",
                "user" => "user",
                "vc" => "vc",
                "submitted_time" => "submitted_time",
                _ => "status",
            };
        }
    }
    "attempts"
}

fn time(v: Option<&str>) -> Option<&str> {
    v.filter(|s| !s.is_empty() && *s != "None")
}

fn map_job<'j>(j: &'j Job<'_>) -> Result<TraceRow<'j>, RowError> {
    let name = j
        .jobid
        .get()
        .filter(|s| !s.is_empty())
        .ok_or(("jobid", "missing value".to_string()))?;
    let submit = parse_datetime_ms(
        time(j.submitted_time.get()).ok_or(("submitted_time", "missing value".to_string()))?,
    )
    .map_err(|e| ("submitted_time", e.to_string()))?;
    let mut work = 0u64;
    let mut gpus = None;
    for a in j.attempts.iter().flatten() {
        let (Some(s), Some(e)) = (time(a.start_time.get()), time(a.end_time.get())) else {
            continue;
        };
        let s = parse_datetime_ms(s).map_err(|e| ("attempts.start_time", e.to_string()))?;
        let e = parse_datetime_ms(e).map_err(|e| ("attempts.end_time", e.to_string()))?;
        if e < s {
            return Err(("attempts.end_time", "end_time is before start_time".into()));
        }
        work = work.saturating_add((e - s) as u64);
        // Summed over many attempts, the work may pass the longest time a trace holds.
        if work as f64 > super::value::MAX_TRACE_SECS * 1000.0 {
            return Err((
                "attempts",
                format!(
                    "the attempts sum to {} seconds: too large (more than 1e14, about 3 million years)",
                    work / 1000
                ),
            ));
        }
        gpus = Some(
            a.detail
                .iter()
                .flatten()
                .map(|m| m.gpus.as_ref().map_or(0, |g| g.len() as u64))
                .sum::<u64>(),
        );
    }
    let Some(gpus) = gpus else {
        return Err((DROPPED, "never ran (no attempt with start and end)".into()));
    };
    let status = match j.status.get() {
        Some("Pass") => JobStatus::Completed,
        Some("Killed") => JobStatus::Cancelled,
        Some("Failed") => JobStatus::Failed,
        _ => JobStatus::Unknown,
    };
    Ok(TraceRow {
        name,
        submit_ms: submit,
        gpus: whole_gpus(gpus).map_err(|e| ("attempts.detail.gpus", e.to_string()))?,
        gpu_types: "",
        work_ms: work,
        estimate_ms: None,
        tenant: j
            .vc
            .get()
            .filter(|s| !s.is_empty())
            .or(j.user.get().filter(|s| !s.is_empty()))
            .unwrap_or("default"),
        status,
        cpu_milli: 0,
        mem_mib: 0,
    })
}

/// Where the splitter is in the array.
#[derive(Clone, Copy, PartialEq, Eq)]
enum At {
    Before,
    Between,
    InObject,
    After,
}

/// The longest job object read (a real one, with its attempts, is a few kilobytes).
const MAX_OBJECT_BYTES: usize = 4 * super::MAX_LINE_BYTES;

/// Splits a JSON array of objects into the objects' bytes without parsing them, calling
/// `f(line, object)` for each (`line` is where the object starts). Streams through
/// `input` holding one object at a time. Commas between objects are not checked; any
/// other text outside the objects is an error `(line, reason)`.
fn for_each_object<R: BufRead>(
    mut input: R,
    mut f: impl FnMut(u64, &[u8]) -> Result<(), TraceError>,
) -> Result<Result<(), (u64, String)>, TraceError> {
    let mut obj: Vec<u8> = Vec::with_capacity(1024);
    let (mut at, mut depth, mut in_str, mut esc) = (At::Before, 0u32, false, false);
    let (mut line, mut obj_line) = (1u64, 1u64);
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Ok(Err((line, format!("cannot read: {e}")))),
        };
        if buf.is_empty() {
            break;
        }
        let n = buf.len();
        let mut i = 0;
        while i < n {
            if at == At::InObject {
                let start = i;
                let mut done = false;
                while i < n {
                    if esc {
                        // An escape split across two buffer fills: skip the escaped byte.
                        esc = false;
                        i += 1;
                        continue;
                    }
                    if in_str {
                        // Strings hold no raw newlines or brackets: jump to a quote or escape.
                        match memchr::memchr2(b'"', b'\\', &buf[i..]) {
                            None => i = n,
                            Some(k) => {
                                i += k + 1;
                                if buf[i - 1] == b'"' {
                                    in_str = false;
                                } else if i < n {
                                    i += 1;
                                } else {
                                    esc = true;
                                }
                            }
                        }
                        continue;
                    }
                    let c = buf[i];
                    i += 1;
                    match c {
                        b'\n' => line += 1,
                        b'"' => in_str = true,
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                done = true;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                obj.extend_from_slice(&buf[start..i]);
                if obj.len() > MAX_OBJECT_BYTES {
                    return Ok(Err((
                        obj_line,
                        format!(
                            "a job object longer than {MAX_OBJECT_BYTES} bytes (the limit of one job)"
                        ),
                    )));
                }
                if done {
                    f(obj_line, &obj)?;
                    obj.clear();
                    at = At::Between;
                }
                continue;
            }
            let c = buf[i];
            i += 1;
            match (at, c) {
                (_, b'\n') => line += 1,
                (_, b' ' | b'\t' | b'\r') => {}
                (At::Before, b'[') => at = At::Between,
                (At::Between, b',') => {}
                (At::Between, b'{') => {
                    at = At::InObject;
                    depth = 1;
                    obj_line = line;
                    obj.push(b'{');
                }
                (At::Between, b']') => at = At::After,
                (At::Before, _) => {
                    return Ok(Err((line, "not a JSON array (expected '[')".into())))
                }
                (At::Between, _) => {
                    return Ok(Err((
                        line,
                        "expected a job object ('{') or the end of the array".into(),
                    )))
                }
                _ => return Ok(Err((line, "text after the end of the array".into()))),
            }
        }
        input.consume(n);
    }
    Ok(match at {
        At::After => Ok(()),
        At::Before => Err((line, "empty file: not a JSON array".into())),
        _ => Err((
            line,
            "unexpected end of file: the array is not closed".into(),
        )),
    })
}

/// Reads a Philly job log from `path`.
pub fn read_philly(
    path: &Path,
    bad: BadRows,
    filter: RowFilter,
) -> Result<(Workload, TraceMeta), TraceError> {
    let file = std::fs::File::open(path).map_err(|source| TraceError::Io {
        file: path.to_path_buf(),
        source,
    })?;
    read_philly_from(
        std::io::BufReader::with_capacity(1 << 16, file),
        path,
        bad,
        filter,
    )
}

/// Reads a Philly job log from any buffered reader (`path` names it in errors).
pub fn read_philly_from<R: BufRead>(
    input: R,
    path: &Path,
    bad: BadRows,
    filter: RowFilter,
) -> Result<(Workload, TraceMeta), TraceError> {
    let mut input = input;
    // A UTF-8 byte-order mark (as Windows editors save JSON) before the array: skipped, as
    // the CSV and SWF readers skip it (it was "not a JSON array (expected '[')").
    if input
        .fill_buf()
        .map_err(|source| TraceError::Io {
            file: path.to_path_buf(),
            source,
        })?
        .starts_with(b"\xef\xbb\xbf")
    {
        input.consume(3);
    }
    let mut sink = RowSink::new(path, bad, filter);
    sink.text_columns = ["jobid", "vc", "gpu_type"];
    let mut k = 0u64;
    let res = for_each_object(input, |line, bytes| {
        k += 1;
        let job = serde_json::from_slice::<Job>(bytes);
        let parsed = match &job {
            Ok(j) => map_job(j),
            Err(e) => Err((wrong_field(bytes), e.to_string())),
        };
        let parsed = parsed.map_err(|(c, r)| {
            if c == DROPPED {
                (c, r)
            } else {
                (c, format!("job {k}: {r}"))
            }
        });
        sink.take(line, parsed)
    })?;
    if let Err((line, reason)) = res {
        return Err(sink.file_error(format!("line {line}: {reason}")));
    }
    sink.meta.wall_clock = true;
    sink.finish()
}

/// The Philly reader.
pub struct Philly;

impl super::formats::TraceReader for Philly {
    fn read(
        path: &Path,
        bad: BadRows,
        filter: RowFilter,
        _options: &super::formats::FormatOptions,
    ) -> Result<(Workload, TraceMeta), TraceError> {
        read_philly(path, bad, filter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::GpuRequest;

    const FIXTURE: &str = r#"[
 {"status": "Pass", "vc": "vc1", "jobid": "application_1", "user": "u1",
  "submitted_time": "2017-10-03 04:35:46",
  "attempts": [
    {"start_time": "2017-10-03 04:35:54", "end_time": "2017-10-03 04:36:54",
     "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1"]}]},
    {"start_time": "2017-10-03 05:00:00", "end_time": "2017-10-03 05:10:00",
     "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]}, {"ip": "m2", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]}]}]},
 {"status": "Killed", "vc": "vc2", "jobid": "application_2", "user": "u2",
  "submitted_time": "2017-10-03 04:30:00", "attempts": []},
 {"status": "Failed", "vc": null, "jobid": "application_3", "user": "u3",
  "submitted_time": "2017-10-03 04:00:00",
  "attempts": [{"start_time": "2017-10-03 04:00:10", "end_time": "None", "detail": []},
               {"start_time": "2017-10-03 04:01:00", "end_time": "2017-10-03 04:01:30", "detail": [{"ip": "m3", "gpus": ["gpu7"]}]}]}
]"#;

    fn read(t: &str, bad: BadRows) -> Result<(Workload, TraceMeta), TraceError> {
        read_philly_from(t.as_bytes(), Path::new("p.json"), bad, RowFilter::default())
    }

    #[test]
    fn maps_fixture() {
        let (w, meta) = read(FIXTURE, BadRows::Stop).unwrap();
        assert_eq!(w.jobs.len(), 2);
        assert_eq!(w.filtered.len(), 1);
        assert_eq!(w.jobs[0].name, "application_3");
        assert_eq!(w.jobs[0].work.0, 30_000);
        assert_eq!(w.jobs[0].gpus, GpuRequest::Whole(1));
        assert_eq!(w.tenants[w.jobs[0].tenant as usize], "u3");
        // Job 1: 60 s + 600 s over two attempts, last attempt on 8 GPUs; submitted 35:46 after job 3.
        assert_eq!(w.jobs[1].work.0, 660_000);
        assert_eq!(w.jobs[1].gpus, GpuRequest::Whole(8));
        assert_eq!(w.jobs[1].submit.0, (35 * 60 + 46) * 1000);
        assert_eq!(meta.statuses, [1, 1, 0, 0]);
    }

    #[test]
    fn bad_jobs() {
        let t = r#"[{"jobid": "a", "submitted_time": 5, "attempts": []}, {"jobid": "b", "submitted_time": "2017-01-01 00:00:00", "attempts": [{"start_time": "2017-01-01 00:00:00", "end_time": "2017-01-01 00:00:01", "detail": []}]}]"#;
        let e = read(t, BadRows::Stop).unwrap_err().to_string();
        assert!(
            e.contains("p.json:1") && e.contains("submitted_time"),
            "{e}"
        );
        let (w, _) = read(t, BadRows::Skip).unwrap();
        assert_eq!((w.jobs.len(), w.skipped_rows), (1, 1));
        let e = read(r#"[{"jobid": "a""#, BadRows::Skip)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not closed"), "{e}");
        assert!(read("{}", BadRows::Skip).is_err());
        assert!(read("[]", BadRows::Skip).is_err());
    }
}
