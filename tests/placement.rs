//! Placement policies and the FGD paper reproduction.
//!
//! Expected values come from outside the code under test: the FGD artifact's published
//! curves (`data/fgd-atc23/`, averaged here with plain parsing), counts taken with awk
//! over the openb CSVs, hand-worked fragmentation sums, and brute-force oracles in the
//! property tests.

use crate::common::root;
use gpufleet::engine::RngStreams;
use gpufleet::model::TypeMask;
use gpufleet::sched::placement::{
    allocation_at_100, apply, fits, BestFit, Fgd, FgdExperiment, FirstFit, GpuPick, GroupedCluster,
    NodeState, NodeType, Placement, PlacementContext, PlacementKind, Task, TypicalPod,
    TypicalWorkload, WorstFit, FULL,
};
use gpufleet::workload::{read_openb_nodes, read_openb_pods, BadRows};
use proptest::prelude::*;

fn task(cpu: u32, num_gpu: u32, milli: u32) -> Task {
    Task {
        cpu_milli: cpu,
        mem_mib: 0,
        num_gpu,
        gpu_milli: milli,
        models: TypeMask::ANY,
    }
}

fn gpu_type(model: usize, gpus: u16, cpu: u32) -> NodeType {
    NodeType {
        model: Some(model),
        gpus,
        cpu_milli: cpu,
        mem_mib: 1 << 20,
    }
}

// ---------------------------------------------------------------- openb data

#[test]
fn openb_files_read_with_the_counts_awk_gives() {
    let dir = root().join("data/openb-2023");
    let nodes = read_openb_nodes(&dir.join("openb_node_list_all_node.csv"), BadRows::Stop).unwrap();
    // awk -F, 'NR>1{n++; g+=$4} END{print n, g}' openb_node_list_all_node.csv -> 1523 6212
    assert_eq!(nodes.len(), 1523);
    assert_eq!(nodes.iter().map(|n| n.gpus as u64).sum::<u64>(), 6212);
    let pods =
        read_openb_pods(&dir.join("openb_pod_list_default.csv"), BadRows::Stop, None).unwrap();
    // awk -F, 'NR>1{c[$4" "($5<1000?"frac":"whole")]++} END{for(k in c) print k, c[k]}'
    // -> 0 GPU: 1088, 1 shared: 3078, 1 whole: 3911, 2: 16, 4: 15, 8: 44.
    let count = |f: &dyn Fn(&gpufleet::workload::OpenbPod) -> bool| {
        pods.pods.iter().filter(|p| f(p)).count()
    };
    assert_eq!(pods.pods.len(), 8152);
    assert_eq!(count(&|p| p.num_gpu == 0), 1088);
    assert_eq!(count(&|p| p.num_gpu == 1 && p.gpu_milli < 1000), 3078);
    assert_eq!(count(&|p| p.num_gpu == 1 && p.gpu_milli == 1000), 3911);
    assert_eq!(count(&|p| p.num_gpu == 8), 44);
    // awk -F, 'NR>1{s+=$4*$5} END{print s}' -> 6086800 milli-GPU (97.98 % of 6,212 GPUs)
    assert_eq!(
        pods.pods.iter().map(|p| p.gpu_milli_total()).sum::<u64>(),
        6_086_800
    );
}

// ------------------------------------------------------- hand-worked choices

