//! The outcome classes the engine distinguishes.
//!
//! Each failure class carries the Java exception name Resilience4j would see, because
//! `recordExceptions` / `ignoreExceptions` (breaker) and `retryExceptions` /
//! `ignoreExceptions` (retry) classify by exception name.

use serde::{Deserialize, Serialize};

/// How one call ended, as the caller saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Answered in time.
    Success,
    /// Answered, but slower than the breaker's slowCallDurationThreshold.
    SlowSuccess,
    /// The connection was refused or reset before a request was sent.
    ConnectFailure,
    /// No answer before the client's read timeout (the provider may still be working).
    ReadTimeout,
    /// The dependency answered with an HTTP 5xx.
    Http5xx,
    /// A business answer such as a card decline: the dependency is healthy.
    BusinessError,
    /// Refused by a bulkhead (BulkheadFullException): the call never left.
    BulkheadFull,
    /// Refused by an open breaker (CallNotPermittedException): the call never left.
    CallNotPermitted,
    /// No worker thread was free to make the call (RejectedExecutionException).
    NoFreeThread,
    /// A TimeLimiter stopped waiting (`java.util.concurrent.TimeoutException`, not an
    /// `IOException`); the call itself may still be running.
    TimeLimited,
    /// Refused by a rate limiter (RequestNotPermitted): the call never left. Resilience4j's
    /// retry treats it like any exception (the spec's guard names only the other two
    /// refusals).
    RequestNotPermitted,
}

impl Outcome {
    pub const ALL: [Outcome; 11] = [
        Outcome::Success,
        Outcome::SlowSuccess,
        Outcome::ConnectFailure,
        Outcome::ReadTimeout,
        Outcome::Http5xx,
        Outcome::BusinessError,
        Outcome::BulkheadFull,
        Outcome::CallNotPermitted,
        Outcome::NoFreeThread,
        Outcome::TimeLimited,
        Outcome::RequestNotPermitted,
    ];

    /// The exception a Java client would throw, or `None` for an answer.
    pub fn exception_name(self) -> Option<&'static str> {
        match self {
            Outcome::Success | Outcome::SlowSuccess => None,
            Outcome::ConnectFailure => Some("ConnectException"),
            Outcome::ReadTimeout => Some("SocketTimeoutException"),
            Outcome::Http5xx => Some("HttpServerErrorException"),
            Outcome::BusinessError => Some("CardDeclinedException"),
            Outcome::BulkheadFull => Some("BulkheadFullException"),
            Outcome::CallNotPermitted => Some("CallNotPermittedException"),
            Outcome::NoFreeThread => Some("RejectedExecutionException"),
            Outcome::TimeLimited => Some("TimeoutException"),
            Outcome::RequestNotPermitted => Some("RequestNotPermitted"),
        }
    }

    /// True for an answer the caller can use (fast or slow).
    pub fn is_success(self) -> bool {
        matches!(self, Outcome::Success | Outcome::SlowSuccess)
    }

    /// True when a policy refused the call locally, so it never reached the dependency.
    pub fn is_local_refusal(self) -> bool {
        matches!(
            self,
            Outcome::BulkheadFull | Outcome::CallNotPermitted | Outcome::NoFreeThread
        )
    }

    /// Plain words for narration.
    pub fn describe(self) -> &'static str {
        match self {
            Outcome::Success => "answered",
            Outcome::SlowSuccess => "answered slowly",
            Outcome::ConnectFailure => "connection refused",
            Outcome::ReadTimeout => "timed out",
            Outcome::Http5xx => "HTTP 500",
            Outcome::BusinessError => "declined (a business answer)",
            Outcome::BulkheadFull => "refused by the bulkhead (BulkheadFullException)",
            Outcome::CallNotPermitted => "refused by the open breaker (CallNotPermittedException)",
            Outcome::NoFreeThread => "no free worker thread",
            Outcome::TimeLimited => "timed out by the time limiter (TimeoutException)",
            Outcome::RequestNotPermitted => "refused by the rate limiter (RequestNotPermitted)",
        }
    }
}
