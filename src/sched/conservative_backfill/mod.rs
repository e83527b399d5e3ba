//! Conservative backfill (Mu'alem & Feitelson, 2001): every waiting job, in arrival
//! order, gets a reservation at the earliest time it fits in the profile of future free
//! capacity (from the running jobs' planned ends) without moving any earlier job's
//! reservation; a job starts now when its reservation is now. Unlike EASY, no job can be
//! delayed by a later one, not only the head.
//!
//! Two bounds keep a pass cheap with tens of thousands waiting, as production
//! schedulers do (Slurm's `bf_max_job_test`): only the first `DEPTH` waiting jobs get
//! reservations in a pass (the rest wait their turn), and the profile counts whole free
//! GPUs per pool rather than their layout on nodes. A job whose reservation is now but
//! which does not fit the actual nodes (fragmentation) keeps its reservation and waits.
//!
//! Every pass means the same as planning from scratch (the profile from the running
//! jobs, then each of the first `DEPTH` waiting jobs in order), but the plan is kept
//! between passes: when nothing unexpected happened (every job that ended did so at or
//! after its planned end, capacity changed only by what started and ended, no job came
//! back to the front of the queue), the profile from scratch would equal the kept one
//! from now on, and every kept reservation not yet due would be found again at the same
//! time (the earliest fit after now is the earliest fit after the last pass when that
//! was later than now). So a pass only starts the reservations due now and plans the
//! jobs that moved into the first `DEPTH`; the kept ones stay in the window in place,
//! and only those due by now are looked at. A reservation that fell into the past (a job
//! that did not fit the nodes) moves to now when that takes no capacity any later
//! reservation holds (`Plan::move_to_now`). Else the replan first keeps in place what
//! it can prove unmoved (`held.rs`): the stuck reservations move to now, taking the
//! span their windows newly cover while every later reservation stays in the profile,
//! and each job after them keeps its place while nothing was freed and its window
//! would still fit with the jobs after it given back (checked on the few steps the
//! moves left negative). From the first job that check cannot prove, the reservations
//! are given back in one pass over each pool's steps (`Plan::give_back`), then each
//! search starts from where the job's old reservation allows (`Plan::best`). Anything
//! else rebuilds the plan (reusing the memory of the last plan dropped). A pass then
//! costs a search and an add for each of the s jobs planned over the R steps of the
//! profile (about the running jobs), which sit in blocks with bounds on their values, so
//! that a search or an add passes over whole blocks (`profile.rs`); a rebuild O(DEPTH x
//! R). A start attempt that failed is not made again while the cluster gave nothing
//! back (`Cluster::releases`; remembered by job in a small fixed table, see `start`).
//! `tests/scheduling_oracle.rs`
//! checks every start, end and pool against a from-scratch planner on random
//! workloads, one of them a full pool of 8-GPU nodes where gangs get stuck.
//!
//! A pass that leaves nothing reserved keeps no plan, and a pass without a plan starts
//! the jobs at the queue's front whose whole GPUs the profile from scratch has now
//! without building it (`start_front`): that profile never falls from now on, as
//! running jobs only give capacity back, so such a job's earliest reservation is now,
//! and once it started as planned the profile is the running jobs' again. The profile
//! is built only for the first job reserved later or that does not fit the nodes. Below
//! saturation most arrivals meet an empty queue (in the policies bench at 90 % load,
//! 127k of 200k passes begin with nothing reserved, 63k of them start arrivals, and
//! only 730 leave a reservation), and they now cost about what FIFO's do: 1,775M ->
//! 1,572M instructions there (FIFO 464M), and on the end-to-end bench's 1M jobs at 90 %
//! 13.6G -> 11.3G (FIFO 4.8G), the same schedules. Tried then and not kept: times and
//! values of the steps in two arrays (searches by `position`/`rposition` over values):
//! 1,572M -> 1,636M, the range adds no cheaper and the searches dearer. Counted on the
//! end-to-end bench's 1M jobs (2026-12-03): 2.0M passes, 1.26M of them without a plan
//! (1.256M finished by `start_front`); 42k replans behind a stuck reservation, 1.22M
//! jobs in them, 447k searched again; 373k searches of jobs new to the window (69k of
//! them reserved now). The replans are what is left to price: a stuck gang placed at
//! its pool's next planned end would no longer slide with each arrival.
//!
//! Where the time goes (2026-12-01, that bench's 100k jobs on 1,024 GPUs at 105 % load
//! (its comment said ~90 % until 2026-12-03: the rate was 140 jobs an hour, see there),
//! counted): 200k passes, one rebuild; 53.7k passes (27 %) replan behind a stuck gang,
//! 1.62M jobs in all (30 a replan), 80 % of them back to the same place; profiles of about
//! 280 steps; the searches walk 184M steps, and giving back and taking again the
//! reservations moves memory in the step vector (together about 70 % of the time). Tried
//! and not kept (branches `r4-18-cb-exp-*`): leaving the reservations of the jobs not yet
//! planned again in the profile, searches seeing them as given back and an exact check
//! keeping the unmoved ones (walk down to 40M steps, but the bookkeeping made the run 1.5x
//! slower); lazy steps in replans and a net-change bound for `grew` (within noise). The 2x
//! target needs replans priced by the jobs that move: a profile with O(log R) range add,
//! range min and next-fit (a tree over the steps) under that bookkeeping.
//!
//! Measured again (2026-12-01 22:30-23:45 UTC, instructions by `valgrind --tool=callgrind`
//! on the policies bench's `quick` part, so the machine's load does not enter): FIFO 663M,
//! conservative backfill 8,640M (13.0x) -> 7,313M (11.1x) once a replan gives its jobs'
//! reservations back in one pass (`Profile::add_all`, was one `add` each: 3.9M adds at
//! 1,130 instructions, a third of them memory moves); wall time 1.75-2.04 s -> 1.41-1.75
//! s (FIFO 0.12-0.28 s, load 5). Of the rest: `add` 2.6G (the reservations taken again,
//! one per job planned), searches 2.1G, start attempts 0.36G. Tried this session
//! and not kept (branches `r5-18-cb-exp-blocked`, `r5-18-cb-exp-held2`): the steps in
//! blocks of 32 with pending adds and least/greatest values (at ~270 steps an add cost
//! 1,860 instructions against 1,130 flat: the locating binary searches cost more than the
//! memory moves saved); keeping the reservations of the jobs not yet planned again in the
//! profile and searching the profile plus them (adds 4.5G -> 1.4G, but the two-cursor
//! search cost 3,400 instructions a call against 1,000: 11.5G in all; and a job keeps its
//! place without a search only when nothing was freed before it, which the stuck gang
//! moving later defeats in almost every replan, 1.60M of 1.62M jobs searched); skipping
//! the starts no freed span reaches (no measurable gain). A job's earliest fit after the
//! gang vacates `[now, x)` has to look at that hole, so a replan is priced by the jobs in
//! it times the steps over the hole: the 2x target likely needs a tree profile whose
//! search skips the hole in O(log R) (range max below the need), not fewer searches.
//!
//! The structure of a replan (2026-12-02, the same bench, every replan traced): 53,752
//! replans come from 2,515 stuck episodes (a gang due by count that the nodes do not
//! fit, about 21 passes each); the stuck gang goes back to now in 96.5 % of them, so it
//! frees nothing and only takes `[old end, now + d)`; 12 % of the 1.62M jobs planned
//! again move (pushed later, mostly those chained to the gang's old end), 44 % come
//! before the first that moves, and 71 % of the replans meet a second reservation in
//! the past (a second stuck gang) before that. Hence `held.rs`: it keeps 900k of the
//! jobs of the replans in place with a check of a few conflict steps each, and only
//! the jobs from the first it cannot prove on are given back and searched again (was:
//! all of them). With the start attempts proved to fail skipped, `add_all` copying runs
//! and a profile that leaves dead steps in place (no memory moved per merge; dropped in
//! one pass when they pass a quarter of the steps): instructions (callgrind, `quick`)
//! 7,526M -> 4,764M against FIFO's 682M, 11.0x -> 7.0x (by step: held replans 6,833M,
//! every stuck reservation held 5,457M, `add_all` by runs 5,152M, start attempts 5,100M,
//! dead steps 5,031M and 4,764M). Target 2x not met. What is left: searches 1,146M
//! (670k: the 570k jobs from the first unproved one on, and 100k new jobs), taking
//! reservations 696M (770k adds), giving back 517M (every replan still has a mover),
//! the held checks 448M (of which 398M the stuck reservations' spans, 543k adds: ten
//! stuck reservations a replan on average), start attempts 401M. The next step would
//! carry the check past the first job that moves: the jobs behind it then see the span
//! it freed, so their proof needs the earliest fit of the profile without the jobs
//! after them over that span only (a range query on a tree profile over the freed
//! spans, not a search from now); or semantics that stop the slide (a stuck gang's
//! reservation placed at the next planned end in its pool, when its nodes can first
//! change: about half the replans, as arrivals could no longer move it).
//!
//! 2026-12-04 (instructions by callgrind, `--toggle-collect='policies::replay*'`, one
//! policy a run; the same schedules: every job's start, end and pool hashed on the policies
//! bench's 100k jobs at 90 % and 105 % and on the 1M end-to-end jobs, equal before and
//! after each step). Before: 100k at 90 % FIFO 470.9M, conservative backfill 1,442.5M
//! (3.06x); the end-to-end mix, 1M jobs at 90 % (`quick load=none e2e`), FIFO 4,714.5M,
//! conservative backfill 10,183.4M (2.16x). Steps (100k; 1M): the window kept in place,
//! only the reservations due by now looked at (was: every entry copied each pass, 14.3M
//! entries over the 1M jobs' 2.0M passes): 1,420.2M; 9,841.6M. The profile in blocks of up
//! to 32 steps with a pending add and bounds on their values, an add one walk from its
//! start (a block it covers whole takes the add in one step, an end step inserted where the
//! walk stops), a search passing over a block with room all over or none anywhere:
//! 1,382.5M; 9,646.3M (on the 1M jobs, at the end: searches 1,168M -> 731M, adds 1,313M ->
//! 1,034M). Plans recycled (a rebuild allocated every block again), failed start attempts
//! remembered in a table of 64 by job (was a list searched and filtered at each attempt):
//! 1,335.2M; 9,243.9M. Profiles filled a block at a time from a slice, bounds made exact
//! after 8 partial adds, dead steps dropped when they pass half, the off-plan check reading
//! the pool's count before the running set: 1,310.7M; 9,137.1M. A moved step's place kept
//! as a hint (the stuck reservation's end step is found again without a search): 1,306.2M;
//! 9,079.5M. After: 100k 2.77x (FIFO 470.9M), 1M 1.93x (FIFO 4,714.5M; FIFO in the final
//! build: 472.2M and 4,727.9M, 2.77x and 1.92x): the 2x is met on its workload, not
//! on the smaller one; 100k at 105 %: 4,139.0M -> 3,577.5M (mean wait 36.18 h both). Where
//! the rest goes (1M jobs, schedule 6.44G of 9.14G): start attempts 1.98G (of which the
//! placement itself 1.50G, as FIFO's), reservations taken 0.86G, searches 0.73G, stuck
//! reservations moved to now 0.61G, held replans 0.28G, give-backs 0.28G. Of the 2.62M
//! start attempts, 1M start and 1.62M are refused by the pools' free nodes; the memo of
//! failed attempts almost never hits (the cluster gives capacity back between nearly every
//! two passes). Tried and not kept: the blocks with exact bounds recomputed after every
//! partial add and 4-5 lookups an add (1,523.9M; 10,299.9M: under callgrind a flat vector's
//! insert is a cheap `memmove`, so blocks pay only where they save scans); exact bounds
//! with one walk an add (1,485.1M; 10,042.7M); a dead-step count lowered when a step comes
//! back to life (1,708.8M: it undercounts, compaction stopped, searches 2.5x dearer); block
//! sizes 16, 24, 40 and 64 (1,365M, 1,322M, 1,319M, 1,376M against 1,317M at 32, in a build
//! reading them at run time); exact bounds never restored (1,330M) or after 4 adds
//! (1,339M). Measured and not built: keeping in place the jobs of a replan after the first
//! one that moves. At 100k, 153k jobs are planned again and 112k (73 %) get their old
//! reservation back, but only 13k of the 153k have no freed span before their window's end
//! (`grew`), and 321 of those keep it: a job's place cannot be proved without a search on
//! the profile without the jobs after it (105 %: 824k, 611k, 68k, 1.6k). The smaller
//! workload's 2x needs that search made on the profile that still holds the later jobs
//! (their reservations only add room, so a block's lower bound still lets a window pass it,
//! and only a block short of room needs them counted), or the semantics change above.
//!
//! 2026-12-04, later (callgrind as above, 100k at 90 %: 1,304.6M against FIFO's 470.7M,
//! 2.77x; same schedules checked for each attempt, none kept). That search built: a
//! replan leaves its jobs' reservations in the profile, each pool keeps what giving them
//! back would add as a few pieces, and a job is searched on the profile plus the pieces
//! (steps and piece times walked together, block bounds used within a run of steps
//! under one piece), the profile changing only for the jobs that move (no `add_all`,
//! no add for the 73 % that keep their place): 1,895M (3,036M with a plain merged walk).
//! The pieces span most of the profile (the last reservation given back ends hours
//! out), so the search walks short runs between piece times and loses the block skips:
//! `best` 163M -> 840M, while the adds saved were about 140M. Skipping a pass whose
//! profile cannot hold any job now besides a front job that fits no nodes (the plan of
//! the last pass kept): 9.9k of 72.6k passes with a plan qualify, but only 203 of the
//! 12.7k replans (a replan's pass almost always has room for a 1-GPU job by count).
//! A binary search for an add's end step in its last block, and value-only scans of
//! blocks a window covers whole: 1,311M (the spans an add walks are short).
//!
//! 2026-12-06 (callgrind as above, one policy a run; branch `r15-cb-exp-nodebound`), the
//! semantic change proposed above, built and not kept: node bounds. A job due now by count
//! whose start attempt fails gets, in that pool, a bound: the first of now and the pool's
//! running jobs' planned ends (an end before now at now) at which, with the GPUs, CPU and
//! memory of the jobs ending by then given back to their nodes, its request fits the nodes
//! (an up node with `w` wholly free GPUs and the host, a gang `ceil(w / g)` wholly free
//! nodes with its share); when that is after now, its searches in that pool start at the
//! bound (itself a candidate, as it need not be a step), and it is planned again with the
//! jobs after it; the bound holds until the job starts (arrivals no longer move it). The
//! from-scratch oracle got the same rule written by brute force (every candidate time, the
//! nodes rebuilt) and matched on 1,000 cases per test; a deliberate bug (the bound set but
//! the jobs after it not planned again) failed it at once. Before -> after: 100k at 90 %
//! FIFO 473.1M -> 468.2M, conservative backfill 1,298.4M (2.74x) -> 1,880.7M (4.02x; with
//! the walk's first step read from the cluster's free-GPU index instead of every node's
//! GPUs, 1,345.8M, 2.84x); 100k at 105 % FIFO 522.9M -> 518.0M, conservative backfill
//! 3,557.9M (6.80x) -> 5,386.7M (10.4x); the 1M end-to-end mix FIFO 4,736.9M -> 4,685.4M,
//! conservative backfill 9,041.1M (1.91x) -> 14,884.6M (3.18x) (the last two with the
//! first walk). Of the 1,880.7M, 652M were the walks at failed attempts (mostly their
//! first step over every node's GPUs: read from the index, the 1,345.8M above); the rest
//! of the policy's passes 961M against 1,026M before: the replans saved little. Mean
//! wait 0.16 -> 0.14 h, 36.18 -> 34.96 h, 0.05 -> 0.04 h. But the bound lets later jobs
//! fill the span before it and, by count, beyond it on the nodes the gang counted on: on
//! four 8-GPU nodes with a stream of 1-3 GPU jobs at about 92 % and a 16-GPU gang every 3
//! hours, the gangs' worst wait went 3.2 h -> 7.2 h and the mean wait of all jobs 0.97 h
//! -> 1.71 h (gang waits growing through the run): the count reservation at now, for all
//! its slides, also holds the gang's GPUs against backfill. Not cheaper, and worse for
//! gangs; a node-aware bound would need node reservations that later jobs respect (as
//! EASY's `ReservedNodes`), a larger change.
//!
//! 2026-12-06, later (callgrind as above, one policy a run; the same schedules: the
//! policies bench's schedule hashes equal before and after at 100k and 90 % and 105 %
//! and on the 1M end-to-end jobs, `scheduling_oracle`, `results/`). Where
//! the time goes now at 100k jobs and 90 %: of 1,301.8M (FIFO 476.4M, 2.73x) the policy's
//! passes take 1,028M (FIFO's 202M); in them start attempts 199M (312k attempts, 100k
//! starting: their placement 153M, as FIFO's), reservations taken 149M (190k adds, 784
//! instructions each), searches 127M (190k, 667 each), held replans 101M, give-backs
//! 96M (12.7k replans), stuck reservations moved to now 66M (189k): flat, no one part
//! near the 350M the 2x needs. Kept: a reservation is taken at the step its search
//! found (`Profile::earliest_at` returns the step's block and index, `reserve_found`
//! adds from there without locating it again): 1,276.9M; and an add walks a block it
//! covers in part once, adding until the first step at or after its end (was a scan for
//! that step, then a loop adding): 1,247.8M (2.62x against FIFO's 476.4M; reservations
//! taken 134M, give-backs 84M, the passes 974M). At 105 %: 3,561.0M -> 3,456.3M ->
//! 3,334.9M; the 1M end-to-end mix (`quick load=none e2e`): 9,075.3M -> 8,848.6M
//! (FIFO 4,769.5M: 1.90x -> 1.86x). Target 2x not met at 100k: what is left is the same
//! as above (the replans behind a stuck gang, and a search and an add for every job
//! planned); the two changes shave the constant of the adds, not their number.
//!
//! 2026-12-07, many pools (`benches/pools.rs`: 60,000 jobs at 110 % on 100, 500 and
//! 2,000 pools of 2-4 nodes; the schedule hashes equal before and after at every size
//! and on the policies bench's `quick` at 90 % and 105 %; `scheduling_oracle` now also
//! plans from scratch on 16-80 pools of three types, spot or not, at several speeds). A
//! pass cost O(pools) besides its jobs: every profile advanced to now, a kept plan checked
//! by reading every pool's free GPUs and the running set's count (and both noted again
//! at the end), `grew` and the give-back's changes cleared pool by pool; and a job's
//! search went over every eligible pool to the end of its earliest fit there. At 500
//! pools and 10,000 jobs (callgrind, `--toggle-collect='pools::replay*'`): 2,834M
//! instructions, of which advances 708M, the checks and counts about 900M, searches
//! 643M. Now a profile moves to now when a pass first reads or changes it
//! (`Profile::advance` is one comparison when it is there already); the policy hears of
//! every job that ends (`QueuePolicy::ended`) and knows the pool it started each in, so
//! when the cluster's count of changes ([`Cluster::changes`]) grew by exactly the number
//! of jobs that ended, only their pools are checked (else every pool, as before: a node
//! failed or came back, or a job's pool is not known), and only the pools where jobs
//! ended or started have their counts noted again; a replan clears only what it set. A
//! pool's search stops at the best start found so far (a later start there changes
//! neither the answer nor `rival`), and no pool is searched after one that offers now:
//! 2,834M -> 409M. Then `bounds.rs`: per pool and level `j`, the first time its profile
//! has `2^j` whole GPUs free, under a min-tree per eligibility group in pool order; a
//! search visits only the pools whose bound for the job's least count of GPUs is before
//! the best start so far (a pool whose profile changed is visited, and its bounds made
//! again, before it can be passed over): 409M -> 315M. The bounds are kept from 16
//! pools on and without per-class pool orders (with one pool, a search would make them
//! again after nearly every reservation). The plan is boxed (grown by the bounds and
//! buffers, it cost a `memcpy` each pass as it moved in and out of the policy): 310.1M.
//! Wall time, 60,000 jobs, before -> after (shared machine, one run each): 100 pools
//! 1.37 -> 0.92 s, 500 pools 5.56 -> 0.55 s, 2,000 pools 20.6 -> 0.78 s. Of the 315M
//! at 500 pools before boxing, the policy's passes took 281M: searches 145M (the bounds'
//! walk 56M, making bounds again 50M, the pools' own searches and advances the rest),
//! start attempts 28M, moves to now 19M. Few pools (the policies bench's `quick`, one
//! pool, so no bounds; callgrind `--toggle-collect='policies::replay*'`, the same
//! build's base measured alongside): 90 % 1,255.6M -> 1,269.0M (+1.1 %), 105 % 3,341.2M
//! -> 3,417.8M (+2.3 %): the lazy advances, the search's bound checks and the bookkeeping
//! of ended jobs cost a little where one pool made the O(pools) parts free (unboxed it
//! was 1,300.0M and 3,469.8M).
//!
//! [`Cluster::changes`]: crate::model::Cluster::changes
mod bounds;
mod held;
mod profile;

