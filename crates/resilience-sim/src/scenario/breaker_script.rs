//! Breaker scripts: drive one circuit breaker by hand, step by step
//! (`resilience-sim breaker FILE`).
//!
//! A script is a JSON document with the breaker's settings (Resilience4j camelCase names;
//! anything left out takes its default) and a list of steps:
//!
//! ```json
//! {
//!   "config": {"slidingWindowSize": 4, "minimumNumberOfCalls": 4, "waitDurationInOpenState": "5s"},
//!   "steps": [
//!     {"acquire": {}},
//!     {"error": {"duration_ms": 30, "exception": "IOException"}},
//!     {"success": {"duration_ms": 1200}},
//!     {"advance_ms": 5000},
//!     {"transition": "FORCED_OPEN"},
//!     {"release": {}},
//!     {"reset": {}}
//!   ]
//! }
//! ```
//!
//! The clock starts at 0 ms and only `advance_ms` moves it (firing the breaker's timers).
//! The breaker starts CLOSED, or in the config's `initialState` (Resilience4j 2.3+:
//! `"initialState": "FORCED_OPEN"`, without a transition). As in Resilience4j, `success`
//! and `error` do not need a prior `acquire`. A slow call is a `success` (or `error`) whose
//! duration exceeds `slowCallDurationThreshold`.
//!
//! Exception names follow Java's class hierarchy ([`crate::exceptions`]): the JDK's,
//! Spring's and Resilience4j's classes are known; the script's own classes are declared
//! with their parent in the config's `exceptions`:
//!
//! ```json
//! {
//!   "config": {
//!     "recordExceptions": ["IOException", "PaymentException"],
//!     "exceptions": {"PaymentException": "RuntimeException",
//!                    "PaymentDeclinedException": "PaymentException"}
//!   },
//!   "steps": [{"error": {"exception": "PaymentDeclinedException"}},
//!             {"error": {"exception": "FileNotFoundException"}}]
//! }
//! ```
//!
//! Both errors are recorded. A thrown name that is neither known nor declared refuses the
//! script before its first step (its superclasses would decide how it counts).
//!
//! Running a script gives one [`StepReport`] per step: the state and metrics after it, plus
//! `permitted` for an `acquire` and `error` for an operation Resilience4j refuses or that
//! throws: an illegal transition, or a `success` / `error` reported in an OPEN entered by
//! hand from DISABLED or FORCED_OPEN (`ArithmeticException: / by zero`, after the outcome
//! was counted: see [`crate::policy::circuit_breaker`]).

use serde::{Deserialize, Serialize};

use crate::policy::circuit_breaker::{CircuitBreaker, CircuitBreakerConfig, State};
use crate::{ConfigError, Millis};

/// A whole breaker script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BreakerScript {
    #[serde(default)]
    pub config: CircuitBreakerConfig,
    pub steps: Vec<BreakerStep>,
}

/// One operation on the breaker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum BreakerStep {
    /// `tryAcquirePermission`.
    Acquire {},
    /// `onSuccess` of a call that took `duration_ms`.
    Success {
        #[serde(default)]
        duration_ms: Millis,
    },
    /// `onError` of a call that failed with `exception` after `duration_ms`.
    Error {
        #[serde(default)]
        duration_ms: Millis,
        exception: String,
    },
    /// Moves the clock forward.
    AdvanceMs(Millis),
    /// A manual transition (`transitionToXxxState`).
    Transition(State),
    /// `releasePermission`.
    Release {},
    /// `reset()`.
    Reset {},
}

/// The breaker after one step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepReport {
    /// Index of the step in the script, from 0.
    pub step: usize,
    /// The script's clock after the step.
    pub t_ms: Millis,
    pub state: State,
    /// Percent, or -1 while not computable.
    pub failure_rate: f32,
    /// Percent, or -1 while not computable.
    pub slow_call_rate: f32,
    pub buffered: u32,
    pub failed: u32,
    pub slow: u32,
    pub not_permitted: u64,
    /// For an `acquire`: whether the call was permitted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permitted: Option<bool>,
    /// For a refused operation, or one that threw: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Reads a breaker script from JSON; a bad document gives one line saying what and where.
