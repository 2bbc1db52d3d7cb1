//! # The breaker sandbox (Demo 10, Lab F)
//!
//! ## Why it exists
//!
//! The other demos show a breaker inside a world: threads, a flaky payment service, a storm
//! of retries. There the breaker is one actor among many, and a learner who wants to know
//! *why* it opened at that tick has to untangle it from everything else. The sandbox takes
//! the world away. One breaker, one clock, and buttons: send a success, a failure, a slow
//! success, a business 404; move the clock; force a state; change any setting. Every press
//! shows what Resilience4j would do with exactly that call: how it was classified, what the
//! window now holds, whether a rate is computable yet, when OPEN will let a trial through.
//!
//! Two misconfigurations the course warns about are built in as step-by-step scenarios
//! ([`SandboxScenario`]): 404s counted as failures (a storm of "not found" answers opens
//! the breaker on a healthy dependency) and the default `slowCallDurationThreshold` of 60 s
//! (calls that take 2 s, far slower than the dependency promises, never count as slow).
//! "Configure from claims" ([`Claims`]) goes the other way: from what the dependency and the
//! team can state (latency percentile, incident length, which errors are answers, traffic)
//! to settings, each with the claim it rests on.
//!
//! Beside the breaker sits a fallback ladder ([`Rung`]): for each call, who answered the
//! user: the dependency (live), a cached earlier answer, a degraded default, or an honest
//! error. It makes the point that opening the breaker is only half of the design.
//!
//! ## How a session works
//!
//! [`BreakerSandbox`] is the whole state the page holds; every learner action is one method
//! (the page decides nothing). Internally the session keeps the list of actions and the
//! breaker they produced, and writes them down as a [`BreakerScript`]: the JSON that
//! `resilience-sim breaker FILE` reads, so a sandbox session can be exported, replayed by
//! the CLI and imported back ([`BreakerSandbox::export_json`],
//! [`BreakerSandbox::import_json`]).
//!
//! - The clock starts at 0 and only [`BreakerSandbox::advance`] moves it. A call is sent
//!   and answered at the same virtual instant; its duration only decides whether it is slow
//!   (as in breaker scripts). So "advance 10 s" after a trip reaches the end of the wait
//!   exactly, and Resilience4j's "strictly after the wait" rule can be seen.
//! - A send is an `acquire` step, then, if the breaker permits the call, a `success` or
//!   `error` step with the call's duration ([`SandboxCall`]).
//! - Resilience4j's `CircuitBreakerConfig` is immutable: a breaker is built with its config
//!   and keeps it. Changing a setting in the sandbox therefore builds a *new* breaker with the
//!   new config and replays every action from t = 0 on it: "the same calls, another
//!   config". A replayed call keeps its duration and exception; a call the new breaker
//!   refuses loses its answer (it was never sent). A refused setting leaves the session as
//!   it was, with a message naming the setting.
//! - The fallback part (the cache, its TTL, the degraded default, "empty the cache") is the
//!   sandbox's own: it is replayed with the rest, but the exported script carries the
//!   breaker part only (the CLI knows nothing of fallbacks), and an import keeps the
//!   sandbox's current fallback settings.
//! - Work is bounded whatever the input: at most [`MAX_STEPS`] script steps, a clock that
//!   stops at [`MAX_CLOCK_MS`], windows and half-open trials of at most
//!   [`SANDBOX_MAX_WINDOW`] (a replay re-creates the window at each state change), and the
//!   last [`MAX_LOG`] events and [`MAX_RECORDS`] calls kept for the page.

use std::collections::VecDeque;

use serde::Serialize;

use super::breaker_script::{parse_breaker_script, BreakerScript, BreakerStep};
use super::lab_session::{
    self, choice, millis, number, slider, Control, ControlKind, ControlValue, LabModel, LabSession,
    Section,
};
use crate::duration::format_duration;
use crate::error::ConfigError;
use crate::policy::circuit_breaker::config::exception_matches;
use crate::policy::circuit_breaker::{
    window, Bucket, CircuitBreaker, CircuitBreakerConfig, CircuitBreakerEvent, Metrics,
    SlidingWindowType, State, WindowCell, WindowKind,
};
use crate::policy::fallback::FallbackCache;
use crate::Millis;

/// How long a sandbox success, failure or 404 takes: 100 ms, fast under any
/// `slowCallDurationThreshold` the page offers (at least 100 ms; a call is slow only when
/// strictly longer).
pub const CALL_MS: Millis = 100;
/// A slow success takes `slowCallDurationThreshold` + 1 s: slow whatever the threshold.
pub const SLOW_MARGIN_MS: Millis = 1_000;
/// The most script steps a session holds (and an import may bring).
pub const MAX_STEPS: usize = 10_000;
/// The clock stops here (about 31.7 years): advances saturate at it, imports beyond it are
/// refused, so no arithmetic on time can overflow.
pub const MAX_CLOCK_MS: Millis = 1_000_000_000_000;
/// The largest `slidingWindowSize` and `permittedNumberOfCallsInHalfOpenState` the sandbox
/// accepts (the engine accepts up to a million; a replay re-creates the window at every
/// state change, so the sandbox keeps it small enough to replay at once).
pub const SANDBOX_MAX_WINDOW: u32 = 1_000;
/// Events kept for the page's log (the oldest leave first).
pub const MAX_LOG: usize = 200;
/// Calls kept for the page's list of calls (the oldest leave first).
pub const MAX_RECORDS: usize = 200;
/// Exceptions that carry an answer, not a failure (a 404, a card decline): the fallback
/// ladder passes them to the caller whatever the breaker made of them.
pub const ANSWER_EXCEPTIONS: [&str; 2] = ["NotFoundException", "CardDeclinedException"];
/// What a sandbox failure throws.
pub const FAILURE_EXCEPTION: &str = "IOException";
/// What a refused call throws.
pub const NOT_PERMITTED_EXCEPTION: &str = "CallNotPermittedException";

/// The sandbox's breaker settings (the course's): COUNT_BASED window of 10 calls, judged
/// from 10 calls on, opening at 50 % failures, waiting 10 s, 3 trials; slow calls at
/// Resilience4j's defaults (60 s, 100 %); 404s (`NotFoundException`) ignored, because a
/// "not found" is an answer. Everything else is Resilience4j's default.
pub fn sandbox_defaults() -> CircuitBreakerConfig {
    CircuitBreakerConfig {
        sliding_window_type: SlidingWindowType::CountBased,
        sliding_window_size: 10,
        minimum_number_of_calls: 10,
        failure_rate_threshold: 50.0,
        wait_duration_in_open_state: 10_000,
        permitted_number_of_calls_in_half_open_state: 3,
        ignore_exceptions: vec!["NotFoundException".to_string()],
        ..CircuitBreakerConfig::default()
    }
}

// ---------------------------------------------------------------------------------------
// Event names

impl CircuitBreakerEvent {
    /// Resilience4j's `CircuitBreakerEvent.Type` name: `SUCCESS`, `ERROR`,
    /// `IGNORED_ERROR`, `NOT_PERMITTED`, `STATE_TRANSITION`, `FAILURE_RATE_EXCEEDED`,
    /// `SLOW_CALL_RATE_EXCEEDED`, `RESET`.
    pub fn name(&self) -> &'static str {
        match self {
            CircuitBreakerEvent::StateTransition { .. } => "STATE_TRANSITION",
            CircuitBreakerEvent::Success { .. } => "SUCCESS",
            CircuitBreakerEvent::Error { .. } => "ERROR",
            CircuitBreakerEvent::IgnoredError { .. } => "IGNORED_ERROR",
            CircuitBreakerEvent::NotPermitted { .. } => "NOT_PERMITTED",
            CircuitBreakerEvent::FailureRateExceeded { .. } => "FAILURE_RATE_EXCEEDED",
            CircuitBreakerEvent::SlowCallRateExceeded { .. } => "SLOW_CALL_RATE_EXCEEDED",
            CircuitBreakerEvent::Reset { .. } => "RESET",
        }
    }
}

/// One entry of the sandbox's log: a breaker event, or one of the sandbox's own.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SandboxEvent {
    /// What the breaker published (Resilience4j's events, with their rules: nothing but
    /// transitions and resets while DISABLED or FORCED_OPEN).
    Breaker(CircuitBreakerEvent),
    /// The learner emptied the fallback cache.
    CacheEmptied { at: Millis },
    /// A transition of a replay (after a settings change, or in an imported script) that
    /// Resilience4j's table refuses at that point (`IllegalStateTransitionException`); the
    /// breaker stayed as it was.
    TransitionRefused { at: Millis, from: State, to: State },
}

impl SandboxEvent {
    pub fn at(&self) -> Millis {
        match self {
            SandboxEvent::Breaker(e) => e.at(),
            SandboxEvent::CacheEmptied { at } | SandboxEvent::TransitionRefused { at, .. } => *at,
        }
    }

    /// Resilience4j's event type for a breaker event; `CACHE_EMPTIED` and
    /// `ILLEGAL_STATE_TRANSITION` for the sandbox's own.
    pub fn name(&self) -> &'static str {
        match self {
            SandboxEvent::Breaker(e) => e.name(),
            SandboxEvent::CacheEmptied { .. } => "CACHE_EMPTIED",
            SandboxEvent::TransitionRefused { .. } => "ILLEGAL_STATE_TRANSITION",
        }
    }

    /// The rest of the line after the name: `CLOSED -> OPEN`, `IOException after 100 ms`,
    /// `failure rate 50 %`.
    pub fn detail(&self) -> String {
        match self {
            SandboxEvent::Breaker(e) => match e {
                CircuitBreakerEvent::StateTransition { from, to, .. } => format!("{from} -> {to}"),
                CircuitBreakerEvent::Success { duration, .. } => ms_text(*duration),
                CircuitBreakerEvent::Error {
                    duration,
                    exception,
                    ..
                }
                | CircuitBreakerEvent::IgnoredError {
                    duration,
                    exception,
                    ..
                } => format!("{exception} after {}", ms_text(*duration)),
                CircuitBreakerEvent::NotPermitted { .. } => NOT_PERMITTED_EXCEPTION.to_string(),
                CircuitBreakerEvent::FailureRateExceeded { rate, .. } => {
                    format!("failure rate {} %", rate_text(*rate))
                }
                CircuitBreakerEvent::SlowCallRateExceeded { rate, .. } => {
                    format!("slow-call rate {} %", rate_text(*rate))
                }
                CircuitBreakerEvent::Reset { .. } => String::new(),
            },
            SandboxEvent::CacheEmptied { .. } => "the fallback cache holds nothing".to_string(),
            SandboxEvent::TransitionRefused { from, to, .. } => {
                format!("{from} -> {to} refused")
            }
        }
    }
}

/// A log entry with its number (from 1, over the whole session, so the page can key a list
/// that drops its oldest entries).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogEntry {
    pub seq: u64,
    pub event: SandboxEvent,
}

fn ms_text(ms: Millis) -> String {
    if ms >= 1_000 {
        format!("{} s", lab_session::number_text(ms as f64 / 1000.0))
    } else {
        format!("{ms} ms")
    }
}

fn rate_text(rate: f32) -> String {
    lab_session::number_text((f64::from(rate) * 10.0).round() / 10.0)
}

// ---------------------------------------------------------------------------------------
// Calls and their records

/// What a sandbox button sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SandboxCall {
    /// Answers after [`CALL_MS`].
    Success,
    /// Fails with `IOException` after [`CALL_MS`].
    Failure,
    /// Answers after `slowCallDurationThreshold` + [`SLOW_MARGIN_MS`] (saturating): slow
    /// whatever the threshold. No further cap is needed: the sandbox's clock does not wait
    /// for a call, so a long duration costs nothing.
    Slow,
    /// A business 404: fails with `NotFoundException` after [`CALL_MS`]. Ignored only when
    /// `ignoreExceptions` names it; with an empty list it is a failure (the 404 storm).
    Ignored,
}

