//! # Lab A: retries can keep a system down (a metastable failure)
//!
//! Steady purchase traffic (1,000 requests/s) calls a provider that has headroom (its
//! capacity is 20 % above the demand). For five seconds the provider degrades (its capacity
//! halves), then it is healthy again. The lab runs the same minute three times, with three
//! retry policies, and shows successes and offered load over time:
//!
//! - **no retries**: successes drop during the degradation and come back the moment it ends;
//! - **3 retries per request** (up to 4 calls per request): the failures of the degradation
//!   come back as retries, the extra load keeps the provider overloaded after the trigger is
//!   gone, the overload makes more calls fail, and the failures make more retries. The
//!   system settles in a degraded state and stays there: a *metastable* failure;
//! - **a retry budget** (retries may add at most 10 % to the normal traffic): the
//!   amplification is capped, so the load falls back under capacity the moment the
//!   provider recovers, and so do the failures.
//!
//! Backoff and jitter can be switched on for the retrying policies: they move retries later
//! and spread them out, but every failed call still retries, so the load in the degraded
//! state stays about the same and the metastable state stays.
//!
//! ## The model (the formulas the page shows)
//!
//! Time advances in steps of [`STEP_MS`] (100 ms). The model is *aggregate*: it counts
//! requests, it does not follow each one, so a whole minute runs in microseconds.
//!
//! - **Demand**: `demandPerSecond / 10` new requests arrive per step (whole requests; a
//!   fractional rate is carried over to the next steps).
//! - **Capacity**: `C = demand x (1 + headroomPercent / 100)` per second; during the
//!   degradation `C x degradedCapacityPercent / 100`.
//! - **Overload** (see [`goodput`]): with `O` calls offered in a step and capacity `C` per
//!   step, the calls that succeed (the goodput) are
//!   - `O` when `O <= C`: everything is served;
//!   - `C / (1 + waste x (O / C - 1))` when `O > C`: an overloaded server spends part of its
//!     capacity on calls it cannot finish before the caller times out (accepting them,
//!     queueing them, starting work that is thrown away), and the more it is overloaded
//!     the more it wastes. With `waste` 1 (default) a server at twice its capacity completes
//!     half its capacity; with `waste` 0 it would complete its full capacity whatever the
//!     load (and no metastable state would exist: the collapse comes from the waste).
//!
//!   The goodput is rounded to whole calls; every call offered in the step (first call or
//!   retry) has the same chance to be among them (the successes are shared out in
//!   proportion, largest remainder first). A call that is not served fails with a read
//!   timeout ([`Outcome::ReadTimeout`]), known at the end of its step.
//! - **Retries**: whether a failed request tries again is decided by the core
//!   [`Retry`] state machine (`maxAttempts = retries + 1`; a read timeout is retryable);
//!   the wait before the retry comes from the core [`Backoff`] (fixed or exponential, with
//!   the [`Jitter`] modes), drawn from a seeded `Pcg64Mcg`. A retry after a wait `w` is
//!   offered in step `s + 1 + floor(w / 100 ms)` when the call failed in step `s`: without
//!   backoff, in the next step. Requests that fail together in a step are one cohort; with
//!   jitter a cohort is split into up to [`JITTER_SPLITS`] equal parts, each drawing its own
//!   wait. Cohorts due in the same step after the same number of attempts are merged
//!   (decorrelated jitter keeps the count-weighted mean of their previous waits).
//! - **Retry budget** (the `budget` policy): the core [`RetryBudget`], Finagle's rule:
//!   every new request deposits `budgetPercent / 100` of a token, every retry must withdraw
//!   one whole token or is not made (the request fails), and deposits and withdrawals
//!   count for `budgetTtlMs` (10 s) only. With the default 10 % and no reserve
//!   (`budgetMinRetriesPerSecond` 0), the retries in any 10 s window are at most 10 % of
//!   the requests in it. Deposits and withdrawals of a step happen at the step's start.
//!
//! ## Units of the output
//!
//! Every per-step quantity of [`AmplificationStep`] except `t_ms` and `capacity` is a
//! **rate per second**: the count in the 100 ms step times 10 (so 1,000 requests/s reads
//! `1000`, as the demand does). `capacity` is per second too, as a decimal. The run's
//! [`AmplificationTotals`] are plain counts over the whole run.

