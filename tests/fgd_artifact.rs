//! The FGD experiment against its artifact (hkust-adsl/kubernetes-scheduler-simulator).
//!
//! 1. A reference re-implementation of the artifact's scheduling, written here from its Go
//!    code (score plugins in `pkg/simulator/plugin/`, the fragmentation measure and typical
//!    pods in `pkg/utils/frag.go`, the tie rule in the vendored `generic_scheduler.go`
//!    `selectHost`, the curves of `experiments/analysis/merge_*_discrete.py`), on plain
//!    per-node state with GPUs in device order, its own CSV parsing and its own typical
//!    workload. Given the same arrival order and node order (the random draws), every
//!    deterministic policy must make the same decision as gpufleet for every pod, and
//!    give the same curves.
//! 2. The acceptance test: on both shipped traces, every policy's mean allocation and
//!    fragmentation at 100 % arrived demand within 1.0 point of the artifact's published
//!    10-seed means (`data/fgd-atc23/`, parsed here with plain string splitting).

use crate::common::root;
use gpufleet::sched::placement::{FgdExperiment, PlacementKind};
use gpufleet::workload::{read_openb_nodes, read_openb_pods, BadRows};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

// ------------------------------------------------------- the reference scheduler

#[derive(Clone)]
struct RefNode {
    model: String,
    cpu_left: i64,
    mem_left: i64,
    gpu: Vec<i64>,
    affinity: BTreeMap<String, u32>,
}

#[derive(Clone)]
struct RefPod {
    name: String,
    cpu: i64,
    mem: i64,
    num_gpu: i64,
    milli: i64,
    spec: String,
}

/// CSV rows as maps from header to field (plain splitting: the openb files quote nothing).
fn rows(path: &Path) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let head: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            head.iter()
                .cloned()
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

fn ref_pods(path: &Path) -> Vec<RefPod> {
    rows(path)
        .iter()
        .map(|r| {
            let num_gpu: i64 = r["num_gpu"].parse().unwrap();
            RefPod {
                name: r["name"].clone(),
                cpu: r["cpu_milli"].parse().unwrap(),
                mem: r["memory_mib"].parse().unwrap(),
                num_gpu,
                // pod_csv_to_yaml.py writes GPU annotations only for GPU pods.
                milli: if num_gpu == 0 {
                    0
                } else {
                    r["gpu_milli"].parse().unwrap()
                },
                spec: if num_gpu == 0 {
                    String::new()
                } else {
                    r.get("gpu_spec").cloned().unwrap_or_default()
                },
            }
        })
        .collect()
}

fn ref_nodes(path: &Path) -> Vec<RefNode> {
    rows(path)
        .iter()
        .map(|r| RefNode {
            model: r["model"].clone(),
            cpu_left: r["cpu_milli"].parse().unwrap(),
            mem_left: r["memory_mib"].parse().unwrap(),
            gpu: vec![1000; r["gpu"].parse::<usize>().unwrap()],
            affinity: BTreeMap::new(),
        })
        .collect()
}

/// `IsNodeAccessibleToPodByType`.
fn accessible(node_model: &str, spec: &str) -> bool {
    let wanted: Vec<&str> = spec.split('|').filter(|s| !s.is_empty()).collect();
    if spec.is_empty() {
        return true;
    }
    if node_model.is_empty() {
        return false;
    }
    wanted.is_empty() || wanted.contains(&node_model)
}

/// `NodeResourcesFit` (CPU, memory) and `Open-Gpu-Share.Filter`.
fn feasible(n: &RefNode, p: &RefPod) -> bool {
    if n.cpu_left < p.cpu || n.mem_left < p.mem {
        return false;
    }
    if p.milli <= 0 {
        return true;
    }
    if n.gpu.is_empty() || !accessible(&n.model, &p.spec) {
        return false;
    }
    n.gpu.iter().filter(|&&f| f >= p.milli).count() as i64 >= p.num_gpu
}

