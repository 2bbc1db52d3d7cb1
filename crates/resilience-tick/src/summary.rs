//! # What a run of the tick model came to
//!
//! A learner rarely plays a demo exactly as it was written: a select changed mid-run, a
//! threshold edited, a protection switched off. The page's "What happened" must then tell
//! *their* run, not the demo's default story, and it must not work the story out itself.
//! So the model keeps, as it plays, the few facts such a story is made of: which payments
//! failed and when, why the breaker changed state each time (the failure rate against its
//! threshold, the wait being over, the trial calls' results), how many threads
//! recommendations holds, and which protections were in place. [`RunSummary`] hands them
//! over in one value; the page only turns them into sentences.
//!
//! Everything here is bounded: a run of a hundred thousand ticks keeps the same few
//! numbers and at most [`FAILURE_SPANS_KEPT`] spans of failed payments.

use serde::Serialize;

pub use crate::run_facts::{TickSpan, TransitionReason, FAILURE_SPANS_KEPT};
use crate::tick::{Behaviour, Dependency, Protection, Tally, TickModel, Transition};
use resilience_policy::policy::circuit_breaker::{CircuitBreaker, State};

/// The facts of a run so far, as the page's "What happened" tells them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    /// Ticks played.
    pub ticks: u32,
    /// Worker threads of `order-api`.
    pub threads: u32,
    /// The running totals (payments failed and made, fallbacks, refusals by kind).
    pub tally: Tally,
    /// The ticks in which payments failed, as spans of consecutive ticks, oldest first (the
    /// first [`FAILURE_SPANS_KEPT`]).
    pub payment_failure_spans: Vec<TickSpan>,
    /// Payments that failed because no worker thread was free (of `tally.payment_failures`).
    pub payments_without_thread: u32,
    /// Recommendations calls that reached the service and failed: errors and timeouts
    /// (refusals by a policy or for want of a thread not included).
    pub service_failures: u32,
    /// Threads recommendations held after the last tick.
    pub recommendations_threads: u32,
    /// The most threads recommendations held after any tick.
    pub peak_recommendations_threads: u32,
    /// Ticks played with a circuit breaker guarding recommendations.
    pub breaker_ticks: u32,
    /// Ticks played with a bulkhead.
    pub bulkhead_ticks: u32,
    /// The breaker's state after the last tick; `None` when the protection has no breaker.
    pub breaker_state: Option<State>,
    /// Every state change of the breaker in this run.
    pub transition_count: u32,
    /// The latest state changes with their reasons, oldest first (the model keeps the last
    /// `TRANSITIONS_KEPT`).
    pub transitions: Vec<Transition>,
    /// The behaviour and protection the last tick was played with.
    pub behaviour: Behaviour,
    pub protection: Protection,
    /// The breaker's `failureRateThreshold` (percent), and the outcomes its CLOSED window
    /// needs before a rate counts (`minimumNumberOfCalls`, at most the window's size when
    /// it counts calls).
    pub failure_rate_threshold: f32,
    pub minimum_number_of_calls: u32,
}

// Here rather than in tick.rs: the summary reads the model, and the model never needs the
// summary (nor imports this module).
impl TickModel {
    /// The facts of the run so far, for the page's "What happened".
    pub fn summary(&self) -> RunSummary {
        let config = self.config();
        let breaker = &config.circuit_breaker;
        let facts = self.facts();
        RunSummary {
            ticks: self.tick(),
            threads: config.world.threads,
            tally: self.tally(),
            payment_failure_spans: facts.payment_failure_spans.clone(),
            payments_without_thread: facts.payments_without_thread,
            service_failures: facts.service_failures,
            recommendations_threads: self.threads_held_by(Dependency::Recommendations),
            peak_recommendations_threads: facts.peak_recommendations_threads,
            breaker_ticks: facts.breaker_ticks,
            bulkhead_ticks: facts.bulkhead_ticks,
            breaker_state: self.breaker().map(CircuitBreaker::state),
            transition_count: facts.transition_count,
            transitions: self.transitions().copied().collect(),
            behaviour: config.behaviour,
            protection: config.protection,
            failure_rate_threshold: breaker.failure_rate_threshold,
            minimum_number_of_calls: breaker.effective_minimum_number_of_calls(),
        }
    }
}
