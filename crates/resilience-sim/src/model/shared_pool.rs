//! # Lab D (Demo 11): one pool of 24 threads, and a bulkhead of 8
//!
//! A service answers two endpoints from one shared pool of 24 request threads (a servlet
//! container's worker pool: Tomcat's `maxThreads`, default 200, here 24 so that every
//! thread can be drawn as a cell). `/fast` does about 20 ms of local work; `/drm` calls a
//! vendor that normally answers in about 100 ms. Each endpoint gets 50 requests/s. Then
//! the vendor becomes slow: 5 s per call, with no error at all.
//!
//! ## Why this lab exists: Little's law
//!
//! The threads a workload holds on average are its arrival rate times the time each
//! request holds a thread (Little's law, `L = λ W`). Before the incident:
//!
//! - `/fast`: 50 requests/s x 0.02 s = **1 thread**;
//! - `/drm`: 50 requests/s x 0.1 s = **5 threads**;
//!
//! 6 threads of 24: a quarter of the pool, a service that looks over-provisioned. When the
//! vendor takes 5 s, `/drm` alone needs 50 x 5 = **250 threads**, against 24. The pool
//! fills in about half a second (24 threads at 50 new `/drm` requests a second), and from
//! then on a thread only comes free when a 5 s vendor call ends: about 24 / 5 = 4.8
//! threads a second, for 100 requests arriving. `/fast` still needs only one thread, but
//! it waits for one in the same accept queue as `/drm`, behind `/drm` requests, and its
//! clients give up after a second. The slow dependency of one endpoint has taken down an
//! endpoint that never calls it: that is the failure a bulkhead exists for.
//!
//! A **semaphore bulkhead of 8** on the vendor call caps the threads `/drm` can hold
//! *inside the vendor call* at 8. Read Little's law backwards: with 8 calls in flight that
//! take 5 s each, the vendor completes 1.6 calls a second; the other ~48 `/drm` requests
//! a second are refused at once (`BulkheadFullException`, a fast 503) and give their
//! thread back in the same millisecond. `/drm` degrades (it was failing anyway: a 5 s
//! answer comes after its client has left), and `/fast` keeps 16 threads for the one it
//! needs. The bulkhead does not make the vendor faster; it decides who pays for it.
//!
//! A **thread-pool bulkhead** looks like the same protection, but the request thread
//! still waits for the vendor call's future: a call waiting in the bulkhead's *queue*
//! holds a request thread just as a running call does. With 8 vendor threads and
//! Resilience4j's default queue of 100, `/drm` may hold 8 + 100 = 108 request threads,
//! and the pool only has 24: the queue never even fills, the bulkhead never refuses a
//! call, and the shared pool drains as if there were no bulkhead at all, with extra
//! latency on top (a queued call waits for a vendor thread, then for the vendor). Only a
//! queue small enough that `maxThreadPoolSize + queueCapacity` leaves threads for `/fast`
//! protects it. The same holds for a semaphore with a `maxWaitDuration`: a call waiting
//! for a permit waits on its request thread (50 requests/s x 0.5 s of waiting = 25
//! threads).
//!
//! ## The model
//!
//! Time is in whole milliseconds; the model is event-driven (it jumps from one arrival
//! or completion to the next), so a minute of traffic runs in about a millisecond of real
//! time. Everything is reported per second.
//!
//! - **Arrivals** (`arrivals`), one stream per endpoint at `rpsFast` / `rpsDrm`:
//!   - `even` (default): *jittered-uniform*. The second is cut into `rps` equal slots and
//!     the k-th request arrives at a uniformly drawn instant of the k-th slot (microsecond
//!     precision, truncated to the millisecond). Exactly `rps` requests arrive in every
//!     second, never two in one slot. With the defaults at most 7 `/drm` calls can ever
//!     overlap before the incident (a call lasts at most 120 ms, which touches at most 7
//!     slots of 20 ms), so a bulkhead of 8 refuses nothing on a good day;
//!   - `poisson`: a Poisson process (the number of arrivals in each millisecond is drawn
//!     from a Poisson law of mean `rps / 1000`, Knuth's method). Bursts are real: with 5
//!     calls in flight on average, a bulkhead of 8 (`maxWaitDuration` 0) refuses about 7 %
//!     of `/drm` even before the incident (Erlang's loss formula, B(8, 5) = 0.07): a
//!     bulkhead sized at the average concurrency plus a little refuses the bursts.
//! - **Work times**: every duration is jittered uniformly within ±20 % of its setting
//!   (`fastMs` 20 gives 16 to 24 ms; `vendorNormalMs` 100 gives 80 to 120 ms; `vendorMs`
//!   5,000 gives 4 to 6 s), at least 1 ms. A request's jitter is drawn when it arrives,
//!   from its endpoint's own seeded generator, so the same seed gives the same traffic
//!   whatever the bulkhead: runs that differ only in their protection are comparable
//!   request by request.
//! - **The vendor** answers in `vendorNormalMs` a call that *starts* before
//!   `vendorSlowAtS`, and in `vendorMs` a call that starts at or after it, until the end
//!   of the run (a call already in flight keeps its speed). It never fails: the incident
//!   is slowness only, and the vendor has no capacity limit (every call in flight is
//!   served in parallel).
//! - **The request pool**: `threads` threads, numbered 0 to `threads - 1`. A request
//!   holds one thread for its whole life on the server. A free thread is taken by the
//!   oldest waiting request; when several threads are free, the lowest-numbered one is
//!   used, so thread `i` is always cell `i` and a quiet service stays in the first cells.
//!   `/fast` holds its thread for its local work. `/drm` holds it through the bulkhead
//!   (waiting for a permit or in the thread-pool's queue) and the vendor call, then
//!   answers at once. There is no local work in `/drm`.
//! - **The accept queue**: a request that finds no free thread waits, first come first
//!   served, in a queue of `acceptCount` places (Tomcat's `acceptCount`, default 100). A
//!   request that finds the queue full is refused at once (connection refused). A
//!   request leaves the queue, failed, when its client gives up before a thread takes it
//!   (the server then never works on it: an optimistic simplification, as a real server
//!   may still read and serve a request whose client has left).
//! - **The client's timeout** (`clientTimeoutMs`, default 1 s) runs from the request's
//!   arrival and covers its whole life: the wait for a thread and the work. The client
//!   gives up at the instant `arrival + clientTimeoutMs`: an answer or a thread has to
//!   come strictly before it. The server does not know that the client left (no deadline
//!   propagation, no timeout on the vendor call): a request whose client gave up keeps
//!   its thread until its work or its vendor call ends. That abandoned work is what the
//!   pool is full of during the incident.
//! - **Bulkhead on the vendor call** (`bulkhead`), the engine's own policies
//!   ([`SemaphoreBulkhead`], [`ThreadPoolBulkhead`]); this model only drives them:
//!   - `none`: every `/drm` request thread calls the vendor;
//!   - `semaphore`: `maxConcurrentCalls` permits; with `maxWaitDuration` > 0 a call waits
//!     for a permit on its request thread (first come first served) and is refused when
//!     the wait runs out;
//!   - `thread-pool`: `coreThreadPoolSize`, `maxThreadPoolSize`, `queueCapacity`,
//!     `keepAliveDuration`, admitted in the JDK's order (core threads, then the queue, then
//!     up to max threads, then refuse). The request thread waits for the call's future
//!     while the call is queued or running.
//!
//!   A refusal (`BulkheadFullException`) fails the `/drm` request at once: the request
//!   thread answers (a 503) and is free in the same millisecond.
//!
//! ## What a request's outcome is (the client's view)
//!
//! Every request ends in exactly one of these, or is *unfinished* when the run ends
//! before its client knows:
//!
//! - **ok**: answered strictly before its client's deadline. A slow answer is still an
//!   answer: with a client timeout above 5 s, `/drm` succeeds in 5 s during the incident;
//!   with the default 1 s it cannot, so every `/drm` request that reaches the slow vendor
//!   fails, bulkhead or not;
//! - **no thread**: refused because the accept queue was full, or gave up in the queue;
//! - **timed out**: got a thread, but no answer before the deadline (the thread keeps
//!   working after the client left);
//! - **rejected by the bulkhead** (`/drm` only): `BulkheadFullException` before the
//!   deadline.
//!
//! ## Units of the output
//!
//! Each [`PoolSecond`] row covers one second, `t_s` being its end (`t_s` 1 is `[0, 1 s)`):
//!
//! - the request counts (`fast_total`, `fast_ok`, ...) count the requests that **arrived**
//!   in that second, by how they ended, whenever that was (at most a client timeout
//!   later). So every row balances: `total = ok + failed + unfinished`, and `failed =
//!   no_thread + timed_out + rejected_by_bulkhead`. `unfinished` is not zero only near the
//!   end of the run. The success rate of a row is the share of that second's requests
//!   that got an answer;
//! - the latency percentiles are those of the row's **ok** requests (arrival to answer,
//!   nearest-rank), `None` when none succeeded;
//! - the thread counts and the cells are a snapshot of the pool at the end of the second
//!   (after every event strictly before `t_s`).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use rand::RngExt;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use super::{nearest_rank, stream_rng};
use crate::error::{check_range, ConfigError};
use crate::policy::bulkhead::{
    Admission, BulkheadConfig, SemaphoreBulkhead, ThreadPoolAdmission, ThreadPoolBulkhead,
    ThreadPoolBulkheadConfig, WaiterId,
};
use crate::Millis;

