//! How long to wait before the next attempt: Resilience4j's interval functions, and the
//! jitter modes of the retry labs.
//!
//! Waiting between attempts gives a struggling dependency a moment to recover, and growing
//! the wait (exponential backoff) makes a client that keeps failing ask less and less
//! often. But when many clients failed *together* (a failover, a connection reset), a
//! deterministic backoff keeps them together: waiting 1 s, then 2 s, then 4 s, those still
//! failing all come back at 1 s, 3 s and 7 s, in synchronized waves that can knock the
//! recovering server over again. Jitter (randomness in the wait) spreads each wave out.
//! Neither reduces the *number* of retries: only a cap does (`maxAttempts`, a
//! [retry budget](super::budget)).
//!
//! Two vocabularies live here:
//! - [`IntervalFunction`]: Resilience4j's `IntervalFunction` (fixed, exponential,
//!   randomized, exponential randomized), with its exact arithmetic: whole milliseconds,
//!   truncation at every exponential step, and its randomization formula.
//! - [`Backoff`] with [`Jitter`]: the modes of the AWS Architecture Blog's "Exponential
//!   Backoff And Jitter" (none, full, equal, decorrelated), which Resilience4j does not
//!   offer by those names and which Lab B compares.
//!
//! Randomness always comes from the caller's seeded generator, so a run is reproducible.

use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use crate::{ConfigError, Millis};

/// Resilience4j's default initial interval (ms).
pub const DEFAULT_INITIAL_INTERVAL: Millis = 500;
/// Resilience4j's default exponential multiplier.
pub const DEFAULT_MULTIPLIER: f64 = 1.5;
/// Resilience4j's default randomization factor.
pub const DEFAULT_RANDOMIZATION_FACTOR: f64 = 0.5;

/// Java's `long` bound: a Java `(long)` cast of a large double saturates here.
const JAVA_LONG_MAX: u64 = i64::MAX as u64;

fn default_initial_interval() -> Millis {
    DEFAULT_INITIAL_INTERVAL
}
fn default_multiplier() -> f64 {
    DEFAULT_MULTIPLIER
}
fn default_randomization_factor() -> f64 {
    DEFAULT_RANDOMIZATION_FACTOR
}

/// A Resilience4j interval function: the wait after attempt `k` failed.
///
/// Validation follows Resilience4j 2.x (`io.github.resilience4j.core.IntervalFunction`
/// and the Spring Boot properties that build it); errors name the Spring Boot retry
/// property each value comes from (`waitDuration`, `exponentialBackoffMultiplier`,
/// `randomizedWaitFactor`, `exponentialMaxWaitDuration`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum IntervalFunction {
    /// `IntervalFunction.of(interval)`: the same wait every time.
    Fixed {
        #[serde(with = "crate::duration::serde_millis")]
        interval: Millis,
    },
    /// `ofExponentialBackoff(initial, multiplier[, max])`: `initial` after the first
    /// failure, then each wait is the previous one times `multiplier`, truncated to whole
    /// milliseconds at every step; optionally capped at `max_interval`.
    Exponential {
        #[serde(
            with = "crate::duration::serde_millis",
            default = "default_initial_interval"
        )]
        initial_interval: Millis,
        #[serde(default = "default_multiplier")]
        multiplier: f64,
        #[serde(
            with = "crate::duration::serde_opt_millis",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        max_interval: Option<Millis>,
    },
    /// `ofRandomized(interval, factor)`: a wait drawn around `interval`.
    Randomized {
        #[serde(
            with = "crate::duration::serde_millis",
            default = "default_initial_interval"
        )]
        interval: Millis,
        #[serde(default = "default_randomization_factor")]
        randomization_factor: f64,
    },
    /// `ofExponentialRandomBackoff(initial, multiplier, factor[, max])`: the exponential
    /// value, randomized, then capped.
    ExponentialRandomized {
        #[serde(
            with = "crate::duration::serde_millis",
            default = "default_initial_interval"
        )]
        initial_interval: Millis,
        #[serde(default = "default_multiplier")]
        multiplier: f64,
        #[serde(default = "default_randomization_factor")]
        randomization_factor: f64,
        #[serde(
            with = "crate::duration::serde_opt_millis",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        max_interval: Option<Millis>,
    },
}

impl Default for IntervalFunction {
    /// `IntervalFunction.ofDefaults()`: a fixed 500 ms.
    fn default() -> Self {
        IntervalFunction::Fixed {
            interval: DEFAULT_INITIAL_INTERVAL,
        }
    }
}

