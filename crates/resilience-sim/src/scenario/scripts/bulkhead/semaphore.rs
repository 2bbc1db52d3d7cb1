//! Semaphore bulkhead scripts (`resilience-sim bulkhead FILE`): one Resilience4j
//! `SemaphoreBulkhead`, driven call by call.
//!
//! ```json
//! {"config": {"maxConcurrentCalls": 2, "maxWaitDuration": "100ms"},
//!  "steps": [{"acquire": {}}, {"acquire": {}}, {"acquire": {}},
//!            {"acquire": {"max_wait_ms": 0}}, {"advance_ms": 50}, {"release": {}},
//!            {"change_config": {"maxConcurrentCalls": 3}}, {"advance_ms": 100}]}
//! ```
//!
//! Resilience4j's bulkhead is a `java.util.concurrent.Semaphore` of `maxConcurrentCalls`
//! permits. `acquire` is `tryAcquirePermission()`: `semaphore.tryAcquire(maxWaitDuration)`
//! (`error` names the `BulkheadFullException` that `acquirePermission()`, used by the
//! decorators, throws for a refusal). `release` is `onComplete()` / `releasePermission()`:
//! `semaphore.release()`. `change_config` is `changeConfig(newConfig)`.
//!
//! The clock does not move during a step, so a caller that must wait is parked
//! (`"waiting": true`). A later step reports, by their acquire steps, the parked callers
//! that got a permit (`granted`: a `release`, or a `change_config` that raises the limit,
//! hands permits to the oldest first) and those whose wait ran out by its instant
//! (`expired`, each refused with `BulkheadFullException`), with how long each waited. A
//! caller whose wait ends at the very instant a permit is freed has been refused: the permit
//! goes to the next. A granted caller holds its permit until a `release`.
//!
//! What may surprise, all Java's:
//! - Resilience4j has no per-call wait: `tryAcquirePermission()` takes no argument and reads
//!   the config's `maxWaitDuration` at every call. `{"acquire": {"max_wait_ms": N}}` is what
//!   a `changeConfig` to the same `maxConcurrentCalls` and a `maxWaitDuration` of N just
//!   before the call would do (with the limit unchanged, `changeConfig` leaves the semaphore
//!   alone); a parked caller keeps the wait it came with.
//! - `release` always adds a permit, as Java's semaphore does, even one nobody acquired:
//!   `availableConcurrentCalls` then exceeds `maxAllowedConcurrentCalls`. Past
//!   `Integer.MAX_VALUE` permits Java throws `Error: Maximum permit count exceeded` and
//!   nothing changes.
//! - `change_config` takes a whole `BulkheadConfig`: what it leaves out takes Resilience4j's
//!   default, not the current value (`BulkheadConfig.custom()...build()`). Raising the limit
//!   releases the difference (to the parked callers first); lowering it takes the difference
//!   from the free permits. Lowering it by more than is free would block the caller of
//!   `changeConfig` in `Semaphore.acquireUninterruptibly`, with the old config still in
//!   force, until calls release enough: a script does not model that blocked caller, so such
//!   a script is refused, naming the step. The semaphore's fairness is fixed when the
//!   bulkhead is built: a new `fairCallHandlingStrategyEnabled` changes nothing.
//! - `fairCallHandlingStrategyEnabled` (default true: a fair semaphore, first come first
//!   served) changes nothing a script can see: a freed permit goes straight to the oldest
//!   parked caller and each step completes before the next, so a permit is never free while
//!   a caller waits, and an unfair semaphore's barging (a newcomer overtaking a woken
//!   waiter) has nothing to race for. `writableStackTraceEnabled` only decides whether the
//!   exception carries a stack trace.
//!
//! The engine's [`SemaphoreBulkhead`] keeps the parked callers; this runner adds what Java's
//! semaphore has and the engine leaves out: permits given back beyond those taken, and the
//! limit changing.

use serde::{Deserialize, Serialize};

use super::super::{check_duration, check_steps, json_lines, opt_whole_ms, whole_ms, Clock};
use super::BULKHEAD_FULL;
use crate::policy::bulkhead::{Admission, BulkheadConfig, SemaphoreBulkhead, WaiterId};
use crate::{ConfigError, Millis};

/// Java's `int` bound: a semaphore holds at most this many permits.
const JAVA_INT_MAX: u64 = i32::MAX as u64;

/// What `Semaphore.release` throws past `Integer.MAX_VALUE` permits.
const PERMIT_OVERFLOW: &str = "Error: Maximum permit count exceeded";

