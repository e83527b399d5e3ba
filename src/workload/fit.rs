//! Fitting a [`WorkloadModel`] to a trace, and writing it as an editable scenario
//! `[workload]` block (`gpufleet trace fit`).
//!
//! - Arrivals: the mean rate over the trace's span (the model ends at the same span, or
//!   after as many jobs when the trace spans less than an hour); with a day or more of data, a profile
//!   of relative rates per hour of day (arrivals in that hour of the day divided by the
//!   hours of that kind spanned), and with two weeks or more, per day of week. Shorter
//!   traces give flat weights. The trace's clock is used when it is wall-clock time.
//! - Tenants: the `max_tenants - 1` busiest keep their own mix, the rest are pooled as
//!   `other`. Each mix has the GPU-count shares of its jobs and a log-normal duration by
//!   maximum likelihood (median `exp(mean ln d)`, sigma the standard deviation of `ln d`).

use super::arrivals::ArrivalProcess;
use super::model::{TenantMix, WorkloadModel};
use super::stats::hour_and_weekday;
use super::synthetic::DurationDist;
use super::trace::TraceMeta;
use crate::engine::SimTime;
use crate::model::{GpuRequest, Workload};
use std::collections::BTreeMap;

fn relative(counts: &[f64], exposure: &[f64]) -> Vec<f64> {
    let rates: Vec<f64> = counts
        .iter()
        .zip(exposure)
        .map(|(&c, &e)| if e > 0.0 { c / e } else { f64::NAN })
        .collect();
    let seen: Vec<f64> = rates.iter().copied().filter(|r| r.is_finite()).collect();
    let mean = seen.iter().sum::<f64>() / seen.len().max(1) as f64;
    rates
        .iter()
        .map(|&r| {
            if r.is_finite() && mean > 0.0 {
                (r / mean * 1000.0).round() / 1000.0
            } else {
                1.0
            }
        })
        .collect()
}

/// Fits a log-normal to durations in seconds (each at least 1 ms): `(median, sigma)`.
pub fn fit_lognormal(secs: &[f64]) -> (f64, f64) {
    if secs.is_empty() {
        return (1.0, 1.0);
    }
    let logs: Vec<f64> = secs.iter().map(|s| s.max(1e-3).ln()).collect();
    let mu = logs.iter().sum::<f64>() / logs.len() as f64;
    let var = logs.iter().map(|l| (l - mu) * (l - mu)).sum::<f64>() / logs.len() as f64;
    (mu.exp(), var.sqrt())
}

/// Fits a model to `w` (read with `meta`), keeping at most `max_tenants` tenant mixes.
pub fn fit_model(w: &Workload, meta: &TraceMeta, max_tenants: usize) -> WorkloadModel {
    let n = w.jobs.len();
    let span_ms = w.jobs.last().map(|j| j.submit.0).unwrap_or(0).max(1);
    let span_h = span_ms as f64 / 3.6e6;
    let rate = n as f64 / span_h.max(1.0 / 3600.0);
    let mut by_h = [0.0; 24];
    let mut by_d = [0.0; 7];
    for j in &w.jobs {
        let (h, d) = hour_and_weekday(meta, j.submit.0);
        by_h[h] += 1.0;
        by_d[d] += 1.0;
    }
    let mut exp_h = [0.0; 24];
    let mut exp_d = [0.0; 7];
    // Hours of each kind spanned. Hour k of the trace falls on the same hour of the week
    // as hour k mod 168, so one week of hours, each weighted by how often it recurs,
    // covers any span: the loop is bounded by a week, not by the span (two rows 1e15 s
    // apart cost as little as two rows an hour apart).
    let hours = span_h.ceil().max(1.0) as u64;
    const WEEK_H: u64 = 168;
    for k in 0..hours.min(WEEK_H) {
        let times = (hours / WEEK_H + u64::from(k < hours % WEEK_H)) as f64;
        let (h, d) = hour_and_weekday(meta, k * 3_600_000);
        exp_h[h] += times;
        exp_d[d] += times;
    }
    let hourly = if span_h >= 24.0 {
        relative(&by_h, &exp_h)
    } else {
        vec![1.0; 24]
    };
    let weekly = if span_h >= 14.0 * 24.0 {
        relative(&by_d, &exp_d)
    } else {
        vec![1.0; 7]
    };
    let arrivals = if hourly.iter().chain(&weekly).all(|&x| x == 1.0) {
        ArrivalProcess::Poisson {
            rate_per_hour: rate,
        }
    } else {
        ArrivalProcess::Profile {
            rate_per_hour: rate,
            hourly,
            weekly,
        }
    };
    // Tenants by job count (ties by first appearance), the tail pooled as "other".
    let mut counts = vec![0u64; w.tenants.len()];
    for j in &w.jobs {
        counts[j.tenant as usize] += 1;
    }
    let mut order: Vec<usize> = (0..counts.len()).filter(|&t| counts[t] > 0).collect();
    order.sort_by(|&a, &b| counts[b].cmp(&counts[a]).then(a.cmp(&b)));
    let keep = if order.len() > max_tenants.max(1) {
        max_tenants.max(1) - 1
    } else {
        order.len()
    };
    let mut group = vec![keep; counts.len()];
    for (g, &t) in order.iter().take(keep).enumerate() {
        group[t] = g;
    }
    let groups = if order.len() > keep { keep + 1 } else { keep };
    let mut sizes: Vec<BTreeMap<GpuRequest, u64>> = vec![BTreeMap::new(); groups];
    let mut durs: Vec<Vec<f64>> = vec![Vec::new(); groups];
    let mut pre = vec![0u64; groups];
    for j in &w.jobs {
        let g = group[j.tenant as usize];
        *sizes[g].entry(j.gpus).or_default() += 1;
        durs[g].push(j.work.secs_f64());
        pre[g] += j.preemptible as u64;
    }
    let tenants = (0..groups)
        .map(|g| {
            let name = if g < keep {
                w.tenants[order[g]].clone()
            } else {
                "other".to_string()
            };
            let (median, sigma) = fit_lognormal(&durs[g]);
            let jobs = durs[g].len() as f64;
            TenantMix {
                name,
                weight: jobs,
                sizes: sizes[g].iter().map(|(&r, &c)| (r, c as f64)).collect(),
                duration: DurationDist::LogNormal {
                    median: SimTime::from_secs_f64(median).max(SimTime(1)),
                    sigma: sigma.max(1e-3),
                },
                preemptible_share: pre[g] as f64 / jobs.max(1.0),
            }
        })
        .collect();
    WorkloadModel {
        arrivals,
        // A trace shorter than an hour says little about rates: end by its job count.
        until: (span_ms >= 3_600_000).then_some(SimTime(span_ms)),
        jobs: (span_ms < 3_600_000).then_some(n as u64),
        tenants,
        rate_multiplier: 1.0,
        duration_multiplier: 1.0,
        growth_per_month: 0.0,
        cpu_milli_per_gpu: 0,
        mem_mib_per_gpu: 0,
    }
}

