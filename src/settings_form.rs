//! The settings panel as plain data: one table of the breaker's and bulkhead's settings
//! ([`FIELDS`]), and the text the learner typed per setting, turned into the engine's
//! configs. The form, the link's parameters and the draft's checks all read the table, so
//! a setting is named once. Each field keeps its own message; the engine's `validate`
//! decides what is allowed, so the page and the CLI accept exactly the same settings.

use resilience_sim::duration::{format_duration, parse_duration};
use resilience_sim::policy::bulkhead::BulkheadConfig;
use resilience_sim::policy::circuit_breaker::{
    CircuitBreakerConfig, OpenWaitFunction, SlidingWindowType, State,
};
use resilience_sim::{ConfigError, Millis};

use crate::format::{decimal, parse_number};

/// How a field is typed, for the form's control (a choice is a select, the rest text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// A whole number.
    Count,
    /// A percentage, 0-100, decimals allowed.
    Percent,
    /// A duration: `3s`, `800ms` or plain milliseconds; one tick is one second.
    Duration,
    /// One of a few names (the engine enum's names).
    Choice(&'static [&'static str]),
    /// `true` or `false`.
    Switch,
    /// A decimal number (a multiplier).
    Number,
    /// Exception classes, comma-separated (`java.io.IOException,java.util.concurrent.TimeoutException`).
    Classes,
}

/// One setting of the panel, named as in Resilience4j, with typed access to the configs.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub name: &'static str,
    pub help: &'static str,
    pub kind: FieldKind,
    /// Whether it belongs to the bulkhead (else the circuit breaker).
    pub bulkhead: bool,
    /// Whether the settings form shows it; the others are carried by the link and the
    /// config import (what a pasted `application.yml` set), so a reload plays them too.
    pub form: bool,
    /// The text the form shows for the configs' value; `set` reads it back as the same value.
    pub get: fn(&CircuitBreakerConfig, &BulkheadConfig) -> String,
    /// Reads `text` and writes the value into the configs, or says why it cannot be read
    /// (and writes nothing). Whether the value is allowed is for the engine's `validate`.
    pub set: fn(&mut CircuitBreakerConfig, &mut BulkheadConfig, &str) -> Result<(), String>,
}

/// The sliding window types' names, in the engine's order.
const WINDOW_TYPES: [&str; 2] = {
    let all = SlidingWindowType::ALL;
    [all[0].name(), all[1].name()]
};

/// The states a breaker can be in or go to, by Resilience4j's names.
const STATES: [&str; 6] = {
    let all = State::ALL;
    [
        all[0].as_str(),
        all[1].as_str(),
        all[2].as_str(),
        all[3].as_str(),
        all[4].as_str(),
        all[5].as_str(),
    ]
};

/// Resilience4j's `IntervalFunction.DEFAULT_MULTIPLIER`, which Spring Boot uses when
/// `enableExponentialBackoff` is set without a multiplier.
const DEFAULT_MULTIPLIER: f64 = 1.5;

