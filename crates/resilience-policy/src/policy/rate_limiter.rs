//! Rate limiting: at most so many calls per period.
//!
//! A rate limiter answers a different question from the other policies. A breaker asks "is
//! the dependency healthy?", a bulkhead "how many calls are in flight?", a time limiter "how
//! long may this call take?". A rate limiter asks "how many calls have started in this
//! period?", and refuses the rest with `RequestNotPermitted`. It protects one side of a
//! contract about *rate*, and where it stands says which side:
//!
//! - **At the door** (a limiter on the server, per client or per key) it protects *us from
//!   our clients*: one caller's burst, a retry storm or a scraper cannot take the capacity
//!   the others paid for. The refusal is cheap (a 429 before any work is done), which is
//!   the point: the work not done is what keeps the service up.
//! - **On a client** (a limiter around our calls to a provider) it keeps *the provider's
//!   contract*: a payment API that allows 100 calls per second answers the 101st with a
//!   429, or bills it, or bans the key. Limiting ourselves is cheaper than being limited.
//!
//! Inside Resilience4j's stack, `Retry(CircuitBreaker(RateLimiter(TimeLimiter(Bulkhead(call)))))`,
//! the limiter sits *inside* the breaker: a `RequestNotPermitted` is an exception the
//! breaker sees, and it counts as a failure unless it is in the breaker's
//! `ignoreExceptions`. A limiter that refuses our own excess can so open a breaker on a
//! healthy provider. And the retry outside both will retry the refusal unless told not to.
//!
//! ## Resilience4j's `AtomicRateLimiter`, exactly
//!
//! This is the default implementation, modelled state for state. Its settings are
//! `limitForPeriod` (50), `limitRefreshPeriod` (500 **nanoseconds**: the default allows
//! 100 million calls per second, i.e. no limit until you set one) and `timeoutDuration`
//! (5 s, how long a caller may wait for a permission). What surprises people:
//!
//! - **Cycles are counted from the limiter's creation**, not from the first call. A limiter
//!   of 10 per second created at 0 ms and first called at 900 ms has 10 permissions until
//!   1,000 ms and 10 fresh ones after: 20 calls within 200 ms.
//! - **Unused permissions do not pile up** past one period's worth: at a refresh the count
//!   becomes `min(available + cycles × limitForPeriod, limitForPeriod)`.
//! - **A waiting caller reserves a permission of a coming cycle.** When no permission is
//!   left and the next one will be there within `timeoutDuration`, the caller takes it now
//!   (the count goes negative) and sleeps until its cycle starts; the callers after it
//!   queue behind the reservation. So the available count is often negative.
//! - **A refused caller still waits the whole `timeoutDuration`** before it gets
//!   `RequestNotPermitted` (`waitForPermission(timeoutInNanos); return false`): a timeout of
//!   5 s turns every excess call into a 5 s stall, holding its thread. A limiter that should
//!   shed load at once needs `timeoutDuration: 0`.
//! - `changeLimitForPeriod` and `changeTimeoutDuration` change the config only: the
//!   permissions already counted in this cycle stay; the new limit applies from the next
//!   refresh.
//! - `drainPermissions` subtracts the permissions the limiter held *before* its refresh
//!   from what it holds after: within a cycle it leaves 0, but called at the start of a new
//!   cycle after idle ones it leaves `refreshed - stale`, not 0.
//!
//! Time is the engine's millisecond clock, turned into nanoseconds since the limiter's
//! creation; every computation is Java's, `int` and `long` wrapping included.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::{Deserialize, Serialize};

use crate::{ConfigError, Millis};

/// A duration or instant in nanoseconds (Java's `Duration.toNanos()`).
pub type Nanos = u64;

const NANOS_PER_MS: i64 = 1_000_000;

