//! Policy scripts: drive one Resilience4j policy by hand, step by step, as
//! [`super::breaker_script`] does for the circuit breaker (`resilience-sim ratelimiter FILE`,
//! `retry`, `bulkhead`, `thread-pool-bulkhead`, `timelimiter`).
//!
//! Every script has the same shape: `{"config": {...}, "steps": [...]}`. The config uses
//! Resilience4j's camelCase names (anything left out takes Resilience4j's default);
//! durations are a number of milliseconds or a Spring Boot duration (`"800ms"`, `"5s"`).
//! The clock starts at 0 ms, when the policy is created, and only `{"advance_ms": N}` moves
//! it. Each step gives one JSON object with `step` (its index), `t_ms` (the clock after it)
//! and the policy's metrics under Resilience4j's names. docs/scripts.md documents each
//! format with an example.
//!
//! The rules every runner shares live here: how a script is read (a bad value is named by
//! where it sits, `steps[3].acquire.permits`), how long its clock may run, and how a
//! duration in whole milliseconds is read from either JSON reader.

pub mod bulkhead;
pub mod rate_limiter;
pub mod retry;
pub mod time_limiter;

use serde::de::DeserializeOwned;

use crate::{ConfigError, Millis};

pub use super::breaker_script::{MAX_SCRIPT_BYTES, MAX_SCRIPT_CLOCK_MS};

/// Reads a script of kind `what` ("rate limiter script") from JSON (a leading BOM is
/// skipped); a bad document gives one line saying what and where.
pub fn parse<T: DeserializeOwned>(json: &str, what: &str) -> Result<T, String> {
    let mut reader = serde_json::Deserializer::from_str(crate::error::without_bom(json));
    let script = serde_path_to_error::deserialize(&mut reader).map_err(|e| {
        let path = crate::error::excerpt_path(&e.path().to_string());
        invalid(
            what,
            if path == "." { "" } else { &path },
            &crate::error::serde_words(&e.into_inner().to_string()),
        )
    })?;
    reader
        .end()
        .map_err(|e| invalid(what, "", &crate::error::serde_words(&e.to_string())))?;
    Ok(script)
}

/// The path is part of the bound too: it names an unknown key as the script wrote it.
fn invalid(what: &str, path: &str, why: &str) -> String {
    crate::error::one_line(&if path.is_empty() {
        format!("invalid {what}: {why}")
    } else {
        format!("invalid {what}: {path}: {why}")
    })
}

/// A duration in whole milliseconds, however the reader stored the number: serde_json gives
/// an integer, a browser's `JSON.parse` a float (exact up to 2^53). Whole numbers past
/// `u64::MAX` saturate; [`Clock::advance`] and [`check_duration`] then refuse anything past
/// [`MAX_SCRIPT_CLOCK_MS`].
pub fn whole_ms<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Millis, D::Error> {
    use serde::de::{Error, Unexpected, Visitor};
    struct WholeMs;
    impl Visitor<'_> for WholeMs {
        type Value = Millis;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a whole number of milliseconds from 0")
        }
        fn visit_u64<E: Error>(self, v: u64) -> Result<Millis, E> {
            Ok(v)
        }
        fn visit_i64<E: Error>(self, v: i64) -> Result<Millis, E> {
            Millis::try_from(v).map_err(|_| E::invalid_value(Unexpected::Signed(v), &self))
        }
        fn visit_f64<E: Error>(self, v: f64) -> Result<Millis, E> {
            if v >= 0.0 && v.fract() == 0.0 {
                // A saturating cast: 1e300 becomes u64::MAX, which validation refuses.
                Ok(v as Millis)
            } else {
                Err(E::invalid_value(Unexpected::Float(v), &self))
            }
        }
    }
    deserializer.deserialize_any(WholeMs)
}

/// `whole_ms` for an optional field (`null` or absent is `None`).
pub fn opt_whole_ms<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Millis>, D::Error> {
    #[derive(serde::Deserialize)]
    struct Wrapped(#[serde(deserialize_with = "whole_ms")] Millis);
    Ok(Option::<Wrapped>::deserialize(deserializer)?.map(|Wrapped(ms)| ms))
}

use serde::Deserialize;

/// A duration a step asks for (a call's length, a wait): at most [`MAX_SCRIPT_CLOCK_MS`].
pub fn check_duration(field: impl Into<String>, ms: Millis) -> Result<(), ConfigError> {
    if ms > MAX_SCRIPT_CLOCK_MS {
        return Err(ConfigError::new(
            field,
            format!("may be at most {MAX_SCRIPT_CLOCK_MS} ms (about 31.7 years)"),
        ));
    }
    Ok(())
}

/// The script's clock while it is validated: the advances may not take it past
/// [`MAX_SCRIPT_CLOCK_MS`], so no runner ever computes with an instant past it.
#[derive(Debug, Default)]
pub struct Clock(Millis);

impl Clock {
    /// Adds the advance of step `index`, or says why the script is refused.
    pub fn advance(&mut self, index: usize, ms: Millis) -> Result<(), ConfigError> {
        self.0 = self
            .0
            .checked_add(ms)
            .filter(|&t| t <= MAX_SCRIPT_CLOCK_MS)
            .ok_or_else(|| {
                ConfigError::new(
                    format!("steps[{index}].advance_ms"),
                    format!(
                        "takes the script's clock past {MAX_SCRIPT_CLOCK_MS} ms (about 31.7 years), the last instant a script may reach"
                    ),
                )
            })?;
        Ok(())
    }
}

/// The most steps a script may have (a 2 MB file holds far fewer of the shortest step).
pub const MAX_STEPS: usize = 200_000;

/// Refuses a script with more steps than [`MAX_STEPS`].
pub fn check_steps(count: usize) -> Result<(), ConfigError> {
    if count > MAX_STEPS {
        return Err(ConfigError::new(
            "steps",
            format!("has {count} steps; a script may have at most {MAX_STEPS}"),
        ));
    }
    Ok(())
}

/// Serializes step reports as one JSON line each (the runners' output).
pub fn json_lines<T: serde::Serialize>(reports: &[T]) -> Result<Vec<String>, String> {
    reports
        .iter()
        .map(|r| serde_json::to_string(r).map_err(|e| e.to_string()))
        .collect()
}
