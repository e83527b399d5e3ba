//! The progress bar of `gpufleet run`: shown on a terminal once a run has taken more than
//! a second, fed by the simulation's [`Watch`] (jobs arrived, simulated time), gone when
//! the run ends. Off the terminal, or with `-q`, nothing is drawn.

use crate::engine::SimTime;
use crate::sim::Watch;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a run goes before the bar appears.
const DELAY: Duration = Duration::from_secs(1);

struct Shared {
    watch: Arc<Watch>,
    done: AtomicBool,
}

/// A progress bar drawn by a thread of its own while the run goes on.
pub struct RunBar {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl RunBar {
    /// Starts watching; `horizon` (if the scenario has one) gives the time axis.
    pub fn start(horizon: Option<SimTime>) -> RunBar {
        let shared = Arc::new(Shared {
            watch: Arc::new(Watch::default()),
            done: AtomicBool::new(false),
        });
        let thread = std::io::stderr().is_terminal().then(|| {
            let s = Arc::clone(&shared);
            std::thread::spawn(move || draw(&s, horizon))
        });
        RunBar { shared, thread }
    }

    /// The watch the simulation publishes into.
    pub fn watch(&self) -> Arc<Watch> {
        Arc::clone(&self.shared.watch)
    }
}

impl Drop for RunBar {
    fn drop(&mut self) {
        self.shared.done.store(true, Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn draw(s: &Shared, horizon: Option<SimTime>) {
    let started = Instant::now();
    while started.elapsed() < DELAY {
        if s.done.load(Relaxed) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(10));
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} {elapsed_precise} [{bar:30}] {pos}/{len} jobs arrived, {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    while !s.done.load(Relaxed) {
        let jobs = s.watch.jobs.load(Relaxed);
        if jobs > 0 {
            bar.set_length(jobs);
            bar.set_position(s.watch.arrived.load(Relaxed).min(jobs));
        }
        let day = s.watch.now_ms.load(Relaxed) as f64 / 86_400_000.0;
        let phase = match s.watch.simulated.load(Relaxed) {
            true => "writing outputs",
            false => "simulating",
        };
        bar.set_message(match horizon {
            Some(h) => format!("day {day:.1} of {:.1}; {phase}", h.hours_f64() / 24.0),
            None => format!("day {day:.1}; {phase}"),
        });
        std::thread::sleep(Duration::from_millis(100));
    }
    bar.finish_and_clear();
}
