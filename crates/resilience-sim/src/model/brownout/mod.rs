//! # Lab C (Demo 12): the 09:00 pricing brownout
//!
//! `order` takes order submissions (250/s) that call `pricing`, and order-history
//! requests (100/s) that never do. It has 200 request threads; a request holds its thread
//! until it answers. Pricing answers in 80 ms, until 09:00, when it starts answering in
//! 4 s with no error at all, for `faultSeconds` (60 by default). The user gives up after
//! 1 s; `order` does not know (no deadline propagation) and keeps working.
//!
//! ## Why this lab exists: four mechanisms, each doing what it was told
//!
//! The pricing call is protected by the four mechanisms of a textbook stack, configured
//! the way many stacks are, and each one is wrong for a brownout in its own way:
//!
//! - a **thread-pool bulkhead** of 20 threads and a queue of 20. Little's law: 250
//!   calls/s x 4 s = 1,000 calls in flight are needed, the bulkhead runs 20, so it admits
//!   20 / 4 s = 5 calls a second, 2 % of the demand, and refuses the rest at once. With a
//!   queue of 200 (the other regime, one control away) it refuses less but every queued
//!   call waits on an `order` request thread: 20 running + 200 queued = 220 threads, more
//!   than the 200 `order` has, so the pool runs dry and order history, which never calls
//!   pricing, fails with it;
//! - a **circuit breaker** on the error rate only (50 % over a 10 s time-based window).
//!   Slow answers are successes, and the bulkhead's refusals are not pricing's errors
//!   (they are in its `ignoreExceptions`): the breaker never opens;
//! - **3 retries with jitter on any failure**, the bulkhead's refusals included: every
//!   refused call is tried 3 more times, a few tens of milliseconds apart, so the stack
//!   sees 3 to 4 attempts per submission for the same 5 admitted calls a second. This is
//!   the course's answer to "which mechanism makes it worse";
//! - a **fallback cache** of prices with a 30 s TTL, filled by the live calls: once the
//!   live calls stop, the entries age out within 30 s and the fallback answers with
//!   errors.
//!
//! The fix ladder, cumulative, in the course's order ([`BrownoutConfig::fixes`]):
//!
//! 1. a **300 ms timeout** on the pricing call (the user's 1 s budget minus the rest of
//!    the request), as the HTTP client's read timeout inside the call: when it fires the
//!    client closes the connection and the bulkhead thread is free at once ("the bulkhead
//!    stops holding threads for four seconds each"); pricing goes on working on the call
//!    for nobody (wasted work). Timeouts are errors, so the breaker opens within seconds;
//!    and once it is open nothing refreshes the cache, so users get fewer answers than
//!    before, not more: the threads and the dependency are protected, the users are not.
//!    `timeoutKind = stopWaiting` makes it a Resilience4j `TimeLimiter` around the
//!    bulkhead instead, which frees the caller, not the call: a timed-out call keeps its
//!    bulkhead thread (or its place in the queue) until pricing answers (the
//!    `CompletionStage` path never cancels the task; see [`crate::policy::time_limiter`]);
//! 2. the breaker also trips on the **slow-call rate** (calls over 250 ms, at 50 %);
//! 3. retries capped by a **retry budget** of 10 % of requests (Finagle's design,
//!    [`crate::policy::retry::RetryBudget`]);
//! 4. the cache filled **out of band** (a price export of the whole catalogue) with a
//!    TTL of hours: every fallback finds a price.
//!
//! ## The model
//!
//! ## Where the model departs from the course
//!
//! The course argues that pricing, which serves the whole `order` fleet, comes back only
//! once the load it receives falls below what it can serve, so that naive retries keep
//! it down. Here pricing answers in `pricingMs` again as soon as its fault ends: the
//! thread-pool bulkhead caps what one replica can send it at 20 threads per call's
//! duration (5 a second at 4 s, about 67 with the 300 ms read timeout), retries or not,
//! so the retries land on the bulkhead and on `order`'s threads, never on pricing. What
//! delays the users' recovery after the fault is the open breaker's wait, which the run
//! shows ([`BrownoutRun::users_recovered_s`]). A retry storm that does keep a dependency
//! down needs callers whose load nothing caps (open-loop clients, no bulkhead).
//!
//! ## The model
//!
//! Event-driven, in whole milliseconds, reported per second. The model clock starts at
//! 08:59:20: the first 30 s (not reported) fill the 30 s cache and the breaker's window
//! as a day's traffic would have, so that 08:59:50, the first second shown, is a steady
//! state. Arrivals stop at the end of the run; events go on for one user timeout more, so
//! every submission shown has its user's outcome.
//!
//! - **Arrivals**: jittered-uniform, like Demo 11: each second is cut into `rps` slots and
//!   one request arrives at a uniform instant of each, so exactly `rps` arrive a second.
//!   Each submission prices one product drawn from a catalogue with Zipf popularity (the
//!   product of rank `k` is asked with a probability proportional to `k^-s`).
//! - **`order`'s request threads** (`orderThreads`, with Tomcat's accept queue,
//!   `acceptCount`): a request without a thread waits in the accept queue, first come
//!   first served, and leaves it when its user gives up (the server never works on it); a
//!   request that finds the accept queue full is refused (an error page). A submission
//!   does `localWorkMs` of local work, then the pricing call; an order-history request does
//!   `localWorkMs` and answers.
//! - **The pricing call** goes through the engine's policies in Resilience4j's default
//!   order, `Retry(CircuitBreaker(TimeLimiter(Bulkhead(call))))`, with the fallback around
//!   them all. An attempt asks the breaker, then the bulkhead: refused by either, it fails
//!   at once (`CallNotPermittedException`, `BulkheadFullException`; the breaker ignores
//!   the latter). Admitted, it runs on a bulkhead thread or waits in the bulkhead's queue
//!   while its `order` thread waits for it. Pricing's latency is that of the instant the
//!   call reaches pricing (a bulkhead thread starts it): `pricingSlowMs` from 09:00 for
//!   `faultSeconds`, `pricingMs` before and after, each call within ±20 %. Pricing has no
//!   capacity limit and never fails.
//! - **Retry**: `maxAttempts` in all, waits drawn by Resilience4j's randomized interval
//!   (`retryWaitMs` ± `randomizationFactor`), on every exception the stack throws: the
//!   misconfigured stack retries its own refusals (`retryBulkheadFull`, and the open
//!   breaker's). The order thread waits through the retry waits.
//! - **Fallback**: after the last attempt, the cache: a fresh price (age below the TTL)
//!   answers "cached", none answers an error. A live answer puts its price in the cache.
//! - **The user** gives up `userTimeoutMs` after arriving: an answer strictly before that
//!   is seen; anything later is "gave up", whatever the server did.
//!
//! Three parts: `config` (the controls and their limits), `report` (what a run reports:
//! the seconds, the headline, the mechanisms' effects) and `sim` (the event-driven
//! simulation, whole or in slices).

