//! Jobs no pool can ever hold: found before the run, and refused loudly unless the
//! scenario says `oversized = "reject"` (then each is rejected at its submit time, with
//! its reason in `jobs.csv`, and the count printed).
//!
//! A job can run in a pool when the pool's GPU type is one it allows, the pool is not spot
//! (or the job is preemptible), and the pool can hold its size: one node for up to a node's
//! GPUs (or a fraction of one), else whole nodes, at most the pool's (maximum) node count,
//! the job's CPU and memory split evenly over them. This is the simulation's own rule
//! (`Cluster::nodes_needed` and `PoolChoice::allows`); a test checks they agree.

use super::problems::Problems;
use super::validate::Sections;
use crate::model::{CapacityKind, GpuRequest, Job, PoolSpec, TypeMask, Workload};

/// What a scenario does with jobs no pool can ever hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Oversized {
    /// Refuse the scenario (validation and run), listing the first such jobs (the default).
    #[default]
    Error,
    /// Reject each at its submit time, with its reason in `jobs.csv`.
    Reject,
}

/// How many oversized jobs an error lists by name.
const LISTED: usize = 5;

/// Why a pool cannot hold a job.
enum Misfit {
    /// The pool's nodes have no GPUs.
    NoGpus,
    /// The job needs more nodes than the pool has.
    Nodes,
    /// Each of the `k` nodes would need this much CPU and memory.
    Host(u32, u32, u64),
}

/// Nodes a job of `req` (CPU `cpu` milli-cores, memory `mem` MiB) needs in pool `s`, or
/// why it never fits (cheap: no text is made).
fn nodes_needed(s: &PoolSpec, req: GpuRequest, cpu: u32, mem: u64) -> Result<u32, Misfit> {
    let gpn = s.node.gpus as u32;
    let k = match req {
        GpuRequest::None => 1,
        _ if gpn == 0 => return Err(Misfit::NoGpus),
        GpuRequest::Fraction(_) => 1,
        GpuRequest::Whole(n) => n.div_ceil(gpn),
    };
    if k > s.nodes {
        return Err(Misfit::Nodes);
    }
    let (cpu_per, mem_per) = (cpu.div_ceil(k), mem.div_ceil(k as u64));
    if cpu_per > s.node.cpu_milli || mem_per > s.node.mem_mib {
        return Err(Misfit::Host(k, cpu_per, mem_per));
    }
    Ok(k)
}

/// The text of a misfit of pool `s`.
fn misfit_text(s: &PoolSpec, m: Misfit) -> String {
    let gpn = s.node.gpus as u64;
    match m {
        Misfit::NoGpus => format!("pool {} has no GPUs", s.name),
        Misfit::Nodes => format!(
            "pool {} has {} GPUs ({} nodes of {gpn})",
            s.name,
            s.nodes as u64 * gpn,
            s.nodes
        ),
        Misfit::Host(k, cpu_per, mem_per) => format!(
            "pool {}'s nodes have {} cores and {} GiB, the job needs {} cores and {} GiB on each of {k}",
            s.name,
            s.node.cpu_milli as f64 / 1000.0,
            s.node.mem_mib / 1024,
            cpu_per as f64 / 1000.0,
            mem_per.div_ceil(1024),
        ),
    }
}

/// True when some pool of `pools` can hold `job` (the cheap test run on every job).
pub fn placeable(pools: &[PoolSpec], job: &Job) -> bool {
    pools.iter().any(|p| {
        job.gpu_types.allows(p.gpu_type)
            && (p.kind != CapacityKind::Spot || job.preemptible)
            && nodes_needed(p, job.gpus, job.cpu_milli, job.mem_mib).is_ok()
    })
}

/// Why no pool of `pools` can ever hold a job asking for `req`, `cpu`, `mem` on the GPU
/// types of `types` (`preemptible`: may it use spot pools?); `None` when one can.
pub fn why_unplaceable(
    pools: &[PoolSpec],
    types: TypeMask,
    preemptible: bool,
    req: GpuRequest,
    cpu: u32,
    mem: u64,
) -> Option<String> {
    let mut typed = false;
    let mut spot_only = false;
    let mut why = Vec::new();
    for p in pools {
        if !types.allows(p.gpu_type) {
            continue;
        }
        if p.kind == CapacityKind::Spot && !preemptible {
            spot_only = true;
            continue;
        }
        typed = true;
        match nodes_needed(p, req, cpu, mem) {
            Ok(_) => return None,
            Err(e) => why.push(misfit_text(p, e)),
        }
    }
    let gpus = match req {
        GpuRequest::None => "no GPU".to_string(),
        GpuRequest::Fraction(m) => format!("{} of a GPU", m as f64 / 1000.0),
        GpuRequest::Whole(n) => format!("{n} GPUs"),
    };
    Some(if !typed && spot_only {
        format!("asks for {gpus}; only spot pools have its GPU type and it is not preemptible")
    } else if !typed {
        format!("asks for {gpus} {NO_POOL_TYPE}")
    } else {
        format!("asks for {gpus}: {}", why.join("; "))
    })
}

