//! gRPC retries with retry throttling (gRFC A6, the service config's `retryPolicy` and
//! `retryThrottling`).
//!
//! gRPC retries per call like Resilience4j (`maxAttempts`, an exponential backoff with
//! jitter), and adds one shared brake per client channel and server: a token count.
//! It starts at `maxTokens`; **every** failed RPC attempt, first call or retry, takes one
//! token, and every successful one gives back `tokenRatio`; the count stays within
//! `[0, maxTokens]`. Retries are allowed only while `token_count > maxTokens / 2`: below
//! that, failures go straight back to the caller.
//!
//! Why it works: with the defaults of the gRFC's example (10, 0.1) the count grows while
//! `0.1 x (1 - f) > f`, that is while fewer than about 9 % of attempts fail (1/11). Above
//! that it drains by itself, whatever the retries do, and sits at the bottom: retries stop
//! once failures exceed about 9 %, and the load is one attempt per request. Half the
//! bucket is kept as a margin, so a few failures do not switch retries off at once.
//!
//! The rules as implemented, after grpc-java's `RetryThrottling` and the gRFC:
//!
//! - tokens are counted in thousandths (`tokenRatio` has at most three decimals; the gRFC
//!   says more are rounded), and `maxTokens` is at most 1,000;
//! - `maxAttempts` must be at least 2 and gRPC treats anything above 5 as 5: here a value
//!   above 5 is refused rather than silently cut;
//! - the wait before retry `n` (1 for the first) is
//!   `min(initialBackoff x backoffMultiplier^(n-1), maxBackoff) x random(0.8, 1.2)`: the
//!   gRFC's jitter of plus or minus 20 % since its revision of August 2024, as grpc-java's
//!   `RetriableStream.intervalWithJitter` and grpc-go draw it (before, the wait was uniform
//!   in `[0, min(..)]`), so a wait may be a little under `initialBackoff` or over
//!   `maxBackoff`;
//! - the gRFC has no defaults for the retry policy (the service config must set it):
//!   `maxAttempts` 4 is this course's choice, the same 3 retries as the Resilience4j line,
//!   and the backoff (0.1 s, x2, at most 1 s) is the gRFC's example. A server's pushback
//!   and hedging are not modelled.

use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use crate::error::check_number;
use crate::{ConfigError, Millis};

const MILLI: f64 = 1000.0;

/// A service config's `retryPolicy` and `retryThrottling`, with the course's defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct GrpcRetryConfig {
    /// Attempts in all, the first included (2 to 5; default 4).
    pub max_attempts: u32,
    /// The first backoff's upper bound (1 ms to 60 s; default 100 ms).
    #[serde(with = "crate::duration::serde_millis")]
    pub initial_backoff: Millis,
    /// The largest backoff (1 ms to 10 min; default 1 s).
    #[serde(with = "crate::duration::serde_millis")]
    pub max_backoff: Millis,
    /// Growth of the backoff per retry (1 to 10; default 2).
    pub backoff_multiplier: f64,
    /// The token count's ceiling and start (0.001 to 1,000; default 10).
    pub max_tokens: f64,
    /// What a successful attempt gives back (0.001 to 1,000; default 0.1).
    pub token_ratio: f64,
}

impl Default for GrpcRetryConfig {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            initial_backoff: 100,
            max_backoff: 1_000,
            backoff_multiplier: 2.0,
            max_tokens: 10.0,
            token_ratio: 0.1,
        }
    }
}

impl GrpcRetryConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(2..=5).contains(&self.max_attempts) {
            return Err(ConfigError::new(
                "maxAttempts",
                format!(
                    "must be between 2 and 5 (gRPC treats more as 5; got {})",
                    self.max_attempts
                ),
            ));
        }
        if !(1..=60_000).contains(&self.initial_backoff) {
            return Err(ConfigError::new(
                "initialBackoff",
                "must be between 1ms and 60s",
            ));
        }
        if !(1..=600_000).contains(&self.max_backoff) {
            return Err(ConfigError::new(
                "maxBackoff",
                "must be between 1ms and 10m",
            ));
        }
        check_number("backoffMultiplier", self.backoff_multiplier, 1.0, 10.0)?;
        check_number("maxTokens", self.max_tokens, 0.001, 1_000.0)?;
        check_number("tokenRatio", self.token_ratio, 0.001, 1_000.0)?;
        Ok(())
    }
}

/// One client's retry throttling (the token count) and its retry policy.
#[derive(Debug, Clone)]
pub struct GrpcRetry {
    config: GrpcRetryConfig,
    max: u64,
    threshold: u64,
    ratio: u64,
    count: u64,
    refusals: u64,
}

