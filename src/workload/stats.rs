//! What a researcher checks first about a trace: jobs, span, GPU-hours, the GPU-count
//! histogram, duration quantiles, arrivals by hour of day, the share of fractional-GPU
//! jobs, and rows dropped or skipped and why. `gpufleet trace inspect` prints it.

use super::trace::{JobStatus, TraceMeta};
use crate::model::{GpuRequest, Workload};
use indexmap::IndexMap;
use serde::Serialize;

/// Milliseconds in a day.
const DAY_MS: i64 = 86_400_000;

/// Hour of day (0-23) and weekday (0 = Monday) of a submit time, on the trace's clock
/// when it is wall-clock time, else counting from Monday 00:00 at the trace start.
pub fn hour_and_weekday(meta: &TraceMeta, submit_ms: u64) -> (usize, usize) {
    let t = if meta.wall_clock {
        meta.origin_ms + submit_ms as i64
    } else {
        // Relative traces: the trace starts on a Monday at midnight; 1970-01-05 was one.
        4 * DAY_MS + submit_ms as i64
    };
    let days = t.div_euclid(DAY_MS);
    let hour = (t.rem_euclid(DAY_MS) / 3_600_000) as usize;
    // 1970-01-01 was a Thursday (weekday 3 with Monday = 0).
    let weekday = (days + 3).rem_euclid(7) as usize;
    (hour, weekday)
}

/// The `q`-quantile of sorted values (nearest rank).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let k = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[k - 1]
}

/// A trace's summary.
#[derive(Debug, Clone, Serialize)]
pub struct TraceStats {
    /// The file.
    pub file: String,
    /// The format.
    pub format: String,
    /// Jobs kept.
    pub jobs: u64,
    /// Rows parsed (kept or dropped).
    pub rows_parsed: u64,
    /// Rows skipped as bad.
    pub rows_skipped_bad: u64,
    /// Rows dropped, by reason.
    pub dropped: IndexMap<String, u64>,
    /// Parsed rows per status.
    pub statuses: IndexMap<String, u64>,
    /// Time from the first to the last submit, hours.
    pub span_hours: f64,
    /// Wall-clock start of the trace (`YYYY-MM-DD HH:MM:SS`), when the clock is known.
    pub start: Option<String>,
    /// GPU-hours of work (GPUs x run time).
    pub gpu_hours: f64,
    /// Jobs per GPU count (`0` CPU-only, `frac` fractional, else the count).
    pub gpu_histogram: IndexMap<String, u64>,
    /// Share of jobs asking for a fraction of one GPU.
    pub fractional_share: f64,
    /// Run-time quantiles, seconds: p10, p25, p50, p75, p90, p99, max.
    pub duration_s: IndexMap<String, f64>,
    /// Mean arrivals per hour over the span.
    pub arrivals_per_hour: f64,
    /// Arrivals per hour in each hour of the day (0-23), averaged over the days spanned.
    pub arrivals_by_hour: Vec<f64>,
    /// Tenants.
    pub tenants: u64,
    /// Jobs whose GPU request was rounded up to whole GPUs.
    pub rounded_gpu_requests: u64,
}

