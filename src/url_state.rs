//! What the address bar says about a tick demo, as plain data: `?demo=N&t=K`, the
//! learner's select changes and the settings that differ from the demo's. A link
//! reproduces what the learner saw. Parsing never fails outright: a bad parameter is
//! dropped with a message the page shows, and the rest still applies.

use resilience_sim::model::tick::{Behaviour, Protection};
use resilience_sim::scenario::{catalogue, ScriptedChange, MAX_TICKS};

use crate::settings_form;

/// The parsed query of a tick demo page.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UrlState {
    pub demo: u32,
    pub t: u32,
    /// The learner's select changes, oldest first.
    pub changes: Vec<ScriptedChange>,
    /// Setting overrides as (Resilience4j name, text as typed); every name is one of the
    /// settings form's fields ([`settings_form::FIELDS`]).
    pub settings: Vec<(String, String)>,
}

impl UrlState {
    pub fn demo(number: u32) -> Self {
        Self {
            demo: number,
            ..Self::default()
        }
    }

    /// Parses `demo=4&t=3&changes=2.healthy,3.bulkhead&failureRateThreshold=60`.
    /// Returns the state and one message per parameter that was dropped.
    pub fn parse(query: &str) -> (Self, Vec<String>) {
        let mut state = Self::demo(1);
        let mut problems = Vec::new();
        for (key, value) in query_pairs(query) {
            match key.as_str() {
                "demo" => match value.parse::<u32>().ok().filter(|n| catalogue::exists(*n)) {
                    Some(number) => state.demo = number,
                    None => problems.push(format!(
                        "There is no demo “{value}”; showing demo 1 (demos are numbered 1 to {}).",
                        catalogue::course().count()
                    )),
                },
                "t" => match value.parse::<u32>() {
                    Ok(t) if t <= MAX_TICKS => state.t = t,
                    _ => problems.push(format!(
                        "The tick “{value}” is not a number from 0 to {MAX_TICKS}; starting at t = 0."
                    )),
                },
                "changes" => {
                    for token in value.split(',').filter(|s| !s.is_empty()) {
                        match parse_change(token) {
                            Some(change) => state.changes.push(change),
                            None => problems.push(format!("The change “{token}” is not understood; it was left out.")),
                        }
                    }
                }
                "embed" => {}
                // The text is read when the settings are applied, with a message per field.
                name if settings_form::field(name).is_some() => state.settings.push((key, value)),
                _ => problems.push(format!("The parameter “{key}” is not known; it was ignored.")),
            }
        }
        sort_by_tick(&mut state.changes);
        (state, problems)
    }

    /// The query string (without `?`) that [`UrlState::parse`] reads back as `self`.
    pub fn to_query(&self) -> String {
        let mut parts = vec![format!("demo={}", self.demo)];
        if self.t > 0 {
            parts.push(format!("t={}", self.t));
        }
        if !self.changes.is_empty() {
            let tokens: Vec<String> = self.changes.iter().flat_map(format_change).collect();
            parts.push(format!("changes={}", tokens.join(",")));
        }
        for (name, value) in &self.settings {
            parts.push(format!("{name}={}", encode(value)));
        }
        parts.join("&")
    }
}

