//! The breaker sandbox: event names.

use super::*;
use crate::number::number_text;

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

pub(super) fn ms_text(ms: Millis) -> String {
    if ms >= 1_000 {
        format!("{} s", number_text(ms as f64 / 1000.0))
    } else {
        format!("{ms} ms")
    }
}

pub(super) fn rate_text(rate: f32) -> String {
    number_text((f64::from(rate) * 10.0).round() / 10.0)
}
