//! Alibaba GPU cluster trace v2023 ("openb"): pod lists and node lists.
//!
//! Pod lists: `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,
//! creation_time,deletion_time,scheduled_time` (times in seconds from the trace start);
//! some variants carry only the first five columns. `num_gpu = 1` with `gpu_milli < 1000`
//! is a fractional GPU; `num_gpu = 0` a CPU-only pod; `gpu_spec` `A|B` limits the GPU
//! models (empty = any). Node lists: `sn,cpu_milli,memory_mib,gpu,model`.
//!
//! Both are bounded while they are read: a pod list stops with an error past the run's
//! `max_jobs` pods, a node list past [`MAX_NODES`] nodes (the most a cluster may have).
//!
//! [`read_openb_pods`] keeps the raw rows (the FGD experiment needs them as they are);
//! [`openb_workload`] turns pods into a time-based [`Workload`] (submit = creation time,
//! work = deletion minus scheduled time, tenant = QoS class).

use super::csv_rows::open;
use super::{BadRows, TraceError};
use crate::engine::SimTime;
use crate::model::{GpuRequest, Job, NodeSpec, TypeMask, Workload, MAX_NODES, MILLI_PER_GPU};
use std::collections::hash_map::{Entry, HashMap};
use std::io::Read;
use std::path::Path;

/// Every column of a full openb pod list, in file order.
pub const OPENB_POD_COLUMNS: [&str; 11] = [
    "name",
    "cpu_milli",
    "memory_mib",
    "num_gpu",
    "gpu_milli",
    "gpu_spec",
    "qos",
    "pod_phase",
    "creation_time",
    "deletion_time",
    "scheduled_time",
];

/// Columns every pod list must have.
const POD_REQUIRED: usize = 5;

/// Columns of an openb node list.
pub const OPENB_NODE_COLUMNS: [&str; 5] = ["sn", "cpu_milli", "memory_mib", "gpu", "model"];

/// One pod (task) of an openb pod list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenbPod {
    /// Pod name.
    pub name: String,
    /// CPU requested, milli-cores.
    pub cpu_milli: u32,
    /// Memory requested, MiB.
    pub mem_mib: u64,
    /// GPUs requested (0 = CPU-only).
    pub num_gpu: u32,
    /// Milli-GPU per GPU (1000 = whole GPUs, less with `num_gpu = 1` = a shared GPU).
    pub gpu_milli: u32,
    /// Allowed GPU models; empty = any.
    pub gpu_spec: Vec<String>,
    /// QoS class (`LS`, `BE`, `Burstable`, `Guaranteed`); empty when absent.
    pub qos: String,
    /// Pod phase at trace end; empty when absent.
    pub phase: String,
    /// Creation time, seconds.
    pub creation: Option<u64>,
    /// Deletion time, seconds.
    pub deletion: Option<u64>,
    /// Scheduled time, seconds.
    pub scheduled: Option<u64>,
}

impl OpenbPod {
    /// Total GPU demand in milli-GPU (`num_gpu * gpu_milli`).
    pub fn gpu_milli_total(&self) -> u64 {
        self.num_gpu as u64 * self.gpu_milli as u64
    }

    /// The GPU request in the model's terms.
    pub fn gpu_request(&self) -> GpuRequest {
        // Validated on reading, so the fallback is never taken.
        GpuRequest::from_count_and_milli(self.num_gpu, self.gpu_milli).unwrap_or(GpuRequest::None)
    }
}

/// One node of an openb node list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenbNode {
    /// Serial name.
    pub sn: String,
    /// CPU, milli-cores.
    pub cpu_milli: u32,
    /// Memory, MiB.
    pub mem_mib: u64,
    /// GPUs on the node.
    pub gpus: u32,
    /// GPU model (empty for CPU-only nodes).
    pub model: String,
}

/// Pods read from a file, with the count of bad rows skipped.
#[derive(Debug, Clone, Default)]
pub struct OpenbPods {
    /// Pods in file order.
    pub pods: Vec<OpenbPod>,
    /// Rows skipped as bad (only with [`BadRows::Skip`]).
    pub skipped_rows: u64,
    /// True when the file has the time columns.
    pub has_times: bool,
}

