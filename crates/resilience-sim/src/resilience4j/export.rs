//! Instances out: Spring Boot YAML, `.properties`, and Java builder code.
//!
//! Every setting the engine models is written, defaults included, so the learner sees the
//! whole config; an exception list is written only when it is not empty (empty is
//! Resilience4j's default: record every exception, ignore none).

use std::collections::{BTreeMap, BTreeSet};

use super::{class_name, Instance, Kind, PolicyConfig};
use crate::duration::format_duration;
use crate::policy::circuit_breaker::OpenWaitFunction;
use crate::policy::retry::IntervalFunction;
use crate::Millis;

/// A setting's value as written.
enum Out {
    One(String),
    Many(Vec<String>),
}

fn one(value: impl ToString) -> Out {
    Out::One(value.to_string())
}

fn ms(value: Millis) -> Out {
    Out::One(format_duration(value))
}

/// The settings of a config, with Spring Boot's (kebab-case) names, in the order written.
fn settings(config: &PolicyConfig) -> Vec<(&'static str, Out)> {
    let classes = |names: &[String]| Out::Many(names.iter().map(|n| class_name(n)).collect());
    let mut out = Vec::new();
    match config {
        PolicyConfig::CircuitBreaker(c) => {
            out.push(("sliding-window-type", one(c.sliding_window_type.name())));
            out.push(("sliding-window-size", one(c.sliding_window_size)));
            out.push(("minimum-number-of-calls", one(c.minimum_number_of_calls)));
            out.push(("failure-rate-threshold", one(c.failure_rate_threshold)));
            out.push(("slow-call-rate-threshold", one(c.slow_call_rate_threshold)));
            out.push((
                "slow-call-duration-threshold",
                ms(c.slow_call_duration_threshold),
            ));
            out.push((
                "permitted-number-of-calls-in-half-open-state",
                one(c.permitted_number_of_calls_in_half_open_state),
            ));
            match c.wait_interval_function_in_open_state {
                Some(OpenWaitFunction::Exponential {
                    initial,
                    multiplier,
                    max,
                }) => {
                    out.push(("wait-duration-in-open-state", ms(initial)));
                    out.push(("enable-exponential-backoff", one(true)));
                    out.push(("exponential-backoff-multiplier", one(multiplier)));
                    if let Some(max) = max {
                        out.push(("exponential-max-wait-duration-in-open-state", ms(max)));
                    }
                }
                None => out.push((
                    "wait-duration-in-open-state",
                    ms(c.wait_duration_in_open_state),
                )),
            }
            out.push((
                "automatic-transition-from-open-to-half-open-enabled",
                one(c.automatic_transition_from_open_to_half_open_enabled),
            ));
            out.push((
                "max-wait-duration-in-half-open-state",
                ms(c.max_wait_duration_in_half_open_state),
            ));
            out.push((
                "transition-to-state-after-wait-duration",
                one(c.transition_to_state_after_wait_duration.as_str()),
            ));
            if !c.record_exceptions.is_empty() {
                out.push(("record-exceptions", classes(&c.record_exceptions)));
            }
            if !c.ignore_exceptions.is_empty() {
                out.push(("ignore-exceptions", classes(&c.ignore_exceptions)));
            }
        }
        PolicyConfig::Retry(c) => {
            out.push(("max-attempts", one(c.max_attempts)));
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
            out.push(("wait-duration", ms(wait)));
            if let Some((multiplier, max)) = exponential {
                out.push(("enable-exponential-backoff", one(true)));
                out.push(("exponential-backoff-multiplier", one(multiplier)));
                if let Some(max) = max {
                    out.push(("exponential-max-wait-duration", ms(max)));
                }
            }
            if let Some(factor) = randomized {
                out.push(("enable-randomized-wait", one(true)));
                out.push(("randomized-wait-factor", one(factor)));
            }
            if !c.retry_exceptions.is_empty() {
                out.push(("retry-exceptions", classes(&c.retry_exceptions)));
            }
            if !c.ignore_exceptions.is_empty() {
                out.push(("ignore-exceptions", classes(&c.ignore_exceptions)));
            }
            out.push(("fail-after-max-attempts", one(c.fail_after_max_attempts)));
        }
        PolicyConfig::Bulkhead(c) => {
            out.push(("max-concurrent-calls", one(c.max_concurrent_calls)));
            out.push(("max-wait-duration", ms(c.max_wait_duration)));
        }
        PolicyConfig::ThreadPoolBulkhead(c) => {
            out.push(("core-thread-pool-size", one(c.core_thread_pool_size)));
            out.push(("max-thread-pool-size", one(c.max_thread_pool_size)));
            out.push(("queue-capacity", one(c.queue_capacity)));
            out.push(("keep-alive-duration", ms(c.keep_alive_duration)));
        }
        PolicyConfig::TimeLimiter(c) => {
            out.push(("timeout-duration", ms(c.timeout_duration)));
            out.push(("cancel-running-future", one(c.cancel_running_future)));
        }
    }
    out
}

