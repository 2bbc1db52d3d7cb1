//! The facts the page's "What happened" is written from ([`RunSummary`]), against
//! ../shared/spec/01-tick-model.md: Demos 1-7 at their own length, and Demo 5 with
//! `minimumNumberOfCalls = 2`, worked out from the spec's rules below. Also: a select
//! changed mid-run is reported once, and applying settings keeps the learner's place.

use resilience_sim::model::summary::{RunSummary, TickSpan, TransitionReason};
use resilience_sim::model::tick::{Protection, TickEvent};
use resilience_sim::policy::circuit_breaker::State;
use resilience_sim::scenario::catalogue;
use resilience_sim::scenario::session::TickSession;

const C: State = State::Closed;
const O: State = State::Open;
const H: State = State::HalfOpen;

/// The summary of demo `number` played for its own length.
fn summary_of(number: u32) -> RunSummary {
    let demo = catalogue::demo(number).unwrap();
    let mut session = TickSession::new(demo.scenario()).unwrap();
    session.go_to(demo.ticks);
    session.model().summary()
}

/// (tick, from, to, reason) of each state change.
fn changes(s: &RunSummary) -> Vec<(u32, State, State, TransitionReason)> {
    s.transitions
        .iter()
        .map(|t| (t.tick, t.from, t.to, t.reason))
        .collect()
}

/// The window's failure rate when every outcome in it failed, against the spec's 50 %.
const ALL_FAILED: TransitionReason = TransitionReason::FailureRate {
    rate: 100.0,
    threshold: 50.0,
};
/// OPEN for `waitDurationInOpenState` = 3 ticks.
const WAITED_3: TransitionReason = TransitionReason::WaitOver { waited_ticks: 3 };

fn spans(list: &[(u32, u32)]) -> Vec<TickSpan> {
    list.iter()
        .map(|&(from, to)| TickSpan { from, to })
        .collect()
}

#[test]
fn demo_1_opens_at_3_on_four_failures() {
    let s = summary_of(1);
    assert_eq!(s.ticks, 5);
    assert_eq!(s.tally.payment_failures, 0);
    assert!(s.payment_failure_spans.is_empty());
    // "OPEN at t = 3 (4 failures recorded)": a failure rate of 100 %.
    assert_eq!(changes(&s), vec![(3, C, O, ALL_FAILED)]);
    assert_eq!(s.breaker_state, Some(O), "HALF_OPEN only at t = 6");
    // Refused calls take no thread: 2 refusals each at t = 3, 4, 5.
    assert_eq!(s.tally.refused_by_breaker, 6);
    assert_eq!(s.recommendations_threads, 0);
    assert_eq!(s.breaker_ticks, 5);
    // The errors of t = 1 and t = 2's calls (answered at t = 2 and 3).
    assert_eq!(s.service_failures, 4);
}

#[test]
fn demo_2_half_opens_at_6_and_the_healthy_trials_close_it() {
    let s = summary_of(2);
    assert_eq!(
        changes(&s),
        vec![
            (3, C, O, ALL_FAILED),
            (6, O, H, WAITED_3),
            (
                6,
                H,
                C,
                TransitionReason::Trials {
                    succeeded: 2,
                    failed: 0
                }
            ),
        ]
    );
    assert_eq!(s.breaker_state, Some(C));
    assert_eq!(s.tally.payment_failures, 0);
    assert_eq!(s.recommendations_threads, 0, "healthy calls hold no thread");
}

#[test]
fn demo_3_reopens_at_7_and_half_opens_again_at_10() {
    let s = summary_of(3);
    assert_eq!(
        changes(&s),
        vec![
            (3, C, O, ALL_FAILED),
            (6, O, H, WAITED_3),
            (
                7,
                H,
                O,
                TransitionReason::Trials {
                    succeeded: 0,
                    failed: 2
                }
            ),
            (10, O, H, WAITED_3),
        ]
    );
    assert_eq!(s.transition_count, 4);
    assert_eq!(s.breaker_state, Some(H));
    // The 2 trials sent at t = 10 hold their threads until their errors at t = 11.
    assert_eq!(s.recommendations_threads, 2);
}

#[test]
fn demo_4_payment_fails_from_3_to_6_for_want_of_a_thread() {
    let s = summary_of(4);
    assert_eq!(s.tally.payment_failures, 4);
    assert_eq!(s.payment_failure_spans, spans(&[(3, 6)]));
    assert_eq!(s.payments_without_thread, 4);
    assert_eq!(s.recommendations_threads, 6);
    assert_eq!(s.peak_recommendations_threads, 6);
    assert_eq!(s.breaker_state, None);
    assert!(s.transitions.is_empty());
    assert_eq!((s.breaker_ticks, s.bulkhead_ticks), (0, 0));
    assert_eq!(s.threads, 6);
}

#[test]
fn demo_5_payment_fails_at_3_and_4_and_the_breaker_opens_at_5() {
    let s = summary_of(5);
    assert_eq!(s.tally.payment_failures, 2);
    assert_eq!(s.payment_failure_spans, spans(&[(3, 4)]));
    assert_eq!(changes(&s), vec![(5, C, O, ALL_FAILED)]);
    assert_eq!(s.recommendations_threads, 2);
    assert_eq!(s.peak_recommendations_threads, 6);
    assert_eq!(s.breaker_state, Some(O));
}

#[test]
fn demo_6_bulkhead_never_lets_recommendations_hold_more_than_3() {
    let s = summary_of(6);
    assert_eq!(s.tally.payment_failures, 0);
    assert_eq!(s.recommendations_threads, 3);
    assert_eq!(s.peak_recommendations_threads, 3);
    assert_eq!((s.breaker_ticks, s.bulkhead_ticks), (0, 6));
    assert!(s.tally.refused_by_bulkhead > 0);
}