/// Reads an openb pod list, stopping with an error once it holds more than `max_pods`
/// pods (a run's `max_jobs`; `None`: no cap), while reading: a list of 100 million pods is
/// never held whole.
pub fn read_openb_pods(
    path: &Path,
    bad: BadRows,
    max_pods: Option<u64>,
) -> Result<OpenbPods, TraceError> {
    read_pods_from(open(path)?, path, bad, max_pods)
}

/// Reads an openb node list, stopping with an error once it holds more than
/// [`MAX_NODES`] nodes (the most a cluster may have).
pub fn read_openb_nodes(path: &Path, bad: BadRows) -> Result<Vec<OpenbNode>, TraceError> {
    read_openb_node_list(path, bad).map(|(n, _)| n)
}

/// As [`read_openb_nodes`], with the count of bad rows skipped (with [`BadRows::Skip`]).
pub fn read_openb_node_list(
    path: &Path,
    bad: BadRows,
) -> Result<(Vec<OpenbNode>, u64), TraceError> {
    read_nodes_from(open(path)?, path, bad, MAX_NODES)
}

/// Reads an openb pod list as a time-based workload (see the module docs), stopping past
/// `max_jobs` pods as [`read_openb_pods`] does.
pub fn read_openb(
    path: &Path,
    bad: BadRows,
    max_jobs: Option<u64>,
) -> Result<Workload, TraceError> {
    let pods = read_openb_pods(path, bad, max_jobs)?;
    openb_workload(&pods, path)
}

/// Maps each header name to its column, checking the order-independent set.
fn header_map(
    rdr: &mut csv::Reader<impl Read>,
    path: &Path,
    known: &[&str],
    required: usize,
) -> Result<Vec<usize>, TraceError> {
    let headers = rdr
        .headers()
        .map_err(|e| TraceError::File {
            file: path.to_path_buf(),
            reason: format!("cannot read the header row: {e}"),
        })?
        .clone();
    let mut col = vec![usize::MAX; known.len()];
    for (i, h) in headers.iter().enumerate() {
        let h = h.trim();
        match known.iter().position(|c| *c == h) {
            Some(k) if col[k] != usize::MAX => {
                return Err(TraceError::Row {
                    file: path.to_path_buf(),
                    row: 1,
                    column: h.to_string(),
                    reason: format!("appears twice (columns {} and {})", col[k] + 1, i + 1),
                })
            }
            Some(k) => col[k] = i,
            None => {
                return Err(TraceError::Row {
                    file: path.to_path_buf(),
                    row: 1,
                    column: h.to_string(),
                    reason: format!("unknown column (known: {})", known.join(", ")),
                })
            }
        }
    }
    for (k, name) in known.iter().enumerate().take(required) {
        if col[k] == usize::MAX {
            return Err(TraceError::File {
                file: path.to_path_buf(),
                reason: format!("missing required column {name:?} in the header row"),
            });
        }
    }
    Ok(col)
}

/// Reads every record, handing each to `parse` and what it makes, with its line, to
/// `keep` (which may end the read with an error: a cap); bad rows stop or are counted per
/// `bad`. Returns the count of rows skipped.
fn each_row<R: Read, T>(
    rdr: &mut csv::Reader<R>,
    path: &Path,
    bad: BadRows,
    known: &[&str],
    mut parse: impl FnMut(&csv::StringRecord) -> Result<T, (usize, String)>,
    mut keep: impl FnMut(u64, T) -> Result<(), TraceError>,
) -> Result<u64, TraceError> {
    let mut skipped = 0u64;
    let mut rec = csv::StringRecord::new();
    loop {
        let line = rdr.position().line() + 1;
        let err = match rdr.read_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {
                let row = rec.position().map(|p| p.line()).unwrap_or(line);
                match parse(&rec) {
                    Ok(t) => {
                        keep(row, t)?;
                        continue;
                    }
                    Err((k, reason)) => TraceError::Row {
                        file: path.to_path_buf(),
                        row,
                        column: known[k].to_string(),
                        reason,
                    },
                }
            }
            Err(e) => {
                // A line over the limit ends the read whatever the bad-row rule (skipped,
                // it would silently take every row after it along).
                if let Some(f) = super::csv_rows::fatal(path, &e) {
                    return Err(f);
                }
                TraceError::Row {
                    file: path.to_path_buf(),
                    row: e.position().map(|p| p.line()).unwrap_or(line),
                    column: String::new(),
                    reason: e.to_string(),
                }
            }
        };
        match bad {
            BadRows::Stop => return Err(err),
            BadRows::Skip => skipped += 1,
        }
    }
    Ok(skipped)
}

