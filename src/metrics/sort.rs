//! Nearest-rank percentiles by selection, not sorting: a summary takes a dozen of them over
//! a million jobs, and three selections (each into the part the previous one left above
//! it) cost a fraction of a sort.

/// The values of 1-based `ranks` (ascending, each in 1..=v.len()) in `total_cmp` order of
/// `v`; `v` is reordered.
pub(super) fn at_ranks(v: &mut [f64], ranks: &[usize]) -> Vec<f64> {
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
}
