//! Workloads shared between a sweep's runs: the runs of one seed at points whose workloads
//! are built alike (everything [`Scenario::workload_from`] reads is equal: the source, the
//! job limit, the cluster's GPU count, the speed reference, the GPU types and the tags)
//! run on one built workload instead of each reading the trace or generating the jobs
//! again. A policy sweep over a 1,000,000-job trace read it once a run (about a quarter of
//! each run's CPU); now once a seed while the runs that share it follow one another.
//!
//! Results do not change: a shared workload is the one the run would have built (same
//! scenario part, same seed's streams; each run simulates its own copy, through
//! [`crate::run::execute_built`]), and a run whose workload is given in memory or fails
//! to build builds it as before (and reports the same error). The runs are ordered so that
//! those sharing a workload are adjacent (by seed, then by a hash of the workload's
//! description); a hash only orders, a workload is shared only on equal descriptions.
//! At most a few workloads are kept (one more than the threads, the least recently used
//! dropped), with [`MAX_SHARED_JOBS`] jobs in all, so memory stays about what the runs
//! in flight hold.

use crate::engine::RngStreams;
use crate::model::Workload;
use crate::scenario::{Scenario, WorkloadSource};
use std::hash::Hasher;
use std::sync::{Arc, Mutex};

/// The most jobs the kept workloads hold together (about 160 bytes a job: 160 MB; each
/// run's own copy replaces the workload it would have built, so this is all sharing adds
/// to a sweep's memory); a bigger workload is built by each run, as before sharing.
pub const MAX_SHARED_JOBS: usize = 1_000_000;

/// Everything that decides a point's built workload, as text (`None` for a workload given
/// in memory, which is shared already).
pub fn workload_key(s: &Scenario) -> Option<String> {
    if matches!(s.workload, WorkloadSource::Given(_)) {
        return None;
    }
    let mut text = String::new();
    write_key(s, &mut text);
    Some(text)
}

/// A hash of [`workload_key`], without building the text (for ordering runs only).
pub fn key_hash(s: &Scenario) -> u64 {
    struct H(std::collections::hash_map::DefaultHasher);
    impl std::fmt::Write for H {
        fn write_str(&mut self, part: &str) -> std::fmt::Result {
            self.0.write(part.as_bytes());
            Ok(())
        }
    }
    let mut h = H(std::collections::hash_map::DefaultHasher::new());
    write_key(s, &mut h);
    h.0.finish()
}

fn write_key(s: &Scenario, out: &mut impl std::fmt::Write) {
    // A trace's load scaling reads the cluster's GPUs; other sources do not.
    let gpus: u64 = match s.workload {
        WorkloadSource::Trace(_) => s
            .sim
            .pools
            .iter()
            .map(|p| p.nodes as u64 * p.node.gpus as u64)
            .sum(),
        _ => 0,
    };
    let types: Vec<&str> = s.gpu_types.iter().map(|t| t.name.as_str()).collect();
    let _ = write!(
        out,
        "{:?}\u{1f}{}\u{1f}{}\u{1f}{:?}\u{1f}{:?}\u{1f}{:?}",
        s.workload, s.limits.max_jobs, gpus, s.measured_on, types, s.tags
    );
}

struct Entry {
    key: String,
    seed: u64,
    workload: Arc<Workload>,
    used: u64,
}

/// The kept workloads of a sweep.
pub struct SharedWorkloads {
    entries: Mutex<(u64, Vec<Entry>)>,
    capacity: usize,
    max_jobs: usize,
}

impl SharedWorkloads {
    /// Keeps at most `capacity` workloads, with [`MAX_SHARED_JOBS`] jobs in all.
    pub fn new(capacity: usize) -> SharedWorkloads {
        SharedWorkloads::with_limits(capacity, MAX_SHARED_JOBS)
    }

    /// Keeps at most `capacity` workloads, with `max_jobs` jobs in all.
    pub fn with_limits(capacity: usize, max_jobs: usize) -> SharedWorkloads {
        SharedWorkloads {
            entries: Mutex::new((0, Vec::new())),
            capacity: capacity.max(1),
            max_jobs,
        }
    }