#[test]
fn best_fit_picks_the_tightest_node_and_worst_fit_the_emptiest() {
    // Three identical 4-GPU nodes; first fit puts a 2-GPU task and then a 1-GPU task on
    // node 0 (lowest index), leaving it one GPU; nodes 1 and 2 stay empty.
    let types = vec![gpu_type(0, 4, 32000)];
    let mut c = GroupedCluster::new(types, &[0, 0, 0], 0);
    let mut rng = RngStreams::new(1).stream("placement");
    assert_eq!(
        c.place(&FirstFit, &task(1000, 2, 1000), 0, &mut rng),
        Some(0)
    );
    assert_eq!(
        c.place(&FirstFit, &task(1000, 1, 1000), 0, &mut rng),
        Some(0)
    );
    // Node 0: 1 GPU free, 30 cores. Nodes 1, 2: 4 GPUs, 32 cores.
    // Best fit (the artifact's scales, 128 cores and 8 GPUs, half weight each) for a
    // 1-GPU, 1-core task: node 0 leaves 0.5 x 29/128 + 0 = 0.113 -> score 88; an empty
    // node 0.5 x 31/128 + 0.5 x 3/8 = 0.309 -> 69: node 0 is tightest.
    let mut bf = c.clone();
    assert_eq!(
        bf.place(&BestFit, &task(1000, 1, 1000), 0, &mut rng),
        Some(0)
    );
    // Worst fit takes an empty node (1 or 2, at random).
    let n = c
        .place(&WorstFit, &task(1000, 1, 1000), 0, &mut rng)
        .unwrap();
    assert!(n == 1 || n == 2);
    // A 2-GPU task does not fit node 0 (1 GPU free): best fit must go elsewhere.
    let n = bf
        .place(&BestFit, &task(1000, 2, 1000), 0, &mut rng)
        .unwrap();
    assert_ne!(n, 0);
}

#[test]
fn fgd_on_a_two_node_example_worked_by_hand() {
    // Two 2-GPU nodes of different models; tasks pinned by model bring them to
    //   X (node 0): GPUs free [500, 1000]     Y (node 1): GPUs free [300, 1000].
    // Typical workload: a whole 1-GPU task and a 500-milli shared task, half each; CPU
    // is plentiful.
    //
    // Fragmentation F = sum over types of share x (free milli-GPU the type cannot use):
    //   X: 1-GPU type fits (one full GPU), the 500-GPU is a fragment: 500; 500-type fits,
    //      nothing below 500: 0.                                  F(X) = 0.5 x 500 = 250
    //   Y: 1-GPU type: 300; 500-type: the 300 GPU is too small: 300.   F(Y) = 300
    // An arriving 200-milli task, every (node, GPU) option, and the artifact's score
    // int64(100 / (1 + exp(-(F before - F after) / 1000))):
    //   X/GPU0 [300, 1000]: 0.5 x 300 + 0.5 x 300 = 300, change -50  -> 48.75 -> 48
    //   X/GPU1 [500, 800]:  no full GPU: 0.5 x 1300 + 0 = 650, -400  -> 40.13 -> 40
    //   Y/GPU0 [100, 1000]: 0.5 x 100 + 0.5 x 100 = 100, +200        -> 54.98 -> 54
    //   Y/GPU1 [300, 800]:  0.5 x 1100 + 0.5 x 300 = 700, -400       -> 40
    // FGD picks Y's GPU 0.
    let types = vec![gpu_type(0, 2, 64000), gpu_type(1, 2, 64000)];
    let mut c = GroupedCluster::new(types.clone(), &[0, 1], 0);
    let mut rng = RngStreams::new(3).stream("placement");
    let pin = |m: usize, milli: u32| Task {
        models: TypeMask::single(m),
        ..task(0, 1, milli)
    };
    assert_eq!(c.place(&FirstFit, &pin(0, 500), 0, &mut rng), Some(0));
    assert_eq!(c.place(&FirstFit, &pin(1, 700), 0, &mut rng), Some(1));
    assert_eq!(c.state_of(0).gpu_free, vec![500, 1000]);
    assert_eq!(c.state_of(1).gpu_free, vec![300, 1000]);
    let typical = TypicalWorkload {
        types: vec![(task(0, 1, 1000), 0.5), (task(0, 1, 500), 0.5)],
    };
    let fgd = Fgd::new(typical);
    assert_eq!(fgd.fragmentation(&types[0], 64000, &[500, 1000]), 250.0);
    assert_eq!(fgd.fragmentation(&types[1], 64000, &[300, 1000]), 300.0);
    let x = fgd
        .choose(&types[0], c.state_of(0), &task(0, 1, 200))
        .unwrap();
    let y = fgd
        .choose(&types[1], c.state_of(1), &task(0, 1, 200))
        .unwrap();
    assert_eq!((x.score, x.pick), (48.0, GpuPick::Share(0)));
    assert_eq!((y.score, y.pick), (54.0, GpuPick::Share(0)));
    assert_eq!(c.place(&fgd, &task(0, 1, 200), 0, &mut rng), Some(1));
    assert_eq!(c.state_of(1).gpu_free, vec![100, 1000]);
    // A CPU-only type counts every free GPU as a fragment, fit or not.
    let cpu_only = TypicalWorkload {
        types: vec![(task(1000, 0, 0), 1.0)],
    };
    assert_eq!(
        Fgd::new(cpu_only).fragmentation(&types[1], 64000, &[100, 1000]),
        1100.0
    );
}

