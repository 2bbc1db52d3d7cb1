//! Resilience Playground: the Leptos shell around the `resilience-sim` engine.
//!
//! The shell only renders engine state and dispatches the learner's intents; it never
//! decides a simulation outcome.

pub mod app;

/// Mounts the playground on the page's `<body>`.
pub fn mount() {
    leptos::mount::mount_to_body(app::App);
}
