//! Jobs as the simulator sees them, and a workload: jobs in submit order with name tables.

use super::TypeMask;
use crate::engine::SimTime;

/// Capacity of one GPU in milli-GPU (thousandths), the unit of fractional requests.
pub const MILLI_PER_GPU: u32 = 1000;

/// Index of a job in its workload (0-based, in submit order).
pub type JobId = u32;

/// A hasher for job ids: one multiply (Fibonacci hashing) instead of SipHash. Job ids
/// are dense indices chosen by the simulator, not by an adversary, so the DoS resistance
/// of the default hasher buys nothing here, and maps keyed by job id sit on every event.
#[derive(Debug, Default, Clone, Copy)]
pub struct JobIdHasher(u64);

impl std::hash::Hasher for JobIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.0 = (i as u64 ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A hash map keyed by job id (iteration order is arbitrary: never iterate it into outputs).
pub type JobMap<V> =
    std::collections::HashMap<JobId, V, std::hash::BuildHasherDefault<JobIdHasher>>;

/// How much GPU a job asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GpuRequest {
    /// No GPU (CPU-only task, as in the openb traces).
    None,
    /// A share of one GPU, in milli-GPU (1..=999).
    Fraction(u16),
    /// A whole number of GPUs (>= 1). Up to a node's GPU count it runs on one node;
    /// beyond that it takes whole nodes, all at once.
    Whole(u32),
}

impl GpuRequest {
    /// GPUs requested as milli-GPU in total.
    pub fn milli(self) -> u64 {
        match self {
            GpuRequest::None => 0,
            GpuRequest::Fraction(m) => m as u64,
            GpuRequest::Whole(n) => n as u64 * MILLI_PER_GPU as u64,
        }
    }
    /// GPUs requested as a float (0.46 for 460 milli).
    pub fn gpus_f64(self) -> f64 {
        self.milli() as f64 / MILLI_PER_GPU as f64
    }
    /// From a GPU count and per-GPU milli share, as the openb trace writes them.
    pub fn from_count_and_milli(count: u32, milli: u32) -> Option<GpuRequest> {
        match (count, milli) {
            (0, _) => Some(GpuRequest::None),
            (_, 0) => Some(GpuRequest::None),
            (1, m) if m < MILLI_PER_GPU => Some(GpuRequest::Fraction(m as u16)),
            (n, m) if m == MILLI_PER_GPU => Some(GpuRequest::Whole(n)),
            _ => None,
        }
    }
}

/// One job of a workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// The job's name in its trace (or a generated number).
    pub name: String,
    /// When the job is submitted.
    pub submit: SimTime,
    /// GPUs requested.
    pub gpus: GpuRequest,
    /// GPU types the job may run on (over the workload's `gpu_types` table).
    pub gpu_types: TypeMask,
    /// CPU requested, in milli-cores (in total, split evenly over nodes for gang jobs).
    pub cpu_milli: u32,
    /// Memory requested in MiB (in total, as CPU).
    pub mem_mib: u64,
    /// Work: the run time on the reference GPU (speed 1.0).
    pub work: SimTime,
    /// The runtime estimate schedulers see (on the reference GPU); the true work if absent.
    pub estimate: Option<SimTime>,
    /// Tenant (team, user or virtual cluster), as an index into `Workload::tenants`.
    pub tenant: u32,
    /// Priority: higher runs first under priority policies.
    pub priority: i32,
    /// Deadline (absolute time), if any.
    pub deadline: Option<SimTime>,
    /// Whether the job may be preempted (and so may run on spot capacity).
    pub preemptible: bool,
    /// What the cloud model reads of the job: its class, its dataset, its communication
    /// share (all absent by default: the job is only its GPUs and work).
    pub tags: JobTags,
}

/// A job's class (for throughput tables), the dataset it reads (staged before it runs)
/// and its communication share (slowed by a spread-out placement); each absent unless a
/// trace column, a generated mix or a share per tenant gives it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct JobTags {
    /// Index into `Workload::classes`.
    pub class: Option<u16>,
    /// Index into `Workload::datasets`.
    pub dataset: Option<u32>,
    /// Share of the job's step time spent communicating at the reference bandwidth
    /// (0..=1); when absent its class's or the scenario's default applies.
    pub comm_share: Option<f32>,
}