/// Every setting of the tick demos' circuit breaker and bulkhead: the form's first, then
/// those only the link and the config import set, in the order they are applied (the
/// exponential wait after the open wait it starts from).
pub const FIELDS: [Field; 19] = [
    Field {
        name: "slidingWindowType",
        help: "COUNT_BASED: the last N calls; TIME_BASED: the last N seconds (ticks).",
        kind: FieldKind::Choice(&WINDOW_TYPES),
        bulkhead: false,
        form: true,
        get: |b, _| b.sliding_window_type.name().to_string(),
        set: |b, _, text| put(&mut b.sliding_window_type, window_type(text)),
    },
    Field {
        name: "slidingWindowSize",
        help: "How many calls (or seconds) the window holds.",
        kind: FieldKind::Count,
        bulkhead: false,
        form: true,
        get: |b, _| b.sliding_window_size.to_string(),
        set: |b, _, text| put(&mut b.sliding_window_size, count(text)),
    },
    Field {
        name: "minimumNumberOfCalls",
        help: "Calls the window needs before a rate counts.",
        kind: FieldKind::Count,
        bulkhead: false,
        form: true,
        get: |b, _| b.minimum_number_of_calls.to_string(),
        set: |b, _, text| put(&mut b.minimum_number_of_calls, count(text)),
    },
    Field {
        name: "failureRateThreshold",
        help: "Opens when the failure rate is at or above this percentage.",
        kind: FieldKind::Percent,
        bulkhead: false,
        form: true,
        get: |b, _| decimal(b.failure_rate_threshold),
        set: |b, _, text| put(&mut b.failure_rate_threshold, percent(text)),
    },
    Field {
        name: "slowCallRateThreshold",
        help: "Opens when the share of slow calls is at or above this percentage.",
        kind: FieldKind::Percent,
        bulkhead: false,
        form: true,
        get: |b, _| decimal(b.slow_call_rate_threshold),
        set: |b, _, text| put(&mut b.slow_call_rate_threshold, percent(text)),
    },
    Field {
        name: "slowCallDurationThreshold",
        help: "A call longer than this is slow (1 tick = 1s).",
        kind: FieldKind::Duration,
        bulkhead: false,
        form: true,
        get: |b, _| format_duration(b.slow_call_duration_threshold),
        set: |b, _, text| put(&mut b.slow_call_duration_threshold, parse_duration(text)),
    },
    Field {
        name: "waitDurationInOpenState",
        help: "How long OPEN refuses calls before trying again (1 tick = 1s).",
        kind: FieldKind::Duration,
        bulkhead: false,
        form: true,
        // With an exponential wait, the breaker waits its initial value first.
        get: |b, _| match b.wait_interval_function_in_open_state {
            Some(OpenWaitFunction::Exponential { initial, .. }) => format_duration(initial),
            None => format_duration(b.wait_duration_in_open_state),
        },
        set: |b, _, text| {
            let wait = parse_duration(text)?;
            b.wait_duration_in_open_state = wait;
            if let Some(OpenWaitFunction::Exponential { initial, .. }) =
                &mut b.wait_interval_function_in_open_state
            {
                *initial = wait;
            }
            Ok(())
        },
    },
    Field {
        name: "permittedNumberOfCallsInHalfOpenState",
        help: "Trial calls let through in HALF_OPEN.",
        kind: FieldKind::Count,
        bulkhead: false,
        form: true,
        get: |b, _| b.permitted_number_of_calls_in_half_open_state.to_string(),
        set: |b, _, text| {
            put(
                &mut b.permitted_number_of_calls_in_half_open_state,
                count(text),
            )
        },
    },
    Field {
        name: "maxConcurrentCalls",
        help: "Threads each dependency may hold at once (bulkhead).",
        kind: FieldKind::Count,
        bulkhead: true,
        form: true,
        get: |_, h| h.max_concurrent_calls.to_string(),
        set: |_, h, text| put(&mut h.max_concurrent_calls, count(text)),
    },
    Field {
        name: "maxWaitDuration",
        help: "How long a call waits for a bulkhead permit before it is refused.",
        kind: FieldKind::Duration,
        bulkhead: true,
        form: false,
        get: |_, h| format_duration(h.max_wait_duration),
        set: |_, h, text| put(&mut h.max_wait_duration, parse_duration(text)),
    },
    Field {
        name: "automaticTransitionFromOpenToHalfOpenEnabled",
        help: "A timer moves OPEN to HALF_OPEN when the wait ends, without waiting for a call.",
        kind: FieldKind::Switch,
        bulkhead: false,
        form: false,
        get: |b, _| {
            b.automatic_transition_from_open_to_half_open_enabled
                .to_string()
        },
        set: |b, _, text| {
            put(
                &mut b.automatic_transition_from_open_to_half_open_enabled,
                switch(text),
            )
        },
    },
    Field {
        name: "maxWaitDurationInHalfOpenState",
        help: "The longest stay in HALF_OPEN (0: as long as the trials take).",
        kind: FieldKind::Duration,
        bulkhead: false,
        form: false,
        get: |b, _| format_duration(b.max_wait_duration_in_half_open_state),
        set: |b, _, text| {
            put(
                &mut b.max_wait_duration_in_half_open_state,
                parse_duration(text),
            )
        },
    },
    Field {
        name: "transitionToStateAfterWaitDuration",
        help: "Where HALF_OPEN goes when its longest stay runs out.",
        kind: FieldKind::Choice(&STATES),
        bulkhead: false,
        form: false,
        get: |b, _| {
            b.transition_to_state_after_wait_duration
                .as_str()
                .to_string()
        },
        set: |b, _, text| put(&mut b.transition_to_state_after_wait_duration, state(text)),
    },
    Field {
        name: "initialState",
        help: "The state a new breaker starts in.",
        kind: FieldKind::Choice(&STATES),
        bulkhead: false,
        form: false,
        get: |b, _| b.initial_state.as_str().to_string(),
        set: |b, _, text| put(&mut b.initial_state, state(text)),
    },
    Field {
        name: "recordExceptions",
        help: "Exceptions recorded as failures (none listed: every exception).",
        kind: FieldKind::Classes,
        bulkhead: false,
        form: false,
        get: |b, _| b.record_exceptions.join(","),
        set: |b, _, text| put(&mut b.record_exceptions, classes(text)),
    },
    Field {
        name: "ignoreExceptions",
        help: "Exceptions counted as neither success nor failure.",
        kind: FieldKind::Classes,
        bulkhead: false,
        form: false,
        get: |b, _| b.ignore_exceptions.join(","),
        set: |b, _, text| put(&mut b.ignore_exceptions, classes(text)),
    },
    // Spring Boot's three properties of the exponential open wait; the wait starts from
    // `waitDurationInOpenState`, as Spring Boot's binding does.
    Field {
        name: "enableExponentialBackoff",
        help: "Each time the breaker opens again, the open wait grows by the multiplier.",
        kind: FieldKind::Switch,
        bulkhead: false,
        form: false,
        get: |b, _| b.wait_interval_function_in_open_state.is_some().to_string(),
        set: |b, _, text| {
            let on = switch(text)?;
            let (multiplier, max) = exponential(b).unwrap_or((DEFAULT_MULTIPLIER, None));
            b.wait_interval_function_in_open_state = on.then_some(OpenWaitFunction::Exponential {
                initial: b.wait_duration_in_open_state,
                multiplier,
                max,
            });
            Ok(())
        },
    },
    Field {
        name: "exponentialBackoffMultiplier",
        help: "How much the open wait grows each time (with enableExponentialBackoff).",
        kind: FieldKind::Number,
        bulkhead: false,
        form: false,
        get: |b, _| {
            exponential(b)
                .map_or(DEFAULT_MULTIPLIER, |(m, _)| m)
                .to_string()
        },
        set: |b, _, text| {
            let value = multiplier(text)?;
            if let Some(OpenWaitFunction::Exponential { multiplier, .. }) =
                &mut b.wait_interval_function_in_open_state
            {
                *multiplier = value;
            }
            Ok(())
        },
    },
    Field {
        name: "exponentialMaxWaitDurationInOpenState",
        help: "The longest the growing open wait gets (empty: no limit).",
        kind: FieldKind::Duration,
        bulkhead: false,
        form: false,
        get: |b, _| {
            exponential(b)
                .and_then(|(_, max)| max)
                .map(format_duration)
                .unwrap_or_default()
        },
        set: |b, _, text| {
            let value = match text.trim() {
                "" => None,
                text => Some(parse_duration(text)?),
            };
            if let Some(OpenWaitFunction::Exponential { max, .. }) =
                &mut b.wait_interval_function_in_open_state
            {
                *max = value;
            }
            Ok(())
        },
    },
];

