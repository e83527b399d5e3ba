//! A mergeable quantile sketch with a relative-error guarantee (the DDSketch idea:
//! Masson, Rim and Lee, "DDSketch: A Fast and Fully-Mergeable Quantile Sketch with
//! Relative-Error Guarantees", VLDB 2019), kept per run so sweeps and comparisons can
//! pool distributions across seeds and draw their CDFs without keeping every job.
//!
//! Values are non-negative (seconds, ratios). With gamma = (1 + alpha) / (1 - alpha),
//! a value x >= `MIN_POSITIVE` falls in bucket i = ceil(log_gamma x), which covers
//! (gamma^(i-1), gamma^i] and stands for 2 gamma^i / (gamma + 1); smaller values count as
//! zero (times are kept to the millisecond, so nothing real is lost below 1e-3).
//!
//! **Error bound**: for every q, [`QuantileSketch::quantile`] returns a value within a
//! relative `alpha` of the exact nearest-rank q-quantile of the values added (the smallest
//! value with at least q of them at or below it): |x^ - x_q| <= alpha x_q (0 stays 0).
//! Merging adds bucket counts, so a merged sketch answers for the pooled values with the
//! same bound, and the result does not depend on the order of merges. The mean is exact
//! (a running sum). Size: one count per occupied bucket; at alpha = 1 %, values from 1 ms
//! to 10 years occupy at most about 1,000 buckets.

use super::jobs::JobTable;

/// Values below this count as zero.
pub const MIN_POSITIVE: f64 = 1e-3;

/// The default relative accuracy: 1 %.
pub const DEFAULT_ALPHA: f64 = 0.01;

/// The distributions kept per run, by their `summary.json` names.
pub const DISTRIBUTIONS: [&str; 4] = [
    "wait_all_s",
    "queue_delay_all_s",
    "jct_all_s",
    "bounded_slowdown_all",
];

/// A quantile sketch of non-negative values.
#[derive(Debug, Clone, PartialEq)]
pub struct QuantileSketch {
    alpha: f64,
    ln_gamma: f64,
    zeros: u64,
    /// Bucket index of `counts[0]`.
    offset: i32,
    /// Counts of buckets `offset`, `offset + 1`, ...; first and last non-zero (canonical).
    counts: Vec<u64>,
    count: u64,
    censored: u64,
    sum: f64,
}

/// A sketch's text that cannot be read back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad quantile sketch: {0}")]
pub struct SketchError(pub String);

impl Default for QuantileSketch {
    fn default() -> Self {
        QuantileSketch::new(DEFAULT_ALPHA)
    }
}

impl QuantileSketch {
    /// An empty sketch of relative accuracy `alpha` (clamped to 1e-4..=0.5).
    pub fn new(alpha: f64) -> QuantileSketch {
        let alpha = if alpha.is_finite() {
            alpha.clamp(1e-4, 0.5)
        } else {
            DEFAULT_ALPHA
        };
        QuantileSketch {
            alpha,
            ln_gamma: ((1.0 + alpha) / (1.0 - alpha)).ln(),
            zeros: 0,
            offset: 0,
            counts: Vec::new(),
            count: 0,
            censored: 0,
            sum: 0.0,
        }
    }

    /// The relative accuracy.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Values added.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Of which marked censored (lower bounds).
    pub fn censored(&self) -> u64 {
        self.censored
    }

