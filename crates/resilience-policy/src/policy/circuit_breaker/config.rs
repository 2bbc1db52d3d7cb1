//! `CircuitBreakerConfig`: Resilience4j's settings, names, defaults and validation rules.
//!
//! Field names serialize in camelCase exactly as Spring Boot's
//! `resilience4j.circuitbreaker.instances.<name>.*` properties spell them, durations accept
//! `"800ms"` / `"5s"` / plain milliseconds, and any field left out takes Resilience4j's
//! default. [`CircuitBreakerConfig::validate`] refuses what `CircuitBreakerConfig.Builder`
//! refuses, naming the offending setting; reading a config also refuses what only the
//! builder's `build()` can see: `waitDurationInOpenState` and
//! `waitIntervalFunctionInOpenState` set together (Resilience4j's
//! `validateWaitIntervalFunctionInOpenState` throws "The waitIntervalFunction was
//! configured multiple times").
//!
//! One field is the simulation's own: `exceptions`, the scenario's exception classes with
//! their parents (see [`crate::exceptions`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::State;
use crate::exceptions::{DeclaredExceptions, Hierarchy};
use crate::{ConfigError, Millis};

/// How the CLOSED (and METRICS_ONLY) window is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SlidingWindowType {
    /// The last `slidingWindowSize` recorded outcomes, whatever their age.
    CountBased,
    /// The outcomes of the last `slidingWindowSize` whole seconds.
    TimeBased,
}

impl SlidingWindowType {
    pub const ALL: [SlidingWindowType; 2] =
        [SlidingWindowType::CountBased, SlidingWindowType::TimeBased];

    /// Resilience4j's name, as a scenario, the settings form and a link write it. `const`,
    /// so a list of the names can be a constant (the form's options).
    pub const fn name(self) -> &'static str {
        match self {
            SlidingWindowType::CountBased => "COUNT_BASED",
            SlidingWindowType::TimeBased => "TIME_BASED",
        }
    }

    /// The type named `name` exactly (as [`Self::name`] writes it), or `None`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// `waitIntervalFunctionInOpenState`: a wait that grows with each failed recovery.
///
/// Written in a scenario as
/// `{"exponential": {"initial": "10s", "multiplier": 2, "max": "5m"}}` (`max` optional).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum OpenWaitFunction {
    /// `IntervalFunction.ofExponentialBackoff(initial, multiplier[, max])`: attempt 1 waits
    /// `initial`; each further attempt waits the previous wait times `multiplier`,
    /// truncated to whole milliseconds (so 500 x 1.5 gives 500, 750, 1125, 1687, ...),
    /// then capped at `max` when one is given.
    ///
    /// Resilience4j checks only `initial` and `max` (at least 1 ms, `checkInterval`); any
    /// multiplier is accepted, and so it is here. A multiplier below 1 shrinks the wait
    /// (to 0 ms once it truncates there), 0 gives 0 ms from attempt 2, and a negative one
    /// gives negative waits: Java's `Instant.plus` takes them, so the wait ends before it
    /// starts (see [`Self::signed_wait_for_attempt`]).
    Exponential {
        #[serde(with = "crate::duration::serde_millis")]
        initial: Millis,
        multiplier: f64,
        #[serde(
            default,
            with = "crate::duration::serde_opt_millis",
            skip_serializing_if = "Option::is_none"
        )]
        max: Option<Millis>,
    },
}

impl OpenWaitFunction {
    /// The wait for `attempt` (1 on the first opening), at least 0: a negative wait (only a
    /// negative multiplier gives one) reads as 0 here. Resilience4j refuses attempt 0;
    /// here it is treated as 1.
    pub fn wait_for_attempt(&self, attempt: u32) -> Millis {
        self.signed_wait_for_attempt(attempt).max(0) as Millis
    }

    /// The wait for `attempt` as Resilience4j computes it, in a signed `long`: negative when
    /// a negative multiplier makes it so.
    pub fn signed_wait_for_attempt(&self, attempt: u32) -> i64 {
        self.wait_with_memo(attempt, &mut WaitMemo::default())
    }

