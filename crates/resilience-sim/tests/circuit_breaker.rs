//! The circuit breaker against the rules of ../shared/spec/00-policy-semantics.md and
//! against cases of Resilience4j's own test suite (CircuitBreakerStateMachineTest,
//! CircuitBreakerAutoTransitionStateMachineTest, SlidingTimeWindowMetricsTest). Expected
//! numbers come from the rules and from those tests, not from this engine's output.

use resilience_sim::policy::circuit_breaker::{
    CircuitBreaker, CircuitBreakerConfig, CircuitBreakerEvent, OpenWaitFunction, SlidingWindowType,
    State, WindowCell,
};
use resilience_sim::scenario::breaker_script::{parse_breaker_script, run_breaker_script};

const FAILURE: &str = "IOException";

fn breaker(config: CircuitBreakerConfig) -> CircuitBreaker {
    CircuitBreaker::new(config).expect("valid config")
}

/// COUNT_BASED window of `size`, minimum `min`, 50 % thresholds, 5 s wait, 3 trials.
fn count_based(size: u32, min: u32) -> CircuitBreakerConfig {
    CircuitBreakerConfig {
        sliding_window_size: size,
        minimum_number_of_calls: min,
        permitted_number_of_calls_in_half_open_state: 3,
        wait_duration_in_open_state: 5_000,
        ..CircuitBreakerConfig::default()
    }
}

/// The setUp of Resilience4j's CircuitBreakerStateMachineTest.
fn r4j_state_machine_test_config() -> CircuitBreakerConfig {
    CircuitBreakerConfig {
        failure_rate_threshold: 50.0,
        permitted_number_of_calls_in_half_open_state: 4,
        slow_call_duration_threshold: 4_000,
        slow_call_rate_threshold: 50.0,
        max_wait_duration_in_half_open_state: 1_000,
        sliding_window_type: SlidingWindowType::TimeBased,
        sliding_window_size: 20,
        minimum_number_of_calls: 5,
        wait_duration_in_open_state: 5_000,
        ignore_exceptions: vec!["NumberFormatException".into()],
        ..CircuitBreakerConfig::default()
    }
}

fn fail(cb: &mut CircuitBreaker, now: u64) {
    cb.on_error(now, 0, FAILURE);
}

fn succeed(cb: &mut CircuitBreaker, now: u64) {
    cb.on_success(now, 0);
}

/// (failure_rate, successful, buffered, failed, not_permitted) as R4j's
/// assertCircuitBreakerMetricsEqualTo checks them.
fn r4j_metrics(cb: &CircuitBreaker) -> (f32, u32, u32, u32, u64) {
    let m = cb.metrics();
    (
        m.failure_rate,
        m.successful,
        m.buffered,
        m.failed,
        m.not_permitted,
    )
}

fn transitions(events: &[CircuitBreakerEvent]) -> Vec<(u64, State, State)> {
    events
        .iter()
        .filter_map(|e| match *e {
            CircuitBreakerEvent::StateTransition { at, from, to } => Some((at, from, to)),
            _ => None,
        })
        .collect()
}

fn count(events: &[CircuitBreakerEvent], pred: impl Fn(&CircuitBreakerEvent) -> bool) -> usize {
    events.iter().filter(|e| pred(e)).count()
}

/// Trips a breaker built from `config` at `now` with failures; returns it OPEN.
fn opened(config: CircuitBreakerConfig, now: u64) -> CircuitBreaker {
    let mut cb = breaker(config);
    while cb.state() == State::Closed {
        fail(&mut cb, now);
    }
    assert_eq!(cb.state(), State::Open);
    cb.drain_events();
    cb
}

// ---------------------------------------------------------------------------------------
// Defaults and validation
// ---------------------------------------------------------------------------------------

#[test]
fn default_breaker_needs_100_calls_and_trips_at_50_percent() {
    let mut cb = breaker(CircuitBreakerConfig::default());
    for t in 0..50 {
        succeed(&mut cb, t);
    }
    for t in 50..99 {
        fail(&mut cb, t);
    }
    // 99 outcomes: below minimumNumberOfCalls = 100, the rate is not computable.
    assert_eq!(cb.state(), State::Closed);
    assert_eq!(cb.metrics().failure_rate, -1.0);
    assert_eq!(cb.metrics().buffered, 99);
    fail(&mut cb, 99); // 50 of 100 = 50 %
    assert_eq!(cb.state(), State::Open);
    assert_eq!(cb.metrics().failure_rate, 50.0);
    // Default wait 60 s, no automatic transition.
    assert_eq!(cb.open_wait_remaining(99), Some(60_000));
}

#[test]
fn validation_follows_the_builder() {
    let bad = |edit: fn(&mut CircuitBreakerConfig), field: &str| {
        let mut c = CircuitBreakerConfig::default();
        edit(&mut c);
        let err = CircuitBreaker::new(c).expect_err(field);
        assert_eq!(err.field, field);
        assert!(!err.message.is_empty());
    };
    bad(|c| c.failure_rate_threshold = 0.0, "failureRateThreshold");
    bad(|c| c.failure_rate_threshold = 100.5, "failureRateThreshold");
    bad(
        |c| c.slow_call_rate_threshold = 0.0,
        "slowCallRateThreshold",
    );
    bad(
        |c| c.slow_call_duration_threshold = 0,
        "slowCallDurationThreshold",
    );
    bad(|c| c.sliding_window_size = 0, "slidingWindowSize");
    bad(|c| c.minimum_number_of_calls = 0, "minimumNumberOfCalls");
    bad(
        |c| c.permitted_number_of_calls_in_half_open_state = 0,
        "permittedNumberOfCallsInHalfOpenState",
    );
    bad(
        |c| c.wait_duration_in_open_state = 0,
        "waitDurationInOpenState",
    );
    bad(
        |c| c.transition_to_state_after_wait_duration = State::HalfOpen,
        "transitionToStateAfterWaitDuration",
    );
    bad(
        |c| {
            c.wait_interval_function_in_open_state = Some(OpenWaitFunction::Exponential {
                initial: 0,
                multiplier: 2.0,
                max: None,
            })
        },
        "waitIntervalFunctionInOpenState",
    );
    // 100 % is allowed for both thresholds (the builder refuses only > 100 and <= 0).
    let ok = CircuitBreakerConfig {
        failure_rate_threshold: 100.0,
        transition_to_state_after_wait_duration: State::Closed,
        ..CircuitBreakerConfig::default()
    };
    assert!(CircuitBreaker::new(ok).is_ok());
}

// ---------------------------------------------------------------------------------------
// Windows
// ---------------------------------------------------------------------------------------

#[test]
fn count_based_window_holds_the_last_n_outcomes_whatever_their_age() {
    let mut config = count_based(5, 5);
    config.failure_rate_threshold = 60.0;
    let mut cb = breaker(config);
    fail(&mut cb, 0);
    fail(&mut cb, 1);
    for t in 2..5 {
        succeed(&mut cb, t);
    }
    assert_eq!(cb.metrics().failure_rate, 40.0);
    // An hour later the oldest outcome is pushed out by the next, not by age.
    cb.advance_to(3_600_000);
    assert_eq!(cb.metrics().buffered, 5);
    succeed(&mut cb, 3_600_000);
    let m = cb.metrics();
    assert_eq!((m.buffered, m.failed, m.failure_rate), (5, 1, 20.0));
    use WindowCell::*;
    assert_eq!(
        cb.window_cells(),
        [Failure, Success, Success, Success, Success]
    );
}

