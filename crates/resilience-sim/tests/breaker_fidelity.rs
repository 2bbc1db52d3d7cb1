//! The four differences issue 14 found by running `resilience-sim breaker` against
//! Resilience4j 2.4's `CircuitBreakerStateMachine`, each pinned with the values Resilience4j
//! gives. The expected numbers are derived from Resilience4j 2.4.0's source, cited at each
//! test (file and method), not from the engine's output.

use resilience_sim::exceptions::{self, Hierarchy};
use resilience_sim::policy::circuit_breaker::{
    BreakerError, CircuitBreaker, CircuitBreakerConfig, CircuitBreakerEvent, OpenWaitFunction,
    State,
};
use resilience_sim::policy::retry::{Retry, RetryClass, RetryConfig};
use resilience_sim::scenario::breaker_script::{
    parse_breaker_script, run_breaker_script, StepReport,
};
use resilience_sim::Outcome;

fn run(json: &str) -> Vec<StepReport> {
    run_breaker_script(&parse_breaker_script(json).unwrap()).unwrap()
}

fn count_based(size: u32) -> CircuitBreakerConfig {
    CircuitBreakerConfig {
        sliding_window_size: size,
        minimum_number_of_calls: size,
        permitted_number_of_calls_in_half_open_state: 2,
        wait_duration_in_open_state: 5_000,
        ..CircuitBreakerConfig::default()
    }
}

fn exponential(initial: u64, multiplier: f64) -> Option<OpenWaitFunction> {
    Some(OpenWaitFunction::Exponential {
        initial,
        multiplier,
        max: None,
    })
}

// ---------------------------------------------------------------------------------------
// 1. initialState
// ---------------------------------------------------------------------------------------

/// `CircuitBreakerStateMachine`'s constructor sets the state reference to
/// `getCircuitBreakerStateObjectFromState(config.getInitialState())` without publishing
/// anything: OPEN is `new OpenState(1, CircuitBreakerMetrics.forClosed(config))`, whose
/// constructor sets `retryAfterWaitDuration = clock.instant() + waitInterval(1)`;
/// `OpenState.tryAcquirePermission` permits only when `clock.instant().isAfter(...)`
/// (strictly), moving to HALF_OPEN; every refusal counts `onCallNotPermitted`. Late outcomes
/// go to the inherited CLOSED-size window (`OpenState.onError` -> `circuitBreakerMetrics`)
/// and never move the state.
#[test]
fn initial_state_open_waits_from_zero_with_a_closed_size_window() {
    let r = run(r#"{
        "config": {"slidingWindowSize": 4, "minimumNumberOfCalls": 4,
                   "waitDurationInOpenState": "5s", "initialState": "OPEN"},
        "steps": [
            {"acquire": {}},
            {"error": {"exception": "IOException"}},
            {"error": {"exception": "IOException"}},
            {"error": {"exception": "IOException"}},
            {"success": {}},
            {"advance_ms": 5000},
            {"acquire": {}},
            {"advance_ms": 1},
            {"acquire": {}}
        ]}"#);
    assert_eq!(r[0].state, State::Open);
    assert_eq!((r[0].permitted, r[0].not_permitted), (Some(false), 1));
    // Four late outcomes in a window of 4 (min 4): 3 of 4 failed = 75 %, and no move.
    assert_eq!(
        (r[4].state, r[4].buffered, r[4].failed, r[4].failure_rate),
        (State::Open, 4, 3, 75.0)
    );
    assert!(r.iter().all(|s| s.error.is_none()));
    // At 5000 ms the wait (0 + 5000) is not yet *after*: refused; at 5001 the first trial.
    assert_eq!((r[6].permitted, r[6].not_permitted), (Some(false), 2));
    assert_eq!((r[8].state, r[8].permitted), (State::HalfOpen, Some(true)));
    // No transition is published at creation.
    let cb = CircuitBreaker::new(CircuitBreakerConfig {
        initial_state: State::Open,
        ..count_based(4)
    })
    .unwrap();
    assert!(cb.pending_events().is_empty());
    assert_eq!(
        (cb.state(), cb.attempts(), cb.open_until()),
        (State::Open, 1, Some(5_000))
    );
}

