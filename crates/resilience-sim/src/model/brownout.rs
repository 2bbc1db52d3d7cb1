//! # Lab C (Demo 12): the 09:00 pricing brownout
//!
//! `order` takes order submissions (250/s) that call `pricing`, and order-history
//! requests (100/s) that never do. It has 200 request threads; a request holds its thread
//! until it answers. Pricing answers in 80 ms, until 09:00, when it starts answering in
//! 4 s with no error at all. The user gives up after 1 s; `order` does not know (no
//! deadline propagation) and keeps working.
//!
//! ## Why this lab exists: four mechanisms, each doing what it was told
//!
//! The pricing call is protected by the four mechanisms of a textbook stack, configured
//! the way many stacks are, and each one is wrong for a brownout in its own way:
//!
//! - a **thread-pool bulkhead** of 20 threads and a queue of 200. Little's law: 250
//!   calls/s x 4 s = 1,000 calls in flight are needed, the bulkhead runs 20, so it admits
//!   20 / 4 s = 5 calls a second, 2 % of the demand. Worse, every queued call waits on an
//!   `order` request thread: 20 running + 200 queued = 220 threads, more than the 200
//!   `order` has, so the pool runs dry and order history, which never calls pricing,
//!   fails with it. With a queue of 20 the same bulkhead holds 40 threads and history
//!   lives;
//! - a **circuit breaker** on the error rate only (50 % over a 10 s time-based window).
//!   Slow answers are successes, and the bulkhead's refusals are not pricing's errors
//!   (they are in its `ignoreExceptions`): the breaker never opens;
//! - **3 retries with jitter on any failure**, the bulkhead's refusals included: every
//!   refused call is tried 3 more times, a few tens of milliseconds apart, so the stack
//!   sees 3 to 4 attempts per submission for the same 5 admitted calls a second;
//! - a **fallback cache** of prices with a 30 s TTL, filled by the live calls: once the
//!   live calls stop, the entries age out within 30 s and the fallback answers with
//!   errors.
//!
//! The fix ladder, cumulative, in the course's order ([`BrownoutConfig::fixes`]):
//!
//! 1. a **300 ms time limiter** on pricing (the user's 1 s budget minus the rest of the
//!    request). It frees the caller, not the call: a timed-out call keeps its bulkhead
//!    thread (or its place in the queue) until pricing answers, and its late answer is
//!    thrown away (the time limiter's `CompletionStage` path never cancels the task; see
//!    [`crate::policy::time_limiter`]). Timeouts are errors, so the breaker opens within
//!    seconds; and once it is open nothing refreshes the cache, so users get fewer
//!    answers than before, not more: the threads and the dependency are protected, the
//!    users are not;
//! 2. the breaker also trips on the **slow-call rate** (calls over 250 ms, at 50 %);
//! 3. retries capped by a **retry budget** of 10 % of requests (Finagle's design,
//!    [`crate::policy::retry::RetryBudget`]);
//! 4. the cache filled **out of band** (a price export of the whole catalogue) with a
//!    TTL of hours: every fallback finds a price.
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
//!   call reaches pricing (a bulkhead thread starts it): `pricingMs` before 09:00,
//!   `pricingSlowMs` from 09:00, each call within ±20 %. Pricing has no capacity limit and
//!   never fails.
//! - **Retry**: `maxAttempts` in all, waits drawn by Resilience4j's randomized interval
//!   (`retryWaitMs` ± `randomizationFactor`), on every exception the stack throws: the
//!   misconfigured stack retries its own refusals (`retryBulkheadFull`, and the open
//!   breaker's). The order thread waits through the retry waits.
//! - **Fallback**: after the last attempt, the cache: a fresh price (age below the TTL)
//!   answers "cached", none answers an error. A live answer puts its price in the cache.
//! - **The user** gives up `userTimeoutMs` after arriving: an answer strictly before that
//!   is seen; anything later is "gave up", whatever the server did.

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
use crate::policy::time_limiter::TimeLimiterConfig;
use crate::{Millis, Outcome};

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

/// The fix ladder's steps, in order (0 is the stack as configured).
pub const FIXES: [&str; 5] = [
    "as configured",
    "+ 300 ms timeout",
    "+ slow-call rate",
    "+ retry budget",
    "+ out-of-band cache",
];

/// Every control of Lab C; `Default` is the spec's stack as it was configured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct BrownoutConfig {
    /// Fixes applied, cumulative, 0 to 4 (default 0).
    pub fixes: u8,
    /// Seconds shown after 09:00 (1 to 600; default 120, to 09:02:00).
    pub seconds: u32,
    /// Order submissions per second (default 250).
    pub submissions_per_second: u32,
    /// Order-history requests per second (default 100).
    pub history_per_second: u32,
    /// `order`'s request threads (default 200).
    pub order_threads: u32,
    /// Requests that may wait for an `order` thread (default 100, Tomcat's `acceptCount`).
    pub accept_count: u32,
    /// When the user gives up, from arrival (default 1 s).
    pub user_timeout_ms: Millis,
    /// `order`'s own work per request (default 20 ms).
    pub local_work_ms: Millis,
    /// Pricing's latency before 09:00 (default 80 ms).
    pub pricing_ms: Millis,
    /// Pricing's latency from 09:00 (default 4 s).
    pub pricing_slow_ms: Millis,
    /// The thread-pool bulkhead's threads (core = max; default 20).
    pub bulkhead_threads: u32,
    /// The thread-pool bulkhead's `queueCapacity` (default 200).
    pub queue_capacity: u32,
    /// The breaker's `failureRateThreshold` in percent (default 50).
    pub failure_rate_threshold: f32,
    /// The breaker's TIME_BASED `slidingWindowSize` in seconds (default 10).
    pub sliding_window_size: u32,
    /// The breaker's `minimumNumberOfCalls` (default 100, Resilience4j's).
    pub minimum_number_of_calls: u32,
    /// The breaker's `waitDurationInOpenState` (default 60 s, Resilience4j's).
    pub wait_duration_in_open_state: Millis,
    /// The breaker's `permittedNumberOfCallsInHalfOpenState` (default 10).
    pub permitted_number_of_calls_in_half_open_state: u32,
    /// The retry's `maxAttempts`, the first call included (default 4: 3 retries).
    pub max_attempts: u32,
    /// The retry's randomized interval (default 50 ms).
    pub retry_wait_ms: Millis,
    /// Its `randomizationFactor` (default 0.5: waits from 25 to 75 ms).
    pub randomization_factor: f64,
    /// Whether `BulkheadFullException` is retried (default true, as configured; false is
    /// the spec-00 rule).
    pub retry_bulkhead_full: bool,
    /// The inline cache's TTL (default 30 s).
    pub cache_ttl_ms: Millis,
    /// Products in the catalogue (default 10,000).
    pub products: u32,
    /// Zipf exponent of their popularity (0 = all equal; default 1).
    pub zipf_exponent: f64,
    /// Fix 1: the time limiter's `timeoutDuration` (default 300 ms).
    pub timeout_ms: Millis,
    /// Fix 2: `slowCallDurationThreshold` (default 250 ms).
    pub slow_call_duration_threshold: Millis,
    /// Fix 2: `slowCallRateThreshold` in percent (default 50).
    pub slow_call_rate_threshold: f32,
    /// Fix 3: retries per 100 requests (default 10).
    pub retry_budget_percent: f64,
    /// Seed of arrivals, products, latencies and retry waits.
    pub seed: u64,
}

