//! Checkpoint and restart arithmetic for one run segment of a job.
//!
//! A segment starts (after a restart overhead `u`, if it is a restart) from the job's last
//! checkpoint and alternates compute chunks of `T` work with checkpoint writes of `w` wall
//! time: `[u][T/s compute][w write][T/s compute][w write]...[last chunk]` (no write after
//! the last chunk; `s` is the GPU speed). Killed mid-way, the job keeps the work of its last
//! *completed* write; compute after it is lost, a write in progress counts as checkpoint time.

use crate::engine::SimTime;

/// Kills after which a job gives up when `[checkpoint]` says nothing: finite, so a run
/// with failures always ends (a job is killed at most this many times, then fails).
pub const DEFAULT_MAX_RETRIES: u32 = 10_000;

/// How the checkpoint interval is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CheckpointPolicy {
    /// No checkpoints: a killed job restarts from zero.
    None,
    /// Every `interval` of work (reference GPU time).
    Fixed(SimTime),
    /// Young (1974): tau = sqrt(2 delta M), delta = write time, M = the job's mean time
    /// between failures.
    Young,
    /// Daly (2006), first-order form: tau = sqrt(2 delta M) - delta.
    Daly,
}

/// Checkpoint/restart settings for jobs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Checkpointing {
    /// Interval policy.
    pub policy: CheckpointPolicy,
    /// Wall time the job pauses to write a checkpoint.
    pub write: SimTime,
    /// Wall time to restart after a kill (reload, re-initialise).
    pub restart: SimTime,
    /// Kills after which the job gives up (fails); [`DEFAULT_MAX_RETRIES`] by default.
    pub max_retries: u32,
    /// Checkpoint size in GB (for migration transfer time and cost).
    pub size_gb: f64,
}

impl Default for Checkpointing {
    fn default() -> Self {
        Checkpointing {
            policy: CheckpointPolicy::None,
            write: SimTime::ZERO,
            restart: SimTime::ZERO,
            max_retries: DEFAULT_MAX_RETRIES,
            size_gb: 0.0,
        }
    }
}

impl Checkpointing {
    /// The checkpoint interval in wall compute time for a job whose failure rate is
    /// `rate_per_hour` (None: no checkpoints).
    pub fn interval_wall(&self, rate_per_hour: f64) -> Option<SimTime> {
        let delta_h = self.write.hours_f64();
        let tau_h = match self.policy {
            CheckpointPolicy::None => return None,
            CheckpointPolicy::Fixed(t) => return Some(t).filter(|t| t.0 > 0),
            CheckpointPolicy::Young | CheckpointPolicy::Daly if rate_per_hour <= 0.0 => {
                return None
            }
            CheckpointPolicy::Young => (2.0 * delta_h / rate_per_hour).sqrt(),
            CheckpointPolicy::Daly => (2.0 * delta_h / rate_per_hour).sqrt() - delta_h,
        };
        Some(SimTime::from_hours_f64(tau_h).max(SimTime(1000)))
    }
}

/// How a segment ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentEnd {
    /// The job's work completed.
    Completed,
    /// Killed at this elapsed wall time into the segment.
    Killed(SimTime),
}

/// Where a segment's wall time went, and the work it kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SegmentTimes {
    /// Wall time restarting.
    pub restart: SimTime,
    /// Wall time computing work that was kept.
    pub useful: SimTime,
    /// Wall time computing work that was lost (after the last completed checkpoint).
    pub lost: SimTime,
    /// Wall time writing checkpoints.
    pub checkpoint: SimTime,
    /// Work (reference GPU time) gained and kept.
    pub work_kept: SimTime,
}

/// One run segment of a job: what it has to do and how.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    /// Work still to do (reference GPU time).
    pub remaining: SimTime,
    /// Checkpoint interval in work (reference GPU time), if any.
    pub interval: Option<SimTime>,
    /// Checkpoint write time.
    pub write: SimTime,
    /// Restart overhead paid at the segment's start.
    pub restart: SimTime,
    /// GPU speed.
    pub speed: f64,
}

fn wall(work: u64, speed: f64) -> u64 {
    if speed == 1.0 {
        work
    } else {
        (work as f64 / speed).ceil() as u64
    }
}

impl Segment {
    /// Number of checkpoint writes if the segment runs to completion.
    pub fn writes(&self) -> u64 {
        match self.interval {
            Some(t) if t.0 > 0 => self.remaining.0.div_ceil(t.0).saturating_sub(1),
            _ => 0,
        }
    }

    /// Wall time to complete the remaining work.
    pub fn duration(&self) -> SimTime {
        SimTime(self.restart.0 + wall(self.remaining.0, self.speed) + self.writes() * self.write.0)
    }