    /// Same as [`Self::signed_wait_for_attempt`], continuing from the last attempt computed
    /// so a breaker that flaps millions of times does not redo the whole series each time.
    pub(crate) fn wait_with_memo(&self, attempt: u32, memo: &mut WaitMemo) -> i64 {
        match *self {
            OpenWaitFunction::Exponential {
                initial,
                multiplier,
                max,
            } => {
                let attempt = attempt.max(1);
                let cap = max.map(|m| m.min(i64::MAX as u64) as i64);
                if memo.attempt == 0 || memo.attempt > attempt {
                    *memo = WaitMemo {
                        attempt: 1,
                        value: initial.min(i64::MAX as u64) as i64,
                        previous: None,
                        cycle: Cycle::None,
                    };
                }
                // Java iterates `x -> (long) (x * multiplier)` on a signed 64-bit long: the
                // cast truncates towards zero, saturates at Long.MIN_VALUE / MAX_VALUE and
                // gives 0 for NaN, as Rust's `as` does.
                while memo.attempt < attempt {
                    match memo.cycle {
                        Cycle::Fixed => break,
                        Cycle::Two => {
                            // value, previous, value, ...: jump to the attempt asked for.
                            if (attempt - memo.attempt) % 2 == 1 {
                                let previous = memo.previous.unwrap_or(memo.value);
                                memo.previous = Some(memo.value);
                                memo.value = previous;
                            }
                            memo.attempt = attempt;
                            break;
                        }
                        Cycle::None => {}
                    }
                    let next = (memo.value as f64 * multiplier) as i64;
                    if next == memo.value {
                        // A fixed point: saturated, zero, or too small a step.
                        memo.cycle = Cycle::Fixed;
                        break;
                    }
                    if memo.previous == Some(next) {
                        // A negative multiplier alternating between two values (-1, or
                        // saturation at both ends).
                        memo.cycle = Cycle::Two;
                    }
                    memo.previous = Some(memo.value);
                    memo.value = next;
                    memo.attempt += 1;
                    if cap.is_some_and(|cap| multiplier >= 1.0 && next >= cap) {
                        memo.cycle = Cycle::Fixed; // it only grows from here, and the cap wins
                    }
                }
                match cap {
                    Some(cap) => memo.value.min(cap),
                    None => memo.value,
                }
            }
        }
    }
}

/// Where an exponential series stands: the value for `attempt` and the one before it, and
/// whether the series has stopped changing (`Fixed`) or alternates between the two (`Two`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct WaitMemo {
    attempt: u32,
    value: i64,
    previous: Option<i64>,
    cycle: Cycle,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
enum Cycle {
    #[default]
    None,
    Fixed,
    Two,
}

