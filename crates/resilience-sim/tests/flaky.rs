//! A flaky recommendations service: each call fails like `failing` with a chosen
//! probability, else answers like `healthy`, drawn from the run's seed and the call. The
//! ends of the range are the spec's behaviours (../shared/spec/01-tick-model.md).

use resilience_sim::model::tick::{
    Behaviour, Dependency, Protection, TickConfig, TickEvent, TickModel, FLAKY_DEFAULT_PERCENT,
};
use resilience_sim::policy::circuit_breaker::State;
use resilience_sim::scenario::session::TickSession;
use resilience_sim::scenario::{catalogue, Format, Scenario};

const C: State = State::Closed;
const O: State = State::Open;
const H: State = State::HalfOpen;

/// What a session shows at its tick: the tally and the threads, to compare two runs.
fn state(session: &TickSession) -> String {
    format!(
        "{:?} {:?}",
        session.model().tally(),
        session.model().threads()
    )
}

fn flaky(failure_percent: u32) -> Behaviour {
    Behaviour::Flaky { failure_percent }
}

/// Everything a tick shows: threads per dependency, tally, breaker state, events.
fn trace(behaviour: Behaviour, protection: Protection, seed: u64, ticks: u32) -> Vec<String> {
    let mut model = TickModel::new(TickConfig::new(behaviour, protection))
        .unwrap()
        .with_seed(seed);
    (0..ticks)
        .map(|_| {
            model.step();
            format!(
                "{} {} {:?} {:?} {:?}",
                model.threads_held_by(Dependency::Recommendations),
                model.threads_held_by(Dependency::Payment),
                model.tally(),
                model.breaker().map(|b| b.state()),
                model.last_events(),
            )
        })
        .collect()
}

fn breaker_states(behaviour: Behaviour, ticks: u32) -> Vec<State> {
    let mut model = TickModel::new(TickConfig::new(behaviour, Protection::CircuitBreaker)).unwrap();
    (0..ticks)
        .map(|_| {
            model.step();
            model.breaker().unwrap().state()
        })
        .collect()
}

#[test]
fn at_0_percent_it_is_healthy() {
    for protection in Protection::ALL {
        for seed in [0, 1, 42] {
            assert_eq!(
                trace(flaky(0), protection, seed, 12),
                trace(Behaviour::Healthy, protection, seed, 12),
                "{protection:?}, seed {seed}"
            );
        }
        // Healthy: recommendations holds no thread into the next tick; payment never fails.
        let mut model = TickModel::new(TickConfig::new(flaky(0), protection)).unwrap();
        for _ in 0..6 {
            model.step();
            assert_eq!(model.threads_held_by(Dependency::Recommendations), 0);
        }
        assert_eq!(model.tally().payment_failures, 0);
    }
}

#[test]
fn at_100_percent_it_is_failing() {
    for protection in Protection::ALL {
        assert_eq!(
            trace(flaky(100), protection, 7, 12),
            trace(Behaviour::Failing, protection, 7, 12),
            "{protection:?}"
        );
    }
    // Demos 1 and 3: OPEN at t = 3, HALF_OPEN at t = 6, OPEN again at t = 7, HALF_OPEN at 10.
    assert_eq!(
        breaker_states(flaky(100), 10),
        [C, C, O, O, O, H, O, O, O, H]
    );
    // Demo 1: the window holds the 4 failures that opened it; refused calls take no thread.
    let mut model =
        TickModel::new(TickConfig::new(flaky(100), Protection::CircuitBreaker)).unwrap();
    for _ in 0..3 {
        model.step();
    }
    let metrics = model.breaker().unwrap().metrics();
    assert_eq!((metrics.buffered, metrics.failed), (4, 4));
    model.step();
    model.step();
    assert_eq!(model.threads_held_by(Dependency::Recommendations), 0);
    assert_eq!(
        model.tally().refused_by_breaker,
        6,
        "2 a tick at t = 3, 4, 5"
    );
}

#[test]
fn a_failed_flaky_call_is_a_failing_call_and_a_lucky_one_a_healthy_call() {
    let mut model = TickModel::new(TickConfig::new(flaky(50), Protection::None)).unwrap();
    let (mut failed, mut answered) = (0, 0);
    for _ in 0..50 {
        model.step();
        for event in model.last_events() {
            match event {
                TickEvent::Sent {
                    dependency: Dependency::Recommendations,
                    due_at,
                    ..
                } => {
                    assert_eq!(
                        *due_at,
                        model.tick() + 1,
                        "an error one tick after it was sent"
                    );
                    failed += 1;
                }
                TickEvent::AnsweredAtOnce {
                    dependency: Dependency::Recommendations,
                    ..
                } => answered += 1,
                _ => {}
            }
        }
    }
    assert_eq!(
        failed + answered,
        100,
        "every call was sent: no thread ran short"
    );
    assert!(failed > 0 && answered > 0);
    // Every error was served the cached list, but those of the last tick, still due.
    let due = model.threads_held_by(Dependency::Recommendations);
    assert_eq!(model.tally().fallbacks_served + due, failed);
}

#[test]
fn about_the_chosen_share_of_calls_fails() {
    for percent in [FLAKY_DEFAULT_PERCENT, 10, 75] {
        let mut model = TickModel::new(TickConfig::new(flaky(percent), Protection::None)).unwrap();
        for _ in 0..5_000 {
            model.step();
        }
        let tally = model.tally();
        let calls = tally.fallbacks_served + tally.recommendations_answered;
        let share = 100.0 * f64::from(tally.fallbacks_served) / f64::from(calls);
        assert!(
            (share - f64::from(percent)).abs() < 2.0,
            "{percent} %: {share:.1} % of {calls} calls failed"
        );
    }
}