/// The exponential open wait's multiplier and cap, when the breaker has one.
fn exponential(b: &CircuitBreakerConfig) -> Option<(f64, Option<Millis>)> {
    b.wait_interval_function_in_open_state.map(
        |OpenWaitFunction::Exponential {
             multiplier, max, ..
         }| (multiplier, max),
    )
}

/// The field named `name` (exactly, as Resilience4j spells it), or `None`.
pub fn field(name: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.name == name)
}

/// Writes a value that could be read; leaves the slot as it was otherwise.
fn put<T>(slot: &mut T, read: Result<T, String>) -> Result<(), String> {
    *slot = read?;
    Ok(())
}

fn count(text: &str) -> Result<u32, String> {
    let text = text.trim();
    text.parse::<u32>().map_err(|_| {
        // All digits but no u32: too large, not "not a number".
        if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            format!("is too large: at most {}", u32::MAX)
        } else {
            "must be a whole number, 0 or more".to_string()
        }
    })
}

fn percent(text: &str) -> Result<f32, String> {
    match parse_number(text.trim().trim_end_matches('%').trim()) {
        Some(v) if v.is_finite() => Ok(v as f32),
        _ => Err("must be a number of percent, such as 50".to_string()),
    }
}

fn switch(text: &str) -> Result<bool, String> {
    match text.trim() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err("must be true or false".to_string()),
    }
}