/// Resilience4j: shouldOpenAfterFailureRateThresholdExceeded2 (TIME_BASED, 20 s, min 5).
#[test]
fn time_based_window_counts_outcomes_over_seconds() {
    let mut cb = breaker(r4j_state_machine_test_config());
    succeed(&mut cb, 0);
    succeed(&mut cb, 1_000);
    succeed(&mut cb, 2_000);
    fail(&mut cb, 3_000);
    fail(&mut cb, 4_000);
    assert_eq!(cb.state(), State::Closed); // 2 of 5 = 40 %
    cb.advance_to(5_000);
    assert_eq!(cb.state(), State::Closed);
    fail(&mut cb, 5_000); // 3 of 6 = 50 %
    assert_eq!(cb.state(), State::Open);
}

/// Buckets are aligned to whole seconds and leave whole.
#[test]
fn time_based_buckets_align_to_whole_seconds_and_leave_at_once() {
    let config = CircuitBreakerConfig {
        sliding_window_type: SlidingWindowType::TimeBased,
        sliding_window_size: 2,
        minimum_number_of_calls: 10,
        ..CircuitBreakerConfig::default()
    };
    let mut cb = breaker(config);
    fail(&mut cb, 999); // second 0
    succeed(&mut cb, 1_000); // second 1
    cb.advance_to(1_999);
    assert_eq!(cb.metrics().buffered, 2);
    // At 2.000 s the window covers seconds 1 and 2: second 0 leaves, though its outcome
    // is only 1001 ms old.
    cb.advance_to(2_000);
    assert_eq!((cb.metrics().buffered, cb.metrics().failed), (1, 0));
    cb.advance_to(2_999);
    assert_eq!(cb.metrics().buffered, 1);
    cb.advance_to(3_000);
    assert_eq!(cb.metrics().buffered, 0);
}

/// Resilience4j: SlidingTimeWindowMetricsTest.shouldClearSlidingTimeWindowMetrics, through
/// the breaker (5 s window), with its mock clock's start as 0.
#[test]
fn time_based_window_clears_after_its_length() {
    let config = CircuitBreakerConfig {
        sliding_window_type: SlidingWindowType::TimeBased,
        sliding_window_size: 5,
        minimum_number_of_calls: 100,
        slow_call_duration_threshold: 500,
        ..CircuitBreakerConfig::default()
    };
    let mut cb = breaker(config);
    cb.on_error(0, 100, FAILURE);
    cb.on_success(100, 100);
    cb.on_error(800, 1_000, FAILURE); // slow error
    let m = cb.metrics();
    assert_eq!(
        (m.buffered, m.successful, m.failed, m.slow_failed),
        (3, 1, 2, 1)
    );
    cb.advance_to(4_800);
    assert_eq!(cb.metrics().buffered, 3);
    cb.advance_to(5_800);
    assert_eq!(cb.metrics().buffered, 0);
    cb.on_success(5_900, 100);
    assert_eq!(cb.metrics().buffered, 1);
    cb.on_success(10_900, 100);
    assert_eq!(cb.metrics().buffered, 1);
}

#[test]
fn an_outcome_is_stamped_when_it_completes() {
    let config = CircuitBreakerConfig {
        sliding_window_type: SlidingWindowType::TimeBased,
        sliding_window_size: 1,
        minimum_number_of_calls: 10,
        ..CircuitBreakerConfig::default()
    };
    let mut cb = breaker(config);
    assert!(cb.try_acquire_permission(0));
    // Sent at 0, answered at 2.5 s: it belongs to second 2.
    cb.on_error(2_500, 2_500, FAILURE);
    cb.advance_to(2_999);
    assert_eq!(cb.metrics().failed, 1);
    cb.advance_to(3_000);
    assert_eq!(cb.metrics().failed, 0);
}

#[test]
fn count_based_minimum_is_clamped_to_the_window_size() {
    let mut cb = breaker(count_based(3, 100));
    fail(&mut cb, 0);
    fail(&mut cb, 0);
    assert_eq!(cb.metrics().failure_rate, -1.0);
    fail(&mut cb, 0);
    assert_eq!(cb.state(), State::Open);
    assert_eq!(cb.metrics().failure_rate, 100.0);
}

#[test]
fn time_based_minimum_is_not_clamped() {
    let config = CircuitBreakerConfig {
        sliding_window_type: SlidingWindowType::TimeBased,
        sliding_window_size: 1,
        minimum_number_of_calls: 3,
        ..CircuitBreakerConfig::default()
    };
    // Spread out: the 1 s window never holds 3 outcomes, so it never opens.
    let mut cb = breaker(config.clone());
    for t in (0..20_000).step_by(600) {
        fail(&mut cb, t);
    }
    assert_eq!(cb.state(), State::Closed);
    assert_eq!(cb.metrics().failure_rate, -1.0);
    // Three inside one second are enough.
    let mut cb = breaker(config);
    fail(&mut cb, 0);
    fail(&mut cb, 400);
    assert_eq!(cb.state(), State::Closed);
    fail(&mut cb, 800);
    assert_eq!(cb.state(), State::Open);
}

// ---------------------------------------------------------------------------------------
// Thresholds
// ---------------------------------------------------------------------------------------

#[test]
fn thresholds_are_inclusive() {
    let mut cb = breaker(count_based(4, 4));
    fail(&mut cb, 0);
    succeed(&mut cb, 0);
    succeed(&mut cb, 0);
    fail(&mut cb, 0); // exactly 50 %
    assert_eq!(cb.state(), State::Open);

    let mut cb = breaker(count_based(4, 4));
    fail(&mut cb, 0);
    for _ in 0..3 {
        succeed(&mut cb, 0);
    }
    assert_eq!(cb.state(), State::Closed); // 25 %
    assert_eq!(cb.metrics().failure_rate, 25.0);
}

#[test]
fn slow_call_rate_alone_is_enough() {
    let mut config = count_based(4, 4);
    config.slow_call_duration_threshold = 1_000;
    config.slow_call_rate_threshold = 50.0;
    let mut cb = breaker(config);
    cb.on_success(0, 1_001);
    cb.on_success(0, 10);
    cb.on_success(0, 10);
    assert_eq!(cb.state(), State::Closed);
    cb.on_success(0, 5_000);
    assert_eq!(cb.state(), State::Open);
    let m = cb.metrics();
    assert_eq!((m.failure_rate, m.slow_call_rate, m.slow), (0.0, 50.0, 2));
    let events = cb.drain_events();
    assert_eq!(
        count(
            &events,
            |e| matches!(e, CircuitBreakerEvent::SlowCallRateExceeded { rate, .. } if *rate == 50.0)
        ),
        1
    );
    assert_eq!(
        count(&events, |e| matches!(
            e,
            CircuitBreakerEvent::FailureRateExceeded { .. }
        )),
        0
    );
}

#[test]
fn slow_means_strictly_longer_and_a_slow_failure_counts_twice() {
    let mut config = count_based(10, 10);
    config.slow_call_duration_threshold = 800;
    let mut cb = breaker(config);
    cb.on_success(0, 800); // equal: not slow
    assert_eq!(cb.metrics().slow, 0);
    cb.on_success(0, 801);
    assert_eq!(cb.metrics().slow, 1);
    cb.on_error(0, 801, FAILURE);
    let m = cb.metrics();
    assert_eq!((m.buffered, m.failed, m.slow, m.slow_failed), (3, 1, 2, 1));
    use WindowCell::*;
    assert_eq!(cb.window_cells(), [Success, SlowSuccess, SlowFailure]);
}

