//! Resilience Playground: the Leptos shell around the `resilience-sim` engine.
//!
//! The shell only renders engine state and dispatches the learner's intents; it never
//! decides a simulation outcome. Plain logic (URL state, the settings form) lives in
//! modules without any Leptos so it is tested natively.

pub mod app;
pub mod components;
pub mod course;
pub mod embed;
pub mod format;
pub mod lab_link;
pub mod nav;
pub mod part;
pub mod settings_form;
pub mod tasks;
pub mod tools;
pub mod url_state;
pub mod views;
