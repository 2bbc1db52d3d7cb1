//! The course frame: header, the list of numbered demos, the selected demo, footer.

use leptos::prelude::*;
use resilience_sim::scenario::catalogue::{self, DemoInfo};

#[component]
pub fn App() -> impl IntoView {
    // The demo the learner has opened; the first demo by default.
    let selected = RwSignal::new(1u32);

    view! {
        <a class="skip-link" href="#main">"Skip to the demos"</a>
        <header class="site-header">
            <p class="brand">"Resilience Playground"</p>
            <p class="tagline">
                "See what timeouts, retries, circuit breakers and bulkheads do when a service gets slow or fails."
            </p>
        </header>
        <main id="main" class="course">
            <nav class="demo-list" aria-labelledby="demo-list-heading">
                <h2 id="demo-list-heading">"Demos"</h2>
                <ol>
                    {catalogue::DEMOS
                        .iter()
                        .map(|demo| view! { <DemoListItem demo=*demo selected=selected /> })
                        .collect_view()}
                </ol>
            </nav>
            <DemoSummary selected=selected />
        </main>
        <footer class="site-footer">
            <p>
                "Policies follow Resilience4j 2.x. Every number on these pages comes from a deterministic simulation you can replay."
            </p>
        </footer>
    }
}

#[component]
fn DemoListItem(demo: DemoInfo, selected: RwSignal<u32>) -> impl IntoView {
    let number = demo.number;
    let is_current = move || selected.get() == number;
    view! {
        <li>
            <button
                type="button"
                class="demo-link"
                data-testid="demo-link"
                aria-current=move || if is_current() { Some("true") } else { None }
                on:click=move |_| selected.set(number)
            >
                <span class="demo-number">{number}</span>
                <span class="demo-title">{demo.title}</span>
            </button>
        </li>
    }
}

#[component]
fn DemoSummary(selected: RwSignal<u32>) -> impl IntoView {
    let demo = move || catalogue::demo(selected.get());
    view! {
        <section class="demo-summary" aria-live="polite" data-testid="demo-summary">
            {move || match demo() {
                Some(d) => view! {
                    <h1 data-testid="demo-heading">{format!("Demo {}: {}", d.number, d.title)}</h1>
                    <p><strong>"Setup: "</strong>{d.setup}</p>
                    <p><strong>"What to watch: "</strong>{d.watch}</p>
                }
                .into_any(),
                None => view! { <p>"Pick a demo from the list."</p> }.into_any(),
            }}
        </section>
    }
}
