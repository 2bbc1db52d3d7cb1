//! Fuzzing that stays (issue 14 §5): structured random inputs, and mutations of valid
//! documents, thrown at the engine's parsers and runs with its work limits on. Stable Rust,
//! proptest strategies, no nightly `cargo fuzz`.
//!
//! Targets (one test each, `cargo test -p resilience-sim --test fuzz`):
//! - `breaker_scripts`: structured [`BreakerScript`]s over the config's whole ranges
//!   (1 ms waits, `u64::MAX`-ish advances, windows up to `MAX_WINDOW_SIZE`, exponential
//!   waits with multipliers below and above 1, automatic transitions, every step kind,
//!   known and unknown exception names) through `run_breaker_script`;
//! - `breaker_script_json`: valid scripts serialized with serde_json, then mutated (values
//!   swapped for hostile ones, keys dropped, misspelt or added, then bytes), through
//!   `parse_breaker_script` (and run when they still parse);
//! - `scenario_text`: the catalogue's demos (and random valid scenarios) as TOML and JSON,
//!   mutated the same way, through `Scenario::parse` in both formats, run for up to 300
//!   ticks when valid;
//! - `scenario_structured`: scenarios with random worlds, behaviours, breakers, bulkheads
//!   and scripts: validated, saved and parsed back, run for up to 300 ticks when valid;
//! - `lab_links_*`: for every lab, a link's (name, value) pairs drawn from the lab's
//!   control names (and near misses) with values at and beyond the bounds, huge, negative,
//!   NaN-like, unicode and 10 KB long. Every value goes through the control's parser and
//!   the session's checks without a run (`set_deferred`); every `LAB_RUN_EVERY`th input
//!   also opens a real `LabSession::from_pairs`, which runs the model (up to ~100 ms in
//!   debug), and must agree.
//!
//! What is asserted: no panic, and the contracts the engine states: one report per step,
//! refusals on one line of bounded length (a bad value quoted in at most
//! [`EXCERPT_CHARS`] characters), a capped advance says so on one line, the clock never goes
//! back, a saved scenario parses back as itself, a lab's config stays valid and its link
//! reopens it. Wall time is measured and printed (the slowest input of each target), never
//! asserted. What it found is fixed in the engine and held here: refusals that quoted a
//! whole value (durations, unknown lab controls), parsers that passed control characters
//! on, a JSON float read back one unit off (serde_json's `float_roundtrip`), and a lab link
//! that did not reopen its own lab when a limit across controls refused a state on the way
//! (`LabSession::read_pairs` now applies values together).
//!
//! How many inputs: `FUZZ_CASES` per target (default [`DEFAULT_CASES`], a few seconds for
//! the whole file in debug). For a long run, in release: `scripts/fuzz.sh [CASES]`. Each
//! target prints `fuzz <target>: <n> inputs ...` (run with `--nocapture` to see it); a
//! failure is shrunk and saved in `tests/fuzz.proptest-regressions`, replayed first on
//! every later run.

#![cfg(feature = "cli")] // TOML scenario files

use std::cell::{Cell, RefCell};
use std::fmt::Debug;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{FileFailurePersistence, TestRunner};

use resilience_sim::error::{ConfigError, EXCERPT_CHARS};
use resilience_sim::model::tick::{
    Behaviour, Protection, TickConfig, TickWorld, MAX_ARRIVALS_PER_TICK, MAX_THREADS,
    MAX_TIMEOUT_TICKS,
};
use resilience_sim::number::number_text;
use resilience_sim::policy::bulkhead::BulkheadConfig;
use resilience_sim::policy::circuit_breaker::config::MAX_WINDOW_SIZE;
use resilience_sim::policy::circuit_breaker::{
    CircuitBreakerConfig, OpenWaitFunction, SlidingWindowType, State,
};
use resilience_sim::policy::retry::KNOWN_EXCEPTIONS;
use resilience_sim::scenario::breaker_script::{
    parse_breaker_script, run_breaker_script, BreakerScript, BreakerStep, StepReport,
    MAX_TIMERS_PER_SCRIPT,
};
use resilience_sim::scenario::brownout_lab::BrownoutLab;
use resilience_sim::scenario::catalogue::DEMOS;
use resilience_sim::scenario::checkout_lab::CheckoutLab;
use resilience_sim::scenario::lab_session::{ControlKind, LabModel, LabSession};
use resilience_sim::scenario::labs::{AmplificationLab, JitterLab};
use resilience_sim::scenario::pool_lab::PoolLab;
use resilience_sim::scenario::sandbox::SandboxSettings;
use resilience_sim::scenario::{Format, ModelKind, Scenario, ScriptedChange, MAX_TICKS};
use resilience_sim::Millis;

// ---------------------------------------------------------------------------------------
// The harness: how many inputs, counted and timed per target
// ---------------------------------------------------------------------------------------

/// Inputs per target when `FUZZ_CASES` is not set: the whole file in a few seconds (debug).
const DEFAULT_CASES: u32 = 128;

/// A lab's model is run (through `LabSession::from_pairs`) for the first input and every
/// this many after it; the other inputs stop before the run.
const LAB_RUN_EVERY: u64 = 100;

fn cases() -> u32 {
    match std::env::var("FUZZ_CASES") {
        Ok(text) => text
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("FUZZ_CASES must be a whole number, got {text:?}")),
        Err(_) => DEFAULT_CASES,
    }
}

