//! The settings panel as plain data: the text the learner typed per setting, turned into
//! the engine's configs. Each field keeps its own message; the engine's `validate` decides
//! what is allowed, so the page and the CLI accept exactly the same settings.

use resilience_sim::duration::{format_duration, parse_duration};
use resilience_sim::policy::bulkhead::BulkheadConfig;
use resilience_sim::policy::circuit_breaker::{CircuitBreakerConfig, SlidingWindowType};
use resilience_sim::ConfigError;

use crate::format::{decimal, parse_number};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// A whole number.
    Count,
    /// A percentage, 0-100, decimals allowed.
    Percent,
    /// A duration: `3s`, `800ms` or plain milliseconds; one tick is one second.
    Duration,
    /// One of a few names.
    Choice(&'static [&'static str]),
}

/// One setting of the panel, named as in Resilience4j.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub name: &'static str,
    pub help: &'static str,
    pub kind: FieldKind,
    /// Whether it belongs to the bulkhead (else the circuit breaker).
    pub bulkhead: bool,
}

pub const FIELDS: [Field; 9] = [
    Field {
        name: "slidingWindowType",
        help: "COUNT_BASED: the last N calls; TIME_BASED: the last N seconds (ticks).",
        kind: FieldKind::Choice(&["COUNT_BASED", "TIME_BASED"]),
        bulkhead: false,
    },
    Field {
        name: "slidingWindowSize",
        help: "How many calls (or seconds) the window holds.",
        kind: FieldKind::Count,
        bulkhead: false,
    },
    Field {
        name: "minimumNumberOfCalls",
        help: "Calls the window needs before a rate counts.",
        kind: FieldKind::Count,
        bulkhead: false,
    },
    Field {
        name: "failureRateThreshold",
        help: "Opens when the failure rate is at or above this percentage.",
        kind: FieldKind::Percent,
        bulkhead: false,
    },
    Field {
        name: "slowCallRateThreshold",
        help: "Opens when the share of slow calls is at or above this percentage.",
        kind: FieldKind::Percent,
        bulkhead: false,
    },
    Field {
        name: "slowCallDurationThreshold",
        help: "A call longer than this is slow (1 tick = 1s).",
        kind: FieldKind::Duration,
        bulkhead: false,
    },
    Field {
        name: "waitDurationInOpenState",
        help: "How long OPEN refuses calls before trying again (1 tick = 1s).",
        kind: FieldKind::Duration,
        bulkhead: false,
    },
    Field {
        name: "permittedNumberOfCallsInHalfOpenState",
        help: "Trial calls let through in HALF_OPEN.",
        kind: FieldKind::Count,
        bulkhead: false,
    },
    Field {
        name: "maxConcurrentCalls",
        help: "Threads each dependency may hold at once (bulkhead).",
        kind: FieldKind::Count,
        bulkhead: true,
    },
];

/// The panel's text, one entry per field of [`FIELDS`], in that order.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsDraft {
    pub values: Vec<String>,
}

impl SettingsDraft {
    pub fn from_configs(breaker: &CircuitBreakerConfig, bulkhead: &BulkheadConfig) -> Self {
        let values = FIELDS
            .iter()
            .map(|f| match f.name {
                "slidingWindowType" => breaker.sliding_window_type.as_str().to_string(),
                "slidingWindowSize" => breaker.sliding_window_size.to_string(),
                "minimumNumberOfCalls" => breaker.minimum_number_of_calls.to_string(),
                "failureRateThreshold" => decimal(breaker.failure_rate_threshold),
                "slowCallRateThreshold" => decimal(breaker.slow_call_rate_threshold),
                "slowCallDurationThreshold" => {
                    format_duration(breaker.slow_call_duration_threshold)
                }
                "waitDurationInOpenState" => format_duration(breaker.wait_duration_in_open_state),
                "permittedNumberOfCallsInHalfOpenState" => breaker
                    .permitted_number_of_calls_in_half_open_state
                    .to_string(),
                "maxConcurrentCalls" => bulkhead.max_concurrent_calls.to_string(),
                _ => String::new(),
            })
            .collect();
        Self { values }
    }

