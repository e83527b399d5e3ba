//! gpufleet's integration tests: one test binary (fast to link), one module per topic,
//! fixtures in `tests/data/`.

mod censoring;
mod cli;
mod cloud_data;
mod cloud_fabric;
mod cloud_speeds;
mod common;
mod compare;
mod economics;
mod faults;
mod fgd_artifact;
mod foundation;
mod fuzz;
mod helios_model;
mod hostile;
mod layers;
mod parquet;
mod placement;
mod plan;
mod pools_oracle;
mod research_metrics;
mod scheduling;
mod scheduling_oracle;
mod streamed_rows;
mod sweep;
mod sweep_distributions;
mod workload;
