//! Bulkhead scripts: a semaphore bulkhead (`resilience-sim bulkhead FILE`) and a thread-pool
//! bulkhead (`resilience-sim thread-pool-bulkhead FILE`), driven call by call.
//!
//! ```json
//! {"config": {"maxConcurrentCalls": 2, "maxWaitDuration": "100ms"},
//!  "steps": [{"acquire": {}}, {"acquire": {}}, {"acquire": {}},
//!            {"acquire": {"max_wait_ms": 0}}, {"advance_ms": 50}, {"release": {}},
//!            {"advance_ms": 100}]}
//! ```
//!
//! **Semaphore** (`SemaphoreBulkhead`, a fair `java.util.concurrent.Semaphore`): `acquire`
//! is `tryAcquirePermission`, waiting up to the config's `maxWaitDuration`, or `max_wait_ms`
//! when the step gives one (a caller with its own wait: what the bulkhead would do for it
//! with that `maxWaitDuration`). The clock does not move during a step, so a caller that
//! must wait is parked (`"waiting": true`); a later `release` hands the freed permit to the
//! oldest waiter (`granted`), and a waiter whose wait runs out by a later step's instant is
//! refused then (`expired`, with `BulkheadFullException`), each named by its acquire step.
//! `release` is `onComplete` (`semaphore.release()`): like Java's semaphore it always adds
//! a permit, so releasing more than was acquired raises `availableConcurrentCalls` above
//! `maxConcurrentCalls`, as it does in Resilience4j.
//!
//! **Thread pool** (`FixedThreadPoolBulkhead`, a JDK `ThreadPoolExecutor`): `submit` hands a
//! task to the pool (a new core thread, an idle thread, the queue, a new thread above the
//! core size once the queue is full, or `BulkheadFullException`); `complete` ends the
//! oldest running task, whose thread takes the oldest queued one; threads above the core
//! size that stay idle for `keepAliveDuration` end (seen after an `advance_ms`).
//! `Runtime.availableProcessors()` is taken as 4
//! ([`crate::policy::bulkhead::ASSUMED_AVAILABLE_PROCESSORS`]), so the
//! defaults are `coreThreadPoolSize` 3 and `maxThreadPoolSize` 4.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::{check_duration, check_steps, json_lines, opt_whole_ms, whole_ms, Clock};
use crate::policy::bulkhead::{
    Admission, BulkheadConfig, SemaphoreBulkhead, ThreadPoolAdmission, ThreadPoolBulkhead,
    ThreadPoolBulkheadConfig, WaiterId,
};
use crate::{ConfigError, Millis};

// ---------------------------------------------------------------------------------------
// Semaphore bulkhead
// ---------------------------------------------------------------------------------------

/// `BulkheadConfig` as a script writes it: the engine's settings and the two Resilience4j
/// flags that change nothing a script can see.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct BulkheadScriptConfig {
    pub max_concurrent_calls: u32,
    #[serde(with = "crate::duration::serde_millis")]
    pub max_wait_duration: Millis,
    /// Whether `BulkheadFullException` has a stack trace (default true; no effect here).
    pub writable_stack_trace_enabled: bool,
    /// A fair semaphore (default true): waiters get permits in the order they came. An
    /// unfair one may let a newcomer take a freed permit first, which no script can pin;
    /// the script plays the fair order either way.
    pub fair_call_handling_strategy_enabled: bool,
}

impl Default for BulkheadScriptConfig {
    fn default() -> Self {
        let engine = BulkheadConfig::default();
        Self {
            max_concurrent_calls: engine.max_concurrent_calls,
            max_wait_duration: engine.max_wait_duration,
            writable_stack_trace_enabled: true,
            fair_call_handling_strategy_enabled: true,
        }
    }
}

impl BulkheadScriptConfig {
    pub fn engine(&self) -> BulkheadConfig {
        BulkheadConfig {
            max_concurrent_calls: self.max_concurrent_calls,
            max_wait_duration: self.max_wait_duration,
        }
    }
}

/// A whole semaphore bulkhead script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BulkheadScript {
    #[serde(default)]
    pub config: BulkheadScriptConfig,
    pub steps: Vec<BulkheadStep>,
}