/// Settings of a rate limiter (Resilience4j `RateLimiterConfig`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct RateLimiterConfig {
    /// Permissions per refresh period (default 50; at least 1).
    pub limit_for_period: u32,
    /// The length of one cycle (default 500 ns; at least 1 ns).
    #[serde(with = "crate::duration::serde_nanos")]
    pub limit_refresh_period: Nanos,
    /// How long a caller may wait for a permission (default 5 s; 0 refuses at once).
    #[serde(with = "crate::duration::serde_nanos")]
    pub timeout_duration: Nanos,
    /// Whether `RequestNotPermitted` carries a stack trace (default true; no effect here).
    pub writable_stack_trace_enabled: bool,
}

impl Default for RateLimiterConfig {
    fn default() -> Self {
        Self {
            limit_for_period: 50,
            limit_refresh_period: 500,
            timeout_duration: 5_000_000_000,
            writable_stack_trace_enabled: true,
        }
    }
}

impl RateLimiterConfig {
    /// The builder's rules, with its messages: `LimitForPeriod should be greater than 0`,
    /// `LimitRefreshPeriod is too short` (under 1 ns), and both durations within Java's
    /// `long` nanoseconds (`... too large`).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.limit_for_period < 1 {
            return Err(ConfigError::new(
                "limitForPeriod",
                "should be greater than 0",
            ));
        }
        if self.limit_for_period > i32::MAX as u32 {
            return Err(ConfigError::new(
                "limitForPeriod",
                format!("must be at most {} (a Java int)", i32::MAX),
            ));
        }
        if self.limit_refresh_period < 1 {
            return Err(ConfigError::new(
                "limitRefreshPeriod",
                "is too short (under 1 ns)",
            ));
        }
        for (field, nanos) in [
            ("limitRefreshPeriod", self.limit_refresh_period),
            ("timeoutDuration", self.timeout_duration),
        ] {
            if nanos > i64::MAX as u64 {
                return Err(ConfigError::new(
                    field,
                    "is too large (past Java's long nanoseconds, about 292 years)",
                ));
            }
        }
        Ok(())
    }
}

/// Resilience4j's `RateLimiterEvent.Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RateLimiterEventType {
    SuccessfulAcquire,
    FailedAcquire,
    Drained,
}

/// What `acquirePermission` did for one caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Acquisition {
    /// Whether the caller got its permissions (else `RequestNotPermitted`).
    pub permitted: bool,
    /// How long the caller is parked before the answer: the wait for its reserved cycle
    /// when permitted, the whole `timeoutDuration` when refused (Resilience4j waits it out).
    pub waited: Nanos,
}

impl Acquisition {
    pub fn event(&self) -> RateLimiterEventType {
        if self.permitted {
            RateLimiterEventType::SuccessfulAcquire
        } else {
            RateLimiterEventType::FailedAcquire
        }
    }
}

/// `AtomicRateLimiter.State`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct State {
    active_cycle: i64,
    active_permissions: i32,
    nanos_to_wait: i64,
}

/// One rate limiter (Resilience4j `AtomicRateLimiter`).
#[derive(Debug, Clone)]
pub struct RateLimiter {
    config: RateLimiterConfig,
    /// The creation instant in nanoseconds of the engine's clock (`nanoTimeStart`).
    created_at: i64,
    state: State,
    /// When each parked caller wakes (nanoseconds of the engine's clock), soonest first.
    waiting: BinaryHeap<Reverse<i64>>,
}

/// The engine's milliseconds as nanoseconds, saturating past Java's `long`.
fn to_nanos(ms: Millis) -> i64 {
    i64::try_from(ms)
        .ok()
        .and_then(|ms| ms.checked_mul(NANOS_PER_MS))
        .unwrap_or(i64::MAX)
}