use crate::number::number_text;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use crate::error::check_range;
use crate::policy::retry::{
    Backoff, Jitter, Retry, RetryBudget, RetryBudgetConfig, RetryConfig, RetryDecision,
};
use crate::{ConfigError, Millis, Outcome};

/// The length of one step of the model.
pub const STEP_MS: Millis = 100;
/// Steps per second: counts per step times this are rates per second.
pub const STEPS_PER_SECOND: u64 = 1_000 / STEP_MS;
/// With jitter, the failed requests of a cohort are split into at most this many equal
/// parts, each drawing its own wait.
pub const JITTER_SPLITS: u64 = 10;

/// The largest demand a slider or flag may ask for (requests per second).
pub const MAX_DEMAND_PER_SECOND: u32 = 10_000;
/// The longest run (10 minutes).
pub const MAX_DURATION_MS: Millis = 600_000;
/// The most retries per request.
pub const MAX_RETRIES: u32 = 10;

/// The three lines of the chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AmplificationPolicy {
    /// Every request makes one call (grey).
    #[default]
    None,
    /// Up to `retries` retries per request (red).
    Retries,
    /// Up to `retries` retries per request, within a retry budget (blue).
    Budget,
}

impl AmplificationPolicy {
    pub const ALL: [AmplificationPolicy; 3] = [
        AmplificationPolicy::None,
        AmplificationPolicy::Retries,
        AmplificationPolicy::Budget,
    ];

    /// The name used by the CLI and in JSON.
    pub const fn name(self) -> &'static str {
        match self {
            AmplificationPolicy::None => "none",
            AmplificationPolicy::Retries => "retries",
            AmplificationPolicy::Budget => "budget",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Plain words for the legend.
    pub fn describe(self) -> &'static str {
        match self {
            AmplificationPolicy::None => "no retries: one call per request",
            AmplificationPolicy::Retries => "retries per request: a failed call is tried again",
            AmplificationPolicy::Budget => {
                "retry budget: retries may add only a fixed share to the normal traffic"
            }
        }
    }
}

/// How long a failed request waits before its retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum BackoffKind {
    /// Retry in the next step.
    #[default]
    None,
    /// Always `backoffBaseMs` (a core [`Backoff`] with multiplier 1).
    Fixed,
    /// `backoffBaseMs x backoffMultiplier^(attempt - 1)`, capped at `backoffCapMs`.
    Exponential,
}

impl BackoffKind {
    pub const ALL: [BackoffKind; 3] = [
        BackoffKind::None,
        BackoffKind::Fixed,
        BackoffKind::Exponential,
    ];

    /// The word the link, the CLI and JSON use.
    pub const fn name(self) -> &'static str {
        match self {
            BackoffKind::None => "none",
            BackoffKind::Fixed => "fixed",
            BackoffKind::Exponential => "exponential",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|b| b.name() == name)
    }

    /// A short label for a select.
    pub const fn label(self) -> &'static str {
        match self {
            BackoffKind::None => "none (retry in the next step)",
            BackoffKind::Fixed => "fixed",
            BackoffKind::Exponential => "exponential",
        }
    }
}