/// One operation on a semaphore bulkhead.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum BulkheadStep {
    /// `tryAcquirePermission`, waiting at most `max_wait_ms` (default: `maxWaitDuration`).
    Acquire {
        #[serde(
            default,
            deserialize_with = "opt_whole_ms",
            skip_serializing_if = "Option::is_none"
        )]
        max_wait_ms: Option<Millis>,
    },
    /// `onComplete`: gives a permit back.
    Release {},
    /// Moves the clock forward.
    #[serde(deserialize_with = "whole_ms")]
    AdvanceMs(Millis),
}

/// A parked caller's end: the acquire step that parked it, and how long it waited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct WaitEnd {
    pub step: usize,
    pub waited_ms: Millis,
}

/// The semaphore bulkhead after one step.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BulkheadReport {
    pub step: usize,
    #[serde(rename = "t_ms")]
    pub t_ms: Millis,
    /// `Bulkhead.Metrics.getAvailableConcurrentCalls()`.
    pub available_concurrent_calls: u32,
    /// `Bulkhead.Metrics.getMaxAllowedConcurrentCalls()`.
    pub max_allowed_concurrent_calls: u32,
    /// Callers parked for a permit.
    pub waiting_calls: u32,
    /// For an `acquire` decided at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permitted: Option<bool>,
    /// For an `acquire` that parks its caller.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub waiting: bool,
    /// Parked callers that got a permit at this step.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub granted: Vec<WaitEnd>,
    /// Parked callers whose wait ran out by this step (`BulkheadFullException`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expired: Vec<WaitEnd>,
    /// `BulkheadFullException` for an acquire refused at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl BulkheadScript {
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.config
            .engine()
            .validate()
            .map_err(|e| ConfigError::new(format!("config.{}", e.field), e.message))?;
        check_duration("config.maxWaitDuration", self.config.max_wait_duration)?;
        check_steps(self.steps.len())?;
        let mut clock = Clock::default();
        for (index, step) in self.steps.iter().enumerate() {
            match step {
                BulkheadStep::Acquire {
                    max_wait_ms: Some(ms),
                } => check_duration(format!("steps[{index}].acquire.max_wait_ms"), *ms)?,
                BulkheadStep::AdvanceMs(ms) => clock.advance(index, *ms)?,
                _ => {}
            }
        }
        Ok(())
    }
}

const BULKHEAD_FULL: &str = "BulkheadFullException";

/// Runs a semaphore bulkhead script (an invalid script is refused before any step).
pub fn run_bulkhead_script(script: &BulkheadScript) -> Result<Vec<BulkheadReport>, ConfigError> {
    script.validate()?;
    let mut bulkhead = SemaphoreBulkhead::new(script.config.engine())?;
    // Java's semaphore counts every release: permits given back beyond those held.
    let mut surplus: u32 = 0;
    // Parked callers: (waiter, acquire step, since, how long it may wait).
    let mut parked: Vec<(WaiterId, usize, Millis, Millis)> = Vec::new();
    let mut now: Millis = 0;
    let mut reports = Vec::with_capacity(script.steps.len());
    for (index, step) in script.steps.iter().enumerate() {
        let mut report = BulkheadReport {
            step: index,
            t_ms: now,
            available_concurrent_calls: 0,
            max_allowed_concurrent_calls: 0,
            waiting_calls: 0,
            permitted: None,
            waiting: false,
            granted: Vec::new(),
            expired: Vec::new(),
            error: None,
        };
        // A waiter's end: granted now, or expired at its deadline (seen now, maybe later).
        let end =
            |parked: &mut Vec<(WaiterId, usize, Millis, Millis)>, id: WaiterId, now: Millis| {
                let at = parked.iter().position(|p| p.0 == id)?;
                let (_, step, since, wait) = parked.remove(at);
                Some(WaitEnd {
                    step,
                    waited_ms: (now - since).min(wait),
                })
            };
        // Waits that ran out before this step's operation.
        for id in bulkhead.expire_waiters(now) {
            report.expired.extend(end(&mut parked, id, now));
        }
        match step {
            BulkheadStep::Acquire { max_wait_ms } => {
                if surplus > 0 && bulkhead.waiting() == 0 {
                    surplus -= 1;
                    report.permitted = Some(true);
                } else {
                    let wait = max_wait_ms.unwrap_or(script.config.max_wait_duration);
                    match bulkhead.try_acquire_waiting_at_most(now, wait) {
                        Admission::Permitted => report.permitted = Some(true),
                        Admission::Rejected => {
                            report.permitted = Some(false);
                            report.error = Some(BULKHEAD_FULL.to_string());
                        }
                        Admission::Waiting(id) => {
                            parked.push((id, index, now, wait));
                            report.waiting = true;
                        }
                    }
                }
            }
            BulkheadStep::Release {} => {
                if bulkhead.in_use() > 0 {
                    for id in bulkhead.release(now) {
                        report.granted.extend(end(&mut parked, id, now));
                    }
                } else if let Some(&(id, ..)) = parked.first() {
                    // A permit no call held (a surplus, or `maxConcurrentCalls` 0): Java's
                    // semaphore still hands it to the first waiter.
                    bulkhead.cancel(id);
                    report.granted.extend(end(&mut parked, id, now));
                } else {
                    surplus = surplus.saturating_add(1);
                }
            }
            BulkheadStep::AdvanceMs(ms) => now += ms,
        }
        for id in bulkhead.expire_waiters(now) {
            report.expired.extend(end(&mut parked, id, now));
        }
        report.t_ms = now;
        report.available_concurrent_calls = bulkhead.available_permits().saturating_add(surplus);
        report.max_allowed_concurrent_calls = bulkhead.max();
        report.waiting_calls = bulkhead.waiting() as u32;
        reports.push(report);
    }
    Ok(reports)
}