pub fn parse_breaker_script(json: &str) -> Result<BreakerScript, String> {
    serde_json::from_str(json).map_err(|e| {
        let message = crate::error::one_line(&e.to_string());
        format!("invalid breaker script: {message}")
    })
}

/// The most timer instants one `advance_ms` may fire (an OPEN wait and a HALF_OPEN limit of
/// 1 ms each over an advance of 10^12 ms would otherwise loop 10^12 times).
pub const MAX_TIMERS_PER_STEP: u32 = 1_000_000;

impl BreakerScript {
    /// The config's validation, then every thrown exception name: known or declared.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.config.validate()?;
        for (index, step) in self.steps.iter().enumerate() {
            if let BreakerStep::Error { exception, .. } = step {
                self.config.check_thrown(exception).map_err(|message| {
                    ConfigError::new(format!("steps[{index}].error.exception"), message)
                })?;
            }
        }
        Ok(())
    }
}

/// Runs a script on a fresh breaker (an invalid script is refused before any step: see
/// [`BreakerScript::validate`]).
pub fn run_breaker_script(script: &BreakerScript) -> Result<Vec<StepReport>, ConfigError> {
    script.validate()?;
    let mut breaker = CircuitBreaker::new(script.config.clone())?;
    breaker.set_event_recording(false);
    let mut now: Millis = 0;
    let reports = script
        .steps
        .iter()
        .enumerate()
        .map(|(index, step)| {
            let mut permitted = None;
            let mut error = None;
            match step {
                BreakerStep::Acquire {} => {
                    permitted = Some(breaker.try_acquire_permission(now));
                }
                BreakerStep::Success { duration_ms } => {
                    if let Err(e) = breaker.try_on_success(now, *duration_ms) {
                        error = Some(e.to_string());
                    }
                }
                BreakerStep::Error {
                    duration_ms,
                    exception,
                } => {
                    if let Err(e) = breaker.try_on_error(now, *duration_ms, exception) {
                        error = Some(e.to_string());
                    }
                }
                BreakerStep::AdvanceMs(ms) => {
                    let to = now.saturating_add(*ms);
                    match breaker.advance_to_bounded(to, MAX_TIMERS_PER_STEP) {
                        Ok(()) => now = to,
                        Err(stopped) => {
                            now = stopped;
                            error = Some(format!(
                                "the breaker's timers would fire more than {MAX_TIMERS_PER_STEP} times in this advance: the clock stopped at {stopped} ms"
                            ));
                        }
                    }
                }
                BreakerStep::Transition(to) => {
                    if let Err(e) = breaker.transition_to(*to, now) {
                        error = Some(e.to_string());
                    }
                }
                BreakerStep::Release {} => breaker.release_permission(),
                BreakerStep::Reset {} => breaker.reset(now),
            }
            let m = breaker.metrics();
            StepReport {
                step: index,
                t_ms: now,
                state: breaker.state(),
                failure_rate: m.failure_rate,
                slow_call_rate: m.slow_call_rate,
                buffered: m.buffered,
                failed: m.failed,
                slow: m.slow,
                not_permitted: m.not_permitted,
                permitted,
                error,
            }
        })
        .collect();
    Ok(reports)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_parse_in_their_documented_form() {
        let script = parse_breaker_script(
            r#"{"steps":[{"acquire":{}},{"success":{"duration_ms":0}},
                {"error":{"duration_ms":0,"exception":"IOException"}},{"advance_ms":1000},
                {"transition":"FORCED_OPEN"},{"release":{}},{"reset":{}}]}"#,
        )
        .unwrap();
        assert_eq!(script.steps.len(), 7);
        assert_eq!(script.steps[3], BreakerStep::AdvanceMs(1000));
        assert_eq!(script.steps[4], BreakerStep::Transition(State::ForcedOpen));
        assert_eq!(script.config, CircuitBreakerConfig::default());
    }

    #[test]
    fn bad_scripts_give_one_line() {
        for bad in [
            r#"{"steps":[{"jump":{}}]}"#,
            r#"{"steps":[{"transition":"AJAR"}]}"#,
            r#"{"config":{"windowSize":3},"steps":[]}"#,
            "{",
        ] {
            let e = parse_breaker_script(bad).unwrap_err();
            assert!(e.starts_with("invalid breaker script: "), "{e}");
            assert!(!e.contains('\n'));
        }
    }
}
