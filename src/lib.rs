//! gpufleet: a discrete-event simulator for GPU rental economics and GPU-cluster scheduling.
//!
//! # The layers
//!
//! Modules in layers, each using only the ones listed before it ([`LAYERS`]; a test reads
//! every file under `src/` and fails on an import against this order):
//!
//! | module | owns |
//! |---|---|
//! | [`engine`] | simulated time, the event queue, random streams |
//! | [`model`] | GPU types, nodes, pools, the cluster's free capacity, jobs |
//! | [`pricing`] | pricing models behind one trait, the price catalog, the cost ledger, TCO |
//! | [`workload`] | trace readers (one file per format) and generators |
//! | [`sched`] | queue policies, placement policies, pool choice, autoscaler, budgets |
//! | [`faults`] | failure processes, spot interruptions, checkpoint/restart |
//! | [`sim`] | the simulation: a core loop (time, events, cluster) and its parts (accounting, progress, elastic pools, faults, jobs handed out as they end) |
//! | [`metrics`] | a run's summary and its bill (pricing applied to usage, attributed) |
//! | [`report`] | output files and charts (knows no scenario and no run loop) |
//! | [`scenario`] | scenario files: raw serde structs, a validation pipeline, the typed [`scenario::Scenario`] |
//! | [`run`] | one scenario + random streams -> one result -> one output folder: the only place a simulation is assembled |
//! | [`sweep`] | parameter sweeps: expansion, parallel runs (one built workload shared per seed, as `plan` and `compare` share it), durable records, shards, Slurm |
//! | [`compare`] | paired comparisons of policies or variants with common random numbers |
//! | [`plan`] | goal-seeking fleet search: the cheapest fleet meeting service targets |
//! | [`cli`] | the command line: parses, calls the library, prints |
//!
//! # Where to add things
//!
//! Each takes one new file and one registry line (plus its README row):
//! - a **queue policy**: `src/sched/<name>.rs` implementing [`sched::QueuePolicy`], and a
//!   line in the `queue_policies!` list of `src/sched/mod.rs`;
//! - a **placement**: `src/sched/placement/<name>.rs` implementing
//!   [`sched::placement::Placement`], and a line in the `placements!` list of
//!   `src/sched/placement/mod.rs`;
//! - a **trace format**: `src/workload/<format>.rs` (a reader implementing
//!   [`workload::TraceReader`]), and a line in the `trace_formats!` list of
//!   `src/workload/formats.rs`;
//! - a **pricing model**: `src/pricing/<model>.rs` implementing [`pricing::PricingModel`]
//!   (with its scenario table), and a line in the `pricing_models!` list of
//!   `src/pricing/pool_pricing.rs`;
//! - an **output column**: a field where the figure is computed (the job record in
//!   `src/sim/record.rs` or the summary in `src/metrics/summary.rs`), its column in
//!   `src/report/csv_columns.rs` and its typed twin in `src/report/columns.rs` (Parquet
//!   and Python; a test compares the two cell by cell), and its rows in `docs/outputs.md`
//!   (the CSV table and the Parquet schema table). `gpufleet run` formats a finished job's
//!   `jobs.csv` row while the simulation goes on (`src/report/streamed.rs`), from the job,
//!   its record and figures only: a column that reads what only the end of the run knows
//!   (bills, the run's end) goes next to `cost_usd` in that file's late columns
//!   (`tests/streamed_rows.rs` compares both paths byte for byte). It then writes
//!   `jobs.csv` and the other tables and charts while the summary is made
//!   (`run::execute_into`): no file but `summary.json` may read the summary.
#![warn(missing_docs)]

pub mod cli;
pub mod compare;
pub mod engine;
pub mod faults;
pub mod metrics;
pub mod model;
pub mod plan;
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

/// The modules in their layers, top first: a module may use only those before it.
pub const LAYERS: &[&str] = &[
    "engine", "model", "pricing", "workload", "sched", "faults", "sim", "metrics", "report",
    "scenario", "run", "sweep", "compare", "plan", "cli",
];
