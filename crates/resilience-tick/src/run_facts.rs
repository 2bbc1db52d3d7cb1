//! # What the tick model notes as it plays
//!
//! The facts a run's story is made of ([`crate::summary`]), kept tick by tick in a
//! few numbers: the spans of ticks in which payments failed, refusals for want of a thread,
//! peaks, and why the breaker changed state each time, read from its own events (the
//! crossing reported just before a trip, the time spent OPEN, the trial calls' results).
//! The model writes them; the summary reads them. Bounded: at most
//! [`FAILURE_SPANS_KEPT`] spans, whatever the run's length.

use serde::Serialize;

use resilience_policy::policy::circuit_breaker::{
    CircuitBreakerConfig, CircuitBreakerEvent, State,
};

/// Why the breaker changed state.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TransitionReason {
    /// The window held at least `minimumNumberOfCalls` outcomes and its failure rate
    /// (percent) reached `failureRateThreshold`.
    FailureRate { rate: f32, threshold: f32 },
    /// The share of slow calls (percent) reached `slowCallRateThreshold`.
    SlowCallRate { rate: f32, threshold: f32 },
    /// OPEN's wait (`waitDurationInOpenState`) was over after `waited_ticks` ticks.
    WaitOver { waited_ticks: u32 },
    /// HALF_OPEN's trial calls completed: how many succeeded and how many failed.
    Trials { succeeded: u32, failed: u32 },
    /// Any other change (a manual transition; the tick model makes none).
    Other,
}

/// Ticks `from..=to`, both included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TickSpan {
    pub from: u32,
    pub to: u32,
}

/// How many spans of consecutive ticks with failed payments a run remembers.
pub const FAILURE_SPANS_KEPT: usize = 16;

/// What the model accumulates tick by tick for [`RunSummary`].
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct RunFacts {
    pub payment_failure_spans: Vec<TickSpan>,
    pub payments_without_thread: u32,
    pub service_failures: u32,
    pub peak_recommendations_threads: u32,
    pub breaker_ticks: u32,
    pub bulkhead_ticks: u32,
    pub transition_count: u32,
    /// Payment failures counted up to the end of the previous tick.
    payment_failures_seen: u32,
}

impl RunFacts {
    /// Notes the end of tick `t`, played with a breaker or a bulkhead or both.
    pub fn end_tick(
        &mut self,
        t: u32,
        (has_breaker, has_bulkhead): (bool, bool),
        payment_failures: u32,
        recommendations_threads: u32,
    ) {
        self.breaker_ticks += u32::from(has_breaker);
        self.bulkhead_ticks += u32::from(has_bulkhead);
        self.peak_recommendations_threads = self
            .peak_recommendations_threads
            .max(recommendations_threads);
        if payment_failures > self.payment_failures_seen {
            let spans = &mut self.payment_failure_spans;
            let kept = spans.len();
            match spans.last_mut() {
                Some(span) if span.to + 1 == t => span.to = t,
                _ if kept < FAILURE_SPANS_KEPT => spans.push(TickSpan { from: t, to: t }),
                _ => {}
            }
        }
        self.payment_failures_seen = payment_failures;
    }
}

/// Follows the breaker's event stream to say why each state change happened: the crossing
/// reported just before a trip, the time spent OPEN, the outcomes recorded in HALF_OPEN.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BreakerWatch {
    state: State,
    entered_tick: u32,
    trial_successes: u32,
    trial_failures: u32,
    crossing: Option<TransitionReason>,
}

impl Default for BreakerWatch {
    fn default() -> Self {
        Self {
            state: State::Closed,
            entered_tick: 0,
            trial_successes: 0,
            trial_failures: 0,
            crossing: None,
        }
    }
}

impl BreakerWatch {
    /// Reads the next event of the breaker, drained during tick `tick`; returns the state
    /// change it reports, with its reason.
    pub fn observe(
        &mut self,
        event: &CircuitBreakerEvent,
        tick: u32,
        config: &CircuitBreakerConfig,
    ) -> Option<(State, State, TransitionReason)> {
        match *event {
            CircuitBreakerEvent::FailureRateExceeded { rate, .. } => {
                self.crossing = Some(TransitionReason::FailureRate {
                    rate,
                    threshold: config.failure_rate_threshold,
                });
            }
            CircuitBreakerEvent::SlowCallRateExceeded { rate, .. } if self.crossing.is_none() => {
                self.crossing = Some(TransitionReason::SlowCallRate {
                    rate,
                    threshold: config.slow_call_rate_threshold,
                });
            }
            CircuitBreakerEvent::Success { .. } if self.state == State::HalfOpen => {
                self.trial_successes += 1;
            }
            CircuitBreakerEvent::Error { .. } if self.state == State::HalfOpen => {
                self.trial_failures += 1;
            }
            CircuitBreakerEvent::StateTransition { from, to, .. } => {
                let reason = match (from, to, self.crossing.take()) {
                    (_, State::Open, Some(crossing)) => crossing,
                    (State::Open, State::HalfOpen, _) => TransitionReason::WaitOver {
                        waited_ticks: tick.saturating_sub(self.entered_tick),
                    },
                    (State::HalfOpen, State::Open | State::Closed, _) => TransitionReason::Trials {
                        succeeded: self.trial_successes,
                        failed: self.trial_failures,
                    },
                    _ => TransitionReason::Other,
                };
                self.state = to;
                self.entered_tick = tick;
                self.trial_successes = 0;
                self.trial_failures = 0;
                return Some((from, to, reason));
            }
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_payments_are_kept_as_spans_of_ticks_and_bounded() {
        let mut facts = RunFacts::default();
        // Failures at t = 3, 4, 5 and 7, none at 6.
        for (t, failures) in [(1, 0), (2, 0), (3, 1), (4, 2), (5, 3), (6, 3), (7, 4)] {
            facts.end_tick(t, (false, false), failures, 0);
        }
        assert_eq!(
            facts.payment_failure_spans,
            vec![TickSpan { from: 3, to: 5 }, TickSpan { from: 7, to: 7 }]
        );
        // One failure every other tick, for a long time: the first spans are kept.
        let mut facts = RunFacts::default();
        for t in 1..=1_000u32 {
            facts.end_tick(t, (false, true), t / 2, t % 7);
        }
        assert_eq!(facts.payment_failure_spans.len(), FAILURE_SPANS_KEPT);
        assert_eq!(facts.payment_failure_spans[0], TickSpan { from: 2, to: 2 });
        assert_eq!(facts.peak_recommendations_threads, 6);
        assert_eq!((facts.bulkhead_ticks, facts.breaker_ticks), (1_000, 0));
    }
}
