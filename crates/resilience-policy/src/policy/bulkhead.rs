//! Bulkheads: a cap on how much of a caller one dependency may occupy.
//!
//! A ship's bulkheads split the hull into compartments so that one breach floods one
//! compartment, not the whole ship. A service has the same problem with its threads and
//! connections: if every request thread may call a dependency that has become slow, a slow
//! dependency soon holds every thread, and endpoints that never touch it stop answering
//! too. The failure a bulkhead protects against is this *resource exhaustion by a slow
//! dependency*. It does not make the slow calls faster; it only bounds how many of them can
//! be in flight, so the rest of the service keeps its share.
//!
//! Resilience4j offers two kinds, and this module models both as sans-IO state machines
//! (the caller passes the virtual time `now` in; nothing here sleeps or spawns):
//!
//! - [`SemaphoreBulkhead`] counts permits on the caller's own threads
//!   (`maxConcurrentCalls`, default 25). A call that finds no permit either fails at once
//!   with `BulkheadFullException` (`maxWaitDuration` 0, the default) or waits up to
//!   `maxWaitDuration` for one, first come first served (Resilience4j builds a *fair*
//!   `java.util.concurrent.Semaphore` by default), and fails when the wait runs out.
//! - [`ThreadPoolBulkhead`] hands the call to a dedicated, bounded thread pool: the JDK's
//!   `ThreadPoolExecutor`, whose admission order surprises people. A task first gets a new
//!   *core* thread, then a place in the queue, and only when the queue is full does the pool
//!   grow towards `maxThreadPoolSize`; past that the task is rejected
//!   (`BulkheadFullException`). Its capacity is therefore max threads + queue, and a
//!   queued task waits while threads above the core size have not even been started.
//!
//! A bulkhead's refusal is a *local* refusal: the call never left the process. It says
//! nothing about the dependency's health, so a circuit breaker should not count it and a
//! retry should not repeat it (see [`crate::policy::retry`]).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::{ConfigError, Millis};

/// Java's `int` bound: Resilience4j's counts are `int`s.
const JAVA_INT_MAX: u32 = i32::MAX as u32;

// ---------------------------------------------------------------------------------------
// Semaphore bulkhead
// ---------------------------------------------------------------------------------------

/// Settings of a semaphore bulkhead (Resilience4j `BulkheadConfig`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct BulkheadConfig {
    /// How many calls may be in flight at once (default 25; 0 refuses every call).
    pub max_concurrent_calls: u32,
    /// How long a call may wait for a permit (default 0: refuse at once).
    #[serde(with = "crate::duration::serde_millis")]
    pub max_wait_duration: Millis,
}

impl Default for BulkheadConfig {
    fn default() -> Self {
        Self {
            max_concurrent_calls: 25,
            max_wait_duration: 0,
        }
    }
}

impl BulkheadConfig {
    /// The builder's rules: `maxConcurrentCalls >= 0` and `maxWaitDuration >= 0`, which the
    /// unsigned types already guarantee; only Java's `int` range is left to check.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.max_concurrent_calls > JAVA_INT_MAX {
            return Err(ConfigError::new(
                "maxConcurrentCalls",
                format!("must be at most {JAVA_INT_MAX}"),
            ));
        }
        Ok(())
    }
}

/// Identifies a call waiting for a permit; handed out by [`SemaphoreBulkhead::try_acquire`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct WaiterId(pub u64);

/// What the bulkhead says to a call that asks for a permit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Admission {
    /// A permit was free: the call goes ahead and must [`release`](SemaphoreBulkhead::release)
    /// it when it finishes.
    Permitted,
    /// No permit now; the call waits (at most `maxWaitDuration`). It later appears exactly
    /// once in what [`release`](SemaphoreBulkhead::release) returns (it got a permit), in
    /// what [`expire_waiters`](SemaphoreBulkhead::expire_waiters) returns (rejected), or is
    /// withdrawn by [`cancel`](SemaphoreBulkhead::cancel).
    Waiting(WaiterId),
    /// `BulkheadFullException`: the call never left.
    Rejected,
}

#[derive(Debug, Clone, Copy)]
struct Waiter {
    id: WaiterId,
    deadline: Millis,
}

