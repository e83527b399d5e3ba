//! Unit tests of the cluster: taking and giving back capacity, the free-GPU index, and
//! the holdings it records for placement.

use super::*;

fn on(node: u32, gpus: &[u16], milli: u16) -> Allocation {
    Allocation {
        pool: 0,
        gpus: gpus
            .iter()
            .map(|&gpu| GpuSlice { node, gpu, milli })
            .collect(),
        hosts: vec![(node, 1000, 10)],
    }
}

#[test]
fn take_and_give_back_move_nodes_between_buckets() {
    let mut c = Cluster::new(vec![PoolSpec::test(2, 4)]);
    let a = on(1, &[0, 1, 2], 1000);
    c.take(&a);
    assert_eq!(c.pools()[0].bucket(1), &[1]);
    assert_eq!(c.pools()[0].bucket(4), &[0]);
    assert_eq!(c.free_whole(1), 1);
    assert_eq!(c.node_free_host(1), (63_000, 512 * 1024 - 10));
    let s = on(0, &[3], 300);
    c.take(&s);
    assert_eq!(c.pools()[0].partial(), &[0]);
    assert_eq!(c.pool_free_whole_gpus(0), 4);
    assert_eq!(c.max_free_whole(0), 3);
    c.give_back(&a);
    c.give_back(&s);
    assert_eq!(c.free_nodes(0).len(), 2);
    assert!(c.pools()[0].partial().is_empty());
    assert_eq!(c.pool_free_milli(0), 8000);
}

#[test]
fn holdings_count_tasks_by_shape() {
    let mut c = Cluster::new(vec![PoolSpec::test(3, 8)]);
    assert!(c.holdings(0).is_empty());
    c.track_holdings();
    let (a, b) = (on(0, &[0, 1], 1000), on(0, &[2, 3], 1000));
    let s = on(0, &[4], 250);
    for x in [&a, &b, &s] {
        c.take(x);
    }
    let mut held = c.holdings(0).to_vec();
    held.sort_by_key(|h| h.milli);
    assert_eq!(
        held,
        vec![
            Holding {
                gpus: 1,
                milli: 250,
                tasks: 1
            },
            Holding {
                gpus: 2,
                milli: 1000,
                tasks: 2
            },
        ]
    );
    c.give_back(&s);
    c.give_back(&a);
    assert_eq!(
        c.holdings(0),
        &[Holding {
            gpus: 2,
            milli: 1000,
            tasks: 1
        }]
    );
    // A gang allocation counts one task per node it spans; CPU-only work none.
    let gang = Allocation {
        pool: 0,
        gpus: (1..3u32)
            .flat_map(|node| {
                (0..8).map(move |gpu| GpuSlice {
                    node,
                    gpu,
                    milli: 1000,
                })
            })
            .collect(),
        hosts: vec![(1, 0, 0), (2, 0, 0), (0, 5, 5)],
    };
    c.take(&gang);
    assert_eq!(
        c.holdings(1),
        &[Holding {
            gpus: 8,
            milli: 1000,
            tasks: 1
        }]
    );
    assert_eq!(c.holdings(2), c.holdings(1));
    assert_eq!(c.holdings(0).len(), 1);
    c.give_back(&gang);
    assert!(c.holdings(1).is_empty());
}

/// A fixed pseudo-random sequence (Knuth's MMIX LCG): each call gives the next value
/// below `m`.
fn lcg(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut x = seed;
    move |m| {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) % m
    }
}

