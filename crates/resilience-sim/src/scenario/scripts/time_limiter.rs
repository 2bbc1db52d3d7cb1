//! TimeLimiter scripts (`resilience-sim timelimiter FILE`): one Resilience4j `TimeLimiter`,
//! driven call by call, as `TimeLimiter.decorateFutureSupplier` runs it (the `Future` path,
//! where `cancelRunningFuture` is read).
//!
//! ```json
//! {
//!   "config": {"timeoutDuration": "1s", "cancelRunningFuture": true},
//!   "steps": [
//!     {"call": {"duration_ms": 300}},
//!     {"call": {"duration_ms": 2500}},
//!     {"advance_ms": 5000},
//!     {"call": {"duration_ms": 40, "exception": "IOException"}}
//!   ]
//! }
//! ```
//!
//! A `call` is a call that would take `duration_ms` (default 0) and then return, or throw
//! `exception` (a class the simulation knows, or one the config's `exceptions` declares
//! with its parent, as in breaker scripts). The caller waits `future.get(timeoutDuration)`:
//! `waited_ms` is `min(duration_ms, timeoutDuration)`. A call **longer** than the timeout
//! times out (`TimeoutException`, event `TIMEOUT`; its own exception is never seen), and
//! the running future is `cancelled` when `cancelRunningFuture` is on. A call of exactly
//! `timeoutDuration` answers in time: `FutureTask.get(timeout)` (`awaitDone`) and
//! `CompletableFuture.get(timeout)` (`timedGet`) both read the future's state once more
//! when the time is up, and a result there at that instant is returned.
//!
//! The clock starts at 0 ms and only `advance_ms` moves it: a call's wait is reported, not
//! spent (the time limiter keeps no state between calls, so nothing depends on it). Every
//! step reports the calls so far by kind, as Micrometer's `resilience4j.timelimiter.calls`
//! counter counts them from the events (`calls_successful`, `calls_failed`,
//! `calls_timeout`; the time limiter has no metrics interface of its own), and a call its
//! `waited_ms`, `timed_out`, `cancelled`, `event` and `error`.
//!
//! What surprises people in `TimeLimiterImpl` (Resilience4j 2.x):
//! - **A `TimeoutException` the call throws itself, in time, is published as a `TIMEOUT`
//!   event**, not an `ERROR` (`onError` tests `throwable instanceof TimeoutException`), so
//!   it counts as a timeout although the limiter never timed out.
//! - **`cancelRunningFuture` only matters on the `Future` path.** On the `CompletionStage`
//!   path (Spring Boot's `@TimeLimiter`) the caller's future is completed with a
//!   `TimeoutException` and the running task is never cancelled; on the `Future` path
//!   `cancel(true)` only interrupts the worker thread (see [`crate::policy::time_limiter`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{check_duration, check_steps, json_lines, whole_ms, Clock};
use crate::exceptions::{simple_name, ByClass, DeclaredExceptions, Hierarchy};
use crate::policy::time_limiter::{TimeLimit, TimeLimiterConfig, TimeLimiterEventType};
use crate::{ConfigError, Millis};

/// A whole time limiter script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeLimiterScript {
    #[serde(default)]
    pub config: TimeLimiterScriptConfig,
    pub steps: Vec<TimeLimiterStep>,
}

/// The time limiter's settings (`TimeLimiterConfig`, with Resilience4j's names and
/// defaults), and the script's own exception classes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct TimeLimiterScriptConfig {
    /// How long the caller waits (default 1 s).
    #[serde(with = "crate::duration::serde_millis")]
    pub timeout_duration: Millis,
    /// Whether a timed-out future is cancelled (default true).
    pub cancel_running_future: bool,
    /// The script's own exception classes: class name -> parent, as a breaker config's.
    pub exceptions: DeclaredExceptions,
}

impl Default for TimeLimiterScriptConfig {
    fn default() -> Self {
        // The engine's time limiter holds Resilience4j's defaults.
        let engine = TimeLimiterConfig::default();
        Self {
            timeout_duration: engine.timeout_duration,
            cancel_running_future: engine.cancel_running_future,
            exceptions: BTreeMap::new(),
        }
    }
}

impl TimeLimiterScriptConfig {
    /// The engine's time limiter with these settings.
    pub fn limiter(&self) -> TimeLimiterConfig {
        TimeLimiterConfig {
            timeout_duration: self.timeout_duration,
            cancel_running_future: self.cancel_running_future,
        }
    }

    fn hierarchy(&self) -> Hierarchy<'_> {
        Hierarchy::with(&self.exceptions)
    }

    /// The engine's rules, and the declared classes.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.limiter().validate()?;
        self.hierarchy()
            .check_declarations()
            .map_err(|e| ConfigError::new("exceptions", e))
    }
}

/// One operation of a time limiter script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum TimeLimiterStep {
    /// One call through the time limiter.
    Call(TimeLimitedCall),
    /// Moves the clock forward.
    #[serde(deserialize_with = "whole_ms")]
    AdvanceMs(Millis),
}