// ------------------------------------------------------------- properties

/// Independent fit check from first principles (per-GPU room, CPU, model).
fn oracle_fits(ty: &NodeType, s: &NodeState, t: &Task) -> bool {
    if s.cpu_free < t.cpu_milli || s.mem_free < t.mem_mib {
        return false;
    }
    if t.num_gpu == 0 {
        return true;
    }
    if !matches!(ty.model, Some(m) if t.models.allows(m)) {
        return false;
    }
    if t.gpu_milli < 1000 {
        s.gpu_free.iter().any(|&f| f as u32 >= t.gpu_milli)
    } else {
        s.gpu_free.iter().filter(|&&f| f == FULL).count() >= t.num_gpu as usize
    }
}

fn arb_task() -> impl Strategy<Value = Task> {
    (
        0u32..40_000,
        prop_oneof![Just(0u32), Just(1), Just(1), Just(2), Just(4), Just(8)],
        prop_oneof![Just(1000u32), 50u32..1000],
        0usize..3,
    )
        .prop_map(|(cpu, n, m, model)| Task {
            cpu_milli: cpu,
            mem_mib: (cpu as u64) * 4,
            num_gpu: n,
            gpu_milli: if n == 0 {
                0
            } else if n == 1 {
                m
            } else {
                1000
            },
            models: if model == 2 {
                TypeMask::ANY
            } else {
                TypeMask::single(model)
            },
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// For every policy: capacity is never exceeded (checked against a ledger of what was
    /// placed), a task fails only when no node fits it (brute force), multi-GPU tasks take
    /// all their GPUs on one node or nothing, and the score cache changes nothing.
    #[test]
    fn placement_invariants(tasks in prop::collection::vec(arb_task(), 1..120), seed in 0u64..1000) {
        let types = vec![gpu_type(0, 8, 96_000), gpu_type(1, 2, 16_000), NodeType { model: None, gpus: 0, cpu_milli: 32_000, mem_mib: 1 << 20 }];
        let node_types = [0u32, 0, 1, 1, 1, 2];
        let typical = TypicalWorkload::from_pods(tasks.iter().map(|&task| TypicalPod { task, spec: "" }), 0.95);
        let ctx = PlacementContext::new(typical, 96_000, 8);
        let mut shapes: Vec<Task> = Vec::new();
        for kind in PlacementKind::ALL {
            let policy = kind.build(&ctx);
            let fresh = kind.build(&ctx);
            let mut cached = GroupedCluster::new(types.clone(), &node_types, 64);
            let mut plain = GroupedCluster::new(types.clone(), &node_types, 0);
            let mut r1 = RngStreams::new(seed).stream("placement");
            let mut r2 = RngStreams::new(seed).stream("placement");
            let mut used: Vec<(u64, u64, u64)> = vec![(0, 0, 0); node_types.len()];
            for t in &tasks {
                let shape = match shapes.iter().position(|s| s == t) {
                    Some(i) => i,
                    None => { shapes.push(*t); shapes.len() - 1 }
                };
                prop_assume!(shape < 64);
                let before: Vec<NodeState> = (0..node_types.len() as u32).map(|n| cached.state_of(n).clone()).collect();
                let any_fits = (0..node_types.len()).any(|n| oracle_fits(&types[node_types[n] as usize], &before[n], t));
                let got = cached.place(policy.as_ref(), t, shape, &mut r1);
                let again = plain.place(fresh.as_ref(), t, usize::MAX, &mut r2);
                prop_assert_eq!(got, again, "{} cache changed the choice", kind.as_str());
                prop_assert_eq!(got.is_some(), any_fits, "{} failed a task some node fits", kind.as_str());
                for n in 0..node_types.len() as u32 {
                    let after = cached.state_of(n);
                    if Some(n) != got {
                        prop_assert_eq!(&before[n as usize], after);
                        continue;
                    }
                    let u = &mut used[n as usize];
                    u.0 += t.cpu_milli as u64;
                    u.1 += t.mem_mib;
                    u.2 += t.gpu_total();
                    let ty = &types[node_types[n as usize] as usize];
                    prop_assert!(u.0 <= ty.cpu_milli as u64 && u.1 <= ty.mem_mib);
                    prop_assert!(u.2 <= ty.gpus as u64 * 1000);
                    prop_assert_eq!(after.gpu_free_total(), ty.gpus as u64 * 1000 - u.2);
                    if t.num_gpu > 1 {
                        // All-or-nothing: exactly num_gpu GPUs went from wholly free to empty.
                        let full_before = before[n as usize].gpu_free.iter().filter(|&&f| f == FULL).count();
                        let full_after = after.gpu_free.iter().filter(|&&f| f == FULL).count();
                        prop_assert_eq!(full_before - full_after, t.num_gpu as usize);
                    }
                }
            }
        }
    }
}

#[test]
fn apply_and_fits_agree_with_the_oracle_on_a_fixed_state() {
    let ty = gpu_type(0, 4, 8000);
    let mut s = NodeState::empty(0, &ty);
    s = apply(&s, &task(1000, 1, 600), GpuPick::Share(0));
    for t in [
        task(7000, 3, 1000),
        task(7001, 0, 0),
        task(0, 4, 1000),
        task(0, 1, 400),
        task(0, 1, 401),
    ] {
        assert_eq!(fits(&ty, &s, &t), oracle_fits(&ty, &s, &t), "{t:?}");
    }
}

// ------------------------------------------------------------------- CLI

fn gpufleet() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("gpufleet").unwrap()
}

#[test]
fn fgd_scenario_writes_the_same_bytes_twice() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = root().join("scenarios/fgd-openb-gpushare40.toml");
    for run in ["a", "b"] {
        gpufleet()
            .args(["run", "-q", "--seed", "7"])
            .arg(&scenario)
            .arg("--out")
            .arg(dir.path().join(run))
            .assert()
            .success();
    }
    for (file, header) in [
        ("allocation.csv", "policy,seed,arrived_pct,allocated_pct"),
        ("fragmentation.csv", "policy,seed,arrived_pct,frag_pct"),
    ] {
        let a = std::fs::read(dir.path().join("a").join(file)).unwrap();
        let b = std::fs::read(dir.path().join("b").join(file)).unwrap();
        assert_eq!(a, b, "{file}");
        let text = String::from_utf8(a).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(header));
        // 6 policies x 131 points (0..=130), one seed.
        let rows: Vec<&str> = lines.collect();
        assert_eq!(rows.len(), 6 * 131);
        assert!(rows[0].starts_with("random,7,0,") && rows[130].starts_with("random,7,130,"));
    }
    let cmp = std::fs::read_to_string(dir.path().join("a/comparison.csv")).unwrap();
    assert!(cmp
        .lines()
        .next()
        .unwrap()
        .ends_with(",mean_frag_pct_at_100,expected_frag_pct_at_100,frag_diff_at_100"));
    for f in [
        "summary.json",
        "allocation.svg",
        "allocation.png",
        "fragmentation.svg",
        "fragmentation.png",
    ] {
        assert!(dir.path().join("a").join(f).is_file(), "{f}");
    }
}

