//! The worker threads of `order-api` as cells, and the calls refused in the last tick.

use leptos::prelude::*;
use resilience_sim::model::tick::{Dependency, Refusal, TickEvent};
use resilience_sim::scenario::session::TickSession;

#[component]
pub fn ThreadPool(session: RwSignal<TickSession>) -> impl IntoView {
    let cells = move || {
        session.with(|s| {
            let t = s.tick();
            s.model()
                .threads()
                .iter()
                .enumerate()
                .map(|(i, held)| {
                    let number = i + 1;
                    match held {
                        None => view! {
                            <li class="thread free" data-testid="thread-cell" data-owner="free">
                                <span class="thread-number">{format!("Thread {number}")}</span>
                                <span class="thread-owner">"free"</span>
                            </li>
                        }
                        .into_any(),
                        Some(h) => {
                            let owner = h.dependency.name();
                            let left = h.due_at.saturating_sub(t);
                            let ends = if h.dependency == Dependency::Recommendations
                                && h.due_at - h.sent_at == s.model().config().world.timeout_ticks
                            {
                                "timeout"
                            } else {
                                "answer"
                            };
                            view! {
                                <li class=format!("thread {owner}") data-testid="thread-cell" data-owner=owner
                                    title=format!("sent at t = {}", h.sent_at)>
                                    <span class="thread-number">{format!("Thread {number}")}</span>
                                    <span class="thread-owner">{owner}</span>
                                    <span class="thread-left">
                                        {format!("{ends} in {left} tick{}", if left == 1 { "" } else { "s" })}
                                    </span>
                                </li>
                            }
                            .into_any()
                        }
                    }
                })
                .collect_view()
        })
    };
    let refused = move || {
        session.with(|s| {
            s.model()
                .last_events()
                .iter()
                .filter_map(|e| match e {
                    TickEvent::Refused { dependency, reason, .. } => Some((*dependency, *reason)),
                    _ => None,
                })
                .collect::<Vec<_>>()
        })
    };
    let held_summary = move || {
        session.with(|s| {
            let m = s.model();
            format!(
                "{} of {} threads busy: recommendations {}, payment {}.",
                m.threads().iter().flatten().count(),
                m.threads().len(),
                m.threads_held_by(Dependency::Recommendations),
                m.threads_held_by(Dependency::Payment)
            )
        })
    };

    view! {
        <section class="panel thread-pool" aria-labelledby="pool-heading">
            <h2 id="pool-heading">"Worker threads of order-api"</h2>
            <p class="summary" data-testid="pool-summary">{held_summary}</p>
            <ul class="threads">{cells}</ul>
            <h3>"Refused this tick"</h3>
            {move || {
                let list = refused();
                if list.is_empty() {
                    view! { <p class="muted" data-testid="refused-none">"No call was refused."</p> }.into_any()
                } else {
                    view! {
                        <ul class="refused" data-testid="refused">
                            {list.into_iter().map(|(d, r)| {
                                let (class, why) = match r {
                                    Refusal::CallNotPermitted => ("by-breaker", "breaker open: CallNotPermitted"),
                                    Refusal::BulkheadFull => ("by-bulkhead", "bulkhead full: BulkheadFullException"),
                                    Refusal::NoFreeThread => ("no-thread", "no free thread"),
                                };
                                view! { <li class=format!("refused-call {class}")><strong>{d.name()}</strong>" — "{why}</li> }
                            }).collect_view()}
                        </ul>
                    }.into_any()
                }
            }}
        </section>
    }
}