/// With the automatic transition, `OpenState`'s constructor schedules `toHalfOpenState`
/// after `waitInterval(1)` = 2 s (as in `CircuitBreakerStateMachineTest.
/// circuitBreakerInitializeInOpenState`); the timer publishes OPEN -> HALF_OPEN.
#[test]
fn initial_state_open_with_the_automatic_transition_half_opens_at_the_wait() {
    let mut cb = CircuitBreaker::new(CircuitBreakerConfig {
        initial_state: State::Open,
        wait_duration_in_open_state: 2_000,
        automatic_transition_from_open_to_half_open_enabled: true,
        ..count_based(1)
    })
    .unwrap();
    cb.advance_to(1_999);
    assert_eq!(cb.state(), State::Open);
    cb.advance_to(2_000);
    assert_eq!(cb.state(), State::HalfOpen);
    assert_eq!(
        cb.drain_events(),
        [CircuitBreakerEvent::StateTransition {
            at: 2_000,
            from: State::Open,
            to: State::HalfOpen
        }]
    );
}

/// HALF_OPEN starts as `new HalfOpenState(1)`: its attempts are 1, so a failed trial opens
/// with `new OpenState(attempts() + 1, ...)` = attempt 2, whose wait is
/// `ofExponentialBackoff(1000, 2).apply(2)` = 2000 ms (`IntervalFunction.of`: iterate
/// `x -> (long) (x * 2)` from 1000, skip 1).
#[test]
fn initial_state_half_open_counts_as_attempt_one() {
    let mut cb = CircuitBreaker::new(CircuitBreakerConfig {
        initial_state: State::HalfOpen,
        wait_interval_function_in_open_state: exponential(1_000, 2.0),
        ..count_based(4)
    })
    .unwrap();
    assert_eq!(
        (cb.state(), cb.attempts(), cb.half_open_trials()),
        (State::HalfOpen, 1, Some((0, 2)))
    );
    for t in [10, 20] {
        assert!(cb.try_acquire_permission(t));
        cb.on_error(t, 0, "IOException");
    }
    assert_eq!((cb.state(), cb.attempts()), (State::Open, 2));
    assert_eq!(cb.open_until(), Some(20 + 2_000));
}

/// FORCED_OPEN starts as `new ForcedOpenState(1)`; `transitionToOpenState()` builds
/// `new OpenState(currentState.attempts() + 1, currentState.getMetrics())`: attempt 2,
/// wait `ofExponentialBackoff(1000, 3).apply(2)` = 3000 ms, and the FORCED_OPEN metrics
/// (a window of size 0, item 3 below). DISABLED starts as `new DisabledState()`: it permits
/// and records nothing. METRICS_ONLY may not go to HALF_OPEN (`StateTransition`'s table).
/// `reset()` builds `new ClosedState()`, whatever the initial state.
#[test]
fn initial_state_and_manual_transitions() {
    let r = run(r#"{
        "config": {"slidingWindowSize": 4, "minimumNumberOfCalls": 4, "initialState": "FORCED_OPEN",
                   "waitIntervalFunctionInOpenState": {"exponential": {"initial": "1s", "multiplier": 3}}},
        "steps": [
            {"acquire": {}},
            {"transition": "OPEN"},
            {"advance_ms": 3000},
            {"acquire": {}},
            {"advance_ms": 1},
            {"acquire": {}},
            {"reset": {}}
        ]}"#);
    assert_eq!(
        (r[0].state, r[0].permitted),
        (State::ForcedOpen, Some(false))
    );
    assert_eq!(r[1].state, State::Open);
    assert_eq!(r[1].not_permitted, 1, "OPEN inherits FORCED_OPEN's metrics");
    assert_eq!((r[3].permitted, r[3].state), (Some(false), State::Open));
    assert_eq!((r[5].permitted, r[5].state), (Some(true), State::HalfOpen));
    assert_eq!(r[6].state, State::Closed);

    let r = run(r#"{
        "config": {"initialState": "DISABLED", "slidingWindowSize": 2, "minimumNumberOfCalls": 2},
        "steps": [{"acquire": {}}, {"error": {"exception": "IOException"}},
                  {"error": {"exception": "IOException"}}]}"#);
    assert!(r
        .iter()
        .all(|s| s.state == State::Disabled && s.buffered == 0));

    let r = run(r#"{
        "config": {"initialState": "METRICS_ONLY"},
        "steps": [{"transition": "HALF_OPEN"}, {"transition": "CLOSED"}]}"#);
    assert_eq!(r[0].state, State::MetricsOnly);
    assert_eq!(
        r[0].error.as_deref(),
        Some("illegal transition METRICS_ONLY -> HALF_OPEN")
    );
    assert_eq!(r[1].state, State::Closed);
}