/// Every control of Lab A; `Default` is the spec's page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct AmplificationConfig {
    /// New requests per second (1 to 10,000; default 1,000).
    pub demand_per_second: u32,
    /// Normal capacity above the demand, in percent (0 to 1,000; default 20).
    pub headroom_percent: f64,
    /// Capacity during the degradation, in percent of the normal capacity (0 to 100;
    /// default 50).
    pub degraded_capacity_percent: f64,
    /// When the degradation starts (a multiple of 100 ms, at most 10 min; default 10 s).
    pub degradation_start_ms: Millis,
    /// How long it lasts (a multiple of 100 ms, at most 10 min; default 5 s).
    pub degradation_ms: Millis,
    /// The length of the run (100 ms to 10 min, a multiple of 100 ms; default 60 s).
    pub duration_ms: Millis,
    /// How much capacity an overloaded server wastes (0 to 10; default 1); see [`goodput`].
    pub waste: f64,
    /// Retries per request for the `retries` and `budget` policies (0 to 10; default 3).
    pub retries: u32,
    /// The budget: retries per 100 new requests (0 to 1,000; default 10).
    pub budget_percent: f64,
    /// How long the budget remembers deposits and withdrawals (1 s to 60 s; default 10 s).
    pub budget_ttl_ms: Millis,
    /// A reserve on top of the percentage: retries per second of the budget's memory (ttl),
    /// which a burst may spend at once (0 to 100,000; default 0).
    pub budget_min_retries_per_second: u32,
    /// The wait before a retry (default none: the next step).
    pub backoff: BackoffKind,
    /// The fixed wait, or the first exponential one (1 ms to 60 s; default 500 ms).
    pub backoff_base_ms: Millis,
    /// Growth per attempt of the exponential backoff (1 to 10; default 2).
    pub backoff_multiplier: f64,
    /// The longest wait, if any (at least the base, at most 10 min).
    pub backoff_cap_ms: Option<Millis>,
    /// Jitter of the backoff (default none; needs a backoff).
    pub jitter: Jitter,
    /// Seed of the jitter draws.
    pub seed: u64,
}

impl Default for AmplificationConfig {
    fn default() -> Self {
        Self {
            demand_per_second: 1_000,
            headroom_percent: 20.0,
            degraded_capacity_percent: 50.0,
            degradation_start_ms: 10_000,
            degradation_ms: 5_000,
            duration_ms: 60_000,
            waste: 1.0,
            retries: 3,
            budget_percent: 10.0,
            budget_ttl_ms: 10_000,
            budget_min_retries_per_second: 0,
            backoff: BackoffKind::None,
            backoff_base_ms: 500,
            backoff_multiplier: 2.0,
            backoff_cap_ms: None,
            jitter: Jitter::None,
            seed: 1,
        }
    }
}

fn check_number(field: &str, value: f64, min: f64, max: f64) -> Result<(), ConfigError> {
    if value.is_finite() && (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError::new(
            field,
            format!(
                "must be a number between {min} and {max} (got {})",
                number_text(value)
            ),
        ))
    }
}

fn check_step_multiple(field: &str, value: Millis) -> Result<(), ConfigError> {
    if value.is_multiple_of(STEP_MS) {
        Ok(())
    } else {
        Err(ConfigError::new(
            field,
            format!("must be a multiple of {STEP_MS} ms (got {value})"),
        ))
    }
}