#[test]
fn demo_7_opens_at_4_and_recommendations_ends_with_no_thread() {
    let s = summary_of(7);
    assert_eq!(s.tally.payment_failures, 0);
    assert_eq!(changes(&s), vec![(4, C, O, ALL_FAILED)]);
    assert_eq!(s.recommendations_threads, 0);
    assert_eq!(s.peak_recommendations_threads, 3);
}

/// Demo 5 with `minimumNumberOfCalls = 2`, from the spec's rules (slow calls time out 3
/// ticks after they were sent; payment answers one tick after; 6 threads):
/// - t = 1: 2 recommendations calls take threads 1-2, payment takes 3 (free again at 2).
/// - t = 2: payment's thread is freed; 2 calls take 3-4, payment takes 5.
/// - t = 3: payment's thread is freed; 2 calls take 5-6; payment finds no thread: the one
///   failed payment. Recommendations holds 6.
/// - t = 4: the 2 calls of t = 1 time out: 2 failures in the window, enough with a minimum
///   of 2, a rate of 100 % >= 50 %: OPEN at t = 4. Both new calls are refused; payment
///   takes a freed thread. Recommendations holds 4.
/// - t = 5, 6: the calls of t = 2, then of t = 3 time out; the breaker refuses every new
///   call (HALF_OPEN only at t = 4 + 3 = 7). Recommendations holds 2, then 0.
#[test]
fn demo_5_with_a_minimum_of_2_calls_opens_at_4_and_one_payment_fails() {
    let demo = catalogue::demo(5).unwrap();
    let mut session = TickSession::new(demo.scenario()).unwrap();
    let mut breaker = session.scenario().tick.circuit_breaker.clone();
    breaker.minimum_number_of_calls = 2;
    let bulkhead = session.scenario().tick.bulkhead.clone();
    session.apply_settings(breaker, bulkhead).unwrap();
    let mut held = vec![];
    for _ in 0..6 {
        session.next_tick();
        held.push(session.model().summary().recommendations_threads);
    }
    let s = session.model().summary();
    assert_eq!(held, vec![2, 4, 6, 4, 2, 0]);
    assert_eq!(s.tally.payment_failures, 1);
    assert_eq!(s.payment_failure_spans, spans(&[(3, 3)]));
    assert_eq!(changes(&s), vec![(4, C, O, ALL_FAILED)]);
    assert_eq!(s.tally.refused_by_breaker, 6, "2 at each of t = 4, 5, 6");
    assert_eq!(s.minimum_number_of_calls, 2);
    assert_eq!(s.peak_recommendations_threads, 6);
}

fn setting_changes(session: &TickSession) -> usize {
    session
        .model()
        .last_events()
        .iter()
        .filter(|e| matches!(e, TickEvent::SettingChanged { .. }))
        .count()
}

#[test]
fn a_select_changed_mid_run_is_reported_once_at_the_tick_it_takes_effect() {
    let mut session = TickSession::new(catalogue::demo(4).unwrap().scenario()).unwrap();
    session.go_to(2);
    session.set_protection(Protection::CircuitBreaker);
    assert_eq!(setting_changes(&session), 0, "it takes effect at t = 3");
    let mut reported = vec![];
    for _ in 3..=6 {
        session.next_tick();
        reported.push(setting_changes(&session));
    }
    assert_eq!(reported, vec![1, 0, 0, 0]);
    // A replay (step back, or a link opening at t = 5) tells the same story.
    session.step_back();
    assert_eq!(setting_changes(&session), 0);
    let changes = session.changes().to_vec();
    session.restore(changes, 3);
    assert_eq!(setting_changes(&session), 1);
    session.restore(session.changes().to_vec(), 5);
    assert_eq!(setting_changes(&session), 0);
}

#[test]
fn applying_settings_replays_to_the_same_tick_with_the_learners_changes() {
    let mut session = TickSession::new(catalogue::demo(4).unwrap().scenario()).unwrap();
    session.go_to(2);
    session.set_protection(Protection::CircuitBreaker);
    session.go_to(4);
    let before = session.model().summary();
    let breaker = session.scenario().tick.circuit_breaker.clone();
    let bulkhead = session.scenario().tick.bulkhead.clone();
    // The same settings: the same run, at the same tick.
    assert_eq!(
        session.apply_settings(breaker.clone(), bulkhead.clone()),
        Ok(4)
    );
    assert_eq!(session.tick(), 4);
    assert_eq!(session.changes().len(), 1);
    assert_eq!(session.model().summary(), before);
    // A refused setting leaves everything as it was.
    let mut bad = breaker.clone();
    bad.failure_rate_threshold = 150.0;
    assert!(session.apply_settings(bad, bulkhead.clone()).is_err());
    assert_eq!((session.tick(), session.model().summary()), (4, before));
    // The breaker guards only calls sent from t = 3 on; the first of those time out at
    // t = 6. So at t = 4 it has recorded nothing and is CLOSED, with a minimum of 2 calls
    // as with 4: the replay keeps the learner's change and lands on t = 4.
    let mut two = breaker;
    two.minimum_number_of_calls = 2;
    assert_eq!(session.apply_settings(two, bulkhead), Ok(4));
    assert_eq!(session.model().summary().breaker_state, Some(C));
    assert_eq!(session.model().summary().minimum_number_of_calls, 2);
    assert_eq!(session.selects().1, Protection::CircuitBreaker);
}
