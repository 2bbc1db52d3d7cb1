//! The tick model through the demos of the catalogue: the narration, the threads held and
//! the breaker's window log, each checked on a demo's own settings.

use resilience_sim::model::tick::{
    Behaviour, Dependency, Protection, TickConfig, TickEvent, TickModel, TickWorld,
};
use resilience_sim::model::window_log::*;
use resilience_sim::policy::circuit_breaker::{SlidingWindowType, State, WindowCell};
use resilience_sim::scenario::catalogue;
use resilience_sim::Outcome;

/// After an import whose recordExceptions leaves the timeout out, a timed-out call is
/// a success to the breaker, and the narration says so (it said "recorded a failure"
/// while the window showed a success); an ignored one is not recorded at all.
#[test]
fn the_narration_says_what_the_breaker_recorded_not_how_the_call_ended() {
    let narrations = |record: &[&str], ignore: &[&str]| {
        let mut tick = catalogue::demo(5).unwrap().scenario().tick;
        tick.circuit_breaker.record_exceptions = record.iter().map(|e| e.to_string()).collect();
        tick.circuit_breaker.ignore_exceptions = ignore.iter().map(|e| e.to_string()).collect();
        let mut model = TickModel::new(tick).unwrap();
        let mut lines = Vec::new();
        let mut failures = 0;
        for _ in 0..6 {
            for event in model.step() {
                if matches!(event, TickEvent::BreakerRecorded { failure: true, .. }) {
                    failures += 1;
                }
                lines.push(event.narrate());
            }
        }
        (lines, failures, model.breaker().unwrap().metrics().failed)
    };
    let (lines, failures, failed) = narrations(&[], &[]);
    assert!(lines.iter().any(|l| l == "The breaker recorded a failure."));
    assert!(failures > 0 && failed > 0);
    let (lines, failures, failed) = narrations(&["ConnectException"], &[]);
    assert_eq!((failures, failed), (0, 0));
    assert!(lines.iter().any(|l| {
        l
        == "The breaker recorded a success: SocketTimeoutException is not in its recordExceptions."
    }));
    let (lines, failures, failed) = narrations(&[], &["SocketTimeoutException"]);
    assert_eq!((failures, failed), (0, 0));
    assert!(
        lines
            .iter()
            .any(|l| l
                == "The breaker ignored it: SocketTimeoutException is in its ignoreExceptions.")
    );
}

/// The outcomes of the threads held after each of the first `ticks` ticks of `demo`.
fn held_outcomes(demo: u32, ticks: u32) -> Vec<(Dependency, u32, Outcome)> {
    let scenario = catalogue::demo(demo).unwrap().scenario();
    let mut model = TickModel::new(scenario.tick).unwrap();
    let mut held = Vec::new();
    for _ in 0..ticks {
        model.step();
        for h in model.threads().iter().flatten() {
            held.push((h.dependency, h.due_at - h.sent_at, h.outcome()));
        }
    }
    held
}

#[test]
fn demo_4s_recommendations_threads_all_end_in_a_timeout() {
    let held = held_outcomes(4, 6);
    let recommendations: Vec<_> = held
        .iter()
        .filter(|(d, ..)| *d == Dependency::Recommendations)
        .collect();
    assert!(!recommendations.is_empty());
    let timeout = TickWorld::default().timeout_ticks;
    for (_, ticks, outcome) in recommendations {
        assert_eq!((*ticks, *outcome), (timeout, Outcome::ReadTimeout));
    }
    for (_, ticks, outcome) in held.iter().filter(|(d, ..)| *d == Dependency::Payment) {
        assert_eq!((*ticks, *outcome), (1, Outcome::Success));
    }
}

fn demo_at(demo: u32, t: u32) -> TickModel {
    let scenario = catalogue::demo(demo).unwrap().scenario();
    let mut run = resilience_sim::scenario::ScenarioRun::new(&scenario).unwrap();
    while run.model().tick() < t {
        run.step();
    }
    run.model().clone()
}

fn outcomes(model: &TickModel) -> Vec<Option<Outcome>> {
    model.window_entries().iter().map(|e| e.outcome).collect()
}

