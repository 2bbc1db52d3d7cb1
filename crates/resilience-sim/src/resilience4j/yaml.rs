//! A reader for the subset of YAML a Spring Boot `application.yml` fragment uses.
//!
//! Read:
//! - block maps by indentation (spaces only): `key: value`, `key:` followed by a more
//!   indented block; a key may hold dots (`resilience4j.retry:`), as Spring reads them;
//! - scalars: plain (`50`, `10s`, `java.io.IOException`), `"double"` (with `\` escapes)
//!   and `'single'` quoted (`''` is a quote); `~`, `null` and an empty value are `""`, as
//!   Spring binds a null; a plain YAML 1.1 integer is read as Spring Boot's loader reads it
//!   (`010` is octal 8, `0x1F`, `0b101`, `1_000`, `1:30` base 60) and kept in decimal;
//! - lists of scalars: block (`- item` lines, at the key's indentation or deeper) and flow
//!   (`[a, b]`), flattened to `key[0]`, `key[1]`, ...;
//! - comments (`#` at the start of a line, or after a space), blank lines, one leading
//!   `---`.
//!
//! Refused, with the line and the reason: anchors (`&a`), aliases (`*a`), tags (`!t`),
//! flow maps (`{a: 1}`), block scalars (`|`, `>`), a second document, directives, complex
//! keys, lists of maps, nested lists, a plain value that goes on over several lines, and
//! tabs in indentation. Work is bounded: at most [`MAX_INPUT`](super::MAX_INPUT) bytes and [`MAX_DEPTH`]
//! levels; the reader never panics and reports at most [`MAX_ERRORS`] problems.

use super::{check_size, on_line, Entry, MAX_DEPTH};
use std::collections::BTreeSet;

/// Problems reported before the reader gives up.
pub const MAX_ERRORS: usize = 50;

/// The longest key, and the longest path of keys a block may open, in bytes: every entry
/// under a block carries its path, so a long one repeated on every line would make the
/// entries hundreds of times the fragment (Resilience4j's longest paths are under 100).
pub const MAX_KEY: usize = 256;
pub const MAX_PATH: usize = 512;

struct Frame {
    indent: usize,
    prefix: String,
    /// The next index when this block is a list.
    list: Option<usize>,
    /// The keys this block has had: Spring Boot's YAML loader refuses a key twice in one
    /// map (`OriginTrackedYamlLoader`: `setAllowDuplicateKeys(false)`).
    keys: BTreeSet<String>,
}

/// Reads a YAML fragment into its settings, in order, or every problem (one line each).
pub fn read(text: &str) -> Result<Vec<Entry>, Vec<String>> {
    let text = crate::error::without_bom(text);
    check_size(text)?;
    let mut entries = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    let mut frames: Vec<Frame> = Vec::new();
    // A `key:` with nothing after it: (its indentation, its path, its line).
    let mut open: Option<(usize, String, usize)> = None;
    let mut started = false;
    for (index, raw) in text.split('\n').enumerate() {
        if errors.len() >= MAX_ERRORS {
            errors.push(["(stopped after ", &MAX_ERRORS.to_string(), " problems)"].concat());
            break;
        }
        let line = index + 1;
        if let Err(e) = read_line(
            raw,
            &mut frames,
            &mut open,
            &mut started,
            &mut entries,
            line,
        ) {
            errors.push(on_line(line, &e));
        }
    }
    if let Some((_, path, line)) = open {
        entries.push(Entry {
            key: path,
            value: String::new(),
            line,
        });
    }
    if errors.is_empty() {
        Ok(entries)
    } else {
        Err(errors)
    }
}

