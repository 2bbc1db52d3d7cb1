//! Retry budgets: retries may add at most a fixed fraction to the normal traffic.
//!
//! `maxAttempts` caps retries *per request*, which is the wrong unit when a dependency is
//! really down: then every request fails, every request retries, and the dependency sees
//! `maxAttempts` times its normal load exactly when it can least afford it. Those extra
//! calls can keep it overloaded after the original cause is gone (a metastable failure).
//! A retry budget caps retries *per unit of traffic* instead: while most requests succeed,
//! the few that fail may retry freely; when most fail, the budget runs dry and retries stop
//! by themselves, so the load on the dependency stays within a known factor of normal.
//!
//! Resilience4j has no retry budget. This module follows **Finagle's `RetryBudget`**
//! (`TokenRetryBudget` over `TokenBucket.newLeakyBucket`, the same design as tower's
//! `TpsBudget`):
//!
//! - every original request deposits `retryPercent / 100` of a token;
//! - every retry must withdraw one whole token, and is refused if the balance is short;
//! - deposits *and* withdrawals expire after about `ttl`, so the budget reflects recent
//!   traffic only: a window of ten slices of `ttl / 10` each, a slice leaving the window
//!   whole (so an entry lives between 9/10 and 10/10 of `ttl`);
//! - a reserve of `minRetriesPerSecond x ttl` tokens per window lets a client that has just
//!   started, or that sends few requests, still retry a little.
//!
//! The arithmetic is Finagle's, in integers: a deposit is 1000 units, a withdrawal
//! `trunc(1000 / (retryPercent / 100))` units (so 10 % costs 10 000, 30 % costs 3 333), the
//! reserve `minRetriesPerSecond x whole seconds of ttl x withdrawal`. With
//! `minRetriesPerSecond` 0 and `retryPercent` 10, retries within any window are at most
//! 10 % of the requests deposited in it: "retries may add at most 10 % to the normal
//! traffic" ([`RetryBudgetConfig::percent_of_traffic`]). Finagle's default is 20 % on top
//! of 10 retries per second over 10 s.
//!
//! Slices are aligned to multiples of `ttl / 10` of virtual time (Finagle starts its first
//! slice when the bucket is created; the difference is at most one slice).
//!
//! Demo 15 uses this rule twice: as **the course's retry budget** (10 %, no reserve:
//! retries at most 10 % of the requests over 10 s, so 1.1 attempts per request once
//! failures pass about 9 %) and as **Finagle's defaults** (20 % plus 10 retries/s: 1.21
//! at 1,000 requests/s). Both count on *requests*, whatever happens to them, so they keep
//! retrying 10-21 % into a dependency that is completely down; the token bucket
//! ([`super::token_bucket`]) counts on successes and stops.

use serde::{Deserialize, Serialize};

use crate::{ConfigError, Millis};

/// Finagle's scale: a deposit is worth this many units.
const SCALE: f64 = 1000.0;
const SLICES: usize = 10;

/// Settings of a retry budget (Finagle's `RetryBudget(ttl, minRetriesPerSec, percentCanRetry)`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct RetryBudgetConfig {
    /// How long deposits and withdrawals count (1 s to 60 s; default 10 s).
    #[serde(with = "crate::duration::serde_millis")]
    pub ttl: Millis,
    /// Retries always allowed per second, on top of the percentage (default 10).
    pub min_retries_per_second: u32,
    /// Retries allowed per 100 original requests (default 20; 0 to 100 000).
    pub retry_percent: f64,
}

impl Default for RetryBudgetConfig {
    fn default() -> Self {
        Self {
            ttl: 10_000,
            min_retries_per_second: 10,
            retry_percent: 20.0,
        }
    }
}

impl RetryBudgetConfig {
    /// Retries may add at most `percent` % to the normal traffic: no reserve, default ttl.
    pub fn percent_of_traffic(percent: f64) -> Self {
        Self {
            min_retries_per_second: 0,
            retry_percent: percent,
            ..Self::default()
        }
    }

    /// Finagle's rules: ttl within [1 s, 60 s], percentage within [0, 1000] as a fraction
    /// (here [0, 100 000] %).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(1_000..=60_000).contains(&self.ttl) {
            return Err(ConfigError::new("ttl", "must be between 1s and 60s"));
        }
        if !self.retry_percent.is_finite() || !(0.0..=100_000.0).contains(&self.retry_percent) {
            return Err(ConfigError::new(
                "retryPercent",
                "must be between 0 and 100000",
            ));
        }
        Ok(())
    }
}

