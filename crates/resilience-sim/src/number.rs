//! A number as a learner types it into a field or a link, read without the standard
//! library's float parser. Measured on the tick demos' bundle (docs/bundles.md), `str::parse`
//! adds 14 KB gzip, a tenth of a demo's 150 KB budget that those demos already exceed; this
//! reader is exact up to 15 significant digits (any setting a learner types, and the
//! links the course writes) and the tests compare it with `str::parse`.
//! The numbers are only ever printed with the standard `Display`.

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

#[cfg(test)]
mod tests {
    use super::*;

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
