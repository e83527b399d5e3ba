//! Workload generators against their parameters (chi-square and Kolmogorov-Smirnov with
//! statrs), and `trace fit` followed by generation against the trace it was fitted to.

use super::{root, shipped};
use gpufleet::engine::{RngStreams, SimTime};
use gpufleet::model::{GpuRequest, Workload};
use gpufleet::workload::*;
use statrs::distribution::{ChiSquared, ContinuousCDF, Discrete, Poisson};
use std::path::Path;

fn model(arrivals: ArrivalProcess, until_h: u64, duration: DurationDist) -> WorkloadModel {
    WorkloadModel {
        arrivals,
        until: Some(SimTime::from_secs(until_h * 3600)),
        jobs: None,
        tenants: vec![TenantMix {
            name: "t".into(),
            weight: 1.0,
            sizes: vec![(GpuRequest::Whole(1), 1.0)],
            duration,
            preemptible_share: 0.0,
        }],
        rate_multiplier: 1.0,
        duration_multiplier: 1.0,
        growth_per_month: 0.0,
        cpu_milli_per_gpu: 0,
        mem_mib_per_gpu: 0,
    }
}

fn fixed() -> DurationDist {
    DurationDist::Fixed {
        value: SimTime::from_secs(60),
    }
}

/// Counts of arrivals per window of `secs`, over `windows` windows.
fn counts(w: &Workload, secs: u64, windows: usize) -> Vec<u64> {
    let mut c = vec![0u64; windows];
    for j in &w.jobs {
        let k = (j.submit.0 / (secs * 1000)) as usize;
        if k < windows {
            c[k] += 1;
        }
    }
    c
}

/// Pearson chi-square p-value of observed counts against expected counts.
fn chi_square_p(obs: &[f64], exp: &[f64], fitted_params: usize) -> f64 {
    let stat: f64 = obs
        .iter()
        .zip(exp)
        .map(|(o, e)| (o - e) * (o - e) / e)
        .sum();
    let df = (obs.len() - 1 - fitted_params) as f64;
    1.0 - ChiSquared::new(df).unwrap().cdf(stat)
}

#[test]
fn poisson_counts_per_window_follow_poisson() {
    let m = model(
        ArrivalProcess::Poisson {
            rate_per_hour: 20.0,
        },
        3000,
        fixed(),
    );
    let w = m.generate(&RngStreams::new(11));
    let c = counts(&w, 3600, 3000);
    // Bins 0..=10, 11, ..., 29, >= 30 of Poisson(20) (expected counts all above 5).
    let pois = Poisson::new(20.0).unwrap();
    let mut obs = vec![0.0; 21];
    for &x in &c {
        obs[(x.saturating_sub(10) as usize).min(20)] += 1.0;
    }
    let mut exp: Vec<f64> = (0..21)
        .map(|b| {
            let p = match b {
                0 => (0..=10).map(|k| pois.pmf(k)).sum::<f64>(),
                20 => 1.0 - (0..30).map(|k| pois.pmf(k)).sum::<f64>(),
                b => pois.pmf(10 + b as u64),
            };
            p * 3000.0
        })
        .collect();
    exp[20] = exp[20].max(1e-9);
    let p = chi_square_p(&obs, &exp, 0);
    assert!(p > 0.001, "chi-square p = {p}");
}

#[test]
fn daily_and_weekly_profiles_are_reproduced() {
    let hourly: Vec<f64> = (0..24)
        .map(|h| 1.0 + (h as f64 / 24.0 * std::f64::consts::TAU).sin().abs() * 3.0)
        .collect();
    let weekly = vec![1.0, 1.0, 1.0, 1.0, 1.0, 0.3, 0.2];
    let m = model(
        ArrivalProcess::Profile {
            rate_per_hour: 10.0,
            hourly: hourly.clone(),
            weekly: weekly.clone(),
        },
        24 * 7 * 20,
        fixed(),
    );
    let w = m.generate(&RngStreams::new(5));
    // Mean rate: 10/h over 3,360 h = 33,600 expected, sd 183.
    let n = w.jobs.len() as f64;
    assert!((n - 33_600.0).abs() < 4.0 * 183.0, "{n}");
    let mut by_h = vec![0.0; 24];
    let mut by_d = vec![0.0; 7];
    for j in &w.jobs {
        let hour = j.submit.0 / 3_600_000;
        by_h[(hour % 24) as usize] += 1.0;
        by_d[((hour / 24) % 7) as usize] += 1.0;
    }
    let hs: f64 = hourly.iter().sum();
    let exp_h: Vec<f64> = hourly.iter().map(|x| x / hs * n).collect();
    let ds: f64 = weekly.iter().sum();
    let exp_d: Vec<f64> = weekly.iter().map(|x| x / ds * n).collect();
    assert!(chi_square_p(&by_h, &exp_h, 0) > 0.001);
    assert!(chi_square_p(&by_d, &exp_d, 0) > 0.001);
}

