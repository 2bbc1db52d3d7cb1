//! Rate limiter scripts (`resilience-sim ratelimiter FILE`): one `AtomicRateLimiter`, driven
//! call by call.
//!
//! ```json
//! {
//!   "config": {"limitForPeriod": 2, "limitRefreshPeriod": "1s", "timeoutDuration": "500ms"},
//!   "steps": [
//!     {"acquire": {}},
//!     {"acquire": {"permits": 1}},
//!     {"advance_ms": 600},
//!     {"acquire": {}},
//!     {"reserve": {}},
//!     {"drain": {}},
//!     {"change_limit": 5},
//!     {"change_timeout_ms": 0}
//!   ]
//! }
//! ```
//!
//! The limiter is created at 0 ms, so its cycles start at 0, `limitRefreshPeriod`,
//! 2 × `limitRefreshPeriod`... whatever the first call. `acquire` is `acquirePermission`
//! with the limiter's `timeoutDuration`; a caller that must wait for a reserved permission
//! (or waits out the timeout before its refusal) is parked for `waited_ms` from the step's
//! instant, and counts in `numberOfWaitingThreads` until the clock passes its wake-up.
//! `reserve` is `reservePermission`: the caller is told how long to wait and waits on its
//! own (it never counts as waiting). Every step reports `availablePermissions`,
//! `numberOfWaitingThreads` and `nanosToWait` (`AtomicRateLimiterMetrics`), and
//! `permitted` / `waited_ms` / `event` / `error` where it asked for something.

use serde::{Deserialize, Serialize};

use super::{check_steps, json_lines, whole_ms, Clock};
use crate::policy::rate_limiter::{RateLimiter, RateLimiterConfig, RateLimiterEventType};
use crate::{ConfigError, Millis};

/// A whole rate limiter script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateLimiterScript {
    #[serde(default)]
    pub config: RateLimiterConfig,
    pub steps: Vec<RateLimiterStep>,
}

/// How many permissions a step asks for (`permits`, default 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Permits {
    #[serde(default = "one")]
    pub permits: u32,
}

fn one() -> u32 {
    1
}

/// One operation on the limiter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum RateLimiterStep {
    /// `acquirePermission(permits)`.
    Acquire(Permits),
    /// `reservePermission(permits)`.
    Reserve(Permits),
    /// `drainPermissions()`.
    Drain {},
    /// `changeLimitForPeriod(N)`.
    ChangeLimit(u32),
    /// `changeTimeoutDuration(N ms)`.
    #[serde(deserialize_with = "whole_ms")]
    ChangeTimeoutMs(Millis),
    /// Moves the clock forward.
    #[serde(deserialize_with = "whole_ms")]
    AdvanceMs(Millis),
}

/// The limiter after one step.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RateLimiterReport {
    pub step: usize,
    #[serde(rename = "t_ms")]
    pub t_ms: Millis,
    /// Negative while parked callers hold reservations of coming cycles.
    pub available_permissions: i32,
    pub number_of_waiting_threads: u32,
    /// How long one more permission would take now, in nanoseconds.
    pub nanos_to_wait: i64,
    /// For `acquire` and `reserve`: whether the permissions were given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permitted: Option<bool>,
    /// For `acquire`: how long the caller was parked (the whole timeout when refused); for
    /// `reserve`: how long the caller must wait itself. Milliseconds, fractions included.
    #[serde(rename = "waited_ms", skip_serializing_if = "Option::is_none")]
    pub waited_ms: Option<f64>,
    /// The event the step published (SUCCESSFUL_ACQUIRE, FAILED_ACQUIRE, DRAINED).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<RateLimiterEventType>,
    /// `RequestNotPermitted` for a refused call; `IllegalArgumentException` for a change
    /// the builder refuses (the limiter keeps its config).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl RateLimiterScript {
    /// The config, the step count, each step's numbers, and the clock's limit.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.config
            .validate()
            .map_err(|e| ConfigError::new(format!("config.{}", e.field), e.message))?;
        check_steps(self.steps.len())?;
        let mut clock = Clock::default();
        for (index, step) in self.steps.iter().enumerate() {
            match step {
                RateLimiterStep::Acquire(Permits { permits })
                | RateLimiterStep::Reserve(Permits { permits })
                    if *permits > i32::MAX as u32 =>
                {
                    let name = if matches!(step, RateLimiterStep::Acquire(_)) {
                        "acquire"
                    } else {
                        "reserve"
                    };
                    return Err(ConfigError::new(
                        format!("steps[{index}].{name}.permits"),
                        format!("must be at most {} (a Java int)", i32::MAX),
                    ));
                }
                // `changeLimitForPeriod(int)`: Java cannot pass a larger number at all.
                RateLimiterStep::ChangeLimit(limit) if *limit > i32::MAX as u32 => {
                    return Err(ConfigError::new(
                        format!("steps[{index}].change_limit"),
                        format!("must be at most {} (a Java int)", i32::MAX),
                    ));
                }
                RateLimiterStep::ChangeTimeoutMs(ms) => {
                    super::check_duration(format!("steps[{index}].change_timeout_ms"), *ms)?
                }
                RateLimiterStep::AdvanceMs(ms) => clock.advance(index, *ms)?,
                _ => {}
            }
        }
        Ok(())
    }
}

