//! The worker threads of `order-api` as cells; with a bulkhead, its compartments (the
//! permits of each dependency as cells, and the calls refused at the wall in the last
//! tick); and every call refused in the last tick.

use leptos::prelude::*;
use resilience_sim::model::tick::{Dependency, Refusal, TickEvent, TickModel};
use resilience_sim::scenario::session::TickSession;
use resilience_sim::Outcome;

use super::html::{panel, Html};

#[component]
pub fn ThreadPool(session: RwSignal<TickSession>) -> impl IntoView {
    view! {
        <section class="panel thread-pool" aria-labelledby="pool-heading">
            <h2 id="pool-heading">"Worker threads of order-api"</h2>
            // Each part is rewritten only when its own text changes.
            <div inner_html=panel(session, draw_threads) />
            <div inner_html=panel(session, draw_compartments) />
            <div inner_html=panel(session, draw_refused) />
        </section>
    }
}

/// Who holds a thread, in a cell: a name short enough for a third of a phone's width (the
/// legend says what "recs" stands for), and the full name for screen readers.
fn owner(h: &mut String, short: &'static str, full: &'static str) {
    h.raw("<span class=\"thread-owner\"><span aria-hidden=\"true\">")
        .raw(short)
        .raw("</span><span class=\"visually-hidden\">")
        .raw(full)
        .raw("</span></span>");
}

/// The summary line, the legend and a cell per thread.
pub(crate) fn draw_threads(s: &TickSession, h: &mut String) {
    let m = s.model();
    let threads = m.threads();
    h.raw("<p class=\"summary\" data-testid=\"pool-summary\">")
        .num(threads.iter().flatten().count() as u64)
        .raw(" of ")
        .num(threads.len() as u64)
        .raw(" threads busy: recommendations ")
        .num(m.threads_held_by(Dependency::Recommendations).into())
        .raw(", payment ")
        .num(m.threads_held_by(Dependency::Payment).into())
        .raw(".</p><ul class=\"legend\" aria-hidden=\"true\"><li><span class=\"swatch recommendations\"></span>recs: recommendations</li><li><span class=\"swatch payment\"></span>payment</li><li><span class=\"swatch free\"></span>free</li></ul><ul class=\"threads\">");
    // Every cell has the same elements, free or held, so a tick changes their texts and
    // attributes only (and the page patches them in place).
    for (i, held) in threads.iter().enumerate() {
        let number = i as u64 + 1;
        match held {
            None => {
                h.raw("<li class=\"thread free\" data-testid=\"thread-cell\" data-owner=\"free\"><span class=\"thread-number\">Thread ")
                    .num(number)
                    .raw("</span>");
                owner(h, "free", "free");
                // An empty line, kept as a zero-width space so the cell keeps its shape.
                h.raw("<span class=\"thread-left\">\u{200B}</span></li>");
            }
            Some(held) => {
                let name = held.dependency.name();
                // The engine decided how the call ends when it was sent; this only says it,
                // and when: a tick number, which (unlike a countdown) stays put while the
                // call holds the thread, so the cell is not redrawn every tick. "t = 5" is
                // kept on one line (no-break spaces).
                let ends = match held.outcome() {
                    Outcome::ReadTimeout => "times out at t\u{a0}=\u{a0}",
                    o if o.is_success() => "answers at t\u{a0}=\u{a0}",
                    _ => "errors at t\u{a0}=\u{a0}",
                };
                h.raw("<li class=\"thread ")
                    .text(name)
                    .raw("\" data-testid=\"thread-cell\" data-owner=\"")
                    .text(name)
                    .raw("\" title=\"sent at t = ")
                    .num(held.sent_at.into())
                    .raw("\"><span class=\"thread-number\">Thread ")
                    .num(number)
                    .raw("</span>");
                match held.dependency {
                    Dependency::Recommendations => owner(h, "recs", "recommendations"),
                    Dependency::Payment => owner(h, "payment", "payment"),
                }
                h.raw("<span class=\"thread-left\">")
                    .raw(ends)
                    .num(held.due_at.into())
                    .raw("</span></li>");
            }
        }
    }
    h.raw("</ul>");
}