/// The end of [`why_unplaceable`]'s text for a job whose GPU types no pool has.
const NO_POOL_TYPE: &str = "of a GPU type no pool has";

/// The workload's GPU type names whose index `pick` keeps, quoted, joined by " or ".
fn type_names(w: &Workload, pick: impl Fn(usize) -> bool) -> String {
    let names: Vec<String> = w
        .gpu_types
        .iter()
        .enumerate()
        .filter(|(i, _)| pick(*i))
        .map(|(_, n)| format!("{n:?}"))
        .collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(" or ")
    }
}

/// Why `job` can never run on `pools`, if it cannot.
pub fn job_unplaceable(pools: &[PoolSpec], job: &Job) -> Option<String> {
    why_unplaceable(
        pools,
        job.gpu_types,
        job.preemptible,
        job.gpus,
        job.cpu_milli,
        job.mem_mib,
    )
}

/// Every job of `w` no pool can ever hold: (job index, reason), by index.
pub fn unplaceable_jobs(pools: &[PoolSpec], w: &Workload) -> Vec<(u32, String)> {
    unplaceable_among(pools, w, |_| true)
}

/// As [`unplaceable_jobs`], over the jobs `consider` keeps (by index).
pub fn unplaceable_among(
    pools: &[PoolSpec],
    w: &Workload,
    consider: impl Fn(usize) -> bool,
) -> Vec<(u32, String)> {
    // Oversized jobs repeat few shapes: the text is made once per shape.
    let mut seen: std::collections::BTreeMap<(u64, bool, GpuRequest, u32, u64), String> =
        std::collections::BTreeMap::new();
    let mut out = Vec::new();
    for (i, j) in w.jobs.iter().enumerate() {
        if !consider(i) || placeable(pools, j) {
            continue;
        }
        let key = (j.gpu_types.0, j.preemptible, j.gpus, j.cpu_milli, j.mem_mib);
        let why = seen.entry(key).or_insert_with(|| {
            let why =
                job_unplaceable(pools, j).unwrap_or_else(|| "no pool can ever hold it".into());
            // The type masks' names are the workload's: say which type was asked for and
            // which the pools have (`h100` against `H100` is a different type).
            let pool_types = || type_names(w, |i| pools.iter().any(|p| p.gpu_type == i));
            match why.strip_suffix(NO_POOL_TYPE) {
                // Types the scenario lacks were dropped from the mask as the trace was
                // mapped onto the scenario's `gpu_types` (names are case-sensitive).
                Some(head) if j.gpu_types.0 == 0 => format!(
                    "{head}of a GPU type the scenario does not have (names are case-sensitive; the pools have {})",
                    pool_types()
                ),
                Some(head) => format!(
                    "{head}of GPU type {} (the pools have {})",
                    type_names(w, |i| j.gpu_types.allows(i)),
                    pool_types(),
                ),
                None => why,
            }
        });
        out.push((i as u32, why.clone()));
    }
    out
}

/// The message refusing a workload with oversized jobs: the first few by name, the count.
pub fn oversized_message(w: &Workload, bad: &[(u32, String)]) -> String {
    let mut s = format!(
        "{} job{} no pool can ever hold (set oversized = \"reject\" to run without them):",
        bad.len(),
        if bad.len() == 1 { "" } else { "s" }
    );
    for (i, why) in bad.iter().take(LISTED) {
        let name = w.jobs.get(*i as usize).map_or("?", |j| j.name.as_str());
        s.push_str(&format!("\n  job {name} (#{i}): {why}"));
    }
    if bad.len() > LISTED {
        s.push_str(&format!("\n  ... and {} more", bad.len() - LISTED));
    }
    s
}

