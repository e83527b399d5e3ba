//! Property test of preemption's feasibility count against brute force: freeing the
//! victims one by one and asking placement after each.

use super::placement::{PlacementContext, PlacementKind, Placer};
use super::*;
use crate::model::PoolSpec;
use proptest::prelude::*;

/// A request from a generated number: whole GPUs up to 16, or a share of one.
fn request(x: u32) -> GpuRequest {
    match x % 5 {
        0 => GpuRequest::Fraction(250 * (1 + (x / 5) % 3) as u16),
        _ => GpuRequest::Whole(1 + (x / 5) % 16),
    }
}

/// The first number of victims after which placement finds room, by brute force.
fn brute_force(
    cluster: &Cluster,
    running: &Running,
    placer: &Placer,
    req: GpuRequest,
    victims: &[JobId],
) -> Option<usize> {
    let pools = cluster.pools().len();
    let fits = |c: &Cluster| (0..pools).any(|p| placer.find(c, p, req, 0, 0, None).is_some());
    let mut c = cluster.clone();
    if fits(&c) {
        return Some(0);
    }
    for (i, v) in victims.iter().enumerate() {
        if let Some(r) = running.get(*v) {
            c.give_back(&r.alloc);
        }
        if fits(&c) {
            return Some(i + 1);
        }
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Without CPU or memory demands the count is exact: it is the number of victims
    /// after which best fit first finds room (so no try before it could succeed).
    #[test]
    fn victims_before_fit_is_the_first_prefix_that_fits(
        shapes in prop::collection::vec((1u32..6, prop::sample::select(vec![1u16, 2, 4, 8])), 1..3),
        jobs in prop::collection::vec(0u32..400, 1..40),
        want in 1u32..24,
        order in prop::collection::vec(0usize..1000, 0..40),
    ) {
        let specs: Vec<PoolSpec> = shapes.iter().map(|&(n, g)| PoolSpec::test(n, g)).collect();
        let mut cluster = Cluster::new(specs);
        let mut running = Running::new(shapes.len());
        let placer = Placer::new(PlacementKind::BestFit, &PlacementContext::default());
        // Fill the cluster with whatever fits, in order.
        let mut ids = Vec::new();
        for (i, &x) in jobs.iter().enumerate() {
            let req = request(x);
            let p = (x as usize / 7) % shapes.len();
            if let Some(a) = placer.find(&cluster, p, req, 0, 0, None) {
                cluster.take(&a);
                running.insert(i as JobId, a, SimTime::ZERO, SimTime::NEVER);
                ids.push(i as JobId);
            }
        }
        // Victims: the running jobs in a generated order, with an id that does not run.
        let mut victims = ids.clone();
        for (k, &o) in order.iter().enumerate() {
            let n = victims.len();
            if n > 1 {
                victims.swap(k % n, o % n);
            }
        }
        victims.push(10_000);
        let req = GpuRequest::Whole(want);
        let pools: Vec<usize> = (0..shapes.len()).collect();
        let mut sc = PreemptScratch::default();
        let eligible = |p: usize| pools.contains(&p);
        let fits_now = pools.iter().any(|&p| whole_gpus_may_fit(&cluster, p, req));
        let got = victims_before_fit(&cluster, &running, eligible, fits_now, req, victims.iter().copied(), &mut sc);
        let want_n = brute_force(&cluster, &running, &placer, req, &victims);
        prop_assert_eq!(got, want_n);
        // Fractional requests are left to placement.
        let f = victims_before_fit(&cluster, &running, eligible, true, GpuRequest::Fraction(500), victims.iter().copied(), &mut sc);
        prop_assert_eq!(f, Some(0));
    }
}
