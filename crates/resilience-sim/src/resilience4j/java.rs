//! Resilience4j's Java builders read as settings: `CircuitBreakerConfig.custom()
//! .slidingWindowSize(10)....build()` becomes the entries an `application.yml` with the same
//! settings gives, so a pasted `@Configuration` class goes through the same checks as a
//! Spring file.
//!
//! Engineers keep their settings in code as often as in YAML, and this course's own config
//! dialog writes Java: what it writes, it must read back. The reader knows the builders'
//! shape, not Java: each `XConfig.custom()` chain up to `.build()`, its calls
//! `.name(argument)`, and the arguments a setting takes (numbers, booleans, `Duration`s,
//! enum constants, `X.class` lists, `IntervalFunction`s). An argument it cannot read (a
//! variable, a method of the application's own) is a problem naming its line, never a
//! guess.
//!
//! The instance's name is the one in a `// resilience4j.SECTION.instances.NAME` comment
//! right above the builder (as the course writes it), else the variable the builder is
//! assigned to, else `default`.

use std::collections::BTreeMap;

// The Spring name of a builder method is the import's name of a camelCase field
// (`slidingWindowSize` -> `sliding-window-size`).
use super::{kebab, on_line, Entry};

/// Whether `text` is Java builder code rather than YAML or `.properties`.
pub fn is_java(text: &str) -> bool {
    text.contains(".custom()")
        && [
            "CircuitBreakerConfig",
            "BulkheadConfig",
            "RetryConfig",
            "TimeLimiterConfig",
            "RateLimiterConfig",
        ]
        .iter()
        .any(|class| text.contains(class))
}

/// The builders' classes, with the Spring section of their settings.
const BUILDERS: [(&str, &str); 6] = [
    ("ThreadPoolBulkheadConfig", "thread-pool-bulkhead"),
    ("CircuitBreakerConfig", "circuitbreaker"),
    ("BulkheadConfig", "bulkhead"),
    ("RetryConfig", "retry"),
    ("TimeLimiterConfig", "timelimiter"),
    ("RateLimiterConfig", "ratelimiter"),
];

/// The entries of every builder in `text`, or one line per argument it cannot read.
pub fn read(text: &str) -> Result<Vec<Entry>, Vec<String>> {
    let imports = imports(text);
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find(".custom()") {
        let at = from + found;
        from = at + ".custom()".len();
        let before = &text[..at];
        let Some(&(class, section)) = BUILDERS.iter().find(|(class, _)| before.ends_with(class))
        else {
            continue;
        };
        let name = instance_name(&text[..at - class.len()], class);
        let prefix = ["resilience4j.", section, ".instances.", &name, "."].concat();
        let mut rest = from;
        loop {
            let tail = &text[rest..];
            let skipped = blank_len(tail);
            let tail = &tail[skipped..];
            let Some(call) = tail.strip_prefix('.') else {
                break;
            };
            let method_len = call
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(call.len());
            let method = &call[..method_len];
            let Some(arguments) = call[method_len..].trim_start().strip_prefix('(') else {
                break;
            };
            let Some(close) = closing(arguments) else {
                problems.push(on_line(line_of(text, rest), "a builder call is not closed"));
                break;
            };
            let argument = arguments[..close].trim();
            let offset = rest + skipped + (tail.len() - arguments.len()) + close + 1;
            if method == "build" {
                rest = offset;
                break;
            }
            let line = line_of(text, rest + skipped);
            let read = match (class == "ThreadPoolBulkheadConfig")
                .then(|| thread_pool_size_refused(method, argument))
                .flatten()
            {
                Some(why) => Err(why.to_string()),
                None => setting(method, argument, &imports),
            };
            match read {
                Ok(settings) => {
                    for (key, value) in settings {
                        entries.push(Entry {
                            key: format!("{prefix}{key}"),
                            value,
                            line,
                        });
                    }
                }
                Err(why) => problems.push(on_line(
                    line,
                    &[
                        ".",
                        method,
                        "(",
                        &crate::error::excerpt(argument),
                        "): ",
                        &why,
                    ]
                    .concat(),
                )),
            }
            rest = offset;
        }
        from = rest.max(from);
    }
    match problems.is_empty() {
        true => Ok(entries),
        false => Err(problems),
    }
}

/// The length of the blanks and Java comments (`// …` to the end of the line, `/* … */`)
/// that `text` starts with: a comment between two calls of a chain does not end it.
fn blank_len(text: &str) -> usize {
    let mut at = 0;
    loop {
        let rest = &text[at..];
        let trimmed = rest.trim_start();
        at += rest.len() - trimmed.len();
        if let Some(comment) = trimmed.strip_prefix("//") {
            at += 2 + comment.find('\n').unwrap_or(comment.len());
        } else if let Some(comment) = trimmed.strip_prefix("/*") {
            match comment.find("*/") {
                Some(end) => at += 2 + end + 2,
                None => return text.len(),
            }
        } else {
            return at;
        }
    }
}