use super::{whole_gpus_may_fit, Progress, QueuePolicy, SchedCtx};
use crate::engine::SimTime;
use crate::model::{CapacityKind, GpuRequest, Job, JobId};
use bounds::Bounds;
use held::Held;
use profile::{Found, Profile};
use std::collections::VecDeque;

/// Waiting jobs that get a reservation in one pass.
pub const DEPTH: usize = 32;

/// Pools from which a search goes by the bounds of `bounds.rs` (with fewer, searching
/// each eligible pool costs less than keeping the bounds: a search would compute its
/// pool's bounds again after nearly every reservation).
const BOUNDED_POOLS: usize = 16;

/// Conservative backfill.
#[derive(Debug, Default)]
pub struct ConservativeBackfill {
    queue: VecDeque<JobId>,
    /// The plan of the last pass, while it still holds.
    plan: Option<Box<Plan>>,
    /// A plan that no longer holds, kept for its memory (the next build reuses it).
    recycled: Option<Box<Plan>>,
    /// Start attempts that failed (see [`start`]).
    failed: Failed,
    /// What changed between passes, so that a kept plan is checked only in the pools
    /// that changed (see [`Plan::holds`]).
    since: Since,
}

/// What a pass needs to know of the time since the last one: which pools' capacity may
/// have changed. Between passes the cluster changes only when a job ends (one give-back,
/// its pool's), a node goes up or down, or capacity is otherwise given or taken (each
/// one [`Cluster::changes`]); the simulation tells the policy of every job that ends.
/// When the cluster's count of changes grew by exactly the number of jobs that ended
/// (every one of them started by this policy in a known pool), only their pools changed.
///
/// [`Cluster::changes`]: crate::model::Cluster::changes
#[derive(Debug, Default)]
struct Since {
    /// Per job: the pool this policy started it in (`u32::MAX`: none, or it ended).
    pool_of: Vec<u32>,
    /// The pools of the jobs that ended since the last pass (with repeats).
    ended: Vec<u32>,
    /// True when a job ended whose pool is not known (every pool is then checked).
    unknown: bool,
    /// [`Cluster::changes`](crate::model::Cluster::changes) at the end of the last pass.
    changes: u64,
}