/// Resilience4j: shouldOpenAfterSlowCallRateThresholdExceeded (4 s threshold, 50 %).
#[test]
fn r4j_opens_after_slow_call_rate_threshold_exceeded() {
    let mut cb = breaker(r4j_state_machine_test_config());
    for (is_error, duration) in [(true, 5_000), (false, 5_000), (true, 100), (false, 100)] {
        assert!(cb.try_acquire_permission(0));
        if is_error {
            cb.on_error(0, duration, "RuntimeException");
        } else {
            cb.on_success(0, duration);
        }
        assert_eq!(cb.state(), State::Closed);
    }
    cb.on_success(0, 5_000);
    assert_eq!(cb.state(), State::Open);
    let m = cb.metrics();
    assert_eq!((m.buffered, m.slow, m.slow_call_rate), (5, 3, 60.0));
    assert_eq!(m.failure_rate, 40.0); // below 50: the slow rate alone opened it
}

#[test]
fn thresholds_are_checked_on_outcomes_never_on_a_timer() {
    let config = CircuitBreakerConfig {
        sliding_window_type: SlidingWindowType::TimeBased,
        sliding_window_size: 2,
        minimum_number_of_calls: 2,
        failure_rate_threshold: 60.0,
        ..CircuitBreakerConfig::default()
    };
    let mut cb = breaker(config);
    succeed(&mut cb, 0);
    succeed(&mut cb, 0);
    fail(&mut cb, 1_000);
    fail(&mut cb, 1_000); // 2 of 4 = 50 %
    assert_eq!(cb.state(), State::Closed);
    // The successes of second 0 leave: the rate reads 100 %, but nothing was recorded.
    cb.advance_to(2_000);
    assert_eq!(cb.metrics().failure_rate, 100.0);
    assert_eq!(cb.state(), State::Closed);
    // The next outcome, even a success, is checked: 2 of 3 = 66.7 % >= 60 %.
    succeed(&mut cb, 2_000);
    assert_eq!(cb.state(), State::Open);
}

// ---------------------------------------------------------------------------------------
// CLOSED -> OPEN and OPEN
// ---------------------------------------------------------------------------------------

/// Resilience4j: shouldOpenAfterFailureRateThresholdExceeded (a window of 5 outcomes).
#[test]
fn r4j_opens_on_the_fifth_call_at_60_percent() {
    let mut cb = breaker(r4j_state_machine_test_config());
    assert!(cb.try_acquire_permission(0));
    assert_eq!(r4j_metrics(&cb), (-1.0, 0, 0, 0, 0));
    for (i, expected) in [(-1.0, 0, 1, 1, 0), (-1.0, 0, 2, 2, 0), (-1.0, 0, 3, 3, 0)]
        .into_iter()
        .enumerate()
    {
        assert!(cb.try_acquire_permission(0), "call {i}");
        cb.on_error(0, 0, "RuntimeException");
        assert_eq!(cb.state(), State::Closed);
        assert_eq!(r4j_metrics(&cb), expected);
    }
    assert!(cb.try_acquire_permission(0));
    cb.on_success(0, 0);
    assert_eq!(r4j_metrics(&cb), (-1.0, 1, 4, 3, 0));
    cb.on_success(0, 0);
    assert_eq!(cb.state(), State::Open);
    assert_eq!(r4j_metrics(&cb), (60.0, 2, 5, 3, 0));
    let events = cb.drain_events();
    assert_eq!(
        count(
            &events,
            |e| matches!(e, CircuitBreakerEvent::FailureRateExceeded { rate, .. } if *rate == 60.0)
        ),
        1
    );
    assert!(!cb.try_acquire_permission(0));
    assert_eq!(r4j_metrics(&cb), (60.0, 2, 5, 3, 1));
}

#[test]
fn tripping_reports_error_then_crossing_then_transition() {
    let mut cb = breaker(count_based(2, 2));
    fail(&mut cb, 10);
    cb.drain_events();
    fail(&mut cb, 20);
    let events = cb.drain_events();
    assert!(matches!(
        events[0],
        CircuitBreakerEvent::Error { at: 20, .. }
    ));
    assert_eq!(
        events[1],
        CircuitBreakerEvent::FailureRateExceeded {
            at: 20,
            rate: 100.0
        }
    );
    assert_eq!(
        events[2],
        CircuitBreakerEvent::StateTransition {
            at: 20,
            from: State::Closed,
            to: State::Open
        }
    );
    assert_eq!(events.len(), 3);
}

#[test]
fn open_keeps_the_tripped_window_and_records_late_answers_without_moving() {
    let mut cb = breaker(count_based(10, 4));
    for _ in 0..4 {
        assert!(cb.try_acquire_permission(0));
    }
    assert!(cb.try_acquire_permission(0)); // a fifth call, still in flight
    for t in 1..5 {
        fail(&mut cb, t);
    }
    assert_eq!(cb.state(), State::Open);
    assert_eq!(cb.metrics().failure_rate, 100.0);
    // The fifth call answers late: recorded in OPEN's window, no transition.
    succeed(&mut cb, 50);
    let m = cb.metrics();
    assert_eq!((m.buffered, m.failed, m.failure_rate), (5, 4, 80.0));
    cb.drain_events();
    fail(&mut cb, 60);
    assert_eq!(cb.state(), State::Open);
    assert!(transitions(&cb.drain_events()).is_empty());
}

#[test]
fn open_refuses_counts_and_reports() {
    let mut cb = opened(count_based(2, 2), 0);
    assert!(!cb.try_acquire_permission(100));
    assert!(!cb.try_acquire_permission(200));
    assert_eq!(cb.metrics().not_permitted, 2);
    assert_eq!(
        cb.drain_events(),
        [
            CircuitBreakerEvent::NotPermitted { at: 100 },
            CircuitBreakerEvent::NotPermitted { at: 200 }
        ]
    );
}

/// Resilience4j: shouldTransitionToHalfOpenAfterWaitDuration (5 s wait).
#[test]
fn r4j_lazy_half_open_after_the_wait() {
    let mut cb = breaker(r4j_state_machine_test_config());
    cb.transition_to(State::Open, 0).unwrap();
    assert_eq!(r4j_metrics(&cb), (-1.0, 0, 0, 0, 0));
    assert!(!cb.try_acquire_permission(0));
    assert_eq!(cb.state(), State::Open);
    assert!(!cb.try_acquire_permission(3_000));
    assert_eq!(r4j_metrics(&cb), (-1.0, 0, 0, 0, 2));
    assert!(cb.try_acquire_permission(6_000));
    assert_eq!(cb.state(), State::HalfOpen);
    assert_eq!(r4j_metrics(&cb), (-1.0, 0, 0, 0, 0));
}

#[test]
fn without_automatic_transition_the_first_call_strictly_after_the_wait_is_the_first_trial() {
    let mut cb = opened(count_based(2, 2), 1_000); // wait 5 s: ends at 6000
    cb.advance_to(60_000);
    assert_eq!(cb.state(), State::Open); // time alone does not move it
    let mut cb = opened(count_based(2, 2), 1_000);
    assert_eq!(cb.open_wait_remaining(1_000), Some(5_000));
    assert!(!cb.try_acquire_permission(6_000)); // exactly at the end: still refused
    assert!(cb.try_acquire_permission(6_001));
    assert_eq!(cb.state(), State::HalfOpen);
    assert_eq!(cb.half_open_trials(), Some((1, 3)));
    assert_eq!(
        transitions(&cb.drain_events()),
        [(6_001, State::Open, State::HalfOpen)]
    );
}