#[test]
fn fgd_scenario_with_a_bad_pod_row_names_file_row_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let pods = dir.path().join("pods.csv");
    std::fs::write(
        &pods,
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,10,1,500\np1,1000,10,1,1500\n",
    )
    .unwrap();
    let nodes = root().join("data/openb-2023/openb_node_list_gpu_node.csv");
    let scenario = dir.path().join("s.toml");
    std::fs::write(
        &scenario,
        format!(
            "name = \"bad\"\n[fgd_experiment]\nnodes = {:?}\npods = \"pods.csv\"\npolicies = [\"fgd\"]\nseeds = [1]\n",
            nodes.display().to_string()
        ),
    )
    .unwrap();
    let out = gpufleet()
        .arg("validate")
        .arg(&scenario)
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let msg = String::from_utf8(out).unwrap();
    assert!(
        msg.contains("pods.csv:3") && msg.contains("gpu_milli"),
        "{msg}"
    );
    let bad_policy = std::fs::read_to_string(&scenario)
        .unwrap()
        .replace("\"fgd\"", "\"tetris\"");
    std::fs::write(&scenario, bad_policy).unwrap();
    let out = gpufleet()
        .arg("run")
        .arg(&scenario)
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let msg = String::from_utf8(out).unwrap();
    assert!(msg.contains("tetris") && msg.contains("line 5"), "{msg}");
}

