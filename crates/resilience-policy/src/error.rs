//! Validation errors for settings, shared by every policy and model.
//!
//! The UI shows `message` next to the field named by `field`, and the CLI prints
//! `field: message` on one line; neither ever panics on bad input.

use crate::number::number_text;
use std::fmt;

/// A setting that was refused, named as in Resilience4j (camelCase).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The setting's Resilience4j name, e.g. `failureRateThreshold`.
    pub field: String,
    /// What is wrong, in plain words, e.g. `must be between 1 and 100`.
    pub message: String,
}

impl ConfigError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// Checks that a whole-number setting lies in `min..=max`, with the message every
/// model uses.
pub fn check_range(field: &str, value: u64, min: u64, max: u64) -> Result<(), ConfigError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError::new(
            field,
            format!("must be between {min} and {max} (got {value})"),
        ))
    }
}

/// Checks that a decimal setting is a finite number in `min..=max`; the message quotes the
/// bad value as a person writes it (`1e300`, not its 301 digits).
pub fn check_number(field: &str, value: f64, min: f64, max: f64) -> Result<(), ConfigError> {
    if value.is_finite() && (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError::new(
            field,
            format!(
                "must be between {min} and {max} (got {})",
                number_text(value)
            ),
        ))
    }
}

/// `text` without a leading UTF-8 byte-order mark: some editors save one, and a reader
/// would take it for the first character of the document.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// The most characters of a bad value a message quotes.
pub const EXCERPT_CHARS: usize = 40;

