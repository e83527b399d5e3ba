//! Validation of `[workload]`: dispatch on its `kind`, and the two plain file kinds
//! (`csv`, `pai_sim`). The generated and shaped kinds live in `synthetic` and
//! `workload_kinds`.

use super::problems::Problems;
use super::raw::{RawPaiEstimate, RawWorkload};
use super::WorkloadSource;
use crate::engine::SimTime;
use crate::workload::{BadRows, PaiEstimate, PaiSimOptions};
use std::path::{Path, PathBuf};

/// Validates the workload; `horizon` ends a generated one that sets no end of its own.
pub(super) fn workload(
    c: &mut Problems,
    raw: &RawWorkload,
    horizon: Option<SimTime>,
    base: &Path,
) -> WorkloadSource {
    match raw {
        RawWorkload::Trace(t) => WorkloadSource::Trace(super::workload_kinds::trace(c, t, base)),
        RawWorkload::Model(m) => {
            WorkloadSource::Model(super::workload_kinds::model(c, m, horizon, base))
        }
        RawWorkload::Csv {
            path,
            skip_bad_rows,
            ..
        } => WorkloadSource::Csv {
            path: trace_file(c, base, path),
            bad_rows: bad_rows(*skip_bad_rows),
        },
        RawWorkload::PaiSim {
            path,
            skip_bad_rows,
            arrivals_per_minute,
            estimate,
            use_gpu_type,
        } => {
            let path = trace_file(c, base, path);
            if let Some(r) = *arrivals_per_minute {
                c.positive("workload.arrivals_per_minute", r);
            }
            let options = PaiSimOptions {
                arrivals_per_minute: *arrivals_per_minute,
                estimate: pai_estimate(estimate.unwrap_or(RawPaiEstimate::None)),
                use_gpu_type: *use_gpu_type,
                bad_rows: bad_rows(*skip_bad_rows),
                max_jobs: None,
            };
            WorkloadSource::PaiSim { path, options }
        }
        RawWorkload::Synthetic(s) => {
            WorkloadSource::Synthetic(super::synthetic::synthetic(c, s, horizon, base))
        }
    }
}

/// `workload.path` resolved against `base`; it must be a file.
fn trace_file(c: &mut Problems, base: &Path, path: &str) -> PathBuf {
    let full = base.join(path);
    if let Some(why) = crate::workload::not_a_data_file(&full) {
        c.err("workload.path", format!("trace file {why}"));
    }
    full
}

/// `skip_bad_rows` as a bad-row rule.
pub(super) fn bad_rows(skip: bool) -> BadRows {
    if skip {
        BadRows::Skip
    } else {
        BadRows::Stop
    }
}

/// The runtime estimate a PAI simulator trace gives its jobs.
fn pai_estimate(e: RawPaiEstimate) -> PaiEstimate {
    match e {
        RawPaiEstimate::None => PaiEstimate::None,
        RawPaiEstimate::UserDur => PaiEstimate::User,
        RawPaiEstimate::GroupDur => PaiEstimate::Group,
        RawPaiEstimate::GroupGpuDur => PaiEstimate::GroupGpu,
    }
}