/// The largest request pool (and thread-pool bulkhead) a run may have.
pub const MAX_THREADS: u32 = 200;
/// The highest arrival rate of one endpoint, in requests per second.
pub const MAX_RPS: u32 = 1_000;
/// The longest run, in seconds.
pub const MAX_SECONDS: u32 = 600;
/// The largest accept queue and thread-pool bulkhead queue.
pub const MAX_QUEUE: u32 = 10_000;
/// The longest work, vendor call or bulkhead wait (1 minute).
pub const MAX_WORK_MS: Millis = 60_000;
/// The shortest and longest client timeout.
pub const MIN_CLIENT_TIMEOUT_MS: Millis = 100;
pub const MAX_CLIENT_TIMEOUT_MS: Millis = 120_000;
/// Every work time is drawn uniformly within ± this share (in percent) of its setting.
pub const WORK_JITTER_PERCENT: u64 = 20;

/// The protection of the vendor call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PoolBulkhead {
    /// Every request thread may call the vendor.
    #[default]
    None,
    /// Resilience4j `Bulkhead`: `maxConcurrentCalls` permits, `maxWaitDuration`.
    Semaphore,
    /// Resilience4j `ThreadPoolBulkhead`: the call runs on a bounded pool of its own while
    /// the request thread waits for its future.
    ThreadPool,
}

impl PoolBulkhead {
    pub const ALL: [PoolBulkhead; 3] = [
        PoolBulkhead::None,
        PoolBulkhead::Semaphore,
        PoolBulkhead::ThreadPool,
    ];

    /// The word the link, the CLI and JSON use.
    pub const fn name(self) -> &'static str {
        match self {
            PoolBulkhead::None => "none",
            PoolBulkhead::Semaphore => "semaphore",
            PoolBulkhead::ThreadPool => "thread-pool",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|b| b.name() == name)
    }

    /// A short label for a select.
    pub const fn label(self) -> &'static str {
        match self {
            PoolBulkhead::None => "none",
            PoolBulkhead::Semaphore => "semaphore bulkhead",
            PoolBulkhead::ThreadPool => "thread-pool bulkhead",
        }
    }
}

/// How requests arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arrivals {
    /// Jittered-uniform: one request at a random instant of each of `rps` equal slots.
    #[default]
    Even,
    /// A Poisson process: random gaps, bursts included.
    Poisson,
}

impl Arrivals {
    pub const ALL: [Arrivals; 2] = [Arrivals::Even, Arrivals::Poisson];

    pub const fn name(self) -> &'static str {
        match self {
            Arrivals::Even => "even",
            Arrivals::Poisson => "poisson",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.name() == name)
    }

    pub const fn label(self) -> &'static str {
        match self {
            Arrivals::Even => "evenly spread (jittered)",
            Arrivals::Poisson => "Poisson (random bursts)",
        }
    }
}

/// The two endpoints of the service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Endpoint {
    /// Local work only.
    Fast,
    /// Calls the vendor.
    Drm,
}

/// What one request thread is doing, as a cell of the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThreadUse {
    /// Idle, ready for the next request.
    Free,
    /// Serving `/fast` (possibly for a client that has already given up).
    Fast,
    /// Serving `/drm` with the vendor at its normal speed.
    Drm,
    /// Serving `/drm`, waiting in the bulkhead (for a semaphore permit, or in the
    /// thread-pool bulkhead's queue) before the vendor call starts.
    QueuedForVendor,
    /// Serving `/drm`, waiting on a vendor call made while the vendor is slow.
    StuckOnVendor,
}

