//! GPU types, capacity kinds and sets of GPU types.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A GPU model: what a node of a pool carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuType {
    /// Name used in scenarios and traces ("H100", "V100M32").
    pub name: String,
    /// Memory per GPU in GB.
    pub memory_gb: f64,
    /// Throughput relative to the reference GPU (1.0): a job's work of one hour takes
    /// `1 / speed` hours on this type.
    pub speed: f64,
    /// Power draw per GPU at full load, in watts.
    pub power_w: f64,
}

/// How a pool's capacity is obtained, which decides how it is paid for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CapacityKind {
    /// Bought hardware: paid whether used or not.
    Owned,
    /// Reserved or committed capacity: paid for the term, used or not.
    Reserved,
    /// Rented on demand, billed while held.
    OnDemand,
    /// Spot capacity: cheap, can be taken away.
    Spot,
}

impl CapacityKind {
    /// The scenario-file spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            CapacityKind::Owned => "owned",
            CapacityKind::Reserved => "reserved",
            CapacityKind::OnDemand => "on_demand",
            CapacityKind::Spot => "spot",
        }
    }
}

impl fmt::Display for CapacityKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of GPU types as a bit mask over a type table (at most 64 types).
///
/// `TypeMask::ANY` is the unconstrained job; a trace's `A|B` becomes two bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct TypeMask(pub u64);

impl TypeMask {
    /// Every type allowed.
    pub const ANY: TypeMask = TypeMask(u64::MAX);
    /// Only type `i`.
    pub fn single(i: usize) -> TypeMask {
        TypeMask(1u64 << i)
    }
    /// True when type `i` is allowed.
    pub fn allows(self, i: usize) -> bool {
        i < 64 && self.0 & (1u64 << i) != 0
    }
    /// True when any type is allowed.
    pub fn is_any(self) -> bool {
        self == TypeMask::ANY
    }
}