impl SandboxCall {
    pub const ALL: [SandboxCall; 4] = [
        SandboxCall::Success,
        SandboxCall::Failure,
        SandboxCall::Slow,
        SandboxCall::Ignored,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SandboxCall::Success => "success",
            SandboxCall::Failure => "failure",
            SandboxCall::Slow => "slow",
            SandboxCall::Ignored => "ignored",
        }
    }

    /// The button's words.
    pub fn label(self) -> &'static str {
        match self {
            SandboxCall::Success => "Success",
            SandboxCall::Failure => "Failure (IOException)",
            SandboxCall::Slow => "Slow success",
            SandboxCall::Ignored => "404 Not Found",
        }
    }

    /// The exception the call ends with, if any.
    pub fn exception(self) -> Option<&'static str> {
        match self {
            SandboxCall::Success | SandboxCall::Slow => None,
            SandboxCall::Failure => Some(FAILURE_EXCEPTION),
            SandboxCall::Ignored => Some("NotFoundException"),
        }
    }

    /// How long the button's call takes under `config`.
    pub fn duration(self, config: &CircuitBreakerConfig) -> Millis {
        match self {
            SandboxCall::Slow => config
                .slow_call_duration_threshold
                .saturating_add(SLOW_MARGIN_MS),
            _ => CALL_MS,
        }
    }

    /// What an imported answer was most likely sent as: an answer exception is a 404, any
    /// other exception a failure, a success slower than the threshold a slow success.
    fn of_answer(config: &CircuitBreakerConfig, duration: Millis, exception: Option<&str>) -> Self {
        match exception {
            Some(e) if is_answer(e) => SandboxCall::Ignored,
            Some(_) => SandboxCall::Failure,
            None if duration > config.slow_call_duration_threshold => SandboxCall::Slow,
            None => SandboxCall::Success,
        }
    }
}

fn is_answer(exception: &str) -> bool {
    ANSWER_EXCEPTIONS
        .iter()
        .any(|answer| exception_matches(answer, exception))
}

/// How the breaker classified a call (Resilience4j's rules: ignore wins over record; an
/// exception neither ignored nor recorded counts as a success; slow is strictly longer than
/// `slowCallDurationThreshold`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CallClass {
    Success,
    SlowSuccess,
    Failure,
    SlowFailure,
    Ignored,
    /// Refused with `CallNotPermittedException`: never sent.
    NotPermitted,
}

impl CallClass {
    pub fn name(self) -> &'static str {
        match self {
            CallClass::Success => "SUCCESS",
            CallClass::SlowSuccess => "SLOW_SUCCESS",
            CallClass::Failure => "FAILURE",
            CallClass::SlowFailure => "SLOW_FAILURE",
            CallClass::Ignored => "IGNORED",
            CallClass::NotPermitted => "NOT_PERMITTED",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            CallClass::Success => "success",
            CallClass::SlowSuccess => "slow success",
            CallClass::Failure => "failure",
            CallClass::SlowFailure => "slow failure",
            CallClass::Ignored => "ignored",
            CallClass::NotPermitted => "not permitted",
        }
    }

    fn of(config: &CircuitBreakerConfig, duration: Millis, exception: Option<&str>) -> Self {
        let slow = duration > config.slow_call_duration_threshold;
        match exception {
            Some(e) if config.is_ignored(e) => CallClass::Ignored,
            Some(e) if config.is_recorded(e) => {
                if slow {
                    CallClass::SlowFailure
                } else {
                    CallClass::Failure
                }
            }
            _ if slow => CallClass::SlowSuccess,
            _ => CallClass::Success,
        }
    }
}

/// Who answered the user, the fallback ladder beside the breaker.
///
/// A successful call answers live and refreshes the cache. A technical failure (any
/// exception but an answer, see [`ANSWER_EXCEPTIONS`]) and a refused call fall back, down
/// the ladder: the cache while its answer is fresh, else the degraded default if enabled,
/// else an honest error. A business answer (a 404) is not a failure for the user: it is
/// passed through as [`Rung::Answer`], whatever the breaker made of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Rung {
    /// The dependency's own answer (refreshes the cache).
    Live,
    /// The dependency's business answer (a 404), passed through: no fallback.
    Answer,
    /// The cached earlier answer, younger than the cache's TTL.
    StaleCache,
    /// The agreed default (an empty list, a standard estimate).
    DegradedDefault,
    /// A clear error the caller can show ("unavailable, try again later").
    HonestError,
}

impl Rung {
    pub const ALL: [Rung; 5] = [
        Rung::Live,
        Rung::Answer,
        Rung::StaleCache,
        Rung::DegradedDefault,
        Rung::HonestError,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Rung::Live => "live",
            Rung::Answer => "answer",
            Rung::StaleCache => "staleCache",
            Rung::DegradedDefault => "degradedDefault",
            Rung::HonestError => "honestError",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Rung::Live => "live answer",
            Rung::Answer => "business answer (404), passed through",
            Rung::StaleCache => "cached answer",
            Rung::DegradedDefault => "degraded default",
            Rung::HonestError => "honest error",
        }
    }
}

/// One call of the session, as the page lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallRecord {
    /// The call's number in the session, from 1.
    pub number: u64,
    /// When it was sent (and answered).
    pub at: Millis,
    /// What was sent; `None` for a refused `acquire` of an imported script (the script
    /// does not say what it would have sent).
    pub sent: Option<SandboxCall>,
    pub permitted: bool,
    /// The call's duration; `None` when it was not permitted (never sent).
    pub duration_ms: Option<Millis>,
    /// The exception the caller got: the dependency's, or `CallNotPermittedException`.
    pub exception: Option<String>,
    pub class: CallClass,
    /// Whether the outcome went into a window (not when ignored, refused or DISABLED).
    pub counted: bool,
    pub state_before: State,
    pub state_after: State,
    pub rung: Rung,
    /// For [`Rung::StaleCache`]: the age of the cached answer served.
    pub cache_age_ms: Option<Millis>,
}

// ---------------------------------------------------------------------------------------
// Settings and controls

/// The sandbox's settings: the breaker's config and the fallback's two settings.
#[derive(Debug, Clone, PartialEq)]
pub struct SandboxSettings {
    pub config: CircuitBreakerConfig,
    /// How long a cached answer may be served ("logical TTL"): fresh at ages from 0 up to,
    /// not including, the TTL, as [`FallbackCache`] counts. Default 30 s.
    pub cache_ttl_ms: Millis,
    /// Whether a degraded default answers when the cache cannot. Default on.
    pub degraded_default: bool,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        Self {
            config: sandbox_defaults(),
            cache_ttl_ms: 30_000,
            degraded_default: true,
        }
    }
}

impl SandboxSettings {
    /// The engine's validation, then the sandbox's bounds.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.config.validate()?;
        for (name, value) in [
            ("slidingWindowSize", self.config.sliding_window_size),
            (
                "permittedNumberOfCallsInHalfOpenState",
                self.config.permitted_number_of_calls_in_half_open_state,
            ),
        ] {
            if value > SANDBOX_MAX_WINDOW {
                return Err(ConfigError::new(
                    name,
                    format!("must be at most {SANDBOX_MAX_WINDOW} in the sandbox (got {value})"),
                ));
            }
        }
        if self.cache_ttl_ms > MAX_CLOCK_MS {
            return Err(ConfigError::new(
                "cacheTtl",
                format!("must be at most {MAX_CLOCK_MS} ms"),
            ));
        }
        Ok(())
    }
}

/// What a config means before any call, for the page's summary (the [`LabModel`] run).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SettingsSummary {
    /// Outcomes the CLOSED window needs before its rates count (COUNT_BASED: clamped to
    /// the window).
    pub minimum_calls: u32,
    /// Failures among those first `minimum_calls` outcomes that open the breaker (the
    /// fewest whose percentage reaches `failureRateThreshold`).
    pub failures_to_trip: u32,
    /// Slow calls among them that open it.
    pub slow_calls_to_trip: u32,
    /// Trial outcomes HALF_OPEN waits for before deciding.
    pub half_open_decision_calls: u32,
}

/// The fewest `k` of `n` whose percentage (Resilience4j's `f32`) reaches `threshold`
/// (at most 100, so `k = n` always does): the exact ratio's estimate, corrected by the few
/// steps the `f32` rounding can be off, so even a minimum of billions costs nothing.
fn fewest_reaching(threshold: f32, n: u32) -> u32 {
    let estimate = (f64::from(threshold) * f64::from(n) / 100.0)
        .ceil()
        .max(0.0);
    let mut k = (estimate as u64).min(u64::from(n)) as u32;
    while k > 0 && window::percent(k - 1, n) >= threshold {
        k -= 1;
    }
    while k < n && window::percent(k, n) < threshold {
        k += 1;
    }
    k
}

/// The name of the option that keeps an imported exception list as it is.
pub const CUSTOM_LIST: &str = "custom";

const WINDOW_TYPE_OPTIONS: [(&str, &str); 2] = [
    (
        SlidingWindowType::CountBased.name(),
        "COUNT_BASED: the last N calls",
    ),
    (
        SlidingWindowType::TimeBased.name(),
        "TIME_BASED: the last N seconds",
    ),
];

const END_OF_HALF_OPEN_OPTIONS: [(&str, &str); 2] = [("OPEN", "OPEN"), ("CLOSED", "CLOSED")];

const IGNORE_OPTIONS: [(&str, &str); 4] = [
    ("none", "none: every exception counts"),
    ("NotFoundException", "NotFoundException: 404s are answers"),
    (
        "NotFoundException,CardDeclinedException",
        "404s and card declines are answers",
    ),
    (CUSTOM_LIST, "the imported list"),
];

const RECORD_OPTIONS: [(&str, &str); 3] = [
    ("all", "all: every exception is a failure"),
    (
        "IOException,TimeoutException",
        "IOException, TimeoutException: only technical failures",
    ),
    (CUSTOM_LIST, "the imported list"),
];

/// The option naming `list` (the first option names the empty list: "none" / "all"),
/// else [`CUSTOM_LIST`].
fn list_option(options: &'static [(&'static str, &'static str)], list: &[String]) -> ControlValue {
    let joined = list.join(",");
    let name = options
        .iter()
        .enumerate()
        .find(|(i, o)| {
            o.0 != CUSTOM_LIST
                && (if *i == 0 {
                    list.is_empty()
                } else {
                    o.0 == joined
                })
        })
        .map_or(CUSTOM_LIST, |(_, o)| o.0);
    ControlValue::Choice(name)
}

/// The list an option names (the first option is the empty list); `None` keeps the list.
fn option_list(
    options: &'static [(&'static str, &'static str)],
    value: ControlValue,
) -> Option<Vec<String>> {
    let name = choice(value);
    if name == CUSTOM_LIST {
        return None;
    }
    if options.first().is_some_and(|o| o.0 == name) {
        return Some(Vec::new());
    }
    Some(name.split(',').map(str::to_string).collect())
}

/// An `f32` setting as the number it was typed as (50 and 33.3, not 33.29999923706055).
/// A threshold as the slider shows it: the f32 widened without its binary noise (57.1,
/// not 57.09999847), with no float formatting in the wasm.
fn f32_number(v: f32) -> ControlValue {
    ControlValue::Number((f64::from(v) * 1e4).round() / 1e4)
}

fn millis_value(ms: Millis) -> ControlValue {
    ControlValue::Number(ms as f64)
}

type S = SandboxSettings;

