//! The circuit breaker: its state diagram with the config's thresholds on the arrows and
//! the path it took in the last tick (numbered, in order), the window's outcomes with why
//! each failure is one, the rate against the threshold, the OPEN countdown, the HALF_OPEN
//! trials, and a timeline of state changes. Without a breaker the panel is not shown.

use leptos::prelude::*;
use resilience_sim::model::tick::{
    TickModel, Transition, TransitionReason, WindowEntry, TICK_MS, TRANSITIONS_KEPT,
};
use resilience_sim::policy::circuit_breaker::{
    CircuitBreaker, CircuitBreakerConfig, State, WindowCell, WindowKind,
};
use resilience_sim::scenario::session::TickSession;
use resilience_sim::Outcome;

use super::html::{live_attr, panel, Html};
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
    // Hidden, not removed, while the protection has no breaker (a learner may add one
    // mid-run); the parts below then draw nothing.
    let no_breaker = live_attr(move || {
        session
            .with(|s| s.model().breaker().is_none())
            .then_some("")
    });
    view! {
        <section class="panel breaker" aria-labelledby="breaker-heading" hidden=no_breaker>
            <h2 id="breaker-heading">"Circuit breaker on recommendations"</h2>
            // Separate parts: each is rewritten only when its own text changes, so the
            // diagram is parsed again only when the state or the tick's path changes.
            <div inner_html=panel(session, draw_status) />
            <div inner_html=panel(session, draw_diagram) />
            <div inner_html=panel(session, draw_path) />
            <div inner_html=panel(session, draw_window) />
            <div inner_html=panel(session, draw_changes) />
        </section>
    }
}

/// The state line.
pub(crate) fn draw_status(s: &TickSession, h: &mut String) {
    let m = s.model();
    let Some(breaker) = m.breaker() else { return };
    let name = breaker.state().as_str();
    h.raw("<p class=\"breaker-state-line\">State: <strong data-testid=\"breaker-state\" class=\"state-text ")
        .text(&name.to_ascii_lowercase())
        .raw("\">")
        .text(name)
        .raw("</strong> — <span data-testid=\"breaker-detail\">");
    status_line(breaker, h);
    h.raw("</span></p>");
}

/// The diagram. Its markup keeps one shape whatever the state (every node has its "now"
/// mark and every arrow its step number, shown by class), so a tick changes a few
/// attributes and texts of it, never its elements.
pub(crate) fn draw_diagram(s: &TickSession, h: &mut String) {
    let m = s.model();
    let Some(breaker) = m.breaker() else { return };
    let path: Vec<(State, State)> = tick_path(m).iter().map(|t| (t.from, t.to)).collect();
    let c = &m.config().circuit_breaker;
    let mut wait = String::new();
    plural(&mut wait, ticks(c.wait_duration_in_open_state), "tick");
    diagram(c, breaker.state(), &path, &wait, "in this tick", h);
}

/// The tick's path in words.
pub(crate) fn draw_path(s: &TickSession, h: &mut String) {
    let m = s.model();
    if m.breaker().is_some() {
        path_list(&tick_path(m), h);
    }
}

/// The breaker's state changes in the last tick, in order.
fn tick_path(m: &TickModel) -> Vec<&Transition> {
    let t = m.tick();
    m.transitions().filter(|tr| tr.tick == t && t > 0).collect()
}

/// The diagram's four arrows: from, to, the path, where the step number goes.
const EDGES: [(State, State, &str, (u64, u64)); 4] = [
    (State::Closed, State::Open, "M 134 80 L 224 80", (179, 80)),
    (
        State::Open,
        State::HalfOpen,
        "M 318 106 L 240 208",
        (295, 137),
    ),
    (
        State::HalfOpen,
        State::Open,
        "M 200 210 L 261 107",
        (218, 179),
    ),
    (
        State::HalfOpen,
        State::Closed,
        "M 150 210 L 83 107",
        (130, 179),
    ),
];

/// The state nodes: state, centre.
const NODES: [(State, u64, u64); 3] = [
    (State::Closed, 70, 80),
    (State::Open, 290, 80),
    (State::HalfOpen, 180, 236),
];

