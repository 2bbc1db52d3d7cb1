//! Demo 12: the 09:00 pricing brownout (Lab C of ../shared/spec/03-incident-labs.md). The
//! engine runs the incident ([`BrownoutLab`]); this module turns its run into four chart
//! specs, the sentences under them, and plain data for the typed views: the prediction's
//! answer ([`verdict`], [`evidence`]), what users saw next to what the system did in the
//! second the scrubber shows ([`second`]), and the fix ladder ([`Headline`] per step) as a
//! stepper and a table ([`ladder_shown`]).
//!
//! The fix ladder costs five runs. It depends on every control but `fixes`, so the stepper
//! never recomputes it; a change to another control recomputes it a moment after the last
//! change, one step per task so the page keeps answering, while the previous table is
//! shown dimmed. Every button, radio and the scrubber is a typed element whose handler
//! sends the change to the session; no handler reads the page back.

use std::time::Duration;

use leptos::prelude::*;
use resilience_sim::model::brownout::{
    mechanism_effects, BrownoutConfig, BrownoutRun, BrownoutSecond, BrownoutSim, Headline,
    Mechanism, Users, FIXES,
};
use resilience_sim::policy::circuit_breaker::State;
use resilience_sim::scenario::brownout_lab::BrownoutLab;
use resilience_sim::scenario::catalogue::LabInfo;
use resilience_sim::scenario::lab_session::{ControlKind, ControlValue, LabSession};

use super::lab_frame::{lab_state, tools, LabFrame};
use super::pool::secs;
use crate::components::{bind_all, message, Figure, LabState};
use crate::format::{fixed, rate};
use crate::nav::Location;
use crate::tasks::{in_next_task, Step, Stepped};
use crate::views::chart::{ChartSpec, Series, Stroke, Tone};
use crate::views::html::{aria_bool, change, click, effect, live, live_attr, live_flag};
use crate::views::page_tools::NoImport;

/// The second the panel shows when the page opens: the breaker of fix 1 is open by then.
const FIRST_SECOND_SHOWN: i32 = 15;

// ---------------------------------------------------------------------------------------
// Numbers as the page writes them
// ---------------------------------------------------------------------------------------

/// `part` of `whole` in percent, one decimal at most, rounded down (0 of 0 is 0).
fn share(part: u32, whole: u32) -> String {
    if whole == 0 {
        return "0".to_string();
    }
    rate((100.0 * f64::from(part) / f64::from(whole)) as f32)
}

/// One decimal: "4.0", "2.2".
fn one(v: f64) -> String {
    fixed(v, true)
}

/// A whole number with thousands separated: 1,000.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Seconds after 09:00 with one decimal ("9.1"; "−0.5" before 09:00).
fn after_nine(s: f64) -> String {
    if s < 0.0 {
        format!("\u{2212}{}", one(-s))
    } else {
        one(s)
    }
}

/// The wall clock `t_s` seconds after 09:00: "09:00:15", "08:59:51".
fn clock(t_s: i32) -> String {
    let t = (9 * 3_600 + t_s).max(0);
    format!("{:02}:{:02}:{:02}", t / 3_600, t / 60 % 60, t % 60)
}

/// Attempts per first attempt (per submission that reached the pricing call).
fn per_submission(s: &BrownoutSecond) -> Option<f64> {
    let first = s.attempts.saturating_sub(s.retries);
    (first > 0).then(|| f64::from(s.attempts) / f64::from(first))
}

fn rate_text(r: Option<f32>) -> String {
    r.map_or_else(|| "not measured".to_string(), |r| format!("{} %", rate(r)))
}

/// The fix ladder's step as a button says it: "as configured", "+1 300 ms timeout".
pub fn step_label(config: &BrownoutConfig, step: usize) -> String {
    match step {
        0 => FIXES[0].to_string(),
        1 => format!("+1 {} ms timeout", config.timeout_ms),
        _ => {
            let label = FIXES.get(step).copied().unwrap_or("");
            format!("+{step} {}", label.trim_start_matches("+ "))
        }
    }
}

// ---------------------------------------------------------------------------------------
// Charts and their sentences
// ---------------------------------------------------------------------------------------

/// The timeline's x range: from the start of the first second shown to the end of the
/// last (seconds after 09:00).
fn x_range(run: &BrownoutRun) -> (f64, f64) {
    let first = run.seconds.first().map_or(0, |s| s.t_s - 1);
    let last = run.seconds.last().map_or(1, |s| s.t_s).max(first + 1);
    (f64::from(first), f64::from(last))
}

fn brownout_shade(run: &BrownoutRun) -> Option<(f64, f64, &'static str)> {
    let (_, end) = x_range(run);
    (end > 0.0).then_some((0.0, end.min(f64::from(run.fault_seconds)), "pricing slow"))
}

fn line(
    run: &BrownoutRun,
    label: &str,
    tone: Tone,
    stroke: Stroke,
    value: impl Fn(&BrownoutSecond) -> f64,
) -> Series {
    Series {
        label: label.to_string(),
        tone,
        stroke,
        mark: None,
        // A row is the second that ends at `t_s`.
        points: run
            .seconds
            .iter()
            .map(|s| (f64::from(s.t_s), value(s)))
            .collect(),
    }
}

fn top_of(series: &[Series], floor: f64) -> f64 {
    let high = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|v| v.is_finite())
        .fold(floor, f64::max);
    (high * 1.1).max(1.0)
}