// ---------------------------------------------------------------------------------------
// 2. Exception names follow the class hierarchy
// ---------------------------------------------------------------------------------------

/// `CircuitBreakerConfig.Builder.createRecordExceptionPredicate` /
/// `createIgnoreFailurePredicate` -> `PredicateCreator.makePredicate`:
/// `exClass.isAssignableFrom(e.getClass())`; `CircuitBreakerStateMachine.handleThrowable`
/// checks the ignore predicate first, then records, else counts a success. The JDK puts
/// FileNotFoundException and EOFException under IOException, CancellationException under
/// IllegalStateException, ArithmeticException / ClassCastException /
/// UnsupportedOperationException under RuntimeException.
#[test]
fn exceptions_are_matched_through_the_jdk_hierarchy() {
    let r = run(r#"{
        "config": {"slidingWindowSize": 20, "minimumNumberOfCalls": 20,
                   "recordExceptions": ["java.io.IOException", "RuntimeException"],
                   "ignoreExceptions": ["IllegalStateException"]},
        "steps": [
            {"error": {"exception": "FileNotFoundException"}},
            {"error": {"exception": "java.io.EOFException"}},
            {"error": {"exception": "ArithmeticException"}},
            {"error": {"exception": "ClassCastException"}},
            {"error": {"exception": "UnsupportedOperationException"}},
            {"error": {"exception": "CancellationException"}},
            {"error": {"exception": "TimeoutException"}},
            {"error": {"exception": "BusinessException"}},
            {"error": {"exception": "SQLTimeoutException"}}
        ]}"#);
    // 5 recorded, CancellationException ignored (not buffered), TimeoutException,
    // BusinessException and SQLTimeoutException checked and not listed: successes.
    let last = r.last().unwrap();
    assert_eq!((last.buffered, last.failed), (8, 5));
    assert_eq!(
        r[5].buffered, r[4].buffered,
        "CancellationException is ignored"
    );
}

/// `CircuitBreakerExceptionHandlingTest.shouldRecordIOExceptionAsFailureAndBusinessException
/// AsSuccess`: with `recordExceptions(IOException.class)`, its `BusinessException extends
/// Exception` counts as a success: 1 failed, 1 successful, 2 buffered. A scenario may
/// declare it (or any class) with another parent; then `RuntimeException` covers it.
#[test]
fn business_exception_is_checked_unless_declared_and_declared_classes_have_parents() {
    let r = run(r#"{
        "config": {"slidingWindowSize": 5, "recordExceptions": ["IOException"]},
        "steps": [{"error": {"exception": "IOException"}},
                  {"error": {"exception": "BusinessException"}}]}"#);
    assert_eq!((r[1].failed, r[1].buffered), (1, 2));

    let r = run(r#"{
        "config": {"slidingWindowSize": 5, "recordExceptions": ["RuntimeException"],
                   "ignoreExceptions": ["PaymentException"],
                   "exceptions": {"BusinessException": "RuntimeException",
                                  "PaymentException": "RuntimeException",
                                  "com.shop.PaymentDeclinedException": "PaymentException"}},
        "steps": [{"error": {"exception": "BusinessException"}},
                  {"error": {"exception": "PaymentDeclinedException"}},
                  {"error": {"exception": "com.shop.PaymentDeclinedException"}}]}"#);
    assert_eq!((r[0].failed, r[0].buffered), (1, 1));
    assert_eq!(
        r[2].buffered, 1,
        "a subclass of an ignored class is ignored"
    );
}

