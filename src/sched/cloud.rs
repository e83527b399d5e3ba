//! The cloud the jobs rent, as pool choice sees it: per-class GPU speeds (a throughput
//! table), each pool's interconnect (a job's speed from how it is spread), and where data
//! lives (staging waits and transfer prices). All off by default: a [`PoolChoice`] with
//! none of them takes the same path, at the same cost, as before they existed.
//!
//! # Data-aware pool choice (`pool_order = "data_aware"`)
//! Each job ranks its eligible pools by the dollars a run there is expected to cost:
//!
//! `cost(p) = GPUs x price(p) x (staging(p) + work / speed(p)) / 3600 + transfer(p)`
//!
//! with `price(p)` the pool's GPU-hour price (owned pools at their ownership rate),
//! `staging(p)` the wait before its data is in `p`'s region (zero when a copy is there),
//! `speed(p)` its class's speed in `p`, and `transfer(p)` the dollars of moving the data
//! at the link's marginal price. Ties keep the scenario order.
//!
//! # Waiting for a nearer pool (`[data] locality_wait`)
//! A pool whose staging wait exceeds the smallest among the job's eligible pools (busy or
//! not) by `extra` is admitted only once the job has waited `locality_wait` since it was
//! submitted, or with `"auto"` once it has waited `extra`: the job waits for a nearer
//! pool at most as long as moving its data would delay it, then moves it (the
//! ski-rental rule: rent until the rent paid equals the price of buying, which is never
//! worse than twice the better choice in hindsight; Karlin et al., "Competitive snoopy
//! caching", Algorithmica 1988; the locality wait of delay scheduling, Zaharia et al.,
//! EuroSys 2010). The policy is woken when a wait ends.

use super::{PoolChoice, PoolOrder};
use crate::engine::SimTime;
use crate::model::datasets::{DataPlaces, StagingPlan};
use crate::model::fabric::Fabric;
use crate::model::throughput::ClassSpeeds;
use crate::model::{Allocation, Cluster, Job};
use crate::pricing::LinkPrices;

/// How long a job waits for a pool nearer its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LocalityWait {
    /// It takes any pool at once.
    #[default]
    None,
    /// As long as the extra staging wait of the farther pool.
    Auto,
    /// This long after its submission.
    Fixed(SimTime),
}

/// Datasets, places, prices and the locality wait (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct DataOptions {
    /// Datasets, pools' places and link bandwidths (no copies yet).
    pub places: DataPlaces,
    /// Transfer prices per sending cloud.
    pub prices: Vec<LinkPrices>,
    /// Per dataset: the index of its home cloud's prices.
    pub price_of: Vec<usize>,
    /// Waiting for a nearer pool.
    pub locality_wait: LocalityWait,
}

/// Interconnects and communication shares.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FabricOptions {
    /// Per pool: its fabric (`None`: jobs there run at full speed however spread).
    pub pools: Vec<Option<Fabric>>,
    /// The bandwidth communication shares are measured at (`None`: each job's tightest
    /// placement on its own pool).
    pub reference_gbps: Option<f64>,
    /// Communication share of jobs that give none and whose class has none.
    pub default_share: f64,
    /// Communication share per class name.
    pub class_shares: Vec<(String, f64)>,
}

/// What the cloud model adds to pool choice; every part optional.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CloudOptions {
    /// Per-class speeds per pool (resolved from the throughput table).
    pub speeds: Option<ClassSpeeds>,
    /// Interconnects.
    pub fabric: Option<FabricOptions>,
    /// Datasets and staging.
    pub data: Option<DataOptions>,
}

impl CloudOptions {
    /// True when no part is configured.
    pub fn is_off(&self) -> bool {
        self.speeds.is_none() && self.fabric.is_none() && self.data.is_none()
    }
}

/// The copies staged so far and the month's tiered volume per dataset's cloud: what the
/// simulation's staging part changes and pool choice reads.
#[derive(Debug, Clone, PartialEq)]
pub struct DataState {
    /// Datasets, places and live copies.
    pub places: DataPlaces,
    /// Transfer prices per sending cloud.
    pub prices: Vec<LinkPrices>,
    /// Per dataset: the index of its home cloud's prices.
    pub price_of: Vec<usize>,
    /// Per sending cloud: GB of tiered transfer sent this month.
    pub month_gb: Vec<f64>,
    /// The locality wait.
    pub locality_wait: LocalityWait,
}

impl DataState {
    /// No copies, nothing sent.
    pub fn new(o: &DataOptions) -> DataState {
        DataState {
            places: o.places.clone(),
            prices: o.prices.clone(),
            price_of: o.price_of.clone(),
            month_gb: vec![0.0; o.prices.len()],
            locality_wait: o.locality_wait,
        }
    }