#[test]
fn growth_compounds_monthly() {
    let mut m = model(
        ArrivalProcess::Poisson {
            rate_per_hour: 20.0,
        },
        24 * 60,
        fixed(),
    );
    m.growth_per_month = 0.5;
    let w = m.generate(&RngStreams::new(8));
    let c = counts(&w, 30 * 86_400, 2);
    // Month 1 expects 14,400 x (1.5 - 1)/ln 1.5 = 17,757; month 2 is 1.5 times that.
    let m1 = 14_400.0 * 0.5 / 1.5f64.ln();
    assert!((c[0] as f64 - m1).abs() < 4.0 * m1.sqrt(), "{c:?}");
    assert!(
        (c[1] as f64 - 1.5 * m1).abs() < 4.0 * (1.5 * m1).sqrt(),
        "{c:?}"
    );
}

#[test]
fn mmpp_is_bursty_with_the_right_mean() {
    let p = ArrivalProcess::Mmpp {
        rates_per_hour: [2.0, 40.0],
        mean_dwell: [SimTime::from_secs(9 * 3600), SimTime::from_secs(3600)],
    };
    let w = model(p, 20_000, fixed()).generate(&RngStreams::new(2));
    // Mean (2 x 9 + 40 x 1) / 10 = 5.8 per hour.
    let c = counts(&w, 3600, 20_000);
    let mean = c.iter().sum::<u64>() as f64 / c.len() as f64;
    let var = c.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / c.len() as f64;
    // The sample mean's error is dominated by the time spent in bursts: over ~2,000
    // calm/burst cycles, burst time sums to 2,000 h with sd sqrt(2000) x 1 h = 45 h and calm
    // time to 18,000 h with sd sqrt(2000) x 9 h = 402 h, so the burst share 0.1 has sd
    // about 0.0029 and the mean rate 2 + 38 x share has sd about 0.11: allow 4 sd.
    assert!((mean - 5.8).abs() < 0.45, "{mean}");
    // A Poisson process has variance = mean; the bursts make it many times larger.
    assert!(var > 5.0 * mean, "variance {var}, mean {mean}");
}

fn ks_statistic(sample: &mut [f64], cdf: impl Fn(f64) -> f64) -> f64 {
    sample.sort_by(f64::total_cmp);
    let n = sample.len() as f64;
    sample
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            (f - i as f64 / n).abs().max((f - (i + 1) as f64 / n).abs())
        })
        .fold(0.0, f64::max)
}

#[test]
fn duration_distributions_match_their_parameters() {
    use rand::SeedableRng;
    let mut rng = gpufleet::engine::SimRng::seed_from_u64(3);
    let n = 20_000;
    // Log-normal median 1,200 s, sigma 1.5: the fit recovers both within 4 standard errors
    // (se of ln median = 1.5/sqrt(n) = 0.0106, of sigma = 1.5/sqrt(2n) = 0.0075).
    let ln = DurationDist::LogNormal {
        median: SimTime::from_secs(1200),
        sigma: 1.5,
    };
    let xs: Vec<f64> = (0..n).map(|_| ln.sample(&mut rng).secs_f64()).collect();
    let (med, sig) = fit_lognormal(&xs);
    assert!((med / 1200.0).ln().abs() < 4.0 * 0.0106, "{med}");
    assert!((sig - 1.5).abs() < 4.0 * 0.0075, "{sig}");
    // Weibull scale 3,600 s, shape 0.7 against statrs' CDF: KS at alpha 0.001 is 1.95/sqrt(n).
    let wb = DurationDist::Weibull {
        scale: SimTime::from_secs(3600),
        shape: 0.7,
    };
    let mut xs: Vec<f64> = (0..n).map(|_| wb.sample(&mut rng).secs_f64()).collect();
    let cdf = statrs::distribution::Weibull::new(0.7, 3600.0).unwrap();
    let d = ks_statistic(&mut xs, |x| cdf.cdf(x));
    assert!(d < 1.95 / (n as f64).sqrt(), "KS {d}");
    // Empirical from the Philly runtimes: two-sample KS against the source at alpha 0.001.
    let src =
        read_duration_column(&root().join("data/philly/philly_job_runtimes.csv"), None).unwrap();
    let emp = DurationDist::Empirical {
        secs: std::sync::Arc::new(src.clone()),
    };
    let mut xs: Vec<f64> = (0..n).map(|_| emp.sample(&mut rng).secs_f64()).collect();
    let mut sorted = src.clone();
    sorted.sort_by(f64::total_cmp);
    // Durations of 0 s are drawn as 1 ms; compare on whole seconds' grid via the ECDF.
    let ecdf = |x: f64| sorted.partition_point(|&v| v <= x + 1e-3) as f64 / sorted.len() as f64;
    let d = ks_statistic(&mut xs, ecdf);
    let m = src.len() as f64;
    let crit = 1.95 * ((n as f64 + m) / (n as f64 * m)).sqrt();
    assert!(d < crit, "KS {d} >= {crit}");
}