impl Since {
    /// The pools whose capacity may have changed since the last pass, or `None` when
    /// any may have.
    fn changed(&self, ctx: &SchedCtx) -> Option<&[u32]> {
        let expected = self.changes.wrapping_add(self.ended.len() as u64);
        (!self.unknown && ctx.cluster.changes() == expected).then_some(&self.ended[..])
    }

    /// Job `id` ended.
    fn ended(&mut self, id: JobId) {
        match self.pool_of.get_mut(id as usize) {
            Some(p) if *p != u32::MAX => {
                self.ended.push(*p);
                *p = u32::MAX;
            }
            _ => self.unknown = true,
        }
    }

    /// A pass ends: notes the pools of the jobs it started and the cluster's count.
    fn pass_ends(&mut self, ctx: &SchedCtx) {
        if self.pool_of.len() < ctx.jobs.len() {
            self.pool_of.resize(ctx.jobs.len(), u32::MAX);
        }
        for &id in ctx.started.iter() {
            if let (Some(r), Some(p)) = (ctx.running.get(id), self.pool_of.get_mut(id as usize)) {
                *p = r.alloc.pool;
            }
        }
        self.ended.clear();
        self.unknown = false;
        self.changes = ctx.cluster.changes();
    }
}

/// A reservation: start, pool, whole GPUs, duration, and the earliest start any pool
/// before this one (in the job's pool order) offered then (`NEVER`: none did).
#[derive(Debug, Clone, Copy)]
struct Slot {
    at: SimTime,
    pool: usize,
    need: i64,
    d: SimTime,
    rival: SimTime,
}

