//! # The breaker sandbox (Demo 10, Lab F)
//!
//! ## Why it exists
//!
//! The other demos show a breaker inside a world: threads, a flaky payment service, a storm
//! of retries. There the breaker is one actor among many, and a learner who wants to know
//! *why* it opened at that tick has to untangle it from everything else. The sandbox takes
//! the world away. One breaker, one clock, and buttons: send a success, a failure, a slow
//! success, a business 404; move the clock; force a state; change any setting. Every press
//! shows what Resilience4j would do with exactly that call: how it was classified, what the
//! window now holds, whether a rate is computable yet, when OPEN will let a trial through.
//!
//! Two misconfigurations the course warns about are built in as step-by-step scenarios
//! ([`SandboxScenario`]): 404s counted as failures (a storm of "not found" answers opens
//! the breaker on a healthy dependency) and the default `slowCallDurationThreshold` of 60 s
//! (calls that take 2 s, far slower than the dependency promises, never count as slow).
//! "Configure from claims" ([`Claims`]) goes the other way: from what the dependency and the
//! team can state (latency percentile, incident length, which errors are answers, traffic)
//! to settings, each with the claim it rests on.
//!
//! Beside the breaker sits a fallback ladder ([`Rung`]): for each call, who answered the
//! user: the dependency (live), a cached earlier answer, a degraded default, or an honest
//! error. It makes the point that opening the breaker is only half of the design.
//!
//! ## How a session works
//!
//! [`BreakerSandbox`] is the whole state the page holds; every learner action is one method
//! (the page decides nothing). Internally the session keeps the list of actions and the
//! breaker they produced, and writes them down as a [`BreakerScript`]: the JSON that
//! `resilience-sim breaker FILE` reads, so a sandbox session can be exported, replayed by
//! the CLI and imported back ([`BreakerSandbox::export_json`],
//! [`BreakerSandbox::import_json`]).
//!
//! - The clock starts at 0 and only [`BreakerSandbox::advance`] moves it. A call is sent
//!   and answered at the same virtual instant; its duration only decides whether it is slow
//!   (as in breaker scripts). So "advance 10 s" after a trip reaches the end of the wait
//!   exactly, and Resilience4j's "strictly after the wait" rule can be seen.
//! - A send is an `acquire` step, then, if the breaker permits the call, a `success` or
//!   `error` step with the call's duration ([`SandboxCall`]).
//! - Resilience4j's `CircuitBreakerConfig` is immutable: a breaker is built with its config
//!   and keeps it. Changing a setting in the sandbox therefore builds a *new* breaker with the
//!   new config and replays every action from t = 0 on it: "the same calls, another
//!   config". A replayed call keeps its duration and exception; a call the new breaker
//!   refuses loses its answer (it was never sent). A refused setting leaves the session as
//!   it was, with a message naming the setting.
//! - The fallback part (the cache, its TTL, the degraded default, "empty the cache") is the
//!   sandbox's own: it is replayed with the rest, but the exported script carries the
//!   breaker part only (the CLI knows nothing of fallbacks), and an import keeps the
//!   sandbox's current fallback settings.
//! - Work is bounded whatever the input: at most [`MAX_STEPS`] script steps, a clock that
//!   stops at [`MAX_CLOCK_MS`], windows and half-open trials of at most
//!   [`SANDBOX_MAX_WINDOW`] (a replay re-creates the window at each state change), and the
//!   last [`MAX_LOG`] events and [`MAX_RECORDS`] calls kept for the page.
//!
//! The module follows the sections of the sandbox: `events` (Resilience4j's event names),
//! `calls` (calls and their records), `settings` (settings and the lab's controls),
//! `scenarios` (the misconfigurations to replay), `claims` (configure from a
//! dependency's claims) and `session` (the breaker driven call by call).

use std::collections::VecDeque;

use serde::Serialize;

use super::breaker_script::{
    parse_breaker_script, timers_spent, BreakerScript, BreakerStep, MAX_SCRIPT_CLOCK_MS,
    MAX_TIMERS_PER_SCRIPT,
};
use super::lab_session::{
    choice, millis, number, slider, Control, ControlKind, ControlValue, LabModel, LabSession,
    Section,
};
use crate::duration::format_duration;
use crate::error::ConfigError;
use crate::policy::circuit_breaker::config::exception_matches;
use crate::policy::circuit_breaker::{
    window, Bucket, CircuitBreaker, CircuitBreakerConfig, CircuitBreakerEvent, Metrics,
    SlidingWindowType, State, WindowCell, WindowKind,
};
use crate::policy::fallback::FallbackCache;
use crate::Millis;

mod calls;
mod claims;
mod events;
mod scenarios;
mod session;
mod settings;

pub use calls::*;
pub use claims::*;
pub use events::*;
pub use scenarios::*;
pub use session::*;
pub use settings::*;

