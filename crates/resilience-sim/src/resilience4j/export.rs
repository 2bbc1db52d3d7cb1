//! Instances out: Spring Boot YAML, `.properties`, and Java builder code.
//!
//! Every setting the engine models is written, defaults included, so the learner sees the
//! whole config; an exception list is written only when it is not empty (empty is
//! Resilience4j's default: record every exception, ignore none). The three writers share
//! one list of (key, value) per config; a builder method is the camelCase of its key.

use std::collections::{BTreeMap, BTreeSet};

use super::{class_name, Instance, Kind, PolicyConfig};
use crate::duration::{format_duration, format_nanos};
use crate::policy::circuit_breaker::{OpenWaitFunction, State};
use crate::policy::retry::IntervalFunction;
use crate::Millis;

/// A setting's value.
#[derive(Clone, Copy)]
enum Val<'a> {
    Int(u32),
    Bool(bool),
    Word(&'static str),
    Ms(Millis),
    /// Nanoseconds (the rate limiter's periods).
    Ns(u64),
    /// A `float` (the rates).
    Rate(f32),
    /// A `double` (a multiplier, a factor).
    Num(f64),
    Classes(&'a [String]),
}

use Val::*;

/// The settings of a config, with Spring Boot's (kebab-case) names, in the order written.
fn settings(config: &PolicyConfig) -> Vec<(&'static str, Val<'_>)> {
    let mut out = Vec::new();
    match config {
        PolicyConfig::CircuitBreaker(c) => {
            out.extend([
                ("sliding-window-type", Word(c.sliding_window_type.name())),
                ("sliding-window-size", Int(c.sliding_window_size)),
                ("minimum-number-of-calls", Int(c.minimum_number_of_calls)),
                ("failure-rate-threshold", Rate(c.failure_rate_threshold)),
                ("slow-call-rate-threshold", Rate(c.slow_call_rate_threshold)),
                (
                    "slow-call-duration-threshold",
                    Ms(c.slow_call_duration_threshold),
                ),
                (
                    "permitted-number-of-calls-in-half-open-state",
                    Int(c.permitted_number_of_calls_in_half_open_state),
                ),
            ]);
            // Written only when it is not Resilience4j's default (CLOSED).
            if c.initial_state != State::Closed {
                out.push(("initial-state", Word(c.initial_state.as_str())));
            }
            let (wait, exponential) = match c.wait_interval_function_in_open_state {
                Some(OpenWaitFunction::Exponential {
                    initial,
                    multiplier,
                    max,
                }) => (initial, Some((multiplier, max))),
                None => (c.wait_duration_in_open_state, None),
            };
            backoff(
                &mut out,
                "wait-duration-in-open-state",
                wait,
                exponential,
                None,
            );
            out.extend([
                (
                    "automatic-transition-from-open-to-half-open-enabled",
                    Bool(c.automatic_transition_from_open_to_half_open_enabled),
                ),
                (
                    "max-wait-duration-in-half-open-state",
                    Ms(c.max_wait_duration_in_half_open_state),
                ),
            ]);
            // Like initial-state, a key of Resilience4j 2.4.0 on: written only when it is
            // not the default (OPEN), so the other exports also bind on 2.0 to 2.3.
            if c.transition_to_state_after_wait_duration != State::Open {
                out.push((
                    "transition-to-state-after-wait-duration",
                    Word(c.transition_to_state_after_wait_duration.as_str()),
                ));
            }
            exceptions(&mut out, "record-exceptions", &c.record_exceptions);
            exceptions(&mut out, "ignore-exceptions", &c.ignore_exceptions);
        }
        PolicyConfig::Retry(c) => {
            out.push(("max-attempts", Int(c.max_attempts)));
            let (wait, exponential, randomized) = match c.interval_function {
                None => (c.wait_duration, None, None),
                Some(IntervalFunction::Fixed { interval }) => (interval, None, None),
                Some(IntervalFunction::Exponential {
                    initial_interval,
                    multiplier,
                    max_interval,
                }) => (initial_interval, Some((multiplier, max_interval)), None),
                Some(IntervalFunction::Randomized {
                    interval,
                    randomization_factor,
                }) => (interval, None, Some(randomization_factor)),
                Some(IntervalFunction::ExponentialRandomized {
                    initial_interval,
                    multiplier,
                    randomization_factor,
                    max_interval,
                }) => (
                    initial_interval,
                    Some((multiplier, max_interval)),
                    Some(randomization_factor),
                ),
            };
            backoff(&mut out, "wait-duration", wait, exponential, randomized);
            exceptions(&mut out, "retry-exceptions", &c.retry_exceptions);
            exceptions(&mut out, "ignore-exceptions", &c.ignore_exceptions);
            out.push(("fail-after-max-attempts", Bool(c.fail_after_max_attempts)));
        }
        PolicyConfig::Bulkhead(c) => out.extend([
            ("max-concurrent-calls", Int(c.max_concurrent_calls)),
            ("max-wait-duration", Ms(c.max_wait_duration)),
        ]),
        PolicyConfig::ThreadPoolBulkhead(c) => out.extend([
            ("core-thread-pool-size", Int(c.core_thread_pool_size)),
            ("max-thread-pool-size", Int(c.max_thread_pool_size)),
            ("queue-capacity", Int(c.queue_capacity)),
            ("keep-alive-duration", Ms(c.keep_alive_duration)),
        ]),
        PolicyConfig::TimeLimiter(c) => out.extend([
            ("timeout-duration", Ms(c.timeout_duration)),
            ("cancel-running-future", Bool(c.cancel_running_future)),
        ]),
        PolicyConfig::RateLimiter(c) => out.extend([
            ("limit-for-period", Int(c.limit_for_period)),
            ("limit-refresh-period", Ns(c.limit_refresh_period)),
            ("timeout-duration", Ns(c.timeout_duration)),
        ]),
    }
    out
}

/// An exception list, when it is not empty.
fn exceptions<'a>(out: &mut Vec<(&'static str, Val<'a>)>, key: &'static str, names: &'a [String]) {
    if !names.is_empty() {
        out.push((key, Classes(names)));
    }
}