/// A time-windowed sum in ten slices of `ttl / 10` (Finagle's `WindowedAdder`).
#[derive(Debug, Clone)]
struct Window {
    slice_len: Millis,
    sums: [i64; SLICES],
    /// Which slice (time / slice_len) each entry holds; `u64::MAX` when unused.
    epochs: [u64; SLICES],
}

impl Window {
    fn new(ttl: Millis) -> Self {
        Self {
            slice_len: (ttl / SLICES as u64).max(1),
            sums: [0; SLICES],
            epochs: [u64::MAX; SLICES],
        }
    }

    fn add(&mut self, now: Millis, amount: i64) {
        let epoch = now / self.slice_len;
        let index = (epoch % SLICES as u64) as usize;
        if self.epochs[index] != epoch {
            self.epochs[index] = epoch;
            self.sums[index] = 0;
        }
        self.sums[index] += amount;
    }

    fn sum(&self, now: Millis) -> i64 {
        let epoch = now / self.slice_len;
        self.epochs
            .iter()
            .zip(self.sums.iter())
            .filter(|(&e, _)| e <= epoch && epoch - e < SLICES as u64)
            .map(|(_, &s)| s)
            .sum()
    }
}

/// A Finagle-style retry budget. Call [`deposit`](Self::deposit) for every original request
/// and [`try_withdraw`](Self::try_withdraw) before every retry (a refused retry is not
/// made: the caller gets the last failure). `now` must not go backwards.
#[derive(Debug, Clone)]
pub struct RetryBudget {
    config: RetryBudgetConfig,
    deposit_amount: i64,
    withdrawal_amount: i64,
    reserve: i64,
    window: Window,
    deposits: u64,
    withdrawals: u64,
    refusals: u64,
}

impl RetryBudget {
    pub fn new(config: RetryBudgetConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let (deposit_amount, withdrawal_amount) = if config.retry_percent == 0.0 {
            // Only the reserve: every retry costs 1 and requests earn nothing.
            (0, 1)
        } else {
            // SCALE / (percent / 100), written so whole percentages divide exactly.
            let withdrawal = (SCALE * 100.0 / config.retry_percent) as i64;
            (SCALE as i64, withdrawal.max(1))
        };
        let ttl_seconds = (config.ttl / 1_000) as i64;
        let reserve = i64::from(config.min_retries_per_second)
            .saturating_mul(ttl_seconds)
            .saturating_mul(withdrawal_amount);
        let window = Window::new(config.ttl);
        Ok(Self {
            config,
            deposit_amount,
            withdrawal_amount,
            reserve,
            window,
            deposits: 0,
            withdrawals: 0,
            refusals: 0,
        })
    }

    pub fn config(&self) -> &RetryBudgetConfig {
        &self.config
    }

    /// An original request (not a retry) was sent at `now`.
    pub fn deposit(&mut self, now: Millis) {
        self.deposits += 1;
        if self.deposit_amount > 0 {
            self.window.add(now, self.deposit_amount);
        }
    }

    /// `count` original requests were sent at `now`: the same as `count` calls of
    /// [`deposit`](Self::deposit), in one step (a rate model sends thousands a step).
    pub fn deposit_many(&mut self, now: Millis, count: u64) {
        self.deposits += count;
        if self.deposit_amount > 0 && count > 0 {
            let units = i64::try_from(count)
                .unwrap_or(i64::MAX)
                .saturating_mul(self.deposit_amount);
            self.window.add(now, units);
        }
    }

    /// Asks to make `count` retries at `now`; returns how many are paid for. The same as
    /// `count` calls of [`try_withdraw`](Self::try_withdraw) at one instant: each is paid
    /// while the budget holds a retry's worth, so the first [`balance`](Self::balance)
    /// are made and the rest refused (and counted as refusals).
    pub fn withdraw_up_to(&mut self, now: Millis, count: u64) -> u64 {
        let allowed = count.min(self.balance(now));
        if allowed > 0 {
            // allowed <= balance = units / withdrawal_amount: the product fits.
            self.window.add(
                now,
                -(allowed as i64).saturating_mul(self.withdrawal_amount),
            );
        }
        self.withdrawals += allowed;
        self.refusals += count - allowed;
        allowed
    }

