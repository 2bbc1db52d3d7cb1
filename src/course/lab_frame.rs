//! The frame every lab page shares: the header, what the link could not use, the
//! workbench (the lab's figures beside its controls), the lesson and the pager. A lab page
//! (`course::amplification`, `course::jitter`) only adds its figures and side widgets.
//!
//! The lab's state lives in the engine's [`LabSession`], in one signal ([`LabState`]); its
//! link is `?demo=N` plus every control that differs from the spec's value, written at most
//! every 200 ms ([`address_follows`]), and read back through the same control table
//! ([`crate::lab_link`]).

use leptos::prelude::*;
use resilience_sim::resilience4j::labs::LabResilience4j;
use resilience_sim::scenario::catalogue::LabInfo;
use resilience_sim::scenario::lab_session::{LabModel, LabSession, Section};
use wasm_bindgen::JsValue;

use crate::components::{ControlBinding, ControlList, LabState, Problems};
use crate::course::LabText;
use crate::lab_link::{config_from_link, link_of, open_from_link};
use crate::nav::{address_follows, current_query, Location};
use crate::tools;
use crate::views::html::{aria_bool, click, live, live_attr};
use crate::views::page::{header_html, Guide, PageHeader, Pager};
use crate::views::page_tools::{ImportUi, PageTools, TeacherNotes};

/// The lab's state, opened from the address, which then follows every change.
pub fn lab_state<L: LabModel>(number: u32) -> (LabState<L>, Vec<String>) {
    let (session, problems) = open_from_link::<L>(&current_query());
    let state = LabState::new(session);
    address_follows(
        move || state.session.track(),
        move || state.session.try_with_untracked(|s| link_of(number, s)),
    );
    (state, problems)
}

/// Like [`lab_state`], for a lab whose run is made in slices by the page: the session
/// opens without a run ([`LabSession::deferred`]) and the page brings it.
pub fn deferred_lab_state<L: LabModel>(number: u32) -> (LabState<L>, Vec<String>) {
    let (config, problems) = config_from_link::<L>(&current_query());
    let state = LabState::new(LabSession::deferred(config));
    address_follows(
        move || state.session.track(),
        move || state.session.try_with_untracked(|s| link_of(number, s)),
    );
    (state, problems)
}

/// What a lab's page tools read from its session: its link, and where its settings come
/// from: the link itself (the lab's config is whatever its link says:
/// [`config_from_link`]), so the page sends a string, not its instances.
pub fn tools<L: LabModel>(number: u32, state: LabState<L>) -> LabTools {
    LabTools {
        link: Callback::new(move |_| current_link(number, state)),
        config: Callback::new(move |_| tools::config_source::lab(&current_link(number, state))),
    }
}

/// The lab's link now; none if the page is gone by the time a dialog asks (its session
/// disposed).
fn current_link<L: LabModel>(number: u32, state: LabState<L>) -> String {
    state
        .session
        .try_with_untracked(|s| link_of(number, s))
        .unwrap_or_default()
}

/// [`tools()`] for a lab whose config may hold more than its link (the BoxOffice system,
/// whose edits are too long for a link): the page sends its instances
/// ([`LabResilience4j`]).
pub fn tools_with_instances<L: LabModel + LabResilience4j>(
    number: u32,
    state: LabState<L>,
) -> LabTools {
    LabTools {
        link: Callback::new(move |_| current_link(number, state)),
        config: Callback::new(move |_| {
            state
                .session
                .try_with_untracked(|s| tools::config_source::instances(&s.config().resilience4j()))
                .unwrap_or(JsValue::UNDEFINED)
        }),
    }
}

/// See [`tools()`].
#[derive(Clone, Copy)]
pub struct LabTools {
    pub link: Callback<(), String>,
    pub config: Callback<(), JsValue>,
}

