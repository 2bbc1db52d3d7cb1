//! Throughput of the engine, timed on virtual-time workloads (run with
//! `cargo bench -p resilience-sim --bench throughput`). Figures are printed, not asserted:
//! speed is reported in the issue notes, never checked by a timed test.
//!
//! - breaker: outcomes recorded per second by one COUNT_BASED CircuitBreaker (window 100,
//!   thresholds never reached, so every call is recorded in CLOSED, no events kept);
//! - tick model: calls simulated per second through the whole tick model (breaker + bulkhead,
//!   slow recommendations), and the model's resident memory before and after a million ticks;
//! - brownout (Demo 12): one run of 130 simulated seconds per step of the fix ladder,
//!   median of 21 runs;
//! - BoxOffice (Demo 14's engine): the flash sale's 360 s (five minutes at 10x) per
//!   variant, median of 5 runs, and the kernel's events per second.

use std::hint::black_box;
use std::time::Instant;

use resilience_sim::model::boxoffice::{self, scenarios};
use resilience_sim::model::brownout::{self, BrownoutConfig};
use resilience_sim::workload;

fn best_of<F: FnMut() -> f64>(runs: usize, mut f: F) -> f64 {
    (0..runs).map(|_| f()).fold(0.0, f64::max)
}

fn breaker_calls_per_second() -> f64 {
    let start = Instant::now();
    let calls = workload::breaker_calls(200_000_000);
    calls as f64 / start.elapsed().as_secs_f64()
}

fn tick_model_calls_per_second() -> f64 {
    let start = Instant::now();
    let calls = workload::tick_model_calls(1_000_000);
    calls as f64 / start.elapsed().as_secs_f64()
}

/// Median milliseconds of one brownout run with `fixes` applied.
fn brownout_run_ms(fixes: u8) -> f64 {
    let config = BrownoutConfig {
        fixes,
        ..BrownoutConfig::default()
    };
    let mut times: Vec<f64> = (0..21)
        .map(|_| {
            let start = Instant::now();
            black_box(brownout::run(black_box(&config)).expect("valid config"));
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Median milliseconds of one flash-sale run of `variant`, and its events.
fn boxoffice_run_ms(variant: &str) -> (f64, u64) {
    let text = scenarios::file("flash-sale").expect("shipped");
    let mut events = 0;
    let mut times: Vec<f64> = (0..5)
        .map(|_| {
            let topology = scenarios::load(text, Some(variant), &[]).expect("valid");
            let start = Instant::now();
            let run =
                black_box(boxoffice::run(topology, "flash-sale", variant, 1, None)).expect("valid");
            let ms = start.elapsed().as_secs_f64() * 1e3;
            events = run.summary.events;
            ms
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], events)
}

fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    // `cargo test --benches` runs this with --bench absent: keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    if quick {
        println!("throughput: skipped (run with `cargo bench`)");
        return;
    }
    let breaker = best_of(3, breaker_calls_per_second);
    println!(
        "breaker: {:.0} million recorded calls per second (best of 3)",
        breaker / 1e6
    );

    let before = resident_kib();
    let model = best_of(3, tick_model_calls_per_second);
    let after = resident_kib();
    println!(
        "tick model: {:.1} million calls simulated per second (best of 3, 1,000,000 ticks)",
        model / 1e6
    );
    if let (Some(b), Some(a)) = (before, after) {
        println!("resident memory: {b} KiB before, {a} KiB after three runs of a million ticks");
    }

    for fixes in 0..=4 {
        println!(
            "brownout: {:.2} ms per run of 130 s with {fixes} fixes (median of 21)",
            brownout_run_ms(fixes)
        );
    }

    let text = scenarios::file("flash-sale").expect("shipped");
    for variant in scenarios::variants(text) {
        let (ms, events) = boxoffice_run_ms(&variant);
        println!(
            "boxoffice flash-sale {variant}: {ms:.0} ms per run of 360 s, {events} events, {:.1} million events/s (median of 5)",
            events as f64 / ms / 1e3
        );
    }
}
