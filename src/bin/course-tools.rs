//! The `course-tools` part ([`resilience_playground::part`]): the teachers' overview page,
//! and the tools any page loads when a learner opens one ([`resilience_playground::tools`]):
//! the notes for teachers, the config and embed dialogs, drawn into the page, and the
//! reader of the breaker scripts the sandbox imports.
//! Loaded for a tool, it mounts nothing: `assets/start.js` calls [`mount_overview`] only
//! on the overview's address.

use resilience_playground::app::{self, mount};
use resilience_playground::part::Part;
use resilience_playground::tools::exports;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsValue;

fn main() {
    app::report_panics();
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
pub fn read_breaker_script(text: &str) -> Result<JsValue, JsValue> {
    exports::read_breaker_script(text)
}

#[wasm_bindgen]
pub fn open_dialog(which: &str, page: JsValue) -> String {
    exports::open_dialog(which, page)
}
