//! A pool's interconnect: the intra-node link (NVLink or PCIe), the inter-node network
//! (InfiniBand, RoCE or Ethernet), nodes grouped in racks with an oversubscription ratio
//! above the rack, and the speed of a job spread over nodes and racks.
//!
//! # The speed model
//! A data-parallel step is compute then communication (gradient all-reduce); the
//! communication time of a ring all-reduce of `M` bytes over `N` workers is
//! `2 (N - 1) / N x M / B`, set by the slowest link `B` the ring crosses (Patarasuk and
//! Yuan, "Bandwidth optimal all-reduce algorithms for clusters of workstations", JPDC
//! 2009; the bandwidth term of Hockney's alpha-beta model). A job whose step spends a
//! share `s` communicating at the reference bandwidth `B_ref` runs at
//!
//! `speed factor = 1 / ((1 - s) + s x B_ref / B_eff)`
//!
//! where `B_eff` is the intra-node bandwidth on one node, the inter-node bandwidth on
//! several nodes of one rack, and the inter-node bandwidth divided by the rack's
//! oversubscription ratio `k` once it spans racks (a `k:1` oversubscribed tree gives each
//! node `1/k` of its link above the top-of-rack switch: Al-Fares et al., "A scalable,
//! commodity data center network architecture", SIGCOMM 2008). Compute is not
//! overlapped with communication (a conservative bound; overlap would shrink `s`).
//!
//! `B_ref` is the scenario's `reference_gbps` when given (so a PCIe pool is slower than
//! an NVLink one for the same job); otherwise the job's tightest placement on its own
//! pool (one node, or several nodes in one rack), so only a spread-out placement slows it.

/// The link between the GPUs of one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntraNode {
    /// NVLink / NVSwitch.
    Nvlink,
    /// PCIe.
    Pcie,
}

/// The network between nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterNode {
    /// InfiniBand.
    Infiniband,
    /// RDMA over converged Ethernet.
    Roce,
    /// Plain Ethernet (TCP).
    Ethernet,
}

/// A pool's interconnect.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fabric {
    /// Intra-node link kind.
    pub intra: IntraNode,
    /// Intra-node bandwidth, Gbit/s (as the job's collective sees it, per GPU).
    pub intra_gbps: f64,
    /// Inter-node network kind.
    pub inter: InterNode,
    /// Inter-node bandwidth, Gbit/s (per GPU, within a rack).
    pub inter_gbps: f64,
    /// Nodes per rack (0: the whole pool is one rack).
    pub nodes_per_rack: u32,
    /// Oversubscription above the rack (>= 1; 4.0 is 4:1).
    pub oversubscription: f64,
}

impl Fabric {
    /// The rack of the pool's `i`-th node (0-based within the pool).
    pub fn rack_of(&self, i: u32) -> u32 {
        i.checked_div(self.nodes_per_rack).unwrap_or(0)
    }

    /// The bandwidth a job's collective gets over `nodes` nodes in `racks` racks.
    pub fn bandwidth(&self, nodes: u32, racks: u32) -> f64 {
        if nodes <= 1 {
            self.intra_gbps
        } else if racks <= 1 {
            self.inter_gbps
        } else {
            self.inter_gbps / self.oversubscription.max(1.0)
        }
    }

    /// The speed factor of a job with communication share `share` over `nodes` nodes in
    /// `racks` racks, against `reference_gbps` (or its tightest placement when `None`).
    pub fn speed_factor(
        &self,
        share: f64,
        nodes: u32,
        racks: u32,
        reference_gbps: Option<f64>,
    ) -> f64 {
        let eff = self.bandwidth(nodes, racks);
        let reference = reference_gbps.unwrap_or_else(|| self.bandwidth(nodes, 1));
        speed_factor(share, reference, eff)
    }
}

/// `1 / ((1 - s) + s x reference / effective)`, with `s` clamped to `[0, 1]`; 1 when
/// either bandwidth is not positive.
pub fn speed_factor(share: f64, reference_gbps: f64, effective_gbps: f64) -> f64 {
    let s = share.clamp(0.0, 1.0);
    if s == 0.0 || reference_gbps <= 0.0 || effective_gbps <= 0.0 {
        return 1.0;
    }
    1.0 / ((1.0 - s) + s * reference_gbps / effective_gbps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fabric() -> Fabric {
        Fabric {
            intra: IntraNode::Nvlink,
            intra_gbps: 2400.0,
            inter: InterNode::Infiniband,
            inter_gbps: 400.0,
            nodes_per_rack: 4,
            oversubscription: 4.0,
        }
    }

    /// 30 % communication, 4 nodes: in one rack at the reference (its tightest
    /// placement) 1.0; over two racks at 4:1, 1 / (0.7 + 0.3 x 4) = 1 / 1.9.
    #[test]
    fn spread_over_racks_slows_the_communication_share() {
        let f = fabric();
        assert_eq!(f.speed_factor(0.3, 4, 1, None), 1.0);
        let two = f.speed_factor(0.3, 4, 2, None);
        assert!((two - 1.0 / 1.9).abs() < 1e-12, "{two}");
        // Against an NVLink reference of 2,400: one rack is 1 / (0.7 + 0.3 x 6) = 0.4.
        let r = f.speed_factor(0.3, 4, 1, Some(2400.0));
        assert!((r - 0.4).abs() < 1e-12, "{r}");
        assert_eq!(f.rack_of(7), 1);
        assert_eq!(speed_factor(0.0, 1.0, 0.1), 1.0);
    }
}