impl IntervalFunction {
    /// The wait after attempt `attempt` failed (1-based: 1 after the first call failed).
    ///
    /// Resilience4j refuses attempt 0 with an exception; here 0 is read as 1.
    pub fn interval<R: Rng + ?Sized>(&self, attempt: u32, rng: &mut R) -> Millis {
        let attempt = attempt.max(1);
        match *self {
            IntervalFunction::Fixed { interval } => interval,
            IntervalFunction::Exponential {
                initial_interval,
                multiplier,
                max_interval,
            } => {
                let value = exponential(initial_interval, multiplier, attempt);
                cap(value, max_interval)
            }
            IntervalFunction::Randomized {
                interval,
                randomization_factor,
            } => randomize(interval, randomization_factor, rng),
            IntervalFunction::ExponentialRandomized {
                initial_interval,
                multiplier,
                randomization_factor,
                max_interval,
            } => {
                let value = exponential(initial_interval, multiplier, attempt);
                cap(randomize(value, randomization_factor, rng), max_interval)
            }
        }
    }

    /// The un-randomized value for `attempt` (for randomized functions, the centre of the
    /// draw before the cap), useful for charts and for bounds in tests.
    pub fn nominal(&self, attempt: u32) -> Millis {
        let attempt = attempt.max(1);
        match *self {
            IntervalFunction::Fixed { interval } => interval,
            IntervalFunction::Randomized { interval, .. } => interval,
            IntervalFunction::Exponential {
                initial_interval,
                multiplier,
                ..
            }
            | IntervalFunction::ExponentialRandomized {
                initial_interval,
                multiplier,
                ..
            } => exponential(initial_interval, multiplier, attempt),
        }
    }

    /// The smallest and largest wait `interval(attempt)` can return.
    ///
    /// Resilience4j draws `c - r c + U (2 r c + 1)` with `U` in `[0, 1)`, floors it at
    /// 1 ms and truncates to whole ms, so the result lies in
    /// `[max(1, floor(c - r c)), ceil(c + r c)]` (then capped).
    pub fn bounds(&self, attempt: u32) -> (Millis, Millis) {
        let attempt = attempt.max(1);
        let (centre, factor, max_interval) = match *self {
            IntervalFunction::Fixed { interval } => return (interval, interval),
            IntervalFunction::Exponential { max_interval, .. } => {
                let value = cap(self.nominal(attempt), max_interval);
                return (value, value);
            }
            IntervalFunction::Randomized {
                interval,
                randomization_factor,
            } => (interval, randomization_factor, None),
            IntervalFunction::ExponentialRandomized {
                randomization_factor,
                max_interval,
                ..
            } => (self.nominal(attempt), randomization_factor, max_interval),
        };
        let c = centre as f64;
        let delta = factor * c;
        let low = to_java_long((c - delta).max(1.0).floor());
        let high = to_java_long((c + delta).ceil()).max(low);
        (cap(low, max_interval), cap(high, max_interval))
    }

    /// Resilience4j's rules for building the function.
    pub fn validate(&self) -> Result<(), ConfigError> {
        match *self {
            IntervalFunction::Fixed { interval } => check_interval("waitDuration", interval),
            IntervalFunction::Exponential {
                initial_interval,
                multiplier,
                max_interval,
            } => {
                check_interval("waitDuration", initial_interval)?;
                check_multiplier(multiplier)?;
                check_max_interval(max_interval)
            }
            IntervalFunction::Randomized {
                interval,
                randomization_factor,
            } => {
                check_interval("waitDuration", interval)?;
                check_randomization_factor(randomization_factor)
            }
            IntervalFunction::ExponentialRandomized {
                initial_interval,
                multiplier,
                randomization_factor,
                max_interval,
            } => {
                check_interval("waitDuration", initial_interval)?;
                check_multiplier(multiplier)?;
                check_randomization_factor(randomization_factor)?;
                check_max_interval(max_interval)
            }
        }
    }
}

/// `(long) x` in Java: truncation toward zero, NaN to 0, saturation at the `long` range
/// (negative values, impossible after validation, are clamped to 0).
fn to_java_long(x: f64) -> u64 {
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= JAVA_LONG_MAX as f64 {
        JAVA_LONG_MAX
    } else {
        x as u64
    }
}

