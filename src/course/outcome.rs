//! "What happened" in a tick demo, written from the learner's own run of the demo's ticks
//! (`TickSession::demo_summary`: the same story however far the learner plays on, while
//! the panels above tell the later ticks). The engine's [`RunSummary`] holds the facts
//! (which payments failed, why the breaker changed state, who holds the threads), and this
//! module only puts them into sentences. The demo's lesson follows, with a word when the
//! learner's changes took its point away.
//!
//! Also the demo's setup in one sentence, read from the engine's world.

use resilience_sim::model::summary::{RunSummary, TickSpan, TransitionReason};
use resilience_sim::model::tick::{Protection, TickWorld, Transition};
use resilience_sim::policy::circuit_breaker::State;
use resilience_sim::scenario::catalogue::DemoInfo;

use crate::format::{decimal, rate};

/// How many of the latest breaker state changes the text tells one by one.
const CHANGES_TOLD: usize = 4;

/// `1 call`, `2 calls`.
fn count(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The ticks of `spans`: `t = 3`, `t = 3 and t = 4`, `t = 3 to 6`, `t = 3 to 5 and t = 7`.
fn ticks_phrase(spans: &[TickSpan]) -> String {
    let parts: Vec<String> = spans
        .iter()
        .map(|s| match s.to.saturating_sub(s.from) {
            0 => format!("t = {}", s.from),
            1 => format!("t = {} and t = {}", s.from, s.to),
            _ => format!("t = {} to {}", s.from, s.to),
        })
        .collect();
    match parts.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// The world of the tick demos in one sentence, e.g. "order-api has 6 worker threads.
/// Every tick, 2 calls to recommendations and then 1 call to payment arrive; each call
/// holds a thread until it answers, or times out after 3 ticks."
pub fn setup_sentence(world: &TickWorld) -> String {
    format!(
        "The setup: order-api has {}. Every tick, {} to recommendations and then {} to payment arrive; each call holds a thread until it answers, or times out after {}.",
        count(world.threads, "worker thread", "worker threads"),
        count(world.recommendations_per_tick, "call", "calls"),
        count(world.payment_per_tick, "call", "calls"),
        count(world.timeout_ticks, "tick", "ticks"),
    )
}

/// The paragraphs of "What happened" for a run of demo `demo` summed up by `s` (the
/// lesson not included: it is the demo's own text).
pub fn what_happened(demo: &DemoInfo, s: &RunSummary) -> Vec<String> {
    let mut paragraphs = vec![payments(s)];
    paragraphs.extend(breaker(s));
    paragraphs.push(threads(s));
    paragraphs.extend(moot(demo, s));
    paragraphs
}

/// Failed payments, when, and why.
fn payments(s: &RunSummary) -> String {
    let failed = s.tally.payment_failures;
    if failed == 0 {
        return format!(
            "No payment failed in these {}.",
            count(s.ticks, "tick", "ticks")
        );
    }
    let mut p = format!(
        "{} ({}).",
        count(failed, "payment failed", "payments failed"),
        ticks_phrase(&s.payment_failure_spans)
    );
    if s.payments_without_thread == failed {
        p.push_str(if failed == 1 {
            " Payment itself was healthy: that call found no free worker thread, because recommendations held them."
        } else {
            " Payment itself was healthy: each of those calls found no free worker thread, because recommendations held them."
        });
    }
    p
}

/// Why the breaker changed state, each time, or why it did not; then what it refused;
/// nothing without a breaker. Two paragraphs: while the breaker is OPEN the refusals' count
/// changes nearly every tick, the story of its changes only when there is a new one, and
/// the page lays out again only the paragraph whose words changed (docs/performance.md,
/// "Words laid out again").
fn breaker(s: &RunSummary) -> Vec<String> {
    if s.breaker_ticks == 0 {
        return Vec::new();
    }
    let mut p = String::new();
    if s.transitions.is_empty() {
        p = format!(
            "The breaker stayed CLOSED: its window never held {} with a failure rate of {} % or more.",
            count(s.minimum_number_of_calls, "outcome", "outcomes"),
            decimal(s.failure_rate_threshold)
        );
    } else {
        let told = s.transitions.len().min(CHANGES_TOLD);
        if s.transition_count as usize > told {
            p = format!(
                "The breaker changed state {} times; the last {told}: ",
                s.transition_count
            );
        }
        let latest = &s.transitions[s.transitions.len() - told..];
        for (i, t) in latest.iter().enumerate() {
            if i > 0 {
                p.push(' ');
            }
            p.push_str(&change(t));
        }
    }
    let mut paragraphs = vec![p];
    if s.tally.refused_by_breaker > 0 {
        paragraphs.push(format!(
            "In all it refused {} at once (CallNotPermittedException): no thread, no waiting, and the page showed the cached list.",
            count(
                s.tally.refused_by_breaker,
                "recommendations call",
                "recommendations calls"
            )
        ));
    }
    paragraphs
}

/// One state change and its reason, as a sentence.
fn change(t: &Transition) -> String {
    let at = t.tick;
    match (t.to, t.reason) {
        (State::Open, TransitionReason::FailureRate { rate: r, threshold }) => format!(
            "At t = {at} the breaker opened: {} % of the outcomes in its window were failures, at or above its {} % threshold.",
            rate(r),
            decimal(threshold)
        ),
        (State::Open, TransitionReason::SlowCallRate { rate: r, threshold }) => format!(
            "At t = {at} the breaker opened: {} % of the calls in its window were slow, at or above its {} % threshold for slow calls.",
            rate(r),
            decimal(threshold)
        ),
        (State::HalfOpen, TransitionReason::WaitOver { waited_ticks }) => format!(
            "At t = {at}, after {} OPEN, its wait was over and it went HALF_OPEN to let a few trial calls through.",
            count(waited_ticks, "tick", "ticks")
        ),
        (State::Closed, TransitionReason::Trials { succeeded, failed }) => format!(
            "At t = {at} it closed again: {} of its {} answered, a failure rate below the threshold.",
            succeeded,
            count(succeeded.saturating_add(failed), "trial call", "trial calls")
        ),
        (State::Open, TransitionReason::Trials { succeeded, failed }) if failed > 0 => format!(
            "At t = {at} it opened again: {failed} of its {} failed.",
            count(succeeded.saturating_add(failed), "trial call", "trial calls")
        ),
        (State::Open, TransitionReason::Trials { .. }) => format!(
            "At t = {at} it opened again: its trial calls were too slow."
        ),
        _ => format!(
            "At t = {at} the breaker moved from {} to {}.",
            t.from.as_str(),
            t.to.as_str()
        ),
    }
}

/// Who holds the threads at the end, and the fallbacks shown.
fn threads(s: &RunSummary) -> String {
    let mut p = format!(
        "After t = {} recommendations held {} of the {} worker threads",
        s.ticks, s.recommendations_threads, s.threads
    );
    if s.peak_recommendations_threads > s.recommendations_threads {
        p.push_str(&format!(
            " (at most {} at once)",
            s.peak_recommendations_threads
        ));
    }
    p.push('.');
    if s.tally.refused_by_bulkhead > 0 {
        p.push_str(&format!(
            " The bulkhead refused {} over its limit, at once and without a thread.",
            count(s.tally.refused_by_bulkhead, "call", "calls")
        ));
    }
    if s.tally.fallbacks_served > 0 {
        p.push_str(&format!(
            " The page showed the cached recommendations {} instead of fresh ones.",
            count(s.tally.fallbacks_served, "time", "times")
        ));
    }
    p
}

/// What the learner's changes did to the demo's point, if anything.
fn moot(demo: &DemoInfo, s: &RunSummary) -> Vec<String> {
    let mut notes = Vec::new();
    if s.ticks > 0 && s.service_failures == 0 {
        notes.push(
            "Recommendations never failed or timed out in this run, so there was nothing to protect against and the demo's point does not show. Reset to see it."
                .to_string(),
        );
    }
    let about = |has: fn(Protection) -> bool, ticks: u32, name: &str| {
        if !has(demo.protection) || ticks == s.ticks {
            None
        } else if ticks == 0 {
            Some(format!(
                "No {name} guarded recommendations in this run, so the demo's point about the {name} does not show."
            ))
        } else {
            Some(format!(
                "The {name} guarded recommendations in only {} of the {}, so the numbers differ from the demo's.",
                ticks,
                count(s.ticks, "tick", "ticks")
            ))
        }
    };
    notes.extend(about(
        Protection::has_breaker,
        s.breaker_ticks,
        "circuit breaker",
    ));
    notes.extend(about(
        Protection::has_bulkhead,
        s.bulkhead_ticks,
        "bulkhead",
    ));
    if demo.protection == Protection::None && (s.breaker_ticks > 0 || s.bulkhead_ticks > 0) {
        notes.push(
            "You added a protection, so this is no longer the unprotected run the demo is about."
                .to_string(),
        );
    } else {
        // A protection the demo does not have changes what its lesson says.
        let added = |has: fn(Protection) -> bool, ticks: u32, name: &str| {
            (!has(demo.protection) && ticks > 0).then(|| {
                format!("You added a {name}, so the lesson below is about a different run.")
            })
        };
        notes.extend(added(
            Protection::has_breaker,
            s.breaker_ticks,
            "circuit breaker",
        ));
        notes.extend(added(
            Protection::has_bulkhead,
            s.bulkhead_ticks,
            "bulkhead",
        ));
    }
    // The bulkhead's point is its refusals: a run that never fills it does not show it.
    if demo.protection.has_bulkhead()
        && s.bulkhead_ticks > 0
        && s.service_failures > 0
        && s.tally.refused_by_bulkhead == 0
    {
        notes.push(
            "The bulkhead never refused a call in this run: recommendations never needed more than its permits, so the demo's point about the bulkhead does not show."
                .to_string(),
        );
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use resilience_sim::model::tick::TickWorld;
    use resilience_sim::scenario::catalogue;
    use resilience_sim::scenario::session::TickSession;

    /// Demo `number` played for `ticks` ticks, with `edit` applied to its breaker settings
    /// and the select `changes` (tick, protection) made along the way.
    fn run(
        number: u32,
        ticks: u32,
        edit: impl FnOnce(&mut resilience_sim::policy::circuit_breaker::CircuitBreakerConfig),
        protection_at: Option<(u32, Protection)>,
    ) -> (DemoInfo, RunSummary) {
        let demo = *catalogue::demo(number).unwrap();
        let mut session = TickSession::new(demo.scenario()).unwrap();
        let mut breaker = session.scenario().tick.circuit_breaker.clone();
        edit(&mut breaker);
        let bulkhead = session.scenario().tick.bulkhead.clone();
        session.apply_settings(breaker, bulkhead).unwrap();
        for t in 1..=ticks {
            if let Some((at, p)) = protection_at {
                if at == t {
                    session.set_protection(p);
                }
            }
            session.next_tick();
        }
        (demo, session.model().summary())
    }

    fn story(demo: &DemoInfo, s: &RunSummary) -> String {
        what_happened(demo, s).join("\n")
    }

    #[test]
    fn the_setup_is_read_from_the_world() {
        let line = setup_sentence(&TickWorld::default());
        for part in [
            "6 worker threads",
            "2 calls to recommendations",
            "1 call to payment",
            "times out after 3 ticks",
        ] {
            assert!(line.contains(part), "{line}");
        }
        let other = TickWorld {
            threads: 1,
            recommendations_per_tick: 1,
            payment_per_tick: 2,
            timeout_ticks: 1,
        };
        let line = setup_sentence(&other);
        assert!(line.contains("1 worker thread."), "{line}");
        assert!(line.contains("1 call to recommendations"), "{line}");
        assert!(line.contains("2 calls to payment"), "{line}");
        assert!(line.contains("after 1 tick."), "{line}");
    }

    #[test]
    fn ticks_are_told_as_spans() {
        let span = |from, to| TickSpan { from, to };
        assert_eq!(ticks_phrase(&[span(3, 3)]), "t = 3");
        assert_eq!(ticks_phrase(&[span(3, 4)]), "t = 3 and t = 4");
        assert_eq!(ticks_phrase(&[span(3, 6)]), "t = 3 to 6");
        assert_eq!(
            ticks_phrase(&[span(1, 1), span(3, 5), span(8, 8)]),
            "t = 1, t = 3 to 5 and t = 8"
        );
        assert_eq!(ticks_phrase(&[]), "");
    }

    /// Demo 5 with minimumNumberOfCalls = 2 (the spec's rules, worked out in
    /// crates/resilience-sim/tests/run_summary.rs): one payment fails, at t = 3; the two
    /// timeouts of t = 4 open the breaker (100 % >= 50 %); the breaker then refuses 2 calls
    /// at each of t = 4, 5, 6; the last slow calls time out at t = 6, leaving no thread held.
    #[test]
    fn demo_5_with_a_minimum_of_2_tells_the_learners_run() {
        let (demo, s) = run(5, 6, |b| b.minimum_number_of_calls = 2, None);
        let text = story(&demo, &s);
        assert!(text.contains("1 payment failed (t = 3)."), "{text}");
        assert!(
            text.contains("At t = 4 the breaker opened: 100 % of the outcomes in its window were failures, at or above its 50 % threshold."),
            "{text}"
        );
        assert!(text.contains("refused 6 recommendations calls"), "{text}");
        assert!(
            text.contains(
                "After t = 6 recommendations held 0 of the 6 worker threads (at most 6 at once)."
            ),
            "{text}"
        );
        assert!(!text.contains("t = 5 the breaker"), "{text}");
    }

    #[test]
    fn demo_5_as_written() {
        let (demo, s) = run(5, 6, |_| {}, None);
        let text = story(&demo, &s);
        assert!(
            text.contains("2 payments failed (t = 3 and t = 4)."),
            "{text}"
        );
        assert!(
            text.contains("each of those calls found no free worker thread"),
            "{text}"
        );
        assert!(
            text.contains("At t = 5 the breaker opened: 100 %"),
            "{text}"
        );
        assert!(
            text.contains("held 2 of the 6 worker threads (at most 6 at once)"),
            "{text}"
        );
        // Payments, the breaker's changes, its refusals, the threads: no note, the demo's
        // point shows.
        assert_eq!(what_happened(&demo, &s).len(), 4);
    }

    #[test]
    fn demo_4_as_written() {
        let (demo, s) = run(4, 6, |_| {}, None);
        let text = story(&demo, &s);
        assert!(text.contains("4 payments failed (t = 3 to 6)."), "{text}");
        assert!(text.contains("held 6 of the 6 worker threads."), "{text}");
        assert!(!text.contains("breaker"), "no breaker in Demo 4: {text}");
    }

    #[test]
    fn demos_2_and_3_tell_the_wait_and_the_trials() {
        let (demo, s) = run(2, 8, |_| {}, None);
        let text = story(&demo, &s);
        assert!(text.contains("At t = 3 the breaker opened"), "{text}");
        assert!(
            text.contains("At t = 6, after 3 ticks OPEN, its wait was over and it went HALF_OPEN"),
            "{text}"
        );
        assert!(
            text.contains("At t = 6 it closed again: 2 of its 2 trial calls answered"),
            "{text}"
        );
        assert!(
            text.contains("No payment failed in these 8 ticks."),
            "{text}"
        );

        let (demo, s) = run(3, 10, |_| {}, None);
        let text = story(&demo, &s);
        assert!(
            text.contains("At t = 7 it opened again: 2 of its 2 trial calls failed."),
            "{text}"
        );
        assert!(text.contains("At t = 10, after 3 ticks OPEN"), "{text}");
    }

    /// Demo 3 (the spec's story): the breaker opens again at t = 7 and waits until t = 10,
    /// so t = 8 and t = 9 change nothing in its story, while each refuses the tick's 2
    /// recommendations calls. Only the refusals' paragraph changes, and the story's words
    /// are not laid out again.
    #[test]
    fn ticks_without_a_state_change_leave_the_breakers_story_alone() {
        let (demo, at_8) = run(3, 8, |_| {}, None);
        let (_, at_9) = run(3, 9, |_| {}, None);
        let (at_8, at_9) = (breaker(&at_8), breaker(&at_9));
        assert_eq!(at_8.len(), 2, "{at_8:?}");
        assert_eq!(at_8[0], at_9[0]);
        assert!(at_8[0].contains("At t = 7 it opened again"), "{at_8:?}");
        assert_ne!(at_8[1], at_9[1]);
        let refused = |p: &str| -> u32 {
            p.split_whitespace()
                .find_map(|w| w.parse().ok())
                .expect("a count")
        };
        assert_eq!(refused(&at_9[1]), refused(&at_8[1]) + 2, "{at_9:?}");
        assert!(story(&demo, &run(3, 9, |_| {}, None).1).contains(&at_9[1]));
    }

    #[test]
    fn a_breaker_that_never_trips_says_why() {
        // Demo 5 with a window of 10 calls that needs all 10: by t = 6 only the 6 slow calls
        // of t = 1, 2 and 3 have timed out.
        let (demo, s) = run(
            5,
            6,
            |b| {
                b.sliding_window_size = 10;
                b.minimum_number_of_calls = 10;
            },
            None,
        );
        let text = story(&demo, &s);
        assert!(text.contains("The breaker stayed CLOSED: its window never held 10 outcomes with a failure rate of 50 % or more."), "{text}");
        // A minimum above the window's size counts as the size (Resilience4j): with 5 and
        // a window of 4 it opens at t = 5 as in the demo.
        let (demo, s) = run(5, 6, |b| b.minimum_number_of_calls = 5, None);
        assert!(text_has(&demo, &s, "At t = 5 the breaker opened"));
    }

    #[test]
    fn changes_that_take_the_point_away_are_said() {
        // Demo 5 with the breaker switched off before t = 1: no breaker at all.
        let (demo, s) = run(5, 6, |_| {}, Some((1, Protection::None)));
        let text = story(&demo, &s);
        assert!(
            text.contains("No circuit breaker guarded recommendations in this run"),
            "{text}"
        );
        // ... or only from t = 3 on.
        let (demo, s) = run(5, 6, |_| {}, Some((3, Protection::None)));
        let text = story(&demo, &s);
        assert!(
            text.contains("guarded recommendations in only 2 of the 6 ticks"),
            "{text}"
        );
        // Demo 4 with a bulkhead from t = 2.
        let (demo, s) = run(4, 6, |_| {}, Some((2, Protection::Bulkhead)));
        assert!(text_has(&demo, &s, "You added a protection"));
    }

    fn text_has(demo: &DemoInfo, s: &RunSummary, part: &str) -> bool {
        what_happened(demo, s).iter().any(|p| p.contains(part))
    }

    #[test]
    fn healthy_recommendations_make_the_point_moot() {
        let demo = *catalogue::demo(5).unwrap();
        let mut session = TickSession::new(demo.scenario()).unwrap();
        session.set_behaviour(resilience_sim::model::tick::Behaviour::Healthy);
        session.go_to(6);
        let s = session.model().summary();
        assert!(text_has(&demo, &s, "never failed or timed out"));
        assert!(text_has(&demo, &s, "No payment failed"));
        assert!(text_has(&demo, &s, "stayed CLOSED"));
    }

    /// Demo 6 is about a bulkhead alone: with a breaker added, its lesson ("it keeps
    /// sending calls to a broken service") is about another run, and the page says so.
    #[test]
    fn a_protection_added_to_a_protected_demo_is_named() {
        let (demo, s) = run(6, 10, |_| {}, Some((1, Protection::BreakerAndBulkhead)));
        assert!(text_has(&demo, &s, "You added a circuit breaker"));
        let (demo, s) = run(6, 10, |_| {}, None);
        assert!(!text_has(&demo, &s, "You added"));
        assert!(!text_has(&demo, &s, "never refused"));
    }

    /// A failing recommendations answers at once and never fills Demo 6's bulkhead.
    #[test]
    fn a_bulkhead_that_never_fills_is_named() {
        let demo = *catalogue::demo(6).unwrap();
        let mut session = TickSession::new(demo.scenario()).unwrap();
        session.set_behaviour(resilience_sim::model::tick::Behaviour::Failing);
        session.go_to(10);
        let s = session.model().summary();
        assert_eq!(s.tally.refused_by_bulkhead, 0);
        assert!(text_has(&demo, &s, "The bulkhead never refused a call"));
    }
}