fn spec(
    run: &BrownoutRun,
    y_label: &'static str,
    series: Vec<Series>,
    floor: f64,
    shade: Option<(f64, f64, &'static str)>,
    reference: Option<(f64, &'static str)>,
) -> ChartSpec {
    let (x_min, x_max) = x_range(run);
    ChartSpec {
        x_label: "seconds after 09:00",
        y_label,
        x_min,
        x_max,
        y_max: top_of(&series, floor),
        series,
        shade,
        reference,
    }
}

/// Users per second, by how their submission ended (counted by the second it arrived).
pub fn users_chart(_: &BrownoutConfig, run: &BrownoutRun) -> ChartSpec {
    let series = vec![
        line(run, "live price", Tone::Green, Stroke::Wide, |s| {
            s.users.live.into()
        }),
        line(run, "cached price", Tone::Blue, Stroke::Solid, |s| {
            s.users.cached.into()
        }),
        line(run, "error", Tone::Red, Stroke::Solid, |s| {
            s.users.error.into()
        }),
        line(run, "gave up", Tone::Grey, Stroke::Dashed, |s| {
            s.users.gave_up.into()
        }),
    ];
    spec(run, "submissions", series, 10.0, brownout_shade(run), None)
}

/// Order's request threads in use against its pool, the bulkhead's calls (running and
/// queued) and the threads asleep between two attempts.
pub fn threads_chart(_: &BrownoutConfig, run: &BrownoutRun) -> ChartSpec {
    let series = vec![
        line(run, "order threads in use", Tone::Blue, Stroke::Wide, |s| {
            s.order_threads.into()
        }),
        line(
            run,
            "bulkhead: running + queued",
            Tone::Orange,
            Stroke::Solid,
            |s| f64::from(s.pricing_in_flight) + f64::from(s.queued),
        ),
        line(
            run,
            "threads asleep between attempts",
            Tone::Purple,
            Stroke::Dashed,
            |s| s.order_threads_in_retry_wait.into(),
        ),
    ];
    let pool = f64::from(run.order_threads);
    spec(
        run,
        "threads",
        series,
        pool,
        brownout_shade(run),
        Some((pool, "order's thread pool")),
    )
}

/// The load offered to the stack, attempt by attempt, and what reached pricing.
pub fn attempts_chart(_: &BrownoutConfig, run: &BrownoutRun) -> ChartSpec {
    let series = vec![
        line(run, "first attempts", Tone::Grey, Stroke::Wide, |s| {
            s.attempts.saturating_sub(s.retries).into()
        }),
        line(run, "retries", Tone::Red, Stroke::Solid, |s| {
            s.retries.into()
        }),
        line(
            run,
            "refused by the open breaker",
            Tone::Purple,
            Stroke::Dashed,
            |s| s.not_permitted.into(),
        ),
        line(run, "sent to pricing", Tone::Green, Stroke::Solid, |s| {
            s.admitted.into()
        }),
    ];
    spec(
        run,
        "attempts a second",
        series,
        10.0,
        brownout_shade(run),
        None,
    )
}

/// The first span of seconds in which the breaker is not CLOSED: from the instant it
/// opened to the end of the last second of the span.
pub fn open_span(run: &BrownoutRun) -> Option<(f64, f64)> {
    let first = run
        .seconds
        .iter()
        .position(|s| s.breaker != State::Closed)?;
    let start_row = &run.seconds[first];
    let last = run.seconds[first..]
        .iter()
        .take_while(|s| s.breaker != State::Closed)
        .last()
        .map_or(start_row.t_s, |s| s.t_s);
    let row_start = f64::from(start_row.t_s - 1);
    let start = run
        .breaker_first_open_s
        .filter(|&at| at >= row_start && at <= f64::from(start_row.t_s))
        .unwrap_or(row_start);
    Some((start, f64::from(last)))
}

/// The breaker's failure and slow-call rates against its threshold; the seconds it is open
/// are shaded (or the brownout, if it never opens). A rate the breaker does not measure
/// (too few calls, or open) is a gap in its line.
pub fn breaker_chart(config: &BrownoutConfig, run: &BrownoutRun) -> ChartSpec {
    let gap = |r: Option<f32>| r.map_or(f64::NAN, f64::from);
    let series = vec![
        line(run, "failure rate", Tone::Red, Stroke::Solid, |s| {
            gap(s.failure_rate)
        }),
        line(run, "slow-call rate", Tone::Orange, Stroke::Dashed, |s| {
            gap(s.slow_call_rate)
        }),
    ];
    let shade = match open_span(run) {
        Some((from, to)) => Some((from, to, "breaker open")),
        None => brownout_shade(run),
    };
    let mut chart = spec(
        run,
        "% of the window's calls",
        series,
        100.0,
        shade,
        Some((
            config.failure_rate_threshold.into(),
            "failure-rate threshold",
        )),
    );
    chart.y_max = 105.0;
    chart
}

fn before(run: &BrownoutRun) -> impl Iterator<Item = &BrownoutSecond> {
    run.seconds.iter().filter(|s| s.t_s <= 0)
}

fn sum_users<'a>(rows: impl Iterator<Item = &'a BrownoutSecond>) -> Users {
    rows.fold(Users::default(), |mut u, s| {
        u.live += s.users.live;
        u.cached += s.users.cached;
        u.error += s.users.error;
        u.gave_up += s.users.gave_up;
        u
    })
}

/// "0 % a live price, 17.3 % a cached price, 82.7 % an error, 0 % gave up".
fn users_line(u: &Users) -> String {
    let total = u.total();
    format!(
        "{} % a live price, {} % a cached price, {} % an error, {} % gave up",
        share(u.live, total),
        share(u.cached, total),
        share(u.error, total),
        share(u.gave_up, total)
    )
}

/// The sentence under the users' chart.
pub fn users_summary(config: &BrownoutConfig, run: &BrownoutRun) -> String {
    let mut s = String::new();
    let early = sum_users(before(run));
    if early.total() > 0 {
        s.push_str(&format!(
            "Before 09:00, {} % of submissions get a live price. ",
            share(early.live, early.total())
        ));
    }
    let after: Vec<&BrownoutSecond> = run.during_fault().collect();
    let users = sum_users(after.iter().copied());
    if users.total() == 0 {
        s.push_str("No submission arrives after 09:00.");
        return s;
    }
    s.push_str(&format!(
        "While pricing is slow ({} to {}): {}.",
        clock(0),
        clock(after.last().map_or(0, |r| r.t_s)),
        users_line(&users)
    ));
    // The first second from which nobody gets a price, to the fault's end.
    let answered = |r: &&BrownoutSecond| r.users.answered() > 0;
    match after.iter().rposition(answered) {
        None => s.push_str(" Nobody gets a price while pricing is slow."),
        Some(i) if i + 1 < after.len() => s.push_str(&format!(
            " From {} s on, nobody gets a price: {} % of the submissions after that get an error.",
            after[i + 1].t_s,
            share(
                after[i + 1..].iter().map(|r| r.users.error).sum(),
                after[i + 1..].iter().map(|r| r.users.total()).sum()
            )
        )),
        Some(_) => {}
    }
    s.push(' ');
    s.push_str(&recovery_sentence(config, run));
    s
}

/// What happens once pricing's fault is over: when users get live prices again, and
/// what kept them waiting.
pub fn recovery_sentence(config: &BrownoutConfig, run: &BrownoutRun) -> String {
    let end = run.seconds.last().map_or(0, |r| r.t_s);
    let fault = run.fault_seconds as i32;
    if end <= fault {
        return format!("The run ends before pricing's fault does (at {} s).", fault);
    }
    let open_at_end = run
        .seconds
        .iter()
        .find(|r| r.t_s == fault)
        .is_some_and(|r| r.breaker != State::Closed);
    let mut s = format!("Pricing answers at its normal speed from {}", clock(fault));
    match run.users_recovered_s() {
        Some(at) if open_at_end => s.push_str(&format!(
            ", but the breaker is still open then and lets calls through only after its wait: users get live prices again from {at} s."
        )),
        Some(at) => s.push_str(&format!(
            ": users get live prices again from {at} s."
        )),
        None if open_at_end => s.push_str(
            ", but the breaker is still open then: to the end of the run users do not get live prices back.",
        ),
        None => s.push_str(": to the end of the run users do not get live prices back."),
    }
    // A backlog that never drains: the bulkhead serves no more than arrives.
    if let Some(last) = run.seconds.last().filter(|r| {
        run.users_recovered_s().is_none() && r.queued > 0 && 2 * r.queued >= run.queue_capacity
    }) {
        let served = u64::from(run.bulkhead_threads) * 1_000 / config.pricing_ms.max(1);
        s.push_str(&format!(
            " {} calls are still queued in the bulkhead at the end: its {} threads at {} ms a call serve about {served} calls a second, no more than the {} that arrive, so the backlog of the fault never drains and every user waits behind it.",
            last.queued, run.bulkhead_threads, config.pricing_ms, config.submissions_per_second
        ));
    }
    s
}

/// Whether order ran out of request threads in a second (all busy, requests waiting).
fn ran_out(run: &BrownoutRun, s: &BrownoutSecond) -> bool {
    s.order_threads >= run.order_threads && s.accept_queue > 0
}

/// The sentence under the threads' chart.
pub fn threads_summary(_: &BrownoutConfig, run: &BrownoutRun) -> String {
    let pool = run.order_threads;
    let mut s = String::new();
    if let Some(peak) = before(run).map(|r| r.order_threads).max() {
        s.push_str(&format!(
            "Before 09:00 order uses at most {peak} of its {pool} threads. "
        ));
    }
    let after: Vec<&BrownoutSecond> = run.during_fault().collect();
    if after.is_empty() {
        return s;
    }
    let headline = run.headline();
    let peak = after.iter().map(|r| r.order_threads).max().unwrap_or(0);
    let wasted = after.iter().map(|r| r.pricing_wasted).max().unwrap_or(0);
    let held = after
        .iter()
        .map(|r| r.pricing_in_flight + r.queued)
        .max()
        .unwrap_or(0);
    match after.iter().find(|r| ran_out(run, r)) {
        Some(first) => s.push_str(&format!(
            "From {} s all {pool} are taken and requests wait for one: the bulkhead holds up to {held} calls, and every one of them keeps an order thread waiting. Order history, which never calls pricing, is served for {} % of its requests.",
            first.t_s,
            rate(headline.history_ok_percent as f32)
        )),
        None => {
            let abandoned = after.iter().map(|r| r.abandoned).max().unwrap_or(0);
            s.push_str(&format!(
                "While pricing is slow, at most {peak} of {pool} are in use; the bulkhead holds up to {held} calls"
            ));
            if abandoned > 0 {
                s.push_str(&format!(
                    ", up to {abandoned} of them abandoned by callers that stopped waiting"
                ));
            }
            if wasted > 0 {
                s.push_str(&format!(
                    ", and pricing works on up to {wasted} calls whose connection the read timeout has closed"
                ));
            }
            s.push_str(&format!(
                ". Order history is served for {} % of its requests.",
                rate(headline.history_ok_percent as f32)
            ));
        }
    }
    s
}

/// The sentence under the attempts' chart.
pub fn attempts_summary(_: &BrownoutConfig, run: &BrownoutRun) -> String {
    let mut s = String::new();
    let early: Vec<&BrownoutSecond> = before(run).collect();
    if !early.is_empty() {
        let sent: u64 = early.iter().map(|r| u64::from(r.admitted)).sum();
        s.push_str(&format!(
            "Before 09:00 pricing gets {} calls a second. ",
            one(sent as f64 / early.len() as f64)
        ));
    }
    let after: Vec<&BrownoutSecond> = run.during_fault().collect();
    if after.is_empty() {
        return s;
    }
    let effects = mechanism_effects(run);
    let needed = after.last().map_or(0, |r| r.concurrency_needed);
    s.push_str(&format!(
        "While pricing is slow: {} attempts per submission, and {} calls a second reach pricing, which would need {} calls in flight (Little's law) where the bulkhead runs {}.",
        one(effects.attempts_per_submission),
        one(effects.pricing_calls_per_second),
        thousands(needed.into()),
        run.bulkhead_threads
    ));
    if effects.attempts_per_submission >= 1.5 {
        s.push_str(&format!(
            " The bulkhead lets through at most {} calls per call's duration however many attempts come: the retries land on the bulkhead and on order's threads, not on pricing.",
            run.bulkhead_threads
        ));
    }
    let attempts: u64 = after.iter().map(|r| u64::from(r.attempts)).sum();
    let refused: u64 = after.iter().map(|r| u64::from(r.not_permitted)).sum();
    if refused > 0 {
        s.push_str(&format!(
            " The open breaker refuses {} % of the attempts without calling pricing.",
            rate((100.0 * refused as f64 / attempts.max(1) as f64) as f32)
        ));
    }
    s
}

/// The sentence under the breaker's chart.
pub fn breaker_summary(config: &BrownoutConfig, run: &BrownoutRun) -> String {
    let threshold = fixed(config.failure_rate_threshold.into(), false);
    let after: Vec<&BrownoutSecond> = run.during_fault().collect();
    let highest = after
        .iter()
        .filter_map(|r| r.failure_rate)
        .fold(None, |m: Option<f32>, r| Some(m.map_or(r, |m| m.max(r))));
    match run.breaker_first_open_s {
        None => {
            let mut s = format!(
                "The breaker never opens: the highest failure rate it measures while pricing is slow is {} against its threshold of {threshold} %.",
                rate_text(highest)
            );
            if config.fixes == 0 {
                s.push_str(" Slow answers count as successes, and the bulkhead's refusals are not pricing's errors.");
            }
            s
        }
        Some(at) => {
            let open_row = after.iter().position(|r| r.breaker != State::Closed);
            let climb: Vec<(i32, f32)> = after[..open_row.unwrap_or(after.len())]
                .iter()
                .filter_map(|r| r.failure_rate.map(|f| (r.t_s, f)))
                .collect();
            let mut s = format!("The breaker opens at {} s", after_nine(at));
            if let (Some(first), Some(last)) = (climb.first(), climb.last()) {
                if first.0 != last.0 {
                    s.push_str(&format!(
                        ": its failure rate climbs from {} % at {} s to {} % at {} s, against a threshold of {threshold} %",
                        rate(first.1),
                        first.0,
                        rate(last.1),
                        last.0
                    ));
                }
            }
            s.push('.');
            if let Some((_, to)) = open_span(run) {
                let (_, end) = x_range(run);
                if to >= end {
                    s.push_str(" It stays open (or half-open) to the end of the run: no call refreshes the cache.");
                } else {
                    s.push_str(&format!(" It closes again at {} s.", to));
                }
            }
            s
        }
    }
}

// ---------------------------------------------------------------------------------------
// Panels
// ---------------------------------------------------------------------------------------

/// How the page names a mechanism.
fn mechanism_name(m: Mechanism) -> &'static str {
    match m {
        Mechanism::Bulkhead => "the bulkhead",
        Mechanism::Breaker => "the circuit breaker",
        Mechanism::Retry => "the retries",
        Mechanism::Cache => "the fallback cache",
    }
}