/// A wait and its backoff switches; the cap's key is the wait's with `-in-open-state` moved
/// after `exponential-max-wait-duration` (`wait-duration-in-open-state` gives
/// `exponential-max-wait-duration-in-open-state`).
fn backoff(
    out: &mut Vec<(&'static str, Val<'_>)>,
    wait_key: &'static str,
    wait: Millis,
    exponential: Option<(f64, Option<Millis>)>,
    randomized: Option<f64>,
) {
    out.push((wait_key, Ms(wait)));
    if let Some((multiplier, max)) = exponential {
        out.push(("enable-exponential-backoff", Bool(true)));
        out.push(("exponential-backoff-multiplier", Num(multiplier)));
        if let Some(max) = max {
            let key = match wait_key {
                "wait-duration" => "exponential-max-wait-duration",
                _ => "exponential-max-wait-duration-in-open-state",
            };
            out.push((key, Ms(max)));
        }
    }
    if let Some(factor) = randomized {
        out.push(("enable-randomized-wait", Bool(true)));
        out.push(("randomized-wait-factor", Num(factor)));
    }
}

/// A value as YAML and `.properties` write it (not a list).
fn text(value: Val) -> String {
    match value {
        Int(n) => n.to_string(),
        Bool(b) => b.to_string(),
        Word(w) => w.to_string(),
        Ms(ms) => format_duration(ms),
        Ns(ns) => format_nanos(ns),
        Rate(v) => v.to_string(),
        Num(v) => v.to_string(),
        Classes(_) => String::new(),
    }
}

/// The instances of `kind`, in the given order.
fn of_kind(instances: &[Instance], kind: Kind) -> impl Iterator<Item = &Instance> {
    instances.iter().filter(move |i| i.config.kind() == kind)
}