/// What a pass leaves for the next one.
#[derive(Debug)]
struct Plan {
    /// Per pool: free whole GPUs over time, all reservations taken.
    profiles: Vec<Profile>,
    /// The first waiting jobs (the queue's front, in order) and their reservations.
    window: Vec<(JobId, Option<Slot>)>,
    /// When the plan was made.
    now: SimTime,
    /// Per pool, after the pass: free whole GPUs, and the running set's count of whole
    /// GPUs removed.
    free: Vec<u64>,
    removed: Vec<u64>,
    /// Buffers kept between passes (no allocation per pass): the window being built and
    /// the per-pool `grew` bounds of a replan.
    spare: Vec<(JobId, Option<Slot>)>,
    grew: Vec<SimTime>,
    /// Per pool, the changes a replan gives back (see [`Plan::give_back`]).
    changes: Vec<Vec<(SimTime, i64)>>,
    /// The conflicts of a replan that keeps reservations in place (`held.rs`).
    held: Held,
    /// The steps of a profile being built (kept for the next build).
    steps: Vec<(SimTime, i64)>,
    /// The pools whose entry of `grew` or `changes` is set (the others are at their
    /// empty value: a replan touches only the pools of the jobs it plans again).
    grown: Vec<usize>,
    changed: Vec<usize>,
    /// Lower bounds on when each pool could hold a job (`bounds.rs`).
    bounds: Bounds,
}

