//! Spot interruptions: when the provider takes spot capacity back, with notice.
//!
//! Per-node models (a Poisson hazard, from an AWS Spot Instance Advisor bucket or given;
//! the GCP preemptible bathtub lifetime) interrupt one instance at a time; it is replaced
//! after `replace_after`. Pool-wide models (correlated zone on/off spells; an availability
//! trace) take every node of the pool at once, and nothing can be had until the zone is
//! back (a stock-out). At notice, a job writes a checkpoint if the notice is at least its
//! checkpoint write time (it then loses nothing), else it loses the work since its last
//! checkpoint; either way it stops and requeues, and the scheduler's pool choice decides
//! where it runs next.

use crate::engine::{SimRng, SimTime};
use crate::pricing::{AvailabilityTrace, Bathtub, PoissonHazard, ZoneOnOff};

/// How spot capacity is taken away.
#[derive(Debug, Clone, PartialEq)]
pub enum SpotModel {
    /// Each instance is interrupted at a constant rate.
    Poisson(PoissonHazard),
    /// Each instance lives a GCP-preemptible lifetime (at most 24 h).
    Bathtub(Bathtub),
    /// The whole pool goes away and comes back at once (exponential spells).
    Zone(ZoneOnOff),
    /// The whole pool follows an availability trace (down while the trace says 0),
    /// starting at the trace's first tick; after its last tick the last state holds.
    Trace(AvailabilityTrace),
}

/// Spot interruptions of one pool.
#[derive(Debug, Clone, PartialEq)]
pub struct SpotInterruptions {
    /// Pool index.
    pub pool: usize,
    /// The model.
    pub model: SpotModel,
    /// Notice before the capacity goes (AWS 2 min; GCP and Azure 30 s).
    pub notice: SimTime,
    /// Time to get a replacement instance after a per-node interruption.
    pub replace_after: SimTime,
}

impl SpotInterruptions {
    /// Time from an instance's start to its next interruption (per-node models only).
    pub fn next_gap(&self, rng: &mut SimRng) -> Option<SimTime> {
        match &self.model {
            SpotModel::Poisson(h) => Some(h.next(rng)).filter(|t| *t != SimTime::NEVER),
            SpotModel::Bathtub(b) => Some(b.sample(rng).max(SimTime(1))),
            SpotModel::Zone(_) | SpotModel::Trace(_) => None,
        }
    }

    /// The down spells `[start, end)` of a trace model, in simulated time.
    pub fn trace_outages(&self) -> Vec<(SimTime, SimTime)> {
        let SpotModel::Trace(tr) = &self.model else {
            return Vec::new();
        };
        let Some(&t0) = tr.epoch_s.first() else {
            return Vec::new();
        };
        let at = |k: usize| SimTime::from_secs((tr.epoch_s[k] - t0).max(0) as u64);
        let mut out = Vec::new();
        let mut down_since: Option<SimTime> = None;
        for k in 0..tr.len() {
            match (tr.up(k), down_since) {
                (false, None) => down_since = Some(at(k)),
                (true, Some(s)) => {
                    out.push((s, at(k)));
                    down_since = None;
                }
                _ => {}
            }
        }
        if let Some(s) = down_since {
            out.push((s, SimTime::NEVER));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_outages_are_the_zero_runs() {
        // Ticks every 100 s: 1 1 0 0 1 0 -> down [200, 400) and [500, never).
        let tr = AvailabilityTrace {
            epoch_s: (0..6).map(|k| 1_000 + 100 * k).collect(),
            available: vec![1.0, 1.0, 0.0, 0.0, 1.0, 0.0],
        };
        let s = SpotInterruptions {
            pool: 0,
            model: SpotModel::Trace(tr),
            notice: SimTime::ZERO,
            replace_after: SimTime::ZERO,
        };
        assert_eq!(
            s.trace_outages(),
            vec![
                (SimTime::from_secs(200), SimTime::from_secs(400)),
                (SimTime::from_secs(500), SimTime::NEVER)
            ]
        );
    }
}