fn list(xs: &[f64]) -> String {
    xs.iter()
        .map(|x| format!("{x}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn gpus_text(r: GpuRequest) -> String {
    match r {
        GpuRequest::None => "0".into(),
        GpuRequest::Fraction(m) => format!("{}", m as f64 / 1000.0),
        GpuRequest::Whole(n) => n.to_string(),
    }
}

/// The model as a scenario `[workload]` block (`kind = "model"`), with a comment header.
pub fn model_to_toml(m: &WorkloadModel, source: &str) -> String {
    let mut s = format!(
        "# Fitted by `gpufleet trace fit` from {source}.\n\
         # Edit freely: rate_multiplier scales arrivals, duration_multiplier run times,\n\
         # growth_per_month compounds the arrival rate (0.05 = +5 % a month); until or jobs end it.\n\
         [workload]\nkind = \"model\"\n"
    );
    if let Some(u) = m.until {
        s.push_str(&format!("until = \"{}s\"\n", u.secs_text()));
    }
    if let Some(j) = m.jobs {
        s.push_str(&format!("jobs = {j}\n"));
    }
    s.push_str(&format!(
        "rate_multiplier = {:?}\nduration_multiplier = {:?}\ngrowth_per_month = {:?}\n",
        m.rate_multiplier, m.duration_multiplier, m.growth_per_month
    ));
    match &m.arrivals {
        ArrivalProcess::Poisson { rate_per_hour } => {
            s.push_str(&format!(
                "arrivals = {{ kind = \"poisson\", rate_per_hour = {rate_per_hour} }}\n"
            ));
        }
        ArrivalProcess::Profile {
            rate_per_hour,
            hourly,
            weekly,
        } => {
            s.push_str(&format!(
                "# hourly: relative rate in each hour of the day (0h first); weekly: Monday first.\n\
                 arrivals = {{ kind = \"profile\", rate_per_hour = {rate_per_hour}, hourly = [{}], weekly = [{}] }}\n",
                list(hourly),
                list(weekly)
            ));
        }
        ArrivalProcess::Mmpp {
            rates_per_hour,
            mean_dwell,
        } => {
            s.push_str(&format!(
                "arrivals = {{ kind = \"mmpp\", rates_per_hour = [{}, {}], mean_dwell = [\"{}s\", \"{}s\"] }}\n",
                rates_per_hour[0],
                rates_per_hour[1],
                mean_dwell[0].secs_text(),
                mean_dwell[1].secs_text()
            ));
        }
    }
    for t in &m.tenants {
        s.push_str(&format!(
            "\n[[workload.tenants]]\nname = {:?}\nweight = {}\n",
            t.name, t.weight
        ));
        let sizes: Vec<String> = t
            .sizes
            .iter()
            .map(|(r, w)| format!("{{ gpus = {}, weight = {w} }}", gpus_text(*r)))
            .collect();
        s.push_str(&format!("sizes = [{}]\n", sizes.join(", ")));
        match &t.duration {
            DurationDist::LogNormal { median, sigma } => s.push_str(&format!(
                "duration = {{ kind = \"lognormal\", median = \"{}s\", sigma = {:.4} }}\n",
                median.secs_text(),
                sigma
            )),
            other => s.push_str(&format!(
                "# duration {other:?} cannot be written; lognormal assumed\n"
            )),
        }
        if t.preemptible_share > 0.0 {
            s.push_str(&format!("preemptible_share = {}\n", t.preemptible_share));
        }
    }
    s
}