impl AmplificationConfig {
    /// Bounds that keep every run finite and fast, whatever a slider or flag says.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range(
            "demandPerSecond",
            u64::from(self.demand_per_second),
            1,
            u64::from(MAX_DEMAND_PER_SECOND),
        )?;
        check_number("headroomPercent", self.headroom_percent, 0.0, 1_000.0)?;
        check_number(
            "degradedCapacityPercent",
            self.degraded_capacity_percent,
            0.0,
            100.0,
        )?;
        check_range("durationMs", self.duration_ms, STEP_MS, MAX_DURATION_MS)?;
        check_step_multiple("durationMs", self.duration_ms)?;
        check_range(
            "degradationStartMs",
            self.degradation_start_ms,
            0,
            MAX_DURATION_MS,
        )?;
        check_step_multiple("degradationStartMs", self.degradation_start_ms)?;
        check_range("degradationMs", self.degradation_ms, 0, MAX_DURATION_MS)?;
        check_step_multiple("degradationMs", self.degradation_ms)?;
        check_number("waste", self.waste, 0.0, 10.0)?;
        check_range(
            "retries",
            u64::from(self.retries),
            0,
            u64::from(MAX_RETRIES),
        )?;
        check_number("budgetPercent", self.budget_percent, 0.0, 1_000.0)?;
        check_range("budgetTtlMs", self.budget_ttl_ms, 1_000, 60_000)?;
        check_range(
            "budgetMinRetriesPerSecond",
            u64::from(self.budget_min_retries_per_second),
            0,
            100_000,
        )?;
        check_range("backoffBaseMs", self.backoff_base_ms, 1, 60_000)?;
        check_number("backoffMultiplier", self.backoff_multiplier, 1.0, 10.0)?;
        if let Some(cap) = self.backoff_cap_ms {
            check_range("backoffCapMs", cap, self.backoff_base_ms, MAX_DURATION_MS)?;
        }
        if self.backoff == BackoffKind::None && self.jitter != Jitter::None {
            return Err(ConfigError::new(
                "jitter",
                "needs a backoff (fixed or exponential) to spread",
            ));
        }
        // The core's own rules, which the bounds above already imply.
        if let Some(backoff) = self.backoff() {
            backoff.validate().map_err(|e| lab_field(e, "backoff"))?;
        }
        self.budget_config()
            .validate()
            .map_err(|e| lab_field(e, "budget"))?;
        Ok(())
    }

    /// The core backoff the retries wait by, or `None` for "retry in the next step".
    pub fn backoff(&self) -> Option<Backoff> {
        let multiplier = match self.backoff {
            BackoffKind::None => return None,
            BackoffKind::Fixed => 1.0,
            BackoffKind::Exponential => self.backoff_multiplier,
        };
        Some(Backoff {
            base: self.backoff_base_ms,
            multiplier,
            cap: self.backoff_cap_ms,
            jitter: self.jitter,
        })
    }

    /// The core retry config of `policy`: `maxAttempts` is `retries + 1` (1 for `none`),
    /// and the wait is left to [`Self::backoff`].
    pub fn retry_config(&self, policy: AmplificationPolicy) -> RetryConfig {
        let max_attempts = match policy {
            AmplificationPolicy::None => 1,
            AmplificationPolicy::Retries | AmplificationPolicy::Budget => self.retries + 1,
        };
        RetryConfig {
            max_attempts,
            wait_duration: 0,
            ..RetryConfig::default()
        }
    }

    /// The core budget config (Finagle's `RetryBudget`) of the `budget` policy.
    pub fn budget_config(&self) -> RetryBudgetConfig {
        RetryBudgetConfig {
            ttl: self.budget_ttl_ms,
            min_retries_per_second: self.budget_min_retries_per_second,
            retry_percent: self.budget_percent,
        }
    }

    /// The normal capacity, per second.
    pub fn normal_capacity_per_second(&self) -> f64 {
        f64::from(self.demand_per_second) * (1.0 + self.headroom_percent / 100.0)
    }

    /// The capacity during the degradation, per second.
    pub fn degraded_capacity_per_second(&self) -> f64 {
        self.normal_capacity_per_second() * self.degraded_capacity_percent / 100.0
    }

    /// When the degradation ends (it may end after the run).
    pub fn degradation_end_ms(&self) -> Millis {
        self.degradation_start_ms
            .saturating_add(self.degradation_ms)
    }
}

/// Renames a core error's field into the lab's vocabulary (`base` -> `backoffBase`).
/// Field names are ASCII camelCase: the ASCII upper case keeps the Unicode case tables
/// (about 12 KB) out of the browser's wasm.
fn lab_field(error: ConfigError, prefix: &str) -> ConfigError {
    let mut field = prefix.to_string();
    let mut chars = error.field.chars();
    if let Some(first) = chars.next() {
        field.push(first.to_ascii_uppercase());
        field.extend(chars);
    }
    ConfigError::new(field, error.message)
}