impl JobTags {
    /// No class, no dataset, no communication share.
    pub const NONE: JobTags = JobTags {
        class: None,
        dataset: None,
        comm_share: None,
    };
}

impl Job {
    /// The estimate schedulers plan with (the true work when the trace gives none).
    pub fn planned_work(&self) -> SimTime {
        self.estimate.unwrap_or(self.work)
    }
}

/// Jobs in submit order, with the name tables their indices refer to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Workload {
    /// Jobs sorted by submit time (stable: trace order breaks ties).
    pub jobs: Vec<Job>,
    /// Tenant names; `Job::tenant` indexes this.
    pub tenants: Vec<String>,
    /// GPU type names; `Job::gpu_types` bits index this.
    pub gpu_types: Vec<String>,
    /// Rows skipped as bad (only with skip-bad-rows), reported, never silent.
    pub skipped_rows: u64,
    /// The same rows by the file they were in (a file's name as the user gave it, and
    /// its count), so a message can say which file of a join held them; the counts add
    /// up to `skipped_rows`.
    pub skipped_by_file: Vec<(String, u64)>,
    /// Rows dropped by load-time filters, with the reason.
    pub filtered: Vec<(String, u64)>,
    /// Job class names (model names, workload kinds); `JobTags::class` indexes this.
    pub classes: Vec<String>,
    /// Dataset names jobs read; `JobTags::dataset` indexes this.
    pub datasets: Vec<String>,
}

impl Workload {
    /// Index of tenant `name`, added if new.
    pub fn tenant_index(&mut self, name: &str) -> u32 {
        if let Some(i) = self.tenants.iter().position(|t| t == name) {
            return i as u32;
        }
        self.tenants.push(name.to_string());
        (self.tenants.len() - 1) as u32
    }

    /// Mask for the GPU type names given (added to the table if new); `None` if the table
    /// would pass 64 types.
    pub fn type_mask<'a>(&mut self, names: impl IntoIterator<Item = &'a str>) -> Option<TypeMask> {
        let mut mask = 0u64;
        for n in names {
            let i = match self.gpu_types.iter().position(|t| t == n) {
                Some(i) => i,
                None => {
                    if self.gpu_types.len() >= 64 {
                        return None;
                    }
                    self.gpu_types.push(n.to_string());
                    self.gpu_types.len() - 1
                }
            };
            mask |= 1u64 << i;
        }
        Some(TypeMask(mask))
    }

    /// Index of class `name`, added if new; `None` past 65,535 classes.
    pub fn class_index(&mut self, name: &str) -> Option<u16> {
        intern(&mut self.classes, name, u16::MAX as usize).map(|i| i as u16)
    }

    /// Index of dataset `name`, added if new; `None` past 2^32 - 1 datasets.
    pub fn dataset_index(&mut self, name: &str) -> Option<u32> {
        intern(&mut self.datasets, name, u32::MAX as usize).map(|i| i as u32)
    }

    /// Sorts jobs by submit time, keeping trace order among equal times.
    pub fn sort_by_submit(&mut self) {
        self.jobs.sort_by_key(|j| j.submit);
    }

    /// Rewrites every job's type mask from this workload's table onto `cluster_types`
    /// (the scenario's GPU type names). Returns the names no cluster type matches.
    pub fn remap_types(&mut self, cluster_types: &[String]) -> Vec<String> {
        let map: Vec<Option<usize>> = self
            .gpu_types
            .iter()
            .map(|n| cluster_types.iter().position(|c| c == n))
            .collect();
        let unknown: Vec<String> = self
            .gpu_types
            .iter()
            .zip(&map)
            .filter(|(_, m)| m.is_none())
            .map(|(n, _)| n.clone())
            .collect();
        for j in &mut self.jobs {
            if j.gpu_types.is_any() {
                continue;
            }
            let mut out = 0u64;
            for (i, m) in map.iter().enumerate() {
                if j.gpu_types.allows(i) {
                    if let Some(c) = m {
                        out |= 1u64 << c;
                    }
                }
            }
            j.gpu_types = TypeMask(out);
        }
        self.gpu_types = cluster_types.to_vec();
        unknown
    }
}