/// Demo 7: the bulkhead's refusals fill the window before the first timeout arrives,
/// and the window that opened the breaker says so.
#[test]
fn demo_7s_window_tells_bulkhead_refusals_from_timeouts() {
    use Outcome::{BulkheadFull, ReadTimeout};
    let model = demo_at(7, 3);
    assert_eq!(outcomes(&model), [Some(BulkheadFull); 3]);
    let model = demo_at(7, 4);
    assert_eq!(model.breaker().unwrap().state(), State::Open);
    assert_eq!(
        outcomes(&model),
        [
            Some(BulkheadFull),
            Some(BulkheadFull),
            Some(ReadTimeout),
            Some(ReadTimeout)
        ]
    );
    assert!(model.window_entries().iter().all(|e| e.cell.is_failure()));
}

#[test]
fn demo_1s_window_holds_the_errors() {
    let model = demo_at(1, 3);
    assert_eq!(outcomes(&model), [Some(Outcome::Http5xx); 4]);
}

/// Demo 2 at t = 6: OPEN -> HALF_OPEN -> CLOSED in one tick, each an event, with the
/// two trials the breaker recorded between them; CLOSED starts an empty window.
#[test]
fn demo_2s_sixth_tick_reports_each_transition_with_the_trials_between() {
    let model = demo_at(2, 6);
    let path: Vec<String> = model
        .last_events()
        .iter()
        .filter_map(|e| match e {
            TickEvent::BreakerTransition { from, to } => {
                Some(format!("{}>{}", from.as_str(), to.as_str()))
            }
            TickEvent::BreakerRecorded {
                failure, outcome, ..
            } => Some(format!("{failure}:{outcome:?}")),
            _ => None,
        })
        .collect();
    assert_eq!(
        path,
        [
            "OPEN>HALF_OPEN",
            "false:Success",
            "false:Success",
            "HALF_OPEN>CLOSED"
        ]
    );
    assert!(model.window_entries().is_empty());
    let success = WindowEntry {
        cell: WindowCell::Success,
        outcome: Some(Outcome::Success),
    };
    assert_eq!(
        model.trial_verdicts(),
        [TrialVerdict {
            trials: vec![success, success],
            to: State::Closed
        }]
    );
    // Forgotten at the next tick.
    let model = demo_at(2, 7);
    assert!(model.trial_verdicts().is_empty());
}

/// Demo 3 at t = 7: the trials fail and the breaker opens again, keeping them in view.
#[test]
fn demo_3s_failed_trials_reopen_the_breaker() {
    let model = demo_at(3, 7);
    let failure = WindowEntry {
        cell: WindowCell::Failure,
        outcome: Some(Outcome::Http5xx),
    };
    assert_eq!(
        model.trial_verdicts(),
        [TrialVerdict {
            trials: vec![failure, failure],
            to: State::Open
        }]
    );
    assert_eq!(model.window_entries(), [failure, failure]);
}

/// Every demo, every protection, both window types: each cell of the breaker's window
/// gets its call's outcome, and the outcome agrees with the cell.
#[test]
fn every_cell_gets_an_outcome_that_agrees_with_it() {
    for demo in catalogue::DEMOS.iter().filter(|d| d.number <= 7) {
        for protection in Protection::ALL {
            for window in [SlidingWindowType::CountBased, SlidingWindowType::TimeBased] {
                let mut config = demo.scenario().tick;
                config.protection = protection;
                config.circuit_breaker.sliding_window_type = window;
                let mut model = TickModel::new(config).unwrap();
                for _ in 0..40 {
                    model.step();
                    let cells = model
                        .breaker()
                        .map(|b| b.window_cells())
                        .unwrap_or_default();
                    let entries = model.window_entries();
                    assert_eq!(entries.len(), cells.len());
                    for (entry, cell) in entries.iter().zip(&cells) {
                        assert_eq!(entry.cell, *cell);
                        let outcome = entry.outcome.expect("an outcome for every cell");
                        assert_eq!(cell.is_failure(), !outcome.is_success());
                    }
                }
            }
        }
    }
}

#[test]
fn no_breaker_no_entries() {
    let mut model = TickModel::new(TickConfig::new(Behaviour::Slow, Protection::Bulkhead)).unwrap();
    for _ in 0..5 {
        model.step();
    }
    assert!(model.window_entries().is_empty());
}
