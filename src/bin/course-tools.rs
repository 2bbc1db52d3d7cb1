//! The `course-tools` part ([`resilience_playground::part`]): the teachers' overview page,
//! and the tools any page loads when a learner opens one ([`resilience_playground::tools`]).
//! Loaded for a tool, it mounts nothing: `assets/start.js` calls [`mount_overview`] only
//! on the overview's address.

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;
use resilience_playground::tools::exports;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsValue;

fn main() {
    console_error_panic_hook::set_once();
}

#[wasm_bindgen]
pub fn mount_overview() {
    mount(Part::CourseTools, app::course_tools_pages);
}

#[wasm_bindgen]
pub fn teacher_notes_html(number: u32) -> String {
    exports::teacher_notes_html(number)
}

#[wasm_bindgen]
pub fn resilience4j_text(instances: JsValue) -> Result<String, JsValue> {
    exports::resilience4j_text(instances)
}

#[wasm_bindgen]
pub fn lab_config_text(query: &str) -> Result<String, JsValue> {
    exports::lab_config_text(query)
}

#[wasm_bindgen]
pub fn tick_config_text(demo: u32, settings: &str) -> Result<String, JsValue> {
    exports::tick_config_text(demo, settings)
}

#[wasm_bindgen]
pub fn read_for_tick(
    text: &str,
    demo: u32,
    settings: &str,
    instance: &str,
    profile: &str,
) -> String {
    exports::read_for_tick(text, demo, settings, instance, profile)
}

#[wasm_bindgen]
pub fn read_for_sandbox(text: &str, instance: &str, profile: &str) -> Result<JsValue, JsValue> {
    exports::read_for_sandbox(text, instance, profile)
}

#[wasm_bindgen]
pub fn profiles(text: &str) -> String {
    exports::profiles(text)
}

#[wasm_bindgen]
pub fn embed_snippets(base: &str, link: &str, title: &str) -> String {
    exports::embed_snippets(base, link, title)
}
