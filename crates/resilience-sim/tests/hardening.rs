//! Hostile inputs to the breaker (issue 14): the end of the clock, timers that would fire
//! billions of times, huge windows entered again and again. Each must finish with a report,
//! never a panic or a hang.

use resilience_sim::policy::circuit_breaker::{CircuitBreaker, CircuitBreakerConfig, State};
use resilience_sim::scenario::breaker_script::{
    parse_breaker_script, run_breaker_script, MAX_SCRIPT_CLOCK_MS, MAX_TIMERS_PER_SCRIPT,
};

fn run(json: &str) -> Vec<resilience_sim::scenario::breaker_script::StepReport> {
    run_breaker_script(&parse_breaker_script(json).unwrap()).unwrap()
}

// The end of the clock, on the breaker itself: a script may not go there (its clock ends at
// MAX_SCRIPT_CLOCK_MS, the last instant every JSON reader reads alike), but the engine's
// models pass time in directly.

fn breaker(config: CircuitBreakerConfig) -> CircuitBreaker {
    CircuitBreaker::new(config).unwrap()
}

#[test]
fn a_count_based_window_records_at_the_last_millisecond() {
    let mut cb = breaker(CircuitBreakerConfig {
        sliding_window_size: 4,
        ..CircuitBreakerConfig::default()
    });
    cb.advance_to(u64::MAX);
    cb.on_error(u64::MAX, 1, "IOException");
    assert_eq!(cb.now(), u64::MAX);
    assert_eq!((cb.metrics().buffered, cb.metrics().failed), (1, 1));
    assert_eq!(cb.state(), State::Closed);
}

#[test]
fn a_time_based_window_records_at_the_last_millisecond() {
    let mut cb = breaker(CircuitBreakerConfig {
        sliding_window_type: resilience_sim::policy::circuit_breaker::SlidingWindowType::TimeBased,
        sliding_window_size: 10,
        minimum_number_of_calls: 1,
        ..CircuitBreakerConfig::default()
    });
    cb.on_error(0, 1, "IOException");
    cb.advance_to(u64::MAX);
    cb.on_error(u64::MAX, 1, "IOException");
    // The failure at 0 ms is far outside the last 10 seconds: only the last counts, and
    // 1 failure of 1 call opens the breaker (minimumNumberOfCalls 1, 100 % >= 50 %).
    assert_eq!(cb.state(), State::Open);
    assert_eq!(cb.now(), u64::MAX);
}

#[test]
fn open_without_a_timer_stays_open_to_the_end_of_time() {
    // No automatic transition: only a call after the wait moves OPEN to HALF_OPEN, so an
    // advance alone leaves the breaker OPEN (it used to loop for ever here).
    let mut cb = breaker(CircuitBreakerConfig::default());
    cb.transition_to(State::Open, 0).unwrap();
    let mut timers = MAX_TIMERS_PER_SCRIPT;
    assert_eq!(cb.advance_to_bounded(u64::MAX, &mut timers), Ok(()));
    assert_eq!(cb.state(), State::Open);
    assert_eq!(cb.now(), u64::MAX);
}

#[test]
fn timers_at_the_end_of_time_fire_once() {
    let mut cb = breaker(CircuitBreakerConfig {
        automatic_transition_from_open_to_half_open_enabled: true,
        wait_duration_in_open_state: 1,
        max_wait_duration_in_half_open_state: 1,
        ..CircuitBreakerConfig::default()
    });
    cb.advance_to(u64::MAX - 2);
    cb.transition_to(State::Open, u64::MAX - 2).unwrap();
    let mut timers = MAX_TIMERS_PER_SCRIPT;
    assert_eq!(cb.advance_to_bounded(u64::MAX, &mut timers), Ok(()));
    // OPEN at MAX - 2, HALF_OPEN at MAX - 1 (the 1 ms wait), back to OPEN at MAX (the 1 ms
    // HALF_OPEN limit), whose wait ends past the clock's end.
    assert_eq!(cb.now(), u64::MAX);
    assert_eq!(cb.state(), State::Open);
    assert_eq!(MAX_TIMERS_PER_SCRIPT - timers, 2);
}

// A script's clock: the same limit and the same message whichever reader read the number.

fn refused(json: &str) -> String {
    let script = parse_breaker_script(json).unwrap();
    run_breaker_script(&script).unwrap_err().to_string()
}

