//! The four protections side by side: the course's central table, played by the engine
//! ([`TickSession::comparison`]) for the learner's behaviour and settings. The view only
//! draws the rows and marks the learner's protection.

use leptos::prelude::*;
use resilience_sim::model::tick::Protection;
use resilience_sim::policy::circuit_breaker::State;
use resilience_sim::scenario::compare::{Comparison, ProtectionRun};
use resilience_sim::scenario::session::TickSession;

use super::html::{aria_bool, click, live, live_attr, Html};

/// Tick columns drawn at most; a longer run shows its latest ticks.
const COLUMNS: usize = 12;

#[component]
pub fn ComparePanel(session: RwSignal<TickSession>) -> impl IntoView {
    let open = RwSignal::new(false);
    // The rows are played again only when what they play changes (behaviour, settings, the
    // learner's changes, a tick past the demo's length), not on every tick; closed, the
    // panel plays nothing.
    let mut played: Option<(Comparison, [ProtectionRun; 4])> = None;
    let table = live(move || {
        let mut h = String::new();
        if !open.get() {
            return h;
        }
        session.with(|s| {
            let comparison = s.comparison();
            if played.as_ref().is_none_or(|(c, _)| *c != comparison) {
                let rows = comparison.run();
                played = Some((comparison, rows));
            }
            if let Some((_, rows)) = &played {
                draw(rows, s.selects().1, s.tick(), &mut h);
            }
        });
        h
    });
    view! {
        <section class="panel compare" aria-labelledby="compare-heading">
            <h2 id="compare-heading">"The four protections side by side"</h2>
            <p class="muted">"Your run played four times from t = 1, once under each protection: recommendations behaves as you set it, with the settings below."</p>
            <button type="button" data-testid="compare-open" aria-controls="compare-body"
                aria-expanded=live_attr(move || aria_bool(open.get()))
                on:click=click(move |_| open.set(!open.get_untracked()))>
                {live(move || if open.get() { "Hide the comparison" } else { "Compare all four" }.to_string())}
            </button>
            <div id="compare-body" inner_html=table />
        </section>
    }
}

/// The table: a row per protection, the payments failed, then the threads held by
/// recommendations after each tick (a cell shaded where the breaker was not CLOSED).
fn draw(rows: &[ProtectionRun; 4], current: Protection, now: u32, h: &mut String) {
    let ticks = rows[0].ticks.len();
    let skip = ticks.saturating_sub(COLUMNS);
    h.raw("<div class=\"compare-scroll\" tabindex=\"0\" role=\"region\" aria-label=\"The four protections (scrolls sideways)\"><table class=\"compare-table\" data-testid=\"compare-table\"><caption>Payments failed, and threads held by recommendations after each tick</caption><thead><tr><th scope=\"col\">Protection</th><th scope=\"col\">Payments failed</th>");
    for tick in rows[0].ticks.iter().skip(skip) {
        h.raw(if tick.t == now {
            "<th scope=\"col\" class=\"now\">t = "
        } else {
            "<th scope=\"col\">t = "
        })
        .num(tick.t.into())
        .raw("</th>");
    }
    h.raw("</tr></thead><tbody>");
    for row in rows {
        let mine = row.protection == current;
        h.raw(if mine {
            "<tr class=\"current\" aria-current=\"true\" data-testid=\"compare-row\" data-protection=\""
        } else {
            "<tr data-testid=\"compare-row\" data-protection=\""
        })
        .raw(row.protection.name())
        .raw("\"><th scope=\"row\">")
        .text(row.protection.describe())
        .raw(if mine {
            " <span class=\"yours\">(yours)</span>"
        } else {
            ""
        })
        .raw("</th><td class=\"failed\" data-testid=\"compare-payment-failures\">")
        .num(row.payment_failures().into())
        .raw("</td>");
        for tick in row.ticks.iter().skip(skip) {
            let (class, state) = match tick.breaker {
                Some(State::Open) => ("<td class=\"open\">", ", breaker OPEN"),
                Some(State::HalfOpen) => ("<td class=\"half-open\">", ", breaker HALF_OPEN"),
                _ => ("<td>", ""),
            };
            h.raw(class).num(tick.recommendations_threads.into());
            if !state.is_empty() {
                h.raw("<span class=\"visually-hidden\">")
                    .raw(state)
                    .raw("</span>");
            }
            h.raw("</td>");
        }
        h.raw("</tr>");
    }
    h.raw("</tbody></table></div><p class=\"compare-legend\">Shaded: the breaker was OPEN (dark) or HALF_OPEN (light) after that tick.");
    if skip > 0 {
        h.raw(" Ticks 1 to ")
            .num(skip as u64)
            .raw(" are counted in the payments but not drawn.");
    }
    h.raw("</p>");
}