#[test]
fn the_same_seed_gives_the_same_run_and_another_seed_another() {
    let run = |seed| {
        trace(
            flaky(FLAKY_DEFAULT_PERCENT),
            Protection::CircuitBreaker,
            seed,
            20,
        )
    };
    assert_eq!(run(1), run(1));
    assert_ne!(run(1), run(2));
    assert_ne!(run(0), run(1));
}

#[test]
fn a_calls_luck_does_not_depend_on_the_protection() {
    // Calls are numbered in arrival order, refused or not, so the k-th call of a run is
    // the same call under every protection: with room for every call it fails or answers
    // alike.
    let outcomes = |protection| {
        let mut model = TickModel::new(TickConfig::new(flaky(40), protection))
            .unwrap()
            .with_seed(9);
        let mut out = Vec::new();
        for _ in 0..20 {
            model.step();
            for event in model.last_events() {
                match event {
                    TickEvent::Sent {
                        call,
                        dependency: Dependency::Recommendations,
                        ..
                    } => out.push((*call, false)),
                    TickEvent::AnsweredAtOnce { call, .. } => out.push((*call, true)),
                    _ => {}
                }
            }
        }
        out
    };
    let none = outcomes(Protection::None);
    let bulkhead = outcomes(Protection::Bulkhead);
    assert_eq!(none, bulkhead);
}

#[test]
fn a_session_replays_the_same_draws_and_changes_them_with_the_seed() {
    let mut session = TickSession::new(catalogue::demo(1).unwrap().scenario()).unwrap();
    session.set_behaviour(flaky(FLAKY_DEFAULT_PERCENT));
    session.go_to(10);
    let at_10 = state(&session);
    session.go_to(12);
    session.step_back();
    session.step_back();
    assert_eq!(state(&session), at_10);

    session.set_seed(5);
    assert_eq!(
        (session.seed(), session.tick()),
        (5, 10),
        "the learner stays at t = 10"
    );
    let mut fresh = TickSession::new(catalogue::demo(1).unwrap().scenario()).unwrap();
    fresh.set_seed(5);
    fresh.set_behaviour(flaky(FLAKY_DEFAULT_PERCENT));
    fresh.go_to(10);
    let with_5 = state(&session);
    assert_eq!(with_5, state(&fresh));
    assert_ne!(with_5, at_10, "another seed, other calls fail");
    session.set_seed(0);
    assert_eq!(state(&session), at_10);
}

#[test]
fn an_invalid_share_is_refused() {
    let mut session = TickSession::new(catalogue::demo(4).unwrap().scenario()).unwrap();
    session.set_behaviour(flaky(101));
    assert_eq!(session.selects().0, Behaviour::Slow, "nothing changed");
    assert!(session.changes().is_empty());
    assert!(flaky(101).validate().is_err());
    assert!(flaky(100).validate().is_ok());
}

#[test]
fn names_round_trip_and_refuse_what_they_did_not_write() {
    for percent in [0, 1, FLAKY_DEFAULT_PERCENT, 100] {
        let b = flaky(percent);
        assert_eq!(Behaviour::from_name(&b.name()), Some(b));
        assert_eq!(b.kind_name(), "flaky");
    }
    assert_eq!(flaky(30).name(), "flaky-30");
    for unknown in [
        "flaky",
        "flaky-",
        "flaky-101",
        "flaky-030",
        "flaky--3",
        "flaky-3x",
        "Flaky-30",
    ] {
        assert_eq!(Behaviour::from_name(unknown), None, "{unknown}");
    }
}

#[test]
fn scenario_files_spell_it_in_camel_case_and_carry_the_seed() {
    let text = "name = \"flaky\"\nticks = 10\nseed = 7\n[tick]\nbehaviour = { flaky = { failurePercent = 30 } }\nprotection = \"circuit_breaker\"\n";
    let scenario = Scenario::parse(text, Format::Toml).unwrap();
    assert_eq!(scenario.tick.behaviour, flaky(30));
    assert_eq!(scenario.seed, 7);
    let json = scenario.save(Format::Json).unwrap();
    assert!(json.contains("\"failurePercent\": 30"), "{json}");
    assert_eq!(Scenario::parse(&json, Format::Json).unwrap(), scenario);

    // The file's seed is the run's: the same breaker states as a model with seed 7.
    let trace = scenario.run(None).unwrap();
    let mut model = TickModel::new(scenario.tick.clone()).unwrap().with_seed(7);
    for tick in &trace.ticks {
        model.step();
        assert_eq!(tick.breaker, model.breaker().map(|b| b.state().as_str()));
        assert_eq!(tick.fallbacks_served, model.tally().fallbacks_served);
    }

    for bad in [
        "name = \"x\"\n[tick]\nbehaviour = { flaky = { failurePercent = 101 } }\nprotection = \"none\"\n",
        "name = \"x\"\n[tick]\nbehaviour = \"slow\"\nprotection = \"none\"\n[[script]]\nat = 2\nbehaviour = { flaky = { failurePercent = 150 } }\n",
    ] {
        let err = Scenario::parse(bad, Format::Toml).unwrap_err();
        assert!(err.contains("failurePercent"), "{err}");
    }
}