    /// Asks to make one retry at `now`; on true the retry is paid for.
    pub fn try_withdraw(&mut self, now: Millis) -> bool {
        if self.is_empty_budget() {
            self.refusals += 1;
            return false;
        }
        if self.units(now) >= self.withdrawal_amount {
            self.window.add(now, -self.withdrawal_amount);
            self.withdrawals += 1;
            true
        } else {
            self.refusals += 1;
            false
        }
    }

    /// Retries that could be made right now.
    pub fn balance(&self, now: Millis) -> u64 {
        if self.is_empty_budget() {
            return 0;
        }
        (self.units(now).max(0) / self.withdrawal_amount) as u64
    }

    /// Original requests deposited over the budget's life.
    pub fn deposits(&self) -> u64 {
        self.deposits
    }

    /// Retries paid for over the budget's life.
    pub fn withdrawals(&self) -> u64 {
        self.withdrawals
    }

    /// Retries refused over the budget's life.
    pub fn refusals(&self) -> u64 {
        self.refusals
    }

    /// Finagle's `RetryBudget.Empty`: no reserve and no percentage allows nothing.
    fn is_empty_budget(&self) -> bool {
        self.config.min_retries_per_second == 0 && self.config.retry_percent == 0.0
    }

    fn units(&self, now: Millis) -> i64 {
        self.window.sum(now) + self.reserve
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bulk calls are the single ones repeated: same answers, same counters, same
    /// budget afterwards, for budgets with and without a percentage or a reserve.
    #[test]
    fn many_at_once_is_one_at_a_time() {
        let configs = [
            (10.0, 10, 10_000),
            (20.0, 0, 1_000),
            (0.0, 3, 10_000),
            (0.0, 0, 10_000),
            (150.0, 1, 5_000),
        ];
        for (percent, reserve, ttl) in configs {
            let config = RetryBudgetConfig {
                retry_percent: percent,
                min_retries_per_second: reserve,
                ttl,
            };
            let mut one = RetryBudget::new(config.clone()).unwrap();
            let mut many = RetryBudget::new(config).unwrap();
            let mut seed = 7_u64;
            for step in 0..400_u64 {
                let now = step * 37;
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let (sent, wanted) = ((seed >> 33) % 60, (seed >> 17) % 90);
                for _ in 0..sent {
                    one.deposit(now);
                }
                many.deposit_many(now, sent);
                let paid_one = (0..wanted).filter(|_| one.try_withdraw(now)).count() as u64;
                let paid_many = many.withdraw_up_to(now, wanted);
                assert_eq!(paid_one, paid_many, "{percent} % at {now} ms");
                assert_eq!(one.balance(now), many.balance(now));
            }
            assert_eq!(
                (one.deposits(), one.withdrawals(), one.refusals()),
                (many.deposits(), many.withdrawals(), many.refusals())
            );
            // Both answers were given (Finagle's empty budget pays for nothing).
            let empty = percent == 0.0 && reserve == 0;
            assert_eq!(
                one.withdrawals() == 0,
                empty,
                "{percent} %, reserve {reserve}"
            );
            assert!(one.refusals() > 0, "{percent} %, reserve {reserve}");
        }
    }

    #[test]
    fn window_keeps_ten_slices() {
        let mut w = Window::new(10_000);
        w.add(0, 5);
        w.add(999, 1);
        w.add(1_000, 2);
        assert_eq!(w.sum(1_000), 8);
        assert_eq!(w.sum(9_999), 8);
        assert_eq!(w.sum(10_000), 2, "the slice [0, 1000) has left");
        assert_eq!(w.sum(11_000), 0);
        // A slot reused by a later slice starts from zero.
        w.add(20_500, 7);
        assert_eq!(w.sum(20_500), 7);
    }

    #[test]
    fn finagle_amounts() {
        let b = RetryBudget::new(RetryBudgetConfig::percent_of_traffic(10.0)).unwrap();
        assert_eq!(
            (b.deposit_amount, b.withdrawal_amount, b.reserve),
            (1_000, 10_000, 0)
        );
        let b = RetryBudget::new(RetryBudgetConfig {
            retry_percent: 30.0,
            ..RetryBudgetConfig::default()
        })
        .unwrap();
        // 10 retries/s x 10 s x 3333 units.
        assert_eq!((b.withdrawal_amount, b.reserve), (3_333, 333_300));
        let b = RetryBudget::new(RetryBudgetConfig {
            retry_percent: 0.0,
            ..RetryBudgetConfig::default()
        })
        .unwrap();
        assert_eq!(
            (b.deposit_amount, b.withdrawal_amount, b.reserve),
            (0, 1, 100)
        );
    }
}
