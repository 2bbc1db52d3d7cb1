//! A number as a learner types it into a field or a link, read without the standard
//! library's float parser. Measured on the tick demos' bundle (docs/bundles.md), `str::parse`
//! adds 14 KB gzip (mostly its table of powers of five), a tenth of a demo's 150 KB budget
//! that those demos already exceed. This reader gives the same `f64` as `str::parse` for
//! every text (correctly rounded, ties to even): a first guess from at most 19 digits, then
//! exact comparisons with the halfway points next to the guess, in plain big integers. The
//! tests compare it with `str::parse`, halfway cases included.
//! Numbers are written back by [`number_text`], with the standard `Display` and `LowerExp`.

use std::cmp::Ordering;

/// Significant digits kept. A halfway point between two `f64`s has at most 767 of them, so
/// the digits past this can only tip a tie, and one sticky digit stands for them all (the
/// standard parser does the same).
const MAX_DIGITS: usize = 768;

/// A decimal number as `str::parse::<f64>` reads it (`50`, `-2.5`, `.5`, `1e2`) and with the
/// same result, without the standard parser's tables. `inf` and `NaN` are not numbers here;
/// a number too large for `f64` reads as infinite, as with `str::parse`.
pub fn parse_number(text: &str) -> Option<f64> {
    let (direction, text) = sign(text);
    let value = Decimal::read(text)?.to_f64();
    Some(if direction < 0 { -value } else { value })
}

/// `digits × 10^exponent`, the digits without leading or trailing zeros.
struct Decimal {
    digits: Vec<u8>,
    exponent: i64,
}