const SANDBOX_CONTROLS: [Control<S>; 15] = [
    Control {
        name: "slidingWindowType",
        label: "Window type",
        help: "Measure the last N calls, or the calls of the last N seconds.",
        kind: ControlKind::Choice {
            options: &WINDOW_TYPE_OPTIONS,
        },
        section: Section::Main,
        get: |s| ControlValue::Choice(s.config.sliding_window_type.name()),
        set: |s, v| {
            if let Some(t) = SlidingWindowType::from_name(choice(v)) {
                s.config.sliding_window_type = t;
            }
        },
    },
    Control {
        name: "slidingWindowSize",
        label: "Window size",
        help: "Calls (COUNT_BASED) or seconds (TIME_BASED) the window holds.",
        kind: slider(1.0, 100.0, 1.0, ""),
        section: Section::Main,
        get: |s| ControlValue::Number(f64::from(s.config.sliding_window_size)),
        set: |s, v| s.config.sliding_window_size = number(v) as u32,
    },
    Control {
        name: "minimumNumberOfCalls",
        label: "Minimum number of calls",
        help: "Outcomes the window must hold before a rate is computed.",
        kind: slider(1.0, 100.0, 1.0, "calls"),
        section: Section::Main,
        get: |s| ControlValue::Number(f64::from(s.config.minimum_number_of_calls)),
        set: |s, v| s.config.minimum_number_of_calls = number(v) as u32,
    },
    Control {
        name: "failureRateThreshold",
        label: "Failure rate threshold",
        help: "The breaker opens when the failure rate reaches this.",
        kind: slider(1.0, 100.0, 1.0, "%"),
        section: Section::Main,
        get: |s| f32_number(s.config.failure_rate_threshold),
        set: |s, v| s.config.failure_rate_threshold = number(v) as f32,
    },
    Control {
        name: "slowCallRateThreshold",
        label: "Slow-call rate threshold",
        help: "The breaker opens when the share of slow calls reaches this.",
        kind: slider(1.0, 100.0, 1.0, "%"),
        section: Section::Main,
        get: |s| f32_number(s.config.slow_call_rate_threshold),
        set: |s, v| s.config.slow_call_rate_threshold = number(v) as f32,
    },
    Control {
        name: "slowCallDurationThreshold",
        label: "Slow-call duration threshold",
        help: "A call that takes strictly longer than this is slow.",
        kind: millis(100.0, 120_000.0, 100.0),
        section: Section::Main,
        get: |s| millis_value(s.config.slow_call_duration_threshold),
        set: |s, v| s.config.slow_call_duration_threshold = number(v) as Millis,
    },
    Control {
        name: "waitDurationInOpenState",
        label: "Wait in OPEN",
        help: "How long OPEN refuses calls before a trial may go through.",
        kind: millis(500.0, 120_000.0, 500.0),
        section: Section::Main,
        get: |s| millis_value(s.config.wait_duration_in_open_state),
        set: |s, v| s.config.wait_duration_in_open_state = number(v) as Millis,
    },
    Control {
        name: "permittedNumberOfCallsInHalfOpenState",
        label: "Trial calls in HALF_OPEN",
        help: "Calls let through to test the dependency after the wait.",
        kind: slider(1.0, 20.0, 1.0, "calls"),
        section: Section::Main,
        get: |s| {
            ControlValue::Number(f64::from(
                s.config.permitted_number_of_calls_in_half_open_state,
            ))
        },
        set: |s, v| s.config.permitted_number_of_calls_in_half_open_state = number(v) as u32,
    },
    Control {
        name: "ignoreExceptions",
        label: "Ignored exceptions",
        help: "Exceptions that count as neither success nor failure (answers, not faults).",
        kind: ControlKind::Choice {
            options: &IGNORE_OPTIONS,
        },
        section: Section::Main,
        get: |s| list_option(&IGNORE_OPTIONS, &s.config.ignore_exceptions),
        set: |s, v| {
            if let Some(list) = option_list(&IGNORE_OPTIONS, v) {
                s.config.ignore_exceptions = list;
            }
        },
    },
    Control {
        name: "recordExceptions",
        label: "Recorded exceptions",
        help: "Exceptions that count as failures; any other exception counts as a success.",
        kind: ControlKind::Choice {
            options: &RECORD_OPTIONS,
        },
        section: Section::More,
        get: |s| list_option(&RECORD_OPTIONS, &s.config.record_exceptions),
        set: |s, v| {
            if let Some(list) = option_list(&RECORD_OPTIONS, v) {
                s.config.record_exceptions = list;
            }
        },
    },
    Control {
        name: "automaticTransitionFromOpenToHalfOpenEnabled",
        label: "Automatic OPEN -> HALF_OPEN",
        help: "A timer moves OPEN to HALF_OPEN at the end of the wait, without waiting for a call.",
        kind: ControlKind::Toggle,
        section: Section::More,
        get: |s| ControlValue::Toggle(s.config.automatic_transition_from_open_to_half_open_enabled),
        set: |s, v| {
            s.config.automatic_transition_from_open_to_half_open_enabled =
                v == ControlValue::Toggle(true)
        },
    },
    Control {
        name: "maxWaitDurationInHalfOpenState",
        label: "Longest stay in HALF_OPEN (0: none)",
        help: "After this long in HALF_OPEN, a timer ends it, whatever the trials.",
        kind: millis(0.0, 120_000.0, 1000.0),
        section: Section::More,
        get: |s| millis_value(s.config.max_wait_duration_in_half_open_state),
        set: |s, v| s.config.max_wait_duration_in_half_open_state = number(v) as Millis,
    },
    Control {
        name: "transitionToStateAfterWaitDuration",
        label: "State after the longest stay",
        help: "Where HALF_OPEN goes when its longest stay runs out.",
        kind: ControlKind::Choice {
            options: &END_OF_HALF_OPEN_OPTIONS,
        },
        section: Section::More,
        get: |s| ControlValue::Choice(s.config.transition_to_state_after_wait_duration.as_str()),
        set: |s, v| {
            s.config.transition_to_state_after_wait_duration = if choice(v) == "CLOSED" {
                State::Closed
            } else {
                State::Open
            }
        },
    },
    Control {
        name: "cacheTtl",
        label: "Cache TTL",
        help: "How long a cached answer may still be served by the fallback.",
        kind: millis(0.0, 300_000.0, 1000.0),
        section: Section::Page,
        get: |s| millis_value(s.cache_ttl_ms),
        set: |s, v| s.cache_ttl_ms = number(v) as Millis,
    },
    Control {
        name: "degradedDefault",
        label: "Degraded default",
        help: "When the cache cannot answer, answer with an agreed default instead of an error.",
        kind: ControlKind::Toggle,
        section: Section::Page,
        get: |s| ControlValue::Toggle(s.degraded_default),
        set: |s, v| s.degraded_default = v == ControlValue::Toggle(true),
    },
];

impl LabModel for SandboxSettings {
    /// What the settings mean before any call (the sandbox's calls are its session's).
    type Run = SettingsSummary;
    const NAME: &'static str = "sandbox";

    fn controls() -> &'static [Control<Self>] {
        &SANDBOX_CONTROLS
    }

    fn validate(&self) -> Result<(), ConfigError> {
        SandboxSettings::validate(self)
    }

    fn run(&self) -> Result<SettingsSummary, ConfigError> {
        SandboxSettings::validate(self)?;
        let c = &self.config;
        let minimum_calls = c.effective_minimum_number_of_calls();
        Ok(SettingsSummary {
            minimum_calls,
            failures_to_trip: fewest_reaching(c.failure_rate_threshold, minimum_calls),
            slow_calls_to_trip: fewest_reaching(c.slow_call_rate_threshold, minimum_calls),
            half_open_decision_calls: c.half_open_decision_calls(),
        })
    }
}

// ---------------------------------------------------------------------------------------
// Scenarios

/// One learner action, as a scenario queues it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SandboxStep {
    /// A button's call.
    Send(SandboxCall),
    /// A call that takes the given time (a 2 s success).
    SendTimed(SandboxCall, Millis),
    Advance(Millis),
    Transition(State),
    /// The breaker's `reset()`.
    Reset,
    EmptyCache,
}

impl SandboxStep {
    /// The step in words, for "next step: ...".
    pub fn describe(&self) -> String {
        match *self {
            SandboxStep::Send(call) => format!("send: {}", call.label()),
            SandboxStep::SendTimed(call, ms) => {
                format!("send: {} taking {}", call.label(), ms_text(ms))
            }
            SandboxStep::Advance(ms) => format!("advance the clock by {}", ms_text(ms)),
            SandboxStep::Transition(to) => format!("transition to {to}"),
            SandboxStep::Reset => "reset the breaker".to_string(),
            SandboxStep::EmptyCache => "empty the fallback cache".to_string(),
        }
    }
}

/// The misconfigurations the course warns about, to replay step by step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum SandboxScenario {
    /// 404s counted as failures: a storm of "not found" answers opens the breaker.
    NotFoundStorm,
    /// The default 60 s slow-call threshold: 2 s calls never count as slow.
    SlowNeverTrips,
}

impl SandboxScenario {
    pub const ALL: [SandboxScenario; 2] = [
        SandboxScenario::NotFoundStorm,
        SandboxScenario::SlowNeverTrips,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SandboxScenario::NotFoundStorm => "notFoundStorm",
            SandboxScenario::SlowNeverTrips => "slowNeverTrips",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    pub fn label(self) -> &'static str {
        match self {
            SandboxScenario::NotFoundStorm => "The 404 storm",
            SandboxScenario::SlowNeverTrips => "Slow calls that never trip it",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            SandboxScenario::NotFoundStorm => {
                "With ignoreExceptions empty, a burst of 404s for missing items counts as failures and opens the breaker on a healthy dependency; ignore NotFoundException and it stays closed."
            }
            SandboxScenario::SlowNeverTrips => {
                "With slowCallDurationThreshold left at 60 s, calls that all take 2 s never count as slow and the breaker stays closed; set it to 1 s and it opens."
            }
        }
    }

    /// The sandbox's defaults with the scenario's misconfiguration.
    pub fn settings(self) -> SandboxSettings {
        let mut settings = SandboxSettings::default();
        match self {
            SandboxScenario::NotFoundStorm => settings.config.ignore_exceptions.clear(),
            SandboxScenario::SlowNeverTrips => {
                settings.config.slow_call_duration_threshold =
                    CircuitBreakerConfig::default().slow_call_duration_threshold;
            }
        }
        settings
    }

