//! Nearest-rank percentiles by selection, not sorting: a summary takes a dozen of them over
//! a million jobs. Large inputs use a radix step over the floats' `total_cmp` keys: a
//! histogram of their top 16 bits names the bucket that holds each rank, one more pass
//! gathers those buckets' members, and a selection among them finishes (two streaming
//! passes and a small selection instead of selections over the whole); small inputs use
//! `select_nth_unstable`.

/// Below this many values, comparison selection is as fast as a histogram pass.
const RADIX_FROM: usize = 4096;

/// The bits of `x` as an unsigned key in `total_cmp` order.
#[inline]
fn key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// The float of a key made by [`key`].
#[inline]
fn unkey(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k ^ 1 << 63 } else { !k })
}

/// The values of 1-based `ranks` (ascending, each in 1..=v.len()) in `total_cmp` order of
/// `v`; `v` is reordered.
pub(super) fn at_ranks(v: &mut [f64], ranks: &[usize]) -> Vec<f64> {
    if v.len() >= RADIX_FROM {
        return radix_ranks(v, ranks);
    }
    let mut out = Vec::with_capacity(ranks.len());
    let mut lo = 0;
    for &r in ranks {
        let k = r.saturating_sub(1).min(v.len().saturating_sub(1));
        if k < lo {
            // Already placed by an earlier selection (equal ranks).
            out.push(v[k]);
            continue;
        }
        let (_, x, _) = v[lo..].select_nth_unstable_by(k - lo, f64::total_cmp);
        out.push(*x);
        lo = k;
    }
    out
}

/// [`at_ranks`] by radix: a histogram of the keys' top 16 bits finds each rank's bucket
/// and its rank inside it; one more pass gathers the members of those buckets (at most one
/// per rank), and a selection over each bucket's keys finishes.
fn radix_ranks(v: &[f64], ranks: &[usize]) -> Vec<f64> {
    let mut hist = vec![0u32; 1 << 16];
    for &x in v {
        hist[(key(x) >> 48) as usize] += 1;
    }
    // Each rank's bucket and rank within it (ranks ascend, so one walk finds them all).
    let mut targets: Vec<(usize, usize)> = Vec::with_capacity(ranks.len());
    let (mut bucket, mut below) = (0usize, 0usize);
    for &r in ranks {
        let k = r.saturating_sub(1).min(v.len() - 1);
        while below + hist[bucket] as usize <= k {
            below += hist[bucket] as usize;
            bucket += 1;
        }
        targets.push((bucket, k - below));
    }
    let mut buckets: Vec<usize> = targets.iter().map(|t| t.0).collect();
    buckets.dedup();
    let mut members: Vec<Vec<u64>> = buckets
        .iter()
        .map(|&b| Vec::with_capacity(hist[b] as usize))
        .collect();
    // Each bucket's smallest and largest key: a bucket of ties (every wait 0, every
    // slowdown 1) needs no selection.
    let mut range = vec![(u64::MAX, 0u64); buckets.len()];
    for &x in v {
        let k = key(x);
        let b = (k >> 48) as usize;
        if let Some(i) = buckets.iter().position(|&t| t == b) {
            members[i].push(k);
            range[i] = (range[i].0.min(k), range[i].1.max(k));
        }
    }
    targets
        .iter()
        .map(|&(b, k)| {
            let i = buckets.iter().position(|&t| t == b).unwrap_or(0);
            if range[i].0 == range[i].1 {
                return unkey(range[i].0);
            }
            let (_, x, _) = members[i].select_nth_unstable(k);
            unkey(*x)
        })
        .collect()
}

/// The sum of `v` in its order, with Neumaier's compensation (within an ulp or so of the
/// exact sum whatever the order, so a mean does not depend on how values were permuted).
pub(super) fn sum(v: &[f64]) -> f64 {
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for &x in v {
        let t = s + x;
        if s.abs() >= x.abs() {
            c += (s - t) + x;
        } else {
            c += (x - t) + s;
        }
        s = t;
    }
    s + c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_match_a_sort() {
        let v: Vec<f64> = (0..10_001u64)
            .map(|i| ((i * 2_654_435_761) % 1_000_003) as f64 / 7.0 - 5.0)
            .collect();
        let mut s = v.clone();
        s.sort_by(f64::total_cmp);
        let ranks = [1, 5001, 5001, 9501, 9901, 10_001];
        let mut w = v.clone();
        let got = at_ranks(&mut w, &ranks);
        let want: Vec<f64> = ranks.iter().map(|&r| s[r - 1]).collect();
        assert_eq!(got, want);
        // 0.1 ten times is 1 to within an ulp with compensation.
        assert!((sum(&[0.1; 10]) - 1.0).abs() <= f64::EPSILON);
    }

    /// Radix selection against a sort on inputs that stress it: all equal, few distinct
    /// values (one huge bucket), negatives and signed zeros, NaN and infinities, values
    /// that share the top 32 bits, and a spread sample.
    #[test]
    fn radix_ranks_match_a_sort() {
        let n = 50_000u64;
        let inputs: Vec<Vec<f64>> = vec![
            vec![3.5; n as usize],
            (0..n).map(|i| (i % 3) as f64).collect(),
            (0..n)
                .map(|i| match i % 7 {
                    0 => -0.0,
                    1 => 0.0,
                    2 => f64::NAN,
                    3 => f64::INFINITY,
                    4 => -(((i * 7919) % 1000) as f64),
                    _ => ((i * 2_654_435_761) % 1_000_003) as f64 * 1e-3,
                })
                .collect(),
            (0..n).map(|i| 1000.0 + (i % 977) as f64 * 1e-9).collect(),
            (0..n)
                .map(|i| f64::from_bits(0x4000_0000_0000_0000 | ((i * 40_503) % 65_536)))
                .collect(),
        ];
        for v in inputs {
            let mut s = v.clone();
            s.sort_by(f64::total_cmp);
            let ranks = [1, 2, 25_000, 25_001, 47_500, 49_500, 50_000];
            let mut w = v.clone();
            let got = at_ranks(&mut w, &ranks);
            let want: Vec<f64> = ranks.iter().map(|&r| s[r - 1]).collect();
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want));
        }
    }
}