/// Any other name is refused rather than guessed: a thrown one (its superclasses decide),
/// an unqualified listed one (Spring could not load it either), a declaration of a JDK
/// class, a parent that is nowhere. A fully qualified application class may be listed.
#[test]
fn unknown_names_are_refused_with_a_clear_error() {
    let script = parse_breaker_script(
        r#"{"steps": [{"success": {}}, {"error": {"exception": "NoSuchThingException"}}]}"#,
    )
    .unwrap();
    let e = run_breaker_script(&script).unwrap_err();
    assert_eq!(e.field, "steps[1].error.exception");
    assert!(e
        .message
        .contains("`NoSuchThingException` is not an exception this simulation knows"));
    assert!(
        e.message
            .contains(r#"{"NoSuchThingException": "RuntimeException"}"#),
        "{}",
        e.message
    );

    let refused = |config: CircuitBreakerConfig| config.validate().unwrap_err();
    let e = refused(CircuitBreakerConfig {
        record_exceptions: vec!["IOExeption".into()],
        ..CircuitBreakerConfig::default()
    });
    assert_eq!(e.field, "recordExceptions");
    let e = refused(CircuitBreakerConfig {
        ignore_exceptions: vec!["java.net.IOException".into()],
        ..CircuitBreakerConfig::default()
    });
    assert!(e.message.contains("java.io.IOException"), "{}", e.message);
    let e = refused(CircuitBreakerConfig {
        exceptions: [("IOException".into(), "RuntimeException".into())].into(),
        ..CircuitBreakerConfig::default()
    });
    assert_eq!(e.field, "exceptions");
    let e = refused(CircuitBreakerConfig {
        exceptions: [("PaymentException".into(), "ShopException".into())].into(),
        ..CircuitBreakerConfig::default()
    });
    assert!(
        e.message.contains("the parent of `PaymentException`"),
        "{}",
        e.message
    );
    assert!(CircuitBreakerConfig {
        record_exceptions: vec!["feign.FeignException".into()],
        ..CircuitBreakerConfig::default()
    }
    .validate()
    .is_ok());
}

/// One table serves the retry too (`RetryConfig.Builder` builds the same
/// `isAssignableFrom` predicates), and gives the Spring export its class names.
#[test]
fn the_retry_and_the_spring_names_use_the_same_table() {
    let retry = Retry::new(RetryConfig {
        retry_exceptions: vec!["java.io.IOException".into()],
        ignore_exceptions: vec!["FileNotFoundException".into()],
        ..RetryConfig::default()
    })
    .unwrap();
    assert_eq!(retry.classify(Outcome::ReadTimeout), RetryClass::Retryable);
    assert!(!retry.is_retryable(Outcome::Http5xx));
    assert!(RetryConfig {
        retry_exceptions: vec!["feign.FeignException".into()],
        ..RetryConfig::default()
    }
    .validate()
    .is_err());
    assert_eq!(
        exceptions::qualified_name("CancellationException"),
        Some("java.util.concurrent.CancellationException")
    );
    assert_eq!(
        exceptions::by_qualified_name(
            "org.springframework.web.client.HttpClientErrorException.NotFound"
        )
        .map(|c| c.name),
        Some("NotFoundException")
    );
    assert!(Hierarchy::table().is_assignable("SQLException", "SQLTimeoutException"));
}

// ---------------------------------------------------------------------------------------
// 3. A late outcome in an OPEN entered by hand from DISABLED or FORCED_OPEN
// ---------------------------------------------------------------------------------------

/// `transitionToOpenState()` builds `new OpenState(attempts + 1, currentState.getMetrics())`:
/// from DISABLED those are `CircuitBreakerMetrics.forDisabled` = a COUNT_BASED window of
/// size 0, with `minimumNumberOfCalls = min(config, 0)` = 0. `OpenState.onError` ->
/// `CircuitBreakerMetrics.onError` -> `FixedSizeSlidingWindowMetrics.record`:
/// `totalAggregation.record(...)` (counted), then `moveHeadIndexByOne()`:
/// `(headIndex + 1) % windowSize` with windowSize 0 throws `ArithmeticException: / by
/// zero`. `handleThrowable` has already published the error event. The rate is computable
/// from the first outcome (0 >= min 0): 1 failed of 1 = 100 %, then 1 of 2 = 50 %.
#[test]
fn a_late_outcome_in_open_from_disabled_throws_after_being_counted() {
    let r = run(r#"{
        "config": {"slidingWindowSize": 4, "minimumNumberOfCalls": 4,
                   "waitDurationInOpenState": "5s"},
        "steps": [
            {"transition": "DISABLED"},
            {"acquire": {}},
            {"transition": "OPEN"},
            {"error": {"exception": "IOException"}},
            {"success": {}},
            {"advance_ms": 5001},
            {"acquire": {}},
            {"error": {"exception": "IOException"}}
        ]}"#);
    let e = r[3].error.as_deref().unwrap();
    assert!(e.starts_with("ArithmeticException: / by zero"), "{e}");
    assert_eq!(
        (r[3].state, r[3].buffered, r[3].failed, r[3].failure_rate),
        (State::Open, 1, 1, 100.0)
    );
    assert!(r[4]
        .error
        .as_deref()
        .unwrap()
        .starts_with("ArithmeticException"));
    assert_eq!(
        (r[4].buffered, r[4].failed, r[4].failure_rate),
        (2, 1, 50.0)
    );
    // HALF_OPEN builds its own window (`forHalfOpen`): no error there.
    assert_eq!(r[6].state, State::HalfOpen);
    assert_eq!((r[7].error.as_deref(), r[7].buffered), (None, 1));

    // The same from FORCED_OPEN (`forForcedOpen`, size 0); the events were published
    // before the exception; an ignored exception never reaches the window.
    let mut cb = CircuitBreaker::new(CircuitBreakerConfig {
        ignore_exceptions: vec!["NumberFormatException".into()],
        ..count_based(4)
    })
    .unwrap();
    cb.transition_to(State::ForcedOpen, 0).unwrap();
    cb.transition_to(State::Open, 0).unwrap();
    cb.drain_events();
    assert_eq!(
        cb.try_on_error(1, 7, "IOException"),
        Err(BreakerError::DivisionByZero)
    );
    assert_eq!(cb.try_on_error(1, 7, "NumberFormatException"), Ok(()));
    assert_eq!(
        cb.drain_events()[0],
        CircuitBreakerEvent::Error {
            at: 1,
            duration: 7,
            exception: "IOException".into()
        }
    );
    // OPEN -> OPEN keeps the metrics, so still the zero-size window.
    cb.transition_to(State::Open, 2).unwrap();
    assert_eq!(cb.try_on_success(2, 0), Err(BreakerError::DivisionByZero));
    assert_eq!(cb.metrics().buffered, 2);
}

// ---------------------------------------------------------------------------------------
// 4. Configuration validation as the builder does it
// ---------------------------------------------------------------------------------------

/// `CircuitBreakerConfig.Builder.waitDurationInOpenState` and
/// `waitIntervalFunctionInOpenState` each increment `createWaitIntervalFunctionCounter`;
/// `build()` -> `validateWaitIntervalFunctionInOpenState` throws when it is above 1.
#[test]
fn wait_duration_and_wait_function_together_are_refused() {
    let e = parse_breaker_script(
        r#"{"config": {"waitDurationInOpenState": "5s",
            "waitIntervalFunctionInOpenState": {"exponential": {"initial": "1s", "multiplier": 2}}},
            "steps": []}"#,
    )
    .unwrap_err();
    assert!(
        e.contains("waitDurationInOpenState and waitIntervalFunctionInOpenState are both set"),
        "{e}"
    );
    // Either one alone is fine.
    for config in [
        r#"{"waitDurationInOpenState": "5s"}"#,
        r#"{"waitIntervalFunctionInOpenState": {"exponential": {"initial": "1s", "multiplier": 2}}}"#,
    ] {
        let json = format!(r#"{{"config": {config}, "steps": []}}"#);
        assert!(parse_breaker_script(&json).is_ok(), "{config}");
    }
}