/// Calls of `dependency` the bulkhead refused in the last tick.
fn refused_at_the_wall(m: &TickModel, dependency: Dependency) -> u64 {
    m.last_events()
        .iter()
        .filter(|e| {
            matches!(e, TickEvent::Refused { dependency: d, reason: Refusal::BulkheadFull, .. } if *d == dependency)
        })
        .count() as u64
}

/// The bulkhead's compartments: per dependency, its permits as cells (in use or free), a
/// wall, and the calls refused at the wall in the last tick. Nothing without a bulkhead.
pub(crate) fn draw_compartments(s: &TickSession, h: &mut String) {
    let m = s.model();
    let Some(recommendations) = m.bulkhead_in_use(Dependency::Recommendations) else {
        return;
    };
    let payment = m.bulkhead_in_use(Dependency::Payment).unwrap_or(0);
    let max = m.config().bulkhead.max_concurrent_calls;
    let threads = m.config().world.threads;
    h.raw("<h3>Bulkhead compartments</h3><p class=\"compartments-note\">Each dependency may hold at most ")
        .num(max.into())
        .raw(" threads (maxConcurrentCalls)");
    if max == 0 {
        h.raw(": every call to either is refused at the wall, payment's too.</p>");
    } else if m.threads_held_by(Dependency::Recommendations) > max {
        // Switched on mid-run: calls sent before it hold threads without a permit.
        h.raw(": the calls to recommendations sent before the bulkhead was on still hold ")
            .num(m.threads_held_by(Dependency::Recommendations).into())
            .raw(" threads, without permits, until they end.</p>");
    } else if max < threads {
        h.raw(": however slow recommendations is, ")
            .num((threads - max).into())
            .raw(" of the ")
            .num(threads.into())
            .raw(" threads stay out of its reach, kept for payment.</p>");
    } else {
        h.raw(": with ")
            .num(threads.into())
            .raw(" threads, recommendations can still take them all.</p>");
    }
    h.raw("<div class=\"compartments\" data-testid=\"compartments\">");
    for (dependency, in_use) in [
        (Dependency::Recommendations, recommendations),
        (Dependency::Payment, payment),
    ] {
        let refused = refused_at_the_wall(m, dependency);
        h.raw("<div class=\"compartment ")
            .raw(dependency.name())
            .raw("\" data-testid=\"compartment\" data-owner=\"")
            .raw(dependency.name())
            .raw("\"><p class=\"compartment-name\"><strong>")
            .raw(dependency.name())
            .raw("</strong> ")
            .num(in_use.into())
            .raw(" of ")
            .num(max.into())
            .raw(" permits in use");
        if refused > 0 {
            h.raw("; ")
                .num(refused)
                .raw(" refused at the wall (BulkheadFullException)");
        }
        // Outside the wall, the calls it turned away in the last tick (a slot for each call
        // that can arrive in a tick, so the markup keeps its shape); inside, the permits (the
        // ones in use first). Either shows at most 12.
        let arrivals = u64::from(match dependency {
            Dependency::Recommendations => m.config().world.recommendations_per_tick,
            Dependency::Payment => m.config().world.payment_per_tick,
        });
        h.raw("</p><div class=\"compartment-row\" aria-hidden=\"true\"><ul class=\"bounced\">");
        for i in 0..refused.max(arrivals).min(12) {
            h.raw(if i < refused {
                "<li class=\"bounced-call\">✗</li>"
            } else {
                "<li class=\"bounced-call empty\">✗</li>"
            });
        }
        h.raw("</ul><span class=\"wall\"></span><ol class=\"permit-cells\">");
        for i in 0..max.min(12) {
            h.raw(if i < in_use {
                "<li class=\"permit in-use\" data-testid=\"permit-cell\">in use</li>"
            } else {
                "<li class=\"permit\" data-testid=\"permit-cell\">free</li>"
            });
        }
        h.raw("</ol>");
        h.raw("</div></div>");
    }
    h.raw("</div>");
}

