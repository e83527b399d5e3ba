//! Reader for the Alibaba PAI 2020 GPU trace (`cluster-trace-gpu-v2020`): the task table,
//! joined with the job table for users. Both files have no header row.
//!
//! `pai_task_table`: `job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type`;
//! `pai_job_table`: `job_name,inst_id,user,status,start_time,end_time`. Times are seconds.
//!
//! Mapping onto gpufleet jobs (one job per task, a gang of its instances):
//! - The name is `job_name/task_name`. PAI records no submission time, so `start_time` is
//!   the submit time (the trace's own queueing is lost; gpufleet computes its own).
//! - The work is `end_time - start_time`. A task with no `start_time` is dropped as "never
//!   started", one with no `end_time` as "no end time (running at trace end)"; both are
//!   counted.
//! - GPUs: `plan_gpu` is percent of one GPU per instance. Empty or 0 is a CPU-only task;
//!   one instance under 100 is a fractional request; whole multiples of 100 give
//!   `inst_num * plan_gpu / 100` whole GPUs; anything else (several fractional instances,
//!   150 %) is rounded up to whole GPUs and counted in `rounded_gpus`.
//! - CPU: `inst_num * plan_cpu / 100` cores; memory `inst_num * plan_mem` GB.
//! - `gpu_type` constrains the GPU model (empty: any; `MISC` is kept as a name, so map it
//!   with a GPU-type mapping).
//! - `status`: Terminated completed, Failed failed, anything else unknown.
//! - The tenant is the job's `user` from the job table when one is given, else `default`.
//!   A job the job table lists twice with different users is a bad row (the first row's
//!   user is kept when bad rows are skipped). The job table is held to the run's
//!   `max_jobs` jobs as it is read, as the task table is.
//!
//! The PAI job logs are not distributed with this project; the readers are tested on
//! hand-written fixtures built from the published headers.

use super::csv_rows::{field, open, CsvRows};
use super::trace::{JobStatus, RowError, RowFilter, RowSink, TraceMeta, TraceRow, DROPPED};
use super::value::parse_f64;
use super::{BadRows, TraceError, Workload};
use crate::model::GpuRequest;
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

const TASK: [&str; 10] = [
    "job_name",
    "task_name",
    "inst_num",
    "status",
    "start_time",
    "end_time",
    "plan_cpu",
    "plan_mem",
    "plan_gpu",
    "gpu_type",
];

/// Users of PAI jobs, from the job table: `job_name -> user`.
#[derive(Debug, Clone, Default)]
pub struct PaiUsers {
    by_job: HashMap<String, u32>,
    names: Vec<String>,
    /// Job-table rows skipped as bad (with skip-bad-rows).
    pub skipped_rows: u64,
    /// The job table read (named where its skipped rows are counted).
    pub file: std::path::PathBuf,
}

impl PaiUsers {
    /// The user of `job`, if the job table lists it.
    pub fn user(&self, job: &str) -> Option<&str> {
        self.by_job
            .get(job)
            .map(|&i| self.names[i as usize].as_str())
    }
    /// Jobs listed.
    pub fn len(&self) -> usize {
        self.by_job.len()
    }
    /// True when no job is listed.
    pub fn is_empty(&self) -> bool {
        self.by_job.is_empty()
    }
}

/// Reads the job table (`job_name,inst_id,user,status,start_time,end_time`) for its users,
/// stopping with an error once it lists more than `max_jobs` jobs (a run's `max_jobs`;
/// `None`: no cap), while reading: each job listed is held for the join.
pub fn read_pai_job_table(
    path: &Path,
    bad: BadRows,
    max_jobs: Option<u64>,
) -> Result<PaiUsers, TraceError> {
    read_pai_job_table_from(open(path)?, path, bad, max_jobs)
}