/// The circuit breaker's settings (Resilience4j 2.x names and defaults).
///
/// Read and written through `RawConfig` (the same camelCase fields), which refuses
/// `waitDurationInOpenState` together with `waitIntervalFunctionInOpenState` and writes
/// only the one in use. Equality follows what the breaker does: `waitDurationInOpenState`
/// is not compared while a wait function replaces it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "RawConfig", into = "RawConfig")]
pub struct CircuitBreakerConfig {
    /// Failure rate, in percent, at or above which the breaker opens. Default 50.
    pub failure_rate_threshold: f32,
    /// Slow-call rate, in percent, at or above which the breaker opens. Default 100.
    pub slow_call_rate_threshold: f32,
    /// A call taking strictly longer than this is slow. Default 60 s.
    pub slow_call_duration_threshold: Millis,
    /// Default COUNT_BASED.
    pub sliding_window_type: SlidingWindowType,
    /// Outcomes (COUNT_BASED) or seconds (TIME_BASED). Default 100.
    pub sliding_window_size: u32,
    /// Outcomes the window must hold before a rate is computed. Default 100.
    pub minimum_number_of_calls: u32,
    /// Trial calls let through in HALF_OPEN. Default 10.
    pub permitted_number_of_calls_in_half_open_state: u32,
    /// How long OPEN refuses calls. Default 60 s. Not read while
    /// `wait_interval_function_in_open_state` is set (a config read with only the function
    /// holds the function's initial wait here, as Spring Boot's binding does).
    pub wait_duration_in_open_state: Millis,
    /// A growing wait; `None` means the fixed `waitDurationInOpenState`.
    pub wait_interval_function_in_open_state: Option<OpenWaitFunction>,
    /// A timer moves OPEN to HALF_OPEN at the end of the wait. Default false: the first
    /// call after the wait does it.
    pub automatic_transition_from_open_to_half_open_enabled: bool,
    /// Longest stay in HALF_OPEN before `transitionToStateAfterWaitDuration`. Default 0:
    /// wait for the trials however long they take.
    pub max_wait_duration_in_half_open_state: Millis,
    /// Where HALF_OPEN goes when `maxWaitDurationInHalfOpenState` runs out: OPEN (default)
    /// or CLOSED.
    pub transition_to_state_after_wait_duration: State,
    /// Exceptions recorded as failures; empty means every exception.
    pub record_exceptions: Vec<String>,
    /// Exceptions that count as neither success nor failure; checked first.
    pub ignore_exceptions: Vec<String>,
    /// `initialState` (Resilience4j 2.4+): the state a new breaker starts in, without a
    /// transition event. Default CLOSED; any of the six states. OPEN starts with attempt 1
    /// and a fresh CLOSED-size window, HALF_OPEN with attempt 1 and its permits,
    /// FORCED_OPEN with attempt 1 (`CircuitBreakerStateMachine`'s constructor,
    /// `getCircuitBreakerStateObjectFromState`). `reset()` still goes to CLOSED.
    pub initial_state: State,
    /// The scenario's own exception classes: class name -> parent class name, e.g.
    /// `{"PaymentDeclinedException": "RuntimeException"}`. Not a Resilience4j setting (a
    /// Java application has the classes); see [`crate::exceptions`].
    pub exceptions: DeclaredExceptions,
}

impl Default for CircuitBreakerConfig {
    fn default() -> Self {
        Self {
            failure_rate_threshold: 50.0,
            slow_call_rate_threshold: 100.0,
            slow_call_duration_threshold: 60_000,
            sliding_window_type: SlidingWindowType::CountBased,
            sliding_window_size: 100,
            minimum_number_of_calls: 100,
            permitted_number_of_calls_in_half_open_state: 10,
            wait_duration_in_open_state: 60_000,
            wait_interval_function_in_open_state: None,
            automatic_transition_from_open_to_half_open_enabled: false,
            max_wait_duration_in_half_open_state: 0,
            transition_to_state_after_wait_duration: State::Open,
            record_exceptions: Vec::new(),
            ignore_exceptions: Vec::new(),
            initial_state: State::Closed,
            exceptions: BTreeMap::new(),
        }
    }
}

