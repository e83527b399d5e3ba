//! The cost ledger: dollars keyed by (pool, tenant, kind). Every split adds up to the total
//! because each entry is counted once and totals are sums of entries.

use std::collections::BTreeMap;

/// The kind of a cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CostKind {
    /// Capacity held by running jobs.
    BusyCompute,
    /// Capacity paid for while no job held it.
    IdleCompute,
    /// The share of a reservation or commitment that no job used.
    UnusedCommitment,
    /// Spot capacity (busy and idle alike).
    Spot,
    /// Owned hardware's capital (annuity share).
    Capital,
    /// Electricity for owned hardware, including the facility overhead (PUE).
    Power,
    /// Colocation and maintenance of owned hardware.
    Facility,
    /// Operations staff for owned hardware.
    Staff,
    /// Data transfer (egress, cross-zone).
    Transfer,
}

impl CostKind {
    /// The spelling used in output files.
    pub fn as_str(self) -> &'static str {
        match self {
            CostKind::BusyCompute => "busy_compute",
            CostKind::IdleCompute => "idle_compute",
            CostKind::UnusedCommitment => "unused_commitment",
            CostKind::Spot => "spot",
            CostKind::Capital => "capital",
            CostKind::Power => "power",
            CostKind::Facility => "facility",
            CostKind::Staff => "staff",
            CostKind::Transfer => "transfer",
        }
    }

    /// Every kind, in output order.
    pub const ALL: [CostKind; 9] = [
        CostKind::BusyCompute,
        CostKind::IdleCompute,
        CostKind::UnusedCommitment,
        CostKind::Spot,
        CostKind::Capital,
        CostKind::Power,
        CostKind::Facility,
        CostKind::Staff,
        CostKind::Transfer,
    ];
}

/// Where a cost belongs. `tenant` is `None` for costs no job caused (idle capacity).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LedgerKey {
    /// Pool index.
    pub pool: u32,
    /// Tenant index, if the cost is a tenant's.
    pub tenant: Option<u32>,
    /// Kind of cost.
    pub kind: CostKind,
}

/// Dollars by key, in a deterministic order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ledger {
    entries: BTreeMap<LedgerKey, f64>,
}

impl Ledger {
    /// Adds `usd` under `key`.
    pub fn add(&mut self, key: LedgerKey, usd: f64) {
        *self.entries.entry(key).or_insert(0.0) += usd;
    }

    /// Every entry, in key order.
    pub fn entries(&self) -> impl Iterator<Item = (&LedgerKey, &f64)> {
        self.entries.iter()
    }

    /// Sum of all entries.
    pub fn total(&self) -> f64 {
        self.entries.values().sum()
    }

    /// Multiplies the entries matching `f` by `factor` (a discount applied after the fact).
    pub fn scale_where(&mut self, f: impl Fn(&LedgerKey) -> bool, factor: f64) {
        for (k, v) in self.entries.iter_mut() {
            if f(k) {
                *v *= factor;
            }
        }
    }

    /// Sums of the entries by bucket: `bucket` puts an entry in one of `n` buckets (or
    /// none). One pass over the entries instead of one per bucket (a `sum_where` per
    /// tenant over a trace of 100,000 users is 10^10 steps); each bucket adds its entries
    /// in key order, as `sum_where` does, so the sums are the same to the bit.
    pub fn sums_by(&self, n: usize, bucket: impl Fn(&LedgerKey) -> Option<usize>) -> Vec<f64> {
        let mut parts: Vec<Vec<f64>> = vec![Vec::new(); n];
        for (k, v) in &self.entries {
            if let Some(b) = bucket(k).filter(|&b| b < n) {
                parts[b].push(*v);
            }
        }
        parts.iter().map(|p| p.iter().sum()).collect()
    }

    /// Per pool of `n`: its whole bill, then its bill of each kind in [`CostKind::ALL`]
    /// order. Two passes over the entries (one per pool and kind made pools.csv cost
    /// pools x entries: 500 pools beside 20,000 tenants took a third of a run), the sums
    /// the same to the bit as [`Ledger::sum_where`]'s.
    pub fn by_pool_and_kind(&self, n: usize) -> Vec<[f64; 10]> {
        const K: usize = CostKind::ALL.len();
        let whole = self.sums_by(n, |k| Some(k.pool as usize));
        let kinds = self.sums_by(n * K, |k| {
            (k.pool as usize)
                .checked_mul(K)
                .map(|b| b + k.kind as usize)
        });
        whole
            .iter()
            .zip(kinds.chunks(K))
            .map(|(&w, ks)| {
                let mut usd = [w; 10];
                usd[1..].copy_from_slice(ks);
                usd
            })
            .collect()
    }

    /// Sum of the entries matching `f`.
    pub fn sum_where(&self, f: impl Fn(&LedgerKey) -> bool) -> f64 {
        self.entries
            .iter()
            .filter(|(k, _)| f(k))
            .map(|(_, v)| v)
            .sum()
    }
}