impl Default for BrownoutConfig {
    fn default() -> Self {
        Self {
            fixes: 0,
            seconds: 120,
            submissions_per_second: 250,
            history_per_second: 100,
            order_threads: 200,
            accept_count: 100,
            user_timeout_ms: 1_000,
            local_work_ms: 20,
            pricing_ms: 80,
            pricing_slow_ms: 4_000,
            bulkhead_threads: 20,
            queue_capacity: 200,
            failure_rate_threshold: 50.0,
            sliding_window_size: 10,
            minimum_number_of_calls: 100,
            wait_duration_in_open_state: 60_000,
            permitted_number_of_calls_in_half_open_state: 10,
            max_attempts: 4,
            retry_wait_ms: 50,
            randomization_factor: 0.5,
            retry_bulkhead_full: true,
            cache_ttl_ms: 30_000,
            products: 10_000,
            zipf_exponent: 1.0,
            timeout_ms: 300,
            slow_call_duration_threshold: 250,
            slow_call_rate_threshold: 50.0,
            retry_budget_percent: 10.0,
            seed: 1,
        }
    }
}

fn check_float(field: &str, value: f64, min: f64, max: f64) -> Result<(), ConfigError> {
    if value.is_finite() && (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError::new(
            field,
            format!(
                "must be between {} and {} (got {})",
                min.to_string(),
                max.to_string(),
                value.to_string()
            ),
        ))
    }
}