impl PartialEq for CircuitBreakerConfig {
    fn eq(&self, other: &Self) -> bool {
        // Destructured, so a new field cannot be forgotten here.
        let CircuitBreakerConfig {
            failure_rate_threshold,
            slow_call_rate_threshold,
            slow_call_duration_threshold,
            sliding_window_type,
            sliding_window_size,
            minimum_number_of_calls,
            permitted_number_of_calls_in_half_open_state,
            wait_duration_in_open_state,
            wait_interval_function_in_open_state,
            automatic_transition_from_open_to_half_open_enabled,
            max_wait_duration_in_half_open_state,
            transition_to_state_after_wait_duration,
            record_exceptions,
            ignore_exceptions,
            initial_state,
            exceptions,
        } = self;
        *failure_rate_threshold == other.failure_rate_threshold
            && *slow_call_rate_threshold == other.slow_call_rate_threshold
            && *slow_call_duration_threshold == other.slow_call_duration_threshold
            && *sliding_window_type == other.sliding_window_type
            && *sliding_window_size == other.sliding_window_size
            && *minimum_number_of_calls == other.minimum_number_of_calls
            && *permitted_number_of_calls_in_half_open_state
                == other.permitted_number_of_calls_in_half_open_state
            && *wait_interval_function_in_open_state == other.wait_interval_function_in_open_state
            && (wait_interval_function_in_open_state.is_some()
                || *wait_duration_in_open_state == other.wait_duration_in_open_state)
            && *automatic_transition_from_open_to_half_open_enabled
                == other.automatic_transition_from_open_to_half_open_enabled
            && *max_wait_duration_in_half_open_state == other.max_wait_duration_in_half_open_state
            && *transition_to_state_after_wait_duration
                == other.transition_to_state_after_wait_duration
            && *record_exceptions == other.record_exceptions
            && *ignore_exceptions == other.ignore_exceptions
            && *initial_state == other.initial_state
            && *exceptions == other.exceptions
    }
}

/// A [`CircuitBreakerConfig`] as written: the same fields, with `waitDurationInOpenState`
/// present or not.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct RawConfig {
    failure_rate_threshold: f32,
    slow_call_rate_threshold: f32,
    #[serde(with = "crate::duration::serde_millis")]
    slow_call_duration_threshold: Millis,
    sliding_window_type: SlidingWindowType,
    sliding_window_size: u32,
    minimum_number_of_calls: u32,
    permitted_number_of_calls_in_half_open_state: u32,
    #[serde(
        with = "crate::duration::serde_opt_millis",
        skip_serializing_if = "Option::is_none"
    )]
    wait_duration_in_open_state: Option<Millis>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wait_interval_function_in_open_state: Option<OpenWaitFunction>,
    automatic_transition_from_open_to_half_open_enabled: bool,
    #[serde(with = "crate::duration::serde_millis")]
    max_wait_duration_in_half_open_state: Millis,
    transition_to_state_after_wait_duration: State,
    record_exceptions: Vec<String>,
    ignore_exceptions: Vec<String>,
    #[serde(skip_serializing_if = "is_closed")]
    initial_state: State,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    exceptions: DeclaredExceptions,
}

fn is_closed(state: &State) -> bool {
    *state == State::Closed
}

impl Default for RawConfig {
    fn default() -> Self {
        let mut raw = RawConfig::from(CircuitBreakerConfig::default());
        raw.wait_duration_in_open_state = None;
        raw
    }
}

impl From<CircuitBreakerConfig> for RawConfig {
    fn from(c: CircuitBreakerConfig) -> Self {
        RawConfig {
            failure_rate_threshold: c.failure_rate_threshold,
            slow_call_rate_threshold: c.slow_call_rate_threshold,
            slow_call_duration_threshold: c.slow_call_duration_threshold,
            sliding_window_type: c.sliding_window_type,
            sliding_window_size: c.sliding_window_size,
            minimum_number_of_calls: c.minimum_number_of_calls,
            permitted_number_of_calls_in_half_open_state: c
                .permitted_number_of_calls_in_half_open_state,
            // Written only when it is the wait in use: with both, the config would not read
            // back.
            wait_duration_in_open_state: c
                .wait_interval_function_in_open_state
                .is_none()
                .then_some(c.wait_duration_in_open_state),
            wait_interval_function_in_open_state: c.wait_interval_function_in_open_state,
            automatic_transition_from_open_to_half_open_enabled: c
                .automatic_transition_from_open_to_half_open_enabled,
            max_wait_duration_in_half_open_state: c.max_wait_duration_in_half_open_state,
            transition_to_state_after_wait_duration: c.transition_to_state_after_wait_duration,
            record_exceptions: c.record_exceptions,
            ignore_exceptions: c.ignore_exceptions,
            initial_state: c.initial_state,
            exceptions: c.exceptions,
        }
    }
}