/// Stage 3: a generated workload whose sizes no pool can hold, unless `oversized =
/// "reject"` (traces are checked when read: `gpufleet validate` and every run).
pub(super) fn generated_sizes_fit(c: &mut Problems, s: &Sections) {
    if s.limits.oversized == Oversized::Reject {
        return;
    }
    let pools = &s.pools.specs;
    // (field path, request, cpu, mem, preemptible share) of each size with weight.
    let mut sizes: Vec<(String, GpuRequest, u32, u64, f64)> = Vec::new();
    match &s.workload {
        super::WorkloadSource::Synthetic(x) => {
            for (k, &(g, w)) in x.sizes.iter().enumerate() {
                if w > 0.0 {
                    let (cpu, mem) = per_gpu(g, x.cpu_milli_per_gpu, x.mem_mib_per_gpu);
                    sizes.push((
                        format!("workload.sizes[{k}]"),
                        g,
                        cpu,
                        mem,
                        x.preemptible_share,
                    ));
                }
            }
        }
        super::WorkloadSource::Model(m) => {
            for (t, mix) in m.tenants.iter().enumerate() {
                if mix.weight <= 0.0 {
                    continue;
                }
                for (k, &(g, w)) in mix.sizes.iter().enumerate() {
                    if w > 0.0 {
                        let (cpu, mem) = per_gpu(g, m.cpu_milli_per_gpu, m.mem_mib_per_gpu);
                        sizes.push((
                            format!("workload.tenants[{t}].sizes[{k}]"),
                            g,
                            cpu,
                            mem,
                            mix.preemptible_share,
                        ));
                    }
                }
            }
        }
        _ => return,
    }
    for (path, g, cpu, mem, share) in sizes {
        // The jobs that are not preemptible are the ones spot pools cannot take.
        let preemptible = share >= 1.0;
        if let Some(why) = why_unplaceable(pools, TypeMask::ANY, preemptible, g, cpu, mem) {
            c.err(
                path,
                format!(
                    "no pool can ever hold such a job: it {why} (or set oversized = \"reject\")"
                ),
            );
        }
    }
}

/// CPU and memory of a generated job of `g` GPUs (as the generators compute them).
fn per_gpu(g: GpuRequest, cpu_per_gpu: u32, mem_per_gpu: u64) -> (u32, u64) {
    let x = g.gpus_f64();
    (
        (cpu_per_gpu as f64 * x).round() as u32,
        (mem_per_gpu as f64 * x).round() as u64,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Cluster, NodeSpec};

    fn pool(name: &str, t: usize, kind: CapacityKind, nodes: u32, gpus: u16) -> PoolSpec {
        PoolSpec {
            name: name.into(),
            gpu_type: t,
            kind,
            node: NodeSpec {
                gpus,
                cpu_milli: 64_000,
                mem_mib: 512 * 1024,
            },
            nodes,
            speed: 1.0,
        }
    }

    #[test]
    fn agrees_with_the_cluster_on_every_shape() {
        // The cluster's own rule is the oracle: both must say "fits" for the same shapes.
        let pools = vec![
            pool("a", 0, CapacityKind::Owned, 4, 8),
            pool("b", 0, CapacityKind::OnDemand, 1, 4),
            pool("z", 0, CapacityKind::Owned, 3, 0),
        ];
        let cluster = Cluster::new(pools.clone());
        for gpus in 0..40u32 {
            for cpu in [0u32, 8_000, 64_000, 64_001, 200_000] {
                for mem in [0u64, 1024, 512 * 1024, 600 * 1024] {
                    let req = match gpus {
                        0 => GpuRequest::None,
                        n => GpuRequest::Whole(n),
                    };
                    for (p, spec) in pools.iter().enumerate() {
                        let ours = nodes_needed(spec, req, cpu, mem).ok();
                        assert_eq!(
                            ours,
                            cluster.nodes_needed(p, req, cpu, mem),
                            "{gpus} {cpu} {mem}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn reasons_name_the_limit() {
        let pools = vec![
            pool("owned", 0, CapacityKind::Owned, 2, 8),
            pool("spot", 1, CapacityKind::Spot, 100, 8),
        ];
        // 17 GPUs: more than owned's 16, and not preemptible for spot.
        let why =
            why_unplaceable(&pools, TypeMask::ANY, false, GpuRequest::Whole(17), 0, 0).unwrap();
        assert!(why.contains("17 GPUs") && why.contains("16 GPUs"), "{why}");
        // Preemptible: the spot pool holds it.
        assert!(
            why_unplaceable(&pools, TypeMask::ANY, true, GpuRequest::Whole(17), 0, 0).is_none()
        );
        // Only type 1 (spot) allowed, not preemptible.
        let why = why_unplaceable(
            &pools,
            TypeMask::single(1),
            false,
            GpuRequest::Whole(1),
            0,
            0,
        )
        .unwrap();
        assert!(why.contains("only spot pools"), "{why}");
        // A type no pool has.
        let why = why_unplaceable(&pools, TypeMask(0), false, GpuRequest::Whole(1), 0, 0).unwrap();
        assert!(why.contains("GPU type no pool has"), "{why}");
    }
}