#[test]
fn packing_clustering_and_dot_product_by_hand() {
    use gpufleet::sched::placement::{DotProduct, GpuClustering, GpuPacking};
    // Three 2-GPU nodes, 10 cores each. First fit puts a 300-milli task on node 0 and a
    // whole GPU on node 1 (model pins), node 2 stays idle.
    let types = vec![
        gpu_type(0, 2, 10_000),
        gpu_type(1, 2, 10_000),
        gpu_type(2, 2, 10_000),
    ];
    let pin = |m: usize, n: u32, milli: u32| Task {
        models: TypeMask::single(m),
        ..task(1000, n, milli)
    };
    let mut c = GroupedCluster::new(types.clone(), &[0, 1, 2], 0);
    let mut rng = RngStreams::new(5).stream("placement");
    assert_eq!(c.place(&FirstFit, &pin(0, 1, 300), 0, &mut rng), Some(0));
    assert_eq!(c.place(&FirstFit, &pin(1, 1, 1000), 0, &mut rng), Some(1));
    // Packing: a 500-milli task goes onto node 0's used GPU (700 left: score
    // 100 - 70 / 10 = 93), not a fresh one (idle node 2: 33 - 2 = 31; node 1's free GPU:
    // 50 - 1 = 49).
    let mut p = c.clone();
    assert_eq!(p.place(&GpuPacking, &task(0, 1, 500), 0, &mut rng), Some(0));
    assert_eq!(p.state_of(0).gpu_free, vec![200, 1000]);
    // Packing: a whole GPU goes to a node in use (0 or 1: 49), never the idle node 2 (31).
    let n = c
        .clone()
        .place(&GpuPacking, &task(0, 1, 1000), 0, &mut rng)
        .unwrap();
    assert_ne!(n, 2);
    // Clustering: another shared task (of any size: one share-gpu tag) joins node 0
    // (75 + 25 x (8000 - 1700) / 8000 = 94) before idle node 2 (25 + 18 = 43) and node 1
    // (other tag only: 21).
    let mut k = c.clone();
    assert_eq!(
        k.place(&GpuClustering, &task(0, 1, 600), 0, &mut rng),
        Some(0)
    );
    // A whole GPU under clustering: the idle node 2 (25 + 18 = 43) before node 0 (another
    // tag only: 25 x 6300 / 8000 = 19), node 1 holds the same tag alone: 75 + 21 = 96.
    assert_eq!(
        c.clone()
            .place(&GpuClustering, &task(0, 1, 1000), 0, &mut rng),
        Some(1)
    );
    // Dot product, the artifact's scales (128 cores, 8 GPUs), for a 1-core 1-GPU task:
    //   node 0: (9/128 x 1/128 + 1700/8000 x 1000/8000) / 2 = 0.01353 -> 100 x 0.98647 -> 98
    //   node 1: (9/128 x 1/128 + 1000/8000 x 1/8) / 2 = 0.00809 -> 99
    //   node 2: (10/128 x 1/128 + 2000/8000 x 1/8) / 2 = 0.01593 -> 98
    let dp = DotProduct;
    let s: Vec<f64> = (0..3u32)
        .map(|n| {
            dp.choose(&types[n as usize], c.state_of(n), &task(1000, 1, 1000))
                .unwrap()
                .score
        })
        .collect();
    assert_eq!(s, vec![98.0, 99.0, 98.0]);
    assert_eq!(c.place(&dp, &task(1000, 1, 1000), 0, &mut rng), Some(1));
}

