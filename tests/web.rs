//! Browser tests: the app mounted in headless Chromium, driven through its controls, with
//! the spec's numbers (../shared/spec/01-tick-model.md) asserted on the DOM.
#![cfg(target_arch = "wasm32")]

use leptos::mount::mount_to;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Event, EventInit, HtmlElement, HtmlInputElement, HtmlSelectElement};

wasm_bindgen_test_configure!(run_in_browser);

/// One mounted copy of the playground, opened at `query`; queries stay inside it.
struct Page {
    host: HtmlElement,
    _handle: leptos::mount::UnmountHandle<leptos::tachys::view::any_view::AnyViewState>,
}

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

impl Page {
    async fn open(query: &str) -> Page {
        let window = web_sys::window().unwrap();
        let path = window.location().pathname().unwrap();
        window
            .history()
            .unwrap()
            .replace_state_with_url(
                &wasm_bindgen::JsValue::NULL,
                "",
                Some(&format!("{path}?{query}")),
            )
            .unwrap();
        let host: HtmlElement = document().create_element("div").unwrap().unchecked_into();
        document().body().unwrap().append_child(&host).unwrap();
        let handle = mount_to(host.clone(), || {
            use leptos::prelude::IntoAny;
            leptos::prelude::view! { <resilience_playground::app::App /> }.into_any()
        });
        leptos::task::tick().await;
        Page {
            host,
            _handle: handle,
        }
    }

    fn all(&self, testid: &str) -> Vec<HtmlElement> {
        let list = self
            .host
            .query_selector_all(&format!("[data-testid='{testid}']"))
            .unwrap();
        (0..list.length())
            .filter_map(|i| list.item(i))
            .filter_map(|n| n.dyn_into::<HtmlElement>().ok())
            .collect()
    }

    fn one(&self, testid: &str) -> HtmlElement {
        self.all(testid)
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("no element with data-testid {testid}"))
    }

    fn text(&self, testid: &str) -> String {
        self.one(testid).text_content().unwrap_or_default()
    }

    async fn click(&self, testid: &str) {
        self.one(testid).click();
        leptos::task::tick().await;
    }

    fn threads_of(&self, owner: &str) -> usize {
        self.all("thread-cell")
            .iter()
            .filter(|c| c.get_attribute("data-owner").as_deref() == Some(owner))
            .count()
    }

    async fn type_into(&self, testid: &str, value: &str) {
        let input: HtmlInputElement = self.one(testid).unchecked_into();
        input.set_value(value);
        let init = EventInit::new();
        init.set_bubbles(true);
        input
            .dispatch_event(&Event::new_with_event_init_dict("input", &init).unwrap())
            .unwrap();
        leptos::task::tick().await;
    }

    async fn choose(&self, testid: &str, value: &str) {
        let select: HtmlSelectElement = self.one(testid).unchecked_into();
        select.set_value(value);
        let init = EventInit::new();
        init.set_bubbles(true);
        select
            .dispatch_event(&Event::new_with_event_init_dict("change", &init).unwrap())
            .unwrap();
        leptos::task::tick().await;
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        self.host.remove();
    }
}

/// Plays `ticks` more ticks with Next Tick and reads, after each, the threads held by
/// recommendations, the payment failures so far and the breaker state (if shown).
async fn play(page: &Page, ticks: u32) -> (Vec<usize>, Vec<u32>, Vec<String>) {
    let (mut threads, mut failures, mut states) = (vec![], vec![], vec![]);
    let start: u32 = page.text("tick-counter").trim().parse().unwrap();
    for t in start + 1..=start + ticks {
        page.click("next-tick").await;
        assert_eq!(page.text("tick-counter"), t.to_string());
        assert_eq!(page.all("thread-cell").len(), 6, "six worker threads");
        threads.push(page.threads_of("recommendations"));
        failures.push(page.text("payment-failures").trim().parse().unwrap());
        if let Some(state) = page.all("breaker-state").first() {
            states.push(state.text_content().unwrap());
        }
    }
    (threads, failures, states)
}

#[wasm_bindgen_test]
async fn demo_4_slow_without_protection_starves_payment() {
    let page = Page::open("demo=4").await;
    let (threads, failures, states) = play(&page, 6).await;
    assert_eq!(threads, vec![2, 4, 6, 6, 6, 6]);
    assert_eq!(
        failures,
        vec![0, 0, 1, 2, 3, 4],
        "payment fails at t = 3, 4, 5, 6"
    );
    assert!(states.is_empty(), "no breaker in this demo");
}

