//! # Demo 15: which retry policy survives?
//!
//! Demo 8 shows that 3 retries can keep a system down and that a 10 % retry budget does
//! not. Real clients ship several different answers to the same question, and a learner's
//! own stack uses one of them. This lab runs them side by side against the same server:
//!
//! | name | what it is | per request | shared brake |
//! |------|------------|-------------|--------------|
//! | `none` | one attempt | 1 attempt | - |
//! | `resilience4j` | Resilience4j `Retry` | `maxAttempts` 4, 500 ms | - |
//! | `retry-budget` | the course's budget (spec 00) | as `resilience4j` | retries at most 10 % of requests over 10 s |
//! | `token-bucket` | Brooker 2022 | as `resilience4j` | a success earns 0.1 token, a retry costs 1 |
//! | `finagle` | Finagle `RetryBudget` | as `resilience4j` | 20 % of requests over 10 s, plus 10 retries/s |
//! | `grpc` | gRPC retry throttling | `maxAttempts` 4, jittered backoff | tokens 10, ratio 0.1, retry only above 5 |
//! | `aws-standard` | AWS SDK standard mode (2026 rules) | 3 attempts, `b min(50 ms 2^(i-1), 20 s)` | a quota of 500, a retry costs 14 |
//! | `adaptive-throttling` | Google SRE | 1 attempt, maybe dropped locally | `(requests - 2 accepts) / (requests + 1)` |
//!
//! Each brake is an engine policy with its own essay: [`crate::policy::retry::budget`]
//! (the course's budget and Finagle's are the same rule with different settings),
//! [`crate::policy::retry::token_bucket`], [`crate::policy::retry::grpc`],
//! [`crate::policy::retry::aws_standard`], [`crate::policy::adaptive_throttling`]; the
//! per-request part of the first four is the engine's Resilience4j [`Retry`]. The
//! [`client`] module puts each line together behind one interface.
//!
//! ## The two experiments
//!
//! Both run on the discrete-event [`Kernel`](crate::model::boxoffice::kernel::Kernel) of
//! the BoxOffice model, in a small model of their own ([`sim`]): one client population
//! with open-loop Poisson arrivals, one server.
//!
//! - [`sweep`]: the server has spare capacity and fails a share `f` of attempts
//!   independently. Per policy and `f`: attempts per request (amplification) and the
//!   share of requests that eventually succeed, measured on the requests that arrive after
//!   a warm-up (the buckets have settled) and followed to their end.
//! - [`map`]: the server has workers and a queue, calls time out at the client and are
//!   still served (wasted work). A trigger slows the service down 3x for some seconds;
//!   the cell says whether the system recovered 60 s after the trigger ended.
//!
//! Runs are seeded: the seed of one run is the lab's seed mixed with the cell's own
//! values (the failure rate; the load and the trigger), never its position in a grid, so
//! a cell gives the same figures in a small grid and in a big one, and every policy of a
//! cell sees the same arrivals.

pub mod client;
pub mod map;
pub mod sim;
pub mod sweep;

use crate::number::number_text;
use serde::{Deserialize, Serialize};

use crate::error::excerpt;
use crate::policy::adaptive_throttling::AdaptiveThrottlingConfig;
use crate::policy::retry::aws_standard::AwsStandardConfig;
use crate::policy::retry::grpc::GrpcRetryConfig;
use crate::policy::retry::token_bucket::TokenBucketConfig;
use crate::policy::retry::{Retry, RetryBudgetConfig, RetryConfig};
use crate::ConfigError;

pub use client::ClientPolicy;
pub use map::{MapCell, MapConfig, MapRun};
pub use sweep::{SweepConfig, SweepPoint, SweepRun};

/// The policies of the lab, in the chart's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RetryPolicyKind {
    None,
    Resilience4j,
    RetryBudget,
    TokenBucket,
    Finagle,
    Grpc,
    AwsStandard,
    AdaptiveThrottling,
}

impl RetryPolicyKind {
    pub const ALL: [RetryPolicyKind; 8] = [
        RetryPolicyKind::None,
        RetryPolicyKind::Resilience4j,
        RetryPolicyKind::RetryBudget,
        RetryPolicyKind::TokenBucket,
        RetryPolicyKind::Finagle,
        RetryPolicyKind::Grpc,
        RetryPolicyKind::AwsStandard,
        RetryPolicyKind::AdaptiveThrottling,
    ];