/// What a message quotes of a bad value: at most its first [`EXCERPT_CHARS`] characters
/// (then `…`), on one line. A message must not echo a megabyte of bad input, nor break
/// the one-line error contract with a newline the value carried.
pub fn excerpt(value: &str) -> String {
    let mut out: String = value.chars().take(EXCERPT_CHARS).map(shown).collect();
    if value.chars().nth(EXCERPT_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// A character of a quoted value as a message shows it: a control character as a space,
/// and a bidirectional formatting character (U+202E and its kin) as U+FFFD, visibly there:
/// left as it is, it would turn the rest of the sentence around it right to left.
fn shown(c: char) -> char {
    match c {
        '\u{061C}'
        | '\u{200E}'
        | '\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}' => '\u{FFFD}',
        c if c.is_control() => ' ',
        c => c,
    }
}

/// A reader's key path (`steps[3].acquire.maxWait`) with each key cut to its [`excerpt`]:
/// an unknown key is a value the file wrote, and a long one is quoted as any other.
pub fn excerpt_path(path: &str) -> String {
    path.split('.').map(excerpt).collect::<Vec<_>>().join(".")
}

/// The names to choose from, for a message: the first five, each cut to its [`excerpt`],
/// then how many more (a file may have thousands).
pub fn some_names<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    const SHOWN: usize = 5;
    let mut shown: Vec<String> = Vec::new();
    let mut more = 0usize;
    for name in names {
        if shown.len() < SHOWN {
            shown.push(excerpt(name));
        } else {
            more += 1;
        }
    }
    let mut text = shown.join(", ");
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    text
}

/// `` `text` what ``, the text cut to its [`excerpt`]: the message for a refused value.
pub fn quote(text: &str, what: &str) -> String {
    format!("`{}` {what}", excerpt(text))
}

/// The longest message [`one_line`] lets through, in characters.
pub const MESSAGE_CHARS: usize = 400;

/// `message` as one line of bounded length, whatever it quotes: control characters
/// become spaces, a value quoted in backticks, double quotes or “ ” (as serde quotes a bad
/// value: "unknown variant `…`") keeps its first [`EXCERPT_CHARS`] characters, and past
/// [`MESSAGE_CHARS`] characters the message is cut with `…`. The CLI's and the pages' last
/// guard of the error contract.
pub fn one_line(message: &str) -> String {
    let mut out = String::new();
    let mut written = 0;
    // The quote mark open, and how many characters of the value were kept.
    let mut quote: Option<(char, usize)> = None;
    for c in message.chars() {
        if written == MESSAGE_CHARS {
            out.push('…');
            break;
        }
        match quote {
            Some((mark, _)) if c == mark => quote = None,
            Some((mark, kept)) => {
                if kept == EXCERPT_CHARS {
                    out.push('…');
                    written += 1;
                }
                quote = Some((mark, kept + 1));
                if kept >= EXCERPT_CHARS {
                    continue;
                }
            }
            None if c == '`' || c == '"' => quote = Some((c, 0)),
            // The CLI's and the BoxOffice engine's messages quote in typographic marks.
            None if c == '“' => quote = Some(('”', 0)),
            None => {}
        }
        out.push(shown(c));
        written += 1;
    }
    out
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// A JSON reader's message in a JSON file's words rather than Rust's: serde names the
/// engine's types ("expected struct RawConfig", "expected u32"), which a learner's file
/// never mentions. An object is "a JSON object"; a number type says what numbers it takes;
/// a struct written as a list says so; serde_json's "unexpected end of hex escape" (a
/// `\ud800` with no second half) says what is missing.
pub fn serde_words(message: &str) -> String {
    const NUMBERS: [(&str, &str); 9] = [
        ("u8", "a whole number from 0 to 255"),
        ("u16", "a whole number from 0 to 65535"),
        ("u32", "a whole number from 0 to 4294967295"),
        ("u64", "a whole number from 0 to 18446744073709551615"),
        ("usize", "a whole number from 0"),
        ("i32", "a whole number from -2147483648 to 2147483647"),
        (
            "i64",
            "a whole number from -9223372036854775808 to 9223372036854775807",
        ),
        ("f32", "a number"),
        ("f64", "a number"),
    ];
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("expected ") {
        out.push_str(&rest[..at + "expected ".len()]);
        rest = &rest[at + "expected ".len()..];
        let word_end = |s: &str| {
            s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(s.len())
        };
        if let Some(after) = rest.strip_prefix("struct ") {
            rest = &after[word_end(after)..];
            // "with 2 elements": the length serde wanted of a list.
            if let Some(after) = rest.strip_prefix(" with ") {
                let digits = after
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(after.len());
                if let Some(after) = after[digits..].strip_prefix(" element") {
                    rest = after.strip_prefix('s').unwrap_or(after);
                }
            }
            out.push_str("a JSON object");
        } else if let Some((ty, words)) = NUMBERS
            .iter()
            .find(|(ty, _)| rest.starts_with(ty) && word_end(rest) == ty.len())
        {
            rest = &rest[ty.len()..];
            out.push_str(words);
        }
    }
    out.push_str(rest);
    // A list where an object goes: serde took it for the fields in order, and says only
    // that the count is wrong.
    if let Some(after) = out.strip_prefix("invalid length ") {
        let digits = after
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(after.len());
        if let Some(tail) = after[digits..].strip_prefix(", expected a JSON object") {
            out = ["invalid type: a list, expected a JSON object", tail].concat();
        }
    }
    out.replace(
        "unexpected end of hex escape",
        "a \\u escape of half a character (a surrogate without its pair)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quoted_value_cannot_turn_the_message_around() {
        // U+202E (right-to-left override) would show the rest of the line reversed.
        assert_eq!(excerpt("\u{202E}5abc"), "\u{FFFD}5abc");
        assert_eq!(excerpt("a\u{2067}b\u{200F}c"), "a\u{FFFD}b\u{FFFD}c");
        assert_eq!(
            one_line("The tick “\u{202E}5abc” is not a number"),
            "The tick “\u{FFFD}5abc” is not a number"
        );
        // Right-to-left text itself is not formatting: it stays.
        assert_eq!(excerpt("שלום"), "שלום");
    }

    #[test]
    fn a_list_of_names_shows_five_and_counts_the_rest() {
        assert_eq!(some_names(["a", "b"]), "a, b");
        let names: Vec<String> = (0..5_000).map(|i| format!("v{i}")).collect();
        assert_eq!(
            some_names(names.iter().map(String::as_str)),
            "v0, v1, v2, v3, v4 and 4995 more"
        );
        let long = "x".repeat(100);
        assert_eq!(some_names([long.as_str()]), excerpt(&long));
        assert_eq!(
            excerpt_path(&format!("steps[1].{long}")),
            format!("steps[1].{}", excerpt(&long))
        );
    }

    #[test]
    fn excerpts_are_short_and_on_one_line() {
        assert_eq!(excerpt("12x"), "12x");
        assert_eq!(excerpt("a\nb\tc"), "a b c");
        let long = "9".repeat(60_000);
        assert_eq!(excerpt(&long), format!("{}…", "9".repeat(EXCERPT_CHARS)));
        assert_eq!(excerpt(&"é".repeat(41)).chars().count(), EXCERPT_CHARS + 1);
    }

    #[test]
    fn messages_become_one_bounded_line() {
        assert_eq!(one_line("line 1\nline 2\r"), "line 1 line 2 ");
        let long = one_line(&"x".repeat(2_000_000));
        assert_eq!(long.chars().count(), MESSAGE_CHARS + 1);
        assert!(long.ends_with('…'));
    }

    #[test]
    fn serde_words_name_json_not_rust() {
        assert_eq!(
            serde_words("invalid type: string \"NaN\", expected f64 at line 1 column 9"),
            "invalid type: string \"NaN\", expected a number at line 1 column 9"
        );
        assert_eq!(
            serde_words("invalid type: floating point `1.8446744073709552e+19`, expected u32"),
            "invalid type: floating point `1.8446744073709552e+19`, expected a whole number from 0 to 4294967295"
        );
        assert_eq!(
            serde_words("invalid type: null, expected struct RawConfig at line 1 column 14"),
            "invalid type: null, expected a JSON object at line 1 column 14"
        );
        assert_eq!(
            serde_words("invalid length 1, expected struct BreakerScript with 2 elements at line 1 column 3"),
            "invalid type: a list, expected a JSON object at line 1 column 3"
        );
        assert_eq!(
            serde_words("unexpected end of hex escape at line 1 column 23"),
            "a \\u escape of half a character (a surrogate without its pair) at line 1 column 23"
        );
        // Words that only look like a type stay.
        for kept in [
            "expected u32x",
            "expected usable",
            "unknown field `u32`, expected `a`",
            "expected",
        ] {
            assert_eq!(serde_words(kept), kept);
        }
    }

    #[test]
    fn a_quoted_value_keeps_a_short_prefix() {
        let bad = "y".repeat(400);
        let message = format!("unknown variant `{bad}`, expected `slow` or `down` at line 1");
        assert_eq!(
            one_line(&message),
            format!(
                "unknown variant `{}…`, expected `slow` or `down` at line 1",
                "y".repeat(EXCERPT_CHARS)
            )
        );
        let message = format!("invalid type: string \"{bad}\", expected f32");
        assert_eq!(
            one_line(&message),
            format!(
                "invalid type: string \"{}…\", expected f32",
                "y".repeat(EXCERPT_CHARS)
            )
        );
        assert_eq!(one_line("a `short` one"), "a `short` one");
        // Typographic quotes too, and what follows them is kept.
        let message = format!("--policy: use none, retries or budget (got “{bad}”), or see --help");
        assert_eq!(
            one_line(&message),
            format!(
                "--policy: use none, retries or budget (got “{}…”), or see --help",
                "y".repeat(EXCERPT_CHARS)
            )
        );
    }
}