/// The refusal of `waitDurationInOpenState` with `waitIntervalFunctionInOpenState`.
pub const BOTH_WAITS: &str = "waitDurationInOpenState and waitIntervalFunctionInOpenState are both set: Resilience4j's builder refuses them together (\"The waitIntervalFunction was configured multiple times\"); give the initial wait in the function";

impl TryFrom<RawConfig> for CircuitBreakerConfig {
    type Error = String;

    fn try_from(r: RawConfig) -> Result<Self, String> {
        let wait_duration_in_open_state = match (
            r.wait_duration_in_open_state,
            &r.wait_interval_function_in_open_state,
        ) {
            (Some(_), Some(_)) => return Err(BOTH_WAITS.to_string()),
            (Some(wait), None) => wait,
            (None, Some(OpenWaitFunction::Exponential { initial, .. })) => *initial,
            (None, None) => CircuitBreakerConfig::default().wait_duration_in_open_state,
        };
        Ok(CircuitBreakerConfig {
            failure_rate_threshold: r.failure_rate_threshold,
            slow_call_rate_threshold: r.slow_call_rate_threshold,
            slow_call_duration_threshold: r.slow_call_duration_threshold,
            sliding_window_type: r.sliding_window_type,
            sliding_window_size: r.sliding_window_size,
            minimum_number_of_calls: r.minimum_number_of_calls,
            permitted_number_of_calls_in_half_open_state: r
                .permitted_number_of_calls_in_half_open_state,
            wait_duration_in_open_state,
            wait_interval_function_in_open_state: r.wait_interval_function_in_open_state,
            automatic_transition_from_open_to_half_open_enabled: r
                .automatic_transition_from_open_to_half_open_enabled,
            max_wait_duration_in_half_open_state: r.max_wait_duration_in_half_open_state,
            transition_to_state_after_wait_duration: r.transition_to_state_after_wait_duration,
            record_exceptions: r.record_exceptions,
            ignore_exceptions: r.ignore_exceptions,
            initial_state: r.initial_state,
            exceptions: r.exceptions,
        })
    }
}

/// The largest window (outcomes, seconds or half-open trials) this engine accepts.
/// Resilience4j has no limit (it allocates whatever it is given); the playground refuses
/// sizes that would exhaust a browser tab's memory instead of crashing.
pub const MAX_WINDOW_SIZE: u32 = 1_000_000;

fn rate_ok(rate: f32) -> bool {
    rate > 0.0 && rate <= 100.0
}

