//! A number as a learner types it into a field or a link: what `str::parse::<f64>` reads,
//! except its words. `inf`, `infinity` and `NaN` are not numbers a setting can hold, so
//! they are refused here with the other text, before any range check.

/// `50`, `-2.5`, `.5`, `1e2` as `str::parse::<f64>` reads them; `None` for any text that
/// is not written with digits (`inf`, `NaN`, `fifty`).
pub fn parse_number(text: &str) -> Option<f64> {
    let words = text
        .bytes()
        .any(|b| b.is_ascii_alphabetic() && !matches!(b, b'e' | b'E'));
    if words {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_the_standard_parser_reads_them_and_words_are_not_numbers() {
        for (text, value) in [
            ("50", 50.0),
            ("-0", -0.0),
            ("+5", 5.0),
            ("-2.5", -2.5),
            (".5", 0.5),
            ("5.", 5.0),
            ("007.50", 7.5),
            ("1e2", 100.0),
            ("1E2", 100.0),
            ("2.5e-1", 0.25),
            ("1e+1", 10.0),
            ("1e-30", 1e-30),
            ("33.333333333333333333", 33.333333333333336),
        ] {
            assert_eq!(parse_number(text), Some(value), "{text}");
        }
        // Exact past 15 significant digits: the nearest double, as the standard parser reads.
        assert_eq!(
            parse_number("0.30000000000000004441"),
            Some(0.30000000000000004)
        );
        assert_eq!(parse_number("1e400"), Some(f64::INFINITY));
        for bad in [
            "", ".", "-", "e5", "1e", "1e+", "1.2.3", "5%", "fifty", "1 000", "inf", "-inf",
            "infinity", "NaN", "--1", "0x10",
        ] {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
    }
}
