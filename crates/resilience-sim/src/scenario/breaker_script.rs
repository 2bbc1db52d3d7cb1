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
//! The breaker starts CLOSED, or in the config's `initialState` (Resilience4j 2.4+:
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
        #[serde(default, deserialize_with = "whole_ms")]
        duration_ms: Millis,
    },
    /// `onError` of a call that failed with `exception` after `duration_ms`.
    Error {
        #[serde(default, deserialize_with = "whole_ms")]
        duration_ms: Millis,
        exception: String,
    },
    /// Moves the clock forward.
    #[serde(deserialize_with = "whole_ms")]
    AdvanceMs(Millis),
    /// A manual transition (`transitionToXxxState`).
    Transition(State),
    /// `releasePermission`.
    Release {},
    /// `reset()`.
    Reset {},
}

/// A duration in whole milliseconds, however the reader stored the number: serde_json
/// gives an integer, a browser's `JSON.parse` a float (exact up to 2^53). Whole numbers past
/// `u64::MAX` saturate; [`BreakerScript::validate`] then refuses anything past
/// [`MAX_SCRIPT_CLOCK_MS`], so the page and the CLI accept and refuse the same scripts.
fn whole_ms<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Millis, D::Error> {
    use serde::de::{Error, Unexpected, Visitor};
    struct WholeMs;
    impl<'de> Visitor<'de> for WholeMs {
        type Value = Millis;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a whole number of milliseconds from 0")
        }
        fn visit_u64<E: Error>(self, v: u64) -> Result<Millis, E> {
            Ok(v)
        }
        fn visit_i64<E: Error>(self, v: i64) -> Result<Millis, E> {
            Millis::try_from(v).map_err(|_| E::invalid_value(Unexpected::Signed(v), &self))
        }
        fn visit_f64<E: Error>(self, v: f64) -> Result<Millis, E> {
            if v >= 0.0 && v.fract() == 0.0 {
                // A saturating cast: 1e300 becomes u64::MAX, which validation refuses.
                Ok(v as Millis)
            } else {
                Err(E::invalid_value(Unexpected::Float(v), &self))
            }
        }
    }
    deserializer.deserialize_any(WholeMs)
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
    let mut reader = serde_json::Deserializer::from_str(crate::error::without_bom(json));
    let script = read_breaker_script(&mut reader)?;
    reader
        .end()
        .map_err(|e| invalid_script("", &crate::error::serde_words(&e.to_string())))?;
    Ok(script)
}

/// Reads a breaker script from any serde reader: a bad value is named by where it sits, as
/// `steps[3].error.duration_ms`.
pub fn read_breaker_script<'de, D: serde::Deserializer<'de>>(
    reader: D,
) -> Result<BreakerScript, String> {
    serde_path_to_error::deserialize(reader).map_err(|e| {
        let path = crate::error::excerpt_path(&e.path().to_string());
        invalid_script(
            if path == "." { "" } else { &path },
            &crate::error::serde_words(&e.into_inner().to_string()),
        )
    })
}

/// The path is part of the bound too: it names an unknown key as the script wrote it.
fn invalid_script(path: &str, why: &str) -> String {
    crate::error::one_line(&if path.is_empty() {
        format!("invalid breaker script: {why}")
    } else {
        format!("invalid breaker script: {path}: {why}")
    })
}

/// The largest script file read (the page's import and the CLI alike).
pub const MAX_SCRIPT_BYTES: usize = 2 * 1024 * 1024;

/// The last instant a script's clock may reach, and the longest call it may report (about
/// 31.7 years). A JSON number past 2^53 is not the same number in every reader (a browser
/// reads 18446744073709551615 as 18446744073709552000), so the format stops well short of
/// it, and the CLI and the page accept the same scripts.
pub const MAX_SCRIPT_CLOCK_MS: Millis = 1_000_000_000_000;

/// The most timer instants a script may fire in all (an OPEN wait and a HALF_OPEN limit of
/// 1 ms each over an advance of 10^12 ms would otherwise fire 10^12 times). When they are
/// spent, an advance stops the clock after the last timer that fired and says so.
pub const MAX_TIMERS_PER_SCRIPT: u32 = 1_000_000;

/// Moves `breaker`'s clock to `to`, firing at most `timers_left` timers (counted down);
/// when they run out, the clock stops after the last one that fired and the error says
/// where. The one way a script (CLI or page) moves a breaker's clock.
pub fn advance_within_budget(
    breaker: &mut CircuitBreaker,
    to: Millis,
    timers_left: &mut u32,
) -> Result<(), (Millis, String)> {
    breaker
        .advance_to_bounded(to, timers_left)
        .map_err(|stopped| (stopped, timers_spent(stopped)))
}

/// What a script is told when its timers are spent.
pub fn timers_spent(stopped: Millis) -> String {
    format!(
        "the breaker's timers have fired {MAX_TIMERS_PER_SCRIPT} times in this script, the most one script may fire: the clock stopped at {stopped} ms"
    )
}

impl BreakerScript {
    /// The config's validation, then every thrown exception name: known or declared.
    /// Then the clock: the advances may not pass [`MAX_SCRIPT_CLOCK_MS`], nor a call last
    /// longer.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.config.validate()?;
        let too_long = |field: String| {
            ConfigError::new(
                field,
                format!("may be at most {MAX_SCRIPT_CLOCK_MS} ms (about 31.7 years)"),
            )
        };
        let mut clock: Millis = 0;
        for (index, step) in self.steps.iter().enumerate() {
            match step {
                BreakerStep::Error {
                    exception,
                    duration_ms,
                } => {
                    self.config.check_thrown(exception).map_err(|message| {
                        ConfigError::new(format!("steps[{index}].error.exception"), message)
                    })?;
                    if *duration_ms > MAX_SCRIPT_CLOCK_MS {
                        return Err(too_long(format!("steps[{index}].error.duration_ms")));
                    }
                }
                BreakerStep::Success { duration_ms } if *duration_ms > MAX_SCRIPT_CLOCK_MS => {
                    return Err(too_long(format!("steps[{index}].success.duration_ms")));
                }
                BreakerStep::AdvanceMs(ms) => {
                    clock = clock
                        .checked_add(*ms)
                        .filter(|&t| t <= MAX_SCRIPT_CLOCK_MS)
                        .ok_or_else(|| {
                            ConfigError::new(
                                format!("steps[{index}].advance_ms"),
                                format!(
                                    "takes the script's clock past {MAX_SCRIPT_CLOCK_MS} ms (about 31.7 years), the last instant a script may reach"
                                ),
                            )
                        })?;
                }
                _ => {}
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
    let mut timers_left = MAX_TIMERS_PER_SCRIPT;
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
                    match advance_within_budget(&mut breaker, to, &mut timers_left) {
                        Ok(()) => now = to,
                        Err((stopped, why)) => {
                            now = stopped;
                            error = Some(why);
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
