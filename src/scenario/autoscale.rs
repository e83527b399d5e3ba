//! Validation of an elastic pool's `[pools.autoscale]` table, and the rule that its release
//! blocks follow the pool's bill unless the table says otherwise.

use super::problems::Problems;
use super::raw::{RawAutoscale, RawPool, RawStock};
use crate::engine::SimTime;
use crate::model::CapacityKind;
use crate::pricing::{PoolPricing, PricingModel};
use crate::sched::Autoscale;

/// An elastic pool's autoscaler from its `[pools.autoscale]` table (`p` is the pool's
/// path, `nodes` its maximum).
pub(super) fn autoscale(
    c: &mut Problems,
    p: &str,
    a: &RawAutoscale,
    rp: &RawPool,
    nodes: u32,
) -> Autoscale {
    let d = Autoscale::default();
    let at = format!("{p}.autoscale");
    if !matches!(rp.kind, CapacityKind::OnDemand | CapacityKind::Spot) {
        c.err(
            format!("{p}.kind"),
            format!(
                "only on_demand and spot pools can autoscale, not {}",
                rp.kind
            ),
        );
    }
    let min = a.min_nodes.unwrap_or(0);
    if min < 0 || min > nodes as i64 {
        c.err(
            format!("{at}.min_nodes"),
            format!("must be between 0 and the pool's nodes ({nodes}), got {min}"),
        );
    }
    let mut dur = |field: &str, v: &Option<String>, default: SimTime| match v {
        Some(text) => c
            .duration(&format!("{at}.{field}"), text)
            .unwrap_or(default),
        None => default,
    };
    let provisioning_delay = dur(
        "provisioning_delay",
        &a.provisioning_delay,
        d.provisioning_delay,
    );
    let idle_timeout = dur("idle_timeout", &a.idle_timeout, d.idle_timeout);
    let billing_increment = dur(
        "billing_increment",
        &a.billing_increment,
        d.billing_increment,
    );
    let billing_minimum = dur("billing_minimum", &a.billing_minimum, d.billing_minimum);
    let scale_up_after = dur("scale_up_after", &a.scale_up_after, d.scale_up_after);
    if billing_increment == SimTime::ZERO {
        c.err(
            format!("{at}.billing_increment"),
            "must be longer than zero",
        );
    }
    Autoscale {
        min_nodes: min.clamp(0, nodes as i64) as u32,
        provisioning_delay,
        idle_timeout,
        billing_increment,
        billing_minimum,
        scale_up_after,
        availability: availability(c, &at, &a.availability),
    }
}

/// The stock of nodes to rent over time: `(from, nodes)` at increasing times.
fn availability(c: &mut Problems, at: &str, steps: &[RawStock]) -> Vec<(SimTime, u32)> {
    let mut out: Vec<(SimTime, u32)> = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        let t = c.duration(&format!("{at}.availability[{i}].at"), &s.at);
        if s.nodes < 0 {
            c.err(
                format!("{at}.availability[{i}].nodes"),
                format!("must be zero or more, got {}", s.nodes),
            );
        }
        if let Some(t) = t {
            if out.last().is_some_and(|&(prev, _)| prev >= t) {
                c.err(format!("{at}.availability[{i}].at"), "times must increase");
            }
            out.push((t, s.nodes.clamp(0, u32::MAX as i64) as u32));
        }
    }
    out
}

/// An elastic pool's release rule follows its bill: unless the autoscale table says
/// otherwise, billing blocks and minimum come from the pool's pricing. Runs once the
/// pricing is valid.
pub(super) fn inherit_billing(
    autoscale: &mut [Option<Autoscale>],
    pricing: &[PoolPricing],
    raw: &[RawPool],
) {
    for ((a, pricing), rp) in autoscale.iter_mut().zip(pricing).zip(raw) {
        let (Some(a), Some(ra)) = (a.as_mut(), rp.autoscale.as_ref()) else {
            continue;
        };
        let Some(billing) = pricing.interval_billing() else {
            continue;
        };
        if ra.billing_increment.is_none() {
            a.billing_increment = billing.granularity.max(SimTime(1));
        }
        if ra.billing_minimum.is_none() {
            a.billing_minimum = billing.minimum;
        }
    }
}