    /// The workload of scenario `s` under `seed`: a copy of the kept one that matches, or
    /// built now (and kept, unless too big); `None` when its workload is given in memory
    /// or fails to build (the run then builds it and reports the error as it always did).
    pub fn workload_for(&self, s: &Scenario, seed: u64) -> Option<Workload> {
        let key = workload_key(s)?;
        let found = {
            let mut g = self.entries.lock().unwrap_or_else(|p| p.into_inner());
            g.0 += 1;
            let now = g.0;
            g.1.iter_mut()
                .find(|e| e.seed == seed && e.key == key)
                .map(|e| {
                    e.used = now;
                    e.workload.clone()
                })
        };
        if let Some(w) = found {
            return Some(w.as_ref().clone());
        }
        let w = s.workload_from(&RngStreams::new(seed)).ok()?;
        if w.jobs.len() > self.max_jobs {
            return Some(w);
        }
        let kept = Arc::new(w);
        self.keep(key, seed, kept.clone());
        Some(kept.as_ref().clone())
    }

    fn keep(&self, key: String, seed: u64, workload: Arc<Workload>) {
        let mut g = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        g.0 += 1;
        let used = g.0;
        if g.1.iter().any(|e| e.seed == seed && e.key == key) {
            return; // another thread built it meanwhile
        }
        let jobs = workload.jobs.len();
        while !g.1.is_empty()
            && (g.1.len() >= self.capacity
                || g.1.iter().map(|e| e.workload.jobs.len()).sum::<usize>() + jobs > self.max_jobs)
        {
            if let Some(oldest) = (0..g.1.len()).min_by_key(|&i| g.1[i].used) {
                g.1.swap_remove(oldest);
            }
        }
        g.1.push(Entry {
            key,
            seed,
            workload,
            used,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(c: &SharedWorkloads) -> usize {
        c.entries.lock().unwrap().1.len()
    }

    #[test]
    fn points_alike_share_a_workload_and_others_do_not() {
        let base = Scenario::builtin().unwrap();
        let mut policy = base.clone();
        policy.sim.policy = crate::sched::PolicyKind::Fifo;
        let mut nodes = base.clone();
        nodes.sim.pools[1].nodes += 3;
        let mut limit = base.clone();
        limit.limits.max_jobs = 10;
        // What the workload is built from decides; the policy and (for a generated
        // workload) the cluster's size do not, the job limit does.
        let key = workload_key(&base).unwrap();
        assert_eq!(workload_key(&policy).unwrap(), key);
        assert_eq!(workload_key(&nodes).unwrap(), key);
        assert_ne!(workload_key(&limit).unwrap(), key);
        assert_eq!(key_hash(&policy), key_hash(&base));
        let c = SharedWorkloads::new(2);
        let built =
            |s: &Scenario, seed| format!("{:?}", s.workload_from(&RngStreams::new(seed)).unwrap());
        // A kept workload is what the run would have built, seed by seed.
        for (s, seed) in [
            (&base, 1),
            (&policy, 1),
            (&nodes, 1),
            (&base, 2),
            (&policy, 1),
        ] {
            let w = c.workload_for(s, seed).unwrap();
            assert_eq!(format!("{w:?}"), built(s, seed));
        }
        assert_eq!(kept(&c), 2, "one workload a seed");
        // The limit's workload is its own (it fails: more jobs than 10), and is not kept.
        assert!(c.workload_for(&limit, 1).is_none());
        assert_eq!(kept(&c), 2);
        // A third seed drops the least recently used (seed 2).
        c.workload_for(&base, 3).unwrap();
        let seeds: Vec<u64> = c.entries.lock().unwrap().1.iter().map(|e| e.seed).collect();
        assert_eq!(kept(&c), 2);
        assert!(seeds.contains(&1) && seeds.contains(&3), "{seeds:?}");
    }

    #[test]
    fn the_kept_jobs_stay_under_their_limit() {
        let s = Scenario::builtin().unwrap();
        let n = s.workload_from(&RngStreams::new(1)).unwrap().jobs.len();
        // Room for one workload and a half: a second seed's drops the first, and one over
        // the limit is handed out but not kept.
        let c = SharedWorkloads::with_limits(4, n + n / 2);
        c.workload_for(&s, 1).unwrap();
        c.workload_for(&s, 2).unwrap();
        let seeds: Vec<u64> = c.entries.lock().unwrap().1.iter().map(|e| e.seed).collect();
        assert_eq!(seeds, vec![2]);
        let tight = SharedWorkloads::with_limits(4, n / 2);
        assert_eq!(tight.workload_for(&s, 1).unwrap().jobs.len(), n);
        assert_eq!(kept(&tight), 0);
    }

    #[test]
    fn a_workload_given_in_memory_is_not_rebuilt() {
        let mut s = Scenario::builtin().unwrap();
        let w = s.workload_from(&RngStreams::new(1)).unwrap();
        s.workload = WorkloadSource::Given(Arc::new(w));
        assert!(workload_key(&s).is_none());
        assert!(SharedWorkloads::new(2).workload_for(&s, 1).is_none());
    }
}
