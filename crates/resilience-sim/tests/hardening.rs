//! Hostile inputs to the breaker (issue 14): the end of the clock, timers that would fire
//! billions of times, huge windows entered again and again. Each must finish with a report,
//! never a panic or a hang.

use resilience_sim::policy::circuit_breaker::{CircuitBreaker, CircuitBreakerConfig, State};
use resilience_sim::scenario::breaker_script::{
    parse_breaker_script, run_breaker_script, MAX_TIMERS_PER_STEP,
};

fn run(json: &str) -> Vec<resilience_sim::scenario::breaker_script::StepReport> {
    run_breaker_script(&parse_breaker_script(json).unwrap()).unwrap()
}

#[test]
fn a_count_based_window_records_at_the_last_millisecond() {
    let r = run(r#"{"config":{"slidingWindowSize":4},"steps":[
        {"advance_ms":18446744073709551615},
        {"error":{"duration_ms":1,"exception":"IOException"}}]}"#);
    assert_eq!(r[1].t_ms, u64::MAX);
    assert_eq!((r[1].buffered, r[1].failed), (1, 1));
    assert_eq!(r[1].state, State::Closed);
}

#[test]
fn a_time_based_window_records_at_the_last_millisecond() {
    let r = run(
        r#"{"config":{"slidingWindowType":"TIME_BASED","slidingWindowSize":10,"minimumNumberOfCalls":1},"steps":[
        {"error":{"duration_ms":1,"exception":"IOException"}},
        {"advance_ms":18446744073709551615},
        {"error":{"duration_ms":1,"exception":"IOException"}}]}"#,
    );
    // The first failure is far outside the last 10 seconds: only the second counts, and
    // 1 failure of 1 call opens the breaker (minimumNumberOfCalls 1, 100 % >= 50 %).
    assert_eq!(r[2].state, State::Open);
    assert_eq!(r[2].t_ms, u64::MAX);
}

#[test]
fn open_without_a_timer_stays_open_to_the_end_of_time() {
    // No automatic transition: only a call after the wait moves OPEN to HALF_OPEN, so an
    // advance alone leaves the breaker OPEN (it used to loop for ever here).
    let r = run(r#"{"steps":[{"transition":"OPEN"},{"advance_ms":18446744073709551615}]}"#);
    assert_eq!(r[1].state, State::Open);
    assert_eq!(r[1].t_ms, u64::MAX);
    assert_eq!(r[1].error, None);
}

#[test]
fn timers_at_the_end_of_time_fire_once() {
    let r = run(
        r#"{"config":{"automaticTransitionFromOpenToHalfOpenEnabled":true,
        "waitDurationInOpenState":1,"maxWaitDurationInHalfOpenState":1},"steps":[
        {"advance_ms":18446744073709551613},{"transition":"OPEN"},{"advance_ms":5}]}"#,
    );
    // OPEN at MAX - 2, HALF_OPEN at MAX - 1 (the 1 ms wait), back to OPEN at MAX (the 1 ms
    // HALF_OPEN limit), whose wait ends past the clock's end.
    assert_eq!(r[2].t_ms, u64::MAX);
    assert_eq!(r[2].state, State::Open);
    assert_eq!(r[2].error, None);
}

#[test]
fn millisecond_timers_over_years_stop_at_the_work_limit_and_say_so() {
    let r = run(
        r#"{"config":{"automaticTransitionFromOpenToHalfOpenEnabled":true,
        "waitDurationInOpenState":1,"maxWaitDurationInHalfOpenState":1},"steps":[
        {"transition":"OPEN"},{"advance_ms":1000000000000}]}"#,
    );
    let error = r[1].error.as_deref().expect("the limit is reported");
    assert!(error.contains(&MAX_TIMERS_PER_STEP.to_string()), "{error}");
    assert!(!error.contains('\n'));
    // One timer per millisecond (OPEN 1 ms, HALF_OPEN 1 ms): the clock stopped after
    // MAX_TIMERS_PER_STEP of them, far short of the 10^12 ms asked for.
    assert_eq!(r[1].t_ms, u64::from(MAX_TIMERS_PER_STEP));
    assert!(error.ends_with(&format!("{} ms", r[1].t_ms)), "{error}");
}

#[test]
fn a_million_trial_window_is_entered_a_thousand_times_without_filling_it() {
    let config = CircuitBreakerConfig {
        permitted_number_of_calls_in_half_open_state: 1_000_000,
        minimum_number_of_calls: 1,
        sliding_window_size: 1,
        wait_duration_in_open_state: 1,
        ..CircuitBreakerConfig::default()
    };
    let mut breaker = CircuitBreaker::new(config).unwrap();
    let mut now = 0;
    for _ in 0..1000 {
        breaker.transition_to(State::Open, now).unwrap();
        now += 2;
        // The first call after the wait moves OPEN to HALF_OPEN and is its first trial.
        assert!(breaker.try_acquire_permission(now));
        assert_eq!(breaker.state(), State::HalfOpen);
        breaker.on_error(now, 0, "IOException");
        assert_eq!(breaker.metrics().buffered, 1);
    }
}

mod sandbox_imports {
    use resilience_sim::policy::circuit_breaker::State;
    use resilience_sim::scenario::sandbox::BreakerSandbox;

    /// A sandbox with one call sent, and its state as text (everything the page shows).
    fn sandbox() -> BreakerSandbox {
        let mut s = BreakerSandbox::default();
        s.import_json(
            r#"{"steps":[{"acquire":{}},{"error":{"duration_ms":5,"exception":"IOException"}},{"advance_ms":1000}]}"#,
        )
        .unwrap();
        s
    }

    /// Each hostile import is refused with one line and leaves the session as it was.
    fn refused(json: &str) -> String {
        let mut s = sandbox();
        let before = format!("{s:?}");
        let message = s.import_json(json).expect_err(json);
        assert!(!message.contains('\n'), "{message}");
        assert!(message.chars().count() < 600, "{message}");
        assert_eq!(format!("{s:?}"), before, "unchanged after {json}");
        message
    }

    #[test]
    fn a_clock_at_the_end_of_time_is_refused() {
        refused(r#"{"steps":[{"advance_ms":18446744073709551615}]}"#);
    }

    #[test]
    fn a_wait_of_u64_max_ms_keeps_the_breaker_open_for_good() {
        // OPEN refuses every call; the wait is a Java long of milliseconds, so it is held
        // at Long.MAX_VALUE rather than overflowing.
        let mut s = sandbox();
        s.import_json(r#"{"config":{"waitDurationInOpenState":18446744073709551615},"steps":[{"transition":"OPEN"},{"advance_ms":1000}]}"#)
            .unwrap();
        assert_eq!(s.state(), State::Open);
        assert_eq!(s.now(), 1000);
        assert_eq!(s.open_wait_remaining(), Some(i64::MAX as u64 - 1000));
    }

    #[test]
    fn ten_thousand_nested_brackets_are_one_line() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        refused(&deep);
    }

    #[test]
    fn an_unknown_thrown_exception_is_refused() {
        let message = refused(
            r#"{"steps":[{"acquire":{}},{"error":{"duration_ms":5,"exception":"MadeUpTimeoutException"}}]}"#,
        );
        assert!(message.contains("MadeUpTimeoutException"), "{message}");
    }
}