impl ThreadUse {
    /// Whether the thread serves `/drm` (any of the three `/drm` states).
    pub const fn is_drm(self) -> bool {
        matches!(
            self,
            ThreadUse::Drm | ThreadUse::QueuedForVendor | ThreadUse::StuckOnVendor
        )
    }
}

/// Every control of Lab D; `Default` is the spec's page (no bulkhead).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct SharedPoolConfig {
    /// Request threads shared by both endpoints (1 to 200; default 24).
    pub threads: u32,
    /// `/fast` requests per second (0 to 1,000; default 50).
    pub rps_fast: u32,
    /// `/drm` requests per second (0 to 1,000; default 50).
    pub rps_drm: u32,
    /// `/fast`'s local work (1 ms to 1 min; default 20 ms).
    pub fast_ms: Millis,
    /// The vendor's answer time before the incident (1 ms to 1 min; default 100 ms).
    pub vendor_normal_ms: Millis,
    /// The vendor's answer time during the incident (1 ms to 1 min; default 5 s).
    pub vendor_ms: Millis,
    /// When the vendor becomes slow, in seconds from the start (0 to 600; default 10). At
    /// or after the end of the run the vendor is never slow.
    pub vendor_slow_at_s: u32,
    /// The length of the run in seconds (1 to 600; default 60).
    pub seconds: u32,
    /// Places in the accept queue (0 to 10,000; default 100, as Tomcat's `acceptCount`).
    pub accept_count: u32,
    /// How long a client waits for its answer, from arrival (100 ms to 2 min; default 1 s).
    pub client_timeout_ms: Millis,
    /// How requests arrive (default even).
    pub arrivals: Arrivals,
    /// The protection of the vendor call (default none).
    pub bulkhead: PoolBulkhead,
    /// Semaphore: permits (0 to 200; default 8; 0 refuses every call).
    pub max_concurrent_calls: u32,
    /// Semaphore: how long a call may wait for a permit (0 to 1 min; default 0).
    #[serde(with = "crate::duration::serde_millis")]
    pub max_wait_duration: Millis,
    /// Thread pool: core threads (1 to 200; default 8).
    pub core_thread_pool_size: u32,
    /// Thread pool: max threads (1 to 200, at least the core; default 8).
    pub max_thread_pool_size: u32,
    /// Thread pool: queue places (0 to 10,000; default 100, Resilience4j's default).
    pub queue_capacity: u32,
    /// Thread pool: idle time after which a thread above the core ends (0 to 1 min;
    /// default 20 ms, Resilience4j's default).
    #[serde(with = "crate::duration::serde_millis")]
    pub keep_alive_duration: Millis,
    /// Seed of the arrivals and of the work times.
    pub seed: u64,
}

impl Default for SharedPoolConfig {
    fn default() -> Self {
        Self {
            threads: 24,
            rps_fast: 50,
            rps_drm: 50,
            fast_ms: 20,
            vendor_normal_ms: 100,
            vendor_ms: 5_000,
            vendor_slow_at_s: 10,
            seconds: 60,
            accept_count: 100,
            client_timeout_ms: 1_000,
            arrivals: Arrivals::Even,
            bulkhead: PoolBulkhead::None,
            max_concurrent_calls: 8,
            max_wait_duration: 0,
            core_thread_pool_size: 8,
            max_thread_pool_size: 8,
            queue_capacity: 100,
            keep_alive_duration: 20,
            seed: 1,
        }
    }
}

impl SharedPoolConfig {
    /// Bounds that keep every run finite and fast, whatever a slider or flag says. Every
    /// bulkhead setting is checked, whichever bulkhead is chosen.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range("threads", self.threads.into(), 1, MAX_THREADS.into())?;
        check_range("rpsFast", self.rps_fast.into(), 0, MAX_RPS.into())?;
        check_range("rpsDrm", self.rps_drm.into(), 0, MAX_RPS.into())?;
        check_range("fastMs", self.fast_ms, 1, MAX_WORK_MS)?;
        check_range("vendorNormalMs", self.vendor_normal_ms, 1, MAX_WORK_MS)?;
        check_range("vendorMs", self.vendor_ms, 1, MAX_WORK_MS)?;
        check_range(
            "vendorSlowAtS",
            self.vendor_slow_at_s.into(),
            0,
            MAX_SECONDS.into(),
        )?;
        check_range("seconds", self.seconds.into(), 1, MAX_SECONDS.into())?;
        check_range("acceptCount", self.accept_count.into(), 0, MAX_QUEUE.into())?;
        check_range(
            "clientTimeoutMs",
            self.client_timeout_ms,
            MIN_CLIENT_TIMEOUT_MS,
            MAX_CLIENT_TIMEOUT_MS,
        )?;
        check_range(
            "maxConcurrentCalls",
            self.max_concurrent_calls.into(),
            0,
            MAX_THREADS.into(),
        )?;
        check_range("maxWaitDuration", self.max_wait_duration, 0, MAX_WORK_MS)?;
        check_range(
            "coreThreadPoolSize",
            self.core_thread_pool_size.into(),
            1,
            MAX_THREADS.into(),
        )?;
        check_range(
            "maxThreadPoolSize",
            self.max_thread_pool_size.into(),
            1,
            MAX_THREADS.into(),
        )?;
        check_range(
            "queueCapacity",
            self.queue_capacity.into(),
            0,
            MAX_QUEUE.into(),
        )?;
        check_range(
            "keepAliveDuration",
            self.keep_alive_duration,
            0,
            MAX_WORK_MS,
        )?;
        self.semaphore_config().validate()?;
        self.thread_pool_config().validate()
    }

    /// The semaphore bulkhead's settings.
    pub fn semaphore_config(&self) -> BulkheadConfig {
        BulkheadConfig {
            max_concurrent_calls: self.max_concurrent_calls,
            max_wait_duration: self.max_wait_duration,
        }
    }

    /// The thread-pool bulkhead's settings.
    pub fn thread_pool_config(&self) -> ThreadPoolBulkheadConfig {
        ThreadPoolBulkheadConfig {
            core_thread_pool_size: self.core_thread_pool_size,
            max_thread_pool_size: self.max_thread_pool_size,
            queue_capacity: self.queue_capacity,
            keep_alive_duration: self.keep_alive_duration,
        }
    }

    /// The most request threads `/drm` can hold inside the bulkhead, if the bulkhead
    /// bounds it: `maxConcurrentCalls` for a semaphore that does not wait, max threads +
    /// queue for a thread pool; `None` without a bulkhead, or for a semaphore whose waiters
    /// hold threads too (they are bounded by time, not by count).
    pub fn drm_thread_cap(&self) -> Option<u64> {
        match self.bulkhead {
            PoolBulkhead::None => None,
            PoolBulkhead::Semaphore if self.max_wait_duration > 0 => None,
            PoolBulkhead::Semaphore => Some(self.max_concurrent_calls.into()),
            PoolBulkhead::ThreadPool => Some(self.thread_pool_config().capacity()),
        }
    }

    /// When the vendor becomes slow, in milliseconds.
    pub fn vendor_slow_at_ms(&self) -> Millis {
        Millis::from(self.vendor_slow_at_s) * 1_000
    }

    /// The end of the run, in milliseconds.
    pub fn end_ms(&self) -> Millis {
        Millis::from(self.seconds) * 1_000
    }
}