impl Decimal {
    fn read(text: &str) -> Option<Decimal> {
        let (mantissa, exponent) = match text.find(['e', 'E']) {
            Some(i) => (&text[..i], Some(&text[i + 1..])),
            None => (text, None),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if whole.is_empty() && fraction.is_empty() {
            return None;
        }
        let mut digits = Vec::new();
        let mut scale: i64 = 0;
        let mut dropped_nonzero = false;
        for (in_fraction, part) in [(false, whole), (true, fraction)] {
            for b in part.bytes() {
                if !b.is_ascii_digit() {
                    return None;
                }
                let digit = b - b'0';
                if digits.is_empty() && digit == 0 {
                    scale -= i64::from(in_fraction);
                } else if digits.len() < MAX_DIGITS {
                    digits.push(digit);
                    scale -= i64::from(in_fraction);
                } else {
                    dropped_nonzero |= digit != 0;
                    scale += i64::from(!in_fraction);
                }
            }
        }
        if dropped_nonzero {
            digits.push(1);
            scale -= 1;
        }
        if let Some(exponent) = exponent {
            let (direction, e) = sign(exponent);
            if e.is_empty() || !e.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            // Saturates far past what any text's own digits can offset, so
            // `0.(200,000 zeros)1e200001` is still 1, and `1e99999999999999999999` infinite.
            let e = e.bytes().fold(0i64, |n, b| {
                (n * 10 + i64::from(b - b'0')).min(1_000_000_000_000_000)
            });
            scale += direction * e;
        }
        while digits.last() == Some(&0) {
            digits.pop();
            scale += 1;
        }
        Some(Decimal {
            digits,
            exponent: scale,
        })
    }

    fn to_f64(&self) -> f64 {
        let n = self.digits.len() as i64;
        if n == 0 || n + self.exponent < -324 {
            // Below 10^-324, under half the smallest subnormal (4.9e-324).
            return 0.0;
        }
        if n - 1 + self.exponent > 309 {
            return f64::INFINITY;
        }
        let lead = &self.digits[..self.digits.len().min(19)];
        let mantissa = lead.iter().fold(0u64, |m, &d| m * 10 + u64::from(d));
        let scale = self.exponent + (n - lead.len() as i64);
        // Both operands exact and one rounding: already the nearest `f64` (Clinger's fast path).
        if n == lead.len() as i64 && mantissa < 1 << 53 && (-22..=22).contains(&scale) {
            let power = 10f64.powi(scale.unsigned_abs() as i32);
            let m = mantissa as f64;
            return if scale < 0 { m / power } else { m * power };
        }
        // Within some units in the last place; 10^-330 in steps, so it does not become 0.
        let (mut guess, mut scale) = (mantissa as f64, scale);
        while scale < -22 {
            guess /= 1e22;
            scale += 22;
        }
        if scale < 0 {
            guess /= 10f64.powi(-scale as i32);
        } else {
            guess *= 10f64.powi(scale as i32);
        }
        self.round(guess.min(f64::MAX))
    }

    /// The nearest `f64` to this number, found by stepping from the guess while the number
    /// lies past a halfway point. The guess is some tens of units in the last place off at
    /// most (19 exact digits, then at most 16 divisions and one `powi`), so the steps are few.
    fn round(&self, mut x: f64) -> f64 {
        loop {
            let (m, k) = parts(x);
            // Above the halfway point to the next `f64` (a tie goes to the even mantissa).
            let up = self.cmp_binary(2 * m + 1, k - 1);
            if up == Ordering::Greater || (up == Ordering::Equal && m % 2 == 1) {
                if x == f64::MAX {
                    return f64::INFINITY;
                }
                x = x.next_up();
                continue;
            }
            if x == 0.0 {
                return x;
            }
            // Below the halfway point to the previous one, half as far at a power of two.
            let down = if m == 1 << 52 && k > -1074 {
                self.cmp_binary(4 * m - 1, k - 2)
            } else {
                self.cmp_binary(2 * m - 1, k - 1)
            };
            if down == Ordering::Less || (down == Ordering::Equal && m % 2 == 1) {
                x = x.next_down();
                continue;
            }
            return x;
        }
    }

    /// This number against `m × 2^k`, exactly.
    fn cmp_binary(&self, m: u64, k: i64) -> Ordering {
        let mut ours = Big::from_digits(&self.digits);
        let mut theirs = Big::from_u64(m);
        if self.exponent >= 0 {
            ours.mul_pow10(self.exponent as u64);
        } else {
            theirs.mul_pow10(self.exponent.unsigned_abs());
        }
        if k >= 0 {
            theirs.shl(k as u64);
        } else {
            ours.shl(k.unsigned_abs());
        }
        ours.cmp(&theirs)
    }
}

/// `x = m × 2^k` for a finite `x >= 0`, with `m < 2^53`.
fn parts(x: f64) -> (u64, i64) {
    let bits = x.to_bits();
    let fraction = bits & ((1 << 52) - 1);
    match (bits >> 52) as i64 {
        0 => (fraction, -1074),
        biased => (fraction | 1 << 52, biased - 1075),
    }
}

/// A non-negative integer in base 2^32, least significant limb first, no zero limbs on top.
#[derive(PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_u64(n: u64) -> Big {
        let mut big = Big(vec![n as u32, (n >> 32) as u32]);
        big.trim();
        big
    }

    fn from_digits(digits: &[u8]) -> Big {
        let mut big = Big(Vec::new());
        for chunk in digits.chunks(9) {
            let value = chunk.iter().fold(0u32, |n, &d| n * 10 + u32::from(d));
            big.mul_add(10u32.pow(chunk.len() as u32), value);
        }
        big
    }

    /// `self × factor + add`.
    fn mul_add(&mut self, factor: u32, add: u32) {
        let mut carry = u64::from(add);
        for limb in &mut self.0 {
            let product = u64::from(*limb) * u64::from(factor) + carry;
            *limb = product as u32;
            carry = product >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
        self.trim();
    }

    fn mul_pow10(&mut self, mut n: u64) {
        while n > 0 {
            let step = n.min(9);
            self.mul_add(10u32.pow(step as u32), 0);
            n -= step;
        }
    }

    fn shl(&mut self, n: u64) {
        if self.0.is_empty() {
            return;
        }
        let (limbs, bits) = ((n / 32) as usize, (n % 32) as u32);
        if bits > 0 {
            let mut carry = 0;
            for limb in &mut self.0 {
                let next = *limb >> (32 - bits);
                *limb = *limb << bits | carry;
                carry = next;
            }
            if carry != 0 {
                self.0.push(carry);
            }
        }
        if limbs > 0 {
            let mut shifted = vec![0; limbs];
            shifted.extend_from_slice(&self.0);
            self.0 = shifted;
        }
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }
}

impl Ord for Big {
    fn cmp(&self, other: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, other: &Big) -> Option<Ordering> {
        Some(self.cmp(other))
    }
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
    use rand::{RngExt, SeedableRng};
    use rand_pcg::Pcg64Mcg;

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

