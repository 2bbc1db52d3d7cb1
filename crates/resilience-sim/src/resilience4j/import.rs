//! From a reader's entries to instances, in three passes, each as Resilience4j 2.4.0's
//! Spring Boot binding does it (see the module docs for the files):
//!
//! 1. every `resilience4j.<kind>.(instances|backends|configs).<name>.<setting>` is read
//!    with the setter's checks (`failure-rate-threshold` 1 to 100, `max-attempts` at least
//!    1, durations in Spring's syntax, class names fully qualified, ...); keys compare as
//!    Spring's relaxed binding does (`failureRateThreshold` = `failure-rate-threshold`);
//! 2. each instance is built on its base as `Common*ConfigurationProperties` builds it: the
//!    circuit breaker on `configs.<base-config>`, else on `configs.<its own name>`, else on
//!    `configs.default`; the other kinds on `configs.<base-config>`, else on
//!    `configs.default`; a retry also takes its base's backoff switches it does not set
//!    (`ConfigUtils.mergePropertiesIfAny`). Which settings build which wait function is
//!    Resilience4j's too: a backoff switch without its `wait-duration` in the same block
//!    does nothing, a cap without a multiplier is not read;
//! 3. the engine's own `validate()` judges the result.
//!
//! A retry read from a fragment follows Resilience4j's plain rule, local refusals included
//! (`retry_on_local_refusals` on): Resilience4j has no guard against retrying them.
//!
//! Keys outside `resilience4j.` are not read (a whole `application.yml` may be pasted);
//! `tags` and the `*-aspect-order` keys are Spring wiring and are skipped.

use super::{
    canonical, engine_exception_name, kebab, properties, quote, split_path, yaml, Entry, Instance,
    Kind, PolicyConfig,
};
use crate::error::ConfigError;
use crate::number::parse_number;
use crate::policy::bulkhead::{BulkheadConfig, ThreadPoolBulkheadConfig};
use crate::policy::circuit_breaker::{
    CircuitBreakerConfig, OpenWaitFunction, SlidingWindowType, State,
};
use crate::policy::rate_limiter::RateLimiterConfig;
use crate::policy::retry::interval::{DEFAULT_MULTIPLIER, DEFAULT_RANDOMIZATION_FACTOR};
use crate::policy::retry::{IntervalFunction, RetryConfig};
use crate::policy::time_limiter::TimeLimiterConfig;
use crate::Millis;

/// The entries of a fragment, YAML or `.properties` (see [`super::is_properties`]).
pub fn read_entries(text: &str) -> Result<Vec<Entry>, Vec<String>> {
    read_documents(text, None).map(|(entries, _)| entries)
}

/// The entries Spring would bind with `profile` active (or none): a file's documents
/// (YAML's `---`, a `.properties` file's `#---` or `!---` lines) without a profile
/// condition, then those whose `spring.config.activate.on-profile` (or `spring.profiles`)
/// holds for `profile` ([`profile_condition_holds`]), a later document's setting
/// replacing an earlier one's. Also says which documents were not read.
pub fn read_documents(
    text: &str,
    profile: Option<&str>,
) -> Result<(Vec<Entry>, Vec<String>), Vec<String>> {
    let text = crate::error::without_bom(text);
    // The whole fragment, before it is split into documents (each of which is checked too).
    super::check_size(text)?;
    if super::java::is_java(text) {
        return super::java::read(text).map(|entries| (entries, Vec::new()));
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut not_read = Vec::new();
    let mut errors = Vec::new();
    for (number, (offset, read)) in documents(text).into_iter().enumerate() {
        let read = match read {
            Ok(read) => read,
            Err(problems) => {
                errors.extend(problems.into_iter().map(|p| shift_line(&p, offset)));
                continue;
            }
        };
        if let Some(condition) = profile_condition(&read) {
            match profile_condition_holds(&condition.value, profile) {
                Ok(true) => {}
                Ok(false) => {
                    not_read.push(
                        [
                            "document ",
                            &(number + 1).to_string(),
                            " (line ",
                            &(offset + condition.line).to_string(),
                            "): its profile condition `",
                            &crate::error::excerpt(&condition.value),
                            "` does not hold ",
                            &match profile {
                                Some(p) => ["for `", &crate::error::excerpt(p), "`"].concat(),
                                None => String::from(
                                    "(no profile chosen: Spring's `default` profile is the active one)",
                                ),
                            },
                        ]
                        .concat(),
                    );
                    continue;
                }
                Err(problem) => {
                    errors.push(super::on_line(
                        offset + condition.line,
                        &[&condition.key, ": ", &problem].concat(),
                    ));
                    continue;
                }
            }
        }
        // As Spring binds documents: a later document's setting replaces an earlier one's
        // (within one document, a setting written twice stays a problem).
        let keys: std::collections::BTreeSet<String> =
            read.iter().map(|e| canonical(&e.key)).collect();
        entries.retain(|e| !keys.contains(&canonical(&e.key)));
        entries.extend(read.into_iter().map(|mut entry| {
            entry.line += offset;
            entry
        }));
    }
    if errors.is_empty() {
        Ok((entries, not_read))
    } else {
        Err(errors)
    }
}

/// One document read: its settings, or every problem (one line each).
type ReadDocument = Result<Vec<Entry>, Vec<String>>;

/// A file's documents, each read, with the number of lines before it.
fn documents(text: &str) -> Vec<(usize, ReadDocument)> {
    if super::is_properties(text) {
        properties_documents(text)
            .into_iter()
            .map(|(offset, document)| (offset, properties::read(document)))
            .collect()
    } else {
        yaml_documents(text)
            .into_iter()
            .map(|(offset, document)| (offset, yaml::read(document)))
            .collect()
    }
}

/// A document's profile condition, if it has one.
fn profile_condition(read: &[Entry]) -> Option<&Entry> {
    read.iter().find(|e| {
        matches!(
            canonical(&e.key).as_str(),
            "springconfigactivateonprofile" | "springprofiles"
        )
    })
}

/// The profiles a file's documents are for (`spring.config.activate.on-profile`,
/// `spring.profiles`: each name of their expressions but `default`, which is active when
/// none is chosen), each once, in the order they first appear, at most 20: what a learner
/// may choose from. Java code has none.
pub fn profiles(text: &str) -> Vec<String> {
    let text = crate::error::without_bom(text);
    if super::check_size(text).is_err() || super::java::is_java(text) {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for (_, read) in documents(text) {
        let Ok(read) = read else {
            continue;
        };
        let Some(condition) = profile_condition(&read) else {
            continue;
        };
        for token in condition.value.split(',').flat_map(profile_tokens) {
            if let ProfileToken::Name(name) = token {
                if name != "default" && !out.iter().any(|known| known == name) && out.len() < 20 {
                    out.push(name.to_string());
                }
            }
        }
    }
    out
}

/// Whether a profile condition holds, as Spring's `Profiles.of` reads it: expressions
/// separated by commas (any one holding is enough), each a profile name, `!` before an
/// expression, `&` or `|` between them (not both without parentheses), and parentheses.
/// The active profile is `profile`, or when none is chosen Spring's `default` profile.
pub fn profile_condition_holds(condition: &str, profile: Option<&str>) -> Result<bool, String> {
    let active = profile.unwrap_or("default");
    let mut holds = false;
    for expression in condition.split(',') {
        let tokens = profile_tokens(expression);
        if tokens.is_empty() {
            return Err([
                "an empty profile expression in `",
                &crate::error::excerpt(condition),
                "`",
            ]
            .concat());
        }
        let mut parser = ProfileParser {
            tokens: &tokens,
            at: 0,
            active,
            depth: 0,
        };
        let value = parser.expression()?;
        if parser.at != tokens.len() {
            return Err(malformed(expression));
        }
        holds |= value;
    }
    Ok(holds)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum ProfileToken<'a> {
    Name(&'a str),
    Not,
    And,
    Or,
    Open,
    Close,
}

fn profile_tokens(expression: &str) -> Vec<ProfileToken<'_>> {
    let mut tokens = Vec::new();
    let mut rest = expression;
    while let Some(c) = rest.chars().next() {
        let token = match c {
            '!' => Some(ProfileToken::Not),
            '&' => Some(ProfileToken::And),
            '|' => Some(ProfileToken::Or),
            '(' => Some(ProfileToken::Open),
            ')' => Some(ProfileToken::Close),
            c if c.is_whitespace() => None,
            _ => {
                let end = rest
                    .find(|c: char| "!&|()".contains(c) || c.is_whitespace())
                    .unwrap_or(rest.len());
                tokens.push(ProfileToken::Name(&rest[..end]));
                rest = &rest[end..];
                continue;
            }
        };
        tokens.extend(token);
        rest = &rest[c.len_utf8()..];
    }
    tokens
}

fn malformed(expression: &str) -> String {
    [
        "a malformed profile expression `",
        &crate::error::excerpt(expression.trim()),
        "` (Spring Boot would not start)",
    ]
    .concat()
}

/// Parentheses nested deeper than this are refused: the parser recurses on them.
const MAX_PROFILE_DEPTH: usize = 32;

struct ProfileParser<'a, 't> {
    tokens: &'t [ProfileToken<'a>],
    at: usize,
    active: &'a str,
    depth: usize,
}

impl<'a> ProfileParser<'a, '_> {
    fn next(&self) -> Option<ProfileToken<'a>> {
        self.tokens.get(self.at).copied()
    }

    /// Terms joined by one operator, `&` or `|`.
    fn expression(&mut self) -> Result<bool, String> {
        let mut value = self.term()?;
        let Some(operator) = self
            .next()
            .filter(|t| matches!(t, ProfileToken::And | ProfileToken::Or))
        else {
            return Ok(value);
        };
        while self.next() == Some(operator) {
            self.at += 1;
            let right = self.term()?;
            value = match operator {
                ProfileToken::And => value && right,
                _ => value || right,
            };
        }
        match self.next() {
            Some(ProfileToken::And | ProfileToken::Or) => {
                Err("`&` and `|` in one expression need parentheses".into())
            }
            _ => Ok(value),
        }
    }

    fn term(&mut self) -> Result<bool, String> {
        // A run of `!` is counted, not recursed into: a pasted file may hold thousands.
        let mut negate = false;
        while self.next() == Some(ProfileToken::Not) {
            negate = !negate;
            self.at += 1;
        }
        Ok(self.operand()? != negate)
    }

    /// A profile name or a parenthesized expression.
    fn operand(&mut self) -> Result<bool, String> {
        let token = self.next().ok_or("a profile expression ends too soon")?;
        self.at += 1;
        match token {
            ProfileToken::Name(name) => Ok(name == self.active),
            ProfileToken::Open => {
                self.depth += 1;
                if self.depth > MAX_PROFILE_DEPTH {
                    return Err([
                        "parentheses nested deeper than ",
                        &MAX_PROFILE_DEPTH.to_string(),
                    ]
                    .concat());
                }
                let value = self.expression()?;
                self.depth -= 1;
                match self.next() {
                    Some(ProfileToken::Close) => {
                        self.at += 1;
                        Ok(value)
                    }
                    _ => Err("a `(` that is not closed".into()),
                }
            }
            _ => Err("an operator where a profile name was expected".into()),
        }
    }
}