/// Resilience4j: CircuitBreakerAutoTransitionStateMachineTest (2 s wait, scheduled timer).
#[test]
fn automatic_transition_fires_at_the_end_of_the_wait() {
    let mut config = count_based(5, 5);
    config.permitted_number_of_calls_in_half_open_state = 3;
    config.automatic_transition_from_open_to_half_open_enabled = true;
    config.wait_duration_in_open_state = 2_000;
    let mut cb = breaker(config);
    cb.transition_to(State::Open, 500).unwrap();
    assert_eq!(cb.next_timer(), Some(2_500));
    cb.advance_to(2_499);
    assert_eq!(cb.state(), State::Open);
    cb.advance_to(10_000);
    assert_eq!(cb.state(), State::HalfOpen);
    // Stamped when the timer fired, not when we looked.
    assert_eq!(
        transitions(&cb.drain_events()),
        [
            (500, State::Closed, State::Open),
            (2_500, State::Open, State::HalfOpen)
        ]
    );
    assert_eq!(cb.half_open_trials(), Some((0, 3)));
}

#[test]
fn automatic_transition_lets_the_call_at_the_exact_end_through() {
    let mut config = count_based(2, 2);
    config.automatic_transition_from_open_to_half_open_enabled = true;
    let mut cb = opened(config, 0);
    assert!(cb.try_acquire_permission(5_000));
    assert_eq!(cb.state(), State::HalfOpen);
}

/// An exponential wait with a multiplier below 1 shrinks to 0 ms (each step truncates, as
/// Java's `(long) (x * multiplier)` does: 4, 2, 1, 0). Resilience4j's `OpenState`
/// constructor still schedules the automatic transition, 0 ms later: the breaker is
/// HALF_OPEN at the same instant, X -> OPEN published first, then OPEN -> HALF_OPEN. By
/// hand, OPEN -> OPEN is an internal transition and publishes nothing, so only the timer's
/// OPEN -> HALF_OPEN is seen.
#[test]
fn a_zero_wait_with_automatic_transition_goes_half_open_at_the_same_instant() {
    let mut config = count_based(2, 2);
    config.automatic_transition_from_open_to_half_open_enabled = true;
    config.wait_interval_function_in_open_state = Some(OpenWaitFunction::Exponential {
        initial: 4,
        multiplier: 0.5,
        max: None,
    });
    let mut cb = breaker(config);
    cb.transition_to(State::Open, 0).unwrap(); // attempt 1: 4 ms
    assert_eq!(cb.open_until(), Some(4));
    cb.transition_to(State::Open, 10).unwrap(); // HALF_OPEN since 4; attempt 2: 2 ms
    assert_eq!(cb.open_until(), Some(12));
    cb.transition_to(State::Open, 20).unwrap(); // HALF_OPEN since 12; attempt 3: 1 ms
    assert_eq!((cb.state(), cb.open_until()), (State::Open, Some(21)));
    cb.drain_events();
    cb.transition_to(State::Open, 20).unwrap(); // attempt 4: 0 ms
    assert_eq!((cb.state(), cb.attempts()), (State::HalfOpen, 4));
    assert_eq!(cb.half_open_trials(), Some((0, 3)));
    assert_eq!(
        transitions(&cb.drain_events()),
        [(20, State::Open, State::HalfOpen)]
    );
    cb.transition_to(State::Open, 30).unwrap(); // attempt 5: 0 ms
    assert_eq!((cb.state(), cb.attempts()), (State::HalfOpen, 5));
    assert_eq!(
        transitions(&cb.drain_events()),
        [
            (30, State::HalfOpen, State::Open),
            (30, State::Open, State::HalfOpen)
        ]
    );
}

// ---------------------------------------------------------------------------------------
// The growing wait
// ---------------------------------------------------------------------------------------

/// Resilience4j: shouldTransitionToHalfOpenAfterWaitInterval (exponential from 5 s, x1.5).
#[test]
fn r4j_wait_interval_function_grows_with_each_reopening() {
    let config = CircuitBreakerConfig {
        failure_rate_threshold: 50.0,
        sliding_window_size: 5,
        permitted_number_of_calls_in_half_open_state: 4,
        wait_interval_function_in_open_state: Some(OpenWaitFunction::Exponential {
            initial: 5_000,
            multiplier: 1.5,
            max: None,
        }),
        ..CircuitBreakerConfig::default()
    };
    let mut cb = breaker(config);
    cb.transition_to(State::Open, 0).unwrap();
    assert_eq!(cb.attempts(), 1);
    assert!(!cb.try_acquire_permission(0));
    assert!(!cb.try_acquire_permission(3_000));
    assert_eq!(r4j_metrics(&cb), (-1.0, 0, 0, 0, 2));
    assert!(cb.try_acquire_permission(6_000));
    assert_eq!(cb.state(), State::HalfOpen);
    cb.transition_to(State::Open, 6_000).unwrap();
    assert_eq!(cb.attempts(), 2); // wait 7.5 s
    assert!(!cb.try_acquire_permission(12_000));
    assert_eq!(cb.state(), State::Open);
    assert!(cb.try_acquire_permission(17_000));
    assert_eq!(cb.state(), State::HalfOpen);
}

#[test]
fn attempts_count_failed_recoveries_and_reset_on_close() {
    let mut config = count_based(2, 2);
    config.permitted_number_of_calls_in_half_open_state = 1;
    config.wait_interval_function_in_open_state = Some(OpenWaitFunction::Exponential {
        initial: 1_000,
        multiplier: 2.0,
        max: Some(3_000),
    });
    let mut cb = opened(config, 0);
    assert_eq!((cb.attempts(), cb.open_wait_remaining(0)), (1, Some(1_000)));
    // Trial fails: attempt 2, wait 2 s.
    assert!(cb.try_acquire_permission(1_001));
    fail(&mut cb, 1_001);
    assert_eq!((cb.state(), cb.attempts()), (State::Open, 2));
    assert_eq!(cb.open_wait_remaining(1_001), Some(2_000));
    // Again: attempt 3, 4 s capped at 3 s.
    assert!(cb.try_acquire_permission(3_002));
    fail(&mut cb, 3_002);
    assert_eq!(cb.attempts(), 3);
    assert_eq!(cb.open_wait_remaining(3_002), Some(3_000));
    // A successful trial closes it: attempt back to 0, the next opening waits 1 s again.
    assert!(cb.try_acquire_permission(6_003));
    succeed(&mut cb, 6_003);
    assert_eq!((cb.state(), cb.attempts()), (State::Closed, 0));
    fail(&mut cb, 7_000);
    fail(&mut cb, 7_000);
    assert_eq!((cb.state(), cb.attempts()), (State::Open, 1));
    assert_eq!(cb.open_wait_remaining(7_000), Some(1_000));
}

// ---------------------------------------------------------------------------------------
// HALF_OPEN
// ---------------------------------------------------------------------------------------

