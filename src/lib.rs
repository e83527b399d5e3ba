//! gpufleet: a discrete-event simulator for GPU rental economics and GPU-cluster scheduling.
//!
//! Modules in layers, each using only the ones listed before it: [`engine`] (time, events,
//! random streams), [`model`] (GPUs, nodes, pools, jobs), [`pricing`] (prices and the cost
//! ledger), [`workload`] (trace readers and generators), [`sched`] (queue policies and
//! placement), [`sim`] (the simulation), [`metrics`] (summaries), [`scenario`] (scenario
//! files), [`sweep`] (parameter sweeps), [`report`] (output files and charts), [`cli`] (the command line).
#![warn(missing_docs)]

pub mod cli;
pub mod engine;
pub mod faults;
pub mod metrics;
pub mod model;
pub mod pricing;
pub mod report;
pub mod run;
pub mod scenario;
pub mod sched;
pub mod sim;
pub mod sweep;
pub mod workload;

/// The gpufleet version, written into every output.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