/// `import a.b.C;` as C -> a.b.C.
fn imports(text: &str) -> BTreeMap<&str, &str> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("import "))
        .filter_map(|rest| rest.trim().strip_suffix(';'))
        .filter(|path| !path.starts_with("static "))
        .filter_map(|path| Some((path.rsplit('.').next()?, path)))
        .collect()
}

/// The instance a builder configures: its `// resilience4j.….instances.NAME` comment, else
/// the variable it is assigned to, else `default`. `before` ends where the builder's class
/// is written.
fn instance_name(before: &str, class: &str) -> String {
    let mut lines = before.lines().rev();
    // The statement so far: this line up to the class, and the code lines before it up to
    // the previous statement's end; the comment lines right above it.
    let mut code = vec![lines.next().unwrap_or("")];
    let mut comments = Vec::new();
    for line in lines {
        let t = line.trim();
        if t.starts_with("//") {
            comments.push(t);
        } else if t.is_empty() || t.ends_with([';', '{', '}']) || !comments.is_empty() {
            break;
        } else {
            code.push(t);
        }
    }
    for comment in &comments {
        if let Some(path) = comment.strip_prefix("// resilience4j.") {
            if let Some((_, name)) = path.split_once(".instances.") {
                return name.trim().to_string();
            }
        }
    }
    // `CircuitBreakerConfig payment = ` (the class written before the variable).
    code.reverse();
    let code = code.join(" ");
    if let Some((left, _)) = code.rsplit_once('=') {
        let mut words = left.split_whitespace().rev();
        if let (Some(variable), Some(type_name)) = (words.next(), words.next()) {
            if type_name.ends_with(class) || type_name == "var" {
                return variable.to_string();
            }
        }
    }
    "default".to_string()
}

/// Where the parenthesis opened just before `text` closes (strings and nesting skipped).
fn closing(text: &str) -> Option<usize> {
    let mut depth = 0u32;
    let mut quote = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') if depth == 0 => return Some(i),
            (None, ')') => depth -= 1,
            _ => {}
        }
    }
    None
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// The settings one builder call makes: usually one, several for a list of classes or an
/// `IntervalFunction`.
fn setting(
    method: &str,
    argument: &str,
    imports: &BTreeMap<&str, &str>,
) -> Result<Vec<(String, String)>, String> {
    if argument.contains(".class") {
        return argument
            .split(',')
            .enumerate()
            .map(|(i, class)| {
                let class = class.trim().strip_suffix(".class").ok_or_else(not_read)?;
                let name_like = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.');
                if class.is_empty() || !class.chars().all(name_like) {
                    return Err(not_read());
                }
                Ok((
                    [&kebab(method), "[", &i.to_string(), "]"].concat(),
                    class_name(class, imports),
                ))
            })
            .collect();
    }
    if let Some(function) = argument.strip_prefix("IntervalFunction.") {
        return interval_function(method, function);
    }
    Ok(vec![(kebab(method), value(argument)?)])
}

/// Spring Boot skips a thread-pool size below 1 and a queue below 0 (its properties set
/// them only when positive), so the import keeps the default with a note; the builder's
/// setters throw `IllegalArgumentException` for the same values.
fn thread_pool_size_refused(method: &str, argument: &str) -> Option<&'static str> {
    let min = match method {
        "coreThreadPoolSize" | "maxThreadPoolSize" => 1,
        "queueCapacity" => 0,
        _ => return None,
    };
    let value: i64 = argument.parse().ok()?;
    (value < min).then_some(match min {
        1 => "the builder throws IllegalArgumentException: the size must be at least 1",
        _ => "the builder throws IllegalArgumentException: the capacity must be at least 0",
    })
}

fn not_read() -> String {
    "the reader takes numbers, true or false, Duration.of…(n), enum constants, X.class lists and IntervalFunction.of…(…): write this setting in application.yml".to_string()
}

/// A setting's value as Spring would read it from YAML.
fn value(argument: &str) -> Result<String, String> {
    let argument = argument.trim();
    if argument == "true" || argument == "false" {
        return Ok(argument.to_string());
    }
    if let Some(duration) = duration(argument) {
        return Ok(duration);
    }
    let number = argument.trim_end_matches(['f', 'F', 'd', 'D', 'l', 'L']);
    if !number.is_empty()
        && number
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '_' | 'e' | 'E' | '+'))
        && number
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '-' || c == '.')
    {
        return Ok(number.replace('_', ""));
    }
    // An enum constant: `SlidingWindowType.TIME_BASED`, `CircuitBreaker.State.OPEN`, `OPEN`.
    let last = argument.rsplit('.').next().unwrap_or(argument);
    if last.starts_with(|c: char| c.is_ascii_uppercase())
        && last
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    {
        return Ok(last.to_string());
    }
    Err(not_read())
}

