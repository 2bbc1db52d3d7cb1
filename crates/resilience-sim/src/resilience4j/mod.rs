//! # Resilience4j configuration, out and in
//!
//! ## Why it exists
//!
//! The course is about Resilience4j, and what a learner takes home from a demo is a
//! setting: `failure-rate-threshold: 50`, `max-concurrent-calls: 3`. A number on a slider
//! only helps if it can be carried over to a real service, so every demo and lab can show
//! its current settings the way a Spring Boot service writes them (an `application.yml`
//! fragment, or the same as `.properties`) and as the equivalent Java builder code
//! ([`to_yaml`], [`to_properties`], [`to_java`]). The other way round, a learner can paste
//! the fragment of their own service ([`read`]) and replay a demo with it: "what would my
//! breaker have done here?".
//!
//! The mapping is only worth having if it is exact, so the key names, the defaults, the
//! value syntax and the inheritance rules (`configs.default`, `base-config`) follow
//! Resilience4j's Spring Boot binding, not a guess of it. What the simulation models that
//! Resilience4j has no setting for (a retry budget, full jitter, the guard that never
//! retries a local refusal), or the reverse, is said in [`Instance::notes`], one sentence
//! each, and exported as comments.
//!
//! ## Checked against
//!
//! Resilience4j 2.4.0 (tag `v2.4.0`), `resilience4j-framework-common`:
//! `common/circuitbreaker/configuration/CommonCircuitBreakerConfigurationProperties.java`,
//! `common/bulkhead/configuration/CommonBulkheadConfigurationProperties.java`,
//! `common/bulkhead/configuration/CommonThreadPoolBulkheadConfigurationProperties.java`,
//! `common/retry/configuration/CommonRetryConfigurationProperties.java`,
//! `common/timelimiter/configuration/CommonTimeLimiterConfigurationProperties.java` and
//! `common/utils/ConfigUtils.java` (key names, the setters' range checks, which settings
//! build which `IntervalFunction`, the inheritance); the prefixes from the
//! `@ConfigurationProperties` of `resilience4j-spring-boot3`; the builders' method names
//! from `CircuitBreakerConfig`, `RetryConfig` and `core/IntervalFunction.java`; durations
//! from Spring Boot's `org.springframework.boot.convert.DurationStyle`.
//!
//! ## The readers
//!
//! No YAML crate: the browser bundle is over its size budget. [`yaml`] reads the subset a
//! Spring Boot fragment uses and refuses the rest by line; [`properties`] reads Java
//! `.properties`. Both flatten to [`Entry`]s (key path, value, line), bound their work
//! (at most [`MAX_INPUT`] bytes, [`MAX_DEPTH`] levels) and never panic.

mod export;
mod import;
mod java;
pub mod labs;
pub mod properties;
mod tick;
pub mod yaml;

use crate::duration::{parse_spring_duration, parse_spring_duration_nanos};
use crate::error::quote;
use crate::exceptions;
use crate::policy::bulkhead::{BulkheadConfig, ThreadPoolBulkheadConfig};
use crate::policy::circuit_breaker::{CircuitBreakerConfig, OpenWaitFunction, State};
use crate::policy::rate_limiter::RateLimiterConfig;
use crate::policy::retry::RetryConfig;
use crate::policy::time_limiter::TimeLimiterConfig;

pub use export::{to_java, to_properties, to_yaml};
pub use import::{profiles, read_entries, Provenance};
pub use tick::{
    apply_to_sandbox, apply_to_sandbox_as, apply_to_tick, apply_to_tick_as, import_tick,
    import_tick_as, tick_instances, tick_roles, TickImport, PAYMENT, RECOMMENDATIONS,
    SANDBOX_INSTANCE,
};

/// The largest fragment the readers accept.
pub const MAX_INPUT: usize = 64 * 1024;
/// The deepest nesting (YAML levels, or key path segments) the readers accept.
pub const MAX_DEPTH: usize = 32;
/// The package given to an exception the simulation names without one: made up, so that a
/// learner sees at once that the class is theirs to write.
pub const MADE_UP_PACKAGE: &str = "com.example.shop.";

/// One policy's settings, as the engine holds them. Serde carries instances between the
/// course's wasm parts (the writer and the reader load with the config dialog).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum PolicyConfig {
    CircuitBreaker(CircuitBreakerConfig),
    Bulkhead(BulkheadConfig),
    ThreadPoolBulkhead(ThreadPoolBulkheadConfig),
    Retry(RetryConfig),
    TimeLimiter(TimeLimiterConfig),
    RateLimiter(RateLimiterConfig),
}

