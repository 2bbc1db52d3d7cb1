//! The teachers' view of the course: each demo's notes ([`super::teacher`]), under the
//! demo's page and all together on one printable page (`?overview=1`) with the snippet
//! that embeds each demo.

use leptos::prelude::*;
use resilience_sim::scenario::catalogue;

use super::teacher::notes;
use crate::embed::{site_base, snippets};
use crate::nav::{DemoLink, LinkLabel, Location};
use crate::views::html::{click, Html};

/// The page's predict question, as the demo shows it.
fn predict(number: u32) -> Option<&'static str> {
    super::text(number)
        .map(|t| t.predict)
        .or_else(|| super::lab_text(number).map(|t| t.predict))
}

/// The notes of demo `number` as HTML: time, objectives, the predict question with its
/// answer and why, a question to discuss, and the misconceptions to listen for.
pub fn notes_html(number: u32, h: &mut String) {
    let Some(n) = notes(number) else { return };
    h.raw("<p class=\"muted\">About ")
        .num(super::minutes(number).unwrap_or_default().into())
        .raw(
        " minutes, predicting and discussing included.</p><h3>Learners will be able to</h3><ul>",
    );
    for o in n.objectives {
        h.raw("<li>").text(o).raw("</li>");
    }
    h.raw("</ul><h3>Predict</h3><p>");
    if let Some(q) = predict(number) {
        h.text(q);
    }
    h.raw("</p><p><strong>Expected answer: </strong>")
        .text(n.answer)
        .raw("</p><p><strong>Why: </strong>")
        .text(n.reasoning)
        .raw("</p><h3>Discuss</h3><p>")
        .text(n.discussion)
        .raw("</p><h3>Common misconceptions</h3><ul>");
    for m in n.misconceptions {
        h.raw("<li>").text(m).raw("</li>");
    }
    h.raw("</ul>");
}

/// Every demo with its notes and embed snippet, on one page made for printing.
#[component]
pub fn Overview(location: RwSignal<Location>) -> impl IntoView {
    let page = window().location().href().unwrap_or_default();
    let base = site_base(&page).to_string();
    let demos = catalogue::course()
        .map(|(number, title)| {
            let mut h = String::new();
            notes_html(number, &mut h);
            let snippet = snippets(
                &base,
                &format!("demo={number}"),
                &format!("Resilience Playground — Demo {number}: {title}"),
            );
            // The iframe first: learning platforms that strip scripts keep it.
            h.raw("<h3>Embed</h3><p>An iframe:</p><pre class=\"code snippet\">")
                .text(&snippet.iframe)
                .raw("</pre><p>Or a script that makes the frame as tall as the demo:</p><pre class=\"code snippet\">")
                .text(&snippet.script)
                .raw("</pre>");
            view! {
                <section class="overview-demo" aria-labelledby=format!("overview-{number}") data-testid="overview-demo">
                    <h2 id=format!("overview-{number}")>
                        <DemoLink number=number location=location
                            label=LinkLabel::Text(format!("Demo {number}: {title}")) />
                    </h2>
                    <div inner_html=h></div>
                </section>
            }
        })
        .collect_view();
    view! {
        <article class="overview" aria-labelledby="overview-heading">
            <header class="demo-header">
                <h1 id="overview-heading" tabindex="-1">"The course at a glance, for teachers"</h1>
                <p class="intro">"Each demo with what learners take from it, the question to ask before they run it and its answer, a question to discuss, the misconceptions to listen for, and the snippet that puts the demo on your own course page."</p>
                <p class="no-print">
                    <button type="button" data-testid="overview-print" on:click=click(|_| { let _ = window().print(); })>"Print this page"</button>
                </p>
            </header>
            {demos}
        </article>
    }
}