#[wasm_bindgen_test]
async fn demo_5_breaker_opens_at_5_and_threads_drain() {
    let page = Page::open("demo=5").await;
    let (threads, failures, states) = play(&page, 6).await;
    assert_eq!(threads, vec![2, 4, 6, 6, 4, 2]);
    assert_eq!(
        failures,
        vec![0, 0, 1, 2, 2, 2],
        "payment fails at t = 3 and 4"
    );
    assert_eq!(
        states,
        ["CLOSED", "CLOSED", "CLOSED", "CLOSED", "OPEN", "OPEN"]
    );
}

#[wasm_bindgen_test]
async fn demo_6_bulkhead_caps_recommendations_at_3() {
    let page = Page::open("demo=6").await;
    let (threads, failures, _) = play(&page, 6).await;
    assert_eq!(threads, vec![2, 3, 3, 3, 3, 3]);
    assert_eq!(failures, vec![0; 6]);
}

#[wasm_bindgen_test]
async fn demo_7_breaker_and_bulkhead() {
    let page = Page::open("demo=7").await;
    let (threads, failures, states) = play(&page, 6).await;
    assert_eq!(threads, vec![2, 3, 3, 1, 0, 0]);
    assert_eq!(failures, vec![0; 6]);
    assert_eq!(
        states,
        ["CLOSED", "CLOSED", "CLOSED", "OPEN", "OPEN", "OPEN"]
    );
}

#[wasm_bindgen_test]
async fn demo_2_closes_and_demo_3_reopens() {
    let page = Page::open("demo=2").await;
    let (_, _, states) = play(&page, 6).await;
    assert_eq!(states[2], "OPEN", "opens at t = 3");
    assert_eq!(states[5], "CLOSED", "the trials at t = 6 succeed");
    drop(page);

    let page = Page::open("demo=3").await;
    let (_, _, states) = play(&page, 10).await;
    assert_eq!(
        states,
        [
            "CLOSED",
            "CLOSED",
            "OPEN",
            "OPEN",
            "OPEN",
            "HALF_OPEN",
            "OPEN",
            "OPEN",
            "OPEN",
            "HALF_OPEN"
        ]
    );
}

#[wasm_bindgen_test]
async fn step_back_and_a_select_changed_mid_run() {
    let page = Page::open("demo=4").await;
    play(&page, 3).await;
    page.click("step-back").await;
    assert_eq!(page.text("tick-counter"), "2");
    assert_eq!(page.threads_of("recommendations"), 4);
    // A bulkhead switched on at t = 3 starts with all its permits free: the 4 calls in
    // flight hold none, so it admits both new calls and payment finds no thread once more.
    page.choose("protection-select", "bulkhead").await;
    page.click("next-tick").await;
    assert_eq!(page.text("tick-counter"), "3");
    assert_eq!(page.threads_of("recommendations"), 6);
    assert_eq!(page.text("payment-failures").trim(), "1");
    // t = 4: the calls of t = 1 time out; 2 permits are in use, so 1 call is admitted and
    // 1 refused, and payment gets the last thread.
    page.click("next-tick").await;
    assert_eq!(page.threads_of("recommendations"), 5);
    assert_eq!(page.text("payment-failures").trim(), "1");
    page.click("reset").await;
    assert_eq!(page.text("tick-counter"), "0");
    assert_eq!(page.threads_of("free"), 6);
}

#[wasm_bindgen_test]
async fn an_invalid_setting_shows_a_message_and_does_not_change_the_run() {
    let page = Page::open("demo=5").await;
    play(&page, 2).await;
    page.type_into("setting-failureRateThreshold", "150").await;
    page.type_into("setting-waitDurationInOpenState", "soon")
        .await;
    page.click("apply-settings").await;
    assert!(!page.text("error-failureRateThreshold").is_empty());
    assert!(!page.text("error-waitDurationInOpenState").is_empty());
    assert_eq!(page.text("tick-counter"), "2", "the run was not restarted");
    // The run goes on exactly as the spec says.
    let (threads, failures, states) = play(&page, 3).await;
    assert_eq!(threads, vec![6, 6, 4]);
    assert_eq!(failures, vec![1, 2, 2]);
    assert_eq!(states, ["CLOSED", "CLOSED", "OPEN"]);

    // A valid change applies and restarts at t = 0.
    page.type_into("setting-failureRateThreshold", "50").await;
    page.type_into("setting-waitDurationInOpenState", "3s")
        .await;
    page.type_into("setting-maxConcurrentCalls", "2").await;
    page.click("apply-settings").await;
    assert_eq!(page.text("tick-counter"), "0");
    assert!(page.text("error-failureRateThreshold").is_empty());
}