/// Resilience4j: shouldOnlyPermitFourCallsInHalfOpenState.
#[test]
fn r4j_half_open_hands_out_exactly_the_permitted_calls() {
    let mut cb = breaker(r4j_state_machine_test_config());
    for round in 0..2 {
        cb.transition_to(State::Open, 0).unwrap();
        cb.transition_to(State::HalfOpen, 0).unwrap();
        for _ in 0..4 {
            assert!(cb.try_acquire_permission(0), "round {round}");
        }
        assert!(!cb.try_acquire_permission(0));
        assert!(!cb.try_acquire_permission(0));
        assert_eq!(cb.metrics().not_permitted, 2);
        assert_eq!(cb.half_open_trials(), Some((4, 4)));
    }
}

#[test]
fn finished_trials_do_not_return_their_permits() {
    let mut cb = opened(
        CircuitBreakerConfig {
            permitted_number_of_calls_in_half_open_state: 3,
            minimum_number_of_calls: 10, // decide after min(10, 3) = 3 outcomes
            sliding_window_size: 10,
            wait_duration_in_open_state: 1_000,
            ..CircuitBreakerConfig::default()
        },
        0,
    );
    assert!(cb.try_acquire_permission(1_001));
    succeed(&mut cb, 1_002);
    assert!(cb.try_acquire_permission(1_003));
    assert!(cb.try_acquire_permission(1_003));
    assert!(!cb.try_acquire_permission(1_003));
    assert_eq!(cb.half_open_trials(), Some((3, 3)));
    assert_eq!(cb.state(), State::HalfOpen);
}

/// Resilience4j: shouldIncreaseCounterOnReleasePermission.
#[test]
fn r4j_release_permission_gives_a_permit_back() {
    let mut cb = breaker(r4j_state_machine_test_config());
    cb.transition_to(State::Open, 0).unwrap();
    cb.transition_to(State::HalfOpen, 0).unwrap();
    for _ in 0..4 {
        assert!(cb.try_acquire_permission(0));
    }
    assert!(!cb.try_acquire_permission(0));
    assert!(!cb.try_acquire_permission(0));
    cb.release_permission();
    assert!(cb.try_acquire_permission(0));
}

/// Resilience4j: shouldReleasePermissionWhenExceptionIgnored.
#[test]
fn r4j_ignored_exception_releases_the_half_open_permit() {
    let mut cb = breaker(r4j_state_machine_test_config());
    cb.transition_to(State::Open, 0).unwrap();
    cb.transition_to(State::HalfOpen, 0).unwrap();
    for i in 1..=3 {
        assert!(cb.try_acquire_permission(0));
        cb.on_success(0, 0);
        assert_eq!(cb.state(), State::HalfOpen);
        assert_eq!(r4j_metrics(&cb), (-1.0, i, i, 0, 0));
    }
    assert!(cb.try_acquire_permission(0));
    cb.on_error(0, 0, "NumberFormatException");
    assert_eq!(cb.state(), State::HalfOpen);
    assert_eq!(r4j_metrics(&cb), (-1.0, 3, 3, 0, 0));
    assert_eq!(cb.half_open_trials(), Some((3, 4)));
    assert!(cb.try_acquire_permission(0));
    cb.on_error(0, 0, "RuntimeException"); // 1 of 4 = 25 %
    assert_eq!(cb.state(), State::Closed);
    assert_eq!(r4j_metrics(&cb), (-1.0, 0, 0, 0, 0));
}

/// Resilience4j: shouldIgnoreExceptionsAndThenTransitionToClosed.
#[test]
fn r4j_four_ignored_then_four_successes_close() {
    let mut cb = breaker(r4j_state_machine_test_config());
    cb.transition_to(State::Open, 0).unwrap();
    cb.transition_to(State::HalfOpen, 0).unwrap();
    for _ in 0..4 {
        assert!(cb.try_acquire_permission(0));
        cb.on_error(0, 0, "NumberFormatException");
        assert_eq!(cb.state(), State::HalfOpen);
    }
    assert_eq!(r4j_metrics(&cb), (-1.0, 0, 0, 0, 0));
    for _ in 0..3 {
        assert!(cb.try_acquire_permission(0));
        cb.on_success(0, 0);
        assert_eq!(cb.state(), State::HalfOpen);
    }
    assert_eq!(r4j_metrics(&cb), (-1.0, 3, 3, 0, 0));
    assert!(cb.try_acquire_permission(0));
    cb.on_success(0, 0);
    assert_eq!(cb.state(), State::Closed);
}

/// Resilience4j: shouldTransitionBackToOpenStateWhenFailureRateIsAboveThreshold.
#[test]
fn r4j_half_open_reopens_on_failures() {
    let mut cb = breaker(r4j_state_machine_test_config());
    cb.transition_to(State::Open, 0).unwrap();
    cb.transition_to(State::HalfOpen, 0).unwrap();
    assert_eq!(r4j_metrics(&cb), (-1.0, 0, 0, 0, 0));
    for is_error in [true, true, false, true] {
        assert!(cb.try_acquire_permission(0));
        if is_error {
            cb.on_error(0, 0, "RuntimeException");
        } else {
            cb.on_success(0, 0);
        }
    }
    assert_eq!(cb.state(), State::Open);
    assert_eq!(r4j_metrics(&cb), (75.0, 1, 4, 3, 0)); // OPEN keeps the trial window
}

/// Resilience4j: shouldTransitionBackToOpenStateWhenSlowCallRateIsAboveThreshold.
#[test]
fn r4j_half_open_reopens_on_slow_trials() {
    let mut cb = breaker(r4j_state_machine_test_config());
    cb.transition_to(State::Open, 0).unwrap();
    cb.transition_to(State::HalfOpen, 0).unwrap();
    for duration in [5_000, 5_000, 5_000, 1_000] {
        assert!(cb.try_acquire_permission(0));
        cb.on_success(0, duration);
    }
    assert_eq!(cb.state(), State::Open);
    let m = cb.metrics();
    assert_eq!((m.slow, m.slow_call_rate, m.failure_rate), (3, 75.0, 0.0));
}

/// Resilience4j: shouldTransitionBackToClosedStateWhenFailureIsBelowThreshold.
#[test]
fn r4j_half_open_closes_below_threshold_with_a_fresh_window() {
    let mut cb = breaker(r4j_state_machine_test_config());
    cb.transition_to(State::Open, 0).unwrap();
    cb.transition_to(State::HalfOpen, 0).unwrap();
    for is_error in [true, false, false, false] {
        assert!(cb.try_acquire_permission(0));
        if is_error {
            cb.on_error(0, 0, "RuntimeException");
        } else {
            cb.on_success(0, 0);
        }
    }
    assert!(cb.try_acquire_permission(0));
    assert_eq!(cb.state(), State::Closed);
    assert_eq!(r4j_metrics(&cb), (-1.0, 0, 0, 0, 0));
    cb.on_success(0, 0);
    assert_eq!(r4j_metrics(&cb), (-1.0, 1, 1, 0, 0));
}

#[test]
fn half_open_decides_after_min_of_minimum_calls_and_permitted() {
    let config = CircuitBreakerConfig {
        sliding_window_size: 2,
        minimum_number_of_calls: 2,
        permitted_number_of_calls_in_half_open_state: 5,
        wait_duration_in_open_state: 1_000,
        ..CircuitBreakerConfig::default()
    };
    // Two successful trials of five permitted are enough to close.
    let mut cb = opened(config.clone(), 0);
    assert!(cb.try_acquire_permission(1_001));
    assert!(cb.try_acquire_permission(1_001));
    succeed(&mut cb, 1_002);
    assert_eq!(cb.state(), State::HalfOpen);
    succeed(&mut cb, 1_003);
    assert_eq!(cb.state(), State::Closed);
    // A rate equal to the threshold is not "strictly below": 1 of 2 = 50 % reopens.
    let mut cb = opened(config, 0);
    assert!(cb.try_acquire_permission(1_001));
    succeed(&mut cb, 1_002);
    fail(&mut cb, 1_003);
    assert_eq!(cb.state(), State::Open);
    assert_eq!(cb.attempts(), 2);
}

