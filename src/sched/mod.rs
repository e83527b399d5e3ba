//! Scheduling: queue-ordering policies behind one trait, which pool a job may use, and
//! the set of running jobs with their planned ends (what backfilling plans against).
//!
//! One policy per file. Policies never scan the whole queue or cluster on every event:
//! see each file for the index it keeps and the cost of a pass. Preemptive policies stop
//! running jobs through [`SchedCtx::start_preempting`] (only as many victims as it takes,
//! rolled back if they would not make room). Pool order and budget caps live in
//! `budget.rs`, the elastic pools' autoscaler rules in `autoscaler.rs` (the simulation
//! drives them).
//!
//! A start attempt asks the placer only in pools whose free GPUs may hold the request
//! ([`SchedCtx::first_fit`]): the cluster keeps each pool's [`crate::model::PoolFit`] and,
//! indexed in the pool choice's order ([`PoolChoice::index_cluster`]), a max-tree per
//! eligibility group that finds the next such pool in O(log pools), so an attempt that
//! fails on 2,000 pools costs a few tree descents, not 2,000 placer calls. Orders ranked
//! per job (data-aware, locality waits, class orders) test each candidate's fit in O(1).
//!
//! Preemption's checks do not grow with the pools either: the free whole GPUs of a job's
//! pools are the cluster's sums per eligibility group
//! ([`Cluster::free_whole_gpus_where`]), whether the request fits somewhere now is one
//! index query ([`SchedCtx::whole_gpus_may_fit_somewhere`]), and the count of victims
//! needed reads only the victims' pools.

mod autoscaler;
mod budget;
mod class_queue;
pub mod cloud;
mod conservative_backfill;
mod easy_backfill;
mod fair_share;
mod fifo;
mod greedy;
mod needs;
pub mod placement;
mod priority;
mod progress;
mod running;
mod sjf;
pub mod spot_deadline;
mod srtf;
mod throughput_per_dollar;
mod tiresias;

pub use autoscaler::{Autoscale, NodeInterval};
pub use budget::{pool_order, rent_commitment, Budget, BudgetCaps, PoolOrder};
pub use class_queue::ClassQueue;
pub use conservative_backfill::ConservativeBackfill;
pub use easy_backfill::EasyBackfill;
pub use fair_share::FairShare;
pub use fifo::Fifo;
pub use greedy::{Greedy, GreedyKey};
pub use priority::PriorityPreempt;
pub use progress::{PreemptionCost, Progress, SchedOptions};
pub use running::{Running, RunningJob};
pub use sjf::Sjf;
pub use srtf::Srtf;
pub use throughput_per_dollar::ThroughputPerDollar;
pub use tiresias::Tiresias;

use crate::engine::SimTime;
use crate::model::{
    Allocation, CapacityKind, Cluster, GpuRequest, Job, JobId, ReservedNodes, MILLI_PER_GPU,
};

#[macro_use]
mod registry;

// The queue policies: one line each (its file holds the policy and its docs).
queue_policies! {
    /// First come, first served, strictly: the head blocks everything behind it.
    Fifo = "fifo" => |o| Fifo::default(),
    /// EASY backfill: later jobs start early if they do not delay the head's reservation.
    EasyBackfill = "easy_backfill" => |o| EasyBackfill::default(),
    /// Greedy list scheduling in arrival order: every job that fits starts, nothing is
    /// reserved (the PAI-2020 simulator's FIFO).
    GreedyFifo = "greedy_fifo" => |o| Greedy::new(GreedyKey::Arrival),
    /// Greedy list scheduling by shortest true duration (the PAI-2020 simulator's SJF).
    GreedySjf = "greedy_sjf" => |o| Greedy::new(GreedyKey::ShortestDuration),
    /// Shortest job first by estimate; the shortest waiting job blocks the others.
    Sjf = "sjf" => |o| Sjf::default(),
    /// Shortest remaining time first by estimate, preempting longer running jobs.
    Srtf = "srtf" => |o| Srtf::default(),
    /// Tiresias discretized two-dimensional least-attained-service (Gu et al., NSDI'19).
    Tiresias = "tiresias" => |o| Tiresias::new(
        o.tiresias_thresholds_gpu_s.clone(),
        o.tiresias_starvation_factor,
    ),
    /// Priority classes (the job's `priority`, higher first); preempts lower classes.
    Priority = "priority" => |o| PriorityPreempt::default(),
    /// Weighted fair share across tenants: the tenant holding the least GPU share goes next.
    FairShare = "fair_share" => |o| FairShare::new(o.tenant_weights.clone()),
    /// Each job in the pool where its throughput per dollar is best (the Gavel idea).
    ThroughputPerDollar = "throughput_per_dollar" => |o| ThroughputPerDollar::default(),
    /// Conservative backfill: every waiting job holds a reservation no later job may delay.
    ConservativeBackfill = "conservative_backfill" => |o| ConservativeBackfill::default(),
}

