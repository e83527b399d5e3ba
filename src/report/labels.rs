//! Metric names in words with their units, for chart axes and terminal reports: a column
//! of `runs.csv` (`jct_all_s_p95`) becomes "95th percentile of job completion time, all
//! jobs" in hours, seconds shown in the unit that suits the values' size.

/// A metric's name in words, its unit and the divisor from the stored value to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    /// What the metric is, in words.
    pub words: String,
    /// The unit shown ("h", "min", "s", "%", "jobs/h", "USD", or "ratio").
    pub unit: String,
    /// Stored value / scale = shown value.
    pub scale: f64,
}

/// The distributions of `summary.json`, in words, with the jobs they cover.
const BASES: &[(&str, &str, bool)] = &[
    ("wait_all_s", "wait to first start, all jobs", true),
    ("wait_s", "wait to first start, started jobs", true),
    ("queue_delay_all_s", "total queueing delay, all jobs", true),
    (
        "queue_delay_s",
        "total queueing delay, jobs that ended",
        true,
    ),
    ("jct_all_s", "job completion time, all jobs", true),
    ("jct_s", "job completion time, completed jobs", true),
    ("bounded_slowdown_all", "bounded slowdown, all jobs", false),
    (
        "bounded_slowdown",
        "bounded slowdown, completed jobs",
        false,
    ),
    ("slowdown_all", "slowdown, all jobs", false),
    ("slowdown", "slowdown, completed jobs", false),
    ("finish_time_fairness", "finish-time fairness rho", false),
];

const STATS: &[(&str, &str)] = &[
    ("mean", "mean"),
    ("p50", "median"),
    ("p95", "95th percentile"),
    ("p99", "99th percentile"),
    ("max", "largest"),
];

/// Seconds in the unit that suits values of about `typical` seconds.
pub fn time_unit(typical: f64) -> (&'static str, f64) {
    let t = typical.abs();
    if t >= 2.0 * 3600.0 {
        ("h", 3600.0)
    } else if t >= 120.0 {
        ("min", 60.0)
    } else {
        ("s", 1.0)
    }
}

fn label(words: impl Into<String>, unit: &str, scale: f64) -> Label {
    Label {
        words: words.into(),
        unit: unit.into(),
        scale,
    }
}

/// The label of metric `name` whose values are about `typical` (picks the time unit).
pub fn metric_label(name: &str, typical: f64) -> Label {
    for (base, words, secs) in BASES {
        for (stat, stat_words) in STATS {
            if name == format!("{base}_{stat}") {
                let w = format!("{stat_words} {words}");
                return if *secs {
                    let (u, s) = time_unit(typical);
                    label(w, u, s)
                } else {
                    label(w, "ratio", 1.0)
                };
            }
        }
    }
    match name {
        "makespan_s" => {
            let (u, s) = time_unit(typical);
            label("makespan (first submit to last end)", u, s)
        }
        "utilization" => label("GPU utilization (busy / provisioned)", "%", 0.01),
        "finish_time_fairness_share_above_1" => {
            label("share of jobs with finish-time fairness rho > 1", "%", 0.01)
        }
        "fairness_jain_bounded_slowdown" => label(
            "Jain's index over tenants of mean bounded slowdown",
            "ratio",
            1.0,
        ),
        "fairness_jain_finish_time_fairness" => label(
            "Jain's index over tenants of mean finish-time fairness",
            "ratio",
            1.0,
        ),
        "fairness_jain_gpu_share_of_demand" => label(
            "Jain's index over tenants of GPU-hours served / demanded",
            "ratio",
            1.0,
        ),
        "throughput_jobs_per_hour" => label("throughput (completed jobs per hour)", "jobs/h", 1.0),
        "cost_usd_total" => label("total cost", "USD", 1.0),
        "preemptions_per_job" => label("preemptions per job", "ratio", 1.0),
        "restarts_per_job" => label("restarts per job", "ratio", 1.0),
        "jobs_completed" => label("jobs completed", "jobs", 1.0),
        "jobs_unfinished" => label("jobs unfinished at the end", "jobs", 1.0),
        "gpu_hours_busy" => label("busy GPU-hours", "GPU-h", 1.0),
        _ => {
            let words = name.replace('_', " ");
            if name.ends_with("_s") || name.contains("_s_") {
                let (u, s) = time_unit(typical);
                label(words, u, s)
            } else if name.contains("usd") {
                label(words, "USD", 1.0)
            } else {
                label(words, "value", 1.0)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_words_with_units() {
        let l = metric_label("jct_all_s_p95", 36_000.0);
        assert_eq!(l.words, "95th percentile job completion time, all jobs");
        assert_eq!((l.unit.as_str(), l.scale), ("h", 3600.0));
        assert_eq!(metric_label("queue_delay_all_s_mean", 300.0).unit, "min");
        assert_eq!(metric_label("bounded_slowdown_all_mean", 3.0).unit, "ratio");
        assert_eq!(metric_label("utilization", 0.5).unit, "%");
    }
}