fn field<'a>(rec: &'a csv::StringRecord, col: &[usize], k: usize) -> Option<&'a str> {
    (col[k] != usize::MAX)
        .then(|| rec.get(col[k]))
        .flatten()
        .map(str::trim)
}

fn need_u64(rec: &csv::StringRecord, col: &[usize], k: usize) -> Result<u64, (usize, String)> {
    match field(rec, col, k) {
        None | Some("") => Err((k, "missing value".into())),
        Some(v) => v
            .parse::<u64>()
            .map_err(|_| (k, format!("{v:?} is not a non-negative integer"))),
    }
}

fn opt_u64(
    rec: &csv::StringRecord,
    col: &[usize],
    k: usize,
) -> Result<Option<u64>, (usize, String)> {
    match field(rec, col, k) {
        None | Some("") => Ok(None),
        Some(_) => need_u64(rec, col, k).map(Some),
    }
}

fn small(v: u64, k: usize) -> Result<u32, (usize, String)> {
    u32::try_from(v).map_err(|_| (k, format!("{v} is too large")))
}

/// An openb pod list being read: its header taken, its pods streamed one at a time (the
/// pod list as a trace hands each to the row sink without holding the list).
pub(super) struct PodList<R: Read> {
    rdr: csv::Reader<R>,
    col: Vec<usize>,
    path: std::path::PathBuf,
    /// True when the file has the time columns.
    pub has_times: bool,
}

impl<R: Read> PodList<R> {
    /// Starts reading `input` (`path` names it in errors): the header row is checked.
    pub(super) fn new(input: R, path: &Path) -> Result<PodList<R>, TraceError> {
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(input);
        let col = header_map(&mut rdr, path, &OPENB_POD_COLUMNS, POD_REQUIRED)?;
        let has_times = col[8] != usize::MAX && col[9] != usize::MAX;
        Ok(PodList {
            rdr,
            col,
            path: path.to_path_buf(),
            has_times,
        })
    }

    /// Hands each good pod, with its line, to `keep` (which may stop the read); bad rows
    /// stop or are counted per `bad`. Returns the count of rows skipped.
    pub(super) fn each(
        mut self,
        bad: BadRows,
        keep: impl FnMut(u64, OpenbPod) -> Result<(), TraceError>,
    ) -> Result<u64, TraceError> {
        let col = self.col;
        each_row(
            &mut self.rdr,
            &self.path,
            bad,
            &OPENB_POD_COLUMNS,
            |rec| parse_pod(rec, &col),
            keep,
        )
    }
}

