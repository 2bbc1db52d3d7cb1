//! Fuzzing that stays (issue 14 §5), the page's side: the tick demos' links
//! (`UrlState::parse`), the settings panel's text (`SettingsDraft`) and the labs' links
//! (`lab_link::open_from_link`), fed structured random input. Native only (the browser
//! tests are tests/web.rs); stable Rust and proptest, like the engine's
//! crates/resilience-sim/tests/fuzz.rs.
//!
//! Targets (`cargo test -p resilience-playground --test fuzz_links`):
//! - `tick_links`: query strings made of our parameter names, near misses, other people's
//!   (`utm_*`, `fbclid`), valid and broken percent-escapes, a huge `t`, `changes=` lists
//!   with junk, settings with junk values, 60 KB values. No panic; every problem is one
//!   line under [`PROBLEM_CHARS`] characters; the parsed state's `to_query()` parses back
//!   as the same state without a problem; its settings, applied as the page applies them,
//!   give one message per bad field.
//! - `settings_draft`: random text in every field of the panel: `to_configs` never panics,
//!   gives one message per bad field (each field at most once, every unreadable one), and
//!   configs it accepts show as text that reads back as the same configs.
//! - `lab_links` (printed as `open_from_link_<lab>`): a lab's link through `open_from_link`
//!   (which runs the lab's model, so only a few cases: `FUZZ_CASES / 50`, at least 2 per
//!   lab).
//!
//! `FUZZ_CASES` sets the inputs per target (default [`DEFAULT_CASES`], a second or two in
//! debug); `scripts/fuzz.sh [CASES]` runs it long, in release. What it found (duration
//! messages and unknown lab controls quoting a whole value, a tiny rate shown as `0`) is
//! fixed and held here.

#![cfg(not(target_arch = "wasm32"))]

use std::cell::{Cell, RefCell};
use std::fmt::Debug;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{FileFailurePersistence, TestRunner};

use resilience_playground::lab_link::open_from_link;
use resilience_playground::settings_form::{FieldKind, SettingsDraft, FIELDS};
use resilience_playground::url_state::{demo_of, encode, UrlState};
use resilience_sim::error::EXCERPT_CHARS;
use resilience_sim::model::tick::{tick_breaker_config, tick_bulkhead_config, Behaviour};
use resilience_sim::scenario::boxoffice_lab::BoxOfficeLab;
use resilience_sim::scenario::brownout_lab::BrownoutLab;
use resilience_sim::scenario::checkout_lab::CheckoutLab;
use resilience_sim::scenario::lab_session::{ControlKind, LabModel};
use resilience_sim::scenario::labs::{AmplificationLab, JitterLab};
use resilience_sim::scenario::pool_lab::PoolLab;
use resilience_sim::scenario::sandbox::SandboxSettings;
use resilience_sim::scenario::MAX_TICKS;
use resilience_sim::ConfigError;

// ---------------------------------------------------------------------------------------
// The harness (as in the engine's fuzz.rs)
// ---------------------------------------------------------------------------------------

/// Inputs per target when `FUZZ_CASES` is not set.
const DEFAULT_CASES: u32 = 300;

/// The longest problem a link may give, in characters: a fixed sentence plus at most 40
/// characters of the bad value.
const PROBLEM_CHARS: usize = 300;

fn cases() -> u32 {
    match std::env::var("FUZZ_CASES") {
        Ok(text) => text
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("FUZZ_CASES must be a whole number, got {text:?}")),
        Err(_) => DEFAULT_CASES,
    }
}

