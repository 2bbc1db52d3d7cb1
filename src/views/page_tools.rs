//! What every demo page offers besides the demo: "Embed this demo" (the snippets a teacher
//! pastes into a course page), "Show as Resilience4j config" (the settings as Spring Boot
//! YAML and Java, and on the pages that take one, a fragment pasted back), and the notes
//! for teachers.
//!
//! The dialogs and the notes come from the tools part ([`crate::tools`]), loaded the first
//! time one is opened: the page itself carries only the buttons, and a host element the
//! tools part draws the dialogs into ([`crate::views::tool_dialogs`]). It hands that part
//! what the dialogs ask of the page: its link, its settings in Resilience4j's words, and
//! (on the pages that take one) a pasted fragment to apply.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::{JsCast, JsValue};

use super::html::{click, live, Html};

use crate::tools::{self, PageRequests};

pub use crate::tools::Refused;

/// The buttons, and the place the tools part draws their dialogs into. `link` is the
/// page's own link (`demo=5&t=3&…`); `config` says where its settings come from
/// ([`tools::config_source`]); `import`, whether the page applies a pasted fragment, and
/// how ([`PageRequests`]).
#[component]
pub fn PageTools<I: ImportUi>(
    number: u32,
    title: &'static str,
    embedded: bool,
    link: Callback<(), String>,
    config: Callback<(), JsValue>,
    import: I,
) -> impl IntoView {
    let host = NodeRef::<leptos::html::Div>::new();
    // "Loading…" until the tools part has drawn the dialog, or why it could not.
    let status = RwSignal::new(String::new());
    let requests = PageRequests {
        number,
        title,
        embedded,
        link,
        config,
        apply: import.handler(),
    };
    let open = move |which: &'static str| {
        click(move |_| {
            let Some(host) = host.get_untracked() else {
                return;
            };
            status.set("Loading…".into());
            let page = requests.object(host.unchecked_into());
            spawn_local(async move {
                status.set(
                    tools::open_dialog(which, page)
                        .await
                        .err()
                        .unwrap_or_default(),
                );
            });
        })
    };
    view! {
        <div class="page-tools">
            <button type="button" data-testid="export-r4j" aria-haspopup="dialog" on:click=open("config")>
                "Show as Resilience4j config"
            </button>
            // A teacher embeds from the full course; a frame keeps to its demo.
            {(!embedded).then(|| view! {
                <button type="button" data-testid="embed-open" aria-haspopup="dialog" on:click=open("embed")>
                    "Embed this demo"
                </button>
            })}
            <p class="status" role="status">{live(move || status.get())}</p>
            <div class="tool-host" node_ref=host></div>
        </div>
    }
}

/// Whether a page takes a pasted fragment: [`Import`] with its handler, or [`NoImport`].
pub trait ImportUi: Copy + Send + Sync + 'static {
    fn handler(self) -> Option<Callback<JsValue, String>>;
}

/// A page that takes a pasted fragment: what applies it, as the tools part read it
/// ([`PageRequests::apply`]).
#[derive(Clone, Copy)]
pub struct Import(pub Callback<JsValue, String>);

/// A page that takes none.
#[derive(Clone, Copy)]
pub struct NoImport;

impl ImportUi for Import {
    fn handler(self) -> Option<Callback<JsValue, String>> {
        Some(self.0)
    }
}

impl ImportUi for NoImport {
    fn handler(self) -> Option<Callback<JsValue, String>> {
        None
    }
}

/// The notes for teachers of demo `number`, folded away under the page; loaded from the
/// tools part when first unfolded.
#[component]
pub fn TeacherNotes(number: u32) -> impl IntoView {
    let notes = RwSignal::new(None::<String>);
    let toggled = move |e: leptos::ev::Event| {
        let open = e
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok())
            .is_some_and(|d| d.open());
        if !open || notes.with_untracked(Option::is_some) {
            return;
        }
        notes.set(Some(String::new()));
        spawn_local(async move {
            let html = match tools::teacher_notes_html(number).await {
                Ok(html) => html,
                Err(e) => {
                    let mut h = String::new();
                    h.raw("<p>").text(&e).raw("</p>");
                    h
                }
            };
            notes.set(Some(html));
        });
    };
    view! {
        <details class="panel teacher-notes" data-testid="teacher-notes" on:toggle=toggled>
            <summary>"For teachers"</summary>
            <div aria-live="polite" inner_html=live(move || notes.get().unwrap_or_default())></div>
            <p><a href="?overview=1">"Every demo at a glance, ready to print"</a></p>
        </details>
    }
}