impl Plan {
    /// A plan from scratch: the running jobs' planned ends, no waiting job planned; with
    /// `before`, as it was before that job started (its pool's free whole GPUs then, and
    /// without the job).
    fn build(ctx: &SchedCtx, before: Option<OffPlan>, recycled: Option<Box<Plan>>) -> Box<Plan> {
        let mut plan = recycled.unwrap_or_else(|| {
            Box::new(Plan {
                profiles: Vec::new(),
                window: Vec::with_capacity(DEPTH),
                now: ctx.now,
                free: Vec::new(),
                removed: Vec::new(),
                spare: Vec::with_capacity(DEPTH),
                grew: Vec::new(),
                changes: Vec::new(),
                held: Held::default(),
                steps: Vec::new(),
                grown: Vec::new(),
                changed: Vec::new(),
                bounds: Bounds::default(),
            })
        });
        plan.now = ctx.now;
        plan.window.clear();
        plan.profiles.resize_with(ctx.pools.len(), Profile::default);
        let skip = before.map(|o| o.id);
        for p in 0..ctx.pools.len() {
            let free = match before {
                Some(o) if o.slot.pool == p => o.free,
                _ => ctx.cluster.pool_free_whole_gpus(p),
            };
            let steps = &mut plan.steps;
            steps.clear();
            steps.push((ctx.now, free as i64));
            for (end, id) in ctx.running.by_planned_end(p) {
                let Some(r) = ctx.running.get(id).filter(|_| Some(id) != skip) else {
                    continue;
                };
                let g = r.whole_gpus() as i64;
                let at = end.max(ctx.now);
                let last = steps.last().map_or(0, |x| x.1);
                match steps.last_mut() {
                    Some(l) if l.0 == at => l.1 += g,
                    _ => steps.push((at, last + g)),
                }
            }
            plan.profiles[p].reset(&plan.steps);
        }
        let n = ctx.pools.len();
        if ctx.pools.cloud.is_none() && n >= BOUNDED_POOLS {
            if plan.bounds.is_for(ctx.pools.order_key, n) {
                plan.bounds.all_dirty();
            } else {
                let cap = ctx
                    .cluster
                    .pools()
                    .iter()
                    .map(|p| p.spec.nodes as u64 * p.spec.node.gpus as u64)
                    .max()
                    .unwrap_or(1);
                let groups = &ctx.pools.pools;
                plan.bounds
                    .build(ctx.pools.order_key, &ctx.pools.order, n, cap, |p| {
                        (groups[p].0, groups[p].1 == CapacityKind::Spot)
                    });
            }
        }
        plan
    }

    /// True when the profile from scratch would equal this one from now on: per pool,
    /// the free GPUs are what the pass left plus what ended since (jobs that ended
    /// before their planned end, and capacity changes, invalidate the plan). Only the
    /// pools in `changed` are checked when it is known (the others are as the last pass
    /// left them), else all; those checked note their counts now.
    fn holds(&mut self, ctx: &SchedCtx, changed: Option<&[u32]>) -> bool {
        let n = ctx.pools.len();
        if ctx.now < self.now
            || self.profiles.len() != n
            || self.free.len() != n
            || self.removed.len() != n
        {
            return false;
        }
        let mut check = |p: usize| {
            let removed = ctx.running.removed_whole_gpus(p);
            let free = ctx.cluster.pool_free_whole_gpus(p);
            let (free_was, removed_was) = (self.free[p], self.removed[p]);
            (self.free[p], self.removed[p]) = (free, removed);
            free == free_was.wrapping_add(removed.wrapping_sub(removed_was))
        };
        match changed {
            Some(pools) => pools.iter().all(|&p| check(p as usize)),
            None => (0..n).all(check),
        }
    }

    /// Gives back the reservations of `again` (the jobs to plan again), all of a pool's
    /// in one pass over its steps; only their pools are touched.
    fn give_back(&mut self, again: &[(JobId, Option<Slot>)], now: SimTime) {
        if again.is_empty() {
            return;
        }
        if self.changes.len() < self.profiles.len() {
            self.changes.resize_with(self.profiles.len(), Vec::new);
        }
        // Every entry of `changes` is empty here (emptied after use).
        self.changed.clear();
        for s in again.iter().filter_map(|x| x.1) {
            if s.need != 0 && s.d > SimTime::ZERO {
                let c = &mut self.changes[s.pool];
                if c.is_empty() {
                    self.changed.push(s.pool);
                }
                c.push((s.at, s.need));
                c.push((s.at.plus(s.d), -s.need));
            }
        }
        for &p in &self.changed {
            let c = &mut self.changes[p];
            c.sort_unstable_by_key(|x| x.0);
            let prof = &mut self.profiles[p];
            prof.advance(now);
            prof.add_all(c);
            c.clear();
            self.bounds.touch(p);
        }
    }