/// The six kinds of policy, in the order a fragment lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    CircuitBreaker,
    Bulkhead,
    ThreadPoolBulkhead,
    Retry,
    TimeLimiter,
    RateLimiter,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::CircuitBreaker,
        Kind::Bulkhead,
        Kind::ThreadPoolBulkhead,
        Kind::Retry,
        Kind::TimeLimiter,
        Kind::RateLimiter,
    ];

    /// The Spring Boot prefix after `resilience4j.`.
    pub const fn section(self) -> &'static str {
        match self {
            Kind::CircuitBreaker => "circuitbreaker",
            Kind::Bulkhead => "bulkhead",
            Kind::ThreadPoolBulkhead => "thread-pool-bulkhead",
            Kind::Retry => "retry",
            Kind::TimeLimiter => "timelimiter",
            Kind::RateLimiter => "ratelimiter",
        }
    }

    /// Plain words: "circuit breaker".
    pub const fn label(self) -> &'static str {
        match self {
            Kind::CircuitBreaker => "circuit breaker",
            Kind::Bulkhead => "bulkhead",
            Kind::ThreadPoolBulkhead => "thread-pool bulkhead",
            Kind::Retry => "retry",
            Kind::TimeLimiter => "time limiter",
            Kind::RateLimiter => "rate limiter",
        }
    }
}

impl PolicyConfig {
    pub fn kind(&self) -> Kind {
        match self {
            PolicyConfig::CircuitBreaker(_) => Kind::CircuitBreaker,
            PolicyConfig::Bulkhead(_) => Kind::Bulkhead,
            PolicyConfig::ThreadPoolBulkhead(_) => Kind::ThreadPoolBulkhead,
            PolicyConfig::Retry(_) => Kind::Retry,
            PolicyConfig::TimeLimiter(_) => Kind::TimeLimiter,
            PolicyConfig::RateLimiter(_) => Kind::RateLimiter,
        }
    }
}

/// A named policy instance: `resilience4j.<kind>.instances.<name>`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Instance {
    pub name: String,
    pub config: PolicyConfig,
    /// What the simulation models that Resilience4j has no setting for, or the reverse, one
    /// plain sentence each; exported as `#` comments in YAML and `//` comments in Java.
    pub notes: Vec<String>,
}

impl Instance {
    /// An instance with the notes its config calls for by itself ([`config_notes`]).
    pub fn new(name: impl Into<String>, config: PolicyConfig) -> Self {
        let notes = config_notes(&config);
        Self {
            name: name.into(),
            config,
            notes,
        }
    }

    /// Adds a note (builder style).
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// `resilience4j.<kind>.instances.<name>`, the path errors name.
    pub fn path(&self) -> String {
        [
            "resilience4j.",
            self.config.kind().section(),
            ".instances.",
            &self.name,
        ]
        .concat()
    }
}

/// Reads a fragment, YAML or `.properties` (detected: see [`is_properties`]), into its
/// instances with their effective settings (`configs.default` and `base-config` applied as
/// Resilience4j applies them). Every problem is one line, `line N: key.path: what`; when
/// there is any, nothing is returned.
pub fn read(text: &str) -> Result<Vec<Instance>, Vec<String>> {
    read_fragment(text, None).map(|f| f.instances)
}

/// A fragment read: its instances, and one line for each part the simulation did not
/// read (a profile's document, the `spring` or `management` sections).
#[derive(Debug, Clone, PartialEq)]
pub struct Fragment {
    pub instances: Vec<Instance>,
    pub not_read: Vec<String>,
    /// Where each instance's values came from, in the order of `instances`.
    pub provenance: Vec<Provenance>,
}

impl Fragment {
    /// The sentence saying where the values of `instance` (one of `instances`) came from.
    pub fn provenance_of(&self, instance: &Instance) -> Option<String> {
        let at = self
            .instances
            .iter()
            .position(|i| std::ptr::eq(i, instance))?;
        self.provenance.get(at).map(Provenance::sentence)
    }
}

