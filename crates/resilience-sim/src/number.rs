//! A number as a learner types it into a field or a link, read without the standard
//! library's float parser. Measured on the tick demos' bundle (docs/bundles.md), `str::parse`
//! adds 14 KB gzip, a tenth of a demo's 150 KB budget that those demos already exceed; this
//! reader is exact up to 15 significant digits (any setting a learner types, and the
//! links the course writes) and the tests compare it with `str::parse`.
//! Numbers are written back by [`number_text`], with the standard `Display` and `LowerExp`.

/// A decimal number as `str::parse::<f64>` reads it (`50`, `-2.5`, `.5`, `1e2`), without
/// the standard parser's tables (about 15 KB of wasm). Exact (correctly rounded) for up to
/// 15 significant digits and exponents up to 22, which covers any percentage a learner
/// types; beyond that it may be one unit in the last place off, which the conversion to
/// `f32` then absorbs. `inf` and `NaN` are not numbers here.
pub fn parse_number(text: &str) -> Option<f64> {
    let (negative, text) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let mut digits: u64 = 0;
    let mut scale: i64 = 0;
    for (i, part) in [whole, fraction].into_iter().enumerate() {
        for b in part.bytes() {
            if !b.is_ascii_digit() {
                return None;
            }
            if digits < 100_000_000_000_000_000 {
                digits = digits * 10 + u64::from(b - b'0');
                scale -= i as i64;
            } else {
                scale += 1 - i as i64;
            }
        }
    }
    if let Some(exponent) = exponent {
        let (sign, e) = match exponent.as_bytes().first() {
            Some(b'-') => (-1, &exponent[1..]),
            Some(b'+') => (1, &exponent[1..]),
            _ => (1, exponent),
        };
        if e.is_empty() || !e.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        // Past 10^±400 the value is 0 or infinite anyway, so the exponent saturates.
        let e = e
            .bytes()
            .fold(0i64, |n, b| (n * 10 + i64::from(b - b'0')).min(100_000));
        scale += sign * e;
    }
    let mut value = digits as f64;
    if digits != 0 {
        let power = |n: i64| 10f64.powi(n.clamp(-400, 400) as i32);
        if (-22..0).contains(&scale) {
            value /= power(-scale);
        } else if scale < -22 {
            // Two steps so that 10^-330 does not become 0 before the division.
            value = value / 1e22 / power(-scale - 22);
        } else {
            value *= power(scale);
        }
    }
    Some(if negative { -value } else { value })
}

/// A number as a person writes it, in links, files and messages: the shortest text that
/// reads back the same (`1000`, `2.5`, `0.1`), in exponent form from 1e21 and below 1e-6,
/// where JavaScript switches too. A message that quotes a bad `1e308` says `1e308`, not the
/// 309 digits of its binary value.
pub fn number_text(v: f64) -> String {
    let magnitude = v.abs();
    if v.is_finite() && v != 0.0 && !(1e-6..1e21).contains(&magnitude) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

/// A leading `-` (-1) or `+` (1) and the rest.
pub(crate) fn sign(text: &str) -> (i64, &str) {
    match text.as_bytes().first() {
        Some(b'-') => (-1, &text[1..]),
        Some(b'+') => (1, &text[1..]),
        _ => (1, text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_javascript_writes_them() {
        // `String(x)` in JavaScript: exponent form from 1e21 and below 1e-6.
        for (v, text) in [
            (1000.0, "1000"),
            (2.5, "2.5"),
            (0.1, "0.1"),
            (-0.5, "-0.5"),
            (0.0, "0"),
            (4294967296.0, "4294967296"),
            (1e20, "100000000000000000000"),
            (1e21, "1e21"),
            (1e308, "1e308"),
            (-1e300, "-1e300"),
            (1.5e22, "1.5e22"),
            (0.000001, "0.000001"),
            (1.5e-7, "1.5e-7"),
            (f64::NAN, "NaN"),
        ] {
            assert_eq!(number_text(v), text);
        }
        // What the course writes into links reads back the same.
        for v in [
            0.000001,
            0.1,
            2.5,
            1e-7,
            33.333333333333336,
            123456.789,
            1e20,
            1e21,
        ] {
            assert_eq!(parse_number(&number_text(v)), Some(v), "{v}");
        }
    }

    #[test]
    fn numbers_read_like_the_standard_parser() {
        let mut texts: Vec<String> = [
            "50",
            "60",
            "0",
            "-0",
            "+5",
            "-2.5",
            ".5",
            "5.",
            "007.50",
            "1e2",
            "1E2",
            "2.5e-1",
            "1e+1",
            "12.345678",
            "99.999999",
            "100.0000001",
            "33.333333333333333333",
            "0.000001",
            "1e-30",
            "1e400",
            "123456789012345678901234567890",
            "0.1e-400",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        texts.extend((0..=20_000).map(|i| format!("{}.{:02}", i / 100, i % 100)));
        texts.extend((0..=2_000).map(|i| format!("{}", i as f64 / 7.0)));
        for text in &texts {
            let expected = text
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .map(|v| v as f32);
            assert_eq!(
                parse_number(text)
                    .filter(|v| v.is_finite())
                    .map(|v| v as f32),
                expected,
                "{text}"
            );
        }
        for bad in [
            "", ".", "-", "e5", "1e", "1e+", "1.2.3", "5%", "fifty", "1 000", "inf", "NaN", "--1",
            "0x10",
        ] {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
    }
}