fn fuzz<S>(
    target: &str,
    cases: u32,
    strategy: S,
    check: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
    S: Strategy,
    S::Value: Debug,
{
    let mut config = ProptestConfig::with_cases(cases);
    config.source_file = Some(file!());
    config.failure_persistence = Some(Box::new(FileFailurePersistence::WithSource(
        "proptest-regressions",
    )));
    config.max_shrink_iters = 512;
    let mut runner = TestRunner::new(config);
    let inputs = Cell::new(0u64);
    let slowest = Cell::new(Duration::ZERO);
    let started = Instant::now();
    let result = runner.run(&strategy, |input| {
        inputs.set(inputs.get() + 1);
        let start = Instant::now();
        let verdict = check(input);
        slowest.set(slowest.get().max(start.elapsed()));
        verdict
    });
    println!(
        "fuzz {target}: {} inputs ({cases} cases) in {:.2?}, slowest input {:.2?}",
        inputs.get(),
        started.elapsed(),
        slowest.get()
    );
    report_known(target);
    if let Err(e) = result {
        panic!("fuzz {target}: {e}");
    }
}

thread_local! {
    static LONGEST: Cell<usize> = const { Cell::new(0) };
    /// What the running target's inputs reached, so a run shows its inputs get somewhere.
    static NOTES: RefCell<Vec<(&'static str, u64)>> = const { RefCell::new(Vec::new()) };
}

/// Counts one input of the running target that reached `what`.
fn note(what: &'static str) {
    NOTES.with(|notes| {
        let mut notes = notes.borrow_mut();
        match notes.iter_mut().find(|(w, _)| *w == what) {
            Some((_, n)) => *n += 1,
            None => notes.push((what, 1)),
        }
    });
}

fn report_known(target: &str) {
    NOTES.with(|notes| {
        let notes = std::mem::take(&mut *notes.borrow_mut());
        if !notes.is_empty() {
            let list: Vec<String> = notes.iter().map(|(w, n)| format!("{n} {w}")).collect();
            println!("fuzz {target}: reached {}", list.join(", "));
        }
    });
    println!(
        "fuzz {target}: longest message {} characters",
        LONGEST.replace(0)
    );
}

/// A message for the page: one line (no control character at all: the page shows it in a
/// sentence), at most `max` characters.
fn check_message(what: &str, message: &str, max: usize) -> Result<(), TestCaseError> {
    let chars = message.chars().count();
    LONGEST.set(LONGEST.get().max(chars));
    prop_assert!(
        !message.contains(char::is_control),
        "{what}: a control character in {message:?}"
    );
    prop_assert!(
        chars <= max,
        "{what}: a message of {chars} characters: {}...",
        message.chars().take(120).collect::<String>()
    );
    // A bad `1e308` is quoted as written, not as the 309 digits of its binary value.
    let digits = message
        .split(|c: char| !c.is_ascii_digit())
        .map(str::len)
        .max()
        .unwrap_or(0);
    prop_assert!(
        digits <= EXCERPT_CHARS,
        "{what}: a number of {digits} digits that nobody wrote: {}...",
        message.chars().take(120).collect::<String>()
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Query strings of the tick demos
// ---------------------------------------------------------------------------------------

const OUR_NAMES: &[&str] = &["demo", "t", "changes", "seed", "embed", "overview"];

const NEAR_MISSES: &[&str] = &[
    "Demo",
    "DEMO",
    "demos",
    "dmeo",
    "T",
    "tt",
    "change",
    "Changes",
    "seeds",
    "sede",
    "sliding_window_size",
    "slidingwindowsize",
    "failureRateTreshold",
    "failure-rate-threshold",
    "maxWaitDuration",
    "newSetting",
    "waitDurationInOpenStat",
];

const FOREIGN_NAMES: &[&str] = &[
    "utm_source",
    "utm_medium",
    "UTM_Campaign",
    "utm_",
    "fbclid",
    "gclid",
    "msclkid",
    "ref",
    "_ga",
    "colour",
    "x",
    "",
];

/// A parameter's name.
#[derive(Debug, Clone)]
enum Key {
    Ours(Index),
    Setting(Index),
    NearMiss(Index),
    Foreign(Index),
    /// One of ours with its letters percent-escaped (`%64emo`).
    Escaped(Index),
    Text(String),
    /// 60 KB.
    Long,
    Changes,
}

/// A parameter's value, before it is written into the query.
#[derive(Debug, Clone)]
enum Val {
    Number(u64),
    Tick(u32),
    Fixed(&'static str),
    /// A `changes=` list: (tick, what) tokens, with junk.
    Changes(Vec<(Tick, What)>),
    Text(String),
    /// 60 KB of one pattern.
    Long(Index),
    /// A settings field's text.
    Setting(String),
}

#[derive(Debug, Clone)]
enum Tick {
    At(u32),
    Text(&'static str),
}

#[derive(Debug, Clone)]
enum What {
    Behaviour(Behaviour),
    Name(&'static str),
}

/// How a value is written into the query.
#[derive(Debug, Clone, Copy)]
enum Writing {
    Raw,
    Encoded,
    /// Followed by a broken escape.
    Broken(u8),
}

const FIXED: &[&str] = &[
    "",
    "0",
    "-1",
    "+5",
    "1.5",
    "1e3",
    "99999999999999999999",
    "18446744073709551616",
    "4294967296",
    "1e308",
    "-1e300",
    "NaN",
    "true",
    "5s",
    "500ms",
    "2m",
    "99999999999d",
    "60 %",
    "60%",
    "150",
    "0.0001",
    "COUNT_BASED",
    "time_based",
    "SLIDING",
    "é",
    "😀",
    "a=b",
    "%",
    "%Z",
    "%4",
    "%E2%82",
    "%FF%FE",
    "%0A",
    "%00",
    "+",
    "a+b",
    "%2B",
    "\u{7f}",
    "\t",
];

const CHANGE_NAMES: &[&str] = &[
    "healthy",
    "slow",
    "failing",
    "none",
    "circuit_breaker",
    "bulkhead",
    "breaker_and_bulkhead",
    "recovering-06",
    "recovering-",
    "recovering--1",
    "flaky-101",
    "flaky-",
    "flaky-+5",
    "sluggish",
    "Slow",
    "",
    "slow.slow",
];

const TICK_TEXTS: &[&str] = &["", "x", "-1", "+3", "0", "1.5", "99999999999", "٣"];

const LONG: &[&str] = &["9", "a", "é", "%", "%4", "%41", ",", "1.slow,", "+"];

fn key() -> impl Strategy<Value = Key> {
    prop_oneof![
        6 => any::<Index>().prop_map(Key::Ours),
        5 => any::<Index>().prop_map(Key::Setting),
        2 => any::<Index>().prop_map(Key::NearMiss),
        2 => any::<Index>().prop_map(Key::Foreign),
        1 => any::<Index>().prop_map(Key::Escaped),
        1 => "\\PC{0,12}".prop_map(Key::Text),
        1 => Just(Key::Long),
    ]
}

fn what() -> impl Strategy<Value = What> {
    prop_oneof![
        2 => prop_oneof![
            Just(Behaviour::Healthy),
            Just(Behaviour::Slow),
            Just(Behaviour::Failing),
            prop_oneof![0u32..20, Just(MAX_TICKS), Just(MAX_TICKS + 1), any::<u32>()]
                .prop_map(|healthy_from| Behaviour::Recovering { healthy_from }),
            prop_oneof![0u32..=100, Just(101u32), any::<u32>()]
                .prop_map(|failure_percent| Behaviour::Flaky { failure_percent }),
        ]
        .prop_map(What::Behaviour),
        2 => prop::sample::select(CHANGE_NAMES).prop_map(What::Name),
    ]
}

fn tick() -> impl Strategy<Value = Tick> {
    prop_oneof![
        6 => prop_oneof![1u32..40, Just(0u32), Just(MAX_TICKS), Just(MAX_TICKS + 1), any::<u32>()]
            .prop_map(Tick::At),
        1 => prop::sample::select(TICK_TEXTS).prop_map(Tick::Text),
    ]
}

fn val() -> impl Strategy<Value = Val> {
    prop_oneof![
        3 => prop_oneof![0u64..20, Just(u64::MAX), any::<u64>()].prop_map(Val::Number),
        2 => prop_oneof![0..=MAX_TICKS + 2, Just(u32::MAX)].prop_map(Val::Tick),
        4 => prop::sample::select(FIXED).prop_map(Val::Fixed),
        3 => prop::collection::vec((tick(), what()), 0..8).prop_map(Val::Changes),
        1 => "\\PC{0,24}".prop_map(Val::Text),
        1 => any::<Index>().prop_map(Val::Long),
    ]
}

fn writing() -> impl Strategy<Value = Writing> {
    prop_oneof![
        6 => Just(Writing::Raw),
        3 => Just(Writing::Encoded),
        1 => any::<u8>().prop_map(Writing::Broken),
    ]
}

fn pick<'a>(list: &[&'a str], i: &Index) -> &'a str {
    list[i.index(list.len())]
}

fn key_text(key: &Key) -> String {
    match key {
        Key::Ours(i) => pick(OUR_NAMES, i).to_string(),
        Key::Setting(i) => FIELDS[i.index(FIELDS.len())].name.to_string(),
        Key::NearMiss(i) => pick(NEAR_MISSES, i).to_string(),
        Key::Foreign(i) => pick(FOREIGN_NAMES, i).to_string(),
        Key::Escaped(i) => pick(OUR_NAMES, i)
            .bytes()
            .map(|b| format!("%{b:02x}"))
            .collect(),
        Key::Text(text) => text.clone(),
        Key::Long => "aB".repeat(30_000),
        Key::Changes => "changes".to_string(),
    }
}

fn val_text(val: &Val) -> String {
    match val {
        Val::Number(n) => n.to_string(),
        Val::Tick(t) => t.to_string(),
        Val::Fixed(text) => text.to_string(),
        Val::Changes(tokens) => {
            let tokens: Vec<String> = tokens
                .iter()
                .map(|(tick, what)| {
                    let tick = match tick {
                        Tick::At(t) => t.to_string(),
                        Tick::Text(text) => text.to_string(),
                    };
                    let what = match what {
                        What::Behaviour(b) => b.name(),
                        What::Name(name) => name.to_string(),
                    };
                    format!("{tick}.{what}")
                })
                .collect();
            tokens.join(",")
        }
        Val::Text(text) | Val::Setting(text) => text.clone(),
        Val::Long(i) => {
            let unit = pick(LONG, i);
            unit.repeat(60_000 / unit.len())
        }
    }
}

fn query() -> impl Strategy<Value = (bool, Vec<(Key, Val, Writing)>)> {
    // A `changes=` list or a setting is the usual parameter: give them their own values.
    let changes = prop::collection::vec((tick(), what()), 0..8).prop_map(Val::Changes);
    let setting = (any::<Index>(), field_text()).prop_map(|(i, text)| {
        let field = &FIELDS[i.index(FIELDS.len())];
        (
            Key::Setting(i),
            Val::Setting(field_text_of(field.kind, &text)),
        )
    });
    let part = prop_oneof![
        3 => (Just(Key::Changes), changes, writing()),
        3 => (setting, writing()).prop_map(|((key, val), writing)| (key, val, writing)),
        6 => (key(), val(), writing()),
    ];
    (any::<bool>(), prop::collection::vec(part, 0..10))
}

fn query_text((question_mark, parts): &(bool, Vec<(Key, Val, Writing)>)) -> String {
    let parts: Vec<String> = parts
        .iter()
        .map(|(key, val, writing)| {
            let key = key_text(key);
            let val = val_text(val);
            let val = match writing {
                Writing::Raw => val,
                Writing::Encoded => encode(&val),
                Writing::Broken(b) => format!("{val}%{}", char::from(b'0' + b % 75)),
            };
            format!("{key}={val}")
        })
        .collect();
    let query = parts.join("&");
    if *question_mark {
        format!("?{query}")
    } else {
        query
    }
}

/// A message of the settings panel: one line, bounded.
fn check_field_message(e: &ConfigError) -> Result<(), TestCaseError> {
    check_message(e.field.as_str(), &e.message, PROBLEM_CHARS)
}

/// `draft`'s configs over the tick demo's, and what `to_configs` promises about them.
fn check_draft(draft: &SettingsDraft) -> Result<(), TestCaseError> {
    let (breaker, bulkhead) = (tick_breaker_config(), tick_bulkhead_config());
    match draft.to_configs(&breaker, &bulkhead) {
        Err(errors) => {
            note("drafts refused");
            prop_assert!(!errors.is_empty());
            for (i, e) in errors.iter().enumerate() {
                prop_assert!(
                    errors[..i].iter().all(|other| other.field != e.field),
                    "two messages for {}: {errors:?}",
                    e.field
                );
                check_field_message(e)?;
            }
            // Every field whose text cannot be read has its message.
            for f in &FIELDS {
                let (mut b, mut h) = (breaker.clone(), bulkhead.clone());
                if (f.set)(&mut b, &mut h, draft.get(f.name)).is_err() {
                    prop_assert!(
                        errors.iter().any(|e| e.field == f.name),
                        "{} = {:?} is unreadable but has no message",
                        f.name,
                        draft.get(f.name)
                    );
                }
            }
        }
        Ok((b, h)) => {
            note("drafts accepted");
            prop_assert!(b.validate().is_ok() && h.validate().is_ok());
            // The form shows them as text that reads back as the same configs.
            let shown = SettingsDraft::from_configs(&b, &h);
            // Tiny rates included (0.00003246542 %, 5.25e-15 %: once shown as `0`).
            let back = shown.to_configs(&breaker, &bulkhead);
            prop_assert_eq!(back, Ok((b, h)), "the panel shows {:?}", shown);
        }
    }
    Ok(())
}

#[test]
fn tick_links() {
    fuzz("tick_links", cases(), query(), |recipe| {
        let query = query_text(&recipe);
        let (state, problems) = UrlState::parse(&query);
        // The app routes to the demo the tick demos' reader reads.
        prop_assert_eq!(demo_of(&query), state.demo, "{}", query);
        if !problems.is_empty() {
            note("links with a problem");
        }
        if !state.changes.is_empty() {
            note("links with changes");
        }
        if !state.settings.is_empty() {
            note("links with settings");
        }
        for problem in &problems {
            check_message("UrlState::parse", problem, PROBLEM_CHARS)?;
        }
        // The state's own link reads back as it, without a word.
        let link = state.to_query();
        let (back, problems_back) = UrlState::parse(&link);
        prop_assert!(problems_back.is_empty(), "{link}: {problems_back:?}");
        prop_assert_eq!(&back, &state, "{}", link);
        prop_assert_eq!(back.to_query(), link);
        // Its settings, applied as the page applies them: one message per bad field.
        let mut draft =
            SettingsDraft::from_configs(&tick_breaker_config(), &tick_bulkhead_config());
        for (name, value) in &state.settings {
            prop_assert!(draft.set(name, value.clone()).is_ok(), "{name} is a field");
        }
        check_draft(&draft)
    });
}

/// Text for a field of the settings panel: mostly a value of the field's kind (in and out
/// of its range, as a learner types it), else anything.
#[derive(Debug, Clone)]
enum FieldText {
    /// A value of the field's kind: which one, and how it is written.
    OfKind(Index, u8),
    Any(String),
}

fn field_text() -> impl Strategy<Value = FieldText> {
    prop_oneof![
        24 => (any::<Index>(), 0u8..4).prop_map(|(i, how)| FieldText::OfKind(i, how)),
        1 => prop::sample::select(FIXED).prop_map(|t| FieldText::Any(t.to_string())),
        1 => prop_oneof![
            0u64..200,
            Just(u64::from(u32::MAX)),
            Just(u64::from(u32::MAX) + 1),
            any::<u64>()
        ]
        .prop_map(|n| FieldText::Any(n.to_string())),
        1 => any::<f32>().prop_map(|v| FieldText::Any(v.to_string())),
        1 => "[0-9 .%a-z\\-]{0,8}".prop_map(FieldText::Any),
        1 => "\\PC{0,16}".prop_map(FieldText::Any),
        1 => any::<Index>().prop_map(|i| FieldText::Any(val_text(&Val::Long(i)))),
        1 => Just(FieldText::Any("1\n2".to_string())),
    ]
}

fn field_text_of(kind: FieldKind, text: &FieldText) -> String {
    let (i, how) = match text {
        FieldText::Any(text) => return text.clone(),
        FieldText::OfKind(i, how) => (i, *how),
    };
    let pad = |t: String| match how {
        0 | 1 => t,
        2 => format!(" {t} "),
        _ => t.to_ascii_lowercase(),
    };
    match kind {
        FieldKind::Count => pad(i.index(40).to_string()),
        FieldKind::Percent => {
            let v = i.index(100_001) as f64 / 1000.0;
            pad(if how == 1 {
                format!("{v}%")
            } else {
                v.to_string()
            })
        }
        FieldKind::Duration => {
            let n = i.index(120) + 1;
            pad(match how {
                0 => format!("{n}s"),
                1 => format!("{}ms", n * 100),
                _ => format!("{}", n * 250),
            })
        }
        FieldKind::Choice(options) => pad(options[i.index(options.len())].to_string()),
        FieldKind::Switch => pad(["true", "false"][i.index(2)].to_string()),
        FieldKind::Number => pad(format!("{}", 1.0 + i.index(40) as f64 / 8.0)),
        FieldKind::Classes => pad(["IOException", "java.io.IOException,NotFoundException", ""]
            [i.index(3)]
        .to_string()),
    }
}

#[test]
fn settings_draft() {
    let texts = prop::collection::vec(prop::option::weighted(0.5, field_text()), FIELDS.len());
    fuzz("settings_draft", cases(), texts, |texts| {
        let mut draft =
            SettingsDraft::from_configs(&tick_breaker_config(), &tick_bulkhead_config());
        for (f, text) in FIELDS.iter().zip(texts) {
            if let Some(text) = text {
                let text = field_text_of(f.kind, &text);
                prop_assert!(draft.set(f.name, text.clone()).is_ok());
                prop_assert_eq!(draft.get(f.name), text.as_str());
            }
        }
        check_draft(&draft)
    });
}

// ---------------------------------------------------------------------------------------
// The labs' links, as the page opens them
// ---------------------------------------------------------------------------------------

fn lab_query<L: LabModel>(
    (question_mark, parts): &(bool, Vec<(Index, u8, Val, Writing)>),
) -> String {
    let controls = L::controls();
    let parts: Vec<String> = parts
        .iter()
        .map(|(i, how, val, writing)| {
            let control = &controls[i.index(controls.len())];
            let key = match how {
                0..=5 => control.name.to_string(),
                6 => control.name.to_ascii_lowercase(),
                7 => format!("{}x", control.name),
                8 => pick(FOREIGN_NAMES, i).to_string(),
                _ => "aB".repeat(5_000),
            };
            let val = match (how % 3, control.kind) {
                (0, ControlKind::Number { min, max, .. }) => format!("{}", min + (max - min) / 2.0),
                (0, ControlKind::Choice { options }) => {
                    options[i.index(options.len())].0.to_string()
                }
                _ => val_text(val),
            };
            let val = match writing {
                Writing::Encoded => encode(&val),
                _ => val,
            };
            format!("{key}={val}")
        })
        .collect();
    let query = format!("demo=9&{}", parts.join("&"));
    if *question_mark {
        format!("?{query}")
    } else {
        query
    }
}

fn lab_links_of<L: LabModel>() {
    let cases = (cases() / 50).max(2);
    let strategy = (
        any::<bool>(),
        prop::collection::vec((any::<Index>(), 0u8..10, val(), writing()), 0..8),
    );
    fuzz(
        &format!("open_from_link_{}", L::NAME),
        cases,
        strategy,
        |recipe| {
            let query = lab_query::<L>(&recipe);
            let (session, problems) = open_from_link::<L>(&query);
            prop_assert!(session.run().is_ok(), "{}: the opened lab runs", L::NAME);
            for problem in &problems {
                check_message(L::NAME, problem, 1_000)?;
            }
            Ok(())
        },
    );
}

#[test]
fn lab_links() {
    lab_links_of::<AmplificationLab>();
    lab_links_of::<JitterLab>();
    lab_links_of::<SandboxSettings>();
    lab_links_of::<PoolLab>();
    lab_links_of::<BrownoutLab>();
    lab_links_of::<CheckoutLab>();
    lab_links_of::<BoxOfficeLab>();
}
