//! The research metrics on hand-worked cases: a preempted job's total queueing delay,
//! slowdown and bounded slowdown with the bound, finish-time fairness and Jain's index
//! over two tenants, makespan and throughput. Every expected value is worked out in the
//! comments from the schedule, not read from the code.

use super::common::*;
use gpufleet::engine::SimTime;
use gpufleet::metrics::{build_summary_with, job_table, MetricsOptions, RunMeta, Summary};
use gpufleet::model::Workload;
use gpufleet::pricing::Ledger;
use gpufleet::sched::PolicyKind;
use gpufleet::sim::{RunResult, SimConfig, Simulation};

fn summary(cfg: SimConfig, w: &Workload, bound_s: u64) -> (RunResult, Summary) {
    let r = Simulation::new(cfg, w).run();
    let meta = RunMeta {
        scenario: "t".into(),
        scenario_hash: String::new(),
        seed: 1,
        policy: "p".into(),
    };
    let opts = MetricsOptions {
        slowdown_bound: SimTime::from_secs(bound_s),
    };
    let s = build_summary_with(&meta, w, &r, &Ledger::default(), &opts);
    (r, s)
}

#[test]
fn a_preempted_job_queues_again() {
    // Tiresias, 2 GPUs, threshold 100 GPU-s. A (2 GPUs, 200 s) at 0 crosses 100 GPU-s at
    // 50 and is demoted; B (2 GPUs, 30 s) arrives at 60 in queue 0 and preempts A, runs
    // 60..90; A resumes at 90 and ends at 230. A's wait to first start is 0, but it was
    // ready and not running from 60 to 90: queueing delay 30 s. B's delay is 0.
    let w = workload(vec![job(0, 2, 200), job(60, 2, 30)]);
    let mut cfg = config(vec![pool("p", 1, 2)], PolicyKind::Tiresias);
    cfg.options.tiresias_thresholds_gpu_s = vec![100];
    let (r, s) = summary(cfg, &w, 10);
    assert_eq!(r.jobs[0].preemptions, 1);
    let t = job_table(&w, &r, &MetricsOptions::default());
    assert_eq!(t.jobs[0].wait_s, 0.0);
    assert_eq!(t.jobs[0].queue_delay_s, 30.0);
    assert_eq!(t.jobs[1].queue_delay_s, 0.0);
    // Fleet: waits (0, 0) but delays (30, 0): mean 15 s, p95 (nearest rank, 2nd) 30 s.
    assert_eq!(s.wait_all_s.mean, 0.0);
    assert_eq!(s.research.queue_delay_all_s.mean, 15.0);
    assert_eq!(s.research.queue_delay_all_s.p95, 30.0);
    assert_eq!(s.research.queue_delay_s.p95, 30.0);
    // Slowdowns: A 230 / 200 = 1.15, B 30 / 30 = 1; mean 1.075.
    assert_eq!(t.jobs[0].slowdown().unwrap().0, 1.15);
    assert!((s.research.slowdown.mean - 1.075).abs() < 1e-9);
    // One preemption over two jobs; no restarts.
    let p = s.research.preemptions;
    assert_eq!((p.total, p.per_job, p.jobs), (1, 0.5, 1));
    assert_eq!(s.research.restarts.total, 0);
    // Makespan 0 to 230 s; 2 completed over 230 s = 2 / (230 / 3600) = 31.304348 per hour.
    assert_eq!(s.research.makespan_s, 230.0);
    assert!(!s.research.makespan_censored);
    assert!((s.research.throughput_jobs_per_hour - 31.304348).abs() < 1e-6);
}

#[test]
fn bounded_slowdown_uses_the_bound() {
    // FIFO, 1 GPU. A (25 s) at 0 runs 0..25; Z (5 s) at 0 waits 25 s and ends at 30.
    // Slowdown: A 1, Z 30 / 5 = 6 (mean 3.5). Bounded, tau = 10 s: A max(1, 25/25) = 1,
    // Z max(1, 30 / max(5, 10)) = 3 (mean 2). With tau = 60 s: Z max(1, 30/60) = 1.
    let w = workload(vec![job(0, 1, 25), job(0, 1, 5)]);
    let cfg = || config(vec![pool("p", 1, 1)], PolicyKind::Fifo);
    let (_, s) = summary(cfg(), &w, 10);
    let x = &s.research;
    assert_eq!(x.slowdown.mean, 3.5);
    assert_eq!(x.slowdown.p95, 6.0);
    assert_eq!(x.bounded_slowdown.mean, 2.0);
    assert_eq!(x.bounded_slowdown.p95, 3.0);
    assert_eq!(x.slowdown_bound_s, 10.0);
    let (_, s) = summary(cfg(), &w, 60);
    assert_eq!(s.research.bounded_slowdown.mean, 1.0);
    assert_eq!(
        s.research.slowdown.mean, 3.5,
        "the bound leaves plain slowdown alone"
    );
}

