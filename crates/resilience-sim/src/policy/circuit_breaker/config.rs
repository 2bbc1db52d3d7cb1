//! `CircuitBreakerConfig`: Resilience4j's settings, names, defaults and validation rules.
//!
//! Field names serialize in camelCase exactly as Spring Boot's
//! `resilience4j.circuitbreaker.instances.<name>.*` properties spell them, durations accept
//! `"800ms"` / `"5s"` / plain milliseconds, and any field left out takes Resilience4j's
//! default. [`CircuitBreakerConfig::validate`] refuses what `CircuitBreakerConfig.Builder`
//! refuses, naming the offending setting.

use serde::{Deserialize, Serialize};

use super::State;
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
    /// The wait for `attempt` (1 on the first opening). Resilience4j refuses attempt 0;
    /// here it is treated as 1.
    pub fn wait_for_attempt(&self, attempt: u32) -> Millis {
        self.wait_with_memo(attempt, &mut WaitMemo::default())
    }

    /// Same as [`Self::wait_for_attempt`], continuing from the last attempt computed so a
    /// breaker that flaps millions of times does not redo the whole series each time.
    pub(crate) fn wait_with_memo(&self, attempt: u32, memo: &mut WaitMemo) -> Millis {
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
                        frozen: false,
                    };
                }
                // Java iterates `x -> (long) (x * multiplier)` on a signed 64-bit long: the
                // cast truncates towards zero and saturates at Long.MAX_VALUE.
                while memo.attempt < attempt && !memo.frozen {
                    let next = (memo.value as f64 * multiplier) as i64;
                    if next == memo.value {
                        memo.frozen = true; // a fixed point: saturated, zero, or too small a step
                        break;
                    }
                    memo.value = next;
                    memo.attempt += 1;
                    if cap.is_some_and(|cap| multiplier >= 1.0 && next >= cap) {
                        memo.frozen = true; // it only grows from here, and the cap wins
                    }
                }
                let wait = match cap {
                    Some(cap) => memo.value.min(cap),
                    None => memo.value,
                };
                wait.max(0) as u64
            }
        }
    }
}

/// Where an exponential series stands: the value for `attempt`, or a value that no later
/// attempt changes (`frozen`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct WaitMemo {
    attempt: u32,
    value: i64,
    frozen: bool,
}

