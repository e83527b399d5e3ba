//! A summary of an openb pod list as a list of pods, without times: what
//! `gpufleet trace inspect --format openb` prints for the FGD artifact's pod lists that
//! carry only `name,cpu_milli,memory_mib,num_gpu,gpu_milli`. Pod count, GPU shapes, GPU demand, model constraints; only
//! replay in time needs the time columns.

use super::openb::OpenbPods;
use serde::Serialize;
use std::collections::BTreeMap;

/// Pods of one GPU shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PodShape {
    /// GPUs per pod (0 = CPU-only).
    pub num_gpu: u32,
    /// Milli-GPU per GPU (1000 = whole GPUs; less with one GPU = a shared GPU).
    pub gpu_milli: u32,
    /// Pods of this shape.
    pub pods: usize,
    /// Their GPU demand, in GPUs.
    pub gpus: f64,
}

/// The summary of a pod list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenbPodSummary {
    /// Pods read.
    pub pods: usize,
    /// Bad rows skipped (with `--skip-bad-rows`).
    pub skipped_rows: u64,
    /// True when the file has the time columns (it can be replayed in time).
    pub has_times: bool,
    /// CPU-only pods.
    pub cpu_only: usize,
    /// Pods sharing one GPU.
    pub shared_gpu: usize,
    /// Pods of whole GPUs.
    pub whole_gpu: usize,
    /// Total GPU demand, in GPUs.
    pub gpu_demand: f64,
    /// Total CPU asked for, cores.
    pub cpu_cores: f64,
    /// Total memory asked for, GiB.
    pub memory_gib: f64,
    /// Pods that name GPU models (`gpu_spec`).
    pub model_constrained: usize,
    /// Pods naming each model (a pod naming two counts for both), by model name.
    pub models: BTreeMap<String, usize>,
    /// GPU shapes, most pods first (ties: fewer GPUs, then less milli-GPU, first).
    pub shapes: Vec<PodShape>,
}

impl OpenbPodSummary {
    /// The summary of `pods`.
    pub fn of(pods: &OpenbPods) -> OpenbPodSummary {
        let p = &pods.pods;
        let mut shapes: BTreeMap<(u32, u32), (usize, u64)> = BTreeMap::new();
        let mut models: BTreeMap<String, usize> = BTreeMap::new();
        for x in p {
            let e = shapes.entry((x.num_gpu, x.gpu_milli)).or_insert((0, 0));
            e.0 += 1;
            e.1 += x.gpu_milli_total();
            for m in &x.gpu_spec {
                *models.entry(m.clone()).or_insert(0) += 1;
            }
        }
        let mut shapes: Vec<PodShape> = shapes
            .into_iter()
            .map(|((num_gpu, gpu_milli), (n, milli))| PodShape {
                num_gpu,
                gpu_milli,
                pods: n,
                gpus: milli as f64 / 1000.0,
            })
            .collect();
        // Stable: equal counts keep the (GPUs, milli-GPU) order of the map.
        shapes.sort_by_key(|s| std::cmp::Reverse(s.pods));
        let count = |f: &dyn Fn(&super::OpenbPod) -> bool| p.iter().filter(|x| f(x)).count();
        OpenbPodSummary {
            pods: p.len(),
            skipped_rows: pods.skipped_rows,
            has_times: pods.has_times,
            cpu_only: count(&|x| x.num_gpu == 0),
            shared_gpu: count(&|x| x.num_gpu == 1 && x.gpu_milli < 1000),
            whole_gpu: count(&|x| x.num_gpu > 0 && x.gpu_milli == 1000),
            gpu_demand: p.iter().map(|x| x.gpu_milli_total()).sum::<u64>() as f64 / 1000.0,
            cpu_cores: p.iter().map(|x| x.cpu_milli as u64).sum::<u64>() as f64 / 1000.0,
            memory_gib: p.iter().map(|x| x.mem_mib).sum::<u64>() as f64 / 1024.0,
            model_constrained: count(&|x| !x.gpu_spec.is_empty()),
            models,
            shapes,
        }
    }

    /// A plain-text report.
    pub fn to_text(&self) -> String {
        let pct = |n: usize| 100.0 * n as f64 / self.pods.max(1) as f64;
        let mut s = format!(
            "pods            {}{}\n",
            self.pods,
            if self.skipped_rows > 0 {
                format!(" ({} bad rows skipped)", self.skipped_rows)
            } else {
                String::new()
            }
        );
        s.push_str(&format!(
            "times           {}\n",
            if self.has_times {
                "yes (replayable in time)"
            } else {
                "none (a pod list: the FGD experiment takes it; replay in time needs creation_time and deletion_time)"
            }
        ));
        s.push_str(&format!(
            "CPU-only        {} ({:.1} %)\nshared GPU      {} ({:.1} %)\nwhole GPUs      {} ({:.1} %)\n",
            self.cpu_only,
            pct(self.cpu_only),
            self.shared_gpu,
            pct(self.shared_gpu),
            self.whole_gpu,
            pct(self.whole_gpu)
        ));
        s.push_str(&format!(
            "GPU demand      {:.1} GPUs\nCPU             {:.1} cores\nmemory          {:.1} GiB\n",
            self.gpu_demand, self.cpu_cores, self.memory_gib
        ));
        s.push_str(&format!(
            "model-bound     {} pods ({:.1} %)\n",
            self.model_constrained,
            pct(self.model_constrained)
        ));
        for (m, n) in &self.models {
            s.push_str(&format!("  {m:<13} {n}\n"));
        }
        s.push_str("shapes (GPUs x milli-GPU: pods, GPU demand)\n");
        for sh in &self.shapes {
            s.push_str(&format!(
                "  {} x {:<5} {:>7} pods {:>9.1} GPUs\n",
                sh.num_gpu, sh.gpu_milli, sh.pods, sh.gpus
            ));
        }
        s
    }
}
