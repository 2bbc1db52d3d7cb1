//! Browser tests: mount the app in headless Chromium and assert on the DOM.
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

fn by_testid(id: &str) -> Vec<web_sys::HtmlElement> {
    let list = document()
        .query_selector_all(&format!("[data-testid='{id}']"))
        .unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
        .collect()
}

#[wasm_bindgen_test]
async fn clicking_a_demo_opens_its_summary() {
    let host = document().create_element("div").unwrap();
    document().body().unwrap().append_child(&host).unwrap();
    let _handle = leptos::mount::mount_to(host.unchecked_into(), resilience_playground::app::App);

    let links = by_testid("demo-link");
    assert_eq!(links.len(), 7, "Demos 1-7 are listed");
    let heading = || by_testid("demo-heading")[0].text_content().unwrap();
    assert!(heading().starts_with("Demo 1: "));

    links[4].click();
    leptos::task::tick().await;
    assert_eq!(heading(), "Demo 5: Slow service, circuit breaker");
    assert_eq!(links[4].get_attribute("aria-current").as_deref(), Some("true"));
    assert_eq!(links[0].get_attribute("aria-current"), None);
}
