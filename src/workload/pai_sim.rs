//! Reader for the input CSV of Alibaba's PAI-2020 simulator (alibaba/clusterdata,
//! `cluster-trace-gpu-v2020/simulator`), so that its experiments replay in gpufleet.
//!
//! Header (columns in any order, all required): `job_id,user,gpu_type,num_inst,
//! submit_time,duration,num_cpu,num_gpu,user_dur,group_dur,group_gpu_dur`.
//! `num_gpu` (GPUs, may be fractional such as 0.5) and `num_cpu` (cores) are per
//! instance; a job asks for `num_inst x num_gpu` GPUs in all, all at once. `duration` and
//! the three `*_dur` estimates are seconds. A job's total GPU request becomes a whole
//! count when it is one, a share of one GPU when below 1, and otherwise is rounded up to
//! whole GPUs (counted in `Workload::filtered` as "gpus rounded up", never silently).
//!
//! The simulator ignores GPU types; so does this reader unless asked (`use_gpu_type`).
//! `MISC` and `CPU` and empty types never constrain.
//!
//! Arrival rewrite (the simulator's `arrival_rate` option): jobs ordered by
//! (submit_time, job_id) and job k of that order arrives at floor(k / r) x 60 s for r
//! arrivals per minute. Job ids that are all integers compare as numbers.

use super::value::parse_non_negative;
use super::{BadRows, TraceError};
use crate::engine::SimTime;
use crate::model::{GpuRequest, Job, TypeMask, Workload, MILLI_PER_GPU};
use std::io::Read;
use std::path::Path;

/// The simulator's columns.
pub const PAI_SIM_COLUMNS: [&str; 11] = [
    "job_id",
    "user",
    "gpu_type",
    "num_inst",
    "submit_time",
    "duration",
    "num_cpu",
    "num_gpu",
    "user_dur",
    "group_dur",
    "group_gpu_dur",
];

/// Which column, if any, schedulers see as the runtime estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PaiEstimate {
    /// None: schedulers plan with the true duration.
    #[default]
    None,
    /// `user_dur`.
    User,
    /// `group_dur`.
    Group,
    /// `group_gpu_dur`.
    GroupGpu,
}

/// How to read a PAI simulator trace.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PaiSimOptions {
    /// Rewrite arrivals to this many jobs per minute (`None`: keep `submit_time`).
    pub arrivals_per_minute: Option<f64>,
    /// Which estimate column schedulers see.
    pub estimate: PaiEstimate,
    /// Constrain jobs to their `gpu_type` (the simulator does not).
    pub use_gpu_type: bool,
    /// Bad-row handling.
    pub bad_rows: BadRows,
    /// Stop with an error past this many jobs (the scenario's `max_jobs`).
    pub max_jobs: Option<u64>,
}

/// Reads a PAI simulator CSV from `path`.
pub fn read_pai_sim_csv(path: &Path, opts: PaiSimOptions) -> Result<Workload, TraceError> {
    read_pai_sim_from(super::csv_rows::open(path)?, path, opts)
}

/// Reads a PAI simulator CSV from any reader (`path` names it in errors).
pub fn read_pai_sim_from<R: Read>(
    input: R,
    path: &Path,
    opts: PaiSimOptions,
) -> Result<Workload, TraceError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(input);
    let headers = rdr
        .headers()
        .map_err(|e| TraceError::File {
            file: path.to_path_buf(),
            reason: format!("cannot read the header row: {e}"),
        })?
        .clone();
    let mut col = [usize::MAX; 11];
    for (i, h) in headers.iter().enumerate() {
        if let Some(k) = PAI_SIM_COLUMNS.iter().position(|c| *c == h.trim()) {
            if col[k] != usize::MAX {
                return Err(TraceError::Row {
                    file: path.to_path_buf(),
                    row: 1,
                    column: h.to_string(),
                    reason: format!("appears twice (columns {} and {})", col[k] + 1, i + 1),
                });
            }
            col[k] = i;
        } else if !h.trim().is_empty() {
            return Err(TraceError::Row {
                file: path.to_path_buf(),
                row: 1,
                column: h.to_string(),
                reason: format!("unknown column (known: {})", PAI_SIM_COLUMNS.join(", ")),
            });
        }
    }
    if let Some(k) = col.iter().position(|&c| c == usize::MAX) {
        return Err(TraceError::File {
            file: path.to_path_buf(),
            reason: format!(
                "missing required column {:?} in the header row",
                PAI_SIM_COLUMNS[k]
            ),
        });
    }
    let mut w = Workload::default();
    let mut names = crate::model::NameIndex::default();
    // (submit seconds, job id) per job, for the arrival rewrite.
    let mut keys: Vec<(f64, String)> = Vec::new();
    let mut rounded = 0u64;
    let mut rec = csv::StringRecord::new();
    let mut lines: Vec<u64> = Vec::new();
    loop {
        let line = rdr.position().line() + 1;
        let res = match rdr.read_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => parse_row(&rec, &col, &mut w, &mut names, opts),
            Err(e) => {
                if let Some(f) = super::csv_rows::fatal(path, &e) {
                    return Err(f);
                }
                Err((usize::MAX, e.to_string()))
            }
        };
        let row = rec.position().map(|p| p.line()).unwrap_or(line);
        match res {
            Ok(_) if opts.max_jobs.is_some_and(|m| w.jobs.len() as u64 >= m) => {
                return Err(TraceError::File {
                    file: path.to_path_buf(),
                    reason: super::trace::too_many_jobs(opts.max_jobs.unwrap_or(0)),
                })
            }
            Ok((job, submit_s, r)) => {
                rounded += r as u64;
                keys.push((submit_s, job.name.clone()));
                w.jobs.push(job);
                lines.push(row);
            }
            Err((k, reason)) => match opts.bad_rows {
                BadRows::Stop => {
                    return Err(TraceError::Row {
                        file: path.to_path_buf(),
                        row,
                        column: PAI_SIM_COLUMNS.get(k).copied().unwrap_or("").to_string(),
                        reason,
                    })
                }
                BadRows::Skip => w.skipped_rows += 1,
            },
        }
    }
    let dropped = super::trace::refuse_repeats(
        &mut w.jobs,
        |j| j.name.as_str(),
        &lines,
        opts.bad_rows,
        path,
        "job_id",
        "job id",
        &mut w.skipped_rows,
    )?;
    super::trace::remove_at(&mut keys, &dropped);
    if rounded > 0 {
        w.filtered.push(("gpus rounded up".to_string(), rounded));
    }
    match opts.arrivals_per_minute {
        Some(r) => rewrite_arrivals(&mut w, &keys, r),
        None => w.sort_by_submit(),
    }
    Ok(w)
}