impl PolicyKind {
    /// Builds the policy with default options.
    pub fn build(self) -> Box<dyn QueuePolicy> {
        self.build_with(&SchedOptions::default())
    }
}

/// Which pools a job may use, in preference order (the scenario's pool order: put owned
/// capacity first to use it before renting).
#[derive(Debug, Clone)]
pub struct PoolChoice {
    /// Per pool: (GPU type index, capacity kind, speed).
    pools: Vec<(usize, CapacityKind, f64)>,
    /// Pool indices in the order jobs try them.
    order: Vec<usize>,
    /// Per pool: price of one GPU-hour (zero when unknown).
    gpu_hour_usd: Vec<f64>,
    /// Per eligibility group (GPU type, spot or not): its fastest pool's speed.
    group_speed: Vec<(usize, bool, f64)>,
    /// Class speeds, fabrics, per-class orders (`None`: none configured, the fast path).
    cloud: Option<Box<cloud::CloudChoice>>,
    /// A name for `order` and the prices it was ranked by, unique in the process: the
    /// cluster's search index built for it carries it ([`Cluster::search_key`]), so an
    /// index for another order is not used; so do indexes of rankings by price.
    order_key: u64,
}

/// The next [`PoolChoice`] order's name.
fn next_order_key() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl PoolChoice {
    /// From the cluster's pools.
    pub fn new(cluster: &Cluster) -> PoolChoice {
        let mut group_speed: Vec<(usize, bool, f64)> = Vec::new();
        for p in cluster.pools() {
            let (t, spot) = (p.spec.gpu_type, p.spec.kind == CapacityKind::Spot);
            match group_speed.iter_mut().find(|g| (g.0, g.1) == (t, spot)) {
                Some(g) => g.2 = g.2.max(p.spec.speed),
                None => group_speed.push((t, spot, p.spec.speed)),
            }
        }
        PoolChoice {
            group_speed,
            pools: cluster
                .pools()
                .iter()
                .map(|p| (p.spec.gpu_type, p.spec.kind, p.spec.speed))
                .collect(),
            gpu_hour_usd: vec![0.0; cluster.pools().len()],
            order: (0..cluster.pools().len()).collect(),
            cloud: None,
            order_key: next_order_key(),
        }
    }

    /// Indexes `cluster`'s pools in this choice's order, for [`SchedCtx::first_fit`] to
    /// find a job's first pool with room in O(log pools) (call after
    /// [`PoolChoice::set_order`]; without it, or on a cluster indexed for another order,
    /// candidates are walked one by one).
    pub fn index_cluster(&self, cluster: &mut Cluster) {
        cluster.set_search_order(self.order_key, &self.order);
    }

    /// Sets the order in which jobs try pools (after prices are set).
    pub fn set_order(&mut self, order: PoolOrder) {
        let info: Vec<(CapacityKind, f64, f64)> = self
            .pools
            .iter()
            .zip(&self.gpu_hour_usd)
            .map(|(&(_, k, s), &usd)| (k, s, usd))
            .collect();
        self.order = pool_order(order, &info);
        self.order_key = next_order_key();
        self.set_class_orders(order);
    }

    /// What starting `milli` GPU-thousandths for `runtime` in pool `p` commits against
    /// budget caps (zero unless the pool is rented).
    pub fn commitment(&self, p: usize, milli: u64, runtime: SimTime) -> f64 {
        rent_commitment(self.pools[p].1, self.gpu_hour_usd[p], milli, runtime)
    }

    /// Sets each pool's price per GPU-hour (for price-aware policies): the pools' pricing
    /// models' comparison rates (`PricingModel::gpu_hour_rate`).
    pub fn set_gpu_hour_prices(&mut self, usd: &[f64]) {
        for (p, &x) in usd.iter().enumerate().take(self.gpu_hour_usd.len()) {
            self.gpu_hour_usd[p] = x;
        }
        // Orders and rankings by price are named anew (see `order_key`).
        self.order_key = next_order_key();
    }

    /// Price of one GPU-hour in pool `p` (zero when unknown).
    pub fn gpu_hour_usd(&self, p: usize) -> f64 {
        self.gpu_hour_usd[p]
    }

    /// Number of pools.
    pub fn len(&self) -> usize {
        self.pools.len()
    }

    /// True when there are no pools.
    pub fn is_empty(&self) -> bool {
        self.pools.is_empty()
    }

    /// True when `job` may run in pool `p` (type allowed; spot only for preemptible jobs).
    pub fn allows(&self, job: &Job, p: usize) -> bool {
        let (t, kind, _) = self.pools[p];
        job.gpu_types.allows(t) && (kind != CapacityKind::Spot || job.preemptible)
    }

    /// Pools `job` may use, in preference order (its class's order when a throughput
    /// table orders pools per class).
    pub fn eligible<'a>(&'a self, job: &'a Job) -> Eligible<'a> {
        let order = match self.cloud {
            None => &self.order,
            Some(_) => self.order_of(job),
        };
        Eligible {
            pools: self,
            job,
            order: order.iter(),
        }
    }

    /// The fastest [`PoolChoice::speed_for`] `job` has among the pools it may use (0 when
    /// none): O(GPU types) from each eligibility group's fastest pool, unless a cloud
    /// model gives classes their own speeds (then O(pools)).
    pub fn max_speed_for(&self, job: &Job) -> f64 {
        if self.cloud.is_some() {
            return self
                .eligible(job)
                .map(|p| self.speed_for(job, p))
                .fold(0.0, f64::max);
        }
        self.group_speed
            .iter()
            .filter(|&&(t, spot, _)| job.gpu_types.allows(t) && (!spot || job.preemptible))
            .map(|g| g.2)
            .fold(0.0, f64::max)
    }

    /// Speed of pool `p`'s GPUs.
    pub fn speed(&self, p: usize) -> f64 {
        self.pools[p].2
    }

    /// How long `work` (on the reference GPU) takes in pool `p`.
    pub fn runtime(&self, work: SimTime, p: usize) -> SimTime {
        let s = self.speed(p);
        if s == 1.0 {
            work
        } else {
            SimTime((work.0 as f64 / s).ceil() as u64)
        }
    }
}