/// The state diagram: the config's thresholds on the arrows, the arrows the breaker took
/// in the last tick drawn heavier and numbered in order, the current state marked "now"
/// inside its node (so the mark never meets an arrow or a label). Laid out on a 360-wide
/// canvas so its text stays at 12 px or more on a phone.
///
/// The breaker sandbox (Demo 10) draws the same diagram: `wait` is the OPEN wait in the
/// page's unit ("3 ticks", "10 s"), `path` the transitions of the last step, in order,
/// `when` that step in words ("in this tick").
pub(crate) fn diagram(
    c: &CircuitBreakerConfig,
    state: State,
    path: &[(State, State)],
    wait: &str,
    when: &'static str,
    h: &mut String,
) {
    let threshold = decimal(c.failure_rate_threshold);
    h.raw("<svg class=\"state-diagram\" viewBox=\"0 0 360 268\" role=\"img\" aria-labelledby=\"diagram-title\" data-testid=\"state-diagram\"><title id=\"diagram-title\">Breaker state diagram; the breaker is ")
        .text(state.as_str());
    if let Some(first) = path.first() {
        h.raw("; ")
            .raw(when)
            .raw(" it went ")
            .text(first.0.as_str());
        for step in path {
            h.raw(" → ").text(step.1.as_str());
        }
    }
    h.raw("</title><defs><marker id=\"arrowhead\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" class=\"arrow-head\"></path></marker><marker id=\"arrowhead-taken\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"5\" markerHeight=\"5\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" class=\"arrow-head taken\"></path></marker></defs>");
    for (from, to, d, _) in EDGES {
        let taken = path.contains(&(from, to));
        h.raw(if taken {
            "<path class=\"edge taken\" d=\""
        } else {
            "<path class=\"edge\" d=\""
        })
        .raw(d)
        .raw("\"></path>");
    }
    // Either rate trips the breaker (Resilience4j checks the slow-call rate beside the
    // failure rate, in CLOSED and in HALF_OPEN alike).
    let slow = decimal(c.slow_call_rate_threshold);
    h.raw("<text class=\"edge-label\" x=\"179\" y=\"26\" text-anchor=\"middle\">failure rate ≥ ")
        .text(&threshold)
        .raw("% or slow-call rate ≥ ")
        .text(&slow)
        .raw("%</text><text class=\"edge-label\" x=\"179\" y=\"44\" text-anchor=\"middle\">(once ")
        .num(c.effective_minimum_number_of_calls().into())
        .raw(" calls are recorded)</text><text class=\"edge-label\" x=\"284\" y=\"172\">after</text><text class=\"edge-label\" x=\"284\" y=\"189\">");
    h.text(wait)
        // The half-open arrows judge by the same two thresholds; short words, since the
        // space between the arrows is narrow on a phone.
        .raw("</text><text class=\"edge-label\" x=\"222\" y=\"144\" text-anchor=\"end\">either rate</text><text class=\"edge-label\" x=\"222\" y=\"161\" text-anchor=\"end\">≥ threshold</text><text class=\"edge-label\" x=\"102\" y=\"160\" text-anchor=\"end\">")
        // HALF_OPEN decides after min(minimumNumberOfCalls, permitted) outcomes.
        .num(c.half_open_decision_calls().into())
        .raw(if c.half_open_decision_calls() == 1 {
            " trial:</text>"
        } else {
            " trials:</text>"
        })
        .raw("<text class=\"edge-label\" x=\"112\" y=\"177\" text-anchor=\"end\">both rates</text><text class=\"edge-label\" x=\"112\" y=\"194\" text-anchor=\"end\">&lt; threshold</text>");
    for (node, x, y) in NODES {
        let current = node == state;
        h.raw("<g class=\"state-node ")
            .raw(match node {
                State::Closed => "closed",
                State::Open => "open",
                _ => "half-open",
            })
            .raw(if current { " current\">" } else { "\">" })
            .raw("<rect x=\"")
            .num(x - 62)
            .raw("\" y=\"")
            .num(y - 24)
            .raw("\" width=\"124\" height=\"48\" rx=\"24\"></rect><text x=\"")
            .num(x)
            .raw("\" y=\"")
            .num(if current { y - 2 } else { y + 5 })
            .raw("\" text-anchor=\"middle\">")
            .text(node.as_str())
            // Shown only in the current node (CSS).
            .raw("</text><text class=\"now\" x=\"")
            .num(x)
            .raw("\" y=\"")
            .num(y + 16)
            .raw("\" text-anchor=\"middle\">● now</text></g>");
    }
    // The step numbers go on last, over the arrows; an arrow not taken keeps a hidden one.
    for (from, to, _, (x, y)) in EDGES {
        let mut steps = path
            .iter()
            .enumerate()
            .filter(|(_, p)| **p == (from, to))
            .map(|(i, _)| i as u64 + 1);
        let first = steps.next();
        h.raw(if first.is_some() {
            "<g class=\"step-badge shown\"><circle cx=\""
        } else {
            "<g class=\"step-badge\"><circle cx=\""
        })
        .num(x)
        .raw("\" cy=\"")
        .num(y)
        .raw("\" r=\"11\"></circle><text x=\"")
        .num(x)
        .raw("\" y=\"")
        .num(y + 5)
        .raw("\" text-anchor=\"middle\">");
        match first {
            Some(n) => {
                h.num(n);
            }
            None => {
                h.raw("·");
            }
        }
        // The same arrow twice in one tick (a zero wait can do that): its steps, listed.
        for more in steps {
            h.raw(",").num(more);
        }
        h.raw("</text></g>");
    }
    h.raw("</svg>");
}

