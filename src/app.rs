//! The course frame: header, the list of numbered demos, the open demo, footer. The address
//! bar holds which demo is open (`?demo=N`, plus `&t=K` and the learner's changes), so a
//! link reproduces what the learner sees and Back returns to the previous demo.
//!
//! Also the router, the one place that knows every page: each part of the course
//! ([`crate::part`]) mounts the frame with its own page function (`tick_demos_pages`,
//! `brownout_pages`, ...), so its binary links only its own pages.

use std::any::Any;

use leptos::ev;
use leptos::mount::mount_to;
use leptos::prelude::*;
use resilience_sim::scenario::catalogue::{self, Lab};

use crate::course::landing::{Landing, LANDING};
use crate::course::overview::Overview;
use crate::course::tick_demo::TickDemo;
use crate::embed;
use crate::nav::{current_query, read_location, set_document_title, DemoLink, LinkLabel, Location};
use crate::part::{self, Part};
use crate::url_state::UrlState;
use crate::views::html::effect;

/// Mounts the page of demo `number` (0: the overview) in `main`, if this part has it; the
/// handle keeps the page alive, and dropping it unmounts the page.
pub type Pages = fn(u32, web_sys::HtmlElement, RwSignal<Location>) -> Option<Box<dyn Any>>;

/// Sends a panic's message to the browser's console (each binary's `main`). The bundle's
/// panics stop the page at once, with no message to send (immediate-abort in
/// .cargo/config.toml, docs/bundles.md), so there the hook is left out; a build with
/// `RUSTFLAGS` set (which replaces that config's flags) keeps messages and the hook.
pub fn report_panics() {
    #[cfg(not(panic = "immediate-abort"))]
    console_error_panic_hook::set_once();
}

/// Starts part `part` of the course (each binary's `main`) with the pages it has.
pub fn mount(part: Part, pages: Pages) {
    part::set_running(part);
    leptos::mount::mount_to_body(move || view! { <App pages=pages /> });
}

/// The front page.
pub fn landing_pages(
    number: u32,
    main: web_sys::HtmlElement,
    location: RwSignal<Location>,
) -> Option<Box<dyn Any>> {
    (number == LANDING).then(|| mounted(main, move || view! { <Landing location=location /> }))
}

/// Demos 1-7.
pub fn tick_demos_pages(
    number: u32,
    main: web_sys::HtmlElement,
    location: RwSignal<Location>,
) -> Option<Box<dyn Any>> {
    catalogue::demo(number)?;
    // The address as it is now: the demo's link (a demo opened in place has `?demo=N`).
    let (state, problems) = UrlState::parse(&current_query());
    Some(mounted(main, move || {
        view! { <TickDemo initial=state problems=problems location=location /> }
    }))
}

/// Demo 8.
pub fn amplification_pages(
    number: u32,
    main: web_sys::HtmlElement,
    location: RwSignal<Location>,
) -> Option<Box<dyn Any>> {
    use crate::course::amplification::AmplificationPage;
    let info = *catalogue::lab(number).filter(|l| l.lab == Lab::Amplification)?;
    Some(mounted(main, move || {
        view! { <AmplificationPage info=info location=location /> }
    }))
}

/// Demo 9.
pub fn jitter_pages(
    number: u32,
    main: web_sys::HtmlElement,
    location: RwSignal<Location>,
) -> Option<Box<dyn Any>> {
    use crate::course::jitter::JitterPage;
    let info = *catalogue::lab(number).filter(|l| l.lab == Lab::Jitter)?;
    Some(mounted(
        main,
        move || view! { <JitterPage info=info location=location /> },
    ))
}

/// Demo 10.
pub fn sandbox_pages(
    number: u32,
    main: web_sys::HtmlElement,
    location: RwSignal<Location>,
) -> Option<Box<dyn Any>> {
    use crate::course::sandbox::SandboxPage;
    let info = *catalogue::lab(number).filter(|l| l.lab == Lab::Sandbox)?;
    Some(mounted(
        main,
        move || view! { <SandboxPage info=info location=location /> },
    ))
}

