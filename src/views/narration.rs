//! The last tick in plain words (read out by screen readers), and the running tally.

use leptos::prelude::*;
use resilience_sim::model::tick::TickEvent;
use resilience_sim::scenario::session::TickSession;

#[component]
pub fn Narration(session: RwSignal<TickSession>) -> impl IntoView {
    let lines = move || {
        session.with(|s| {
            let events: Vec<String> = s.model().last_events().iter().map(TickEvent::narrate).collect();
            (s.tick(), events)
        })
    };
    view! {
        <section class="panel narration" aria-labelledby="narration-heading">
            <h2 id="narration-heading">"What happened in this tick"</h2>
            <div aria-live="polite" aria-atomic="true" data-testid="narration">
                {move || {
                    let (t, events) = lines();
                    if t == 0 {
                        view! { <p class="muted">"t = 0: nothing has happened yet. Press Next tick."</p> }.into_any()
                    } else {
                        view! {
                            <p class="visually-hidden">{format!("Tick {t}.")}</p>
                            <ol class="events">{events.into_iter().map(|e| view! { <li>{e}</li> }).collect_view()}</ol>
                        }.into_any()
                    }
                }}
            </div>
        </section>
    }
}

#[component]
pub fn Tally(session: RwSignal<TickSession>) -> impl IntoView {
    let tally = move || session.with(|s| s.model().tally());
    view! {
        <section class="panel tally" aria-labelledby="tally-heading">
            <h2 id="tally-heading">"Since t = 0"</h2>
            <dl class="tally-list">
                <div class="bad"><dt>"Payments failed"</dt><dd data-testid="payment-failures">{move || tally().payment_failures}</dd></div>
                <div><dt>"Payments made"</dt><dd data-testid="payment-successes">{move || tally().payment_successes}</dd></div>
                <div><dt>"Cached recommendations shown (fallback)"</dt><dd data-testid="fallbacks">{move || tally().fallbacks_served}</dd></div>
                <div><dt>"Refused by the breaker"</dt><dd data-testid="refused-breaker">{move || tally().refused_by_breaker}</dd></div>
                <div><dt>"Refused by the bulkhead"</dt><dd data-testid="refused-bulkhead">{move || tally().refused_by_bulkhead}</dd></div>
                <div><dt>"Found no free thread"</dt><dd data-testid="refused-no-thread">{move || tally().refused_no_thread}</dd></div>
            </dl>
        </section>
    }
}