/// `initial`, then `(long)(previous * multiplier)` for each further attempt.
fn exponential(initial: Millis, multiplier: f64, attempt: u32) -> Millis {
    let mut value = initial;
    for _ in 1..attempt {
        let next = to_java_long(value as f64 * multiplier);
        if next == value {
            // A fixed point (saturated, truncated back to itself, or 0): it stays there.
            break;
        }
        value = next;
    }
    value
}

/// Resilience4j's `randomize`: uniform over `[c - r c, c + r c + 1)`, at least 1, truncated.
fn randomize<R: Rng + ?Sized>(current: Millis, factor: f64, rng: &mut R) -> Millis {
    let c = current as f64;
    let delta = factor * c;
    let min = c - delta;
    let max = c + delta;
    let u: f64 = rng.random();
    let value = min + u * (max - min + 1.0);
    to_java_long(value.max(1.0))
}

fn cap(value: Millis, max_interval: Option<Millis>) -> Millis {
    match max_interval {
        Some(max) => value.min(max),
        None => value,
    }
}

fn check_interval(field: &str, interval: Millis) -> Result<(), ConfigError> {
    if interval < 1 {
        return Err(ConfigError::new(field, "must be at least 1 ms"));
    }
    Ok(())
}

fn check_max_interval(max_interval: Option<Millis>) -> Result<(), ConfigError> {
    match max_interval {
        Some(max) => check_interval("exponentialMaxWaitDuration", max),
        None => Ok(()),
    }
}

fn check_multiplier(multiplier: f64) -> Result<(), ConfigError> {
    // Resilience4j's core builder checks nothing; its Spring Boot property refuses <= 0.
    if !multiplier.is_finite() || multiplier <= 0.0 {
        return Err(ConfigError::new(
            "exponentialBackoffMultiplier",
            "must be a number greater than 0",
        ));
    }
    Ok(())
}

fn check_randomization_factor(factor: f64) -> Result<(), ConfigError> {
    // The core builder accepts [0, 1] (its Spring Boot property is stricter: [0, 1)).
    if !(0.0..=1.0).contains(&factor) {
        return Err(ConfigError::new(
            "randomizedWaitFactor",
            "must be between 0 and 1",
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Jitter (outside Resilience4j)
// ---------------------------------------------------------------------------------------

/// The jitter modes of the AWS Architecture Blog's "Exponential Backoff And Jitter".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Jitter {
    /// The plain exponential backoff: every client waits the same.
    #[default]
    None,
    /// Uniform in `[0, backoff]`.
    Full,
    /// Half the backoff plus a uniform draw in the other half: `[backoff / 2, backoff]`.
    Equal,
    /// Uniform in `[base, 3 x previous wait]`, capped; grows from the previous *wait*,
    /// not from the attempt number (the multiplier is not used).
    Decorrelated,
}

impl Jitter {
    pub const ALL: [Jitter; 4] = [
        Jitter::None,
        Jitter::Full,
        Jitter::Equal,
        Jitter::Decorrelated,
    ];

    /// The word the link, the CLI and scenario files use (as serde writes it).
    pub const fn name(self) -> &'static str {
        match self {
            Jitter::None => "none",
            Jitter::Full => "full",
            Jitter::Equal => "equal",
            Jitter::Decorrelated => "decorrelated",
        }
    }

    pub fn from_name(name: &str) -> Option<Jitter> {
        Self::ALL.into_iter().find(|j| j.name() == name)
    }

    /// A short label for a legend or a select ("full jitter").
    pub const fn label(self) -> &'static str {
        match self {
            Jitter::None => "no jitter",
            Jitter::Full => "full jitter",
            Jitter::Equal => "equal jitter",
            Jitter::Decorrelated => "decorrelated jitter",
        }
    }

    /// Plain words for the page.
    pub fn describe(self) -> &'static str {
        match self {
            Jitter::None => "no jitter: every client waits exactly the backoff",
            Jitter::Full => "full jitter: a uniform wait between 0 and the backoff",
            Jitter::Equal => "equal jitter: half the backoff, plus a uniform draw in the other half",
            Jitter::Decorrelated => {
                "decorrelated jitter: a uniform wait between the base and three times the previous wait, capped"
            }
        }
    }
}

/// Exponential backoff with a jitter mode (Lab B).
///
/// The backoff for attempt `k` (1-based, the attempt that just failed) is
/// `min(cap, base x multiplier^(k-1))`, truncated to whole milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Backoff {
    /// The first backoff, and the floor of decorrelated jitter (default 1 s).
    #[serde(with = "crate::duration::serde_millis")]
    pub base: Millis,
    /// Growth per attempt (default 2).
    pub multiplier: f64,
    /// The largest wait, if any.
    #[serde(
        with = "crate::duration::serde_opt_millis",
        skip_serializing_if = "Option::is_none"
    )]
    pub cap: Option<Millis>,
    pub jitter: Jitter,
}

