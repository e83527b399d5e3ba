//! Tests of the blocked profile: hand-worked cases, the one-pass search against trying
//! every step, and random sequences of operations against the flat profile it replaced.

use super::linear::LinearProfile;
use super::profile::Profile;
use crate::engine::SimTime;
use proptest::prelude::*;

/// The original search: every step tried in turn, its whole window checked.
fn earliest_by_trying_each(s: &[(SimTime, i64)], need: i64, d: SimTime) -> Option<SimTime> {
    (0..s.len())
        .find(|&i| {
            let end = s[i].0.plus(d);
            s[i].1 >= need
                && s[i + 1..]
                    .iter()
                    .take_while(|x| x.0 < end)
                    .all(|x| x.1 >= need)
        })
        .map(|i| s[i].0)
}

#[test]
fn profile_finds_holes_that_last() {
    // 2 free now, 6 from 10, 8 from 20.
    let mut p = Profile::new(vec![(SimTime(0), 2), (SimTime(10), 6), (SimTime(20), 8)]);
    assert_eq!(p.earliest(2, SimTime(100)), Some(SimTime(0)));
    assert_eq!(p.earliest(4, SimTime(5)), Some(SimTime(10)));
    p.reserve(SimTime(10), 4, SimTime(5)); // 2 free over [10, 15)
    assert_eq!(p.earliest(4, SimTime(5)), Some(SimTime(15)));
    assert_eq!(p.earliest(9, SimTime(1)), None);
    // The step at 10 now holds the value before it (2) and is merged away.
    assert_eq!(
        p.steps(),
        [(SimTime(0), 2), (SimTime(15), 6), (SimTime(20), 8)]
    );
    assert_eq!(p.min_over(SimTime(5), SimTime(16)), 2);
    assert_eq!(p.min_over(SimTime(15), SimTime(30)), 6);
    // Now moves to 12: the value there (2) holds from 12; the rest is unchanged.
    p.advance(SimTime(12));
    assert_eq!(
        p.steps(),
        [(SimTime(12), 2), (SimTime(15), 6), (SimTime(20), 8)]
    );
    assert_eq!(p.at(SimTime(16)), 6);
    // Giving the reservation back restores 6 from 12 (its past part is dropped).
    p.add(SimTime(10), 4, SimTime(5));
    assert_eq!(p.steps(), [(SimTime(12), 6), (SimTime(20), 8)]);
}

#[test]
fn one_pass_search_matches_trying_each_step() {
    // Oracle: the quadratic search, on pseudo-random profiles (a fixed LCG).
    let mut x: u64 = 12345;
    let mut next = |m: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    for _ in 0..2000 {
        let n = 1 + next(12) as usize;
        let mut t = 0;
        let steps: Vec<(SimTime, i64)> = (0..n)
            .map(|_| {
                t += 1 + next(20);
                (SimTime(t), next(9) as i64)
            })
            .collect();
        let p = Profile::new(steps.clone());
        for _ in 0..8 {
            let need = next(9) as i64;
            let d = SimTime(next(60));
            assert_eq!(
                p.earliest(need, d),
                earliest_by_trying_each(&steps, need, d),
                "{steps:?} need {need} d {d:?}"
            );
        }
    }
}

/// One operation of a random sequence: kind and three raw parameters.
type Op = (u8, u16, u16, u16);

/// Runs `ops` on both profiles from the same steps and checks that every answer and,
/// after every change, every step agree.
fn same_as_linear(gaps: &[(u64, i64)], ops: &[Op]) {
    let mut t = 0;
    let steps: Vec<(SimTime, i64)> = gaps
        .iter()
        .map(|&(g, v)| {
            t += g;
            (SimTime(t), v)
        })
        .collect();
    let span = t + 50;
    let mut new = Profile::new(steps.clone());
    let mut old = LinearProfile::new(steps);
    // Reservations taken at the earliest fit, to be given back later (as a replan does).
    let mut held: Vec<(SimTime, i64, SimTime)> = Vec::new();
    for (k, &(kind, a, b, c)) in ops.iter().enumerate() {
        let now = old.steps().first().map_or(0, |x| x.0 .0);
        let time = |x: u16| SimTime(now.saturating_sub(10) + x as u64 % (span + 20));
        let need = (b % 14) as i64;
        let d = SimTime(c as u64 % 120);
        match kind % 7 {
            0 => {
                let to = SimTime(now + a as u64 % 25);
                new.advance(to);
                old.advance(to);
            }
            1 => {
                let delta = (b % 17) as i64 - 8;
                new.add(time(a), delta, d);
                old.add(time(a), delta, d);
            }
            2 => {
                if let Some(at) = old.earliest(need, d) {
                    old.reserve(at, need, d);
                    new.reserve(at, need, d);
                    held.push((at, need, d));
                }
            }
            3 => {
                if !held.is_empty() {
                    let (at, need, d) = held.swap_remove(a as usize % held.len());
                    old.add(at, need, d);
                    new.add(at, need, d);
                }
            }
            4 => assert_eq!(
                new.earliest_from(time(a), need, d),
                old.earliest_from(time(a), need, d),
                "op {k}: earliest_from({:?}, {need}, {d:?}) on {:?}",
                time(a),
                old.steps()
            ),
            5 => {
                let (x, y) = (time(a), time(a).plus(d));
                assert_eq!(new.min_over(x, y), old.min_over(x, y), "op {k}: min_over");
            }
            _ => assert_eq!(new.at(time(a)), old.at(time(a)), "op {k}: at"),
        }
        assert_eq!(new.steps(), old.steps(), "op {k} ({kind}) left other steps");
    }
}

proptest! {
    #[test]
    fn blocked_profile_matches_linear(
        gaps in prop::collection::vec((1u64..20, 0i64..12), 1..200),
        ops in prop::collection::vec((0u8..7, any::<u16>(), any::<u16>(), any::<u16>()), 1..300),
    ) {
        same_as_linear(&gaps, &ops);
    }
}

#[test]
fn blocked_profile_matches_linear_on_long_plans() {
    // Many blocks, splits and merges: hundreds of reservations taken and given back on
    // 600 steps (a fixed LCG chooses the operations).
    let mut x: u64 = 99;
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) as u16
    };
    let gaps: Vec<(u64, i64)> = (0..600).map(|i| (1 + i % 7, 20 + (i % 5) as i64)).collect();
    let ops: Vec<Op> = (0..3000)
        .map(|_| {
            let k = [2, 2, 3, 4, 5, 1, 0, 6][next() as usize % 8];
            (k, next(), next(), next())
        })
        .collect();
    same_as_linear(&gaps, &ops);
}
