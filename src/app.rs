//! The course frame: header, the list of numbered demos, the open demo, footer. The address
//! bar holds which demo is open (`?demo=N`, plus `&t=K` and the learner's changes), so a
//! link reproduces what the learner sees and Back returns to the previous demo.

use leptos::ev;
use leptos::prelude::*;
use resilience_sim::scenario::catalogue;

use crate::course::tick_demo::TickDemo;
use crate::url_state::UrlState;

/// The query of the page, parsed, with a message per parameter that was left out.
#[derive(Clone, Debug, PartialEq)]
struct Location {
    state: UrlState,
    problems: Vec<String>,
}

fn read_location() -> Location {
    let query = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    let (state, problems) = UrlState::parse(&query);
    Location { state, problems }
}

/// Opens demo `number` as a new history entry.
fn push_demo(location: RwSignal<Location>, number: u32) {
    if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("?demo={number}")));
    }
    location.set(Location {
        state: UrlState::demo(number),
        problems: Vec::new(),
    });
    if let Some(heading) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("demo-heading"))
    {
        let _ = wasm_bindgen::JsCast::dyn_ref::<web_sys::HtmlElement>(&heading).map(|h| h.focus());
    }
}

/// A link to a demo: a real `?demo=N` link (it can be copied or opened in a new tab) that
/// opens the demo in place on a plain click.
#[component]
pub fn DemoLink(number: u32, children: Children, #[prop(optional)] class: &'static str, #[prop(optional)] testid: &'static str) -> impl IntoView {
    let location = expect_context::<RwSignal<Location>>();
    let current = move || location.with(|l| l.state.demo == number);
    view! {
        <a href=format!("?demo={number}") class=class data-testid=testid
            aria-current=move || current().then_some("page")
            on:click=move |e: ev::MouseEvent| {
                if e.ctrl_key() || e.meta_key() || e.shift_key() || e.alt_key() || e.button() != 0 {
                    return;
                }
                e.prevent_default();
                push_demo(location, number);
            }>
            {children()}
        </a>
    }
}

#[component]
pub fn App() -> impl IntoView {
    let location = RwSignal::new(read_location());
    provide_context(location);
    let popstate = window_event_listener(ev::popstate, move |_| location.set(read_location()));
    on_cleanup(move || popstate.remove());
    // A new demo (not a new tick of the same one) mounts a new page.
    let demo = Memo::new(move |_| location.with(|l| l.state.demo));

    view! {
        <a class="skip-link" href="#main">"Skip to the demo"</a>
        <header class="site-header">
            <p class="brand"><a href="?demo=1">"Resilience Playground"</a></p>
            <p class="tagline">
                "See what timeouts, retries, circuit breakers and bulkheads do when a service gets slow or fails."
            </p>
        </header>
        <div class="course">
            <nav class="demo-list" aria-labelledby="demo-list-heading">
                <h2 id="demo-list-heading">"Demos"</h2>
                <ol>
                    {catalogue::DEMOS
                        .iter()
                        .map(|d| view! {
                            <li>
                                <DemoLink number=d.number class="demo-link" testid="demo-link">
                                    <span class="demo-number">{d.number}</span>
                                    <span class="demo-title">{d.title}</span>
                                </DemoLink>
                            </li>
                        })
                        .collect_view()}
                </ol>
            </nav>
            <main id="main" class="demo-frame" tabindex="-1">
                {move || {
                    let _ = demo.get();
                    let Location { state, problems } = location.get_untracked();
                    view! { <TickDemo initial=state problems=problems /> }
                }}
            </main>
        </div>
        <footer class="site-footer">
            <p>
                "Policies follow Resilience4j 2.x. Every number on these pages comes from a deterministic simulation you can replay."
            </p>
        </footer>
    }
}
