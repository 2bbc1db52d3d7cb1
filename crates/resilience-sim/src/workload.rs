//! The engine's benchmark workloads, written once so the native benchmark
//! (`benches/throughput.rs`) and the browser's (`tests/wasm_bench.rs` of the app) time the
//! same work. Each returns how many calls it simulated; the caller keeps the clock.

use std::hint::black_box;

use crate::model::tick::{Behaviour, Protection, TickConfig, TickModel};
use crate::policy::circuit_breaker::{CircuitBreaker, CircuitBreakerConfig};

/// `calls` outcomes recorded by one COUNT_BASED breaker (window 100), three successes then
/// one failure: a 25 % failure rate, below the threshold, so every call is recorded in
/// CLOSED, with no events kept.
pub fn breaker_calls(calls: u64) -> u64 {
    let config = CircuitBreakerConfig {
        sliding_window_size: 100,
        minimum_number_of_calls: 100,
        failure_rate_threshold: 100.0,
        ..CircuitBreakerConfig::default()
    };
    let Ok(mut breaker) = CircuitBreaker::new(config) else {
        return 0;
    };
    breaker.set_event_recording(false);
    // The inputs are opaque once, not per call: in wasm `black_box` is a store and a load
    // through memory (natively it costs nothing), and per call it would time the barrier.
    let (duration, exception) = black_box((5, "IOException"));
    for i in 0..calls {
        if i & 3 == 3 {
            breaker.on_error(i, duration, exception);
        } else {
            breaker.on_success(i, duration);
        }
    }
    black_box(breaker.metrics());
    calls
}

/// `ticks` ticks of the whole tick model (slow recommendations, breaker and bulkhead);
/// three calls arrive each tick (two recommendations, one payment).
pub fn tick_model_calls(ticks: u32) -> u64 {
    let Ok(mut model) = TickModel::new(TickConfig::new(
        Behaviour::Slow,
        Protection::BreakerAndBulkhead,
    )) else {
        return 0;
    };
    for _ in 0..ticks {
        black_box(model.step());
    }
    u64::from(ticks) * 3
}