/// Runs `check` on `cases()` inputs drawn from `strategy` (plus proptest's shrinking of a
/// failure), then prints the count and the slowest input's time.
fn fuzz<S>(target: &str, strategy: S, check: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S: Strategy,
    S::Value: Debug,
{
    let cases = cases();
    let mut config = ProptestConfig::with_cases(cases);
    config.source_file = Some(file!());
    config.failure_persistence = Some(Box::new(FileFailurePersistence::WithSource(
        "proptest-regressions",
    )));
    // A failing input is shrunk; with 10 KB values the default 4096 steps can take minutes.
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

/// The longest refusal any parser here may give, in characters. The longest fixed text is a
/// lab's list of its controls (the brownout lab's: about 600 characters); a bad value adds
/// at most [`EXCERPT_CHARS`] of itself.
const MESSAGE_CHARS: usize = 1_000;

thread_local! {
    /// The longest refusal the running target has seen, in characters, and its source.
    static LONGEST: RefCell<(usize, String)> = const { RefCell::new((0, String::new())) };
}

fn one_line(what: &str, message: &str) -> Result<(), TestCaseError> {
    let chars = message.chars().count();
    LONGEST.with(|longest| {
        let mut longest = longest.borrow_mut();
        if chars > longest.0 {
            *longest = (chars, what.to_string());
        }
    });
    prop_assert!(
        !message.contains(['\n', '\r']),
        "{what}: a message on more than one line: {message:?}"
    );
    Ok(())
}

fn bounded(what: &str, message: &str) -> Result<(), TestCaseError> {
    one_line(what, message)?;
    let chars = message.chars().count();
    prop_assert!(
        chars <= MESSAGE_CHARS,
        "{what}: a message of {chars} characters: {}...",
        message.chars().take(200).collect::<String>()
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
        message.chars().take(200).collect::<String>()
    );
    Ok(())
}

thread_local! {
    /// What the running target's inputs reached (valid configs, capped advances, ...): so
    /// a run shows the strategies get past the first refusal.
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
    LONGEST.with(|longest| {
        let (chars, what) = longest.replace((0, String::new()));
        if chars > 0 {
            println!("fuzz {target}: longest refusal {chars} characters ({what})");
        }
    });
}

// ---------------------------------------------------------------------------------------
// Mutations of a valid document
// ---------------------------------------------------------------------------------------

/// Tokens worth splicing into JSON or TOML: numbers out of every range, durations that
/// overflow, wrong types, broken escapes and structure.
const TOKENS: &[&str] = &[
    "-1",
    "0",
    "1",
    "-0",
    "1e400",
    "-1e400",
    "1e-400",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775808",
    "340282366920938463463374607431768211456",
    "1.5",
    "0.1",
    "100.0000001",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "null",
    "true",
    "\"\"",
    "\"5s\"",
    "\"1ms\"",
    "\"0ms\"",
    "\"18446744073709551615ms\"",
    "\"99999999999999999999d\"",
    "\"213503982335d\"",
    "\"5 parsecs\"",
    "\"NaN\"",
    "\"COUNT_BASED\"",
    "\"TIME_BASED\"",
    "\"HALF_OPEN\"",
    "\"FORCED_OPEN\"",
    "\"x\"",
    "{}",
    "[]",
    "[[",
    "]]",
    "{\"acquire\":{}}",
    "{\"advance_ms\":18446744073709551615}",
    "{\"exponential\":{\"initial\":\"1ms\",\"multiplier\":0.5}}",
    "{\"exponential\":{\"initial\":1,\"multiplier\":1e308,\"max\":1}}",
    "{ flaky = { failurePercent = 101 } }",
    "{ recovering = { healthyFrom = 4294967295 } }",
    ",",
    ":",
    "=",
    "\"",
    "'",
    "\"\"\"",
    "'''",
    "\\",
    "\\u0000",
    "\\ud800",
    "\\uDFFF",
    "#",
    "\n",
    "\r\n",
    "\t",
    "\u{0}",
    "\u{feff}",
    "é",
    "😀",
    "1_000",
    "0x10",
    "0o7",
    "1979-05-27T07:32:00Z",
];

/// One edit of a document: where, what kind, and what it brings.
#[derive(Debug, Clone)]
struct Edit {
    at: Index,
    kind: u8,
    len: u8,
    token: Index,
    bytes: Vec<u8>,
}

fn edits(max: usize) -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(
        (
            any::<Index>(),
            0u8..8,
            1u8..16,
            any::<Index>(),
            prop::collection::vec(any::<u8>(), 1..6),
        )
            .prop_map(|(at, kind, len, token, bytes)| Edit {
                at,
                kind,
                len,
                token,
                bytes,
            }),
        0..max,
    )
}

/// Byte edits after the structural ones: none for two documents in three (one edit of a
/// byte breaks most documents; the others test the parsers' reading of values).
fn byte_edits() -> impl Strategy<Value = Vec<Edit>> {
    prop_oneof![2 => Just(Vec::new()), 1 => edits(5)]
}

/// `text` with `edits` applied byte by byte (so a cut may split a character: the result is
/// read back lossily, as a file with a bad byte would be).
fn mutate(text: &str, edits: &[Edit]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for edit in edits {
        let at = edit.at.index(bytes.len() + 1);
        let end = (at + usize::from(edit.len)).min(bytes.len());
        match edit.kind {
            0 => {
                bytes.drain(at..end);
            }
            1 => {
                bytes.splice(at..at, edit.bytes.iter().copied());
            }
            2 | 3 => {
                let token = TOKENS[edit.token.index(TOKENS.len())].as_bytes();
                // 2 inserts the token, 3 replaces a few bytes with it.
                let to = if edit.kind == 2 { at } else { end };
                bytes.splice(at..to, token.iter().copied());
            }
            4 => {
                if at < bytes.len() {
                    bytes[at] = edit.bytes[0];
                }
            }
            5 => {
                let chunk = bytes[at..end].to_vec();
                bytes.splice(at..at, chunk);
            }
            6 => {
                // Cut the document short, as a truncated download would.
                if bytes.len() > 1 {
                    bytes.truncate(at.max(1));
                }
            }
            _ => {
                // A digit run made longer: numbers past every integer type.
                if let Some(d) = bytes[at..].iter().position(u8::is_ascii_digit) {
                    let nines = vec![b'9'; usize::from(edit.len) * 2];
                    bytes.splice(at + d..at + d, nines);
                }
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// One edit of a document's structure (on its `serde_json::Value`): a node replaced by an
/// interesting value, an entry removed, a key misspelt, an entry added.
#[derive(Debug, Clone)]
struct TreeEdit {
    node: Index,
    kind: u8,
    pick: Index,
}

fn tree_edits() -> impl Strategy<Value = Vec<TreeEdit>> {
    prop::collection::vec(
        (any::<Index>(), 0u8..5, any::<Index>()).prop_map(|(node, kind, pick)| TreeEdit {
            node,
            kind,
            pick,
        }),
        0..4,
    )
}

/// Values worth putting anywhere in a scenario or a script.
fn interesting_values() -> Vec<serde_json::Value> {
    use serde_json::json;
    vec![
        json!(-1),
        json!(0),
        json!(1),
        json!(2),
        json!(101),
        json!(u32::MAX),
        json!(u64::from(u32::MAX) + 1),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(1e300),
        json!(-0.0),
        json!(0.5),
        json!(100.0001),
        json!(""),
        json!(" "),
        json!("5s"),
        json!("0ms"),
        json!("1ms"),
        json!("18446744073709551615ms"),
        json!("213503982335d"),
        json!("5 parsecs"),
        json!("NaN"),
        json!("COUNT_BASED"),
        json!("TIME_BASED"),
        json!("OPEN"),
        json!("CLOSED"),
        json!("HALF_OPEN"),
        json!("FORCED_OPEN"),
        json!("METRICS_ONLY"),
        json!("DISABLED"),
        json!("slow"),
        json!("breaker_and_bulkhead"),
        json!(true),
        json!(null),
        json!([]),
        json!({}),
        json!(["IOException", "Exception"]),
        json!([""]),
        json!({"exponential": {"initial": "1ms", "multiplier": 0.5}}),
        json!({"exponential": {"initial": 1, "multiplier": -2, "max": "1ms"}}),
        json!({"exponential": {"initial": "1ms", "multiplier": 1e308}}),
        json!({"recovering": {"healthyFrom": u32::MAX}}),
        json!({"flaky": {"failurePercent": 101}}),
        json!({"advance_ms": u64::MAX}),
        json!({"transition": "FORCED_OPEN"}),
        json!({"error": {"exception": "IOException"}}),
        json!("x".repeat(1_000)),
        json!("aB\n\r\u{0}é😀"),
    ]
}

/// Keys worth adding: our fields in the wrong place, near misses, someone else's.
const KEYS: &[&str] = &[
    "slidingWindowSize",
    "slidingWindowType",
    "waitDurationInOpenState",
    "waitIntervalFunctionInOpenState",
    "permittedNumberOfCallsInHalfOpenState",
    "automaticTransitionFromOpenToHalfOpenEnabled",
    "recordExceptions",
    "initialState",
    "exceptions",
    "threads",
    "timeoutTicks",
    "behaviour",
    "protection",
    "at",
    "ticks",
    "seed",
    "script",
    "steps",
    "config",
    "windowSize",
    "",
];

/// The JSON pointers of every node under `value` (itself included).
fn pointers(value: &serde_json::Value, at: String, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, child) in map {
                let key = key.replace('~', "~0").replace('/', "~1");
                pointers(child, format!("{at}/{key}"), out);
            }
        }
        serde_json::Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                pointers(child, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

fn mutate_tree(value: &mut serde_json::Value, edits: &[TreeEdit]) {
    let values = interesting_values();
    for edit in edits {
        let mut all = Vec::new();
        pointers(value, String::new(), &mut all);
        let pointer = &all[edit.node.index(all.len())];
        let Some(node) = value.pointer_mut(pointer) else {
            continue;
        };
        let replacement = values[edit.pick.index(values.len())].clone();
        match (edit.kind, node) {
            (0 | 1, node) => *node = replacement,
            (2, serde_json::Value::Object(map)) if !map.is_empty() => {
                let key = map.keys().nth(edit.pick.index(map.len())).unwrap().clone();
                map.remove(&key);
            }
            (3, serde_json::Value::Object(map)) if !map.is_empty() => {
                let key = map.keys().nth(edit.pick.index(map.len())).unwrap().clone();
                let child = map.remove(&key).unwrap();
                map.insert(format!("{key}s"), child);
            }
            (_, serde_json::Value::Object(map)) => {
                map.insert(KEYS[edit.pick.index(KEYS.len())].to_string(), replacement);
            }
            (_, serde_json::Value::Array(items)) => {
                let i = edit.pick.index(items.len() + 1);
                items.insert(i, replacement);
            }
            (_, node) => *node = replacement,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Breaker configs and scripts, over the whole ranges
// ---------------------------------------------------------------------------------------

const UNKNOWN_EXCEPTIONS: &[&str] = &[
    "",
    " ",
    "java.io.IOException",
    "NoSuchThingException",
    "ioexception",
    "Exception ",
    "Ex\nception",
    "例外",
];

fn exception() -> BoxedStrategy<String> {
    prop_oneof![
        40 => prop::sample::select(&KNOWN_EXCEPTIONS[..]).prop_map(String::from),
        1 => prop::sample::select(UNKNOWN_EXCEPTIONS).prop_map(String::from),
        1 => "\\PC{0,12}",
    ]
    .boxed()
}

fn exception_list() -> impl Strategy<Value = Vec<String>> {
    prop_oneof![
        3 => Just(Vec::new()),
        4 => prop::collection::vec(exception(), 1..4),
    ]
}

/// A rate the breaker accepts: above 0, at most 100 (percent).
fn valid_rate() -> BoxedStrategy<f32> {
    prop_oneof![
        4 => 0.001f32..=100.0,
        2 => prop::sample::select(vec![1.0f32, 50.0, 100.0, 99.99999, f32::MIN_POSITIVE]),
    ]
    .boxed()
}

/// Any `f32`, the refused ones often.
fn wild_rate() -> BoxedStrategy<f32> {
    prop_oneof![
        2 => valid_rate(),
        2 => prop::sample::select(vec![
            0.0f32,
            -0.0,
            -1.0,
            100.00001,
            1e30,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ]),
        1 => any::<f32>(),
    ]
    .boxed()
}

/// Durations of at least 1 ms: mostly small, with every extreme up to `u64::MAX`.
fn valid_millis() -> BoxedStrategy<Millis> {
    prop_oneof![
        4 => 1u64..5_000,
        2 => prop::sample::select(vec![1u64, 2, 999, 1_000, 60_000]),
        1 => prop::sample::select(vec![
            u64::MAX,
            u64::MAX - 1,
            i64::MAX as u64,
            i64::MAX as u64 + 1,
            1u64 << 53,
            1_000_000_000_000,
        ]),
        1 => 1..=u64::MAX,
    ]
    .boxed()
}

fn wild_millis() -> BoxedStrategy<Millis> {
    prop_oneof![4 => valid_millis(), 1 => Just(0u64)].boxed()
}

/// Window sizes and half-open trials: 1 to the engine's limit, mostly small.
fn valid_window(small: u32) -> impl Strategy<Value = u32> {
    prop_oneof![
        12 => 1..small,
        1 => Just(MAX_WINDOW_SIZE),
        1 => 1..=MAX_WINDOW_SIZE,
    ]
}

fn wild_count(small: u32) -> impl Strategy<Value = u32> {
    prop_oneof![
        4 => 1..small,
        1 => Just(0u32),
        1 => prop::sample::select(vec![MAX_WINDOW_SIZE, MAX_WINDOW_SIZE + 1, u32::MAX, 65_536]),
        1 => any::<u32>(),
    ]
}

/// Multipliers of an exponential wait: below 1 (the wait shrinks to 0 ms), 1, above 1 (it
/// saturates), and the extremes.
fn valid_multiplier() -> BoxedStrategy<f64> {
    prop_oneof![
        3 => 0.01f64..4.0,
        2 => prop::sample::select(vec![0.5f64, 0.999_999, 1.0, 1.000_001, 1.5, 2.0, 10.0]),
        1 => prop::sample::select(vec![1e-300, 1e10, 1e308, f64::MAX, f64::MIN_POSITIVE]),
    ]
    .boxed()
}

fn wild_multiplier() -> BoxedStrategy<f64> {
    prop_oneof![
        3 => valid_multiplier(),
        1 => prop::sample::select(vec![0.0f64, -0.0, -1.0, f64::NAN, f64::INFINITY]),
    ]
    .boxed()
}

fn state() -> impl Strategy<Value = State> {
    prop::sample::select(State::ALL.to_vec())
}

fn valid_exception_list() -> impl Strategy<Value = Vec<String>> {
    let name = prop::sample::select(&KNOWN_EXCEPTIONS[..]).prop_map(String::from);
    prop_oneof![3 => Just(Vec::new()), 2 => prop::collection::vec(name, 1..4)]
}

/// A config the breaker accepts, over the whole of every range.
fn valid_breaker_config() -> BoxedStrategy<CircuitBreakerConfig> {
    (
        (valid_rate(), valid_rate(), valid_millis()),
        (
            prop_oneof![
                Just(SlidingWindowType::CountBased),
                Just(SlidingWindowType::TimeBased)
            ],
            valid_window(20),
            prop_oneof![8 => 1u32..25, 1 => Just(u32::MAX), 1 => 1..=u32::MAX],
            valid_window(8),
        ),
        (
            valid_millis(),
            prop::option::weighted(
                0.4,
                (
                    valid_millis(),
                    valid_multiplier(),
                    prop::option::of(valid_millis()),
                ),
            ),
            any::<bool>(),
            prop_oneof![2 => Just(0u64), 1 => valid_millis()],
            prop_oneof![Just(State::Open), Just(State::Closed)],
        ),
        (valid_exception_list(), valid_exception_list()),
    )
        .prop_map(build_config)
        .boxed()
}

/// A config with any value in any field: most are refused, each for its own reason.
fn wild_breaker_config() -> BoxedStrategy<CircuitBreakerConfig> {
    (
        (wild_rate(), wild_rate(), wild_millis()),
        (
            prop_oneof![
                Just(SlidingWindowType::CountBased),
                Just(SlidingWindowType::TimeBased)
            ],
            wild_count(20),
            wild_count(25),
            wild_count(8),
        ),
        (
            wild_millis(),
            prop::option::weighted(
                0.4,
                (
                    wild_millis(),
                    wild_multiplier(),
                    prop::option::of(wild_millis()),
                ),
            ),
            any::<bool>(),
            prop_oneof![2 => Just(0u64), 1 => wild_millis()],
            prop_oneof![4 => Just(State::Open), 3 => Just(State::Closed), 1 => state()],
        ),
        (exception_list(), exception_list()),
    )
        .prop_map(build_config)
        .boxed()
}

/// A breaker that flaps as fast as it can: 1 ms (or shrinking to 0 ms) in OPEN, an automatic
/// transition, 1 ms at most in HALF_OPEN and back to OPEN, so a long advance meets the
/// engine's cap on timers per step.
fn flapping_breaker_config() -> BoxedStrategy<CircuitBreakerConfig> {
    (
        valid_breaker_config(),
        1u64..4,
        prop::option::of((1u64..4, prop::sample::select(vec![0.5f64, 0.9, 1.0, 1.1]))),
        1u64..4,
    )
        .prop_map(|(config, wait, function, max_wait)| CircuitBreakerConfig {
            wait_duration_in_open_state: wait,
            wait_interval_function_in_open_state: function.map(|(initial, multiplier)| {
                OpenWaitFunction::Exponential {
                    initial,
                    multiplier,
                    max: None,
                }
            }),
            automatic_transition_from_open_to_half_open_enabled: true,
            max_wait_duration_in_half_open_state: max_wait,
            transition_to_state_after_wait_duration: State::Open,
            ..config
        })
        .boxed()
}

type ConfigParts = (
    (f32, f32, Millis),
    (SlidingWindowType, u32, u32, u32),
    (
        Millis,
        Option<(Millis, f64, Option<Millis>)>,
        bool,
        Millis,
        State,
    ),
    (Vec<String>, Vec<String>),
);

fn build_config(
    (
        (failure, slow_rate, slow_duration),
        (window_type, size, min, permitted),
        (wait, function, automatic, max_wait, after_wait),
        (record, ignore),
    ): ConfigParts,
) -> CircuitBreakerConfig {
    CircuitBreakerConfig {
        failure_rate_threshold: failure,
        slow_call_rate_threshold: slow_rate,
        slow_call_duration_threshold: slow_duration,
        sliding_window_type: window_type,
        sliding_window_size: size,
        minimum_number_of_calls: min,
        permitted_number_of_calls_in_half_open_state: permitted,
        wait_duration_in_open_state: wait,
        wait_interval_function_in_open_state: function.map(|(initial, multiplier, max)| {
            OpenWaitFunction::Exponential {
                initial,
                multiplier,
                max,
            }
        }),
        automatic_transition_from_open_to_half_open_enabled: automatic,
        max_wait_duration_in_half_open_state: max_wait,
        transition_to_state_after_wait_duration: after_wait,
        record_exceptions: record,
        ignore_exceptions: ignore,
        // Fields added since (the simulation's own) keep their defaults.
        ..CircuitBreakerConfig::default()
    }
}

/// Mostly valid configs (a run gets past the refusal), some refused ones.
fn breaker_config() -> BoxedStrategy<CircuitBreakerConfig> {
    prop_oneof![4 => valid_breaker_config(), 1 => wild_breaker_config()].boxed()
}

fn advance() -> BoxedStrategy<Millis> {
    prop_oneof![
        6 => 0u64..50,
        4 => 0u64..5_000,
        2 => 0u64..200_000,
        1 => prop::sample::select(vec![
            u64::MAX,
            u64::MAX - 1,
            i64::MAX as u64,
            1_000_000_000_000,
            1_000_001,
        ]),
        1 => any::<u64>(),
    ]
    .boxed()
}

fn step() -> BoxedStrategy<BreakerStep> {
    prop_oneof![
        6 => Just(BreakerStep::Acquire {}),
        5 => prop_oneof![4 => 0u64..3_000, 1 => wild_millis()]
            .prop_map(|duration_ms| BreakerStep::Success { duration_ms }),
        5 => (prop_oneof![4 => 0u64..3_000, 1 => wild_millis()], exception())
            .prop_map(|(duration_ms, exception)| BreakerStep::Error { duration_ms, exception }),
        4 => advance().prop_map(BreakerStep::AdvanceMs),
        2 => state().prop_map(BreakerStep::Transition),
        1 => Just(BreakerStep::Release {}),
        1 => Just(BreakerStep::Reset {}),
    ]
    .boxed()
}

/// How often (in 100) a script is a flapping breaker driven into a long advance: each such
/// advance fires the engine's cap of 10^6 timers (up to a few hundred milliseconds in
/// debug).
const FLAPPING_PERCENT: u32 = 2;

fn breaker_script() -> BoxedStrategy<BreakerScript> {
    let steps = || prop::collection::vec(step(), 0..60);
    prop_oneof![
        (100 - FLAPPING_PERCENT) => (breaker_config(), steps())
            .prop_map(|(config, steps)| BreakerScript { config, steps }),
        FLAPPING_PERCENT => (flapping_breaker_config(), steps(), 0u64..10_000).prop_map(
            |(config, mut steps, to)| {
                // Opened by hand, then a long advance: OPEN and HALF_OPEN take turns until
                // the cap stops the clock.
                steps.splice(
                    0..0,
                    [
                        BreakerStep::Transition(State::Open),
                        BreakerStep::AdvanceMs(u64::MAX - to),
                    ],
                );
                BreakerScript { config, steps }
            }
        ),
    ]
    .boxed()
}

/// Whether every float of the config is finite (JSON has no NaN: serde_json writes null).
fn finite_floats(config: &CircuitBreakerConfig) -> bool {
    config.failure_rate_threshold.is_finite()
        && config.slow_call_rate_threshold.is_finite()
        && match config.wait_interval_function_in_open_state {
            Some(OpenWaitFunction::Exponential { multiplier, .. }) => multiplier.is_finite(),
            None => true,
        }
}

/// Checks that `back`, read from JSON that `written` was saved as, is `written`, exactly
/// (serde_json's `float_roundtrip`: a multiplier such as 3.2210288877848154 used to come
/// back one unit in the last place off).
fn same_after_json<T: PartialEq + Debug>(written: &T, back: &T) -> Result<(), TestCaseError> {
    prop_assert_eq!(written, back, "read back from JSON as another value");
    Ok(())
}

/// Runs `script` and checks what `run_breaker_script` promises about its reports.
fn check_script_run(script: &BreakerScript) -> Result<(), TestCaseError> {
    let verdict = run_breaker_script(script);
    let reports = match (verdict, script.config.validate()) {
        (Err(e), Err(expected)) => {
            prop_assert_eq!(&e, &expected, "the config's own validation refuses it");
            bounded("breaker config", &e.to_string())?;
            return Ok(());
        }
        (Err(e), Ok(())) => {
            // A valid config, and a step refused before the run (a thrown exception the
            // simulation cannot place in a class hierarchy).
            prop_assert!(
                e.field.starts_with("steps["),
                "a valid config was refused: {}",
                e
            );
            note("scripts refused by a step");
            return bounded("refused step", &e.to_string());
        }
        (Ok(_), Err(e)) => return Err(TestCaseError::fail(format!("an invalid config ran: {e}"))),
        (Ok(reports), Ok(())) => reports,
    };
    note("scripts run");
    prop_assert_eq!(reports.len(), script.steps.len(), "one report per step");
    let mut clock: Millis = 0;
    for (i, (step, report)) in script.steps.iter().zip(&reports).enumerate() {
        prop_assert_eq!(report.step, i);
        prop_assert!(report.t_ms >= clock, "the clock went back at step {i}");
        check_metrics(report)?;
        prop_assert_eq!(
            report.permitted.is_some(),
            matches!(step, BreakerStep::Acquire {}),
            "`permitted` only for an acquire (step {})",
            i
        );
        if let Some(error) = &report.error {
            bounded("a step's error", error)?;
        }
        match step {
            BreakerStep::AdvanceMs(ms) => {
                let target = clock.saturating_add(*ms);
                if report.t_ms != target {
                    // Only the cap on timers stops the clock short, and it says so.
                    note("capped advances");
                    prop_assert!(report.t_ms < target, "step {i} went past its target");
                    let error = report.error.as_deref().unwrap_or_default();
                    prop_assert!(
                        error.contains(&MAX_TIMERS_PER_SCRIPT.to_string())
                            && error.contains(&format!("stopped at {} ms", report.t_ms)),
                        "step {i} stopped at {} ms with {:?}",
                        report.t_ms,
                        report.error
                    );
                }
            }
            _ => {
                if report.error.is_some() {
                    note("steps refused or thrown");
                }
                prop_assert_eq!(report.t_ms, clock, "only an advance moves the clock");
            }
        }
        clock = report.t_ms;
    }
    // The CLI prints the reports as JSON: they must serialize.
    prop_assert!(serde_json::to_string(&reports).is_ok());
    Ok(())
}

fn check_metrics(report: &StepReport) -> Result<(), TestCaseError> {
    for rate in [report.failure_rate, report.slow_call_rate] {
        prop_assert!(
            rate == -1.0 || (0.0..=100.0).contains(&rate),
            "a rate of {rate} in {report:?}"
        );
    }
    prop_assert!(report.failed <= report.buffered, "{report:?}");
    prop_assert!(report.slow <= report.buffered, "{report:?}");
    Ok(())
}

#[test]
fn breaker_scripts() {
    fuzz("breaker_scripts", breaker_script(), |script| {
        check_script_run(&script)?;
        // A script the engine can write as JSON reads back as itself.
        if finite_floats(&script.config) {
            let json = serde_json::to_string(&script).unwrap();
            match parse_breaker_script(&json) {
                Ok(back) => same_after_json(&script, &back)?,
                Err(e) => return Err(TestCaseError::fail(format!("{e}\n{json}"))),
            }
        }
        Ok(())
    });
}

#[test]
fn breaker_script_json() {
    let strategy = (breaker_script(), tree_edits(), byte_edits(), any::<bool>());
    fuzz(
        "breaker_script_json",
        strategy,
        |(script, tree_edits, edits, pretty)| {
            let mut tree = serde_json::to_value(&script).unwrap();
            mutate_tree(&mut tree, &tree_edits);
            let json = if pretty {
                serde_json::to_string_pretty(&tree).unwrap()
            } else {
                serde_json::to_string(&tree).unwrap()
            };
            let text = mutate(&json, &edits);
            match parse_breaker_script(&text) {
                Err(e) => {
                    one_line("parse_breaker_script", &e)?;
                    prop_assert!(e.starts_with("invalid breaker script: "), "{e}");
                }
                Ok(parsed) => {
                    note("mutated scripts still parsing");
                    check_script_run(&parsed)?
                }
            }
            Ok(())
        },
    );
}

// ---------------------------------------------------------------------------------------
// Scenario files
// ---------------------------------------------------------------------------------------

fn formats() -> [Format; 2] {
    [Format::Json, Format::Toml]
}

/// Runs a valid scenario for `ticks` ticks and checks the trace; also that it saves and
/// parses back as itself in both formats.
fn check_valid_scenario(scenario: &Scenario, ticks: u32) -> Result<(), TestCaseError> {
    let trace = scenario
        .run(Some(ticks))
        .map_err(|e| TestCaseError::fail(format!("a valid scenario did not run: {e}")))?;
    prop_assert_eq!(trace.ticks.len(), ticks as usize);
    for (i, record) in trace.ticks.iter().enumerate() {
        prop_assert_eq!(record.t as usize, i + 1);
        let threads = record.threads.recommendations + record.threads.payment;
        prop_assert!(
            threads <= scenario.tick.world.threads,
            "{threads} threads held of {}",
            scenario.tick.world.threads
        );
    }
    prop_assert!(serde_json::to_string(&trace).is_ok());
    for format in formats() {
        match scenario.save(format) {
            Ok(text) => match Scenario::parse(&text, format) {
                Ok(back) if format == Format::Json => same_after_json(scenario, &back)?,
                Ok(back) => prop_assert_eq!(&back, scenario, "{:?}", format),
                Err(e) => {
                    return Err(TestCaseError::fail(format!(
                        "{format:?}: a saved scenario does not parse back: {e}\n{text}"
                    )))
                }
            },
            // TOML has no integer above i64::MAX: such a seed cannot be written as TOML.
            Err(e) => prop_assert!(
                format == Format::Toml && scenario.seed > i64::MAX as u64,
                "{:?}: a valid scenario cannot be saved: {}",
                format,
                e
            ),
        }
    }
    Ok(())
}

#[test]
fn scenario_text() {
    let source = prop_oneof![
        3 => (0..DEMOS.len()).prop_map(|i| DEMOS[i].scenario()),
        1 => scenario_of(true),
    ];
    let strategy = (
        source,
        tree_edits(),
        byte_edits(),
        any::<bool>(),
        1u32..=300,
    );
    fuzz(
        "scenario_text",
        strategy,
        |(scenario, tree_edits, edits, json, ticks)| {
            let mut tree = serde_json::to_value(&scenario).unwrap();
            mutate_tree(&mut tree, &tree_edits);
            // TOML has no null, nor integers past i64::MAX: such a tree is written as JSON.
            let written = match json {
                false => toml::to_string(&tree).ok(),
                true => None,
            };
            let text = written.unwrap_or_else(|| serde_json::to_string_pretty(&tree).unwrap());
            let text = mutate(&text, &edits);
            for format in formats() {
                match Scenario::parse(&text, format) {
                    Err(e) => one_line("Scenario::parse", &e)?,
                    Ok(parsed) => {
                        note("mutated scenarios still valid");
                        check_valid_scenario(&parsed, ticks)?
                    }
                }
            }
            Ok(())
        },
    );
}

/// The tick model's world: within its limits (`valid`), or anything.
fn world(valid: bool) -> BoxedStrategy<TickWorld> {
    let parts = if valid {
        (
            (1..=MAX_THREADS).boxed(),
            (0..=MAX_ARRIVALS_PER_TICK).boxed(),
            (0..=MAX_ARRIVALS_PER_TICK).boxed(),
            (1..=MAX_TIMEOUT_TICKS).boxed(),
        )
    } else {
        let arrivals = || {
            prop_oneof![
                4 => 0..=MAX_ARRIVALS_PER_TICK,
                1 => Just(MAX_ARRIVALS_PER_TICK + 1),
                1 => any::<u32>()
            ]
            .boxed()
        };
        (
            prop_oneof![4 => 1..=MAX_THREADS, 1 => Just(0u32), 1 => Just(MAX_THREADS + 1), 1 => any::<u32>()].boxed(),
            arrivals(),
            arrivals(),
            prop_oneof![4 => 1..=MAX_TIMEOUT_TICKS, 1 => Just(0u32), 1 => Just(MAX_TIMEOUT_TICKS + 1)].boxed(),
        )
    };
    parts
        .prop_map(|(threads, r, p, timeout_ticks)| TickWorld {
            threads,
            recommendations_per_tick: r,
            payment_per_tick: p,
            timeout_ticks,
        })
        .boxed()
}

fn behaviour(valid: bool) -> BoxedStrategy<Behaviour> {
    let flaky = if valid {
        (0u32..=100).boxed()
    } else {
        prop_oneof![2 => 0u32..=100, 1 => Just(101u32), 1 => any::<u32>()].boxed()
    };
    prop_oneof![
        Just(Behaviour::Healthy),
        Just(Behaviour::Slow),
        Just(Behaviour::Failing),
        prop_oneof![0u32..20, Just(MAX_TICKS), Just(u32::MAX), any::<u32>()]
            .prop_map(|healthy_from| Behaviour::Recovering { healthy_from }),
        flaky.prop_map(|failure_percent| Behaviour::Flaky { failure_percent }),
    ]
    .boxed()
}

fn protection() -> impl Strategy<Value = Protection> {
    prop::sample::select(Protection::ALL.to_vec())
}

/// A scenario: valid in every part (`valid`), or with anything anywhere.
fn scenario_of(valid: bool) -> BoxedStrategy<Scenario> {
    let bulkhead = if valid {
        (
            prop_oneof![6 => 0u32..8, 1 => Just(i32::MAX as u32)].boxed(),
            Just(0u64).boxed(),
        )
    } else {
        (
            prop_oneof![6 => 0u32..8, 1 => Just(i32::MAX as u32), 1 => any::<u32>()].boxed(),
            prop_oneof![2 => Just(0u64), 1 => wild_millis()].boxed(),
        )
    }
    .prop_map(|(max_concurrent_calls, max_wait_duration)| BulkheadConfig {
        max_concurrent_calls,
        max_wait_duration,
    });
    let at = if valid {
        prop_oneof![8 => 1u32..40, 1 => 1..=u32::MAX].boxed()
    } else {
        prop_oneof![8 => 1u32..40, 1 => Just(0u32), 1 => any::<u32>()].boxed()
    };
    let change = (
        at,
        prop::option::of(behaviour(valid)),
        prop::option::of(protection()),
    )
        .prop_filter_map(
            "a valid change changes something",
            move |(at, behaviour, protection)| {
                let empty = behaviour.is_none() && protection.is_none();
                (!(valid && empty)).then_some(ScriptedChange {
                    at,
                    behaviour,
                    protection,
                })
            },
        );
    let ticks = if valid {
        prop_oneof![8 => 1u32..400, 1 => Just(MAX_TICKS)].boxed()
    } else {
        prop_oneof![8 => 1u32..400, 1 => Just(0u32), 1 => Just(MAX_TICKS + 1), 1 => any::<u32>()]
            .boxed()
    };
    let breaker = if valid {
        valid_breaker_config().boxed()
    } else {
        wild_breaker_config().boxed()
    };
    (
        ("\\PC{0,20}", "\\PC{0,30}"),
        ticks,
        prop_oneof![Just(0u64), any::<u64>()],
        (
            world(valid),
            behaviour(valid),
            protection(),
            breaker,
            bulkhead,
        ),
        prop::collection::vec(change, 0..6),
    )
        .prop_map(
            |(
                (name, description),
                ticks,
                seed,
                (world, behaviour, protection, breaker, bulkhead),
                script,
            )| {
                Scenario {
                    name,
                    description,
                    model: ModelKind::Tick,
                    ticks,
                    seed,
                    tick: TickConfig {
                        world,
                        behaviour,
                        protection,
                        circuit_breaker: breaker,
                        bulkhead,
                    },
                    script,
                }
            },
        )
        .boxed()
}

/// Mostly valid scenarios (they run), some with anything anywhere (refused).
fn scenario() -> impl Strategy<Value = Scenario> {
    prop_oneof![3 => scenario_of(true), 1 => scenario_of(false)]
}

#[test]
fn scenario_structured() {
    fuzz(
        "scenario_structured",
        (scenario(), 1u32..=300),
        |(scenario, ticks)| {
            match scenario.validate() {
                Err(e) => {
                    bounded("Scenario::validate", &e.to_string())?;
                    prop_assert!(scenario.run(Some(ticks)).is_err());
                    // Written out and read back: refused, or read as a valid scenario (the
                    // file form is canonical: with an exponential wait it has no
                    // waitDurationInOpenState, so a 0 ms one in memory is not written).
                    if finite_floats(&scenario.tick.circuit_breaker) {
                        let json = scenario.save(Format::Json).unwrap();
                        match Scenario::parse(&json, Format::Json) {
                            Err(e) => one_line("Scenario::parse", &e)?,
                            Ok(back) => {
                                note("invalid scenarios written in a valid form");
                                prop_assert!(back.validate().is_ok());
                            }
                        }
                    }
                }
                Ok(()) => {
                    note("valid scenarios");
                    for bad in [0, MAX_TICKS + 1] {
                        let refused = scenario.run(Some(bad)).map(|_| ()).unwrap_err();
                        bounded("Scenario::run", &refused.to_string())?;
                    }
                    check_valid_scenario(&scenario, ticks)?;
                }
            }
            Ok(())
        },
    );
}

// ---------------------------------------------------------------------------------------
// Lab links: (name, value) pairs for every lab
// ---------------------------------------------------------------------------------------

/// A control's name, or something near it, or nothing like it.
#[derive(Debug, Clone)]
enum Name {
    /// The control at this index of the lab's table.
    Control(Index),
    /// A control's name with one byte replaced, removed or its case changed.
    NearMiss(Index, Index, u8),
    Text(String),
    /// 10 KB: camelCase (which a link passes on as ours) or not.
    Long(bool),
}

/// A value for whatever control it lands on.
#[derive(Debug, Clone)]
enum Value {
    Min,
    Max,
    /// A point of the range, on the control's grid.
    OnGrid(f64),
    /// A point of the range, between two steps.
    OffGrid(f64),
    /// This many steps below the minimum, or above the maximum.
    Below(u16),
    Above(u16),
    /// An option by index, as written or in another case, padded.
    Option(Index, u8),
    Fixed(&'static str),
    Text(String),
    /// 10 KB of one pattern.
    Long(Index),
}

const FIXED_VALUES: &[&str] = &[
    "",
    " ",
    "0",
    "-0",
    "-1",
    "1",
    "true",
    "false",
    "on",
    "off",
    "yes",
    "no",
    "TRUE",
    "1.0",
    "1e2",
    "1e308",
    "-1e308",
    "1e309",
    "1e-320",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999",
    "0.1",
    ".5",
    "5.",
    "+5",
    "--5",
    "1..2",
    "1e",
    "e5",
    "0x10",
    "1_000",
    "1,000",
    "５",
    "٣",
    "5s",
    "500ms",
    "2m",
    "1h",
    "1d",
    "99999999999d",
    "213503982335d",
    "5 s",
    "5S",
    " 5s ",
    "5sec",
    "-5s",
    "1\n2",
    "\t7\t",
    "7\u{0}",
    "7%",
    "none",
    "full",
    "COUNT_BASED",
    "time_based",
    "OPEN",
    "CLOSED",
    "semaphore",
    "😀",
];

const LONG_VALUES: &[&str] = &["9", "a", "é", "1.", "-", " ", "\n"];

fn name() -> impl Strategy<Value = Name> {
    prop_oneof![
        12 => any::<Index>().prop_map(Name::Control),
        3 => (any::<Index>(), any::<Index>(), 0u8..4).prop_map(|(c, at, op)| Name::NearMiss(c, at, op)),
        1 => "\\PC{0,16}".prop_map(Name::Text),
        1 => any::<bool>().prop_map(Name::Long),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        2 => Just(Value::Min),
        2 => Just(Value::Max),
        4 => (0.0f64..=1.0).prop_map(Value::OnGrid),
        1 => (0.0f64..=1.0).prop_map(Value::OffGrid),
        1 => (1u16..1000).prop_map(Value::Below),
        1 => (1u16..1000).prop_map(Value::Above),
        3 => (any::<Index>(), 0u8..4).prop_map(|(i, how)| Value::Option(i, how)),
        4 => prop::sample::select(FIXED_VALUES).prop_map(Value::Fixed),
        1 => "\\PC{0,24}".prop_map(Value::Text),
        1 => any::<Index>().prop_map(Value::Long),
    ]
}

fn name_text<L: LabModel>(name: &Name) -> String {
    let controls = L::controls();
    match name {
        Name::Control(i) => controls[i.index(controls.len())].name.to_string(),
        Name::NearMiss(c, at, op) => {
            let mut bytes = controls[c.index(controls.len())].name.as_bytes().to_vec();
            let at = at.index(bytes.len());
            match op {
                0 => bytes[at] = b'x',
                1 => {
                    bytes.remove(at);
                }
                2 => bytes.make_ascii_lowercase(),
                _ => bytes.insert(at, b'_'),
            }
            String::from_utf8(bytes).unwrap()
        }
        Name::Text(text) => text.clone(),
        Name::Long(true) => "aB".repeat(5_000),
        Name::Long(false) => "a_".repeat(5_000),
    }
}

fn value_text(kind: ControlKind, value: &Value) -> String {
    let (min, max, step) = match kind {
        ControlKind::Number { min, max, step, .. } => (min, max, step),
        ControlKind::Whole { min, max } => (min as f64, max as f64, 1.0),
        _ => (0.0, 1.0, 1.0),
    };
    let grid = |f: f64| min + ((max - min) / step * f).round() * step;
    let options: Vec<&str> = match kind {
        ControlKind::Choice { options } => options.iter().map(|o| o.0).collect(),
        ControlKind::Toggle => vec!["true", "false"],
        _ => vec!["1"],
    };
    match value {
        Value::Min => number_text(min),
        Value::Max => number_text(max),
        Value::OnGrid(f) => number_text(grid(*f)),
        Value::OffGrid(f) => number_text(grid(*f) + step * 0.37),
        Value::Below(k) => number_text(min - step * f64::from(*k)),
        Value::Above(k) => number_text(max + step * f64::from(*k)),
        Value::Option(i, how) => {
            let option = options[i.index(options.len())];
            match how {
                0 => option.to_string(),
                1 => option.to_ascii_uppercase(),
                2 => format!("  {option}\t"),
                _ => format!("{option}x"),
            }
        }
        Value::Fixed(text) => text.to_string(),
        Value::Text(text) => text.clone(),
        Value::Long(i) => LONG_VALUES[i.index(LONG_VALUES.len())]
            .repeat(10_000 / LONG_VALUES[i.index(LONG_VALUES.len())].len()),
    }
}

/// A refusal from a lab's link: the message one line of bounded length; the field a
/// control's name (or, for a name that is no control, at most an excerpt of it).
fn check_lab_problem<L: LabModel>(e: &ConfigError) -> Result<(), TestCaseError> {
    bounded(L::NAME, &e.message)?;
    one_line(L::NAME, &e.field)?;
    prop_assert!(
        e.field.chars().count() <= 2 * EXCERPT_CHARS,
        "{}: a problem names a field of {} characters: {}...",
        L::NAME,
        e.field.chars().count(),
        e.field.chars().take(60).collect::<String>()
    );
    Ok(())
}

/// The session a link opens, without running its model (`LabSession::from_pairs` minus
/// the run): most inputs check the reading only; now and then the real thing runs.
fn open_without_run<L: LabModel>(pairs: &[(String, String)]) -> (LabSession<L>, Vec<ConfigError>) {
    let (config, problems) =
        LabSession::<L>::read_pairs(pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())));
    (LabSession::deferred(config), problems)
}

fn lab_links<L: LabModel>() {
    // The spec's config, run once; every input starts from a clone of it.
    let base = LabSession::<L>::default();
    assert_runs(&base);
    let inputs = Cell::new(0u64);
    let ran = RefCell::new(0u64);
    fuzz(
        &format!("lab_links_{}", L::NAME),
        prop::collection::vec((name(), value()), 0..10),
        |recipe| {
            let pairs: Vec<(String, String)> = recipe
                .iter()
                .map(|(name, value)| {
                    let name = name_text::<L>(name);
                    let kind =
                        LabSession::<L>::control(&name).map_or(ControlKind::Toggle, |c| c.kind);
                    (name, value_text(kind, value))
                })
                .collect();
            let (session, problems) = open_without_run::<L>(&pairs);
            if session.config() != base.config() {
                note("links changing the config");
            }
            if !problems.is_empty() {
                note("links with a problem");
            }
            for e in &problems {
                check_lab_problem::<L>(e)?;
            }
            prop_assert!(
                session.config().validate().is_ok(),
                "the config left invalid by {pairs:?}"
            );
            // Its link reads back as the same config, without a word.
            let link = session.to_pairs();
            let link: Vec<(String, String)> =
                link.into_iter().map(|(n, v)| (n.to_string(), v)).collect();
            let (back, problems_back) = open_without_run::<L>(&link);
            prop_assert!(problems_back.is_empty(), "{link:?}: {problems_back:?}");
            prop_assert!(
                back.config() == session.config(),
                "{link:?} reads back as another config"
            );
            // Now and then, the real thing: the session opened from the link runs its model.
            let n = inputs.get();
            inputs.set(n + 1);
            if n.is_multiple_of(LAB_RUN_EVERY) {
                *ran.borrow_mut() += 1;
                let (opened, real_problems) = LabSession::<L>::from_pairs(
                    pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())),
                );
                prop_assert_eq!(&real_problems, &problems);
                prop_assert!(opened.config() == session.config());
                if let Err(e) = opened.run() {
                    return Err(TestCaseError::fail(format!(
                        "{}: the session opened from {pairs:?} did not run: {e}",
                        L::NAME
                    )));
                }
            }
            Ok(())
        },
    );
    println!("fuzz lab_links_{}: {} model runs", L::NAME, ran.borrow());
}

fn assert_runs<L: LabModel>(session: &LabSession<L>) {
    assert!(
        session.run().is_ok(),
        "{}: the default config runs",
        L::NAME
    );
}

#[test]
fn lab_links_amplification() {
    lab_links::<AmplificationLab>();
}

#[test]
fn lab_links_jitter() {
    lab_links::<JitterLab>();
}

#[test]
fn lab_links_sandbox() {
    lab_links::<SandboxSettings>();
}

#[test]
fn lab_links_pool() {
    lab_links::<PoolLab>();
}

#[test]
fn lab_links_brownout() {
    lab_links::<BrownoutLab>();
}

#[test]
fn lab_links_checkout() {
    lab_links::<CheckoutLab>();
}