/// The overload model: how many of `offered` calls a provider with `capacity` serves (both
/// per step, or both per second).
///
/// Within capacity (`offered <= capacity`) every call is served. Beyond it the goodput is
/// `capacity / (1 + waste x overload)` with `overload = offered / capacity - 1`: the
/// overload costs the server a share of its useful work. A capacity of 0 serves nothing.
pub fn goodput(offered: f64, capacity: f64, waste: f64) -> f64 {
    if offered <= capacity {
        return offered.max(0.0);
    }
    if capacity <= 0.0 {
        return 0.0;
    }
    let overload = offered / capacity - 1.0;
    capacity / (1.0 + waste.max(0.0) * overload)
}

/// One 100 ms step; every field but `t_ms` is per second (the step's count times 10).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AmplificationStep {
    /// The start of the step.
    pub t_ms: Millis,
    /// The provider's capacity (requests per second).
    pub capacity: f64,
    /// New requests (first calls).
    pub requests: u64,
    /// Calls offered to the provider: new requests plus retries.
    pub offered: u64,
    /// Retry calls among `offered`.
    pub retries: u64,
    /// Calls that succeeded (each ends its request).
    pub succeeded: u64,
    /// Calls that failed (read timeouts), retried or not.
    pub failed_calls: u64,
    /// Requests that ended in failure in this step (attempts used up, or the budget said no).
    pub failed: u64,
    /// Retries the budget refused (counted in `failed` too).
    pub budget_refused: u64,
    /// Whether more calls were offered than the capacity.
    pub overloaded: bool,
}

/// Counts over the whole run (not rates).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AmplificationTotals {
    /// New requests.
    pub requests: u64,
    /// Calls offered: requests plus retries.
    pub calls: u64,
    pub retries: u64,
    /// Requests that succeeded.
    pub succeeded: u64,
    /// Requests that failed for good.
    pub failed: u64,
    /// Retries the budget refused.
    pub budget_refused: u64,
    /// Requests still waiting for a retry when the run ended.
    pub pending_at_end: u64,
}

/// One policy's run: a line of the chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AmplificationRun {
    pub policy: AmplificationPolicy,
    pub step_ms: Millis,
    pub degradation_start_ms: Millis,
    pub degradation_end_ms: Millis,
    pub steps: Vec<AmplificationStep>,
    pub totals: AmplificationTotals,
    /// The start of the first step, at or after the end of the degradation, from which the
    /// provider is never overloaded again until the end of the run; `None` if it still is
    /// at the end (or the degradation outlasts the run).
    pub recovered_at_ms: Option<Millis>,
}

/// Requests waiting for their retry in a given step after a given number of attempts.
#[derive(Debug, Clone, Copy, Default)]
struct Cohort {
    count: u64,
    /// The wait before this retry (count-weighted mean after a merge); decorrelated jitter
    /// grows from it.
    previous_wait: Millis,
}

impl Cohort {
    fn add(&mut self, count: u64, wait: Millis) {
        if count == 0 {
            return;
        }
        let total = self.count + count;
        let weighted = u128::from(self.previous_wait) * u128::from(self.count)
            + u128::from(wait) * u128::from(count);
        // A mean of two waits: below 2^64.
        self.previous_wait = (weighted / u128::from(total)) as Millis;
        self.count = total;
    }
}