use std::collections::VecDeque;

use rand::RngExt;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use super::{stream_rng, vary};
use crate::error::{check_range, ConfigError};
use crate::policy::bulkhead::{ThreadPoolAdmission, ThreadPoolBulkhead, ThreadPoolBulkheadConfig};
use crate::policy::circuit_breaker::{
    CircuitBreaker, CircuitBreakerConfig, SlidingWindowType, State,
};
use crate::policy::fallback::FallbackCache;
use crate::policy::retry::{
    IntervalFunction, Retry, RetryBudget, RetryBudgetConfig, RetryConfig, RetryContext,
    RetryDecision,
};
use crate::policy::time_limiter::{Timeout, TimeoutKind};
use crate::{Millis, Outcome};

mod config;
mod report;
mod sim;

pub use config::*;
pub use report::*;
pub use sim::*;

/// Unreported warm-up before the first second shown (08:59:20 to 08:59:50).
pub const WARMUP_MS: Millis = 30_000;
/// Seconds shown before 09:00 (08:59:50 to 09:00:00).
pub const SHOWN_BEFORE_S: u32 = 10;
/// 09:00 on the model clock.
pub const INCIDENT_MS: Millis = WARMUP_MS + SHOWN_BEFORE_S as Millis * 1_000;
/// The longest run after 09:00, in seconds.
pub const MAX_SECONDS: u32 = 600;
/// The highest arrival rate of one kind of request.
pub const MAX_RPS: u32 = 1_000;
/// The largest `order` pool and accept queue.
pub const MAX_ORDER_THREADS: u32 = 2_000;
pub const MAX_ACCEPT: u32 = 10_000;
/// The largest bulkhead and its queue.
pub const MAX_BULKHEAD_THREADS: u32 = 500;
pub const MAX_QUEUE: u32 = 10_000;
/// The longest latency, local work, wait or timeout setting (1 minute).
pub const MAX_MS: Millis = 60_000;
/// The most attempts per call.
pub const MAX_ATTEMPTS: u32 = 10;
/// The most calls a run may simulate (attempts at most plus order-history requests):
/// about a second of work in a browser tab, whatever a link asks for.
pub const MAX_WORK: u64 = 2_000_000;
/// The largest catalogue.
pub const MAX_PRODUCTS: u32 = 100_000;
/// Every pricing latency and local work is drawn within ± this percentage of its setting.
pub const JITTER_PERCENT: u64 = 20;
/// The out-of-band cache's TTL (fix 4): a nightly price export, fresh for hours.
pub const OUT_OF_BAND_TTL_MS: Millis = 6 * 3_600_000;
/// The exception a time limiter throws.
pub const TIMEOUT_EXCEPTION: &str = "TimeoutException";
/// The exception an HTTP client's read timeout throws.
pub const READ_TIMEOUT_EXCEPTION: &str = "SocketTimeoutException";

