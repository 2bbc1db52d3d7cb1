//! Numbers as text and text as numbers, written once for every page.
//!
//! The standard float formatting and parsing bring several KB of tables into the wasm;
//! these functions write and read exactly what the standard ones do for the values the
//! course shows (tests below compare them with `format!` and `str::parse`).

use crate::views::html::Html;

pub use resilience_sim::number::{f64_text, parse_number};

/// `v` (0 or more) to `tenths` decimal places (0 or 1), rounded half to even on its exact
/// binary value, exactly as `format!("{v:.1}")` and `format!("{v:.0}")` write it.
pub fn fixed(v: f64, tenths: bool) -> String {
    let scale: u128 = if tenths { 10 } else { 1 };
    // v = mantissa x 2^exponent, exactly.
    // Not `clamp`: a NaN reads as 0.
    let bits = if v > 0.0 { v.min(1e15) } else { 0.0 }.to_bits();
    let biased = (bits >> 52) as i32;
    let fraction = u128::from(bits & ((1 << 52) - 1));
    let (mantissa, exponent) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | 1 << 52, biased - 1075)
    };
    let scaled = mantissa * scale;
    let n = if exponent >= 0 {
        scaled << exponent
    } else if exponent <= -120 {
        0
    } else {
        let shift = -exponent;
        let n = scaled >> shift;
        let rest = scaled - (n << shift);
        let half = 1u128 << (shift - 1);
        n + u128::from(rest > half || (rest == half && n % 2 == 1))
    } as u64;
    let mut out = String::new();
    if tenths {
        out.num(n / 10).raw(".").num(n % 10);
    } else {
        out.num(n);
    }
    out
}

/// A slider's value: whole, or with one decimal when it has a fraction.
pub fn trim(v: f64) -> String {
    fixed(v, v.fract() != 0.0)
}

/// Milliseconds as seconds with one decimal (`15.0`).
pub fn seconds(ms: u64) -> String {
    fixed(ms as f64 / 1000.0, true)
}

/// A rate in percent with at most one decimal, rounded down (so 49.96 never reads as 50,
/// the threshold it has not reached); the 0.001 absorbs the f32 error of a rate such as
/// 57.1, stored as 57.099998.
pub fn rate(x: f32) -> String {
    let tenths = (f64::from(x) * 10.0 + 1e-3).floor().max(0.0) as u64;
    let mut out = String::new();
    out.num(tenths / 10);
    if !tenths.is_multiple_of(10) {
        out.push('.');
        out.num(tenths % 10);
    }
    out
}

/// `x` as the shortest decimal that reads back as the same `f32`: what `{x}` prints for the
/// percentages of these settings (the engine's exact formatter, not the standard one).
pub fn decimal(x: f32) -> String {
    let mut out = String::new();
    resilience_sim::number::push_f32(&mut out, x);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_the_standard_formatting_writes_them() {
        for i in 0..=5000u32 {
            let v = f64::from(i) / 40.0;
            assert_eq!(fixed(v, true), format!("{v:.1}"), "{v}");
            assert_eq!(fixed(v, false), format!("{v:.0}"), "{v}");
        }
        for v in [0.1, 1.1, 2.3, 3.0, 100.0, 57.1, 1.05, 12.25] {
            assert_eq!(fixed(v, true), format!("{v:.1}"), "{v}");
        }
        assert_eq!(trim(3.0), "3");
        assert_eq!(trim(0.1), "0.1");
        assert_eq!(trim(2.5), "2.5");
        assert_eq!(trim(5000.0), "5000");
        assert_eq!(seconds(15_000), "15.0");
        assert_eq!(seconds(15_400), "15.4");
        assert_eq!(seconds(2_900), "2.9");
    }

    #[test]
    fn rates_have_at_most_one_decimal_rounded_down() {
        assert_eq!(rate(100.0), "100");
        assert_eq!(rate(50.0), "50");
        assert_eq!(rate(100.0 / 3.0), "33.3");
        assert_eq!(rate(200.0 / 3.0), "66.6");
        assert_eq!(rate(49.96), "49.9");
        assert_eq!(rate(57.1), "57.1");
        assert_eq!(rate(0.0), "0");
    }
    #[test]
    fn decimals_print_like_display() {
        for x in [
            0.0f32,
            1.0,
            50.0,
            100.0,
            57.1,
            33.3,
            12.25,
            0.5,
            99.99,
            1.0 / 3.0 * 100.0,
            0.001,
            66.66667,
            1e6,
            123456.7,
        ] {
            assert_eq!(decimal(x), format!("{x}"), "{x}");
        }
        assert_eq!(decimal(-2.5), "-2.5");
        // Every percentage with up to three decimals, and every rate of a window of 1-64.
        let typed = (0..=100_000).map(|i| i as f32 / 1000.0);
        let rates = (1..=64u32).flat_map(|n| (0..=n).map(move |k| k as f32 * 100.0 / n as f32));
        for x in typed.chain(rates) {
            assert_eq!(decimal(x), format!("{x}"));
        }
    }
}