/// The pools a job may use, in its preference order (see [`PoolChoice::eligible`]).
#[derive(Debug, Clone)]
pub struct Eligible<'a> {
    pools: &'a PoolChoice,
    job: &'a Job,
    order: std::slice::Iter<'a, usize>,
}

impl Iterator for Eligible<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        self.order
            .by_ref()
            .copied()
            .find(|&p| self.pools.allows(self.job, p))
    }
}

/// Most running jobs one start may preempt (bounds the work of a failed attempt).
pub const MAX_VICTIMS: usize = 64;

/// What a policy sees and may change during one scheduling pass.
pub struct SchedCtx<'a> {
    /// Current simulated time.
    pub now: SimTime,
    /// All jobs of the workload, by id.
    pub jobs: &'a [Job],
    /// Free capacity; starting a job takes from it.
    pub cluster: &'a mut Cluster,
    /// Where in a pool a job goes (the scenario's placement policy).
    pub placer: &'a placement::Placer,
    /// Running jobs with their planned ends.
    pub running: &'a mut Running,
    /// Pool eligibility and speeds.
    pub pools: &'a PoolChoice,
    /// Jobs started in this pass, in start order.
    pub started: &'a mut Vec<JobId>,
    /// Per job: work done and GPU-time attained in earlier runs (indexed like `jobs`).
    pub progress: &'a [Progress],
    /// Jobs preempted in this pass (the simulation requeues them after the pass).
    pub preempted: &'a mut Vec<JobId>,
    /// The earliest time the policy asks to be called again without any other event
    /// (e.g. when a running job crosses a priority threshold); `None`: no request.
    pub wake: &'a mut Option<SimTime>,
    /// Spending caps on rented pools and what starts have committed against them.
    pub budget: &'a mut Budget,
    /// Datasets' copies and prices, when the scenario has datasets.
    pub data: Option<&'a cloud::DataState>,
    /// The earliest end of a locality wait that kept a job from a pool in this pass.
    pub locality_wake: std::cell::Cell<Option<SimTime>>,
    /// Buffers for preemption's feasibility counts.
    pub scratch: &'a mut PreemptScratch,
}

/// False when `req`'s whole GPUs cannot fit pool `p` of `cluster` now: no up node there
/// has `w` wholly free GPUs (a gang above a node's GPUs: `ceil(w / gpus)` wholly free
/// nodes). Placement needs that much (the condition [`victims_before_fit`] answers
/// `Some(0)` on), so an attempt would fail, and it fails before drawing a random tie;
/// true for requests of no or fractional GPUs. O(1): the pool's
/// [`crate::model::PoolFit`] counts the most whole GPUs one request could get there.
pub(crate) fn whole_gpus_may_fit(cluster: &Cluster, p: usize, req: GpuRequest) -> bool {
    match req {
        GpuRequest::Whole(w @ 1..) => cluster.pool_fit(p).whole >= w,
        _ => true,
    }
}