/// Resilience4j: circuitBreakerTransitionsToOpenAfterWaitDurationInHalfOpenState (1 s).
#[test]
fn max_wait_in_half_open_reopens_by_timer() {
    let mut cb = breaker(r4j_state_machine_test_config());
    cb.transition_to(State::Open, 0).unwrap();
    cb.transition_to(State::HalfOpen, 100).unwrap();
    assert!(cb.try_acquire_permission(100));
    cb.advance_to(1_099);
    assert_eq!(cb.state(), State::HalfOpen);
    cb.advance_to(2_100);
    assert_eq!(cb.state(), State::Open);
    assert_eq!(cb.attempts(), 2);
    // The new wait (5 s) starts when the timer fired, at 1100.
    assert_eq!(cb.open_wait_remaining(2_100), Some(4_000));
    assert_eq!(
        transitions(&cb.drain_events()).last(),
        Some(&(1_100, State::HalfOpen, State::Open))
    );
}

/// Resilience4j: circuitBreakerTransitionsToClosedAfterWaitDurationInHalfOpenState.
#[test]
fn max_wait_in_half_open_can_close_instead() {
    let config = CircuitBreakerConfig {
        max_wait_duration_in_half_open_state: 1_000,
        transition_to_state_after_wait_duration: State::Closed,
        ..CircuitBreakerConfig::default()
    };
    let mut cb = breaker(config);
    cb.transition_to(State::Open, 0).unwrap();
    cb.transition_to(State::HalfOpen, 0).unwrap();
    cb.advance_to(2_000);
    assert_eq!(cb.state(), State::Closed);
    assert_eq!(cb.attempts(), 0);
}

#[test]
fn timers_chain_in_time_order_within_one_advance() {
    let mut config = count_based(2, 2);
    config.wait_duration_in_open_state = 1_000;
    config.automatic_transition_from_open_to_half_open_enabled = true;
    config.max_wait_duration_in_half_open_state = 500;
    let mut cb = opened(config, 0);
    cb.advance_to(3_100);
    // OPEN 0 -> HALF_OPEN 1000 -> OPEN 1500 -> HALF_OPEN 2500 -> OPEN 3000.
    assert_eq!(
        transitions(&cb.drain_events()),
        [
            (1_000, State::Open, State::HalfOpen),
            (1_500, State::HalfOpen, State::Open),
            (2_500, State::Open, State::HalfOpen),
            (3_000, State::HalfOpen, State::Open),
        ]
    );
    assert_eq!(cb.attempts(), 3);
}

#[test]
fn zero_max_wait_keeps_half_open_forever() {
    let mut cb = opened(count_based(2, 2), 0);
    assert!(cb.try_acquire_permission(5_001));
    cb.advance_to(u64::MAX / 2);
    assert_eq!(cb.state(), State::HalfOpen);
}

// ---------------------------------------------------------------------------------------
// Manual states and transitions
// ---------------------------------------------------------------------------------------

/// Resilience4j: shouldDisableCircuitBreaker.
#[test]
fn disabled_permits_everything_and_records_nothing() {
    let mut cb = breaker(r4j_state_machine_test_config());
    cb.transition_to(State::Disabled, 0).unwrap();
    assert_eq!(cb.state(), State::Disabled);
    for _ in 0..5 {
        assert!(cb.try_acquire_permission(0));
        cb.on_error(0, 0, "RuntimeException");
    }
    cb.on_success(0, 0);
    assert_eq!(r4j_metrics(&cb), (-1.0, 0, 0, 0, 0));
    // Only the transition was reported: DISABLED does not publish call events.
    assert_eq!(
        cb.drain_events(),
        [CircuitBreakerEvent::StateTransition {
            at: 0,
            from: State::Closed,
            to: State::Disabled
        }]
    );
}

/// Resilience4j: shouldForceOpenCircuitBreaker.
#[test]
fn forced_open_refuses_everything_and_never_half_opens() {
    let mut cb = breaker(r4j_state_machine_test_config());
    cb.transition_to(State::ForcedOpen, 0).unwrap();
    assert!(!cb.try_acquire_permission(0));
    assert!(!cb.try_acquire_permission(6_000)); // after the 5 s wait
    assert_eq!(cb.state(), State::ForcedOpen);
    assert_eq!(r4j_metrics(&cb), (-1.0, 0, 0, 0, 2));
    assert_eq!(cb.attempts(), 1);
    // Refusals are counted but not published while FORCED_OPEN.
    assert_eq!(transitions(&cb.drain_events()).len(), 1);
    assert_eq!(cb.pending_events().len(), 0);
    cb.on_error(6_000, 0, FAILURE); // a late answer: nothing recorded
    assert_eq!(cb.metrics().buffered, 0);
}

/// Resilience4j: shouldRecordMetricsInMetricsOnlyState.
#[test]
fn metrics_only_records_reports_once_and_never_transitions() {
    let mut cb = breaker(r4j_state_machine_test_config());
    succeed(&mut cb, 0);
    cb.transition_to(State::MetricsOnly, 0).unwrap();
    assert_eq!(r4j_metrics(&cb), (-1.0, 0, 0, 0, 0)); // fresh window
    cb.drain_events();
    for (i, expected) in [(-1.0, 0, 1, 1, 0), (-1.0, 0, 2, 2, 0), (-1.0, 0, 3, 3, 0)]
        .into_iter()
        .enumerate()
    {
        assert!(cb.try_acquire_permission(0), "{i}");
        cb.on_error(0, 0, "RuntimeException");
        assert_eq!(r4j_metrics(&cb), expected);
    }
    succeed(&mut cb, 0);
    succeed(&mut cb, 0);
    assert_eq!(cb.state(), State::MetricsOnly);
    assert_eq!(r4j_metrics(&cb), (60.0, 2, 5, 3, 0));
    cb.on_error(0, 0, "RuntimeException");
    let events = cb.drain_events();
    assert_eq!(
        count(&events, |e| matches!(e, CircuitBreakerEvent::Error { .. })),
        4
    );
    assert_eq!(
        count(&events, |e| matches!(
            e,
            CircuitBreakerEvent::Success { .. }
        )),
        2
    );
    assert_eq!(
        count(&events, |e| matches!(
            e,
            CircuitBreakerEvent::FailureRateExceeded { .. }
        )),
        1
    );
    assert!(transitions(&events).is_empty());
}