/// One second of the run (see the module's "Units of the output").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolSecond {
    /// The end of the second (1 for `[0, 1 s)`).
    pub t_s: u32,
    /// Whether a vendor call started in this second is slow.
    pub vendor_slow: bool,
    /// `/fast` requests that arrived in this second.
    pub fast_total: u32,
    /// ... answered in time.
    pub fast_ok: u32,
    /// ... failed (`fast_no_thread + fast_timed_out`).
    pub fast_failed: u32,
    /// ... refused by a full accept queue, or gave up in it.
    pub fast_no_thread: u32,
    /// ... got a thread but no answer in time.
    pub fast_timed_out: u32,
    /// ... without an outcome when the run ended.
    pub fast_unfinished: u32,
    /// `/drm` requests that arrived in this second.
    pub drm_total: u32,
    pub drm_ok: u32,
    /// `drm_no_thread + drm_timed_out + drm_rejected_by_bulkhead`.
    pub drm_failed: u32,
    pub drm_no_thread: u32,
    pub drm_timed_out: u32,
    /// ... refused by the bulkhead (`BulkheadFullException`) before their deadline.
    pub drm_rejected_by_bulkhead: u32,
    pub drm_unfinished: u32,
    /// `100 x ok / (ok + failed)`; `None` when none of the second's requests has ended.
    pub fast_success_percent: Option<f64>,
    pub drm_success_percent: Option<f64>,
    /// Latency percentiles of the second's ok requests (nearest rank).
    pub fast_p50_ms: Option<Millis>,
    pub fast_p99_ms: Option<Millis>,
    pub drm_p50_ms: Option<Millis>,
    pub drm_p99_ms: Option<Millis>,
    /// Threads serving `/fast` at the end of the second.
    pub threads_fast: u32,
    /// Threads serving `/drm` (`drm`, `queued_for_vendor` and `stuck_on_vendor` cells).
    pub threads_drm: u32,
    /// Of `threads_drm`: waiting in the bulkhead before the vendor call.
    pub threads_queued_for_vendor: u32,
    /// Of `threads_drm`: waiting on a slow vendor call.
    pub threads_stuck: u32,
    pub threads_free: u32,
    /// Requests waiting for a thread in the accept queue.
    pub accept_queue: u32,
    /// Vendor calls in flight.
    pub vendor_calls: u32,
    /// Threads alive in the thread-pool bulkhead (0 for the other kinds).
    pub bulkhead_threads: u32,
    /// Every request thread, in thread order.
    pub cells: Vec<ThreadUse>,
}

/// One endpoint over the whole run (plain counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct EndpointTotals {
    pub arrived: u64,
    pub ok: u64,
    /// `refused_queue_full + gave_up_waiting + timed_out + rejected_by_bulkhead`.
    pub failed: u64,
    pub unfinished: u64,
    /// Refused at arrival: the accept queue was full.
    pub refused_queue_full: u64,
    /// Gave up in the accept queue, before a thread took them.
    pub gave_up_waiting: u64,
    /// Got a thread, no answer before the client's deadline.
    pub timed_out: u64,
    /// `BulkheadFullException` before the deadline.
    pub rejected_by_bulkhead: u64,
}

/// A whole run: the rows of the charts and the totals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedPoolRun {
    pub threads: u32,
    pub bulkhead: PoolBulkhead,
    pub vendor_slow_at_s: u32,
    pub client_timeout_ms: Millis,
    /// Little's law: the threads `/fast` needs on average (`rpsFast x fastMs`).
    pub fast_threads_needed: f64,
    /// ... `/drm` with the vendor at its normal speed (`rpsDrm x vendorNormalMs`).
    pub drm_threads_needed_normal: f64,
    /// ... `/drm` with the vendor slow (`rpsDrm x vendorMs`: 250 with the defaults).
    pub drm_threads_needed_slow: f64,
    /// See [`SharedPoolConfig::drm_thread_cap`].
    pub drm_thread_cap: Option<u64>,
    /// One row per second, `t_s` 1 to `seconds`.
    pub seconds: Vec<PoolSecond>,
    pub fast: EndpointTotals,
    pub drm: EndpointTotals,
    /// The most request threads busy at once (never above `threads`).
    pub peak_threads_busy: u32,
    /// The most vendor calls in flight at once.
    pub peak_vendor_calls: u32,
}

// ---------------------------------------------------------------------------------------
// The simulation
// ---------------------------------------------------------------------------------------

/// Where a request is on the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// In the accept queue (no thread).
    Accepting,
    /// `/fast`'s local work.
    Working,
    /// `/drm` waiting in the bulkhead.
    Queued,
    /// `/drm` in the vendor call.
    Vendor { slow: bool },
}

#[derive(Debug, Clone, Copy)]
struct Request {
    endpoint: Endpoint,
    arrival: Millis,
    /// The work-time factor drawn at arrival, in per mille (800 to 1,200).
    jitter: u32,
    thread: u32,
    phase: Phase,
}

/// How the server ended a request (before the client's view is applied).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ServerEnd {
    Served,
    QueueFull,
    GaveUpWaiting,
    Bulkhead,
    /// Still on the server when the run ended.
    Unended,
}

/// What the client saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ClientOutcome {
    Ok,
    QueueFull,
    GaveUpWaiting,
    TimedOut,
    Bulkhead,
}