/// How many of `victims`, freed in order, a request for `req` needs at least before its
/// GPUs could fit in one of the pools `eligible` accepts (`Some(0)`: they may fit now,
/// and always for requests of no or fractional GPUs; `None`: not even with all of them).
/// `fits_now` says whether some such pool may hold the request's whole GPUs already (as
/// [`whole_gpus_may_fit`] asks; [`SchedCtx::whole_gpus_may_fit_somewhere`] finds it
/// through the pool index). Counts each GPU's free share exactly: a single-node request
/// needs a node with that many wholly free GPUs, a gang that many wholly free nodes. CPU,
/// memory and budgets are left to placement, so this is a necessary condition: no
/// placement succeeds with fewer victims freed. O(slices of the victims), with the
/// per-node counts in `scratch`, whatever the number of pools; victims past the first
/// prefix that may fit are not read (a lazy list is drawn no further).
pub(crate) fn victims_before_fit(
    cluster: &Cluster,
    running: &Running,
    eligible: impl Fn(usize) -> bool,
    fits_now: bool,
    req: GpuRequest,
    victims: impl IntoIterator<Item = JobId>,
    sc: &mut PreemptScratch,
) -> Option<usize> {
    let GpuRequest::Whole(w) = req else {
        return Some(0);
    };
    if fits_now {
        return Some(0);
    }
    first_fit_prefix(cluster, running, eligible, w, victims.into_iter(), sc)
}

/// [`victims_before_fit`] for `w` whole GPUs over the pools `eligible` accepts, when
/// none may hold them now.
fn first_fit_prefix(
    cluster: &Cluster,
    running: &Running,
    eligible: impl Fn(usize) -> bool,
    w: u32,
    victims: impl Iterator<Item = JobId>,
    sc: &mut PreemptScratch,
) -> Option<usize> {
    // Per eligible pool, what it takes: `w` GPUs on one node, or `k` free nodes.
    sc.begin(cluster.node_count());
    // Pools' gains in wholly free nodes.
    let mut free_nodes_gained: Vec<(usize, u32)> = Vec::new();
    for (i, v) in victims.enumerate() {
        let Some(r) = running.get(v) else {
            continue;
        };
        let p = r.alloc.pool as usize;
        let g = cluster.pools()[p].spec.node.gpus as u32;
        if g == 0 || !eligible(p) {
            continue;
        }
        for s in &r.alloc.gpus {
            if !cluster.is_up(s.node) {
                continue;
            }
            let had = cluster.node_free_milli(s.node)[s.gpu as usize] as u32;
            if !sc.frees_whole(s.node, s.gpu, had, s.milli as u32) {
                continue;
            }
            let whole = cluster.free_whole(s.node) as u32 + sc.gain(s.node);
            if w <= g {
                if whole >= w {
                    return Some(i + 1);
                }
            } else if whole == g {
                let n = match free_nodes_gained.iter().position(|x| x.0 == p) {
                    Some(k) => {
                        free_nodes_gained[k].1 += 1;
                        free_nodes_gained[k].1
                    }
                    None => {
                        free_nodes_gained.push((p, 1));
                        1
                    }
                };
                if cluster.free_nodes(p).len() as u32 + n >= w.div_ceil(g) {
                    return Some(i + 1);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod preempt_tests;

/// A fixed pseudo-random sequence for the policies' randomised unit tests (Knuth's MMIX
/// LCG from `seed`): each call gives the next value below `m`.
#[cfg(test)]
pub(crate) fn lcg(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut x = seed;
    move |m| {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) % m
    }
}

/// Counts [`SchedCtx::start_preempting`] reuses across calls: per node, the wholly free
/// GPUs its victims would add (stamped, so a call clears nothing), and the shares freed
/// on GPUs that victims hold only in part.
#[derive(Debug, Default)]
pub struct PreemptScratch {
    stamp: u32,
    /// Per node: (stamp of the call that last counted it, whole GPUs gained).
    nodes: Vec<(u32, u32)>,
    /// (node, GPU, milli freed) for GPUs not yet wholly free.
    partial: Vec<(u32, u16, u32)>,
}

impl PreemptScratch {
    fn begin(&mut self, nodes: usize) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.nodes.iter_mut().for_each(|n| *n = (0, 0));
            self.stamp = 1;
        }
        if self.nodes.len() < nodes {
            self.nodes.resize(nodes, (0, 0));
        }
        self.partial.clear();
    }

    /// Frees `milli` of GPU `gpu` on `node`, which had `had` free; true (and the node's
    /// gain counted) when that makes the GPU wholly free.
    fn frees_whole(&mut self, node: u32, gpu: u16, had: u32, milli: u32) -> bool {
        let mut before = had;
        if had + milli < MILLI_PER_GPU || had > 0 {
            // Shared GPU: add up what its victims free.
            match self.partial.iter_mut().find(|x| (x.0, x.1) == (node, gpu)) {
                Some(x) => {
                    before += x.2;
                    x.2 += milli;
                }
                None => self.partial.push((node, gpu, milli)),
            }
        }
        if before >= MILLI_PER_GPU || before + milli < MILLI_PER_GPU {
            return false;
        }
        let n = &mut self.nodes[node as usize];
        if n.0 != self.stamp {
            *n = (self.stamp, 0);
        }
        n.1 += 1;
        true
    }

    /// Whole GPUs node `node` has gained in this call.
    fn gain(&self, node: u32) -> u32 {
        let n = self.nodes[node as usize];
        if n.0 == self.stamp {
            n.1
        } else {
            0
        }
    }
}

/// The pools a job tries in a pass, in order (see [`SchedCtx::candidates`]).
#[derive(Debug, Clone)]
pub enum Candidates<'a> {
    /// The pool choice's order.
    Static(Eligible<'a>),
    /// Ranked for this job now (data-aware order, locality waits).
    Ranked(std::vec::IntoIter<usize>),
}

impl Iterator for Candidates<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        match self {
            Candidates::Static(e) => e.next(),
            Candidates::Ranked(v) => v.next(),
        }
    }
}