/// Reads, checks and runs a semaphore bulkhead script; one JSON line per step.
pub fn run_text(json: &str) -> Result<Vec<String>, String> {
    let script: BulkheadScript = super::parse(json, "bulkhead script")?;
    let reports =
        run_bulkhead_script(&script).map_err(|e| format!("invalid bulkhead script: {e}"))?;
    json_lines(&reports)
}

// ---------------------------------------------------------------------------------------
// Thread-pool bulkhead
// ---------------------------------------------------------------------------------------

/// `ThreadPoolBulkheadConfig` as a script writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ThreadPoolBulkheadScriptConfig {
    pub core_thread_pool_size: u32,
    pub max_thread_pool_size: u32,
    pub queue_capacity: u32,
    #[serde(with = "crate::duration::serde_millis")]
    pub keep_alive_duration: Millis,
    /// Whether `BulkheadFullException` has a stack trace (default true; no effect here).
    pub writable_stack_trace_enabled: bool,
}

impl Default for ThreadPoolBulkheadScriptConfig {
    fn default() -> Self {
        let engine = ThreadPoolBulkheadConfig::default();
        Self {
            core_thread_pool_size: engine.core_thread_pool_size,
            max_thread_pool_size: engine.max_thread_pool_size,
            queue_capacity: engine.queue_capacity,
            keep_alive_duration: engine.keep_alive_duration,
            writable_stack_trace_enabled: true,
        }
    }
}

impl ThreadPoolBulkheadScriptConfig {
    pub fn engine(&self) -> ThreadPoolBulkheadConfig {
        ThreadPoolBulkheadConfig {
            core_thread_pool_size: self.core_thread_pool_size,
            max_thread_pool_size: self.max_thread_pool_size,
            queue_capacity: self.queue_capacity,
            keep_alive_duration: self.keep_alive_duration,
        }
    }
}

/// A whole thread-pool bulkhead script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadPoolBulkheadScript {
    #[serde(default)]
    pub config: ThreadPoolBulkheadScriptConfig,
    pub steps: Vec<ThreadPoolBulkheadStep>,
}

/// One operation on a thread-pool bulkhead.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ThreadPoolBulkheadStep {
    /// `submit`: a task handed to the pool.
    Submit {},
    /// The oldest running task finishes.
    Complete {},
    /// Moves the clock forward.
    #[serde(deserialize_with = "whole_ms")]
    AdvanceMs(Millis),
}