impl BrownoutConfig {
    /// Bounds that keep every run finite and fast, then the policies' own rules.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range("fixes", self.fixes.into(), 0, 4)?;
        check_range("seconds", self.seconds.into(), 1, MAX_SECONDS.into())?;
        check_range(
            "submissionsPerSecond",
            self.submissions_per_second.into(),
            0,
            MAX_RPS.into(),
        )?;
        check_range(
            "historyPerSecond",
            self.history_per_second.into(),
            0,
            MAX_RPS.into(),
        )?;
        check_range(
            "orderThreads",
            self.order_threads.into(),
            1,
            MAX_ORDER_THREADS.into(),
        )?;
        check_range(
            "acceptCount",
            self.accept_count.into(),
            0,
            MAX_ACCEPT.into(),
        )?;
        check_range("userTimeoutMs", self.user_timeout_ms, 100, MAX_MS)?;
        check_range("localWorkMs", self.local_work_ms, 1, MAX_MS)?;
        check_range("pricingMs", self.pricing_ms, 1, MAX_MS)?;
        check_range("pricingSlowMs", self.pricing_slow_ms, 1, MAX_MS)?;
        check_range(
            "bulkheadThreads",
            self.bulkhead_threads.into(),
            1,
            MAX_BULKHEAD_THREADS.into(),
        )?;
        check_range(
            "queueCapacity",
            self.queue_capacity.into(),
            0,
            MAX_QUEUE.into(),
        )?;
        check_range(
            "slidingWindowSize",
            self.sliding_window_size.into(),
            1,
            3_600,
        )?;
        check_range(
            "minimumNumberOfCalls",
            self.minimum_number_of_calls.into(),
            1,
            1_000_000,
        )?;
        check_range(
            "waitDurationInOpenState",
            self.wait_duration_in_open_state,
            1,
            3_600_000,
        )?;
        check_range(
            "permittedNumberOfCallsInHalfOpenState",
            self.permitted_number_of_calls_in_half_open_state.into(),
            1,
            1_000,
        )?;
        check_range(
            "maxAttempts",
            self.max_attempts.into(),
            1,
            MAX_ATTEMPTS.into(),
        )?;
        check_range("retryWaitMs", self.retry_wait_ms, 0, MAX_MS)?;
        check_float("randomizationFactor", self.randomization_factor, 0.0, 1.0)?;
        check_range("cacheTtlMs", self.cache_ttl_ms, 0, 3_600_000)?;
        check_range("products", self.products.into(), 1, MAX_PRODUCTS.into())?;
        check_float("zipfExponent", self.zipf_exponent, 0.0, 3.0)?;
        check_range("timeoutMs", self.timeout_ms, 1, MAX_MS)?;
        check_range(
            "slowCallDurationThreshold",
            self.slow_call_duration_threshold,
            1,
            MAX_MS,
        )?;
        check_float("retryBudgetPercent", self.retry_budget_percent, 0.0, 100.0)?;
        let work = self.most_calls();
        if work > MAX_WORK {
            return Err(ConfigError::new(
                "seconds",
                format!(
                    "this run could simulate {work} calls (submissions x maxAttempts + history, over {} s); the limit is {MAX_WORK}: lower the rates, maxAttempts or the seconds",
                    u64::from(self.seconds) + (WARMUP_MS / 1_000) + u64::from(SHOWN_BEFORE_S)
                ),
            ));
        }
        self.breaker_config().validate()?;
        self.retry_config().validate()?;
        self.bulkhead_config().validate()?;
        if let Some(budget) = self.budget_config() {
            budget.validate()?;
        }
        Ok(())
    }

    /// The most calls a run can make: every submission's attempts and every history
    /// request, warm-up included.
    pub fn most_calls(&self) -> u64 {
        let per_second = u64::from(self.submissions_per_second) * u64::from(self.max_attempts)
            + u64::from(self.history_per_second);
        per_second * (u64::from(self.seconds) + WARMUP_MS / 1_000 + u64::from(SHOWN_BEFORE_S))
    }

    /// The breaker as configured, with the slow-call rule of fix 2 when it applies.
    pub fn breaker_config(&self) -> CircuitBreakerConfig {
        let mut config = CircuitBreakerConfig {
            failure_rate_threshold: self.failure_rate_threshold,
            sliding_window_type: SlidingWindowType::TimeBased,
            sliding_window_size: self.sliding_window_size,
            minimum_number_of_calls: self.minimum_number_of_calls,
            wait_duration_in_open_state: self.wait_duration_in_open_state,
            permitted_number_of_calls_in_half_open_state: self
                .permitted_number_of_calls_in_half_open_state,
            // The bulkhead's refusals are not pricing's errors.
            ignore_exceptions: vec!["BulkheadFullException".into()],
            ..CircuitBreakerConfig::default()
        };
        if self.fixes >= 2 {
            config.slow_call_duration_threshold = self.slow_call_duration_threshold;
            config.slow_call_rate_threshold = self.slow_call_rate_threshold;
        }
        config
    }

    /// The retry: every exception, the stack's own refusals included, unless
    /// `retryBulkheadFull` is off.
    pub fn retry_config(&self) -> RetryConfig {
        RetryConfig {
            max_attempts: self.max_attempts,
            wait_duration: self.retry_wait_ms,
            interval_function: Some(IntervalFunction::Randomized {
                interval: self.retry_wait_ms,
                randomization_factor: self.randomization_factor,
            }),
            ignore_exceptions: if self.retry_bulkhead_full {
                Vec::new()
            } else {
                vec!["BulkheadFullException".into()]
            },
            retry_on_local_refusals: true,
            ..RetryConfig::default()
        }
    }

    pub fn bulkhead_config(&self) -> ThreadPoolBulkheadConfig {
        ThreadPoolBulkheadConfig {
            core_thread_pool_size: self.bulkhead_threads,
            max_thread_pool_size: self.bulkhead_threads,
            queue_capacity: self.queue_capacity,
            ..ThreadPoolBulkheadConfig::default()
        }
    }

    /// Fix 1's time limiter.
    pub fn time_limiter(&self) -> Option<TimeLimiterConfig> {
        (self.fixes >= 1).then_some(TimeLimiterConfig {
            timeout_duration: self.timeout_ms,
            cancel_running_future: true,
        })
    }

    /// Fix 3's retry budget.
    pub fn budget_config(&self) -> Option<RetryBudgetConfig> {
        (self.fixes >= 3).then(|| RetryBudgetConfig::percent_of_traffic(self.retry_budget_percent))
    }

    /// Whether fix 4's out-of-band cache is on.
    pub fn out_of_band_cache(&self) -> bool {
        self.fixes >= 4
    }

    /// The end of arrivals on the model clock.
    pub fn end_ms(&self) -> Millis {
        INCIDENT_MS + Millis::from(self.seconds) * 1_000
    }
}

/// How each submission ended for its user, counted by the second it arrived.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Users {
    /// A live price, in time.
    pub live: u32,
    /// A cached price from the fallback, in time.
    pub cached: u32,
    /// An error page, in time (no fresh price in the cache, or no room in `order`).
    pub error: u32,
    /// Nothing before the user gave up.
    pub gave_up: u32,
}

impl Users {
    pub fn total(&self) -> u32 {
        self.live + self.cached + self.error + self.gave_up
    }

    /// Users who got a price, live or cached.
    pub fn answered(&self) -> u32 {
        self.live + self.cached
    }

    fn add(&mut self, other: &Users) {
        self.live += other.live;
        self.cached += other.cached;
        self.error += other.error;
        self.gave_up += other.gave_up;
    }
}

/// One second of the incident, `t_s` being its end relative to 09:00 (`t_s` = 1 is
/// [09:00:00, 09:00:01); -9 is the first second shown, from 08:59:50). Counts are that
/// second's events; `queued`, `order_threads`, the breaker and the other levels are
/// snapshots at the second's end; `users` and `history_*` count the requests that arrived
/// in the second, by how they ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BrownoutSecond {
    pub t_s: i32,
    /// Order submissions that arrived.
    pub submissions: u32,
    /// Pricing calls started on a bulkhead thread (sent to pricing).
    pub admitted: u32,
    /// Calls in the bulkhead's queue at the second's end.
    pub queued: u32,
    /// `BulkheadFullException`s.
    pub rejected: u32,
    /// Retry attempts (second and later attempts).
    pub retries: u32,
    /// Every attempt offered to the stack: first attempts plus retries.
    pub attempts: u32,
    /// `CallNotPermittedException`s.
    pub not_permitted: u32,
    /// Time-limiter timeouts.
    pub timeouts: u32,
    /// Retries the retry budget refused.
    pub budget_refused: u32,
    /// The breaker's state at the second's end.
    pub breaker: State,
    /// Its failure rate in percent, `None` below `minimumNumberOfCalls`.
    pub failure_rate: Option<f32>,
    /// Its slow-call rate in percent, `None` below `minimumNumberOfCalls`.
    pub slow_call_rate: Option<f32>,
    /// Answers from the fallback path.
    pub fallbacks: u32,
    /// Fallbacks that found a fresh price.
    pub cache_hits: u32,
    /// `order` threads in use at the second's end.
    pub order_threads: u32,
    /// Of those, threads waiting on a pricing call (queued or running).
    pub order_threads_on_pricing: u32,
    /// Of those, threads sleeping between two attempts.
    pub order_threads_in_retry_wait: u32,
    /// Requests waiting for an `order` thread at the second's end.
    pub accept_queue: u32,
    /// Bulkhead threads busy (calls in flight at pricing) at the second's end.
    pub pricing_in_flight: u32,
    /// Bulkhead tasks (queued or running) whose caller stopped waiting.
    pub abandoned: u32,
    /// Little's law: submissions/s x pricing's latency at the second's end.
    pub concurrency_needed: u32,
    pub history_ok: u32,
    pub history_total: u32,
    pub users: Users,
}