#[test]
fn finish_time_fairness_of_two_tenants() {
    // One 4-GPU node, two tenants: N = 2, C = 4, a 1/N share is 2 GPUs. FIFO: A (tenant
    // 0, 4 GPUs, 100 s) at 0 runs 0..100; B (tenant 1, 2 GPUs, 100 s) at 0 runs 100..200.
    // T_id(A) = 100 x 4 / 2 = 200 (it needs twice its share): rho = 100 / 200 = 0.5.
    // T_id(B) = 100 (it fits its share): rho = 200 / 100 = 2.
    // mean 1.25, max 2, share above 1 = 1/2.
    let mut a = job(0, 4, 100);
    a.tenant = 0;
    let mut b = job(0, 2, 100);
    b.tenant = 1;
    let mut w = workload(vec![a, b]);
    w.tenants = vec!["t0".into(), "t1".into()];
    let (_, s) = summary(config(vec![pool("p", 1, 4)], PolicyKind::Fifo), &w, 10);
    let f = s.research.finish_time_fairness;
    assert_eq!((f.tenants, f.cluster_gpus), (2, 4.0));
    assert_eq!((f.mean, f.max, f.share_above_1), (1.25, 2.0, 0.5));
    assert_eq!((f.jobs, f.censored), (2, 0));
    // Jain's index (sum x)^2 / (n sum x^2) over the tenants' means:
    // rho (0.5, 2): 6.25 / (2 x 4.25) = 0.735294; bounded slowdown (A 100/100 = 1,
    // B 200/100 = 2): 9 / (2 x 5) = 0.9; GPU share of demand (400/400, 200/200): 1.
    let j = s.research.fairness;
    assert_eq!(j.tenants, 2);
    assert!((j.jain_finish_time_fairness - 0.735294).abs() < 1e-6);
    assert!((j.jain_bounded_slowdown - 0.9).abs() < 1e-6);
    assert!((j.jain_gpu_share_of_demand - 1.0).abs() < 1e-6);
    // GPU-hours by outcome: 4 x 100 + 2 x 100 GPU-s = 600 / 3600 = 0.167 h, all completed.
    assert_eq!(s.research.gpu_hours_by_outcome.completed, 0.167);
    assert_eq!(s.research.gpu_hours_by_outcome.unfinished, 0.0);
}

#[test]
fn open_jobs_are_censored_in_every_all_jobs_figure() {
    // FIFO, 1 GPU, horizon 100 s. A (60 s) at 0 completes; B (80 s) at 0 starts at 60
    // and is open at 100; C (10 s) at 10 never starts.
    // Queueing delay: A 0, B 60, C 90 (to the horizon): all-jobs mean 50, 2 censored.
    // JCT: 60, 100, 90; bounded slowdown (tau 10): A 1, B 100/80 = 1.25, C 90/10 = 9.
    // Makespan: open jobs, so 0 to the horizon, censored.
    let w = workload(vec![job(0, 1, 60), job(0, 1, 80), job(10, 1, 10)]);
    let mut cfg = config(vec![pool("p", 1, 1)], PolicyKind::Fifo);
    cfg.horizon = Some(SimTime::from_secs(100));
    let (_, s) = summary(cfg, &w, 10);
    let q = s.research.queue_delay_all_s;
    assert_eq!((q.mean, q.jobs, q.censored), (50.0, 3, 2));
    assert_eq!(q.p95, 90.0);
    // Ended jobs only: A's 0.
    assert_eq!(s.research.queue_delay_s.mean, 0.0);
    let b = s.research.bounded_slowdown_all;
    assert!((b.mean - (1.0 + 1.25 + 9.0) / 3.0).abs() < 1e-3);
    assert_eq!(b.p95, 9.0);
    assert_eq!(s.research.makespan_s, 100.0);
    assert!(s.research.makespan_censored);
}
