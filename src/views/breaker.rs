//! The circuit breaker: its state diagram with the config's thresholds on the arrows, the
//! window's outcomes, the rate against the threshold, the OPEN countdown, the HALF_OPEN
//! trials, a timeline of state changes, and the bulkhead permits.

use leptos::prelude::*;
use resilience_sim::model::tick::{Dependency, TickModel, TICK_MS};
use resilience_sim::policy::circuit_breaker::{State, WindowCell, WindowKind};
use resilience_sim::scenario::session::TickSession;

fn ticks(ms: u64) -> u64 {
    ms.div_ceil(TICK_MS)
}

fn plural(n: u64, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// One node of the diagram.
fn node(state: State, current: State, x: f32, y: f32) -> impl IntoView {
    let is_current = state == current;
    let class = format!(
        "state-node {}{}",
        state.as_str().to_ascii_lowercase().replace('_', "-"),
        if is_current { " current" } else { "" }
    );
    view! {
        <g class=class>
            <rect x=x - 58.0 y=y - 20.0 width="116" height="40" rx="20" />
            <text x=x y=y + 5.0 text-anchor="middle">{state.as_str()}</text>
            {is_current.then(|| view! { <text class="now" x=x y=y + 34.0 text-anchor="middle">"▲ now"</text> })}
        </g>
    }
}

#[component]
pub fn BreakerPanel(session: RwSignal<TickSession>) -> impl IntoView {
    let has_breaker = move || session.with(|s| s.model().breaker().is_some());
    view! {
        <section class="panel breaker" aria-labelledby="breaker-heading">
            <h2 id="breaker-heading">"Circuit breaker on recommendations"</h2>
            <Show when=has_breaker fallback=|| view! {
                <p class="muted">"No circuit breaker in this setup. Choose “circuit breaker” or “breaker + bulkhead” to add one."</p>
            }>
                <BreakerDetails session=session />
            </Show>
            <Bulkheads session=session />
        </section>
    }
}

#[component]
fn BreakerDetails(session: RwSignal<TickSession>) -> impl IntoView {
    let read = move |f: &dyn Fn(&TickModel) -> String| session.with(|s| f(s.model()));
    let state = move || session.with(|s| s.model().breaker().map_or(State::Closed, |b| b.state()));
    let labels = move || {
        session.with(|s| {
            let c = s.model().config().circuit_breaker.clone();
            let min = c.effective_minimum_number_of_calls();
            let rate = c.failure_rate_threshold;
            [
                format!("failure rate ≥ {rate}%"),
                format!("(once {min} calls are recorded)"),
                plural(ticks(c.wait_duration_in_open_state), "tick"),
                format!("{} trials:", c.permitted_number_of_calls_in_half_open_state),
                format!("rate < {rate}%"),
                format!("≥ {rate}%"),
            ]
        })
    };

    view! {
        <p class="breaker-state-line">
            "State: "<strong data-testid="breaker-state" class=move || format!("state-text {}", state().as_str().to_ascii_lowercase())>{move || state().as_str()}</strong>
            " — "<span data-testid="breaker-detail">{move || read(&|m| status_line(m))}</span>
        </p>
        <svg class="state-diagram" viewBox="0 0 420 252" role="img" aria-labelledby="diagram-title">
            <title id="diagram-title">{move || format!("Breaker state diagram; the breaker is {}", state().as_str())}</title>
            <defs>
                <marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head" />
                </marker>
            </defs>
            <path class="edge" d="M 135 60 L 285 60" marker-end="url(#arrowhead)" />
            <path class="edge" d="M 360 82 L 262 190" marker-end="url(#arrowhead)" />
            <path class="edge" d="M 232 188 L 325 82" marker-end="url(#arrowhead)" />
            <path class="edge" d="M 155 192 L 70 82" marker-end="url(#arrowhead)" />
            {move || {
                let [open_when, open_min, wait, close_when, close_rate, reopen_when] = labels();
                view! {
                    <text class="edge-label" x="210" y="36" text-anchor="middle">{open_when}</text>
                    <text class="edge-label" x="210" y="50" text-anchor="middle">{open_min}</text>
                    <text class="edge-label" x="330" y="146">"after"</text>
                    <text class="edge-label" x="330" y="160">{wait}</text>
                    <text class="edge-label" x="268" y="124" text-anchor="end">"rate"</text>
                    <text class="edge-label" x="268" y="138" text-anchor="end">{reopen_when}</text>
                    <text class="edge-label" x="128" y="130">{close_when}</text>
                    <text class="edge-label" x="128" y="144">{close_rate}</text>
                }
            }}
            {move || {
                let current = state();
                view! {
                    {node(State::Closed, current, 75.0, 60.0)}
                    {node(State::Open, current, 345.0, 60.0)}
                    {node(State::HalfOpen, current, 210.0, 210.0)}
                }
            }}
        </svg>
        <h3>"Window"</h3>
        <p class="window-caption" data-testid="failure-rate">{move || read(&rate_line)}</p>
        <ol class="window" aria-label="Outcomes in the breaker's window, oldest first">
            {move || session.with(|s| window_view(s.model()))}
        </ol>
        <h3>"State changes"</h3>
        {move || {
            let changes: Vec<String> = session.with(|s| s.model().transitions().map(|t| format!("t = {}: {} → {}", t.tick, t.from.as_str(), t.to.as_str())).collect());
            if changes.is_empty() {
                view! { <p class="muted">"None yet."</p> }.into_any()
            } else {
                view! { <ol class="timeline" data-testid="transitions">{changes.into_iter().map(|c| view! { <li>{c}</li> }).collect_view()}</ol> }.into_any()
            }
        }}
    }
}

/// A sentence on what the breaker is doing now.
fn status_line(model: &TickModel) -> String {
    let Some(breaker) = model.breaker() else { return String::new() };
    let now = TickModel::now(model.tick());
    match breaker.state() {
        State::Open => {
            let left = breaker.open_wait_remaining(now).map_or(0, ticks);
            if left == 0 {
                "the wait is over: HALF_OPEN at the next tick.".into()
            } else {
                format!("refusing calls; HALF_OPEN in {}.", plural(left, "tick"))
            }
        }
        State::HalfOpen => match breaker.half_open_trials() {
            Some((sent, permitted)) => format!("trial calls sent: {sent} of {permitted}."),
            None => String::new(),
        },
        State::Closed => "letting calls through and recording their outcomes.".into(),
        other => format!("{} (set by hand).", other.as_str()),
    }
}

fn rate_line(model: &TickModel) -> String {
    let Some(breaker) = model.breaker() else { return String::new() };
    let m = breaker.metrics();
    let threshold = breaker.config().failure_rate_threshold;
    if m.failure_rate < 0.0 {
        format!(
            "Not enough calls: {} of {} recorded, so no failure rate yet (opens at ≥ {threshold}%).",
            m.buffered,
            breaker.minimum_number_of_calls()
        )
    } else {
        format!(
            "Failure rate {}% of {} calls ({} failed); opens at ≥ {threshold}%.",
            m.failure_rate, m.buffered, m.failed
        )
    }
}

fn window_view(model: &TickModel) -> impl IntoView {
    let Some(breaker) = model.breaker() else { return ().into_any() };
    let cells = breaker.window_cells();
    let capacity = match breaker.window_kind() {
        WindowKind::CountBased(n) => n as usize,
        _ => cells.len(),
    };
    // Draw at most 40 cells; a larger window shows its newest outcomes.
    let shown = capacity.min(40);
    let skip = cells.len().saturating_sub(shown);
    let filled: Vec<_> = cells.into_iter().skip(skip).collect();
    let empty = shown.saturating_sub(filled.len());
    view! {
        {filled.into_iter().map(|c| {
            let (class, mark, label) = match c {
                WindowCell::Success => ("cell success", "✓", "success"),
                WindowCell::Failure => ("cell failure", "✗", "failure"),
                WindowCell::SlowSuccess => ("cell slow", "◷", "slow success"),
                WindowCell::SlowFailure => ("cell failure slow", "✗◷", "slow failure"),
            };
            view! { <li class=class aria-label=label title=label>{mark}</li> }
        }).collect_view()}
        {(0..empty).map(|_| view! { <li class="cell empty" aria-label="empty">"·"</li> }).collect_view()}
    }
    .into_any()
}

#[component]
fn Bulkheads(session: RwSignal<TickSession>) -> impl IntoView {
    let permits = move || {
        session.with(|s| {
            let m = s.model();
            let max = m.config().bulkhead.max_concurrent_calls;
            m.bulkhead_in_use(Dependency::Recommendations).map(|r| {
                (r, m.bulkhead_in_use(Dependency::Payment).unwrap_or(0), max)
            })
        })
    };
    view! {
        <h3>"Bulkhead permits"</h3>
        {move || match permits() {
            None => view! { <p class="muted">"No bulkhead in this setup."</p> }.into_any(),
            Some((recommendations, payment, max)) => view! {
                <ul class="permits" data-testid="bulkhead-permits">
                    <li><strong>"recommendations"</strong>{format!(" {recommendations} of {max} in use")}</li>
                    <li><strong>"payment"</strong>{format!(" {payment} of {max} in use")}</li>
                </ul>
            }.into_any(),
        }}
    }
}