/// A workload's tenant, class and dataset tables looked up by name in constant time, for
/// readers that name one of each per row: `Workload::tenant_index` and its kin scan their
/// table, which over a trace of a million distinct users is a million scans of a table
/// growing to a million names (hours). Only lookups go through the hash maps; the tables
/// keep their order, so outputs do not depend on hashing.
#[derive(Debug, Default, Clone)]
pub struct NameIndex {
    tenants: std::collections::HashMap<String, usize>,
    classes: std::collections::HashMap<String, usize>,
    datasets: std::collections::HashMap<String, usize>,
}

impl NameIndex {
    /// An index of `w`'s tables as they are; names added later must go through it.
    pub fn of(w: &Workload) -> NameIndex {
        let map = |t: &[String]| {
            let mut m = std::collections::HashMap::with_capacity(t.len());
            for (i, n) in t.iter().enumerate() {
                m.entry(n.clone()).or_insert(i);
            }
            m
        };
        NameIndex {
            tenants: map(&w.tenants),
            classes: map(&w.classes),
            datasets: map(&w.datasets),
        }
    }

    /// As [`Workload::tenant_index`].
    pub fn tenant(&mut self, w: &mut Workload, name: &str) -> u32 {
        look(&mut self.tenants, &mut w.tenants, name, u32::MAX as usize).unwrap_or(0) as u32
    }

    /// As [`Workload::class_index`].
    pub fn class(&mut self, w: &mut Workload, name: &str) -> Option<u16> {
        look(&mut self.classes, &mut w.classes, name, u16::MAX as usize).map(|i| i as u16)
    }

    /// As [`Workload::dataset_index`].
    pub fn dataset(&mut self, w: &mut Workload, name: &str) -> Option<u32> {
        look(&mut self.datasets, &mut w.datasets, name, u32::MAX as usize).map(|i| i as u32)
    }
}

/// Position of `name` in `table` through its index `map`, added to both if new and the
/// table holds fewer than `max`.
fn look(
    map: &mut std::collections::HashMap<String, usize>,
    table: &mut Vec<String>,
    name: &str,
    max: usize,
) -> Option<usize> {
    if let Some(&i) = map.get(name) {
        return Some(i);
    }
    if table.len() >= max {
        return None;
    }
    table.push(name.to_string());
    map.insert(name.to_string(), table.len() - 1);
    Some(table.len() - 1)
}

/// Position of `name` in `table`, added if new and the table holds fewer than `max`.
fn intern(table: &mut Vec<String>, name: &str, max: usize) -> Option<usize> {
    if let Some(i) = table.iter().position(|t| t == name) {
        return Some(i);
    }
    if table.len() >= max {
        return None;
    }
    table.push(name.to_string());
    Some(table.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openb_style_requests() {
        assert_eq!(
            GpuRequest::from_count_and_milli(1, 460),
            Some(GpuRequest::Fraction(460))
        );
        assert_eq!(
            GpuRequest::from_count_and_milli(2, 1000),
            Some(GpuRequest::Whole(2))
        );
        assert_eq!(
            GpuRequest::from_count_and_milli(0, 0),
            Some(GpuRequest::None)
        );
        assert_eq!(GpuRequest::from_count_and_milli(2, 500), None);
        assert_eq!(GpuRequest::Fraction(460).milli(), 460);
        assert_eq!(GpuRequest::Whole(3).milli(), 3000);
    }

    #[test]
    fn remap_types_moves_bits() {
        let mut w = Workload::default();
        let m = w.type_mask(["V100", "T4"]).unwrap();
        w.jobs.push(Job {
            name: "a".into(),
            submit: SimTime(0),
            gpus: GpuRequest::Whole(1),
            gpu_types: m,
            cpu_milli: 0,
            mem_mib: 0,
            work: SimTime(1),
            estimate: None,
            tenant: 0,
            priority: 0,
            deadline: None,
            preemptible: false,
            tags: JobTags::NONE,
        });
        let unknown = w.remap_types(&["T4".into(), "A100".into()]);
        assert_eq!(unknown, vec!["V100".to_string()]);
        assert_eq!(w.jobs[0].gpu_types, TypeMask(0b01));
    }
}