/// A `.properties` file's documents with the number of lines before each: split at lines
/// that are exactly `#---` or `!---` (Spring Boot's multi-document properties files).
fn properties_documents(text: &str) -> Vec<(usize, &str)> {
    split_documents(text, |line| line == "#---" || line == "!---")
}

/// A YAML stream's documents with the number of lines before each: split at `---` and
/// `...` lines at column 0.
fn yaml_documents(text: &str) -> Vec<(usize, &str)> {
    split_documents(text, |line| {
        ["---", "..."].iter().any(|m| {
            line == *m
                || line
                    .strip_prefix(m)
                    .is_some_and(|r| r.starts_with([' ', '\t']))
        })
    })
}

/// `text` split at the lines `is_marker` says end a document (a marker line itself
/// belongs to no document), with the number of lines before each; blank documents left
/// out, but always one.
fn split_documents(text: &str, is_marker: impl Fn(&str) -> bool) -> Vec<(usize, &str)> {
    let mut documents = Vec::new();
    let mut start = 0;
    let mut start_line = 0;
    let mut at = 0;
    for (index, line) in text.split('\n').enumerate() {
        let end = at + line.len();
        if is_marker(line.trim_end_matches('\r')) {
            documents.push((start_line, &text[start..at]));
            start = (end + 1).min(text.len());
            start_line = index + 1;
        }
        at = end + 1;
    }
    documents.push((start_line, &text[start.min(text.len())..]));
    documents.retain(|(_, d)| !d.trim().is_empty());
    if documents.is_empty() {
        documents.push((0, ""));
    }
    documents
}

/// A problem `line N: ...` of a document, numbered in the whole file.
fn shift_line(problem: &str, offset: usize) -> String {
    let Some(rest) = problem.strip_prefix("line ") else {
        return problem.to_string();
    };
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    match rest[..digits].parse::<usize>() {
        Ok(line) => ["line ", &(line + offset).to_string(), &rest[digits..]].concat(),
        Err(_) => problem.to_string(),
    }
}