/// Runs one policy over the whole config. Validates first; never panics.
pub fn run(
    config: &AmplificationConfig,
    policy: AmplificationPolicy,
) -> Result<AmplificationRun, ConfigError> {
    config.validate()?;
    let mut rng = Pcg64Mcg::seed_from_u64(config.seed);

    // The core retry decides, after the k-th attempt failed, whether there is another.
    let retry = Retry::new(config.retry_config(policy))?;
    let max_attempts = retry.config().max_attempts as usize;
    // retries_after[k]: whether a request whose k-th attempt failed tries again.
    let mut retries_after = vec![false; max_attempts + 1];
    let mut context = retry.start();
    while let RetryDecision::RetryAfter { attempt, .. } =
        context.on_outcome(Outcome::ReadTimeout, &mut rng)
    {
        retries_after[attempt as usize - 1] = true;
    }

    let backoff = config.backoff();
    let mut budget = match policy {
        AmplificationPolicy::Budget => Some(RetryBudget::new(config.budget_config())?),
        _ => None,
    };

    let steps = (config.duration_ms / STEP_MS) as usize;
    let degradation_start = config.degradation_start_ms / STEP_MS;
    let degradation_end = config.degradation_end_ms() / STEP_MS;
    let normal = config.normal_capacity_per_second() / STEPS_PER_SECOND as f64;
    let degraded = config.degraded_capacity_per_second() / STEPS_PER_SECOND as f64;
    let demand = u64::from(config.demand_per_second);

    // pending[step * width + k]: requests whose k-th attempt failed, retrying in `step`.
    let width = max_attempts + 1;
    let mut pending = vec![Cohort::default(); steps * width];
    let mut beyond_end = 0_u64;

    let mut rows = Vec::with_capacity(steps);
    let mut totals = AmplificationTotals::default();
    // The cohorts offered in the current step: (attempts made before, cohort).
    let mut due: Vec<(usize, Cohort)> = Vec::with_capacity(width);
    let mut shares: Vec<(u64, u64)> = Vec::with_capacity(width);

    for step in 0..steps {
        let now = step as Millis * STEP_MS;
        let s = step as u64;
        let capacity = if (degradation_start..degradation_end).contains(&s) {
            degraded
        } else {
            normal
        };
        let arrivals = (s + 1) * demand / STEPS_PER_SECOND - s * demand / STEPS_PER_SECOND;
        if let Some(budget) = budget.as_mut() {
            budget.deposit_many(now, arrivals);
        }

        due.clear();
        due.push((
            0,
            Cohort {
                count: arrivals,
                previous_wait: 0,
            },
        ));
        for k in 1..width {
            let cohort = pending[step * width + k];
            if cohort.count > 0 {
                due.push((k, cohort));
            }
        }
        let offered: u64 = due.iter().map(|(_, c)| c.count).sum();
        let retried = offered - arrivals;
        let served = (goodput(offered as f64, capacity, config.waste).round() as u64).min(offered);

        // Share the successes out in proportion to the cohorts, largest remainder first.
        shares.clear();
        let mut given = 0;
        for (_, cohort) in &due {
            let exact = u128::from(served) * u128::from(cohort.count);
            // served <= offered: the share is at most the cohort, below 2^64.
            let (base, remainder) = if offered == 0 {
                (0, 0)
            } else {
                let offered = u128::from(offered);
                ((exact / offered) as u64, (exact % offered) as u64)
            };
            given += base;
            shares.push((base, remainder));
        }
        let mut left = served - given;
        while left > 0 {
            // At most one extra success per cohort; the largest remainder (first on ties).
            let mut best: Option<usize> = None;
            for (i, (base, remainder)) in shares.iter().enumerate() {
                if *base < due[i].1.count && *remainder > 0 {
                    match best {
                        Some(b) if shares[b].1 >= *remainder => {}
                        _ => best = Some(i),
                    }
                }
            }
            let Some(i) = best else { break };
            shares[i].0 += 1;
            shares[i].1 = 0;
            left -= 1;
        }

        let mut failed_calls = 0;
        let mut failed = 0;
        let mut refused = 0;
        for (i, (k, cohort)) in due.iter().enumerate() {
            let failures = cohort.count - shares[i].0;
            if failures == 0 {
                continue;
            }
            failed_calls += failures;
            let attempt = k + 1;
            if !retries_after[attempt] {
                failed += failures;
                continue;
            }
            let allowed = match budget.as_mut() {
                None => failures,
                Some(budget) => budget.withdraw_up_to(now, failures),
            };
            refused += failures - allowed;
            failed += failures - allowed;
            if allowed == 0 {
                continue;
            }
            let spread = backoff.is_some_and(|b| b.jitter != Jitter::None);
            let parts = if spread {
                allowed.min(JITTER_SPLITS)
            } else {
                1
            };
            for part in 0..parts {
                let count = allowed / parts + u64::from(part < allowed % parts);
                let wait = match &backoff {
                    None => 0,
                    Some(b) => b.next_wait(attempt as u32, cohort.previous_wait, &mut rng),
                };
                let later = 1 + wait / STEP_MS;
                let target = s.saturating_add(later);
                if target < steps as u64 {
                    pending[target as usize * width + attempt].add(count, wait);
                } else {
                    beyond_end += count;
                }
            }
        }

        let succeeded = served;
        totals.requests += arrivals;
        totals.calls += offered;
        totals.retries += retried;
        totals.succeeded += succeeded;
        totals.failed += failed;
        totals.budget_refused += refused;
        rows.push(AmplificationStep {
            t_ms: now,
            capacity: capacity * STEPS_PER_SECOND as f64,
            requests: arrivals * STEPS_PER_SECOND,
            offered: offered * STEPS_PER_SECOND,
            retries: retried * STEPS_PER_SECOND,
            succeeded: succeeded * STEPS_PER_SECOND,
            failed_calls: failed_calls * STEPS_PER_SECOND,
            failed: failed * STEPS_PER_SECOND,
            budget_refused: refused * STEPS_PER_SECOND,
            overloaded: offered as f64 > capacity,
        });
    }
    totals.pending_at_end = beyond_end;

    let end_step = degradation_end as usize;
    let recovered_at_ms = if end_step >= rows.len() {
        None
    } else {
        let last_overloaded = rows.iter().rposition(|r| r.overloaded);
        match last_overloaded {
            Some(i) if i + 1 >= rows.len() => None,
            Some(i) if i + 1 > end_step => Some(rows[i + 1].t_ms),
            _ => Some(rows[end_step].t_ms),
        }
    };

    Ok(AmplificationRun {
        policy,
        step_ms: STEP_MS,
        degradation_start_ms: config.degradation_start_ms,
        degradation_end_ms: config.degradation_end_ms(),
        steps: rows,
        totals,
        recovered_at_ms,
    })
}

