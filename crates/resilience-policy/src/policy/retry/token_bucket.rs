//! A retry token bucket: retries are paid for with tokens that only successes earn.
//!
//! Marc Brooker's "adaptive retries" (*Fixing retries with token buckets and circuit
//! breakers*, 2022), the idea behind the AWS SDKs' retry quota in its simplest form
//! ([`super::aws_standard`] adds costs per error kind and refunds). A client keeps a
//! small bucket of tokens. Every successful call drops a fraction of a token in it
//! (0.1 by default); every retry takes a whole token out (1), and a retry that finds no
//! whole token is not made: the caller gets the failure. The bucket has a cap, so a long
//! quiet spell cannot bank an avalanche of retries for the next outage.
//!
//! Why it works: while failures are rare, a client earns far more tokens than it spends
//! and retries as freely as plain "N retries". Once failures pass about 10 % (the reward
//! over the cost), tokens drain and retries fall to about 0.1 per success. And because
//! only *successes* earn, the retries stop altogether when nothing succeeds: at 100 %
//! failures the bucket is empty and the load is exactly the first attempts (1.0). That
//! is the difference with a budget counted on *requests* (the course's retry budget,
//! Finagle), which keeps paying for 10-20 % retries into a dead dependency.
//!
//! Brooker's post gives the reward and the cost, not the cap ("a limited-size token
//! bucket"); the cap of 10 tokens (ten retries in a burst) is this course's choice. The
//! bucket starts full. Tokens are counted in thousandths, so ten rewards of 0.1 make
//! exactly one token.

use serde::{Deserialize, Serialize};

use crate::error::check_number;
use crate::ConfigError;

/// Thousandths of a token: the bucket's unit.
const MILLI: f64 = 1000.0;
/// The largest cap a setting may ask for (tokens).
pub const MAX_CAPACITY: f64 = 1_000_000.0;

/// Settings of a retry token bucket (all in tokens, kept to the nearest thousandth).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct TokenBucketConfig {
    /// The most tokens the bucket holds, and what it starts with (default 10).
    pub capacity: f64,
    /// What a successful call earns (default 0.1).
    pub success_reward: f64,
    /// What a retry costs (default 1).
    pub retry_cost: f64,
}

impl Default for TokenBucketConfig {
    fn default() -> Self {
        Self {
            capacity: 10.0,
            success_reward: 0.1,
            retry_cost: 1.0,
        }
    }
}

impl TokenBucketConfig {
    /// A cap of 0.001 to 1,000,000 tokens; a reward within [0, cap]; a cost within
    /// [0.001, cap] (a retry that costs nothing, or more than the bucket holds, is no
    /// bucket at all).
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_number("capacity", self.capacity, 0.001, MAX_CAPACITY)?;
        check_number("successReward", self.success_reward, 0.0, self.capacity)?;
        check_number("retryCost", self.retry_cost, 0.001, self.capacity)
    }
}

/// The bucket. Report every successful attempt with [`on_success`](Self::on_success) and
/// ask [`try_retry`](Self::try_retry) before every retry.
#[derive(Debug, Clone)]
pub struct TokenBucket {
    config: TokenBucketConfig,
    capacity: u64,
    reward: u64,
    cost: u64,
    tokens: u64,
    retries: u64,
    refusals: u64,
}

impl TokenBucket {
    pub fn new(config: TokenBucketConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let milli = |tokens: f64| (tokens * MILLI).round() as u64;
        let capacity = milli(config.capacity).max(1);
        Ok(Self {
            capacity,
            reward: milli(config.success_reward),
            cost: milli(config.retry_cost).clamp(1, capacity),
            tokens: capacity,
            retries: 0,
            refusals: 0,
            config,
        })
    }

    pub fn config(&self) -> &TokenBucketConfig {
        &self.config
    }

    /// An attempt (first call or retry) succeeded: it earns the reward, up to the cap.
    pub fn on_success(&mut self) {
        self.tokens = (self.tokens + self.reward).min(self.capacity);
    }

    /// Asks to make one retry; on true its token is taken.
    pub fn try_retry(&mut self) -> bool {
        if self.tokens >= self.cost {
            self.tokens -= self.cost;
            self.retries += 1;
            true
        } else {
            self.refusals += 1;
            false
        }
    }

    /// The tokens in the bucket.
    pub fn tokens(&self) -> f64 {
        self.tokens as f64 / MILLI
    }

    /// Retries refused so far.
    pub fn refusals(&self) -> u64 {
        self.refusals
    }

    /// Retries paid for so far.
    pub fn retries(&self) -> u64 {
        self.retries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_successes_pay_for_one_retry() {
        let mut b = TokenBucket::new(TokenBucketConfig::default()).unwrap();
        for _ in 0..10 {
            assert!(b.try_retry(), "it starts full: ten retries in a burst");
        }
        assert!(!b.try_retry());
        for _ in 0..9 {
            b.on_success();
        }
        assert!(!b.try_retry(), "0.9 token is not a whole one");
        b.on_success();
        assert!(b.try_retry());
        assert_eq!((b.retries(), b.refusals()), (11, 2));
    }

    #[test]
    fn the_cap_holds() {
        let mut b = TokenBucket::new(TokenBucketConfig::default()).unwrap();
        for _ in 0..1_000 {
            b.on_success();
        }
        assert_eq!(b.tokens(), 10.0);
    }

    #[test]
    fn bad_settings_are_refused() {
        for config in [
            TokenBucketConfig {
                capacity: f64::NAN,
                ..TokenBucketConfig::default()
            },
            TokenBucketConfig {
                retry_cost: 0.0,
                ..TokenBucketConfig::default()
            },
            TokenBucketConfig {
                success_reward: 11.0,
                ..TokenBucketConfig::default()
            },
        ] {
            assert!(TokenBucket::new(config).is_err());
        }
    }
}