/// A semaphore bulkhead with Resilience4j's fair (first come, first served) waiting.
///
/// Time rule: a call that starts waiting at `t` is still waiting at every instant strictly
/// before `t + maxWaitDuration` and is rejected *at* that instant. A permit freed at exactly
/// the deadline goes to the next live waiter, not to the expired one. Every operation first
/// retires expired waiters (they are reported by the next
/// [`expire_waiters`](Self::expire_waiters)), so the order in which a driver calls
/// `release` and `expire_waiters` at the same instant does not change who gets a permit.
///
/// Invariants: `0 <= in_use <= max`; a permit is never free while a live waiter waits
/// (freeing a permit hands it straight to the first waiter).
#[derive(Debug, Clone)]
pub struct SemaphoreBulkhead {
    config: BulkheadConfig,
    in_use: u32,
    /// In arrival order, so by increasing id.
    waiters: VecDeque<Waiter>,
    /// Whether the waiters' deadlines never decrease from front to back: true whenever
    /// every caller waits the config's time (a script's callers may each wait their own).
    /// Then the expired ones are at the front, and retiring them costs only their number,
    /// not a scan of everyone waiting.
    deadlines_in_order: bool,
    expired: Vec<WaiterId>,
    next_waiter: u64,
    permitted_calls: u64,
    rejected_calls: u64,
    finished_calls: u64,
}