/// Orders jobs by (submit time, job id) and lets job k arrive at floor(k / r) x 60 s.
fn rewrite_arrivals(w: &mut Workload, keys: &[(f64, String)], r: f64) {
    let numeric = keys.iter().all(|(_, id)| id.parse::<u64>().is_ok());
    let mut order: Vec<usize> = (0..w.jobs.len()).collect();
    order.sort_by(|&a, &b| {
        let (sa, ia) = &keys[a];
        let (sb, ib) = &keys[b];
        sa.total_cmp(sb).then_with(|| {
            if numeric {
                ia.parse::<u64>()
                    .unwrap_or(0)
                    .cmp(&ib.parse::<u64>().unwrap_or(0))
            } else {
                ia.cmp(ib)
            }
        })
    });
    let mut jobs: Vec<Option<Job>> = std::mem::take(&mut w.jobs).into_iter().map(Some).collect();
    for (k, i) in order.into_iter().enumerate() {
        if let Some(mut j) = jobs[i].take() {
            j.submit = SimTime::from_secs((k as f64 / r).floor() as u64 * 60);
            w.jobs.push(j);
        }
    }
}

type RowResult = Result<(Job, f64, bool), (usize, String)>;

fn parse_row(
    rec: &csv::StringRecord,
    col: &[usize; 11],
    w: &mut Workload,
    names: &mut crate::model::NameIndex,
    o: PaiSimOptions,
) -> RowResult {
    let get = |k: usize| rec.get(col[k]).unwrap_or("").trim();
    let name = get(0);
    if name.is_empty() {
        return Err((0, "missing value".into()));
    }
    for k in [0, 1, 2] {
        super::value::plain_text(get(k)).map_err(|e| (k, e.to_string()))?;
    }
    let num = |k: usize, what: &'static str| {
        parse_non_negative(get(k), what).map_err(|e| (k, e.to_string()))
    };
    // Times past MAX_TRACE_SECS are refused, not clamped to the largest time there is.
    let secs = |k: usize| {
        let x = num(k, "number of seconds")?;
        if x > super::value::MAX_TRACE_SECS {
            return Err((k, super::value::too_many_secs(get(k))));
        }
        Ok(x)
    };
    let inst = num(3, "instance count")?;
    if inst.fract() != 0.0 || inst < 1.0 {
        return Err((
            3,
            format!("{:?} is not a whole number of instances >= 1", get(3)),
        ));
    }
    let submit = secs(4)?;
    let duration = secs(5)?;
    if duration <= 0.0 {
        return Err((5, "duration must be positive".into()));
    }
    let cpu = num(6, "number of cores")?;
    let gpu = num(7, "number of GPUs")?;
    let mut ests = [0.0; 3];
    for (i, e) in ests.iter_mut().enumerate() {
        *e = if get(8 + i).is_empty() {
            0.0
        } else {
            secs(8 + i)?
        };
    }
    let total_milli = (inst * gpu * MILLI_PER_GPU as f64).round() as u64;
    let mut rounded = false;
    let gpus = if total_milli == 0 {
        GpuRequest::None
    } else if total_milli < MILLI_PER_GPU as u64 {
        GpuRequest::Fraction(total_milli as u16)
    } else {
        rounded = !total_milli.is_multiple_of(MILLI_PER_GPU as u64);
        let n = total_milli.div_ceil(MILLI_PER_GPU as u64);
        GpuRequest::Whole(u32::try_from(n).map_err(|_| (7, "too many GPUs".to_string()))?)
    };
    let t = get(2);
    let gpu_types = if o.use_gpu_type && !matches!(t, "" | "MISC" | "CPU") {
        w.type_mask([t])
            .ok_or((2, "more than 64 GPU types".to_string()))?
    } else {
        TypeMask::ANY
    };
    let est = match o.estimate {
        PaiEstimate::None => None,
        PaiEstimate::User => Some(ests[0]),
        PaiEstimate::Group => Some(ests[1]),
        PaiEstimate::GroupGpu => Some(ests[2]),
    };
    let user = get(1);
    let tenant = names.tenant(w, if user.is_empty() { "default" } else { user });
    let job = Job {
        name: name.to_string(),
        submit: SimTime::from_secs_f64(submit),
        gpus,
        gpu_types,
        cpu_milli: (inst * cpu * 1000.0).round().min(u32::MAX as f64) as u32,
        mem_mib: 0,
        work: SimTime::from_secs_f64(duration).max(SimTime(1)),
        estimate: est.map(|e| SimTime::from_secs_f64(e).max(SimTime(1))),
        tenant,
        priority: 0,
        deadline: None,
        preemptible: false,
        tags: crate::model::JobTags::NONE,
    };
    Ok((job, submit, rounded))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "job_id,user,gpu_type,num_inst,submit_time,duration,num_cpu,num_gpu,user_dur,group_dur,group_gpu_dur\n";

    fn read(body: &str, o: PaiSimOptions) -> Result<Workload, TraceError> {
        read_pai_sim_from(format!("{HEAD}{body}").as_bytes(), Path::new("pai.csv"), o)
    }

    #[test]
    fn reads_requests_per_instance() {
        let w = read(
            "7,u1,V100,2,30,100,4,1,90,80,70\n3,u2,MISC,1,10,5,2,0.5,,,\n",
            PaiSimOptions::default(),
        )
        .unwrap();
        assert_eq!(w.jobs[0].name, "3");
        assert_eq!(w.jobs[0].gpus, GpuRequest::Fraction(500));
        assert_eq!(w.jobs[1].gpus, GpuRequest::Whole(2));
        assert_eq!(w.jobs[1].cpu_milli, 8000);
        assert_eq!(w.jobs[1].work, SimTime::from_secs(100));
        assert!(w.jobs[1].gpu_types.is_any());
    }

    #[test]
    fn arrival_rewrite_orders_by_submit_then_id() {
        // Hand-worked: sorted by (submit, numeric id): 2 (t0), 10 (t0), 1 (t5), 4 (t9), 3 (t9).
        // At r = 2 per minute: k = 0,1 -> 0 s; 2,3 -> 60 s; 4 -> 120 s.
        let body = "1,u,,1,5,1,1,1,,,\n10,u,,1,0,1,1,1,,,\n2,u,,1,0,1,1,1,,,\n4,u,,1,9,1,1,1,,,\n3,u,,1,9,1,1,1,,,\n";
        let o = PaiSimOptions {
            arrivals_per_minute: Some(2.0),
            ..Default::default()
        };
        let w = read(body, o).unwrap();
        let got: Vec<(&str, u64)> = w
            .jobs
            .iter()
            .map(|j| (j.name.as_str(), j.submit.0 / 1000))
            .collect();
        assert_eq!(
            got,
            vec![("2", 0), ("10", 0), ("1", 60), ("3", 60), ("4", 120)]
        );
    }

    #[test]
    fn bad_rows_are_named_or_counted() {
        let body = "1,u,,1,0,10,1,1,,,\n2,u,,1,0,-4,1,1,,,\n3,u,,0,0,10,1,1,,,\n";
        let e = read(body, PaiSimOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("pai.csv:3") && e.contains("duration"), "{e}");
        let o = PaiSimOptions {
            bad_rows: BadRows::Skip,
            ..Default::default()
        };
        let w = read(body, o).unwrap();
        assert_eq!((w.jobs.len(), w.skipped_rows), (1, 2));
        let e = read_pai_sim_from("job_id,user\n".as_bytes(), Path::new("p.csv"), o)
            .unwrap_err()
            .to_string();
        assert!(e.contains("gpu_type"), "{e}");
    }

    #[test]
    fn fractional_totals_above_one_round_up_and_are_counted() {
        let w = read("1,u,,3,0,10,1,0.5,,,\n", PaiSimOptions::default()).unwrap();
        assert_eq!(w.jobs[0].gpus, GpuRequest::Whole(2));
        assert_eq!(w.filtered, vec![("gpus rounded up".to_string(), 1)]);
    }
}
