//! What the address bar says about a tick demo, as plain data: `?demo=N&t=K`, the
//! learner's select changes and the settings that differ from the demo's. A link
//! reproduces what the learner saw. Parsing never fails outright: a bad parameter is
//! dropped with a message the page shows, and the rest still applies.

use resilience_sim::error::excerpt;
use resilience_sim::model::tick::{Behaviour, Protection};
use resilience_sim::scenario::{catalogue, ScriptedChange, MAX_TICKS};

use crate::settings_form;

/// The demo a query asks for, as the app routes it (and `assets/start.js` loads its part):
/// the last `demo` that names a demo wins; none, Demo 1. [`UrlState::parse`] reads the
/// same and says what it left out.
pub fn demo_of(query: &str) -> u32 {
    query_pairs(query)
        .filter(|(key, _)| key == "demo")
        .filter_map(|(_, value)| demo_number(&value))
        .last()
        .unwrap_or(1)
}

/// `value` as the number of a demo of the course, if it is one.
fn demo_number(value: &str) -> Option<u32> {
    value.parse::<u32>().ok().filter(|n| catalogue::exists(*n))
}

/// The parsed query of a tick demo page.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UrlState {
    pub demo: u32,
    pub t: u32,
    /// The learner's select changes, oldest first.
    pub changes: Vec<ScriptedChange>,
    /// The run's seed (which calls of a flaky service fail), when it is not the demo's.
    pub seed: Option<u64>,
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
                "demo" => match demo_number(&value) {
                    Some(number) => state.demo = number,
                    None => problems.push(format!(
                        "There is no demo “{}”; showing demo 1 (demos are numbered 1 to {}).",
                        excerpt(&value),
                        catalogue::course().count()
                    )),
                },
                "t" => match value.parse::<u32>() {
                    Ok(t) if t <= MAX_TICKS => state.t = t,
                    _ => problems.push(format!(
                        "The tick “{}” is not a number from 0 to {MAX_TICKS}; starting at t = 0.",
                        excerpt(&value)
                    )),
                },
                "changes" => {
                    let tokens = value.split(',').filter(|s| !s.is_empty());
                    // The cap is on the whole link: several `changes=` add up.
                    let room = MAX_CHANGES.saturating_sub(state.changes.len());
                    let left_out = tokens.clone().skip(room).count();
                    if left_out > 0 {
                        problems.push(format!(
                            "The link holds {left_out} changes more than a demo reads ({MAX_CHANGES}); they were left out."
                        ));
                    }
                    for token in tokens.take(room) {
                        match parse_change(token) {
                            Some(change) => state.changes.push(change),
                            None => problems.push(format!(
                                "The change “{}” is not understood; it was left out.",
                                excerpt(token)
                            )),
                        }
                    }
                }
                "seed" => match value.parse::<u64>() {
                    Ok(seed) => state.seed = Some(seed),
                    Err(_) => problems.push(format!(
                        "The seed “{}” is not a whole number; the demo's seed is used.",
                        excerpt(&value)
                    )),
                },
                "embed" | "overview" => {}
                // The text is read when the settings are applied, with a message per field.
                name if settings_form::field(name).is_some() => state.settings.push((key, value)),
                // A tracker's or a mailer's parameter is none of our business.
                name if is_foreign(name, tick_demo_names()) => {}
                _ => problems.push(format!(
                    "The parameter “{}” is not known; it was ignored.",
                    excerpt(&key)
                )),
            }
        }
        ScriptedChange::sort_by_tick(&mut state.changes);
        let left_out = pairs_left_out(query);
        if left_out > 0 {
            problems.push(too_many_pairs(left_out));
        }
        // Bounded by the pairs read; the page lists them with its own (see `shortened`).
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
        if let Some(seed) = self.seed {
            parts.push(format!("seed={seed}"));
        }
        for (name, value) in &self.settings {
            parts.push(format!("{name}={}", encode(value)));
        }
        parts.join("&")
    }
}