impl Default for Backoff {
    fn default() -> Self {
        Self {
            base: 1_000,
            multiplier: 2.0,
            cap: None,
            jitter: Jitter::None,
        }
    }
}

impl Backoff {
    /// The un-jittered backoff after attempt `attempt` failed (0 is read as 1).
    pub fn backoff(&self, attempt: u32) -> Millis {
        let exponent = attempt.max(1) - 1;
        let exponent = i32::try_from(exponent).unwrap_or(i32::MAX);
        let raw = self.base as f64 * self.multiplier.powi(exponent);
        let value = if raw.is_nan() || raw <= 0.0 {
            0
        } else if raw >= u64::MAX as f64 {
            u64::MAX
        } else {
            raw as u64
        };
        cap(value, self.cap)
    }

    /// The wait after attempt `attempt` failed. `previous_wait` is the wait this client
    /// used before the previous attempt (0 before the first retry); only decorrelated
    /// jitter reads it, and treats anything below `base` as `base`.
    pub fn next_wait<R: Rng + ?Sized>(
        &self,
        attempt: u32,
        previous_wait: Millis,
        rng: &mut R,
    ) -> Millis {
        match self.jitter {
            Jitter::None => self.backoff(attempt),
            Jitter::Full => {
                let backoff = self.backoff(attempt);
                rng.random_range(0..=backoff)
            }
            Jitter::Equal => {
                let backoff = self.backoff(attempt);
                let half = backoff / 2;
                half + rng.random_range(0..=backoff - half)
            }
            Jitter::Decorrelated => {
                let previous = previous_wait.max(self.base);
                let upper = previous.saturating_mul(3);
                let drawn = rng.random_range(self.base..=upper);
                cap(drawn, self.cap)
            }
        }
    }

    /// The range `next_wait` draws from, for charts and tests.
    pub fn bounds(&self, attempt: u32, previous_wait: Millis) -> (Millis, Millis) {
        match self.jitter {
            Jitter::None => {
                let b = self.backoff(attempt);
                (b, b)
            }
            Jitter::Full => (0, self.backoff(attempt)),
            Jitter::Equal => {
                let b = self.backoff(attempt);
                (b / 2, b)
            }
            Jitter::Decorrelated => {
                let previous = previous_wait.max(self.base);
                (
                    cap(self.base, self.cap),
                    cap(previous.saturating_mul(3), self.cap),
                )
            }
        }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.base < 1 {
            return Err(ConfigError::new("base", "must be at least 1 ms"));
        }
        if !self.multiplier.is_finite() || self.multiplier < 1.0 {
            return Err(ConfigError::new(
                "multiplier",
                "must be a number of at least 1",
            ));
        }
        if let Some(cap) = self.cap {
            if cap < self.base {
                return Err(ConfigError::new("cap", "must not be below the base"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_long_cast_truncates_and_saturates() {
        assert_eq!(to_java_long(1687.5), 1687);
        assert_eq!(to_java_long(-3.0), 0);
        assert_eq!(to_java_long(f64::NAN), 0);
        assert_eq!(to_java_long(1e30), i64::MAX as u64);
    }

    #[test]
    fn exponential_stops_at_a_fixed_point() {
        // 500 x 1.0000001 truncates back to 500: the sequence never moves.
        assert_eq!(exponential(500, 1.000_000_1, 1_000_000), 500);
        assert_eq!(exponential(500, 1.5, 5), 2530);
        assert_eq!(exponential(1, 1e10, 100), i64::MAX as u64);
    }

    #[test]
    fn optional_durations_round_trip() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Holder {
            #[serde(with = "crate::duration::serde_opt_millis", default)]
            max: Option<Millis>,
        }
        let h: Holder = serde_json::from_str(r#"{"max": "2s"}"#).unwrap();
        assert_eq!(h.max, Some(2_000));
        let h: Holder = serde_json::from_str(r#"{"max": null}"#).unwrap();
        assert_eq!(h.max, None);
        let h: Holder = serde_json::from_str("{}").unwrap();
        assert_eq!(h.max, None);
        assert_eq!(
            serde_json::to_string(&Holder { max: Some(1_500) }).unwrap(),
            r#"{"max":"1500ms"}"#
        );
    }
}