/// Resilience4j: shouldPublishEachEventOnceInMetricOnlyState; re-armed only by entering
/// METRICS_ONLY anew (a new state object in Resilience4j).
#[test]
fn metrics_only_reports_each_crossing_once_until_reentered() {
    let mut cb = breaker(r4j_state_machine_test_config());
    cb.transition_to(State::MetricsOnly, 0).unwrap();
    let crossings = |cb: &mut CircuitBreaker| {
        let events = cb.drain_events();
        (
            count(&events, |e| {
                matches!(e, CircuitBreakerEvent::FailureRateExceeded { .. })
            }),
            count(&events, |e| {
                matches!(e, CircuitBreakerEvent::SlowCallRateExceeded { .. })
            }),
        )
    };
    for _ in 0..5 {
        cb.on_error(0, 5_000, "RuntimeException");
    }
    assert_eq!(crossings(&mut cb), (1, 1));
    // Dropping below and crossing again does not re-arm it.
    for _ in 0..20 {
        succeed(&mut cb, 0);
    }
    for _ in 0..40 {
        cb.on_error(0, 5_000, "RuntimeException");
    }
    assert_eq!(crossings(&mut cb), (0, 0));
    // METRICS_ONLY -> METRICS_ONLY: a fresh state, window and report flags.
    cb.transition_to(State::MetricsOnly, 0).unwrap();
    assert_eq!(cb.metrics().buffered, 0);
    for _ in 0..5 {
        cb.on_error(0, 5_000, "RuntimeException");
    }
    assert_eq!(crossings(&mut cb), (1, 1));
    assert_eq!(cb.state(), State::MetricsOnly);
}

/// Resilience4j: shouldNotAllowTransitionFromClosedToHalfOpen.
#[test]
fn closed_to_half_open_is_illegal() {
    let mut cb = breaker(r4j_state_machine_test_config());
    let err = cb.transition_to(State::HalfOpen, 0).unwrap_err();
    assert_eq!((err.from, err.to), (State::Closed, State::HalfOpen));
    assert_eq!(err.to_string(), "illegal transition CLOSED -> HALF_OPEN");
    assert_eq!(cb.state(), State::Closed);
    assert!(cb.drain_events().is_empty());
    cb.transition_to(State::MetricsOnly, 0).unwrap();
    assert!(cb.transition_to(State::Open, 0).is_err());
    assert!(cb.transition_to(State::HalfOpen, 0).is_err());
    assert!(cb.transition_to(State::ForcedOpen, 0).is_ok());
}

/// Resilience4j: circuitBreakerDoesNotPublishStateTransitionEventsForInternalTransitions.
#[test]
fn same_state_transitions_are_legal_silent_and_replace_the_state() {
    let mut cb = breaker(r4j_state_machine_test_config());
    let mut expected = 0;
    for to in [
        State::Open,
        State::HalfOpen,
        State::Disabled,
        State::MetricsOnly,
        State::Closed,
    ] {
        cb.transition_to(to, 0).unwrap();
        expected += 1;
        cb.transition_to(to, 0).unwrap();
        assert_eq!(transitions(cb.pending_events()).len(), expected, "{to}");
    }
    // CLOSED -> CLOSED empties the window.
    succeed(&mut cb, 0);
    cb.transition_to(State::Closed, 0).unwrap();
    assert_eq!(cb.metrics().buffered, 0);
    // OPEN -> OPEN counts an attempt and restarts the wait.
    cb.transition_to(State::Open, 1_000).unwrap();
    cb.transition_to(State::Open, 3_000).unwrap();
    assert_eq!(cb.attempts(), 2);
    assert_eq!(cb.open_wait_remaining(3_000), Some(5_000));
    // HALF_OPEN -> HALF_OPEN hands out a new set of permits.
    cb.transition_to(State::HalfOpen, 3_000).unwrap();
    for _ in 0..4 {
        assert!(cb.try_acquire_permission(3_000));
    }
    cb.transition_to(State::HalfOpen, 3_000).unwrap();
    assert_eq!(cb.half_open_trials(), Some((0, 4)));
}

#[test]
fn open_inherits_the_window_of_the_state_it_replaces() {
    let mut cb = breaker(count_based(10, 10));
    fail(&mut cb, 0);
    succeed(&mut cb, 0);
    cb.transition_to(State::Open, 0).unwrap();
    assert_eq!((cb.metrics().buffered, cb.metrics().failed), (2, 1));
    assert_eq!(
        cb.window_cells(),
        [WindowCell::Failure, WindowCell::Success]
    );
}

/// Resilience4j: shouldResetMetrics, shouldResetToClosedState.
#[test]
fn reset_goes_back_to_closed_with_a_fresh_window() {
    let mut cb = breaker(r4j_state_machine_test_config());
    succeed(&mut cb, 0);
    fail(&mut cb, 0);
    assert_eq!(r4j_metrics(&cb), (-1.0, 1, 2, 1, 0));
    cb.drain_events();
    cb.reset(10);
    assert_eq!(r4j_metrics(&cb), (-1.0, 0, 0, 0, 0));
    assert_eq!(cb.drain_events(), [CircuitBreakerEvent::Reset { at: 10 }]);

    cb.transition_to(State::Open, 20).unwrap();
    cb.drain_events();
    cb.reset(30);
    assert_eq!((cb.state(), cb.attempts()), (State::Closed, 0));
    assert_eq!(
        cb.drain_events(),
        [
            CircuitBreakerEvent::StateTransition {
                at: 30,
                from: State::Open,
                to: State::Closed
            },
            CircuitBreakerEvent::Reset { at: 30 }
        ]
    );
}

/// Resilience4j's `reset()` swaps in a CLOSED state without the hook that cancels the
/// replaced state's timer: HALF_OPEN's `maxWaitDurationInHalfOpenState` timer (1 s, to
/// OPEN) still fires at 1,000 ms and opens the reset breaker (CLOSED -> OPEN is legal),
/// counting attempt 1, so the wait is `waitDurationInOpenState` (5 s, no automatic
/// transition: the first call after 6,000 ms is let through as a trial).
#[test]
fn reset_leaves_the_half_open_timer_armed() {
    let mut cb = breaker(r4j_state_machine_test_config()); // maxWait 1 s -> OPEN
    cb.transition_to(State::Open, 0).unwrap();
    cb.transition_to(State::HalfOpen, 0).unwrap();
    cb.reset(500);
    assert_eq!(
        cb.left_armed_timers().collect::<Vec<_>>(),
        [(1_000, State::Open)]
    );
    assert_eq!(
        cb.next_left_armed_timer(State::Closed),
        Some((1_000, State::Open))
    );
    cb.drain_events();
    cb.advance_to(999);
    assert_eq!(cb.state(), State::Closed);
    cb.advance_to(1_000);
    assert_eq!((cb.state(), cb.attempts()), (State::Open, 1));
    assert_eq!(
        cb.drain_events(),
        [CircuitBreakerEvent::StateTransition {
            at: 1_000,
            from: State::Closed,
            to: State::Open
        }]
    );
    assert_eq!(cb.left_armed_timers().count(), 0);
    assert!(!cb.try_acquire_permission(6_000));
    assert!(cb.try_acquire_permission(6_001));
    assert_eq!(cb.state(), State::HalfOpen);
}

/// The automatic OPEN -> HALF_OPEN timer a reset leaves asks for HALF_OPEN, which CLOSED
/// may not go to: nothing happens. From FORCED_OPEN it may: a breaker reset and then forced
/// open goes half-open when the old wait ends.
#[test]
fn reset_leaves_the_open_timer_armed() {
    let config = CircuitBreakerConfig {
        automatic_transition_from_open_to_half_open_enabled: true,
        wait_duration_in_open_state: 2_000,
        ..CircuitBreakerConfig::default()
    };
    let mut cb = breaker(config.clone());
    cb.transition_to(State::Open, 0).unwrap();
    cb.reset(100);
    cb.advance_to(10_000);
    assert_eq!(cb.state(), State::Closed);

    let mut cb = breaker(config);
    cb.transition_to(State::Open, 0).unwrap();
    cb.reset(100);
    cb.transition_to(State::ForcedOpen, 200).unwrap();
    cb.advance_to(1_999);
    assert_eq!(cb.state(), State::ForcedOpen);
    cb.advance_to(2_000);
    assert_eq!(cb.state(), State::HalfOpen);
}