/// Per arrival second and endpoint.
#[derive(Debug, Clone, Default)]
struct Tally {
    total: u32,
    ok: u32,
    queue_full: u32,
    gave_up: u32,
    timed_out: u32,
    bulkhead: u32,
    latencies: Vec<u32>,
}

impl Tally {
    fn failed(&self) -> u32 {
        self.queue_full + self.gave_up + self.timed_out + self.bulkhead
    }
}

/// Event classes at the same millisecond, in the order they are handled: completions
/// free threads and permits before waiters expire, and both before new arrivals.
const DONE: u8 = 0;
const WAITER_DEADLINE: u8 = 1;

/// `e^-x` for `0 <= x <= 1` from its series, with basic IEEE operations only: the same
/// bits natively and in the browser, unlike a platform `exp`.
fn exp_neg(x: f64) -> f64 {
    let (mut term, mut sum) = (1.0_f64, 1.0_f64);
    for n in 1..=24 {
        term *= -x / f64::from(n);
        sum += term;
    }
    sum
}

/// The arrivals of one endpoint, generated lazily in time order, each with the jitter of
/// its work time.
struct ArrivalStream {
    endpoint: Endpoint,
    rps: u64,
    mode: Arrivals,
    end_ms: Millis,
    arrivals: Pcg64Mcg,
    work: Pcg64Mcg,
    /// Even: the index of the next slot.
    next_slot: u64,
    /// Poisson: the current millisecond and the arrivals still due in it.
    ms: Millis,
    due: u32,
    /// Poisson: `e^-(rps / 1000)`.
    limit: f64,
    peeked: Option<(Millis, u32)>,
}

impl ArrivalStream {
    fn new(endpoint: Endpoint, rps: u32, config: &SharedPoolConfig, stream: u64) -> Self {
        let mut s = Self {
            endpoint,
            rps: rps.into(),
            mode: config.arrivals,
            end_ms: config.end_ms(),
            arrivals: stream_rng(config.seed, stream),
            work: stream_rng(config.seed, stream + 1),
            next_slot: 0,
            ms: 0,
            due: 0,
            limit: exp_neg(f64::from(rps) / 1_000.0),
            peeked: None,
        };
        s.peeked = s.generate();
        s
    }

    fn peek(&self) -> Option<Millis> {
        self.peeked.map(|(at, _)| at)
    }

    fn take(&mut self) -> Option<(Millis, u32)> {
        let next = self.peeked.take();
        if next.is_some() {
            self.peeked = self.generate();
        }
        next
    }

    fn generate(&mut self) -> Option<(Millis, u32)> {
        if self.rps == 0 {
            return None;
        }
        let at = match self.mode {
            Arrivals::Even => {
                // Slot k covers [k, k + 1) / rps seconds; the request arrives at a uniform
                // microsecond of it.
                let offset = self.arrivals.random_range(0..1_000_000_u64);
                let at_us = (self.next_slot * 1_000_000 + offset) / self.rps;
                self.next_slot += 1;
                at_us / 1_000
            }
            Arrivals::Poisson => {
                while self.due == 0 {
                    if self.ms >= self.end_ms {
                        return None;
                    }
                    // Knuth: the count of uniforms whose running product stays above
                    // e^-λ is Poisson(λ).
                    let mut product = self.arrivals.random::<f64>();
                    let mut count = 0;
                    while product > self.limit {
                        count += 1;
                        product *= self.arrivals.random::<f64>();
                    }
                    self.due = count;
                    self.ms += 1;
                }
                self.due -= 1;
                self.ms - 1
            }
        };
        if at >= self.end_ms {
            return None;
        }
        let spread = 10 * WORK_JITTER_PERCENT as u32;
        let jitter = self.work.random_range(1_000 - spread..=1_000 + spread);
        Some((at, jitter))
    }
}

enum Protection {
    None,
    Semaphore(SemaphoreBulkhead),
    ThreadPool(ThreadPoolBulkhead),
}

/// The pool at the end of a second.
struct Snapshot {
    cells: Vec<ThreadUse>,
    accept_queue: u32,
    vendor_calls: u32,
    bulkhead_threads: u32,
}

impl Snapshot {
    fn count(&self, use_: ThreadUse) -> u32 {
        self.cells.iter().filter(|&&c| c == use_).count() as u32
    }
}

struct Sim<'a> {
    config: &'a SharedPoolConfig,
    end_ms: Millis,
    slow_at: Millis,
    /// Live requests (on a thread or in the accept queue); `None` slots are reused.
    requests: Vec<Option<Request>>,
    spare: Vec<u32>,
    /// Request on each thread.
    threads: Vec<Option<u32>>,
    free: BinaryHeap<Reverse<u32>>,
    accept: VecDeque<u32>,
    protection: Protection,
    /// Semaphore waiters, by the bulkhead's id.
    waiters: Waiters,
    /// Thread-pool bulkhead's queue, FIFO as the bulkhead's own.
    pool_queue: VecDeque<u32>,
    /// Semaphore waiters refused by the bulkhead, to be answered.
    refused: Vec<u32>,
    /// (time, class, sequence, request).
    events: BinaryHeap<Reverse<(Millis, u8, u64, u32)>>,
    sequence: u64,
    vendor_calls: u32,
    busy: u32,
    peak_busy: u32,
    peak_vendor: u32,
    /// Per arrival second: [fast, drm].
    tallies: Vec<[Tally; 2]>,
    totals: [EndpointTotals; 2],
}

fn slot(endpoint: Endpoint) -> usize {
    match endpoint {
        Endpoint::Fast => 0,
        Endpoint::Drm => 1,
    }
}

/// `ms x jitter / 1000`, rounded, at least 1 ms.
fn jittered(ms: Millis, jitter: u32) -> Millis {
    ((ms * Millis::from(jitter) + 500) / 1_000).max(1)
}