/// The instances grouped by kind, in [`Kind::ALL`] order, each kind in the given order.
fn by_kind(instances: &[Instance]) -> Vec<(Kind, Vec<&Instance>)> {
    Kind::ALL
        .into_iter()
        .map(|kind| {
            let of_kind = instances
                .iter()
                .filter(|i| i.config.kind() == kind)
                .collect::<Vec<_>>();
            (kind, of_kind)
        })
        .filter(|(_, of_kind)| !of_kind.is_empty())
        .collect()
}

fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// An instance name as a YAML key: plain when it can be, else quoted, in Spring's brackets
/// when it holds a dot (so Spring does not split it).
fn yaml_name(name: &str) -> String {
    if plain_name(name) {
        return name.to_string();
    }
    let inner = if name.contains('.') {
        format!("[{name}]")
    } else {
        name.to_string()
    };
    let mut quoted = String::from('"');
    for c in inner.chars() {
        match c {
            '"' | '\\' => {
                quoted.push('\\');
                quoted.push(c);
            }
            '\n' => quoted.push_str("\\n"),
            '\t' => quoted.push_str("\\t"),
            c if c.is_control() => quoted.push_str(&format!("\\u{:04x}", c as u32)),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// One line of a comment: no line breaks inside.
fn comment(note: &str) -> String {
    note.replace(['\n', '\r'], " ")
}

/// The instances as a Spring Boot `application.yml` fragment, starting with
/// `resilience4j:`; each instance's notes are `#` comments under its name.
pub fn to_yaml(instances: &[Instance]) -> String {
    let mut out = String::from("resilience4j:\n");
    for (kind, of_kind) in by_kind(instances) {
        out.push_str(&format!("  {}:\n    instances:\n", kind.section()));
        for instance in of_kind {
            out.push_str(&format!("      {}:\n", yaml_name(&instance.name)));
            for note in &instance.notes {
                out.push_str(&format!("        # {}\n", comment(note)));
            }
            for (key, value) in settings(&instance.config) {
                match value {
                    Out::One(v) => out.push_str(&format!("        {key}: {v}\n")),
                    Out::Many(items) => {
                        out.push_str(&format!("        {key}:\n"));
                        for item in items {
                            out.push_str(&format!("          - {item}\n"));
                        }
                    }
                }
            }
        }
    }
    out
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
    let mut out = String::new();
    for (kind, of_kind) in by_kind(instances) {
        for instance in of_kind {
            let name = if instance.name.contains('.') {
                format!("[{}]", instance.name)
            } else {
                instance.name.clone()
            };
            let prefix = format!("resilience4j.{}.instances.{name}", kind.section());
            for note in &instance.notes {
                out.push_str(&format!("# {}: {}\n", instance.name, comment(note)));
            }
            for (key, value) in settings(&instance.config) {
                let path = properties_escape(&format!("{prefix}.{key}"), true);
                match value {
                    Out::One(v) => {
                        out.push_str(&format!("{path}={}\n", properties_escape(&v, false)))
                    }
                    Out::Many(items) => {
                        for (i, item) in items.iter().enumerate() {
                            out.push_str(&format!(
                                "{path}[{i}]={}\n",
                                properties_escape(item, false)
                            ));
                        }
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

fn java_duration(ms: Millis) -> String {
    match ms {
        0 => "Duration.ZERO".to_string(),
        ms if ms % 86_400_000 == 0 => format!("Duration.ofDays({})", ms / 86_400_000),
        ms if ms % 3_600_000 == 0 => format!("Duration.ofHours({})", ms / 3_600_000),
        ms if ms % 60_000 == 0 => format!("Duration.ofMinutes({})", ms / 60_000),
        ms if ms % 1_000 == 0 => format!("Duration.ofSeconds({})", ms / 1_000),
        ms => format!("Duration.ofMillis({ms})"),
    }
}

/// A `float` argument: a whole number as an int literal, else with `f`.
fn java_float(v: f32) -> String {
    if v.fract() == 0.0 && v.abs() < 1e7 {
        format!("{}", v as i64)
    } else {
        format!("{v}f")
    }
}

/// A `double` argument.
fn java_double(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

const JAVA_KEYWORDS: [&str; 20] = [
    "abstract", "boolean", "break", "case", "class", "default", "do", "double", "else", "final",
    "for", "if", "int", "new", "null", "package", "private", "public", "return", "switch",
];

/// A Java variable name for an instance: camelCase of the name, unique in the snippet.
fn java_variable(name: &str, kind: Kind, used: &mut BTreeSet<String>) -> String {
    let mut ident = String::new();
    for (i, part) in name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
        .enumerate()
    {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            if i == 0 {
                ident.push(first.to_ascii_lowercase());
            } else {
                ident.push(first.to_ascii_uppercase());
            }
            ident.extend(chars);
        }
    }
    if ident.is_empty() || ident.starts_with(|c: char| c.is_ascii_digit()) {
        ident.insert_str(0, "policy");
    }
    let kind_suffix = match kind {
        Kind::CircuitBreaker => "CircuitBreaker",
        Kind::Bulkhead => "Bulkhead",
        Kind::ThreadPoolBulkhead => "ThreadPoolBulkhead",
        Kind::Retry => "Retry",
        Kind::TimeLimiter => "TimeLimiter",
    };
    if used.contains(&ident) || JAVA_KEYWORDS.contains(&ident.as_str()) {
        ident.push_str(kind_suffix);
    }
    let mut candidate = ident.clone();
    let mut n = 2;
    while used.contains(&candidate) {
        candidate = format!("{ident}{n}");
        n += 1;
    }
    used.insert(candidate.clone());
    candidate
}

/// How the Java code names each exception class: imported and short, or fully qualified
/// when two classes share a simple name.
struct JavaClasses {
    names: BTreeMap<String, String>,
}

impl JavaClasses {
    fn new(instances: &[Instance], imports: &mut BTreeSet<String>) -> Self {
        let classes: BTreeSet<String> = instances
            .iter()
            .flat_map(|i| match &i.config {
                PolicyConfig::CircuitBreaker(c) => {
                    [&c.record_exceptions, &c.ignore_exceptions].map(|l| l.to_vec())
                }
                PolicyConfig::Retry(c) => {
                    [&c.retry_exceptions, &c.ignore_exceptions].map(|l| l.to_vec())
                }
                _ => [Vec::new(), Vec::new()],
            })
            .flatten()
            .map(|n| class_name(&n))
            .collect();
        let outer = |class: &str| class.split('$').next().unwrap_or(class).to_string();
        let simple = |class: &str| {
            let outer = outer(class);
            outer.rsplit('.').next().unwrap_or(&outer).to_string()
        };
        let mut count: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for class in &classes {
            count.entry(simple(class)).or_default().insert(outer(class));
        }
        let mut names = BTreeMap::new();
        for class in &classes {
            let source = if count[&simple(class)].len() == 1 {
                imports.insert(outer(class));
                class[class.len() - class.rsplit('.').next().unwrap_or(class).len()..]
                    .replace('$', ".")
            } else {
                class.replace('$', ".")
            };
            names.insert(class.clone(), source);
        }
        Self { names }
    }

    fn list(&self, names: &[String]) -> String {
        names
            .iter()
            .map(|n| {
                let class = class_name(n);
                format!("{}.class", self.names.get(&class).unwrap_or(&class))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The instances as Java builder code, one `XConfig name = XConfig.custom()...build();`
/// per instance, after the imports it needs; the notes are `//` comments.
pub fn to_java(instances: &[Instance]) -> String {
    let mut imports = BTreeSet::new();
    let classes = JavaClasses::new(instances, &mut imports);
    let mut used = BTreeSet::new();
    let mut body = String::new();
    for instance in instances {
        let kind = instance.config.kind();
        let variable = java_variable(&instance.name, kind, &mut used);
        body.push('\n');
        body.push_str(&format!(
            "// resilience4j.{}.instances.{}\n",
            kind.section(),
            instance.name
        ));
        for note in &instance.notes {
            body.push_str(&format!("// {}\n", comment(note)));
        }
        let (class, calls) = java_calls(&instance.config, &classes, &mut imports);
        body.push_str(&format!("{class} {variable} = {class}.custom()\n"));
        for call in calls {
            body.push_str(&format!("    .{call}\n"));
        }
        body.push_str("    .build();\n");
    }
    let mut out = String::new();
    for import in &imports {
        out.push_str(&format!("import {import};\n"));
    }
    out.push_str(&body);
    out
}

fn java_calls(
    config: &PolicyConfig,
    classes: &JavaClasses,
    imports: &mut BTreeSet<String>,
) -> (&'static str, Vec<String>) {
    let mut calls = Vec::new();
    let duration = |ms: Millis, imports: &mut BTreeSet<String>| {
        imports.insert("java.time.Duration".to_string());
        java_duration(ms)
    };
    let class = match config {
        PolicyConfig::CircuitBreaker(c) => {
            imports.insert("io.github.resilience4j.circuitbreaker.CircuitBreakerConfig".into());
            imports.insert(
                "io.github.resilience4j.circuitbreaker.CircuitBreakerConfig.SlidingWindowType"
                    .into(),
            );
            calls.push(format!(
                "slidingWindowType(SlidingWindowType.{})",
                c.sliding_window_type.name()
            ));
            calls.push(format!("slidingWindowSize({})", c.sliding_window_size));
            calls.push(format!(
                "minimumNumberOfCalls({})",
                c.minimum_number_of_calls
            ));
            calls.push(format!(
                "failureRateThreshold({})",
                java_float(c.failure_rate_threshold)
            ));
            calls.push(format!(
                "slowCallRateThreshold({})",
                java_float(c.slow_call_rate_threshold)
            ));
            calls.push(format!(
                "slowCallDurationThreshold({})",
                duration(c.slow_call_duration_threshold, imports)
            ));
            calls.push(format!(
                "permittedNumberOfCallsInHalfOpenState({})",
                c.permitted_number_of_calls_in_half_open_state
            ));
            match c.wait_interval_function_in_open_state {
                Some(OpenWaitFunction::Exponential {
                    initial,
                    multiplier,
                    max,
                }) => {
                    imports.insert("io.github.resilience4j.core.IntervalFunction".into());
                    let max = max.map_or(String::new(), |m| format!(", {}", duration(m, imports)));
                    calls.push(format!(
                        "waitIntervalFunctionInOpenState(IntervalFunction.ofExponentialBackoff({}, {}{max}))",
                        duration(initial, imports),
                        java_double(multiplier)
                    ));
                }
                None => calls.push(format!(
                    "waitDurationInOpenState({})",
                    duration(c.wait_duration_in_open_state, imports)
                )),
            }
            calls.push(format!(
                "automaticTransitionFromOpenToHalfOpenEnabled({})",
                c.automatic_transition_from_open_to_half_open_enabled
            ));
            calls.push(format!(
                "maxWaitDurationInHalfOpenState({})",
                duration(c.max_wait_duration_in_half_open_state, imports)
            ));
            imports.insert("io.github.resilience4j.circuitbreaker.CircuitBreaker".into());
            calls.push(format!(
                "transitionToStateAfterWaitDuration(CircuitBreaker.State.{})",
                c.transition_to_state_after_wait_duration.as_str()
            ));
            if !c.record_exceptions.is_empty() {
                calls.push(format!(
                    "recordExceptions({})",
                    classes.list(&c.record_exceptions)
                ));
            }
            if !c.ignore_exceptions.is_empty() {
                calls.push(format!(
                    "ignoreExceptions({})",
                    classes.list(&c.ignore_exceptions)
                ));
            }
            "CircuitBreakerConfig"
        }
        PolicyConfig::Retry(c) => {
            imports.insert("io.github.resilience4j.retry.RetryConfig".into());
            calls.push(format!("maxAttempts({})", c.max_attempts));
            let function = match c.interval_function {
                None => None,
                Some(IntervalFunction::Fixed { interval }) => {
                    calls.push(format!("waitDuration({})", duration(interval, imports)));
                    None
                }
                Some(IntervalFunction::Exponential {
                    initial_interval,
                    multiplier,
                    max_interval,
                }) => Some(format!(
                    "ofExponentialBackoff({}, {}{})",
                    duration(initial_interval, imports),
                    java_double(multiplier),
                    max_interval.map_or(String::new(), |m| format!(", {}", duration(m, imports)))
                )),
                Some(IntervalFunction::Randomized {
                    interval,
                    randomization_factor,
                }) => Some(format!(
                    "ofRandomized({}, {})",
                    duration(interval, imports),
                    java_double(randomization_factor)
                )),
                Some(IntervalFunction::ExponentialRandomized {
                    initial_interval,
                    multiplier,
                    randomization_factor,
                    max_interval,
                }) => Some(format!(
                    "ofExponentialRandomBackoff({}, {}, {}{})",
                    duration(initial_interval, imports),
                    java_double(multiplier),
                    java_double(randomization_factor),
                    max_interval.map_or(String::new(), |m| format!(", {}", duration(m, imports)))
                )),
            };
            match function {
                Some(function) => {
                    imports.insert("io.github.resilience4j.core.IntervalFunction".into());
                    calls.push(format!("intervalFunction(IntervalFunction.{function})"));
                }
                None if c.interval_function.is_none() => calls.push(format!(
                    "waitDuration({})",
                    duration(c.wait_duration, imports)
                )),
                None => {}
            }
            if !c.retry_exceptions.is_empty() {
                calls.push(format!(
                    "retryExceptions({})",
                    classes.list(&c.retry_exceptions)
                ));
            }
            if !c.ignore_exceptions.is_empty() {
                calls.push(format!(
                    "ignoreExceptions({})",
                    classes.list(&c.ignore_exceptions)
                ));
            }
            calls.push(format!(
                "failAfterMaxAttempts({})",
                c.fail_after_max_attempts
            ));
            "RetryConfig"
        }
        PolicyConfig::Bulkhead(c) => {
            imports.insert("io.github.resilience4j.bulkhead.BulkheadConfig".into());
            calls.push(format!("maxConcurrentCalls({})", c.max_concurrent_calls));
            calls.push(format!(
                "maxWaitDuration({})",
                duration(c.max_wait_duration, imports)
            ));
            "BulkheadConfig"
        }
        PolicyConfig::ThreadPoolBulkhead(c) => {
            imports.insert("io.github.resilience4j.bulkhead.ThreadPoolBulkheadConfig".into());
            calls.push(format!("maxThreadPoolSize({})", c.max_thread_pool_size));
            calls.push(format!("coreThreadPoolSize({})", c.core_thread_pool_size));
            calls.push(format!("queueCapacity({})", c.queue_capacity));
            calls.push(format!(
                "keepAliveDuration({})",
                duration(c.keep_alive_duration, imports)
            ));
            "ThreadPoolBulkheadConfig"
        }
        PolicyConfig::TimeLimiter(c) => {
            imports.insert("io.github.resilience4j.timelimiter.TimeLimiterConfig".into());
            calls.push(format!(
                "timeoutDuration({})",
                duration(c.timeout_duration, imports)
            ));
            calls.push(format!("cancelRunningFuture({})", c.cancel_running_future));
            "TimeLimiterConfig"
        }
    };
    (class, calls)
}
