//! The tick model against ../shared/spec/01-tick-model.md: every tick of every row of the
//! table, and the timelines of Demos 1-3. The expected numbers are the spec's.

use resilience_sim::model::tick::{Behaviour, Dependency, Protection, TickConfig, TickModel};
use resilience_sim::policy::circuit_breaker::State;
use resilience_sim::scenario::catalogue;

const C: State = State::Closed;
const O: State = State::Open;
const H: State = State::HalfOpen;

struct Row {
    recommendations_threads: Vec<u32>,
    payment_failures: u32,
    payment_failure_ticks: Vec<u32>,
    breaker: Option<Vec<State>>,
}

fn run(behaviour: Behaviour, protection: Protection, ticks: u32) -> Row {
    let mut model =
        TickModel::new(TickConfig::new(behaviour, protection)).expect("spec config is valid");
    let mut row = Row {
        recommendations_threads: vec![],
        payment_failures: 0,
        payment_failure_ticks: vec![],
        breaker: model.breaker().map(|_| vec![]),
    };
    for t in 1..=ticks {
        model.step();
        row.recommendations_threads
            .push(model.threads_held_by(Dependency::Recommendations));
        let failures = model.tally().payment_failures;
        if failures > row.payment_failures {
            row.payment_failure_ticks.push(t);
        }
        row.payment_failures = failures;
        if let (Some(states), Some(b)) = (row.breaker.as_mut(), model.breaker()) {
            states.push(b.state());
        }
        let held: u32 = model.threads().iter().flatten().count() as u32;
        assert!(held <= 6, "never more threads than the pool");
    }
    row
}

#[test]
fn table_slow_no_protection() {
    let row = run(Behaviour::Slow, Protection::None, 6);
    assert_eq!(row.payment_failures, 4);
    assert_eq!(row.payment_failure_ticks, vec![3, 4, 5, 6]);
    assert_eq!(row.recommendations_threads, vec![2, 4, 6, 6, 6, 6]);
    assert_eq!(row.breaker, None);
}

#[test]
fn table_slow_circuit_breaker() {
    let row = run(Behaviour::Slow, Protection::CircuitBreaker, 6);
    assert_eq!(row.payment_failures, 2);
    assert_eq!(row.payment_failure_ticks, vec![3, 4]);
    assert_eq!(row.recommendations_threads, vec![2, 4, 6, 6, 4, 2]);
    assert_eq!(row.breaker, Some(vec![C, C, C, C, O, O]));
}

#[test]
fn table_slow_bulkhead() {
    let row = run(Behaviour::Slow, Protection::Bulkhead, 6);
    assert_eq!(row.payment_failures, 0);
    assert_eq!(row.recommendations_threads, vec![2, 3, 3, 3, 3, 3]);
    assert_eq!(row.breaker, None);
}

#[test]
fn table_slow_breaker_and_bulkhead() {
    let row = run(Behaviour::Slow, Protection::BreakerAndBulkhead, 6);
    assert_eq!(row.payment_failures, 0);
    assert_eq!(row.recommendations_threads, vec![2, 3, 3, 1, 0, 0]);
    assert_eq!(row.breaker, Some(vec![C, C, C, O, O, O]));
}

#[test]
fn failing_with_breaker_opens_at_3_half_opens_at_6_reopens_at_7_half_opens_at_10() {
    let row = run(Behaviour::Failing, Protection::CircuitBreaker, 10);
    assert_eq!(
        row.breaker,
        Some(vec![C, C, O, O, O, H, O, O, O, H]),
        "opens at t = 3, HALF_OPEN at t = 6, OPEN again at t = 7, HALF_OPEN again at t = 10"
    );
}

#[test]
fn failing_breaker_window_holds_four_failures_when_it_opens() {
    let mut model = TickModel::new(TickConfig::new(
        Behaviour::Failing,
        Protection::CircuitBreaker,
    ))
    .unwrap();
    for _ in 0..3 {
        model.step();
    }
    let metrics = model.breaker().unwrap().metrics();
    assert_eq!(model.breaker().unwrap().state(), O);
    assert_eq!(metrics.buffered, 4);
    assert_eq!(metrics.failed, 4);
    assert_eq!(metrics.failure_rate, 100.0);
}