    /// The name the CLI, the link and JSON use (kebab-case).
    pub const fn name(self) -> &'static str {
        match self {
            RetryPolicyKind::None => "none",
            RetryPolicyKind::Resilience4j => "resilience4j",
            RetryPolicyKind::RetryBudget => "retry-budget",
            RetryPolicyKind::TokenBucket => "token-bucket",
            RetryPolicyKind::Finagle => "finagle",
            RetryPolicyKind::Grpc => "grpc",
            RetryPolicyKind::AwsStandard => "aws-standard",
            RetryPolicyKind::AdaptiveThrottling => "adaptive-throttling",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// One line for a legend or `--help`.
    pub const fn describe(self) -> &'static str {
        match self {
            RetryPolicyKind::None => "one attempt per request",
            RetryPolicyKind::Resilience4j => "Resilience4j Retry; by default maxAttempts 4 (3 retries), 500 ms apart",
            RetryPolicyKind::RetryBudget => {
                "the course's retry budget; by default 3 retries, within 10 % of the requests over 10 s"
            }
            RetryPolicyKind::TokenBucket => {
                "token bucket (Brooker 2022); by default 3 retries, a success earns 0.1 token, a retry costs 1, cap 10"
            }
            RetryPolicyKind::Finagle => {
                "Finagle RetryBudget; by default 3 retries, 20 % of requests over 10 s plus 10 retries/s"
            }
            RetryPolicyKind::Grpc => {
                "gRPC retry throttling; by default maxAttempts 4, maxTokens 10, tokenRatio 0.1, retry above 5 tokens"
            }
            RetryPolicyKind::AwsStandard => {
                "AWS SDK standard mode (the 2026 rules); by default 3 attempts, backoff b x min(50 ms x 2^(i-1), 20 s), a quota of 500 tokens, 14 a retry"
            }
            RetryPolicyKind::AdaptiveThrottling => {
                "Google SRE adaptive throttling, drops the client's own requests; by default K = 2 over 2 min"
            }
        }
    }
}

/// A comma-separated list of policy names (`none,grpc`), in the order given, without
/// repeats; `all` stands for every policy.
pub fn parse_policies(list: &str) -> Result<Vec<RetryPolicyKind>, ConfigError> {
    let mut out: Vec<RetryPolicyKind> = Vec::new();
    for name in list.split(',').map(str::trim) {
        if name == "all" {
            for p in RetryPolicyKind::ALL {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
            continue;
        }
        let policy = RetryPolicyKind::from_name(name).ok_or_else(|| {
            ConfigError::new(
                "policies",
                format!(
                    "no policy “{}”: use none, resilience4j, retry-budget, token-bucket, finagle, grpc, aws-standard, adaptive-throttling or all",
                    excerpt(name)
                ),
            )
        })?;
        if !out.contains(&policy) {
            out.push(policy);
        }
    }
    Ok(out)
}

/// Every policy's settings, with the spec's defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct RetryPolicySettings {
    /// The per-request retry of `resilience4j`, `retry-budget`, `token-bucket` and
    /// `finagle`: `maxAttempts` 4 (3 retries), Resilience4j's default wait of 500 ms.
    pub resilience4j: RetryConfig,
    /// The course's budget: 10 % of requests, ttl 10 s, no reserve.
    pub retry_budget: RetryBudgetConfig,
    pub token_bucket: TokenBucketConfig,
    /// Finagle's defaults: 20 %, ttl 10 s, 10 retries/s.
    pub finagle: RetryBudgetConfig,
    pub grpc: GrpcRetryConfig,
    pub aws_standard: AwsStandardConfig,
    pub adaptive_throttling: AdaptiveThrottlingConfig,
}

