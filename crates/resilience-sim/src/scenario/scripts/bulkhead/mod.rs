//! Bulkhead scripts: Resilience4j's two bulkheads, driven call by call.
//!
//! - [`semaphore`]: `resilience-sim bulkhead FILE`, one `SemaphoreBulkhead` (a
//!   `java.util.concurrent.Semaphore` on the caller's threads);
//! - [`thread_pool`]: `resilience-sim thread-pool-bulkhead FILE`, one
//!   `FixedThreadPoolBulkhead` (a JDK `ThreadPoolExecutor`).
//!
//! Both follow the format every policy script shares ([`super`]): `{"config": {...},
//! "steps": [...]}`, Resilience4j's camelCase names, a clock that only `advance_ms` moves,
//! one JSON line per step. docs/scripts.md shows each with an example and its output.

pub mod semaphore;
pub mod thread_pool;

pub use semaphore::{
    run_bulkhead_script, run_text, BulkheadReport, BulkheadScript, BulkheadScriptConfig,
    BulkheadStep, WaitEnd,
};
pub use thread_pool::{
    run_thread_pool_bulkhead_script, run_thread_pool_text, ThreadPoolBulkheadReport,
    ThreadPoolBulkheadScript, ThreadPoolBulkheadScriptConfig, ThreadPoolBulkheadStep,
};

/// What a refused call gets: `io.github.resilience4j.bulkhead.BulkheadFullException`.
const BULKHEAD_FULL: &str = "BulkheadFullException";