#[test]
fn half_open_sends_exactly_two_trials_at_t6() {
    let mut model = TickModel::new(TickConfig::new(
        Behaviour::Failing,
        Protection::CircuitBreaker,
    ))
    .unwrap();
    for _ in 0..5 {
        model.step();
    }
    assert_eq!(
        model.threads_held_by(Dependency::Recommendations),
        0,
        "refused calls take no thread"
    );
    model.step(); // t = 6: HALF_OPEN, 2 trials sent
    assert_eq!(model.breaker().unwrap().state(), H);
    assert_eq!(model.threads_held_by(Dependency::Recommendations), 2);
}

#[test]
fn recovered_from_6_closes_at_6() {
    let row = run(
        Behaviour::Recovering { healthy_from: 6 },
        Protection::CircuitBreaker,
        8,
    );
    assert_eq!(row.breaker, Some(vec![C, C, O, O, O, C, C, C]));
}

#[test]
fn refused_calls_take_no_thread_and_are_not_recorded() {
    let mut model = TickModel::new(TickConfig::new(
        Behaviour::Failing,
        Protection::CircuitBreaker,
    ))
    .unwrap();
    for _ in 0..4 {
        model.step();
    }
    // t = 3 and t = 4: two refusals each; the window still holds the 4 failures that opened it.
    assert_eq!(model.tally().refused_by_breaker, 4);
    assert_eq!(model.breaker().unwrap().metrics().buffered, 4);
    assert_eq!(model.breaker().unwrap().metrics().not_permitted, 4);
    // Every recommendations call that failed (t = 2 and 3: four errors) or was refused
    // (t = 3 and 4: four refusals) showed the cached list instead.
    assert_eq!(model.tally().fallbacks_served, 8);
}

#[test]
fn demo_catalogue_reproduces_its_promises() {
    // Demo 1: OPEN at t = 3. Demo 2: CLOSED at t = 6. Demo 3: OPEN again at t = 7.
    let state_at = |demo: u32, t: u32| {
        let trace = catalogue::demo(demo)
            .unwrap()
            .scenario()
            .run(Some(t))
            .unwrap();
        trace.ticks[(t - 1) as usize].breaker
    };
    assert_eq!(state_at(1, 2), Some("CLOSED"));
    assert_eq!(state_at(1, 3), Some("OPEN"));
    assert_eq!(state_at(2, 5), Some("OPEN"));
    assert_eq!(state_at(2, 6), Some("CLOSED"));
    assert_eq!(state_at(3, 6), Some("HALF_OPEN"));
    assert_eq!(state_at(3, 7), Some("OPEN"));
    assert_eq!(state_at(3, 10), Some("HALF_OPEN"));
}

#[test]
fn a_select_changed_mid_run_takes_effect_at_the_next_tick() {
    // Demo 2 by hand: failing with a breaker, switch to healthy before t = 6.
    let mut by_hand = TickModel::new(TickConfig::new(
        Behaviour::Failing,
        Protection::CircuitBreaker,
    ))
    .unwrap();
    for _ in 0..5 {
        by_hand.step();
    }
    by_hand.set_behaviour(Behaviour::Healthy);
    by_hand.step();
    assert_eq!(by_hand.breaker().unwrap().state(), C, "closes at t = 6");

    // Protection switched on mid-run guards only the calls sent after the change.
    let mut model = TickModel::new(TickConfig::new(Behaviour::Slow, Protection::None)).unwrap();
    model.step();
    model.set_protection(Protection::Bulkhead);
    model.step();
    // t = 2: the bulkhead admits 3 new calls at most; the 2 sent at t = 1 hold no permit.
    assert_eq!(model.threads_held_by(Dependency::Recommendations), 4);
}

#[test]
fn healthy_recommendations_hold_no_thread_into_the_next_tick() {
    for protection in Protection::ALL {
        let row = run(Behaviour::Healthy, protection, 6);
        assert_eq!(row.recommendations_threads, vec![0; 6]);
        assert_eq!(row.payment_failures, 0);
    }
}
