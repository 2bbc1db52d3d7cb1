//! The last tick in plain words, and the running tally. A screen reader hears one line per
//! tick (the live region holds only the latest tick's summary); the full list of the
//! tick's events is there to read, but not announced.

use leptos::prelude::*;
use resilience_sim::model::tick::{Dependency, Refusal, TickEvent};
use resilience_sim::scenario::session::TickSession;
use resilience_sim::Outcome;

use super::html::{live, panel, Html};

#[component]
pub fn Narration(session: RwSignal<TickSession>) -> impl IntoView {
    view! {
        <section class="panel narration" aria-labelledby="narration-heading">
            <h2 id="narration-heading">"What happened in this tick"</h2>
            <div data-testid="narration" inner_html=panel(session, draw_narration) />
        </section>
    }
}

/// The latest tick in one line, in the transport bar where the learner's eyes are: the
/// page's live region (a screen reader hears this line once per tick, not the whole list).
#[component]
pub fn TickSummary(session: RwSignal<TickSession>) -> impl IntoView {
    // The live region stays in the page; only its text is replaced, once per tick.
    let latest = live(move || {
        session.with(|s| {
            let m = s.model();
            let threads = m.config().world.threads;
            tick_line(
                m.tick(),
                m.last_events(),
                m.threads_held_by(Dependency::Recommendations),
                threads,
            )
        })
    });
    view! {
        <p class="tick-summary" aria-live="polite" aria-atomic="true" data-testid="narration-live">{latest}</p>
    }
}

pub(crate) fn draw_narration(s: &TickSession, h: &mut String) {
    let t = s.tick();
    if t == 0 {
        h.raw("<p class=\"muted\">t = 0: nothing has happened yet. Press Next tick.</p>");
        return;
    }
    h.raw("<p class=\"visually-hidden\">Tick ")
        .num(t.into())
        .raw(".</p><ol class=\"events\">");
    let mut items = 0;
    let mut story_of = None;
    for event in s.model().last_events() {
        // What followed from a call (the breaker's record, the fallback, a failed payment)
        // goes on that call's item, when it comes right after it: one item per call.
        match (consequence_of(event), story_of) {
            (Some(call), Some(open)) if call == open => {
                h.raw(" ").text(&event.narrate());
                continue;
            }
            _ => {}
        }
        if items > 0 {
            h.raw("</li>");
        }
        h.raw("<li>").text(&event.narrate());
        items += 1;
        story_of = call_of(event);
    }
    if items > 0 {
        h.raw("</li>");
    }
    // Places for the usual most items, hidden when unused: the list keeps its shape from
    // tick to tick, so a tick changes its texts instead of making new items.
    for _ in items..EVENT_PLACES {
        h.raw("<li hidden>\u{200B}</li>");
    }
    h.raw("</ol>");
}

/// Items the tick's event list keeps whatever the tick's count (a busy tick of the course's
/// demos has up to 9 calls and state changes).
const EVENT_PLACES: usize = 12;

/// The call an event tells the fate of (sent, answered, refused).
fn call_of(event: &TickEvent) -> Option<u64> {
    match event {
        TickEvent::Completed { call, .. }
        | TickEvent::Sent { call, .. }
        | TickEvent::AnsweredAtOnce { call, .. }
        | TickEvent::Refused { call, .. } => Some(*call),
        _ => None,
    }
}

/// The call an event is a consequence of (recorded by the breaker, answered from the cache,
/// a payment lost).
fn consequence_of(event: &TickEvent) -> Option<u64> {
    match event {
        TickEvent::BreakerRecorded { call, .. }
        | TickEvent::BreakerIgnored { call, .. }
        | TickEvent::FallbackServed { call }
        | TickEvent::PaymentFailed { call } => Some(*call),
        _ => None,
    }
}

/// Tick `t` in one line, for the live region: what changed, what the breaker did, what
/// failed or was refused, and the threads recommendations holds after it.
pub fn tick_line(
    t: u32,
    events: &[TickEvent],
    recommendations_threads: u32,
    threads: u32,
) -> String {
    if t == 0 {
        return "t = 0: nothing has happened yet.".to_string();
    }
    let mut line = format!("t = {t}.");
    let (mut timed_out, mut errors, mut payments_failed) = (0u32, 0u32, 0u32);
    let (mut by_breaker, mut by_bulkhead, mut no_thread) = (0u32, 0u32, 0u32);
    for event in events {
        match event {
            TickEvent::SettingChanged { .. } | TickEvent::BreakerCycled { .. } => {
                line.push(' ');
                line.push_str(&event.narrate());
            }
            TickEvent::BreakerTransition { from, to } => {
                line.push_str(&format!(" Breaker: {} → {}.", from.as_str(), to.as_str()));
            }
            TickEvent::Completed { outcome, .. } if *outcome == Outcome::ReadTimeout => {
                timed_out += 1
            }
            TickEvent::Completed { outcome, .. } if !outcome.is_success() => errors += 1,
            TickEvent::Refused { reason, .. } => match reason {
                Refusal::CallNotPermitted => by_breaker += 1,
                Refusal::BulkheadFull => by_bulkhead += 1,
                Refusal::NoFreeThread => no_thread += 1,
            },
            TickEvent::PaymentFailed { .. } => payments_failed += 1,
            _ => {}
        }
    }
    let counts = [
        (timed_out, "timed out"),
        (errors, "failed with an error"),
        (by_breaker, "refused by the breaker"),
        (by_bulkhead, "refused by the bulkhead"),
        (no_thread, "found no free thread"),
    ];
    for (n, what) in counts {
        if n > 0 {
            let calls = if n == 1 { "call" } else { "calls" };
            line.push_str(&format!(" {n} {calls} {what}."));
        }
    }
    match payments_failed {
        0 => {}
        1 => line.push_str(" 1 payment failed."),
        n => line.push_str(&format!(" {n} payments failed.")),
    }
    line.push_str(&format!(
        " Recommendations holds {recommendations_threads} of {threads} threads."
    ));
    line
}