    /// `str::parse` as the reference: the same bits, or both refuse.
    fn assert_reads_like_std(text: &str) {
        assert_eq!(
            parse_number(text).map(f64::to_bits),
            text.parse::<f64>().ok().map(f64::to_bits),
            "{text}"
        );
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
            "1e-400",
            "123456789012345678901234567890",
            "0.1e-400",
            // Found by the settings fuzzer: 17 digits at 10^300 were one unit off.
            "-1.0000000000000006e300",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.797693134862315807e308",
            "1.7976931348623159e308",
            "2.2250738585072011e-308",
            "2.2250738585072014e-308",
            "4.9406564584124654e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "9007199254740993",
            "1234567890123456789e-331",
            "0.00000000000000000000000000000000000000001e40",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        texts.extend((0..=20_000).map(|i| format!("{}.{:02}", i / 100, i % 100)));
        texts.extend((0..=2_000).map(|i| format!("{}", i as f64 / 7.0)));
        texts.push(format!("1{}", "0".repeat(100_000)));
        texts.push(format!("0.{}1", "0".repeat(100_000)));
        texts.push(format!("1{}e-100000", "3".repeat(100_000)));
        texts.push(format!("0.{}1e200001", "0".repeat(200_000)));
        texts.push(format!("0.{}1e-99999999999999999999", "0".repeat(1_000)));
        texts.push(format!("1{}e-99999999999999999999", "0".repeat(1_000)));
        texts.push("1e99999999999999999999".to_string());
        for text in &texts {
            assert_reads_like_std(text);
        }
        for bad in [
            "", ".", "-", "e5", "1e", "1e+", "1.2.3", "5%", "fifty", "1 000", "inf", "NaN", "--1",
            "0x10",
        ] {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
    }

    #[test]
    fn every_float_written_any_way_reads_back_like_the_standard_parser() {
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        for _ in 0..20_000 {
            let x = f64::from_bits(rng.random::<u64>() >> 1);
            if !x.is_finite() {
                continue;
            }
            for text in [
                format!("{x}"),
                format!("{x:e}"),
                format!("{x:.16e}"),
                format!("{x:.25e}"),
                format!("{x:.3e}"),
            ] {
                assert_reads_like_std(&text);
            }
            // Digits and exponents nobody's float printer would write.
            let length = rng.random_range(1..=19);
            let digits = rng.random_range(0..10u64.pow(length));
            let exponent = rng.random_range(-360..340);
            assert_reads_like_std(&format!("{digits}e{exponent}"));
        }
    }

    /// The exact decimal halfway between `x` and the next `f64` up, in fixed notation.
    fn halfway(x: f64) -> String {
        let digits = |v: f64| -> Vec<u8> {
            let text = format!("{v:.1101}");
            text.bytes()
                .filter(u8::is_ascii_digit)
                .map(|b| b - b'0')
                .collect()
        };
        let (mut a, mut b) = (digits(x), digits(x.next_up()));
        let width = a.len().max(b.len()) + 1;
        a.splice(0..0, std::iter::repeat_n(0, width - a.len()));
        b.splice(0..0, std::iter::repeat_n(0, width - b.len()));
        let mut sum = vec![0u8; width];
        let mut carry = 0;
        for i in (0..width).rev() {
            let d = a[i] + b[i] + carry;
            sum[i] = d % 10;
            carry = d / 10;
        }
        let mut remainder = 0;
        for d in &mut sum {
            let v = remainder * 10 + *d;
            *d = v / 2;
            remainder = v % 2;
        }
        assert_eq!(remainder, 0, "1101 places hold every halfway point");
        let text: String = sum.iter().map(|d| char::from(b'0' + d)).collect();
        let point = text.len() - 1101;
        format!("{}.{}", &text[..point], &text[point..])
    }

    /// A decimal in fixed notation minus one unit in its last place.
    fn one_place_less(text: &str) -> String {
        let mut bytes = text.as_bytes().to_vec();
        let mut i = bytes.len() - 1;
        loop {
            match bytes[i] {
                b'.' => {}
                b'0' => bytes[i] = b'9',
                _ => {
                    bytes[i] -= 1;
                    break;
                }
            }
            i -= 1;
        }
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn halfway_points_round_to_even_like_the_standard_parser() {
        let mut rng = Pcg64Mcg::seed_from_u64(11);
        let mut samples: Vec<f64> = vec![
            0.0,
            f64::MIN_POSITIVE,
            f64::MIN_POSITIVE.next_down(),
            1.0,
            1.0f64.next_down(),
            9007199254740992.0,
            f64::MAX.next_down(),
            1e300,
            1e-300,
        ];
        samples
            .extend((0..400).map(|_| f64::from_bits(rng.random_range(0..0x7fe0_0000_0000_0000))));
        for x in samples {
            let mid = halfway(x);
            // Ties to even: x when its last bit is 0, the next one up when it is 1.
            let even = if x.to_bits() % 2 == 0 { x } else { x.next_up() };
            assert_eq!(parse_number(&mid), Some(even), "{x:e}");
            assert_reads_like_std(&mid);
            // A hair above goes up and a hair below goes down, whatever the parity.
            assert_eq!(parse_number(&format!("{mid}1")), Some(x.next_up()), "{x:e}");
            assert_eq!(parse_number(&one_place_less(&mid)), Some(x), "{x:e}");
        }
    }
}
