//! Virtual time.
//!
//! The engine never reads a clock: every instant and duration is a count of virtual
//! milliseconds passed in by the caller. Settings accept durations the way Spring Boot
//! properties write them (`"800ms"`, `"5s"`, `"2m"`) or as plain milliseconds (`800`).

use serde::{Deserialize, Deserializer, Serializer};

use crate::error::{excerpt, quote};
use crate::number::sign;

/// A virtual instant or duration in milliseconds.
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
            Raw::Text(t) => parse_spring_duration_nanos(&t).map_err(serde::de::Error::custom),
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

/// Reads a duration as Spring Boot's `DurationStyle` does: `500ms`, `10s`, `2m`, `1h`,
/// `1d`, `ns`/`us` (units in any case), a bare number of milliseconds, or ISO-8601
/// (`PT10S`, `PT0.5S`, `P1DT2H`). The simulation counts whole milliseconds, so a
/// negative duration or a fraction of a millisecond is refused.
pub fn parse_spring_duration(text: &str) -> Result<Millis, String> {
    let nanos = parse_spring_duration_nanos(text)?;
    let text = text.trim();
    if nanos % 1_000_000 != 0 {
        return Err(quote(
            text,
            "is not a whole number of milliseconds (the simulation counts milliseconds)",
        ));
    }
    Ok(nanos / 1_000_000)
}

/// [`parse_spring_duration`] to the nanosecond, for the one setting that needs it (the
/// rate limiter's `limitRefreshPeriod`, 500 ns by default): any duration from 0 up to
/// Java's `long` nanoseconds.
pub fn parse_spring_duration_nanos(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let bad = || {
        quote(
            text,
            "is not a duration (write 500ms, 10s, 2m, a number of milliseconds or PT10S)",
        )
    };
    let nanos: i64 = if text.trim_start_matches(['+', '-']).starts_with(['P', 'p']) {
        iso_nanos(text).ok_or_else(bad)?
    } else {
        let unsigned = text.trim_start_matches(['+', '-']);
        if text.len() - unsigned.len() > 1 {
            return Err(bad());
        }
        let digits = unsigned.bytes().take_while(u8::is_ascii_digit).count();
        let (number, unit) = unsigned.split_at(digits);
        if number.is_empty() || unit.len() > 2 || number.len() > 30 {
            return Err(bad());
        }
        let factor: i64 = match unit.to_ascii_lowercase().as_str() {
            "ns" => 1,
            "us" => 1_000,
            "" | "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            "d" => 86_400_000_000_000,
            _ => {
                return Err(format!(
                    "unknown unit in `{}` (use ns, us, ms, s, m, h or d)",
                    excerpt(text)
                ))
            }
        };
        let value = number
            .parse::<i64>()
            .map_err(|_| quote(text, "is too long"))?;
        let value = value.checked_mul(factor).ok_or_else(bad)?;
        if text.starts_with('-') {
            -value
        } else {
            value
        }
    };
    u64::try_from(nanos).map_err(|_| quote(text, "is negative"))
}

/// `java.time.Duration.parse`: `[+-]P[nD][T[nH][nM][n[.f]S]]`, each number signed.
fn iso_nanos(text: &str) -> Option<i64> {
    // Letters compare without case: upper-case them all (the byte positions stay).
    let text = text.to_ascii_uppercase();
    let (outer, rest) = sign(&text);
    let rest = rest.strip_prefix('P')?;
    let (days, time) = match rest.split_once('T') {
        Some((days, time)) => (days, Some(time)),
        None if rest.is_empty() => return None,
        None => (rest, None),
    };
    let add = |total: i64, n: i64, factor: i64| total.checked_add(n.checked_mul(factor)?);
    let mut total: i64 = 0;
    if !days.is_empty() {
        total = add(
            0,
            signed_whole(days.strip_suffix('D')?)?,
            86_400_000_000_000,
        )?;
    }
    if let Some(mut time) = time {
        if time.is_empty() {
            return None;
        }
        for (suffix, factor) in [('H', 3_600_000_000_000_i64), ('M', 60_000_000_000)] {
            if let Some((n, rest)) = time.split_once(suffix) {
                total = add(total, signed_whole(n)?, factor)?;
                time = rest;
            }
        }
        if !time.is_empty() {
            let (sign, n) = sign(time.strip_suffix('S')?);
            let (whole, fraction) = n.split_once(['.', ',']).unwrap_or((n, ""));
            if whole.is_empty() || fraction.len() > 9 {
                return None;
            }
            let seconds = signed_whole(whole)?;
            if !fraction.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            // The fraction as nanoseconds: its digits, padded to nine.
            let frac = (0..9).fold(0, |n, i| {
                n * 10
                    + fraction
                        .as_bytes()
                        .get(i)
                        .map_or(0, |&b| i64::from(b - b'0'))
            });
            let nanos = seconds.checked_mul(1_000_000_000)?.checked_add(frac)?;
            total = add(total, nanos, sign)?;
        }
    }
    total.checked_mul(outer)
}

fn signed_whole(text: &str) -> Option<i64> {
    let digits = text.trim_start_matches(['+', '-']);
    if digits.is_empty()
        || digits.len() > 20
        || text.len() - digits.len() > 1
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    text.parse::<i64>().ok()
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
            assert_eq!(parse_spring_duration_nanos(&format_nanos(nanos)), Ok(nanos));
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

    #[test]
    fn spring_durations() {
        // DurationStyle: SIMPLE `^([+-]?\d+)([a-zA-Z]{0,2})$`, a bare number is ms.
        for (text, ms) in [
            ("500ms", 500),
            ("10s", 10_000),
            ("10S", 10_000),
            ("2m", 120_000),
            ("1h", 3_600_000),
            ("1d", 86_400_000),
            ("1500", 1_500),
            ("+7", 7),
            ("2000us", 2),
            ("3000000ns", 3),
            ("PT10S", 10_000),
            ("pt0.5s", 500),
            ("PT1M30S", 90_000),
            ("P1DT1H", 90_000_000),
            ("PT2H-60M", 3_600_000),
        ] {
            assert_eq!(parse_spring_duration(text), Ok(ms), "{text}");
        }
        for bad in [
            "", "soon", "5 s", "1.5s", "10sec", "-1s", "1500us", "P", "PT", "PT1.5MS", "P1Y",
            "--5", "PT-1S",
        ] {
            assert!(parse_spring_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_refused_duration_is_quoted_in_short() {
        for text in [
            "9".repeat(10_000),
            format!("PT{}S", "1".repeat(10_000)),
            format!("5{}", "x".repeat(10_000)),
        ] {
            let message = parse_spring_duration_nanos(&text).unwrap_err();
            assert!(message.chars().count() < 120, "{message}");
            assert!(
                message.starts_with(&format!("`{}…`", &text[..40])),
                "{message}"
            );
        }
    }
}
