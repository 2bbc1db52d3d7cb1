//! The brownout: the controls of Lab C and their limits.

use super::*;
use crate::number::number_text;

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
    /// How long pricing stays slow, in seconds after 09:00 (default 60: it answers in
    /// `pricingMs` again from 09:01:00).
    pub fault_seconds: u32,
    /// The thread-pool bulkhead's threads (core = max; default 20).
    pub bulkhead_threads: u32,
    /// The thread-pool bulkhead's `queueCapacity` (default 20: a short queue refuses at
    /// once, so the retries fire; 200 is the other regime, where the queue holds `order`'s
    /// threads until they run out).
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
    /// Fix 1: the pricing call's timeout (default 300 ms).
    pub timeout_ms: Millis,
    /// Fix 1's kind: the HTTP client's read timeout inside the call (default; it frees the
    /// bulkhead thread when it fires) or a Resilience4j `TimeLimiter` around the bulkhead
    /// (it frees the caller only; the call keeps its bulkhead thread until pricing answers).
    pub timeout_kind: TimeoutKind,
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
            fault_seconds: 60,
            bulkhead_threads: 20,
            queue_capacity: 20,
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
            timeout_kind: TimeoutKind::ReadTimeout,
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
                "must be between {min} and {max} (got {})",
                number_text(value)
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
            "faultSeconds",
            self.fault_seconds.into(),
            1,
            MAX_SECONDS.into(),
        )?;
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
        // `IntervalFunction.ofRandomized` refuses an interval under 1 ms.
        check_range("retryWaitMs", self.retry_wait_ms, 1, MAX_MS)?;
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

    /// Fix 1's timeout, of its kind.
    pub fn fix_timeout(&self) -> Option<Timeout> {
        (self.fixes >= 1).then_some(Timeout {
            duration: self.timeout_ms,
            kind: self.timeout_kind,
        })
    }

    /// The end of pricing's fault on the model clock.
    pub fn fault_end_ms(&self) -> Millis {
        INCIDENT_MS + Millis::from(self.fault_seconds) * 1_000
    }

    /// Pricing's latency (before jitter) for a call it receives at `at`.
    pub fn pricing_latency_at(&self, at: Millis) -> Millis {
        if (INCIDENT_MS..self.fault_end_ms()).contains(&at) {
            self.pricing_slow_ms
        } else {
            self.pricing_ms
        }
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