/// Every call refused in the last tick, and why. A slot for each call that can arrive in a
/// tick, the unused ones hidden, so the markup keeps its shape from tick to tick.
pub(crate) fn draw_refused(s: &TickSession, h: &mut String) {
    let m = s.model();
    let refused: Vec<(Dependency, Refusal)> = m
        .last_events()
        .iter()
        .filter_map(|e| match e {
            TickEvent::Refused {
                dependency, reason, ..
            } => Some((*dependency, *reason)),
            _ => None,
        })
        .collect();
    let world = &m.config().world;
    let slots = refused
        .len()
        .max((world.recommendations_per_tick + world.payment_per_tick) as usize);
    h.raw(if refused.is_empty() {
        "<h3>Refused this tick</h3><p class=\"muted\" data-testid=\"refused-none\">No call was refused.</p><ul class=\"refused\" hidden>"
    } else {
        "<h3>Refused this tick</h3><p class=\"muted\" hidden>No call was refused.</p><ul class=\"refused\" data-testid=\"refused\">"
    });
    for i in 0..slots {
        let Some((dependency, reason)) = refused.get(i) else {
            h.raw("<li class=\"refused-call\" hidden><strong>-</strong> — -</li>");
            continue;
        };
        let (class, why) = match reason {
            // OPEN, or HALF_OPEN with its trials taken.
            Refusal::CallNotPermitted => ("by-breaker", "breaker: CallNotPermitted"),
            Refusal::BulkheadFull => ("by-bulkhead", "bulkhead full: BulkheadFullException"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::test_support::{html, session_at};

    /// Demo 6 at t = 3: recommendations' compartment is full (3 permit cells, all in use)
    /// and its two calls of the tick were refused at the wall; payment's keeps its own.
    #[test]
    fn demo_6_draws_the_compartments() {
        let c = html(draw_compartments, &session_at(6, 3));
        let recommendations = &c[c.find("data-owner=\"recommendations\"").unwrap()
            ..c.find("data-owner=\"payment\"").unwrap()];
        assert_eq!(
            recommendations
                .matches("data-testid=\"permit-cell\"")
                .count(),
            3
        );
        assert_eq!(
            recommendations.matches("permit in-use").count(),
            3,
            "{recommendations}"
        );
        assert_eq!(
            recommendations.matches("class=\"bounced-call\"").count(),
            2,
            "{recommendations}"
        );
        assert!(recommendations.contains("2 refused at the wall (BulkheadFullException)"));
        let payment = &c[c.find("data-owner=\"payment\"").unwrap()..];
        assert_eq!(payment.matches("data-testid=\"permit-cell\"").count(), 3);
        assert_eq!(payment.matches("class=\"bounced-call\"").count(), 0);
        assert!(
            c.contains("3 of the 6 threads stay out of its reach, kept for payment"),
            "{c}"
        );
    }

    /// A bulkhead switched on mid-run does not take back the threads already held:
    /// the note says so instead of promising threads kept for payment.
    #[test]
    fn a_bulkhead_switched_on_late_says_who_still_holds_threads() {
        use resilience_sim::model::tick::Protection;
        let mut s = session_at(4, 3);
        s.set_protection(Protection::Bulkhead);
        s.next_tick();
        let c = html(draw_compartments, &s);
        assert!(
            c.contains("sent before the bulkhead was on still hold"),
            "{c}"
        );
        assert!(!c.contains("stay out of its reach"), "{c}");
    }

    #[test]
    fn no_bulkhead_no_compartments() {
        assert_eq!(html(draw_compartments, &session_at(4, 3)), "");
        assert_eq!(html(draw_compartments, &session_at(5, 3)), "");
    }

    /// A thread cell never holds the long name alone (it broke as "recommendati/ons").
    #[test]
    fn thread_cells_use_the_short_name() {
        let t = html(draw_threads, &session_at(4, 3));
        assert_eq!(t.matches("data-owner=\"recommendations\"").count(), 6);
        assert!(!t.contains("<span class=\"thread-owner\">recommendations</span>"));
        // Free or held, a cell has the same elements.
        let shape = |cell: &str| {
            cell.split("</li>")
                .next()
                .unwrap_or("")
                .matches('<')
                .count()
        };
        let free = html(draw_threads, &session_at(4, 0));
        let free_cell = free.split("<li ").nth(1).unwrap();
        assert!(
            t.split("<li ")
                .skip(1)
                .all(|c| shape(c) == shape(free_cell)),
            "{t}"
        );
        assert_eq!(
            t.matches("<span aria-hidden=\"true\">recs</span>").count(),
            6
        );
    }
}