/// The parameters every page of the course reads (`embed` and `overview` choose how the
/// course frame shows it: [`crate::embed`]).
pub const PAGE_PARAMETERS: [&str; 3] = ["demo", "embed", "overview"];

/// Every parameter a tick demo's link may hold.
fn tick_demo_names() -> impl Iterator<Item = &'static str> {
    PAGE_PARAMETERS
        .into_iter()
        .chain(["t", "changes", "seed"])
        .chain(settings_form::FIELDS.iter().map(|f| f.name))
}

/// Parameters that trackers, mailers and social sites add to links they pass on.
const FOREIGN_NAMES: [&str; 12] = [
    "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "twclid", "igshid",
    "mc_cid", "mc_eid", "ref",
];

/// Whether the link parameter `name` is someone else's rather than one of `ours` with a
/// typo: such a parameter is ignored without a word, while a near miss of ours gets a
/// notice. The one rule every page uses (the tick demos and the labs). A parameter is
/// ours-like when it is one of ours written in another case or with `_` or `-`
/// (`slidingwindowsize`), a letter or two away from one of ours (`demos`, `faliureRate…`),
/// or written in Resilience4j's camelCase (`maxWaitDuration`); anything else (`utm_source`,
/// `fbclid`, `colour`) is foreign.
pub fn is_foreign<'a>(name: &str, ours: impl IntoIterator<Item = &'a str>) -> bool {
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("utm_") || FOREIGN_NAMES.contains(&lower.as_str()) {
        return true;
    }
    let camel_case = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.contains(|c: char| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_alphanumeric());
    if camel_case {
        return false;
    }
    let folded = fold(name);
    !ours.into_iter().any(|own| {
        let own = fold(own);
        let allowed = match own.len() {
            0..=3 => 0,
            4..=7 => 1,
            _ => 2,
        };
        folded == own || edits(&folded, &own) <= allowed
    })
}

/// `name` in lower case without `_`, `-` or spaces.
fn fold(name: &str) -> Vec<u8> {
    name.bytes()
        .filter(|b| !matches!(b, b'_' | b'-' | b' '))
        .map(|b| b.to_ascii_lowercase())
        .collect()
}