#[component]
pub fn Tally(session: RwSignal<TickSession>) -> impl IntoView {
    view! {
        <section class="panel tally" aria-labelledby="tally-heading">
            <h2 id="tally-heading">"Since t = 0"</h2>
            <dl class="tally-list" inner_html=panel(session, draw_tally) />
        </section>
    }
}

pub(crate) fn draw_tally(s: &TickSession, h: &mut String) {
    let tally = s.model().tally();
    let rows = [
        (
            "<div class=\"bad\"><dt>Payments failed</dt><dd data-testid=\"payment-failures\">",
            tally.payment_failures,
        ),
        (
            "<div><dt>Payments made</dt><dd data-testid=\"payment-successes\">",
            tally.payment_successes,
        ),
        (
            "<div><dt>Cached recommendations shown (fallback)</dt><dd data-testid=\"fallbacks\">",
            tally.fallbacks_served,
        ),
        (
            "<div><dt>Refused by the breaker</dt><dd data-testid=\"refused-breaker\">",
            tally.refused_by_breaker,
        ),
        (
            "<div><dt>Refused by the bulkhead</dt><dd data-testid=\"refused-bulkhead\">",
            tally.refused_by_bulkhead,
        ),
        (
            "<div><dt>Found no free thread</dt><dd data-testid=\"refused-no-thread\">",
            tally.refused_no_thread,
        ),
    ];
    for (head, value) in rows {
        h.raw(head).num(value.into()).raw("</dd></div>");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use resilience_sim::model::tick::Protection;
    use resilience_sim::scenario::catalogue;

    fn line_of(s: &TickSession) -> String {
        let m = s.model();
        tick_line(
            m.tick(),
            m.last_events(),
            m.threads_held_by(Dependency::Recommendations),
            m.config().world.threads,
        )
    }

    #[test]
    fn one_line_per_tick() {
        let mut s = TickSession::new(catalogue::demo(5).unwrap().scenario()).unwrap();
        assert_eq!(line_of(&s), "t = 0: nothing has happened yet.");
        // Spec, Demo 5 at t = 5: the 2 calls of t = 2 time out, the window holds 4
        // failures and the breaker opens; both new calls are refused, payment gets a thread;
        // recommendations holds the 4 calls of t = 3 and 4.
        s.go_to(5);
        assert_eq!(
            line_of(&s),
            "t = 5. Breaker: CLOSED → OPEN. 2 calls timed out. 2 calls refused by the breaker. Recommendations holds 4 of 6 threads."
        );
        // t = 3: all 6 threads held, payment finds none.
        s.go_to(3);
        assert_eq!(
            line_of(&s),
            "t = 3. 1 call found no free thread. 1 payment failed. Recommendations holds 6 of 6 threads."
        );
    }

    /// Demo 3 at t = 7 (spec): the two trial calls sent at t = 6 fail, the breaker records
    /// both and goes back to OPEN, and the two new recommendations calls are refused. Each
    /// call is one item with what followed from it; the state change is an item of its own.
    #[test]
    fn one_item_per_call_with_what_followed() {
        let s = crate::views::test_support::session_at(3, 7);
        let html = crate::views::test_support::html(draw_narration, &s);
        let items: Vec<&str> = html
            .split("<li>")
            .skip(1)
            .map(|i| i.split("</li>").next().unwrap_or(""))
            .collect();
        assert!(
            items[0].starts_with("The recommendations call sent at t = 6 failed")
                && items[0].contains("The breaker recorded a failure.")
                && items[0].ends_with("The page showed the cached recommendations instead."),
            "{items:#?}"
        );
        assert_eq!(items[2], "The breaker moved from HALF_OPEN to OPEN.");
        let refused: Vec<_> = items
            .iter()
            .filter(|i| i.contains("refused by the breaker"))
            .collect();
        assert_eq!(refused.len(), 2, "{items:#?}");
        assert!(refused
            .iter()
            .all(|i| i.ends_with("cached recommendations instead.")));
    }

    #[test]
    fn a_change_is_told_once_at_the_tick_it_takes_effect() {
        let mut s = TickSession::new(catalogue::demo(4).unwrap().scenario()).unwrap();
        s.go_to(2);
        s.set_protection(Protection::CircuitBreaker);
        s.next_tick();
        assert!(
            line_of(&s).starts_with("t = 3. Change: protection is now circuit breaker."),
            "{}",
            line_of(&s)
        );
        s.next_tick();
        assert!(!line_of(&s).contains("Change"), "{}", line_of(&s));
    }
}
