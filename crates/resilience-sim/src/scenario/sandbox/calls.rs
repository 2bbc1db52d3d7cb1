//! The breaker sandbox: calls and their records.

use super::*;
use crate::policy::circuit_breaker::Classification;

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
    pub(super) fn of_answer(
        config: &CircuitBreakerConfig,
        duration: Millis,
        exception: Option<&str>,
    ) -> Self {
        match exception {
            Some(e) if is_answer(e) => SandboxCall::Ignored,
            Some(_) => SandboxCall::Failure,
            None if duration > config.slow_call_duration_threshold => SandboxCall::Slow,
            None => SandboxCall::Success,
        }
    }
}

pub(super) fn is_answer(exception: &str) -> bool {
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

    /// As `breaker` classified the answer it was just given (its memory of names
    /// included: a script may list hundreds).
    pub(super) fn of(
        breaker: &mut CircuitBreaker,
        duration: Millis,
        exception: Option<&str>,
    ) -> Self {
        let slow = duration > breaker.config().slow_call_duration_threshold;
        match exception.map(|e| breaker.classify(e)) {
            Some(Classification::Ignored) => CallClass::Ignored,
            Some(Classification::Failure) if slow => CallClass::SlowFailure,
            Some(Classification::Failure) => CallClass::Failure,
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