/// `value` with each Spring placeholder `${NAME:default}` replaced by its default (the
/// simulation has no environment to look NAME up in). A placeholder without a default
/// cannot be read.
pub fn resolve_placeholders(value: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(open) = rest.find("${") {
        out.push_str(&rest[..open]);
        let inner_start = open + 2;
        let mut depth = 1;
        let mut close = None;
        let bytes = rest.as_bytes();
        let mut i = inner_start;
        while i < bytes.len() {
            if bytes[i] == b'$' && bytes.get(i + 1) == Some(&b'{') {
                depth += 1;
                i += 1;
            } else if bytes[i] == b'}' {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                    break;
                }
            }
            i += 1;
        }
        let close = close.ok_or("a placeholder `${` that is never closed")?;
        let inner = &rest[inner_start..close];
        match inner.split_once(':') {
            Some((_, default)) => out.push_str(&resolve_placeholders(default)?),
            None => {
                return Err([
                    "the placeholder `${",
                    &crate::error::excerpt(inner),
                    "}` has no default, and the simulation has no environment to read it from: write the value, or `${",
                    &crate::error::excerpt(inner),
                    ":value}`",
                ].concat())
            }
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// How a setting's value is read and checked.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ty {
    /// A percentage from 1 to 100 (the setters refuse the rest).
    Rate,
    /// A Java `int` of at least this.
    Int(i64),
    /// A duration of at least this many milliseconds.
    Duration(Millis),
    /// A duration of at least this many nanoseconds (the rate limiter's periods).
    Nanos(u64),
    /// A number above 0.
    Multiplier,
    /// A number from 0 up to, not including, 1.
    Factor,
    Bool,
    WindowType,
    State,
    InitialState,
    Classes,
    BaseConfig,
    /// Spring wiring (health indicator, event buffer, stack traces): read, no effect here.
    InertBool,
    /// Spring wiring, a Java `int` of at least this.
    InertInt(i64),
    /// A class of the user's code (a predicate, a propagator): nothing to simulate it with.
    Code,
}

const CIRCUIT_BREAKER: &[(&str, Ty)] = &[
    ("failure-rate-threshold", Ty::Rate),
    ("slow-call-rate-threshold", Ty::Rate),
    ("slow-call-duration-threshold", Ty::Duration(1)),
    ("sliding-window-type", Ty::WindowType),
    ("sliding-window-size", Ty::Int(1)),
    ("minimum-number-of-calls", Ty::Int(1)),
    ("permitted-number-of-calls-in-half-open-state", Ty::Int(1)),
    ("wait-duration-in-open-state", Ty::Duration(1)),
    (
        "automatic-transition-from-open-to-half-open-enabled",
        Ty::Bool,
    ),
    ("max-wait-duration-in-half-open-state", Ty::Duration(0)),
    ("transition-to-state-after-wait-duration", Ty::State),
    ("record-exceptions", Ty::Classes),
    ("ignore-exceptions", Ty::Classes),
    ("enable-exponential-backoff", Ty::Bool),
    ("exponential-backoff-multiplier", Ty::Multiplier),
    (
        "exponential-max-wait-duration-in-open-state",
        Ty::Duration(1),
    ),
    ("enable-randomized-wait", Ty::Bool),
    ("randomized-wait-factor", Ty::Factor),
    ("base-config", Ty::BaseConfig),
    ("initial-state", Ty::InitialState),
    ("register-health-indicator", Ty::InertBool),
    ("allow-health-indicator-to-fail", Ty::InertBool),
    ("event-consumer-buffer-size", Ty::InertInt(1)),
    ("writable-stack-trace-enabled", Ty::InertBool),
    ("ignore-class-binding-exceptions", Ty::InertBool),
    ("record-failure-predicate", Ty::Code),
    ("record-result-predicate", Ty::Code),
    ("ignore-exception-predicate", Ty::Code),
];

const RETRY: &[(&str, Ty)] = &[
    ("max-attempts", Ty::Int(1)),
    ("wait-duration", Ty::Duration(0)),
    ("enable-exponential-backoff", Ty::Bool),
    ("exponential-backoff-multiplier", Ty::Multiplier),
    ("exponential-max-wait-duration", Ty::Duration(0)),
    ("enable-randomized-wait", Ty::Bool),
    ("randomized-wait-factor", Ty::Factor),
    ("retry-exceptions", Ty::Classes),
    ("ignore-exceptions", Ty::Classes),
    ("fail-after-max-attempts", Ty::Bool),
    ("base-config", Ty::BaseConfig),
    ("event-consumer-buffer-size", Ty::InertInt(1)),
    ("retry-exception-predicate", Ty::Code),
    ("result-predicate", Ty::Code),
    ("interval-bi-function", Ty::Code),
    ("consume-result-before-retry-attempt", Ty::Code),
];

const BULKHEAD: &[(&str, Ty)] = &[
    ("max-concurrent-calls", Ty::Int(1)),
    ("max-wait-duration", Ty::Duration(0)),
    ("base-config", Ty::BaseConfig),
    ("writable-stack-trace-enabled", Ty::InertBool),
    ("event-consumer-buffer-size", Ty::InertInt(1)),
];

const THREAD_POOL_BULKHEAD: &[(&str, Ty)] = &[
    ("core-thread-pool-size", Ty::Int(i32::MIN as i64)),
    ("max-thread-pool-size", Ty::Int(i32::MIN as i64)),
    ("queue-capacity", Ty::Int(i32::MIN as i64)),
    ("keep-alive-duration", Ty::Duration(0)),
    ("base-config", Ty::BaseConfig),
    ("writable-stack-trace-enabled", Ty::InertBool),
    ("event-consumer-buffer-size", Ty::InertInt(1)),
    ("context-propagators", Ty::Code),
];

const TIME_LIMITER: &[(&str, Ty)] = &[
    ("timeout-duration", Ty::Duration(0)),
    ("cancel-running-future", Ty::Bool),
    ("base-config", Ty::BaseConfig),
    ("event-consumer-buffer-size", Ty::InertInt(1)),
];

const RATE_LIMITER: &[(&str, Ty)] = &[
    ("limit-for-period", Ty::Int(1)),
    ("limit-refresh-period", Ty::Nanos(1)),
    ("timeout-duration", Ty::Nanos(0)),
    ("base-config", Ty::BaseConfig),
    ("writable-stack-trace-enabled", Ty::InertBool),
    ("register-health-indicator", Ty::InertBool),
    ("allow-health-indicator-to-fail", Ty::InertBool),
    ("subscribe-for-events", Ty::InertBool),
    ("event-consumer-buffer-size", Ty::InertInt(1)),
];

fn settings(kind: Kind) -> &'static [(&'static str, Ty)] {
    match kind {
        Kind::CircuitBreaker => CIRCUIT_BREAKER,
        Kind::Bulkhead => BULKHEAD,
        Kind::ThreadPoolBulkhead => THREAD_POOL_BULKHEAD,
        Kind::Retry => RETRY,
        Kind::TimeLimiter => TIME_LIMITER,
        Kind::RateLimiter => RATE_LIMITER,
    }
}

/// A setting's value once read.
#[derive(Debug, Clone, PartialEq)]
enum Val {
    Int(i64),
    Float(f64),
    Ms(Millis),
    Ns(u64),
    Bool(bool),
    Word(String),
    Classes(Vec<String>),
    State(State),
    Window(SlidingWindowType),
    /// Not read yet, refused, or a value that sets nothing.
    Unset,
}

/// One setting: its Spring name, type, path as written and first line; the text pass 1
/// collects (a value, or list items (index, value, line) in the order written); the value
/// pass 1 reads from it.
#[derive(Debug, Clone)]
struct Setting {
    key: &'static str,
    ty: Ty,
    path: String,
    line: usize,
    scalar: Option<String>,
    items: Vec<(usize, String, usize)>,
    val: Val,
}

/// One `instances.<name>` or `configs.<name>` block.
#[derive(Debug, Clone)]
struct Layer {
    kind: Kind,
    config: bool,
    name: String,
    path: String,
    line: usize,
    settings: Vec<Setting>,
}