/// [`read`] with `profile` active (see `import::read_documents`), saying what it did not
/// read.
pub fn read_fragment(text: &str, profile: Option<&str>) -> Result<Fragment, Vec<String>> {
    let (entries, mut not_read) = import::read_documents(text, profile)?;
    let (instances, provenance) = import::instances_and_not_read(&entries, &mut not_read)?
        .into_iter()
        .unzip();
    Ok(Fragment {
        instances,
        not_read,
        provenance,
    })
}

/// One setting as a reader found it: the key path as written (`a.b.c`, `a.list[0]`), the
/// value (quotes and escapes resolved; an empty value is `""`) and its 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub key: String,
    pub value: String,
    pub line: usize,
}

/// Whether `text` is a `.properties` fragment: its first significant line has `=` before
/// any `:` or is a `!` comment. Anything else is read as YAML (a properties line written
/// `a.b.c: value` is also a YAML line meaning the same).
pub fn is_properties(text: &str) -> bool {
    for line in text.lines() {
        let line = line.trim_start();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with('!') {
            return true;
        }
        return match (line.find('='), line.find(':')) {
            (Some(eq), Some(colon)) => eq < colon,
            (Some(_), None) => true,
            _ => false,
        };
    }
    false
}

// ---------------------------------------------------------------------------------------
// Exception names
// ---------------------------------------------------------------------------------------

/// The class name a fragment writes for an engine exception name: the known class, the
/// name itself when it already has a package, else the name in [`MADE_UP_PACKAGE`].
pub fn class_name(name: &str) -> String {
    let name = name.trim();
    if let Some(class) = exceptions::qualified_name(name) {
        return class.to_string();
    }
    if name.contains('.') {
        return name.to_string();
    }
    [MADE_UP_PACKAGE, name].concat()
}

/// The engine's name for a class a fragment names: a known class (by `$` or `.` nesting)
/// or one in [`MADE_UP_PACKAGE`] gives its simple name; any other class keeps its full
/// name (the engine matches it by its simple name).
pub fn engine_exception_name(class: &str) -> String {
    let class = class.trim();
    if let Some(known) = exceptions::by_qualified_name(class) {
        return known.name.to_string();
    }
    match class.strip_prefix(MADE_UP_PACKAGE) {
        Some(simple) if !simple.contains('.') => simple.to_string(),
        _ => class.to_string(),
    }
}

// ---------------------------------------------------------------------------------------
// Notes a config calls for by itself
// ---------------------------------------------------------------------------------------

/// The notes any instance with this config carries: exceptions with a made-up package,
/// values Spring Boot's binding refuses though the engine takes them, engine-only switches.
pub fn config_notes(config: &PolicyConfig) -> Vec<String> {
    let mut notes = Vec::new();
    let mut exceptions = |names: &[String]| {
        for name in names {
            let class = class_name(name);
            if class.starts_with(MADE_UP_PACKAGE) && !name.contains('.') {
                notes.push(
                    [
                        name,
                        " is the simulation's own exception: written here as ",
                        &class,
                        ", a made-up package; use your own class.",
                    ]
                    .concat(),
                );
            } else if name == "NotFoundException" {
                notes.push(
                    "NotFoundException (a 404) is written as RestTemplate's HttpClientErrorException.NotFound; use the 404 exception of your HTTP client.".to_string(),
                );
            }
        }
    };
    match config {
        PolicyConfig::CircuitBreaker(c) => {
            exceptions(&c.record_exceptions);
            exceptions(&c.ignore_exceptions);
            for (key, rate) in [
                ("failure-rate-threshold", c.failure_rate_threshold),
                ("slow-call-rate-threshold", c.slow_call_rate_threshold),
            ] {
                if rate < 1.0 {
                    notes.push([
                        "Spring Boot refuses a ",
                        key,
                        " below 1 (the builder takes it).",
                    ].concat());
                }
            }
            if let Some(OpenWaitFunction::Exponential { multiplier, .. }) =
                c.wait_interval_function_in_open_state
            {
                if multiplier <= 0.0 {
                    notes.push("Spring Boot refuses an exponential-backoff-multiplier of 0 or less (IntervalFunction.ofExponentialBackoff takes it).".to_string());
                }
            }
            if c.initial_state != State::Closed
                || c.transition_to_state_after_wait_duration != State::Open
            {
                notes.push("initial-state and transition-to-state-after-wait-duration came with Resilience4j 2.4.0: earlier versions ignore the keys and have no such builder methods.".to_string());
            }
        }
        PolicyConfig::Retry(c) => {
            exceptions(&c.retry_exceptions);
            exceptions(&c.ignore_exceptions);
            let factor = match c.interval_function {
                Some(crate::policy::retry::IntervalFunction::Randomized {
                    randomization_factor,
                    ..
                })
                | Some(crate::policy::retry::IntervalFunction::ExponentialRandomized {
                    randomization_factor,
                    ..
                }) => randomization_factor,
                _ => 0.0,
            };
            if factor >= 1.0 {
                notes.push("Spring Boot refuses randomized-wait-factor: 1 (it takes 0 up to, not including, 1); the builder takes it.".to_string());
            }
        }
        PolicyConfig::Bulkhead(c) if c.max_concurrent_calls == 0 => notes.push(
            "Spring Boot refuses max-concurrent-calls: 0 (at least 1); the simulation's 0 refuses every call.".to_string(),
        ),
        _ => {}
    }
    notes
}

