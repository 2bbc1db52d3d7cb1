//! Going back in a session replays from the nearest snapshot (issue 14: a link at
//! t = 100,000 made every Step back replay all of it). Whatever the path, the session must
//! hold exactly the model a fresh replay from t = 0 gives.

use resilience_sim::model::tick::{Behaviour, Protection};
use resilience_sim::scenario::catalogue;
use resilience_sim::scenario::session::{TickSession, CHECKPOINTS_KEPT};

fn session(demo: u32) -> TickSession {
    TickSession::new(catalogue::demo(demo).unwrap().scenario()).unwrap()
}

/// The same changes and tick, played from t = 0 in a new session.
fn fresh(s: &TickSession, demo: u32) -> String {
    let mut other = session(demo);
    other.set_seed(s.seed());
    other.restore(s.changes().to_vec(), s.tick());
    format!("{:?}", other.model())
}

#[test]
fn stepping_back_from_far_ahead_gives_the_replayed_model() {
    let mut s = session(7);
    s.set_behaviour(Behaviour::Flaky {
        failure_percent: 40,
    });
    s.go_to(5_000);
    for t in [4_999, 4_096, 4_095, 1_000, 257, 256, 255, 3, 0] {
        s.go_to(t);
        assert_eq!(s.tick(), t);
        assert_eq!(format!("{:?}", s.model()), fresh(&s, 7), "at t = {t}");
    }
}

#[test]
fn a_change_after_going_back_replaces_the_future_and_its_snapshots() {
    let mut s = session(4);
    s.go_to(3_000);
    s.go_to(700);
    s.set_protection(Protection::CircuitBreaker);
    s.go_to(2_600);
    s.go_to(1_500);
    s.set_behaviour(Behaviour::Healthy);
    s.go_to(2_900);
    for t in [2_899, 2_048, 1_501, 1_500, 800, 701, 700, 10] {
        s.go_to(t);
        assert_eq!(format!("{:?}", s.model()), fresh(&s, 4), "at t = {t}");
    }
}

#[test]
fn a_hundred_thousand_ticks_keep_a_bounded_number_of_snapshots() {
    // Not timed (timings are measured, not asserted): this checks the bound that keeps
    // Step back near the end of the longest run a replay of at most a few thousand ticks.
    let mut s = session(3);
    s.go_to(100_000);
    assert!(
        (1..=CHECKPOINTS_KEPT).contains(&s.snapshots()),
        "{}",
        s.snapshots()
    );
    s.step_back();
    assert_eq!(s.tick(), 99_999);
    assert_eq!(format!("{:?}", s.model()), fresh(&s, 3));
}

/// What the run did in the demo's own ticks, as a new session with the played settings,
/// seed and changes gives it at the demo's last tick.
fn fresh_demo_summary(s: &TickSession) -> String {
    let mut other = TickSession::new(s.scenario().clone()).unwrap();
    other.restore(s.changes().to_vec(), s.scenario().ticks);
    format!("{:?}", other.model().summary())
}

/// The page writes "What happened" from `demo_summary` once the demo's ticks are played,
/// and leaves it alone while the learner plays on. Whatever the learner does (step back
/// across the demo's end, change a select before or after it, reset, new settings, a new
/// seed, far ahead and back through the snapshots), it must tell the demo's ticks of the
/// run being played: what a fresh replay to the demo's last tick tells.
#[test]
fn the_demos_story_belongs_to_the_run_being_played() {
    for demo in [1, 3, 5, 7] {
        let mut s = session(demo);
        let end = s.scenario().ticks;
        // A fixed walk of intents: a small linear congruential generator, so a failure
        // names the step and repeats.
        let mut state: u64 = 0x2545_f491_4f6c_dd1d ^ u64::from(demo);
        for step in 0..400 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let pick = (state >> 33) % 100;
            match pick {
                0..=39 => s.next_tick(),
                40..=54 => s.step_back(),
                55..=62 => s.set_behaviour(if pick.is_multiple_of(2) {
                    Behaviour::Healthy
                } else {
                    Behaviour::Failing
                }),
                63..=69 => s.set_protection(if pick.is_multiple_of(2) {
                    Protection::CircuitBreaker
                } else {
                    Protection::None
                }),
                70..=74 => s.go_to(end + (state >> 40) as u32 % 600),
                75..=79 => s.go_to((state >> 40) as u32 % (end + 2)),
                80..=83 => s.set_seed(state >> 50),
                84..=87 => {
                    let mut breaker = s.scenario().tick.circuit_breaker.clone();
                    breaker.minimum_number_of_calls = 2 + (state >> 45) as u32 % 3;
                    let bulkhead = s.scenario().tick.bulkhead.clone();
                    s.apply_settings(breaker, bulkhead).unwrap();
                }
                88..=89 => s.reset(),
                _ => {
                    let (changes, t) = (s.changes().to_vec(), (state >> 40) as u32 % 300);
                    s.restore(changes, t);
                }
            }
            match s.demo_summary() {
                None => assert!(s.tick() < end, "demo {demo}, step {step}: t = {}", s.tick()),
                Some(told) => {
                    assert!(s.tick() >= end);
                    assert_eq!(
                        format!("{told:?}"),
                        fresh_demo_summary(&s),
                        "demo {demo}, step {step}: t = {}",
                        s.tick()
                    );
                }
            }
        }
    }
}

/// Demo 3 played on far past its 10 ticks still tells those 10 ticks, by the spec: the
/// breaker opens at t = 3, goes HALF_OPEN at t = 6, opens again at t = 7 and goes
/// HALF_OPEN again at t = 10.
#[test]
fn demo_3_played_on_tells_its_own_ten_ticks() {
    let mut s = session(3);
    assert!(s.demo_summary().is_none());
    s.go_to(10);
    let at_end = format!("{:?}", s.demo_summary().unwrap());
    s.go_to(101);
    let told = s.demo_summary().unwrap();
    assert_eq!(format!("{told:?}"), at_end);
    assert_eq!(told.ticks, 10);
    let changes: Vec<(u32, &str, &str)> = told
        .transitions
        .iter()
        .map(|t| (t.tick, t.from.as_str(), t.to.as_str()))
        .collect();
    assert_eq!(
        changes,
        [
            (3, "CLOSED", "OPEN"),
            (6, "OPEN", "HALF_OPEN"),
            (7, "HALF_OPEN", "OPEN"),
            (10, "OPEN", "HALF_OPEN")
        ]
    );
}