// ---------------------------------------------------------------------------------------
// Classification
// ---------------------------------------------------------------------------------------

#[test]
fn ignore_wins_over_record_and_unlisted_exceptions_count_as_successes() {
    let config = CircuitBreakerConfig {
        record_exceptions: vec!["IOException".into(), "CardDeclinedException".into()],
        ignore_exceptions: vec!["CardDeclinedException".into()],
        ..count_based(10, 10)
    };
    let mut cb = breaker(config);
    cb.on_error(0, 0, "CardDeclinedException"); // in both lists: ignored
    assert_eq!(cb.metrics().buffered, 0);
    cb.on_error(0, 0, "IllegalStateException"); // in neither: a success
    assert_eq!((cb.metrics().buffered, cb.metrics().successful), (1, 1));
    cb.on_error(0, 0, "ConnectException"); // a subclass of IOException: recorded
    assert_eq!(cb.metrics().failed, 1);
    let events = cb.drain_events();
    assert!(matches!(
        events[0],
        CircuitBreakerEvent::IgnoredError { .. }
    ));
    assert!(matches!(events[1], CircuitBreakerEvent::Success { .. }));
    assert!(matches!(events[2], CircuitBreakerEvent::Error { .. }));
}

#[test]
fn an_empty_record_list_records_every_exception() {
    let mut cb = breaker(count_based(10, 10));
    for name in ["IOException", "HttpServerErrorException", "AnythingAtAll"] {
        cb.on_error(0, 0, name);
    }
    assert_eq!(cb.metrics().failed, 3);
}

// ---------------------------------------------------------------------------------------
// Time, events and accessors
// ---------------------------------------------------------------------------------------

#[test]
fn time_never_goes_backwards() {
    let mut cb = opened(count_based(2, 2), 10_000); // wait until 15000
    assert!(!cb.try_acquire_permission(15_000));
    assert!(!cb.try_acquire_permission(14_000)); // read as 15000: not after the wait
    assert_eq!(cb.now(), 15_000);
    assert!(cb.try_acquire_permission(15_001));
    let mut cb = opened(count_based(2, 2), 10_000);
    cb.advance_to(20_000);
    // An earlier time is read as "now" = 20000: the wait (until 15000) is over.
    assert!(cb.try_acquire_permission(1_000));
    assert_eq!(cb.now(), 20_000);
}

#[test]
fn event_recording_can_be_switched_off() {
    let mut cb = breaker(count_based(2, 2));
    cb.set_event_recording(false);
    fail(&mut cb, 0);
    fail(&mut cb, 0);
    assert!(!cb.try_acquire_permission(0));
    assert_eq!(cb.state(), State::Open);
    assert!(cb.drain_events().is_empty());
    assert_eq!(cb.metrics().not_permitted, 1);
}

#[test]
fn accessors_are_none_outside_their_state() {
    let mut cb = breaker(count_based(2, 2));
    assert_eq!(cb.open_wait_remaining(0), None);
    assert_eq!(cb.half_open_trials(), None);
    fail(&mut cb, 0);
    fail(&mut cb, 0);
    assert_eq!(cb.open_wait_remaining(2_000), Some(3_000));
    assert_eq!(cb.open_wait_remaining(9_000), Some(0));
    assert_eq!(cb.half_open_trials(), None);
}

// ---------------------------------------------------------------------------------------
// Breaker scripts
// ---------------------------------------------------------------------------------------

#[test]
fn script_trips_refuses_and_half_opens() {
    let script = parse_breaker_script(
        r#"{
          "config": {"slidingWindowSize": 2, "minimumNumberOfCalls": 2,
                     "waitDurationInOpenState": "1s", "permittedNumberOfCallsInHalfOpenState": 1},
          "steps": [
            {"acquire": {}},
            {"error": {"duration_ms": 0, "exception": "IOException"}},
            {"error": {"duration_ms": 0, "exception": "IOException"}},
            {"acquire": {}},
            {"advance_ms": 1000},
            {"acquire": {}},
            {"advance_ms": 1},
            {"acquire": {}},
            {"success": {"duration_ms": 0}}
          ]
        }"#,
    )
    .unwrap();
    let reports = run_breaker_script(&script).unwrap();
    let states: Vec<_> = reports.iter().map(|r| r.state).collect();
    use State::*;
    assert_eq!(
        states,
        [Closed, Closed, Open, Open, Open, Open, Open, HalfOpen, Closed]
    );
    let permitted: Vec<_> = reports.iter().map(|r| r.permitted).collect();
    assert_eq!(permitted[0], Some(true));
    assert_eq!(permitted[3], Some(false));
    assert_eq!(permitted[5], Some(false)); // at exactly 1000 ms: still waiting
    assert_eq!(permitted[7], Some(true));
    assert_eq!(permitted[8], None);
    assert_eq!(reports[2].failure_rate, 100.0);
    assert_eq!(reports[1].failure_rate, -1.0);
    assert_eq!(reports[5].not_permitted, 2);
    assert_eq!(reports[7].t_ms, 1_001);
    assert_eq!(reports[8].step, 8);
}

#[test]
fn script_reports_serialize_with_the_documented_fields() {
    let script = parse_breaker_script(
        r#"{"steps": [{"acquire": {}}, {"transition": "HALF_OPEN"}, {"success": {"duration_ms": 70000}}]}"#,
    )
    .unwrap();
    let reports = run_breaker_script(&script).unwrap();
    let json: Vec<serde_json::Value> = reports
        .iter()
        .map(|r| serde_json::to_value(r).unwrap())
        .collect();
    assert_eq!(json[0]["permitted"], true);
    assert_eq!(json[0]["state"], "CLOSED");
    assert_eq!(json[0]["failure_rate"], -1.0);
    assert!(json[0].get("error").is_none());
    assert_eq!(json[1]["error"], "illegal transition CLOSED -> HALF_OPEN");
    assert!(json[1].get("permitted").is_none());
    // 70 s is slower than the default 60 s threshold.
    assert_eq!(json[2]["slow"], 1);
    for key in [
        "step",
        "t_ms",
        "state",
        "failure_rate",
        "slow_call_rate",
        "buffered",
        "failed",
        "slow",
        "not_permitted",
    ] {
        assert!(json[2].get(key).is_some(), "{key}");
    }
}

#[test]
fn script_with_invalid_config_is_refused() {
    let script =
        parse_breaker_script(r#"{"config": {"failureRateThreshold": 0}, "steps": []}"#).unwrap();
    let err = run_breaker_script(&script).unwrap_err();
    assert_eq!(err.field, "failureRateThreshold");
}

#[test]
fn script_forced_open_and_reset() {
    let script = parse_breaker_script(
        r#"{"steps": [{"transition": "FORCED_OPEN"}, {"acquire": {}}, {"advance_ms": 120000},
                      {"acquire": {}}, {"release": {}}, {"reset": {}}, {"acquire": {}}]}"#,
    )
    .unwrap();
    let reports = run_breaker_script(&script).unwrap();
    assert_eq!(reports[3].state, State::ForcedOpen);
    assert_eq!(reports[3].permitted, Some(false));
    assert_eq!(reports[3].not_permitted, 2);
    assert_eq!(reports[5].state, State::Closed);
    assert_eq!(reports[5].not_permitted, 0);
    assert_eq!(reports[6].permitted, Some(true));
}
