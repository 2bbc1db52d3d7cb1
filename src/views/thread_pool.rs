//! The worker threads of `order-api` as cells, and the calls refused in the last tick.

use leptos::prelude::*;
use resilience_sim::model::tick::{Dependency, Refusal, TickEvent};
use resilience_sim::scenario::session::TickSession;
use resilience_sim::Outcome;

use super::html::{panel, Html};

#[component]
pub fn ThreadPool(session: RwSignal<TickSession>) -> impl IntoView {
    view! {
        <section class="panel thread-pool" aria-labelledby="pool-heading">
            <h2 id="pool-heading">"Worker threads of order-api"</h2>
            <div inner_html=panel(session, draw) />
        </section>
    }
}

/// The summary line, a cell per thread, and the calls refused in the last tick.
fn draw(s: &TickSession, h: &mut String) {
    let m = s.model();
    let t = s.tick();
    let threads = m.threads();
    h.raw("<p class=\"summary\" data-testid=\"pool-summary\">")
        .num(threads.iter().flatten().count() as u64)
        .raw(" of ")
        .num(threads.len() as u64)
        .raw(" threads busy: recommendations ")
        .num(m.threads_held_by(Dependency::Recommendations).into())
        .raw(", payment ")
        .num(m.threads_held_by(Dependency::Payment).into())
        .raw(".</p><ul class=\"threads\">");
    for (i, held) in threads.iter().enumerate() {
        let number = i as u64 + 1;
        match held {
            None => {
                h.raw("<li class=\"thread free\" data-testid=\"thread-cell\" data-owner=\"free\"><span class=\"thread-number\">Thread ")
                    .num(number)
                    .raw("</span><span class=\"thread-owner\">free</span></li>");
            }
            Some(held) => {
                let owner = held.dependency.name();
                let left = held.due_at.saturating_sub(t);
                // The engine decided how the call ends when it was sent; this only says it.
                let ends = match held.outcome() {
                    Outcome::ReadTimeout => "times out in ",
                    o if o.is_success() => "answers in ",
                    _ => "errors in ",
                };
                h.raw("<li class=\"thread ")
                    .text(owner)
                    .raw("\" data-testid=\"thread-cell\" data-owner=\"")
                    .text(owner)
                    .raw("\" title=\"sent at t = ")
                    .num(held.sent_at.into())
                    .raw("\"><span class=\"thread-number\">Thread ")
                    .num(number)
                    .raw("</span><span class=\"thread-owner\">")
                    .text(owner)
                    .raw("</span><span class=\"thread-left\">")
                    .raw(ends)
                    .num(left.into())
                    .raw(if left == 1 { " tick" } else { " ticks" })
                    .raw("</span></li>");
            }
        }
    }
    h.raw("</ul><h3>Refused this tick</h3>");
    let mut refused = m.last_events().iter().filter_map(|e| match e {
        TickEvent::Refused {
            dependency, reason, ..
        } => Some((*dependency, *reason)),
        _ => None,
    });
    match refused.next() {
        None => {
            h.raw("<p class=\"muted\" data-testid=\"refused-none\">No call was refused.</p>");
        }
        Some(first) => {
            h.raw("<ul class=\"refused\" data-testid=\"refused\">");
            for (dependency, reason) in std::iter::once(first).chain(refused) {
                let (class, why) = match reason {
                    Refusal::CallNotPermitted => ("by-breaker", "breaker open: CallNotPermitted"),
                    Refusal::BulkheadFull => {
                        ("by-bulkhead", "bulkhead full: BulkheadFullException")
                    }
                    Refusal::NoFreeThread => ("no-thread", "no free thread"),
                };
                h.raw("<li class=\"refused-call ")
                    .raw(class)
                    .raw("\"><strong>")
                    .text(dependency.name())
                    .raw("</strong> — ")
                    .raw(why)
                    .raw("</li>");
            }
            h.raw("</ul>");
        }
    }
}