/// Orders changes by the tick they take effect at, keeping the link's order within a tick.
/// An insertion sort: a link holds a handful of changes, and the standard library's sort
/// would add about 3 KB to the wasm.
fn sort_by_tick(changes: &mut [ScriptedChange]) {
    for i in 1..changes.len() {
        let mut j = i;
        while j > 0 && changes[j - 1].at > changes[j].at {
            changes.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// `3.healthy`, `6.recovering-9`, `4.breaker_and_bulkhead`.
fn parse_change(token: &str) -> Option<ScriptedChange> {
    let (at, what) = token.split_once('.')?;
    let at: u32 = at.parse().ok().filter(|&t| (1..=MAX_TICKS).contains(&t))?;
    let mut change = ScriptedChange {
        at,
        behaviour: None,
        protection: None,
    };
    // The two vocabularies share no word, so a token names one or the other.
    if let Some(b) = Behaviour::from_name(what) {
        change.behaviour = Some(b);
    } else {
        change.protection = Some(Protection::from_name(what)?);
    }
    Some(change)
}

fn format_change(change: &ScriptedChange) -> Vec<String> {
    let mut tokens = Vec::new();
    if let Some(b) = change.behaviour {
        tokens.push(format!("{}.{}", change.at, b.name()));
    }
    if let Some(p) = change.protection {
        tokens.push(format!("{}.{}", change.at, p.name()));
    }
    tokens
}

/// The decoded (name, value) pairs of a query string (with or without its `?`).
pub fn query_pairs(query: &str) -> impl Iterator<Item = (String, String)> + '_ {
    query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
}

/// Percent-decoding of a query component (`+` is a space); invalid escapes stay as typed.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match u8::from_str_radix(text.get(i + 1..i + 3).unwrap_or(""), 16) {
                    Ok(byte) => {
                        out.push(byte);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            other => out.push(other),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encoding of a query value (everything but unreserved characters).
pub fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let state = UrlState {
            demo: 5,
            t: 4,
            changes: vec![
                ScriptedChange {
                    at: 2,
                    behaviour: Some(Behaviour::Healthy),
                    protection: None,
                },
                ScriptedChange {
                    at: 3,
                    behaviour: None,
                    protection: Some(Protection::Bulkhead),
                },
                ScriptedChange {
                    at: 4,
                    behaviour: Some(Behaviour::Recovering { healthy_from: 9 }),
                    protection: None,
                },
            ],
            settings: vec![
                ("waitDurationInOpenState".into(), "5s".into()),
                ("failureRateThreshold".into(), "60 %".into()),
            ],
        };
        let (parsed, problems) = UrlState::parse(&state.to_query());
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(parsed, state);
    }

    #[test]
    fn bad_parameters_are_dropped_with_a_message() {
        let (state, problems) =
            UrlState::parse("?demo=99&t=-3&changes=x.slow,2.sluggish,0.slow,3.slow&bogus=1&t=2");
        assert_eq!(state.demo, 1);
        assert_eq!(state.t, 2);
        assert_eq!(state.changes.len(), 1, "only 3.slow survives");
        assert_eq!(problems.len(), 6, "{problems:?}");
    }

    #[test]
    fn changes_are_sorted_by_tick_keeping_the_order_within_a_tick() {
        let (state, problems) =
            UrlState::parse("changes=5.slow,2.bulkhead,5.healthy,1.none,2.failing");
        assert!(problems.is_empty(), "{problems:?}");
        let order: Vec<(u32, bool)> = state
            .changes
            .iter()
            .map(|c| (c.at, c.behaviour.is_some()))
            .collect();
        assert_eq!(
            order,
            vec![(1, false), (2, false), (2, true), (5, true), (5, true)]
        );
        assert_eq!(state.changes[3].behaviour, Some(Behaviour::Slow));
    }

    #[test]
    fn decoding_never_panics_on_broken_escapes() {
        for q in [
            "%",
            "%Z",
            "a=%",
            "a=%4",
            "demo=%E2%82",
            "=",
            "&&&",
            "t=%FF%FE",
        ] {
            let _ = UrlState::parse(q);
        }
        assert_eq!(decode("a%20b+c"), "a b c");
    }

    #[test]
    fn every_setting_of_the_form_is_a_link_parameter_and_nothing_else_is() {
        for f in &settings_form::FIELDS {
            let (state, problems) = UrlState::parse(&format!("{}=7", f.name));
            assert!(problems.is_empty(), "{problems:?}");
            assert_eq!(state.settings, vec![(f.name.to_string(), "7".to_string())]);
        }
        let (state, problems) = UrlState::parse("slidingwindowsize=7&maxWaitDuration=1s");
        assert!(state.settings.is_empty());
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems.iter().all(|p| p.contains("is not known")));
    }

    #[test]
    fn changes_use_the_engines_names() {
        let (state, problems) =
            UrlState::parse("changes=2.recovering-6,3.breaker_and_bulkhead,4.recovering-06");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(
            state.changes[0].behaviour,
            Some(Behaviour::Recovering { healthy_from: 6 })
        );
        assert_eq!(
            state.changes[1].protection,
            Some(Protection::BreakerAndBulkhead)
        );
        let too_late = format!("changes=2.recovering-{}", MAX_TICKS + 1);
        assert_eq!(UrlState::parse(&too_late).1.len(), 1);
    }
}