/// A run: its seconds and what the page and the CLI summarise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BrownoutRun {
    pub seconds: Vec<BrownoutSecond>,
    /// When the breaker first opened, in seconds after 09:00 (negative before), if it did.
    pub breaker_first_open_s: Option<f64>,
    pub fixes: u8,
    pub bulkhead_threads: u32,
    pub queue_capacity: u32,
    pub order_threads: u32,
}

/// A run's headline figures after 09:00: the fix ladder's table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Headline {
    pub fixes: u8,
    /// Submissions after 09:00, by how their users saw them.
    pub users: Users,
    /// Attempts offered to the stack per submission.
    pub attempts_per_submission: f64,
    /// Calls sent to pricing per second.
    pub pricing_calls_per_second: f64,
    /// The most `order` threads in use at a second's end.
    pub peak_order_threads: u32,
    /// Order-history requests served in time, in percent.
    pub history_ok_percent: f64,
    pub breaker_first_open_s: Option<f64>,
}

impl BrownoutRun {
    /// The rows from 09:00 on.
    pub fn after_incident(&self) -> impl Iterator<Item = &BrownoutSecond> {
        self.seconds.iter().filter(|s| s.t_s > 0)
    }

    pub fn headline(&self) -> Headline {
        let mut users = Users::default();
        let (mut attempts, mut first, mut admitted, mut history_ok, mut history) =
            (0u64, 0u64, 0u64, 0u64, 0u64);
        let mut peak = 0;
        let mut n = 0u32;
        for s in self.after_incident() {
            users.add(&s.users);
            attempts += u64::from(s.attempts);
            first += u64::from(s.attempts - s.retries);
            admitted += u64::from(s.admitted);
            history_ok += u64::from(s.history_ok);
            history += u64::from(s.history_total);
            peak = peak.max(s.order_threads);
            n += 1;
        }
        Headline {
            fixes: self.fixes,
            users,
            attempts_per_submission: ratio(attempts, first),
            pricing_calls_per_second: ratio(admitted, n.into()),
            peak_order_threads: peak,
            history_ok_percent: 100.0 * ratio(history_ok, history),
            breaker_first_open_s: self.breaker_first_open_s,
        }
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// The four mechanisms of the stack as configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mechanism {
    Bulkhead,
    Breaker,
    Retry,
    Cache,
}

impl Mechanism {
    pub const ALL: [Mechanism; 4] = [
        Mechanism::Bulkhead,
        Mechanism::Breaker,
        Mechanism::Retry,
        Mechanism::Cache,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Mechanism::Bulkhead => "bulkhead",
            Mechanism::Breaker => "breaker",
            Mechanism::Retry => "retry",
            Mechanism::Cache => "cache",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// What each mechanism did after 09:00, measured on a run, and which one made the outage
/// worse: the answer to the lab's prediction question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MechanismEffects {
    /// Bulkhead: calls sent to pricing per second, against the demand's concurrency
    /// (Little's law) and the bulkhead's threads.
    pub pricing_calls_per_second: f64,
    pub concurrency_needed: u32,
    /// The most `order` threads waiting on the bulkhead (queued or running) at a second's
    /// end, and whether `order` ran out of threads (requests waited for one).
    pub peak_threads_on_pricing: u32,
    pub order_ran_out: bool,
    /// Breaker: when it first opened, and the highest failure rate it measured.
    pub breaker_first_open_s: Option<f64>,
    pub max_failure_rate: Option<f32>,
    /// Retry: attempts per submission, and the most threads asleep between attempts.
    pub attempts_per_submission: f64,
    pub peak_threads_in_retry_wait: u32,
    /// Cache: hit rate among fallbacks in the first and the last 10 s after 09:00.
    pub hit_rate_first: Option<f64>,
    pub hit_rate_last: Option<f64>,
    /// The mechanism that made things worse than the slow dependency alone: the bulkhead
    /// when its queue held `order`'s threads until they ran out, else the retry when it
    /// multiplied the attempts (1.5 or more per submission); `None` when neither did.
    pub worse: Option<Mechanism>,
}

/// Reads a run for [`MechanismEffects`].
pub fn mechanism_effects(run: &BrownoutRun) -> MechanismEffects {
    let after: Vec<&BrownoutSecond> = run.after_incident().collect();
    let headline = run.headline();
    let hit_rate = |rows: &[&BrownoutSecond]| {
        let (hits, fallbacks) = rows.iter().fold((0u64, 0u64), |(h, f), s| {
            (h + u64::from(s.cache_hits), f + u64::from(s.fallbacks))
        });
        (fallbacks > 0).then(|| hits as f64 / fallbacks as f64)
    };
    let first = &after[..after.len().min(10)];
    let last = &after[after.len().saturating_sub(10)..];
    let peak_on_pricing = after
        .iter()
        .map(|s| s.order_threads_on_pricing)
        .max()
        .unwrap_or(0);
    let order_ran_out = after
        .iter()
        .any(|s| s.order_threads >= run.order_threads && s.accept_queue > 0);
    let peak_retry_wait = after
        .iter()
        .map(|s| s.order_threads_in_retry_wait)
        .max()
        .unwrap_or(0);
    let worse = if order_ran_out && peak_on_pricing > peak_retry_wait {
        Some(Mechanism::Bulkhead)
    } else if headline.attempts_per_submission >= 1.5 {
        Some(Mechanism::Retry)
    } else {
        None
    };
    MechanismEffects {
        pricing_calls_per_second: headline.pricing_calls_per_second,
        concurrency_needed: after.last().map_or(0, |s| s.concurrency_needed),
        peak_threads_on_pricing: peak_on_pricing,
        order_ran_out,
        breaker_first_open_s: run.breaker_first_open_s,
        max_failure_rate: after
            .iter()
            .filter_map(|s| s.failure_rate)
            .fold(None, |m: Option<f32>, r| Some(m.map_or(r, |m| m.max(r)))),
        attempts_per_submission: headline.attempts_per_submission,
        peak_threads_in_retry_wait: peak_retry_wait,
        hit_rate_first: hit_rate(first),
        hit_rate_last: hit_rate(last),
        worse,
    }
}

/// The fix ladder: the headline of each step (0 to 4) with every other control as set.
pub fn ladder(config: &BrownoutConfig) -> Result<Vec<Headline>, ConfigError> {
    (0..=4u8)
        .map(|fixes| {
            run(&BrownoutConfig {
                fixes,
                ..config.clone()
            })
            .map(|r| r.headline())
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// The simulation
// ---------------------------------------------------------------------------------------

/// Event classes at the same millisecond, in the order they are handled: an answer that
/// comes exactly at the time limit is in time (the time limiter's boundary rule).
const TASK_DONE: u8 = 0;
const TIMEOUT: u8 = 1;
const WORK_DONE: u8 = 2;
const RETRY: u8 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Live,
    Cached,
    Error,
}

#[derive(Debug, Clone)]
struct Request {
    arrival: Millis,
    history: bool,
    product: u32,
    /// Set once it answered: how and when.
    answer: Option<(Answer, Millis)>,
    /// The current attempt's start, for the breaker's duration.
    attempt_started: Millis,
    /// Its retry context in [`Sim::contexts`], while it calls pricing.
    retry: u32,
}

/// No retry context (an order-history request, or a submission not calling pricing).
const NO_CONTEXT: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Task {
    request: u32,
    /// The caller stopped waiting (time limiter).
    abandoned: bool,
    done: bool,
}

/// Counters of the second being simulated.
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    admitted: u32,
    rejected: u32,
    retries: u32,
    attempts: u32,
    not_permitted: u32,
    timeouts: u32,
    budget_refused: u32,
    fallbacks: u32,
    cache_hits: u32,
}

/// Jittered-uniform arrivals of one stream: one request at a uniform instant of each of
/// `rps` equal slots of every second.
struct Arrivals {
    rps: u64,
    next_slot: u64,
    end_ms: Millis,
    rng: Pcg64Mcg,
    peeked: Option<Millis>,
}

impl Arrivals {
    fn new(rps: u32, end_ms: Millis, rng: Pcg64Mcg) -> Self {
        let mut a = Self {
            rps: rps.into(),
            next_slot: 0,
            end_ms,
            rng,
            peeked: None,
        };
        a.peeked = a.generate();
        a
    }

    fn generate(&mut self) -> Option<Millis> {
        if self.rps == 0 {
            return None;
        }
        let offset = self.rng.random_range(0..1_000_000_u64);
        let at = (self.next_slot * 1_000_000 + offset) / self.rps / 1_000;
        self.next_slot += 1;
        (at < self.end_ms).then_some(at)
    }

    fn take(&mut self) -> Option<Millis> {
        let next = self.peeked;
        if next.is_some() {
            self.peeked = self.generate();
        }
        next
    }
}

/// The wheel's length: a power of two longer than any delay the config can schedule.
fn wheel_len(config: &BrownoutConfig) -> usize {
    let jittered_max = |ms: Millis| ms + ms * JITTER_PERCENT / 100;
    let longest = [
        jittered_max(config.local_work_ms),
        jittered_max(config.pricing_ms),
        jittered_max(config.pricing_slow_ms),
        config.timeout_ms,
        // Resilience4j's randomized wait stays below interval x (1 + factor) + 1.
        config.retry_wait_ms * 2 + 1,
    ]
    .into_iter()
    .max()
    .unwrap_or(0);
    (longest as usize + 2).next_power_of_two()
}

/// Zipf popularity over `products` ranks, drawn by inverting its cumulative table. A guide
/// table (Chen and Asau) says where to start looking for each of `products` equal slices
/// of `[0, 1)`, so a draw takes one or two steps instead of a binary search, with the same
/// result.
struct Catalogue {
    cumulative: Vec<f64>,
    guide: Vec<u32>,
}

impl Catalogue {
    fn new(products: u32, exponent: f64) -> Self {
        let mut total = 0.0;
        let mut cumulative = (1..=products)
            .map(|k| {
                total += (f64::from(k)).powf(-exponent);
                total
            })
            .collect::<Vec<_>>();
        for c in &mut cumulative {
            *c /= total;
        }
        let n = cumulative.len();
        let mut guide = Vec::with_capacity(n);
        let mut i = 0;
        for j in 0..n {
            let u = j as f64 / n as f64;
            while i + 1 < n && cumulative[i] <= u {
                i += 1;
            }
            guide.push(i as u32);
        }
        Self { cumulative, guide }
    }

    /// The first rank whose cumulative probability exceeds a uniform draw.
    fn draw(&self, rng: &mut Pcg64Mcg) -> u32 {
        let u: f64 = rng.random();
        let n = self.cumulative.len();
        let mut i = self.guide[((u * n as f64) as usize).min(n - 1)] as usize;
        while i + 1 < n && self.cumulative[i] <= u {
            i += 1;
        }
        i as u32
    }
}

struct Sim {
    config: BrownoutConfig,
    end_ms: Millis,
    requests: Vec<Request>,
    tasks: Vec<Task>,
    /// A timing wheel: the events due at `t` wait in slot `t & mask` as `class << 32 | id`
    /// (no event is ever scheduled further ahead than the wheel is long). Sorting a slot
    /// handles its events in class order, then by id: the same order as a priority queue
    /// of (time, class, id), at a constant cost per event.
    wheel: Vec<Vec<u64>>,
    mask: Millis,
    pending: usize,
    // order
    order_busy: u32,
    accept: VecDeque<u32>,
    on_pricing: u32,
    in_retry_wait: u32,
    // the stack
    bulkhead: ThreadPoolBulkhead,
    bulkhead_queue: VecDeque<u32>,
    breaker: CircuitBreaker,
    retry: Retry,
    /// Retry contexts of the submissions calling pricing, reused once they answer: memory
    /// follows the requests in flight, not the length of the run.
    contexts: Vec<RetryContext>,
    free_contexts: Vec<u32>,
    budget: Option<RetryBudget>,
    limiter: Option<TimeLimiterConfig>,
    cache: FallbackCache<u32, ()>,
    catalogue: Catalogue,
    in_flight: u32,
    abandoned: u32,
    first_open: Option<Millis>,
    // randomness
    products: Pcg64Mcg,
    latencies: Pcg64Mcg,
    waits: Pcg64Mcg,
    // reporting
    counts: Counts,
    rows: Vec<BrownoutSecond>,
}

impl Sim {
    fn new(config: &BrownoutConfig) -> Result<Self, ConfigError> {
        let mut breaker = CircuitBreaker::new(config.breaker_config())?;
        breaker.set_event_recording(false);
        let out_of_band = config.out_of_band_cache();
        let mut cache = FallbackCache::new(if out_of_band {
            OUT_OF_BAND_TTL_MS
        } else {
            config.cache_ttl_ms
        });
        if out_of_band {
            // Last night's export of the whole catalogue.
            for product in 0..config.products {
                cache.put(0, product, ());
            }
        }
        let arrivals = (u64::from(config.submissions_per_second)
            + u64::from(config.history_per_second))
            * (config.end_ms() / 1_000 + 1);
        Ok(Self {
            config: config.clone(),
            end_ms: config.end_ms(),
            requests: Vec::with_capacity(arrivals as usize),
            tasks: Vec::new(),
            wheel: vec![Vec::new(); wheel_len(config)],
            mask: wheel_len(config) as Millis - 1,
            pending: 0,
            order_busy: 0,
            accept: VecDeque::new(),
            on_pricing: 0,
            in_retry_wait: 0,
            bulkhead: ThreadPoolBulkhead::new(config.bulkhead_config())?,
            bulkhead_queue: VecDeque::new(),
            breaker,
            retry: Retry::new(config.retry_config())?,
            contexts: Vec::new(),
            free_contexts: Vec::new(),
            budget: config.budget_config().map(RetryBudget::new).transpose()?,
            limiter: config.time_limiter(),
            cache,
            catalogue: Catalogue::new(config.products, config.zipf_exponent),
            in_flight: 0,
            abandoned: 0,
            first_open: None,
            products: stream_rng(config.seed, 3),
            latencies: stream_rng(config.seed, 4),
            waits: stream_rng(config.seed, 5),
            counts: Counts::default(),
            rows: Vec::new(),
        })
    }

    fn schedule(&mut self, at: Millis, class: u8, id: u32) {
        self.pending += 1;
        self.wheel[(at & self.mask) as usize].push(u64::from(class) << 32 | u64::from(id));
    }

    /// Handles every event due at `now`, those it schedules for `now` included.
    fn handle_events(&mut self, now: Millis) {
        let slot = (now & self.mask) as usize;
        while !self.wheel[slot].is_empty() {
            let mut batch = std::mem::take(&mut self.wheel[slot]);
            batch.sort_unstable();
            self.pending -= batch.len();
            for &key in &batch {
                let id = key as u32;
                match (key >> 32) as u8 {
                    TASK_DONE => self.task_done(now, id),
                    TIMEOUT => self.timed_out(now, id),
                    WORK_DONE => self.work_done(now, id),
                    _ => {
                        self.in_retry_wait -= 1;
                        self.attempt(now, id);
                    }
                }
            }
            if self.wheel[slot].is_empty() {
                // Keep the allocation for the next turn of the wheel.
                batch.clear();
                self.wheel[slot] = batch;
            }
        }
    }

    /// Simulates up to `span` more milliseconds of model time (events, arrivals and the
    /// ends of seconds); true once the run is over.
    fn advance(&mut self, run: &mut Progress, span: Millis) -> bool {
        let until = run.now.saturating_add(span).min(run.stop);
        while run.now < until {
            while run.now >= run.boundary {
                self.close_second(run.boundary);
                run.boundary += 1_000;
            }
            let now = run.now;
            self.handle_events(now);
            // Arrivals come after every other event of their millisecond.
            while run.submissions.peeked == Some(now) {
                run.submissions.take();
                self.arrive(now, false);
            }
            while run.history.peeked == Some(now) {
                run.history.take();
                self.arrive(now, true);
            }
            run.now = if self.pending > 0 {
                now + 1
            } else {
                // Nothing scheduled: jump to the next arrival, if any.
                match (run.submissions.peeked, run.history.peeked) {
                    (Some(a), Some(b)) => a.min(b),
                    (a, b) => a.or(b).unwrap_or(run.stop),
                }
            };
        }
        run.now >= run.stop
    }

    fn into_run(mut self, mut run: Progress) -> BrownoutRun {
        while !self.advance(&mut run, Millis::MAX) {}
        while run.boundary <= self.end_ms {
            self.close_second(run.boundary);
            run.boundary += 1_000;
        }
        self.tally_users();
        let config = &self.config;
        BrownoutRun {
            breaker_first_open_s: self
                .first_open
                .map(|at| (at as f64 - INCIDENT_MS as f64) / 1_000.0),
            fixes: config.fixes,
            bulkhead_threads: config.bulkhead_threads,
            queue_capacity: config.queue_capacity,
            order_threads: config.order_threads,
            seconds: self.rows,
        }
    }

    /// Ends the second `[boundary - 1000, boundary)`: a row if it is shown.
    fn close_second(&mut self, boundary: Millis) {
        let counts = std::mem::take(&mut self.counts);
        if boundary <= WARMUP_MS {
            return;
        }
        self.breaker.advance_to(boundary);
        self.purge_accept(boundary);
        let metrics = self.breaker.metrics();
        let rate = |r: f32| (r >= 0.0).then_some(r);
        let latency = if boundary > INCIDENT_MS {
            self.config.pricing_slow_ms
        } else {
            self.config.pricing_ms
        };
        self.rows.push(BrownoutSecond {
            t_s: ((boundary as i64 - INCIDENT_MS as i64) / 1_000) as i32,
            submissions: 0,
            admitted: counts.admitted,
            queued: self.bulkhead.queue_depth(),
            rejected: counts.rejected,
            retries: counts.retries,
            attempts: counts.attempts,
            not_permitted: counts.not_permitted,
            timeouts: counts.timeouts,
            budget_refused: counts.budget_refused,
            breaker: self.breaker.state(),
            failure_rate: rate(metrics.failure_rate),
            slow_call_rate: rate(metrics.slow_call_rate),
            fallbacks: counts.fallbacks,
            cache_hits: counts.cache_hits,
            order_threads: self.order_busy,
            order_threads_on_pricing: self.on_pricing,
            order_threads_in_retry_wait: self.in_retry_wait,
            accept_queue: self.accept.len() as u32,
            pricing_in_flight: self.in_flight,
            abandoned: self.abandoned,
            concurrency_needed: (u64::from(self.config.submissions_per_second) * latency / 1_000)
                as u32,
            history_ok: 0,
            history_total: 0,
            users: Users::default(),
        });
    }

    /// Drops from the front of the accept queue the requests whose users have left (they
    /// all wait the same timeout, so those are a prefix).
    fn purge_accept(&mut self, now: Millis) {
        let timeout = self.config.user_timeout_ms;
        while let Some(&front) = self.accept.front() {
            if self.requests[front as usize].arrival + timeout <= now {
                self.accept.pop_front();
            } else {
                break;
            }
        }
    }

    fn arrive(&mut self, now: Millis, history: bool) {
        let product = if history {
            0
        } else {
            self.catalogue.draw(&mut self.products)
        };
        let id = self.requests.len() as u32;
        self.requests.push(Request {
            arrival: now,
            history,
            product,
            answer: None,
            attempt_started: now,
            retry: NO_CONTEXT,
        });
        if self.order_busy < self.config.order_threads {
            self.start(now, id);
            return;
        }
        self.purge_accept(now);
        if (self.accept.len() as u32) < self.config.accept_count {
            self.accept.push_back(id);
        } else {
            // Connection refused: the user sees an error page at once.
            self.requests[id as usize].answer = Some((Answer::Error, now));
        }
    }

    /// A request gets an `order` thread and starts its local work.
    fn start(&mut self, now: Millis, id: u32) {
        self.order_busy += 1;
        let work = vary(
            self.config.local_work_ms,
            JITTER_PERCENT,
            &mut self.latencies,
        );
        self.schedule(now + work, WORK_DONE, id);
    }

    /// The request answered: its thread takes the next waiting request.
    fn finish(&mut self, now: Millis, id: u32, answer: Answer) {
        let request = &mut self.requests[id as usize];
        request.answer = Some((answer, now));
        if request.retry != NO_CONTEXT {
            self.free_contexts.push(request.retry);
            request.retry = NO_CONTEXT;
        }
        self.order_busy -= 1;
        self.purge_accept(now);
        if let Some(next) = self.accept.pop_front() {
            self.start(now, next);
        }
    }

    fn work_done(&mut self, now: Millis, id: u32) {
        let request = &mut self.requests[id as usize];
        if request.history {
            self.finish(now, id, Answer::Live);
            return;
        }
        let context = self.retry.start();
        request.retry = match self.free_contexts.pop() {
            Some(slot) => {
                self.contexts[slot as usize] = context;
                slot
            }
            None => {
                self.contexts.push(context);
                self.contexts.len() as u32 - 1
            }
        };
        if let Some(budget) = &mut self.budget {
            budget.deposit(now);
        }
        self.attempt(now, id);
    }

    /// One attempt through `CircuitBreaker(TimeLimiter(Bulkhead(call)))`.
    fn attempt(&mut self, now: Millis, id: u32) {
        self.counts.attempts += 1;
        let request = &mut self.requests[id as usize];
        if request.retry != NO_CONTEXT && self.contexts[request.retry as usize].attempts() > 0 {
            self.counts.retries += 1;
        }
        request.attempt_started = now;
        if !self.breaker.try_acquire_permission(now) {
            self.counts.not_permitted += 1;
            self.failed(now, id, Outcome::CallNotPermitted);
            return;
        }
        let admission = self.bulkhead.submit(now);
        if admission == ThreadPoolAdmission::Rejected {
            self.counts.rejected += 1;
            self.breaker.on_error(now, 0, "BulkheadFullException");
            self.note_breaker(now);
            self.failed(now, id, Outcome::BulkheadFull);
            return;
        }
        let task = self.tasks.len() as u32;
        self.tasks.push(Task {
            request: id,
            abandoned: false,
            done: false,
        });
        self.on_pricing += 1;
        if admission == ThreadPoolAdmission::Running {
            self.send(now, task);
        } else {
            self.bulkhead_queue.push_back(task);
        }
        if let Some(deadline) = self.limiter.as_ref().map(|l| l.deadline(now)) {
            self.schedule(deadline, TIMEOUT, task);
        }
    }

    /// A bulkhead thread sends the task's call to pricing.
    fn send(&mut self, now: Millis, task: u32) {
        self.counts.admitted += 1;
        self.in_flight += 1;
        let nominal = if now >= INCIDENT_MS {
            self.config.pricing_slow_ms
        } else {
            self.config.pricing_ms
        };
        let latency = vary(nominal, JITTER_PERCENT, &mut self.latencies);
        self.schedule(now + latency, TASK_DONE, task);
    }

    fn task_done(&mut self, now: Millis, task: u32) {
        self.in_flight -= 1;
        if self.bulkhead.complete(now) {
            if let Some(next) = self.bulkhead_queue.pop_front() {
                self.send(now, next);
            }
        }
        let t = &mut self.tasks[task as usize];
        t.done = true;
        if t.abandoned {
            // Nobody waits for this answer: it is thrown away.
            self.abandoned -= 1;
            return;
        }
        let id = t.request;
        self.on_pricing -= 1;
        let request = &mut self.requests[id as usize];
        let duration = now - request.attempt_started;
        let product = request.product;
        if let Some(ctx) = self.contexts.get_mut(request.retry as usize) {
            self.retry
                .on_outcome(ctx, Outcome::Success, &mut self.waits);
        }
        self.breaker.on_success(now, duration);
        self.note_breaker(now);
        self.cache.put(now, product, ());
        self.finish(now, id, Answer::Live);
    }

    fn timed_out(&mut self, now: Millis, task: u32) {
        let t = &mut self.tasks[task as usize];
        if t.done {
            return;
        }
        t.abandoned = true;
        let id = t.request;
        self.abandoned += 1;
        self.on_pricing -= 1;
        self.counts.timeouts += 1;
        let duration = now - self.requests[id as usize].attempt_started;
        self.breaker.on_error(now, duration, TIMEOUT_EXCEPTION);
        self.note_breaker(now);
        self.failed(now, id, Outcome::ReadTimeout);
    }

    fn note_breaker(&mut self, now: Millis) {
        if self.first_open.is_none() && self.breaker.state() == State::Open && now >= WARMUP_MS {
            self.first_open = Some(now);
        }
    }

    /// An attempt failed: retry after a wait, or fall back.
    fn failed(&mut self, now: Millis, id: u32, outcome: Outcome) {
        let slot = self.requests[id as usize].retry as usize;
        let Some(ctx) = self.contexts.get_mut(slot) else {
            return;
        };
        match self.retry.on_outcome(ctx, outcome, &mut self.waits) {
            RetryDecision::RetryAfter { wait, .. } => {
                let allowed = self.budget.as_mut().is_none_or(|b| b.try_withdraw(now));
                if allowed {
                    self.in_retry_wait += 1;
                    self.schedule(now + wait, RETRY, id);
                } else {
                    self.counts.budget_refused += 1;
                    self.retry.give_up(ctx);
                    self.fall_back(now, id);
                }
            }
            _ => self.fall_back(now, id),
        }
    }

    fn fall_back(&mut self, now: Millis, id: u32) {
        self.counts.fallbacks += 1;
        let product = self.requests[id as usize].product;
        let answer = if self.cache.get(now, &product).is_some() {
            self.counts.cache_hits += 1;
            Answer::Cached
        } else {
            Answer::Error
        };
        self.finish(now, id, answer);
    }

    /// Every request shown, by its arrival second and how its user saw it.
    fn tally_users(&mut self) {
        let first = WARMUP_MS;
        let timeout = self.config.user_timeout_ms;
        for request in &self.requests {
            if request.arrival < first {
                continue;
            }
            let index = ((request.arrival - first) / 1_000) as usize;
            let Some(row) = self.rows.get_mut(index) else {
                continue;
            };
            let in_time = request
                .answer
                .filter(|(_, at)| *at < request.arrival + timeout)
                .map(|(answer, _)| answer);
            if request.history {
                row.history_total += 1;
                if in_time == Some(Answer::Live) {
                    row.history_ok += 1;
                }
                continue;
            }
            row.submissions += 1;
            match in_time {
                Some(Answer::Live) => row.users.live += 1,
                Some(Answer::Cached) => row.users.cached += 1,
                Some(Answer::Error) => row.users.error += 1,
                None => row.users.gave_up += 1,
            }
        }
    }
}

/// Where a run is: the model clock, the next second to close, the arrivals to come.
struct Progress {
    now: Millis,
    stop: Millis,
    boundary: Millis,
    submissions: Arrivals,
    history: Arrivals,
}

/// A run of Lab C made in slices, for a page that must not hold the browser for a whole
/// run while a slider moves: each [`advance`](Self::advance) simulates a span of model
/// time, and [`finish`](Self::finish) gives the run, the same as [`run`]'s.
pub struct BrownoutSim {
    sim: Sim,
    progress: Progress,
}

impl BrownoutSim {
    /// Validates `config` and sets up its run at 08:59:20.
    pub fn new(config: &BrownoutConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let sim = Sim::new(config)?;
        let progress = Progress {
            now: 0,
            stop: sim.end_ms + config.user_timeout_ms,
            boundary: 1_000,
            submissions: Arrivals::new(
                config.submissions_per_second,
                sim.end_ms,
                stream_rng(config.seed, 1),
            ),
            history: Arrivals::new(
                config.history_per_second,
                sim.end_ms,
                stream_rng(config.seed, 2),
            ),
        };
        Ok(Self { sim, progress })
    }

    /// The config being run.
    pub fn config(&self) -> &BrownoutConfig {
        &self.sim.config
    }

    /// Simulates up to `span` more milliseconds of model time; true once it is all done.
    pub fn advance(&mut self, span: Millis) -> bool {
        self.sim.advance(&mut self.progress, span)
    }

    /// The run (simulating what is left, if anything).
    pub fn finish(self) -> BrownoutRun {
        self.sim.into_run(self.progress)
    }
}

/// Runs Lab C (validates first; never panics on a valid config).
pub fn run(config: &BrownoutConfig) -> Result<BrownoutRun, ConfigError> {
    Ok(BrownoutSim::new(config)?.finish())
}

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