/// Read with the course's number reader, not `str::parse` (its tables are 14 KB gzip:
/// `resilience_sim::number`), which gives the same value.
fn multiplier(text: &str) -> Result<f64, String> {
    match parse_number(text.trim()) {
        Some(v) if v.is_finite() => Ok(v),
        _ => Err("must be a number, such as 1.5".to_string()),
    }
}

/// A breaker state by Resilience4j's name, in any case.
fn state(text: &str) -> Result<State, String> {
    let name = text.trim().to_ascii_uppercase();
    State::ALL
        .into_iter()
        .find(|s| s.as_str() == name)
        .ok_or_else(|| format!("must be one of {}", STATES.join(", ")))
}

/// Class names separated by commas, each a Java name (`java.io.IOException`, `Outer$Inner`).
fn classes(text: &str) -> Result<Vec<String>, String> {
    let names: Vec<String> = text
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_string)
        .collect();
    let java = |name: &String| {
        name.split('.').all(|part| {
            part.chars().next().is_some_and(|c| !c.is_ascii_digit())
                && part
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        })
    };
    match names.iter().find(|name| !java(name)) {
        None => Ok(names),
        Some(bad) => Err(format!(
            "“{}” is not a Java class name: write class names separated by commas",
            resilience_sim::error::excerpt(bad)
        )),
    }
}

/// The engine's name, in any case (`time_based` is read as `TIME_BASED`).
fn window_type(text: &str) -> Result<SlidingWindowType, String> {
    SlidingWindowType::from_name(&text.trim().to_ascii_uppercase())
        .ok_or_else(|| format!("must be one of {}", WINDOW_TYPES.join(", ")))
}

/// The panel's text, one entry per field of [`FIELDS`], in that order.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsDraft {
    values: Vec<String>,
}

impl SettingsDraft {
    pub fn from_configs(breaker: &CircuitBreakerConfig, bulkhead: &BulkheadConfig) -> Self {
        let values = FIELDS.iter().map(|f| (f.get)(breaker, bulkhead)).collect();
        Self { values }
    }

    /// The text of a field, by name (empty for a name that is not a field).
    pub fn get(&self, name: &str) -> &str {
        FIELDS
            .iter()
            .position(|f| f.name == name)
            .and_then(|i| self.values.get(i))
            .map_or("", String::as_str)
    }

    /// Replaces the text of a field; a name that is not a field is refused with a message.
    pub fn set(&mut self, name: &str, text: String) -> Result<(), String> {
        let slot = FIELDS
            .iter()
            .position(|f| f.name == name)
            .and_then(|i| self.values.get_mut(i))
            .ok_or_else(|| {
                format!(
                    "The setting “{}” is not known.",
                    resilience_sim::error::excerpt(name)
                )
            })?;
        *slot = text;
        Ok(())
    }

    /// The configs these settings describe, on top of `breaker` and `bulkhead` (whose other
    /// fields are kept). Every field that cannot be read gets its own message; once all can
    /// be read, the engine's validation has the last word.
    pub fn to_configs(
        &self,
        breaker: &CircuitBreakerConfig,
        bulkhead: &BulkheadConfig,
    ) -> Result<(CircuitBreakerConfig, BulkheadConfig), Vec<ConfigError>> {
        let mut breaker = breaker.clone();
        let mut bulkhead = bulkhead.clone();
        let mut errors = Vec::new();
        for (field, text) in FIELDS.iter().zip(&self.values) {
            if let Err(message) = (field.set)(&mut breaker, &mut bulkhead, text) {
                errors.push(ConfigError::new(field.name, message));
            }
        }
        // Unreadable fields kept their old values above, so the engine can still check the
        // readable ones and every wrong field gets its message at once.
        for verdict in [breaker.validate(), bulkhead.validate()] {
            if let Err(e) = verdict {
                if !errors.iter().any(|known| known.field == e.field) {
                    errors.push(e);
                }
            }
        }
        if errors.is_empty() {
            Ok((breaker, bulkhead))
        } else {
            Err(errors)
        }
    }