/// Reads a PAI job table from any reader (`path` names it in errors).
pub fn read_pai_job_table_from<R: Read>(
    input: R,
    path: &Path,
    bad: BadRows,
    max_jobs: Option<u64>,
) -> Result<PaiUsers, TraceError> {
    let mut users = PaiUsers {
        file: path.to_path_buf(),
        ..PaiUsers::default()
    };
    let mut user_ix: HashMap<String, u32> = HashMap::new();
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(input);
    let mut rec = csv::StringRecord::new();
    let err = |row: u64, column: &str, reason: String| TraceError::Row {
        file: path.to_path_buf(),
        row,
        column: column.to_string(),
        reason,
    };
    loop {
        let line = rdr.position().line();
        let problem = match rdr.read_record(&mut rec) {
            Ok(false) => break,
            Ok(true) if rec.len() == 1 && field(&rec, 0).is_empty() => continue,
            Ok(true) if rec.len() != 6 => {
                Some(("", format!("{} fields, the job table has 6", rec.len())))
            }
            Ok(true) if field(&rec, 0).is_empty() => {
                Some(("job_name", "missing value".to_string()))
            }
            Ok(true) => None,
            Err(e) => {
                if let Some(f) = super::csv_rows::fatal(path, &e) {
                    return Err(f);
                }
                Some(("", e.to_string()))
            }
        };
        if let Some((col, reason)) = problem {
            match bad {
                BadRows::Stop => return Err(err(line, col, reason)),
                BadRows::Skip => {
                    users.skipped_rows += 1;
                    continue;
                }
            }
        }
        let user = match field(&rec, 2) {
            "" => "unknown",
            u => u,
        };
        // A job listed again with another user is a contradiction the join cannot settle
        // (the later row used to win without a word); listed again with the same user, it
        // changes nothing.
        if let Some(&was) = users.by_job.get(field(&rec, 0)) {
            let earlier = &users.names[was as usize];
            if earlier != user {
                let reason = format!(
                    "job {:?} is listed again with user {user:?} (earlier {earlier:?})",
                    field(&rec, 0)
                );
                match bad {
                    BadRows::Stop => return Err(err(line, "user", reason)),
                    BadRows::Skip => {
                        users.skipped_rows += 1;
                        continue;
                    }
                }
            }
            continue;
        }
        if let Some(m) = max_jobs.filter(|&m| users.by_job.len() as u64 >= m) {
            return Err(TraceError::File {
                file: path.to_path_buf(),
                reason: super::trace::too_many_jobs(m),
            });
        }
        let ix = match user_ix.get(user) {
            Some(&i) => i,
            None => {
                users.names.push(user.to_string());
                let i = (users.names.len() - 1) as u32;
                user_ix.insert(user.to_string(), i);
                i
            }
        };
        users.by_job.insert(field(&rec, 0).to_string(), ix);
    }
    if users.by_job.is_empty() && users.skipped_rows == 0 {
        return Err(TraceError::File {
            file: path.to_path_buf(),
            reason: "no jobs in the job table".into(),
        });
    }
    Ok(users)
}

fn gpu_request(inst: u64, plan_gpu: f64, rounded: &mut bool) -> Result<GpuRequest, String> {
    if plan_gpu <= 0.0 || inst == 0 {
        return Ok(GpuRequest::None);
    }
    let pct = plan_gpu.round() as u64;
    if inst == 1 && plan_gpu < 100.0 {
        // Percent of one GPU to the milli-GPU (0.3 % was rounded to 0 %, then up to 0.1 %).
        return super::value::gpu_fraction(plan_gpu / 100.0)
            .ok_or_else(|| format!("{plan_gpu} % of a GPU is below the smallest fraction, 0.1 %"));
    }
    // More GPUs than a job may ask for is refused, not clamped to the limit (2,000,000
    // GPUs became 1,000,000 silently).
    let total = |g: u64| -> Result<GpuRequest, String> {
        super::value::whole_gpus(g).map_err(|e| e.to_string())
    };
    if pct.is_multiple_of(100) && (plan_gpu - pct as f64).abs() < 1e-9 {
        let g = inst
            .checked_mul(pct)
            .ok_or_else(|| format!("{inst} instances of {plan_gpu} % of a GPU is too many GPUs"))?;
        return total((g / 100).max(1));
    }
    *rounded = true;
    let g = (inst as f64 * plan_gpu / 100.0).ceil();
    if g > 1e6 {
        return Err(format!("{g} GPUs is more than 1000000"));
    }
    total((g as u64).max(1))
}

fn parse_task<'r>(
    rec: &'r csv::StringRecord,
    buf: &'r mut [String; 2],
    users: Option<&PaiUsers>,
    rounded: &mut bool,
) -> Result<TraceRow<'r>, RowError> {
    if rec.len() != 10 {
        return Err(("", format!("{} fields, the task table has 10", rec.len())));
    }
    let f = |k: usize| field(rec, k);
    let num = |k: usize| -> Result<f64, RowError> {
        match f(k) {
            "" => Ok(0.0),
            v => match parse_f64(v) {
                Ok(x) if (0.0..1e12).contains(&x) => Ok(x),
                Ok(_) => Err((TASK[k], format!("{v:?} is not a non-negative number"))),
                // Overflow, underflow, `nan`: the value's own error says which.
                Err(e) => Err((TASK[k], e.to_string())),
            },
        }
    };
    if f(0).is_empty() {
        return Err(("job_name", "missing value".into()));
    }
    let inst = num(2)?;
    if inst.fract() != 0.0 || inst > 1e6 {
        return Err((
            "inst_num",
            format!("{:?} is not a whole instance count", f(2)),
        ));
    }
    if f(4).is_empty() {
        return Err((DROPPED, "never started (no start_time)".into()));
    }
    if f(5).is_empty() {
        return Err((DROPPED, "no end time (running at trace end)".into()));
    }
    let start = num(4)?;
    let end = num(5)?;
    if end < start {
        return Err(("end_time", "end_time is before start_time".into()));
    }
    let (cpu, mem, gpu) = (num(6)?, num(7)?, num(8)?);
    let inst = inst as u64;
    let gpus = gpu_request(inst, gpu, rounded).map_err(|e| (TASK[8], e))?;
    let [name_buf, tenant_buf] = buf;
    name_buf.clear();
    name_buf.push_str(f(0));
    name_buf.push('/');
    name_buf.push_str(f(1));
    tenant_buf.clear();
    tenant_buf.push_str(match users {
        None => "default",
        Some(u) => u.user(f(0)).unwrap_or("unknown"),
    });
    let status = match f(3) {
        "Terminated" => JobStatus::Completed,
        "Failed" => JobStatus::Failed,
        _ => JobStatus::Unknown,
    };
    Ok(TraceRow {
        name: name_buf.as_str(),
        submit_ms: (start * 1000.0).round() as i64,
        gpus,
        gpu_types: f(9),
        work_ms: ((end - start) * 1000.0).round() as u64,
        estimate_ms: None,
        tenant: tenant_buf.as_str(),
        status,
        cpu_milli: (inst as f64 * cpu * 10.0).min(u32::MAX as f64) as u32,
        mem_mib: (inst as f64 * mem * 1024.0) as u64,
    })
}