    /// Exact mean of the values added (0 when empty).
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum / self.count as f64
        }
    }

    /// Occupied buckets (besides the zero count).
    pub fn buckets(&self) -> usize {
        self.counts.iter().filter(|&&c| c > 0).count()
    }

    /// Occupied buckets as `(index, count)`, in increasing index.
    fn occupied(&self) -> impl Iterator<Item = (i32, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(k, &c)| (self.offset + k as i32, c))
    }

    /// Adds `n` to bucket `i`, growing the range as needed.
    fn bump(&mut self, i: i32, n: u64) {
        if self.counts.is_empty() {
            self.offset = i;
            self.counts.push(0);
        } else if i < self.offset {
            let grow = (self.offset - i) as usize;
            self.counts.splice(0..0, std::iter::repeat_n(0, grow));
            self.offset = i;
        } else if (i - self.offset) as usize >= self.counts.len() {
            self.counts.resize((i - self.offset) as usize + 1, 0);
        }
        self.counts[(i - self.offset) as usize] += n;
    }

    fn index(&self, x: f64) -> i32 {
        (x.ln() / self.ln_gamma).ceil() as i32
    }

    fn value_of(&self, i: i32) -> f64 {
        let gamma = self.ln_gamma.exp();
        2.0 * (i as f64 * self.ln_gamma).exp() / (gamma + 1.0)
    }

    /// Adds `x` (negative and NaN values count as zero), `censored` if it is a lower bound.
    pub fn add(&mut self, x: f64, censored: bool) {
        self.count += 1;
        self.censored += censored as u64;
        if x.is_nan() || x < MIN_POSITIVE {
            self.zeros += 1;
            self.sum += x.max(0.0);
            return;
        }
        self.sum += x;
        let x = x.min(f64::MAX / 4.0);
        self.bump(self.index(x), 1);
    }

    /// Adds every value of `other` (which must have the same accuracy; otherwise its buckets
    /// are re-read at their representative values, which widens the bound to both alphas).
    pub fn merge(&mut self, other: &QuantileSketch) {
        self.count += other.count;
        self.censored += other.censored;
        self.zeros += other.zeros;
        self.sum += other.sum;
        let same = other.alpha == self.alpha;
        for (i, n) in other.occupied() {
            let k = if same {
                i
            } else {
                self.index(other.value_of(i))
            };
            self.bump(k, n);
        }
    }

    /// The nearest-rank `q`-quantile (q in 0..=1), within a relative alpha; 0 when empty.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).clamp(1, self.count);
        if rank <= self.zeros {
            return 0.0;
        }
        let mut seen = self.zeros;
        let mut last = 0.0;
        for (i, n) in self.occupied() {
            seen += n;
            last = self.value_of(i);
            if seen >= rank {
                return last;
            }
        }
        last
    }

    /// The empirical CDF as `(value, share of values at or below)` steps, one per occupied
    /// bucket (and one for the zeros), in increasing value.
    pub fn cdf(&self) -> Vec<(f64, f64)> {
        let n = self.count.max(1) as f64;
        let mut out = Vec::with_capacity(self.counts.len() + 1);
        let mut seen = self.zeros;
        if self.zeros > 0 {
            out.push((0.0, seen as f64 / n));
        }
        for (i, c) in self.occupied() {
            seen += c;
            out.push((self.value_of(i), seen as f64 / n));
        }
        out
    }

    /// A compact text form: `alpha count censored zeros sum` then `index:count` pairs with
    /// each index given as the difference to the previous one.
    pub fn encode(&self) -> String {
        let mut s = format!(
            "{} {} {} {} {:e}",
            self.alpha, self.count, self.censored, self.zeros, self.sum
        );
        let mut prev = 0i32;
        for (i, n) in self.occupied() {
            s.push_str(&format!(" {}:{n}", i - prev));
            prev = i;
        }
        s
    }

    /// Reads [`QuantileSketch::encode`]'s text back.
    pub fn decode(text: &str) -> Result<QuantileSketch, SketchError> {
        let bad = |what: &str| SketchError(format!("{what} in `{}`", short(text)));
        let mut it = text.split_ascii_whitespace();
        let mut num = |what: &str| it.next().ok_or_else(|| bad(what)).map(str::to_string);
        let alpha: f64 = num("alpha")?.parse().map_err(|_| bad("alpha"))?;
        if !(1e-4..=0.5).contains(&alpha) {
            return Err(bad("alpha out of range"));
        }
        let mut s = QuantileSketch::new(alpha);
        s.count = num("count")?.parse().map_err(|_| bad("count"))?;
        s.censored = num("censored")?.parse().map_err(|_| bad("censored"))?;
        s.zeros = num("zeros")?.parse().map_err(|_| bad("zeros"))?;
        s.sum = num("sum")?.parse().map_err(|_| bad("sum"))?;
        let mut prev = 0i64;
        let mut total = s.zeros;
        for pair in it {
            let (d, n) = pair.split_once(':').ok_or_else(|| bad("bucket"))?;
            let d: i64 = d.parse().map_err(|_| bad("bucket index"))?;
            let n: u64 = n.parse().map_err(|_| bad("bucket count"))?;
            prev += d;
            let i = i32::try_from(prev)
                .ok()
                .filter(|i| i.abs() < 1_000_000)
                .ok_or_else(|| bad("bucket index"))?;
            if n > 0 {
                s.bump(i, n);
            }
            total = total.saturating_add(n);
        }
        if total != s.count || s.censored > s.count {
            return Err(bad("counts do not add up"));
        }
        Ok(s)
    }
}

