//! Where the learner is: the page's address read as a [`Location`], and [`DemoLink`], the
//! link every page uses to open another demo in place. No page imports `app.rs`; the
//! course frame and the pages all import this module.

use leptos::either::Either;
use leptos::prelude::*;
use resilience_sim::scenario::catalogue;

use crate::embed;
use crate::part;
use crate::url_state;
use crate::views::html::{click, effect, live_attr};

/// Which page the address asks for. Passed down as a prop: Leptos's context (a map of types
/// to values) would add 2 KB gzip. The rest of the query is each page's own to read (a tick
/// demo's [`UrlState`](crate::url_state::UrlState), a lab's link): a lab's part does not
/// carry the tick demos' reader (9 KB gzip).
#[derive(Clone, Debug, PartialEq)]
pub struct Location {
    /// The demo asked for ([`url_state::demo_of`]).
    pub demo: u32,
    /// `?embed=1`: the demo alone, in a course page's frame ([`crate::embed`]).
    pub embed: bool,
    /// `?overview=1`: the teachers' overview of the course instead of a demo.
    pub overview: bool,
    /// No demo asked for (the course's own address): its front page.
    pub landing: bool,
}

pub fn read_location() -> Location {
    let query = current_query();
    Location {
        demo: url_state::demo_of(&query),
        embed: embed::is_embedded(&query),
        overview: embed::is_overview(&query),
        landing: embed::is_landing(&query),
    }
}

/// Opens demo `number` as a new history entry.
fn push_demo(location: RwSignal<Location>, number: u32) {
    if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = history.push_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("?demo={number}")),
        );
    }
    location.set(Location {
        demo: number,
        embed: false,
        overview: false,
        landing: false,
    });
}

/// What a [`DemoLink`] shows: words, or a demo's number and title (two spans, which the
/// course list sets apart).
pub enum LinkLabel {
    Text(String),
    Numbered(u32, &'static str),
}

/// A link to a demo: a real `?demo=N` link (it can be copied or opened in a new tab) that
/// opens the demo in place on a plain click; in embed mode, in a new tab (a frame on a
/// course page shows the demo the teacher chose).
#[component]
pub fn DemoLink(
    number: u32,
    location: RwSignal<Location>,
    label: LinkLabel,
    #[prop(optional)] class: &'static str,
    #[prop(optional)] testid: &'static str,
) -> impl IntoView {
    let current = move || location.with(|l| !l.landing && !l.overview && l.demo == number);
    let embedded = location.with_untracked(|l| l.embed);
    let label = match label {
        LinkLabel::Text(text) => Either::Left(text),
        LinkLabel::Numbered(number, title) => Either::Right(view! {
            <span class="demo-number">{number}</span>" "<span class="demo-title">{title}</span>
        }),
    };
    view! {
        <a href=format!("?demo={number}") class=class data-testid=testid
            target=embedded.then_some("_blank") rel=embedded.then_some("noopener")
            aria-current=live_attr(move || current().then_some("page"))
            on:click=click(move |e| {
                // A demo of another part of the course is a page load (src/part.rs).
                if embedded || !part::opens_in_place(number) || e.ctrl_key() || e.meta_key() || e.shift_key() || e.alt_key() || e.button() != 0 {
                    return;
                }
                e.prevent_default();
                push_demo(location, number);
            })>{label}</a>
    }
}

/// The document's title on demo `number`: "Demo 5: Slow service, circuit breaker —
/// Resilience Playground" (the site's name alone for a number the course does not have).
pub fn document_title(number: u32) -> String {
    match catalogue::course().find(|(n, _)| *n == number) {
        Some((n, title)) => format!("Demo {n}: {title} — Resilience Playground"),
        None => {
            "Resilience Playground: timeouts, retries, circuit breakers and bulkheads, step by step"
                .to_string()
        }
    }
}

/// Sets the document's title to that of demo `number`.
pub fn set_document_title(number: u32) {
    document().set_title(&document_title(number));
}

/// The page's query string, as the address bar has it (with its `?`).
pub fn current_query() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// Keeps the address in step with a page's state: `track` reads the signals it follows,
/// `query` the address to write (`None` once the page's state is gone).
///
/// Written 200 ms after the first change of a burst, then at most every 200 ms, always the
/// latest: `history.replaceState` costs about 1 ms in Chromium, half of a Next Tick's
/// budget, and Play, a run of keypresses or a dragged slider needs only the last address.
/// A change only notes that a write is due, so a tick sets no timer when one is pending.
pub fn address_follows(
    track: impl Fn() + 'static,
    query: impl Fn() -> Option<String> + Send + Sync + 'static,
) {
    let pending = StoredValue::new(None::<leptos::leptos_dom::helpers::TimeoutHandle>);
    let query = std::sync::Arc::new(query);
    effect(move || {
        track();
        if pending.try_with_value(Option::is_some).unwrap_or(true) {
            return;
        }
        let query = query.clone();
        let write = move || {
            pending.try_set_value(None);
            if let Some(q) = query() {
                replace_query(&q);
            }
        };
        if let Ok(handle) = set_timeout_with_handle(write, std::time::Duration::from_millis(200)) {
            pending.set_value(Some(handle));
        }
    });
    // A page that goes away writes nothing more.
    on_cleanup(move || {
        if let Some(Some(handle)) = pending.try_get_value() {
            handle.clear();
        }
    });
}

/// Replaces the address's query (no new history entry), keeping the path (the site may be
/// served from any path prefix) and embed mode. Does nothing when the address already
/// says it.
pub fn replace_query(query: &str) {
    let current = current_query();
    let embedded;
    let query = if embed::is_embedded(&current) {
        embedded = format!("{query}&embed=1");
        embedded.as_str()
    } else {
        query
    };
    if current.trim_start_matches('?') == query {
        return;
    }
    if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = history.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("?{query}")),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_has_its_own_title() {
        assert_eq!(
            document_title(5),
            "Demo 5: Slow service, circuit breaker — Resilience Playground"
        );
        assert!(document_title(8).starts_with("Demo 8: Retries"));
        assert!(document_title(9).starts_with("Demo 9: Jitter"));
        assert_eq!(
            document_title(0),
            "Resilience Playground: timeouts, retries, circuit breakers and bulkheads, step by step"
        );
        let titles: Vec<String> = catalogue::course()
            .map(|(n, _)| document_title(n))
            .collect();
        for (i, t) in titles.iter().enumerate() {
            assert!(!titles[..i].contains(t), "{t}");
        }
    }
}