    /// NotFoundStorm: 3 successes 500 ms apart, then 8 404s 200 ms apart. SlowNeverTrips:
    /// 12 successes of 2 s each, one every 2 s.
    pub fn steps(self) -> Vec<SandboxStep> {
        match self {
            SandboxScenario::NotFoundStorm => {
                let successes = (0..3).flat_map(|_| {
                    [
                        SandboxStep::Send(SandboxCall::Success),
                        SandboxStep::Advance(500),
                    ]
                });
                let storm = (0..8).flat_map(|_| {
                    [
                        SandboxStep::Send(SandboxCall::Ignored),
                        SandboxStep::Advance(200),
                    ]
                });
                successes.chain(storm).collect()
            }
            SandboxScenario::SlowNeverTrips => (0..12)
                .flat_map(|_| {
                    [
                        SandboxStep::SendTimed(SandboxCall::Slow, 2_000),
                        SandboxStep::Advance(2_000),
                    ]
                })
                .collect(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Configure from claims

/// What a dependency and its team can state, from which the settings follow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Claims {
    /// 99.5 % of the dependency's calls answer within this (its SLO, or measured).
    pub p995_latency_ms: Millis,
    /// How long its incidents typically last, in seconds.
    pub typical_incident_s: u64,
    /// It reports answers as exceptions (a 404 for a missing item, a card decline).
    pub answers_are_errors: bool,
    /// Trial calls the team accepts to risk on a dependency that may still be down.
    pub probes: u32,
    /// Calls per second this caller sends it.
    pub calls_per_second: f64,
}

/// One setting derived from a claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClaimedSetting {
    /// The config field's camelCase name.
    pub name: &'static str,
    /// The value, as a scenario file writes it (`800ms`, `TIME_BASED`, `250`).
    pub value: String,
    /// The claim it rests on, in one sentence.
    pub claim: String,
}

/// Seconds of traffic a claimed TIME_BASED window covers.
const CLAIMED_WINDOW_S: u32 = 10;
/// The fewest calls a claimed window judges on.
const CLAIMED_MIN_CALLS: u32 = 10;

impl Claims {
    /// The settings the claims give, each with its claim. The rules:
    /// - `slowCallDurationThreshold` = the p99.5 latency: a call slower than what the
    ///   dependency promises for 99.5 % of its calls is slow.
    /// - `waitDurationInOpenState` = the typical incident: probe again about when an
    ///   incident is usually over.
    /// - `ignoreExceptions` = the answer types (404, decline) when answers come as
    ///   exceptions, else none: an answer is not a fault.
    /// - `permittedNumberOfCallsInHalfOpenState` = the probes the team accepts to risk.
    /// - At least 10 calls in 10 s (1 call/s or more): a TIME_BASED window of 10 s, judged
    ///   once it holds 5 seconds' worth of calls (at least 10), so it still judges when
    ///   traffic halves. Below that: a COUNT_BASED window of the last 10 calls, judged from
    ///   10 calls on (a time window would rarely hold enough calls).
    ///
    /// A rate that is not a number above 0 is refused (`callsPerSecond`); values the
    /// breaker refuses (0 probes, a 0 ms latency) are refused by [`Self::apply_to`].
    pub fn settings(&self) -> Result<Vec<ClaimedSetting>, ConfigError> {
        let d = self.derive()?;
        let list = if d.ignore.is_empty() {
            "none".to_string()
        } else {
            d.ignore.join(",")
        };
        let window_claim = match d.window_type {
            SlidingWindowType::TimeBased => format!(
                "{} calls/s: {} s of traffic is about {} calls, enough for a time window",
                lab_session::number_text(self.calls_per_second),
                CLAIMED_WINDOW_S,
                lab_session::number_text((self.calls_per_second * 10.0).round())
            ),
            SlidingWindowType::CountBased => format!(
                "{} calls/s: fewer than {CLAIMED_MIN_CALLS} calls in {CLAIMED_WINDOW_S} s, so judge the last {CLAIMED_MIN_CALLS} calls whatever their age",
                lab_session::number_text(self.calls_per_second)
            ),
        };
        let minimum_claim = match d.window_type {
            SlidingWindowType::TimeBased => format!(
                "judge once the window holds 5 s of traffic (at least {CLAIMED_MIN_CALLS} calls)"
            ),
            SlidingWindowType::CountBased => "judge once the window is full".to_string(),
        };
        Ok(vec![
            ClaimedSetting {
                name: "slowCallDurationThreshold",
                value: format_duration(d.slow_ms),
                claim: format!(
                    "99.5 % of calls answer within {}: a call slower than that is slow",
                    ms_text(self.p995_latency_ms)
                ),
            },
            ClaimedSetting {
                name: "waitDurationInOpenState",
                value: format_duration(d.wait_ms),
                claim: format!(
                    "incidents typically last {} s: probe again about when one is over",
                    self.typical_incident_s
                ),
            },
            ClaimedSetting {
                name: "ignoreExceptions",
                value: list,
                claim: if self.answers_are_errors {
                    "404s and declines arrive as exceptions but are answers, not faults".to_string()
                } else {
                    "answers arrive as answers: every exception is a fault".to_string()
                },
            },
            ClaimedSetting {
                name: "permittedNumberOfCallsInHalfOpenState",
                value: d.probes.to_string(),
                claim: format!(
                    "the team accepts to risk {} trial calls on a dependency that may still be down",
                    self.probes
                ),
            },
            ClaimedSetting {
                name: "slidingWindowType",
                value: d.window_type.name().to_string(),
                claim: window_claim.clone(),
            },
            ClaimedSetting {
                name: "slidingWindowSize",
                value: d.window_size.to_string(),
                claim: window_claim,
            },
            ClaimedSetting {
                name: "minimumNumberOfCalls",
                value: d.minimum.to_string(),
                claim: minimum_claim,
            },
        ])
    }

    /// `config` with the claimed settings (the others kept), validated by the engine.
    pub fn apply_to(
        &self,
        config: &CircuitBreakerConfig,
    ) -> Result<CircuitBreakerConfig, ConfigError> {
        let d = self.derive()?;
        let next = CircuitBreakerConfig {
            slow_call_duration_threshold: d.slow_ms,
            wait_duration_in_open_state: d.wait_ms,
            ignore_exceptions: d.ignore,
            permitted_number_of_calls_in_half_open_state: d.probes,
            sliding_window_type: d.window_type,
            sliding_window_size: d.window_size,
            minimum_number_of_calls: d.minimum,
            ..config.clone()
        };
        next.validate()?;
        Ok(next)
    }

    fn derive(&self) -> Result<Derived, ConfigError> {
        let cps = self.calls_per_second;
        if !(cps.is_finite() && cps > 0.0) {
            return Err(ConfigError::new(
                "callsPerSecond",
                "must be a number above 0 (calls per second)",
            ));
        }
        let per_window = cps * f64::from(CLAIMED_WINDOW_S);
        let (window_type, window_size, minimum) = if per_window >= f64::from(CLAIMED_MIN_CALLS) {
            // `as` saturates: an absurd rate gives u32::MAX, which validation accepts.
            let half = (per_window / 2.0).ceil() as u32;
            (
                SlidingWindowType::TimeBased,
                CLAIMED_WINDOW_S,
                half.max(CLAIMED_MIN_CALLS),
            )
        } else {
            (
                SlidingWindowType::CountBased,
                CLAIMED_MIN_CALLS,
                CLAIMED_MIN_CALLS,
            )
        };
        Ok(Derived {
            slow_ms: self.p995_latency_ms,
            wait_ms: self.typical_incident_s.saturating_mul(1_000),
            ignore: if self.answers_are_errors {
                ANSWER_EXCEPTIONS.iter().map(|e| e.to_string()).collect()
            } else {
                Vec::new()
            },
            probes: self.probes,
            window_type,
            window_size,
            minimum,
        })
    }
}

struct Derived {
    slow_ms: Millis,
    wait_ms: Millis,
    ignore: Vec<String>,
    probes: u32,
    window_type: SlidingWindowType,
    window_size: u32,
    minimum: u32,
}

// ---------------------------------------------------------------------------------------
// The session

/// The rates as the page shows them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Rates {
    /// DISABLED and FORCED_OPEN record nothing.
    NotRecording,
    /// "not enough calls: `buffered` of `minimum`".
    NotEnoughCalls { buffered: u32, minimum: u32 },
    /// Percentages of the calls in the window.
    Computed {
        failure_rate: f32,
        slow_call_rate: f32,
    },
}

impl Rates {
    pub fn describe(&self) -> String {
        match *self {
            Rates::NotRecording => "not recording".to_string(),
            Rates::NotEnoughCalls { buffered, minimum } => {
                format!("not enough calls: {buffered} of {minimum}")
            }
            Rates::Computed {
                failure_rate,
                slow_call_rate,
            } => format!(
                "failure rate {} %, slow-call rate {} %",
                rate_text(failure_rate),
                rate_text(slow_call_rate)
            ),
        }
    }
}

/// A learner's action, resolved (durations and exceptions fixed when it was taken), as the
/// session replays it.
#[derive(Debug, Clone, PartialEq)]
enum Action {
    /// `acquire`, then, if permitted, the answer.
    Call {
        sent: SandboxCall,
        duration_ms: Millis,
        exception: Option<String>,
    },
    /// Any other breaker step, or a step of an imported script that is not a call.
    Step(BreakerStep),
    EmptyCache,
}

impl Action {
    /// Script steps it may take (a call: 2).
    fn weight(&self) -> usize {
        match self {
            Action::Call { .. } => 2,
            Action::Step(_) | Action::EmptyCache => 1,
        }
    }
}

/// What the actions produced: the breaker, the clock, the script so far, the fallback and
/// the page's lists.
#[derive(Debug, Clone)]
struct Live {
    breaker: CircuitBreaker,
    now: Millis,
    steps: Vec<BreakerStep>,
    cache: FallbackCache<(), ()>,
    degraded_default: bool,
    log: VecDeque<LogEntry>,
    logged: u64,
    records: VecDeque<CallRecord>,
    calls: u64,
}

impl Live {
    fn new(settings: &SandboxSettings) -> Result<Self, ConfigError> {
        settings.validate()?;
        Ok(Live {
            breaker: CircuitBreaker::new(settings.config.clone())?,
            now: 0,
            steps: Vec::new(),
            cache: FallbackCache::new(settings.cache_ttl_ms),
            degraded_default: settings.degraded_default,
            log: VecDeque::new(),
            logged: 0,
            records: VecDeque::new(),
            calls: 0,
        })
    }

    fn replay(settings: &SandboxSettings, actions: &[Action]) -> Result<Self, ConfigError> {
        let mut live = Live::new(settings)?;
        for action in actions {
            live.apply(action);
        }
        Ok(live)
    }

    fn apply(&mut self, action: &Action) {
        match action {
            Action::Call {
                sent,
                duration_ms,
                exception,
            } => {
                self.call(Some(*sent), Some((*duration_ms, exception.as_deref())));
            }
            Action::Step(step) => self.step(step),
            Action::EmptyCache => {
                self.cache = FallbackCache::new(self.cache.ttl());
                self.log(SandboxEvent::CacheEmptied { at: self.now });
            }
        }
        self.flush_events();
    }

    /// An `acquire` and, when permitted and given, the answer. A refusal is recorded as a
    /// call; a permitted `acquire` without an answer (a lone step of a script) is not.
    fn call(&mut self, sent: Option<SandboxCall>, answer: Option<(Millis, Option<&str>)>) -> bool {
        let before = self.breaker.state();
        self.steps.push(BreakerStep::Acquire {});
        if !self.breaker.try_acquire_permission(self.now) {
            let (rung, cache_age_ms) = self.fallback();
            self.record(CallRecord {
                number: 0,
                at: self.now,
                sent,
                permitted: false,
                duration_ms: None,
                exception: Some(NOT_PERMITTED_EXCEPTION.to_string()),
                class: CallClass::NotPermitted,
                counted: false,
                state_before: before,
                state_after: self.breaker.state(),
                rung,
                cache_age_ms,
            });
            return false;
        }
        let Some((duration, exception)) = answer else {
            return true;
        };
        let recording = self.breaker.state() != State::Disabled;
        self.answer(duration, exception);
        let class = CallClass::of(self.breaker.config(), duration, exception);
        let (rung, cache_age_ms) = match exception {
            None => {
                self.cache.put(self.now, (), ());
                (Rung::Live, None)
            }
            Some(e) if is_answer(e) => (Rung::Answer, None),
            Some(_) => self.fallback(),
        };
        self.record(CallRecord {
            number: 0,
            at: self.now,
            sent,
            permitted: true,
            duration_ms: Some(duration),
            exception: exception.map(str::to_string),
            class,
            counted: recording && class != CallClass::Ignored,
            state_before: before,
            state_after: self.breaker.state(),
            rung,
            cache_age_ms,
        });
        true
    }

    /// Reports an answer (`success` or `error` step) at the current instant.
    fn answer(&mut self, duration: Millis, exception: Option<&str>) {
        match exception {
            None => {
                self.steps.push(BreakerStep::Success {
                    duration_ms: duration,
                });
                self.breaker.on_success(self.now, duration);
            }
            Some(e) => {
                self.steps.push(BreakerStep::Error {
                    duration_ms: duration,
                    exception: e.to_string(),
                });
                self.breaker.on_error(self.now, duration, e);
            }
        }
    }