/// The tick's path in words, numbered as on the diagram.
///
/// The list keeps two items (the usual most: OPEN -> HALF_OPEN -> CLOSED), hidden when
/// unused, so its markup keeps its shape from tick to tick.
fn path_list(path: &[&Transition], h: &mut String) {
    h.raw(if path.is_empty() {
        "<ol class=\"breaker-path\" data-testid=\"breaker-path\" aria-label=\"The breaker's path in this tick\" hidden>"
    } else {
        "<ol class=\"breaker-path\" data-testid=\"breaker-path\" aria-label=\"The breaker's path in this tick\">"
    });
    for i in 0..path.len().max(2) {
        let Some(step) = path.get(i) else {
            h.raw("<li hidden><span class=\"from-to\">-</span>-</li>");
            continue;
        };
        h.raw("<li><span class=\"from-to\">")
            .text(step.from.as_str())
            .raw(" → ")
            .text(step.to.as_str())
            .raw("</span>");
        reason(&step.reason, h);
        h.raw("</li>");
    }
    h.raw("</ol>");
}

/// Why a state change happened, as the engine recorded it.
fn reason(why: &TransitionReason, h: &mut String) {
    match *why {
        TransitionReason::FailureRate { rate: r, threshold } => {
            h.raw(": failure rate ")
                .text(&rate(r))
                .raw("% ≥ ")
                .text(&decimal(threshold))
                .raw("%.");
        }
        TransitionReason::SlowCallRate { rate: r, threshold } => {
            h.raw(": slow-call rate ")
                .text(&rate(r))
                .raw("% ≥ ")
                .text(&decimal(threshold))
                .raw("%.");
        }
        TransitionReason::WaitOver { waited_ticks } => {
            plural(h.raw(": the wait of "), waited_ticks.into(), "tick").raw(" is over.");
        }
        TransitionReason::Trials { succeeded, failed } => {
            h.raw(": trials ")
                .num(succeeded.into())
                .raw(" succeeded, ")
                .num(failed.into())
                .raw(" failed.");
        }
        TransitionReason::Other => {
            h.raw(".");
        }
    }
}

