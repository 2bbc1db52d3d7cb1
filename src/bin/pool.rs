//! The part of the course with Demo 11, the shared pool ([`resilience_playground::part`]).
// In the browser: wasm-bindgen's start hook, without std's runtime (docs/bundles.md).
#![cfg_attr(target_family = "wasm", no_main)]

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;

#[cfg_attr(target_family = "wasm", wasm_bindgen::prelude::wasm_bindgen(start))]
fn main() {
    app::report_panics();
    mount(Part::Pool, app::pool_pages);
}
