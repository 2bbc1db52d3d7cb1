//! The settings panel as plain data: the text the learner typed per setting, turned into
//! the engine's configs. Each field keeps its own message; the engine's `validate` decides
//! what is allowed, so the page and the CLI accept exactly the same settings.

use resilience_sim::duration::{format_duration, parse_duration};
use resilience_sim::policy::bulkhead::BulkheadConfig;
use resilience_sim::policy::circuit_breaker::CircuitBreakerConfig;
use resilience_sim::ConfigError;
use serde_json::{Map, Value};

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
    Field { name: "slidingWindowType", help: "COUNT_BASED: the last N calls; TIME_BASED: the last N seconds (ticks).", kind: FieldKind::Choice(&["COUNT_BASED", "TIME_BASED"]), bulkhead: false },
    Field { name: "slidingWindowSize", help: "How many calls (or seconds) the window holds.", kind: FieldKind::Count, bulkhead: false },
    Field { name: "minimumNumberOfCalls", help: "Calls the window needs before a rate counts.", kind: FieldKind::Count, bulkhead: false },
    Field { name: "failureRateThreshold", help: "Opens when the failure rate is at or above this percentage.", kind: FieldKind::Percent, bulkhead: false },
    Field { name: "slowCallRateThreshold", help: "Opens when the share of slow calls is at or above this percentage.", kind: FieldKind::Percent, bulkhead: false },
    Field { name: "slowCallDurationThreshold", help: "A call longer than this is slow (1 tick = 1s).", kind: FieldKind::Duration, bulkhead: false },
    Field { name: "waitDurationInOpenState", help: "How long OPEN refuses calls before trying again (1 tick = 1s).", kind: FieldKind::Duration, bulkhead: false },
    Field { name: "permittedNumberOfCallsInHalfOpenState", help: "Trial calls let through in HALF_OPEN.", kind: FieldKind::Count, bulkhead: false },
    Field { name: "maxConcurrentCalls", help: "Threads each dependency may hold at once (bulkhead).", kind: FieldKind::Count, bulkhead: true },
];

/// The panel's text, one entry per field of [`FIELDS`], in that order.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsDraft {
    pub values: Vec<String>,
}

impl SettingsDraft {
    pub fn from_configs(breaker: &CircuitBreakerConfig, bulkhead: &BulkheadConfig) -> Self {
        let breaker = to_object(breaker);
        let bulkhead = to_object(bulkhead);
        let values = FIELDS
            .iter()
            .map(|f| {
                let source = if f.bulkhead { &bulkhead } else { &breaker };
                match source.get(f.name) {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Number(n)) => trim_number(n),
                    Some(other) => other.to_string(),
                    None => String::new(),
                }
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
        let mut breaker_json = to_object(breaker);
        let mut bulkhead_json = to_object(bulkhead);
        let mut errors = Vec::new();
        for (field, text) in FIELDS.iter().zip(&self.values) {
            match read(field, text) {
                Ok(value) => {
                    let target = if field.bulkhead { &mut bulkhead_json } else { &mut breaker_json };
                    target.insert(field.name.to_string(), value);
                }
                Err(message) => errors.push(ConfigError::new(field.name, message)),
            }
        }
        // Unreadable fields kept their old values above, so the engine can still check the
        // readable ones and every wrong field gets its message at once.
        let breaker: Result<CircuitBreakerConfig, _> = serde_json::from_value(Value::Object(breaker_json));
        let bulkhead: Result<BulkheadConfig, _> = serde_json::from_value(Value::Object(bulkhead_json));
        let (breaker, bulkhead) = match (breaker, bulkhead) {
            (Ok(b), Ok(h)) => (b, h),
            (Err(e), _) => return Err(push(errors, ConfigError::new("circuitBreaker", e.to_string()))),
            (_, Err(e)) => return Err(push(errors, ConfigError::new("bulkhead", e.to_string()))),
        };
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

fn push(mut errors: Vec<ConfigError>, error: ConfigError) -> Vec<ConfigError> {
    errors.push(error);
    errors
}

fn read(field: &Field, text: &str) -> Result<Value, String> {
    let text = text.trim();
    match field.kind {
        FieldKind::Count => text
            .parse::<u32>()
            .map(Value::from)
            .map_err(|_| "must be a whole number, 0 or more".to_string()),
        FieldKind::Percent => match text.trim_end_matches('%').trim().parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Value::from(v)),
            _ => Err("must be a number of percent, such as 50".to_string()),
        },
        FieldKind::Duration => parse_duration(text).map(|ms| Value::String(format_duration(ms))),
        FieldKind::Choice(names) => names
            .iter()
            .find(|n| n.eq_ignore_ascii_case(text))
            .map(|n| Value::String(n.to_string()))
            .ok_or_else(|| format!("must be one of {}", names.join(", "))),
    }
}

fn to_object<T: serde::Serialize>(value: &T) -> Map<String, Value> {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

fn trim_number(n: &serde_json::Number) -> String {
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
        _ => n.to_string(),
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
        let (b, h) = demo_draft().to_configs(&tick_breaker_config(), &tick_bulkhead_config()).unwrap();
        assert_eq!(b, tick_breaker_config());
        assert_eq!(h, tick_bulkhead_config());
    }

    #[test]
    fn each_unreadable_field_gets_its_own_message() {
        let mut d = demo_draft();
        d.set("slidingWindowSize", "four".into());
        d.set("waitDurationInOpenState", "soon".into());
        let errors = d.to_configs(&tick_breaker_config(), &tick_bulkhead_config()).unwrap_err();
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, vec!["slidingWindowSize", "waitDurationInOpenState"]);
        // A readable but invalid value is reported alongside the unreadable ones.
        d.set("failureRateThreshold", "150".into());
        let errors = d.to_configs(&tick_breaker_config(), &tick_bulkhead_config()).unwrap_err();
        assert_eq!(errors.len(), 3);
        assert_eq!(errors[2].field, "failureRateThreshold");
    }

    #[test]
    fn the_engine_decides_what_is_allowed() {
        let mut d = demo_draft();
        d.set("failureRateThreshold", "150".into());
        let errors = d.to_configs(&tick_breaker_config(), &tick_bulkhead_config()).unwrap_err();
        assert_eq!(errors[0].field, "failureRateThreshold");
        d.set("failureRateThreshold", "60%".into());
        d.set("waitDurationInOpenState", "5s".into());
        let (b, _) = d.to_configs(&tick_breaker_config(), &tick_bulkhead_config()).unwrap();
        assert_eq!(b.failure_rate_threshold, 60.0);
        assert_eq!(b.wait_duration_in_open_state, 5_000);
        assert_eq!(d.differences(&demo_draft()).len(), 2);
    }
}