/// Demo 11.
pub fn pool_pages(
    number: u32,
    main: web_sys::HtmlElement,
    location: RwSignal<Location>,
) -> Option<Box<dyn Any>> {
    use crate::course::pool::PoolPage;
    let info = *catalogue::lab(number).filter(|l| l.lab == Lab::Pool)?;
    Some(mounted(
        main,
        move || view! { <PoolPage info=info location=location /> },
    ))
}

/// Demo 12.
pub fn brownout_pages(
    number: u32,
    main: web_sys::HtmlElement,
    location: RwSignal<Location>,
) -> Option<Box<dyn Any>> {
    use crate::course::brownout::BrownoutPage;
    let info = *catalogue::lab(number).filter(|l| l.lab == Lab::Brownout)?;
    Some(mounted(
        main,
        move || view! { <BrownoutPage info=info location=location /> },
    ))
}

/// Demo 13.
pub fn checkout_pages(
    number: u32,
    main: web_sys::HtmlElement,
    location: RwSignal<Location>,
) -> Option<Box<dyn Any>> {
    use crate::course::checkout::CheckoutPage;
    let info = *catalogue::lab(number).filter(|l| l.lab == Lab::Checkout)?;
    Some(mounted(
        main,
        move || view! { <CheckoutPage info=info location=location /> },
    ))
}

/// Demo 14.
pub fn boxoffice_pages(
    number: u32,
    main: web_sys::HtmlElement,
    location: RwSignal<Location>,
) -> Option<Box<dyn Any>> {
    use crate::course::boxoffice::BoxOfficePage;
    let info = *catalogue::lab(number).filter(|l| l.lab == Lab::BoxOffice)?;
    Some(mounted(
        main,
        move || view! { <BoxOfficePage info=info location=location /> },
    ))
}

/// Demo 15.
pub fn retry_policies_pages(
    number: u32,
    main: web_sys::HtmlElement,
    location: RwSignal<Location>,
) -> Option<Box<dyn Any>> {
    use crate::course::retry_policies::RetryPoliciesPage;
    let info = *catalogue::lab(number).filter(|l| l.lab == Lab::RetryPolicies)?;
    Some(mounted(
        main,
        move || view! { <RetryPoliciesPage info=info location=location /> },
    ))
}

/// The teachers' overview (page 0).
pub fn course_tools_pages(
    number: u32,
    main: web_sys::HtmlElement,
    location: RwSignal<Location>,
) -> Option<Box<dyn Any>> {
    (number == 0).then(|| mounted(main, move || view! { <Overview location=location /> }))
}

/// Every page of the course in one wasm: the library's browser tests.
pub fn every_page(
    number: u32,
    main: web_sys::HtmlElement,
    location: RwSignal<Location>,
) -> Option<Box<dyn Any>> {
    let pages: [Pages; 11] = [
        landing_pages,
        tick_demos_pages,
        amplification_pages,
        jitter_pages,
        sandbox_pages,
        pool_pages,
        brownout_pages,
        checkout_pages,
        boxoffice_pages,
        retry_policies_pages,
        course_tools_pages,
    ];
    pages
        .into_iter()
        .find_map(|pages| pages(number, main.clone(), location))
}

/// `page` mounted in `main`, kept alive by the handle.
fn mounted<V: IntoView + 'static>(
    main: web_sys::HtmlElement,
    page: impl FnOnce() -> V + 'static,
) -> Box<dyn Any> {
    Box::new(mount_to(main, page))
}

