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