/// The edits (insert, delete, replace a byte, or swap two neighbours) that turn `a` into
/// `b`. Names are short; a long one costs a little more time, never a panic.
fn edits(a: &[u8], b: &[u8]) -> usize {
    if a.len().abs_diff(b.len()) > 2 {
        return 3;
    }
    // Three rows of the table: two back for a swap of neighbours.
    let mut before: Vec<usize> = Vec::new();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let replace = previous[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            row[j] = replace.min(previous[j] + 1).min(row[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut previous, row);
    }
    previous[b.len()]
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
    raw_pairs(query).take(MAX_QUERY_PAIRS).map(|p| {
        let (k, v) = p.split_once('=').unwrap_or((p, ""));
        (decode(k), decode(v))
    })
}

fn raw_pairs(query: &str) -> impl Iterator<Item = &str> + Clone {
    query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
}

/// The most parameters a page reads from its address (a page's own links hold a few
/// dozen at most): whatever a link holds, reading it is bounded work.
pub const MAX_QUERY_PAIRS: usize = 100;
/// The most scripted changes a tick demo's link may hold.
pub const MAX_CHANGES: usize = 500;
/// The most problems a page lists; the rest are counted.
pub const MAX_PROBLEMS_SHOWN: usize = 5;

/// How many parameters past [`MAX_QUERY_PAIRS`] the query holds (counted, not read).
pub fn pairs_left_out(query: &str) -> usize {
    raw_pairs(query).skip(MAX_QUERY_PAIRS).count()
}

/// The problem that says a link's tail was not read.
pub fn too_many_pairs(left_out: usize) -> String {
    match left_out {
        1 => format!(
            "The link holds 1 parameter more than a page reads ({MAX_QUERY_PAIRS}); it was ignored."
        ),
        _ => format!(
            "The link holds {left_out} parameters more than a page reads ({MAX_QUERY_PAIRS}); they were ignored."
        ),
    }
}

/// The first [`MAX_PROBLEMS_SHOWN`] problems, and a count of the rest.
pub fn shortened(mut problems: Vec<String>) -> Vec<String> {
    if problems.len() > MAX_PROBLEMS_SHOWN + 1 {
        let rest = problems.len() - MAX_PROBLEMS_SHOWN;
        problems.truncate(MAX_PROBLEMS_SHOWN);
        problems.push(format!("… and {rest} more problems like these."));
    }
    problems
}

/// Percent-decoding of a query component (`+` is a space); invalid escapes stay as typed.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            // Two hex digits, no sign (from_str_radix would take `%+5`; start.js would not).
            b'%' if i + 2 < bytes.len()
                && bytes[i + 1].is_ascii_hexdigit()
                && bytes[i + 2].is_ascii_hexdigit() =>
            {
                let hex = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
                out.push(hex(bytes[i + 1]) * 16 + hex(bytes[i + 2]));
                i += 2;
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

    /// The demo the app routes to: the last `demo` that names one of the course's demos,
    /// else Demo 1; the same as the tick demos' reader takes.
    #[test]
    fn the_demo_asked_for() {
        for (query, demo) in [
            ("", 1),
            ("demo=12", 12),
            ("?demo=12&embed=1", 12),
            ("demo=3&demo=14", 14),
            ("demo=14&demo=99", 14),
            ("demo=14&demo=abc", 14),
            ("demo=0", 1),
            ("demo=16", 1),
            ("demo=%2B7", 7),
            ("demo=-3", 1),
            ("demo=4294967296", 1),
            ("t=3&changes=2.healthy", 1),
            ("Demo=5", 1),
        ] {
            assert_eq!(demo_of(query), demo, "{query}");
            assert_eq!(UrlState::parse(query).0.demo, demo, "{query}");
        }
    }

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
                ScriptedChange {
                    at: 5,
                    behaviour: Some(Behaviour::Flaky {
                        failure_percent: 30,
                    }),
                    protection: None,
                },
            ],
            seed: Some(12345),
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
            UrlState::parse("?demo=99&t=-3&changes=x.slow,2.sluggish,0.slow,3.slow&demos=1&t=2");
        assert_eq!(state.demo, 1);
        assert_eq!(state.t, 2);
        assert_eq!(state.changes.len(), 1, "only 3.slow survives");
        assert_eq!(problems.len(), 6, "{problems:?}");
    }

    #[test]
    fn other_peoples_parameters_are_ignored_without_a_word() {
        let (state, problems) = UrlState::parse(
            "demo=4&utm_source=x&utm_medium=email&UTM_Campaign=spring&fbclid=IwAR0&gclid=Cj0&colour=red&x=1&_ga=2.1&t=2",
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!((state.demo, state.t), (4, 2));
        assert!(state.settings.is_empty() && state.changes.is_empty());
        // Near misses of ours get a notice, each.
        let (_, problems) = UrlState::parse(
            "demos=4&T=2&change=2.slow&failureRateTreshold=60&sliding_window_size=3&maxWaitDurationInOpen=1s",
        );
        assert_eq!(problems.len(), 6, "{problems:?}");
    }

    #[test]
    fn the_foreign_rule() {
        let ours = ["demo", "t", "changes", "seed", "failureRateThreshold"];
        let foreign = "utm_source utm_ fbclid gclid msclkid colour x ab ref seeds_and_more";
        for name in foreign.split(' ').chain([""]) {
            assert!(is_foreign(name, ours), "{name}");
        }
        let ours_like = "Demo DEMO demos dmeo T change seeds sede failure_rate_threshold \
                         failureRateThresold maxWaitDuration newSetting";
        for name in ours_like.split_whitespace() {
            assert!(!is_foreign(name, ours), "{name}");
        }
        assert_eq!(edits(b"demo", b"dmeo"), 1);
        assert_eq!(edits(b"", b"ab"), 2);
        assert_eq!(edits(b"kitten", b"sitting"), 3);
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
    fn an_escape_is_two_hex_digits() {
        // from_str_radix would read `%+5` as byte 5; start.js keeps it as typed.
        assert_eq!(decode("%+5%2B"), "% 5+");
        assert_eq!(decode("d%65mo=%31%34"), "demo=14");
    }

    #[test]
    fn every_setting_is_a_link_parameter_and_nothing_else_is() {
        for f in &settings_form::FIELDS {
            let (state, problems) = UrlState::parse(&format!("{}=7", f.name));
            assert!(problems.is_empty(), "{problems:?}");
            assert_eq!(state.settings, vec![(f.name.to_string(), "7".to_string())]);
        }
        let (state, problems) = UrlState::parse("slidingwindowsize=7&recordException=A");
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

    #[test]
    fn a_flaky_service_and_its_seed() {
        let (state, problems) = UrlState::parse("demo=5&changes=1.flaky-30,3.flaky-101&seed=7");
        assert_eq!(
            problems.len(),
            1,
            "a share over 100 % is refused: {problems:?}"
        );
        assert_eq!(
            state.changes[0].behaviour,
            Some(Behaviour::Flaky {
                failure_percent: 30
            })
        );
        assert_eq!(state.seed, Some(7));
        assert_eq!(state.to_query(), "demo=5&changes=1.flaky-30&seed=7");
        for bad in ["seed=-1", "seed=x", "seed=", "seed=1.5"] {
            let (state, problems) = UrlState::parse(bad);
            assert_eq!((state.seed, problems.len()), (None, 1), "{bad}");
        }
    }

    #[test]
    fn a_link_of_200000_bad_parameters_reads_100_and_lists_5_problems() {
        let query = format!("?demo=3{}", "&t=x".repeat(200_000));
        let (state, problems) = UrlState::parse(&query);
        assert_eq!(state.demo, 3);
        assert_eq!(problems.len(), 100);
        let problems = shortened(problems);
        assert_eq!(problems.len(), MAX_PROBLEMS_SHOWN + 1, "{problems:?}");
        assert!(
            problems[0].starts_with("The tick “x” is not a number"),
            "{}",
            problems[0]
        );
        // 99 bad ticks read (the first pair is demo=3) and the 199,901 pairs not read: 100
        // problems, 5 of them listed.
        assert_eq!(problems[5], "… and 95 more problems like these.");
    }

    #[test]
    fn a_link_with_more_changes_than_a_demo_reads_says_so() {
        let changes: Vec<String> = (1..=100_000)
            .rev()
            .map(|t| format!("{t}.healthy"))
            .collect();
        let (state, problems) = UrlState::parse(&format!("demo=4&changes={}", changes.join(",")));
        assert_eq!(state.changes.len(), MAX_CHANGES);
        assert_eq!(
            problems,
            ["The link holds 99500 changes more than a demo reads (500); they were left out."]
        );
        assert!(state.changes.windows(2).all(|w| w[0].at <= w[1].at));
    }

    /// Several `changes=` lists add up to one cap, so the state's own link always reads
    /// back without a word (the fuzz test found 300 + 300 read as 600).
    #[test]
    fn the_cap_on_changes_is_the_whole_link_s() {
        let list = vec!["1.slow"; 300].join(",");
        let (state, problems) = UrlState::parse(&format!("demo=1&changes={list}&changes={list}"));
        assert_eq!(state.changes.len(), MAX_CHANGES);
        assert_eq!(
            problems,
            ["The link holds 100 changes more than a demo reads (500); they were left out."]
        );
        let (_, again) = UrlState::parse(&state.to_query());
        assert!(again.is_empty(), "{again:?}");
    }

    #[test]
    fn the_parameters_past_the_hundredth_are_counted_not_read() {
        let query = format!("demo=2{}", "&t=1".repeat(150));
        let (_, problems) = UrlState::parse(&query);
        assert_eq!(problems, [too_many_pairs(51)]);
    }
}