    /// The earliest reservation of `id` over its eligible pools (ties: pool order), and
    /// where its start step is in its pool's profile (for [`Profile::reserve_found`]).
    ///
    /// With `was`, the job's reservation in the plan before (`None` inside: it fitted
    /// nowhere) and, per pool, `grew`: the earliest time from which the profile it now
    /// sees may have more room than then. Every pool's earliest fit was then no earlier
    /// than that reservation, and a start whose window ends before `grew` still does not
    /// fit, so each pool's search starts at the later of the two bounds.
    ///
    /// A pool's search stops at the best start found so far in earlier pools (a later
    /// pool must offer an earlier start to count, and a pool's offer matters to `rival`
    /// only when it is the best so far), and once a pool offers now no later pool is
    /// searched: the pools after the best do not enter the answer. For the same reason
    /// the pools whose bound (`bounds.rs`: when their profile first has room for the
    /// job's least count of GPUs) is at or after the best start so far need not be
    /// searched: with the pools in one order (no per-class orders), the bounds' index
    /// finds the next pool that does in O(groups x log pools), and the pools between
    /// are not looked at.
    fn best(
        &mut self,
        ctx: &SchedCtx,
        id: JobId,
        was: Option<(Option<Slot>, &[SimTime])>,
    ) -> Option<(Slot, Found)> {
        let job = &ctx.jobs[id as usize];
        let mut search = Search {
            job,
            work: ctx.planned_remaining(id),
            was,
            best: None,
            rival: SimTime::NEVER,
        };
        let least = match job.gpus {
            GpuRequest::Whole(w) => w as u64,
            GpuRequest::Fraction(_) => 1,
            GpuRequest::None => 0,
        };
        if least > 0
            && ctx.pools.cloud.is_none()
            && self.bounds.is_for(ctx.pools.order_key, ctx.pools.len())
        {
            let level = self.bounds.level(least);
            let mut after = None;
            loop {
                let ub = search.ub();
                if ub <= ctx.now {
                    break;
                }
                let Some((pos, p)) = self
                    .bounds
                    .next(after, level, ub, |q| ctx.pools.allows(job, q))
                else {
                    break;
                };
                after = Some(pos);
                self.visit(ctx, &mut search, p);
            }
        } else {
            for p in ctx.pools.eligible(job) {
                if search.ub() <= ctx.now {
                    break;
                }
                self.visit(ctx, &mut search, p);
            }
        }
        search.best
    }

    /// Searches pool `p` for the job of `search`: its earliest start there before the best
    /// so far becomes the best (see [`Plan::best`]).
    fn visit(&mut self, ctx: &SchedCtx, search: &mut Search, p: usize) {
        let job = search.job;
        let gpn = ctx.cluster.pools()[p].spec.node.gpus as u64;
        let need = gpus_needed(job.gpus, gpn);
        let d = ctx.pools.runtime_for(job, search.work, p);
        let prof = &mut self.profiles[p];
        prof.advance(ctx.now);
        self.bounds.refresh(p, prof, ctx.now);
        let lb = match search.was {
            None => ctx.now,
            Some((slot, grew)) => {
                let before = slot.map_or(SimTime::NEVER, |s| s.at);
                if before == SimTime::NEVER && grew[p] == SimTime::NEVER {
                    return;
                }
                before
                    .min(SimTime(grew[p].0.saturating_sub(d.0)))
                    .max(ctx.now)
            }
        };
        let ub = search.ub();
        if lb >= ub {
            return;
        }
        if let Some(f) = prof.earliest_at(lb, ub, need, d) {
            // Before the best so far (the search stopped at it).
            if let Some((b, _)) = search.best {
                search.rival = search.rival.min(b.at);
            }
            search.best = Some((
                Slot {
                    at: f.at,
                    pool: p,
                    need,
                    d,
                    rival: search.rival,
                },
                f,
            ));
        }
    }

    /// A reservation that fell into the past (its job did not fit the nodes when it was
    /// due, or no pass came then) moved to now, if that is what planning it again gives
    /// and moves no later reservation: no earlier pool could offer now, and the
    /// reservation's new part `[max(now, old end), now + d)` leaves the profile
    /// non-negative (then every later job still fits where it was planned, and as the
    /// profile only lost capacity, nothing earlier opened for it). Otherwise the profile
    /// is left as it was and `None` returned.
    fn move_to_now(&mut self, s: Slot, now: SimTime) -> Option<Slot> {
        if s.rival <= now || s.d == SimTime::ZERO {
            return None;
        }
        let from = now.max(s.at.plus(s.d));
        let end = now.plus(s.d);
        let prof = &mut self.profiles[s.pool];
        prof.advance(now);
        let taken = prof.take_if_free(from, s.need, end.since(from));
        if taken {
            self.bounds.touch(s.pool);
        }
        taken.then_some(Slot { at: now, ..s })
    }
}

/// One job's search over its eligible pools ([`Plan::best`]).
struct Search<'a> {
    job: &'a Job,
    /// Its planned remaining work.
    work: SimTime,
    /// Its reservation before and the per-pool `grew` bounds, when planned again.
    was: Option<(Option<Slot>, &'a [SimTime])>,
    /// The best reservation so far, and the earliest start of the pools before its.
    best: Option<(Slot, Found)>,
    rival: SimTime,
}

impl Search<'_> {
    /// The best start so far (`NEVER`: none).
    fn ub(&self) -> SimTime {
        self.best.map_or(SimTime::NEVER, |b| b.0.at)
    }
}

/// Where the profile gains room when a job's reservation moves from `old` to `new`:
/// the start of the part of `old` (from `now` on) that `new` does not cover.
fn freed_from(old: Slot, new: Option<Slot>, now: SimTime) -> SimTime {
    let (a, b) = (old.at.max(now), old.at.plus(old.d));
    if a >= b {
        return SimTime::NEVER;
    }
    match new {
        Some(n) if n.pool == old.pool => {
            let (c, e) = (n.at, n.at.plus(n.d));
            if c > a {
                a
            } else if e < b {
                e.max(a)
            } else {
                SimTime::NEVER
            }
        }
        _ => a,
    }
}