/// How long a sandbox success, failure or 404 takes: 100 ms, fast under any
/// `slowCallDurationThreshold` the page offers (at least 100 ms; a call is slow only when
/// strictly longer).
pub const CALL_MS: Millis = 100;
/// A slow success takes `slowCallDurationThreshold` + 1 s: slow whatever the threshold.
pub const SLOW_MARGIN_MS: Millis = 1_000;
/// The most script steps a session holds (and an import may bring).
pub const MAX_STEPS: usize = 10_000;
/// The clock stops here (about 31.7 years), the last instant of a script
/// ([`MAX_SCRIPT_CLOCK_MS`]): advances saturate at it, imports beyond it are refused, so no
/// arithmetic on time can overflow.
pub const MAX_CLOCK_MS: Millis = MAX_SCRIPT_CLOCK_MS;
/// The largest `slidingWindowSize` and `permittedNumberOfCallsInHalfOpenState` the sandbox
/// accepts (the engine accepts up to a million; a replay re-creates the window at every
/// state change, so the sandbox keeps it small enough to replay at once).
pub const SANDBOX_MAX_WINDOW: u32 = 1_000;
/// Events kept for the page's log (the oldest leave first).
pub const MAX_LOG: usize = 200;
/// Calls kept for the page's list of calls (the oldest leave first).
pub const MAX_RECORDS: usize = 200;
/// Exceptions that carry an answer, not a failure (a 404, a card decline): the fallback
/// ladder passes them to the caller whatever the breaker made of them.
pub const ANSWER_EXCEPTIONS: [&str; 2] = ["NotFoundException", "CardDeclinedException"];
/// What a sandbox failure throws.
pub const FAILURE_EXCEPTION: &str = "IOException";
/// What a refused call throws.
pub const NOT_PERMITTED_EXCEPTION: &str = "CallNotPermittedException";

