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

/// What `assets/start.js` gives the page in the bundle: the tools part's exports, here the
/// same functions of this wasm behind the same JavaScript interface.
fn install_tools() {
    use resilience_playground::tools::exports;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsValue;
    let tools = js_sys::Object::new();
    let set = |name: &str, f: JsValue| {
        js_sys::Reflect::set(&tools, &name.into(), &f).unwrap();
    };
    set(
        "teacher_notes_html",
        Closure::<dyn Fn(u32) -> String>::new(exports::teacher_notes_html).into_js_value(),
    );
    set(
        "read_breaker_script",
        Closure::<dyn Fn(String) -> Result<JsValue, JsValue>>::new(|text: String| {
            exports::read_breaker_script(&text)
        })
        .into_js_value(),
    );
    set(
        "open_dialog",
        Closure::<dyn Fn(String, JsValue) -> String>::new(|which: String, page: JsValue| {
            exports::open_dialog(&which, page)
        })
        .into_js_value(),
    );
    let tools = JsValue::from(tools);
    let load =
        Closure::<dyn Fn() -> js_sys::Promise>::new(move || js_sys::Promise::resolve(&tools));
    js_sys::Reflect::set(
        &js_sys::global(),
        &"resiliencePlaygroundTools".into(),
        &load.into_js_value(),
    )
    .unwrap();
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
        install_tools();
        let handle = mount_to(host.clone(), || {
            use leptos::prelude::IntoAny;
            use resilience_playground::app::{every_page, App};
            leptos::prelude::view! { <App pages=every_page /> }.into_any()
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
        fire(&input, "input").await;
    }

    async fn choose(&self, testid: &str, value: &str) {
        let select: HtmlSelectElement = self.one(testid).unchecked_into();
        select.set_value(value);
        fire(&select, "change").await;
    }
}

/// Sends a bubbling `kind` event from `target`, as the browser does after the learner's
/// edit, and lets Leptos apply it.
async fn fire(target: &web_sys::EventTarget, kind: &str) {
    let init = EventInit::new();
    init.set_bubbles(true);
    target
        .dispatch_event(&Event::new_with_event_init_dict(kind, &init).unwrap())
        .unwrap();
    leptos::task::tick().await;
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

    // A valid change applies and keeps the learner's place: the run is played again with
    // it up to t = 5 (the bulkhead's cap does not matter with the breaker alone).
    page.type_into("setting-failureRateThreshold", "50").await;
    page.type_into("setting-waitDurationInOpenState", "3s")
        .await;
    page.type_into("setting-maxConcurrentCalls", "2").await;
    page.click("apply-settings").await;
    assert_eq!(page.text("tick-counter"), "5");
    assert_eq!(page.text("payment-failures").trim(), "2");
    assert!(page.text("settings-status").contains("t = 5"));
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
    assert_eq!(links.len(), 15, "Demos 1-7 and the labs 8-15 are listed");
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

/// Demo 10: each button calls the engine's breaker.
#[wasm_bindgen_test]
async fn sandbox_buttons_drive_the_breaker() {
    let page = Page::open("demo=10").await;
    assert_eq!(page.text("breaker-state"), "CLOSED");
    for _ in 0..5 {
        page.click("sandbox-send-success").await;
        page.click("sandbox-send-failure").await;
    }
    assert_eq!(page.text("breaker-state"), "OPEN", "5 of 10 failed: 50 %");
    page.click("sandbox-send-success").await;
    assert!(page.text("sandbox-log").starts_with("0 s NOT_PERMITTED"));
    page.click("sandbox-advance").await;
    assert_eq!(page.text("sandbox-clock"), "1 s");
    for _ in 0..10 {
        page.click("sandbox-advance").await;
    }
    page.click("sandbox-send-slow").await;
    assert_eq!(page.text("breaker-state"), "HALF_OPEN");

    // The script the browser writes (with its own JSON.stringify) is one the CLI's reader
    // and runner take, and they end where the page is.
    page.click("sandbox-export-show").await;
    let json = page
        .one("sandbox-export")
        .dyn_into::<web_sys::HtmlTextAreaElement>()
        .unwrap()
        .value();
    let script = resilience_sim::scenario::breaker_script::parse_breaker_script(&json).unwrap();
    let last = resilience_sim::scenario::breaker_script::run_breaker_script(&script)
        .unwrap()
        .pop()
        .unwrap();
    assert_eq!(last.state.as_str(), "HALF_OPEN");
    assert_eq!(last.t_ms, 11_000);
    // HALF_OPEN's fresh window holds the one trial, a slow success.
    assert_eq!((last.buffered, last.slow, last.failed), (1, 1, 0));

    // A pasted script the CLI refuses gets the CLI's line and changes nothing: not JSON, not
    // a script, a misspelt setting, a key twice, a key in a step that has none, and a
    // value nested 100,000 deep (once written into its message recursively, past the
    // stack, leaving the page dead). As typing does: the value, then an `input` event.
    let paste = |text: &str| {
        let area = page
            .one("sandbox-import-text")
            .dyn_into::<web_sys::HtmlTextAreaElement>()
            .unwrap();
        area.set_value(text);
        area
    };
    let deep = format!(
        r#"{{"steps": [{{"error": {{"exception": {}{}}}}}]}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    for bad in [
        "{",
        r#"{"steps": [{"jump": {}}]}"#,
        r#"{"config": {"failureRateTreshold": 40}, "steps": []}"#,
        r#"{"steps": [], "steps": [{"acquire": {}}]}"#,
        r#"{"steps": [{"acquire": {"x": 1}}]}"#,
        &deep,
    ] {
        let cli = resilience_sim::scenario::breaker_script::parse_breaker_script(bad)
            .expect_err("the CLI refuses it");
        fire(&paste(bad), "input").await;
        page.click("sandbox-import").await;
        page.until_text("sandbox-refused", &cli).await;
        assert_eq!(page.text("breaker-state"), "HALF_OPEN");
    }
    fire(
        &paste(r#"{"config": {"failureRateTreshold": 40}, "steps": []}"#),
        "input",
    )
    .await;
    page.click("sandbox-import").await;
    page.until_contains(
        "sandbox-refused",
        "config.failureRateTreshold: unknown field `failureRateTreshold`",
    )
    .await;
    fire(&paste(&json), "input").await;
    page.click("sandbox-import").await;
    page.until_text(
        "sandbox-script-note",
        "Imported: the script was replayed from t = 0.",
    )
    .await;
    assert_eq!(page.text("sandbox-refused"), "");
    assert_eq!(page.text("breaker-state"), "HALF_OPEN");
    // The page goes on: the replayed script ended at 11 s, and the clock moves on from it.
    assert_eq!(page.text("sandbox-clock"), "11 s");
    page.click("sandbox-advance").await;
    assert_eq!(page.text("sandbox-clock"), "12 s");
}

/// A breaker script crosses from the tools part to the sandbox's page as the CLI's reader
/// read it: a call of 2^53 + 1 ms and a wait as long (past what a JavaScript number holds
/// exactly) arrive exact, for the page's checks to judge as the CLI's do; and a refusal
/// arrives as the reader's line.
#[wasm_bindgen_test]
fn a_script_crosses_to_the_page_as_the_cli_read_it() {
    use resilience_playground::tools::{exports, ScriptRead};
    use resilience_sim::scenario::breaker_script::{parse_breaker_script, BreakerStep};
    let crossed = |text: &str| -> ScriptRead {
        serde_wasm_bindgen::from_value(exports::read_breaker_script(text).unwrap()).unwrap()
    };
    let text = r#"{"config": {"waitDurationInOpenState": 9007199254740993},
        "steps": [{"success": {"duration_ms": 9007199254740993}}, {"advance_ms": 5}]}"#;
    let script = crossed(text).unwrap();
    assert_eq!(
        script.config.wait_duration_in_open_state,
        9_007_199_254_740_993
    );
    assert_eq!(
        script.steps,
        vec![
            BreakerStep::Success {
                duration_ms: 9_007_199_254_740_993
            },
            BreakerStep::AdvanceMs(5)
        ]
    );
    assert_eq!(Ok(script), parse_breaker_script(text));
    let text = r#"{"steps": [{"acquire": {"x": 1}}]}"#;
    assert_eq!(crossed(text), parse_breaker_script(text));
    assert!(crossed(text)
        .unwrap_err()
        .starts_with("invalid breaker script: steps[0].acquire.x: unknown field `x`"));
}

/// Demo 10: the settings live once, in the session: a control changes the breaker, claims
/// change the control; and one reset clears the whole page (the session, its settings, the
/// fields as typed, the claims table, the exported script).
#[wasm_bindgen_test]
async fn sandbox_reset_clears_the_whole_page() {
    let page = Page::open("demo=10").await;
    let value = |testid: &str| {
        page.one(testid)
            .dyn_into::<HtmlInputElement>()
            .unwrap()
            .value()
    };
    page.type_into("lab-control-failureRateThreshold", "30")
        .await;
    assert!(
        page.text("sandbox-rates")
            .contains("opens at ≥ 30 % failures"),
        "{}",
        page.text("sandbox-rates")
    );
    page.type_into("claims-p995", "400").await;
    page.click("sandbox-claims-apply").await;
    assert!(page
        .text("sandbox-claims-list")
        .contains("slowCallDurationThreshold"));
    assert!(!page.one("sandbox-claims-list").hidden());
    assert_eq!(value("lab-control-slowCallDurationThreshold"), "500");
    page.type_into("sandbox-advance-amount", "2.5").await;
    page.click("sandbox-advance-by").await;
    page.click("sandbox-send-failure").await;
    assert_eq!(page.text("sandbox-clock"), "2.5 s");
    page.click("sandbox-export-show").await;
    assert!(page.one("sandbox-export-show").offset_parent().is_none());
    assert!(page.one("sandbox-export").offset_parent().is_some());

    page.click("lab-reset").await;
    assert_eq!(page.text("sandbox-clock"), "0 s");
    assert_eq!(page.text("sandbox-log"), "");
    assert!(page
        .text("sandbox-rates")
        .contains("opens at ≥ 50 % failures"));
    assert_eq!(value("lab-control-failureRateThreshold"), "50");
    assert_eq!(value("lab-control-slowCallDurationThreshold"), "60000");
    assert_eq!(value("sandbox-advance-amount"), "5");
    assert_eq!(value("claims-p995"), "800");
    assert!(page.one("sandbox-claims-list").hidden());
    assert!(page.one("sandbox-export-show").offset_parent().is_some());
    assert!(page.one("sandbox-export").offset_parent().is_none());
}

/// Demo 10: what the engine says goes onto the page as text, never as markup (here a
/// refusal that quotes a pasted exception name).
#[wasm_bindgen_test]
async fn sandbox_engine_text_is_text() {
    let page = Page::open("demo=10").await;
    let area = page
        .one("sandbox-import-text")
        .dyn_into::<web_sys::HtmlTextAreaElement>()
        .unwrap();
    area.set_value(
        r#"{"steps": [{"acquire": {}}, {"error": {"duration_ms": 5, "exception": "<b>Boom</b>"}}]}"#,
    );
    fire(&area, "input").await;
    page.click("sandbox-import").await;
    page.until_contains("sandbox-refused", "<b>Boom</b>").await;
    let refused = page.one("sandbox-refused");
    assert!(
        refused
            .text_content()
            .unwrap_or_default()
            .contains("<b>Boom</b>"),
        "{:?}",
        refused.text_content()
    );
    assert_eq!(refused.child_element_count(), 0);
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
    // The spec's "about 1.5 s", for the bulk: 99 % by the end of a slot within 2 s.
    let bulk: f64 = full
        .split("99 % were served by ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|s| s.parse().ok())
        .expect("the 99 % figure");
    assert!((1.0..=2.0).contains(&bulk), "{full}");
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

/// The comparison's rows as (protection, payments failed, threads after each tick, the
/// classes of the tick cells), in the page's order.
fn compare_rows(page: &Page) -> Vec<(String, u32, Vec<u32>, Vec<String>)> {
    page.all("compare-row")
        .iter()
        .map(|row| {
            let protection = row.get_attribute("data-protection").unwrap_or_default();
            let failed = row
                .query_selector("[data-testid='compare-payment-failures']")
                .unwrap()
                .and_then(|c| c.text_content())
                .unwrap_or_default();
            let cells = row.query_selector_all("td").unwrap();
            let ticks: Vec<web_sys::Element> = (1..cells.length())
                .filter_map(|i| cells.item(i))
                .filter_map(|n| n.dyn_into::<web_sys::Element>().ok())
                .collect();
            // A cell's number, without the words a screen reader hears after it.
            let threads = ticks
                .iter()
                .map(|c| {
                    let text = c.text_content().unwrap_or_default();
                    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
                    digits.parse().unwrap()
                })
                .collect();
            let classes = ticks.iter().map(|c| c.class_name()).collect();
            (protection, failed.trim().parse().unwrap(), threads, classes)
        })
        .collect()
}

/// Which row is marked as the learner's protection.
fn current_compare_row(page: &Page) -> Vec<String> {
    page.all("compare-row")
        .iter()
        .filter(|r| r.get_attribute("aria-current").as_deref() == Some("true"))
        .filter_map(|r| r.get_attribute("data-protection"))
        .collect()
}

/// Sets a number field and sends `change`, as leaving the field does.
async fn set_field(page: &Page, testid: &str, value: &str) {
    let input: HtmlInputElement = page.one(testid).unchecked_into();
    input.set_value(value);
    fire(&input, "change").await;
}

#[wasm_bindgen_test]
async fn compare_all_four_is_the_spec_table_and_follows_the_selects() {
    let page = Page::open("demo=4").await;
    assert!(
        page.all("compare-table").is_empty(),
        "closed until asked for"
    );
    page.click("compare-open").await;
    assert_eq!(
        page.one("compare-open")
            .get_attribute("aria-expanded")
            .as_deref(),
        Some("true")
    );
    let rows = compare_rows(&page);
    let summary: Vec<(String, u32, Vec<u32>)> = rows
        .iter()
        .map(|(p, f, t, _)| (p.clone(), *f, t.clone()))
        .collect();
    // The spec's table: slow recommendations, 6 ticks.
    assert_eq!(
        summary,
        vec![
            ("none".to_string(), 4, vec![2, 4, 6, 6, 6, 6]),
            ("circuit_breaker".to_string(), 2, vec![2, 4, 6, 6, 4, 2]),
            ("bulkhead".to_string(), 0, vec![2, 3, 3, 3, 3, 3]),
            (
                "breaker_and_bulkhead".to_string(),
                0,
                vec![2, 3, 3, 1, 0, 0]
            ),
        ]
    );
    // The breaker opens at t = 5 alone, at t = 4 with the bulkhead.
    assert_eq!(rows[1].3, ["", "", "", "", "open", "open"]);
    assert_eq!(rows[3].3, ["", "", "", "open", "open", "open"]);
    assert_eq!(current_compare_row(&page), ["none"]);

    // Another protection moves the mark, not the numbers; playing on does not change them.
    page.choose("protection-select", "bulkhead").await;
    assert_eq!(current_compare_row(&page), ["bulkhead"]);
    play(&page, 2).await;
    assert_eq!(compare_rows(&page), rows);

    // A failing service (changed from t = 1 by Reset first): the breaker opens at t = 3 and
    // is HALF_OPEN at t = 6 (Demo 1 and 3); a failing call frees its thread after a tick, so
    // payment never goes without one.
    page.click("reset").await;
    page.choose("behaviour-select", "failing").await;
    let rows = compare_rows(&page);
    assert_eq!(rows[1].3, ["", "", "open", "open", "open", "half-open"]);
    assert!(rows.iter().all(|r| r.1 == 0), "{rows:?}");
}

#[wasm_bindgen_test]
async fn compare_follows_the_settings() {
    let page = Page::open("demo=6").await;
    page.click("compare-open").await;
    assert_eq!(current_compare_row(&page), ["bulkhead"]);
    // A bulkhead as wide as the pool protects nothing: its row becomes the spec's row
    // without protection.
    page.type_into("setting-maxConcurrentCalls", "6").await;
    page.click("apply-settings").await;
    let rows = compare_rows(&page);
    assert_eq!(rows[2].0, "bulkhead");
    assert_eq!((rows[2].1, rows[2].2.clone()), (4, vec![2, 4, 6, 6, 6, 6]));
}

#[wasm_bindgen_test]
async fn choosing_flaky_runs_with_its_share_and_seed() {
    let page = Page::open("demo=1").await;
    page.choose("behaviour-select", "flaky").await;
    let percent: HtmlInputElement = page.one("flaky-percent").unchecked_into();
    assert_eq!(percent.value(), "30", "the engine's default share");
    assert!(!page
        .one("flaky-percent")
        .parent_element()
        .unwrap()
        .has_attribute("hidden"));
    let (_, _, states) = play(&page, 10).await;
    assert_eq!(states.len(), 10, "the breaker is drawn every tick");
    assert!(!page.text("narration").is_empty());

    // 100 %: Demo 1's failing service, OPEN at t = 3.
    page.click("reset").await;
    page.choose("behaviour-select", "flaky").await;
    set_field(&page, "flaky-percent", "100").await;
    let (threads, failures, states) = play(&page, 5).await;
    assert_eq!(states, ["CLOSED", "CLOSED", "OPEN", "OPEN", "OPEN"]);
    assert_eq!(threads[2..], [0, 0, 0], "refused calls take no thread");
    assert_eq!(failures, vec![0; 5]);
    page.click("compare-open").await;
    assert_eq!(
        compare_rows(&page)[1].3[2],
        "open",
        "the comparison plays it too"
    );

    // 0 %: healthy, recommendations holds no thread into the next tick.
    page.click("reset").await;
    page.choose("behaviour-select", "flaky").await;
    set_field(&page, "flaky-percent", "0").await;
    let (threads, _, states) = play(&page, 6).await;
    assert_eq!(threads, vec![0; 6]);
    assert!(states.iter().all(|s| s == "CLOSED"), "{states:?}");

    // A share over 100 % is refused with the engine's message.
    set_field(&page, "flaky-percent", "150").await;
    assert!(
        page.text("notice").contains("between 0 and 100"),
        "{}",
        page.text("notice")
    );
}

#[wasm_bindgen_test]
async fn a_flaky_link_restores_its_share_and_seed() {
    let page = Page::open("demo=5&changes=1.flaky-40&seed=7&t=4").await;
    leptos::task::tick().await;
    let percent: HtmlInputElement = page.one("flaky-percent").unchecked_into();
    assert_eq!(percent.value(), "40");
    let seed: HtmlInputElement = page.one("flaky-seed").unchecked_into();
    assert_eq!(seed.value(), "7");
    assert_eq!(page.text("tick-counter"), "4");
    let select: HtmlSelectElement = page.one("behaviour-select").unchecked_into();
    assert_eq!(select.value(), "flaky");
}

/// Demo 5 with minimumNumberOfCalls = 2, by the spec's rules (worked out tick by tick in
/// crates/resilience-sim/tests/run_summary.rs): the payment of t = 3 finds no thread, the
/// 2 timeouts of t = 4 fill the smaller window at 100 % and the breaker opens at t = 4;
/// by t = 6 the last slow calls have timed out.
#[wasm_bindgen_test]
async fn what_happened_tells_the_learners_run() {
    let page = Page::open("demo=5&minimumNumberOfCalls=2").await;
    assert!(
        page.all("outcome").is_empty(),
        "told once the demo's ticks are played"
    );
    let (threads, failures, _) = play(&page, 6).await;
    assert_eq!(threads, vec![2, 4, 6, 4, 2, 0]);
    assert_eq!(failures, vec![0, 0, 1, 1, 1, 1]);
    let outcome = page.text("outcome");
    let figure = page.text("payment-failures");
    assert!(
        outcome.contains(&format!("{} payment failed (t = 3)", figure.trim())),
        "{outcome}"
    );
    assert!(outcome.contains("At t = 4 the breaker opened"), "{outcome}");
    assert!(
        outcome.contains("held 0 of the 6 worker threads"),
        "{outcome}"
    );
    assert!(!outcome.contains("t = 5 the breaker"), "{outcome}");
    assert!(outcome.contains("The lesson"), "{outcome}");
}

/// Played on past its 10 ticks, Demo 3's "What happened" still tells those ticks, by the
/// spec (opens at t = 3, HALF_OPEN at t = 6, OPEN again at t = 7, HALF_OPEN again at
/// t = 10), and the page leaves it as it was: a later tick writes none of it again. A link
/// far past the end tells the same story.
#[wasm_bindgen_test]
async fn what_happened_stays_the_demos_story_when_played_on() {
    let page = Page::open("demo=3").await;
    play(&page, 10).await;
    let at_end = page.text("outcome");
    assert!(
        at_end.starts_with("What happened in the demo's 10 ticks"),
        "{at_end}"
    );
    for told in [
        "At t = 3 the breaker opened",
        "At t = 6, after 3 ticks OPEN",
        "At t = 7 it opened again: 2 of its 2 trial calls failed.",
        "At t = 10, after 3 ticks OPEN",
    ] {
        assert!(at_end.contains(told), "{told}: {at_end}");
    }
    let paragraphs = page.one("outcome").query_selector_all("p").unwrap();
    let first = paragraphs.get(0).unwrap();
    play(&page, 25).await;
    assert_eq!(page.text("outcome"), at_end);
    let still = page.one("outcome").query_selector_all("p").unwrap();
    assert!(
        still.get(0).unwrap().is_same_node(Some(&first)),
        "the paragraphs stay the same nodes"
    );
    let linked = Page::open("demo=3&t=40").await;
    assert_eq!(linked.text("outcome"), at_end);
}

#[wasm_bindgen_test]
async fn someone_elses_parameters_get_no_notice() {
    let page = Page::open("demo=4&utm_source=x&fbclid=abc").await;
    assert!(page.one("notice").has_attribute("hidden"));
    assert_eq!(page.text("notice").trim(), "Dismiss");
    assert!(page.text("demo-heading").starts_with("Demo 4: "));
    // A near miss of one of ours does get one.
    let page = Page::open("demo=4&minimumNumberOfCall=2").await;
    assert!(!page.one("notice").has_attribute("hidden"));
    assert!(page.text("notice").contains("minimumNumberOfCall"));
}

#[wasm_bindgen_test]
async fn a_protection_change_is_narrated_once() {
    let page = Page::open("demo=4").await;
    play(&page, 1).await;
    // Chosen after t = 1, so it takes effect at t = 2.
    page.choose("protection-select", "circuit_breaker").await;
    assert!(!page.text("narration").contains("Change:"));
    play(&page, 1).await;
    let told = |page: &Page| page.text("narration").matches("Change:").count();
    assert_eq!(told(&page), 1, "{}", page.text("narration"));
    let live = page.text("narration-live");
    assert!(
        live.starts_with("t = 2. Change: protection is now circuit breaker."),
        "{live}"
    );
    for _ in 3..=5 {
        play(&page, 1).await;
        assert_eq!(told(&page), 0, "{}", page.text("narration"));
        assert!(!page.text("narration-live").contains("Change"));
    }
    // The list is read, not announced; the one-line summary is.
    assert_eq!(page.one("narration").get_attribute("aria-live"), None);
    assert_eq!(
        page.one("narration-live")
            .get_attribute("aria-live")
            .as_deref(),
        Some("polite")
    );
}

#[wasm_bindgen_test]
async fn every_page_has_its_own_title_and_demo_1_its_setup() {
    let page = Page::open("demo=1").await;
    assert_eq!(
        document().title(),
        "Demo 1: Errors trip the breaker — Resilience Playground"
    );
    let setup = page.text("setup");
    for part in [
        "6 worker threads",
        "2 calls to recommendations",
        "1 call to payment",
        "after 3 ticks",
    ] {
        assert!(setup.contains(part), "{setup}");
    }
    page.click("next-demo").await;
    assert_eq!(
        document().title(),
        "Demo 2: Half-open: it is back — Resilience Playground"
    );
    drop(page);
    let _page = Page::open("demo=8").await;
    assert!(
        document().title().starts_with("Demo 8: "),
        "{}",
        document().title()
    );
}

#[wasm_bindgen_test]
async fn applying_settings_keeps_the_learners_place() {
    let page = Page::open("demo=5").await;
    play(&page, 4).await;
    page.type_into("setting-minimumNumberOfCalls", "2").await;
    page.click("apply-settings").await;
    // Played again up to t = 4 with a minimum of 2: open since t = 4, one failed payment.
    assert_eq!(page.text("tick-counter"), "4");
    assert_eq!(page.text("payment-failures").trim(), "1");
    assert_eq!(page.text("breaker-state"), "OPEN");
    assert!(page.text("settings-status").contains("up to t = 4"));
}

// Sections 3 and 8 of issue 9: every demo shows its lesson; panels are patched, not redrawn.

impl Page {
    /// Elements under the page matching a CSS selector.
    fn select(&self, selector: &str) -> Vec<web_sys::Element> {
        let list = self.host.query_selector_all(selector).unwrap();
        (0..list.length())
            .filter_map(|i| list.item(i))
            .filter_map(|n| n.dyn_into::<web_sys::Element>().ok())
            .collect()
    }
}

/// The panels' DOM written out with sorted attributes, comments left out: what a learner
/// sees, whatever order the attributes were set in.
fn canonical(node: &web_sys::Node, out: &mut String) {
    let mut child = node.first_child();
    while let Some(c) = child {
        match c.node_type() {
            web_sys::Node::TEXT_NODE => out.push_str(&c.node_value().unwrap_or_default()),
            web_sys::Node::ELEMENT_NODE => {
                let e: &web_sys::Element = c.unchecked_ref();
                let mut names: Vec<String> = e
                    .get_attribute_names()
                    .iter()
                    .filter_map(|v| v.as_string())
                    .collect();
                names.sort();
                out.push('<');
                out.push_str(&e.tag_name());
                for name in names {
                    let value = e.get_attribute(&name).unwrap_or_default();
                    out.push_str(&format!(" {name}=\"{value}\""));
                }
                out.push('>');
                canonical(&c, out);
                out.push_str("</>");
            }
            _ => {}
        }
        child = c.next_sibling();
    }
}

fn has_class(e: &web_sys::Element, class: &str) -> bool {
    e.get_attribute("class")
        .is_some_and(|c| c.split_whitespace().any(|w| w == class))
}

fn panels(page: &Page) -> String {
    let mut out = String::new();
    for panels in page.select(".panels") {
        canonical(&panels, &mut out);
    }
    out
}

/// A panel patched tick by tick (texts and attributes in place, or a template walked when
/// its shape changed) ends up as the same DOM as the panel drawn once from a link.
#[wasm_bindgen_test]
async fn panels_patched_tick_by_tick_match_panels_drawn_at_once() {
    for (demo, ticks) in [(1, 11), (2, 7), (4, 5), (6, 8), (7, 12)] {
        let page = Page::open(&format!("demo={demo}")).await;
        play(&page, ticks).await;
        let patched = panels(&page);
        drop(page);
        let page = Page::open(&format!("demo={demo}&t={ticks}")).await;
        assert_eq!(panels(&page), patched, "demo {demo} at t = {ticks}");
    }
}

/// Demo 2, t = 6: OPEN -> HALF_OPEN -> CLOSED in one tick, drawn as two numbered arrows,
/// listed in order, with the two trials that decided.
#[wasm_bindgen_test]
async fn demo_2_draws_the_path_of_its_sixth_tick() {
    let page = Page::open("demo=2&t=5").await;
    page.click("next-tick").await;
    let steps: Vec<String> = page
        .select("[data-testid=breaker-path] li:not([hidden])")
        .iter()
        .map(|li| li.text_content().unwrap_or_default())
        .collect();
    assert_eq!(steps.len(), 2, "{steps:?}");
    assert!(steps[0].starts_with("OPEN → HALF_OPEN"), "{steps:?}");
    assert!(steps[1].starts_with("HALF_OPEN → CLOSED"), "{steps:?}");
    let badges: Vec<String> = page
        .select(".step-badge.shown text")
        .iter()
        .map(|t| t.text_content().unwrap_or_default())
        .collect();
    assert_eq!(badges.len(), 2);
    assert_eq!(page.select(".edge.taken").len(), 2);
    assert_eq!(page.select("[data-testid=trials] .cell.success").len(), 2);
    assert_eq!(page.text("breaker-state"), "CLOSED");
    // The next tick has no path.
    page.click("next-tick").await;
    assert!(page
        .select("[data-testid=breaker-path] li:not([hidden])")
        .is_empty());
    assert!(page.select(".step-badge.shown").is_empty());
}

/// Demo 6, t = 3: no breaker panel; the bulkhead's compartments, recommendations' full
/// with its two calls of the tick refused at the wall.
#[wasm_bindgen_test]
async fn demo_6_draws_the_bulkhead_not_an_empty_breaker() {
    let page = Page::open("demo=6&t=3").await;
    let breaker = &page.select("section.breaker")[0];
    assert!(breaker.has_attribute("hidden"));
    assert!(page.all("breaker-state").is_empty());
    let permits = page.select("[data-owner=recommendations] [data-testid=permit-cell]");
    assert_eq!(permits.len(), 3);
    assert!(permits.iter().all(|p| has_class(p, "in-use")));
    assert_eq!(
        page.select("[data-owner=recommendations] .bounced-call:not(.empty)")
            .len(),
        2
    );
    // A breaker added mid-run brings the panel back.
    page.choose("protection-select", "breaker_and_bulkhead")
        .await;
    page.click("next-tick").await;
    assert!(!page.select("section.breaker")[0].has_attribute("hidden"));
}

/// Demo 7, t = 4: the window that opened the breaker says which failures were the
/// bulkhead's refusals and which were timeouts.
#[wasm_bindgen_test]
async fn demo_7_window_tells_bulkhead_refusals_from_timeouts() {
    let page = Page::open("demo=7&t=4").await;
    let kinds: Vec<&str> = page
        .select("[data-testid=window] .cell")
        .iter()
        .map(|c| {
            if has_class(c, "bulkhead") {
                "bulkhead"
            } else if has_class(c, "timeout") {
                "timeout"
            } else {
                "other"
            }
        })
        .collect();
    assert_eq!(kinds, ["bulkhead", "bulkhead", "timeout", "timeout"]);
    assert!(page.text("window-why").contains("BulkheadFullException"));
}

/// Lets the browser run its timers for `ms` milliseconds.
async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
}

impl Page {
    /// Waits (up to 10 s) until the fix ladder's table is up to date with the settings.
    async fn ladder_ready(&self) -> HtmlElement {
        for _ in 0..200 {
            if let Some(table) = self.all("bo-ladder").into_iter().next() {
                if !table.has_attribute("data-stale") {
                    return table;
                }
            }
            sleep(50).await;
        }
        panic!("the fix ladder was not run");
    }

    /// Waits (up to 10 s) until `testid`, marked busy while the runs a change asked for are
    /// made in slices (`aria-busy`), shows them.
    async fn until_idle(&self, testid: &str) {
        for _ in 0..500 {
            let busy = self
                .all(testid)
                .first()
                .and_then(|e| e.get_attribute("aria-busy"));
            if busy.as_deref() == Some("false") {
                return;
            }
            sleep(20).await;
        }
        panic!("{testid} stayed busy");
    }

    /// Waits until `testid` says `text`: a lab's run is made in slices, a few tasks after
    /// the change that asked for it.
    async fn until_text(&self, testid: &str, text: &str) {
        for _ in 0..200 {
            if self
                .all(testid)
                .first()
                .and_then(|e| e.text_content())
                .as_deref()
                == Some(text)
            {
                return;
            }
            sleep(20).await;
        }
        panic!("{testid} never said {text}: {}", self.text(testid));
    }

    /// Waits until the element's text contains `part`.
    async fn until_contains(&self, testid: &str, part: &str) {
        for _ in 0..200 {
            if self
                .all(testid)
                .first()
                .and_then(|e| e.text_content())
                .is_some_and(|t| t.contains(part))
            {
                return;
            }
            sleep(20).await;
        }
        panic!("{testid} never said {part}: {}", self.text(testid));
    }
}

/// Demo 12: the stepper sets `fixes` through the lab session: +1 (the 300 ms timeout)
/// opens the breaker, and the second shown (09:00:15) turns from errors and users who gave
/// up into cached prices; the link follows. A value the link cannot use is named and the
/// page works on the spec's value.
/// Demo 12's prediction is page state: picked and answered, then "Back to the spec's
/// values" clears the pick, the answer and the second shown with the settings.
#[wasm_bindgen_test]
async fn demo_12_a_reset_clears_the_prediction_with_the_settings() {
    let page = Page::open("demo=12&queueCapacity=200").await;
    let radio =
        |m: &str| -> HtmlInputElement { page.one(&format!("bo-pick-{m}")).unchecked_into() };
    radio("bulkhead").click();
    leptos::task::tick().await;
    assert!(radio("bulkhead").checked());
    page.click("bo-show-answer").await;
    let verdict = page.text("bo-verdict");
    assert!(
        verdict.starts_with("The bulkhead makes it worse: "),
        "{verdict}"
    );
    assert!(verdict.ends_with("You picked it."), "{verdict}");
    // Another pick re-answers at once.
    radio("retry").click();
    leptos::task::tick().await;
    assert!(radio("retry").checked() && !radio("bulkhead").checked());
    assert!(page.text("bo-verdict").ends_with("You picked the retries."));
    let scrubber: HtmlInputElement = page.one("bo-scrubber").unchecked_into();
    scrubber.set_value("40");
    fire(&scrubber, "input").await;
    assert!(page
        .text("bo-second-summary")
        .starts_with("09:00:39 to 09:00:40: "));

    page.click("lab-reset").await;
    page.until_contains("bo-second-summary", "09:00:14 to 09:00:15: ")
        .await;
    for m in ["bulkhead", "breaker", "retry", "cache"] {
        assert!(!radio(m).checked(), "{m} still checked after the reset");
    }
    assert_eq!(page.text("bo-verdict"), "");
    assert_eq!(scrubber.value(), "15");
}

#[wasm_bindgen_test]
async fn demo_12_the_stepper_applies_a_fix_and_a_bad_link_is_named() {
    let page = Page::open("demo=12").await;
    assert!(
        page.all("lab-control-fixes").is_empty(),
        "the stepper is the fixes control"
    );
    let pressed = |step: usize| {
        page.one(&format!("bo-step-{step}"))
            .get_attribute("aria-pressed")
            .unwrap_or_default()
    };
    assert_eq!(pressed(0), "true");
    assert_eq!(page.text("bo-breaker-state"), "CLOSED");
    let before = page.text("bo-second-summary");
    // Nothing live at 09:00:15 (pricing takes 4 s); the cache still answers most users.
    assert!(
        before.starts_with("09:00:14 to 09:00:15: 0 live, "),
        "{before}"
    );
    // The short queue (the default) leaves order threads to spare.
    assert!(
        before.ends_with(" order threads in use; breaker CLOSED."),
        "{before}"
    );
    assert!(!before.contains("200 of 200"), "{before}");
    // The current step's column head is marked for sight (class) and for screen readers.
    let current = |table: &HtmlElement| {
        table
            .query_selector("th.current[aria-current=true]")
            .ok()
            .flatten()
            .and_then(|th| th.text_content())
    };
    let table = page.ladder_ready().await;
    assert_eq!(current(&table).as_deref(), Some("0"));

    page.click("bo-step-1").await;
    assert_eq!(
        (pressed(0), pressed(1)),
        ("false".to_string(), "true".to_string())
    );
    // The run is made in slices after the click; the page shows the last one until then.
    page.until_text("bo-breaker-state", "OPEN").await;
    let after = page.text("bo-second-summary");
    assert!(after.ends_with("breaker OPEN."), "{after}");
    let cached: u32 = after
        .split(" live, ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{after}"));
    assert!(
        cached > 100,
        "most users get a cached price at 09:00:15: {after}"
    );
    assert!(after.contains(" 0 gave up;"), "{after}");
    let breaker = page.text("bo-breaker-chart-summary");
    let opened: f64 = breaker
        .strip_prefix("The breaker opens at ")
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{breaker}"));
    assert!((5.0..=10.0).contains(&opened), "{breaker}");
    // The stepper does not change the settings the ladder depends on: no new table.
    let table = page.ladder_ready().await;
    assert_eq!(current(&table).as_deref(), Some("+1"));
    sleep(300).await;
    let search = web_sys::window().unwrap().location().search().unwrap();
    assert_eq!(search, "?demo=12&fixes=1");
    drop(page);

    let page = Page::open("demo=12&queueCapacity=-5").await;
    let problems = page.text("lab-problems");
    assert!(
        problems.contains(
            "Bulkhead queue (queueCapacity): must be between 0 calls and 1000 calls (got -5)"
        ),
        "{problems}"
    );
    // The slider takes its value in the second pass of the reactive system.
    leptos::task::tick().await;
    let queue: HtmlInputElement = page.one("lab-control-queueCapacity").unchecked_into();
    assert_eq!(queue.value(), "20");
    assert_eq!(page.text("bo-breaker-state"), "CLOSED");
    // The other regime, one click away: the long queue takes all of order's threads.
    page.click("bo-regime-switch").await;
    page.until_contains("bo-second-summary", "200 of 200 order threads in use")
        .await;
    assert_eq!(queue.value(), "200");
    assert!(page.text("bo-regime").contains("more than order's 200"));
    page.click("bo-step-4").await;
    page.until_text("bo-breaker-state", "OPEN").await;
    let users = page.text("bo-users-whole");
    assert!(users.contains("% a cached price"), "{users}");
}

#[wasm_bindgen_test]
async fn demo_13_a_scenario_and_the_order_change_what_each_layer_did() {
    let page = Page::open("demo=13&scenario=lost-response").await;
    page.until_idle("checkout-page").await;
    let payment = page.text("payment-stack");
    assert!(payment.contains("SocketTimeoutException"), "{payment}");
    assert!(payment.contains("UNCERTAIN"), "{payment}");
    assert_eq!(
        payment.matches("attempt ").count(),
        1,
        "one request: {payment}"
    );
    // The current row: nothing captured or declined, and each UNCERTAIN capture made one
    // provider request (CAPTURED, DECLINED, UNCERTAIN, NOT_SENT, requests, breaker).
    let cells: Vec<String> = {
        let row = page
            .one("saga-table")
            .query_selector_all("tr.current td")
            .unwrap();
        (0..row.length())
            .filter_map(|i| row.item(i))
            .map(|n| n.text_content().unwrap_or_default())
            .collect()
    };
    assert_eq!(cells.len(), 6, "{cells:?}");
    assert_eq!((cells[0].as_str(), cells[1].as_str()), ("0", "0"));
    assert_eq!(cells[2], cells[4], "one request per UNCERTAIN capture");
    assert_ne!(cells[2], "0");

    // The quoter stalls: with one shared bulkhead, payment's breaker opens.
    page.choose("lab-control-scenario", "quoter-stall").await;
    page.until_idle("checkout-page").await;
    assert!(page
        .text("checkout-predict")
        .contains("quoter stops answering"));
    page.choose("lab-control-order", "breaker-outside-retry")
        .await;
    page.until_idle("checkout-page").await;
    page.choose("lab-control-bulkheads", "shared").await;
    page.until_idle("checkout-page").await;
    let payment = page.text("payment-stack");
    assert!(payment.contains("BulkheadFullException"), "{payment}");
    assert!(
        payment.contains("CircuitBreaker(Retry(Bulkhead (shared)(call)))"),
        "{payment}"
    );
    assert!(page.text("checkout-counts").contains("shared bulkhead"));
    // No bulkhead: no bulkhead layer and no permits; the chart shows the calls under way,
    // and on platform threads the stalled quotes take the threads from the captures.
    page.choose("lab-control-bulkheads", "none").await;
    page.until_idle("checkout-page").await;
    let payment = page.text("payment-stack");
    assert!(payment.contains("CircuitBreaker(Retry(call))"), "{payment}");
    assert!(!payment.contains("Bulkhead"), "{payment}");
    assert!(
        payment.contains("No request thread came free within 1 s"),
        "{payment}"
    );
    let summary = page.text("checkout-permits-summary");
    assert!(summary.starts_with("No bulkhead, no permits"), "{summary}");
    assert!(!summary.contains(" 0 captures waited 1 s"), "{summary}");
    assert!(page
        .text("checkout-counts")
        .contains("there is no bulkhead"));
    // Virtual threads: no capture waits, the quotes pile up.
    page.choose("lab-control-threads", "virtual").await;
    page.until_idle("checkout-page").await;
    let summary = page.text("checkout-permits-summary");
    assert!(
        summary.contains("no capture waits for a thread"),
        "{summary}"
    );
    let caption = page.one("saga-table").text_content().unwrap_or_default();
    assert!(
        caption.contains("(order: breaker-outside-retry; bulkheads: none; threads: virtual)"),
        "{caption}"
    );
    sleep(300).await;
    let search = web_sys::window().unwrap().location().search().unwrap();
    assert_eq!(
        search,
        "?demo=13&scenario=quoter-stall&order=breaker-outside-retry&bulkheads=none&threads=virtual"
    );
    drop(page);
    // The old link's `order=wrong` opens as the two choices it stood for.
    let page = Page::open("demo=13&order=wrong").await;
    page.until_idle("checkout-page").await;
    let order: HtmlSelectElement = page.one("lab-control-order").unchecked_into();
    let bulkheads: HtmlSelectElement = page.one("lab-control-bulkheads").unchecked_into();
    assert_eq!(
        (order.value(), bulkheads.value()),
        ("breaker-outside-retry".to_string(), "shared".to_string())
    );
    assert!(page.text("lab-problems").trim().is_empty());
    sleep(300).await;
    let search = web_sys::window().unwrap().location().search().unwrap();
    assert_eq!(
        search,
        "?demo=13&order=breaker-outside-retry&bulkheads=shared"
    );
    drop(page);
    // A bad link value is named, and the page runs the spec's scenario.
    let page = Page::open("demo=13&scenario=meteor").await;
    page.until_idle("checkout-page").await;
    assert!(page
        .text("lab-problems")
        .contains("Scenario: must be one of"));
    assert!(page.text("payment-stack").contains("DECLINED"));
}

/// Demo 13's page state: the capture shown follows the scrubber, starts again at the
/// telling call of another scenario, and goes back with "Back to the spec's values", with
/// the saga table's runs made again for the spec's settings.
#[wasm_bindgen_test]
async fn demo_13_the_capture_shown_is_page_state_and_the_reset_clears_it() {
    let page = Page::open("demo=13").await;
    page.until_idle("checkout-page").await;
    let title = |page: &Page| {
        let h3 = page.one("payment-stack").query_selector("h3").unwrap();
        h3.and_then(|h| h.text_content()).unwrap_or_default()
    };
    let caption = |page: &Page| {
        let c = page.one("saga-table").query_selector("caption").unwrap();
        c.and_then(|c| c.text_content()).unwrap_or_default()
    };
    let first = title(&page);
    let spec = caption(&page);
    assert!(first.starts_with("Payment: capture order-"), "{first}");
    assert!(
        spec.ends_with("(order: resilience4j; bulkheads: separate; threads: platform)"),
        "{spec}"
    );
    // The slider takes its value in the second pass of the reactive system.
    leptos::task::tick().await;
    let scrubber: HtmlInputElement = page.one("call-scrubber").unchecked_into();
    let telling = scrubber.value();
    assert!(
        first.starts_with(&format!("Payment: capture order-{telling} at ")),
        "{first}"
    );
    scrubber.set_value("42");
    fire(&scrubber, "input").await;
    assert!(
        title(&page).starts_with("Payment: capture order-42 at "),
        "{}",
        title(&page)
    );
    assert_eq!(
        scrubber.get_attribute("aria-valuetext").as_deref(),
        Some("capture order-42")
    );
    // Another scenario: its own telling call (a lost answer's is the first capture).
    page.choose("lab-control-scenario", "lost-response").await;
    page.until_idle("checkout-page").await;
    assert!(
        title(&page).starts_with("Payment: capture order-0 at "),
        "{}",
        title(&page)
    );
    scrubber.set_value("7");
    fire(&scrubber, "input").await;
    assert!(title(&page).starts_with("Payment: capture order-7 at "));
    page.choose("lab-control-bulkheads", "shared").await;
    page.until_idle("checkout-page").await;
    assert!(
        caption(&page).contains("bulkheads: shared;"),
        "{}",
        caption(&page)
    );
    // The text of the saga table's current row, or of `part` of it.
    let current_row = |part: &str| {
        page.one("saga-table")
            .query_selector(&format!("tr.current{part}"))
            .unwrap()
            .and_then(|r| r.text_content())
            .unwrap_or_default()
    };
    let shared_row = current_row("");
    assert!(shared_row.starts_with("lost-response"), "{shared_row}");

    page.click("lab-reset").await;
    page.until_idle("checkout-page").await;
    assert_eq!(title(&page), first);
    assert_eq!(scrubber.value(), telling);
    assert_eq!(caption(&page), spec);
    let current = current_row(" th");
    assert_eq!(current, "decline-storm");
    assert!(page.text("checkout-counts").contains("A bulkhead each"));
}

/// A field being typed in keeps its text while the demo goes on: the fields follow the
/// run's choices, not every tick.
#[wasm_bindgen_test]
async fn typing_in_a_field_survives_the_next_tick() {
    let page = Page::open("demo=5&changes=1.flaky-40&seed=7&t=4").await;
    leptos::task::tick().await;
    let seed: HtmlInputElement = page.one("flaky-seed").unchecked_into();
    // Typed, not yet committed (no change event): what a learner has half written.
    seed.set_value("12");
    play(&page, 2).await;
    assert_eq!(seed.value(), "12");
    // Committed, the run takes it; the next tick keeps it.
    fire(&seed, "change").await;
    play(&page, 1).await;
    assert_eq!(seed.value(), "12");
}

/// The notes and the config dialog come from the tools part, through the same JavaScript
/// interface the bundle's start.js gives the page: the page asks only when they are opened.
#[wasm_bindgen_test]
async fn teacher_notes_and_the_config_arrive_from_the_tools_when_opened() {
    let page = Page::open("demo=5").await;
    let notes = page.one("teacher-notes");
    assert!(
        !notes
            .text_content()
            .unwrap_or_default()
            .contains("Expected answer"),
        "nothing is asked for before the notes are unfolded"
    );
    notes
        .query_selector("summary")
        .unwrap()
        .unwrap()
        .unchecked_into::<HtmlElement>()
        .click();
    sleep(50).await;
    leptos::task::tick().await;
    let text = notes.text_content().unwrap_or_default();
    assert!(text.contains("Expected answer"), "{text}");

    page.click("export-r4j").await;
    sleep(50).await;
    leptos::task::tick().await;
    let yaml = page.text("export-r4j-text");
    // The spec's breaker: a COUNT_BASED window of 4, judged from 4 calls, opening at 50 %.
    for line in [
        "sliding-window-size: 4",
        "minimum-number-of-calls: 4",
        "failure-rate-threshold: 50",
    ] {
        assert!(yaml.contains(line), "{line} in {yaml}");
    }
}

/// Demo 15 makes its experiments in slices: a link showing gRPC alone (its own system
/// gRPC too) gets the spec's figures once the run is in: gRPC's throttling sends one
/// attempt per request when every call fails, and the learner's 70 % through 10 s recovers.
#[wasm_bindgen_test]
async fn demo_15_runs_in_slices_and_answers_the_prediction() {
    let hidden = "show.none=false&show.resilience4j=false&show.retryBudget=false&show.tokenBucket=false&show.finagle=false&show.awsStandard=false&show.adaptiveThrottling=false";
    let page = Page::open(&format!("demo=15&yourPolicy=grpc&{hidden}")).await;
    // A debug build's run takes seconds; the page says how far it is meanwhile.
    for _ in 0..1_200 {
        if page
            .text("policies-table")
            .contains("gRPC retry throttling")
        {
            break;
        }
        sleep(50).await;
    }
    let rows = page.text("policies-table");
    assert!(rows.contains("gRPC retry throttling1.01.0"), "{rows}");
    assert!(page
        .text("policies-yours")
        .contains("gRPC retry throttling at 70 % of capacity through a 10 s slowdown: recovered"));
    page.click("policies-pick-grpc").await;
    assert!(page.text("policies-verdict").starts_with("No: "));
    assert_eq!(page.text("policies-busy"), "");
}

/// A copy made a task later (`tasks::in_next_task`, how Demo 14 spreads its redraws) ends
/// on the source's last value, also when the source changes and changes back before the
/// copy's task has run.
#[wasm_bindgen_test]
async fn a_copy_a_task_later_ends_on_the_sources_last_value() {
    use leptos::prelude::*;
    use resilience_playground::tasks::in_next_task;
    // Effects run on the executor a mounted page sets up.
    let _page = Page::open("demo=1").await;
    // Microtasks only: the effect sees each value, the copy's task does not run between.
    async fn microtasks() {
        for _ in 0..8 {
            let resolved = js_sys::Promise::resolve(&wasm_bindgen::JsValue::NULL);
            wasm_bindgen_futures::JsFuture::from(resolved)
                .await
                .unwrap();
        }
    }
    let owner = Owner::new();
    let (source, copy) = owner.with(|| {
        let source = RwSignal::new(1);
        (source, in_next_task(move || source.get()))
    });
    microtasks().await;
    source.set(2);
    microtasks().await;
    assert_eq!(copy.get_untracked(), 1, "not yet: a task later");
    // A task later, however late a loaded machine runs it (at most 2 s here).
    async fn settles_on(copy: Signal<i32>, value: i32) -> i32 {
        for _ in 0..200 {
            if copy.get_untracked() == value {
                break;
            }
            sleep(10).await;
        }
        copy.get_untracked()
    }
    assert_eq!(settles_on(copy, 2).await, 2);
    // Changed, and changed back before the copy's task.
    source.set(3);
    microtasks().await;
    source.set(2);
    microtasks().await;
    sleep(30).await;
    assert_eq!(settles_on(copy, 2).await, 2);
    drop(owner);
}
