//! Economics: billing, reservations, savings plans, ownership, spot traces and interruption
//! models, the spot deadline policies, the ledger, scenarios with prices, and `gpufleet tco`.
//! Expected values come from hand calculation, the formulas in the shared ECONOMICS.md,
//! awk over the shared data files, or brute force; never from the code under test.
mod attribution;
mod bill_by_hand;
mod commitments;
mod models;
mod scenarios;
mod spot;
mod tco;

use crate::common::*;
use assert_cmd::Command;
use gpufleet::pricing::OwnedHardware;
use std::path::PathBuf;

fn bin() -> Command {
    Command::cargo_bin("gpufleet").unwrap()
}

/// A file of the repository's data folder (copies of the team's shared data, with their
/// provenance in `data/README.md`), so the tests need nothing beside the checkout.
fn data(rel: &str) -> PathBuf {
    root().join("data").join(rel)
}

/// Relative closeness.
fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

/// Owned hardware with round figures for hand calculation.
pub(super) fn simple_owned() -> OwnedHardware {
    OwnedHardware {
        capex_per_node: 87_600.0,
        residual_per_node: 0.0,
        life_years: 1.0,
        cost_of_capital: 0.0,
        idle_kw_per_node: 2.0,
        full_kw_per_node: 10.0,
        pue: 1.5,
        usd_per_kwh: 0.10,
        colo_usd_per_kw_month: 100.0,
        staff_usd_per_year: 87_600.0,
        maintenance_share_per_year: 0.0,
        lead_time_days: 0.0,
    }
}
