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

use resilience_sim::model::boxoffice::{scenarios, Sim};
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
    // V8 compiles a function with its baseline compiler first and swaps in the optimised
    // code on a later call (never in the middle of a loop): a short warm-up call of each
    // workload times the optimised code, as a page that runs the engine all along does.
    workload::breaker_calls(1_000_000);
    workload::tick_model_calls(10_000);
    let breaker_rate = best_of(3, || workload::breaker_calls(50_000_000));
    let tick_rate = best_of(3, || workload::tick_model_calls(300_000));
    console_log!(
        "wasm: breaker {:.0} M recorded calls/s; tick model {:.2} M calls/s",
        breaker_rate / 1e6,
        tick_rate / 1e6
    );
}

/// The flash sale (360 s, five minutes at 10x) run as a page runs it: one virtual second
/// per slice. Prints the whole run's time, the events per second, and the longest slice
/// (a page's task: it must stay under 16 ms).
#[wasm_bindgen_test]
#[ignore]
fn boxoffice_flash_sale_in_slices_in_wasm() {
    let text = scenarios::file("flash-sale").unwrap();
    for variant in ["no-shedding", "priority-shedding", "waiting-room"] {
        let topology = scenarios::load(text, Some(variant), &[]).unwrap();
        let mut sim = Sim::new(topology, "flash-sale", variant, 1, None).unwrap();
        let (start, mut longest) = (now_ms(), 0.0_f64);
        let mut t = 0;
        while !sim.is_finished() {
            t += 1_000;
            let slice = now_ms();
            sim.advance_to(t);
            longest = longest.max(now_ms() - slice);
        }
        let total = now_ms() - start;
        console_log!(
            "wasm: boxoffice flash-sale {variant}: {total:.0} ms for 360 s, {:.1} million events/s, longest 1-s slice {longest:.1} ms",
            sim.events() as f64 / total / 1e3
        );
    }
}
