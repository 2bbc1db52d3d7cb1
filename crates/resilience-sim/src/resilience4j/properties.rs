//! A reader for Java `.properties` fragments, as `java.util.Properties.load` reads them.
//!
//! `a.b.c=value`, `a.b.c: value` or `a.b.c value`; `a.b[0]=x` for a list; `#` and `!`
//! comment lines; a line ending in an odd number of `\` goes on on the next line; escapes
//! `\t`, `\n`, `\r`, `\f`, `\uXXXX`, and `\` before any other character stands for that
//! character. Trailing spaces of a value are dropped (Spring would not read `10s ` as a
//! duration either). At most [`MAX_INPUT`](super::MAX_INPUT) bytes, keys of at most [`MAX_DEPTH`] segments;
//! never panics.

use super::{check_size, on_line, Entry, MAX_DEPTH};

/// Reads a `.properties` fragment into its settings, in order, or every problem.
pub fn read(text: &str) -> Result<Vec<Entry>, Vec<String>> {
    let text = crate::error::without_bom(text);
    check_size(text)?;
    let mut entries = Vec::new();
    let mut errors = Vec::new();
    let mut lines = text.split('\n').enumerate();
    while let Some((index, first)) = lines.next() {
        let line = index + 1;
        let first = first.strip_suffix('\r').unwrap_or(first);
        let start = first.trim_start_matches([' ', '\t', '\x0c']);
        if start.is_empty() || start.starts_with(['#', '!']) {
            continue;
        }
        // Join continued lines (a comment line is never continued).
        let mut logical = start.to_string();
        while ends_in_escape(&logical) {
            logical.pop();
            match lines.next() {
                Some((_, next)) => {
                    let next = next.strip_suffix('\r').unwrap_or(next);
                    logical.push_str(next.trim_start_matches([' ', '\t', '\x0c']));
                }
                None => break,
            }
        }
        match entry(&logical) {
            Ok((key, _)) if key.is_empty() => errors.push(on_line(line, "a value with no key")),
            Ok((key, _)) if key.split('.').count() > MAX_DEPTH => errors.push(on_line(
                line,
                &[&key, ": more than ", &MAX_DEPTH.to_string(), " levels"].concat(),
            )),
            Ok((key, value)) => entries.push(Entry { key, value, line }),
            Err(e) => errors.push(on_line(line, &e)),
        }
    }
    if errors.is_empty() {
        Ok(entries)
    } else {
        Err(errors)
    }
}

fn ends_in_escape(line: &str) -> bool {
    line.bytes().rev().take_while(|&b| b == b'\\').count() % 2 == 1
}

/// Splits a logical line into its key and value, escapes resolved.
fn entry(line: &str) -> Result<(String, String), String> {
    let mut key = String::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if matches!(c, '=' | ':' | ' ' | '\t' | '\x0c') {
            break;
        }
        chars.next();
        if c == '\\' {
            key.push(unescape(&mut chars)?);
        } else {
            key.push(c);
        }
    }
    while chars
        .peek()
        .is_some_and(|c| matches!(c, ' ' | '\t' | '\x0c'))
    {
        chars.next();
    }
    if chars.peek().is_some_and(|c| matches!(c, '=' | ':')) {
        chars.next();
    }
    while chars
        .peek()
        .is_some_and(|c| matches!(c, ' ' | '\t' | '\x0c'))
    {
        chars.next();
    }
    let mut value = String::new();
    while let Some(c) = chars.next() {
        if c == '\\' {
            value.push(unescape(&mut chars)?);
        } else {
            value.push(c);
        }
    }
    Ok((key, value.trim_end().to_string()))
}

fn unescape(chars: &mut std::iter::Peekable<std::str::Chars>) -> Result<char, String> {
    Ok(match chars.next() {
        Some('t') => '\t',
        Some('n') => '\n',
        Some('r') => '\r',
        Some('f') => '\x0c',
        Some('u') => {
            let digits: String = chars.by_ref().take(4).collect();
            u32::from_str_radix(&digits, 16)
                .ok()
                .and_then(char::from_u32)
                .filter(|_| digits.len() == 4)
                .ok_or_else(|| ["a bad `\\u", &digits, "` escape"].concat())?
        }
        Some(other) => other,
        None => return Err("a `\\` at the end of the text".into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_java_properties() {
        let text = "# comment\n! also a comment\na.b.c=50\na.b.d : 10s\na.b.e   java.io.IOException\na.b.list[0]=x\\\n    y\nkey\\ with\\=sign=\\u0041\\t\n\n";
        let got: Vec<(String, String, usize)> = read(text)
            .unwrap()
            .into_iter()
            .map(|e| (e.key, e.value, e.line))
            .collect();
        assert_eq!(
            got,
            vec![
                ("a.b.c".into(), "50".into(), 3),
                ("a.b.d".into(), "10s".into(), 4),
                ("a.b.e".into(), "java.io.IOException".into(), 5),
                ("a.b.list[0]".into(), "xy".into(), 6),
                ("key with=sign".into(), "A".into(), 8),
            ]
        );
    }

    #[test]
    fn problems_are_one_line_each() {
        let errors = read("=5\na=\\u12\n").unwrap_err();
        assert_eq!(errors.len(), 2);
        assert!(errors[0].starts_with("line 1: "));
        assert!(errors[1].starts_with("line 2: "));
        assert!(read(&"a=1\n".repeat(20_000)).unwrap_err()[0].contains("64 KB"));
    }
}