/// The three lines of the chart, for the same config.
pub fn run_all(config: &AmplificationConfig) -> Result<[AmplificationRun; 3], ConfigError> {
    Ok([
        run(config, AmplificationPolicy::None)?,
        run(config, AmplificationPolicy::Retries)?,
        run(config, AmplificationPolicy::Budget)?,
    ])
}

impl AmplificationRun {
    /// Mean successes per second after the degradation ended, as a percentage of demand:
    /// the number the page's summary reads ("successes stay at 38 % of demand"). `None`
    /// when the degradation lasts to the end of the run.
    pub fn success_percent_after_trigger(&self, demand_per_second: u32) -> Option<f64> {
        let after: Vec<&AmplificationStep> = self
            .steps
            .iter()
            .filter(|s| s.t_ms >= self.degradation_end_ms)
            .collect();
        if after.is_empty() || demand_per_second == 0 {
            return None;
        }
        let mean = after.iter().map(|s| s.succeeded as f64).sum::<f64>() / after.len() as f64;
        Some(100.0 * mean / f64::from(demand_per_second))
    }

    /// Calls made per original request over the whole run (1.0 = no amplification).
    pub fn amplification(&self) -> f64 {
        if self.totals.requests == 0 {
            return 0.0;
        }
        self.totals.calls as f64 / self.totals.requests as f64
    }
}