impl SchedCtx<'_> {
    /// Starts `id` in the first eligible pool where it fits. In pool `avoid_pool`, nodes in
    /// `avoid` are not used unless the job's planned end is no later than `unless_done_by`.
    pub fn try_start(
        &mut self,
        id: JobId,
        avoid: Option<(usize, &ReservedNodes, SimTime)>,
    ) -> bool {
        let job = &self.jobs[id as usize];
        let work = self.planned_remaining(id);
        let found = self.first_fit(id, |p| {
            let planned_end = self.now.plus(self.pools.runtime_for(job, work, p));
            let avoid_here = match avoid {
                Some((ap, r, by)) if ap == p && planned_end > by => Some(r),
                _ => None,
            };
            let a = self.placer.find(
                self.cluster,
                p,
                job.gpus,
                job.cpu_milli,
                job.mem_mib,
                avoid_here,
            )?;
            self.within_budget(id, &a, planned_end)
                .then_some((a, planned_end))
        });
        match found {
            Some((a, planned_end)) => {
                self.start(id, a, planned_end);
                true
            }
            None => false,
        }
    }

    /// The first `Some` that `attempt` gives over the pools `id` tries now
    /// ([`SchedCtx::candidates`], in order), asked only of pools whose free GPUs may hold
    /// the job's request ([`crate::model::PoolFit`]; the others' attempts fail, and fail
    /// before placement draws a random tie, so skipping them changes nothing). With the
    /// pool choice's own order and the cluster indexed for it
    /// ([`PoolChoice::index_cluster`]), those pools are found through the index:
    /// O(groups x log pools) for each pool asked and for the answer that none is left,
    /// instead of a step per candidate.
    pub fn first_fit<T>(
        &self,
        id: JobId,
        mut attempt: impl FnMut(usize) -> Option<T>,
    ) -> Option<T> {
        let job = &self.jobs[id as usize];
        let req = job.gpus;
        if matches!(req, GpuRequest::None | GpuRequest::Whole(0)) {
            return self.candidates(id).find_map(attempt);
        }
        let cluster = &*self.cluster;
        if self.static_candidates(job) && cluster.search_key() == Some(self.pools.order_key) {
            let mut after = None;
            while let Some((pos, p)) =
                cluster.next_fitting(after, req, |p| self.pools.allows(job, p))
            {
                if let Some(x) = attempt(p) {
                    return Some(x);
                }
                after = Some(pos);
            }
            return None;
        }
        self.candidates(id)
            .filter(|&p| cluster.pool_fit(p).may_hold(req))
            .find_map(attempt)
    }

    /// True when some pool `job` may use may hold its whole GPUs now, as
    /// [`whole_gpus_may_fit`] asks (always, for requests of no or fractional GPUs, when
    /// it may use any pool): with the cluster indexed for the pool choice's order
    /// ([`PoolChoice::index_cluster`]; every pool is in it) the root of each eligibility
    /// group's tree, O(groups), else a walk over the job's pools.
    pub(crate) fn whole_gpus_may_fit_somewhere(&self, job: &Job) -> bool {
        let cluster = &*self.cluster;
        if matches!(job.gpus, GpuRequest::Whole(1..))
            && cluster.search_key() == Some(self.pools.order_key)
        {
            if let Some(any) = cluster.any_fitting(job.gpus, |p| self.pools.allows(job, p)) {
                return any;
            }
        }
        self.pools
            .eligible(job)
            .any(|p| whole_gpus_may_fit(cluster, p, job.gpus))
    }

    /// True when `job`'s candidates are the pool choice's order as it stands (no class
    /// orders, no data-aware ranking, no locality wait): what [`SchedCtx::candidates`]
    /// gives as [`Candidates::Static`] over `PoolChoice::order`.
    fn static_candidates(&self, job: &Job) -> bool {
        self.pools.cloud.is_none()
            && self.data.is_none_or(|d| {
                d.locality_wait == cloud::LocalityWait::None || job.tags.dataset.is_none()
            })
    }

    /// The planned end of `id` on `a` given `planned_end` at full fabric speed with its
    /// data present: the fabric's factor slows the run, the data's staging delays it.
    pub fn cloud_end(&self, id: JobId, a: &Allocation, planned_end: SimTime) -> SimTime {
        if self.data.is_none() && !self.pools.has_run_speeds() {
            return planned_end;
        }
        let job = &self.jobs[id as usize];
        let mut run = planned_end.since(self.now);
        if self.pools.has_run_speeds() {
            let f = self.pools.spread(job, a, self.cluster).factor;
            run = cloud::runtime_at(run, f);
        }
        let wait = self.data.map_or(SimTime::ZERO, |d| {
            d.plan(job, a.pool as usize, self.now).wait
        });
        self.now.plus(run).plus(wait)
    }

    /// True when starting `id` with `a` until `planned_end` stays within the budget caps.
    pub fn within_budget(&self, id: JobId, a: &Allocation, planned_end: SimTime) -> bool {
        let planned_end = self.cloud_end(id, a, planned_end);
        let held: u64 = a.gpus.iter().map(|s| s.milli as u64).sum();
        let usd = self
            .pools
            .commitment(a.pool as usize, held, planned_end.since(self.now));
        self.budget.allows(self.jobs[id as usize].tenant, usd)
    }

    /// Records a start with an allocation already found (its planned end as
    /// [`SchedCtx::cloud_end`] says).
    pub fn start(&mut self, id: JobId, a: Allocation, planned_end: SimTime) {
        let planned_end = self.cloud_end(id, &a, planned_end);
        let held: u64 = a.gpus.iter().map(|s| s.milli as u64).sum();
        let usd = self
            .pools
            .commitment(a.pool as usize, held, planned_end.since(self.now));
        self.budget.charge(self.jobs[id as usize].tenant, usd);
        self.cluster.take(&a);
        self.running.insert(id, a, self.now, planned_end);
        self.started.push(id);
    }

    /// Starts `id` in pool `p` if it fits there (no reservation to respect). A pool whose
    /// [`crate::model::PoolFit`] rules the request out is answered in O(1).
    pub fn try_start_in(&mut self, id: JobId, p: usize) -> bool {
        let job = &self.jobs[id as usize];
        if !self.pools.allows(job, p) || !self.cluster.pool_fit(p).may_hold(job.gpus) {
            return false;
        }
        let planned_end = self
            .now
            .plus(self.pools.runtime_for(job, self.planned_remaining(id), p));
        match self
            .placer
            .find(self.cluster, p, job.gpus, job.cpu_milli, job.mem_mib, None)
        {
            Some(a) if self.within_budget(id, &a, planned_end) => {
                self.start(id, a, planned_end);
                true
            }
            _ => false,
        }
    }

    /// The work the scheduler believes `id` still has (its estimate less the work kept
    /// from earlier runs, plus restart penalties), on the reference GPU; at least 1 ms.
    pub fn planned_remaining(&self, id: JobId) -> SimTime {
        let job = &self.jobs[id as usize];
        let pr = self.progress.get(id as usize).copied().unwrap_or_default();
        SimTime(
            (job.planned_work().0 + pr.extra.0)
                .saturating_sub(pr.done.0)
                .max(1),
        )
    }

    /// Stops running job `id` now, freeing its capacity for the rest of this pass. The
    /// simulation accounts for its progress and hands it back to the policy (`requeue`)
    /// after the pass. Returns false if it was not running.
    pub fn preempt(&mut self, id: JobId) -> bool {
        match self.running.remove(id) {
            Some(r) => {
                self.cluster.give_back(&r.alloc);
                self.preempted.push(id);
                // Kept for the simulation's bookkeeping of this run.
                self.running.note_stopped(id, r);
                true
            }
            None => false,
        }
    }

    /// Starts `id` by preempting running jobs from `victims`, in that order, only as many
    /// as it takes: after each victim's capacity is freed the job is tried again, and once
    /// it starts, the victims freed on the way that share no node with it keep running
    /// (they were not needed). If it still does not fit after `MAX_VICTIMS` victims (or
    /// all of them), nothing is preempted and every victim keeps running. Returns true
    /// when the job started.
    pub fn start_preempting(
        &mut self,
        id: JobId,
        victims: impl IntoIterator<Item = JobId>,
    ) -> bool {
        // Victims are listed as they are read (at most `MAX_VICTIMS`): the checks below
        // stop at the first that suffice, and so does the list.
        let mut source = victims.into_iter().take(MAX_VICTIMS);
        let mut victims: Vec<JobId> = Vec::with_capacity(MAX_VICTIMS);
        // Cheap necessary condition first: whole free GPUs in the eligible pools plus the
        // victims' GPUs must cover the request (fractions count as one GPU).
        let job = &self.jobs[id as usize];
        let need = job.gpus.milli().div_ceil(MILLI_PER_GPU as u64);
        // Summed per eligibility group (every pool the job may use is in its order).
        let mut have = self
            .cluster
            .free_whole_gpus_where(|p| self.pools.allows(job, p));
        while have < need {
            let Some(v) = source.next() else {
                break;
            };
            victims.push(v);
            if let Some(r) = self.running.get(v) {
                have +=
                    r.alloc.gpus.iter().map(|s| s.milli as u64).sum::<u64>() / MILLI_PER_GPU as u64;
            }
        }
        if have < need {
            return false;
        }
        // Placement cannot succeed before the first `first` victims are freed (and not at
        // all with `None`): tries before that would fail, so they are not made.
        let mut read = 0;
        let lazy = std::iter::from_fn(|| {
            let v = match victims.get(read) {
                Some(&v) => v,
                None => {
                    let v = source.next()?;
                    victims.push(v);
                    v
                }
            };
            read += 1;
            Some(v)
        });
        let fits_now = self.whole_gpus_may_fit_somewhere(job);
        let Some(first) = victims_before_fit(
            self.cluster,
            self.running,
            |p| self.pools.allows(job, p),
            fits_now,
            job.gpus,
            lazy,
            self.scratch,
        ) else {
            return false;
        };
        self.start_preempting_from(id, first, victims.into_iter().chain(source))
    }

    /// [`SchedCtx::start_preempting`] once its checks have passed, for a caller that
    /// knows placement cannot succeed before the first `first` of `victims` are freed
    /// (what [`victims_before_fit`] counts: a caller passing that count, and a request
    /// that its whole free GPUs plus `victims`' cover, makes the same changes as
    /// `start_preempting`). Victims are read only as far as the job needs.
    pub fn start_preempting_from(
        &mut self,
        id: JobId,
        first: usize,
        victims: impl IntoIterator<Item = JobId>,
    ) -> bool {
        // Victims stay in `running` while they are tried: only their capacity is given
        // back, and taken again from those the job does not need (the cluster sees the
        // same sequence of changes as if they had been stopped and restarted).
        let mut taken: Vec<JobId> = Vec::with_capacity(MAX_VICTIMS);
        for (i, v) in victims.into_iter().take(MAX_VICTIMS).enumerate() {
            let Some(r) = self.running.get(v) else {
                continue;
            };
            if taken.contains(&v) {
                continue;
            }
            self.cluster.give_back(&r.alloc);
            taken.push(v);
            if i + 1 < first {
                continue;
            }
            if self.try_start(id, None) {
                // Victims on nodes the job did not take were not needed after all (the
                // job fitted elsewhere once later victims were freed): they keep running.
                let used: Vec<u32> = self.running.get(id).map_or_else(Vec::new, |a| {
                    let mut n: Vec<u32> = a.alloc.gpus.iter().map(|s| s.node).collect();
                    n.extend(a.alloc.hosts.iter().map(|h| h.0));
                    n.sort_unstable();
                    n.dedup();
                    n
                });
                for v in taken {
                    let Some(r) = self.running.get(v) else {
                        continue;
                    };
                    let touches = r
                        .alloc
                        .gpus
                        .iter()
                        .map(|s| s.node)
                        .chain(r.alloc.hosts.iter().map(|h| h.0))
                        .any(|n| used.binary_search(&n).is_ok());
                    if !touches {
                        self.cluster.take(&r.alloc);
                    } else if let Some(r) = self.running.remove(v) {
                        self.preempted.push(v);
                        self.running.note_stopped(v, r);
                    }
                }
                return true;
            }
        }
        for v in taken.into_iter().rev() {
            if let Some(r) = self.running.get(v) {
                self.cluster.take(&r.alloc);
            }
        }
        false
    }

    /// True when whether a job fits depends only on the cluster's free capacity and the
    /// job, not on the time: no cloud model ranks pools by data or prices in time. Then a
    /// policy may remember that a request did not fit until [`Cluster::changes`] moves.
    pub fn fit_ignores_time(&self) -> bool {
        self.pools.cloud.is_none() && self.data.is_none()
    }

    /// Asks to be called again at `t` (the earliest request of a pass wins).
    pub fn wake_at(&mut self, t: SimTime) {
        if t > self.now && self.wake.is_none_or(|w| t < w) {
            *self.wake = Some(t);
        }
    }
}