// ------------------------------------- scored placement in the simulator's cluster

mod cluster_scored {
    use super::*;
    use gpufleet::model::{
        Allocation, CapacityKind, Cluster, GpuRequest, NodeSpec, PoolSpec, Workload,
    };
    use gpufleet::sched::placement::Placer;

    fn arb_req() -> impl Strategy<Value = GpuRequest> {
        prop_oneof![
            Just(GpuRequest::None),
            (1u16..1000).prop_map(GpuRequest::Fraction),
            (1u32..=4).prop_map(GpuRequest::Whole),
            Just(GpuRequest::Whole(8)),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(40))]

        /// Under every placement: per-GPU and per-node capacity hold against a
        /// ledger of live allocations, a job bigger than a node takes whole nodes, and a
        /// single-node request fails only when no node could hold it (brute force).
        #[test]
        fn scored_choices_keep_capacity(
            ops in prop::collection::vec((arb_req(), 0u32..6000, any::<bool>(), any::<prop::sample::Index>()), 1..80),
        ) {
            let spec = NodeSpec { gpus: 4, cpu_milli: 16_000, mem_mib: 1 << 20 };
            for choice in PlacementKind::ALL {
                let mut c = Cluster::new(vec![PoolSpec { name: "p".into(), gpu_type: 0, kind: CapacityKind::Owned, node: spec, nodes: 4, speed: 1.0 }]);
                let placer = Placer::for_run(choice, &mut c, &Workload::default());
                let mut live: Vec<Allocation> = Vec::new();
                for (req, cpu, release, idx) in &ops {
                    if *release && !live.is_empty() {
                        let a = live.swap_remove(idx.index(live.len()));
                        c.give_back(&a);
                    } else {
                        let single = !matches!(req, GpuRequest::Whole(w) if *w > 4);
                        let could = (0..4u32).any(|n| {
                            let (cf, _) = c.node_free_host(n);
                            let f = c.node_free_milli(n);
                            cf >= *cpu && match *req {
                                GpuRequest::None => true,
                                GpuRequest::Fraction(m) => f.iter().any(|&x| x >= m),
                                GpuRequest::Whole(w) => f.iter().filter(|&&x| x == 1000).count() >= w as usize,
                            }
                        });
                        match placer.find(&c, 0, *req, *cpu, 0, None) {
                            Some(a) => {
                                if let GpuRequest::Whole(w) = *req {
                                    prop_assert!(a.gpus.iter().all(|s| s.milli == 1000));
                                    if single {
                                        prop_assert_eq!(a.gpus.len(), w as usize);
                                        prop_assert!(a.gpus.iter().all(|s| s.node == a.gpus[0].node));
                                    } else {
                                        prop_assert_eq!(a.gpus.len() % 4, 0);
                                    }
                                }
                                c.take(&a);
                                live.push(a);
                            }
                            None => prop_assert!(!single || !could, "{:?}: {:?} failed though a node fits", choice, req),
                        }
                    }
                    // Ledger: what live allocations hold, per GPU and per node.
                    let mut held = [[0u32; 4]; 4];
                    let mut cpu_held = [0u32; 4];
                    for a in &live {
                        for s in &a.gpus { held[s.node as usize][s.gpu as usize] += s.milli as u32; }
                        for &(n, cpu, _) in &a.hosts { cpu_held[n as usize] += cpu; }
                    }
                    for n in 0..4u32 {
                        prop_assert!(cpu_held[n as usize] <= 16_000);
                        prop_assert_eq!(c.node_free_host(n).0, 16_000 - cpu_held[n as usize]);
                        for (h, &f) in held[n as usize].iter().zip(c.node_free_milli(n)) {
                            prop_assert!(*h <= 1000);
                            prop_assert_eq!(f as u32, 1000 - *h);
                        }
                    }
                }
            }
        }
    }
}