    /// What job `job` must do to read its dataset in pool `p` at `now` (nothing without
    /// a dataset).
    pub fn plan(&self, job: &Job, p: usize, now: SimTime) -> StagingPlan {
        match job.tags.dataset {
            Some(d) => self.places.plan(d, p, now),
            None => StagingPlan {
                link: None,
                gb: 0.0,
                wait: SimTime::ZERO,
            },
        }
    }

    /// The marginal dollars of `plan` for dataset `d`.
    pub fn transfer_usd(&self, d: u32, plan: &StagingPlan) -> f64 {
        let Some(&k) = self.price_of.get(d as usize) else {
            return 0.0;
        };
        let (Some(link), Some(prices)) = (plan.link, self.prices.get(k)) else {
            return 0.0;
        };
        let month = self.month_gb.get(k).copied().unwrap_or(0.0);
        prices.charge(link, plan.gb, month)
    }
}

impl DataState {
    /// Books `plan` for dataset `d` at time `t` into the month's tiered volume (months of
    /// 730 h from the run's start, as `[transfer]` counts them); returns its dollars.
    pub fn book(&mut self, d: u32, plan: &StagingPlan, t: SimTime, month: &mut u64) -> f64 {
        let m = t.0 / MONTH_MS;
        if m != *month {
            *month = m;
            self.month_gb.iter_mut().for_each(|x| *x = 0.0);
        }
        let usd = self.transfer_usd(d, plan);
        if let (Some(link), Some(&k)) = (plan.link, self.price_of.get(d as usize)) {
            if self.prices.get(k).is_some_and(|p| p.tiered(link)) {
                self.month_gb[k] += plan.gb;
            }
        }
        usd
    }
}

/// A month of egress tiers (730 h), in milliseconds.
const MONTH_MS: u64 = 730 * 3_600_000;

/// Pool choice's resolved cloud parts.
#[derive(Debug, Clone, Default)]
pub(super) struct CloudChoice {
    /// Workload class -> speed-table row.
    class_rows: Vec<Option<usize>>,
    speeds: Option<ClassSpeeds>,
    /// Per table row: its pool order (when the order compares speeds).
    class_orders: Vec<Vec<usize>>,
    fabric: Option<FabricOptions>,
    /// Workload class -> communication share.
    class_shares: Vec<Option<f64>>,
    /// Whether pools are ranked per job (data-aware order).
    pub(super) data_aware: bool,
}

/// A run's spread: nodes, racks and the fabric's speed factor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// Nodes spanned.
    pub nodes: u32,
    /// Racks spanned (1 without a fabric).
    pub racks: u32,
    /// The fabric's speed factor (1 without a fabric or communication).
    pub factor: f64,
}

impl PoolChoice {
    /// Adds the cloud parts, with the workload's class names (call before `set_order`).
    pub fn set_cloud(&mut self, cloud: &CloudOptions, classes: &[String]) {
        if cloud.speeds.is_none() && cloud.fabric.is_none() {
            return;
        }
        let rows = classes
            .iter()
            .map(|c| cloud.speeds.as_ref().and_then(|s| s.class(c)))
            .collect();
        let shares = classes
            .iter()
            .map(|c| {
                cloud
                    .fabric
                    .as_ref()
                    .and_then(|f| f.class_shares.iter().find(|(n, _)| n == c).map(|(_, s)| *s))
            })
            .collect();
        self.cloud = Some(Box::new(CloudChoice {
            class_rows: rows,
            speeds: cloud.speeds.clone(),
            class_orders: Vec::new(),
            fabric: cloud.fabric.clone(),
            class_shares: shares,
            data_aware: false,
        }));
    }

    /// Per-class pool orders for orders that compare speeds (after prices are set).
    pub(super) fn set_class_orders(&mut self, order: PoolOrder) {
        if order == PoolOrder::DataAware {
            self.cloud.get_or_insert_with(Box::default).data_aware = true;
        }
        let Some(c) = self.cloud.as_mut() else {
            return;
        };
        let Some(speeds) = &c.speeds else {
            return;
        };
        if !matches!(order, PoolOrder::Cheapest | PoolOrder::Fastest) {
            return;
        }
        c.class_orders = (0..speeds.classes.len())
            .map(|row| {
                let info: Vec<_> = self
                    .pools
                    .iter()
                    .enumerate()
                    .map(|(p, &(_, k, _))| (k, speeds.speed(row, p), self.gpu_hour_usd[p]))
                    .collect();
                super::pool_order(order, &info)
            })
            .collect();
    }

    /// The table row of `job`'s class, if the table has it.
    fn class_row(&self, job: &Job) -> Option<usize> {
        let c = self.cloud.as_ref()?;
        c.class_rows
            .get(job.tags.class? as usize)
            .copied()
            .flatten()
    }

