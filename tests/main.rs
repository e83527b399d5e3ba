//! gpufleet's integration tests: one test binary (fast to link), one module per topic,
//! fixtures in `tests/data/`.

mod censoring;
mod common;
mod economics;
mod faults;
mod foundation;
mod layers;
mod placement;
mod plan;
mod scheduling;
mod sweep;
mod workload;
