//! Validation of `[[gpu_types]]` and of the GPU type a pool names: defined in the file, or
//! one of the built-in types.

use super::problems::Problems;
use super::raw::RawGpuType;
use crate::model::GpuType;

/// At most this many GPU types (a job's allowed types are a 64-bit mask).
const MAX_GPU_TYPES: usize = 64;

/// Known GPU types, so that a scenario may name one without describing it. Figures from
/// the vendors' data sheets (memory, board power); speed is relative to the H100 SXM at
/// 1.0 and is only a coarse default: override it for your workload.
fn builtin_gpu(name: &str) -> Option<GpuType> {
    let (mem, speed, power) = match name {
        "H100" => (80.0, 1.0, 700.0),
        "H200" => (141.0, 1.2, 700.0),
        "A100" => (80.0, 0.4, 400.0),
        "V100" => (32.0, 0.15, 300.0),
        "A10" => (24.0, 0.12, 150.0),
        "T4" => (16.0, 0.05, 70.0),
        "L4" => (24.0, 0.1, 72.0),
        _ => return None,
    };
    Some(GpuType {
        name: name.to_string(),
        memory_gb: mem,
        speed,
        power_w: power,
    })
}

/// Validates `[[gpu_types]]`: unique names; figures not given come from the built-in
/// type of the same name (or speed 1, no memory, no power).
pub(super) fn gpu_types(c: &mut Problems, raw: &[RawGpuType]) -> Vec<GpuType> {
    let mut out: Vec<GpuType> = Vec::new();
    for (i, g) in raw.iter().enumerate() {
        let p = format!("gpu_types[{i}]");
        if out.iter().any(|t| t.name == g.name) {
            c.err(
                format!("{p}.name"),
                format!("GPU type {:?} is defined twice", g.name),
            );
        }
        let base = builtin_gpu(&g.name);
        let from_base = |f: fn(&GpuType) -> f64| base.as_ref().map(f);
        let speed = c.speed(
            &format!("{p}.speed"),
            g.speed.or(from_base(|b| b.speed)).unwrap_or(1.0),
        );
        let memory_gb = c.nonneg(
            &format!("{p}.memory_gb"),
            g.memory_gb.or(from_base(|b| b.memory_gb)).unwrap_or(0.0),
        );
        let power_w = c.nonneg(
            &format!("{p}.power_w"),
            g.power_w.or(from_base(|b| b.power_w)).unwrap_or(0.0),
        );
        out.push(GpuType {
            name: g.name.clone(),
            memory_gb,
            speed,
            power_w,
        });
    }
    out
}

/// The index of the GPU type `name` that pool field `path` names: a defined type, else a
/// built-in one (added to `types`), else a problem (and index 0).
pub(super) fn resolve(c: &mut Problems, types: &mut Vec<GpuType>, path: &str, name: &str) -> usize {
    if let Some(t) = types.iter().position(|t| t.name == name) {
        return t;
    }
    match builtin_gpu(name) {
        Some(g) => {
            types.push(g);
            types.len() - 1
        }
        None => {
            c.err(
                path,
                format!("unknown GPU type {name:?}: define it under [[gpu_types]] (built in: H100, H200, A100, V100, A10, T4, L4)"),
            );
            0
        }
    }
}

/// The type count must fit a job's type mask.
pub(super) fn check_count(c: &mut Problems, types: &[GpuType]) {
    if types.len() > MAX_GPU_TYPES {
        c.err("gpu_types", format!("at most {MAX_GPU_TYPES} GPU types"));
    }
}
