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

// The browser's allocator: talc instead of the target's default dlmalloc, 0.8 KiB smaller in
// every part's wasm and as fast on the engine's benchmarks (docs/bundles.md). The page is
// single-threaded, which this allocator's wasm form assumes.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