// ------------------------------------------ every listed placement, everywhere

/// The placement names the README's `[scheduler]` row lists.
fn readme_placements() -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let row = readme
        .lines()
        .find(|l| l.starts_with("| `[scheduler]` |"))
        .expect("the README's [scheduler] row");
    let list = &row[row.find("`placement` (").expect("its placement list") + 13..];
    let list = &list[..list.find(';').unwrap()];
    list.split(", ")
        .map(|n| n.trim_matches('`').to_string())
        .collect()
}

#[test]
fn every_readme_placement_parses_and_runs_in_a_scheduler_scenario() {
    use gpufleet::scenario::Scenario;
    use std::path::Path;
    let names = readme_placements();
    let mut known: Vec<&str> = PlacementKind::ALL.iter().map(|k| k.as_str()).collect();
    let mut listed: Vec<&str> = names.iter().map(String::as_str).collect();
    known.sort_unstable();
    listed.sort_unstable();
    assert_eq!(
        listed, known,
        "the README lists every placement, and only those"
    );
    for name in &names {
        // Whole, shared and multi-node jobs on two small pools.
        let text = format!(
            r#"
name = "placement-{name}"
seed = 3
[[gpu_types]]
name = "G"
memory_gb = 80
speed = 1.0
power_w = 700
[[pools]]
name = "a"
gpu_type = "G"
kind = "owned"
nodes = 3
gpus_per_node = 4
cpu_cores_per_node = 64
memory_gib_per_node = 512
price_per_node_hour = 4.0
[[pools]]
name = "b"
gpu_type = "G"
kind = "on_demand"
nodes = 2
gpus_per_node = 8
cpu_cores_per_node = 96
memory_gib_per_node = 1024
price_per_node_hour = 20.0
[scheduler]
policy = "easy_backfill"
placement = "{name}"
[workload]
kind = "synthetic"
rate_per_hour = 6.0
jobs = 200
sizes = [{{ gpus = 0.5, weight = 3 }}, {{ gpus = 1, weight = 3 }}, {{ gpus = 4, weight = 2 }}, {{ gpus = 16, weight = 1 }}]
duration = {{ kind = "exponential", mean = "1h" }}
"#
        );
        let s = Scenario::parse(&text, Path::new("p.toml"), Path::new("."))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(s.sim.placement.as_str(), name);
        let run = gpufleet::run::execute(&s, &gpufleet::engine::RngStreams::new(3)).unwrap();
        assert_eq!(
            run.summary.jobs.completed, 200,
            "{name}: every job completes"
        );
    }
}

