//! The two pieces every page of the course has, written once: the header (number, title,
//! introduction, what to watch, the question to predict) and the pager to the previous
//! and next demo.

use leptos::prelude::*;
use resilience_sim::scenario::catalogue;

use super::html::Html;
use crate::nav::{DemoLink, LinkLabel, Location};

/// What a page's header says; the texts are the course's (`course::DemoText`,
/// `course::LabText`).
pub struct Guide<'a> {
    pub intro: &'a str,
    /// The setup in one glance, under the introduction (the tick demos: their world).
    pub setup: Option<&'a str>,
    pub watch: &'a str,
    pub predict: &'a str,
}

/// The header's HTML: fixed for the page, so plain escaped text (no typed tree).
/// `kind` follows the number in the kicker ("Demo 8 of 11 · retry lab"; empty for none).
pub fn header_html(number: u32, title: &str, kind: &'static str, guide: Option<Guide>) -> String {
    let mut h = String::new();
    h.raw("<p class=\"demo-kicker\">Demo ")
        .num(number.into())
        .raw(" of ")
        .num(catalogue::course().count() as u64);
    if !kind.is_empty() {
        h.raw(" · ").raw(kind);
    }
    h.raw("</p><h1 id=\"demo-heading\" data-testid=\"demo-heading\" tabindex=\"-1\">Demo ")
        .num(number.into())
        .raw(": ")
        .text(title)
        .raw("</h1>");
    if let Some(g) = guide {
        h.raw("<p class=\"intro\">").text(g.intro).raw("</p>");
        if let Some(setup) = g.setup {
            h.raw("<p class=\"setup\" data-testid=\"setup\">")
                .text(setup)
                .raw("</p>");
        }
        h.raw("<dl class=\"demo-guide\"><dt>Watch</dt><dd>")
            .text(g.watch)
            .raw("</dd><dt>Predict</dt><dd data-testid=\"predict\">")
            .text(g.predict)
            .raw("</dd></dl>");
    }
    h
}

/// The header of a page.
#[component]
pub fn PageHeader(html: String) -> impl IntoView {
    view! { <header class="demo-header" inner_html=html></header> }
}

/// Links to the previous and the next demo of the course, where there is one.
#[component]
pub fn Pager(number: u32, location: RwSignal<Location>) -> impl IntoView {
    // A frame on a course page shows one demo: no way to the others.
    if location.with_untracked(|l| l.embed) {
        return None;
    }
    let previous = Some(number.wrapping_sub(1)).filter(|n| catalogue::exists(*n));
    let next = Some(number + 1).filter(|n| catalogue::exists(*n));
    Some(view! {
        <nav class="demo-pager" aria-label="Previous and next demo">
            {previous.map(|n| view! { <DemoLink number=n location=location testid="previous-demo" label=LinkLabel::Text(format!("← Demo {n}")) /> })}
            {next.map(|n| view! { <DemoLink number=n location=location testid="next-demo" label=LinkLabel::Text(format!("Demo {n} →")) /> })}
        </nav>
    })
}