fn parse_pod(rec: &csv::StringRecord, col: &[usize]) -> Result<OpenbPod, (usize, String)> {
    let name = match field(rec, col, 0) {
        Some(v) if !v.is_empty() => v.to_string(),
        _ => return Err((0, "missing value".into())),
    };
    let cpu_milli = small(need_u64(rec, col, 1)?, 1)?;
    let mem_mib = need_u64(rec, col, 2)?;
    let num_gpu = small(need_u64(rec, col, 3)?, 3)?;
    let gpu_milli = small(need_u64(rec, col, 4)?, 4)?;
    if num_gpu > 1_000_000 {
        return Err((3, format!("{num_gpu} GPUs is more than 1000000")));
    }
    if gpu_milli > MILLI_PER_GPU {
        return Err((4, format!("{gpu_milli} is more than one GPU (1000)")));
    }
    if num_gpu > 0 && gpu_milli == 0 {
        return Err((4, "0 milli-GPU for a pod that asks for GPUs".into()));
    }
    if num_gpu > 1 && gpu_milli < MILLI_PER_GPU {
        return Err((
            4,
            format!("{gpu_milli} milli-GPU each on {num_gpu} GPUs: only one GPU may be shared"),
        ));
    }
    let gpu_spec = field(rec, col, 5)
        .unwrap_or("")
        .split('|')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let creation = opt_u64(rec, col, 8)?;
    let deletion = opt_u64(rec, col, 9)?;
    let scheduled = opt_u64(rec, col, 10)?;
    for (k, t) in [(8, creation), (9, deletion), (10, scheduled)] {
        if t.is_some_and(|t| t as f64 > super::value::MAX_TRACE_SECS) {
            return Err((
                k,
                super::value::too_many_secs(field(rec, col, k).unwrap_or("")),
            ));
        }
    }
    if let (Some(c), Some(d)) = (creation, deletion) {
        if d < c {
            return Err((9, format!("deletion time {d} is before creation time {c}")));
        }
    }
    Ok(OpenbPod {
        name,
        cpu_milli,
        mem_mib,
        num_gpu,
        gpu_milli: if num_gpu == 0 { 0 } else { gpu_milli },
        gpu_spec,
        qos: field(rec, col, 6).unwrap_or("").to_string(),
        phase: field(rec, col, 7).unwrap_or("").to_string(),
        creation,
        deletion,
        scheduled,
    })
}

fn read_pods_from<R: Read>(
    input: R,
    path: &Path,
    bad: BadRows,
    max_pods: Option<u64>,
) -> Result<OpenbPods, TraceError> {
    pods_of(PodList::new(input, path)?, path, bad, max_pods)
}

/// The pods of a list whose header is read, at most `max_pods` of them.
pub(super) fn pods_of<R: Read>(
    list: PodList<R>,
    path: &Path,
    bad: BadRows,
    max_pods: Option<u64>,
) -> Result<OpenbPods, TraceError> {
    let has_times = list.has_times;
    let mut pods = Vec::new();
    let mut lines = Vec::new();
    let mut skipped_rows = list.each(bad, |line, pod| {
        if let Some(m) = max_pods.filter(|&m| pods.len() as u64 >= m) {
            return Err(TraceError::File {
                file: path.to_path_buf(),
                reason: super::trace::too_many_jobs(m),
            });
        }
        pods.push(pod);
        lines.push(line);
        Ok(())
    })?;
    super::trace::refuse_repeats(
        &mut pods,
        |p| p.name.as_str(),
        &lines,
        bad,
        path,
        "name",
        "pod name",
        &mut skipped_rows,
    )?;
    if pods.is_empty() {
        return Err(TraceError::File {
            file: path.to_path_buf(),
            reason: "no pods".into(),
        });
    }
    Ok(OpenbPods {
        pods,
        skipped_rows,
        has_times,
    })
}

/// The error of a node list of more than `max` nodes.
fn too_many_nodes(max: u32) -> String {
    format!(
        "more than {max} nodes (the most a cluster may have, as in a scenario's pools \
         together); keep part of the node list"
    )
}

fn read_nodes_from<R: Read>(
    input: R,
    path: &Path,
    bad: BadRows,
    max_nodes: u32,
) -> Result<(Vec<OpenbNode>, u64), TraceError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(input);
    let col = header_map(&mut rdr, path, &OPENB_NODE_COLUMNS, 4)?;
    let mut nodes = Vec::new();
    let mut lines = Vec::new();
    let parse = |rec: &csv::StringRecord| {
        let sn = match field(rec, &col, 0) {
            Some(v) if !v.is_empty() => v.to_string(),
            _ => return Err((0, "missing value".into())),
        };
        let gpus = small(need_u64(rec, &col, 3)?, 3)?;
        if gpus > 64 {
            return Err((3, format!("{gpus} GPUs on one node (at most 64)")));
        }
        let model = field(rec, &col, 4).unwrap_or("").to_string();
        if gpus > 0 && model.is_empty() {
            return Err((4, "a node with GPUs needs a model".into()));
        }
        Ok(OpenbNode {
            sn,
            cpu_milli: small(need_u64(rec, &col, 1)?, 1)?,
            mem_mib: need_u64(rec, &col, 2)?,
            gpus,
            model,
        })
    };
    let keep = |line, node| {
        if nodes.len() as u64 >= max_nodes as u64 {
            return Err(TraceError::File {
                file: path.to_path_buf(),
                reason: too_many_nodes(max_nodes),
            });
        }
        nodes.push(node);
        lines.push(line);
        Ok(())
    };
    let mut skipped = each_row(&mut rdr, path, bad, &OPENB_NODE_COLUMNS, parse, keep)?;
    // A node listed twice would be counted twice in its pool.
    super::trace::refuse_repeats(
        &mut nodes,
        |n| n.sn.as_str(),
        &lines,
        bad,
        path,
        "sn",
        "node name",
        &mut skipped,
    )?;
    if nodes.is_empty() {
        return Err(TraceError::File {
            file: path.to_path_buf(),
            reason: "no nodes".into(),
        });
    }
    Ok((nodes, skipped))
}