/// Starts `id` now in its reserved pool; `None` if it does not fit, else whether the
/// run is what the reservation planned (its whole GPUs and planned end), so that the
/// profile stays true.
///
/// `failed` remembers the pool and [`Cluster::releases`] of a job's last attempt that
/// failed: while nothing was given back since, free capacity only shrank and the attempt
/// would fail again, so it is not made (when fits do not depend on the time or a
/// budget).
///
/// [`Cluster::releases`]: crate::model::Cluster::releases
fn start(ctx: &mut SchedCtx, failed: &mut Failed, id: JobId, s: Slot) -> Option<bool> {
    let (p, need, d) = (s.pool, s.need, s.d);
    let memo = ctx.fit_ignores_time() && ctx.budget.uncapped();
    let releases = ctx.cluster.releases();
    let entry = &mut failed.0[id as usize % FAILED];
    if memo && *entry == (id, p, releases) {
        return None;
    }
    // A job whose whole GPUs no node (a gang: no set of free nodes) of the pool has now
    // does not fit: the attempt is not made (a reservation due by count often meets a
    // fragmented pool: on the end-to-end bench's 1M jobs, 807k of 1.81M attempts).
    let may_fit = whole_gpus_may_fit(ctx.cluster, p, ctx.jobs[id as usize].gpus);
    let before = if may_fit {
        ctx.cluster.pool_free_whole_gpus(p)
    } else {
        0
    };
    if !(may_fit && ctx.try_start_in(id, p)) {
        if memo {
            *entry = (id, p, releases);
        }
        return None;
    }
    if entry.0 == id {
        *entry = Failed::NONE;
    }
    let after = ctx.cluster.pool_free_whole_gpus(p);
    let as_planned = before.checked_sub(after) == Some(need as u64)
        && ctx
            .running
            .get(id)
            .is_some_and(|r| r.whole_gpus() as i64 == need && r.planned_end == ctx.now.plus(d));
    Some(as_planned)
}

/// Entries of [`Failed`].
const FAILED: usize = 64;

/// Start attempts that failed, a few at a time: job `id`'s entry, at `id` modulo their
/// number, holds the job, the pool and [`Cluster::releases`] of its last failed attempt
/// (another job's failure may take the entry: the attempt is then made again, which
/// changes nothing but the work).
///
/// [`Cluster::releases`]: crate::model::Cluster::releases
#[derive(Debug)]
struct Failed([(JobId, usize, u64); FAILED]);

impl Failed {
    /// An entry of no attempt.
    const NONE: (JobId, usize, u64) = (JobId::MAX, usize::MAX, u64::MAX);
}

impl Default for Failed {
    fn default() -> Self {
        Failed([Failed::NONE; FAILED])
    }
}

/// Whole GPUs a job takes in a pool with `gpn` GPUs per node.
fn gpus_needed(req: GpuRequest, gpn: u64) -> i64 {
    match req {
        GpuRequest::None => 0,
        GpuRequest::Fraction(_) => 1,
        GpuRequest::Whole(w) if w as u64 > gpn => ((w as u64).div_ceil(gpn.max(1)) * gpn) as i64,
        GpuRequest::Whole(w) => w as i64,
    }
}

impl ConservativeBackfill {
    /// Job `id`, at position `*i` of the queue, with its reservation `slot`: started when
    /// the reservation is due now and the job fits (it leaves the queue; `keeps` notes
    /// whether the run is what was planned), else kept in the plan's window (and `*i`
    /// moves past it).
    fn settle(
        &mut self,
        ctx: &mut SchedCtx,
        plan: &mut Plan,
        keeps: &mut bool,
        i: &mut usize,
        id: JobId,
        slot: Option<Slot>,
    ) {
        if let Some(s) = slot.filter(|s| s.at == ctx.now) {
            if let Some(as_planned) = start(ctx, &mut self.failed, id, s) {
                *keeps &= as_planned;
                self.queue.remove(*i);
                return;
            }
        }
        plan.window.push((id, slot));
        *i += 1;
    }

    /// Starts the jobs at the queue's front whose reservation, planned from scratch, is
    /// now, without building a profile. Planning from scratch begins with the running
    /// jobs' profile, which never falls from now on (capacity only comes back as they
    /// end), so a job's earliest reservation is now exactly when its whole GPUs are free
    /// now in an eligible pool (the first such, as ties go by pool order); a job started
    /// as planned leaves that profile the running jobs' again. Stops at the first job
    /// reserved later or that does not fit the nodes (planned then with a profile), and
    /// after one that started other than planned, which it returns.
    /// `seen` counts the jobs planned.
    fn start_front(&mut self, ctx: &mut SchedCtx, seen: &mut usize) -> Option<OffPlan> {
        while *seen < DEPTH {
            let &id = self.queue.front()?;
            let slot = now_slot(ctx, id)?;
            let free = ctx.cluster.pool_free_whole_gpus(slot.pool);
            let as_planned = start(ctx, &mut self.failed, id, slot)?;
            self.queue.pop_front();
            *seen += 1;
            if !as_planned {
                return Some(OffPlan { id, slot, free });
            }
        }
        None
    }
}

/// A job [`ConservativeBackfill::start_front`] started other than planned: its
/// reservation, and its pool's free whole GPUs before it started.
#[derive(Debug, Clone, Copy)]
struct OffPlan {
    id: JobId,
    slot: Slot,
    free: u64,
}

/// The reservation now of `id` in the first eligible pool whose profile from scratch
/// has its whole GPUs now, if any (what [`Plan::best`] finds in a profile that never
/// falls from now on).
fn now_slot(ctx: &SchedCtx, id: JobId) -> Option<Slot> {
    let job = &ctx.jobs[id as usize];
    let work = ctx.planned_remaining(id);
    ctx.pools.eligible(job).find_map(|p| {
        let gpn = ctx.cluster.pools()[p].spec.node.gpus as u64;
        let need = gpus_needed(job.gpus, gpn);
        (profile_now(ctx, p) >= need).then(|| Slot {
            at: ctx.now,
            pool: p,
            need,
            d: ctx.pools.runtime_for(job, work, p),
            rival: SimTime::NEVER,
        })
    })
}

/// The first value of pool `p`'s profile from scratch ([`Plan::build`]): its free whole
/// GPUs and those of the running jobs planned to have ended by now (a wrong estimate
/// overran, or an end not yet handled at this instant).
fn profile_now(ctx: &SchedCtx, p: usize) -> i64 {
    let overran: u64 = ctx
        .running
        .by_planned_end(p)
        .take_while(|&(end, _)| end <= ctx.now)
        .filter_map(|(_, id)| ctx.running.get(id))
        .map(|r| r.whole_gpus())
        .sum();
    (ctx.cluster.pool_free_whole_gpus(p) + overran) as i64
}