impl CircuitBreakerConfig {
    /// Checks the settings the way `CircuitBreakerConfig.Builder` does.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !rate_ok(self.failure_rate_threshold) {
            return Err(ConfigError::new(
                "failureRateThreshold",
                "must be greater than 0 and at most 100 (percent)",
            ));
        }
        if !rate_ok(self.slow_call_rate_threshold) {
            return Err(ConfigError::new(
                "slowCallRateThreshold",
                "must be greater than 0 and at most 100 (percent)",
            ));
        }
        if self.slow_call_duration_threshold < 1 {
            return Err(ConfigError::new(
                "slowCallDurationThreshold",
                "must be at least 1 ms",
            ));
        }
        let unit = match self.sliding_window_type {
            SlidingWindowType::CountBased => "calls",
            SlidingWindowType::TimeBased => "seconds",
        };
        if self.sliding_window_size < 1 {
            return Err(ConfigError::new(
                "slidingWindowSize",
                format!("must be at least 1 ({unit})"),
            ));
        }
        if self.sliding_window_size > MAX_WINDOW_SIZE {
            return Err(ConfigError::new(
                "slidingWindowSize",
                format!("must be at most {MAX_WINDOW_SIZE} ({unit}) in the playground"),
            ));
        }
        if self.minimum_number_of_calls < 1 {
            return Err(ConfigError::new(
                "minimumNumberOfCalls",
                "must be at least 1",
            ));
        }
        if self.permitted_number_of_calls_in_half_open_state < 1 {
            return Err(ConfigError::new(
                "permittedNumberOfCallsInHalfOpenState",
                "must be at least 1",
            ));
        }
        if self.permitted_number_of_calls_in_half_open_state > MAX_WINDOW_SIZE {
            return Err(ConfigError::new(
                "permittedNumberOfCallsInHalfOpenState",
                format!("must be at most {MAX_WINDOW_SIZE} in the playground"),
            ));
        }
        if self.wait_duration_in_open_state < 1 {
            return Err(ConfigError::new(
                "waitDurationInOpenState",
                "must be at least 1 ms",
            ));
        }
        // No check of the multiplier: `IntervalFunction.ofExponentialBackoff` has none.
        if let Some(OpenWaitFunction::Exponential { initial, max, .. }) =
            self.wait_interval_function_in_open_state
        {
            if initial < 1 {
                return Err(ConfigError::new(
                    "waitIntervalFunctionInOpenState",
                    "the initial wait must be at least 1 ms",
                ));
            }
            if max.is_some_and(|m| m < 1) {
                return Err(ConfigError::new(
                    "waitIntervalFunctionInOpenState",
                    "the maximum wait must be at least 1 ms",
                ));
            }
        }
        if !matches!(
            self.transition_to_state_after_wait_duration,
            State::Open | State::Closed
        ) {
            return Err(ConfigError::new(
                "transitionToStateAfterWaitDuration",
                "must be either OPEN or CLOSED",
            ));
        }
        let hierarchy = self.hierarchy();
        hierarchy
            .check_declarations()
            .map_err(|e| ConfigError::new("exceptions", e))?;
        for (field, list) in [
            ("recordExceptions", &self.record_exceptions),
            ("ignoreExceptions", &self.ignore_exceptions),
        ] {
            hierarchy
                .check_list(list, true)
                .map_err(|(_, e)| ConfigError::new(field, e))?;
        }
        Ok(())
    }

    /// The exception hierarchy this breaker classifies with: the table and the declared
    /// classes.
    pub fn hierarchy(&self) -> Hierarchy<'_> {
        Hierarchy::with(&self.exceptions)
    }

    /// Checks the name of an exception a call throws (a script's `error` step): it must be
    /// a class of the table or a declared one.
    pub fn check_thrown(&self, exception: &str) -> Result<(), String> {
        self.hierarchy().check_thrown(exception)
    }

    /// The wait in OPEN for the given attempt (1 on the first opening, +1 for each
    /// HALF_OPEN -> OPEN): `waitIntervalFunctionInOpenState(attempt)` when set, else
    /// `waitDurationInOpenState`; a negative wait reads as 0 (see
    /// [`OpenWaitFunction::signed_wait_for_attempt`]).
    pub fn wait_in_open_state(&self, attempt: u32) -> Millis {
        self.wait_in_open_state_memo(attempt, &mut WaitMemo::default())
            .max(0) as Millis
    }

    pub(crate) fn wait_in_open_state_memo(&self, attempt: u32, memo: &mut WaitMemo) -> i64 {
        match &self.wait_interval_function_in_open_state {
            Some(function) => function.wait_with_memo(attempt, memo),
            None => self.wait_duration_in_open_state.min(i64::MAX as u64) as i64,
        }
    }

    /// The wait of `attempt` when every later attempt waits the same (no interval function,
    /// or an exponential series that has reached a fixed point or its cap), else `None`.
    pub(crate) fn settled_wait_in_open_state(&self, attempt: u32, memo: &WaitMemo) -> Option<i64> {
        match &self.wait_interval_function_in_open_state {
            None => Some(self.wait_duration_in_open_state.min(i64::MAX as u64) as i64),
            Some(function) => {
                let mut memo = *memo;
                let wait = function.wait_with_memo(attempt, &mut memo);
                let next = function.wait_with_memo(attempt.saturating_add(1), &mut memo);
                (wait == next && memo.cycle == Cycle::Fixed).then_some(wait)
            }
        }
    }

    /// The outcomes the CLOSED window must hold before its rates count: for COUNT_BASED
    /// `min(minimumNumberOfCalls, slidingWindowSize)`, for TIME_BASED not clamped.
    pub fn effective_minimum_number_of_calls(&self) -> u32 {
        match self.sliding_window_type {
            SlidingWindowType::CountBased => {
                self.minimum_number_of_calls.min(self.sliding_window_size)
            }
            SlidingWindowType::TimeBased => self.minimum_number_of_calls,
        }
    }

    /// The outcomes HALF_OPEN waits for before deciding:
    /// `min(minimumNumberOfCalls, permittedNumberOfCallsInHalfOpenState)`.
    pub fn half_open_decision_calls(&self) -> u32 {
        self.minimum_number_of_calls
            .min(self.permitted_number_of_calls_in_half_open_state)
    }

    /// True when `exception` is in `ignoreExceptions`, or a subclass of one of them.
    #[inline]
    pub fn is_ignored(&self, exception: &str) -> bool {
        !self.ignore_exceptions.is_empty()
            && self
                .hierarchy()
                .any_assignable(&self.ignore_exceptions, exception)
    }

    /// True when `exception` is recorded as a failure: `recordExceptions` is empty (record
    /// everything) or names it or one of its superclasses.
    #[inline]
    pub fn is_recorded(&self, exception: &str) -> bool {
        self.record_exceptions.is_empty()
            || self
                .hierarchy()
                .any_assignable(&self.record_exceptions, exception)
    }
}