/// `GetTypicalPods` with `isInvolvedCpuPods`, threshold 95, step 1, no GPU weight.
fn ref_typical(pods: &[RefPod]) -> Vec<(RefPod, f64)> {
    let mut cnt: HashMap<(i64, i64, i64, String), f64> = HashMap::new();
    for p in pods {
        *cnt.entry((p.cpu, p.milli, p.num_gpu, p.spec.clone()))
            .or_insert(0.0) += 1.0;
    }
    let total = pods.len() as f64;
    let mut list: Vec<((i64, i64, i64, String), f64)> = cnt.into_iter().collect();
    // sort.Reverse(TargetPodList): Percentage descending, then the resource descending.
    list.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap().then_with(|| b.0.cmp(&a.0)));
    let expected = 95.0 * total / 100.0;
    let (mut i, mut cum) = (0, 0.0);
    while cum < expected {
        cum += list[i].1;
        i += 1;
    }
    let renorm = i < list.len();
    list.truncate(i);
    list.into_iter()
        .map(|((cpu, milli, num_gpu, spec), c)| {
            let mut p = c / total;
            if renorm {
                p /= cum / total;
            }
            let pod = RefPod {
                name: String::new(),
                cpu,
                mem: 0,
                num_gpu,
                milli,
                spec,
            };
            (pod, p)
        })
        .collect()
}

/// `NodeGpuShareFragAmount(...).FragAmountSumExceptQ3()`.
fn ref_frag(model: &str, cpu_left: i64, gpu: &[i64], typical: &[(RefPod, f64)]) -> f64 {
    let mut data = [0.0f64; 7]; // q1, q2, q3, q4, xl, xr, no_access
    let left: i64 = gpu.iter().sum();
    for (t, freq) in typical {
        let class = if t.milli == 0 {
            if cpu_left >= t.cpu {
                4
            } else {
                5
            }
        } else if !accessible(model, &t.spec) {
            6
        } else {
            let host = gpu.iter().filter(|&&f| f >= t.milli).count() as i64 >= t.num_gpu;
            match (host, cpu_left >= t.cpu) {
                (true, true) => 2,
                (true, false) => 3,
                (false, true) => 1,
                (false, false) => 0,
            }
        };
        if class == 2 {
            let frag: i64 = gpu.iter().filter(|&&f| f < t.milli).sum();
            data[1] += freq * frag as f64;
            data[2] += freq * (left - frag) as f64;
        } else {
            data[class] += freq * left as f64;
        }
    }
    data[0] + data[1] + data[3] + data[4] + data[5] + data[6]
}

struct Reference {
    nodes: Vec<RefNode>,
    typical: Vec<(RefPod, f64)>,
    memo: HashMap<(String, i64, Vec<i64>), f64>,
}

impl Reference {
    fn frag(&mut self, model: &str, cpu: i64, gpu: &[i64]) -> f64 {
        let mut key = gpu.to_vec();
        key.sort_unstable();
        let k = (model.to_string(), cpu, key);
        if let Some(&f) = self.memo.get(&k) {
            return f;
        }
        let f = ref_frag(model, cpu, gpu, &self.typical);
        self.memo.insert(k, f);
        f
    }

    /// The cluster's fragmentation: the sum over nodes (summed afresh each time).
    fn cluster_frag(&mut self, node_frag: &mut Vec<f64>, changed: Option<usize>) -> f64 {
        if node_frag.is_empty() {
            let nodes = self.nodes.clone();
            *node_frag = nodes
                .iter()
                .map(|n| self.frag(&n.model, n.cpu_left, &n.gpu))
                .collect();
        } else if let Some(i) = changed {
            let n = self.nodes[i].clone();
            node_frag[i] = self.frag(&n.model, n.cpu_left, &n.gpu);
        }
        node_frag.iter().sum()
    }