impl<'a> Sim<'a> {
    fn new(config: &'a SharedPoolConfig) -> Result<Self, ConfigError> {
        let protection = match config.bulkhead {
            PoolBulkhead::None => Protection::None,
            PoolBulkhead::Semaphore => {
                Protection::Semaphore(SemaphoreBulkhead::new(config.semaphore_config())?)
            }
            PoolBulkhead::ThreadPool => {
                Protection::ThreadPool(ThreadPoolBulkhead::new(config.thread_pool_config())?)
            }
        };
        Ok(Self {
            config,
            end_ms: config.end_ms(),
            slow_at: config.vendor_slow_at_ms(),
            requests: Vec::new(),
            spare: Vec::new(),
            threads: vec![None; config.threads as usize],
            free: (0..config.threads).map(Reverse).collect(),
            accept: VecDeque::new(),
            protection,
            waiters: Waiters::default(),
            pool_queue: VecDeque::new(),
            refused: Vec::new(),
            events: BinaryHeap::new(),
            sequence: 0,
            vendor_calls: 0,
            busy: 0,
            peak_busy: 0,
            peak_vendor: 0,
            tallies: vec![Default::default(); config.seconds as usize],
            totals: Default::default(),
        })
    }

    /// A live request. Ids come only from live requests (an event, a queue place or a
    /// thread is given up with its request), so `None` does not happen; the callers still
    /// do nothing rather than panic if it did.
    fn request(&self, id: u32) -> Option<Request> {
        self.requests.get(id as usize).copied().flatten()
    }

    fn set_phase(&mut self, id: u32, phase: Phase) {
        if let Some(Some(r)) = self.requests.get_mut(id as usize) {
            r.phase = phase;
        }
    }

    fn schedule(&mut self, at: Millis, class: u8, id: u32) {
        self.sequence += 1;
        self.events.push(Reverse((at, class, self.sequence, id)));
    }

    fn insert(&mut self, request: Request) -> u32 {
        match self.spare.pop() {
            Some(id) => {
                self.requests[id as usize] = Some(request);
                id
            }
            None => {
                self.requests.push(Some(request));
                (self.requests.len() - 1) as u32
            }
        }
    }

    /// Records the client's outcome of a request the server ended at `at`.
    fn record(&mut self, endpoint: Endpoint, arrival: Millis, end: ServerEnd, at: Millis) {
        let deadline = arrival + self.config.client_timeout_ms;
        let (outcome, when) = match end {
            ServerEnd::GaveUpWaiting => (ClientOutcome::GaveUpWaiting, deadline),
            ServerEnd::Served if at < deadline => (ClientOutcome::Ok, at),
            ServerEnd::QueueFull if at < deadline => (ClientOutcome::QueueFull, at),
            ServerEnd::Bulkhead if at < deadline => (ClientOutcome::Bulkhead, at),
            _ => (ClientOutcome::TimedOut, deadline),
        };
        if when >= self.end_ms {
            return; // unfinished: the client still waits when the run ends
        }
        let second = (arrival / 1_000) as usize;
        let i = slot(endpoint);
        let (tally, totals) = (&mut self.tallies[second][i], &mut self.totals[i]);
        match outcome {
            ClientOutcome::Ok => {
                tally.ok += 1;
                totals.ok += 1;
                tally.latencies.push((when - arrival) as u32);
            }
            ClientOutcome::QueueFull => {
                tally.queue_full += 1;
                totals.refused_queue_full += 1;
            }
            ClientOutcome::GaveUpWaiting => {
                tally.gave_up += 1;
                totals.gave_up_waiting += 1;
            }
            ClientOutcome::TimedOut => {
                tally.timed_out += 1;
                totals.timed_out += 1;
            }
            ClientOutcome::Bulkhead => {
                tally.bulkhead += 1;
                totals.rejected_by_bulkhead += 1;
            }
        }
    }

    /// Requests whose client gave up in the accept queue by `now` leave it. Every request
    /// has the same timeout, so the queue's order is also its deadlines' order.
    fn purge_accept_queue(&mut self, now: Millis) {
        while let Some(&id) = self.accept.front() {
            let r = self.request(id);
            if r.is_some_and(|r| r.arrival + self.config.client_timeout_ms > now) {
                break;
            }
            self.accept.pop_front();
            self.remove(id);
            if let Some(r) = r {
                self.record(r.endpoint, r.arrival, ServerEnd::GaveUpWaiting, now);
            }
        }
    }

    fn remove(&mut self, id: u32) {
        self.requests[id as usize] = None;
        self.spare.push(id);
    }

    fn arrive(&mut self, endpoint: Endpoint, now: Millis, jitter: u32) {
        let second = (now / 1_000) as usize;
        self.tallies[second][slot(endpoint)].total += 1;
        self.totals[slot(endpoint)].arrived += 1;
        self.purge_accept_queue(now);
        if self.accept.is_empty() {
            if let Some(Reverse(thread)) = self.free.pop() {
                let id = self.insert(Request {
                    endpoint,
                    arrival: now,
                    jitter,
                    thread,
                    phase: Phase::Accepting,
                });
                self.start(id, thread, now);
                return;
            }
        }
        if self.accept.len() < self.config.accept_count as usize {
            let id = self.insert(Request {
                endpoint,
                arrival: now,
                jitter,
                thread: u32::MAX,
                phase: Phase::Accepting,
            });
            self.accept.push_back(id);
        } else {
            self.record(endpoint, now, ServerEnd::QueueFull, now);
        }
    }

    /// Request `id` gets `thread` at `now`.
    fn start(&mut self, id: u32, thread: u32, now: Millis) {
        let Some(Some(r)) = self.requests.get_mut(id as usize) else {
            self.free.push(Reverse(thread));
            return;
        };
        r.thread = thread;
        let r = *r;
        self.threads[thread as usize] = Some(id);
        self.busy += 1;
        self.peak_busy = self.peak_busy.max(self.busy);
        match r.endpoint {
            Endpoint::Fast => {
                self.set_phase(id, Phase::Working);
                let done = now + jittered(self.config.fast_ms, r.jitter);
                self.schedule(done, DONE, id);
            }
            Endpoint::Drm => self.call_vendor(id, now),
        }
    }

    /// `/drm` asks its bulkhead for the vendor call.
    fn call_vendor(&mut self, id: u32, now: Millis) {
        let admission = match &mut self.protection {
            Protection::None => Admission::Permitted,
            Protection::Semaphore(bulkhead) => bulkhead.try_acquire(now),
            Protection::ThreadPool(bulkhead) => match bulkhead.submit(now) {
                ThreadPoolAdmission::Running => Admission::Permitted,
                ThreadPoolAdmission::Queued => {
                    self.pool_queue.push_back(id);
                    self.set_phase(id, Phase::Queued);
                    return;
                }
                ThreadPoolAdmission::Rejected => Admission::Rejected,
            },
        };
        match admission {
            Admission::Permitted => self.begin_vendor_call(id, now),
            Admission::Waiting(waiter) => {
                self.waiters.insert(waiter, id);
                self.set_phase(id, Phase::Queued);
                let deadline = now + self.config.max_wait_duration;
                self.schedule(deadline, WAITER_DEADLINE, id);
            }
            Admission::Rejected => self.finish(id, ServerEnd::Bulkhead, now),
        }
    }