/// Reads one line into `entries`, keeping the open blocks in `frames`.
fn read_line(
    raw: &str,
    frames: &mut Vec<Frame>,
    open: &mut Option<(usize, String, usize)>,
    started: &mut bool,
    entries: &mut Vec<Entry>,
    line: usize,
) -> Result<(), String> {
    let raw = raw.strip_suffix('\r').unwrap_or(raw);
    let indent = raw.len() - raw.trim_start_matches(' ').len();
    let rest = &raw[indent..];
    let trimmed = rest.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Ok(());
    }
    if rest.starts_with('\t') {
        return Err("a tab in the indentation (YAML indents with spaces)".into());
    }
    if indent == 0 && (is_marker(rest, "---") || is_marker(rest, "...")) {
        let first = !*started && rest.starts_with("---");
        *started = true;
        return match first {
            true => Ok(()),
            false => Err("a second YAML document (`---` or `...`): paste one document".into()),
        };
    }
    if indent == 0 && rest.starts_with('%') {
        return Err("YAML directives (`%`) are not supported".into());
    }
    let item = is_item(rest);
    if let Some((key_indent, path, key_line)) = open.take() {
        if item && indent >= key_indent || indent > key_indent {
            if frames.len() >= MAX_DEPTH {
                return Err(["nested deeper than ", &MAX_DEPTH.to_string(), " levels"].concat());
            }
            if path.len() > MAX_PATH {
                return Err([
                    "the keys above this line make a path longer than ",
                    &MAX_PATH.to_string(),
                    " characters",
                ]
                .concat());
            }
            frames.push(Frame {
                indent,
                prefix: path,
                list: item.then_some(0),
                keys: BTreeSet::new(),
            });
        } else {
            entries.push(Entry {
                key: path,
                value: String::new(),
                line: key_line,
            });
        }
    }
    *started = true;
    if frames.is_empty() && entries.is_empty() {
        // The first line sets the top level's indentation.
        frames.push(Frame {
            indent,
            prefix: String::new(),
            list: None,
            keys: BTreeSet::new(),
        });
    }
    while frames
        .last()
        .is_some_and(|f| f.indent > indent || (f.indent == indent && f.list.is_some() && !item))
    {
        frames.pop();
    }
    let Some(frame) = frames.last_mut().filter(|f| f.indent == indent) else {
        return Err("the indentation does not line up with any line above (or a value goes on over several lines: keep it on one line, or quote it)".into());
    };
    match frame.list {
        Some(n) => {
            let value = list_item(&rest[1..])?;
            entries.push(Entry {
                key: index(&frame.prefix, n),
                value,
                line,
            });
            frame.list = Some(n + 1);
        }
        None => {
            let (key, value) = map_line(rest, &frame.prefix)?;
            let repeated = frame.keys.contains(&key).then(|| {
                [
                    "`",
                    &shorten(&key),
                    "` is already a key of this block: Spring Boot refuses a key twice in one map",
                ]
                .concat()
            });
            frame.keys.insert(key);
            // A repeated key still opens its block, so the lines under it line up and
            // are not each reported as misplaced.
            match value {
                Some(value) => value.into_entries(line, entries),
                None => *open = Some((indent, key_path(&frame.prefix, rest), line)),
            }
            if let Some(problem) = repeated {
                return Err(problem);
            }
        }
    }
    Ok(())
}

fn is_marker(rest: &str, marker: &str) -> bool {
    rest.strip_prefix(marker)
        .is_some_and(|after| after.trim().is_empty() || after.trim_start().starts_with('#'))
}

fn is_item(rest: &str) -> bool {
    rest == "-" || rest.starts_with("- ") || rest.starts_with("-\t")
}

/// A key's value: `None` in [`map_line`] means "a block follows".
enum Value {
    Scalar(String, String),
    List(String, Vec<String>),
}

impl Value {
    fn into_entries(self, line: usize, entries: &mut Vec<Entry>) {
        match self {
            Value::Scalar(key, value) => entries.push(Entry { key, value, line }),
            // `key: []` binds as an empty value, as Spring's YAML loader gives it.
            Value::List(key, items) if items.is_empty() => entries.push(Entry {
                key,
                value: String::new(),
                line,
            }),
            Value::List(key, items) => {
                for (i, value) in items.into_iter().enumerate() {
                    entries.push(Entry {
                        key: index(&key, i),
                        value,
                        line,
                    });
                }
            }
        }
    }
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        [prefix, ".", key].concat()
    }
}

/// `key[i]`.
fn index(key: &str, i: usize) -> String {
    [key, "[", &i.to_string(), "]"].concat()
}

/// The path of a `key:` line already checked by [`map_line`].
fn key_path(prefix: &str, rest: &str) -> String {
    match split_key(rest) {
        Ok((key, _)) => join(prefix, &key),
        Err(_) => prefix.to_string(),
    }
}