/// The page around a lab's figures: header, problems, figures beside the controls (with
/// `side` above them, in the same column), then `after` (a side widget), the lesson and
/// the pager.
#[component]
pub fn LabFrame<I: ImportUi>(
    info: LabInfo,
    /// The lab's words: passed by its page, so a part carries only its own labs' text.
    text: &'static LabText,
    location: RwSignal<Location>,
    tools: LabTools,
    /// Whether the page takes a pasted Resilience4j fragment (the breaker sandbox:
    /// [`crate::views::page_tools::Import`]) or not (`NoImport`).
    import: I,
    /// The lab's controls ([`crate::components::bind_all`]).
    controls: Vec<ControlBinding>,
    refused: RwSignal<Option<String>>,
    reset: Callback<()>,
    problems: Vec<String>,
    /// Whether the `Section::Page` controls sit with the others (else `after` shows them).
    #[prop(optional)]
    page_controls_in_panel: bool,
    /// The lab's figures.
    children: Children,
    #[prop(optional)] after: Option<Children>,
    /// What stays in view beside the figures, above the controls (Demo 12's fix ladder).
    #[prop(optional)]
    side: Option<Children>,
) -> impl IntoView {
    let text = Some(text);
    let header = header_html(
        info.number,
        info.title,
        info.kind,
        text.map(|t| Guide {
            intro: t.intro,
            setup: None,
            watch: t.watch,
            predict: t.predict,
        }),
    );
    // On a phone the controls are a sheet at the bottom of the screen, in view while the
    // figures scroll: closed, one button; open, the controls over the lower part.
    let sheet_open = RwSignal::new(false);
    view! {
        <article class="lab" aria-labelledby="demo-heading">
            <PageHeader html=header />
            <Problems link=problems refused=refused />
            <div class="workbench">
                <div class="figures">{children()}</div>
                <section aria-labelledby="controls-heading"
                    class=live_attr(move || Some(if sheet_open.get() { "lab-controls sheet-open" } else { "lab-controls" }))>
                    <button type="button" class="sheet-toggle" data-testid="lab-controls-toggle"
                        aria-controls="lab-controls-body"
                        aria-expanded=live_attr(move || aria_bool(sheet_open.get()))
                        on:click=click(move |_| sheet_open.set(!sheet_open.get_untracked()))>
                        {live(move || if sheet_open.get() { "Hide the controls" } else { "Controls" }.to_string())}
                    </button>
                    <div class="sheet-body" id="lab-controls-body">
                    {side.map(|side| side())}
                    <h2 id="controls-heading">"Controls"</h2>
                    <ControlList controls=controls.clone() section=Section::Main />
                    {page_controls_in_panel.then(|| view! { <ControlList controls=controls.clone() section=Section::Page /> })}
                    <details>
                        <summary>"More settings"</summary>
                        <ControlList controls=controls section=Section::More />
                    </details>
                    <div class="actions">
                        <button type="button" data-testid="lab-reset" on:click=move |_| reset.run(())>
                            "Back to the spec's values"
                        </button>
                    </div>
                    </div>
                </section>
            </div>
            {after.map(|after| after())}
            {text.map(|t| view! {
                <section class="outcome" aria-labelledby="lessons-heading">
                    <h2 id="lessons-heading">"What to take away"</h2>
                    <ul>{t.lessons.iter().map(|l| view! { <li>{*l}</li> }).collect_view()}</ul>
                    <p class="muted">{t.model}</p>
                </section>
            })}
            <PageTools number=info.number title=info.title embedded=location.with_untracked(|l| l.embed)
                link=tools.link config=tools.config import=import />
            {(!location.with_untracked(|l| l.embed)).then(|| view! { <TeacherNotes number=info.number /> })}
            <Pager number=info.number location=location />
        </article>
    }
}

/// A lab opened from a link that must be valid, and its run (for the pages' tests).
#[cfg(test)]
pub(crate) fn opened<L: LabModel>(link: &[(&str, &str)]) -> (L, L::Run) {
    let (session, problems) = LabSession::<L>::from_pairs(link.iter().copied());
    assert!(problems.is_empty(), "{problems:?}");
    let run = session.run().clone().expect("a valid link runs");
    (session.config().clone(), run)
}