    /// A step applied as written (the CLI's semantics).
    fn step(&mut self, step: &BreakerStep) {
        match step {
            BreakerStep::Acquire {} => {
                self.call(None, None);
            }
            BreakerStep::Success { duration_ms } => self.answer(*duration_ms, None),
            BreakerStep::Error {
                duration_ms,
                exception,
            } => self.answer(*duration_ms, Some(exception)),
            BreakerStep::AdvanceMs(ms) => {
                self.steps.push(step.clone());
                self.advance(*ms);
            }
            BreakerStep::Transition(to) => {
                self.steps.push(step.clone());
                let from = self.breaker.state();
                if self.breaker.transition_to(*to, self.now).is_err() {
                    self.log(SandboxEvent::TransitionRefused {
                        at: self.now,
                        from,
                        to: *to,
                    });
                }
            }
            BreakerStep::Release {} => {
                self.steps.push(step.clone());
                self.breaker.release_permission();
            }
            BreakerStep::Reset {} => {
                self.steps.push(step.clone());
                self.breaker.reset(self.now);
            }
        }
    }

    fn advance(&mut self, ms: Millis) {
        self.now = self.now.saturating_add(ms);
        self.breaker.advance_to(self.now);
    }

    /// The fallback ladder below the live answer.
    fn fallback(&mut self) -> (Rung, Option<Millis>) {
        if self.cache.get(self.now, &()).is_some() {
            let age = self
                .cache
                .stored_at(&())
                .map(|stored| self.now.saturating_sub(stored));
            (Rung::StaleCache, age)
        } else if self.degraded_default {
            (Rung::DegradedDefault, None)
        } else {
            (Rung::HonestError, None)
        }
    }

    fn flush_events(&mut self) {
        for event in self.breaker.drain_events() {
            self.log(SandboxEvent::Breaker(event));
        }
    }

    fn log(&mut self, event: SandboxEvent) {
        self.logged += 1;
        if self.log.len() == MAX_LOG {
            self.log.pop_front();
        }
        self.log.push_back(LogEntry {
            seq: self.logged,
            event,
        });
    }

    fn record(&mut self, mut record: CallRecord) {
        self.calls += 1;
        record.number = self.calls;
        if self.records.len() == MAX_RECORDS {
            self.records.pop_front();
        }
        self.records.push_back(record);
    }
}

/// Demo 10's session: one breaker driven by the learner's actions, with its fallback
/// ladder, its log and its script. See the module documentation.
#[derive(Debug, Clone)]
pub struct BreakerSandbox {
    settings: SandboxSettings,
    actions: Vec<Action>,
    /// Script steps the actions may take (a call counts 2), at most [`MAX_STEPS`].
    used: usize,
    live: Live,
    pending: VecDeque<SandboxStep>,
    scenario: Option<SandboxScenario>,
}

impl Default for BreakerSandbox {
    fn default() -> Self {
        let settings = SandboxSettings::default();
        let live = Live::new(&settings).expect("the sandbox's defaults are valid");
        Self::with(settings, Vec::new(), 0, live)
    }
}

impl BreakerSandbox {
    /// A fresh session (t = 0, no calls) on `settings`, refused if they are invalid.
    pub fn new(settings: SandboxSettings) -> Result<Self, ConfigError> {
        let live = Live::new(&settings)?;
        Ok(Self::with(settings, Vec::new(), 0, live))
    }

    fn with(settings: SandboxSettings, actions: Vec<Action>, used: usize, live: Live) -> Self {
        Self {
            settings,
            actions,
            used,
            live,
            pending: VecDeque::new(),
            scenario: None,
        }
    }

    // --- actions ---------------------------------------------------------------------

    /// Sends one call of the button's kind (see [`SandboxCall`] for its duration and
    /// exception) and returns its record.
    pub fn send(&mut self, kind: SandboxCall) -> Result<CallRecord, String> {
        let duration = kind.duration(&self.settings.config);
        self.send_timed(kind, duration)
    }

    /// Sends a call that takes `duration_ms` (a scenario's 2 s success).
    pub fn send_timed(
        &mut self,
        kind: SandboxCall,
        duration_ms: Millis,
    ) -> Result<CallRecord, String> {
        self.push(Action::Call {
            sent: kind,
            duration_ms,
            exception: kind.exception().map(str::to_string),
        })?;
        self.live
            .records
            .back()
            .cloned()
            .ok_or_else(|| "the call left no record".to_string())
    }

    /// Moves the clock forward (firing the breaker's timers), saturating at
    /// [`MAX_CLOCK_MS`]; returns the new time. Consecutive advances are one script step.
    pub fn advance(&mut self, ms: Millis) -> Result<Millis, String> {
        let ms = ms.min(MAX_CLOCK_MS.saturating_sub(self.live.now));
        if ms == 0 {
            return Ok(self.live.now);
        }
        if let Some(Action::Step(BreakerStep::AdvanceMs(previous))) = self.actions.last_mut() {
            if let Some(BreakerStep::AdvanceMs(step)) = self.live.steps.last_mut() {
                *previous = previous.saturating_add(ms);
                *step = *previous;
                self.live.advance(ms);
                self.live.flush_events();
                return Ok(self.live.now);
            }
        }
        self.push(Action::Step(BreakerStep::AdvanceMs(ms)))?;
        Ok(self.live.now)
    }

    /// A manual transition (`transitionToXxxState`). One that Resilience4j's table forbids
    /// (CLOSED -> HALF_OPEN; METRICS_ONLY -> OPEN or HALF_OPEN) is refused and changes
    /// nothing.
    pub fn transition(&mut self, to: State) -> Result<(), String> {
        let from = self.live.breaker.state();
        if !from.can_transition_to(to) {
            return Err(format!(
                "illegal transition {from} -> {to}: Resilience4j refuses it (IllegalStateTransitionException)"
            ));
        }
        self.push(Action::Step(BreakerStep::Transition(to)))
    }

    /// The breaker's `reset()`: CLOSED with a fresh window, from any state.
    pub fn reset(&mut self) -> Result<(), String> {
        self.push(Action::Step(BreakerStep::Reset {}))
    }

    /// Empties the fallback cache (a sandbox step: in the log, not in the exported script).
    pub fn empty_cache(&mut self) -> Result<(), String> {
        self.push(Action::EmptyCache)
    }

    /// Starts over: t = 0, no calls, the same settings; no scenario pending.
    pub fn clear(&mut self) {
        if let Ok(live) = Live::new(&self.settings) {
            *self = Self::with(self.settings.clone(), Vec::new(), 0, live);
        }
    }

    /// Applies one step, as a scenario queues it.
    pub fn apply(&mut self, step: SandboxStep) -> Result<(), String> {
        match step {
            SandboxStep::Send(call) => self.send(call).map(|_| ()),
            SandboxStep::SendTimed(call, ms) => self.send_timed(call, ms).map(|_| ()),
            SandboxStep::Advance(ms) => self.advance(ms).map(|_| ()),
            SandboxStep::Transition(to) => self.transition(to),
            SandboxStep::Reset => self.reset(),
            SandboxStep::EmptyCache => self.empty_cache(),
        }
    }

    fn push(&mut self, action: Action) -> Result<(), String> {
        let used = self.used + action.weight();
        if used > MAX_STEPS {
            return Err(format!(
                "the session holds its limit of {MAX_STEPS} steps: export it, or start over"
            ));
        }
        self.live.apply(&action);
        self.actions.push(action);
        self.used = used;
        Ok(())
    }

    // --- scenarios -------------------------------------------------------------------

    /// Starts over on the scenario's settings and queues its steps (none applied yet).
    pub fn load_scenario(&mut self, scenario: SandboxScenario) {
        if let Ok(mut fresh) = Self::new(scenario.settings()) {
            fresh.pending = scenario.steps().into();
            fresh.scenario = Some(scenario);
            *self = fresh;
        }
    }

    /// The scenario loaded last, if any.
    pub fn scenario(&self) -> Option<SandboxScenario> {
        self.scenario
    }

    /// Applies the next pending step; returns it, or `None` when nothing is pending. A
    /// refused step stays pending.
    pub fn step(&mut self) -> Result<Option<SandboxStep>, String> {
        let Some(&next) = self.pending.front() else {
            return Ok(None);
        };
        self.apply(next)?;
        self.pending.pop_front();
        Ok(Some(next))
    }

    /// Applies every pending step; returns how many were applied.
    pub fn run_pending(&mut self) -> Result<usize, String> {
        let mut applied = 0;
        while self.step()?.is_some() {
            applied += 1;
        }
        Ok(applied)
    }

    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// The steps still to apply, next first.
    pub fn pending(&self) -> impl Iterator<Item = &SandboxStep> {
        self.pending.iter()
    }

    // --- settings --------------------------------------------------------------------

    pub fn settings(&self) -> &SandboxSettings {
        &self.settings
    }

    pub fn config(&self) -> &CircuitBreakerConfig {
        &self.settings.config
    }

    pub fn controls() -> &'static [Control<SandboxSettings>] {
        &SANDBOX_CONTROLS
    }

