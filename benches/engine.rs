//! Raw engine throughput, hold model: each popped event schedules one new event at a
//! random later time, so the number of pending events stays constant (1k and 100k).
//!
//! Run: `cargo bench --bench engine`. Target: at least 10 million events/s with 1k pending.

use gpufleet::engine::{EventQueue, RngStreams, SimTime};
use rand::Rng;
use std::time::Instant;

#[derive(Clone, Copy)]
enum Ev {
    Tick(u32),
}

fn hold(pending: usize, events: u64) -> f64 {
    let mut rng = RngStreams::new(1).stream("bench");
    let mut q: EventQueue<Ev> = EventQueue::with_capacity(pending);
    for i in 0..pending {
        q.schedule(SimTime(rng.random_range(0..1_000_000)), Ev::Tick(i as u32));
    }
    let t0 = Instant::now();
    let mut sum = 0u64;
    for _ in 0..events {
        let s = q.pop().expect("hold model never empties");
        let Ev::Tick(i) = s.event;
        sum = sum.wrapping_add(i as u64);
        q.schedule(
            s.time.plus(SimTime(rng.random_range(1..1_000_000))),
            Ev::Tick(i),
        );
    }
    let dt = t0.elapsed().as_secs_f64();
    std::hint::black_box(sum);
    events as f64 / dt
}

fn main() {
    for (pending, events) in [(1_000usize, 20_000_000u64), (100_000, 10_000_000)] {
        let best = (0..3).map(|_| hold(pending, events)).fold(0.0, f64::max);
        println!(
            "engine hold model, {pending:>7} pending: {:>6.1} M events/s (best of 3)",
            best / 1e6
        );
    }
}