#[component]
pub fn App(pages: Pages) -> impl IntoView {
    let location = RwSignal::new(read_location());
    let popstate = window_event_listener(ev::popstate, move |_| location.set(read_location()));
    on_cleanup(move || popstate.remove());
    // A new demo (not a new tick of the same one) mounts a new page in <main>; the old page
    // (its DOM and its reactive state) goes first. Mounting by hand rather than returning
    // the page from a `move ||` child (or a keyed `<For>`) keeps the code that would patch
    // one page into another, and the list diffing, out of the wasm: about 4 KB gzip.
    let main = NodeRef::<leptos::html::Main>::new();
    let mut page: Option<(u32, Box<dyn Any>)> = None;
    let embedded = location.with_untracked(|l| l.embed);
    // Pages belong to the App, not to the effect below: an effect disposes whatever was
    // created under it each time it runs again, and it runs again on any change of the
    // address (a `#main` from the skip link included), which would leave the open page
    // with disposed signals and every control dead.
    let app = Owner::current();
    effect(move || {
        // The overview is page 0 and the front page LANDING: no demo has those numbers.
        let number = location.with(|l| match () {
            _ if l.overview => 0,
            _ if l.landing => LANDING,
            _ => l.demo,
        });
        let Some(main) = main.get() else { return };
        if page.as_ref().is_some_and(|(open, _)| *open == number) {
            return;
        }
        let navigated = page.is_some();
        drop(page.take());
        let mount = || pages(number, main.clone(), location);
        let mounted = match &app {
            Some(app) => app.with(mount),
            None => mount(),
        };
        let Some(mounted) = mounted else {
            // Another part has this page (start.js and the app read the address alike, so
            // only a bug lands here): load it by its plain link.
            let query = match number {
                LANDING => "./".to_string(),
                0 => "?overview=1".to_string(),
                _ if embedded => format!("?demo={number}&embed=1"),
                _ => format!("?demo={number}"),
            };
            let _ = window().location().replace(&query);
            return;
        };
        page.replace((number, mounted));
        // Every page has its own title, demo or lab, set again on Back and Forward.
        set_document_title(number);
        if number == 0 {
            document().set_title("Course overview for teachers — Resilience Playground");
        }
        // After a move to another demo, focus goes to the new page (not on the first load).
        if navigated {
            let _ = main.focus();
        }
    });

    if embedded {
        // The demo alone, sized to its content, with a way out to the whole course.
        if let Some(root) = document().document_element() {
            let _ = root.set_attribute("data-embed", "");
        }
        embed::post_height_to_parent(location.with_untracked(|l| l.demo));
        // The full page of what the frame shows: its demo from the start, with the state it
        // has when the link is followed (the address follows the page, the link the address).
        let full_course = embed::full_course_link(&current_query());
        let follow_address = |e: web_sys::Event| {
            let link = embed::full_course_link(&current_query());
            if let Some(a) = e
                .current_target()
                .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            {
                let _ = a.set_attribute("href", &link);
            }
        };
        return view! {
            <p class="embed-bar">
                <a href=full_course target="_blank" rel="noopener" data-testid="open-full-course"
                    on:click=move |e| follow_address(e.into())
                    on:focus=move |e| follow_address(e.into())
                    on:pointerenter=move |e| follow_address(e.into())>"Open in the full course ↗"</a>
            </p>
            <main id="main" class="demo-frame" tabindex="-1" node_ref=main></main>
        }
        .into_any();
    }

    view! {
        <a class="skip-link" href="#main">"Skip to the demo"</a>
        <header class="site-header">
            <p class="brand"><a href="?demo=1">"Resilience Playground"</a></p>
            <p class="tagline">
                "See what timeouts, retries, circuit breakers and bulkheads do when a service gets slow or fails."
            </p>
        </header>
        <div class="course">
            <nav class="demo-list" aria-labelledby="demo-list-heading" data-testid="course-nav">
                <h2 id="demo-list-heading">"Demos"</h2>
                <ol>
                    {catalogue::course()
                        .map(|(number, title)| view! {
                            <li>
                                <DemoLink number=number location=location class="demo-link" testid="demo-link"
                                    label=LinkLabel::Numbered(number, title) />
                            </li>
                        })
                        .collect_view()}
                </ol>
                <p class="overview-link"><a href="?overview=1" data-testid="overview-link">"For teachers: the course at a glance"</a></p>
            </nav>
            <main id="main" class="demo-frame" tabindex="-1" node_ref=main></main>
        </div>
        <footer class="site-footer">
            <p>
                "Policies follow Resilience4j 2.x. Every number on these pages comes from a deterministic simulation you can replay."
            </p>
        </footer>
    }
    .into_any()
}