/// `Duration.ofSeconds(5)` as `5s`; `Duration.ZERO` as `0ms`.
fn duration(argument: &str) -> Option<String> {
    if argument == "Duration.ZERO" {
        return Some("0ms".to_string());
    }
    let call = argument.strip_prefix("Duration.of")?;
    let (unit, rest) = call.split_once('(')?;
    let amount = rest.strip_suffix(')')?.trim().trim_end_matches(['l', 'L']);
    if amount.is_empty() || !amount.chars().all(|c| c.is_ascii_digit() || c == '_') {
        return None;
    }
    let suffix = match unit {
        "Nanos" => "ns",
        "Millis" => "ms",
        "Seconds" => "s",
        "Minutes" => "m",
        "Hours" => "h",
        "Days" => "d",
        _ => return None,
    };
    Some([&amount.replace('_', ""), suffix].concat())
}

/// A class as written in Java, fully qualified: through the file's imports, an inner
/// class (`HttpClientErrorException.NotFound`) with `$` as Spring's lists write it.
fn class_name(written: &str, imports: &BTreeMap<&str, &str>) -> String {
    let mut parts = written.split('.');
    let first = parts.next().unwrap_or(written);
    let rest: Vec<&str> = parts.collect();
    match imports.get(first) {
        Some(path) if rest.is_empty() => path.to_string(),
        Some(path) => [path, "$", &rest.join("$")].concat(),
        // Written in full (or in `java.lang`): the segments from the first capital on
        // are classes.
        None => {
            let segments: Vec<&str> = written.split('.').collect();
            let class_at = segments
                .iter()
                .position(|s| s.starts_with(|c: char| c.is_ascii_uppercase()))
                .unwrap_or(0);
            let package = segments[..class_at].join(".");
            let classes = segments[class_at..].join("$");
            match package.is_empty() {
                true => classes,
                false => [&package, ".", &classes].concat(),
            }
        }
    }
}

/// `IntervalFunction.ofExponentialBackoff(Duration.ofSeconds(10), 2.0, Duration.ofMinutes(5))`
/// as Spring's switches: the wait, `enable-exponential-backoff`, the multiplier, the
/// maximum; `ofRandomized` with `enable-randomized-wait` and its factor.
fn interval_function(method: &str, function: &str) -> Result<Vec<(String, String)>, String> {
    let (wait_key, max_key) = match method {
        "waitIntervalFunctionInOpenState" => (
            "wait-duration-in-open-state",
            "exponential-max-wait-duration-in-open-state",
        ),
        "intervalFunction" => ("wait-duration", "exponential-max-wait-duration"),
        _ => return Err(not_read()),
    };
    let (name, rest) = function.split_once('(').ok_or_else(not_read)?;
    let inner = rest.strip_suffix(')').ok_or_else(not_read)?;
    let arguments = split_arguments(inner);
    let get = |i: usize| arguments.get(i).map(|a| value(a)).transpose();
    let wait = get(0)?.ok_or_else(not_read)?;
    let mut out = vec![(wait_key.to_string(), wait)];
    let exponential = |out: &mut Vec<(String, String)>, multiplier: String| {
        out.push(("enable-exponential-backoff".into(), "true".into()));
        out.push(("exponential-backoff-multiplier".into(), multiplier));
    };
    let randomized = |out: &mut Vec<(String, String)>, factor: String| {
        out.push(("enable-randomized-wait".into(), "true".into()));
        out.push(("randomized-wait-factor".into(), factor));
    };
    match (name, arguments.len()) {
        ("of", 1) => {}
        ("ofExponentialBackoff", 2 | 3) => {
            exponential(&mut out, get(1)?.ok_or_else(not_read)?);
            if let Some(max) = get(2)? {
                out.push((max_key.to_string(), max));
            }
        }
        ("ofRandomized", 2) => randomized(&mut out, get(1)?.ok_or_else(not_read)?),
        ("ofExponentialRandomBackoff", 3 | 4) => {
            exponential(&mut out, get(1)?.ok_or_else(not_read)?);
            randomized(&mut out, get(2)?.ok_or_else(not_read)?);
            if let Some(max) = get(3)? {
                out.push((max_key.to_string(), max));
            }
        }
        _ => return Err(not_read()),
    }
    Ok(out)
}

/// Arguments split at the commas that are not inside parentheses.
fn split_arguments(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0u32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        out.push(text[start..].trim());
    }
    out
}