    /// The plugin's integer score and the GPUs taken (`None` = no GPU, `Some(ids)`).
    fn score(&mut self, policy: PlacementKind, i: usize, p: &RefPod) -> (i64, Vec<usize>) {
        let n = self.nodes[i].clone();
        let best_gpu = || -> Vec<usize> {
            if p.milli <= 0 {
                return vec![];
            }
            if p.milli < 1000 {
                // allocateGpuIdBasedOnBestFit: the first GPU with the least room that fits.
                let mut c: Option<usize> = None;
                for (id, &f) in n.gpu.iter().enumerate() {
                    if f >= p.milli && c.is_none_or(|c| f < n.gpu[c]) {
                        c = Some(id);
                    }
                }
                return vec![c.unwrap()];
            }
            // AllocateExclusiveGpuId: the first wholly free GPUs.
            (0..n.gpu.len())
                .filter(|&id| n.gpu[id] == 1000)
                .take(p.num_gpu as usize)
                .collect()
        };
        let total_left: i64 = n.gpu.iter().sum();
        match policy {
            PlacementKind::GpuPacking => {
                if p.milli <= 0 {
                    return (0, vec![]);
                }
                let free = n.gpu.iter().filter(|&&f| f == 1000).count() as i64;
                let score = if free == n.gpu.len() as i64 {
                    (100 / 3 - free).max(free)
                } else {
                    let mut idx: Vec<usize> = (0..n.gpu.len()).collect();
                    idx.sort_by_key(|&k| n.gpu[k]);
                    let (mut req, mut use_free, mut used) = (p.num_gpu, 0, vec![]);
                    for k in idx {
                        if req == 0 {
                            break;
                        }
                        if p.milli <= n.gpu[k] {
                            req -= 1;
                            used.push(k);
                            if n.gpu[k] == 1000 {
                                use_free += 1;
                            }
                        }
                    }
                    if use_free > 0 {
                        (100 / 2 - use_free).max(100 / 3)
                    } else {
                        let r: i64 = used.iter().map(|&k| n.gpu[k] * 100 / 1000).sum();
                        (100 - r / 10).max(100 / 2)
                    }
                };
                (score, best_gpu())
            }
            PlacementKind::GpuClustering => {
                if p.num_gpu == 0 {
                    return (0, vec![]);
                }
                let tag = if p.num_gpu == 1 && p.milli < 1000 {
                    "share-gpu".to_string()
                } else {
                    format!("{}-gpu", p.num_gpu)
                };
                let fill = 100 / 4 * (8000 - total_left) / 8000;
                let a = &n.affinity;
                let s = if a.get(&tag).copied().unwrap_or(0) > 0 {
                    if a.len() == 1 {
                        fill + 100 * 3 / 4
                    } else {
                        fill + 100 * 2 / 4
                    }
                } else if a.is_empty() {
                    fill + 100 / 4
                } else {
                    fill
                };
                (s, best_gpu())
            }
            PlacementKind::BestFit => {
                let free = [n.cpu_left as f64, total_left as f64];
                let req = [p.cpu as f64, (p.milli * p.num_gpu) as f64];
                let max = [128000.0, 8000.0];
                let mut s = 0.0;
                for k in 0..2 {
                    s += (free[k] - req[k]) / max[k] * 0.5;
                }
                (((1.0 - s) * 100.0) as i64, best_gpu())
            }
            PlacementKind::DotProduct => {
                let nv = [n.cpu_left as f64 / 128000.0, total_left as f64 / 8000.0];
                let pv = [
                    p.cpu as f64 / 128000.0,
                    (p.milli * p.num_gpu) as f64 / 8000.0,
                ];
                let mut dot = 0.0;
                for k in 0..2 {
                    dot += nv[k] * pv[k];
                }
                let s = 1.0 - dot / 2.0;
                ((100.0 * s) as i64, best_gpu())
            }
            PlacementKind::Fgd => {
                let before = self.frag(&n.model, n.cpu_left, &n.gpu);
                let sig = |after: f64| {
                    let x = (before - after) / 1000.0;
                    ((1.0 / (1.0 + (-x).exp())) * 100.0) as i64
                };
                if p.num_gpu == 1 && p.milli < 1000 {
                    let mut best: Option<(i64, usize)> = None;
                    for k in 0..n.gpu.len() {
                        if n.gpu[k] >= p.milli {
                            let mut g = n.gpu.clone();
                            g[k] -= p.milli;
                            let s = sig(self.frag(&n.model, n.cpu_left - p.cpu, &g));
                            if best.is_none_or(|(b, _)| s > b) {
                                best = Some((s, k));
                            }
                        }
                    }
                    let (s, k) = best.unwrap();
                    (s, vec![k])
                } else {
                    let ids = best_gpu();
                    let mut g = n.gpu.clone();
                    for &k in &ids {
                        g[k] -= p.milli;
                    }
                    (sig(self.frag(&n.model, n.cpu_left - p.cpu, &g)), ids)
                }
            }
            _ => unreachable!("no reference for {policy:?}"),
        }
    }

    /// `selectHost`: the highest score, the first node in name order (= rank) among equals.
    fn place(&mut self, policy: PlacementKind, p: &RefPod, rank: &[u32]) -> Option<usize> {
        let mut best: Option<(i64, u32, usize, Vec<usize>)> = None;
        for (i, &r) in rank.iter().enumerate().take(self.nodes.len()) {
            if !feasible(&self.nodes[i], p) {
                continue;
            }
            let (s, gpus) = self.score(policy, i, p);
            let better = match &best {
                None => true,
                Some((bs, br, _, _)) => s > *bs || (s == *bs && r < *br),
            };
            if better {
                best = Some((s, r, i, gpus));
            }
        }
        let (_, _, i, gpus) = best?;
        let n = &mut self.nodes[i];
        n.cpu_left -= p.cpu;
        n.mem_left -= p.mem;
        for k in gpus {
            n.gpu[k] -= p.milli;
        }
        if p.num_gpu > 0 {
            let tag = if p.num_gpu == 1 && p.milli < 1000 {
                "share-gpu".to_string()
            } else {
                format!("{}-gpu", p.num_gpu)
            };
            *n.affinity.entry(tag).or_insert(0) += 1;
        }
        Some(i)
    }
}

