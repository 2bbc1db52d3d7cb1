//! Numbers as text and text as numbers, written once for every page.

use crate::views::html::Html;

pub use resilience_sim::number::parse_number;

/// `v` to `tenths` decimal places (0 or 1), as `{:.1}` and `{:.0}` write it; a NaN or a
/// negative value reads as 0 (the course's figures are counts and durations).
pub fn fixed(v: f64, tenths: bool) -> String {
    let v = if v > 0.0 { v } else { 0.0 };
    if tenths {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    }
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

/// `x` as the shortest decimal that reads back as the same `f32` (`{x}`).
pub fn decimal(x: f32) -> String {
    x.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_have_the_decimals_the_page_shows() {
        assert_eq!(fixed(2.25, true), "2.2");
        assert_eq!(fixed(2.35, false), "2");
        assert_eq!(fixed(-1.0, true), "0.0");
        assert_eq!(fixed(f64::NAN, false), "0");
        assert_eq!(trim(3.0), "3");
        assert_eq!(trim(0.1), "0.1");
        assert_eq!(trim(2.5), "2.5");
        assert_eq!(trim(5000.0), "5000");
        assert_eq!(seconds(15_000), "15.0");
        assert_eq!(seconds(15_400), "15.4");
        assert_eq!(seconds(2_900), "2.9");
        assert_eq!(decimal(57.1), "57.1");
        assert_eq!(decimal(100.0 / 3.0), "33.333332");
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
}