impl Layer {
    fn get(&self, key: &str) -> Option<&Setting> {
        self.settings
            .iter()
            .find(|s| s.key == key)
            .filter(|s| s.val != Val::Unset)
    }
    fn ms(&self, key: &str) -> Option<Millis> {
        match self.get(key)?.val {
            Val::Ms(ms) => Some(ms),
            _ => None,
        }
    }
    fn nanos(&self, key: &str) -> Option<u64> {
        match self.get(key)?.val {
            Val::Ns(ns) => Some(ns),
            _ => None,
        }
    }
    fn float(&self, key: &str) -> Option<f64> {
        match self.get(key)?.val {
            Val::Float(f) => Some(f),
            _ => None,
        }
    }
    fn int(&self, key: &str) -> Option<i64> {
        match self.get(key)?.val {
            Val::Int(i) => Some(i),
            _ => None,
        }
    }
    fn flag(&self, key: &str) -> Option<bool> {
        match self.get(key)?.val {
            Val::Bool(b) => Some(b),
            _ => None,
        }
    }
    fn classes(&self, key: &str) -> Option<Vec<String>> {
        match &self.get(key)?.val {
            Val::Classes(c) => Some(c.clone()),
            _ => None,
        }
    }
    fn base(&self) -> Option<&Setting> {
        self.get("base-config")
            .filter(|s| matches!(&s.val, Val::Word(w) if !w.is_empty()))
    }
}

/// A problem: its line, and the message naming the key path.
type Problem = (usize, String);

/// The problem `path: message` on `line`.
fn at(line: usize, path: &str, message: &str) -> Problem {
    (line, [path, ": ", message].concat())
}

/// The instances of a fragment's entries; see the module docs.
/// Pass 2 and 3 on a reader's entries (see the module docs), adding to `not_read` what the fragment holds that the simulation does
/// not read: other top-level sections (`spring`, `management`, ...) and Resilience4j's
/// policies it does not model.
pub fn instances_and_not_read(
    entries: &[Entry],
    not_read: &mut Vec<String>,
) -> Result<Vec<(Instance, Provenance)>, Vec<String>> {
    let mut problems: Vec<Problem> = Vec::new();
    let mut layers: Vec<Layer> = Vec::new();
    let mut found = false;
    let mut other_sections: Vec<String> = Vec::new();
    for entry in entries {
        let Some(segments) = split_path(&entry.key) else {
            problems.push((entry.line, [&entry.key, ": not a property name"].concat()));
            continue;
        };
        if canonical(segments[0]) != "resilience4j" || segments[0].starts_with('[') {
            let section = crate::error::excerpt(segments[0]);
            if other_sections.len() < 20 && !other_sections.contains(&section) {
                other_sections.push(section);
            }
            continue;
        }
        found = true;
        let resolved = match resolve_placeholders(&entry.value) {
            Ok(value) => Entry {
                value,
                ..entry.clone()
            },
            Err(message) => {
                problems.push((entry.line, [&entry.key, ": ", &message].concat()));
                continue;
            }
        };
        if let Err(message) = place(&resolved, &segments, &mut layers) {
            problems.push((entry.line, [&entry.key, ": ", &message].concat()));
        }
    }
    if !other_sections.is_empty() {
        not_read.push(
            [
                "not Resilience4j settings, not read: ",
                &other_sections.join(", "),
            ]
            .concat(),
        );
    }
    if !found {
        return Err(vec![
            "line 1: no resilience4j settings found (the fragment starts with `resilience4j:`)"
                .to_string(),
        ]);
    }
    for setting in layers.iter_mut().flat_map(|l| &mut l.settings) {
        match value(setting) {
            Ok(val) => setting.val = val,
            Err(problem) => problems.push(problem),
        }
    }
    let mut out = Vec::new();
    // Spring builds every `configs.NAME` at startup, used or not, so each is built here
    // too; only the instances are kept.
    for layer in &layers {
        let configs: Vec<&Layer> = layers
            .iter()
            .filter(|l| l.config && l.kind == layer.kind)
            .collect();
        match build(layer, &configs) {
            Ok(built) if !layer.config => out.push(built),
            Ok(_) => {}
            Err(problem) => problems.push(problem),
        }
    }
    if problems.is_empty() {
        return Ok(out);
    }
    // By line, in the order found within a line (stable).
    let mut sorted = problems;
    sorted.sort_by_key(|p| p.0);
    sorted.dedup();
    Err(sorted
        .into_iter()
        .map(|(line, message)| ["line ", &line.to_string(), ": ", &message].concat())
        .collect())
}

/// Pass 1 for one entry: finds its block and setting, or says why it has none (after
/// `key: `).
fn place(entry: &Entry, segments: &[&str], layers: &mut Vec<Layer>) -> Result<(), String> {
    if segments.len() < 4 && entry.value.is_empty() {
        // An empty block (`resilience4j:`, `instances:`): nothing to read.
        return Ok(());
    }
    let section = segments.get(1).ok_or(
        "expected a policy under it (circuitbreaker, bulkhead, thread-pool-bulkhead, retry, timelimiter or ratelimiter)",
    )?;
    let kind = match canonical(section).as_str() {
        "circuitbreaker" => Kind::CircuitBreaker,
        "bulkhead" => Kind::Bulkhead,
        "threadpoolbulkhead" => Kind::ThreadPoolBulkhead,
        "retry" => Kind::Retry,
        "timelimiter" => Kind::TimeLimiter,
        "ratelimiter" => Kind::RateLimiter,
        "scheduled" | "micrometer" => return Ok(()),
        _ => {
            let names = Kind::ALL.map(Kind::section);
            return Err(["not a Resilience4j policy", &suggest(section, &names)].concat());
        }
    };
    let group = segments.get(2).map(|g| canonical(g));
    let config = match group.as_deref() {
        Some("instances") => false,
        // Only these four properties classes have `getBackends()`: Spring ignores a time
        // or rate limiter's `backends` block, so it is refused here rather than played.
        Some("backends")
            if matches!(
                kind,
                Kind::CircuitBreaker | Kind::Retry | Kind::Bulkhead | Kind::ThreadPoolBulkhead
            ) =>
        {
            false
        }
        Some("backends") => {
            return Err([
                "not a ",
                kind.label(),
                " property: Resilience4j's ",
                kind.label(),
                " has no backends (Spring Boot ignores the block); use instances.NAME",
            ]
            .concat())
        }
        // `CommonRateLimiterConfigurationProperties.getLimiters()` is its instances again.
        Some("limiters") if kind == Kind::RateLimiter => false,
        Some("configs") => true,
        // Switches of the Spring Boot integration, not of a policy: `metrics.enabled` and
        // `metrics.legacy.enabled` (the `@ConditionalOnProperty` of each metrics
        // auto-configuration), like `tags`.
        Some("tags" | "metrics") => return Ok(()),
        Some(g) if g.ends_with("aspectorder") => return Ok(()),
        _ => {
            return Err([
                "not a ",
                kind.label(),
                " property (expected instances.NAME or configs.NAME)",
                &segments
                    .get(2)
                    .map_or(String::new(), |g| suggest(g, &["instances", "configs"])),
            ]
            .concat())
        }
    };
    let Some(name) = segments.get(3) else {
        return match entry.value.is_empty() {
            true => Ok(()),
            false => Err("expected a NAME under it".into()),
        };
    };
    let name = name
        .strip_prefix('[')
        .and_then(|n| n.strip_suffix(']'))
        .unwrap_or(name);
    let block_path = segments[..4].join(".");
    let index = match layers
        .iter()
        .position(|l| l.kind == kind && l.config == config && l.name == name)
    {
        Some(i) => i,
        None => {
            layers.push(Layer {
                kind,
                config,
                name: name.to_string(),
                path: block_path,
                line: entry.line,
                settings: Vec::new(),
            });
            layers.len() - 1
        }
    };
    let Some(setting) = segments.get(4) else {
        return match entry.value.is_empty() {
            true => Ok(()),
            false => Err("expected settings under it, not a value".into()),
        };
    };
    let table = settings(kind);
    let wanted = canonical(setting);
    let not_a_setting = || {
        let names: Vec<&str> = table.iter().map(|s| s.0).collect();
        [
            "not a ",
            kind.label(),
            " setting",
            &suggest(setting, &names),
        ]
        .concat()
    };
    let &(spring, ty) = table
        .iter()
        .find(|(name, _)| canonical(name) == wanted)
        .ok_or_else(not_a_setting)?;
    let item = match segments.get(5) {
        None => None,
        Some(i) if ty == Ty::Classes && segments.len() == 6 => Some(
            i.strip_prefix('[')
                .and_then(|i| i.strip_suffix(']'))
                .filter(|i| !i.starts_with('-'))
                .and_then(|i| i.parse::<i64>().ok())
                .filter(|i| (0..10_000).contains(i))
                .map(|i| i as usize)
                .ok_or("a list index is a number: [0], [1], ...")?,
        ),
        Some(_) => return Err(not_a_setting()),
    };
    let raws = &mut layers[index].settings;
    let setting_path = segments[..5].join(".");
    let raw = match raws.iter_mut().position(|r| r.key == spring) {
        Some(i) => &mut raws[i],
        None => {
            raws.push(Setting {
                key: spring,
                ty,
                path: setting_path,
                line: entry.line,
                scalar: None,
                items: Vec::new(),
                val: Val::Unset,
            });
            raws.last_mut().expect("just pushed")
        }
    };
    let twice = |first: usize| ["set twice (first on line ", &first.to_string(), ")"].concat();
    let value = entry.value.clone();
    match item {
        None if raw.scalar.is_some() || !raw.items.is_empty() => Err(twice(raw.line)),
        None => {
            raw.scalar = Some(value);
            Ok(())
        }
        Some(_) if raw.scalar.is_some() => Err(twice(raw.line)),
        // A second item at an index takes its place (as a map would) and is a problem.
        Some(i) => match raw.items.iter_mut().find(|item| item.0 == i) {
            Some(item) => {
                let first = item.2;
                *item = (i, value, entry.line);
                Err(twice(first))
            }
            None => {
                raw.items.push((i, value, entry.line));
                Ok(())
            }
        },
    }
}