    fn begin_vendor_call(&mut self, id: u32, now: Millis) {
        let slow = now >= self.slow_at;
        let base = if slow {
            self.config.vendor_ms
        } else {
            self.config.vendor_normal_ms
        };
        let Some(r) = self.request(id) else {
            return;
        };
        self.set_phase(id, Phase::Vendor { slow });
        let done = now + jittered(base, r.jitter);
        self.vendor_calls += 1;
        self.peak_vendor = self.peak_vendor.max(self.vendor_calls);
        self.schedule(done, DONE, id);
    }

    fn vendor_done(&mut self, id: u32, now: Millis) {
        self.vendor_calls -= 1;
        let next: Vec<u32> = match &mut self.protection {
            Protection::None => Vec::new(),
            // The permit passes to the first waiter, which starts its call now.
            Protection::Semaphore(bulkhead) => bulkhead
                .release(now)
                .into_iter()
                .filter_map(|waiter| self.waiters.remove(&waiter))
                .collect(),
            // The vendor thread takes the oldest queued call.
            Protection::ThreadPool(bulkhead) => {
                if bulkhead.complete(now) {
                    self.pool_queue.pop_front().into_iter().collect()
                } else {
                    Vec::new()
                }
            }
        };
        for waiting in next {
            self.begin_vendor_call(waiting, now);
        }
        self.finish(id, ServerEnd::Served, now);
    }

    /// The server answers request `id` at `now`; its thread is free.
    fn finish(&mut self, id: u32, end: ServerEnd, now: Millis) {
        let Some(r) = self.request(id) else {
            return;
        };
        self.remove(id);
        self.threads[r.thread as usize] = None;
        self.busy -= 1;
        self.free.push(Reverse(r.thread));
        self.record(r.endpoint, r.arrival, end, now);
    }

    /// After an event: semaphore waiters whose wait ran out are refused, and free threads
    /// take the oldest requests of the accept queue, until neither can happen.
    fn dispatch(&mut self, now: Millis) {
        loop {
            let mut progressed = false;
            if let Protection::Semaphore(bulkhead) = &mut self.protection {
                for waiter in bulkhead.expire_waiters(now) {
                    if let Some(id) = self.waiters.remove(&waiter) {
                        self.refused.push(id);
                    }
                }
            }
            while let Some(id) = self.refused.pop() {
                self.finish(id, ServerEnd::Bulkhead, now);
                progressed = true;
            }
            self.purge_accept_queue(now);
            if !self.accept.is_empty() {
                if let Some(Reverse(thread)) = self.free.pop() {
                    if let Some(id) = self.accept.pop_front() {
                        self.start(id, thread, now);
                        progressed = true;
                    }
                }
            }
            if !progressed {
                break;
            }
        }
    }

    fn handle_event(&mut self, now: Millis, class: u8, id: u32) {
        self.purge_accept_queue(now);
        if class == DONE {
            match self.request(id).map(|r| r.phase) {
                Some(Phase::Vendor { .. }) => self.vendor_done(id, now),
                Some(_) => self.finish(id, ServerEnd::Served, now),
                None => {}
            }
        }
        // A waiter's deadline: `dispatch` collects the bulkhead's refusals.
        self.dispatch(now);
    }

    /// The pool at the instant `boundary` (after every event strictly before it).
    fn snapshot(&mut self, boundary: Millis) -> Snapshot {
        self.purge_accept_queue(boundary - 1);
        let mut bulkhead_threads = 0;
        if let Protection::ThreadPool(bulkhead) = &mut self.protection {
            bulkhead.expire_idle_threads(boundary - 1);
            bulkhead_threads = bulkhead.pool_size();
        }
        let cells = self
            .threads
            .iter()
            .map(|t| {
                let request = t.and_then(|id| self.request(id));
                match request.map(|r| (r.endpoint, r.phase)) {
                    None => ThreadUse::Free,
                    Some((Endpoint::Fast, _)) => ThreadUse::Fast,
                    Some((Endpoint::Drm, Phase::Queued)) => ThreadUse::QueuedForVendor,
                    Some((Endpoint::Drm, Phase::Vendor { slow: true })) => ThreadUse::StuckOnVendor,
                    Some((Endpoint::Drm, _)) => ThreadUse::Drm,
                }
            })
            .collect();
        Snapshot {
            cells,
            accept_queue: self.accept.len() as u32,
            vendor_calls: self.vendor_calls,
            bulkhead_threads,
        }
    }

    /// Requests still on the server or in the accept queue when the run ends: their
    /// clients gave up if their deadline came before the end, else they are unfinished.
    fn finish_run(&mut self) {
        for id in 0..self.requests.len() {
            if let Some(r) = self.requests[id] {
                let end = if r.phase == Phase::Accepting {
                    ServerEnd::GaveUpWaiting
                } else {
                    ServerEnd::Unended
                };
                self.record(r.endpoint, r.arrival, end, self.end_ms);
            }
        }
    }
}

/// The requests waiting for a semaphore permit, by the bulkhead's waiter id. A few dozen at
/// most (one per request thread), so a list: a map's code would weigh more in the wasm
/// than the search costs.
#[derive(Default)]
struct Waiters(Vec<(WaiterId, u32)>);

impl Waiters {
    fn insert(&mut self, waiter: WaiterId, id: u32) {
        self.0.push((waiter, id));
    }

    fn remove(&mut self, waiter: &WaiterId) -> Option<u32> {
        let at = self.0.iter().position(|(w, _)| w == waiter)?;
        Some(self.0.swap_remove(at).1)
    }
}

fn success_percent(tally: &Tally) -> Option<f64> {
    let ended = tally.ok + tally.failed();
    (ended > 0).then(|| 100.0 * f64::from(tally.ok) / f64::from(ended))
}