/// A prediction's choice as the radio button says it, and its test id.
fn choice(m: Mechanism) -> (&'static str, &'static str) {
    match m {
        Mechanism::Bulkhead => ("The bulkhead", "bo-pick-bulkhead"),
        Mechanism::Breaker => ("The circuit breaker", "bo-pick-breaker"),
        Mechanism::Retry => ("The retries", "bo-pick-retry"),
        Mechanism::Cache => ("The fallback cache", "bo-pick-cache"),
    }
}

/// What the page holds besides the lab's session: the second shown, the learner's
/// prediction and whether its answer is shown. "Back to the spec's values" resets it
/// with the session.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BrownoutView {
    pub second: i32,
    pub pick: Option<Mechanism>,
    pub revealed: bool,
}

impl Default for BrownoutView {
    fn default() -> Self {
        Self {
            second: FIRST_SECOND_SHOWN,
            pick: None,
            revealed: false,
        }
    }
}

/// The answer in one sentence (announced, its first part strong), once asked for: the
/// mechanism the run says makes it worse, then what the learner picked.
pub fn verdict(run: &BrownoutRun, pick: Option<Mechanism>) -> (String, String) {
    let effects = mechanism_effects(run);
    let answer = match effects.worse {
        Some(Mechanism::Bulkhead) => format!(
            "The bulkhead makes it worse: {} running and {} queued calls each hold an order thread, more than order's {}, so order runs out of threads and order history fails with submissions.",
            run.bulkhead_threads, run.queue_capacity, run.order_threads
        ),
        Some(Mechanism::Retry) => format!(
            "The retries make it worse: they turn each submission into {} attempts against a pricing service that is slow, not failing, and order threads sleep between the attempts.",
            one(effects.attempts_per_submission)
        ),
        Some(m) => format!("{} makes it worse.", mechanism_name(m)),
        None => "With these settings none of the four makes the outage worse than the slow pricing alone: order keeps threads to spare and the attempts stay under 1.5 per submission.".to_string(),
    };
    let you = match pick {
        Some(p) if Some(p) == effects.worse => "You picked it.".to_string(),
        Some(p) => format!("You picked {}.", mechanism_name(p)),
        None => "You did not pick one.".to_string(),
    };
    (answer, you)
}

/// One mechanism's line of the answer's evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    pub mechanism: Mechanism,
    pub title: &'static str,
    pub text: String,
    /// The mechanism the run says makes it worse.
    pub worse: bool,
}

/// What each mechanism did after 09:00, from the run.
pub fn evidence(config: &BrownoutConfig, run: &BrownoutRun) -> Vec<Evidence> {
    let e = mechanism_effects(run);
    let headline = run.headline();
    let needed_before = run.seconds.first().map_or(0, |s| s.concurrency_needed);
    let mut items = Vec::new();
    let mut item = |mechanism: Mechanism, title: &'static str, text: String| {
        items.push(Evidence {
            mechanism,
            title,
            text,
            worse: e.worse == Some(mechanism),
        });
    };
    let ran_out = if e.order_ran_out {
        "order ran out of threads, and order history failed with submissions".to_string()
    } else {
        format!(
            "order kept threads to spare (order history served: {} %)",
            rate(headline.history_ok_percent as f32)
        )
    };
    item(
        Mechanism::Bulkhead,
        "Bulkhead.",
        format!(
            "It sent {} calls a second to pricing while pricing was slow. Little's law: the calls in flight needed were {} before 09:00 and {} during the fault; it runs {} threads. Up to {} order threads waited on it at once (running or queued); {ran_out}.",
            one(e.pricing_calls_per_second),
            thousands(needed_before.into()),
            thousands(e.concurrency_needed.into()),
            run.bulkhead_threads,
            e.peak_threads_on_pricing,
        ),
    );
    let threshold = fixed(config.failure_rate_threshold.into(), false);
    item(
        Mechanism::Breaker,
        "Circuit breaker.",
        match e.breaker_first_open_s {
            None => format!(
                "It never opened; the highest failure rate it measured was {}, against its threshold of {threshold} %.",
                rate_text(e.max_failure_rate)
            ),
            Some(at) => format!(
                "It opened at {} s; the highest failure rate it measured was {}, against its threshold of {threshold} %.",
                after_nine(at),
                rate_text(e.max_failure_rate)
            ),
        },
    );
    item(
        Mechanism::Retry,
        "Retries.",
        format!(
            "{} attempts per submission while pricing was slow; up to {} order threads asleep between two attempts at once.",
            one(e.attempts_per_submission),
            e.peak_threads_in_retry_wait
        ),
    );
    let hit = |r: Option<f64>| {
        r.map_or_else(
            || "none (no call fell back)".to_string(),
            |r| format!("{} %", rate((r * 100.0) as f32)),
        )
    };
    item(
        Mechanism::Cache,
        "Fallback cache.",
        format!(
            "Prices found among fallbacks: {} in the first 10 s of the fault, {} in its last 10 s.",
            hit(e.hit_rate_first),
            hit(e.hit_rate_last)
        ),
    );
    items
}

/// The figures of what users saw in a second: the key's class (the chart's colour) and
/// the name; [`SecondPanel::users`] holds their values in this order.
pub const USER_FIGURES: [(&str, &str); 4] = [
    ("tone-green", "Live price"),
    ("tone-blue", "Cached price"),
    ("tone-red", "Error"),
    ("tone-grey", "Gave up waiting"),
];
/// The figures of what the system did, before the breaker's line ([`SecondPanel::system`]).
pub const SYSTEM_FIGURES: [&str; 7] = [
    "Order threads",
    "Accept queue",
    "Bulkhead",
    "Pricing",
    "Little's law",
    "Pricing calls this second",
    "Attempts per submission",
];
/// The figures after the breaker's line ([`SecondPanel::after_breaker`]).
pub const LATER_FIGURES: [&str; 2] = ["Cache", "Order history"];

pub fn state_class(state: State) -> &'static str {
    match state {
        State::Closed => "closed",
        State::Open | State::ForcedOpen => "open",
        _ => "half_open",
    }
}

