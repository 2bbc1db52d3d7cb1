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

use std::hint::black_box;

use resilience_sim::model::tick::{Behaviour, Protection, TickConfig, TickModel};
use resilience_sim::policy::circuit_breaker::{CircuitBreaker, CircuitBreakerConfig};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn now_ms() -> f64 {
    web_sys::window().unwrap().performance().unwrap().now()
}

/// The best of `runs` rates of `f` (items per second), as the native benchmark reports.
fn best_of(runs: usize, items: f64, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let start = now_ms();
            f();
            items / ((now_ms() - start) / 1000.0)
        })
        .fold(0.0, f64::max)
}

#[wasm_bindgen_test]
#[ignore]
fn breaker_and_tick_model_throughput_in_wasm() {
    const CALLS: u64 = 50_000_000;
    let breaker_rate = best_of(3, CALLS as f64, || {
        // The native benchmark's workload: window 100, 25 % failures, never opening.
        let mut breaker = CircuitBreaker::new(CircuitBreakerConfig {
            sliding_window_size: 100,
            minimum_number_of_calls: 100,
            failure_rate_threshold: 100.0,
            ..CircuitBreakerConfig::default()
        })
        .unwrap();
        breaker.set_event_recording(false);
        for i in 0..CALLS {
            if i & 3 == 3 {
                breaker.on_error(black_box(i), black_box(5), black_box("IOException"));
            } else {
                breaker.on_success(black_box(i), black_box(5));
            }
        }
        black_box(breaker.metrics());
    });
    const TICKS: u32 = 300_000;
    let tick_rate = best_of(3, f64::from(TICKS) * 3.0, || {
        let mut model = TickModel::new(TickConfig::new(
            Behaviour::Slow,
            Protection::BreakerAndBulkhead,
        ))
        .unwrap();
        for _ in 0..TICKS {
            black_box(model.step());
        }
    });
    console_log!(
        "wasm: breaker {:.0} M recorded calls/s; tick model {:.2} M calls/s",
        breaker_rate / 1e6,
        tick_rate / 1e6
    );
}