/// Runs the lab. Validates first; never panics.
pub fn run(config: &SharedPoolConfig) -> Result<SharedPoolRun, ConfigError> {
    config.validate()?;
    let mut sim = Sim::new(config)?;
    let mut streams = [
        ArrivalStream::new(Endpoint::Fast, config.rps_fast, config, 1),
        ArrivalStream::new(Endpoint::Drm, config.rps_drm, config, 3),
    ];
    let end_ms = sim.end_ms;
    let mut snapshots = Vec::with_capacity(config.seconds as usize);
    let mut boundary: Millis = 1_000;

    loop {
        let event = sim.events.peek().map(|Reverse(e)| *e);
        // The earliest arrival; at the same instant `/fast`'s first.
        let arrival = streams
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.peek().map(|at| (at, i)))
            .min();
        let next = match (event, arrival) {
            (Some(e), Some(a)) => e.0.min(a.0),
            (Some(e), None) => e.0,
            (None, Some(a)) => a.0,
            (None, None) => end_ms,
        };
        while boundary <= next.min(end_ms) {
            snapshots.push(sim.snapshot(boundary));
            boundary += 1_000;
        }
        if next >= end_ms {
            break;
        }
        // Events (completions, then waiters' deadlines) before arrivals at the same ms.
        match (event, arrival) {
            (Some((at, class, _, id)), _) if at == next => {
                sim.events.pop();
                sim.handle_event(at, class, id);
            }
            (_, Some((at, i))) => {
                if let Some((_, jitter)) = streams[i].take() {
                    let endpoint = streams[i].endpoint;
                    sim.arrive(endpoint, at, jitter);
                    sim.dispatch(at);
                }
            }
            _ => break,
        }
    }
    sim.finish_run();

    let seconds = sim
        .tallies
        .iter_mut()
        .zip(snapshots)
        .enumerate()
        .map(|(s, ([fast, drm], snapshot))| {
            let second_start = s as Millis * 1_000;
            let queued = snapshot.count(ThreadUse::QueuedForVendor);
            let stuck = snapshot.count(ThreadUse::StuckOnVendor);
            fast.latencies.sort_unstable();
            drm.latencies.sort_unstable();
            let percentile = |sorted: &[u32], p| nearest_rank(sorted, p).map(Millis::from);
            PoolSecond {
                t_s: s as u32 + 1,
                vendor_slow: second_start >= sim.slow_at,
                fast_total: fast.total,
                fast_ok: fast.ok,
                fast_failed: fast.failed(),
                fast_no_thread: fast.queue_full + fast.gave_up,
                fast_timed_out: fast.timed_out,
                fast_unfinished: fast.total - fast.ok - fast.failed(),
                drm_total: drm.total,
                drm_ok: drm.ok,
                drm_failed: drm.failed(),
                drm_no_thread: drm.queue_full + drm.gave_up,
                drm_timed_out: drm.timed_out,
                drm_rejected_by_bulkhead: drm.bulkhead,
                drm_unfinished: drm.total - drm.ok - drm.failed(),
                fast_success_percent: success_percent(fast),
                drm_success_percent: success_percent(drm),
                fast_p50_ms: percentile(&fast.latencies, 50),
                fast_p99_ms: percentile(&fast.latencies, 99),
                drm_p50_ms: percentile(&drm.latencies, 50),
                drm_p99_ms: percentile(&drm.latencies, 99),
                threads_fast: snapshot.count(ThreadUse::Fast),
                threads_drm: snapshot.count(ThreadUse::Drm) + queued + stuck,
                threads_queued_for_vendor: queued,
                threads_stuck: stuck,
                threads_free: snapshot.count(ThreadUse::Free),
                accept_queue: snapshot.accept_queue,
                vendor_calls: snapshot.vendor_calls,
                bulkhead_threads: snapshot.bulkhead_threads,
                cells: snapshot.cells,
            }
        })
        .collect::<Vec<_>>();

    let mut totals = sim.totals;
    for t in &mut totals {
        t.failed = t.refused_queue_full + t.gave_up_waiting + t.timed_out + t.rejected_by_bulkhead;
        t.unfinished = t.arrived - t.ok - t.failed;
    }
    let [fast, drm] = totals;
    let rate = |rps: u32, ms: Millis| f64::from(rps) * ms as f64 / 1_000.0;
    Ok(SharedPoolRun {
        threads: config.threads,
        bulkhead: config.bulkhead,
        vendor_slow_at_s: config.vendor_slow_at_s,
        client_timeout_ms: config.client_timeout_ms,
        fast_threads_needed: rate(config.rps_fast, config.fast_ms),
        drm_threads_needed_normal: rate(config.rps_drm, config.vendor_normal_ms),
        drm_threads_needed_slow: rate(config.rps_drm, config.vendor_ms),
        drm_thread_cap: config.drm_thread_cap(),
        seconds,
        fast,
        drm,
        peak_threads_busy: sim.peak_busy,
        peak_vendor_calls: sim.peak_vendor,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_series_exp_matches_the_platform_one() {
        for i in 0..=100 {
            let x = f64::from(i) / 100.0;
            assert!((exp_neg(x) - (-x).exp()).abs() < 1e-15, "e^-{x}");
        }
    }

    #[test]
    fn work_times_are_jittered_and_at_least_a_millisecond() {
        assert_eq!(jittered(20, 800), 16);
        assert_eq!(jittered(20, 1_200), 24);
        assert_eq!(jittered(5_000, 1_000), 5_000);
        assert_eq!(jittered(1, 800), 1);
    }

    #[test]
    fn even_arrivals_put_exactly_rps_requests_in_every_second() {
        let config = SharedPoolConfig {
            rps_fast: 7,
            seconds: 5,
            ..SharedPoolConfig::default()
        };
        let mut stream = ArrivalStream::new(Endpoint::Fast, 7, &config, 1);
        let mut per_second = [0; 5];
        let mut last = 0;
        while let Some((at, jitter)) = stream.take() {
            assert!(at >= last, "in time order");
            assert!((800..=1_200).contains(&jitter));
            last = at;
            per_second[(at / 1_000) as usize] += 1;
        }
        assert_eq!(per_second, [7; 5]);
    }

    #[test]
    fn poisson_arrivals_average_the_rate() {
        let config = SharedPoolConfig {
            arrivals: Arrivals::Poisson,
            seconds: 100,
            ..SharedPoolConfig::default()
        };
        let mut stream = ArrivalStream::new(Endpoint::Fast, 50, &config, 1);
        let mut count = 0;
        while stream.take().is_some() {
            count += 1;
        }
        // 5,000 expected, standard deviation about 71.
        assert!((4_700..=5_300).contains(&count), "{count}");
    }
}
