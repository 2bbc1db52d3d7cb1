//! The circuit breaker: its state diagram with the config's thresholds on the arrows, the
//! window's outcomes, the rate against the threshold, the OPEN countdown, the HALF_OPEN
//! trials, a timeline of state changes, and the bulkhead permits.

use leptos::prelude::*;
use resilience_sim::model::tick::{Dependency, TickModel, TICK_MS};
use resilience_sim::policy::circuit_breaker::{CircuitBreaker, State, WindowCell, WindowKind};
use resilience_sim::scenario::session::TickSession;

use super::html::{panel, Html};
use crate::format::{decimal, rate};

fn ticks(ms: u64) -> u64 {
    ms.div_ceil(TICK_MS)
}

fn plural<'a>(h: &'a mut String, n: u64, word: &'static str) -> &'a mut String {
    h.num(n)
        .raw(" ")
        .raw(word)
        .raw(if n == 1 { "" } else { "s" })
}

#[component]
pub fn BreakerPanel(session: RwSignal<TickSession>) -> impl IntoView {
    view! {
        <section class="panel breaker" aria-labelledby="breaker-heading">
            <h2 id="breaker-heading">"Circuit breaker on recommendations"</h2>
            // Separate panels: each is rewritten only when its own text changes, so the
            // diagram is parsed again only when the state or the config changes.
            <div inner_html=panel(session, draw_status) />
            <div inner_html=panel(session, draw_diagram) />
            <div inner_html=panel(session, draw_window) />
            <div inner_html=panel(session, draw_bulkheads) />
        </section>
    }
}

/// The state line, or a note that there is no breaker.
fn draw_status(s: &TickSession, h: &mut String) {
    let m = s.model();
    match m.breaker() {
        Some(breaker) => {
            let name = breaker.state().as_str();
            h.raw("<p class=\"breaker-state-line\">State: <strong data-testid=\"breaker-state\" class=\"state-text ")
                .text(&name.to_ascii_lowercase())
                .raw("\">")
                .text(name)
                .raw("</strong> — <span data-testid=\"breaker-detail\">");
            status_line(m, breaker, h);
            h.raw("</span></p>");
        }
        None => {
            h.raw("<p class=\"muted\">No circuit breaker in this setup. Choose “circuit breaker” or “breaker + bulkhead” to add one.</p>");
        }
    }
}

fn draw_diagram(s: &TickSession, h: &mut String) {
    if let Some(breaker) = s.model().breaker() {
        diagram(s.model(), breaker, h);
    }
}

/// The window's outcomes with the rate, then the latest state changes.
fn draw_window(s: &TickSession, h: &mut String) {
    let m = s.model();
    let Some(breaker) = m.breaker() else { return };
    let threshold = decimal(m.config().circuit_breaker.failure_rate_threshold);
    h.raw("<h3>Window</h3><p class=\"window-caption\" data-testid=\"failure-rate\">");
    rate_line(breaker, &threshold, h);
    h.raw(
        "</p><ol class=\"window\" aria-label=\"Outcomes in the breaker's window, oldest first\">",
    );
    window_cells(breaker, h);
    h.raw("</ol><h3>State changes</h3>");
    let mut changes = m.transitions().peekable();
    if changes.peek().is_none() {
        h.raw("<p class=\"muted\">None yet.</p>");
    } else {
        h.raw("<ol class=\"timeline\" data-testid=\"transitions\">");
        for t in changes {
            h.raw("<li>t = ")
                .num(t.tick.into())
                .raw(": ")
                .text(t.from.as_str())
                .raw(" → ")
                .text(t.to.as_str())
                .raw("</li>");
        }
        h.raw("</ol>");
    }
}

/// The bulkhead's permits in use per dependency.
fn draw_bulkheads(s: &TickSession, h: &mut String) {
    let m = s.model();
    h.raw("<h3>Bulkhead permits</h3>");
    match m.bulkhead_in_use(Dependency::Recommendations) {
        None => {
            h.raw("<p class=\"muted\">No bulkhead in this setup.</p>");
        }
        Some(recommendations) => {
            let max = m.config().bulkhead.max_concurrent_calls.into();
            let payment = m.bulkhead_in_use(Dependency::Payment).unwrap_or(0);
            h.raw("<ul class=\"permits\" data-testid=\"bulkhead-permits\"><li><strong>recommendations</strong> ")
                .num(recommendations.into())
                .raw(" of ")
                .num(max)
                .raw(" in use</li><li><strong>payment</strong> ")
                .num(payment.into())
                .raw(" of ")
                .num(max)
                .raw(" in use</li></ul>");
        }
    }
}