    /// The text of a field, by name.
    pub fn get(&self, name: &str) -> &str {
        FIELDS
            .iter()
            .position(|f| f.name == name)
            .and_then(|i| self.values.get(i))
            .map_or("", String::as_str)
    }

    pub fn set(&mut self, name: &str, text: String) {
        if let Some(i) = FIELDS.iter().position(|f| f.name == name) {
            self.values[i] = text;
        }
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
            match read(field, text) {
                Ok(value) => match (field.name, value) {
                    ("slidingWindowType", Value::Choice(name)) => {
                        breaker.sliding_window_type = if name == "TIME_BASED" {
                            SlidingWindowType::TimeBased
                        } else {
                            SlidingWindowType::CountBased
                        }
                    }
                    ("slidingWindowSize", Value::Count(n)) => breaker.sliding_window_size = n,
                    ("minimumNumberOfCalls", Value::Count(n)) => {
                        breaker.minimum_number_of_calls = n
                    }
                    ("failureRateThreshold", Value::Percent(p)) => {
                        breaker.failure_rate_threshold = p
                    }
                    ("slowCallRateThreshold", Value::Percent(p)) => {
                        breaker.slow_call_rate_threshold = p
                    }
                    ("slowCallDurationThreshold", Value::Millis(ms)) => {
                        breaker.slow_call_duration_threshold = ms
                    }
                    ("waitDurationInOpenState", Value::Millis(ms)) => {
                        breaker.wait_duration_in_open_state = ms
                    }
                    ("permittedNumberOfCallsInHalfOpenState", Value::Count(n)) => {
                        breaker.permitted_number_of_calls_in_half_open_state = n
                    }
                    ("maxConcurrentCalls", Value::Count(n)) => bulkhead.max_concurrent_calls = n,
                    _ => {}
                },
                Err(message) => errors.push(ConfigError::new(field.name, message)),
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

/// A field's text, read.
enum Value {
    Count(u32),
    Percent(f32),
    Millis(u64),
    Choice(&'static str),
}

fn read(field: &Field, text: &str) -> Result<Value, String> {
    let text = text.trim();
    match field.kind {
        FieldKind::Count => text
            .parse::<u32>()
            .map(Value::Count)
            .map_err(|_| "must be a whole number, 0 or more".to_string()),
        FieldKind::Percent => match parse_number(text.trim_end_matches('%').trim()) {
            Some(v) if v.is_finite() => Ok(Value::Percent(v as f32)),
            _ => Err("must be a number of percent, such as 50".to_string()),
        },
        FieldKind::Duration => parse_duration(text).map(Value::Millis),
        FieldKind::Choice(names) => names
            .iter()
            .find(|n| n.eq_ignore_ascii_case(text))
            .map(|n| Value::Choice(n))
            .ok_or_else(|| format!("must be one of {}", names.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use resilience_sim::model::tick::{tick_breaker_config, tick_bulkhead_config};

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
        d.set("slidingWindowSize", "four".into());
        d.set("waitDurationInOpenState", "soon".into());
        let errors = d
            .to_configs(&tick_breaker_config(), &tick_bulkhead_config())
            .unwrap_err();
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, vec!["slidingWindowSize", "waitDurationInOpenState"]);
        // A readable but invalid value is reported alongside the unreadable ones.
        d.set("failureRateThreshold", "150".into());
        let errors = d
            .to_configs(&tick_breaker_config(), &tick_bulkhead_config())
            .unwrap_err();
        assert_eq!(errors.len(), 3);
        assert_eq!(errors[2].field, "failureRateThreshold");
    }

    #[test]
    fn the_engine_decides_what_is_allowed() {
        let mut d = demo_draft();
        d.set("failureRateThreshold", "150".into());
        let errors = d
            .to_configs(&tick_breaker_config(), &tick_bulkhead_config())
            .unwrap_err();
        assert_eq!(errors[0].field, "failureRateThreshold");
        d.set("failureRateThreshold", "60%".into());
        d.set("waitDurationInOpenState", "5s".into());
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
        d.set("failureRateThreshold", "57.1".into());
        let (b, h) = d
            .to_configs(&tick_breaker_config(), &tick_bulkhead_config())
            .unwrap();
        assert_eq!(
            SettingsDraft::from_configs(&b, &h).get("failureRateThreshold"),
            "57.1"
        );
    }
}
