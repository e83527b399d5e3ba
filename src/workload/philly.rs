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
//! Rows are jobs: the row number in an error is the job's position in the array
//! (1-based). A JSON syntax error ends the read in both bad-row modes (the parser cannot
//! find the next job), reporting the line and column; a job with a wrong or missing
//! field is a bad row. The Philly log is not distributed with this project; the reader is
//! tested on hand-written fixtures built from the published schema.

use super::trace::{
    parse_datetime_ms, whole_gpus, JobStatus, RowError, RowFilter, RowSink, TraceMeta, TraceRow,
    DROPPED,
};
use super::{BadRows, TraceError, Workload};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::io::Read;
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
fn wrong_field(raw: &str) -> &'static str {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(raw) else {
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
    .map_err(|e| ("submitted_time", e))?;
    let mut work = 0u64;
    let mut gpus = None;
    for a in j.attempts.iter().flatten() {
        let (Some(s), Some(e)) = (time(a.start_time.get()), time(a.end_time.get())) else {
            continue;
        };
        let s = parse_datetime_ms(s).map_err(|e| ("attempts.start_time", e))?;
        let e = parse_datetime_ms(e).map_err(|e| ("attempts.end_time", e))?;
        if e < s {
            return Err(("attempts.end_time", "end_time is before start_time".into()));
        }
        work += (e - s) as u64;
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
        gpus: whole_gpus(gpus).map_err(|e| ("attempts.detail.gpus", e))?,
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

struct Jobs<'s> {
    sink: &'s mut RowSink,
    failed: Option<TraceError>,
}

impl<'de> Visitor<'de> for &mut Jobs<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON array of Philly jobs")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut row = 0u64;
        while let Some(raw) = seq.next_element::<Box<RawValue>>()? {
            row += 1;
            let job = serde_json::from_str::<Job>(raw.get());
            let taken = match &job {
                Ok(j) => self.sink.take(row, map_job(j)),
                Err(e) => self
                    .sink
                    .take(row, Err((wrong_field(raw.get()), format!("{e}")))),
            };
            if let Err(e) = taken {
                self.failed = Some(e);
                return Err(serde::de::Error::custom("stopped at a bad job"));
            }
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for &mut Jobs<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
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

/// Reads a Philly job log from any reader (`path` names it in errors).
pub fn read_philly_from<R: Read>(
    input: R,
    path: &Path,
    bad: BadRows,
    filter: RowFilter,
) -> Result<(Workload, TraceMeta), TraceError> {
    let mut sink = RowSink::new(path, bad, filter);
    let mut de = serde_json::Deserializer::from_reader(input);
    let mut jobs = Jobs {
        sink: &mut sink,
        failed: None,
    };
    let res = (&mut jobs).deserialize(&mut de).and_then(|_| de.end());
    if let Some(e) = jobs.failed.take() {
        return Err(e);
    }
    if let Err(e) = res {
        return Err(sink.file_error(format!("not a JSON array of jobs: {e}")));
    }
    sink.meta.wall_clock = true;
    sink.finish()
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
        assert!(e.contains("JSON"), "{e}");
        assert!(read("{}", BadRows::Skip).is_err());
        assert!(read("[]", BadRows::Skip).is_err());
    }
}