/// The panel of one second: what users saw next to what the system did, after 09:00 as a
/// whole and in that second.
#[derive(Debug, Clone, PartialEq)]
pub struct SecondPanel {
    /// The second in one sentence (announced as the scrubber moves).
    pub summary: String,
    pub users_whole: String,
    pub submissions: u32,
    /// The values of [`USER_FIGURES`].
    pub users: [String; 4],
    pub system_whole: String,
    /// The values of [`SYSTEM_FIGURES`], the breaker, then those of [`LATER_FIGURES`].
    pub system: [String; 7],
    pub breaker: State,
    pub breaker_rates: String,
    pub after_breaker: [String; 2],
}

/// The panel of second `t_s` (clamped to the run); `None` for a run without seconds.
pub fn second(config: &BrownoutConfig, run: &BrownoutRun, t_s: i32) -> Option<SecondPanel> {
    let (first, last) = (run.seconds.first()?, run.seconds.last()?);
    let t = t_s.clamp(first.t_s, last.t_s);
    let s = run.seconds.iter().find(|s| s.t_s == t)?;
    let headline = run.headline();
    let pool = run.order_threads;
    let span = format!("{} to {}", clock(t - 1), clock(t));
    let summary = format!(
        "{span}: {} live, {} cached, {} errors, {} gave up; {} of {pool} order threads in use; breaker {}.",
        s.users.live,
        s.users.cached,
        s.users.error,
        s.users.gave_up,
        s.order_threads,
        s.breaker.as_str()
    );
    let users_whole = if headline.users.total() > 0 {
        format!("After 09:00: {}.", users_line(&headline.users))
    } else {
        String::new()
    };
    let users = [
        s.users.live.to_string(),
        s.users.cached.to_string(),
        s.users.error.to_string(),
        s.users.gave_up.to_string(),
    ];
    let system_whole = format!(
        "After 09:00: up to {} of {pool} order threads in use, {} pricing calls a second while pricing was slow, order history {} % served.",
        headline.peak_order_threads,
        one(headline.pricing_calls_per_second),
        rate(headline.history_ok_percent as f32)
    );
    let mut bulkhead = format!(
        "{} of {} threads busy, {} calls queued (queue of {})",
        s.pricing_in_flight, run.bulkhead_threads, s.queued, run.queue_capacity
    );
    if s.abandoned > 0 {
        // A time limiter's timed-out calls keep their thread or their place in the queue.
        bulkhead.push_str(&format!(
            "; {} of these {} calls abandoned by callers that timed out",
            s.abandoned,
            s.pricing_in_flight + s.queued
        ));
    }
    let latency = if s.pricing_slow {
        config.pricing_slow_ms
    } else {
        config.pricing_ms
    };
    let mut pricing = format!(
        "{} (answers in {} s)",
        if s.pricing_slow { "slow" } else { "healthy" },
        secs(latency)
    );
    if s.pricing_wasted > 0 {
        pricing.push_str(&format!(
            "; still working on {} calls whose connection the read timeout closed",
            s.pricing_wasted
        ));
    }
    let system = [
        format!(
            "{} of {pool} in use: {} waiting on pricing, {} asleep between attempts",
            s.order_threads, s.order_threads_on_pricing, s.order_threads_in_retry_wait
        ),
        format!("{} requests wait for a thread", s.accept_queue),
        bulkhead,
        pricing,
        format!(
            "{} a second × {} s = {} calls in flight needed; the bulkhead runs {}",
            config.submissions_per_second,
            secs(latency),
            thousands(s.concurrency_needed.into()),
            run.bulkhead_threads
        ),
        format!(
            "{} sent, {} rejected (bulkhead full), {} retried, {} not permitted (breaker open), {} timed out",
            thousands(s.admitted.into()),
            thousands(s.rejected.into()),
            thousands(s.retries.into()),
            thousands(s.not_permitted.into()),
            thousands(s.timeouts.into())
        ),
        per_submission(s).map_or_else(|| "no attempt".to_string(), one),
    ];
    let slow_rule = if config.fixes >= 2 {
        format!(
            "opens at {} %",
            fixed(config.slow_call_rate_threshold.into(), false)
        )
    } else {
        "not counted before +2".to_string()
    };
    let breaker_rates = match (s.failure_rate, s.slow_call_rate) {
        (Some(f), Some(slow)) => format!(
            ", failure rate {} % (opens at {} %), slow-call rate {} % ({slow_rule})",
            rate(f),
            fixed(config.failure_rate_threshold.into(), false),
            rate(slow)
        ),
        _ if s.breaker == State::Open => {
            ", refuses every call; its rates are not measured while it is open".to_string()
        }
        _ => format!(
            ", too few calls in its window to judge (fewer than {})",
            config.minimum_number_of_calls
        ),
    };
    let after_breaker = [
        if s.fallbacks == 0 {
            "no fallback this second".to_string()
        } else {
            format!(
                "{} of {} fallbacks found a price ({} %)",
                s.cache_hits,
                s.fallbacks,
                share(s.cache_hits, s.fallbacks)
            )
        },
        format!("{} of {} served in time", s.history_ok, s.history_total),
    ];
    Some(SecondPanel {
        summary,
        users_whole,
        submissions: s.submissions,
        users,
        system_whole,
        system,
        breaker: s.breaker,
        breaker_rates,
        after_breaker,
    })
}

/// The fix ladder's rows as computed for some settings (`key`: `fixes` at 0).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ladder {
    pub key: Option<BrownoutConfig>,
    pub rows: Vec<Headline>,
    pub error: Option<String>,
}

/// The settings a ladder depends on: every control but `fixes`.
pub fn ladder_key(config: &BrownoutConfig) -> BrownoutConfig {
    BrownoutConfig {
        fixes: 0,
        ..config.clone()
    }
}

type Cell = fn(&Headline) -> String;

/// The ladder table's rows: label and value.
const LADDER_ROWS: [(&str, Cell); 10] = [
    ("Live price, %", |r| share(r.users.live, r.users.total())),
    ("Cached price, %", |r| {
        share(r.users.cached, r.users.total())
    }),
    ("Error, %", |r| share(r.users.error, r.users.total())),
    ("Gave up, %", |r| share(r.users.gave_up, r.users.total())),
    ("Attempts per submission while pricing is slow", |r| {
        one(r.attempts_per_submission)
    }),
    ("Pricing calls a second while it is slow", |r| {
        one(r.pricing_calls_per_second)
    }),
    ("Peak order threads", |r| r.peak_order_threads.to_string()),
    ("Order history served, %", |r| {
        rate(r.history_ok_percent as f32)
    }),
    ("Breaker opens at, s", |r| {
        r.breaker_first_open_s
            .map_or_else(|| "never".to_string(), after_nine)
    }),
    ("Live prices again at, s", |r| {
        r.users_recovered_s
            .map_or_else(|| "not in the run".to_string(), |t| t.to_string())
    }),
];

/// The queue at which the page offers the other regime: above it, the long queue.
const SHORT_QUEUE: u32 = 20;
const LONG_QUEUE: u32 = 200;

/// The regime of the bulkhead's queue a config is in: the page explains it and offers the
/// other one with a click.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Regime {
    /// A queue of at most `SHORT_QUEUE`: the bulkhead refuses, the retries fire.
    Short,
    /// A longer queue: calls wait, holding order's threads.
    Long,
}

impl Regime {
    pub fn of(config: &BrownoutConfig) -> Self {
        if config.queue_capacity <= SHORT_QUEUE {
            Regime::Short
        } else {
            Regime::Long
        }
    }

    /// The queue the button switches to, and its words.
    pub fn switch(self) -> (u32, &'static str) {
        match self {
            Regime::Short => (LONG_QUEUE, "Try a queue of 200"),
            Regime::Long => (SHORT_QUEUE, "Back to a queue of 20"),
        }
    }
}

/// The two regimes of the bulkhead's queue: what this one does, and what the other shows.
pub fn regime_text(config: &BrownoutConfig) -> String {
    let pool = config.order_threads;
    let threads = config.bulkhead_threads;
    // Whether a bulkhead with `queue` holds more order threads than order has.
    let drains = |queue: u32| threads + queue > pool;
    if Regime::of(config) == Regime::Short {
        let mut text = format!(
            "With a queue of {}, the bulkhead refuses at once what it cannot start: the refusals are retried, and that is what this run shows.",
            config.queue_capacity
        );
        if drains(LONG_QUEUE) {
            text.push_str(&format!(
                " A long queue shows the other way this stack fails: {threads} running + {LONG_QUEUE} queued calls each hold an order thread, more than order's {pool}, so order runs out of threads and order history, which never calls pricing, fails too; the bulkhead refuses almost nothing then, so the retries hardly fire."
            ));
        } else {
            text.push_str(&format!(
                " A long queue refuses less and holds more order threads waiting: {threads} running + {LONG_QUEUE} queued, within order's {pool}."
            ));
        }
        text
    } else {
        let held = threads + config.queue_capacity;
        if drains(config.queue_capacity) {
            format!(
                "With a queue of {}, the bulkhead can hold {held} order threads waiting, more than order's {pool}: the threads run out and order history fails with submissions, while the bulkhead refuses almost nothing, so the retries hardly fire. A short queue refuses at once, and then the retries multiply the attempts.",
                config.queue_capacity
            )
        } else {
            format!(
                "With a queue of {}, the bulkhead can hold {held} order threads waiting, within order's {pool}. A short queue refuses at once, and then the retries multiply the attempts.",
                config.queue_capacity
            )
        }
    }
}