/// The thread-pool bulkhead after one step, under `ThreadPoolBulkhead.Metrics`' names.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadPoolBulkheadReport {
    pub step: usize,
    #[serde(rename = "t_ms")]
    pub t_ms: Millis,
    pub core_thread_pool_size: u32,
    pub thread_pool_size: u32,
    pub maximum_thread_pool_size: u32,
    pub queue_depth: u32,
    pub queue_capacity: u32,
    pub remaining_queue_capacity: u32,
    pub active_thread_count: u32,
    /// `maximumThreadPoolSize - activeThreadCount`, as Resilience4j computes it.
    pub available_thread_count: u32,
    /// For a `submit`: accepted (running or queued) or refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permitted: Option<bool>,
    /// For an accepted `submit`: whether it waits in the queue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queued: Option<bool>,
    /// For a `complete`: the submit step of the task that ended, and of the queued task
    /// its thread took.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started: Option<usize>,
    /// `BulkheadFullException` for a refused submit; for a `complete` with no running task,
    /// why nothing happened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ThreadPoolBulkheadScript {
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.config
            .engine()
            .validate()
            .map_err(|e| ConfigError::new(format!("config.{}", e.field), e.message))?;
        check_duration("config.keepAliveDuration", self.config.keep_alive_duration)?;
        check_steps(self.steps.len())?;
        let mut clock = Clock::default();
        for (index, step) in self.steps.iter().enumerate() {
            if let ThreadPoolBulkheadStep::AdvanceMs(ms) = step {
                clock.advance(index, *ms)?;
            }
        }
        Ok(())
    }
}

/// Runs a thread-pool bulkhead script (an invalid script is refused before any step).
pub fn run_thread_pool_bulkhead_script(
    script: &ThreadPoolBulkheadScript,
) -> Result<Vec<ThreadPoolBulkheadReport>, ConfigError> {
    script.validate()?;
    let config = script.config.engine();
    let mut pool = ThreadPoolBulkhead::new(config.clone())?;
    // The submit steps of the running and the queued tasks, oldest first.
    let mut running: VecDeque<usize> = VecDeque::new();
    let mut queue: VecDeque<usize> = VecDeque::new();
    let mut now: Millis = 0;
    let mut reports = Vec::with_capacity(script.steps.len());
    for (index, step) in script.steps.iter().enumerate() {
        let (mut permitted, mut queued, mut completed, mut started, mut error) =
            (None, None, None, None, None);
        match step {
            ThreadPoolBulkheadStep::Submit {} => match pool.submit(now) {
                ThreadPoolAdmission::Running => {
                    running.push_back(index);
                    (permitted, queued) = (Some(true), Some(false));
                }
                ThreadPoolAdmission::Queued => {
                    queue.push_back(index);
                    (permitted, queued) = (Some(true), Some(true));
                }
                ThreadPoolAdmission::Rejected => {
                    permitted = Some(false);
                    error = Some(BULKHEAD_FULL.to_string());
                }
            },
            ThreadPoolBulkheadStep::Complete {} => {
                if running.is_empty() {
                    error = Some("no task is running: nothing completes".to_string());
                } else {
                    completed = running.pop_front();
                    if pool.complete(now) {
                        started = queue.pop_front();
                        running.extend(started);
                    }
                }
            }
            ThreadPoolBulkheadStep::AdvanceMs(ms) => now += ms,
        }
        pool.expire_idle_threads(now);
        let active = pool.active_threads();
        reports.push(ThreadPoolBulkheadReport {
            step: index,
            t_ms: now,
            core_thread_pool_size: config.core_thread_pool_size,
            thread_pool_size: pool.pool_size(),
            maximum_thread_pool_size: config.max_thread_pool_size,
            queue_depth: pool.queue_depth(),
            queue_capacity: config.queue_capacity,
            remaining_queue_capacity: pool.remaining_queue_capacity(),
            active_thread_count: active,
            available_thread_count: config.max_thread_pool_size - active,
            permitted,
            queued,
            completed,
            started,
            error,
        });
    }
    Ok(reports)
}

/// Reads, checks and runs a thread-pool bulkhead script; one JSON line per step.
pub fn run_thread_pool_text(json: &str) -> Result<Vec<String>, String> {
    let script: ThreadPoolBulkheadScript = super::parse(json, "thread-pool bulkhead script")?;
    let reports = run_thread_pool_bulkhead_script(&script)
        .map_err(|e| format!("invalid thread-pool bulkhead script: {e}"))?;
    json_lines(&reports)
}
