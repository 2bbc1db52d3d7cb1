//! The last tick in plain words (read out by screen readers), and the running tally.

use leptos::prelude::*;
use resilience_sim::scenario::session::TickSession;

use super::html::{panel, Html};

#[component]
pub fn Narration(session: RwSignal<TickSession>) -> impl IntoView {
    // The live region itself stays in the page; only its content is replaced.
    view! {
        <section class="panel narration" aria-labelledby="narration-heading">
            <h2 id="narration-heading">"What happened in this tick"</h2>
            <div aria-live="polite" aria-atomic="true" data-testid="narration" inner_html=panel(session, draw_narration) />
        </section>
    }
}

fn draw_narration(s: &TickSession, h: &mut String) {
    let t = s.tick();
    if t == 0 {
        h.raw("<p class=\"muted\">t = 0: nothing has happened yet. Press Next tick.</p>");
        return;
    }
    h.raw("<p class=\"visually-hidden\">Tick ")
        .num(t.into())
        .raw(".</p><ol class=\"events\">");
    for event in s.model().last_events() {
        h.raw("<li>").text(&event.narrate()).raw("</li>");
    }
    h.raw("</ol>");
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

fn draw_tally(s: &TickSession, h: &mut String) {
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