impl RateLimiter {
    /// A limiter created at `now`, with a full first cycle (`limitForPeriod` permissions).
    pub fn new(config: RateLimiterConfig, now: Millis) -> Result<Self, ConfigError> {
        config.validate()?;
        let state = State {
            active_cycle: 0,
            active_permissions: config.limit_for_period as i32,
            nanos_to_wait: 0,
        };
        Ok(Self {
            config,
            created_at: to_nanos(now),
            state,
            waiting: BinaryHeap::new(),
        })
    }

    pub fn config(&self) -> &RateLimiterConfig {
        &self.config
    }

    /// `currentNanoTime()`: nanoseconds since creation (never negative here: an instant
    /// before creation counts as the creation).
    fn current_nanos(&self, now: Millis) -> i64 {
        to_nanos(now).saturating_sub(self.created_at).max(0)
    }

    /// `calculateNextState`: the refresh, the wait for `permits`, and the reservation when
    /// the wait fits in `timeout` (Java `int`/`long` arithmetic, wrapping as Java does).
    fn next_state(&self, permits: i32, timeout: i64, now: Millis) -> State {
        let period = self.config.limit_refresh_period as i64;
        let per_cycle = self.config.limit_for_period as i32;
        let current_nanos = self.current_nanos(now);
        let current_cycle = current_nanos / period;
        let mut cycle = self.state.active_cycle;
        let mut permissions = self.state.active_permissions;
        if cycle != current_cycle {
            let elapsed = current_cycle.wrapping_sub(cycle);
            let accumulated = elapsed.wrapping_mul(per_cycle as i64);
            cycle = current_cycle;
            permissions = (permissions as i64)
                .wrapping_add(accumulated)
                .min(per_cycle as i64) as i32;
        }
        let nanos_to_wait = if permissions >= permits {
            0
        } else {
            let next_cycle_start = current_cycle.wrapping_add(1).wrapping_mul(period);
            let to_next_cycle = next_cycle_start.wrapping_sub(current_nanos);
            let at_next_cycle = permissions.wrapping_add(per_cycle);
            // divCeil(-(at_next_cycle - permits), per_cycle), in Java ints.
            let x = at_next_cycle.wrapping_sub(permits).wrapping_neg();
            let full_cycles = x.wrapping_add(per_cycle).wrapping_sub(1) / per_cycle;
            (full_cycles as i64)
                .wrapping_mul(period)
                .wrapping_add(to_next_cycle)
        };
        if timeout >= nanos_to_wait {
            permissions = permissions.wrapping_sub(permits);
        }
        State {
            active_cycle: cycle,
            active_permissions: permissions,
            nanos_to_wait,
        }
    }

    /// Callers whose wait ended by `now` stop counting as waiting.
    fn wake(&mut self, now: Millis) {
        let now = to_nanos(now);
        while self.waiting.peek().is_some_and(|Reverse(at)| *at <= now) {
            self.waiting.pop();
        }
    }

    fn park(&mut self, now: Millis, nanos: i64) {
        if nanos > 0 {
            self.waiting
                .push(Reverse(to_nanos(now).saturating_add(nanos)));
        }
    }

    fn timeout(&self) -> i64 {
        self.config.timeout_duration as i64
    }

    /// `acquirePermission(permits)` at `now`: permitted at once, permitted after a wait
    /// for a reserved permission of a coming cycle, or refused after waiting the whole
    /// `timeoutDuration`. The caller counts as waiting until its wait ends.
    pub fn acquire_permission(&mut self, now: Millis, permits: u32) -> Acquisition {
        self.wake(now);
        let permits = permits.min(i32::MAX as u32) as i32;
        let timeout = self.timeout();
        self.state = self.next_state(permits, timeout, now);
        let wait = self.state.nanos_to_wait;
        if wait <= 0 {
            return Acquisition {
                permitted: true,
                waited: 0,
            };
        }
        let (permitted, parked) = if timeout >= wait {
            (true, wait)
        } else {
            (false, timeout)
        };
        self.park(now, parked);
        Acquisition {
            permitted,
            waited: parked as Nanos,
        }
    }