/// `BulkheadConfig` as a script writes it: the engine's settings and the two Resilience4j
/// flags that change nothing a script can see.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct BulkheadScriptConfig {
    /// `maxConcurrentCalls` (default 25; 0 refuses every call).
    pub max_concurrent_calls: u32,
    /// `maxWaitDuration` (default 0: refuse at once).
    #[serde(with = "crate::duration::serde_millis")]
    pub max_wait_duration: Millis,
    /// Whether `BulkheadFullException` has a stack trace (default true; no effect here).
    pub writable_stack_trace_enabled: bool,
    /// A fair semaphore (default true): waiters get permits in the order they came. An
    /// unfair one lets a newcomer overtake a woken waiter, a race no script step can stage:
    /// the script plays the same either way.
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
    /// The settings the engine models.
    pub fn engine(&self) -> BulkheadConfig {
        BulkheadConfig {
            max_concurrent_calls: self.max_concurrent_calls,
            max_wait_duration: self.max_wait_duration,
        }
    }

    /// The builder's rules, each error named under `at` (`config`, `steps[3].change_config`).
    fn validate(&self, at: &str) -> Result<(), ConfigError> {
        self.engine()
            .validate()
            .map_err(|e| ConfigError::new(format!("{at}.{}", e.field), e.message))?;
        check_duration(format!("{at}.maxWaitDuration"), self.max_wait_duration)
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
    /// `tryAcquirePermission`, waiting at most `max_wait_ms` (default: the current config's
    /// `maxWaitDuration`).
    Acquire {
        #[serde(
            default,
            deserialize_with = "opt_whole_ms",
            skip_serializing_if = "Option::is_none"
        )]
        max_wait_ms: Option<Millis>,
    },
    /// `onComplete` / `releasePermission`: gives a permit back.
    Release {},
    /// Moves the clock forward.
    #[serde(deserialize_with = "whole_ms")]
    AdvanceMs(Millis),
    /// `changeConfig`: a whole new config (what it leaves out takes the default).
    ChangeConfig(BulkheadScriptConfig),
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
    /// `Bulkhead.Metrics.getAvailableConcurrentCalls()`: the semaphore's free permits.
    pub available_concurrent_calls: u32,
    /// `Bulkhead.Metrics.getMaxAllowedConcurrentCalls()`: the current config's limit.
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
    /// `BulkheadFullException` for an acquire refused at once; `Error: Maximum permit count
    /// exceeded` for a release or a raise past `Integer.MAX_VALUE` permits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl BulkheadScript {
    /// The config's and every `change_config`'s rules, every wait, the clock and the
    /// number of steps. (A `change_config` that would block is found only by running.)
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.config.validate("config")?;
        check_steps(self.steps.len())?;
        let mut clock = Clock::default();
        for (index, step) in self.steps.iter().enumerate() {
            match step {
                BulkheadStep::Acquire {
                    max_wait_ms: Some(ms),
                } => check_duration(format!("steps[{index}].acquire.max_wait_ms"), *ms)?,
                BulkheadStep::AdvanceMs(ms) => clock.advance(index, *ms)?,
                BulkheadStep::ChangeConfig(config) => {
                    config.validate(&format!("steps[{index}].change_config"))?
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// A caller parked for a permit.
struct Parked {
    id: WaiterId,
    step: usize,
    since: Millis,
    wait: Millis,
}

/// Java's semaphore, on the engine: the engine's free permits and parked callers, plus
/// the permits given back beyond those taken (`surplus`), and the config in force.
struct Semaphore {
    engine: SemaphoreBulkhead,
    surplus: u64,
    config: BulkheadScriptConfig,
    parked: Vec<Parked>,
}

impl Semaphore {
    /// `Semaphore.availablePermits()`; never more than `Integer.MAX_VALUE`.
    fn permits(&self) -> u64 {
        u64::from(self.engine.available_permits()) + self.surplus
    }

    fn end(&mut self, id: WaiterId, now: Millis) -> Option<WaitEnd> {
        let at = self.parked.iter().position(|p| p.id == id)?;
        let p = self.parked.remove(at);
        Some(WaitEnd {
            step: p.step,
            waited_ms: (now - p.since).min(p.wait),
        })
    }

    /// Refuses the parked callers whose wait has run out by `now`.
    fn expire(&mut self, now: Millis, into: &mut Vec<WaitEnd>) {
        for id in self.engine.expire_waiters(now) {
            into.extend(self.end(id, now));
        }
    }

    /// `tryAcquire(wait)` at `now` by the caller of step `index`.
    fn try_acquire(
        &mut self,
        now: Millis,
        wait: Millis,
        index: usize,
        report: &mut BulkheadReport,
    ) {
        // A permit given back beyond those taken is free only while nobody waits (a freed
        // permit goes to the oldest waiter first), as the engine's own free permits are.
        if self.surplus > 0 && self.engine.waiting() == 0 {
            self.surplus -= 1;
            report.permitted = Some(true);
            return;
        }
        match self.engine.try_acquire_waiting_at_most(now, wait) {
            Admission::Permitted => report.permitted = Some(true),
            Admission::Rejected => {
                report.permitted = Some(false);
                report.error = Some(BULKHEAD_FULL.to_string());
            }
            Admission::Waiting(id) => {
                self.parked.push(Parked {
                    id,
                    step: index,
                    since: now,
                    wait,
                });
                report.waiting = true;
            }
        }
    }

    /// `release(n)`: the oldest parked callers get a permit each, the rest are free. Java
    /// first checks the count: past `Integer.MAX_VALUE` it throws and nothing changes.
    fn release(&mut self, now: Millis, n: u64, report: &mut BulkheadReport) -> bool {
        if self.permits() + n > JAVA_INT_MAX {
            report.error = Some(PERMIT_OVERFLOW.to_string());
            return false;
        }
        let mut left = n;
        while left > 0 && !self.parked.is_empty() {
            left -= 1;
            if self.engine.in_use() > 0 {
                // The engine hands the permit straight to its oldest waiter.
                for id in self.engine.release(now) {
                    report.granted.extend(self.end(id, now));
                }
            } else {
                // No permit is taken in the engine (`maxConcurrentCalls` 0): the waiter
                // gets one of Java's extra permits.
                let id = self.parked[0].id;
                self.engine.cancel(id);
                report.granted.extend(self.end(id, now));
            }
        }
        self.surplus += left;
        true
    }

    /// `changeConfig(config)` at step `index`.
    fn change_config(
        &mut self,
        now: Millis,
        config: &BulkheadScriptConfig,
        index: usize,
        report: &mut BulkheadReport,
    ) -> Result<(), ConfigError> {
        let old = u64::from(self.config.max_concurrent_calls);
        let new = u64::from(config.max_concurrent_calls);
        if new > old && !self.release(now, new - old, report) {
            return Ok(());
        }
        if new < old {
            let (lower, free) = (old - new, self.permits());
            // Java: `acquireUninterruptibly(lower)`, at once only when that many are free
            // (and, fair, nobody waits: with a permit free nobody does).
            let from_surplus = lower.min(self.surplus);
            let from_engine = (lower - from_surplus) as u32;
            if lower > free || !self.engine.hold_free_permits(now, from_engine) {
                return Err(ConfigError::new(
                    format!("steps[{index}].change_config.maxConcurrentCalls"),
                    format!(
                        "lowers the limit from {old} to {new} (by {lower}) with {free} permits free: Resilience4j's changeConfig would block its caller in Semaphore.acquireUninterruptibly({lower}), the old config still in force, until calls release enough; a script does not model a blocked changeConfig (lower the limit when enough permits are free)"
                    ),
                ));
            }
            self.surplus -= from_surplus;
        }
        self.config = config.clone();
        Ok(())
    }
}

/// Runs a semaphore bulkhead script. An invalid script is refused before any step, and so
/// is one with a `change_config` that would block (found by running it, before any report
/// is given).
pub fn run_bulkhead_script(script: &BulkheadScript) -> Result<Vec<BulkheadReport>, ConfigError> {
    script.validate()?;
    let mut semaphore = Semaphore {
        engine: SemaphoreBulkhead::new(script.config.engine())?,
        surplus: 0,
        config: script.config.clone(),
        parked: Vec::new(),
    };
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
        // Waits that ran out by this instant end before the step's operation.
        semaphore.expire(now, &mut report.expired);
        match step {
            BulkheadStep::Acquire { max_wait_ms } => {
                let wait = max_wait_ms.unwrap_or(semaphore.config.max_wait_duration);
                semaphore.try_acquire(now, wait, index, &mut report);
            }
            BulkheadStep::Release {} => {
                semaphore.release(now, 1, &mut report);
            }
            BulkheadStep::AdvanceMs(ms) => now += ms,
            BulkheadStep::ChangeConfig(config) => {
                semaphore.change_config(now, config, index, &mut report)?
            }
        }
        semaphore.expire(now, &mut report.expired);
        report.t_ms = now;
        // At most `Integer.MAX_VALUE`: `release` refuses to pass it.
        report.available_concurrent_calls = semaphore.permits() as u32;
        report.max_allowed_concurrent_calls = semaphore.config.max_concurrent_calls;
        report.waiting_calls = semaphore.parked.len() as u32;
        reports.push(report);
    }
    Ok(reports)
}

/// Reads, checks and runs a semaphore bulkhead script; one JSON line per step.
pub fn run_text(json: &str) -> Result<Vec<String>, String> {
    let script: BulkheadScript = super::super::parse(json, "bulkhead script")?;
    let reports =
        run_bulkhead_script(&script).map_err(|e| format!("invalid bulkhead script: {e}"))?;
    json_lines(&reports)
}