impl<'a> SchedCtx<'a> {
    /// The pools `id` tries now, in order: the pool choice's order, or with the
    /// data-aware order or a locality wait, ranked for this job now (see [`cloud`]); a
    /// pool held back by a locality wait asks for a pass when the wait ends.
    pub fn candidates(&self, id: JobId) -> Candidates<'a> {
        let jobs: &'a [Job] = self.jobs;
        let pools: &'a PoolChoice = self.pools;
        let job = &jobs[id as usize];
        let ranked = pools.cloud.as_ref().is_some_and(|c| c.data_aware);
        let waits = self
            .data
            .filter(|d| d.locality_wait != cloud::LocalityWait::None && job.tags.dataset.is_some());
        if !ranked && waits.is_none() {
            return Candidates::Static(pools.eligible(job));
        }
        let now = self.now;
        let mut v: Vec<(usize, f64, SimTime)> = if ranked {
            pools.ranked_by_cost(job, self.planned_remaining(id), now, self.data)
        } else {
            pools
                .eligible(job)
                .map(|p| {
                    (
                        p,
                        0.0,
                        waits.map_or(SimTime::ZERO, |d| d.plan(job, p, now).wait),
                    )
                })
                .collect()
        };
        if let Some(d) = waits {
            let least = v.iter().map(|x| x.2).min().unwrap_or(SimTime::ZERO);
            let waited = now.since(job.submit);
            v.retain(|&(_, _, w)| {
                let extra = w.since(least);
                let need = match d.locality_wait {
                    cloud::LocalityWait::Auto => extra,
                    cloud::LocalityWait::Fixed(f) => f,
                    cloud::LocalityWait::None => SimTime::ZERO,
                };
                if extra == SimTime::ZERO || waited >= need {
                    return true;
                }
                let at = job.submit.plus(need);
                if self.locality_wake.get().is_none_or(|x| at < x) {
                    self.locality_wake.set(Some(at));
                }
                false
            });
        }
        Candidates::Ranked(v.into_iter().map(|x| x.0).collect::<Vec<_>>().into_iter())
    }
}