/// The circuit breaker's settings (Resilience4j 2.x names and defaults).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct CircuitBreakerConfig {
    /// Failure rate, in percent, at or above which the breaker opens. Default 50.
    pub failure_rate_threshold: f32,
    /// Slow-call rate, in percent, at or above which the breaker opens. Default 100.
    pub slow_call_rate_threshold: f32,
    /// A call taking strictly longer than this is slow. Default 60 s.
    #[serde(with = "crate::duration::serde_millis")]
    pub slow_call_duration_threshold: Millis,
    /// Default COUNT_BASED.
    pub sliding_window_type: SlidingWindowType,
    /// Outcomes (COUNT_BASED) or seconds (TIME_BASED). Default 100.
    pub sliding_window_size: u32,
    /// Outcomes the window must hold before a rate is computed. Default 100.
    pub minimum_number_of_calls: u32,
    /// Trial calls let through in HALF_OPEN. Default 10.
    pub permitted_number_of_calls_in_half_open_state: u32,
    /// How long OPEN refuses calls. Default 60 s.
    #[serde(with = "crate::duration::serde_millis")]
    pub wait_duration_in_open_state: Millis,
    /// A growing wait; `None` means the fixed `waitDurationInOpenState`.
    pub wait_interval_function_in_open_state: Option<OpenWaitFunction>,
    /// A timer moves OPEN to HALF_OPEN at the end of the wait. Default false: the first
    /// call after the wait does it.
    pub automatic_transition_from_open_to_half_open_enabled: bool,
    /// Longest stay in HALF_OPEN before `transitionToStateAfterWaitDuration`. Default 0:
    /// wait for the trials however long they take.
    #[serde(with = "crate::duration::serde_millis")]
    pub max_wait_duration_in_half_open_state: Millis,
    /// Where HALF_OPEN goes when `maxWaitDurationInHalfOpenState` runs out: OPEN (default)
    /// or CLOSED.
    pub transition_to_state_after_wait_duration: State,
    /// Exceptions recorded as failures; empty means every exception.
    pub record_exceptions: Vec<String>,
    /// Exceptions that count as neither success nor failure; checked first.
    pub ignore_exceptions: Vec<String>,
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
        }
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
        if let Some(OpenWaitFunction::Exponential {
            initial,
            multiplier,
            max,
        }) = self.wait_interval_function_in_open_state
        {
            if initial < 1 {
                return Err(ConfigError::new(
                    "waitIntervalFunctionInOpenState",
                    "the initial wait must be at least 1 ms",
                ));
            }
            if !(multiplier.is_finite() && multiplier > 0.0) {
                return Err(ConfigError::new(
                    "waitIntervalFunctionInOpenState",
                    "the multiplier must be a number greater than 0",
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
        for (field, list) in [
            ("recordExceptions", &self.record_exceptions),
            ("ignoreExceptions", &self.ignore_exceptions),
        ] {
            if list.iter().any(|name| name.trim().is_empty()) {
                return Err(ConfigError::new(field, "an exception name is empty"));
            }
        }
        Ok(())
    }

    /// The wait in OPEN for the given attempt (1 on the first opening, +1 for each
    /// HALF_OPEN -> OPEN): `waitIntervalFunctionInOpenState(attempt)` when set, else
    /// `waitDurationInOpenState`.
    pub fn wait_in_open_state(&self, attempt: u32) -> Millis {
        self.wait_in_open_state_memo(attempt, &mut WaitMemo::default())
    }

    pub(crate) fn wait_in_open_state_memo(&self, attempt: u32, memo: &mut WaitMemo) -> Millis {
        match &self.wait_interval_function_in_open_state {
            Some(function) => function.wait_with_memo(attempt, memo),
            None => self.wait_duration_in_open_state,
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

    /// True when `exception` is in `ignoreExceptions` (see [`exception_matches`]).
    #[inline]
    pub fn is_ignored(&self, exception: &str) -> bool {
        !self.ignore_exceptions.is_empty()
            && self
                .ignore_exceptions
                .iter()
                .any(|configured| exception_matches(configured, exception))
    }

    /// True when `exception` is recorded as a failure: `recordExceptions` is empty (record
    /// everything) or names it (see [`exception_matches`]).
    #[inline]
    pub fn is_recorded(&self, exception: &str) -> bool {
        self.record_exceptions.is_empty()
            || self
                .record_exceptions
                .iter()
                .any(|configured| exception_matches(configured, exception))
    }
}

/// Does a configured exception class (in `recordExceptions` / `ignoreExceptions`) match a
/// thrown exception? Resilience4j tests `configured.isAssignableFrom(thrown)`, so a
/// superclass matches its subclasses. The engine only has names: they match when their
/// simple names (after the last `.`) are equal, or when the configured name is a known
/// superclass of the thrown one in the small table of JDK / Spring exceptions the course
/// uses (e.g. `IOException` matches `ConnectException` and `SocketTimeoutException`;
/// `Exception` and `Throwable` match everything but `Error`s).
pub fn exception_matches(configured: &str, thrown: &str) -> bool {
    let configured = simple_name(configured);
    let thrown = simple_name(thrown);
    if configured == thrown {
        return true;
    }
    let mut current = thrown;
    // Walk up the known superclass chain; unknown names stop at Exception.
    for _ in 0..16 {
        let parent = superclass(current);
        if parent == configured {
            return true;
        }
        if parent == "Throwable" {
            return false;
        }
        current = parent;
    }
    false
}

fn simple_name(name: &str) -> &str {
    let name = name.trim();
    name.rsplit('.').next().unwrap_or(name)
}

/// The direct superclass of the exceptions the course talks about. Anything unknown is
/// taken to be a checked `Exception` (for names ending in `Error`: an `Error`).
fn superclass(name: &str) -> &'static str {
    match name {
        "Throwable" => "Throwable",
        "Exception" | "Error" => "Throwable",
        "RuntimeException"
        | "IOException"
        | "TimeoutException"
        | "InterruptedException"
        | "ExecutionException" => "Exception",
        "SocketException" | "InterruptedIOException" | "UnknownHostException" | "SSLException" => {
            "IOException"
        }
        "ConnectException" | "NoRouteToHostException" => "SocketException",
        "SocketTimeoutException" => "InterruptedIOException",
        "HttpServerErrorException" | "HttpClientErrorException" => "HttpStatusCodeException",
        "HttpStatusCodeException" => "RestClientResponseException",
        "RestClientResponseException" | "ResourceAccessException" => "RestClientException",
        "RestClientException" => "NestedRuntimeException",
        "NestedRuntimeException"
        | "CallNotPermittedException"
        | "BulkheadFullException"
        | "RequestNotPermitted"
        | "RejectedExecutionException"
        | "IllegalStateException"
        | "IllegalArgumentException"
        | "NullPointerException"
        | "CompletionException"
        | "CardDeclinedException"
        | "BusinessException" => "RuntimeException",
        "NumberFormatException" => "IllegalArgumentException",
        "OutOfMemoryError" | "StackOverflowError" => "VirtualMachineError",
        "VirtualMachineError" | "AssertionError" => "Error",
        other if other.ends_with("Error") => "Error",
        _ => "Exception",
    }
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
        assert!(exception_matches("Exception", "MyCustomException"));
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
                "waitDurationInOpenState":"5s","slowCallDurationThreshold":800,
                "waitIntervalFunctionInOpenState":{"exponential":{"initial":"1s","multiplier":2}}}"#,
        )
        .unwrap();
        assert_eq!(c.sliding_window_type, SlidingWindowType::TimeBased);
        assert_eq!(c.wait_duration_in_open_state, 5_000);
        assert_eq!(c.slow_call_duration_threshold, 800);
        assert_eq!(c.wait_in_open_state(3), 4_000);
        assert_eq!(c.minimum_number_of_calls, 100);
        assert!(serde_json::from_str::<CircuitBreakerConfig>(r#"{"slidingWindow":5}"#).is_err());
    }
}
