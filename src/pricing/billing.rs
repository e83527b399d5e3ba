//! Billing granularity and minimum: how a held interval becomes billed time; and the
//! `billing = ...` key of the pricing tables that bill by held time.

use super::Problems;
use crate::engine::SimTime;
use serde::Deserialize;

/// How held time is rounded into billed time: up to a whole number of `granularity`
/// steps, and never less than `minimum`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Billing {
    /// Step of billing (1 s for per-second billing, 1 h for per-started-hour billing).
    pub granularity: SimTime,
    /// Least billed time of any interval (60 s on AWS and GCP).
    pub minimum: SimTime,
}

impl Billing {
    /// Per second with a 60 s minimum (AWS Linux on-demand/spot since 2017; GCP).
    pub const PER_SECOND_60S_MIN: Billing = Billing {
        granularity: SimTime(1_000),
        minimum: SimTime(60_000),
    };
    /// Per started hour (some GPU clouds).
    pub const PER_STARTED_HOUR: Billing = Billing {
        granularity: SimTime(3_600_000),
        minimum: SimTime(3_600_000),
    };
    /// Exact: every millisecond held is billed, no minimum (fixed pools, reservations).
    pub const EXACT: Billing = Billing {
        granularity: SimTime(1),
        minimum: SimTime(0),
    };

    /// The billed time for `held` time: `max(minimum, ceil(held / granularity) * granularity)`.
    pub fn billed(&self, held: SimTime) -> SimTime {
        let g = self.granularity.0.max(1);
        let steps = held.0.div_ceil(g);
        SimTime((steps * g).max(self.minimum.0))
    }

    /// Billed hours for `held` time.
    pub fn billed_hours(&self, held: SimTime) -> f64 {
        self.billed(held).hours_f64()
    }
}

impl Default for Billing {
    fn default() -> Self {
        Billing::PER_SECOND_60S_MIN
    }
}

/// `billing = ...` as written: a name (`per_second`, `per_hour`, `exact`) or an explicit
/// `{ granularity = "1s", minimum = "60s" }`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum BillingConfig {
    /// A named rule.
    Named(String),
    /// An explicit rule.
    Explicit {
        /// Step of billing.
        granularity: String,
        /// Least billed time (none if omitted).
        #[serde(default)]
        minimum: Option<String>,
    },
}

impl Billing {
    /// The rule `config` names (per second with a 60 s minimum if omitted); problems go
    /// under `field`.
    pub fn from_config(
        field: &str,
        config: Option<&BillingConfig>,
        problems: &mut dyn Problems,
    ) -> Billing {
        match config {
            None => Billing::PER_SECOND_60S_MIN,
            Some(BillingConfig::Named(n)) => match n.as_str() {
                "per_second" => Billing::PER_SECOND_60S_MIN,
                "per_hour" => Billing::PER_STARTED_HOUR,
                "exact" => Billing::EXACT,
                other => {
                    problems.err(
                        field,
                        format!("unknown billing {other:?}: per_second, per_hour, exact, or {{ granularity = \"1s\", minimum = \"60s\" }}"),
                    );
                    Billing::EXACT
                }
            },
            Some(BillingConfig::Explicit {
                granularity,
                minimum,
            }) => {
                let g = problems.duration(&format!("{field}.granularity"), granularity);
                if g == SimTime::ZERO {
                    problems.err(
                        &format!("{field}.granularity"),
                        "must be longer than zero".into(),
                    );
                }
                let m = minimum
                    .as_deref()
                    .map(|m| problems.duration(&format!("{field}.minimum"), m))
                    .unwrap_or(SimTime::ZERO);
                Billing {
                    granularity: g.max(SimTime(1)),
                    minimum: m,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_up_and_applies_minimum() {
        let b = Billing::PER_SECOND_60S_MIN;
        assert_eq!(b.billed(SimTime(10_000)), SimTime(60_000));
        assert_eq!(b.billed(SimTime(61_001)), SimTime(62_000));
        let h = Billing::PER_STARTED_HOUR;
        assert_eq!(h.billed(SimTime(3_600_001)), SimTime(7_200_000));
        assert_eq!(h.billed(SimTime(1)), SimTime(3_600_000));
        assert_eq!(Billing::EXACT.billed(SimTime(1234)), SimTime(1234));
    }
}
