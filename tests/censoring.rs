//! Percentiles over all submitted jobs count the jobs still open at the horizon at the
//! horizon (censored), so a saturated queue cannot look fine.

use super::common::*;
use gpufleet::engine::SimTime;
use gpufleet::metrics::{build_summary, RunMeta};
use gpufleet::pricing::Ledger;
use gpufleet::sched::PolicyKind;
use gpufleet::sim::Simulation;

#[test]
fn saturated_queue_counts_never_started_jobs_to_the_horizon() {
    // One 1-GPU node, FIFO, a 10 h horizon. A 1-GPU job of 4 h arrives every hour from
    // 0 h to 19 h except at 10 h (a submit at the horizon itself is in the run), and a
    // 2-GPU job no pool can hold at 0 h (rejected, so in neither).
    // Jobs submitted 0..9 h are in the run. Job 0 runs 0-4 h, job 1 4-8 h, job 2 starts
    // at 8 h and is still running at 10 h; jobs 3..9 never start.
    let mut jobs: Vec<_> = (0..20)
        .filter(|&h| h != 10)
        .map(|h| job(h * 3600, 1, 4 * 3600))
        .collect();
    jobs.push(job(0, 2, 3600));
    let w = workload(jobs);
    let mut cfg = config(vec![pool("p", 1, 1)], PolicyKind::Fifo);
    let horizon = SimTime::from_secs(10 * 3600);
    cfg.horizon = Some(horizon);
    let r = Simulation::new(cfg, &w).run();
    let meta = RunMeta {
        scenario: "t".into(),
        scenario_hash: String::new(),
        seed: 1,
        policy: "fifo".into(),
    };
    let s = build_summary(&meta, &w, &r, &Ledger::default());
    let h = 3600.0;
    // Started only: waits 0, 3 h, 6 h; nearest-rank p95 of three is the largest, 6 h.
    assert_eq!(s.wait_s.p95, 6.0 * h);
    // All ten: waits 0, 3, 6 h, then 10 h - submit for jobs 3..9: 7, 6, 5, 4, 3, 2, 1 h.
    // Sorted 0 1 2 3 3 4 5 6 6 7: p50 = 5th = 3 h, p95 = 10th = 7 h, mean 3.7 h.
    let a = s.wait_all_s;
    assert_eq!((a.jobs, a.censored), (10, 7));
    assert_eq!(a.p50, 3.0 * h);
    assert_eq!(a.p95, 7.0 * h);
    assert!((a.mean - 3.7 * h).abs() < 1e-6);
    // Directly: every never-started job waited at least horizon - submit, and the
    // all-jobs p95 is no less than any of those.
    for (i, rec) in r.jobs.iter().enumerate() {
        if rec.submitted && rec.start.is_none() && w.jobs[i].gpus.gpus_f64() <= 1.0 {
            assert!(a.p95 >= horizon.since(w.jobs[i].submit).secs_f64());
        }
    }
    // Completion times: 4 h and 7 h done; job 2 open at 8 h, jobs 3..9 open at 7..1 h.
    // Sorted 1 2 3 4 4 5 6 7 7 8: p50 = 4 h, p95 = 8 h; 8 of 10 censored.
    let c = s.jct_all_s;
    assert_eq!((c.jobs, c.censored), (10, 8));
    assert_eq!((c.p50, c.p95), (4.0 * h, 8.0 * h));
    assert_eq!(s.jct_s.p95, 7.0 * h);
}