impl SemaphoreBulkhead {
    pub fn new(config: BulkheadConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self {
            config,
            in_use: 0,
            waiters: VecDeque::new(),
            deadlines_in_order: true,
            expired: Vec::new(),
            next_waiter: 0,
            permitted_calls: 0,
            rejected_calls: 0,
            finished_calls: 0,
        })
    }

    pub fn config(&self) -> &BulkheadConfig {
        &self.config
    }

    /// Asks for a permit at `now` (Resilience4j `tryAcquirePermission`).
    pub fn try_acquire(&mut self, now: Millis) -> Admission {
        self.try_acquire_waiting_at_most(now, self.config.max_wait_duration)
    }

    /// [`try_acquire`](Self::try_acquire) by a caller that waits at most `max_wait` (a
    /// script's caller with its own wait; the models use the config's).
    pub fn try_acquire_waiting_at_most(&mut self, now: Millis, max_wait: Millis) -> Admission {
        self.retire_expired(now);
        if self.waiters.is_empty() && self.in_use < self.config.max_concurrent_calls {
            self.in_use += 1;
            self.permitted_calls += 1;
            return Admission::Permitted;
        }
        if max_wait == 0 {
            self.rejected_calls += 1;
            return Admission::Rejected;
        }
        let id = WaiterId(self.next_waiter);
        self.next_waiter += 1;
        let deadline = now.saturating_add(max_wait);
        match self.waiters.back() {
            // A queue that emptied (by permits or expiry) is in order again.
            None => self.deadlines_in_order = true,
            Some(last) if last.deadline > deadline => self.deadlines_in_order = false,
            Some(_) => {}
        }
        self.waiters.push_back(Waiter { id, deadline });
        Admission::Waiting(id)
    }

    /// A call that held a permit finished at `now` (Resilience4j `onComplete`). The permit
    /// goes to the first live waiter, if any; the waiters that got a permit are returned
    /// (at most one per release). Releasing with no permit in use does nothing: the count
    /// never rises above `maxConcurrentCalls` (a Java `Semaphore` would let it).
    pub fn release(&mut self, now: Millis) -> Vec<WaiterId> {
        self.retire_expired(now);
        if self.in_use == 0 {
            return Vec::new();
        }
        self.finished_calls += 1;
        match self.waiters.pop_front() {
            Some(waiter) => {
                // The permit passes straight from the finished call to the waiter.
                self.permitted_calls += 1;
                vec![waiter.id]
            }
            None => {
                self.in_use -= 1;
                Vec::new()
            }
        }
    }

    /// Rejects (`BulkheadFullException`) every waiter whose wait has run out by `now`, and
    /// returns them, together with any retired earlier by another operation, oldest first.
    pub fn expire_waiters(&mut self, now: Millis) -> Vec<WaiterId> {
        self.retire_expired(now);
        std::mem::take(&mut self.expired)
    }

    /// Withdraws a waiting call (its caller gave up). Returns false if `id` is not waiting,
    /// including a waiter already retired as expired: that one is reported (once) by
    /// [`expire_waiters`](Self::expire_waiters).
    pub fn cancel(&mut self, id: WaiterId) -> bool {
        match self.waiters.binary_search_by_key(&id, |w| w.id) {
            Ok(index) => {
                self.waiters.remove(index);
                true
            }
            Err(_) => false,
        }
    }

    /// Takes `n` free permits at once for a holder that is not a call: Java's
    /// `Semaphore.acquire(n)`, as Resilience4j's `changeConfig` does to lower
    /// `maxConcurrentCalls`. Only when no call waits and `n` permits are free at `now`;
    /// otherwise nothing changes and it returns false (Java's caller would block: not
    /// modelled here). The permits come back through [`release`](Self::release), one at a
    /// time, as any permit does. They are not counted as calls.
    pub fn hold_free_permits(&mut self, now: Millis, n: u32) -> bool {
        self.retire_expired(now);
        if !self.waiters.is_empty() || n > self.available_permits() {
            return false;
        }
        self.in_use += n;
        true
    }

    /// The earliest instant at which a waiter will be rejected, for event-driven drivers.
    pub fn next_deadline(&self) -> Option<Millis> {
        if self.deadlines_in_order {
            self.waiters.front().map(|w| w.deadline)
        } else {
            self.waiters.iter().map(|w| w.deadline).min()
        }
    }

    /// Free permits (Resilience4j `availableConcurrentCalls`).
    pub fn available_permits(&self) -> u32 {
        self.config.max_concurrent_calls - self.in_use
    }

    /// Permits held by calls in flight.
    pub fn in_use(&self) -> u32 {
        self.in_use
    }

    /// `maxConcurrentCalls` (Resilience4j `maxAllowedConcurrentCalls`).
    pub fn max(&self) -> u32 {
        self.config.max_concurrent_calls
    }

    /// Calls waiting for a permit (expired waiters not yet collected are not counted).
    pub fn waiting(&self) -> usize {
        self.waiters.len()
    }

    /// Calls that got a permit, at once or after waiting.
    pub fn permitted_calls(&self) -> u64 {
        self.permitted_calls
    }

    /// Calls refused with `BulkheadFullException`, at once or when their wait ran out.
    pub fn rejected_calls(&self) -> u64 {
        self.rejected_calls
    }

    /// Calls that gave their permit back.
    pub fn finished_calls(&self) -> u64 {
        self.finished_calls
    }

    #[inline(always)]
    fn retire_expired(&mut self, now: Millis) {
        // Nobody waits in most bulkheads: no call for them.
        if !self.waiters.is_empty() {
            self.retire_expired_waiters(now);
        }
    }

    fn retire_expired_waiters(&mut self, now: Millis) {
        let before = self.waiters.len();
        if self.deadlines_in_order {
            while let Some(w) = self.waiters.front().filter(|w| w.deadline <= now) {
                self.expired.push(w.id);
                self.waiters.pop_front();
            }
        } else {
            let expired = &mut self.expired;
            self.waiters.retain(|w| {
                if w.deadline <= now {
                    expired.push(w.id);
                    false
                } else {
                    true
                }
            });
        }
        self.rejected_calls += (before - self.waiters.len()) as u64;
        // With max_wait > 0 and permits free, nobody should be waiting; a permit can only
        // be free here if every waiter just expired, which the loop above handled.
    }
}

// ---------------------------------------------------------------------------------------
// Thread-pool bulkhead
// ---------------------------------------------------------------------------------------

/// The processor count the defaults assume. Resilience4j derives its defaults from the
/// JVM's `Runtime.availableProcessors()`; a simulation has no JVM, so it fixes a typical
/// small server: 4 processors.
pub const ASSUMED_AVAILABLE_PROCESSORS: u32 = 4;

/// Settings of a thread-pool bulkhead (Resilience4j `ThreadPoolBulkheadConfig`).
///
/// Defaults follow Resilience4j with [`ASSUMED_AVAILABLE_PROCESSORS`] = 4:
/// `coreThreadPoolSize` = processors - 1 = 3 (at least 1), `maxThreadPoolSize` =
/// processors = 4, `queueCapacity` 100, `keepAliveDuration` 20 ms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ThreadPoolBulkheadConfig {
    pub core_thread_pool_size: u32,
    pub max_thread_pool_size: u32,
    pub queue_capacity: u32,
    /// How long a thread above the core size may stay idle before it ends.
    #[serde(with = "crate::duration::serde_millis")]
    pub keep_alive_duration: Millis,
}