/// ` (did you mean x?)` for the closest of `names` within two edits, else nothing.
fn suggest(written: &str, names: &[&str]) -> String {
    let written = canonical(written);
    names
        .iter()
        .map(|n| (distance(&written, &canonical(n)), n))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map_or(String::new(), |(_, n)| {
            [" (did you mean ", n, "?)"].concat()
        })
}

/// Levenshtein distance, on short names only.
fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len() > 80 || b.len() > 80 {
        return usize::MAX;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (previous + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            previous = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// Pass 1's value check: [`Val::Unset`] for a value that sets nothing (an empty
/// `base-config`).
fn value(raw: &Setting) -> Result<Val, Problem> {
    let fail = |message: &str| at(raw.line, &raw.path, message);
    if raw.ty == Ty::Classes {
        let names: Vec<(&str, usize)> = match &raw.scalar {
            // Spring splits a single value at commas.
            Some(text) => text
                .split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(|n| (n, raw.line))
                .collect(),
            None => {
                // Distinct indexes all below the count: 0, 1, 2, ... without a gap.
                let count = raw.items.len();
                if raw.items.iter().any(|item| item.0 >= count) {
                    return Err(fail("list indexes must run 0, 1, 2, ... without a gap"));
                }
                (0..count)
                    .filter_map(|i| raw.items.iter().find(|item| item.0 == i))
                    .map(|item| (item.1.as_str(), item.2))
                    .collect()
            }
        };
        let mut classes = Vec::new();
        for (name, line) in names {
            classes.push(class(name).map_err(|e| at(line, &raw.path, &e))?);
        }
        return Ok(Val::Classes(classes));
    }
    scalar(raw.ty, raw.scalar.as_deref().unwrap_or_default().trim()).map_err(|e| fail(&e))
}

/// `must be what not text`.
fn must(what: &str, text: &str) -> String {
    ["must be ", what, " not ", text].concat()
}

/// A setting's value read as its type says (not a list of classes).
fn scalar(ty: Ty, text: &str) -> Result<Val, String> {
    if text.is_empty() {
        return match ty {
            Ty::BaseConfig => Ok(Val::Unset),
            _ => Err("has no value".into()),
        };
    }
    let number = || {
        parse_number(text)
            .filter(|v| v.is_finite())
            .ok_or_else(|| quote(text, "is not a number"))
    };
    let words = |words: [&str; 2]| {
        let text = canonical(text);
        words.iter().position(|w| *w == text)
    };
    let value = match ty {
        Ty::Rate => {
            let v = number()? as f32;
            if !(1.0..=100.0).contains(&v) {
                return Err(must("between 1 and 100 (percent),", text));
            }
            Val::Float(f64::from(v))
        }
        Ty::Int(min) | Ty::InertInt(min) => match java_int(text) {
            Some(Some(v)) if v < min => {
                return Err(must(&["at least ", &min.to_string(), ","].concat(), text))
            }
            Some(Some(v)) => Val::Int(v),
            Some(None) => return Err(quote(text, "does not fit a Java int")),
            None => return Err(quote(text, "is not a whole number")),
        },
        Ty::Duration(min) => {
            let ms = super::parse_spring_duration(text)?;
            if ms < min {
                return Err(must(
                    &["at least ", &min.to_string(), " ms,"].concat(),
                    text,
                ));
            }
            Val::Ms(ms)
        }
        Ty::Nanos(min) => {
            let ns = super::parse_spring_duration_nanos(text)?;
            if ns < min {
                return Err(must(
                    &["at least ", &min.to_string(), " ns,"].concat(),
                    text,
                ));
            }
            if ns > i64::MAX as u64 {
                return Err(quote(text, "is too long"));
            }
            Val::Ns(ns)
        }
        Ty::Multiplier => {
            let v = number()?;
            if v <= 0.0 {
                return Err(must("greater than 0,", text));
            }
            Val::Float(v)
        }
        Ty::Factor => {
            let v = number()?;
            if !(0.0..1.0).contains(&v) {
                return Err(must("from 0 up to, not including, 1;", text));
            }
            Val::Float(v)
        }
        Ty::Bool | Ty::InertBool => match text.to_ascii_lowercase().as_str() {
            "true" | "on" | "yes" | "1" => Val::Bool(true),
            "false" | "off" | "no" | "0" => Val::Bool(false),
            _ => return Err(quote(text, "is not true or false")),
        },
        Ty::WindowType => match words(["countbased", "timebased"]) {
            Some(0) => Val::Window(SlidingWindowType::CountBased),
            Some(_) => Val::Window(SlidingWindowType::TimeBased),
            None => return Err(quote(text, "is not COUNT_BASED or TIME_BASED")),
        },
        Ty::State => match words(["open", "closed"]) {
            Some(0) => Val::State(State::Open),
            Some(_) => Val::State(State::Closed),
            None => return Err(must("OPEN or CLOSED,", text)),
        },
        // Spring binds an enum leniently (case, `-` and `_`), as `canonical` reads it.
        Ty::InitialState => {
            let wanted = canonical(text);
            match State::ALL
                .into_iter()
                .find(|s| canonical(s.as_str()) == wanted)
            {
                Some(state) => Val::State(state),
                None => return Err(must("one of the breaker's six states,", text)),
            }
        }
        Ty::BaseConfig => Val::Word(text.to_string()),
        Ty::Code => return Err(
            "names a class of your own code; the simulation cannot run it (leave it out to import)"
                .into(),
        ),
        Ty::Classes => Val::Unset,
    };
    Ok(value)
}

/// A whole number as Spring reads one from text (`NumberUtils.parseNumber`, for a
/// `.properties` value or a quoted YAML one): every whitespace character taken out, then
/// hexadecimal after `0x`, `0X` or `#` and an optional `-` (`Integer.decode`), else decimal
/// with an optional sign (`Integer.valueOf`). `Some(None)` for digits past a Java `int`;
/// `None` for no number.
fn java_int(text: &str) -> Option<Option<i64>> {
    // `Character.isWhitespace`: Unicode's separators but the three no-break spaces, and
    // the ASCII controls \t to \r and \x1c to \x1f.
    let java_space = |c: char| {
        matches!(c, '\t'..='\r' | '\x1c'..='\x1f' | ' ' | '\u{1680}' | '\u{2000}'..='\u{2006}')
            || matches!(
                c,
                '\u{2008}'..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{205f}' | '\u{3000}'
            )
    };
    let text: String = text.chars().filter(|c| !java_space(*c)).collect();
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(&text)),
    };
    // `isHexNumber` allows a `-` before the prefix, not a `+`.
    let hex = ["0x", "0X", "#"]
        .iter()
        .find_map(|p| unsigned.strip_prefix(p))
        .filter(|_| !text.starts_with('+'));
    let (digits, radix) = match hex {
        Some(digits) => (digits, 16),
        None => (unsigned, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    Some(
        u64::from_str_radix(digits, radix)
            .ok()
            .and_then(|v| i64::try_from(v).ok())
            .map(|v| if negative { -v } else { v })
            .filter(|v| i32::try_from(*v).is_ok()),
    )
}

/// A class name as Spring loads it (fully qualified), as the engine names it.
fn class(name: &str) -> Result<String, String> {
    let valid = name.split('.').all(|part| {
        part.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
            && part
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    });
    if !valid {
        return Err(quote(name, "is not a Java class name"));
    }
    if !name.contains('.') {
        return Err([
            &quote(
                name,
                "is not a fully qualified class name; Spring needs the package (e.g. ",
            ),
            &crate::error::excerpt(&super::class_name(name)),
            ")",
        ]
        .concat());
    }
    Ok(engine_exception_name(name))
}

// ---------------------------------------------------------------------------------------
// Pass 2: inheritance, as Resilience4j builds each config
// ---------------------------------------------------------------------------------------

/// The longest `base-config` chain read. Resilience4j has no limit (it recurses until the
/// JVM's stack runs out); the course stops at a length no real file reaches.
const MAX_BASE_CHAIN: usize = 16;

/// Whether following `base-config` from `layer` comes back to a config already passed.
fn goes_round(layer: &Layer, configs: &[&Layer]) -> bool {
    let mut passed: Vec<&str> = Vec::new();
    let mut current = layer;
    while let Some(Val::Word(base)) = current.base().map(|b| &b.val) {
        if passed.contains(&base.as_str()) {
            return true;
        }
        passed.push(base);
        match configs.iter().find(|c| c.name == *base) {
            Some(next) => current = next,
            None => return false,
        }
    }
    false
}

/// The blocks an instance is built from, in the order they are applied.
fn chain(layer: &Layer, configs: &[&Layer], depth: usize) -> Result<Vec<Layer>, Problem> {
    let find = |name: &str| configs.iter().find(|c| c.name == name).copied();
    if depth > MAX_BASE_CHAIN {
        let why = if goes_round(layer, configs) {
            "its base-config chain goes round in a circle".to_string()
        } else {
            format!("its base-config chain is longer than {MAX_BASE_CHAIN} configs, the most the course reads")
        };
        return Err(at(layer.line, &layer.path, &why));
    }
    if let Some(base) = layer.base() {
        let base_name = match &base.val {
            Val::Word(name) => name,
            _ => return Ok(vec![layer.clone()]),
        };
        if layer.kind == Kind::CircuitBreaker && *base_name == layer.name {
            return Err(at(base.line, &base.path, "refers to itself"));
        }
        let Some(base_layer) = find(base_name) else {
            return Err(at(
                base.line,
                &base.path,
                &[
                    "there is no configs.",
                    &crate::error::excerpt(base_name),
                    " in this fragment",
                ]
                .concat(),
            ));
        };
        let mut layers = chain(base_layer, configs, depth + 1)?;
        layers.push(merged(layer, base_layer));
        return Ok(layers);
    }
    if layer.kind == Kind::CircuitBreaker {
        // `createDirectConfig`: a config named like the instance is its base.
        if let Some(same) = find(&layer.name) {
            return Ok(vec![same.clone(), layer.clone()]);
        }
        if let Some(default) = find("default") {
            let mut layers = chain(default, configs, depth + 1)?;
            layers.push(layer.clone());
            return Ok(layers);
        }
    } else if layer.name != "default" {
        if let Some(default) = find("default") {
            let mut layers = chain(default, configs, depth + 1)?;
            layers.push(merged(layer, default));
            return Ok(layers);
        }
    }
    Ok(vec![layer.clone()])
}

/// `ConfigUtils.mergePropertiesIfAny`: a retry takes its base's backoff switches, multiplier
/// and cap when it does not set them (the other kinds only merge Spring wiring).
fn merged(layer: &Layer, base: &Layer) -> Layer {
    let mut layer = layer.clone();
    if layer.kind == Kind::Retry {
        for key in [
            "enable-exponential-backoff",
            "enable-randomized-wait",
            "exponential-backoff-multiplier",
            "exponential-max-wait-duration",
        ] {
            if layer.get(key).is_none() {
                if let Some(setting) = base.get(key) {
                    layer.settings.push(setting.clone());
                }
            }
        }
    }
    layer
}

/// Where an instance's values came from: each setting it sets, with the block that set it
/// last (the instance's own, a `configs.NAME` by `base-config`, or `configs.default`);
/// every other setting is Resilience4j's default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The instance's path, `resilience4j.circuitbreaker.instances.backendA`.
    pub instance: String,
    /// (Spring key, the path of the block that set it), in the order of the kind's table.
    pub set_by: Vec<(&'static str, String)>,
}

impl Provenance {
    /// One plain sentence: which values came from the instance, which from a shared config,
    /// and that the rest are Resilience4j's defaults.
    pub fn sentence(&self) -> String {
        let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
        for (key, block) in &self.set_by {
            match groups.iter_mut().find(|(b, _)| b == block) {
                Some((_, keys)) => keys.push(key),
                None => groups.push((block, vec![key])),
            }
        }
        // The instance's own block first.
        groups.sort_by_key(|(block, _)| *block != self.instance);
        let parts: Vec<String> = groups
            .iter()
            .map(|(block, keys)| {
                let from = if *block == self.instance {
                    "set in the instance".to_string()
                } else {
                    let shared = block
                        .split_once(".configs.")
                        .map_or(*block, |(_, name)| name);
                    ["from configs.", shared].concat()
                };
                [&keys.join(", "), " ", &from].concat()
            })
            .collect();
        if parts.is_empty() {
            return [&self.instance, ": every value is Resilience4j's default."].concat();
        }
        [
            &self.instance,
            ": ",
            &parts.join("; "),
            "; every other value is Resilience4j's default.",
        ]
        .concat()
    }
}

fn build(layer: &Layer, configs: &[&Layer]) -> Result<(Instance, Provenance), Problem> {
    let layers = chain(layer, configs, 0)?;
    let mut set_by = Vec::new();
    for &(key, ty) in settings(layer.kind) {
        if matches!(
            ty,
            Ty::BaseConfig | Ty::InertBool | Ty::InertInt(_) | Ty::Code
        ) {
            continue;
        }
        if let Some(block) = layers.iter().rev().find(|l| l.get(key).is_some()) {
            set_by.push((key, block.path.clone()));
        }
    }
    let provenance = Provenance {
        instance: layer.path.clone(),
        set_by,
    };
    let mut notes = Vec::new();
    let mut config = match layer.kind {
        Kind::CircuitBreaker => PolicyConfig::CircuitBreaker(CircuitBreakerConfig::default()),
        Kind::Bulkhead => PolicyConfig::Bulkhead(BulkheadConfig::default()),
        Kind::ThreadPoolBulkhead => {
            PolicyConfig::ThreadPoolBulkhead(ThreadPoolBulkheadConfig::default())
        }
        // Resilience4j has no guard against retrying a local refusal: its plain rule.
        Kind::Retry => PolicyConfig::Retry(RetryConfig {
            retry_on_local_refusals: true,
            ..RetryConfig::default()
        }),
        Kind::TimeLimiter => PolicyConfig::TimeLimiter(TimeLimiterConfig::default()),
        Kind::RateLimiter => PolicyConfig::RateLimiter(RateLimiterConfig::default()),
    };
    for (i, l) in layers.iter().enumerate() {
        apply(&mut config, l, &mut notes)?;
        // Spring builds each base on its own before the block above it (`createXConfig`
        // calls itself for the base), so a base a builder refuses fails at startup even
        // when the instance would mend it (a core size above the default maximum).
        if i + 1 < layers.len() {
            if let Err(e) = validate(&config) {
                return Err(locate(&e, l, &layers[..=i]));
            }
        }
        for s in &l.settings {
            if s.val != Val::Unset && matches!(s.ty, Ty::InertBool | Ty::InertInt(_)) {
                notes.push([
                    s.key,
                    " is Spring wiring (health, events or stack traces): no effect in the simulation.",
                ].concat());
            }
        }
    }
    if layer.kind == Kind::ThreadPoolBulkhead
        && !layers
            .iter()
            .any(|l| l.get("core-thread-pool-size").is_some())
    {
        notes.push([
            "core-thread-pool-size defaults to the processors minus one; the simulation assumes ",
            &crate::policy::bulkhead::ASSUMED_AVAILABLE_PROCESSORS.to_string(),
            " processors.",
        ].concat());
    }
    // Each note once, first place kept.
    let mut unique: Vec<String> = Vec::new();
    for note in notes {
        if !unique.contains(&note) {
            unique.push(note);
        }
    }
    let notes = unique;
    if let Err(e) = validate(&config) {
        return Err(locate(&e, layer, &layers));
    }
    Ok((
        Instance {
            name: layer.name.clone(),
            config,
            notes,
        },
        provenance,
    ))
}

/// Where an engine validation error comes from: the last block of the chain that set the
/// setting, else the instance.
pub(super) fn locate_in(
    e: &ConfigError,
    instance_path: &str,
    instance_line: usize,
    set_at: impl Fn(&str) -> Option<(usize, String)>,
) -> Problem {
    let key = kebab(&e.field);
    match set_at(&key) {
        Some((line, path)) => at(line, &path, &e.message),
        None => at(
            instance_line,
            &[instance_path, ".", &key].concat(),
            &e.message,
        ),
    }
}

fn validate(config: &PolicyConfig) -> Result<(), ConfigError> {
    match config {
        PolicyConfig::CircuitBreaker(c) => c.validate(),
        PolicyConfig::Bulkhead(c) => c.validate(),
        PolicyConfig::ThreadPoolBulkhead(c) => c.validate(),
        PolicyConfig::Retry(c) => c.validate(),
        PolicyConfig::TimeLimiter(c) => c.validate(),
        PolicyConfig::RateLimiter(c) => c.validate(),
    }
}

fn locate(e: &ConfigError, layer: &Layer, layers: &[Layer]) -> Problem {
    locate_in(e, &layer.path, layer.line, |key| {
        layers
            .iter()
            .rev()
            .find_map(|l| l.get(key).map(|s| (s.line, s.path.clone())))
    })
}

/// A note for a setting Resilience4j reads only with another one.
fn unread(layer: &Layer, key: &str, without: &str) -> Option<String> {
    layer.get(key).map(|_| {
        [
            key,
            " is not read by Resilience4j without ",
            without,
            " in the same block.",
        ]
        .concat()
    })
}

/// A block's wait and the function its backoff switches build, as `buildConfig` reads
/// them (`wait` and `max` are the keys of the wait and of the cap), with a note for each
/// switch it does not read; `None` when the block sets no wait.
fn wait_function(
    l: &Layer,
    wait: &str,
    max: &str,
    breaker: bool,
    notes: &mut Vec<String>,
) -> Result<Option<(Millis, Option<IntervalFunction>)>, Problem> {
    let exponential = l.flag("enable-exponential-backoff") == Some(true);
    let randomized = l.flag("enable-randomized-wait") == Some(true);
    let multiplier = l.float("exponential-backoff-multiplier");
    let factor = l.float("randomized-wait-factor");
    let cap = l.ms(max);
    let refuse = |message: &str| {
        let s = l.get("enable-randomized-wait").expect("it is set");
        Err(at(s.line, &s.path, message))
    };
    if breaker && exponential && randomized {
        return refuse(
            "Resilience4j refuses enable-exponential-backoff and enable-randomized-wait together",
        );
    }
    let result = match l.ms(wait) {
        Some(_) if breaker && randomized => {
            return refuse("the simulation's breaker waits a fixed or exponential time in OPEN, not a randomized one");
        }
        Some(wait) => Some((
            wait,
            match (exponential, randomized) {
                (true, true) => {
                    let (m, f, cap) = match (multiplier, factor) {
                        (Some(m), Some(f)) => (m, f, cap),
                        (Some(m), None) => (m, DEFAULT_RANDOMIZATION_FACTOR, None),
                        (None, _) => (DEFAULT_MULTIPLIER, DEFAULT_RANDOMIZATION_FACTOR, None),
                    };
                    if multiplier.is_none() {
                        notes.extend(unread(
                            l,
                            "randomized-wait-factor",
                            "exponential-backoff-multiplier",
                        ));
                    }
                    if multiplier.is_none() || factor.is_none() {
                        notes.extend(unread(
                            l,
                            max,
                            "exponential-backoff-multiplier and randomized-wait-factor",
                        ));
                    }
                    Some(IntervalFunction::ExponentialRandomized {
                        initial_interval: wait,
                        multiplier: m,
                        randomization_factor: f,
                        max_interval: cap,
                    })
                }
                (true, false) => {
                    notes.extend(
                        unread(l, max, "exponential-backoff-multiplier")
                            .filter(|_| multiplier.is_none()),
                    );
                    Some(IntervalFunction::Exponential {
                        initial_interval: wait,
                        multiplier: multiplier.unwrap_or(DEFAULT_MULTIPLIER),
                        max_interval: multiplier.and(cap),
                    })
                }
                (false, true) => Some(IntervalFunction::Randomized {
                    interval: wait,
                    randomization_factor: factor.unwrap_or(DEFAULT_RANDOMIZATION_FACTOR),
                }),
                (false, false) => None,
            },
        )),
        None => {
            // A breaker's switch is noted when set at all, a retry's when set to true.
            for key in ["enable-exponential-backoff", "enable-randomized-wait"] {
                notes.extend(unread(l, key, wait).filter(|_| breaker || l.flag(key) == Some(true)));
            }
            None
        }
    };
    if !exponential {
        for key in ["exponential-backoff-multiplier", max] {
            notes.extend(unread(l, key, "enable-exponential-backoff: true"));
        }
    }
    notes.extend(
        unread(l, "randomized-wait-factor", "enable-randomized-wait: true").filter(|_| !randomized),
    );
    Ok(result)
}

/// One block applied to a config, as `buildConfig` applies its properties.
fn apply(config: &mut PolicyConfig, l: &Layer, notes: &mut Vec<String>) -> Result<(), Problem> {
    match config {
        PolicyConfig::CircuitBreaker(c) => {
            let wait = wait_function(
                l,
                "wait-duration-in-open-state",
                "exponential-max-wait-duration-in-open-state",
                true,
                notes,
            )?;
            if let Some((wait, function)) = wait {
                c.wait_duration_in_open_state = wait;
                c.wait_interval_function_in_open_state = match function {
                    Some(IntervalFunction::Exponential {
                        multiplier,
                        max_interval,
                        ..
                    }) => Some(OpenWaitFunction::Exponential {
                        initial: wait,
                        multiplier,
                        max: max_interval,
                    }),
                    _ => None,
                };
            }
            if let Some(v) = l.float("failure-rate-threshold") {
                c.failure_rate_threshold = v as f32;
            }
            if let Some(v) = l.float("slow-call-rate-threshold") {
                c.slow_call_rate_threshold = v as f32;
            }
            if let Some(v) = l.ms("slow-call-duration-threshold") {
                c.slow_call_duration_threshold = v;
            }
            if let Some(v) = l.ms("max-wait-duration-in-half-open-state") {
                c.max_wait_duration_in_half_open_state = v;
            }
            if let Some(Val::State(s)) = l
                .get("transition-to-state-after-wait-duration")
                .map(|s| &s.val)
            {
                c.transition_to_state_after_wait_duration = *s;
            }
            if let Some(Val::State(s)) = l.get("initial-state").map(|s| &s.val) {
                c.initial_state = *s;
            }
            if let Some(v) = l.int("sliding-window-size") {
                c.sliding_window_size = v as u32;
            }
            if let Some(v) = l.int("minimum-number-of-calls") {
                c.minimum_number_of_calls = v as u32;
            }
            if let Some(Val::Window(w)) = l.get("sliding-window-type").map(|s| &s.val) {
                c.sliding_window_type = *w;
            }
            if let Some(v) = l.int("permitted-number-of-calls-in-half-open-state") {
                c.permitted_number_of_calls_in_half_open_state = v as u32;
            }
            if let Some(v) = l.classes("record-exceptions") {
                c.record_exceptions = v;
            }
            if let Some(v) = l.classes("ignore-exceptions") {
                c.ignore_exceptions = v;
            }
            if let Some(v) = l.flag("automatic-transition-from-open-to-half-open-enabled") {
                c.automatic_transition_from_open_to_half_open_enabled = v;
            }
        }
        PolicyConfig::Retry(c) => {
            let wait = wait_function(
                l,
                "wait-duration",
                "exponential-max-wait-duration",
                false,
                notes,
            )?;
            if let Some((wait, function)) = wait {
                c.wait_duration = wait;
                c.interval_function = function;
            }
            if let Some(v) = l.int("max-attempts") {
                c.max_attempts = v as u32;
            }
            if let Some(v) = l.classes("ignore-exceptions") {
                c.ignore_exceptions = v;
            }
            if let Some(v) = l.classes("retry-exceptions") {
                c.retry_exceptions = v;
            }
            if let Some(v) = l.flag("fail-after-max-attempts") {
                c.fail_after_max_attempts = v;
            }
        }
        PolicyConfig::Bulkhead(c) => {
            if let Some(v) = l.int("max-concurrent-calls") {
                c.max_concurrent_calls = v as u32;
            }
            if let Some(v) = l.ms("max-wait-duration") {
                c.max_wait_duration = v;
            }
        }
        PolicyConfig::ThreadPoolBulkhead(c) => {
            // Resilience4j sets a size only above 0 and a queue only from 0 up.
            for (key, field, min) in [
                ("queue-capacity", &mut c.queue_capacity, 0),
                ("core-thread-pool-size", &mut c.core_thread_pool_size, 1),
                ("max-thread-pool-size", &mut c.max_thread_pool_size, 1),
            ] {
                match l.int(key) {
                    Some(v) if v >= min => *field = v as u32,
                    Some(v) => notes.push(
                        [
                            key,
                            ": ",
                            &v.to_string(),
                            " is not read by Resilience4j (it takes ",
                            &min.to_string(),
                            " and above).",
                        ]
                        .concat(),
                    ),
                    None => {}
                }
            }
            if let Some(v) = l.ms("keep-alive-duration") {
                c.keep_alive_duration = v;
            }
        }
        PolicyConfig::TimeLimiter(c) => {
            if let Some(v) = l.ms("timeout-duration") {
                c.timeout_duration = v;
            }
            if let Some(v) = l.flag("cancel-running-future") {
                c.cancel_running_future = v;
            }
        }
        PolicyConfig::RateLimiter(c) => {
            if let Some(v) = l.int("limit-for-period") {
                c.limit_for_period = v as u32;
            }
            if let Some(v) = l.nanos("limit-refresh-period") {
                c.limit_refresh_period = v;
            }
            if let Some(v) = l.nanos("timeout-duration") {
                c.timeout_duration = v;
            }
        }
    }
    Ok(())
}