/// A ConfigError's camelCase field as the Spring key: `failureRateThreshold` is
/// `failure-rate-threshold`.
pub(crate) fn kebab(field: &str) -> String {
    if field == "waitIntervalFunctionInOpenState" {
        return "wait-duration-in-open-state".into();
    }
    let mut out = String::new();
    for c in field.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `line N: message`.
pub(crate) fn on_line(line: usize, message: &str) -> String {
    ["line ", &line.to_string(), ": ", message].concat()
}

/// The refusal of a fragment over [`MAX_INPUT`] bytes.
pub(crate) fn check_size(text: &str) -> Result<(), Vec<String>> {
    match text.len() > MAX_INPUT {
        true => Err(vec![[
            "the fragment is ",
            &text.len().to_string(),
            " bytes; the reader takes at most ",
            &MAX_INPUT.to_string(),
            " (64 KB)",
        ]
        .concat()]),
        false => Ok(()),
    }
}

/// Splits a key path into segments: `a.b[0]` is `a`, `b`, `[0]`; `a[x.y].b` is `a`,
/// `[x.y]`, `b` (Spring's bracket notation). `None` when the brackets do not pair.
pub(crate) fn split_path(key: &str) -> Option<Vec<&str>> {
    let mut segments = Vec::new();
    let mut start = 0;
    let bytes = key.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'.' => {
                if i > start {
                    segments.push(&key[start..i]);
                } else if i == 0 || bytes[i - 1] != b']' {
                    return None;
                }
                start = i + 1;
            }
            b'[' => {
                if i > start {
                    segments.push(&key[start..i]);
                }
                let close = key[i..].find(']')? + i;
                segments.push(&key[i..=close]);
                i = close;
                start = close + 1;
            }
            b']' => return None,
            _ => {}
        }
        i += 1;
    }
    if start < key.len() {
        segments.push(&key[start..]);
    } else if key.is_empty() || key.ends_with('.') {
        return None;
    }
    Some(segments)
}

/// Spring's relaxed binding compares names without case, dashes or underscores.
pub(crate) fn canonical(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_like_spring() {
        assert_eq!(split_path("a.b[0]"), Some(vec!["a", "b", "[0]"]));
        assert_eq!(split_path("a[x.y].b"), Some(vec!["a", "[x.y]", "b"]));
        for bad in ["", "a..b", ".a", "a.", "a[0", "a]"] {
            assert_eq!(split_path(bad), None, "{bad}");
        }
    }

    #[test]
    fn exception_names_map_both_ways() {
        assert_eq!(class_name("IOException"), "java.io.IOException");
        assert_eq!(
            class_name("CallNotPermittedException"),
            "io.github.resilience4j.circuitbreaker.CallNotPermittedException"
        );
        assert_eq!(
            class_name("CardDeclinedException"),
            "com.example.shop.CardDeclinedException"
        );
        assert_eq!(class_name("feign.FeignException"), "feign.FeignException");
        for class in crate::exceptions::CLASSES {
            if let Some(qualified) = class.qualified_name {
                assert_eq!(engine_exception_name(qualified), class.name);
                assert_eq!(class_name(class.name), qualified);
            }
        }
        assert_eq!(
            engine_exception_name(
                "org.springframework.web.client.HttpClientErrorException.NotFound"
            ),
            "NotFoundException"
        );
        assert_eq!(
            engine_exception_name("com.example.shop.CardDeclinedException"),
            "CardDeclinedException"
        );
        assert_eq!(
            engine_exception_name("feign.FeignException"),
            "feign.FeignException"
        );
    }
}