impl Default for ThreadPoolBulkheadConfig {
    fn default() -> Self {
        Self {
            core_thread_pool_size: ASSUMED_AVAILABLE_PROCESSORS.saturating_sub(1).max(1),
            max_thread_pool_size: ASSUMED_AVAILABLE_PROCESSORS,
            queue_capacity: 100,
            keep_alive_duration: 20,
        }
    }
}

impl ThreadPoolBulkheadConfig {
    /// The builder's rules: core >= 1, max >= 1, max >= core, queue >= 0, keep-alive >= 0.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.core_thread_pool_size < 1 {
            return Err(ConfigError::new("coreThreadPoolSize", "must be at least 1"));
        }
        if self.max_thread_pool_size < 1 {
            return Err(ConfigError::new("maxThreadPoolSize", "must be at least 1"));
        }
        for (field, value) in [
            ("coreThreadPoolSize", self.core_thread_pool_size),
            ("maxThreadPoolSize", self.max_thread_pool_size),
            ("queueCapacity", self.queue_capacity),
        ] {
            if value > JAVA_INT_MAX {
                return Err(ConfigError::new(
                    field,
                    format!("must be at most {JAVA_INT_MAX}"),
                ));
            }
        }
        if self.max_thread_pool_size < self.core_thread_pool_size {
            return Err(ConfigError::new(
                "maxThreadPoolSize",
                "must be greater than or equal to coreThreadPoolSize",
            ));
        }
        Ok(())
    }

    /// Max threads + queue: the most tasks the bulkhead holds at once.
    pub fn capacity(&self) -> u64 {
        u64::from(self.max_thread_pool_size) + u64::from(self.queue_capacity)
    }
}

/// What the thread pool does with a submitted task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ThreadPoolAdmission {
    /// A thread runs it now (a new core thread, an idle thread, or a new thread above core).
    Running,
    /// It waits in the queue; a thread takes it when one finishes (FIFO).
    Queued,
    /// `BulkheadFullException` (the executor's `RejectedExecutionException`).
    Rejected,
}

/// A thread-pool bulkhead: a `ThreadPoolExecutor` with a bounded queue, as Resilience4j
/// builds it (`ArrayBlockingQueue(queueCapacity)`, or a hand-off `SynchronousQueue` when the
/// capacity is 0; abort policy on rejection).
///
/// Admission, in the JDK's order ([`submit`](Self::submit)):
/// 1. fewer threads than `coreThreadPoolSize`: start a new thread for the task (even if
///    another thread is idle, as the JDK does);
/// 2. otherwise offer it to the queue: an idle thread takes it at once (`Running`), or it
///    waits if the queue has room (`Queued`);
/// 3. the queue is full: start a new thread if there are fewer than `maxThreadPoolSize`;
/// 4. otherwise reject.
///
/// A busy thread is never stopped. An idle thread ends once it has been idle for
/// `keepAliveDuration` while the pool has more than `coreThreadPoolSize` threads (the pool
/// never shrinks below the core size: Resilience4j does not let core threads time out).
/// Idle threads are retired lazily, at the next operation whose `now` is at or past their
/// keep-alive.
///
/// Tasks are not named: the queue is FIFO, so a driver that keeps its own FIFO of queued
/// tasks knows which one [`complete`](Self::complete) started. Invariants:
/// `active <= pool_size <= max`, `queue_depth <= queueCapacity`,
/// and a task waits in the queue only while every thread is busy.
#[derive(Debug, Clone)]
pub struct ThreadPoolBulkhead {
    config: ThreadPoolBulkheadConfig,
    /// Threads alive (busy or idle).
    pool_size: u32,
    /// Threads running a task.
    active: u32,
    /// Tasks waiting for a thread.
    queued: u32,
    /// When each idle thread became idle, oldest first.
    idle_since: VecDeque<Millis>,
    admitted: u64,
    rejected: u64,
    completed: u64,
}

