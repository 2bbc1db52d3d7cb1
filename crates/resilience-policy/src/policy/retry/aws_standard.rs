//! The AWS SDKs' `standard` retry mode: few attempts, full-jitter backoff, a retry quota.
//!
//! Every current AWS SDK (botocore's `standard` mode, the Java SDK v2, the Go SDK v2) ships
//! the same rules, written down in the SDKs' shared *Retry behavior* reference:
//!
//! - **at most 3 attempts** (`max_attempts`, the first included);
//! - **backoff** before retry `i` (`i` = 1 after the first attempt failed):
//!   `min(b x 2^(i-1) s, 20 s)` with `b` uniform in [0, 1]. The spec writes `b x 2^i`
//!   without saying where `i` starts; botocore's `ExponentialBackoff` uses
//!   `attempt_number - 1`, so the first wait is at most 1 s, and this module follows the
//!   library;
//! - **a retry quota** per client, a token bucket that starts full at 500. A retry
//!   takes 5 tokens (10 when the failed attempt timed out: a timeout suggests an
//!   overloaded server, so it costs more); a retry that finds too few tokens is not made
//!   and the caller gets the error. A request that succeeds on its first attempt puts 1
//!   token back; one that succeeds after retries gives back what its last retry took. The
//!   quota never exceeds its start.
//!
//! Why it works: a healthy client gains about one token per request, so bursts of
//! failures are retried freely. With independent failures at rate `f` the quota drifts by
//! `(1 - f) - 5 f^2 (1 + f)` tokens per request (a first success earns 1, a success after
//! one retry is free, a request that needs two retries or fails three times pays 5 or 10),
//! negative above about 32 %: from there the 500 tokens run out within seconds at 1,000
//! requests/s, and the retries left are those the first-attempt successes pay for,
//! `(1 - f) / (5 f)` per request, which is 0 at 100 % failures. Unlike gRPC's throttle the
//! quota does not keep a reserve: it retries down to its last 5 tokens.
//!
//! Not modelled: throttling errors' own longer backoff, the `adaptive` mode's client-side
//! rate limiter, and `Retry-After` headers.

use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use crate::error::check_range;
use crate::{ConfigError, Millis};

/// The SDKs' constants, as settings with their defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct AwsStandardConfig {
    /// Attempts in all, the first included (1 to 10; default 3).
    pub max_attempts: u32,
    /// The longest backoff (1 ms to 10 min; default 20 s).
    #[serde(with = "crate::duration::serde_millis")]
    pub max_backoff: Millis,
    /// The quota's size and start (0 to 1,000,000 tokens; default 500).
    pub initial_retry_tokens: u32,
    /// What a retry takes (1 to 10,000; default 5).
    pub retry_cost: u32,
    /// What a retry after a timeout takes (1 to 10,000; default 10).
    pub timeout_retry_cost: u32,
    /// What a request that succeeded without a retry puts back (0 to 10,000; default 1).
    pub no_retry_increment: u32,
}

impl Default for AwsStandardConfig {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            max_backoff: 20_000,
            initial_retry_tokens: 500,
            retry_cost: 5,
            timeout_retry_cost: 10,
            no_retry_increment: 1,
        }
    }
}

impl AwsStandardConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range("maxAttempts", self.max_attempts.into(), 1, 10)?;
        check_range("maxBackoff", self.max_backoff, 1, 600_000)?;
        check_range(
            "initialRetryTokens",
            self.initial_retry_tokens.into(),
            0,
            1_000_000,
        )?;
        check_range("retryCost", self.retry_cost.into(), 1, 10_000)?;
        check_range(
            "timeoutRetryCost",
            self.timeout_retry_cost.into(),
            1,
            10_000,
        )?;
        check_range(
            "noRetryIncrement",
            self.no_retry_increment.into(),
            0,
            10_000,
        )
    }
}

/// What one request holds of the quota: the cost of its last retry, if it made one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AwsRequest {
    acquired: Option<u32>,
}

/// One client's retry quota and retry rules.
#[derive(Debug, Clone)]
pub struct AwsStandardRetry {
    config: AwsStandardConfig,
    available: u32,
    refusals: u64,
}

