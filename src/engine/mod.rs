//! The simulation engine: simulated time, the event queue and per-concern RNG streams.
//!
//! Knows nothing of GPUs, money or files; `sim` builds the GPU simulation on top of it.

mod queue;
mod rng;
mod time;

pub use queue::{EventQueue, Scheduled};
pub use rng::{stream_seed, RngStreams, SimRng};
pub use time::{parse_duration, DurationError, SimTime, MS_PER_HOUR, MS_PER_SECOND};
