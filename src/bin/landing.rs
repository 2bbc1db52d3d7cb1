//! The course's front page, a part of its own ([`resilience_playground::part`]): the page
//! most visitors open first carries none of the demos' engines.
// In the browser: wasm-bindgen's start hook, without std's runtime (docs/bundles.md).
#![cfg_attr(target_family = "wasm", no_main)]

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;

#[cfg_attr(target_family = "wasm", wasm_bindgen::prelude::wasm_bindgen(start))]
fn main() {
    app::report_panics();
    mount(Part::Landing, app::landing_pages);
}