    pub fn control(name: &str) -> Option<&'static Control<SandboxSettings>> {
        LabSession::<SandboxSettings>::control(name)
    }

    /// The current value of control `name`.
    pub fn control_value(&self, name: &str) -> Option<ControlValue> {
        Self::control(name).map(|c| (c.get)(&self.settings))
    }

    /// Sets control `name` (checked against its range or options, then the engine's
    /// validation) and replays. A refusal names the control and changes nothing.
    pub fn set(&mut self, name: &str, value: ControlValue) -> Result<(), ConfigError> {
        let control = Self::known_control(name)?;
        let value = control.check(value)?;
        let mut next = self.settings.clone();
        (control.set)(&mut next, value);
        self.set_settings(next)
    }

    /// [`Self::set`] from text, as a link writes it (`10s`, `TIME_BASED`, `true`).
    pub fn set_text(&mut self, name: &str, text: &str) -> Result<(), ConfigError> {
        let control = Self::known_control(name)?;
        let value = control.parse(text)?;
        self.set(name, value)
    }

    /// The control named `name`, or the lab sessions' message for an unknown name.
    fn known_control(name: &str) -> Result<&'static Control<SandboxSettings>, ConfigError> {
        Self::control(name).ok_or_else(|| {
            let names: Vec<&str> = SANDBOX_CONTROLS.iter().map(|c| c.name).collect();
            ConfigError::new(
                name,
                format!(
                    "is not a control of the {} lab (its controls: {})",
                    SandboxSettings::NAME,
                    names.join(", ")
                ),
            )
        })
    }

    /// New settings: validated, then every action replayed from t = 0 on a new breaker
    /// (Resilience4j's config is immutable per breaker). Invalid: the session is unchanged.
    pub fn set_settings(&mut self, settings: SandboxSettings) -> Result<(), ConfigError> {
        if settings == self.settings {
            return Ok(());
        }
        self.live = Live::replay(&settings, &self.actions)?;
        self.settings = settings;
        Ok(())
    }

    /// [`Self::set_settings`] with a new breaker config, the fallback's settings kept.
    pub fn set_config(&mut self, config: CircuitBreakerConfig) -> Result<(), ConfigError> {
        self.set_settings(SandboxSettings {
            config,
            ..self.settings.clone()
        })
    }

    /// Sets the settings the claims give (the others kept) and replays; returns them with
    /// their claims.
    pub fn apply_claims(&mut self, claims: &Claims) -> Result<Vec<ClaimedSetting>, ConfigError> {
        let settings = claims.settings()?;
        let config = claims.apply_to(&self.settings.config)?;
        self.set_config(config)?;
        Ok(settings)
    }

    // --- import / export -------------------------------------------------------------

    /// The breaker part of the session as a script: the config and the steps applied.
    pub fn script(&self) -> BreakerScript {
        BreakerScript {
            config: self.settings.config.clone(),
            steps: self.live.steps.clone(),
        }
    }

    /// [`Self::script`] as pretty JSON, the file `resilience-sim breaker FILE` reads.
    pub fn export_json(&self) -> Result<String, String> {
        serde_json::to_string_pretty(&self.script()).map_err(|e| e.to_string())
    }

    /// Replaces the session by a breaker script (the fallback's settings kept): parsed,
    /// validated, bounded ([`MAX_STEPS`] steps, [`MAX_CLOCK_MS`], the sandbox's window
    /// limits), then replayed. An `acquire` the breaker permits, followed at once by its
    /// answer, becomes a sandbox call; other steps apply as the CLI applies them. A refusal
    /// is one line and changes nothing.
    pub fn import_json(&mut self, json: &str) -> Result<(), String> {
        self.import_script(parse_breaker_script(json)?)
    }

    /// [`Self::import_json`] for a script already read (the browser reads the JSON with its
    /// own parser).
    pub fn import_script(&mut self, script: BreakerScript) -> Result<(), String> {
        // The CLI's checks first: a thrown name must be a known or declared class.
        script.validate().map_err(|e| e.to_string())?;
        if script.steps.len() > MAX_STEPS {
            return Err(format!(
                "the script has {} steps; the sandbox replays at most {MAX_STEPS}",
                script.steps.len()
            ));
        }
        let mut clock: Millis = 0;
        for step in &script.steps {
            if let BreakerStep::AdvanceMs(ms) = step {
                clock = clock
                    .checked_add(*ms)
                    .filter(|&t| t <= MAX_CLOCK_MS)
                    .ok_or_else(|| {
                        format!(
                            "the script's advances pass {MAX_CLOCK_MS} ms, the sandbox's last instant"
                        )
                    })?;
            }
        }
        let settings = SandboxSettings {
            config: script.config,
            ..self.settings.clone()
        };
        let mut live = Live::new(&settings).map_err(|e| e.to_string())?;
        let mut actions = Vec::with_capacity(script.steps.len());
        let mut steps = script.steps.iter().peekable();
        while let Some(step) = steps.next() {
            let answer = match (step, steps.peek()) {
                (BreakerStep::Acquire {}, Some(BreakerStep::Success { duration_ms })) => {
                    Some((*duration_ms, None))
                }
                (
                    BreakerStep::Acquire {},
                    Some(BreakerStep::Error {
                        duration_ms,
                        exception,
                    }),
                ) => Some((*duration_ms, Some(exception.as_str()))),
                _ => None,
            };
            let action = match answer {
                Some((duration, exception)) => {
                    let sent = SandboxCall::of_answer(&settings.config, duration, exception);
                    if live.call(Some(sent), Some((duration, exception))) {
                        steps.next();
                        Action::Call {
                            sent,
                            duration_ms: duration,
                            exception: exception.map(str::to_string),
                        }
                    } else {
                        // Refused: the answer that follows applies as written, as in the
                        // CLI, and the script does not say what was meant to be sent.
                        if let Some(last) = live.records.back_mut() {
                            last.sent = None;
                        }
                        Action::Step(BreakerStep::Acquire {})
                    }
                }
                None => {
                    live.step(step);
                    Action::Step(step.clone())
                }
            };
            live.flush_events();
            actions.push(action);
        }
        let used = actions.iter().map(Action::weight).sum();
        *self = Self::with(settings, actions, used, live);
        Ok(())
    }

    // --- what the page reads ---------------------------------------------------------

    pub fn state(&self) -> State {
        self.live.breaker.state()
    }

    /// The sandbox's clock.
    pub fn now(&self) -> Millis {
        self.live.now
    }

    pub fn metrics(&self) -> Metrics {
        self.live.breaker.metrics()
    }

    /// The rates, or why there are none yet.
    pub fn rates(&self) -> Rates {
        let breaker = &self.live.breaker;
        if breaker.window_kind() == WindowKind::Empty {
            return Rates::NotRecording;
        }
        let m = breaker.metrics();
        if m.failure_rate < 0.0 {
            Rates::NotEnoughCalls {
                buffered: m.buffered,
                minimum: breaker.minimum_number_of_calls(),
            }
        } else {
            Rates::Computed {
                failure_rate: m.failure_rate,
                slow_call_rate: m.slow_call_rate,
            }
        }
    }

    /// Outcomes the current window needs before its rates count.
    pub fn minimum_calls(&self) -> u32 {
        self.live.breaker.minimum_number_of_calls()
    }

    /// The window's shape (COUNT_BASED in HALF_OPEN; empty when DISABLED or FORCED_OPEN).
    pub fn window_kind(&self) -> WindowKind {
        self.live.breaker.window_kind()
    }

    /// The outcomes in the window, oldest first (TIME_BASED: grouped per second).
    pub fn window_cells(&self) -> Vec<WindowCell> {
        self.live.breaker.window_cells()
    }

    /// TIME_BASED: the window's seconds, oldest first; empty otherwise.
    pub fn window_buckets(&self) -> Vec<Bucket> {
        self.live.breaker.window_buckets()
    }

    /// OPEN: milliseconds left in the wait (at 0 the next call is still refused; the first
    /// one after it is the first trial).
    pub fn open_wait_remaining(&self) -> Option<Millis> {
        self.live.breaker.open_wait_remaining(self.live.now)
    }

    /// HALF_OPEN: (trial permits handed out, permitted).
    pub fn half_open_trials(&self) -> Option<(u32, u32)> {
        self.live.breaker.half_open_trials()
    }

    /// When a timer will change the state by itself, if one is armed.
    pub fn next_timer(&self) -> Option<Millis> {
        self.live.breaker.next_timer()
    }

    /// The breaker itself, for anything else the page wants to read.
    pub fn breaker(&self) -> &CircuitBreaker {
        &self.live.breaker
    }

    /// The last [`MAX_LOG`] events, oldest first.
    pub fn events(&self) -> impl DoubleEndedIterator<Item = &LogEntry> + ExactSizeIterator {
        self.live.log.iter()
    }

    /// Events logged since the session began (kept or not).
    pub fn events_total(&self) -> u64 {
        self.live.logged
    }

    /// The last [`MAX_RECORDS`] calls, oldest first.
    pub fn records(&self) -> impl DoubleEndedIterator<Item = &CallRecord> + ExactSizeIterator {
        self.live.records.iter()
    }

    /// Calls since the session began (kept or not).
    pub fn calls_total(&self) -> u64 {
        self.live.calls
    }

    /// The age of the cached answer, if the cache holds one (fresh or not).
    pub fn cache_age(&self) -> Option<Millis> {
        self.live
            .cache
            .stored_at(&())
            .map(|stored| self.live.now.saturating_sub(stored))
    }

    /// Whether the cache could answer now (its answer is younger than the TTL).
    pub fn cache_fresh(&self) -> bool {
        self.live.cache.peek(self.live.now, &()).is_some()
    }

    /// Script steps used so far, of [`MAX_STEPS`].
    pub fn steps_used(&self) -> usize {
        self.used
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::breaker_script::run_breaker_script;

    fn sends(s: &mut BreakerSandbox, kind: SandboxCall, n: usize) {
        for _ in 0..n {
            s.send(kind).unwrap();
        }
    }

    fn last(s: &BreakerSandbox) -> CallRecord {
        s.records().next_back().cloned().unwrap()
    }

    /// The sandbox and the CLI agree on the final state of an exported session.
    fn assert_cli_agrees(s: &BreakerSandbox) {
        let json = s.export_json().unwrap();
        let script = parse_breaker_script(&json).unwrap();
        assert_eq!(script, s.script());
        let reports = run_breaker_script(&script).unwrap();
        let r = reports.last().unwrap();
        let m = s.metrics();
        assert_eq!(r.state, s.state());
        assert_eq!(r.t_ms, s.now());
        assert_eq!(r.failure_rate, m.failure_rate);
        assert_eq!(r.slow_call_rate, m.slow_call_rate);
        assert_eq!(r.buffered, m.buffered);
        assert_eq!(r.failed, m.failed);
        assert_eq!(r.slow, m.slow);
        assert_eq!(r.not_permitted, m.not_permitted);
    }

    /// Spec: COUNT_BASED 10/10 at 50 %: 9 outcomes are below the minimum, the 10th (5 of
    /// 10 failed = 50 %, inclusive) opens; OPEN refuses until strictly after the 10 s wait.
    #[test]
    fn default_sequence_opens_and_waits_strictly_past_the_wait() {
        let mut s = BreakerSandbox::default();
        sends(&mut s, SandboxCall::Success, 5);
        sends(&mut s, SandboxCall::Failure, 4);
        assert_eq!(s.state(), State::Closed);
        assert_eq!(
            s.rates(),
            Rates::NotEnoughCalls {
                buffered: 9,
                minimum: 10
            }
        );
        assert_eq!(s.rates().describe(), "not enough calls: 9 of 10");
        let r = s.send(SandboxCall::Failure).unwrap();
        assert_eq!(r.class, CallClass::Failure);
        assert_eq!(
            (r.state_before, r.state_after),
            (State::Closed, State::Open)
        );
        assert_eq!(s.state(), State::Open);
        assert_eq!(s.metrics().failure_rate, 50.0);
        assert_eq!(s.open_wait_remaining(), Some(10_000));
        let names: Vec<_> = s.events().map(|e| e.event.name()).collect();
        assert_eq!(
            &names[names.len() - 3..],
            ["ERROR", "FAILURE_RATE_EXCEEDED", "STATE_TRANSITION"]
        );

        let r = s.send(SandboxCall::Success).unwrap();
        assert!(!r.permitted);
        assert_eq!(r.class, CallClass::NotPermitted);
        assert_eq!(r.exception.as_deref(), Some(NOT_PERMITTED_EXCEPTION));

        assert_eq!(s.advance(10_000), Ok(10_000));
        assert_eq!(s.open_wait_remaining(), Some(0));
        assert!(!s.send(SandboxCall::Success).unwrap().permitted);
        assert_eq!(s.metrics().not_permitted, 2);

        s.advance(1).unwrap();
        let r = s.send(SandboxCall::Success).unwrap();
        assert!(r.permitted);
        assert_eq!(r.state_before, State::Open);
        assert_eq!(s.state(), State::HalfOpen);
        assert_eq!(s.half_open_trials(), Some((1, 3)));
        assert_eq!(s.minimum_calls(), 3);
        assert_cli_agrees(&s);
    }

    #[test]
    fn the_plus_one_second_button_also_lets_the_first_trial_through() {
        let mut s = BreakerSandbox::default();
        sends(&mut s, SandboxCall::Failure, 10);
        assert_eq!(s.state(), State::Open);
        s.advance(10_000).unwrap();
        s.advance(1_000).unwrap();
        // Consecutive advances are one step.
        assert_eq!(
            s.script().steps.last(),
            Some(&BreakerStep::AdvanceMs(11_000))
        );
        assert!(s.send(SandboxCall::Success).unwrap().permitted);
        assert_eq!(s.state(), State::HalfOpen);
        // Two more successes: 3 of 3 trials, 0 % < 50 % -> CLOSED.
        sends(&mut s, SandboxCall::Success, 2);
        assert_eq!(s.state(), State::Closed);
        assert_cli_agrees(&s);
    }

    #[test]
    fn slow_button_is_slow_whatever_the_threshold() {
        let mut s = BreakerSandbox::default();
        let r = s.send(SandboxCall::Slow).unwrap();
        assert_eq!(r.duration_ms, Some(61_000));
        assert_eq!(r.class, CallClass::SlowSuccess);
        s.set_text("slowCallDurationThreshold", "500ms").unwrap();
        let r = s.send(SandboxCall::Slow).unwrap();
        assert_eq!(r.duration_ms, Some(1_500));
        assert_eq!(r.class, CallClass::SlowSuccess);
        // The first one keeps its 61 s on replay: still slow at 500 ms.
        assert_eq!(s.metrics().slow, 2);
    }

    /// 3 successes, then 404s: with ignoreExceptions empty the 7th 404 is the 10th outcome,
    /// 7 of 10 failed = 70 % >= 50 %: OPEN, and the 8th 404 is refused.
    #[test]
    fn not_found_storm_trips_unless_404_is_ignored() {
        let mut s = BreakerSandbox::default();
        s.load_scenario(SandboxScenario::NotFoundStorm);
        assert_eq!(s.pending_len(), 22);
        assert!(s.config().ignore_exceptions.is_empty());
        let mut applied = 0;
        while let Some(step) = s.step().unwrap() {
            applied += 1;
            if applied == 1 {
                assert_eq!(step, SandboxStep::Send(SandboxCall::Success));
                assert_eq!(s.calls_total(), 1);
            }
        }
        assert_eq!(applied, 22);
        assert_eq!(s.state(), State::Open);
        let m = s.metrics();
        assert_eq!((m.buffered, m.failed, m.not_permitted), (10, 7, 1));
        assert_eq!(m.failure_rate, 70.0);
        // The refused 404 at t = 2900 falls back to the answer cached at t = 1000.
        let r = last(&s);
        assert_eq!(r.at, 2_900);
        assert_eq!((r.rung, r.cache_age_ms), (Rung::StaleCache, Some(1_900)));
        // A permitted 404 is an answer, whatever the breaker made of it.
        let storm: Vec<_> = s
            .records()
            .filter(|r| r.permitted && r.exception.is_some())
            .collect();
        assert!(storm
            .iter()
            .all(|r| r.rung == Rung::Answer && r.class == CallClass::Failure));

        s.set_text("ignoreExceptions", "NotFoundException").unwrap();
        assert_eq!(s.state(), State::Closed);
        assert_eq!(
            s.rates(),
            Rates::NotEnoughCalls {
                buffered: 3,
                minimum: 10
            }
        );
        assert!(s
            .records()
            .filter(|r| r.sent == Some(SandboxCall::Ignored))
            .all(|r| r.class == CallClass::Ignored && !r.counted));
        assert_cli_agrees(&s);
    }

    /// 12 calls of 2 s: at 60 s none is slow; at 1 s the 10th makes 10 of 10 slow = 100 %
    /// >= 100 %: OPEN at t = 18 s, and the calls at 20 s and 22 s are refused (wait 10 s).
    #[test]
    fn two_second_calls_never_trip_at_60_s_but_trip_at_1_s() {
        let mut s = BreakerSandbox::default();
        s.load_scenario(SandboxScenario::SlowNeverTrips);
        assert_eq!(s.config().slow_call_duration_threshold, 60_000);
        assert_eq!(s.run_pending(), Ok(24));
        assert_eq!(s.pending_len(), 0);
        assert_eq!(s.state(), State::Closed);
        let m = s.metrics();
        assert_eq!((m.buffered, m.slow, m.slow_call_rate), (10, 0, 0.0));

        s.set_text("slowCallDurationThreshold", "1s").unwrap();
        assert_eq!(s.state(), State::Open);
        let m = s.metrics();
        assert_eq!((m.buffered, m.slow, m.not_permitted), (10, 10, 2));
        assert_eq!(m.slow_call_rate, 100.0);
        let trip = s
            .events()
            .find(|e| e.event.name() == "SLOW_CALL_RATE_EXCEEDED")
            .unwrap();
        assert_eq!(trip.event.at(), 18_000);
        assert_cli_agrees(&s);
    }

    #[test]
    fn export_import_round_trip_matches_the_cli() {
        let mut s = BreakerSandbox::default();
        sends(&mut s, SandboxCall::Ignored, 2);
        sends(&mut s, SandboxCall::Failure, 6);
        sends(&mut s, SandboxCall::Success, 4);
        // 404s ignored; the 10th counted outcome (6 of 10 failed = 60 %) opens it.
        assert_eq!(s.state(), State::Open);
        s.send(SandboxCall::Success).unwrap(); // refused
        s.advance(10_500).unwrap();
        sends(&mut s, SandboxCall::Slow, 1);
        s.send(SandboxCall::Failure).unwrap();
        s.transition(State::ForcedOpen).unwrap();
        s.send(SandboxCall::Success).unwrap();
        s.transition(State::MetricsOnly).unwrap();
        sends(&mut s, SandboxCall::Failure, 3);
        s.reset().unwrap();
        s.send(SandboxCall::Failure).unwrap();
        s.empty_cache().unwrap();
        assert_cli_agrees(&s);

        let json = s.export_json().unwrap();
        let mut back = BreakerSandbox::default();
        back.import_json(&json).unwrap();
        assert_eq!(back.export_json().unwrap(), json);
        assert_eq!(back.state(), s.state());
        assert_eq!(back.metrics(), s.metrics());
        assert_eq!(back.now(), s.now());
        assert_eq!(back.calls_total(), s.calls_total());
        assert_eq!(back.steps_used(), s.script().steps.len());
        // The refused calls' kinds are not in the script.
        let refused: Vec<_> = back.records().filter(|r| !r.permitted).collect();
        assert!(!refused.is_empty() && refused.iter().all(|r| r.sent.is_none()));
        // The permitted ones come back as sandbox calls.
        let kinds: Vec<_> = back.records().take(12).map(|r| r.sent).collect();
        assert_eq!(kinds[0], Some(SandboxCall::Ignored));
        assert_eq!(kinds[2], Some(SandboxCall::Failure));
        assert_eq!(kinds[11], Some(SandboxCall::Success));

        // TIME_BASED too.
        let mut t = BreakerSandbox::default();
        t.set_text("slidingWindowType", "TIME_BASED").unwrap();
        t.set_text("slidingWindowSize", "5").unwrap();
        t.set_text("minimumNumberOfCalls", "4").unwrap();
        for _ in 0..6 {
            t.send(SandboxCall::Failure).unwrap();
            t.send(SandboxCall::Success).unwrap();
            t.advance(700).unwrap();
        }
        assert_eq!(t.window_buckets().len(), 5);
        assert_cli_agrees(&t);
    }

    #[test]
    fn import_keeps_the_cli_semantics_of_a_foreign_script() {
        // An answer after a refused acquire is still reported (a late answer in OPEN).
        let json = r#"{"config":{"slidingWindowSize":2,"minimumNumberOfCalls":2},
            "steps":[{"error":{"duration_ms":5,"exception":"IOException"}},
                     {"error":{"duration_ms":5,"exception":"IOException"}},
                     {"acquire":{}},{"success":{"duration_ms":5}},
                     {"transition":"HALF_OPEN"},{"transition":"CLOSED"},
                     {"transition":"HALF_OPEN"},{"release":{}}]}"#;
        let mut s = BreakerSandbox::default();
        s.import_json(json).unwrap();
        let script = parse_breaker_script(json).unwrap();
        let r = run_breaker_script(&script).unwrap();
        let last_report = r.last().unwrap();
        assert_eq!(s.state(), last_report.state);
        assert_eq!(s.metrics().buffered, last_report.buffered);
        assert_eq!(s.script().steps, script.steps);
        assert!(s
            .events()
            .any(|e| e.event.name() == "ILLEGAL_STATE_TRANSITION"));
        assert_eq!(s.calls_total(), 1); // the refused acquire
    }

    #[test]
    fn import_refuses_unbounded_or_invalid_scripts() {
        let mut s = BreakerSandbox::default();
        s.send(SandboxCall::Failure).unwrap();
        let before = s.export_json().unwrap();
        let too_many = format!(
            r#"{{"steps":[{}]}}"#,
            vec![r#"{"acquire":{}}"#; MAX_STEPS + 1].join(",")
        );
        let too_late = r#"{"steps":[{"advance_ms":900000000000},{"advance_ms":900000000000}]}"#;
        let overflow = r#"{"steps":[{"advance_ms":18446744073709551615},{"advance_ms":1}]}"#;
        let big_window = r#"{"config":{"slidingWindowSize":5000},"steps":[]}"#;
        let invalid = r#"{"config":{"failureRateThreshold":0},"steps":[]}"#;
        for (json, expected) in [
            (too_many.as_str(), "10000"),
            (too_late, "last instant"),
            (overflow, "last instant"),
            (big_window, "slidingWindowSize"),
            (invalid, "failureRateThreshold"),
            ("{", "invalid breaker script"),
        ] {
            let e = s.import_json(json).unwrap_err();
            assert!(e.contains(expected), "{e}");
            assert!(!e.contains('\n'));
            assert_eq!(s.export_json().unwrap(), before);
        }
        // Exactly the limit is accepted.
        let at_limit = format!(
            r#"{{"steps":[{}]}}"#,
            vec![r#"{"acquire":{}}"#; MAX_STEPS].join(",")
        );
        s.import_json(&at_limit).unwrap();
        assert_eq!(s.steps_used(), MAX_STEPS);
        assert!(s.send(SandboxCall::Success).is_err());
    }

    #[test]
    fn the_session_is_bounded() {
        let mut s = BreakerSandbox::default();
        sends(&mut s, SandboxCall::Success, MAX_STEPS / 2);
        let e = s.send(SandboxCall::Success).unwrap_err();
        assert!(e.contains("10000"), "{e}");
        assert_eq!(s.calls_total(), (MAX_STEPS / 2) as u64);
        assert_eq!(s.records().len(), MAX_RECORDS);
        assert_eq!(s.events().len(), MAX_LOG);
        assert_eq!(
            s.events().next().unwrap().seq,
            s.events_total() - MAX_LOG as u64 + 1
        );
        // The clock saturates.
        let mut t = BreakerSandbox::default();
        assert_eq!(t.advance(Millis::MAX), Ok(MAX_CLOCK_MS));
        assert_eq!(t.advance(5), Ok(MAX_CLOCK_MS));
        assert_eq!(t.script().steps, [BreakerStep::AdvanceMs(MAX_CLOCK_MS)]);
    }

    /// Defaults need 10 outcomes: 5 failures stay CLOSED. With minimumNumberOfCalls 5 the
    /// replay opens at the 5th (5 of 5 = 100 %), so calls 6 to 10 are refused and lose
    /// their answers: 5 x 2 + 5 x 1 steps.
    #[test]
    fn a_setting_change_replays_the_whole_session() {
        let mut s = BreakerSandbox::default();
        sends(&mut s, SandboxCall::Failure, 10);
        assert_eq!(s.state(), State::Open);
        assert_eq!(s.metrics().not_permitted, 0);
        s.set_text("minimumNumberOfCalls", "5").unwrap();
        assert_eq!(
            s.control_value("minimumNumberOfCalls"),
            Some(ControlValue::Number(5.0))
        );
        assert_eq!(s.state(), State::Open);
        let m = s.metrics();
        assert_eq!((m.buffered, m.failed, m.not_permitted), (5, 5, 5));
        assert_eq!(s.script().steps.len(), 15);
        assert_eq!(s.records().filter(|r| !r.permitted).count(), 5);
        // Back: the same 10 calls, all sent again.
        s.set("minimumNumberOfCalls", ControlValue::Number(10.0))
            .unwrap();
        assert_eq!(s.script().steps.len(), 20);
        assert_eq!(s.metrics().not_permitted, 0);
        assert_cli_agrees(&s);
    }

    #[test]
    fn a_refused_setting_changes_nothing() {
        let mut s = BreakerSandbox::default();
        sends(&mut s, SandboxCall::Failure, 3);
        let before = s.export_json().unwrap();
        let e = s.set_text("slidingWindowSize", "0").unwrap_err();
        assert_eq!(e.field, "slidingWindowSize");
        let e = s.set_text("windowSize", "5").unwrap_err();
        assert_eq!(e.field, "windowSize");
        let e = s
            .set("failureRateThreshold", ControlValue::Number(120.0))
            .unwrap_err();
        assert_eq!(e.field, "failureRateThreshold");
        let e = s
            .set_config(CircuitBreakerConfig {
                failure_rate_threshold: 0.0,
                ..sandbox_defaults()
            })
            .unwrap_err();
        assert_eq!(e.field, "failureRateThreshold");
        let e = s
            .set_config(CircuitBreakerConfig {
                sliding_window_size: SANDBOX_MAX_WINDOW + 1,
                ..sandbox_defaults()
            })
            .unwrap_err();
        assert_eq!(e.field, "slidingWindowSize");
        assert_eq!(s.export_json().unwrap(), before);
        assert_eq!(s.settings(), &SandboxSettings::default());
    }

    #[test]
    fn an_illegal_transition_changes_nothing() {
        let mut s = BreakerSandbox::default();
        s.send(SandboxCall::Failure).unwrap();
        let steps = s.script().steps.len();
        let e = s.transition(State::HalfOpen).unwrap_err();
        assert!(e.contains("CLOSED -> HALF_OPEN"), "{e}");
        assert_eq!(s.state(), State::Closed);
        assert_eq!(s.metrics().buffered, 1);
        assert_eq!(s.script().steps.len(), steps);
        s.transition(State::MetricsOnly).unwrap();
        assert!(s.transition(State::Open).is_err());
        assert_eq!(s.state(), State::MetricsOnly);
        s.transition(State::Disabled).unwrap();
        assert_eq!(s.rates(), Rates::NotRecording);
        let r = s.send(SandboxCall::Failure).unwrap();
        assert!(r.permitted && !r.counted);
        s.transition(State::ForcedOpen).unwrap();
        assert!(!s.send(SandboxCall::Success).unwrap().permitted);
    }

    /// TTL 30 s: a cached answer is served at ages up to 29.999 s, not at 30 s.
    #[test]
    fn fallback_ladder() {
        let mut s = BreakerSandbox::default();
        // Nothing cached yet: the degraded default.
        assert_eq!(
            s.send(SandboxCall::Failure).unwrap().rung,
            Rung::DegradedDefault
        );
        assert_eq!(s.send(SandboxCall::Success).unwrap().rung, Rung::Live);
        assert_eq!(s.cache_age(), Some(0));
        s.advance(1_000).unwrap();
        let r = s.send(SandboxCall::Failure).unwrap();
        assert_eq!((r.rung, r.cache_age_ms), (Rung::StaleCache, Some(1_000)));
        assert_eq!(s.send(SandboxCall::Ignored).unwrap().rung, Rung::Answer);
        s.advance(28_999).unwrap();
        let r = s.send(SandboxCall::Failure).unwrap();
        assert_eq!((r.rung, r.cache_age_ms), (Rung::StaleCache, Some(29_999)));
        s.advance(1).unwrap();
        assert!(!s.cache_fresh());
        assert_eq!(
            s.send(SandboxCall::Failure).unwrap().rung,
            Rung::DegradedDefault
        );
        // Without the default, an honest error (the whole session is replayed).
        s.set_text("degradedDefault", "false").unwrap();
        assert_eq!(last(&s).rung, Rung::HonestError);
        assert_eq!(s.records().next().unwrap().rung, Rung::HonestError);
        // A longer TTL turns it into a cached answer.
        s.set_text("cacheTtl", "60s").unwrap();
        assert_eq!(last(&s).rung, Rung::StaleCache);

        // A refused call falls back too; emptying the cache is not a breaker step.
        let mut t = BreakerSandbox::default();
        t.send(SandboxCall::Success).unwrap();
        sends(&mut t, SandboxCall::Failure, 9);
        assert_eq!(t.state(), State::Open);
        let r = t.send(SandboxCall::Success).unwrap();
        assert!(!r.permitted);
        assert_eq!(r.rung, Rung::StaleCache);
        let steps = t.script().steps.len();
        t.empty_cache().unwrap();
        assert_eq!(t.script().steps.len(), steps);
        assert_eq!(
            t.events().next_back().unwrap().event.name(),
            "CACHE_EMPTIED"
        );
        assert_eq!(t.cache_age(), None);
        assert_eq!(
            t.send(SandboxCall::Success).unwrap().rung,
            Rung::DegradedDefault
        );
        // The emptying is replayed in place.
        t.set_text("cacheTtl", "40s").unwrap();
        assert_eq!(last(&t).rung, Rung::DegradedDefault);
    }

    /// 800 ms p99.5, 30 s incidents, answers as errors, 5 probes, 50 calls/s: 500 calls in
    /// 10 s, so TIME_BASED 10 s judged from 250 calls.
    #[test]
    fn settings_from_claims() {
        let claims = Claims {
            p995_latency_ms: 800,
            typical_incident_s: 30,
            answers_are_errors: true,
            probes: 5,
            calls_per_second: 50.0,
        };
        let settings = claims.settings().unwrap();
        let value = |name: &str| {
            settings
                .iter()
                .find(|s| s.name == name)
                .map(|s| s.value.clone())
                .unwrap()
        };
        assert_eq!(value("slowCallDurationThreshold"), "800ms");
        assert_eq!(value("waitDurationInOpenState"), "30s");
        assert_eq!(
            value("ignoreExceptions"),
            "NotFoundException,CardDeclinedException"
        );
        assert_eq!(value("permittedNumberOfCallsInHalfOpenState"), "5");
        assert_eq!(value("slidingWindowType"), "TIME_BASED");
        assert_eq!(value("slidingWindowSize"), "10");
        assert_eq!(value("minimumNumberOfCalls"), "250");
        assert!(settings.iter().all(|s| !s.claim.is_empty()));

        let mut s = BreakerSandbox::default();
        s.apply_claims(&claims).unwrap();
        let c = s.config();
        assert_eq!(c.slow_call_duration_threshold, 800);
        assert_eq!(c.wait_duration_in_open_state, 30_000);
        assert_eq!(c.minimum_number_of_calls, 250);
        assert_eq!(c.failure_rate_threshold, 50.0); // not claimed: kept
        assert_eq!(
            s.control_value("ignoreExceptions"),
            Some(ControlValue::Choice(
                "NotFoundException,CardDeclinedException"
            ))
        );

        // 0.5 calls/s: 5 calls in 10 s, too few for a time window.
        let trickle = Claims {
            calls_per_second: 0.5,
            answers_are_errors: false,
            ..claims
        };
        let c = trickle.apply_to(&sandbox_defaults()).unwrap();
        assert_eq!(c.sliding_window_type, SlidingWindowType::CountBased);
        assert_eq!((c.sliding_window_size, c.minimum_number_of_calls), (10, 10));
        assert!(c.ignore_exceptions.is_empty());
        // 1 call/s: exactly 10 calls in 10 s; half is 5, so the floor of 10.
        let one = Claims {
            calls_per_second: 1.0,
            ..claims
        };
        let c = one.apply_to(&sandbox_defaults()).unwrap();
        assert_eq!(c.sliding_window_type, SlidingWindowType::TimeBased);
        assert_eq!(c.minimum_number_of_calls, 10);

        // Refusals name the setting and change nothing.
        let before = s.settings().clone();
        let no_probes = Claims {
            probes: 0,
            ..claims
        };
        assert_eq!(
            s.apply_claims(&no_probes).unwrap_err().field,
            "permittedNumberOfCallsInHalfOpenState"
        );
        let no_rate = Claims {
            calls_per_second: f64::NAN,
            ..claims
        };
        assert_eq!(
            s.apply_claims(&no_rate).unwrap_err().field,
            "callsPerSecond"
        );
        assert_eq!(s.settings(), &before);
    }

    #[test]
    fn controls_are_named_as_the_config_and_hold_the_defaults() {
        let json = serde_json::to_value(sandbox_defaults()).unwrap();
        let settings = SandboxSettings::default();
        let mut names = std::collections::HashSet::new();
        for c in BreakerSandbox::controls() {
            assert!(names.insert(c.name), "{} twice", c.name);
            assert_eq!(
                json.get(c.name).is_some(),
                c.section != Section::Page,
                "{}",
                c.name
            );
            let value = (c.get)(&settings);
            assert_eq!(c.check(value), Ok(value), "{}", c.name);
            // Writing a control's own value back changes nothing.
            let mut same = settings.clone();
            (c.set)(&mut same, value);
            assert_eq!(same, settings, "{}", c.name);
        }
        // The page's defaults: the course's, and Resilience4j's for the rest.
        assert_eq!(settings.config.slow_call_duration_threshold, 60_000);
        assert_eq!(settings.config.slow_call_rate_threshold, 100.0);
        assert_eq!(settings.cache_ttl_ms, 30_000);
        assert!(settings.degraded_default);
        // An imported list is shown as "custom", and "custom" keeps it.
        let mut s = BreakerSandbox::default();
        s.set_config(CircuitBreakerConfig {
            ignore_exceptions: vec!["MyBusinessException".into()],
            exceptions: [("MyBusinessException".into(), "RuntimeException".into())].into(),
            ..sandbox_defaults()
        })
        .unwrap();
        assert_eq!(
            s.control_value("ignoreExceptions"),
            Some(ControlValue::Choice(CUSTOM_LIST))
        );
        s.set_text("ignoreExceptions", CUSTOM_LIST).unwrap();
        assert_eq!(s.config().ignore_exceptions, ["MyBusinessException"]);
        s.set_text("recordExceptions", "IOException,TimeoutException")
            .unwrap();
        // A 404 is then neither recorded nor ignored: it counts as a success.
        s.set_text("ignoreExceptions", "none").unwrap();
        assert_eq!(
            s.send(SandboxCall::Ignored).unwrap().class,
            CallClass::Success
        );
    }

    /// 10 calls at 50 %: 5 failures; 100 %: all 10 slow; HALF_OPEN decides after
    /// min(10, 3) = 3 trials.
    #[test]
    fn settings_summary() {
        let summary = SandboxSettings::default().run().unwrap();
        assert_eq!(
            summary,
            SettingsSummary {
                minimum_calls: 10,
                failures_to_trip: 5,
                slow_calls_to_trip: 10,
                half_open_decision_calls: 3,
            }
        );
        let mut settings = SandboxSettings::default();
        settings.config.minimum_number_of_calls = 50; // clamped to the window of 10
        settings.config.failure_rate_threshold = 33.0;
        let summary = settings.run().unwrap();
        // 33 % of 10: 3 failures are 30 %, 4 are 40 %.
        assert_eq!((summary.minimum_calls, summary.failures_to_trip), (10, 4));
        // TIME_BASED does not clamp; a huge minimum costs nothing: half of u32::MAX,
        // rounded up, reaches 50 %.
        settings.config.sliding_window_type = SlidingWindowType::TimeBased;
        settings.config.minimum_number_of_calls = u32::MAX;
        settings.config.failure_rate_threshold = 50.0;
        let summary = settings.run().unwrap();
        assert_eq!(summary.minimum_calls, u32::MAX);
        let k = summary.failures_to_trip;
        assert!(window::percent(k, u32::MAX) >= 50.0);
        assert!(window::percent(k - 1, u32::MAX) < 50.0);
        // 100 % in f32 is reached a little before u32::MAX (f32 has 24 bits).
        let k = summary.slow_calls_to_trip;
        assert!(window::percent(k, u32::MAX) >= 100.0);
        assert!(window::percent(k - 1, u32::MAX) < 100.0);
    }

    #[test]
    fn event_names_are_resilience4js() {
        let mut s = BreakerSandbox::default();
        s.send(SandboxCall::Success).unwrap();
        s.send(SandboxCall::Ignored).unwrap();
        s.reset().unwrap();
        let lines: Vec<_> = s
            .events()
            .map(|e| format!("{} {}", e.event.name(), e.event.detail()))
            .collect();
        assert_eq!(
            lines,
            [
                "SUCCESS 100 ms",
                "IGNORED_ERROR NotFoundException after 100 ms",
                "RESET "
            ]
        );
    }
}