#[test]
fn fit_then_generate_reproduces_the_trace() {
    let path = shipped("swf/NASA-iPSC-1993-3.1-cln.swf");
    let spec = TraceSpec::new(&path, TraceFormat::Swf);
    let (w, meta) = spec.read().unwrap();
    let m = fit_model(&w, &meta, 5);
    // Through the scenario file, as a user would.
    let text = format!(
        "name = \"rt\"\n[[pools]]\nname = \"p\"\ngpu_type = \"H100\"\nkind = \"owned\"\nnodes = 16\ngpus_per_node = 8\nprice_per_node_hour = 1.0\n{}",
        model_to_toml(&m, "test")
    );
    let s =
        gpufleet::scenario::Scenario::parse(&text, Path::new("rt.toml"), Path::new(".")).unwrap();
    let g = s.build_workload(17).unwrap();
    let span = |w: &Workload| w.jobs.last().unwrap().submit.hours_f64();
    // Mean arrival rate within 3 % (Poisson sd of 18,239 jobs is 0.74 %; the profile
    // starts on a Monday while the trace starts on a Friday: a few % of a week's mix).
    let (r0, r1) = (
        w.jobs.len() as f64 / span(&w),
        g.jobs.len() as f64 / span(&g),
    );
    assert!((r1 / r0 - 1.0).abs() < 0.03, "rate {r0} vs {r1}");
    // GPU-count shares within 0.015 each (sd of a share <= 0.0037 at n = 18,000).
    let share = |w: &Workload, n: u32| {
        w.jobs
            .iter()
            .filter(|j| j.gpus == GpuRequest::Whole(n))
            .count() as f64
            / w.jobs.len() as f64
    };
    for n in [1, 2, 4, 8, 16, 32, 64, 128] {
        assert!(
            (share(&w, n) - share(&g, n)).abs() < 0.015,
            "{n} GPUs: {} vs {}",
            share(&w, n),
            share(&g, n)
        );
    }
    // Duration median within 25 %: log-normal per tenant is a model, not the data (the
    // trace's median is 86 s: awk '{print $4}' | sort -n | median).
    let median = |w: &Workload| {
        let mut d: Vec<f64> = w.jobs.iter().map(|j| j.work.secs_f64()).collect();
        d.sort_by(f64::total_cmp);
        d[d.len() / 2]
    };
    assert_eq!(median(&w), 86.0);
    assert!(
        (median(&g) / 86.0 - 1.0).abs() < 0.25,
        "median {}",
        median(&g)
    );
}

#[test]
fn fit_keeps_fractional_sizes_and_cpu_only_jobs() {
    // openb default: 8,152 pods over 149 days; 3,078 fractional-GPU and 1,088 CPU-only
    // (awk -F, 'NR>1 && $4==1 && $5<1000{f++} NR>1 && $4==0{c++} END{print f, c}').
    let path = root().join("data/openb-2023/openb_pod_list_default.csv");
    let (w, meta) = TraceSpec::new(&path, TraceFormat::Openb).read().unwrap();
    let frac = |w: &Workload| {
        w.jobs
            .iter()
            .filter(|j| matches!(j.gpus, GpuRequest::Fraction(_)))
            .count() as f64
            / w.jobs.len() as f64
    };
    let cpu = |w: &Workload| {
        w.jobs.iter().filter(|j| j.gpus == GpuRequest::None).count() as f64 / w.jobs.len() as f64
    };
    assert_eq!((frac(&w) * 8152.0).round(), 3078.0);
    assert_eq!((cpu(&w) * 8152.0).round(), 1088.0);
    let m = fit_model(&w, &meta, 3);
    let text = format!(
        "name = \"rt\"\n[[pools]]\nname = \"p\"\ngpu_type = \"V100\"\nkind = \"owned\"\nnodes = 4\ngpus_per_node = 8\nprice_per_node_hour = 1.0\n{}",
        model_to_toml(&m, "test")
    );
    let s =
        gpufleet::scenario::Scenario::parse(&text, Path::new("rt.toml"), Path::new(".")).unwrap();
    let g = s.build_workload(5).unwrap();
    // Shares within 5.5 sd of a share at n = 8,152 (sd <= 0.0055): 0.03.
    assert!(
        (frac(&g) - frac(&w)).abs() < 0.03,
        "{} vs {}",
        frac(&g),
        frac(&w)
    );
    assert!(
        (cpu(&g) - cpu(&w)).abs() < 0.03,
        "{} vs {}",
        cpu(&g),
        cpu(&w)
    );
    // Job count within 5 % (Poisson sd 1.1 %).
    let n = (g.jobs.len() as f64, w.jobs.len() as f64);
    assert!((n.0 / n.1 - 1.0).abs() < 0.05, "{n:?}");
}