/// Formats ms since 1970 as `YYYY-MM-DD HH:MM:SS`.
pub fn format_datetime(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Summarises a read trace.
pub fn trace_stats(w: &Workload, meta: &TraceMeta, format: &str) -> TraceStats {
    let n = w.jobs.len();
    let span_ms = w.jobs.last().map(|j| j.submit.0).unwrap_or(0);
    let span_h = span_ms as f64 / 3.6e6;
    let mut hist: std::collections::BTreeMap<(u8, u32), u64> = Default::default();
    let mut frac = 0u64;
    let mut gpu_h = 0.0;
    let mut durs: Vec<f64> = Vec::with_capacity(n);
    let mut by_hour = [0u64; 24];
    for j in &w.jobs {
        let key = match j.gpus {
            GpuRequest::None => (0, 0),
            GpuRequest::Fraction(_) => {
                frac += 1;
                (1, 0)
            }
            GpuRequest::Whole(g) => (2, g),
        };
        *hist.entry(key).or_default() += 1;
        gpu_h += j.gpus.gpus_f64() * j.work.hours_f64();
        durs.push(j.work.secs_f64());
        by_hour[hour_and_weekday(meta, j.submit.0).0] += 1;
    }
    durs.sort_by(f64::total_cmp);
    let mut duration_s = IndexMap::new();
    for (k, q) in [
        ("p10", 0.1),
        ("p25", 0.25),
        ("p50", 0.5),
        ("p75", 0.75),
        ("p90", 0.9),
        ("p99", 0.99),
        ("max", 1.0),
    ] {
        duration_s.insert(k.to_string(), quantile(&durs, q));
    }
    // Days over which each hour of the day was observed (at least one).
    let days = (span_h / 24.0).max(1.0);
    TraceStats {
        file: meta.file.display().to_string(),
        format: format.to_string(),
        jobs: n as u64,
        rows_parsed: meta.rows,
        rows_skipped_bad: w.skipped_rows,
        dropped: w.filtered.iter().cloned().collect(),
        statuses: JobStatus::ALL
            .iter()
            .map(|s| (s.as_str().to_string(), meta.statuses[*s as usize]))
            .collect(),
        span_hours: span_h,
        start: meta.wall_clock.then(|| format_datetime(meta.origin_ms)),
        gpu_hours: gpu_h,
        gpu_histogram: hist
            .into_iter()
            .map(|((k, g), c)| {
                let name = match k {
                    0 => "0".to_string(),
                    1 => "frac".to_string(),
                    _ => g.to_string(),
                };
                (name, c)
            })
            .collect(),
        fractional_share: if n == 0 { 0.0 } else { frac as f64 / n as f64 },
        duration_s,
        arrivals_per_hour: if span_h > 0.0 { n as f64 / span_h } else { 0.0 },
        arrivals_by_hour: by_hour.iter().map(|&c| c as f64 / days).collect(),
        tenants: w.tenants.len() as u64,
        rounded_gpu_requests: meta.rounded_gpus,
    }
}

impl TraceStats {
    /// The human-readable report.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        use std::fmt::Write;
        let _ = writeln!(s, "{} ({})", self.file, self.format);
        let _ = writeln!(
            s,
            "jobs          {} kept of {} rows parsed; {} bad rows skipped",
            self.jobs, self.rows_parsed, self.rows_skipped_bad
        );
        for (why, k) in &self.dropped {
            let _ = writeln!(s, "  dropped     {k} ({why})");
        }
        let st: Vec<String> = self
            .statuses
            .iter()
            .filter(|x| *x.1 > 0)
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let _ = writeln!(s, "statuses      {}", st.join(", "));
        let _ = writeln!(
            s,
            "span          {:.1} h ({:.1} days){}",
            self.span_hours,
            self.span_hours / 24.0,
            self.start
                .as_ref()
                .map(|t| format!(" from {t}"))
                .unwrap_or_default()
        );
        let _ = writeln!(s, "GPU-hours     {:.1}", self.gpu_hours);
        let _ = writeln!(s, "tenants       {}", self.tenants);
        let _ = writeln!(
            s,
            "fractional    {:.1} % of jobs",
            self.fractional_share * 100.0
        );
        if self.rounded_gpu_requests > 0 {
            let _ = writeln!(
                s,
                "rounded       {} GPU requests rounded up to whole GPUs",
                self.rounded_gpu_requests
            );
        }
        let _ = writeln!(s, "GPUs per job");
        for (g, c) in &self.gpu_histogram {
            let _ = writeln!(
                s,
                "  {:>6}  {:>9}  {:>5.1} %",
                g,
                c,
                *c as f64 * 100.0 / self.jobs.max(1) as f64
            );
        }
        let d: Vec<String> = self
            .duration_s
            .iter()
            .map(|(k, v)| format!("{k} {v:.0}s"))
            .collect();
        let _ = writeln!(s, "duration      {}", d.join("  "));
        let _ = writeln!(
            s,
            "arrivals      {:.2} per hour on average; by hour of day:",
            self.arrivals_per_hour
        );
        for row in 0..4 {
            let cells: Vec<String> = (row * 6..row * 6 + 6)
                .map(|h| format!("{h:02}h {:>7.2}", self.arrivals_by_hour[h]))
                .collect();
            let _ = writeln!(s, "  {}", cells.join("  "));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_helpers() {
        // 2017-10-02 was a Monday; 1993-10-01 a Friday (weekday 4).
        let m = TraceMeta {
            wall_clock: true,
            origin_ms: crate::workload::parse_datetime_ms("1993-10-01 13:30:00").unwrap(),
            ..Default::default()
        };
        assert_eq!(hour_and_weekday(&m, 0), (13, 4));
        assert_eq!(hour_and_weekday(&m, 3 * 86_400_000), (13, 0));
        assert_eq!(format_datetime(m.origin_ms), "1993-10-01 13:30:00");
        let rel = TraceMeta::default();
        assert_eq!(hour_and_weekday(&rel, 25 * 3_600_000), (1, 1));
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5), 2.0);
    }
}