/// A `key: value` line: its key, and `Some` with its value, or `None` for `key:` (a block
/// follows).
fn map_line(rest: &str, prefix: &str) -> Result<(String, Option<Value>), String> {
    if is_item(rest) {
        return Err("a list item where a key was expected".into());
    }
    let (key, after) = split_key(rest)?;
    let after = after.trim();
    if after.is_empty() || after.starts_with('#') {
        return Ok((key, None));
    }
    let path = join(prefix, &key);
    let value = if after.starts_with('[') {
        Value::List(path, flow_list(after)?)
    } else {
        Value::Scalar(path, scalar(after)?)
    };
    Ok((key, Some(value)))
}

/// Splits `key: rest`; the key may be quoted.
fn split_key(rest: &str) -> Result<(String, &str), String> {
    if rest.starts_with("? ") || rest == "?" {
        return Err("complex keys (`? `) are not supported".into());
    }
    if rest.starts_with(['"', '\'']) {
        let (key, after) = quoted(rest)?;
        let after = after.trim_start();
        return match after.strip_prefix(':') {
            Some(value) if value.is_empty() || value.starts_with([' ', '\t']) => {
                check_key_length(&key)?;
                Ok((key, value))
            }
            _ => Err("expected `:` after the quoted key".into()),
        };
    }
    if let Some(e) = indicator(rest) {
        return Err(e);
    }
    let colon = rest
        .char_indices()
        .find(|&(i, c)| {
            c == ':'
                && rest[i + 1..]
                    .chars()
                    .next()
                    .is_none_or(|n| n == ' ' || n == '\t')
        })
        .map(|(i, _)| i);
    let Some(colon) = colon.filter(|&c| !rest[..c].contains(" #")) else {
        return Err(["expected `key: value`, found `", &shorten(rest.trim()), "`"].concat());
    };
    let key = rest[..colon].trim_end();
    if key.is_empty() {
        return Err("a `:` with no key before it".into());
    }
    check_key_length(key)?;
    Ok((key.to_string(), &rest[colon + 1..]))
}

fn check_key_length(key: &str) -> Result<(), String> {
    match key.len() > MAX_KEY {
        true => Err([
            "a key longer than ",
            &MAX_KEY.to_string(),
            " characters: `",
            &shorten(key),
            "`",
        ]
        .concat()),
        false => Ok(()),
    }
}

/// The refusal for a scalar or key starting with a YAML indicator this reader does not
/// take.
fn indicator(text: &str) -> Option<String> {
    let what = match text.chars().next()? {
        '&' => "anchors (`&name`) are not supported",
        '*' => "aliases (`*name`) are not supported",
        '!' => "tags (`!tag`) are not supported",
        '{' => "flow maps (`{a: 1}`) are not supported: write one `key: value` per line",
        '|' | '>' => "block scalars (`|`, `>`) are not supported: keep the value on one line",
        '@' | '`' => "`@` and `` ` `` are reserved in YAML: quote the value",
        '%' => "a value starting with `%` must be quoted",
        _ => return None,
    };
    Some(what.to_string())
}

/// A plain or quoted scalar (the text after `key: ` or `- `), with a comment allowed after.
fn scalar(text: &str) -> Result<String, String> {
    if text.starts_with(['"', '\'']) {
        let (value, after) = quoted(text)?;
        let after = after.trim_start();
        if !after.is_empty() && !after.starts_with('#') {
            return Err(["unexpected `", &shorten(after), "` after the quoted value"].concat());
        }
        return Ok(value);
    }
    if let Some(e) = indicator(text) {
        return Err(e);
    }
    if text.starts_with("- ") || text == "-" {
        return Err("a list item after a key: put `- item` on the next line".into());
    }
    let value = match text.find(" #").or_else(|| text.find("\t#")) {
        Some(i) => &text[..i],
        None => text,
    }
    .trim_end();
    if value.contains(": ") || value.ends_with(':') {
        return Err("a `key: value` inside a value: quote the value".into());
    }
    Ok(match value {
        "~" | "null" | "Null" | "NULL" => String::new(),
        _ => plain(value),
    })
}

/// A plain (unquoted) value as Spring Boot binds it. Its YAML loader (SnakeYAML, YAML 1.1)
/// makes an integer of `010` (octal: 8), `0x1F`, `0b101`, `1_000` and `1:30` (base 60: 90),
/// and the binder reads that integer's decimal form, for a number, a duration (`010`: 8 ms)
/// or a name alike. Any other text stays as written.
fn plain(value: &str) -> String {
    yaml_int(value).unwrap_or_else(|| value.to_string())
}

