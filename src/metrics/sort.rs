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
    // (More ranks than a bucket slot can name go by comparison: no caller asks for them.)
    if v.len() >= RADIX_FROM && ranks.len() < usize::from(u8::MAX) {
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
///
/// Both passes are written for inputs full of ties (half the waits are 0, most slowdowns
/// 1): the histogram counts even and odd positions apart (a run of equal keys would
/// otherwise increment one counter back to back, each increment waiting on the last),
/// and the gathering writes every key without a branch (a key outside the target buckets
/// goes to a scratch cell), since whether a key belongs is as unpredictable as the data.
fn radix_ranks(v: &[f64], ranks: &[usize]) -> Vec<f64> {
    const BUCKETS: usize = 1 << 16;
    let mut counts = vec![0u32; 2 * BUCKETS];
    let (hist, odd) = counts.split_at_mut(BUCKETS);
    let mut pairs = v.chunks_exact(2);
    for p in &mut pairs {
        hist[(key(p[0]) >> 48) as usize] += 1;
        odd[(key(p[1]) >> 48) as usize] += 1;
    }
    for &x in pairs.remainder() {
        hist[(key(x) >> 48) as usize] += 1;
    }
    for (h, o) in hist.iter_mut().zip(odd.iter()) {
        *h += *o;
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
    // Slot s >= 1 holds the members of `buckets[s - 1]` from `first[s]` in `flat`; slot 0,
    // every other bucket's, is the one scratch cell at index 0.
    let mut slot = vec![0u8; BUCKETS];
    let mut first = vec![0usize; buckets.len() + 1];
    let mut end = 1;
    for (i, &b) in buckets.iter().enumerate() {
        slot[b] = (i + 1) as u8;
        first[i + 1] = end;
        end += hist[b] as usize;
    }
    let mut flat = vec![0u64; end];
    let mut next = first.clone();
    for &x in v {
        let k = key(x);
        let s = usize::from(slot[(k >> 48) as usize]);
        flat[next[s]] = k;
        next[s] += usize::from(s != 0);
    }
    targets
        .iter()
        .map(|&(b, k)| {
            let s = buckets.iter().position(|&t| t == b).unwrap_or(0) + 1;
            let members = &mut flat[first[s]..next[s]];
            // A bucket of ties (every wait 0, every slowdown 1) needs no selection.
            let (lo, hi) = members
                .iter()
                .fold((u64::MAX, 0), |(lo, hi), &m| (lo.min(m), hi.max(m)));
            if lo == hi {
                return unkey(lo);
            }
            let (_, x, _) = members.select_nth_unstable(k);
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