/// Reads a PAI task table from `path`, with users from `users` (the job table) if given.
pub fn read_pai(
    path: &Path,
    users: Option<&PaiUsers>,
    bad: BadRows,
    filter: RowFilter,
) -> Result<(Workload, TraceMeta), TraceError> {
    read_pai_from(open(path)?, path, users, bad, filter)
}

/// Reads a PAI task table from any reader (`path` names it in errors).
pub fn read_pai_from<R: Read>(
    input: R,
    path: &Path,
    users: Option<&PaiUsers>,
    bad: BadRows,
    filter: RowFilter,
) -> Result<(Workload, TraceMeta), TraceError> {
    let mut sink = RowSink::new(path, bad, filter);
    sink.text_columns = ["job_name/task_name", "user", "gpu_type"];
    let rows = CsvRows::new(input, false, &sink)?;
    let mut rounded = 0u64;
    rows.feed(&mut sink, |rec, buf| {
        let mut r = false;
        let row = parse_task(rec, buf, users, &mut r);
        if r && row.is_ok() {
            rounded += 1;
        }
        row
    })?;
    sink.meta.rounded_gpus = rounded;
    let (mut w, meta) = sink.finish()?;
    if let Some(u) = users {
        if u.skipped_rows > 0 {
            // The task table's own count first, then the job table's.
            w.skipped_by_file
                .push((path.display().to_string(), w.skipped_rows));
            w.skipped_by_file
                .push((u.file.display().to_string(), u.skipped_rows));
        }
        w.skipped_rows += u.skipped_rows;
    }
    Ok((w, meta))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TASKS: &str = "j1,worker,8,Terminated,100,460,600,29.3,100,V100\n\
        j2,tensorflow,1,Failed,50,60,400,10,50,\n\
        j3,worker,2,Terminated,70,80,100,1,50,T4\n\
        j4,ps,1,Running,90,,100,1,,\n";
    const JOBS: &str = "j1,i1,alice,Terminated,100,460\nj2,i2,bob,Failed,50,60\n";

    #[test]
    fn maps_fixture() {
        let users =
            read_pai_job_table_from(JOBS.as_bytes(), Path::new("jobs.csv"), BadRows::Stop, None)
                .unwrap();
        assert_eq!(users.user("j2"), Some("bob"));
        let (w, meta) = read_pai_from(
            TASKS.as_bytes(),
            Path::new("t.csv"),
            Some(&users),
            BadRows::Stop,
            RowFilter::default(),
        )
        .unwrap();
        assert_eq!(w.jobs.len(), 3);
        assert_eq!(
            w.filtered,
            vec![("no end time (running at trace end)".to_string(), 1)]
        );
        // Sorted by start: j2 (50), j3 (70), j1 (100); origin 50 s.
        assert_eq!(w.jobs[0].name, "j2/tensorflow");
        assert_eq!(w.jobs[0].gpus, GpuRequest::Fraction(500));
        assert_eq!(w.jobs[0].work.0, 10_000);
        assert_eq!(w.jobs[1].gpus, GpuRequest::Whole(1)); // 2 x 50 % rounded up
        assert_eq!(meta.rounded_gpus, 1);
        assert_eq!(w.jobs[2].gpus, GpuRequest::Whole(8));
        assert_eq!(w.jobs[2].cpu_milli, 48_000);
        assert_eq!(w.jobs[2].submit.0, 50_000);
        assert_eq!(w.tenants[w.jobs[2].tenant as usize], "alice");
        assert_eq!(w.tenants[w.jobs[1].tenant as usize], "unknown");
        assert_eq!(w.gpu_types, vec!["V100", "T4"]);
    }

    #[test]
    fn bad_rows() {
        let e = read_pai_from(
            "j1,w,1,Terminated,5,x,1,1,100,V100\n".as_bytes(),
            Path::new("t.csv"),
            None,
            BadRows::Stop,
            RowFilter::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("t.csv:1") && e.contains("end_time"), "{e}");
        let e = read_pai_job_table_from(
            "j1,i1\n".as_bytes(),
            Path::new("j.csv"),
            BadRows::Stop,
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("j.csv:1") && e.contains("6"), "{e}");
    }
}
