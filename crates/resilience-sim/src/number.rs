//! Decimal numbers read and written without the standard library's float parser and
//! printer: their tables and bignum code (about 15 KB and several KB of wasm) would be the
//! largest thing the browser bundle carries for a few sliders and settings. The tests
//! compare them with `str::parse` and `format!`.

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

/// Appends `x` as `format!("{x}")` writes it: the shortest decimal that reads back as `x`
/// (the nearer one of two, the larger on a tie), never with an exponent; `NaN`, `inf`.
pub fn push_f64(out: &mut String, x: f64) {
    push_float(out, x.to_bits(), 52, 11);
}

/// `x` as `format!("{x}")` writes it ([`push_f64`] into a new string).
pub fn f64_text(x: f64) -> String {
    let mut out = String::new();
    push_f64(&mut out, x);
    out
}

/// [`push_f64`] for an `f32`: the shortest decimal that reads back as the same `f32`.
pub fn push_f32(out: &mut String, x: f32) {
    push_float(out, u64::from(x.to_bits()), 23, 8);
}

/// Exact, on decimal digit vectors: the value and the ends of its rounding interval as
/// core's `flt2dec` decodes them, then the fewest digits that fall inside it.
fn push_float(out: &mut String, bits: u64, frac_bits: u32, exp_bits: u32) {
    let field = (bits >> frac_bits) as i32 & ((1 << exp_bits) - 1);
    let frac = bits & ((1 << frac_bits) - 1);
    if field == (1 << exp_bits) - 1 {
        out.push_str(match (frac, bits >> 63 | bits >> 31 & 1) {
            (1.., _) => "NaN",
            (_, 1) => "-inf",
            _ => "inf",
        });
        return;
    }
    if bits >> (frac_bits + exp_bits) & 1 == 1 {
        out.push('-');
    }
    if field == 0 && frac == 0 {
        out.push('0');
        return;
    }
    let m = if field == 0 {
        frac
    } else {
        frac | 1 << frac_bits
    };
    // value = 4m, interval [4m - 2 (1 below a power of two), 4m + 2], in units of 2^q.
    let q = field.max(1) - (1 << (exp_bits - 1)) - frac_bits as i32 - 1;
    let below = if field != 0 && frac == 0 { 1 } else { 2 };
    let inclusive = field == 0 || m & 1 == 0;
    // x * 2^q as a decimal integer (little-endian digits), scaled by 10^-q when q < 0.
    let scaled = |x: u64| {
        let mut digits = Vec::new();
        let mut x = x;
        while x > 0 {
            digits.push((x % 10) as u8);
            x /= 10;
        }
        let (base, mut left) = if q < 0 { (5u64, -q) } else { (2, q) };
        while left > 0 {
            let step = left.min(25);
            left -= step;
            let factor = base.pow(step as u32);
            let mut carry = 0;
            for d in digits.iter_mut() {
                let v = u64::from(*d) * factor + carry;
                *d = (v % 10) as u8;
                carry = v / 10;
            }
            while carry > 0 {
                digits.push((carry % 10) as u8);
                carry /= 10;
            }
        }
        digits
    };
    let (low, mid, high) = (scaled(4 * m - below), scaled(4 * m), scaled(4 * m + 2));
    let above = |d: &[u8], j: usize| {
        d.iter()
            .skip(j)
            .rev()
            .fold(0, |a, &d| a * 10 + u64::from(d))
    };
    let exact = |d: &[u8], j: usize| d.iter().take(j).all(|&d| d == 0);
    let mut j = high.len();
    let n = loop {
        j -= 1;
        let top = above(&high, j) - u64::from(!inclusive && exact(&high, j));
        let bottom = above(&low, j) + u64::from(!(inclusive && exact(&low, j)));
        if bottom <= top {
            let n = above(&mid, j);
            let up = n < top && (n < bottom || j > 0 && mid.get(j - 1).is_some_and(|&d| d >= 5));
            break n + u64::from(up);
        }
    };
    let mut digits = Vec::new();
    let mut n = n;
    while n > 0 {
        digits.push(b'0' + (n % 10) as u8);
        n /= 10;
    }
    // Digits before the point: n is the value in units of 10^(j + min(q, 0)).
    let point = digits.len() as i32 + j as i32 + q.min(0);
    let zeros = |out: &mut String, n: i32| (0..n).for_each(|_| out.push('0'));
    if point <= 0 {
        out.push_str("0.");
        zeros(out, -point);
    }
    for (i, &d) in digits.iter().rev().enumerate() {
        if i as i32 == point && point > 0 {
            out.push('.');
        }
        out.push(char::from(d));
    }
    zeros(out, point - digits.len() as i32);
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

    fn check_f64(x: f64) {
        let mut out = String::new();
        push_f64(&mut out, x);
        assert_eq!(out, format!("{x}"), "{:#x}", x.to_bits());
        assert_eq!(f64_text(x), out);
    }

    fn check_f32(x: f32) {
        let mut out = String::new();
        push_f32(&mut out, x);
        assert_eq!(out, format!("{x}"), "{:#x}", x.to_bits());
    }

    #[test]
    fn floats_print_like_display() {
        for x in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1.5,
            2.5,
            50.0,
            42.5,
            0.1,
            0.2,
            0.3,
            0.1 + 0.2,
            1e15,
            1e16,
            1e17,
            1e21,
            1e22,
            1e23,
            123456789.125,
            1.0 / 3.0,
            2.0 / 3.0,
            1e-7,
            5e-324,
            1e-323,
            2.2250738585072014e-308,
            2.225073858507201e-308,
            1.7976931348623157e308,
            9007199254740993.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::EPSILON,
            f64::MIN_POSITIVE,
        ] {
            check_f64(x);
        }
        for x in [
            0.0f32,
            -0.0,
            1.0,
            0.5,
            42.5,
            57.1,
            33.333332,
            1e-45,
            1e-38,
            1.1754942e-38,
            3.4028235e38,
            16777216.0,
            16777218.0,
            1e7,
            f32::NAN,
            f32::NEG_INFINITY,
        ] {
            check_f32(x);
        }
        // Every power of two (the asymmetric interval), every subnormal scale, decimals.
        for e in -1074..=1023i64 {
            let bits = match e {
                ..-1022 => 1u64 << (e + 1074),
                _ => ((e + 1023) as u64) << 52,
            };
            for bits in [bits - 1, bits, bits + 1] {
                check_f64(f64::from_bits(bits));
            }
        }
        for e in -149..=127i64 {
            let bits = match e {
                ..-126 => 1u32 << (e + 149),
                _ => ((e + 127) as u32) << 23,
            };
            for bits in [bits - 1, bits, bits + 1] {
                check_f32(f32::from_bits(bits));
            }
        }
        for i in 0..=50_000u32 {
            check_f64(f64::from(i) / 1000.0);
            check_f64(f64::from(i) / 7.0);
            check_f32(i as f32 / 1000.0);
            check_f32(i as f32 * 100.0 / 64.0);
        }
        // Random bit patterns (a fixed xorshift sequence).
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            check_f64(f64::from_bits(state));
            check_f32(f32::from_bits(state as u32));
            check_f32(f32::from_bits((state >> 32) as u32));
        }
    }
}