fn ms(nanos: u64) -> f64 {
    nanos as f64 / 1e6
}

/// Runs a script on a fresh limiter created at 0 ms (an invalid script is refused before
/// any step).
pub fn run_rate_limiter_script(
    script: &RateLimiterScript,
) -> Result<Vec<RateLimiterReport>, ConfigError> {
    script.validate()?;
    let mut limiter = RateLimiter::new(script.config.clone(), 0)?;
    let mut now: Millis = 0;
    let reports = script
        .steps
        .iter()
        .enumerate()
        .map(|(index, step)| {
            let (mut permitted, mut waited_ms, mut event, mut error) = (None, None, None, None);
            match step {
                RateLimiterStep::Acquire(Permits { permits }) => {
                    let acquisition = limiter.acquire_permission(now, *permits);
                    permitted = Some(acquisition.permitted);
                    waited_ms = Some(ms(acquisition.waited));
                    event = Some(acquisition.event());
                    if !acquisition.permitted {
                        error = Some("RequestNotPermitted".to_string());
                    }
                }
                RateLimiterStep::Reserve(Permits { permits }) => {
                    let reservation = limiter.reserve_permission(now, *permits);
                    permitted = Some(reservation.is_some());
                    waited_ms = reservation.map(ms);
                    event = Some(if reservation.is_some() {
                        RateLimiterEventType::SuccessfulAcquire
                    } else {
                        RateLimiterEventType::FailedAcquire
                    });
                    if reservation.is_none() {
                        error = Some("RequestNotPermitted".to_string());
                    }
                }
                RateLimiterStep::Drain {} => {
                    limiter.drain_permissions(now);
                    event = Some(RateLimiterEventType::Drained);
                }
                RateLimiterStep::ChangeLimit(limit) => {
                    if limiter.change_limit_for_period(*limit).is_err() {
                        error = Some("IllegalArgumentException".to_string());
                    }
                }
                RateLimiterStep::ChangeTimeoutMs(timeout) => {
                    // Validation bounds the number: 10^12 ms is 10^18 ns, within Java's long.
                    if limiter
                        .change_timeout_duration(timeout.saturating_mul(1_000_000))
                        .is_err()
                    {
                        error = Some("IllegalArgumentException".to_string());
                    }
                }
                RateLimiterStep::AdvanceMs(ms) => now += ms,
            }
            RateLimiterReport {
                step: index,
                t_ms: now,
                available_permissions: limiter.available_permissions(now),
                number_of_waiting_threads: limiter.number_of_waiting_threads(now),
                nanos_to_wait: limiter.nanos_to_wait(now),
                permitted,
                waited_ms,
                event,
                error,
            }
        })
        .collect();
    Ok(reports)
}

/// Reads, checks and runs a script given as JSON text; one JSON line per step.
pub fn run_text(json: &str) -> Result<Vec<String>, String> {
    let script: RateLimiterScript = super::parse(json, "rate limiter script")?;
    let reports = run_rate_limiter_script(&script)
        .map_err(|e| format!("invalid rate limiter script: {e}"))?;
    json_lines(&reports)
}
