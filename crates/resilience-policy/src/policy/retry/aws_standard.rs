//! The AWS SDKs' `standard` retry mode: few attempts, full-jitter backoff, a retry quota.
//!
//! Every current AWS SDK ships the same rules, written down in the SDKs' shared *Retry
//! behavior* reference. They changed in 2026 (the SDKs' `AWS_NEW_RETRIES_2026`, the
//! default since November 2026; botocore 1.44 has it always on), and this module follows
//! the current rules:
//!
//! - **at most 3 attempts** (`max_attempts`, the first included);
//! - **backoff** before retry `i` (`i` = 1 after the first attempt failed):
//!   `b x min(base x 2^(i-1), 20 s)` with `b` uniform in [0, 1] and `base` 50 ms for a
//!   transient error or a timeout (1 s for a throttling error, which this course's servers
//!   never send). The spec writes `min(b x 2^i, 20 s)` in seconds, the rule before 2026;
//!   botocore's `ExponentialBackoff` counts `i` from the attempt that failed, minus one;
//! - **a retry quota** per client, a token bucket that starts full at 500. A retry after a
//!   transient error or a timeout takes 14 tokens (5 after a throttling error); a retry
//!   that finds too few tokens is not made and the caller gets the error. A request that
//!   succeeds on its first attempt puts 1 token back; one that succeeds after retries
//!   gives back what its last retry took. The quota never exceeds its start.
//!
//! Before 2026 a retry took 5 tokens, 10 after a timeout, and the base was 1 s: the
//! settings `retryCost` 5, `timeoutRetryCost` 10 and `baseBackoff` 1 s play those rules.
//!
//! Why it works: a healthy client gains about one token per request, so bursts of
//! failures are retried freely. With independent failures at rate `f` the quota drifts by
//! `(1 - f) - 14 f^2 (1 + f)` tokens per request (a first success earns 1, a success after
//! one retry is free, a request that needs two retries or fails three times pays 14 or
//! 28), negative above about 21.5 %: from there the 500 tokens run out within seconds at
//! 1,000 requests/s, and the retries left are those the first-attempt successes pay for,
//! `(1 - f) / (14 f)` per request, which is 0 at 100 % failures. Unlike gRPC's throttle
//! the quota does not keep a reserve: it retries down to its last 14 tokens.
//!
//! Not modelled: throttling errors (this course's servers fail with errors and
//! timeouts), the `adaptive` mode's client-side rate limiter, `x-amz-retry-after`
//! headers, and the longer attempts of a few services (DynamoDB's 4).

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
    /// The first retry's longest wait, doubled for each later retry (1 ms to 10 s;
    /// default 50 ms, the base for transient errors and timeouts; 1 s before 2026).
    #[serde(with = "crate::duration::serde_millis")]
    pub base_backoff: Millis,
    /// The longest backoff (1 ms to 10 min; default 20 s).
    #[serde(with = "crate::duration::serde_millis")]
    pub max_backoff: Millis,
    /// The quota's size and start (0 to 1,000,000 tokens; default 500).
    pub initial_retry_tokens: u32,
    /// What a retry after an error takes (1 to 10,000; default 14; 5 before 2026).
    pub retry_cost: u32,
    /// What a retry after a timeout takes (1 to 10,000; default 14, a timeout being a
    /// transient error like any other since 2026; 10 before).
    pub timeout_retry_cost: u32,
    /// What a request that succeeded without a retry puts back (0 to 10,000; default 1).
    pub no_retry_increment: u32,
}

impl Default for AwsStandardConfig {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            base_backoff: 50,
            max_backoff: 20_000,
            initial_retry_tokens: 500,
            retry_cost: 14,
            timeout_retry_cost: 14,
            no_retry_increment: 1,
        }
    }
}

impl AwsStandardConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range("maxAttempts", self.max_attempts.into(), 1, 10)?;
        check_range("baseBackoff", self.base_backoff, 1, 10_000)?;
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
        // The cap applies before the jitter: b x min(base x 2^(i-1), max).
        let b: f64 = rng.random();
        let exponent = attempts.saturating_sub(1).min(60) as i32;
        let bound = (self.config.base_backoff as f64 * 2f64.powi(exponent))
            .min(self.config.max_backoff as f64);
        Some((b * bound) as Millis)
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
        assert_eq!(aws.available(), 486, "a retry after an error takes 14");
        assert!(aws.retry_after(&mut r, 2, true, &mut rng).is_some());
        assert_eq!(aws.available(), 472, "and after a timeout 14 too");
        assert!(
            aws.retry_after(&mut r, 3, false, &mut rng).is_none(),
            "3 attempts"
        );
        aws.on_success(&r);
        assert_eq!(aws.available(), 486, "the last retry's 14 come back");
        aws.on_success(&AwsRequest::default());
        aws.on_success(&AwsRequest::default());
        assert_eq!(aws.available(), 488);
        for _ in 0..100 {
            aws.on_success(&AwsRequest::default());
        }
        assert_eq!(aws.available(), 500, "never above the start");
    }

    #[test]
    fn an_empty_quota_refuses() {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        // The rules before 2026: 5 a retry, 10 after a timeout.
        let mut aws = AwsStandardRetry::new(AwsStandardConfig {
            initial_retry_tokens: 12,
            retry_cost: 5,
            timeout_retry_cost: 10,
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
        // 50 ms, 100 ms, 200 ms, ...
        for (attempt, bound) in [(1, 50), (2, 100), (3, 200), (9, 12_800)] {
            let waits: Vec<Millis> = (0..300)
                .map(|_| {
                    aws.retry_after(&mut AwsRequest::default(), attempt, false, &mut rng)
                        .unwrap()
                })
                .collect();
            assert!(waits.iter().all(|w| *w <= bound), "{attempt}");
            assert!(waits.iter().any(|w| *w > bound * 3 / 4), "{attempt}");
        }
        // The cap comes before the jitter: with a cap of 75 ms the second retry waits
        // uniformly up to 75 ms, never pinned at the cap as min(b x 100, 75) would be a
        // quarter of the time.
        let mut capped = AwsStandardRetry::new(AwsStandardConfig {
            max_backoff: 75,
            initial_retry_tokens: 1_000_000,
            ..AwsStandardConfig::default()
        })
        .unwrap();
        let waits: Vec<Millis> = (0..300)
            .map(|_| {
                capped
                    .retry_after(&mut AwsRequest::default(), 2, false, &mut rng)
                    .unwrap()
            })
            .collect();
        assert!(waits.iter().all(|w| *w < 75) && waits.iter().any(|w| *w > 56));
    }
}