/// The sandbox's breaker settings (the course's): COUNT_BASED window of 10 calls, judged
/// from 10 calls on, opening at 50 % failures, waiting 10 s, 3 trials; slow calls at
/// Resilience4j's defaults (60 s, 100 %); 404s (`NotFoundException`) ignored, because a
/// "not found" is an answer. Everything else is Resilience4j's default.
pub fn sandbox_defaults() -> CircuitBreakerConfig {
    CircuitBreakerConfig {
        sliding_window_type: SlidingWindowType::CountBased,
        sliding_window_size: 10,
        minimum_number_of_calls: 10,
        failure_rate_threshold: 50.0,
        wait_duration_in_open_state: 10_000,
        permitted_number_of_calls_in_half_open_state: 3,
        ignore_exceptions: vec!["NotFoundException".to_string()],
        ..CircuitBreakerConfig::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::breaker_script::run_breaker_script;

    fn sends(s: &mut BreakerSandbox, kind: SandboxCall, n: usize) {
        for _ in 0..n {
            s.send(kind).unwrap();
        }
    }

    fn last(s: &BreakerSandbox) -> CallRecord {
        s.records().next_back().cloned().unwrap()
    }

    /// The sandbox and the CLI agree on the final state of an exported session.
    fn assert_cli_agrees(s: &BreakerSandbox) {
        let json = s.export_json().unwrap();
        let script = parse_breaker_script(&json).unwrap();
        assert_eq!(script, s.script());
        let reports = run_breaker_script(&script).unwrap();
        let r = reports.last().unwrap();
        let m = s.metrics();
        assert_eq!(r.state, s.state());
        assert_eq!(r.t_ms, s.now());
        assert_eq!(r.failure_rate, m.failure_rate);
        assert_eq!(r.slow_call_rate, m.slow_call_rate);
        assert_eq!(r.buffered, m.buffered);
        assert_eq!(r.failed, m.failed);
        assert_eq!(r.slow, m.slow);
        assert_eq!(r.not_permitted, m.not_permitted);
    }

    /// Spec: COUNT_BASED 10/10 at 50 %: 9 outcomes are below the minimum, the 10th (5 of
    /// 10 failed = 50 %, inclusive) opens; OPEN refuses until strictly after the 10 s wait.
    #[test]
    fn default_sequence_opens_and_waits_strictly_past_the_wait() {
        let mut s = BreakerSandbox::default();
        sends(&mut s, SandboxCall::Success, 5);
        sends(&mut s, SandboxCall::Failure, 4);
        assert_eq!(s.state(), State::Closed);
        assert_eq!(
            s.rates(),
            Rates::NotEnoughCalls {
                buffered: 9,
                minimum: 10
            }
        );
        assert_eq!(s.rates().describe(), "not enough calls: 9 of 10");
        let r = s.send(SandboxCall::Failure).unwrap();
        assert_eq!(r.class, CallClass::Failure);
        assert_eq!(
            (r.state_before, r.state_after),
            (State::Closed, State::Open)
        );
        assert_eq!(s.state(), State::Open);
        assert_eq!(s.metrics().failure_rate, 50.0);
        assert_eq!(s.open_wait_remaining(), Some(10_000));
        let names: Vec<_> = s.events().map(|e| e.event.name()).collect();
        assert_eq!(
            &names[names.len() - 3..],
            ["ERROR", "FAILURE_RATE_EXCEEDED", "STATE_TRANSITION"]
        );

        let r = s.send(SandboxCall::Success).unwrap();
        assert!(!r.permitted);
        assert_eq!(r.class, CallClass::NotPermitted);
        assert_eq!(r.exception.as_deref(), Some(NOT_PERMITTED_EXCEPTION));

        assert_eq!(s.advance(10_000), Ok(10_000));
        assert_eq!(s.open_wait_remaining(), Some(0));
        assert!(!s.send(SandboxCall::Success).unwrap().permitted);
        assert_eq!(s.metrics().not_permitted, 2);

        s.advance(1).unwrap();
        let r = s.send(SandboxCall::Success).unwrap();
        assert!(r.permitted);
        assert_eq!(r.state_before, State::Open);
        assert_eq!(s.state(), State::HalfOpen);
        assert_eq!(s.half_open_trials(), Some((1, 3)));
        assert_eq!(s.minimum_calls(), 3);
        assert_cli_agrees(&s);
    }

    #[test]
    fn the_plus_one_second_button_also_lets_the_first_trial_through() {
        let mut s = BreakerSandbox::default();
        sends(&mut s, SandboxCall::Failure, 10);
        assert_eq!(s.state(), State::Open);
        s.advance(10_000).unwrap();
        s.advance(1_000).unwrap();
        // Consecutive advances are one step.
        assert_eq!(
            s.script().steps.last(),
            Some(&BreakerStep::AdvanceMs(11_000))
        );
        assert!(s.send(SandboxCall::Success).unwrap().permitted);
        assert_eq!(s.state(), State::HalfOpen);
        // Two more successes: 3 of 3 trials, 0 % < 50 % -> CLOSED.
        sends(&mut s, SandboxCall::Success, 2);
        assert_eq!(s.state(), State::Closed);
        assert_cli_agrees(&s);
    }

    #[test]
    fn slow_button_is_slow_whatever_the_threshold() {
        let mut s = BreakerSandbox::default();
        let r = s.send(SandboxCall::Slow).unwrap();
        assert_eq!(r.duration_ms, Some(61_000));
        assert_eq!(r.class, CallClass::SlowSuccess);
        s.set_text("slowCallDurationThreshold", "500ms").unwrap();
        let r = s.send(SandboxCall::Slow).unwrap();
        assert_eq!(r.duration_ms, Some(1_500));
        assert_eq!(r.class, CallClass::SlowSuccess);
        // The first one keeps its 61 s on replay: still slow at 500 ms.
        assert_eq!(s.metrics().slow, 2);
    }

    /// 3 successes, then 404s: with ignoreExceptions empty the 7th 404 is the 10th outcome,
    /// 7 of 10 failed = 70 % >= 50 %: OPEN, and the 8th 404 is refused.
    #[test]
    fn not_found_storm_trips_unless_404_is_ignored() {
        let mut s = BreakerSandbox::default();
        s.load_scenario(SandboxScenario::NotFoundStorm);
        assert_eq!(s.pending_len(), 22);
        assert!(s.config().ignore_exceptions.is_empty());
        let mut applied = 0;
        while let Some(step) = s.step().unwrap() {
            applied += 1;
            if applied == 1 {
                assert_eq!(step, SandboxStep::Send(SandboxCall::Success));
                assert_eq!(s.calls_total(), 1);
            }
        }
        assert_eq!(applied, 22);
        assert_eq!(s.state(), State::Open);
        let m = s.metrics();
        assert_eq!((m.buffered, m.failed, m.not_permitted), (10, 7, 1));
        assert_eq!(m.failure_rate, 70.0);
        // The refused 404 at t = 2900 falls back to the answer cached at t = 1000.
        let r = last(&s);
        assert_eq!(r.at, 2_900);
        assert_eq!((r.rung, r.cache_age_ms), (Rung::StaleCache, Some(1_900)));
        // A permitted 404 is an answer, whatever the breaker made of it.
        let storm: Vec<_> = s
            .records()
            .filter(|r| r.permitted && r.exception.is_some())
            .collect();
        assert!(storm
            .iter()
            .all(|r| r.rung == Rung::Answer && r.class == CallClass::Failure));

        // Every step run, the misconfiguration in place: the fix is offered, and applied
        // it is the spec's (ignore the 404).
        assert_eq!(s.fix_to_offer(), Some(SandboxScenario::NotFoundStorm));
        s.apply_fix().unwrap();
        assert_eq!(s.fix_to_offer(), None);
        assert_eq!(s.config().ignore_exceptions.len(), 1);
        assert_eq!(s.state(), State::Closed);
        assert_eq!(
            s.rates(),
            Rates::NotEnoughCalls {
                buffered: 3,
                minimum: 10
            }
        );
        assert!(s
            .records()
            .filter(|r| r.sent == Some(SandboxCall::Ignored))
            .all(|r| r.class == CallClass::Ignored && !r.counted));
        assert_cli_agrees(&s);
    }

    /// 12 calls of 2 s: at 60 s none is slow; at 1 s the 10th makes 10 of 10 slow = 100 %
    /// >= 100 %: OPEN at t = 18 s, and the calls at 20 s and 22 s are refused (wait 10 s).
    #[test]
    fn two_second_calls_never_trip_at_60_s_but_trip_at_1_s() {
        let mut s = BreakerSandbox::default();
        s.load_scenario(SandboxScenario::SlowNeverTrips);
        assert_eq!(s.config().slow_call_duration_threshold, 60_000);
        assert_eq!(s.run_pending(), Ok(24));
        assert_eq!(s.pending_len(), 0);
        assert_eq!(s.state(), State::Closed);
        let m = s.metrics();
        assert_eq!((m.buffered, m.slow, m.slow_call_rate), (10, 0, 0.0));

        assert_eq!(s.fix_to_offer(), Some(SandboxScenario::SlowNeverTrips));
        s.apply_fix().unwrap();
        assert_eq!(s.config().slow_call_duration_threshold, 1_000);
        assert_eq!(s.state(), State::Open);
        let m = s.metrics();
        assert_eq!((m.buffered, m.slow, m.not_permitted), (10, 10, 2));
        assert_eq!(m.slow_call_rate, 100.0);
        let trip = s
            .events()
            .find(|e| e.event.name() == "SLOW_CALL_RATE_EXCEEDED")
            .unwrap();
        assert_eq!(trip.event.at(), 18_000);
        assert_cli_agrees(&s);
    }

    #[test]
    fn export_import_round_trip_matches_the_cli() {
        let mut s = BreakerSandbox::default();
        sends(&mut s, SandboxCall::Ignored, 2);
        sends(&mut s, SandboxCall::Failure, 6);
        sends(&mut s, SandboxCall::Success, 4);
        // 404s ignored; the 10th counted outcome (6 of 10 failed = 60 %) opens it.
        assert_eq!(s.state(), State::Open);
        s.send(SandboxCall::Success).unwrap(); // refused
        s.advance(10_500).unwrap();
        sends(&mut s, SandboxCall::Slow, 1);
        s.send(SandboxCall::Failure).unwrap();
        s.transition(State::ForcedOpen).unwrap();
        s.send(SandboxCall::Success).unwrap();
        s.transition(State::MetricsOnly).unwrap();
        sends(&mut s, SandboxCall::Failure, 3);
        s.reset().unwrap();
        s.send(SandboxCall::Failure).unwrap();
        s.empty_cache().unwrap();
        assert_cli_agrees(&s);

        let json = s.export_json().unwrap();
        let mut back = BreakerSandbox::default();
        back.import_json(&json).unwrap();
        assert_eq!(back.export_json().unwrap(), json);
        assert_eq!(back.state(), s.state());
        assert_eq!(back.metrics(), s.metrics());
        assert_eq!(back.now(), s.now());
        assert_eq!(back.calls_total(), s.calls_total());
        assert_eq!(back.steps_used(), s.script().steps.len());
        // The refused calls' kinds are not in the script.
        let refused: Vec<_> = back.records().filter(|r| !r.permitted).collect();
        assert!(!refused.is_empty() && refused.iter().all(|r| r.sent.is_none()));
        // The permitted ones come back as sandbox calls.
        let kinds: Vec<_> = back.records().take(12).map(|r| r.sent).collect();
        assert_eq!(kinds[0], Some(SandboxCall::Ignored));
        assert_eq!(kinds[2], Some(SandboxCall::Failure));
        assert_eq!(kinds[11], Some(SandboxCall::Success));

        // TIME_BASED too.
        let mut t = BreakerSandbox::default();
        t.set_text("slidingWindowType", "TIME_BASED").unwrap();
        t.set_text("slidingWindowSize", "5").unwrap();
        t.set_text("minimumNumberOfCalls", "4").unwrap();
        for _ in 0..6 {
            t.send(SandboxCall::Failure).unwrap();
            t.send(SandboxCall::Success).unwrap();
            t.advance(700).unwrap();
        }
        assert_eq!(t.window_buckets().len(), 5);
        assert_cli_agrees(&t);
    }

    #[test]
    fn import_keeps_the_cli_semantics_of_a_foreign_script() {
        // An answer after a refused acquire is still reported (a late answer in OPEN).
        let json = r#"{"config":{"slidingWindowSize":2,"minimumNumberOfCalls":2},
            "steps":[{"error":{"duration_ms":5,"exception":"IOException"}},
                     {"error":{"duration_ms":5,"exception":"IOException"}},
                     {"acquire":{}},{"success":{"duration_ms":5}},
                     {"transition":"HALF_OPEN"},{"transition":"CLOSED"},
                     {"transition":"HALF_OPEN"},{"release":{}}]}"#;
        let mut s = BreakerSandbox::default();
        s.import_json(json).unwrap();
        let script = parse_breaker_script(json).unwrap();
        let r = run_breaker_script(&script).unwrap();
        let last_report = r.last().unwrap();
        assert_eq!(s.state(), last_report.state);
        assert_eq!(s.metrics().buffered, last_report.buffered);
        assert_eq!(s.script().steps, script.steps);
        assert!(s
            .events()
            .any(|e| e.event.name() == "ILLEGAL_STATE_TRANSITION"));
        assert_eq!(s.calls_total(), 1); // the refused acquire
    }

    #[test]
    fn import_refuses_unbounded_or_invalid_scripts() {
        let mut s = BreakerSandbox::default();
        s.send(SandboxCall::Failure).unwrap();
        let before = s.export_json().unwrap();
        let too_many = format!(
            r#"{{"steps":[{}]}}"#,
            vec![r#"{"acquire":{}}"#; MAX_STEPS + 1].join(",")
        );
        let too_late = r#"{"steps":[{"advance_ms":900000000000},{"advance_ms":900000000000}]}"#;
        let overflow = r#"{"steps":[{"advance_ms":18446744073709551615},{"advance_ms":1}]}"#;
        let big_window = r#"{"config":{"slidingWindowSize":5000},"steps":[]}"#;
        let invalid = r#"{"config":{"failureRateThreshold":0},"steps":[]}"#;
        for (json, expected) in [
            (too_many.as_str(), "10000"),
            (too_late, "last instant"),
            (overflow, "last instant"),
            (big_window, "slidingWindowSize"),
            (invalid, "failureRateThreshold"),
            ("{", "invalid breaker script"),
        ] {
            let e = s.import_json(json).unwrap_err();
            assert!(e.contains(expected), "{e}");
            assert!(!e.contains('\n'));
            assert_eq!(s.export_json().unwrap(), before);
        }
        // Exactly the limit is accepted.
        let at_limit = format!(
            r#"{{"steps":[{}]}}"#,
            vec![r#"{"acquire":{}}"#; MAX_STEPS].join(",")
        );
        s.import_json(&at_limit).unwrap();
        assert_eq!(s.steps_used(), MAX_STEPS);
        assert!(s.send(SandboxCall::Success).is_err());
    }

    #[test]
    fn the_session_is_bounded() {
        let mut s = BreakerSandbox::default();
        sends(&mut s, SandboxCall::Success, MAX_STEPS / 2);
        let e = s.send(SandboxCall::Success).unwrap_err();
        assert!(e.contains("10000"), "{e}");
        assert_eq!(s.calls_total(), (MAX_STEPS / 2) as u64);
        assert_eq!(s.records().len(), MAX_RECORDS);
        assert_eq!(s.events().len(), MAX_LOG);
        assert_eq!(
            s.events().next().unwrap().seq,
            s.events_total() - MAX_LOG as u64 + 1
        );
        // The clock saturates.
        let mut t = BreakerSandbox::default();
        assert_eq!(t.advance(Millis::MAX), Ok(MAX_CLOCK_MS));
        assert_eq!(t.advance(5), Ok(MAX_CLOCK_MS));
        assert_eq!(t.script().steps, [BreakerStep::AdvanceMs(MAX_CLOCK_MS)]);
    }

    /// Defaults need 10 outcomes: 5 failures stay CLOSED. With minimumNumberOfCalls 5 the
    /// replay opens at the 5th (5 of 5 = 100 %), so calls 6 to 10 are refused and lose
    /// their answers: 5 x 2 + 5 x 1 steps.
    #[test]
    fn a_setting_change_replays_the_whole_session() {
        let mut s = BreakerSandbox::default();
        sends(&mut s, SandboxCall::Failure, 10);
        assert_eq!(s.state(), State::Open);
        assert_eq!(s.metrics().not_permitted, 0);
        s.set_text("minimumNumberOfCalls", "5").unwrap();
        assert_eq!(
            s.control_value("minimumNumberOfCalls"),
            Some(ControlValue::Number(5.0))
        );
        assert_eq!(s.state(), State::Open);
        let m = s.metrics();
        assert_eq!((m.buffered, m.failed, m.not_permitted), (5, 5, 5));
        assert_eq!(s.script().steps.len(), 15);
        assert_eq!(s.records().filter(|r| !r.permitted).count(), 5);
        // Back: the same 10 calls, all sent again.
        s.set("minimumNumberOfCalls", ControlValue::Number(10.0))
            .unwrap();
        assert_eq!(s.script().steps.len(), 20);
        assert_eq!(s.metrics().not_permitted, 0);
        assert_cli_agrees(&s);
    }

    #[test]
    fn a_refused_setting_changes_nothing() {
        let mut s = BreakerSandbox::default();
        sends(&mut s, SandboxCall::Failure, 3);
        let before = s.export_json().unwrap();
        let e = s.set_text("slidingWindowSize", "0").unwrap_err();
        assert_eq!(e.field, "slidingWindowSize");
        let e = s.set_text("windowSize", "5").unwrap_err();
        assert_eq!(e.field, "windowSize");
        let e = s
            .set("failureRateThreshold", ControlValue::Number(120.0))
            .unwrap_err();
        assert_eq!(e.field, "failureRateThreshold");
        let e = s
            .set_config(CircuitBreakerConfig {
                failure_rate_threshold: 0.0,
                ..sandbox_defaults()
            })
            .unwrap_err();
        assert_eq!(e.field, "failureRateThreshold");
        let e = s
            .set_config(CircuitBreakerConfig {
                sliding_window_size: SANDBOX_MAX_WINDOW + 1,
                ..sandbox_defaults()
            })
            .unwrap_err();
        assert_eq!(e.field, "slidingWindowSize");
        assert_eq!(s.export_json().unwrap(), before);
        assert_eq!(s.settings(), &SandboxSettings::default());
    }

    #[test]
    fn an_illegal_transition_changes_nothing() {
        let mut s = BreakerSandbox::default();
        s.send(SandboxCall::Failure).unwrap();
        let steps = s.script().steps.len();
        let e = s.transition(State::HalfOpen).unwrap_err();
        assert!(e.contains("CLOSED -> HALF_OPEN"), "{e}");
        assert_eq!(s.state(), State::Closed);
        assert_eq!(s.metrics().buffered, 1);
        assert_eq!(s.script().steps.len(), steps);
        s.transition(State::MetricsOnly).unwrap();
        assert!(s.transition(State::Open).is_err());
        assert_eq!(s.state(), State::MetricsOnly);
        s.transition(State::Disabled).unwrap();
        assert_eq!(s.rates(), Rates::NotRecording);
        let r = s.send(SandboxCall::Failure).unwrap();
        assert!(r.permitted && !r.counted);
        s.transition(State::ForcedOpen).unwrap();
        assert!(!s.send(SandboxCall::Success).unwrap().permitted);
    }

    /// TTL 30 s: a cached answer is served at ages up to 29.999 s, not at 30 s.
    #[test]
    fn fallback_ladder() {
        let mut s = BreakerSandbox::default();
        // Nothing cached yet: the degraded default.
        assert_eq!(
            s.send(SandboxCall::Failure).unwrap().rung,
            Rung::DegradedDefault
        );
        assert_eq!(s.send(SandboxCall::Success).unwrap().rung, Rung::Live);
        assert_eq!(s.cache_age(), Some(0));
        s.advance(1_000).unwrap();
        let r = s.send(SandboxCall::Failure).unwrap();
        assert_eq!((r.rung, r.cache_age_ms), (Rung::StaleCache, Some(1_000)));
        assert_eq!(s.send(SandboxCall::Ignored).unwrap().rung, Rung::Answer);
        s.advance(28_999).unwrap();
        let r = s.send(SandboxCall::Failure).unwrap();
        assert_eq!((r.rung, r.cache_age_ms), (Rung::StaleCache, Some(29_999)));
        s.advance(1).unwrap();
        assert!(!s.cache_fresh());
        assert_eq!(
            s.send(SandboxCall::Failure).unwrap().rung,
            Rung::DegradedDefault
        );
        // Without the default, an honest error (the whole session is replayed).
        s.set_text("degradedDefault", "false").unwrap();
        assert_eq!(last(&s).rung, Rung::HonestError);
        assert_eq!(s.records().next().unwrap().rung, Rung::HonestError);
        // A longer TTL turns it into a cached answer.
        s.set_text("cacheTtl", "60s").unwrap();
        assert_eq!(last(&s).rung, Rung::StaleCache);

        // A refused call falls back too; emptying the cache is not a breaker step.
        let mut t = BreakerSandbox::default();
        t.send(SandboxCall::Success).unwrap();
        sends(&mut t, SandboxCall::Failure, 9);
        assert_eq!(t.state(), State::Open);
        let r = t.send(SandboxCall::Success).unwrap();
        assert!(!r.permitted);
        assert_eq!(r.rung, Rung::StaleCache);
        let steps = t.script().steps.len();
        t.empty_cache().unwrap();
        assert_eq!(t.script().steps.len(), steps);
        assert_eq!(
            t.events().next_back().unwrap().event.name(),
            "CACHE_EMPTIED"
        );
        assert_eq!(t.cache_age(), None);
        assert_eq!(
            t.send(SandboxCall::Success).unwrap().rung,
            Rung::DegradedDefault
        );
        // The emptying is replayed in place.
        t.set_text("cacheTtl", "40s").unwrap();
        assert_eq!(last(&t).rung, Rung::DegradedDefault);
    }

    /// 800 ms p99.5, 30 s incidents, answers as errors, 5 probes, 50 calls/s: 500 calls in
    /// 10 s, so TIME_BASED 10 s judged from 250 calls.
    #[test]
    fn settings_from_claims() {
        let claims = Claims {
            p995_latency_ms: 800,
            typical_incident_s: 30,
            answers_are_errors: true,
            probes: 5,
            calls_per_second: 50.0,
        };
        let settings = claims.settings().unwrap();
        let value = |name: &str| {
            settings
                .iter()
                .find(|s| s.name == name)
                .map(|s| s.value.clone())
                .unwrap()
        };
        // 800 ms and a 25 % margin; half the calls that slow opens it.
        assert_eq!(value("slowCallDurationThreshold"), "1s");
        assert_eq!(value("slowCallRateThreshold"), "50");
        assert_eq!(value("waitDurationInOpenState"), "30s");
        assert_eq!(
            value("ignoreExceptions"),
            "NotFoundException,CardDeclinedException"
        );
        assert_eq!(value("permittedNumberOfCallsInHalfOpenState"), "5");
        assert_eq!(value("slidingWindowType"), "TIME_BASED");
        assert_eq!(value("slidingWindowSize"), "10");
        assert_eq!(value("minimumNumberOfCalls"), "250");
        assert!(settings.iter().all(|s| !s.claim.is_empty()));
        let minimum = settings
            .iter()
            .find(|s| s.name == "minimumNumberOfCalls")
            .unwrap();
        assert_eq!(
            minimum.claim,
            "judge once the window holds 5 s of traffic: 250 calls at 50 calls/s"
        );

        let mut s = BreakerSandbox::default();
        s.apply_claims(&claims).unwrap();
        let c = s.config();
        assert_eq!(c.slow_call_duration_threshold, 1_000);
        assert_eq!(c.slow_call_rate_threshold, 50.0);
        assert_eq!(c.wait_duration_in_open_state, 30_000);
        assert_eq!(c.minimum_number_of_calls, 250);
        assert_eq!(c.failure_rate_threshold, 50.0); // not claimed: kept
        assert_eq!(
            s.control_value("ignoreExceptions"),
            Some(ControlValue::Choice(
                "NotFoundException,CardDeclinedException"
            ))
        );

        // 0.5 calls/s: 5 calls in 10 s, too few for a time window.
        let trickle = Claims {
            calls_per_second: 0.5,
            answers_are_errors: false,
            ..claims
        };
        let c = trickle.apply_to(&sandbox_defaults()).unwrap();
        assert_eq!(c.sliding_window_type, SlidingWindowType::CountBased);
        assert_eq!((c.sliding_window_size, c.minimum_number_of_calls), (10, 10));
        assert!(c.ignore_exceptions.is_empty());
        // 1 call/s: exactly 10 calls in 10 s; half is 5, so the floor of 10.
        let one = Claims {
            calls_per_second: 1.0,
            ..claims
        };
        let c = one.apply_to(&sandbox_defaults()).unwrap();
        assert_eq!(c.sliding_window_type, SlidingWindowType::TimeBased);
        assert_eq!(c.minimum_number_of_calls, 10);

        // Refusals name the setting and change nothing.
        let before = s.settings().clone();
        let no_probes = Claims {
            probes: 0,
            ..claims
        };
        assert_eq!(
            s.apply_claims(&no_probes).unwrap_err().field,
            "permittedNumberOfCallsInHalfOpenState"
        );
        let no_rate = Claims {
            calls_per_second: f64::NAN,
            ..claims
        };
        assert_eq!(
            s.apply_claims(&no_rate).unwrap_err().field,
            "callsPerSecond"
        );
        assert_eq!(s.settings(), &before);
    }

    /// The brownout the claims are for: a 1.5 s p99.5 at 1 call/s (a 10 s window judged
    /// from 10 calls), then 9 calls in 10 at 2 s. The claimed breaker opens on the slow-call
    /// rate; the defaults (slow-call rate 100 %) would stay CLOSED.
    #[test]
    fn claims_catch_a_brownout() {
        let claims = Claims {
            p995_latency_ms: 1_500,
            typical_incident_s: 30,
            answers_are_errors: false,
            probes: 3,
            calls_per_second: 1.0,
        };
        let brownout = |s: &mut BreakerSandbox| {
            for i in 0..10 {
                let duration = if i % 10 == 0 { 300 } else { 2_000 };
                s.send_timed(SandboxCall::Success, duration).unwrap();
                s.advance(1_000).unwrap();
            }
        };
        let mut claimed = BreakerSandbox::default();
        claimed.apply_claims(&claims).unwrap();
        assert_eq!(claimed.config().slow_call_duration_threshold, 1_875);
        brownout(&mut claimed);
        assert_eq!(claimed.state(), State::Open);
        let mut defaults = BreakerSandbox::default();
        brownout(&mut defaults);
        assert_eq!(defaults.state(), State::Closed);
    }

    #[test]
    fn controls_are_named_as_the_config_and_hold_the_defaults() {
        let json = serde_json::to_value(sandbox_defaults()).unwrap();
        let settings = SandboxSettings::default();
        let mut names = std::collections::HashSet::new();
        for c in BreakerSandbox::controls() {
            assert!(names.insert(c.name), "{} twice", c.name);
            assert_eq!(
                json.get(c.name).is_some(),
                c.section != Section::Page,
                "{}",
                c.name
            );
            let value = (c.get)(&settings);
            assert_eq!(c.check(value), Ok(value), "{}", c.name);
            // Writing a control's own value back changes nothing.
            let mut same = settings.clone();
            (c.set)(&mut same, value);
            assert_eq!(same, settings, "{}", c.name);
        }
        // The page's defaults: the course's, and Resilience4j's for the rest.
        assert_eq!(settings.config.slow_call_duration_threshold, 60_000);
        assert_eq!(settings.config.slow_call_rate_threshold, 100.0);
        assert_eq!(settings.cache_ttl_ms, 30_000);
        assert!(settings.degraded_default);
        // An imported list is shown as "custom", and "custom" keeps it.
        let mut s = BreakerSandbox::default();
        s.set_config(CircuitBreakerConfig {
            ignore_exceptions: vec!["MyBusinessException".into()],
            exceptions: [("MyBusinessException".into(), "RuntimeException".into())].into(),
            ..sandbox_defaults()
        })
        .unwrap();
        assert_eq!(
            s.control_value("ignoreExceptions"),
            Some(ControlValue::Choice(CUSTOM_LIST))
        );
        s.set_text("ignoreExceptions", CUSTOM_LIST).unwrap();
        assert_eq!(s.config().ignore_exceptions, ["MyBusinessException"]);
        s.set_text("recordExceptions", "IOException,TimeoutException")
            .unwrap();
        // A 404 is then neither recorded nor ignored: it counts as a success.
        s.set_text("ignoreExceptions", "none").unwrap();
        assert_eq!(
            s.send(SandboxCall::Ignored).unwrap().class,
            CallClass::Success
        );
    }

    /// 10 calls at 50 %: 5 failures; 100 %: all 10 slow; HALF_OPEN decides after
    /// min(10, 3) = 3 trials.
    #[test]
    fn settings_summary() {
        let summary = SandboxSettings::default().run().unwrap();
        assert_eq!(
            summary,
            SettingsSummary {
                minimum_calls: 10,
                failures_to_trip: 5,
                slow_calls_to_trip: 10,
                half_open_decision_calls: 3,
            }
        );
        let mut settings = SandboxSettings::default();
        settings.config.minimum_number_of_calls = 50; // clamped to the window of 10
        settings.config.failure_rate_threshold = 33.0;
        let summary = settings.run().unwrap();
        // 33 % of 10: 3 failures are 30 %, 4 are 40 %.
        assert_eq!((summary.minimum_calls, summary.failures_to_trip), (10, 4));
        // TIME_BASED does not clamp; a huge minimum costs nothing: half of u32::MAX,
        // rounded up, reaches 50 %.
        settings.config.sliding_window_type = SlidingWindowType::TimeBased;
        settings.config.minimum_number_of_calls = u32::MAX;
        settings.config.failure_rate_threshold = 50.0;
        let summary = settings.run().unwrap();
        assert_eq!(summary.minimum_calls, u32::MAX);
        let k = summary.failures_to_trip;
        assert!(window::percent(k, u32::MAX) >= 50.0);
        assert!(window::percent(k - 1, u32::MAX) < 50.0);
        // 100 % in f32 is reached a little before u32::MAX (f32 has 24 bits).
        let k = summary.slow_calls_to_trip;
        assert!(window::percent(k, u32::MAX) >= 100.0);
        assert!(window::percent(k - 1, u32::MAX) < 100.0);
    }

    #[test]
    fn event_names_are_resilience4js() {
        let mut s = BreakerSandbox::default();
        s.send(SandboxCall::Success).unwrap();
        s.send(SandboxCall::Ignored).unwrap();
        s.reset().unwrap();
        let lines: Vec<_> = s
            .events()
            .map(|e| format!("{} {}", e.event.name(), e.event.detail()))
            .collect();
        assert_eq!(
            lines,
            [
                "SUCCESS 100 ms",
                "IGNORED_ERROR NotFoundException after 100 ms",
                "RESET "
            ]
        );
    }
}