/// The decimal form of a YAML 1.1 integer (SnakeYAML's `Resolver.INT`, then
/// `ConstructYamlInt`), or `None` when `text` is not one, or is one too long to matter here
/// (past `i128`: no setting takes it, and it stays as written to be refused as such).
fn yaml_int(text: &str) -> Option<String> {
    let (negative, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    // Digits of `radix` and `_`, at least one digit.
    let digits = |s: &str, radix: u32| {
        s.chars().all(|c| c == '_' || c.is_digit(radix)) && s.chars().any(|c| c.is_digit(radix))
    };
    let sign = |v: i128| if negative { -v } else { v };
    let parse = |s: &str, radix: u32| i128::from_str_radix(&s.replace('_', ""), radix).ok();
    let value = if let Some(bits) = body.strip_prefix("0b").filter(|b| digits(b, 2)) {
        sign(parse(bits, 2)?)
    } else if let Some(hex) = body.strip_prefix("0x").filter(|h| digits(h, 16)) {
        sign(parse(hex, 16)?)
    } else if let Some(octal) = body.strip_prefix('0').filter(|o| digits(o, 8)) {
        sign(parse(octal, 8)?)
    } else if body == "0"
        || (body.starts_with(|c: char| ('1'..='9').contains(&c)) && digits(body, 10))
    {
        sign(parse(body, 10)?)
    } else {
        return base_sixty(negative, body);
    };
    Some(value.to_string())
}

/// `190:20:30`: base 60, summed as SnakeYAML does, in a Java `int` (which wraps).
fn base_sixty(negative: bool, body: &str) -> Option<String> {
    let (first, rest) = body.split_once(':')?;
    if !first.starts_with(|c: char| ('1'..='9').contains(&c))
        || !first.chars().all(|c| c == '_' || c.is_ascii_digit())
    {
        return None;
    }
    let rest: Vec<&str> = rest.split(':').collect();
    let sixtieth = |p: &&str| match p.as_bytes() {
        [d] => d.is_ascii_digit(),
        [t, d] => (b'0'..=b'5').contains(t) && d.is_ascii_digit(),
        _ => false,
    };
    if !rest.iter().all(sixtieth) {
        return None;
    }
    let (mut value, mut weight) = (0i32, 1i32);
    for part in rest.iter().rev().copied().chain([first]) {
        let part = part.replace('_', "").parse::<i64>().ok()?;
        value = (i64::from(value).wrapping_add(part.wrapping_mul(i64::from(weight)))) as i32;
        weight = weight.wrapping_mul(60);
    }
    // A sum that wrapped below zero, signed again, is no number to Java: the loader fails.
    match (negative, value < 0) {
        (true, true) => None,
        (true, false) => Some((-i64::from(value)).to_string()),
        (false, _) => Some(value.to_string()),
    }
}

/// `[a, "b", 'c']`: scalars only.
fn flow_list(text: &str) -> Result<Vec<String>, String> {
    let mut items = Vec::new();
    let mut rest = text[1..].trim_start();
    loop {
        if let Some(after) = rest.strip_prefix(']') {
            let after = after.trim_start();
            if !after.is_empty() && !after.starts_with('#') {
                return Err(["unexpected `", &shorten(after), "` after the list"].concat());
            }
            return Ok(items);
        }
        if rest.starts_with(['[', '{']) {
            return Err("nested lists and maps are not supported".into());
        }
        let (item, after) = if rest.starts_with(['"', '\'']) {
            quoted(rest)?
        } else {
            let end = rest
                .find([',', ']', '[', '{', '}', '#'])
                .ok_or("a `[` list without its `]`: keep the list on one line")?;
            if let Some(e) = indicator(rest) {
                return Err(e);
            }
            (plain(rest[..end].trim_end()), &rest[end..])
        };
        if item.is_empty() && !after.starts_with(']') {
            return Err("an empty item in a `[...]` list".into());
        }
        if !item.is_empty() {
            items.push(item);
        }
        let after = after.trim_start();
        rest = match after.strip_prefix(',') {
            Some(next) => next.trim_start(),
            None if after.starts_with(']') => after,
            None if after.is_empty() => {
                return Err("a `[` list without its `]`: keep the list on one line".into())
            }
            None => return Err(["expected `,` or `]`, found `", &shorten(after), "`"].concat()),
        };
    }
}

/// A `- item` line's item.
fn list_item(text: &str) -> Result<String, String> {
    let item = text.trim();
    if item.is_empty() || item.starts_with('#') {
        return Err("an empty list item (or a block under `-`): not supported".into());
    }
    if is_item(item) || item.starts_with('[') {
        return Err("nested lists are not supported".into());
    }
    if !item.starts_with(['"', '\'']) && split_key(item).is_ok() {
        return Err("a list of maps (`- key: value`) is not supported".into());
    }
    scalar(item)
}

/// A quoted scalar at the start of `text`: its value and the text after the closing quote.
fn quoted(text: &str) -> Result<(String, &str), String> {
    let quote = text.chars().next().ok_or("a missing value")?;
    let mut value = String::new();
    let mut chars = text.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        if c == quote {
            if quote == '\'' && text[i + 1..].starts_with('\'') {
                value.push('\'');
                chars.next();
                continue;
            }
            return Ok((value, &text[i + 1..]));
        }
        if c == '\\' && quote == '"' {
            let Some((_, e)) = chars.next() else { break };
            let hex = |n: usize, chars: &mut dyn Iterator<Item = (usize, char)>| {
                let digits: String = chars.take(n).map(|(_, c)| c).collect();
                u32::from_str_radix(&digits, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .filter(|_| digits.len() == n)
                    .ok_or_else(|| escape("a bad `\\", e, "` escape in a quoted value"))
            };
            value.push(match e {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                '0' => '\0',
                '"' | '\\' | '/' | ' ' => e,
                'x' => hex(2, &mut chars)?,
                'u' => hex(4, &mut chars)?,
                'U' => hex(8, &mut chars)?,
                _ => return Err(escape("an unknown escape `\\", e, "` in a quoted value")),
            });
            continue;
        }
        value.push(c);
    }
    Err("a quoted value without its closing quote (keep it on one line)".into())
}

/// A message quoting an escape's character.
fn escape(before: &str, c: char, after: &str) -> String {
    [before, c.encode_utf8(&mut [0; 4]), after].concat()
}

fn shorten(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((i, _)) => [&text[..i], "…"].concat(),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(text: &str) -> Vec<(String, String, usize)> {
        read(text)
            .unwrap()
            .into_iter()
            .map(|e| (e.key, e.value, e.line))
            .collect()
    }

    fn p(key: &str, value: &str, line: usize) -> (String, String, usize) {
        (key.into(), value.into(), line)
    }

    /// A fragment pasted twice: one problem, at the repeated key, and none for the lines
    /// under it (they were each called misplaced).
    #[test]
    fn a_repeated_block_is_one_problem() {
        let once = "resilience4j:\n  circuitbreaker:\n    instances:\n      a:\n        sliding-window-size: 5\n";
        let errors = read(&[once, once].concat()).unwrap_err();
        assert_eq!(
            errors,
            vec!["line 6: `resilience4j` is already a key of this block: Spring Boot refuses a key twice in one map".to_string()]
        );
    }

    #[test]
    fn plain_integers_are_read_as_yaml_1_1_reads_them() {
        // The examples of YAML 1.1's integer type (yaml.org/type/int.html): one number,
        // 685230, in each of its forms; quoted, each stays text.
        for form in [
            "685230",
            "+685_230",
            "02472256",
            "0x_0A_74_AE",
            "0b1010_0111_0100_1010_1110",
            "190:20:30",
        ] {
            let text = [
                "a:\n  plain: ",
                form,
                "\n  listed: [",
                form,
                "]\n  quoted: '",
                form,
                "'\n",
            ]
            .concat();
            assert_eq!(
                pairs(&text),
                vec![
                    p("a.plain", "685230", 2),
                    p("a.listed[0]", "685230", 3),
                    p("a.quoted", form, 4)
                ],
                "{form}"
            );
        }
        let one = |v: &str| pairs(&["a: ", v, "\n"].concat())[0].1.clone();
        // Octal by its leading zero, as Spring Boot's loader reads it: 8, not 10.
        assert_eq!(one("010"), "8");
        assert_eq!(one("-010"), "-8");
        assert_eq!(one("00"), "0");
        assert_eq!(one("-0x1F"), "-31");
        assert_eq!(one("-1:30"), "-90");
        // A Java int's sum wraps (6,000,000,000 - 2^32).
        assert_eq!(one("100000000:0"), "1705032704");
        // Not integers in YAML 1.1: kept as written.
        for text in [
            "08", "0X10", "0o10", "1:60", "0x", "0b", "0_", "10s", "1e3", "1.5", "PT10S",
        ] {
            assert_eq!(one(text), text);
        }
    }

    #[test]
    fn maps_lists_quotes_and_comments() {
        let text = "---\n# a comment\nresilience4j:\n  circuitbreaker:\n    instances:\n      a:\n        failure-rate-threshold: 50 # percent\n        record-exceptions:\n        - java.io.IOException\n        - \"java.net.ConnectException\"\n        ignore-exceptions: ['x.Y', z.W]\n        name: 'it''s'\n        empty:\n  retry.instances.b.max-attempts: 3\n";
        assert_eq!(
            pairs(text),
            vec![
                p(
                    "resilience4j.circuitbreaker.instances.a.failure-rate-threshold",
                    "50",
                    7
                ),
                p(
                    "resilience4j.circuitbreaker.instances.a.record-exceptions[0]",
                    "java.io.IOException",
                    9
                ),
                p(
                    "resilience4j.circuitbreaker.instances.a.record-exceptions[1]",
                    "java.net.ConnectException",
                    10
                ),
                p(
                    "resilience4j.circuitbreaker.instances.a.ignore-exceptions[0]",
                    "x.Y",
                    11
                ),
                p(
                    "resilience4j.circuitbreaker.instances.a.ignore-exceptions[1]",
                    "z.W",
                    11
                ),
                p("resilience4j.circuitbreaker.instances.a.name", "it's", 12),
                p("resilience4j.circuitbreaker.instances.a.empty", "", 13),
                p("resilience4j.retry.instances.b.max-attempts", "3", 14),
            ]
        );
    }

    #[test]
    fn refusals_name_the_line() {
        for (text, line, words) in [
            ("a:\n  b: &x 1\n", 2, "anchors"),
            ("a:\n  b: *x\n", 2, "aliases"),
            ("a: !!str 1\n", 1, "tags"),
            ("a: {b: 1}\n", 1, "flow maps"),
            ("a: |\n  text\n", 1, "block scalars"),
            ("a: 1\n---\nb: 2\n", 2, "second YAML document"),
            // Spring Boot's loader refuses a repeated key: it does not merge the blocks.
            (
                "a:\n  b: 1\n  c:\n    d: 2\n  c:\n    e: 3\n",
                5,
                "`c` is already a key",
            ),
            ("a: 1\nb: 2\na: 3\n", 3, "`a` is already a key"),
            ("a:\n\tb: 1\n", 2, "tab"),
            ("a:\n  - b: 1\n", 2, "list of maps"),
            ("a:\n  b: 1\n   c: 2\n", 3, "indentation"),
            ("a: b\n  c\n", 2, "indentation"),
            ("a: \"open\n", 1, "closing quote"),
            ("just text\n", 1, "expected `key: value`"),
        ] {
            let errors = read(text).unwrap_err();
            assert!(
                errors[0].starts_with(&format!("line {line}: ")) && errors[0].contains(words),
                "{text:?}: {errors:?}"
            );
            assert!(errors.iter().all(|e| !e.contains('\n')));
        }
    }

    #[test]
    fn work_is_bounded() {
        let deep: String = (0..40)
            .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
            .collect();
        assert!(read(&deep).unwrap_err()[0].contains("deeper than 32"));
        let big = "a: 1\n".repeat(20_000);
        assert!(read(&big).unwrap_err()[0].contains("64 KB"));
        // A long key, quoted or not, and a long path repeated on every line.
        let long = "k".repeat(MAX_KEY + 1);
        for text in [format!("{long}: 1\n"), format!("\"{long}\": 1\n")] {
            let errors = read(&text).unwrap_err();
            assert!(errors[0].contains("a key longer than 256"), "{errors:?}");
            assert!(errors[0].chars().count() < 120, "{errors:?}");
        }
        let path: String = (0..3)
            .map(|i| format!("{}{}:\n", " ".repeat(i), "p".repeat(200)))
            .collect();
        let text = format!("{path}{}c: 1\n", " ".repeat(3));
        assert!(read(&text).unwrap_err()[0].contains("a path longer than 512"));
        let fits = format!("{}:\n {}:\n  c: 1\n", "p".repeat(200), "q".repeat(200));
        assert_eq!(read(&fits).unwrap().len(), 1);
    }
}