/// Python's `round(x, 0)` on a numpy float: half to even.
fn round_half_even(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 {
        2.0 * (x / 2.0).round()
    } else {
        r
    }
}

/// Writes a slice of the default trace, with GPU-model constraints on some GPU pods (the
/// shipped traces have none), and every fifth GPU node; returns (pods, nodes) paths.
fn fixture(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let data = root().join("data/openb-2023");
    let text = std::fs::read_to_string(data.join("openb_pod_list_default.csv")).unwrap();
    let mut out = String::new();
    for (i, l) in text.lines().enumerate() {
        if i == 0 {
            out.push_str(l);
            out.push('\n');
            continue;
        }
        if i % 4 != 0 {
            continue;
        }
        let mut f: Vec<String> = l.split(',').map(str::to_string).collect();
        if f[3] != "0" && i % 24 == 0 {
            f[5] = "V100M16|V100M32".into();
        } else if f[3] != "0" && i % 36 == 0 {
            f[5] = "T4".into();
        }
        out.push_str(&f.join(","));
        out.push('\n');
    }
    let pods = dir.join("pods.csv");
    std::fs::write(&pods, out).unwrap();
    let text = std::fs::read_to_string(data.join("openb_node_list_gpu_node.csv")).unwrap();
    let nodes_text: String = text
        .lines()
        .enumerate()
        .filter(|(i, _)| *i == 0 || i % 5 == 0)
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    let nodes = dir.join("nodes.csv");
    std::fs::write(&nodes, nodes_text).unwrap();
    (pods, nodes)
}

#[test]
fn every_decision_matches_a_reference_written_from_the_artifact() {
    let dir = tempfile::tempdir().unwrap();
    let (pods_path, nodes_path) = fixture(dir.path());
    let nodes = read_openb_nodes(&nodes_path, BadRows::Stop).unwrap();
    let pods = read_openb_pods(&pods_path, BadRows::Stop, None).unwrap();
    let exp = FgdExperiment::new(&nodes, &pods.pods, 1.3, 0.95).unwrap();
    let ref_pod_list = ref_pods(&pods_path);
    let typical = ref_typical(&ref_pod_list);
    // The same typical workload, type by type, in the same order.
    let ours = exp.typical();
    assert_eq!(ours.types.len(), typical.len());
    for ((t, p), (r, q)) in ours.types.iter().zip(&typical) {
        assert_eq!(
            (t.cpu_milli as i64, t.num_gpu as i64, t.gpu_milli as i64),
            (r.cpu, r.num_gpu, r.milli)
        );
        assert!((p - q).abs() < 1e-15, "{p} vs {q}");
    }
    let gpus: i64 = ref_nodes(&nodes_path)
        .iter()
        .map(|n| n.gpu.len() as i64)
        .sum();
    for seed in [42u64, 43] {
        let order = exp.arrivals(seed);
        let rank = exp.node_order(seed);
        // The arrival order: every pod once (shuffled), then tuning's draws, each
        // accepted only while the demand plus its milli-GPU per GPU stays at the target.
        let n = ref_pod_list.len();
        let mut seen = order[..n].to_vec();
        seen.sort_unstable();
        assert_eq!(seen, (0..n).collect::<Vec<_>>());
        let target = 1.3 * (gpus * 1000) as f64;
        let mut demand: i64 = ref_pod_list.iter().map(|p| p.milli * p.num_gpu).sum();
        for &i in &order[n..] {
            let p = &ref_pod_list[i];
            assert!((demand + p.milli) as f64 <= target);
            demand += p.milli * p.num_gpu;
        }
        let mut by_name: Vec<&str> = ref_pod_list.iter().map(|p| p.name.as_str()).collect();
        by_name.sort_unstable();
        for kind in [
            PlacementKind::DotProduct,
            PlacementKind::GpuClustering,
            PlacementKind::GpuPacking,
            PlacementKind::BestFit,
            PlacementKind::Fgd,
        ] {
            let (run, went) = exp.run_traced(kind, seed);
            let mut r = Reference {
                nodes: ref_nodes(&nodes_path),
                typical: typical.clone(),
                memo: HashMap::new(),
            };
            let (mut arrived, mut used) = (0i64, 0i64);
            let mut bins = vec![(0.0, 0.0, 0u32); 131];
            let mut node_frag = Vec::new();
            for (k, &i) in order.iter().enumerate() {
                let p = &ref_pod_list[i];
                let got = r.place(kind, p, &rank);
                assert_eq!(
                    went[k].map(|x| x as usize),
                    got,
                    "{} seed {seed}: pod #{k} ({}) went elsewhere",
                    kind.as_str(),
                    p.name
                );
                arrived += p.milli * p.num_gpu;
                if got.is_some() {
                    used += p.milli * p.num_gpu;
                }
                let b = round_half_even(arrived as f64 / gpus as f64 / 10.0);
                if b <= 130.0 {
                    let f = r.cluster_frag(&mut node_frag, got);
                    let e = &mut bins[b as usize];
                    e.0 += used as f64 / gpus as f64 / 10.0;
                    e.1 += 100.0 * f / 1000.0 / gpus as f64;
                    e.2 += 1;
                }
            }
            for x in [50usize, 90, 100, 110, 125] {
                let e = bins[x];
                assert!(e.2 > 0, "no record at {x} %");
                let (a, f) = (e.0 / e.2 as f64, e.1 / e.2 as f64);
                assert!(
                    (run.curve[x] - a).abs() < 1e-9,
                    "{} alloc at {x}",
                    kind.as_str()
                );
                assert!(
                    (run.frag[x] - f).abs() < 1e-6,
                    "{} frag at {x}",
                    kind.as_str()
                );
            }
        }
    }
}