/// Does a configured exception class (in `recordExceptions` / `ignoreExceptions`) match a
/// thrown exception? Resilience4j tests `configured.isAssignableFrom(thrown)`, so a
/// superclass matches its subclasses: `IOException` matches `FileNotFoundException`,
/// `ConnectException` and `SocketTimeoutException`; `Exception` matches everything but
/// `Error`s. Names are simple or fully qualified; the hierarchy is
/// [`crate::exceptions::CLASSES`] (a config's declared classes count through
/// [`CircuitBreakerConfig::hierarchy`]).
pub fn exception_matches(configured: &str, thrown: &str) -> bool {
    Hierarchy::table().is_assignable(configured, thrown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_resilience4j_defaults() {
        let c = CircuitBreakerConfig::default();
        assert_eq!(c.failure_rate_threshold, 50.0);
        assert_eq!(c.slow_call_rate_threshold, 100.0);
        assert_eq!(c.slow_call_duration_threshold, 60_000);
        assert_eq!(c.sliding_window_type, SlidingWindowType::CountBased);
        assert_eq!(c.sliding_window_size, 100);
        assert_eq!(c.minimum_number_of_calls, 100);
        assert_eq!(c.permitted_number_of_calls_in_half_open_state, 10);
        assert_eq!(c.wait_duration_in_open_state, 60_000);
        assert!(!c.automatic_transition_from_open_to_half_open_enabled);
        assert_eq!(c.max_wait_duration_in_half_open_state, 0);
        assert_eq!(c.transition_to_state_after_wait_duration, State::Open);
        assert!(c.validate().is_ok());
    }

    #[test]
    fn exponential_wait_truncates_each_step() {
        let f = OpenWaitFunction::Exponential {
            initial: 500,
            multiplier: 1.5,
            max: None,
        };
        let waits: Vec<_> = (1..=5).map(|a| f.wait_for_attempt(a)).collect();
        assert_eq!(waits, [500, 750, 1125, 1687, 2530]);
        let capped = OpenWaitFunction::Exponential {
            initial: 1_000,
            multiplier: 2.0,
            max: Some(5_000),
        };
        let waits: Vec<_> = (1..=6).map(|a| capped.wait_for_attempt(a)).collect();
        assert_eq!(waits, [1_000, 2_000, 4_000, 5_000, 5_000, 5_000]);
        assert_eq!(capped.wait_for_attempt(u32::MAX), 5_000);
    }

    #[test]
    fn exception_names_match_like_is_assignable_from() {
        assert!(exception_matches("IOException", "IOException"));
        assert!(exception_matches("java.io.IOException", "IOException"));
        assert!(exception_matches("IOException", "ConnectException"));
        assert!(exception_matches("IOException", "SocketTimeoutException"));
        assert!(exception_matches("Exception", "HttpServerErrorException"));
        assert!(exception_matches(
            "RuntimeException",
            "CallNotPermittedException"
        ));
        assert!(!exception_matches("ConnectException", "IOException"));
        assert!(!exception_matches("RuntimeException", "IOException"));
        assert!(!exception_matches("Exception", "OutOfMemoryError"));
        assert!(exception_matches("Throwable", "OutOfMemoryError"));
        // The issue's cases: a subclass the old table did not know.
        assert!(exception_matches("IOException", "FileNotFoundException"));
        assert!(exception_matches(
            "IllegalStateException",
            "CancellationException"
        ));
        // A made-up BusinessException is a checked Exception, as in Resilience4j's tests.
        assert!(!exception_matches("RuntimeException", "BusinessException"));
        assert!(exception_matches("Exception", "BusinessException"));
    }

    #[test]
    fn window_type_names_round_trip() {
        for t in SlidingWindowType::ALL {
            assert_eq!(SlidingWindowType::from_name(t.name()), Some(t));
            // The name is serde's spelling too, so a scenario and a link agree.
            assert_eq!(
                serde_json::to_string(&t).unwrap(),
                format!("\"{}\"", t.name())
            );
        }
        for unknown in ["", "count_based", "COUNT", "SLIDING", " TIME_BASED"] {
            assert_eq!(SlidingWindowType::from_name(unknown), None, "{unknown}");
        }
    }

    #[test]
    fn parses_camel_case_with_durations() {
        let c: CircuitBreakerConfig = serde_json::from_str(
            r#"{"slidingWindowType":"TIME_BASED","slidingWindowSize":10,
                "waitDurationInOpenState":"5s","slowCallDurationThreshold":800}"#,
        )
        .unwrap();
        assert_eq!(c.sliding_window_type, SlidingWindowType::TimeBased);
        assert_eq!(c.wait_duration_in_open_state, 5_000);
        assert_eq!(c.slow_call_duration_threshold, 800);
        assert_eq!(c.minimum_number_of_calls, 100);
        let c: CircuitBreakerConfig = serde_json::from_str(
            r#"{"waitIntervalFunctionInOpenState":{"exponential":{"initial":"1s","multiplier":2}}}"#,
        )
        .unwrap();
        assert_eq!(c.wait_in_open_state(3), 4_000);
        // The function replaces the fixed wait: it is not written, and it holds the initial.
        assert_eq!(c.wait_duration_in_open_state, 1_000);
        let json = serde_json::to_string(&c).unwrap();
        assert!(!json.contains("waitDurationInOpenState"), "{json}");
        assert_eq!(
            serde_json::from_str::<CircuitBreakerConfig>(&json).unwrap(),
            c
        );
        // Both together: Resilience4j's build() refuses them.
        let e = serde_json::from_str::<CircuitBreakerConfig>(
            r#"{"waitDurationInOpenState":"5s",
                "waitIntervalFunctionInOpenState":{"exponential":{"initial":"1s","multiplier":2}}}"#,
        )
        .unwrap_err();
        assert!(e.to_string().contains("both set"), "{e}");
        // New fields are written only when set: a default config writes what it always did.
        let json = serde_json::to_string(&CircuitBreakerConfig::default()).unwrap();
        assert!(
            !json.contains("initialState") && !json.contains("\"exceptions\""),
            "{json}"
        );
        assert!(serde_json::from_str::<CircuitBreakerConfig>(r#"{"slidingWindow":5}"#).is_err());
    }
}