/// A name Spring binds as written without brackets: letters, digits, `_` and `-`, not
/// first. Spring drops any other character of an unbracketed map key
/// (`ConfigurationPropertyName`'s original form), so `payment api` would bind as
/// `paymentapi` and `-lead` as `lead`.
fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// An instance name as a YAML key: plain when it can be, else quoted, in Spring's brackets
/// (so Spring keeps it whole).
fn yaml_name(name: &str) -> String {
    if plain_name(name) {
        return name.to_string();
    }
    let inner = bracketed(name);
    let mut quoted = String::from('"');
    for c in inner.chars() {
        match c {
            '"' | '\\' => {
                quoted.push('\\');
                quoted.push(c);
            }
            '\n' => quoted.push_str("\\n"),
            '\t' => quoted.push_str("\\t"),
            c if c.is_control() => {
                let hex =
                    |shift: u32| char::from_digit((c as u32 >> shift) & 15, 16).unwrap_or('0');
                quoted.push_str("\\u");
                quoted.extend([hex(12), hex(8), hex(4), hex(0)]);
            }
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// A name in Spring's brackets unless Spring binds it as written ([`plain_name`]).
fn bracketed(name: &str) -> String {
    match plain_name(name) {
        true => name.to_string(),
        false => ["[", name, "]"].concat(),
    }
}

/// One line of a comment: no line breaks inside.
fn comment(note: &str) -> String {
    note.replace(['\n', '\r'], " ")
}

/// What each format says of settings with no policy (Demo 14's system unprotected), rather
/// than an empty `resilience4j:` block.
const NO_POLICY: &str = "These settings use no Resilience4j policy: there is nothing to configure.";

/// The instances as a Spring Boot `application.yml` fragment, starting with
/// `resilience4j:`; each instance's notes are `#` comments under its name.
pub fn to_yaml(instances: &[Instance]) -> String {
    if instances.is_empty() {
        return ["# ", NO_POLICY, "\nresilience4j:\n"].concat();
    }
    let mut out = String::from("resilience4j:\n");
    for kind in Kind::ALL {
        for (i, instance) in of_kind(instances, kind).enumerate() {
            if i == 0 {
                push(&mut out, &["  ", kind.section(), ":\n    instances:\n"]);
            }
            push(&mut out, &["      ", &yaml_name(&instance.name), ":\n"]);
            for note in &instance.notes {
                push(&mut out, &["        # ", &comment(note), "\n"]);
            }
            for (key, value) in settings(&instance.config) {
                match value {
                    Classes(names) => {
                        push(&mut out, &["        ", key, ":\n"]);
                        for name in names {
                            push(&mut out, &["          - ", &class_name(name), "\n"]);
                        }
                    }
                    value => push(&mut out, &["        ", key, ": ", &text(value), "\n"]),
                }
            }
        }
    }
    out
}

fn push(out: &mut String, parts: &[&str]) {
    out.extend(parts.iter().copied());
}

/// A `.properties` key or value with the characters `Properties.load` would read otherwise
/// escaped.
fn properties_escape(text: &str, key: bool) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        match c {
            '\\' => out.push_str("\\\\"),
            '=' | ':' | ' ' if key => {
                out.push('\\');
                out.push(c);
            }
            ' ' if i == 0 => out.push_str("\\ "),
            '#' | '!' if i == 0 => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}

/// The same settings as [`to_yaml`], as `.properties` lines (`key[0]=` for lists); the
/// notes are `#` comments before each instance.
pub fn to_properties(instances: &[Instance]) -> String {
    if instances.is_empty() {
        return ["# ", NO_POLICY, "\n"].concat();
    }
    let mut out = String::new();
    for kind in Kind::ALL {
        for instance in of_kind(instances, kind) {
            for note in &instance.notes {
                push(
                    &mut out,
                    &["# ", &instance.name, ": ", &comment(note), "\n"],
                );
            }
            for (key, value) in settings(&instance.config) {
                let path = properties_escape(
                    &[
                        "resilience4j.",
                        kind.section(),
                        ".instances.",
                        &bracketed(&instance.name),
                        ".",
                        key,
                    ]
                    .concat(),
                    true,
                );
                match value {
                    Classes(names) => {
                        for (i, name) in names.iter().enumerate() {
                            let value = properties_escape(&class_name(name), false);
                            push(&mut out, &[&path, "[", &i.to_string(), "]=", &value, "\n"]);
                        }
                    }
                    value => {
                        let value = properties_escape(&text(value), false);
                        push(&mut out, &[&path, "=", &value, "\n"]);
                    }
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Java
// ---------------------------------------------------------------------------------------

/// Each kind's Resilience4j package and class (less `Config`).
const JAVA: [(&str, &str); 6] = [
    ("circuitbreaker", "CircuitBreaker"),
    ("bulkhead", "Bulkhead"),
    ("bulkhead", "ThreadPoolBulkhead"),
    ("retry", "Retry"),
    ("timelimiter", "TimeLimiter"),
    ("ratelimiter", "RateLimiter"),
];

const JAVA_KEYWORDS: [&str; 20] = [
    "abstract", "boolean", "break", "case", "class", "default", "do", "double", "else", "final",
    "for", "if", "int", "new", "null", "package", "private", "public", "return", "switch",
];

/// A Java variable name for an instance: camelCase of the name, unique in the snippet.
fn java_variable(name: &str, kind: Kind, used: &mut BTreeSet<String>) -> String {
    let mut ident = camel(name, |c| !c.is_ascii_alphanumeric());
    if ident.is_empty() || ident.starts_with(|c: char| c.is_ascii_digit()) {
        ident.insert_str(0, "policy");
    }
    if used.contains(&ident) || JAVA_KEYWORDS.contains(&ident.as_str()) {
        ident.push_str(JAVA[kind as usize].1);
    }
    let mut candidate = ident.clone();
    let mut n = 2;
    while !used.insert(candidate.clone()) {
        candidate = format!("{ident}{n}");
        n += 1;
    }
    candidate
}

/// camelCase of the parts of `text` between separators: `failure-rate-threshold` is
/// `failureRateThreshold`.
fn camel(text: &str, separator: fn(char) -> bool) -> String {
    let mut out = String::new();
    for part in text.split(separator).filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.push(match out.is_empty() {
                true => first.to_ascii_lowercase(),
                false => first.to_ascii_uppercase(),
            });
            out.extend(chars);
        }
    }
    out
}

/// How the Java code names exception classes: imported and short, or fully qualified when
/// two classes share a simple name.
struct JavaClasses {
    /// Simple names that more than one outer class has: those are written in full.
    shared_simple_names: BTreeSet<String>,
}

/// A class up to its first `$` (the class an import names).
fn outer(class: &str) -> &str {
    class.split('$').next().unwrap_or(class)
}

/// The simple name of a class's outer class.
fn simple(class: &str) -> &str {
    let outer = outer(class);
    outer.rsplit('.').next().unwrap_or(outer)
}

impl JavaClasses {
    fn new(instances: &[Instance], imports: &mut BTreeSet<String>) -> Self {
        let mut classes = Vec::new();
        for instance in instances {
            for (_, value) in settings(&instance.config) {
                if let Classes(names) = value {
                    classes.extend(names.iter().map(|n| class_name(n)));
                }
            }
        }
        // Each simple name with the outer classes that have it: one pass, not a scan of
        // every class per class (a fragment may list thousands).
        let mut outers: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for class in &classes {
            outers
                .entry(simple(class))
                .or_default()
                .insert(outer(class));
        }
        let shared_simple_names = outers
            .iter()
            .filter(|(_, outers)| outers.len() > 1)
            .map(|(simple, _)| simple.to_string())
            .collect();
        let this = Self {
            shared_simple_names,
        };
        for class in &classes {
            if this.unique(class) {
                imports.insert(outer(class).to_string());
            }
        }
        this
    }

    /// Whether no other outer class has this class's simple name.
    fn unique(&self, class: &str) -> bool {
        !self.shared_simple_names.contains(simple(class))
    }

    fn list(&self, names: &[String]) -> String {
        let mut out = String::new();
        for (i, name) in names.iter().enumerate() {
            let class = class_name(name);
            let source = match self.unique(&class) {
                true => class.rsplit('.').next().unwrap_or(&class),
                false => &class,
            };
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&source.replace('$', "."));
            out.push_str(".class");
        }
        out
    }
}

/// `Duration.ofSeconds(15)`: the largest unit that divides the value.
fn java_duration(ms: Millis) -> String {
    if ms == 0 {
        return "Duration.ZERO".to_string();
    }
    let (unit, name) = [
        (86_400_000, "Days"),
        (3_600_000, "Hours"),
        (60_000, "Minutes"),
        (1_000, "Seconds"),
        (1, "Millis"),
    ]
    .into_iter()
    .find(|(unit, _)| ms.is_multiple_of(*unit))
    .unwrap_or((1, "Millis"));
    ["Duration.of", name, "(", &(ms / unit).to_string(), ")"].concat()
}

/// A value as a Java argument: a `float` whole as an int literal, else with `f`; a
/// `double` with a decimal point.
fn java_value(value: Val, classes: &JavaClasses, imports: &mut BTreeSet<String>) -> String {
    match value {
        Ms(ms) => {
            imports.insert("java.time.Duration".to_string());
            java_duration(ms)
        }
        Ns(ns) if !ns.is_multiple_of(1_000_000) => {
            imports.insert("java.time.Duration".to_string());
            ["Duration.ofNanos(", &ns.to_string(), ")"].concat()
        }
        Ns(ns) => {
            imports.insert("java.time.Duration".to_string());
            java_duration(ns / 1_000_000)
        }
        Rate(v) if v.fract() == 0.0 && v.abs() < 1e7 => (v as i64).to_string(),
        Rate(v) => format!("{v}f"),
        Num(v) if v.fract() == 0.0 && v.abs() < 1e15 => format!("{v}.0"),
        Num(v) => v.to_string(),
        Classes(names) => classes.list(names),
        value => text(value),
    }
}

/// The instances as Java builder code, one `XConfig name = XConfig.custom()...build();`
/// per instance, after the imports it needs; the notes are `//` comments.
pub fn to_java(instances: &[Instance]) -> String {
    if instances.is_empty() {
        return ["// ", NO_POLICY, "\n"].concat();
    }
    let mut imports = BTreeSet::new();
    let classes = JavaClasses::new(instances, &mut imports);
    let mut used = BTreeSet::new();
    let mut body = String::new();
    for instance in instances {
        let kind = instance.config.kind();
        let variable = java_variable(&instance.name, kind, &mut used);
        push(&mut body, &["\n// ", &instance.path(), "\n"]);
        for note in &instance.notes {
            push(&mut body, &["// ", &comment(note), "\n"]);
        }
        let (package, name) = JAVA[kind as usize];
        let class = [name, "Config"].concat();
        imports.insert(["io.github.resilience4j.", package, ".", &class].concat());
        push(
            &mut body,
            &[&class, " ", &variable, " = ", &class, ".custom()\n"],
        );
        let calls = java_calls(&instance.config, &classes, &mut imports);
        for call in calls {
            push(&mut body, &["    .", &call, "\n"]);
        }
        body.push_str("    .build();\n");
    }
    let mut out = String::new();
    for import in &imports {
        push(&mut out, &["import ", import, ";\n"]);
    }
    out.push_str(&body);
    out
}

/// The builder calls of a config, from its settings: `key: value` is
/// `.camelCaseKey(value)`; a wait with backoff switches is one `IntervalFunction`.
fn java_calls(
    config: &PolicyConfig,
    classes: &JavaClasses,
    imports: &mut BTreeSet<String>,
) -> Vec<String> {
    let settings = settings(config);
    let find = |key: &str| settings.iter().find(|s| s.0 == key).map(|s| s.1);
    let mut calls = Vec::new();
    for &(key, value) in &settings {
        // The backoff switches go into the wait's function.
        if key.starts_with("enable-")
            || key.starts_with("exponential-")
            || key == "randomized-wait-factor"
        {
            continue;
        }
        let mut method = camel(key, |c| c == '-');
        let mut argument = java_value(value, classes, imports);
        match key {
            "wait-duration" | "wait-duration-in-open-state" => {
                let multiplier = find("exponential-backoff-multiplier");
                let factor = find("randomized-wait-factor");
                let function = match (multiplier, factor) {
                    (None, None) => None,
                    (Some(_), None) => Some("ofExponentialBackoff("),
                    (None, Some(_)) => Some("ofRandomized("),
                    (Some(_), Some(_)) => Some("ofExponentialRandomBackoff("),
                };
                if let Some(function) = function {
                    imports.insert("io.github.resilience4j.core.IntervalFunction".to_string());
                    let max = settings.iter().find(|s| s.0.starts_with("exponential-max"));
                    let mut text = ["IntervalFunction.", function, &argument].concat();
                    for value in [multiplier, factor, max.map(|s| s.1)].into_iter().flatten() {
                        text.push_str(", ");
                        text.push_str(&java_value(value, classes, imports));
                    }
                    text.push(')');
                    argument = text;
                    method = match key {
                        "wait-duration" => "intervalFunction".into(),
                        _ => "waitIntervalFunctionInOpenState".into(),
                    };
                }
            }
            "sliding-window-type" => {
                imports.insert(
                    "io.github.resilience4j.circuitbreaker.CircuitBreakerConfig.SlidingWindowType"
                        .to_string(),
                );
                argument.insert_str(0, "SlidingWindowType.");
            }
            "transition-to-state-after-wait-duration" | "initial-state" => {
                imports.insert("io.github.resilience4j.circuitbreaker.CircuitBreaker".to_string());
                argument.insert_str(0, "CircuitBreaker.State.");
            }
            _ => {}
        }
        calls.push([&method, "(", &argument, ")"].concat());
    }
    // The thread-pool builder takes the maximum before the core size.
    if config.kind() == Kind::ThreadPoolBulkhead {
        calls.swap(0, 1);
    }
    calls
}