/// The state diagram: the config's thresholds on the arrows, the current state marked.
fn diagram(m: &TickModel, breaker: &CircuitBreaker, h: &mut String) {
    let state = breaker.state();
    let name = state.as_str();
    let c = &m.config().circuit_breaker;
    let threshold = decimal(c.failure_rate_threshold);
    h.raw("<svg class=\"state-diagram\" viewBox=\"0 0 420 252\" role=\"img\" aria-labelledby=\"diagram-title\"><title id=\"diagram-title\">Breaker state diagram; the breaker is ")
        .text(name)
        .raw("</title><defs><marker id=\"arrowhead\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" class=\"arrow-head\"></path></marker></defs>\
<path class=\"edge\" d=\"M 135 60 L 285 60\" marker-end=\"url(#arrowhead)\"></path>\
<path class=\"edge\" d=\"M 360 82 L 262 190\" marker-end=\"url(#arrowhead)\"></path>\
<path class=\"edge\" d=\"M 232 188 L 325 82\" marker-end=\"url(#arrowhead)\"></path>\
<path class=\"edge\" d=\"M 155 192 L 70 82\" marker-end=\"url(#arrowhead)\"></path>\
<text class=\"edge-label\" x=\"210\" y=\"36\" text-anchor=\"middle\">failure rate ≥ ")
        .text(&threshold)
        .raw("%</text><text class=\"edge-label\" x=\"210\" y=\"50\" text-anchor=\"middle\">(once ")
        .num(c.effective_minimum_number_of_calls().into())
        .raw(" calls are recorded)</text><text class=\"edge-label\" x=\"330\" y=\"146\">after</text><text class=\"edge-label\" x=\"330\" y=\"160\">");
    plural(h, ticks(c.wait_duration_in_open_state), "tick")
        .raw("</text><text class=\"edge-label\" x=\"268\" y=\"124\" text-anchor=\"end\">rate</text><text class=\"edge-label\" x=\"268\" y=\"138\" text-anchor=\"end\">≥ ")
        .text(&threshold)
        .raw("%</text><text class=\"edge-label\" x=\"128\" y=\"130\">")
        .num(c.permitted_number_of_calls_in_half_open_state.into())
        .raw(" trials:</text><text class=\"edge-label\" x=\"128\" y=\"144\">rate &lt; ")
        .text(&threshold)
        .raw("%</text>");
    for (node, x, y) in [
        (State::Closed, 75, 60),
        (State::Open, 345, 60),
        (State::HalfOpen, 210, 210),
    ] {
        let current = node == state;
        h.raw("<g class=\"state-node ")
            .text(&node.as_str().to_ascii_lowercase().replace('_', "-"))
            .raw(if current { " current\">" } else { "\">" })
            .raw("<rect x=\"")
            .num(x - 58)
            .raw("\" y=\"")
            .num(y - 20)
            .raw("\" width=\"116\" height=\"40\" rx=\"20\"></rect><text x=\"")
            .num(x)
            .raw("\" y=\"")
            .num(y + 5)
            .raw("\" text-anchor=\"middle\">")
            .text(node.as_str())
            .raw("</text>");
        if current {
            h.raw("<text class=\"now\" x=\"")
                .num(x)
                .raw("\" y=\"")
                .num(y + 34)
                .raw("\" text-anchor=\"middle\">▲ now</text>");
        }
        h.raw("</g>");
    }
    h.raw("</svg>");
}

/// A sentence on what the breaker is doing now.
fn status_line(model: &TickModel, breaker: &CircuitBreaker, h: &mut String) {
    let now = TickModel::now(model.tick());
    match breaker.state() {
        State::Open => {
            let left = breaker.open_wait_remaining(now).map_or(0, ticks);
            if left == 0 {
                h.raw("the wait is over: HALF_OPEN at the next tick.");
            } else {
                plural(h.raw("refusing calls; HALF_OPEN in "), left, "tick").raw(".");
            }
        }
        State::HalfOpen => {
            if let Some((sent, permitted)) = breaker.half_open_trials() {
                h.raw("trial calls sent: ")
                    .num(sent.into())
                    .raw(" of ")
                    .num(permitted.into())
                    .raw(".");
            }
        }
        State::Closed => {
            h.raw("letting calls through and recording their outcomes.");
        }
        other => {
            h.text(other.as_str()).raw(" (set by hand).");
        }
    }
}

fn rate_line(breaker: &CircuitBreaker, threshold: &str, h: &mut String) {
    let m = breaker.metrics();
    if m.failure_rate < 0.0 {
        h.raw("Not enough calls: ")
            .num(m.buffered.into())
            .raw(" of ")
            .num(breaker.minimum_number_of_calls().into())
            .raw(" recorded, so no failure rate yet (opens at ≥ ")
            .text(threshold)
            .raw("%).");
    } else {
        h.raw("Failure rate ")
            .text(&rate(m.failure_rate))
            .raw("% of ")
            .num(m.buffered.into())
            .raw(" calls (")
            .num(m.failed.into())
            .raw(" failed); opens at ≥ ")
            .text(threshold)
            .raw("%.");
    }
}

fn window_cells(breaker: &CircuitBreaker, h: &mut String) {
    let cells = breaker.window_cells();
    let capacity = match breaker.window_kind() {
        WindowKind::CountBased(n) => n as usize,
        _ => cells.len(),
    };
    // Draw at most 40 cells; a larger window shows its newest outcomes.
    let shown = capacity.min(40);
    let skip = cells.len().saturating_sub(shown);
    let filled = cells.len() - skip;
    for cell in cells.into_iter().skip(skip) {
        let (class, mark, label) = match cell {
            WindowCell::Success => ("success", "✓", "success"),
            WindowCell::Failure => ("failure", "✗", "failure"),
            WindowCell::SlowSuccess => ("slow", "◷", "slow success"),
            WindowCell::SlowFailure => ("failure slow", "✗◷", "slow failure"),
        };
        h.raw("<li class=\"cell ")
            .raw(class)
            .raw("\" aria-label=\"")
            .raw(label)
            .raw("\" title=\"")
            .raw(label)
            .raw("\">")
            .raw(mark)
            .raw("</li>");
    }
    for _ in filled..shown {
        h.raw("<li class=\"cell empty\" aria-label=\"empty\">·</li>");
    }
}