#[test]
fn a_script_may_not_take_its_clock_past_its_last_instant() {
    let at_the_limit = format!(r#"{{"steps":[{{"advance_ms":{MAX_SCRIPT_CLOCK_MS}}}]}}"#);
    assert_eq!(run(&at_the_limit)[0].t_ms, 1_000_000_000_000);
    let message = refused(r#"{"steps":[{"advance_ms":2},{"advance_ms":999999999999}]}"#);
    assert_eq!(
        message,
        "steps[1].advance_ms: takes the script's clock past 1000000000000 ms (about 31.7 years), the last instant a script may reach"
    );
    // u64::MAX as an integer (serde_json), as the float a browser reads it as, and past u64:
    // the same refusal, and no number that nobody wrote.
    for big in [
        "18446744073709551615",
        "18446744073709552000.0",
        "1e300",
        "99999999999999999999999",
    ] {
        let message = refused(&format!(r#"{{"steps":[{{"advance_ms":{big}}}]}}"#));
        assert!(
            message.starts_with("steps[0].advance_ms: takes the script's clock past"),
            "{big}: {message}"
        );
    }
    let message = refused(r#"{"steps":[{"success":{"duration_ms":1e13}}]}"#);
    assert_eq!(
        message,
        "steps[0].success.duration_ms: may be at most 1000000000000 ms (about 31.7 years)"
    );
}

#[test]
fn a_fraction_or_a_negative_number_of_milliseconds_is_refused_by_the_reader() {
    for bad in ["1.5", "-1", "\"x\""] {
        let json = format!(r#"{{"steps":[{{"advance_ms":{bad}}}]}}"#);
        let message = parse_breaker_script(&json).unwrap_err();
        assert!(
            message.contains("expected a whole number of milliseconds from 0"),
            "{message}"
        );
    }
}

#[test]
fn a_script_saved_with_a_byte_order_mark_is_read() {
    let r = run("\u{feff}{\"steps\":[{\"advance_ms\":5}]}");
    assert_eq!(r[0].t_ms, 5);
}

#[test]
fn the_timer_budget_is_the_whole_script_s() {
    // 1 ms waits: one timer per millisecond. Two advances of 600,000 ms ask for 1,200,000
    // timers; the second stops where the budget of 1,000,000 runs out.
    let r = run(
        r#"{"config":{"automaticTransitionFromOpenToHalfOpenEnabled":true,
        "waitDurationInOpenState":1,"maxWaitDurationInHalfOpenState":1},"steps":[
        {"transition":"OPEN"},{"advance_ms":600000},{"advance_ms":600000},{"advance_ms":5}]}"#,
    );
    assert_eq!((r[1].t_ms, r[1].error.as_deref()), (600_000, None));
    assert_eq!(r[2].t_ms, 1_000_000);
    assert_eq!(
        r[2].error.as_deref(),
        Some("the breaker's timers have fired 1000000 times in this script, the most one script may fire: the clock stopped at 1000000 ms")
    );
    assert_eq!(
        r[3].t_ms, 1_000_000,
        "no timer left: the clock stays stopped"
    );
}

#[test]
fn millisecond_timers_over_years_stop_at_the_work_limit_and_say_so() {
    let r = run(
        r#"{"config":{"automaticTransitionFromOpenToHalfOpenEnabled":true,
        "waitDurationInOpenState":1,"maxWaitDurationInHalfOpenState":1},"steps":[
        {"transition":"OPEN"},{"advance_ms":1000000000000}]}"#,
    );
    let error = r[1].error.as_deref().expect("the limit is reported");
    assert!(error.contains("the clock stopped at"), "{error}");
    assert!(
        error.contains(&MAX_TIMERS_PER_SCRIPT.to_string()),
        "{error}"
    );
    assert!(!error.contains('\n'));
    // One timer per millisecond (OPEN 1 ms, HALF_OPEN 1 ms): the clock stopped after
    // MAX_TIMERS_PER_SCRIPT of them, far short of the 10^12 ms asked for.
    assert_eq!(r[1].t_ms, u64::from(MAX_TIMERS_PER_SCRIPT));
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

    /// The script that grew the page's memory to 2 GB: millisecond timers over 10^12 ms.
    const MILLISECOND_TIMERS: &str = r#"{"config":{"automaticTransitionFromOpenToHalfOpenEnabled":true,"waitDurationInOpenState":1,"maxWaitDurationInHalfOpenState":1},"steps":[{"transition":"OPEN"},{"advance_ms":1000000000000}]}"#;

    #[test]
    fn millisecond_timers_over_years_are_refused_as_the_cli_reports_them() {
        let message = refused(MILLISECOND_TIMERS);
        assert_eq!(
            message,
            "steps[1]: the breaker's timers have fired 1000000 times in this script, the most one script may fire: the clock stopped at 1000000 ms"
        );
        // The CLI's report of the same step says the same.
        let script =
            resilience_sim::scenario::breaker_script::parse_breaker_script(MILLISECOND_TIMERS)
                .unwrap();
        let report = resilience_sim::scenario::breaker_script::run_breaker_script(&script).unwrap();
        assert_eq!(
            Some(message.trim_start_matches("steps[1]: ")),
            report[1].error.as_deref()
        );
    }

    #[test]
    fn millisecond_timers_stop_the_clock_of_a_live_session_and_it_goes_on() {
        let mut s = BreakerSandbox::default();
        s.import_json(r#"{"config":{"automaticTransitionFromOpenToHalfOpenEnabled":true,"waitDurationInOpenState":1,"maxWaitDurationInHalfOpenState":1},"steps":[{"transition":"OPEN"}]}"#).unwrap();
        let message = s.advance(1_000_000_000_000).unwrap_err();
        assert!(
            message.ends_with("the clock stopped at 1000000 ms"),
            "{message}"
        );
        assert_eq!(s.now(), 1_000_000);
        // The log kept its last entries only, and the session still answers.
        assert!(s.events().count() <= resilience_sim::scenario::sandbox::MAX_LOG);
        assert!(
            s.advance(5).is_err(),
            "no timer left: the clock stays stopped"
        );
        assert_eq!(s.now(), 1_000_000);
        assert!(s.reset().is_ok());
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

#[test]
fn a_bad_value_is_named_by_its_step_and_field() {
    let message = parse_breaker_script(
        r#"{"steps":[{"acquire":{}},{"error":{"duration_ms":"x","exception":"IOException"}}]}"#,
    )
    .unwrap_err();
    assert!(
        message.starts_with("invalid breaker script: steps[1].error.duration_ms: invalid type: string \"x\", expected a whole number of milliseconds from 0"),
        "{message}"
    );
    let message =
        parse_breaker_script(r#"{"config":{"failureRateThreshold":"x"},"steps":[]}"#).unwrap_err();
    assert!(
        message.starts_with("invalid breaker script: config.failureRateThreshold: "),
        "{message}"
    );
    let message = parse_breaker_script(r#"{"steps":[]} trailing"#).unwrap_err();
    assert!(
        message.starts_with("invalid breaker script: trailing characters"),
        "{message}"
    );
}

/// Demo 3 (recommendations failing, a breaker) with both waits at 1 ms: between two ticks
/// (1,000 ms) the idle breaker goes OPEN -> HALF_OPEN -> OPEN every 2 ms, so 1,000
/// transitions a tick, and every tick finds it just re-opened and refuses both calls.
/// Fired one by one this took 20 s over 100,000 ticks; cycles are now counted, not fired.
#[test]
fn millisecond_waits_over_a_hundred_thousand_ticks_count_every_transition() {
    use resilience_sim::model::tick::{TickEvent, TickModel};
    use resilience_sim::scenario::catalogue;

    let mut config = catalogue::demo(3).unwrap().scenario().tick;
    config.circuit_breaker.wait_duration_in_open_state = 1;
    config.circuit_breaker.max_wait_duration_in_half_open_state = 1;
    let mut model = TickModel::new(config).unwrap();
    for _ in 0..10 {
        model.step();
    }
    let before = model.summary().transition_count;
    for _ in 10..100_000 {
        let events = model.step();
        let refused = events
            .iter()
            .filter(|e| matches!(e, TickEvent::Refused { .. }))
            .count();
        assert_eq!(refused, 2);
        assert_eq!(model.breaker().unwrap().state(), State::Open);
    }
    assert_eq!(model.summary().transition_count - before, 1000 * 99_990);
}
