//! The engine's throughput in the browser, against the native benchmark
//! (`cargo bench -p resilience-sim --bench throughput`): the same two workloads, timed with
//! `performance.now()` in headless Chromium. Printed, never asserted, and ignored by the
//! test command; run it with
//!
//! ```sh
//! cargo test -p resilience-playground --release --target wasm32-unknown-unknown \
//!     --test wasm_bench -- --include-ignored --nocapture
//! ```
//!
//! (`--release` is the bundle's profile: opt-level "z", LTO.)
#![cfg(target_arch = "wasm32")]

use resilience_sim::workload;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn now_ms() -> f64 {
    web_sys::window().unwrap().performance().unwrap().now()
}

/// The best of `runs` rates of `f` (calls per second), as the native benchmark reports.
fn best_of(runs: usize, mut f: impl FnMut() -> u64) -> f64 {
    (0..runs)
        .map(|_| {
            let start = now_ms();
            let calls = f();
            calls as f64 / ((now_ms() - start) / 1000.0)
        })
        .fold(0.0, f64::max)
}

#[wasm_bindgen_test]
#[ignore]
fn breaker_and_tick_model_throughput_in_wasm() {
    let breaker_rate = best_of(3, || workload::breaker_calls(50_000_000));
    let tick_rate = best_of(3, || workload::tick_model_calls(300_000));
    console_log!(
        "wasm: breaker {:.0} M recorded calls/s; tick model {:.2} M calls/s",
        breaker_rate / 1e6,
        tick_rate / 1e6
    );
}