#[wasm_bindgen_test]
async fn a_bad_link_shows_a_notice_and_opens_demo_1() {
    let page = Page::open("demo=42&t=banana").await;
    assert!(page.text("demo-heading").starts_with("Demo 1: "));
    let notice = page.text("notice");
    assert!(notice.contains("42"), "{notice}");
    assert_eq!(page.text("tick-counter"), "0");
}

#[wasm_bindgen_test]
async fn a_link_with_a_tick_opens_that_tick() {
    let page = Page::open("demo=5&t=5").await;
    assert_eq!(page.text("tick-counter"), "5");
    assert_eq!(page.text("breaker-state"), "OPEN");
    assert_eq!(page.threads_of("recommendations"), 4);
}

#[wasm_bindgen_test]
async fn the_demo_list_opens_a_demo() {
    let page = Page::open("demo=1").await;
    let links = page.all("demo-link");
    assert_eq!(links.len(), 9, "Demos 1-7 and the labs 8-9 are listed");
    links[4].click();
    leptos::task::tick().await;
    assert_eq!(
        page.text("demo-heading"),
        "Demo 5: Slow service, circuit breaker"
    );
    assert_eq!(
        links[4].get_attribute("aria-current").as_deref(),
        Some("page")
    );
    assert_eq!(links[0].get_attribute("aria-current"), None);
}

#[wasm_bindgen_test]
async fn lab_a_summary_follows_a_slider() {
    let page = Page::open("demo=8").await;
    let summary = page.text("amp-successes-summary");
    // The spec's story at the spec's defaults: 3 retries never recover; no retries and the
    // budget do.
    assert!(
        summary.contains("With 3 retries, the provider never recovers"),
        "{summary}"
    );
    assert!(
        summary.contains("With no retries, the provider recovers at 15.0 s"),
        "{summary}"
    );
    // More headroom: the same model, other numbers; the slider says its value with its unit.
    page.type_into("lab-control-headroomPercent", "100").await;
    let after = page.text("amp-successes-summary");
    assert_ne!(
        after, summary,
        "moving the headroom slider changes the summary"
    );
    let slider = page.one("lab-control-headroomPercent");
    assert_eq!(
        slider.get_attribute("aria-valuetext").as_deref(),
        Some("100 %")
    );
    assert!(page.text("lab-error").is_empty());
    // The retry-layers widget: 3 layers x 3 attempts = 27 calls (spec).
    assert_eq!(page.text("layers-calls"), "27");
    page.type_into("lab-control-layers", "2").await;
    assert_eq!(page.text("layers-calls"), "9");
}

#[wasm_bindgen_test]
async fn lab_b_full_jitter_serves_nearly_everyone_in_about_1_5_s() {
    let page = Page::open("demo=9").await;
    let none = page.text("jit-calls-summary");
    // The course's figures: waves at 0, 1, 3, 7 and 15 s, 250 still waiting.
    assert!(none.contains("in waves at 0, 1, 3, 7 and 15 s"), "{none}");
    assert!(none.contains("250 were still waiting"), "{none}");
    page.choose("lab-control-mode", "full").await;
    let full = page.text("jit-calls-summary");
    assert!(full.contains("99 % were served by 1."), "{full}");
    let canvas = page.one("jit-calls-canvas");
    assert!(
        canvas.get_attribute("data-render-count").is_some(),
        "the chart was drawn"
    );
}

#[wasm_bindgen_test]
async fn a_link_with_lab_parameters_restores_the_controls() {
    let page = Page::open("demo=9&mode=equal&seed=7&capacityPerSlot=200&compare=true").await;
    // The number field takes its value in the second pass of the reactive system.
    leptos::task::tick().await;
    let mode: HtmlSelectElement = page.one("lab-control-mode").unchecked_into();
    assert_eq!(mode.value(), "equal");
    let seed: HtmlInputElement = page.one("lab-control-seed").unchecked_into();
    assert_eq!(seed.value(), "7");
    let capacity: HtmlInputElement = page.one("lab-control-capacityPerSlot").unchecked_into();
    assert_eq!(capacity.value(), "200");
    let compare: HtmlInputElement = page.one("lab-control-compare").unchecked_into();
    assert!(compare.checked());
    assert!(page
        .text("jit-waiting-summary")
        .contains("decorrelated jitter"));
    assert!(page.all("lab-problems").iter().all(|p| p
        .text_content()
        .unwrap_or_default()
        .trim()
        .is_empty()));

    // A value the link cannot use is named, and the rest still applies.
    let page = Page::open("demo=9&clients=0&seed=12").await;
    leptos::task::tick().await;
    let seed: HtmlInputElement = page.one("lab-control-seed").unchecked_into();
    assert_eq!(seed.value(), "12");
    let problems = page.text("lab-problems");
    assert!(
        problems.contains("Clients calling at t = 0: must be between"),
        "{problems}"
    );
}
