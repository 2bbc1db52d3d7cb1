//! The four protections side by side (`TickSession::comparison`) against the table of
//! ../shared/spec/01-tick-model.md: every row, every tick. The expected numbers are the
//! spec's.

use resilience_sim::model::tick::{Behaviour, Protection};
use resilience_sim::policy::circuit_breaker::State;
use resilience_sim::scenario::catalogue;
use resilience_sim::scenario::compare::ProtectionRun;
use resilience_sim::scenario::session::TickSession;

const C: State = State::Closed;
const O: State = State::Open;
const H: State = State::HalfOpen;

fn session(demo: u32) -> TickSession {
    TickSession::new(catalogue::demo(demo).unwrap().scenario()).unwrap()
}

/// Payments failed so far after each tick.
fn failures(row: &ProtectionRun) -> Vec<u32> {
    row.ticks.iter().map(|t| t.payment_failures).collect()
}

fn threads(row: &ProtectionRun) -> Vec<u32> {
    row.ticks
        .iter()
        .map(|t| t.recommendations_threads)
        .collect()
}

fn states(row: &ProtectionRun) -> Option<Vec<State>> {
    row.ticks.iter().map(|t| t.breaker).collect()
}

#[test]
fn demo_4s_comparison_is_the_spec_table() {
    let rows = session(4).comparison().run();
    let protections: Vec<Protection> = rows.iter().map(|r| r.protection).collect();
    assert_eq!(protections, Protection::ALL);
    let [none, breaker, bulkhead, both] = &rows;

    // none: 4 payments failed (t = 3, 4, 5, 6); threads 2, 4, 6, 6, 6, 6.
    assert_eq!(none.payment_failures(), 4);
    assert_eq!(failures(none), [0, 0, 1, 2, 3, 4]);
    assert_eq!(threads(none), [2, 4, 6, 6, 6, 6]);
    assert_eq!(states(none), None);

    // circuit breaker: 2 (t = 3, 4); threads 2, 4, 6, 6, 4, 2; opens at t = 5.
    assert_eq!(breaker.payment_failures(), 2);
    assert_eq!(failures(breaker), [0, 0, 1, 2, 2, 2]);
    assert_eq!(threads(breaker), [2, 4, 6, 6, 4, 2]);
    assert_eq!(states(breaker), Some(vec![C, C, C, C, O, O]));

    // bulkhead: 0; threads 2, 3, 3, 3, 3, 3.
    assert_eq!(bulkhead.payment_failures(), 0);
    assert_eq!(failures(bulkhead), [0; 6]);
    assert_eq!(threads(bulkhead), [2, 3, 3, 3, 3, 3]);
    assert_eq!(states(bulkhead), None);

    // breaker + bulkhead: 0; threads 2, 3, 3, 1, 0, 0; opens at t = 4.
    assert_eq!(both.payment_failures(), 0);
    assert_eq!(failures(both), [0; 6]);
    assert_eq!(threads(both), [2, 3, 3, 1, 0, 0]);
    assert_eq!(states(both), Some(vec![C, C, C, O, O, O]));

    for row in &rows {
        let ticks: Vec<u32> = row.ticks.iter().map(|t| t.t).collect();
        assert_eq!(ticks, [1, 2, 3, 4, 5, 6]);
    }
}

#[test]
fn every_slow_demo_compares_the_same_four_rows() {
    // Demos 4-7 differ only in their protection, which the comparison replaces.
    let table = session(4).comparison().run();
    for demo in 5..=7 {
        assert_eq!(session(demo).comparison().run(), table, "demo {demo}");
    }
}

#[test]
fn the_learners_behaviour_changes_count_and_their_protection_changes_do_not() {
    let mut s = session(4);
    let slow = s.comparison();
    s.set_protection(Protection::Bulkhead);
    assert_eq!(
        s.comparison(),
        slow,
        "each row is one protection from t = 1"
    );

    // Failing from t = 1: the breaker opens at t = 3 and is HALF_OPEN at t = 6.
    s.set_behaviour(Behaviour::Failing);
    let rows = s.comparison().run();
    assert_eq!(states(&rows[1]), Some(vec![C, C, O, O, O, H]));
    // A failing service answers after one tick: it never holds more than the 2 threads of
    // the tick's calls, so payment never goes without a thread.
    for row in &rows {
        assert_eq!(row.payment_failures(), 0, "{:?}", row.protection);
    }
}

#[test]
fn a_change_mid_run_counts_from_its_tick() {
    // Slow until t = 5, healthy from t = 6 (a change made at t = 5). Without protection the
    // first 5 ticks are the spec's row; at t = 6 the calls sent at t = 3 time out, the new
    // calls answer within the tick, so 4 threads stay held and payment finds a free one.
    let mut s = session(4);
    s.go_to(5);
    s.set_behaviour(Behaviour::Healthy);
    let rows = s.comparison().run();
    assert_eq!(threads(&rows[0]), [2, 4, 6, 6, 6, 4]);
    assert_eq!(failures(&rows[0]), [0, 0, 1, 2, 3, 3]);
}

#[test]
fn the_comparison_covers_the_demo_or_the_ticks_played_if_more() {
    let mut s = session(4);
    let at_start = s.comparison();
    s.go_to(4);
    assert_eq!(
        s.comparison(),
        at_start,
        "within the demo it does not depend on the tick"
    );
    assert_eq!(at_start.ticks(), 6);

    s.go_to(9);
    let rows = s.comparison().run();
    let first_six = session(4).comparison().run();
    for (long, short) in rows.iter().zip(&first_six) {
        assert_eq!(long.ticks.len(), 9);
        assert_eq!(long.ticks[..6], short.ticks[..]);
    }
}

#[test]
fn the_current_protections_row_is_the_session_played_without_changes() {
    for demo in 1..=7 {
        let mut s = session(demo);
        let rows = s.comparison().run();
        let protection = s.selects().1;
        let row = rows.iter().find(|r| r.protection == protection).unwrap();
        for tick in &row.ticks {
            s.next_tick();
            assert_eq!(tick.payment_failures, s.model().tally().payment_failures);
            assert_eq!(
                tick.breaker,
                s.model().breaker().map(|b| b.state()),
                "demo {demo}, t = {}",
                tick.t
            );
        }
    }
}