impl Default for RetryPolicySettings {
    fn default() -> Self {
        Self {
            resilience4j: RetryConfig {
                max_attempts: 4,
                ..RetryConfig::default()
            },
            retry_budget: RetryBudgetConfig::percent_of_traffic(10.0),
            token_bucket: TokenBucketConfig::default(),
            finagle: RetryBudgetConfig::default(),
            grpc: GrpcRetryConfig::default(),
            aws_standard: AwsStandardConfig::default(),
            adaptive_throttling: AdaptiveThrottlingConfig::default(),
        }
    }
}

/// `error` with its field under `prefix` (`grpc.maxTokens`).
pub(crate) fn prefixed(prefix: &str, error: ConfigError) -> ConfigError {
    ConfigError::new(format!("{prefix}.{}", error.field), error.message)
}

impl RetryPolicySettings {
    /// The settings `policy` reads, every other at its default: two settings with the same
    /// key give the policy the same runs (a page reruns only the policies a change touches).
    pub fn of_policy(&self, policy: RetryPolicyKind) -> RetryPolicySettings {
        let mut key = RetryPolicySettings::default();
        let per_request = matches!(
            policy,
            RetryPolicyKind::Resilience4j
                | RetryPolicyKind::RetryBudget
                | RetryPolicyKind::TokenBucket
                | RetryPolicyKind::Finagle
        );
        if per_request {
            key.resilience4j = self.resilience4j.clone();
        }
        match policy {
            RetryPolicyKind::None | RetryPolicyKind::Resilience4j => {}
            RetryPolicyKind::RetryBudget => key.retry_budget = self.retry_budget.clone(),
            RetryPolicyKind::TokenBucket => key.token_bucket = self.token_bucket.clone(),
            RetryPolicyKind::Finagle => key.finagle = self.finagle.clone(),
            RetryPolicyKind::Grpc => key.grpc = self.grpc.clone(),
            RetryPolicyKind::AwsStandard => key.aws_standard = self.aws_standard.clone(),
            RetryPolicyKind::AdaptiveThrottling => {
                key.adaptive_throttling = self.adaptive_throttling.clone()
            }
        }
        key
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        Retry::new(self.resilience4j.clone()).map_err(|e| prefixed("resilience4j", e))?;
        self.retry_budget
            .validate()
            .map_err(|e| prefixed("retryBudget", e))?;
        self.token_bucket
            .validate()
            .map_err(|e| prefixed("tokenBucket", e))?;
        self.finagle
            .validate()
            .map_err(|e| prefixed("finagle", e))?;
        self.grpc.validate().map_err(|e| prefixed("grpc", e))?;
        self.aws_standard
            .validate()
            .map_err(|e| prefixed("awsStandard", e))?;
        self.adaptive_throttling
            .validate()
            .map_err(|e| prefixed("adaptiveThrottling", e))
    }
}

/// A run's seed from the lab's seed and the values that name a cell: a splitmix64 of
/// their bits, so neighbouring cells get unrelated streams.
pub(crate) fn cell_seed(seed: u64, values: &[f64]) -> u64 {
    let mut h = seed;
    for v in values {
        h = splitmix(h ^ v.to_bits());
    }
    splitmix(h)
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Checks a list of numbers: 1 to `max_len` entries, each finite within `[min, max]`.
pub(crate) fn check_list(
    field: &str,
    values: &[f64],
    max_len: usize,
    min: f64,
    max: f64,
) -> Result<(), ConfigError> {
    if values.is_empty() || values.len() > max_len {
        return Err(ConfigError::new(
            field,
            format!("must list 1 to {max_len} values (got {})", values.len()),
        ));
    }
    if let Some(bad) = values
        .iter()
        .find(|v| !v.is_finite() || !(min..=max).contains(*v))
    {
        return Err(ConfigError::new(
            field,
            format!(
                "every value must be between {min} and {max} (got {})",
                number_text(*bad)
            ),
        ));
    }
    Ok(())
}

/// Reads a comma-separated list of numbers (`0,0.01,0.1`) for a flag or a link.
pub fn parse_numbers(field: &str, text: &str) -> Result<Vec<f64>, ConfigError> {
    text.split(',')
        .map(|part| {
            part.trim().parse::<f64>().map_err(|_| {
                ConfigError::new(
                    field,
                    format!(
                        "expected numbers separated by commas, got “{}”",
                        excerpt(part.trim())
                    ),
                )
            })
        })
        .collect()
}