impl ThreadPoolBulkhead {
    pub fn new(config: ThreadPoolBulkheadConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self {
            config,
            pool_size: 0,
            active: 0,
            queued: 0,
            idle_since: VecDeque::new(),
            admitted: 0,
            rejected: 0,
            completed: 0,
        })
    }

    pub fn config(&self) -> &ThreadPoolBulkheadConfig {
        &self.config
    }

    /// Submits a task at `now` (Resilience4j `ThreadPoolBulkhead.submit`).
    pub fn submit(&mut self, now: Millis) -> ThreadPoolAdmission {
        self.expire_idle_threads(now);
        // 1. Grow to the core size first, one thread per task.
        if self.pool_size < self.config.core_thread_pool_size {
            self.pool_size += 1;
            self.active += 1;
            self.admitted += 1;
            return ThreadPoolAdmission::Running;
        }
        // 2. Offer to the queue: a thread blocked on the queue takes the task at once.
        if self.take_idle_thread() {
            self.active += 1;
            self.admitted += 1;
            return ThreadPoolAdmission::Running;
        }
        if self.queued < self.config.queue_capacity {
            self.queued += 1;
            self.admitted += 1;
            return ThreadPoolAdmission::Queued;
        }
        // 3. Queue full: grow above core up to the max.
        if self.pool_size < self.config.max_thread_pool_size {
            self.pool_size += 1;
            self.active += 1;
            self.admitted += 1;
            return ThreadPoolAdmission::Running;
        }
        // 4. Abort policy.
        self.rejected += 1;
        ThreadPoolAdmission::Rejected
    }

    /// A running task finished at `now`. Its thread takes the oldest queued task, if any:
    /// returns true when a queued task started. Without a running task it does nothing and
    /// returns false.
    pub fn complete(&mut self, now: Millis) -> bool {
        self.expire_idle_threads(now);
        if self.active == 0 {
            return false;
        }
        self.completed += 1;
        if self.queued > 0 {
            self.queued -= 1;
            true
        } else {
            self.active -= 1;
            self.idle_since.push_back(now);
            false
        }
    }

    /// Ends idle threads above the core size whose keep-alive has run out by `now`.
    pub fn expire_idle_threads(&mut self, now: Millis) {
        while self.pool_size > self.config.core_thread_pool_size {
            match self.idle_since.front() {
                Some(&since) if since.saturating_add(self.config.keep_alive_duration) <= now => {
                    self.idle_since.pop_front();
                    self.pool_size -= 1;
                }
                _ => break,
            }
        }
    }

    fn take_idle_thread(&mut self) -> bool {
        // Which idle thread takes the task only matters for keep-alive: a hand-off
        // `SynchronousQueue` (capacity 0, non-fair) serves the most recently idle thread,
        // an `ArrayBlockingQueue` wakes the longest-waiting one.
        let taken = if self.config.queue_capacity == 0 {
            self.idle_since.pop_back()
        } else {
            self.idle_since.pop_front()
        };
        taken.is_some()
    }

    /// Threads running a task (the executor's `getActiveCount`).
    pub fn active_threads(&self) -> u32 {
        self.active
    }

    /// Threads alive, busy or idle (the executor's `getPoolSize`).
    pub fn pool_size(&self) -> u32 {
        self.pool_size
    }

    /// Idle threads still alive.
    pub fn idle_threads(&self) -> u32 {
        self.pool_size - self.active
    }

    /// Tasks waiting in the queue (Resilience4j `queueDepth`).
    pub fn queue_depth(&self) -> u32 {
        self.queued
    }

    /// Free places in the queue (Resilience4j `remainingQueueCapacity`).
    pub fn remaining_queue_capacity(&self) -> u32 {
        self.config.queue_capacity - self.queued
    }

    /// Max threads + queue capacity.
    pub fn capacity(&self) -> u64 {
        self.config.capacity()
    }

    /// Tasks admitted (running or queued at submission), over the bulkhead's life.
    pub fn admitted_tasks(&self) -> u64 {
        self.admitted
    }

    /// Tasks refused with `BulkheadFullException`.
    pub fn rejected_tasks(&self) -> u64 {
        self.rejected
    }

    /// Tasks that finished.
    pub fn completed_tasks(&self) -> u64 {
        self.completed
    }
}