    /// The pool order `job` tries.
    pub(super) fn order_of(&self, job: &Job) -> &[usize] {
        if let Some(c) = self.cloud.as_ref() {
            if let Some(row) = self.class_row(job) {
                if let Some(o) = c.class_orders.get(row) {
                    return o;
                }
            }
        }
        &self.order
    }

    /// The speed of `job` in pool `p`: its class's, else the pool's.
    pub fn speed_for(&self, job: &Job, p: usize) -> f64 {
        match (self.class_row(job), self.cloud.as_ref()) {
            (Some(row), Some(c)) => c
                .speeds
                .as_ref()
                .map_or(self.pools[p].2, |s| s.speed(row, p)),
            _ => self.pools[p].2,
        }
    }

    /// How long `work` of `job` takes in pool `p` (by its class's speed).
    pub fn runtime_for(&self, job: &Job, work: SimTime, p: usize) -> SimTime {
        runtime_at(work, self.speed_for(job, p))
    }

    /// True when runs need more than the pool's speed (a class table or a fabric).
    pub fn has_run_speeds(&self) -> bool {
        self.cloud.is_some()
    }

    /// The communication share of `job`.
    fn comm_share(&self, job: &Job) -> f64 {
        let Some(c) = self.cloud.as_ref() else {
            return 0.0;
        };
        let Some(f) = &c.fabric else {
            return 0.0;
        };
        if let Some(s) = job.tags.comm_share {
            return s as f64;
        }
        job.tags
            .class
            .and_then(|k| c.class_shares.get(k as usize).copied().flatten())
            .unwrap_or(f.default_share)
    }

    /// How allocation `a` of `job` is spread, and the fabric's speed factor.
    pub fn spread(&self, job: &Job, a: &Allocation, cluster: &Cluster) -> Spread {
        let p = a.pool as usize;
        let nodes = a.hosts.len() as u32;
        let fabric = self
            .cloud
            .as_ref()
            .and_then(|c| c.fabric.as_ref())
            .and_then(|f| {
                f.pools
                    .get(p)
                    .copied()
                    .flatten()
                    .map(|x| (x, f.reference_gbps))
            });
        let Some((fab, reference)) = fabric else {
            return Spread {
                nodes,
                racks: 1,
                factor: 1.0,
            };
        };
        let first = cluster.pools()[p].first_node;
        let mut racks: Vec<u32> = a.hosts.iter().map(|h| fab.rack_of(h.0 - first)).collect();
        racks.sort_unstable();
        racks.dedup();
        let racks = racks.len().max(1) as u32;
        Spread {
            nodes,
            racks,
            factor: fab.speed_factor(self.comm_share(job), nodes, racks, reference),
        }
    }

    /// The speed of `job`'s run on allocation `a`: its class's speed times the fabric's
    /// factor.
    pub fn run_speed(&self, job: &Job, a: &Allocation, cluster: &Cluster) -> f64 {
        let p = a.pool as usize;
        if self.cloud.is_none() {
            return self.pools[p].2;
        }
        self.speed_for(job, p) * self.spread(job, a, cluster).factor
    }

    /// True when pools are ranked per job (the data-aware order).
    pub fn ranks_per_job(&self) -> bool {
        self.cloud.as_ref().is_some_and(|c| c.data_aware)
    }

    /// Pools `job` may use ranked by expected cost (see the module docs), at `now` with
    /// the data in `data`: (pool, dollars, staging wait), cheapest first.
    pub fn ranked_by_cost(
        &self,
        job: &Job,
        work: SimTime,
        now: SimTime,
        data: Option<&DataState>,
    ) -> Vec<(usize, f64, SimTime)> {
        let gpus = job.gpus.gpus_f64().max(0.001);
        let mut v: Vec<(usize, f64, SimTime)> = self
            .eligible(job)
            .map(|p| {
                let (wait, usd) = match (data, job.tags.dataset) {
                    (Some(d), Some(ds)) => {
                        let plan = d.plan(job, p, now);
                        (plan.wait, d.transfer_usd(ds, &plan))
                    }
                    _ => (SimTime::ZERO, 0.0),
                };
                let hours = (wait.plus(self.runtime_for(job, work, p))).hours_f64();
                (p, gpus * self.gpu_hour_usd[p] * hours + usd, wait)
            })
            .collect();
        v.sort_by(|a, b| a.1.total_cmp(&b.1));
        v
    }
}

/// `work` at `speed` (1.0: unchanged).
pub fn runtime_at(work: SimTime, speed: f64) -> SimTime {
    if speed == 1.0 {
        work
    } else if speed <= 0.0 {
        SimTime::NEVER
    } else {
        SimTime((work.0 as f64 / speed).ceil() as u64)
    }
}