/// The ladder as the page shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum LadderShown {
    /// A step's run was refused: the reason.
    Error(String),
    /// The five runs are being made.
    Pending,
    Table(LadderTable),
}

/// The ladder's table: a row per figure, a column per step.
#[derive(Debug, Clone, PartialEq)]
pub struct LadderTable {
    /// The step the page shows (its column is marked).
    pub current: usize,
    /// The rows are those of earlier settings, shown dimmed until the new ones are in.
    pub stale: bool,
    pub rows: Vec<(&'static str, Vec<String>)>,
    /// The current step against the one before, when there is one and the rows are fresh.
    pub change: Option<String>,
}

/// The ladder's table, the current step's column marked; dimmed while the rows are those
/// of earlier settings (the stepper above it is typed buttons on the page).
pub fn ladder_shown(config: &BrownoutConfig, ladder: &Ladder) -> LadderShown {
    let current = usize::from(config.fixes.min(4));
    if let Some(error) = &ladder.error {
        return LadderShown::Error(error.clone());
    }
    if ladder.rows.len() != FIXES.len() {
        return LadderShown::Pending;
    }
    let stale = ladder.key.as_ref() != Some(&ladder_key(config));
    let rows = LADDER_ROWS
        .iter()
        .map(|(label, cell)| (*label, ladder.rows.iter().map(cell).collect()))
        .collect();
    let change = (current > 0 && !stale).then(|| {
        let (was, now) = (&ladder.rows[current - 1], &ladder.rows[current]);
        format!(
            "Against the step before: users who got a price {} → {} %; peak order threads {} → {} of {}; order history served {} → {} %.",
            share(was.users.answered(), was.users.total()),
            share(now.users.answered(), now.users.total()),
            was.peak_order_threads,
            now.peak_order_threads,
            config.order_threads,
            rate(was.history_ok_percent as f32),
            rate(now.history_ok_percent as f32),
        )
    });
    LadderShown::Table(LadderTable {
        current,
        stale,
        rows,
        change,
    })
}

/// Model time one slice of a run simulates: about 2 ms in the browser even in a retry
/// storm, so the page keeps answering while a slider is dragged.
const SLICE_MS: u64 = 12_000;
/// A slider's change: the session takes the value at once (checked by the model), and the
/// run is made in slices, one task each, so no task holds the browser for a whole run;
/// the page shows the previous run until the new one is installed. A later change drops
/// the run under way.
fn set_in_slices(
    state: LabState<BrownoutLab>,
    runs: Stepped,
    name: &'static str,
    value: ControlValue,
) {
    let session = state.session;
    let mut result = Ok(());
    session.update(|s| result = s.set_deferred(name, value));
    state
        .refused
        .set(result.err().map(|e| message::<BrownoutLab>(&e)));
    let pending = session.with_untracked(|s| s.is_pending().then(|| s.config().clone()));
    let Some(lab) = pending else {
        return;
    };
    // Started even when the model refuses the config: that drops the run under way.
    let mut sim = BrownoutSim::new(&lab.config).ok();
    let mut finished = None;
    runs.start(Duration::ZERO, move || {
        // The run is installed in a task of its own: the redraw it causes is a task's work.
        if let Some(run) = finished.take() {
            session.try_update(|s| s.install_run(&lab, run));
            return Step::Done;
        }
        let Some(under_way) = sim.as_mut() else {
            return Step::Done;
        };
        if !under_way.advance(SLICE_MS) {
            return Step::More;
        }
        finished = sim.take().map(BrownoutSim::finish);
        Step::MoreInNextTask
    });
}

/// Keeps `ladder` in step with the session's settings other than `fixes`: a moment after
/// the last change, its five runs made in slices like the page's own run (the step the
/// session already ran is read from its run).
fn follow_ladder(session: RwSignal<LabSession<BrownoutLab>>, ladder: RwSignal<Ladder>) {
    let steps = Stepped::new();
    effect(move || {
        let key = session.with(|s| ladder_key(&s.config().config));
        if ladder.with_untracked(|l| l.key.as_ref() == Some(&key)) {
            return;
        }
        let first = ladder.with_untracked(|l| l.key.is_none());
        let wait = Duration::from_millis(if first { 0 } else { 250 });
        let mut climb = Climb {
            key,
            rows: Vec::new(),
            under_way: None,
        };
        steps.start(wait, move || climb.step(session, ladder));
    });
}

/// The fix ladder being computed: the rows so far and the run of the next one.
struct Climb {
    key: BrownoutConfig,
    rows: Vec<Headline>,
    under_way: Option<BrownoutSim>,
}

impl Climb {
    /// One slice of the next row's run (or the row at once when the session already ran
    /// it); done once the table is complete or a run was refused.
    fn step(
        &mut self,
        session: RwSignal<LabSession<BrownoutLab>>,
        ladder: RwSignal<Ladder>,
    ) -> Step {
        let config = BrownoutConfig {
            fixes: self.rows.len() as u8,
            ..self.key.clone()
        };
        let row = match self.under_way.as_mut() {
            Some(sim) => {
                if !sim.advance(SLICE_MS) {
                    return Step::More;
                }
                self.under_way.take().map(|sim| sim.finish().headline())
            }
            None => {
                let known = session
                    .try_with_untracked(|s| {
                        (s.config().config == config && !s.is_pending())
                            .then(|| s.run().as_ref().ok().map(BrownoutRun::headline))
                            .flatten()
                    })
                    .flatten();
                if known.is_none() {
                    match BrownoutSim::new(&config) {
                        Ok(sim) => self.under_way = Some(sim),
                        Err(e) => {
                            ladder.try_set(Ladder {
                                key: Some(self.key.clone()),
                                rows: Vec::new(),
                                error: Some(e.to_string()),
                            });
                            return Step::Done;
                        }
                    }
                    return Step::More;
                }
                known
            }
        };
        self.rows.extend(row);
        if self.rows.len() < FIXES.len() {
            return Step::More;
        }
        ladder.try_set(Ladder {
            key: Some(self.key.clone()),
            rows: std::mem::take(&mut self.rows),
            error: None,
        });
        Step::Done
    }
}

#[component]
pub fn BrownoutPage(info: LabInfo, location: RwSignal<Location>) -> impl IntoView {
    let (state, problems) = lab_state::<BrownoutLab>(info.number);
    let session = state.session;
    let mut controls = bind_all(state);
    // The stepper is the `fixes` control.
    controls.retain(|c| c.name != "fixes");
    // Every control (and the stepper) runs the model in slices between frames: a whole run
    // takes longer than a frame in the browser.
    let runs = Stepped::new();
    for c in controls.iter_mut() {
        let name = c.name;
        c.change = Callback::new(move |value| set_in_slices(state, runs, name, value));
    }
    let page = RwSignal::new(BrownoutView::default());
    let ladder = RwSignal::new(Ladder::default());
    follow_ladder(session, ladder);

    let range = move || {
        session.with(|s| {
            s.run().as_ref().map_or((0, 0), |r| {
                (
                    r.seconds.first().map_or(0, |s| s.t_s),
                    r.seconds.last().map_or(0, |s| s.t_s),
                )
            })
        })
    };
    let shown = move || {
        let (low, high) = range();
        page.with(|v| v.second).clamp(low, high.max(low))
    };
    // Each chart is drawn a task after the run is installed, in a task of its own: the
    // install redraws the panels, and four charts on top of them held one task too long.
    let chart = move |build: fn(&BrownoutConfig, &BrownoutRun) -> ChartSpec| {
        in_next_task(move || {
            session.with(|s| {
                s.run()
                    .as_ref()
                    .map_or_else(|_| ChartSpec::empty(), |r| build(&s.config().config, r))
            })
        })
    };
    let summary = move |write: fn(&BrownoutConfig, &BrownoutRun) -> String| {
        Signal::derive(move || {
            session.with(|s| {
                s.run()
                    .as_ref()
                    .map(|r| write(&s.config().config, r))
                    .unwrap_or_default()
            })
        })
    };
    let verdict_shown = move || {
        let BrownoutView { pick, revealed, .. } = page.get();
        revealed
            .then(|| session.with(|s| s.run().as_ref().ok().map(|r| verdict(r, pick))))
            .flatten()
            .map(|(answer, you)| view! { <strong>{answer}</strong>" "{you} })
    };
    let evidence_shown = move || {
        page.with(|v| v.revealed).then(|| {
            let items = session.with(|s| {
                s.run()
                    .as_ref()
                    .map(|r| evidence(&s.config().config, r))
                    .unwrap_or_default()
            });
            view! {
                <ul class="bo-evidence" data-testid="bo-evidence">
                    {items.into_iter().map(|e| view! {
                        <li data-mechanism=e.mechanism.name() class=e.worse.then_some("worse")>
                            <strong>{e.title}</strong>" "{e.text}
                        </li>
                    }).collect_view()}
                </ul>
            }
        })
    };
    // The panel's and the table's elements are made once; their texts and marks follow the
    // session through boxed closures (`live`), so a change patches them in place: no list
    // is rebuilt, and the summary's element stays, so it is announced as the scrubber moves.
    let panel = move || {
        let at = shown();
        session.with(|s| {
            s.run()
                .as_ref()
                .ok()
                .and_then(|r| second(&s.config().config, r, at))
        })
    };
    let from_panel = move |read: fn(&SecondPanel) -> String| {
        live(move || panel().map(|p| read(&p)).unwrap_or_default())
    };
    let value = |read: fn(&SecondPanel) -> &[String], i: usize| {
        live(move || {
            panel()
                .and_then(|p| read(&p).get(i).cloned())
                .unwrap_or_default()
        })
    };
    let later = move |i: usize| {
        view! { <div><dt>{LATER_FIGURES[i]}</dt><dd>{value(|p| &p.after_breaker, i)}</dd></div> }
    };
    let second_sides = view! {
        <div class="bo-sides">
            <div class="bo-side" data-testid="bo-users">
                <h3>"What users saw"</h3>
                <p class="bo-whole" data-testid="bo-users-whole">{from_panel(|p| p.users_whole.clone())}</p>
                <p class="bo-when">"Submissions sent in this second: "{from_panel(|p| p.submissions.to_string())}</p>
                <dl class="bo-figures counts">
                    {USER_FIGURES.iter().enumerate().map(|(i, (key, name))| view! {
                        <div><dt><span class=format!("key {key}")></span>{*name}</dt><dd>{value(|p| &p.users, i)}</dd></div>
                    }).collect_view()}
                </dl>
            </div>
            <div class="bo-side" data-testid="bo-system">
                <h3>"What the system did"</h3>
                <p class="bo-whole" data-testid="bo-system-whole">{from_panel(|p| p.system_whole.clone())}</p>
                <p class="bo-when">"At the end of this second:"</p>
                <dl class="bo-figures facts">
                    {SYSTEM_FIGURES.iter().enumerate().map(|(i, name)| view! {
                        <div><dt>{*name}</dt><dd>{value(|p| &p.system, i)}</dd></div>
                    }).collect_view()}
                    <div><dt>"Breaker"</dt><dd>
                        <span class=live(move || format!("state-text {}", panel().map_or("closed", |p| state_class(p.breaker))))
                            data-testid="bo-breaker-state">{from_panel(|p| p.breaker.as_str().to_string())}</span>
                        {from_panel(|p| p.breaker_rates.clone())}
                    </dd></div>
                    {later(0)}
                    {later(1)}
                </dl>
            </div>
        </div>
    };
    let second_summary = from_panel(|p| p.summary.clone());
    // The ladder's table: made once, hidden until its five rows are in (and marked stale
    // meanwhile, as while they are an earlier setting's).
    let current = move || session.with(|s| usize::from(s.config().config.fixes.min(4)));
    let shown_ladder =
        move || session.with(|s| ladder.with(|l| ladder_shown(&s.config().config, l)));
    let ready = move || ladder.with(|l| l.error.is_none() && l.rows.len() == FIXES.len());
    let stale = move || {
        !ready()
            || session
                .with(|s| ladder.with(|l| l.key.as_ref() != Some(&ladder_key(&s.config().config))))
    };
    let cell = move |row: usize, step: usize| {
        live(move || {
            ladder.with(|l| {
                l.rows
                    .get(step)
                    .map(|h| (LADDER_ROWS[row].1)(h))
                    .unwrap_or_default()
            })
        })
    };
    let marked = move |step: usize| live_attr(move || (current() == step).then_some("current"));
    let ladder_note = live(move || match shown_ladder() {
        LadderShown::Error(error) => format!("The ladder could not be run: {error}"),
        LadderShown::Pending => "Running the five steps…".to_string(),
        LadderShown::Table(t) => t.change.unwrap_or_default(),
    });
    let ladder_table = view! {
        <div class="bo-ladder-scroll" prop:hidden=live_flag(move || !ready())>
            <table class="bo-ladder" data-testid="bo-ladder"
                data-stale=live_attr(move || stale().then_some("true"))
                aria-busy=live_attr(move || stale().then_some("true"))>
                <caption>"After 09:00, with these settings"{live(move || if stale() { " (updating…)" } else { "" }.to_string())}</caption>
                <thead><tr>
                    <th scope="col">"Step"</th>
                    {["0", "+1", "+2", "+3", "+4"].into_iter().enumerate().map(|(step, name)| view! {
                        <th scope="col" class=marked(step)
                            aria-current=live_attr(move || (current() == step).then_some("true"))>{name}</th>
                    }).collect_view()}
                </tr></thead>
                <tbody>
                    {LADDER_ROWS.iter().enumerate().map(|(row, (label, _))| view! {
                        <tr>
                            <th scope="row">{*label}</th>
                            {(0..FIXES.len()).map(|step| view! {
                                <td class=marked(step)>{cell(row, step)}</td>
                            }).collect_view()}
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
        <p class="bo-change" data-testid="bo-ladder-note">{ladder_note}</p>
    };
    let config = move || session.with(|s| s.config().config.clone());
    // The stepper is the `fixes` control, set through the session as the link and the CLI
    // set it (its options name the steps "0" to "4").
    let set_step = move |step: usize| {
        let options = match LabSession::<BrownoutLab>::control("fixes").map(|c| c.kind) {
            Some(ControlKind::Choice { options }) => options,
            _ => return,
        };
        let name = step.to_string();
        if let Some(option) = options.iter().find(|o| o.0 == name) {
            set_in_slices(state, runs, "fixes", ControlValue::Choice(option.0));
        }
    };
    let current_step = move || session.with(|s| usize::from(s.config().config.fixes.min(4)));
    let switch_regime = move |_| {
        let (queue, _) = session
            .with_untracked(|s| Regime::of(&s.config().config))
            .switch();
        set_in_slices(
            state,
            runs,
            "queueCapacity",
            ControlValue::Number(f64::from(queue)),
        );
    };
    let scrub = move |ev: leptos::ev::Event| {
        if let Ok(second) = event_target_value(&ev).parse::<i32>() {
            page.update(|v| v.second = second);
        }
    };
    let side = move || {
        view! {
            <section class="panel bo-ladder-panel" aria-labelledby="bo-ladder-heading"
                data-testid="bo-ladder-panel">
                <h2 id="bo-ladder-heading">"The fix ladder"</h2>
                <p class="help">"Each step keeps the ones before it; step 0 is the stack as configured."</p>
                <ol class="bo-stepper">
                    {(0..FIXES.len()).map(|step| view! {
                        <li><button type="button" data-testid=format!("bo-step-{step}")
                            aria-pressed=live_attr(move || aria_bool(current_step() == step))
                            on:click=click(move |_| set_step(step))>
                            {live(move || step_label(&config(), step))}
                        </button></li>
                    }).collect_view()}
                </ol>
                {ladder_table}
            </section>
        }
        .into_any()
    };
    view! {
        // Busy while a run asked for is made in slices: its figures are the last run's.
        <div class="brownout" data-testid="bo-page"
            aria-busy=move || if session.with(LabSession::is_pending) { "true" } else { "false" }>
            <LabFrame import=NoImport info=info text=&super::BROWNOUT_TEXT location=location tools=tools(info.number, state) controls=controls refused=state.refused
                reset=Callback::new(move |_| {
                    state.reset();
                    page.set(BrownoutView::default());
                })
                problems=problems side=Box::new(side)>
                <section class="panel bo-predict" aria-labelledby="bo-predict-heading">
                    <h2 id="bo-predict-heading">"Predict first"</h2>
                    <fieldset class="bo-choices">
                        <legend>"Which mechanism makes the outage worse?"</legend>
                        {Mechanism::ALL.into_iter().map(|m| {
                            let (label, testid) = choice(m);
                            view! {
                                <label>
                                    <input type="radio" name="bo-pick" value=m.name() data-testid=testid
                                        prop:checked=live_flag(move || page.with(|v| v.pick == Some(m)))
                                        on:change=change(move |_| page.update(|v| v.pick = Some(m))) />
                                    " " {label}
                                </label>
                            }
                        }).collect_view()}
                    </fieldset>
                    <button type="button" data-testid="bo-show-answer"
                        on:click=click(move |_| page.update(|v| v.revealed = true))>"Show the answer"</button>
                    <p class="bo-verdict" data-testid="bo-verdict" aria-live="polite">{verdict_shown}</p>
                    {evidence_shown}
                </section>
                <section class="panel bo-regime" aria-labelledby="bo-regime-heading">
                    <h2 id="bo-regime-heading">"The bulkhead's queue"</h2>
                    <p data-testid="bo-regime">{live(move || regime_text(&config()))}</p>
                    <button type="button" data-testid="bo-regime-switch" on:click=click(switch_regime)>
                        {live(move || Regime::of(&config()).switch().1.to_string())}
                    </button>
                </section>
                <section class="panel bo-second" aria-labelledby="bo-second-heading">
                    <h2 id="bo-second-heading">"Users and system, second by second"</h2>
                    <label class="pool-scrubber">"Second shown"
                        <input type="range" data-testid="bo-scrubber" on:input=change(scrub)
                            min=live(move || range().0.to_string())
                            max=live(move || range().1.to_string()) step="1"
                            prop:value=live(move || shown().to_string())
                            aria-valuetext=live(move || format!("{} to {}", clock(shown() - 1), clock(shown()))) />
                    </label>
                    <p class="summary" data-testid="bo-second-summary" aria-live="polite">{second_summary}</p>
                    {second_sides}
                </section>
                <Figure spec=chart(users_chart) summary=summary(users_summary) testid="bo-users-chart"
                    title="What users saw, per second." />
                <Figure spec=chart(threads_chart) summary=summary(threads_summary) testid="bo-threads-chart"
                    title="Order's request threads." quiet=true />
                <Figure spec=chart(attempts_chart) summary=summary(attempts_summary) testid="bo-attempts-chart"
                    title="Attempts on the stack, per second." quiet=true />
                <Figure spec=chart(breaker_chart) summary=summary(breaker_summary) testid="bo-breaker-chart"
                    title="The breaker's rates." quiet=true />
            </LabFrame>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use resilience_sim::model::brownout;

    fn run_of(link: &[(&str, &str)]) -> (BrownoutConfig, BrownoutRun) {
        let (lab, run) = super::super::lab_frame::opened::<BrownoutLab>(link);
        (lab.config, run)
    }

    fn ladder_of(config: &BrownoutConfig) -> Ladder {
        Ladder {
            key: Some(ladder_key(config)),
            rows: brownout::ladder(config).unwrap(),
            error: None,
        }
    }

    /// The ladder's table as the page shows it (not pending, not refused).
    fn table_of(config: &BrownoutConfig, ladder: &Ladder) -> LadderTable {
        match ladder_shown(config, ladder) {
            LadderShown::Table(t) => t,
            other => panic!("{other:?}"),
        }
    }

    /// The table's column of `step`, row by row.
    fn column(table: &LadderTable, step: usize) -> Vec<String> {
        table.rows.iter().map(|r| r.1[step].clone()).collect()
    }

    /// The panel's words in the page's order, as a screen reader reads them.
    fn panel_text(p: &SecondPanel) -> String {
        let figures = |names: &[&str], values: &[String]| {
            names
                .iter()
                .zip(values)
                .map(|(name, value)| format!("{name}: {value}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let users: Vec<&str> = USER_FIGURES.iter().map(|f| f.1).collect();
        format!(
            "{} {} {} {} {} Breaker: {}{} {}",
            p.summary,
            p.users_whole,
            figures(&users, &p.users),
            p.system_whole,
            figures(&SYSTEM_FIGURES, &p.system),
            p.breaker.as_str(),
            p.breaker_rates,
            figures(&LATER_FIGURES, &p.after_breaker)
        )
    }

    #[test]
    fn numbers_are_written_as_the_page_says_them() {
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(clock(15), "09:00:15");
        assert_eq!(clock(-9), "08:59:51");
        assert_eq!(clock(120), "09:02:00");
        assert_eq!(after_nine(9.094), "9.1");
        assert_eq!(after_nine(-0.5), "\u{2212}0.5");
        assert_eq!(share(1, 3), "33.3");
        assert_eq!(share(0, 0), "0");
        let config = BrownoutConfig::default();
        assert_eq!(step_label(&config, 0), "as configured");
        assert_eq!(step_label(&config, 1), "+1 300 ms timeout");
        assert_eq!(step_label(&config, 4), "+4 out-of-band cache");
        let config = BrownoutConfig {
            timeout_ms: 280,
            ..config
        };
        assert_eq!(step_label(&config, 1), "+1 280 ms timeout");
    }

    /// With the long queue: the bulkhead admits about 5 calls a second, its queue holds
    /// order's threads until they run out, order history fails, the errors-only breaker
    /// never opens; the answer to the prediction is the bulkhead.
    #[test]
    fn with_the_long_queue_the_bulkhead_drains_order_and_the_breaker_never_opens() {
        let (config, run) = run_of(&[("queueCapacity", "200")]);
        let threads = threads_summary(&config, &run);
        assert!(
            threads.contains("all 200 are taken and requests wait for one"),
            "{threads}"
        );
        let attempts = attempts_summary(&config, &run);
        assert!(attempts.contains("1,000 calls in flight"), "{attempts}");
        assert!(
            attempts.contains("where the bulkhead runs 20"),
            "{attempts}"
        );
        let breaker = breaker_summary(&config, &run);
        assert!(breaker.starts_with("The breaker never opens"), "{breaker}");
        assert!(
            breaker.contains("Slow answers count as successes"),
            "{breaker}"
        );
        let users = users_summary(&config, &run);
        assert!(
            users.starts_with("Before 09:00, 9"),
            "nearly every user gets a live price before 09:00: {users}"
        );
        assert!(
            users.contains("Nobody gets a price while pricing is slow."),
            "{users}"
        );

        let (answer, you) = verdict(&run, Some(Mechanism::Retry));
        assert!(
            answer.starts_with("The bulkhead makes it worse: 20 running and 200 queued calls each hold an order thread, more than order's 200"),
            "{answer}"
        );
        assert_eq!(you, "You picked the retries.");
        let items = evidence(&config, &run);
        assert_eq!(
            items
                .iter()
                .filter(|e| e.worse)
                .map(|e| e.mechanism)
                .collect::<Vec<_>>(),
            vec![Mechanism::Bulkhead]
        );
        let evidence: String = items
            .iter()
            .map(|e| format!("{} {}", e.title, e.text))
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            evidence.contains(
                "needed were 20 before 09:00 and 1,000 during the fault; it runs 20 threads"
            ),
            "{evidence}"
        );
        assert!(evidence.contains("order ran out of threads"), "{evidence}");
        assert!(evidence.contains("It never opened"), "{evidence}");
        // About 5 calls a second (20 threads / 4 s).
        let sent = evidence
            .split("It sent ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|s| s.parse::<f64>().ok())
            .unwrap();
        assert!((4.0..=6.0).contains(&sent), "{sent}");

        let chart = threads_chart(&config, &run);
        assert_eq!(chart.reference, Some((200.0, "order's thread pool")));
        assert_eq!((chart.x_min, chart.x_max), (-10.0, 120.0));
        // The fault lasts 60 s by default.
        assert_eq!(chart.shade, Some((0.0, 60.0, "pricing slow")));
        assert_eq!(
            breaker_chart(&config, &run).shade,
            Some((0.0, 60.0, "pricing slow")),
            "a breaker that never opens shades the brownout"
        );
        assert_eq!(Regime::of(&config).switch(), (20, "Back to a queue of 20"));
        // The bulkhead's 20 threads at 80 ms serve 250 calls a second, as many as arrive:
        // the calls queued during the fault never drain.
        assert!(
            users.contains("to the end of the run users do not get live prices back."),
            "{users}"
        );
        assert!(
            users.contains("serve about 250 calls a second, no more than the 250 that arrive"),
            "{users}"
        );
    }

    /// As configured (a queue of 20) the bulkhead holds 40 order threads and order history
    /// lives; the retries are what makes it worse (about 4 attempts per submission), the
    /// course's answer; they land on the bulkhead, not on pricing. Once the fault is over,
    /// users get live prices again within seconds.
    #[test]
    fn as_configured_the_retries_make_it_worse() {
        let (config, run) = run_of(&[]);
        let (verdict, you) = verdict(&run, Some(Mechanism::Retry));
        assert!(
            verdict.starts_with("The retries make it worse: "),
            "{verdict}"
        );
        assert_eq!(you, "You picked it.");
        let attempts: f64 = verdict
            .split("each submission into ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{verdict}"));
        assert!((3.0..=4.0).contains(&attempts), "{attempts}");
        let threads = threads_summary(&config, &run);
        assert!(
            threads.contains("Order history is served for 100 %"),
            "{threads}"
        );
        let attempts = attempts_summary(&config, &run);
        assert!(
            attempts.contains(
                "the retries land on the bulkhead and on order's threads, not on pricing"
            ),
            "{attempts}"
        );
        let users = users_summary(&config, &run);
        let again: i32 = users
            .split("users get live prices again from ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{users}"));
        assert!((61..=65).contains(&again), "{users}");
        assert!(users.contains("Pricing answers at its normal speed from 09:01:00: "));
        assert_eq!(Regime::of(&config).switch(), (200, "Try a queue of 200"));
        let regime = regime_text(&config);
        assert!(regime.contains("more than order's 200"), "{regime}");
        // The button follows the queue, the sentence the threads: a pool of 1,000 order
        // threads outlasts 20 + 200.
        let roomy = BrownoutConfig {
            order_threads: 1_000,
            ..config.clone()
        };
        let regime = regime_text(&roomy);
        assert!(regime.contains("within order's 1000"), "{regime}");
        let long = BrownoutConfig {
            queue_capacity: 200,
            ..roomy
        };
        assert_eq!(Regime::of(&long).switch().0, 20);
    }

    /// Fix 1: the 300 ms timeout opens the breaker at about 9 s (its 10 s window still holds
    /// the healthy calls before 09:00); nothing refreshes the cache and after about 30 s
    /// every user gets an error, while order's threads stay low and history is served.
    #[test]
    fn the_timeout_protects_the_threads_not_the_users() {
        let (config, run) = run_of(&[("fixes", "1")]);
        let opened = run.breaker_first_open_s.unwrap();
        assert!((5.0..=10.0).contains(&opened), "{opened}");
        let breaker = breaker_summary(&config, &run);
        assert!(
            breaker.starts_with(&format!("The breaker opens at {} s: ", after_nine(opened))),
            "{breaker}"
        );
        assert!(breaker.contains("against a threshold of 50 %"), "{breaker}");
        assert!(breaker.contains("It closes again at "), "{breaker}");
        let users = users_summary(&config, &run);
        let from: i32 = users
            .split("From ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{users}"));
        assert!((25..=45).contains(&from), "{users}");
        assert!(
            users.contains("nobody gets a price: 100 % of the submissions after that get an error"),
            "{users}"
        );
        let threads = threads_summary(&config, &run);
        assert!(
            threads.contains("Order history is served for 100 %"),
            "{threads}"
        );
        assert!(
            threads.contains("whose connection the read timeout has closed"),
            "{threads}"
        );
        // The breaker is still open when pricing recovers at 60 s: its 60 s wait keeps
        // users from live prices until about 69 s.
        assert!(
            users.contains(
                "but the breaker is still open then and lets calls through only after its wait"
            ),
            "{users}"
        );

        let chart = breaker_chart(&config, &run);
        let (from, to, label) = chart.shade.unwrap();
        assert_eq!(label, "breaker open");
        assert!(
            (from - opened).abs() < 1e-9 && (opened + 59.0..=opened + 63.0).contains(&to),
            "{from} {to}"
        );
        // While open the breaker measures nothing: the rate's line has a gap.
        let failure = &chart.series[0].points;
        assert!(failure.iter().any(|p| p.1.is_nan()));
        assert!(failure.iter().any(|p| p.1 > 50.0));

        // The panel of second 15: the breaker is open, users get cached prices or errors,
        // order has threads to spare.
        let panel = second(&config, &run, 15).unwrap();
        assert_eq!(panel.breaker, State::Open);
        assert!(
            panel.summary.starts_with("09:00:14 to 09:00:15: 0 live, "),
            "{}",
            panel.summary
        );
        assert!(
            panel.summary.ends_with("breaker OPEN."),
            "{}",
            panel.summary
        );
        let pricing = |p: &SecondPanel| {
            let at = SYSTEM_FIGURES.iter().position(|f| *f == "Pricing").unwrap();
            p.system[at].clone()
        };
        assert_eq!(pricing(&panel), "slow (answers in 4 s)");
        // Before the breaker opened, pricing worked on calls whose connection was closed.
        let early = second(&config, &run, 5).unwrap();
        assert!(
            pricing(&early).starts_with("slow (answers in 4 s); still working on "),
            "{}",
            pricing(&early)
        );
    }

    /// The ladder's table: the current step's column is marked, fix 4 gives nearly every
    /// user a cached price, fix 3 brings the attempts back near 1 per submission.
    #[test]
    fn the_ladder_table_compares_the_steps() {
        let (config, _) = run_of(&[("fixes", "4")]);
        let ladder = ladder_of(&config);
        let h = table_of(&config, &ladder);
        assert_eq!(h.current, 4);
        assert!(!h.stale);
        let labels: Vec<&str> = LADDER_ROWS.iter().map(|r| r.0).collect();
        let at = |step: usize, label: &str| {
            column(&h, step)[labels.iter().position(|l| *l == label).unwrap()].clone()
        };
        // Fix 4: every user gets a price, cached while pricing is slow (60 of the 120 s)
        // and live after it.
        let cached: f64 = at(4, "Cached price, %").parse().unwrap();
        let live: f64 = at(4, "Live price, %").parse().unwrap();
        assert!(cached + live >= 99.0, "fix 4: {cached} + {live} %");
        assert!((45.0..=60.0).contains(&cached), "fix 4: {cached} % cached");
        let calls: f64 = at(0, "Pricing calls a second while it is slow")
            .parse()
            .unwrap();
        assert!(
            (4.0..=6.0).contains(&calls),
            "as configured: about 5 calls a second"
        );
        let peak: u32 = at(0, "Peak order threads").parse().unwrap();
        assert!(peak < 150, "the short queue leaves order threads: {peak}");
        assert_eq!(at(0, "Breaker opens at, s"), "never");
        let again: i32 = at(0, "Live prices again at, s").parse().unwrap();
        let later: i32 = at(1, "Live prices again at, s").parse().unwrap();
        assert!(
            (61..=65).contains(&again) && later > again,
            "{again} {later}"
        );
        let budget: f64 = at(3, "Attempts per submission while pricing is slow")
            .parse()
            .unwrap();
        let retries: f64 = at(2, "Attempts per submission while pricing is slow")
            .parse()
            .unwrap();
        assert!(budget < 1.5 && retries >= 3.0, "{budget} {retries}");
        // Fix 2 adds nothing here: the timeout already fails every slow call.
        assert_eq!(column(&h, 1), column(&h, 2));
        assert_eq!(h.rows.len(), LADDER_ROWS.len());
        assert!(h
            .change
            .as_deref()
            .is_some_and(|c| c.starts_with("Against the step before: users who got a price ")));

        // Another setting: the old rows are shown, dimmed, until the new ones are run.
        let other = BrownoutConfig {
            queue_capacity: 200,
            ..config.clone()
        };
        let stale = table_of(&other, &ladder);
        assert!(stale.stale);
        assert_eq!(stale.change, None);
        // The stepper alone does not make the rows stale.
        let step1 = BrownoutConfig { fixes: 1, ..config };
        assert!(!table_of(&step1, &ladder).stale);
        assert_eq!(
            ladder_shown(&step1, &Ladder::default()),
            LadderShown::Pending
        );
    }

    /// The step's row of the table and the panel's headline come from the same run.
    #[test]
    fn the_panel_says_what_the_table_says() {
        let (config, run) = run_of(&[("fixes", "4")]);
        let panel = panel_text(&second(&config, &run, 30).unwrap());
        let headline = run.headline();
        assert!(panel.contains(&format!("After 09:00: {}.", users_line(&headline.users))));
        let col = column(&table_of(&config, &ladder_of(&config)), 4);
        assert!(
            panel.contains(&format!("{} % a cached price", col[1])),
            "{panel}"
        );
        assert!(panel.contains(&format!("up to {} of 200 order threads", col[6])));
    }

    /// A link value the lab cannot use is named by its control; the rest of the page runs
    /// on the spec's value.
    #[test]
    fn a_bad_link_value_is_named_and_the_spec_value_is_used() {
        let (session, problems) =
            crate::lab_link::open_from_link::<BrownoutLab>("?demo=12&queueCapacity=-5&fixes=2");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with(
                "Bulkhead queue (queueCapacity): must be between 0 calls and 1000 calls"
            ),
            "{}",
            problems[0]
        );
        assert_eq!(session.config().config.queue_capacity, 20);
        assert_eq!(session.config().config.fixes, 2);
        assert!(session.run().is_ok());

        // A huge number is quoted as it was written, not as its 309 digits.
        let (_, problems) = crate::lab_link::open_from_link::<BrownoutLab>(
            "?demo=12&faultSeconds=1e308&seconds=-1e300",
        );
        assert_eq!(
            problems,
            [
                "Pricing stays slow for: must be between 1 s and 600 s (got 1e308)",
                "Run until (seconds after 09:00): must be between 1 s and 600 s (got -1e300)",
            ]
        );
    }

    #[test]
    fn an_empty_run_draws_nothing_and_does_not_panic() {
        let (config, mut run) = run_of(&[("seconds", "1")]);
        run.seconds.clear();
        assert_eq!(second(&config, &run, 15), None);
        for build in [users_chart, threads_chart, attempts_chart, breaker_chart] {
            let chart = build(&config, &run);
            assert!(chart.x_max > chart.x_min);
        }
        for write in [
            users_summary,
            threads_summary,
            attempts_summary,
            breaker_summary,
        ] {
            write(&config, &run);
        }
        verdict(&run, None);
        evidence(&config, &run);
    }
}