/// Identical nodes grouped for use as scenario pools: `(model, hardware, count)` in order
/// of first appearance (CPU-only nodes have an empty model and 0 GPUs).
pub fn group_openb_nodes(nodes: &[OpenbNode]) -> Vec<(String, NodeSpec, u32)> {
    let mut out: Vec<(String, NodeSpec, u32)> = Vec::new();
    // Each group's place in `out`, found in constant time (a search of `out` made a list
    // of a million distinct nodes take a trillion comparisons).
    let mut index: HashMap<(&str, NodeSpec), usize> = HashMap::new();
    for n in nodes {
        let spec = NodeSpec {
            gpus: n.gpus as u16,
            cpu_milli: n.cpu_milli,
            mem_mib: n.mem_mib,
        };
        match index.entry((n.model.as_str(), spec)) {
            Entry::Occupied(e) => out[*e.get()].2 = out[*e.get()].2.saturating_add(1),
            Entry::Vacant(e) => {
                e.insert(out.len());
                out.push((n.model.clone(), spec, 1));
            }
        }
    }
    out
}

/// Turns pods into a time-based workload: submit = creation time, work = deletion minus
/// scheduled (or creation) time, at least one second; tenant = QoS class; `gpu_spec` =
/// allowed types. Fails when the file lacks the time columns (the five-column variants
/// serve only the arrival-only experiment).
pub fn openb_workload(pods: &OpenbPods, path: &Path) -> Result<Workload, TraceError> {
    if !pods.has_times {
        return Err(TraceError::File {
            file: path.to_path_buf(),
            reason: "no creation_time/deletion_time columns: this pod list can only be used \
                     by the arrival-only FGD experiment"
                .into(),
        });
    }
    let mut w = Workload {
        skipped_rows: pods.skipped_rows,
        skipped_by_file: (pods.skipped_rows > 0)
            .then(|| (path.display().to_string(), pods.skipped_rows))
            .into_iter()
            .collect(),
        ..Workload::default()
    };
    let mut names = crate::model::NameIndex::default();
    let mut no_times = 0u64;
    for p in &pods.pods {
        let (Some(c), Some(d)) = (p.creation, p.deletion) else {
            no_times += 1;
            continue;
        };
        let start = p.scheduled.unwrap_or(c).clamp(c, d);
        let gpu_types = if p.gpu_spec.is_empty() {
            TypeMask::ANY
        } else {
            w.type_mask(p.gpu_spec.iter().map(String::as_str))
                .ok_or_else(|| TraceError::File {
                    file: path.to_path_buf(),
                    reason: "more than 64 GPU models in gpu_spec".into(),
                })?
        };
        let tenant = names.tenant(&mut w, if p.qos.is_empty() { "default" } else { &p.qos });
        w.jobs.push(Job {
            name: p.name.clone(),
            submit: SimTime::from_secs(c),
            gpus: p.gpu_request(),
            gpu_types,
            cpu_milli: p.cpu_milli,
            mem_mib: p.mem_mib,
            work: SimTime::from_secs((d - start).max(1)),
            estimate: None,
            tenant,
            priority: 0,
            deadline: None,
            preemptible: p.qos == "BE",
            tags: crate::model::JobTags::NONE,
        });
    }
    if no_times > 0 {
        w.filtered
            .push(("no creation or deletion time".into(), no_times));
    }
    w.sort_by_submit();
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pods(text: &str, bad: BadRows) -> Result<OpenbPods, TraceError> {
        read_pods_from(text.as_bytes(), Path::new("p.csv"), bad, None)
    }

    const HEAD: &str = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

    #[test]
    fn reads_full_rows_and_short_variant() {
        let text = format!(
            "{HEAD}a,12000,16384,1,460,,LS,Running,10,110,20\nb,8000,100,2,1000,V100M16|V100M32,BE,Failed,5,6,5\nc,32000,1,0,0,,LS,Running,0,50,0\n"
        );
        let p = pods(&text, BadRows::Stop).unwrap();
        assert!(p.has_times);
        assert_eq!(p.pods[0].gpu_request(), GpuRequest::Fraction(460));
        assert_eq!(p.pods[1].gpu_spec, vec!["V100M16", "V100M32"]);
        assert_eq!(p.pods[1].gpu_milli_total(), 2000);
        let w = openb_workload(&p, Path::new("p.csv")).unwrap();
        assert_eq!(w.jobs[0].name, "c");
        assert_eq!(w.jobs[2].work, SimTime::from_secs(90));
        assert_eq!(w.jobs[2].submit, SimTime::from_secs(10));
        assert!(w.jobs[1].preemptible);
        assert_eq!(w.jobs[1].gpu_types, TypeMask(0b11));

        let short = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,1000,10,1,500\n";
        let p = pods(short, BadRows::Stop).unwrap();
        assert!(!p.has_times);
        let e = openb_workload(&p, Path::new("p.csv"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("creation_time"), "{e}");
    }

    #[test]
    fn bad_rows_name_row_and_column() {
        let text = format!("{HEAD}a,1000,10,1,500,,LS,R,0,1,0\nb,1000,10,2,500,,LS,R,0,1,0\nc,x,10,1,500,,LS,R,0,1,0\n");
        let e = pods(&text, BadRows::Stop).unwrap_err().to_string();
        assert!(e.contains("p.csv:3") && e.contains("gpu_milli"), "{e}");
        let p = pods(&text, BadRows::Skip).unwrap();
        assert_eq!((p.pods.len(), p.skipped_rows), (1, 2));
        let e = pods("name,cpu_milli,memory_mib,num_gpu\n", BadRows::Stop)
            .unwrap_err()
            .to_string();
        assert!(e.contains("gpu_milli"), "{e}");
        let e = pods(
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli,colour\n",
            BadRows::Stop,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("colour"), "{e}");
        let text = format!("{HEAD}a,1000,10,1,1500,,LS,R,0,1,0\n");
        assert!(pods(&text, BadRows::Stop).is_err());
        let text = format!("{HEAD}a,1000,10,1,500,,LS,R,9,1,0\n");
        let e = pods(&text, BadRows::Stop).unwrap_err().to_string();
        assert!(e.contains("deletion_time"), "{e}");
    }

    #[test]
    fn reads_nodes() {
        let text = "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,262144,0,\nn1,96000,786432,8,G2\n";
        let (n, _) = read_nodes_from(
            text.as_bytes(),
            Path::new("n.csv"),
            BadRows::Stop,
            MAX_NODES,
        )
        .unwrap();
        assert_eq!(n.len(), 2);
        assert_eq!((n[1].gpus, n[1].model.as_str()), (8, "G2"));
        let bad = "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,262144,2,\n";
        let e = read_nodes_from(bad.as_bytes(), Path::new("n.csv"), BadRows::Stop, MAX_NODES)
            .unwrap_err()
            .to_string();
        assert!(e.contains("n.csv:2") && e.contains("model"), "{e}");
        let g = group_openb_nodes(&[n[1].clone(), n[0].clone(), n[1].clone()]);
        assert_eq!(g.len(), 2);
        assert_eq!((g[0].0.as_str(), g[0].1.gpus, g[0].2), ("G2", 8, 2));
    }
}
