//! Thread-pool bulkhead scripts (`resilience-sim thread-pool-bulkhead FILE`): one
//! Resilience4j `FixedThreadPoolBulkhead`, driven task by task.
//!
//! ```json
//! {"config": {"coreThreadPoolSize": 1, "maxThreadPoolSize": 2, "queueCapacity": 1},
//!  "steps": [{"submit": {}}, {"submit": {}}, {"submit": {}}, {"submit": {}},
//!            {"complete": {}}, {"complete": {}}, {"complete": {}}, {"advance_ms": 20}]}
//! ```
//!
//! Resilience4j runs the calls on a JDK `ThreadPoolExecutor(coreThreadPoolSize,
//! maxThreadPoolSize, keepAliveDuration)` over an `ArrayBlockingQueue(queueCapacity)` (a
//! hand-off `SynchronousQueue` when the capacity is 0), with the abort policy: a rejected
//! task is a `BulkheadFullException`. `submit` hands a task to the pool (`submit(callable)`);
//! `complete` ends the oldest running task; `advance_ms` moves the clock. Tasks are named by
//! their submit step (`completed`, `started`).
//!
//! What may surprise, all the JDK's:
//! - The admission order: while the pool has fewer threads than `coreThreadPoolSize`, a task
//!   starts a new thread, even with other threads idle; then it goes to the queue (an idle
//!   thread takes it at once); only when the queue is full does the pool start threads
//!   above the core size, up to `maxThreadPoolSize`; then the task is refused. A task can
//!   wait in the queue while the pool could still grow.
//! - A finished task's thread takes the oldest queued task. An idle thread ends once it has
//!   been idle for `keepAliveDuration` while the pool has more than `coreThreadPoolSize`
//!   threads (the longest idle first); the pool never shrinks below the core size. A thread
//!   idle for exactly `keepAliveDuration` has ended: a task submitted at that instant does
//!   not find it. Which idle thread takes a new task decides which one ages: the longest
//!   idle from an `ArrayBlockingQueue`, the most recently idle from a `SynchronousQueue`.
//! - `availableThreadCount` is `maximumThreadPoolSize - activeThreadCount`, as Resilience4j
//!   computes it: it counts threads that are not started yet, and says nothing of the queue.
//! - The defaults depend on the JVM's `Runtime.availableProcessors()`
//!   (`maxThreadPoolSize` = processors, `coreThreadPoolSize` = processors - 1, at least 1).
//!   A script has no JVM and takes 4 processors
//!   ([`crate::policy::bulkhead::ASSUMED_AVAILABLE_PROCESSORS`]): 3 and 4. So
//!   `{"coreThreadPoolSize": 5}` alone is refused, as the builder refuses it on a machine
//!   with 4 processors (`maxThreadPoolSize` 4 < 5).
//!
//! The engine's [`ThreadPoolBulkhead`] plays the pool; this runner names the tasks.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::super::{check_duration, check_steps, json_lines, whole_ms, Clock};
use super::BULKHEAD_FULL;
use crate::policy::bulkhead::{ThreadPoolAdmission, ThreadPoolBulkhead, ThreadPoolBulkheadConfig};
use crate::{ConfigError, Millis};

/// `ThreadPoolBulkheadConfig` as a script writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ThreadPoolBulkheadScriptConfig {
    /// `coreThreadPoolSize` (default 3: 4 processors - 1).
    pub core_thread_pool_size: u32,
    /// `maxThreadPoolSize` (default 4: the 4 processors a script assumes).
    pub max_thread_pool_size: u32,
    /// `queueCapacity` (default 100; 0 is a hand-off `SynchronousQueue`).
    pub queue_capacity: u32,
    /// `keepAliveDuration` (default 20 ms).
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
    /// The settings the engine models.
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
    /// The executor's `getCorePoolSize()`.
    pub core_thread_pool_size: u32,
    /// The executor's `getPoolSize()`: threads alive, busy or idle.
    pub thread_pool_size: u32,
    /// The executor's `getMaximumPoolSize()`.
    pub maximum_thread_pool_size: u32,
    /// `getQueue().size()`: tasks waiting for a thread.
    pub queue_depth: u32,
    /// The config's `queueCapacity`.
    pub queue_capacity: u32,
    /// `getQueue().remainingCapacity()` (0 for the `SynchronousQueue` of capacity 0).
    pub remaining_queue_capacity: u32,
    /// The executor's `getActiveCount()`: threads running a task.
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
    /// The builder's rules (core >= 1, max >= 1, max >= core, Java's `int` range), the
    /// clock and the number of steps.
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
    let script: ThreadPoolBulkheadScript =
        super::super::parse(json, "thread-pool bulkhead script")?;
    let reports = run_thread_pool_bulkhead_script(&script)
        .map_err(|e| format!("invalid thread-pool bulkhead script: {e}"))?;
    json_lines(&reports)
}