#[test]
fn every_placement_runs_in_the_fgd_experiment() {
    use gpufleet::scenario::FgdScenario;
    let dir = tempfile::tempdir().unwrap();
    let data = root().join("data/openb-2023");
    let list: Vec<String> = readme_placements()
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect();
    let path = dir.path().join("fgd.toml");
    std::fs::write(
        &path,
        format!(
            "name = \"all\"\n[fgd_experiment]\nnodes = \"{}\"\npods = \"{}\"\npolicies = [{}]\nseeds = [1]\n",
            data.join("openb_node_list_gpu_node.csv").display(),
            data.join("openb_pod_list_default.csv").display(),
            list.join(", ")
        ),
    )
    .unwrap();
    let s = FgdScenario::load(&path).unwrap();
    assert_eq!(s.policies.len(), PlacementKind::ALL.len());
    // A slice of the cluster and trace keeps it quick.
    let nodes = read_openb_nodes(&s.nodes, BadRows::Stop).unwrap();
    let pods = read_openb_pods(&s.pods, BadRows::Stop, None).unwrap();
    let exp = FgdExperiment::new(&nodes[..150], &pods.pods[..800], 1.3, 0.95).unwrap();
    for r in exp.run_all(&s.policies, &s.seeds) {
        assert!(r.pods > 0 && r.failed < r.pods, "{}", r.policy.as_str());
        assert!(allocation_at_100(&r.curve) > 50.0, "{}", r.policy.as_str());
    }
}

#[test]
fn trace_inspect_describes_an_openb_pod_list_without_times() {
    // The artifact's multi-GPU lists have only name,cpu_milli,memory_mib,num_gpu,gpu_milli.
    // Here: 2 CPU-only pods (4 + 2 cores), 2 shared (300 + 500 milli), one 8-GPU pod:
    // GPU demand 0.3 + 0.5 + 8 = 8.8 GPUs; CPU 4 + 2 + 1 + 1 + 16 = 24 cores.
    let dir = tempfile::tempdir().unwrap();
    let pods = dir.path().join("multigpu.csv");
    std::fs::write(
        &pods,
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n\
         p0,4000,1024,0,0\np1,2000,1024,0,0\np2,1000,512,1,300\np3,1000,512,1,500\n\
         p4,16000,4096,8,1000\n",
    )
    .unwrap();
    let out = gpufleet()
        .args(["trace", "inspect", "--format", "openb", "--json"])
        .arg(&pods)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["pods"], 5);
    assert_eq!(v["has_times"], false);
    assert_eq!(
        (&v["cpu_only"], &v["shared_gpu"], &v["whole_gpu"]),
        (&2.into(), &2.into(), &1.into())
    );
    assert!((v["gpu_demand"].as_f64().unwrap() - 8.8).abs() < 1e-9);
    assert!((v["cpu_cores"].as_f64().unwrap() - 24.0).abs() < 1e-9);
    // Shapes, most pods first: CPU-only (2), then 1 x 300, 1 x 500, 8 x 1000 (1 each).
    let shapes = v["shapes"].as_array().unwrap();
    assert_eq!(shapes[0]["pods"], 2);
    assert_eq!(shapes[0]["num_gpu"], 0);
    assert_eq!(shapes[3]["num_gpu"], 8);
    let text = gpufleet()
        .args(["trace", "inspect", "--format", "openb"])
        .arg(&pods)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("8.8 GPUs") && text.contains("none"), "{text}");
    // A bad row still names file, row and column.
    std::fs::write(
        &pods,
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,4000,1024,1,1500\n",
    )
    .unwrap();
    let err = gpufleet()
        .args(["trace", "inspect", "--format", "openb"])
        .arg(&pods)
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(err).unwrap();
    assert!(
        err.contains("multigpu.csv:2") && err.contains("gpu_milli"),
        "{err}"
    );
}