/// A queue-ordering policy: holds waiting jobs and decides which start at each pass.
pub trait QueuePolicy: Send {
    /// The policy's scenario name.
    fn name(&self) -> &'static str;
    /// A job joins the queue (arrivals, and requeued jobs after preemption).
    fn push(&mut self, id: JobId, job: &Job);
    /// A preempted job comes back to the queue with its progress so far.
    fn requeue(&mut self, id: JobId, job: &Job, _progress: &Progress) {
        self.push(id, job);
    }
    /// A running job ended (completed or failed); policies that track usage hear of it.
    fn ended(&mut self, _id: JobId, _job: &Job) {}
    /// A running job was stopped without the policy asking (a failure, a spot
    /// interruption, maintenance); it comes back through `requeue`, or `ended` follows
    /// when it gives up. By default the same as `ended`.
    fn stopped(&mut self, id: JobId, job: &Job) {
        self.ended(id, job);
    }
    /// Jobs waiting.
    fn len(&self) -> usize;
    /// True when no job waits.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// One scheduling pass: start whatever the policy allows now.
    fn schedule(&mut self, ctx: &mut SchedCtx);
    /// Something a cached plan depends on changed unexpectedly (a job ended before its
    /// planned end, capacity came or went).
    fn invalidate(&mut self) {}
    /// Reservations made so far as (head job, reserved start), for policies that make
    /// them and were asked to record them.
    fn reservation_log(&self) -> Option<&[(JobId, SimTime)]> {
        None
    }
}