/// The fix ladder's steps, in order (0 is the stack as configured).
pub const FIXES: [&str; 5] = [
    "as configured",
    "+ 300 ms timeout",
    "+ slow-call rate",
    "+ retry budget",
    "+ out-of-band cache",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_in_slices_is_the_run_at_once() {
        let config = BrownoutConfig {
            fixes: 1,
            queue_capacity: 20,
            seconds: 40,
            ..BrownoutConfig::default()
        };
        let mut sim = BrownoutSim::new(&config).unwrap();
        let mut slices = 0;
        while !sim.advance(7_001) {
            slices += 1;
        }
        assert!(slices > 5);
        assert_eq!(sim.finish(), run(&config).unwrap());
        assert!(BrownoutSim::new(&BrownoutConfig { fixes: 9, ..config }).is_err());
    }

    #[test]
    fn zipf_draws_favour_the_first_ranks_and_cover_the_catalogue() {
        let catalogue = Catalogue::new(100, 1.0);
        let mut rng = stream_rng(1, 3);
        let mut counts = [0u32; 100];
        for _ in 0..100_000 {
            counts[catalogue.draw(&mut rng) as usize] += 1;
        }
        // p(rank 1) = 1 / H(100) = 0.193; p(rank 2) = half of it.
        assert!((counts[0] as f64 / 100_000.0 - 0.193).abs() < 0.01);
        assert!((counts[1] as f64 / counts[0] as f64 - 0.5).abs() < 0.03);
        assert!(counts.iter().all(|&c| c > 0));
        let uniform = Catalogue::new(4, 0.0);
        assert!((uniform.cumulative[1] - 0.5).abs() < 1e-12);
        // The guide table finds what a binary search finds.
        let skewed = Catalogue::new(1_000, 1.2);
        let mut a = stream_rng(9, 3);
        let mut b = a.clone();
        for _ in 0..10_000 {
            let fast = skewed.draw(&mut a);
            let u: f64 = b.random();
            let searched = skewed.cumulative.partition_point(|&c| c <= u).min(999) as u32;
            assert_eq!(fast, searched);
        }
    }
}