impl QueuePolicy for ConservativeBackfill {
    fn name(&self) -> &'static str {
        "conservative_backfill"
    }
    fn push(&mut self, id: JobId, _job: &Job) {
        // Behind every planned job: the plan holds.
        self.queue.push_back(id);
    }
    fn requeue(&mut self, id: JobId, _job: &Job, _p: &Progress) {
        self.queue.push_front(id);
        self.invalidate();
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
    fn invalidate(&mut self) {
        if let Some(p) = self.plan.take() {
            self.recycled = Some(p);
        }
    }
    fn ended(&mut self, id: JobId, _job: &Job) {
        self.since.ended(id);
    }
    fn schedule(&mut self, ctx: &mut SchedCtx) {
        self.pass(ctx);
        self.since.pass_ends(ctx);
    }
}

impl ConservativeBackfill {
    /// One pass (see the module doc).
    fn pass(&mut self, ctx: &mut SchedCtx) {
        let now = ctx.now;
        let mut keeps = true;
        let mut seen = 0;
        let mut kept = self.plan.take();
        let holds = match kept.as_mut() {
            Some(p) => p.holds(ctx, self.since.changed(ctx)),
            None => false,
        };
        let built = !holds;
        let mut plan = match kept {
            Some(p) if holds => p,
            other => {
                if let Some(p) = other {
                    self.recycled = Some(p);
                }
                let off_plan = self.start_front(ctx, &mut seen);
                if off_plan.is_none() && (self.queue.is_empty() || seen >= DEPTH) {
                    // Every job planned started as planned: no reservation to keep.
                    return;
                }
                // Planning from scratch goes on with the profile from before a job that
                // started other than planned, less its planned reservation (not its run).
                let mut plan = Plan::build(ctx, off_plan, self.recycled.take());
                if let Some(o) = off_plan {
                    plan.profiles[o.slot.pool].reserve(now, o.slot.need, o.slot.d);
                    plan.bounds.touch(o.slot.pool);
                    keeps = false;
                }
                plan
            }
        };
        // Each pool's profile moves to now when the pass first reads or changes it.
        // Kept reservations: the same as planning them again. They stay in the window
        // where they are; only those due by now are looked at (the window is the queue's
        // front, in order): one in the past moves to now, one due now is started. From
        // the first one in the past that cannot simply move to now, all are planned anew.
        let mut k = 0;
        let mut replan_from = None;
        while k < plan.window.len() {
            let (id, slot) = plan.window[k];
            debug_assert_eq!(self.queue.get(k), Some(&id));
            let s = match slot {
                Some(s) if s.at <= now => s,
                _ => {
                    k += 1;
                    continue;
                }
            };
            let s = if s.at < now {
                match plan.move_to_now(s, now) {
                    Some(s) => s,
                    None => {
                        replan_from = Some(k);
                        break;
                    }
                }
            } else {
                s
            };
            match start(ctx, &mut self.failed, id, s) {
                Some(as_planned) => {
                    keeps &= as_planned;
                    self.queue.remove(k);
                    plan.window.remove(k);
                    seen += 1;
                }
                None => {
                    plan.window[k].1 = Some(s);
                    k += 1;
                }
            }
        }
        let kept = replan_from.unwrap_or(plan.window.len());
        seen += kept;
        let mut old = std::mem::take(&mut plan.spare);
        old.clear();
        old.extend(plan.window.drain(kept..));
        // Position in the queue of the job at hand.
        let mut i = kept;
        let mut again = &old[..];
        // The stuck reservation moved to now and the jobs after it kept in place while
        // that is provably what planning them again gives (`held.rs`).
        let mut held = std::mem::take(&mut plan.held);
        held.clear();
        let mut k = 0;
        while k < again.len() {
            let (id, was) = again[k];
            debug_assert_eq!(self.queue.get(i), Some(&id));
            let Some(slot) = held.keeps(&mut plan, was, &again[k + 1..], now) else {
                break;
            };
            k += 1;
            seen += 1;
            self.settle(ctx, &mut plan, &mut keeps, &mut i, id, slot);
        }
        again = &again[k..];
        plan.held = held;
        plan.give_back(again, now);
        // Per pool: from when the profile may have more room than the plan before had
        // for the job at hand (a job planned anew no longer takes its old place).
        // Every entry is `NEVER` between replans (those set are reset after).
        let mut grew = std::mem::take(&mut plan.grew);
        if grew.len() != plan.profiles.len() {
            grew.clear();
            grew.resize(plan.profiles.len(), SimTime::NEVER);
        }
        // The jobs planned anew and those that moved into the first DEPTH.
        let mut j = 0;
        while i < self.queue.len() && seen < DEPTH {
            seen += 1;
            let id = self.queue[i];
            let found = match again.get(j) {
                Some(&(was_id, was)) => {
                    debug_assert_eq!(was_id, id);
                    j += 1;
                    let found = plan.best(ctx, id, Some((was, &grew)));
                    if let Some(o) = was {
                        let g = &mut grew[o.pool];
                        *g = (*g).min(freed_from(o, found.map(|x| x.0), now));
                        plan.grown.push(o.pool);
                    }
                    found
                }
                None => plan.best(ctx, id, None),
            };
            // Taken where the search found it (the profile is unchanged since).
            let slot = found.map(|(s, f)| {
                plan.profiles[s.pool].reserve_found(f, s.need, s.d);
                plan.bounds.touch(s.pool);
                s
            });
            self.settle(ctx, &mut plan, &mut keeps, &mut i, id, slot);
        }
        old.clear();
        plan.spare = old;
        for &p in &plan.grown {
            grew[p] = SimTime::NEVER;
        }
        plan.grown.clear();
        plan.grew = grew;
        if keeps && !plan.window.is_empty() {
            plan.now = now;
            if built {
                plan.free.clear();
                plan.free
                    .extend((0..ctx.pools.len()).map(|p| ctx.cluster.pool_free_whole_gpus(p)));
                plan.removed.clear();
                plan.removed
                    .extend((0..ctx.pools.len()).map(|p| ctx.running.removed_whole_gpus(p)));
            } else {
                // A kept plan's counts are those of the last pass but in the pools
                // checked (noted then) and those where this pass started jobs.
                for &id in ctx.started.iter() {
                    if let Some(r) = ctx.running.get(id) {
                        let p = r.alloc.pool as usize;
                        plan.free[p] = ctx.cluster.pool_free_whole_gpus(p);
                        plan.removed[p] = ctx.running.removed_whole_gpus(p);
                    }
                }
            }
            self.plan = Some(plan);
        } else {
            // Nothing reserved (the next pass plans from scratch, its first jobs without a
            // profile: `start_front`), or a start other than planned: the plan is kept
            // only for its memory.
            self.recycled = Some(plan);
        }
    }
}