impl GrpcRetry {
    pub fn new(config: GrpcRetryConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let max = ((config.max_tokens * MILLI).round() as u64).max(1);
        Ok(Self {
            max,
            threshold: max / 2,
            ratio: ((config.token_ratio * MILLI).round() as u64).max(1),
            count: max,
            refusals: 0,
            config,
        })
    }

    pub fn config(&self) -> &GrpcRetryConfig {
        &self.config
    }

    /// An attempt succeeded: `tokenRatio` back, up to `maxTokens`.
    pub fn on_success(&mut self) {
        self.count = (self.count + self.ratio).min(self.max);
    }

    /// An attempt failed: one token less, never below 0.
    pub fn on_failure(&mut self) {
        self.count = self.count.saturating_sub(MILLI as u64);
    }

    /// After attempt `attempts` failed (and was reported): the wait before the next one,
    /// or `None` when the attempts ran out or the throttle is at or below half.
    pub fn retry_after<R: Rng + ?Sized>(&mut self, attempts: u32, rng: &mut R) -> Option<Millis> {
        if attempts >= self.config.max_attempts {
            return None;
        }
        if self.count <= self.threshold {
            self.refusals += 1;
            return None;
        }
        let exponent = attempts.saturating_sub(1).min(64) as i32;
        let backoff = (self.config.initial_backoff as f64
            * self.config.backoff_multiplier.powi(exponent))
        .min(self.config.max_backoff as f64);
        let jitter: f64 = rng.random_range(0.8..1.2);
        Some((backoff * jitter) as Millis)
    }

    /// The token count.
    pub fn tokens(&self) -> f64 {
        self.count as f64 / MILLI
    }

    /// Retries the throttle refused so far.
    pub fn refusals(&self) -> u64 {
        self.refusals
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    #[test]
    fn retries_stop_at_half_the_tokens() {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let mut g = GrpcRetry::new(GrpcRetryConfig::default()).unwrap();
        for _ in 0..4 {
            g.on_failure();
        }
        assert_eq!(g.tokens(), 6.0);
        assert!(g.retry_after(1, &mut rng).is_some());
        g.on_failure();
        assert_eq!(g.tokens(), 5.0);
        assert!(
            g.retry_after(1, &mut rng).is_none(),
            "5 is not above 10 / 2"
        );
        for _ in 0..10 {
            g.on_success();
        }
        assert_eq!(g.tokens(), 6.0);
        assert!(g.retry_after(1, &mut rng).is_some());
        assert!(g.retry_after(4, &mut rng).is_none(), "maxAttempts 4");
        for _ in 0..100 {
            g.on_failure();
        }
        assert_eq!(g.tokens(), 0.0, "never below zero");
    }

    #[test]
    fn backoff_is_capped_then_jittered_by_a_fifth() {
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let mut g = GrpcRetry::new(GrpcRetryConfig {
            max_attempts: 5,
            ..GrpcRetryConfig::default()
        })
        .unwrap();
        // 100 ms, 200, 400, 800, each times random(0.8, 1.2); the cap (1 s) comes first.
        for (attempt, backoff) in [(1, 100), (2, 200), (3, 400), (4, 800)] {
            let waits: Vec<Millis> = (0..200)
                .map(|_| g.retry_after(attempt, &mut rng).unwrap())
                .collect();
            assert!(
                waits
                    .iter()
                    .all(|w| *w >= backoff * 8 / 10 && *w <= backoff * 12 / 10),
                "{attempt}"
            );
            assert!(waits.iter().any(|w| *w < backoff * 9 / 10), "{attempt}");
            assert!(waits.iter().any(|w| *w > backoff * 11 / 10), "{attempt}");
        }
        let mut capped = GrpcRetry::new(GrpcRetryConfig {
            max_attempts: 5,
            max_backoff: 300,
            ..GrpcRetryConfig::default()
        })
        .unwrap();
        let waits: Vec<Millis> = (0..200)
            .map(|_| capped.retry_after(4, &mut rng).unwrap())
            .collect();
        assert!(waits.iter().all(|w| (240..=360).contains(w)));
        assert!(
            waits.iter().any(|w| *w > 330),
            "over maxBackoff, as the gRFC says"
        );
    }

    #[test]
    fn settings_out_of_range_are_refused() {
        for config in [
            GrpcRetryConfig {
                max_attempts: 6,
                ..GrpcRetryConfig::default()
            },
            GrpcRetryConfig {
                token_ratio: 0.0,
                ..GrpcRetryConfig::default()
            },
            GrpcRetryConfig {
                max_tokens: 1_001.0,
                ..GrpcRetryConfig::default()
            },
        ] {
            assert!(GrpcRetry::new(config).is_err());
        }
    }
}