impl AwsStandardRetry {
    pub fn new(config: AwsStandardConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self {
            available: config.initial_retry_tokens,
            refusals: 0,
            config,
        })
    }

    pub fn config(&self) -> &AwsStandardConfig {
        &self.config
    }

    /// Attempt `attempts` of `request` failed (`timed_out`: by a timeout): the wait before
    /// the next attempt, its quota taken, or `None` (attempts spent, or quota short).
    pub fn retry_after<R: Rng + ?Sized>(
        &mut self,
        request: &mut AwsRequest,
        attempts: u32,
        timed_out: bool,
        rng: &mut R,
    ) -> Option<Millis> {
        if attempts >= self.config.max_attempts {
            return None;
        }
        let cost = if timed_out {
            self.config.timeout_retry_cost
        } else {
            self.config.retry_cost
        };
        if self.available < cost {
            self.refusals += 1;
            return None;
        }
        self.available -= cost;
        request.acquired = Some(cost);
        let b: f64 = rng.random();
        let exponent = attempts.saturating_sub(1).min(60) as i32;
        let wait = (b * 2f64.powi(exponent) * 1_000.0).min(self.config.max_backoff as f64);
        Some(wait as Millis)
    }

    /// `request` succeeded: its last retry's cost back, or the no-retry increment.
    pub fn on_success(&mut self, request: &AwsRequest) {
        let back = request.acquired.unwrap_or(self.config.no_retry_increment);
        self.available = self
            .available
            .saturating_add(back)
            .min(self.config.initial_retry_tokens);
    }

    /// Tokens left in the quota.
    pub fn available(&self) -> u32 {
        self.available
    }

    /// Retries the quota refused so far.
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
    fn the_quota_pays_and_refunds() {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let mut aws = AwsStandardRetry::new(AwsStandardConfig::default()).unwrap();
        let mut r = AwsRequest::default();
        assert!(aws.retry_after(&mut r, 1, false, &mut rng).is_some());
        assert_eq!(aws.available(), 495);
        assert!(aws.retry_after(&mut r, 2, true, &mut rng).is_some());
        assert_eq!(aws.available(), 485);
        assert!(
            aws.retry_after(&mut r, 3, false, &mut rng).is_none(),
            "3 attempts"
        );
        aws.on_success(&r);
        assert_eq!(aws.available(), 495, "the last retry's 10 come back");
        aws.on_success(&AwsRequest::default());
        aws.on_success(&AwsRequest::default());
        assert_eq!(aws.available(), 497);
        for _ in 0..100 {
            aws.on_success(&AwsRequest::default());
        }
        assert_eq!(aws.available(), 500, "never above the start");
    }

    #[test]
    fn an_empty_quota_refuses() {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let mut aws = AwsStandardRetry::new(AwsStandardConfig {
            initial_retry_tokens: 12,
            ..AwsStandardConfig::default()
        })
        .unwrap();
        let mut r = AwsRequest::default();
        assert!(aws.retry_after(&mut r, 1, false, &mut rng).is_some());
        assert!(
            aws.retry_after(&mut r, 1, true, &mut rng).is_none(),
            "7 < 10"
        );
        assert!(aws.retry_after(&mut r, 1, false, &mut rng).is_some());
        assert!(
            aws.retry_after(&mut r, 1, false, &mut rng).is_none(),
            "2 < 5"
        );
        assert_eq!(aws.refusals(), 2);
    }

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let mut rng = Pcg64Mcg::seed_from_u64(2);
        let mut aws = AwsStandardRetry::new(AwsStandardConfig {
            max_attempts: 10,
            initial_retry_tokens: 1_000_000,
            ..AwsStandardConfig::default()
        })
        .unwrap();
        for (attempt, bound) in [(1, 1_000), (2, 2_000), (3, 4_000), (6, 20_000)] {
            let waits: Vec<Millis> = (0..300)
                .map(|_| {
                    aws.retry_after(&mut AwsRequest::default(), attempt, false, &mut rng)
                        .unwrap()
                })
                .collect();
            assert!(waits.iter().all(|w| *w <= bound), "{attempt}");
            assert!(waits.iter().any(|w| *w > bound * 3 / 4), "{attempt}");
        }
    }
}
