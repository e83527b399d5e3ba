//! Random-number streams: one per concern, each derived from `(master seed, stream name)`.
//!
//! Adding a component that draws random numbers never shifts the draws of the others,
//! because no two concerns share a generator.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The generator used everywhere: fast, small, and stable across crate versions.
pub type SimRng = Xoshiro256PlusPlus;

/// SplitMix64 finaliser: spreads a 64-bit value over all bits.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of stream `name` under master seed `seed` (FNV-1a of the name, mixed with the seed).
pub fn stream_seed(seed: u64, name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    mix(seed ^ mix(h))
}

/// Hands out independent generators by stream name.
#[derive(Debug, Clone, Copy)]
pub struct RngStreams {
    seed: u64,
}

impl RngStreams {
    /// Streams under one master seed.
    pub fn new(seed: u64) -> Self {
        RngStreams { seed }
    }
    /// The master seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// A fresh generator for the concern `name` ("arrivals", "durations", "failures", ...).
    pub fn stream(&self, name: &str) -> SimRng {
        SimRng::seed_from_u64(stream_seed(self.seed, name))
    }
    /// A fresh generator for the concern `name` of one component `key` (a pool's
    /// "failures" stream: `keyed("failures", "h100-spot")`, the stream "failures/h100-spot"),
    /// so that adding a component does not shift another's draws.
    pub fn keyed(&self, name: &str, key: &str) -> SimRng {
        self.stream(&format!("{name}/{key}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let s = RngStreams::new(7);
        let a1: u64 = s.stream("arrivals").random();
        let a2: u64 = s.stream("arrivals").random();
        let d: u64 = s.stream("durations").random();
        let other: u64 = RngStreams::new(8).stream("arrivals").random();
        assert_eq!(a1, a2);
        assert_ne!(a1, d);
        assert_ne!(a1, other);
        let k: u64 = s.keyed("failures", "a").random();
        let k2: u64 = s.stream("failures/a").random();
        assert_eq!(k, k2);
        assert_ne!(k, s.keyed("failures", "b").random::<u64>());
    }
}