fn short(t: &str) -> String {
    t.chars().take(40).collect()
}

/// A run's distributions as sketches, in the order of [`DISTRIBUTIONS`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunSketches {
    /// `(name, sketch)` pairs.
    pub sketches: Vec<(String, QuantileSketch)>,
}

impl RunSketches {
    /// Sketches of every eligible job's wait, queueing delay, JCT and bounded slowdown
    /// (censored values marked), at the default accuracy.
    pub fn of(table: &JobTable) -> RunSketches {
        let mut s: Vec<QuantileSketch> = (0..DISTRIBUTIONS.len())
            .map(|_| QuantileSketch::default())
            .collect();
        for f in &table.jobs {
            for (k, v) in [f.wait(), f.queue_delay(), f.jct(), f.bounded()]
                .into_iter()
                .enumerate()
            {
                s[k].add(v.0, v.1);
            }
        }
        RunSketches {
            sketches: DISTRIBUTIONS.iter().map(|n| n.to_string()).zip(s).collect(),
        }
    }

    /// The sketch of distribution `name`.
    pub fn get(&self, name: &str) -> Option<&QuantileSketch> {
        self.sketches.iter().find(|s| s.0 == name).map(|s| &s.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: for many quantiles of a skewed sample, the sketch's answer is within
    /// alpha of the exact nearest-rank quantile, and merging two halves answers as one.
    #[test]
    fn within_alpha_of_exact_nearest_rank() {
        let mut v: Vec<f64> = (0..5000)
            .map(|i| {
                let u = ((i * 7919) % 5000) as f64 / 5000.0;
                if i % 10 == 0 {
                    0.0
                } else {
                    (u * 14.0).exp() * 1e-3
                }
            })
            .collect();
        let mut a = QuantileSketch::default();
        let mut b = QuantileSketch::default();
        for (i, &x) in v.iter().enumerate() {
            if i % 2 == 0 {
                a.add(x, false)
            } else {
                b.add(x, i % 3 == 0)
            }
        }
        let mut ab = a.clone();
        ab.merge(&b);
        let mut ba = b.clone();
        ba.merge(&a);
        assert_eq!(ab, ba);
        v.sort_by(f64::total_cmp);
        let n = v.len();
        for k in 0..=100 {
            let q = k as f64 / 100.0;
            let exact = v[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
            let got = ab.quantile(q);
            assert!(
                (got - exact).abs() <= 0.01 * exact + 1e-12,
                "q {q}: {got} vs {exact}"
            );
        }
        let back = QuantileSketch::decode(&ab.encode()).unwrap();
        assert_eq!(back.encode(), ab.encode());
        assert_eq!(back.quantile(0.95), ab.quantile(0.95));
        assert!(QuantileSketch::decode("0.01 3 0 1 1e0 5:1").is_err());
    }
}
