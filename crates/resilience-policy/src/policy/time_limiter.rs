//! Timeouts: stop waiting for an answer that is not coming in time.
//!
//! A call with no timeout waits as long as the dependency takes. When the dependency slows
//! from 80 ms to 4 s, every caller waits 4 s, holding a thread, a connection and a place
//! in every queue on the way, while the user has long given up. The failure a timeout
//! protects against is this *unbounded waiting*: it turns a slow answer into a fast
//! failure the caller can act on (fall back, fail fast, report), and it should be set
//! below what the caller still has left of its own deadline.
//!
//! Resilience4j's `TimeLimiter` (`timeoutDuration`, default 1 s; `cancelRunningFuture`,
//! default true) waits on a future for at most the timeout and then throws
//! `TimeoutException`. What it does **not** do is important, and the labs show it:
//!
//! - On the `CompletionStage` path (what Spring Boot's `@TimeLimiter` uses, usually on a
//!   thread-pool bulkhead) it completes the caller's future exceptionally and never touches
//!   the running task: `cancelRunningFuture` is not even read. The task keeps its bulkhead
//!   thread and its HTTP connection until the dependency answers.
//! - On the `Future` path it calls `cancel(true)` when `cancelRunningFuture` is true, which
//!   only *interrupts* the worker thread; a blocking socket read ignores interrupts, so the
//!   connection stays busy there too.
//!
//! So a time limiter is a [`TimeoutKind::StopWaiting`] timeout: it frees the *caller*, not
//! the *resource*. The timeout that frees the resource is the HTTP client's read (socket)
//! timeout, [`TimeoutKind::ReadTimeout`]: the client closes the connection and the thread
//! making the call is free at once (the provider may still be working on the request, which
//! is why a timed-out payment capture is "uncertain", not "failed").
//!
//! Models use [`Timeout`] for both: `outcome(call_duration)` says whether the attempt ended
//! by timing out and when, and `kind.releases_resource()` says whether the thread,
//! bulkhead permit and connection held by the attempt are given back at that instant
//! (`ReadTimeout`) or only when the call really ends (`StopWaiting`).

use serde::{Deserialize, Serialize};

use crate::{ConfigError, Millis};

/// Settings of a time limiter (Resilience4j `TimeLimiterConfig`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct TimeLimiterConfig {
    /// How long the caller waits (default 1 s).
    #[serde(with = "crate::duration::serde_millis")]
    pub timeout_duration: Millis,
    /// Whether a timed-out `Future` is cancelled with an interrupt (default true). Kept for
    /// fidelity and display; see the module docs for why it does not free the resource.
    pub cancel_running_future: bool,
}

impl Default for TimeLimiterConfig {
    fn default() -> Self {
        Self {
            timeout_duration: 1_000,
            cancel_running_future: true,
        }
    }
}

/// Whether an attempt answered within the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TimeLimit {
    /// It answered within the limit (an answer exactly at the limit is in time).
    Completed,
    /// The caller stopped waiting `at` ms after the attempt started (= the timeout).
    TimedOut { at: Millis },
}

impl TimeLimit {
    pub fn timed_out(self) -> bool {
        matches!(self, TimeLimit::TimedOut { .. })
    }
}

/// The boundary rule shared by every timeout: a call of `call_duration` ms times out when
/// it takes strictly longer than `timeout`.
fn limit(timeout: Millis, call_duration: Millis) -> TimeLimit {
    if call_duration > timeout {
        TimeLimit::TimedOut { at: timeout }
    } else {
        TimeLimit::Completed
    }
}

impl TimeLimiterConfig {
    /// `timeoutDuration` only has to be non-negative (the Spring Boot property's rule),
    /// which `Millis` guarantees.
    pub fn validate(&self) -> Result<(), ConfigError> {
        Ok(())
    }

    /// Whether a call that would take `call_duration` ms times out, and when.
    pub fn outcome(&self, call_duration: Millis) -> TimeLimit {
        limit(self.timeout_duration, call_duration)
    }

    /// The instant the caller stops waiting for an attempt started at `start`.
    pub fn deadline(&self, start: Millis) -> Millis {
        start.saturating_add(self.timeout_duration)
    }

    /// Always [`TimeoutKind::StopWaiting`]: see the module docs.
    pub fn kind(&self) -> TimeoutKind {
        TimeoutKind::StopWaiting
    }

    /// False: a time limiter's timeout leaves the call running.
    pub fn releases_resource(&self) -> bool {
        self.kind().releases_resource()
    }

    /// This limiter as a generic [`Timeout`].
    pub fn as_timeout(&self) -> Timeout {
        Timeout {
            duration: self.timeout_duration,
            kind: self.kind(),
        }
    }
}

/// The events a time limiter publishes (`TimeLimiterEvent.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TimeLimiterEventType {
    /// The call answered in time.
    Success,
    /// `onError` with a `TimeoutException`: the limiter's own, or one the call threw
    /// (`TimeLimiterImpl.onError` tests `instanceof TimeoutException`).
    Timeout,
    /// `onError` with any other exception the call threw in time.
    Error,
}

/// Who stops and what is freed when a timeout fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TimeoutKind {
    /// The HTTP client's read timeout: the client gives the connection up and the thread
    /// making the call is free at once (`SocketTimeoutException`).
    ReadTimeout,
    /// A time limiter: the caller stops waiting (`TimeoutException`), but the call keeps
    /// its thread, bulkhead permit and connection until the dependency answers.
    #[default]
    StopWaiting,
}

impl TimeoutKind {
    /// Whether the resources the attempt holds are given back when the timeout fires.
    pub fn releases_resource(self) -> bool {
        matches!(self, TimeoutKind::ReadTimeout)
    }

    pub fn describe(self) -> &'static str {
        match self {
            TimeoutKind::ReadTimeout => {
                "read timeout: the client drops the connection and its thread is free at once"
            }
            TimeoutKind::StopWaiting => {
                "time limiter: the caller stops waiting, but the call keeps its thread and connection until it ends"
            }
        }
    }
}

/// A timeout of either kind, for the models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Timeout {
    #[serde(with = "crate::duration::serde_millis")]
    pub duration: Millis,
    pub kind: TimeoutKind,
}

impl Timeout {
    /// A client read timeout: frees the resource when it fires.
    pub fn read_timeout(duration: Millis) -> Self {
        Self {
            duration,
            kind: TimeoutKind::ReadTimeout,
        }
    }

    /// A time limiter's timeout: the caller stops waiting, the call goes on.
    pub fn stop_waiting(duration: Millis) -> Self {
        Self {
            duration,
            kind: TimeoutKind::StopWaiting,
        }
    }

    /// Whether a call that would take `call_duration` ms times out, and when.
    pub fn outcome(&self, call_duration: Millis) -> TimeLimit {
        limit(self.duration, call_duration)
    }

    /// The instant the caller stops waiting for an attempt started at `start`.
    pub fn deadline(&self, start: Millis) -> Millis {
        start.saturating_add(self.duration)
    }

    /// When the attempt's thread, permit and connection are free again, for an attempt
    /// started at `start` that the dependency would answer after `call_duration` ms: at the
    /// timeout for a read timeout that fired, otherwise when the call really ends.
    pub fn resource_freed_at(&self, start: Millis, call_duration: Millis) -> Millis {
        match self.outcome(call_duration) {
            TimeLimit::TimedOut { at } if self.kind.releases_resource() => start.saturating_add(at),
            _ => start.saturating_add(call_duration),
        }
    }

    pub fn releases_resource(&self) -> bool {
        self.kind.releases_resource()
    }
}