/// The pool search index against a brute force over the nodes: after random takes, give
/// backs and nodes set down and up, the first pool after a position of the order, of an
/// allowed group, that may hold a request is the one a walk of the order finds by
/// counting every up node's wholly and partly free GPUs; the same in a second order kept
/// beside it ([`Cluster::add_search_order`]); and the wholly free GPUs of the allowed
/// groups are those counted node by node.
#[test]
fn pool_search_finds_the_first_pool_a_walk_over_the_nodes_finds() {
    for seed in 0..20 {
        let mut r = lcg(seed);
        let specs: Vec<PoolSpec> = (0..40 + r(80) as usize)
            .map(|_| PoolSpec {
                gpu_type: r(3) as usize,
                kind: [CapacityKind::Owned, CapacityKind::Spot][r(2) as usize],
                ..PoolSpec::test(1 + r(3) as u32, [4, 8][r(2) as usize])
            })
            .collect();
        let mut order: Vec<usize> = (0..specs.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, r(i as u64 + 1) as usize);
        }
        let mut c = Cluster::new(specs.clone());
        c.set_search_order(7, &order);
        assert_eq!(c.search_key(), Some(7));
        let second: Vec<usize> = order.iter().rev().copied().collect();
        c.add_search_order(9, &second);
        assert!(c.has_search_order(9) && !c.has_search_order(7));
        let mut held: Vec<Allocation> = Vec::new();
        for _ in 0..400 {
            let n = r(c.node_count() as u64) as u32;
            match r(6) {
                0 if !held.is_empty() => {
                    let a = held.swap_remove(r(held.len() as u64) as usize);
                    c.give_back(&a);
                }
                1 => c.set_up(n, !c.is_up(n)),
                _ => {
                    // Some GPUs of node `n`, whole or a share of each, where free.
                    let free = c.node_free_milli(n).to_vec();
                    let milli = [1000, 500, 250][r(3) as usize];
                    let gpus: Vec<u16> = (0..free.len() as u16)
                        .filter(|&g| free[g as usize] >= milli && r(2) == 0)
                        .collect();
                    if !gpus.is_empty() && c.is_up(n) {
                        let mut a = on(n, &gpus, milli);
                        a.pool = c.pool_of(n);
                        a.hosts[0].1 = 0;
                        a.hosts[0].2 = 0;
                        c.take(&a);
                        held.push(a);
                    }
                }
            }
            // Brute force: per pool, most wholly free GPUs on an up node, the free up
            // nodes' GPUs, any share free.
            let fit = |p: usize| {
                let g = specs[p].node.gpus as u32;
                let (mut most, mut free_nodes, mut share) = (0u32, 0u32, false);
                for n in c.pool_nodes(p).filter(|&n| c.is_up(n)) {
                    let f = c.node_free_milli(n);
                    let whole = f.iter().filter(|&&x| x == 1000).count() as u32;
                    most = most.max(whole);
                    free_nodes += (whole == g) as u32;
                    share |= f.iter().any(|&x| x > 0 && x < 1000);
                }
                (most.max(free_nodes * g), share)
            };
            let req = match r(4) {
                0 => GpuRequest::Fraction(300),
                _ => GpuRequest::Whole([1, 2, 4, 8, 12, 16, 24][r(7) as usize]),
            };
            let allowed = r(64);
            let eligible = |p: usize| {
                allowed >> (specs[p].gpu_type * 2 + (specs[p].kind == CapacityKind::Spot) as usize)
                    & 1
                    == 1
            };
            let after = r(order.len() as u64 + 1).checked_sub(1).map(|x| x as u32);
            let want = order.iter().enumerate().find(|&(i, &p)| {
                let (whole, share) = fit(p);
                let holds = match req {
                    GpuRequest::Whole(w) => whole >= w,
                    _ => whole >= 1 || share,
                };
                after.is_none_or(|a| i as u32 > a) && eligible(p) && holds
            });
            let want = want.map(|(i, &p)| (i as u32, p));
            assert_eq!(c.next_fitting(after, req, eligible), want, "seed {seed}");
            let want2 = second.iter().enumerate().find(|&(i, &p)| {
                let (whole, share) = fit(p);
                let holds = match req {
                    GpuRequest::Whole(w) => whole >= w,
                    _ => whole >= 1 || share,
                };
                after.is_none_or(|a| i as u32 > a) && eligible(p) && holds
            });
            let want2 = want2.map(|(i, &p)| (i as u32, p));
            assert_eq!(c.next_fitting_in(9, after, req, eligible), Some(want2));
            assert_eq!(c.next_fitting_in(8, after, req, eligible), None);
            let anywhere = order.iter().any(|&p| {
                let (whole, share) = fit(p);
                eligible(p)
                    && match req {
                        GpuRequest::Whole(w) => whole >= w,
                        _ => whole >= 1 || share,
                    }
            });
            assert_eq!(c.any_fitting(req, eligible), Some(anywhere), "seed {seed}");
            let free: u64 = (0..specs.len())
                .filter(|&p| eligible(p))
                .flat_map(|p| c.pool_nodes(p))
                .filter(|&n| c.is_up(n))
                .map(|n| c.node_free_milli(n).iter().filter(|&&x| x == 1000).count() as u64)
                .sum();
            assert_eq!(c.free_whole_gpus_where(eligible), free, "seed {seed}");
            for p in 0..specs.len() {
                let (whole, share) = fit(p);
                assert_eq!(
                    c.pool_fit(p),
                    crate::model::PoolFit {
                        whole,
                        partial: share
                    }
                );
                assert_eq!(
                    c.max_free_whole(p) as u32,
                    c.pool_nodes(p)
                        .filter(|&n| c.is_up(n))
                        .map(|n| c.free_whole(n) as u32)
                        .max()
                        .unwrap_or(0)
                );
            }
        }
    }
}