/// `IntervalFunction.ofExponentialBackoff(initial, multiplier)` is
/// `of(initial, x -> (long) (x * multiplier))`: `checkInterval` on the initial interval
/// (and on the max), nothing on the multiplier. So 0.5, 0 and -1 are accepted: with
/// initial 1000 the waits are 1000, 500 / 1000, 0 / 1000, -1000. A wait of 0 ends at the
/// instant OPEN began (a request must come strictly after it); a negative one ends before
/// (`clock.instant().plus(-1000 ms)`), so a request at that same instant is already after.
#[test]
fn every_exponential_multiplier_resilience4j_accepts_is_accepted() {
    for (multiplier, waits) in [
        (0.5, [1_000, 500, 250]),
        (0.0, [1_000, 0, 0]),
        (-1.0, [1_000, -1_000, 1_000]),
        (1.0, [1_000, 1_000, 1_000]),
    ] {
        let function = exponential(1_000, multiplier).unwrap();
        let config = CircuitBreakerConfig {
            wait_interval_function_in_open_state: Some(function),
            ..count_based(1)
        };
        assert_eq!(config.validate(), Ok(()), "{multiplier}");
        for (attempt, wait) in (1..).zip(waits) {
            assert_eq!(
                function.signed_wait_for_attempt(attempt),
                wait,
                "{multiplier} #{attempt}"
            );
        }
    }
    let reopened_at = |multiplier: f64| {
        let mut cb = CircuitBreaker::new(CircuitBreakerConfig {
            wait_interval_function_in_open_state: exponential(1_000, multiplier),
            ..count_based(1)
        })
        .unwrap();
        cb.on_error(0, 0, "IOException"); // OPEN, attempt 1: 1000 ms
        assert!(cb.try_acquire_permission(1_001));
        cb.on_error(1_001, 0, "IOException"); // HALF_OPEN -> OPEN, attempt 2
        assert_eq!((cb.state(), cb.attempts()), (State::Open, 2));
        cb
    };
    let mut zero = reopened_at(0.0);
    assert!(!zero.try_acquire_permission(1_001));
    assert!(zero.try_acquire_permission(1_002));
    let mut negative = reopened_at(-1.0);
    assert!(negative.try_acquire_permission(1_001));
    assert_eq!(negative.state(), State::HalfOpen);
    // What the builder does check is still refused: an initial or a max below 1 ms.
    for function in [
        OpenWaitFunction::Exponential {
            initial: 0,
            multiplier: 2.0,
            max: None,
        },
        OpenWaitFunction::Exponential {
            initial: 1,
            multiplier: 2.0,
            max: Some(0),
        },
    ] {
        let e = CircuitBreakerConfig {
            wait_interval_function_in_open_state: Some(function),
            ..CircuitBreakerConfig::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.field, "waitIntervalFunctionInOpenState");
    }
}
