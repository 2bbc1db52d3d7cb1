//! Experiment 1, the failure sweep: what each policy does at 1 %, 10 % and 100 % failures.
//!
//! 1,000 requests/s (open loop, Poisson) call a server with spare capacity that answers
//! every attempt after 10 ms and fails a share `f` of attempts, independently. For each
//! policy and each `f` the run lasts `warmup + measure`: the requests that arrive during
//! `measure` (after the buckets have settled) are followed to their end, and give
//!
//! - **amplification**: attempts that reached the server per request (a request dropped
//!   locally by adaptive throttling sends none, so its amplification can fall below 1);
//! - **success**: the share of requests that eventually succeeded;
//! - **refused**: the share of requests that wanted a retry and were refused it by the
//!   shared brake (for adaptive throttling: dropped locally).
//!
//! Adaptive throttling's warm-up is at least its window (two minutes): before that its
//! counts are younger than the rule assumes.
//!
//! The [`refusal_onset`] of a policy is the lowest `f` of the grid at which at least 1 in
//! 1,000 requests was refused.

use serde::{Deserialize, Serialize};

use super::client::ClientPolicy;
use super::sim::{self, RunSpec, RunStats, Server};
use super::{cell_seed, check_list, prefixed, RetryPolicyKind, RetryPolicySettings};
use crate::error::check_range;
use crate::{ConfigError, Millis};

/// The most failure rates one sweep may ask for.
pub const MAX_FAILURE_RATES: usize = 101;
/// The most requests one run may make (demand x (warmup + measure); adaptive
/// throttling's longer warm-up comes on top).
pub const MAX_REQUESTS_PER_RUN: u64 = 1_000_000;
/// The most requests a whole sweep may make, every policy and failure rate together
/// (the default sweep makes about 7 million).
pub const MAX_REQUESTS_PER_SWEEP: u64 = 50_000_000;
/// A refusal onset needs at least this share of requests refused.
pub const ONSET_SHARE: f64 = 0.001;
/// How long after the last arrival a run may go on finishing requests.
const DRAIN_MS: Millis = 120_000;

/// The sweep's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct SweepConfig {
    /// Requests per second (1 to 10,000; default 1,000).
    pub demand_per_second: u32,
    /// The server's answer time (1 ms to 10 s; default 10 ms).
    #[serde(with = "crate::duration::serde_millis")]
    pub latency: Millis,
    /// Before measuring, so the buckets settle (0 to 10 min; default 15 s).
    #[serde(with = "crate::duration::serde_millis")]
    pub warmup: Millis,
    /// Requests arriving in this span are measured (1 s to 10 min; default 20 s).
    #[serde(with = "crate::duration::serde_millis")]
    pub measure: Millis,
    /// The failure rates, as shares (0 to 1; 1 to 101 of them).
    pub failure_rates: Vec<f64>,
    pub policies: Vec<RetryPolicyKind>,
    pub settings: RetryPolicySettings,
    pub seed: u64,
}

impl Default for SweepConfig {
    fn default() -> Self {
        Self {
            demand_per_second: 1_000,
            latency: 10,
            warmup: 15_000,
            measure: 20_000,
            failure_rates: vec![
                0.0, 0.01, 0.02, 0.05, 0.08, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7,
                0.8, 0.9, 1.0,
            ],
            policies: RetryPolicyKind::ALL.to_vec(),
            settings: RetryPolicySettings::default(),
            seed: 1,
        }
    }
}