    /// `reservePermission(permits)`: like an acquisition, but the caller does its own
    /// waiting: `Some(wait)` (0 for at once) when permitted, `None` when refused (no wait).
    pub fn reserve_permission(&mut self, now: Millis, permits: u32) -> Option<Nanos> {
        self.wake(now);
        let permits = permits.min(i32::MAX as u32) as i32;
        let timeout = self.timeout();
        self.state = self.next_state(permits, timeout, now);
        let wait = self.state.nanos_to_wait;
        if wait <= 0 {
            Some(0)
        } else if timeout >= wait {
            Some(wait as Nanos)
        } else {
            None
        }
    }

    /// `drainPermissions()`: the DRAINED event's permit count is
    /// `min(permissions before, 0)`, as Resilience4j publishes it.
    pub fn drain_permissions(&mut self, now: Millis) -> i32 {
        self.wake(now);
        let before = self.state.active_permissions;
        self.state = self.next_state(before, 0, now);
        before.min(0)
    }

    /// `changeLimitForPeriod`: from the next refresh on (the builder refuses 0).
    pub fn change_limit_for_period(&mut self, limit_for_period: u32) -> Result<(), ConfigError> {
        let config = RateLimiterConfig {
            limit_for_period,
            ..self.config.clone()
        };
        config.validate()?;
        self.config = config;
        Ok(())
    }

    /// `changeTimeoutDuration`: for the callers that come next.
    pub fn change_timeout_duration(&mut self, timeout: Nanos) -> Result<(), ConfigError> {
        let config = RateLimiterConfig {
            timeout_duration: timeout,
            ..self.config.clone()
        };
        config.validate()?;
        self.config = config;
        Ok(())
    }

    /// `Metrics.getAvailablePermissions()`: after the refresh due at `now`; negative while
    /// waiting callers hold reservations.
    pub fn available_permissions(&self, now: Millis) -> i32 {
        self.next_state(1, -1, now).active_permissions
    }

    /// `AtomicRateLimiterMetrics.getNanosToWait()`: how long one more permission would take.
    pub fn nanos_to_wait(&self, now: Millis) -> i64 {
        self.next_state(1, -1, now).nanos_to_wait
    }

    /// `AtomicRateLimiterMetrics.getCycle()`: the cycle `now` falls in, from creation.
    pub fn cycle(&self, now: Millis) -> i64 {
        self.next_state(1, -1, now).active_cycle
    }

    /// `Metrics.getNumberOfWaitingThreads()`: callers parked at `now`.
    pub fn number_of_waiting_threads(&self, now: Millis) -> u32 {
        let now = to_nanos(now);
        let count = match self.waiting.peek() {
            // Every operation wakes the callers whose wait has ended: usually none is left
            // to skip, and the count is the heap's length, not a walk through it.
            Some(Reverse(first)) if *first <= now => {
                self.waiting.iter().filter(|Reverse(at)| *at > now).count()
            }
            _ => self.waiting.len(),
        };
        u32::try_from(count).unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(limit: u32, period_ms: u64, timeout_ms: u64) -> RateLimiter {
        RateLimiter::new(
            RateLimiterConfig {
                limit_for_period: limit,
                limit_refresh_period: period_ms * 1_000_000,
                timeout_duration: timeout_ms * 1_000_000,
                ..RateLimiterConfig::default()
            },
            0,
        )
        .unwrap()
    }

    #[test]
    fn a_full_first_cycle_then_refusal_without_timeout() {
        let mut l = limiter(2, 1_000, 0);
        assert!(l.acquire_permission(0, 1).permitted);
        assert!(l.acquire_permission(0, 1).permitted);
        let third = l.acquire_permission(0, 1);
        assert_eq!((third.permitted, third.waited), (false, 0));
        assert_eq!(l.available_permissions(0), 0);
        assert_eq!(l.available_permissions(1_000), 2);
    }
}