/// A call that would take `duration_ms`, then return or throw `exception`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeLimitedCall {
    #[serde(default, deserialize_with = "whole_ms")]
    pub duration_ms: Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception: Option<String>,
}

/// The time limiter after one step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimeLimiterReport {
    pub step: usize,
    pub t_ms: Millis,
    /// Calls so far that published `SUCCESS`.
    pub calls_successful: u64,
    /// Calls so far that published `ERROR`.
    pub calls_failed: u64,
    /// Calls so far that published `TIMEOUT`.
    pub calls_timeout: u64,
    /// For a call: how long the caller waited, `min(duration_ms, timeoutDuration)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waited_ms: Option<Millis>,
    /// For a call: whether the limiter stopped waiting (the call took longer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timed_out: Option<bool>,
    /// For a call: whether the running future was cancelled (timed out, with
    /// `cancelRunningFuture`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<bool>,
    /// For a call: the event published.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<TimeLimiterEventType>,
    /// For a call that ends in an exception: `TimeoutException`, or the call's own
    /// exception's simple name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl TimeLimiterScript {
    /// The config (named `config.<field>`), the step count, each call's duration and
    /// exception name, and the clock.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.config
            .validate()
            .map_err(|e| ConfigError::new(format!("config.{}", e.field), e.message))?;
        check_steps(self.steps.len())?;
        let hierarchy = self.config.hierarchy();
        let mut clock = Clock::default();
        for (index, step) in self.steps.iter().enumerate() {
            match step {
                TimeLimiterStep::Call(call) => {
                    check_duration(format!("steps[{index}].call.duration_ms"), call.duration_ms)?;
                    if let Some(exception) = &call.exception {
                        hierarchy.check_thrown(exception).map_err(|message| {
                            ConfigError::new(
                                format!("steps[{index}].call.exception"),
                                message.replace(
                                    "in the breaker's \"exceptions\"",
                                    "in the config's \"exceptions\"",
                                ),
                            )
                        })?;
                    }
                }
                TimeLimiterStep::AdvanceMs(ms) => clock.advance(index, *ms)?,
            }
        }
        Ok(())
    }
}

/// Runs a script on a fresh time limiter (an invalid script is refused before any step).
pub fn run_time_limiter_script(
    script: &TimeLimiterScript,
) -> Result<Vec<TimeLimiterReport>, ConfigError> {
    script.validate()?;
    let limiter = script.config.limiter();
    let hierarchy = script.config.hierarchy();
    let mut classes = ByClass::default();
    let (mut successful, mut failed, mut timeouts) = (0, 0, 0);
    let mut now: Millis = 0;
    let reports = script
        .steps
        .iter()
        .enumerate()
        .map(|(index, step)| {
            let (mut waited_ms, mut timed_out, mut cancelled, mut event, mut error) =
                (None, None, None, None, None);
            match step {
                TimeLimiterStep::Call(call) => {
                    let limit = limiter.outcome(call.duration_ms);
                    let (waited, kind, thrown) = match limit {
                        TimeLimit::TimedOut { at } => (
                            at,
                            TimeLimiterEventType::Timeout,
                            Some("TimeoutException".to_string()),
                        ),
                        TimeLimit::Completed => match &call.exception {
                            None => (call.duration_ms, TimeLimiterEventType::Success, None),
                            Some(exception) => {
                                let kind = classes.get_or(&hierarchy, exception, || {
                                    if hierarchy.is_assignable("TimeoutException", exception) {
                                        TimeLimiterEventType::Timeout
                                    } else {
                                        TimeLimiterEventType::Error
                                    }
                                });
                                (
                                    call.duration_ms,
                                    kind,
                                    Some(simple_name(exception).to_string()),
                                )
                            }
                        },
                    };
                    let limited = limit.timed_out();
                    match kind {
                        TimeLimiterEventType::Success => successful += 1,
                        TimeLimiterEventType::Error => failed += 1,
                        TimeLimiterEventType::Timeout => timeouts += 1,
                    }
                    waited_ms = Some(waited);
                    timed_out = Some(limited);
                    cancelled = Some(limited && limiter.cancel_running_future);
                    event = Some(kind);
                    error = thrown;
                }
                TimeLimiterStep::AdvanceMs(ms) => now += ms,
            }
            TimeLimiterReport {
                step: index,
                t_ms: now,
                calls_successful: successful,
                calls_failed: failed,
                calls_timeout: timeouts,
                waited_ms,
                timed_out,
                cancelled,
                event,
                error,
            }
        })
        .collect();
    Ok(reports)
}

/// Reads, checks and runs a script given as JSON text; one JSON line per step.
pub fn run_text(json: &str) -> Result<Vec<String>, String> {
    let script: TimeLimiterScript = super::parse(json, "time limiter script")?;
    let reports = run_time_limiter_script(&script)
        .map_err(|e| format!("invalid time limiter script: {e}"))?;
    json_lines(&reports)
}