impl SweepConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range("demandPerSecond", self.demand_per_second.into(), 1, 10_000)?;
        check_range("latency", self.latency, 1, 10_000)?;
        check_range("warmup", self.warmup, 0, 600_000)?;
        check_range("measure", self.measure, 1_000, 600_000)?;
        let requests = u64::from(self.demand_per_second) * (self.warmup + self.measure) / 1_000;
        if requests > MAX_REQUESTS_PER_RUN {
            return Err(ConfigError::new(
                "measure",
                format!(
                    "demand x (warmup + measure) must be at most {MAX_REQUESTS_PER_RUN} requests (got {requests})"
                ),
            ));
        }
        check_list(
            "failureRates",
            &self.failure_rates,
            MAX_FAILURE_RATES,
            0.0,
            1.0,
        )?;
        if self.policies.is_empty() {
            return Err(ConfigError::new(
                "policies",
                "must name at least one policy",
            ));
        }
        self.settings
            .validate()
            .map_err(|e| prefixed("settings", e))?;
        let total: u64 = self
            .policies
            .iter()
            .map(|&p| {
                let span = self.warmup_for(p) + self.measure;
                u64::from(self.demand_per_second) * span / 1_000 * self.failure_rates.len() as u64
            })
            .sum();
        if total > MAX_REQUESTS_PER_SWEEP {
            return Err(ConfigError::new(
                "failureRates",
                format!(
                    "the sweep would make {total} requests, more than {MAX_REQUESTS_PER_SWEEP}: fewer failure rates or policies"
                ),
            ));
        }
        Ok(())
    }

    /// The warm-up of `policy`'s runs: adaptive throttling remembers a whole window
    /// (two minutes), and has settled once it is full.
    pub fn warmup_for(&self, policy: RetryPolicyKind) -> Millis {
        match policy {
            RetryPolicyKind::AdaptiveThrottling => {
                self.warmup.max(self.settings.adaptive_throttling.window)
            }
            _ => self.warmup,
        }
    }
}

/// One policy at one failure rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    pub failure_rate: f64,
    /// Attempts that reached the server per request.
    pub amplification: f64,
    /// Share of requests that eventually succeeded.
    pub success: f64,
    /// Share of requests refused a retry (or dropped locally).
    pub refused: f64,
    pub truncated: bool,
}

/// One policy's curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepCurve {
    pub policy: RetryPolicyKind,
    pub points: Vec<SweepPoint>,
    /// The lowest failure rate at which the policy refuses retries, if any.
    pub refusal_onset: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepRun {
    pub curves: Vec<SweepCurve>,
}

impl SweepRun {
    pub fn curve(&self, policy: RetryPolicyKind) -> Option<&SweepCurve> {
        self.curves.iter().find(|c| c.policy == policy)
    }
}

/// One policy at one failure rate.
pub fn point(
    config: &SweepConfig,
    policy: RetryPolicyKind,
    failure_rate: f64,
) -> Result<SweepPoint, ConfigError> {
    let (spec, client) = point_run(config, policy, failure_rate)?;
    Ok(point_of(failure_rate, &sim::run(&spec, client)))
}

/// The run of one point, not made yet (a page makes it in slices: [`sim::Sim`]).
pub fn point_run(
    config: &SweepConfig,
    policy: RetryPolicyKind,
    failure_rate: f64,
) -> Result<(RunSpec, ClientPolicy), ConfigError> {
    let client = ClientPolicy::new(policy, &config.settings)?;
    let warmup = config.warmup_for(policy);
    let measure_until = warmup + config.measure;
    let spec = RunSpec {
        demand_per_second: f64::from(config.demand_per_second),
        server: Server::Spare {
            latency: config.latency,
            failure_rate,
        },
        timeout: None,
        arrivals_until: measure_until,
        measure_from: warmup,
        measure_until,
        judge_from: measure_until,
        end: measure_until + DRAIN_MS,
        seed: cell_seed(config.seed, &[failure_rate]),
    };
    Ok((spec, client))
}

/// The point a finished run of [`point_run`] gives.
pub fn point_of(failure_rate: f64, stats: &RunStats) -> SweepPoint {
    let requests = stats.requests.max(1) as f64;
    SweepPoint {
        failure_rate,
        amplification: stats.attempts as f64 / requests,
        success: stats.succeeded as f64 / requests,
        refused: (stats.refused + stats.rejected_locally) as f64 / requests,
        truncated: stats.truncated,
    }
}

/// The lowest failure rate whose point refused at least [`ONSET_SHARE`] of requests.
pub fn refusal_onset(points: &[SweepPoint]) -> Option<f64> {
    points
        .iter()
        .filter(|p| p.refused >= ONSET_SHARE)
        .map(|p| p.failure_rate)
        .min_by(f64::total_cmp)
}

/// The whole sweep: every policy at every failure rate.
pub fn run(config: &SweepConfig) -> Result<SweepRun, ConfigError> {
    config.validate()?;
    let mut curves = Vec::new();
    for &policy in &config.policies {
        let points = config
            .failure_rates
            .iter()
            .map(|&f| point(config, policy, f))
            .collect::<Result<Vec<_>, _>>()?;
        curves.push(SweepCurve {
            policy,
            refusal_onset: refusal_onset(&points),
            points,
        });
    }
    Ok(SweepRun { curves })
}
