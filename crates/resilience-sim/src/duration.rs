//! Virtual time.
//!
//! The engine never reads a clock: every instant and duration is a count of virtual
//! milliseconds passed in by the caller. Settings accept durations the way Spring Boot
//! properties write them (`"800ms"`, `"5s"`, `"2m"`) or as plain milliseconds (`800`).

use serde::{Deserialize, Deserializer, Serializer};

/// A virtual instant or duration in milliseconds.
use crate::error::excerpt;

pub type Millis = u64;

/// Parses `"800ms"`, `"5s"`, `"2m"`, `"1h"`, `"1d"` or a bare number of milliseconds.
pub fn parse_duration(text: &str) -> Result<Millis, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    if digits.is_empty() {
        return Err(format!(
            "`{}` is not a duration (write 800ms, 5s, 2m or a number of milliseconds)",
            excerpt(text)
        ));
    }
    let value: u64 = digits
        .parse()
        .map_err(|_| format!("`{}` is too large", excerpt(text)))?;
    let factor: u64 = match unit.trim() {
        "" | "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        other => {
            return Err(format!(
                "unknown unit `{}` in `{}` (use ms, s, m, h or d)",
                excerpt(other),
                excerpt(text)
            ))
        }
    };
    value
        .checked_mul(factor)
        .ok_or_else(|| format!("`{}` is too large", excerpt(text)))
}

/// Formats milliseconds the shortest exact way: `800ms`, `5s`, `2m`.
pub fn format_duration(ms: Millis) -> String {
    if ms != 0 && ms.is_multiple_of(60_000) {
        format!("{}m", ms / 60_000)
    } else if ms != 0 && ms.is_multiple_of(1_000) {
        format!("{}s", ms / 1_000)
    } else {
        format!("{ms}ms")
    }
}

/// Serde adapter: `#[serde(with = "crate::duration::serde_millis")]` on a `Millis` field.
pub mod serde_millis {
    use super::*;

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Number(u64),
        Text(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Millis, D::Error> {
        match Raw::deserialize(d)? {
            Raw::Number(n) => Ok(n),
            Raw::Text(t) => parse_duration(&t).map_err(serde::de::Error::custom),
        }
    }

    pub fn serialize<S: Serializer>(ms: &Millis, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_duration(*ms))
    }
}

/// Serde adapter for `Option<Millis>` in the same formats as [`serde_millis`]; `null` or
/// absent is `None`: `#[serde(with = "crate::duration::serde_opt_millis")]`.
pub mod serde_opt_millis {
    use super::*;

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Millis>, D::Error> {
        #[derive(Deserialize)]
        struct Wrapped(#[serde(with = "super::serde_millis")] Millis);
        Ok(Option::<Wrapped>::deserialize(d)?.map(|Wrapped(ms)| ms))
    }

    pub fn serialize<S: Serializer>(ms: &Option<Millis>, s: S) -> Result<S::Ok, S::Error> {
        match ms {
            Some(ms) => serde_millis::serialize(ms, s),
            None => s.serialize_none(),
        }
    }
}

/// Serde adapter for a duration kept in nanoseconds (the rate limiter's periods):
/// a number is milliseconds, as everywhere else; a string is a Spring Boot duration to the
/// nanosecond (`"500ns"`, `"10us"`, `"1ms"`, `"5s"`, `"PT0.5S"`). Written back as the
/// shortest exact string (`"500ns"`, `"5s"`).
pub mod serde_nanos {
    use super::*;

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Number(u64),
        Text(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        match Raw::deserialize(d)? {
            Raw::Number(ms) => ms.checked_mul(1_000_000).ok_or_else(|| {
                serde::de::Error::custom(format!("{ms} ms is too large (past 2^64 ns)"))
            }),
            Raw::Text(t) => crate::resilience4j::parse_spring_duration_nanos(&t)
                .map_err(serde::de::Error::custom),
        }
    }

    pub fn serialize<S: Serializer>(nanos: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_nanos(*nanos))
    }
}

/// Formats nanoseconds the shortest exact way: `500ns`, `10us`, `800ms`, `5s`, `2m`.
pub fn format_nanos(nanos: u64) -> String {
    if nanos.is_multiple_of(1_000_000) {
        format_duration(nanos / 1_000_000)
    } else if nanos.is_multiple_of(1_000) {
        format!("{}us", nanos / 1_000)
    } else {
        format!("{nanos}ns")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_spring_boot_durations() {
        assert_eq!(parse_duration("800ms"), Ok(800));
        assert_eq!(parse_duration("5s"), Ok(5_000));
        assert_eq!(parse_duration("2m"), Ok(120_000));
        assert_eq!(parse_duration("1500"), Ok(1_500));
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("99999999999999999999s").is_err());
    }

    #[test]
    fn nanosecond_durations_round_trip() {
        for nanos in [0, 1, 500, 1_000, 10_000, 1_500_000, 5_000_000_000] {
            assert_eq!(
                crate::resilience4j::parse_spring_duration_nanos(&format_nanos(nanos)),
                Ok(nanos)
            );
        }
        assert_eq!(format_nanos(500), "500ns");
        assert_eq!(format_nanos(5_000_000_000), "5s");
    }

    #[test]
    fn formats_round_trip() {
        for ms in [0, 1, 800, 1_000, 5_000, 60_000, 61_000, 90_500] {
            assert_eq!(parse_duration(&format_duration(ms)), Ok(ms));
        }
    }
}