    /// Where the wall time went when the segment ends as `end`.
    pub fn account(&self, end: SegmentEnd) -> SegmentTimes {
        let elapsed = match end {
            SegmentEnd::Completed => {
                return SegmentTimes {
                    restart: self.restart,
                    useful: SimTime(wall(self.remaining.0, self.speed)),
                    lost: SimTime::ZERO,
                    checkpoint: SimTime(self.writes() * self.write.0),
                    work_kept: self.remaining,
                }
            }
            SegmentEnd::Killed(e) => e.0,
        };
        let restart = elapsed.min(self.restart.0);
        let e = elapsed - restart;
        let Some(t) = self.interval.filter(|t| t.0 > 0 && self.writes() > 0) else {
            return SegmentTimes {
                restart: SimTime(restart),
                lost: SimTime(e),
                ..Default::default()
            };
        };
        let c = wall(t.0, self.speed);
        let cycle = c + self.write.0;
        // Completed (compute + write) cycles, at most one per checkpoint the job takes.
        let k = (e / cycle).min(self.writes());
        let r = e - k * cycle;
        let (compute_tail, write_tail) = if k < self.writes() {
            (r.min(c), r.saturating_sub(c))
        } else {
            (r, 0)
        };
        SegmentTimes {
            restart: SimTime(restart),
            useful: SimTime(k * c),
            lost: SimTime(compute_tail),
            checkpoint: SimTime(k * self.write.0 + write_tail),
            work_kept: SimTime(k * t.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(
        remaining_min: u64,
        interval_min: Option<u64>,
        write_min: u64,
        restart_min: u64,
    ) -> Segment {
        Segment {
            remaining: SimTime::from_secs(remaining_min * 60),
            interval: interval_min.map(|m| SimTime::from_secs(m * 60)),
            write: SimTime::from_secs(write_min * 60),
            restart: SimTime::from_secs(restart_min * 60),
            speed: 1.0,
        }
    }
    const M: u64 = 60_000;

    #[test]
    fn duration_counts_writes_between_chunks() {
        // 100 min of work, checkpoint every 30: writes after 30, 60, 90 -> 3 writes of 2 min,
        // plus 5 min restart: 100 + 6 + 5 = 111 min.
        assert_eq!(seg(100, Some(30), 2, 5).duration(), SimTime(111 * M));
        // 90 min of work, every 30: writes after 30 and 60 only (none at the end).
        assert_eq!(seg(90, Some(30), 2, 0).duration(), SimTime(94 * M));
        assert_eq!(seg(90, None, 2, 0).duration(), SimTime(90 * M));
    }

    #[test]
    fn kill_keeps_work_to_last_completed_write() {
        let s = seg(100, Some(30), 2, 5);
        // Killed 70 min in: 5 restart, then 65 min of 32-min cycles (30 compute + 2 write):
        // two cycles complete (64 min, 60 min of work kept), 1 min of compute lost.
        let a = s.account(SegmentEnd::Killed(SimTime(70 * M)));
        assert_eq!(a.restart, SimTime(5 * M));
        assert_eq!(a.work_kept, SimTime(60 * M));
        assert_eq!(a.useful, SimTime(60 * M));
        assert_eq!(a.checkpoint, SimTime(4 * M));
        assert_eq!(a.lost, SimTime(M));
        // Killed during the second write (5 + 32 + 30 + 1 = 68): that write is wasted.
        let b = s.account(SegmentEnd::Killed(SimTime(68 * M)));
        assert_eq!(b.work_kept, SimTime(30 * M));
        assert_eq!(
            (b.useful, b.lost, b.checkpoint),
            (SimTime(30 * M), SimTime(30 * M), SimTime(3 * M))
        );
        // Killed during the restart: nothing gained.
        let c = s.account(SegmentEnd::Killed(SimTime(3 * M)));
        assert_eq!(
            (c.restart, c.work_kept, c.lost),
            (SimTime(3 * M), SimTime(0), SimTime(0))
        );
        // Without checkpoints everything computed is lost.
        let d = seg(100, None, 2, 0).account(SegmentEnd::Killed(SimTime(50 * M)));
        assert_eq!((d.lost, d.work_kept), (SimTime(50 * M), SimTime(0)));
    }

    #[test]
    fn times_add_up_to_elapsed() {
        let s = seg(1000, Some(37), 3, 7);
        for e in (0..1200).step_by(7) {
            let a = s.account(SegmentEnd::Killed(SimTime(e * M)));
            assert_eq!(
                a.restart.0 + a.useful.0 + a.lost.0 + a.checkpoint.0,
                e * M,
                "at {e}"
            );
        }
        let full = s.account(SegmentEnd::Completed);
        assert_eq!(
            full.restart.0 + full.useful.0 + full.lost.0 + full.checkpoint.0,
            s.duration().0
        );
    }

    #[test]
    fn young_and_daly_intervals() {
        // delta = 2 min, M = 10 h (rate 0.1/h): Young sqrt(2 * (1/30) * 10) h = 0.8165 h.
        let c = Checkpointing {
            policy: CheckpointPolicy::Young,
            write: SimTime::from_secs(120),
            ..Default::default()
        };
        let y = c.interval_wall(0.1).unwrap().hours_f64();
        assert!((y - (2.0f64 / 3.0).sqrt()).abs() < 1e-6, "{y}");
        let d = Checkpointing {
            policy: CheckpointPolicy::Daly,
            ..c
        }
        .interval_wall(0.1)
        .unwrap()
        .hours_f64();
        assert!(
            (d - ((2.0f64 / 3.0).sqrt() - 1.0 / 30.0)).abs() < 1e-6,
            "{d}"
        );
    }
}