    /// The fields whose text differs from `other`'s, as (name, text) pairs for a link.
    pub fn differences(&self, other: &SettingsDraft) -> Vec<(String, String)> {
        FIELDS
            .iter()
            .zip(self.values.iter().zip(&other.values))
            .filter(|(_, (mine, theirs))| mine != theirs)
            .map(|(f, (mine, _))| (f.name.to_string(), mine.clone()))
            .collect()
    }
}

/// `breaker` and `bulkhead` with a link's settings (name, text) applied, checked by the
/// engine; or one message per setting that could not be used.
pub fn with_settings(
    breaker: &CircuitBreakerConfig,
    bulkhead: &BulkheadConfig,
    settings: &[(String, String)],
) -> Result<(CircuitBreakerConfig, BulkheadConfig), Vec<String>> {
    let mut draft = SettingsDraft::from_configs(breaker, bulkhead);
    let mut problems = Vec::new();
    for (name, text) in settings {
        if let Err(message) = draft.set(name, text.clone()) {
            problems.push(message);
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    draft
        .to_configs(breaker, bulkhead)
        .map_err(|errors| errors.iter().map(ToString::to_string).collect())
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_count_too_large_says_so() {
        assert_eq!(count("4294967295"), Ok(u32::MAX));
        assert_eq!(
            count("4294967296"),
            Err(format!("is too large: at most {}", u32::MAX))
        );
        assert_eq!(
            count("four"),
            Err("must be a whole number, 0 or more".into())
        );
        assert_eq!(count("-1"), Err("must be a whole number, 0 or more".into()));
    }

    use super::*;
    use resilience_sim::model::tick::{tick_breaker_config, tick_bulkhead_config};

    /// Configs in which every field of the table differs from the demo's (and the fields
    /// the table does not hold are the demo's).
    fn other_configs() -> (CircuitBreakerConfig, BulkheadConfig) {
        let breaker = CircuitBreakerConfig {
            sliding_window_type: SlidingWindowType::TimeBased,
            sliding_window_size: 10,
            minimum_number_of_calls: 7,
            failure_rate_threshold: 57.1,
            slow_call_rate_threshold: 80.5,
            slow_call_duration_threshold: 2_500,
            wait_duration_in_open_state: 5_000,
            permitted_number_of_calls_in_half_open_state: 3,
            automatic_transition_from_open_to_half_open_enabled: false,
            max_wait_duration_in_half_open_state: 4_000,
            transition_to_state_after_wait_duration: State::Closed,
            initial_state: State::ForcedOpen,
            record_exceptions: vec![
                "java.io.IOException".into(),
                "com.example.Outer$TimeoutException".into(),
            ],
            ignore_exceptions: vec!["NotFoundException".into()],
            wait_interval_function_in_open_state: Some(OpenWaitFunction::Exponential {
                initial: 5_000,
                multiplier: 2.5,
                max: Some(300_000),
            }),
            ..tick_breaker_config()
        };
        let bulkhead = BulkheadConfig {
            max_concurrent_calls: 5,
            max_wait_duration: 250,
        };
        (breaker, bulkhead)
    }

    fn demo_draft() -> SettingsDraft {
        SettingsDraft::from_configs(&tick_breaker_config(), &tick_bulkhead_config())
    }

    #[test]
    fn shows_the_spec_settings() {
        let d = demo_draft();
        assert_eq!(d.get("slidingWindowSize"), "4");
        assert_eq!(d.get("minimumNumberOfCalls"), "4");
        assert_eq!(d.get("failureRateThreshold"), "50");
        assert_eq!(d.get("waitDurationInOpenState"), "3s");
        assert_eq!(d.get("permittedNumberOfCallsInHalfOpenState"), "2");
        assert_eq!(d.get("maxConcurrentCalls"), "3");
        assert_eq!(d.get("slidingWindowType"), "COUNT_BASED");
    }

    #[test]
    fn unchanged_text_gives_back_the_same_configs() {
        let (b, h) = demo_draft()
            .to_configs(&tick_breaker_config(), &tick_bulkhead_config())
            .unwrap();
        assert_eq!(b, tick_breaker_config());
        assert_eq!(h, tick_bulkhead_config());
    }

    #[test]
    fn each_unreadable_field_gets_its_own_message() {
        let mut d = demo_draft();
        d.set("slidingWindowSize", "four".into()).unwrap();
        d.set("waitDurationInOpenState", "soon".into()).unwrap();
        let errors = d
            .to_configs(&tick_breaker_config(), &tick_bulkhead_config())
            .unwrap_err();
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, vec!["slidingWindowSize", "waitDurationInOpenState"]);
        // A readable but invalid value is reported alongside the unreadable ones.
        d.set("failureRateThreshold", "150".into()).unwrap();
        let errors = d
            .to_configs(&tick_breaker_config(), &tick_bulkhead_config())
            .unwrap_err();
        assert_eq!(errors.len(), 3);
        assert_eq!(errors[2].field, "failureRateThreshold");
    }

    #[test]
    fn the_engine_decides_what_is_allowed() {
        let mut d = demo_draft();
        d.set("failureRateThreshold", "150".into()).unwrap();
        let errors = d
            .to_configs(&tick_breaker_config(), &tick_bulkhead_config())
            .unwrap_err();
        assert_eq!(errors[0].field, "failureRateThreshold");
        d.set("failureRateThreshold", "60%".into()).unwrap();
        d.set("waitDurationInOpenState", "5s".into()).unwrap();
        let (b, _) = d
            .to_configs(&tick_breaker_config(), &tick_bulkhead_config())
            .unwrap();
        assert_eq!(b.failure_rate_threshold, 60.0);
        assert_eq!(b.wait_duration_in_open_state, 5_000);
        assert_eq!(d.differences(&demo_draft()).len(), 2);
    }

    #[test]
    fn a_fractional_threshold_reads_back_as_typed() {
        let mut d = demo_draft();
        d.set("failureRateThreshold", "57.1".into()).unwrap();
        let (b, h) = d
            .to_configs(&tick_breaker_config(), &tick_bulkhead_config())
            .unwrap();
        assert_eq!(
            SettingsDraft::from_configs(&b, &h).get("failureRateThreshold"),
            "57.1"
        );
    }

    #[test]
    fn every_field_round_trips() {
        let demo = (tick_breaker_config(), tick_bulkhead_config());
        let other = other_configs();
        for (from, to) in [(&other, &demo), (&demo, &other)] {
            let (mut b, mut h) = from.clone();
            for f in &FIELDS {
                let text = (f.get)(&to.0, &to.1);
                assert_ne!(text, (f.get)(&from.0, &from.1), "{} must differ", f.name);
                (f.set)(&mut b, &mut h, &text).unwrap_or_else(|e| panic!("{}: {e}", f.name));
                assert_eq!((f.get)(&b, &h), text, "{}", f.name);
            }
            // Field by field, `to`'s text turned `from` into `to`, exactly.
            assert_eq!((&b, &h), (&to.0, &to.1));
        }
        // Every option of a choice can be set and reads back as itself.
        for f in &FIELDS {
            if let FieldKind::Choice(options) = f.kind {
                for option in options {
                    let (mut b, mut h) = other_configs();
                    (f.set)(&mut b, &mut h, option).unwrap();
                    assert_eq!((f.get)(&b, &h), *option);
                }
            }
        }
    }

    #[test]
    fn unreadable_text_writes_nothing() {
        let (mut b, mut h) = other_configs();
        for f in &FIELDS {
            assert!(
                (f.set)(&mut b, &mut h, "not a value").is_err(),
                "{}",
                f.name
            );
        }
        assert_eq!((b, h), other_configs());
    }

    #[test]
    fn an_unknown_name_cannot_be_set() {
        let mut d = demo_draft();
        for name in [
            "slidingWindowSiz",
            "failurerateThreshold",
            "",
            "maxWaitDurationInOpenState",
        ] {
            assert!(field(name).is_none(), "{name}");
            let message = d.set(name, "5".into()).unwrap_err();
            assert!(message.contains("not known"), "{message}");
        }
        assert_eq!(d, demo_draft());
        assert_eq!(field("maxConcurrentCalls").map(|f| f.bulkhead), Some(true));
    }

    #[test]
    fn names_are_unique() {
        for (i, f) in FIELDS.iter().enumerate() {
            assert!(FIELDS[..i].iter().all(|g| g.name != f.name), "{}", f.name);
        }
    }
}