// ------------------------------------------------------------- acceptance

/// Mean of the artifact's column `100` per policy label in `file`, parsed independently.
fn artifact_means(file: &str, workload: &str) -> Vec<(String, f64)> {
    let text = std::fs::read_to_string(root().join("data/fgd-atc23").join(file)).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "100").unwrap();
    let mut out: Vec<(String, f64, u32)> = Vec::new();
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        if f[0] != workload {
            continue;
        }
        let v: f64 = f[col].parse().unwrap();
        match out.iter_mut().find(|(p, _, _)| p == f[1]) {
            Some(e) => {
                e.1 += v;
                e.2 += 1;
            }
            None => out.push((f[1].to_string(), v, 1)),
        }
    }
    out.into_iter().map(|(p, s, n)| (p, s / n as f64)).collect()
}

#[test]
fn every_policy_within_one_point_of_the_artifact_on_both_traces() {
    let dir = root().join("data/openb-2023");
    let nodes = read_openb_nodes(&dir.join("openb_node_list_gpu_node.csv"), BadRows::Stop).unwrap();
    let seeds: Vec<u64> = (42..52).collect();
    let mut failures = Vec::new();
    for trace in ["default", "gpushare40"] {
        let pods = read_openb_pods(
            &dir.join(format!("openb_pod_list_{trace}.csv")),
            BadRows::Stop,
            None,
        )
        .unwrap();
        let exp = FgdExperiment::new(&nodes, &pods.pods, 1.3, 0.95).unwrap();
        let runs = exp.run_all(&PlacementKind::FGD_PAPER, &seeds);
        let workload = format!("openb_pod_list_{trace}");
        let alloc = artifact_means("expected_alloc_default_gpushare40.csv", &workload);
        let frag = artifact_means("expected_frag_default_gpushare40.csv", &workload);
        for p in PlacementKind::FGD_PAPER {
            let mine: Vec<_> = runs.iter().filter(|r| r.policy == p).collect();
            let ours_a = mine.iter().map(|r| r.curve[100]).sum::<f64>() / mine.len() as f64;
            let ours_f = mine.iter().map(|r| r.frag[100]).sum::<f64>() / mine.len() as f64;
            let label = p.artifact_label().unwrap();
            let theirs_a = alloc.iter().find(|(l, _)| l == label).unwrap().1;
            let theirs_f = frag.iter().find(|(l, _)| l == label).unwrap().1;
            for (what, o, t) in [
                ("allocation", ours_a, theirs_a),
                ("fragmentation", ours_f, theirs_f),
            ] {
                if (o - t).abs() > 1.0 {
                    failures.push(format!(
                        "{trace} {} {what}: ours {o:.2}, artifact {t:.2}",
                        p.as_str()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