/// A sentence on what the breaker is doing now.
///
/// The end of the wait is said as a tick ("until t = 6"), not counted down: a sentence
/// that stays put while the breaker waits costs the page nothing to keep.
fn status_line(breaker: &CircuitBreaker, h: &mut String) {
    match breaker.state() {
        State::Open => match (breaker.next_timer(), breaker.open_until()) {
            // The automatic transition: a timer at the end of the wait.
            (Some(at), _) => {
                h.raw("refusing calls until t\u{a0}=\u{a0}")
                    .num(ticks(at))
                    .raw(", then HALF_OPEN.");
            }
            (None, Some(until)) => {
                h.raw("refusing calls; the first call after t\u{a0}=\u{a0}")
                    .num(ticks(until))
                    .raw(" goes through as a trial.");
            }
            (None, None) => {
                h.raw("refusing calls.");
            }
        },
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

/// The window's outcomes with the rate; before them, the HALF_OPEN trials that decided in
/// the last tick (gone from the window when the breaker closed).
pub(crate) fn draw_window(s: &TickSession, h: &mut String) {
    let m = s.model();
    let Some(breaker) = m.breaker() else { return };
    let threshold = decimal(m.config().circuit_breaker.failure_rate_threshold);
    // The same parts in the same places every tick (the trials and the failures' causes
    // hidden when there are none), so a change stays inside its part when patched.
    let verdicts = m.trial_verdicts();
    h.raw(if verdicts.is_empty() {
        "<h3>Window</h3><div class=\"trials\" data-testid=\"trials\" hidden>"
    } else {
        "<h3>Window</h3><div class=\"trials\" data-testid=\"trials\">"
    });
    let places = m
        .config()
        .circuit_breaker
        .permitted_number_of_calls_in_half_open_state;
    match verdicts {
        // One verdict's place, hidden, so the part keeps its shape when a verdict comes.
        [] => trials(State::Closed, &[], places, h),
        _ => {
            for verdict in verdicts {
                trials(verdict.to, &verdict.trials, places, h);
            }
        }
    }
    h.raw("</div><p class=\"window-caption\" data-testid=\"failure-rate\">");
    rate_line(breaker, &threshold, h);
    h.raw("</p><ol class=\"window\" data-testid=\"window\" aria-label=\"Outcomes in the breaker's window, oldest first\">");
    let entries = m.window_entries();
    window_cells(breaker, &m.config().circuit_breaker, &entries, h);
    h.raw("</ol>");
    causes(&entries, m, h);
}

/// A HALF_OPEN window that decided: its trials as cells, and where they sent the breaker.
/// The list keeps a place for every permitted trial (at most 40), hidden when unused.
fn trials(to: State, entries: &[WindowEntry], places: u32, h: &mut String) {
    h.raw("<p class=\"window-caption\">The trial calls that decided (HALF_OPEN → ")
        .text(to.as_str())
        .raw("):</p><ol class=\"window\" aria-label=\"The trial calls, in order\">");
    for entry in entries {
        cell(entry, h);
    }
    for _ in entries.len()..(places as usize).min(40) {
        h.raw(EMPTY_CELL_HIDDEN);
    }
    h.raw("</ol>");
}

/// How many state changes the timeline lists (the latest).
const CHANGES_SHOWN: usize = 6;

/// The latest state changes, oldest first.
pub(crate) fn draw_changes(s: &TickSession, h: &mut String) {
    let m = s.model();
    if m.breaker().is_none() {
        return;
    }
    // A note and a list of CHANGES_SHOWN items, always (hidden when empty), so a change
    // stays in its part.
    let changes: Vec<&Transition> = m.transitions().collect();
    let earlier = changes.len().saturating_sub(CHANGES_SHOWN);
    if changes.is_empty() {
        h.raw("<h3>State changes</h3><p class=\"muted\">None yet.</p>");
    } else if earlier == 0 {
        h.raw("<h3>State changes</h3><p class=\"muted\" hidden>None yet.</p>");
    } else {
        h.raw("<h3>State changes</h3><p class=\"muted\">The latest ")
            .num(CHANGES_SHOWN as u64)
            .raw(" (and ");
        if earlier + CHANGES_SHOWN >= TRANSITIONS_KEPT {
            h.raw("more");
        } else {
            h.num(earlier as u64);
        }
        h.raw(" earlier):</p>");
    }
    h.raw(if changes.is_empty() {
        "<ol class=\"timeline\" data-testid=\"transitions\" hidden>"
    } else {
        "<ol class=\"timeline\" data-testid=\"transitions\">"
    });
    for t in &changes[earlier..] {
        h.raw("<li>t = ")
            .num(t.tick.into())
            .raw(": ")
            .text(t.from.as_str())
            .raw(" → ")
            .text(t.to.as_str())
            .raw("</li>");
    }
    // Places for the changes still to come, hidden: the list keeps its shape as it fills.
    for _ in changes.len() - earlier..CHANGES_SHOWN {
        h.raw("<li hidden>\u{200B}</li>");
    }
    h.raw("</ol>");
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

/// What a cell says about the call it records: a short tag, and the exception (or answer)
/// in full for the label.
fn cause(outcome: Option<Outcome>) -> (&'static str, &'static str, &'static str) {
    match outcome {
        Some(Outcome::Success) => ("", "ok", "answered"),
        Some(Outcome::SlowSuccess) => ("", "slow", "answered slowly"),
        Some(Outcome::ReadTimeout) => (" timeout", "timeout", "timed out (SocketTimeoutException)"),
        Some(Outcome::Http5xx) => (" error", "HTTP 500", "error (HttpServerErrorException)"),
        Some(Outcome::ConnectFailure) => {
            (" error", "refused", "connection refused (ConnectException)")
        }
        Some(Outcome::BusinessError) => (" error", "declined", "declined (CardDeclinedException)"),
        Some(Outcome::BulkheadFull) => (
            " bulkhead",
            "bulkhead",
            "refused by the bulkhead (BulkheadFullException)",
        ),
        Some(Outcome::NoFreeThread) => (
            " no-thread",
            "no thread",
            "no free thread (RejectedExecutionException)",
        ),
        Some(Outcome::CallNotPermitted) => (
            " error",
            "not permitted",
            "refused by the breaker (CallNotPermittedException)",
        ),
        // The tick model has no time limiter or rate limiter: the engine's own words.
        Some(o @ Outcome::TimeLimited) => (" timeout", "timeout", o.describe()),
        Some(o @ Outcome::RequestNotPermitted) => (" error", "not permitted", o.describe()),
        None => ("", "", ""),
    }
}

fn cell(entry: &WindowEntry, h: &mut String) {
    let (class, mark, kind) = match entry.cell {
        WindowCell::Success => ("success", "✓", "success"),
        WindowCell::Failure => ("failure", "✗", "failure"),
        WindowCell::SlowSuccess => ("success slow", "◷", "slow success"),
        WindowCell::SlowFailure => ("failure slow", "✗◷", "slow failure"),
    };
    let (cause_class, tag, why) = cause(entry.outcome);
    h.raw("<li class=\"cell ")
        .raw(class)
        .raw(cause_class)
        .raw("\" title=\"")
        .raw(kind);
    if !why.is_empty() {
        h.raw(": ").raw(why);
    }
    h.raw("\"><span class=\"mark\" aria-hidden=\"true\">")
        .raw(mark)
        .raw("</span><span class=\"visually-hidden\">")
        .raw(kind)
        .raw(if why.is_empty() { "" } else { ": " })
        .raw(why)
        .raw("</span>");
    // Always a tag (a zero-width space when there is none), so every cell has one shape.
    h.raw("<span class=\"tag\" aria-hidden=\"true\">")
        .raw(if tag.is_empty() { "\u{200B}" } else { tag })
        .raw("</span></li>");
}

/// The window's cells: its outcomes, then its empty places. A COUNT_BASED window keeps a
/// place for the most cells either of its states can hold (CLOSED's window, HALF_OPEN's
/// trials), the ones beyond the current window hidden, so the list keeps its shape when
/// the breaker changes state.
fn window_cells(
    breaker: &CircuitBreaker,
    config: &CircuitBreakerConfig,
    entries: &[WindowEntry],
    h: &mut String,
) {
    let (capacity, places) = match breaker.window_kind() {
        WindowKind::CountBased(n) => {
            let most = config
                .sliding_window_size
                .max(config.permitted_number_of_calls_in_half_open_state);
            (n as usize, most as usize)
        }
        _ => (entries.len(), entries.len()),
    };
    // Draw at most 40 cells; a larger window shows its newest outcomes.
    let shown = capacity.min(40);
    let skip = entries.len().saturating_sub(shown);
    let filled = entries.len() - skip;
    for entry in &entries[skip..] {
        cell(entry, h);
    }
    for i in filled..places.max(shown).min(40) {
        h.raw(if i < shown {
            EMPTY_CELL
        } else {
            EMPTY_CELL_HIDDEN
        });
    }
}

/// An empty place in a window, with the shape of [`cell`]'s cells; `hidden` when it is kept
/// for a cell the window may hold later.
macro_rules! empty_cell {
    ($hidden:literal) => {
        concat!(
            "<li class=\"cell empty\"",
            $hidden,
            "><span class=\"mark\" aria-hidden=\"true\">·</span><span class=\"visually-hidden\">empty</span><span class=\"tag\" aria-hidden=\"true\">\u{200B}</span></li>"
        )
    };
}
const EMPTY_CELL: &str = empty_cell!("");
const EMPTY_CELL_HIDDEN: &str = empty_cell!(" hidden");

/// Why the window's failures are failures, counted by kind, in the order they first appear.
///
/// The line keeps a place for each kind a window usually holds (hidden when unused), so it
/// keeps its shape while the counts change.
fn causes(entries: &[WindowEntry], m: &TickModel, h: &mut String) {
    let mut kinds: Vec<(Outcome, u64)> = Vec::new();
    for e in entries.iter().filter(|e| e.cell.is_failure()) {
        let Some(o) = e.outcome else { continue };
        match kinds.iter_mut().find(|(k, _)| *k == o) {
            Some((_, n)) => *n += 1,
            None => kinds.push((o, 1)),
        }
    }
    h.raw(if kinds.is_empty() {
        "<p class=\"window-why\" data-testid=\"window-why\" hidden>Failures: "
    } else {
        "<p class=\"window-why\" data-testid=\"window-why\">Failures: "
    });
    for (i, (outcome, n)) in kinds.iter().enumerate() {
        h.raw("<span>");
        if i > 0 {
            h.raw("; ");
        }
        h.num(*n).raw(" × ");
        match outcome {
            Outcome::BulkheadFull => {
                h.raw("<strong>bulkhead</strong>: BulkheadFullException, the bulkhead refused the call at once");
            }
            Outcome::ReadTimeout => {
                h.raw("<strong>timeout</strong>: no answer in ");
                plural(h, m.config().world.timeout_ticks.into(), "tick");
            }
            Outcome::NoFreeThread => {
                h.raw("<strong>no thread</strong>: no worker thread was free");
            }
            other => {
                h.raw("<strong>")
                    .raw(cause(Some(*other)).1)
                    .raw("</strong>: ")
                    .raw(cause(Some(*other)).2);
            }
        }
        h.raw("</span>");
    }
    for _ in kinds.len()..CAUSE_PLACES {
        h.raw("<span hidden>\u{200B}<strong>\u{200B}</strong>\u{200B}</span>");
    }
    h.raw(".</p>");
}

/// Kinds of failure the causes line keeps a place for (the demos' windows hold one or two;
/// more only make a new shape, which is slower, not wrong).
const CAUSE_PLACES: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::test_support::{html, session_at};

    /// Demo 2 at t = 6: OPEN -> HALF_OPEN -> CLOSED, numbered 1 and 2 on their arrows and
    /// listed in that order, with the two successful trials that decided.
    #[test]
    fn demo_2_at_t6_draws_the_path_in_order() {
        let s = session_at(2, 6);
        let d = html(draw_diagram, &s) + &html(draw_path, &s);
        assert!(
            d.contains("in this tick it went OPEN → HALF_OPEN → CLOSED"),
            "{d}"
        );
        let taken: Vec<_> = d.match_indices("edge taken").collect();
        assert_eq!(taken.len(), 2);
        let badge = |x: u64, y: u64, n: u64| {
            format!("<circle cx=\"{x}\" cy=\"{y}\" r=\"11\"></circle><text x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{n}</text>", y + 5)
        };
        assert!(
            d.contains(&badge(295, 137, 1)),
            "OPEN → HALF_OPEN is step 1"
        );
        assert!(
            d.contains(&badge(130, 179, 2)),
            "HALF_OPEN → CLOSED is step 2"
        );
        let first = d
            .find("<li><span class=\"from-to\">OPEN → HALF_OPEN")
            .unwrap();
        let second = d
            .find("<li><span class=\"from-to\">HALF_OPEN → CLOSED")
            .unwrap();
        assert!(first < second);
        assert!(d.contains("the wait of 3 ticks is over"), "{d}");
        assert!(d.contains("trials 2 succeeded, 0 failed"), "{d}");
        let w = html(draw_window, &s);
        assert!(
            w.contains("The trial calls that decided (HALF_OPEN → CLOSED)"),
            "{w}"
        );
        assert_eq!(w.matches("class=\"cell success\"").count(), 2, "{w}");
        // The next tick has no path.
        let s = session_at(2, 7);
        let d = html(draw_diagram, &s) + &html(draw_path, &s);
        assert!(!d.contains("edge taken"), "{d}");
        assert!(d.contains("breaker's path in this tick\" hidden>"), "{d}");
        assert!(html(draw_window, &s).contains("data-testid=\"trials\" hidden>"));
    }

    /// HALF_OPEN decides after min(minimumNumberOfCalls, permitted) outcomes, as
    /// Resilience4j's half-open window (its size the permitted number) clamps the minimum.
    #[test]
    fn the_half_open_arrows_count_the_trials_that_decide() {
        let trials = |minimum: u32, permitted: u32| {
            let mut s = session_at(2, 0);
            let mut breaker = s.scenario().tick.circuit_breaker.clone();
            breaker.minimum_number_of_calls = minimum;
            breaker.permitted_number_of_calls_in_half_open_state = permitted;
            let bulkhead = s.scenario().tick.bulkhead.clone();
            s.apply_settings(breaker, bulkhead).unwrap();
            let d = html(draw_diagram, &s);
            let at = d.find(" trial").expect("the label");
            let start = d[..at].rfind('>').unwrap() + 1;
            d[start..at + d[at..].find(':').unwrap()].to_string()
        };
        assert_eq!(trials(1, 2), "1 trial");
        assert_eq!(trials(2, 5), "2 trials");
        assert_eq!(trials(10, 3), "3 trials");
    }

    /// The slow-call rate trips the breaker beside the failure rate, in CLOSED and in
    /// HALF_OPEN: the diagram names both thresholds, and the half-open arrows both rates.
    #[test]
    fn the_arrows_name_the_slow_call_rate_too() {
        let mut s = session_at(2, 0);
        let mut breaker = s.scenario().tick.circuit_breaker.clone();
        breaker.failure_rate_threshold = 40.0;
        breaker.slow_call_rate_threshold = 80.0;
        let bulkhead = s.scenario().tick.bulkhead.clone();
        s.apply_settings(breaker, bulkhead).unwrap();
        let d = html(draw_diagram, &s);
        for label in [
            ">failure rate ≥ 40% or slow-call rate ≥ 80%<",
            ">either rate<",
            ">both rates<",
        ] {
            assert!(d.contains(label), "{label}: {d}");
        }
    }

    /// The "now" mark is inside the current node, never under it among the arrows.
    #[test]
    fn now_is_inside_the_current_node() {
        let d = html(draw_diagram, &session_at(2, 6));
        let (x, y) = (70, 80); // CLOSED
        assert!(d.contains(&format!(
            "<g class=\"state-node closed current\"><rect x=\"{}\" y=\"{}\" width=\"124\" height=\"48\" rx=\"24\"></rect><text x=\"{x}\" y=\"{}\" text-anchor=\"middle\">CLOSED</text><text class=\"now\" x=\"{x}\" y=\"{}\" text-anchor=\"middle\">● now</text></g>",
            x - 62, y - 24, y - 2, y + 16
        )), "{d}");
        assert_eq!(d.matches(" current\"").count(), 1);
    }

    /// Every state of a run draws the diagram with the same elements, so a tick patches
    /// attributes and texts only.
    #[test]
    fn the_diagram_keeps_its_shape() {
        // The tag names in order.
        let shape = |h: &str| -> Vec<String> {
            h.split('<')
                .skip(1)
                .map(|t| t.split([' ', '>']).next().unwrap_or("").to_string())
                .collect()
        };
        let first = shape(&html(draw_diagram, &session_at(7, 0)));
        for demo in [2, 3, 7] {
            for t in 0..14 {
                let d = html(draw_diagram, &session_at(demo, t));
                assert_eq!(shape(&d), first, "demo {demo} t {t}");
            }
        }
    }

    /// Demo 7 at t = 4: the window tells the bulkhead's refusals from the timeouts.
    #[test]
    fn demo_7_at_t4_window_shows_why_each_failure_is_one() {
        let w = html(draw_window, &session_at(7, 4));
        let order: Vec<_> = w
            .match_indices("<li class=\"cell failure ")
            .map(|(i, _)| &w[i + 24..i + 24 + w[i + 24..].find('"').unwrap()])
            .collect();
        assert_eq!(order, ["bulkhead", "bulkhead", "timeout", "timeout"], "{w}");
        assert!(w.contains("BulkheadFullException"));
        assert!(w.contains("2 × <strong>bulkhead</strong>"), "{w}");
        assert!(
            w.contains("2 × <strong>timeout</strong>: no answer in 3 ticks"),
            "{w}"
        );
    }

    #[test]
    fn no_breaker_draws_nothing() {
        let s = session_at(6, 3);
        for draw in [
            draw_status,
            draw_diagram,
            draw_path,
            draw_window,
            draw_changes,
        ] {
            assert_eq!(html(draw, &s), "");
        }
    }
}
