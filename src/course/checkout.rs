//! Demo 13: payment and shipping. One call of each dependency travelling through its stack,
//! layer by layer (the breaker's verdict, the bulkhead's permits, the provider's answer,
//! the retry's decision and why); both bulkheads' permits side by side, or with no
//! bulkhead the calls under way; the payment breaker's state diagram; the saga states of
//! every scenario under the chosen order, bulkheads and threads. The engine computes every
//! number; this module turns the run into chart specs and plain data ([`Stack`], [`Strip`],
//! [`SagaTable`], [`Counts`]), which typed views show as text. The page's own state (the
//! capture shown, the saga table's runs) is one [`CheckoutView`]; a change's runs are made
//! one per browser task ([`Remake`]).

use std::time::Duration;

use leptos::prelude::*;
use resilience_sim::model::checkout::{
    self, AttemptTrace, Bulkheads, CallTrace, CheckoutConfig, CheckoutRun, CheckoutScenario,
    Dependency, QuoteResult, SagaState, SagaTally, StackOrder, Threads, PLATFORM_THREADS,
    STALL_FROM_MS, STALL_UNTIL_MS,
};
use resilience_sim::policy::circuit_breaker::State;
use resilience_sim::scenario::catalogue::LabInfo;
use resilience_sim::scenario::checkout_lab::CheckoutLab;
use resilience_sim::scenario::lab_session::{ControlValue, LabSession};
use resilience_sim::Outcome;

use super::lab_frame::{lab_state, tools, LabFrame};
use crate::components::{bind_all, message, Figure, LabState};
use crate::format::seconds;
use crate::nav::Location;
use crate::tasks::{Step, Stepped};
use crate::views::breaker::diagram;
use crate::views::chart::{ChartSpec, Series, Stroke, Tone};
use crate::views::html::{aria_bool, change, effect, live, live_attr, live_flag};
use crate::views::page_tools::NoImport;

/// The payment call a scenario is best read from: where its lesson shows first.
pub fn telling_call(run: &CheckoutRun) -> u32 {
    let payments = || {
        run.calls
            .iter()
            .filter(|c| c.dependency == Dependency::Payment)
    };
    match run.scenario {
        // The first capture a full bulkhead refused (the shared one) or the shopper gave up
        // on (no thread), else the moment the first quote was refused, else two seconds
        // into the stall.
        CheckoutScenario::QuoterStall | CheckoutScenario::GameDay => payments()
            .find(|c| c.attempts.is_empty() || c.attempts.iter().any(|a| a.rejected))
            .map(|c| c.index)
            .or_else(|| {
                run.calls
                    .iter()
                    .find(|c| {
                        c.dependency == Dependency::Shipping
                            && c.attempts.iter().any(|a| a.rejected)
                    })
                    .map(|c| (c.arrived / 100) as u32)
            })
            .unwrap_or(((STALL_FROM_MS + 2_000) / 100) as u32),
        _ => payments()
            .find(|c| c.saga != Some(SagaState::Captured) || c.attempts.len() > 1)
            .map_or(0, |c| c.index),
    }
}

/// The question to answer before reading the run of `scenario`.
pub fn prediction(scenario: CheckoutScenario) -> &'static str {
    match scenario {
        CheckoutScenario::DeclineStorm => "100 cards are declined in 10 s. Does the payment breaker open? How many captures are retried?",
        CheckoutScenario::QuoterStall => "The quoter stops answering for 30 s. What does it take from payment? How many captures are lost?",
        CheckoutScenario::ConnectionReset => "The provider refuses every connection. How many requests does one capture make, and when does the breaker stop them?",
        CheckoutScenario::LostResponse => "The provider captures, but its answers are lost. How many requests per capture? What does the order say: captured, failed or something else?",
        CheckoutScenario::ProviderTimeouts => "The provider stops answering and drops each capture after our 800 ms read timeout. After how many captures does the breaker open, and how does this differ from lost answers?",
        CheckoutScenario::GameDay => "The quoter stalls and a card is declined in the same minute. Which breaker opens? Does the decline count?",
    }
}

/// The shipping call that arrived with payment call `index` (quotes come twice as often).
fn quote_for(run: &CheckoutRun, index: u32) -> Option<&CallTrace> {
    let payment = call(run, Dependency::Payment, index)?;
    run.calls
        .iter()
        .find(|c| c.dependency == Dependency::Shipping && c.arrived >= payment.arrived)
}

fn call(run: &CheckoutRun, dependency: Dependency, index: u32) -> Option<&CallTrace> {
    run.calls
        .iter()
        .find(|c| c.dependency == dependency && c.index == index)
}

fn outcome_words(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Success | Outcome::SlowSuccess => "answered",
        Outcome::ConnectFailure => "ConnectException: no connection",
        Outcome::ReadTimeout => "SocketTimeoutException: no answer before the read timeout",
        Outcome::Http5xx => "HTTP 5xx",
        Outcome::BusinessError => "CardDeclinedException: the card was declined (an answer)",
        Outcome::BulkheadFull => "BulkheadFullException",
        Outcome::CallNotPermitted => "CallNotPermittedException",
        Outcome::NoFreeThread => "no free thread",
        // Not in Demo 13's stacks (no time limiter, no rate limiter).
        Outcome::TimeLimited => "TimeoutException: the time limiter stopped waiting",
        Outcome::RequestNotPermitted => "RequestNotPermitted: refused by the rate limiter",
    }
}

/// What one layer did in one attempt: its `data-layer`, its name (shown in bold) and the
/// rest of its line.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerLine {
    pub layer: &'static str,
    pub name: &'static str,
    pub did: String,
}

/// One attempt: its head ("attempt 2 at 0.3 s") and what each layer did, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct AttemptLines {
    pub head: String,
    pub layers: Vec<LayerLine>,
}

/// One call through its stack, as the page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Stack {
    /// `payment-stack` or `shipping-stack`.
    pub testid: &'static str,
    pub title: String,
    /// The layers in their order: `Retry(CircuitBreaker(Bulkhead(call)))`.
    pub layers: String,
    pub attempts: Vec<AttemptLines>,
    /// No request thread came free within 1 s: the shopper gave up (no attempt was made).
    pub gave_up: bool,
    /// How it ended: the saga state or the quote (shown in bold), then what that means;
    /// both empty when neither is known.
    pub end: (&'static str, &'static str),
    /// Why the retry stopped, in the engine's words.
    pub why: String,
}

/// One attempt: what each layer did.
fn attempt_lines(
    run: &CheckoutRun,
    number: usize,
    a: &AttemptTrace,
    permits: Option<u32>,
) -> AttemptLines {
    let line = |layer, name, did: String| LayerLine { layer, name, did };
    let breaker = if run.order == StackOrder::BreakerOutsideRetry && number > 1 {
        "asked once, for the whole call"
    } else if a.permitted {
        "let it through"
    } else {
        "refused it: CallNotPermittedException"
    };
    let mut layers = vec![line(
        "breaker",
        "CircuitBreaker",
        format!("({}) {breaker}", a.breaker_state.as_str()),
    )];
    if let (true, Some(permits)) = (a.permitted, permits) {
        let did = match (a.rejected, a.permits_left) {
            (true, _) => {
                "refused it: BulkheadFullException, no permit came within 20 ms".to_string()
            }
            (false, Some(left)) => format!("gave a permit: {left} of {permits} left"),
            (false, None) => "was not reached".to_string(),
        };
        layers.push(line("bulkhead", "Bulkhead", did));
    }
    if a.provider_request {
        layers.push(line(
            "provider",
            "Provider",
            format!(
                "{} after {} s",
                outcome_words(a.outcome),
                seconds(a.duration)
            ),
        ));
    } else if a.permitted && !a.rejected && a.outcome == Outcome::ConnectFailure {
        layers.push(line(
            "provider",
            "Connection pool",
            "no connection free within the 200 ms connect timeout".to_string(),
        ));
    }
    layers.push(line(
        "retry",
        "Retry",
        match a.retry_after {
            Some(wait) => format!("tries again in {} s", seconds(wait)),
            None => "stops here".to_string(),
        },
    ));
    AttemptLines {
        head: format!("attempt {number} at {} s", seconds(a.at)),
        layers,
    }
}

/// A call through its stack: the layers' names in their order, each attempt, the end.
pub fn stack(run: &CheckoutRun, c: &CallTrace) -> Stack {
    let (testid, title, permits) = match c.dependency {
        Dependency::Payment => (
            "payment-stack",
            "Payment: capture order-",
            run.payment_permits,
        ),
        Dependency::Shipping => ("shipping-stack", "Shipping: quote ", run.shipping_permits),
    };
    // The layers in their order: `Retry(CircuitBreaker(Bulkhead(call)))`.
    let layers = [
        match run.order {
            StackOrder::Resilience4j => "Retry(CircuitBreaker(",
            StackOrder::BreakerOutsideRetry => "CircuitBreaker(Retry(",
        },
        match run.bulkheads {
            Bulkheads::Separate => "Bulkhead(call)",
            Bulkheads::Shared => "Bulkhead (shared)(call)",
            Bulkheads::None => "call",
        },
        "))",
    ]
    .concat();
    // A call with no attempt never had a request thread: the shopper gave up.
    let gave_up = c.attempts.is_empty();
    let end = match (c.saga, c.quote) {
        (Some(SagaState::NotSent), _) if gave_up => {
            ("NOT_SENT", ": never sent; the order can be paid later.")
        }
        (None, Some(QuoteResult::Estimate)) if gave_up => {
            ("Agreed estimate", ": shown by the shopper's page.")
        }
        (Some(state), _) => (state.name(), match state {
            SagaState::Captured => ": the provider answered that it captured.",
            SagaState::Declined => ": the provider answered no: a business answer, not a failure; nothing is retried or counted.",
            SagaState::Uncertain => ": no answer, and the provider may have captured: the saga keeps the seat and reconciles by the idempotency key. Never retried, never reported as captured.",
            SagaState::NotSent => ": the capture never reached the provider: the fallback answers with a typed error, and the order can be paid later.",
        }),
        (None, Some(q)) => match q {
            QuoteResult::Live => ("Live quote", ": the quoter answered."),
            QuoteResult::Estimate => (
                "Agreed estimate",
                ": the fallback shows the agreed estimate (physical goods).",
            ),
            QuoteResult::Hidden => ("Quote hidden", ": digital goods: checkout goes on without a quote."),
        },
        (None, None) => ("", ""),
    };
    Stack {
        testid,
        title: format!("{title}{} at {} s", c.index, seconds(c.arrived)),
        layers,
        attempts: c
            .attempts
            .iter()
            .enumerate()
            .map(|(i, a)| attempt_lines(run, i + 1, a, permits))
            .collect(),
        gave_up,
        end,
        why: c.why.clone(),
    }
}

/// The stacks shown for payment call `index`: its own, and the quote that arrived with it.
pub fn stacks(run: &CheckoutRun, index: u32) -> Vec<Stack> {
    call(run, Dependency::Payment, index)
        .into_iter()
        .chain(quote_for(run, index))
        .map(|c| stack(run, c))
        .collect()
}

/// The permits each bulkhead had left, second by second (the fewest during the second);
/// with no bulkhead, the most calls of each dependency under way.
pub fn permits_chart(run: &CheckoutRun) -> ChartSpec {
    let none = run.bulkheads == Bulkheads::None;
    let line = |label: &str, tone, stroke, shipping: bool| Series {
        label: label.to_string(),
        tone,
        stroke,
        mark: None,
        points: run
            .seconds
            .iter()
            .map(|s| {
                // The permits, or without a bulkhead (no permits) the calls under way.
                let v = if shipping {
                    s.shipping_permits_min.unwrap_or(s.shipping_under_way_max)
                } else {
                    s.payment_permits_min.unwrap_or(s.payment_under_way_max)
                };
                (f64::from(s.t_s), f64::from(v))
            })
            .collect(),
    };
    let stall = matches!(
        run.scenario,
        CheckoutScenario::QuoterStall | CheckoutScenario::GameDay
    );
    let (payment, shipping) = match run.bulkheads {
        Bulkheads::Separate => ("payment's permits (of 20)", "shipping's permits (of 8)"),
        Bulkheads::Shared => (
            "shared permits (of 20), seen by payment",
            "shared permits, seen by shipping",
        ),
        Bulkheads::None => ("captures under way", "quotes under way"),
    };
    // What bounds the calls under way without a bulkhead: the threads, or the connections.
    let reference = match run.threads {
        Threads::Platform => (PLATFORM_THREADS, "40 request threads"),
        Threads::Virtual => (10, "10 connections each"),
    };
    let top = match run.payment_permits {
        Some(permits) => permits,
        None => reference
            .0
            .max(run.payment.under_way_max)
            .max(run.shipping.under_way_max),
    };
    ChartSpec {
        x_label: "time (s)",
        y_label: if none {
            "calls under way"
        } else {
            "permits left"
        },
        x_min: 0.0,
        x_max: run.seconds.len() as f64,
        y_max: f64::from(top) + 2.0,
        series: vec![
            line(payment, Tone::Blue, Stroke::Wide, false),
            line(shipping, Tone::Orange, Stroke::Dashed, true),
        ],
        shade: stall.then_some((
            (STALL_FROM_MS / 1_000) as f64,
            (STALL_UNTIL_MS / 1_000) as f64,
            "quoter stalled",
        )),
        reference: none.then_some((f64::from(reference.0), reference.1)),
    }
}

/// The sentence under the permits chart.
pub fn permits_summary(run: &CheckoutRun) -> String {
    let low = |f: fn(&checkout::CheckoutSecond) -> Option<u32>| {
        run.seconds.iter().filter_map(f).min().unwrap_or(0)
    };
    let (p, s) = (
        low(|x| x.payment_permits_min),
        low(|x| x.shipping_permits_min),
    );
    match run.bulkheads {
        Bulkheads::Separate => format!(
            "Payment never had fewer than {p} of its 20 permits; shipping went down to {s} of its 8. Separate bulkheads: what one dependency holds, the other does not lose."
        ),
        Bulkheads::Shared => format!(
            "One bulkhead of 20 for both: it went down to {} permits. Every permit a stalled quote holds is one payment cannot have.",
            p.min(s)
        ),
        Bulkheads::None => format!(
            "No bulkhead, no permits: the chart shows the calls under way, at most {} captures and {} quotes at once; {}.",
            run.payment.under_way_max,
            run.shipping.under_way_max,
            match run.threads {
                Threads::Platform => format!(
                    "{} captures waited 1 s for one of the 40 request threads and were given up",
                    run.payment.no_thread
                ),
                Threads::Virtual => "no capture waits for a thread, but past its 10 connections a dependency's calls wait".to_string(),
            }
        ),
    }
}

/// One second of a breaker's strip: its state (`data-state`), its letter (colour is never
/// alone) and, every tenth second, its time (`data-t`, drawn under the cell: the strip's
/// axis).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StripCell {
    pub state: &'static str,
    pub letter: &'static str,
    pub t: Option<u32>,
}

/// One breaker's states, one cell per second.
#[derive(Clone, Debug, PartialEq)]
pub struct Strip {
    pub label: &'static str,
    pub cells: Vec<StripCell>,
}

fn breaker_of(s: &checkout::CheckoutSecond, payment: bool) -> State {
    if payment {
        s.payment_breaker
    } else {
        s.shipping_breaker
    }
}

/// Both breakers' strips, payment's first.
pub fn strips(run: &CheckoutRun) -> [Strip; 2] {
    let strip = |label, payment| Strip {
        label,
        cells: run
            .seconds
            .iter()
            .map(|s| {
                let (state, letter) = match breaker_of(s, payment) {
                    State::Open => ("open", "O"),
                    State::HalfOpen => ("half-open", "H"),
                    _ => ("closed", "C"),
                };
                StripCell {
                    state,
                    letter,
                    t: (s.t_s % 10 == 0).then_some(s.t_s),
                }
            })
            .collect(),
    };
    [
        strip("Payment breaker", true),
        strip("Shipping breaker", false),
    ]
}

/// The sentence under the strips: when each breaker first opened, if it did.
pub fn breakers_summary(run: &CheckoutRun) -> String {
    let said = |name: &str, payment: bool| match run
        .seconds
        .iter()
        .find(|s| breaker_of(s, payment) == State::Open)
    {
        Some(s) => format!("{name} was OPEN by {} s", s.t_s),
        None => format!("{name} stayed CLOSED"),
    };
    format!(
        "{}; {}.",
        said("The payment breaker", true),
        said("the shipping breaker", false)
    )
}

/// The payment breaker's state at the end of the second payment call `index` arrived
/// in, and the transition into it if the state changed in that second.
pub fn diagram_at(run: &CheckoutRun, index: u32) -> Option<(State, Vec<(State, State)>)> {
    let c = call(run, Dependency::Payment, index)?;
    let second = (c.arrived / 1_000) as usize;
    let now = run.seconds.get(second)?.payment_breaker;
    let before = second
        .checked_sub(1)
        .and_then(|i| run.seconds.get(i))
        .map_or(State::Closed, |s| s.payment_breaker);
    let path = if before != now {
        vec![(before, now)]
    } else {
        Vec::new()
    };
    Some((now, path))
}

/// The state diagram of [`diagram_at`]: the drawing the tick demos and the sandbox share,
/// made from the breaker's config and states only.
fn diagram_markup(run: &CheckoutRun, index: u32) -> String {
    let mut h = String::new();
    if let Some((now, path)) = diagram_at(run, index) {
        diagram(
            &checkout::payment_breaker_config(),
            now,
            &path,
            "30 s",
            "in this second",
            &mut h,
        );
    }
    h
}

/// One scenario's line of the saga table.
#[derive(Clone, Debug, PartialEq)]
pub struct SagaRow {
    pub scenario: CheckoutScenario,
    pub saga: SagaTally,
    pub provider_requests: u32,
    pub breaker_state_end: State,
    /// The first second at whose end payment's breaker was OPEN, if any.
    pub breaker_open_by: Option<u32>,
}

/// The saga states of every scenario under `config`'s order, bulkheads, threads and seed:
/// six runs, which a change of scenario alone does not redo.
pub fn saga_rows(config: &CheckoutConfig) -> Vec<SagaRow> {
    CheckoutScenario::ALL
        .into_iter()
        .filter_map(|scenario| saga_row(config, scenario).map(|(row, _)| row))
        .collect()
}

/// The saga table's line of `scenario` under `config`'s other settings, and the run it was
/// read from (the page's own run when `scenario` is the one chosen).
fn saga_row(config: &CheckoutConfig, scenario: CheckoutScenario) -> Option<(SagaRow, CheckoutRun)> {
    let run = checkout::run(&CheckoutConfig {
        scenario,
        ..config.clone()
    })
    .ok()?;
    let row = SagaRow {
        scenario,
        saga: run.payment.saga,
        provider_requests: run.payment.provider_requests,
        breaker_state_end: run.payment.breaker_state_end,
        breaker_open_by: run
            .seconds
            .iter()
            .find(|s| s.payment_breaker == State::Open)
            .map(|s| s.t_s),
    };
    Some((row, run))
}

/// One line of the saga table: the scenario, whether it is the one chosen, and its cells
/// (CAPTURED, DECLINED, UNCERTAIN, NOT_SENT, requests, the breaker at the end).
#[derive(Clone, Debug, PartialEq)]
pub struct SagaLine {
    pub scenario: &'static str,
    pub current: bool,
    pub cells: [String; 6],
}

/// The saga table: its caption (the settings its runs were made for) and its lines.
#[derive(Clone, Debug, PartialEq)]
pub struct SagaTable {
    pub caption: String,
    pub lines: Vec<SagaLine>,
}

/// The saga table of `rows`, the row of `config`'s scenario marked.
pub fn saga_table(config: &CheckoutConfig, rows: &[SagaRow]) -> SagaTable {
    SagaTable {
        caption: format!(
            "Captures by saga state, per scenario (order: {}; bulkheads: {}; threads: {})",
            config.order.name(),
            config.bulkheads.name(),
            config.threads.name()
        ),
        lines: rows
            .iter()
            .map(|row| {
                let saga = row.saga;
                let state = row.breaker_state_end.as_str();
                SagaLine {
                    scenario: row.scenario.name(),
                    current: row.scenario == config.scenario,
                    cells: [
                        saga.captured.to_string(),
                        saga.declined.to_string(),
                        saga.uncertain.to_string(),
                        saga.not_sent.to_string(),
                        row.provider_requests.to_string(),
                        // The end state alone hides when it opened ("OPEN by 12 s").
                        match row.breaker_open_by {
                            Some(t) => format!("{state} (opened by {t} s)"),
                            None => state.to_string(),
                        },
                    ],
                }
            })
            .collect(),
    }
}

/// One entry of the counts: a term, its figures, and the entry's test id if it has one.
#[derive(Clone, Debug, PartialEq)]
pub struct CountLine {
    pub term: &'static str,
    pub testid: Option<&'static str>,
    pub text: String,
}

/// What each stack counted in this run (the CLI's figures), and why the order matters.
#[derive(Clone, Debug, PartialEq)]
pub struct Counts {
    pub lines: Vec<CountLine>,
    pub note: String,
}

/// The counts of `run`.
pub fn counts(run: &CheckoutRun) -> Counts {
    let p = &run.payment;
    let s = &run.shipping;
    let bulkhead = if run.bulkheads == Bulkheads::None {
        "there is no bulkhead".to_string()
    } else {
        format!("the bulkhead refused {}", p.bulkhead_rejected)
    };
    let mut lines = vec![CountLine {
        term: "Payment",
        testid: None,
        text: format!(
            "{} captures, {} attempts, {} provider requests, {} retries; the breaker recorded {} calls ({} failures) and refused {}; {bulkhead}. The provider captured {} times.",
            p.calls,
            p.attempts,
            p.provider_requests,
            p.retries,
            p.breaker_recorded_calls,
            p.breaker_recorded_failures,
            p.not_permitted,
            p.provider_captures
        ),
    }];
    if p.saga.uncertain > 0 {
        // What our side could not know when the read timed out: the provider's record.
        lines.push(CountLine {
            term: "Reconciliation",
            testid: Some("checkout-reconciled"),
            text: format!(
                "{} UNCERTAIN captures, looked up by their idempotency key: {} CAPTURED by the provider (the seat is sold, only the answer was lost), {} NOT_CAPTURED (release the seat or ask the shopper to pay again).",
                p.saga.uncertain, p.reconciled.captured, p.reconciled.not_captured
            ),
        });
    }
    lines.push(CountLine {
        term: "Shipping",
        testid: None,
        text: format!(
            "{} quotes: {} live, {} agreed estimates; {} requests to the quoter, {} retries. {} orders of digital goods needed no shipping and asked for {} quotes.",
            s.calls,
            s.quotes.live,
            s.quotes.estimate,
            s.provider_requests,
            s.retries,
            run.digital_orders,
            run.quotes_from_digital
        ),
    });
    let note = [
        match run.order {
            StackOrder::Resilience4j => "Resilience4j's order: the breaker records every attempt, and once open stops the remaining attempts at once.",
            StackOrder::BreakerOutsideRetry => "The breaker outside the retry records one outcome per call: a refusing provider gets twice the requests before it opens.",
        },
        match run.bulkheads {
            Bulkheads::Separate => "A bulkhead each: what a stalled quoter holds, payment does not lose.",
            // What the lesson claims (the breaker opens on a healthy provider), only when
            // this run shows it.
            Bulkheads::Shared if p.not_permitted > 0 => "One shared bulkhead: a stalled quoter takes payment's permits, and payment's breaker counts the refusals as failures.",
            Bulkheads::Shared => match run.threads {
                Threads::Virtual => "One shared bulkhead, and payment's breaker stayed closed: on virtual threads the quoter's 10 connections cap the permits it holds (an attempt that finds no connection gives its permit back after 200 ms).",
                Threads::Platform => "One shared bulkhead, and payment's breaker stayed closed in this run.",
            },
            Bulkheads::None => "No bulkhead: only the threads, or the connections, limit the calls to a stalled quoter.",
        },
    ]
    .join(" ");
    Counts { lines, note }
}

/// What the page holds besides the lab's session: the capture shown and the saga table's
/// runs. "Back to the spec's values" forgets the capture chosen.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckoutView {
    /// The capture shown; `None` follows the scenario's telling call.
    pub chosen: Option<u32>,
    /// The saga table's six runs depend on the order, the bulkheads, the threads and the
    /// seed, not on the scenario: kept with the config they were made for ([`saga_key`]),
    /// and shown until the runs of newer settings are in.
    pub saga: Option<(CheckoutConfig, Vec<SagaRow>)>,
}

/// The settings the saga table's runs depend on: `config` with the default scenario.
pub fn saga_key(config: &CheckoutConfig) -> CheckoutConfig {
    CheckoutConfig {
        scenario: CheckoutScenario::default(),
        ..config.clone()
    }
}

impl CheckoutView {
    /// The capture shown of `run`: the one chosen (the run's last if it has fewer), else
    /// the scenario's telling call.
    pub fn shown(&self, run: &CheckoutRun) -> u32 {
        let last = run.payment.calls.max(1) - 1;
        self.chosen
            .map_or_else(|| telling_call(run), |c| c.min(last))
    }

    /// Whether the saga table's runs are those of `config`'s settings.
    pub fn saga_is_for(&self, config: &CheckoutConfig) -> bool {
        self.saga
            .as_ref()
            .is_some_and(|(made_for, _)| *made_for == saga_key(config))
    }

    /// The saga table as kept (an earlier setting's while the new runs are made, its
    /// caption saying which), the row of `config`'s scenario marked; `None` before the
    /// first runs are in.
    pub fn saga_table(&self, config: &CheckoutConfig) -> Option<SagaTable> {
        let (made_for, rows) = self.saga.as_ref()?;
        let shown = CheckoutConfig {
            scenario: config.scenario,
            ..made_for.clone()
        };
        Some(saga_table(&shown, rows))
    }
}

/// What a step of [`Remake`] brought.
#[derive(Debug)]
pub enum Made {
    /// A run; more steps to come.
    Ran,
    /// The saga table's rows, for the settings given.
    Rows(CheckoutConfig, Vec<SagaRow>),
    /// The page's run, for its config (boxed: a run is large, the other answers small).
    Run(Box<CheckoutRun>),
    /// Nothing left to do.
    Done,
}

/// The runs a change asks for, one per step, so no browser task makes more than one: the
/// saga table's six when a setting but the scenario changed (the chosen scenario's is the
/// page's run too), then the page's own run if it is still missing.
pub struct Remake {
    config: CheckoutConfig,
    /// The settings the table's rows are made for, and the rows so far.
    table: Option<(CheckoutConfig, Vec<SagaRow>)>,
    /// The next scenario of the table to run.
    next: usize,
    /// Whether the page waits for the run of `config`.
    wants_run: bool,
    run: Option<CheckoutRun>,
}

impl Remake {
    pub fn new(config: &CheckoutConfig, wants_rows: bool, wants_run: bool) -> Self {
        Self {
            config: config.clone(),
            table: wants_rows.then(|| (saga_key(config), Vec::new())),
            next: 0,
            wants_run,
            run: None,
        }
    }

    /// One run, or what the runs so far made.
    pub fn step(&mut self) -> Made {
        if let Some((key, rows)) = self.table.as_mut() {
            if let Some(&scenario) = CheckoutScenario::ALL.get(self.next) {
                self.next += 1;
                if let Some((row, run)) = saga_row(key, scenario) {
                    rows.push(row);
                    if self.wants_run && scenario == self.config.scenario {
                        self.run = Some(run);
                    }
                }
                return Made::Ran;
            }
            if let Some((key, rows)) = self.table.take() {
                return Made::Rows(key, rows);
            }
        }
        if !self.wants_run {
            return Made::Done;
        }
        if let Some(run) = self.run.take() {
            self.wants_run = false;
            return Made::Run(Box::new(run));
        }
        self.run = checkout::run(&self.config).ok();
        // A config the model refuses (none today) keeps the run shown.
        self.wants_run = self.run.is_some();
        Made::Ran
    }
}

// The views below show the data above as text. Every list item is erased (`into_any`), so
// all the page's lists are one type, `Vec<AnyView>`, and the wasm holds one copy of a
// list's build and update code instead of one per item type: written for the bytes only
// (2.8 KB gzip less for the part, measured; docs/bundles.md). A view is built again only
// when its data changed (a memo in front of it): new elements cost the browser style,
// layout and paint, most of a change's work once the runs were out of its task.

/// A call through its stack.
fn stack_view(stack: Stack) -> impl IntoView {
    let Stack {
        testid,
        title,
        layers,
        attempts,
        gave_up,
        end,
        why,
    } = stack;
    let attempts = attempts
        .into_iter()
        .map(|a| {
            let layers = a
                .layers
                .into_iter()
                .map(|l| view! { <li data-layer=l.layer><b>{l.name}</b>" "{l.did}</li> }.into_any())
                .collect_view();
            view! {
                <li class="attempt">
                    <span class="attempt-head">{a.head}</span>
                    <ol class="layers">{layers}</ol>
                </li>
            }
            .into_any()
        })
        .collect_view();
    view! {
        <section class="panel stack" data-testid=testid>
            <h3>{title}</h3>
            <p class="muted">{layers}</p>
            <ol class="attempts">
                {attempts}
                {gave_up.then_some(view! { <li>"No request thread came free within 1 s: the shopper gave up."</li> })}
            </ol>
            <p class="call-end"><strong>{end.0}</strong>{end.1}" "<span class="muted">"("{why}")"</span></p>
        </section>
    }
}

/// Both breakers' strips and when each opened.
fn strips_view(strips: [Strip; 2], summary: String) -> impl IntoView {
    let strips = strips
        .into_iter()
        .map(|strip| {
            let cells = strip
                .cells
                .into_iter()
                .map(|c| view! { <li data-state=c.state data-t=c.t.map(|t| t.to_string())>{c.letter}</li> }.into_any())
                .collect_view();
            view! {
                <p class="state-strip-label">{strip.label}</p>
                <ol class="state-strip" aria-hidden="true">{cells}</ol>
            }
            .into_any()
        })
        .collect_view();
    view! {
        {strips}
        <p class="summary">{summary}</p>
    }
}

/// The saga table, in a region that scrolls sideways on a narrow screen: made once, a row
/// per scenario, whose texts follow `table` (a change of setting rewrites a few cells, not
/// the table); hidden until the first runs are in.
fn saga_view(table: Memo<Option<SagaTable>>, busy: Signal<bool>) -> impl IntoView {
    let line = move |i: usize, read: fn(&SagaLine) -> String| {
        live(move || {
            table.with(|t| {
                t.as_ref()
                    .and_then(|t| t.lines.get(i))
                    .map(read)
                    .unwrap_or_default()
            })
        })
    };
    let current = move |i: usize, value: &'static str| {
        live_attr(move || {
            table
                .with(|t| {
                    t.as_ref()
                        .and_then(|t| t.lines.get(i))
                        .is_some_and(|l| l.current)
                })
                .then_some(value)
        })
    };
    // One read per cell: the cells of a line in their order.
    const CELLS: [fn(&SagaLine) -> String; 6] = [
        |l| l.cells[0].clone(),
        |l| l.cells[1].clone(),
        |l| l.cells[2].clone(),
        |l| l.cells[3].clone(),
        |l| l.cells[4].clone(),
        |l| l.cells[5].clone(),
    ];
    let lines = (0..CheckoutScenario::ALL.len())
        .map(|i| {
            let cells = CELLS
                .into_iter()
                .map(|read| view! { <td>{line(i, read)}</td> }.into_any())
                .collect_view();
            view! {
                <tr class=current(i, "current") aria-current=current(i, "true")
                    prop:hidden=live_flag(move || table.with(|t| t.as_ref().is_none_or(|t| t.lines.len() <= i)))>
                    <th scope="row">{line(i, |l| l.scenario.to_string())}</th>
                    {cells}
                </tr>
            }
            .into_any()
        })
        .collect_view();
    let caption =
        live(move || table.with(|t| t.as_ref().map(|t| t.caption.clone()).unwrap_or_default()));
    view! {
        <div class="table-scroll" tabindex="0" role="region" aria-label="Saga states per scenario (scrolls sideways)"
            aria-busy=live_attr(move || aria_bool(busy.get()))>
            <table class="saga-table" data-testid="saga-table">
                <caption>{caption}</caption>
                <thead><tr>
                    <th scope="col">"Scenario"</th><th scope="col">"CAPTURED"</th>
                    <th scope="col">"DECLINED"</th><th scope="col">"UNCERTAIN"</th>
                    <th scope="col">"NOT_SENT"</th><th scope="col">"requests"</th>
                    <th scope="col">"breaker at the end"</th>
                </tr></thead>
                <tbody>{lines}</tbody>
            </table>
        </div>
    }
}

/// What each stack counted.
fn counts_view(counts: Counts) -> impl IntoView {
    let lines = counts
        .lines
        .into_iter()
        .map(|l| view! { <dt>{l.term}</dt><dd data-testid=l.testid>{l.text}</dd> }.into_any())
        .collect_view();
    view! {
        <div data-testid="checkout-counts">
            <dl class="figures">{lines}</dl>
            <p>{counts.note}</p>
        </div>
    }
}

/// A control's change: the session takes the value at once (checked by the model) and the
/// runs it asks for are made one per task ([`Remake`]); the page shows the previous runs,
/// marked busy, until the new ones are in. A later change drops the work under way.
fn set_in_slices(
    state: LabState<CheckoutLab>,
    page: RwSignal<CheckoutView>,
    runs: Stepped,
    name: &'static str,
    value: ControlValue,
) {
    let session = state.session;
    let before = session.with_untracked(|s| s.config().clone());
    let mut result = Ok(());
    session.update(|s| result = s.set_deferred(name, value));
    state
        .refused
        .set(result.err().map(|e| message::<CheckoutLab>(&e)));
    if session.with_untracked(|s| *s.config() != before) {
        remake(session, page, runs);
    }
}

/// Starts the runs the page lacks: the saga table's when it is another setting's, the
/// session's own when it is pending. The table's rows are installed first, each in a task
/// of its own (the redraw an install causes is a task's work).
fn remake(session: RwSignal<LabSession<CheckoutLab>>, page: RwSignal<CheckoutView>, runs: Stepped) {
    let Some((lab, pending)) = session.try_with_untracked(|s| (s.config().clone(), s.is_pending()))
    else {
        return;
    };
    let wants_rows = page.with_untracked(|v| !v.saga_is_for(&lab.config));
    let mut work = Remake::new(&lab.config, wants_rows, pending);
    runs.start(Duration::ZERO, move || match work.step() {
        Made::Ran => Step::MoreInNextTask,
        Made::Rows(key, rows) => {
            page.try_update(|v| v.saga = Some((key, rows)));
            Step::MoreInNextTask
        }
        Made::Run(run) => {
            session.try_update(|s| s.install_run(&lab, *run));
            Step::Done
        }
        Made::Done => Step::Done,
    });
}

#[component]
pub fn CheckoutPage(info: LabInfo, location: RwSignal<Location>) -> impl IntoView {
    let (state, problems) = lab_state::<CheckoutLab>(info.number);
    let session = state.session;
    let page = RwSignal::new(CheckoutView::default());
    // Every control makes its runs in slices between frames: the saga table's six and the
    // page's own take more than a frame together.
    let runs = Stepped::new();
    let mut controls = bind_all(state);
    for c in controls.iter_mut() {
        let name = c.name;
        c.change = Callback::new(move |value| set_in_slices(state, page, runs, name, value));
    }
    // The table's first runs, after the page's first drawing.
    remake(session, page, runs);
    let calls = move || session.with(|s| s.run().as_ref().map_or(1, |r| r.payment.calls.max(1)));
    let scenario = Memo::new(move |_| session.with(|s| s.config().config.scenario));
    // Another scenario starts at its own telling call.
    effect(move || {
        scenario.track();
        if page.with_untracked(|v| v.chosen.is_some()) {
            page.update(|v| v.chosen = None);
        }
    });
    let shown = move || page.with(|v| session.with(|s| s.run().as_ref().map_or(0, |r| v.shown(r))));
    // Each view is built again only when what it shows changed, not at every change of
    // the session (a change of setting notifies it twice: its value, then its run).
    let stacks = Memo::new(move |_| {
        let index = shown();
        session.with(|s| {
            s.run()
                .as_ref()
                .map(|run| stacks(run, index))
                .unwrap_or_default()
        })
    });
    let stacks = move || {
        stacks
            .get()
            .into_iter()
            .map(|s| stack_view(s).into_any())
            .collect_view()
    };
    let diagram = live(move || {
        let index = shown();
        session.with(|s| {
            s.run()
                .as_ref()
                .map(|run| diagram_markup(run, index))
                .unwrap_or_default()
        })
    });
    let strips = Memo::new(move |_| {
        session.with(|s| {
            s.run()
                .as_ref()
                .ok()
                .map(|run| (strips(run), breakers_summary(run)))
        })
    });
    let strips = move || {
        strips
            .get()
            .map(|(strips, summary)| strips_view(strips, summary))
    };
    let spec = Signal::from(Memo::new(move |_| {
        session.with(|s| {
            s.run()
                .as_ref()
                .map_or_else(|_| ChartSpec::empty(), permits_chart)
        })
    }));
    let summary = Signal::derive(move || {
        session.with(|s| s.run().as_ref().map(permits_summary).unwrap_or_default())
    });
    // The table follows the page's runs and marks the session's scenario.
    let table =
        Memo::new(move |_| session.with(|s| page.with(|v| v.saga_table(&s.config().config))));
    let table_busy =
        Signal::derive(move || session.with(|s| page.with(|v| !v.saga_is_for(&s.config().config))));
    let counts = Memo::new(move |_| session.with(|s| s.run().as_ref().ok().map(counts)));
    let counts = move || counts.get().map(counts_view);
    let scrub = move |ev: leptos::ev::Event| {
        if let Ok(v) = event_target_value(&ev).parse::<u32>() {
            page.update(|p| p.chosen = Some(v));
        }
    };
    view! {
        // Busy while runs asked for are made in slices: the figures are the last runs'.
        <div class="checkout" data-testid="checkout-page"
            aria-busy=live_attr(move || aria_bool(session.with(LabSession::is_pending) || table_busy.get()))>
        <LabFrame import=NoImport info=info text=&super::CHECKOUT_TEXT location=location tools=tools(info.number, state) controls=controls.clone() refused=state.refused
            reset=Callback::new(move |_| {
                state.reset();
                // The table's runs are kept when they are the spec's settings'.
                page.update(|v| v.chosen = None);
                remake(session, page, runs);
            })
            problems=problems>
            <p class="predict" data-testid="checkout-predict"><strong>"Predict: "</strong>
                {live(move || prediction(scenario.get()).to_string())}</p>
            <section class="panel" aria-labelledby="stacks-heading">
                <h2 id="stacks-heading">"One call through each stack"</h2>
                <label class="pool-scrubber">"Capture shown"
                    <input type="range" data-testid="call-scrubber"
                        min="0" max=live(move || (calls() - 1).to_string()) step="1"
                        prop:value=live(move || shown().to_string())
                        aria-valuetext=live(move || format!("capture order-{}", shown()))
                        on:input=change(scrub) />
                </label>
                <div class="stacks">{stacks}</div>
            </section>
            <Figure spec=spec summary=summary testid="checkout-permits"
                title="Permits left (calls under way with no bulkhead), second by second." />
            <section class="panel" aria-labelledby="breakers-heading">
                <h2 id="breakers-heading">"The breakers"</h2>
                <div inner_html=diagram></div>
                {strips}
            </section>
            <section class="panel" aria-labelledby="saga-heading">
                <h2 id="saga-heading">"What each scenario did to the orders"</h2>
                {saga_view(table, table_busy)}
                {counts}
            </section>
        </LabFrame>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_of(link: &[(&str, &str)]) -> (CheckoutConfig, CheckoutRun) {
        let (lab, run) = super::super::lab_frame::opened::<CheckoutLab>(link);
        (lab.config, run)
    }

    /// The stack's text as the page shows it (its element's `textContent`).
    fn text(s: &Stack) -> String {
        let mut t = format!("{}{}", s.title, s.layers);
        for a in &s.attempts {
            t.push_str(&a.head);
            for l in &a.layers {
                t.push_str(&format!("{} {}", l.name, l.did));
            }
        }
        if s.gave_up {
            t.push_str("No request thread came free within 1 s: the shopper gave up.");
        }
        t + &format!("{}{} ({})", s.end.0, s.end.1, s.why)
    }

    fn has_layer(s: &Stack, layer: &str) -> bool {
        s.attempts
            .iter()
            .any(|a| a.layers.iter().any(|l| l.layer == layer))
    }

    #[test]
    fn a_lost_answer_reads_uncertain_after_one_request() {
        let (_, run) = run_of(&[("scenario", "lost-response")]);
        let index = telling_call(&run);
        assert_eq!(index, 0);
        let s = stack(&run, call(&run, Dependency::Payment, index).unwrap());
        assert_eq!(s.testid, "payment-stack");
        assert_eq!(s.attempts.len(), 1, "{s:?}");
        let provider = &s.attempts[0].layers[2];
        assert_eq!((provider.layer, provider.name), ("provider", "Provider"));
        assert!(
            provider.did.starts_with("SocketTimeoutException"),
            "{provider:?}"
        );
        assert_eq!(s.end.0, "UNCERTAIN");
        assert_eq!(s.layers, "Retry(CircuitBreaker(Bulkhead(call)))");
        assert_eq!(stacks(&run, index)[0], s);
        assert_eq!(stacks(&run, index)[1].testid, "shipping-stack");
    }

    #[test]
    fn a_refused_connection_is_tried_twice_then_not_sent() {
        let (_, run) = run_of(&[("scenario", "connection-reset")]);
        let s = stack(&run, call(&run, Dependency::Payment, 0).unwrap());
        assert_eq!(s.attempts.len(), 2, "{s:?}");
        let retry = s.attempts[0].layers.last().unwrap();
        assert_eq!(
            (retry.layer, retry.did.as_str()),
            ("retry", "tries again in 0.1 s")
        );
        assert_eq!(
            s.attempts[1].head,
            format!("attempt 2 at {} s", seconds(run.calls[0].attempts[1].at))
        );
        assert_eq!(s.end.0, "NOT_SENT");
        // The breaker's state comes before what it did.
        assert_eq!(s.attempts[0].layers[0].did, "(CLOSED) let it through");
    }

    #[test]
    fn the_stall_fills_shippings_bulkhead_and_leaves_payments() {
        let (config, run) = run_of(&[("scenario", "quoter-stall")]);
        let summary = permits_summary(&run);
        assert!(summary.starts_with("Payment never had fewer than 16 of its 20 permits; shipping went down to 0 of its 8."), "{summary}");
        let chart = permits_chart(&run);
        assert_eq!(chart.shade, Some((10.0, 40.0, "quoter stalled")));
        let table = saga_table(&config, &saga_rows(&config));
        let line = |name: &str| table.lines.iter().find(|l| l.scenario == name).unwrap();
        let stall = line("quoter-stall");
        assert!(stall.current);
        assert_eq!(stall.cells[..4], ["600", "0", "0", "0"]);
        assert_eq!(table.lines.iter().filter(|l| l.current).count(), 1);
        assert_eq!(
            line("decline-storm").cells,
            ["0", "100", "0", "0", "100", "CLOSED"]
        );
        // A breaker that opened says when, whatever its state at the end.
        let reset = &line("connection-reset").cells[5];
        assert!(reset.starts_with("OPEN (opened by "), "{reset}");

        let (_, wrong) = run_of(&[
            ("scenario", "quoter-stall"),
            ("order", "breaker-outside-retry"),
            ("bulkheads", "shared"),
        ]);
        assert!(permits_summary(&wrong).contains("went down to 0 permits"));
        let said = breakers_summary(&wrong);
        assert!(
            said.starts_with("The payment breaker was OPEN by"),
            "{said}"
        );
        let strips = strips(&wrong);
        assert_eq!(strips[0].label, "Payment breaker");
        assert!(strips[0]
            .cells
            .iter()
            .any(|c| (c.state, c.letter) == ("open", "O")));
        let counts = counts(&wrong);
        assert!(
            counts.note.contains("takes payment's permits"),
            "{counts:?}"
        );
        assert!(counts.note.contains("one outcome per call"), "{counts:?}");
        // On virtual threads the quoter's connections cap what it holds: the note follows
        // the run, not the choice of a shared bulkhead.
        let (_, on_virtual) = run_of(&[
            ("scenario", "quoter-stall"),
            ("bulkheads", "shared"),
            ("threads", "virtual"),
        ]);
        let counts = super::counts(&on_virtual);
        assert!(counts.note.contains("10 connections cap"), "{counts:?}");
        assert_eq!(on_virtual.payment.not_permitted, 0, "{counts:?}");
        // The old link's `order=wrong` is the same run.
        assert_eq!(
            run_of(&[("scenario", "quoter-stall"), ("order", "wrong")]).1,
            wrong
        );
    }

    /// The strips: a cell per second, every tenth second with its time; the diagram's
    /// state is the payment breaker's at the end of the second the capture arrived in.
    #[test]
    fn the_breakers_strips_and_diagram_follow_the_run() {
        let (_, run) = run_of(&[("scenario", "connection-reset")]);
        for strip in strips(&run) {
            assert_eq!(strip.cells.len(), run.seconds.len());
            let axis: Vec<u32> = strip.cells.iter().filter_map(|c| c.t).collect();
            assert_eq!(axis, [10, 20, 30, 40, 50, 60]);
        }
        let said = breakers_summary(&run);
        assert!(
            said.ends_with("the shipping breaker stayed CLOSED."),
            "{said}"
        );
        let opened = run
            .seconds
            .iter()
            .position(|s| s.payment_breaker == State::Open)
            .unwrap();
        let index = run
            .calls
            .iter()
            .find(|c| c.dependency == Dependency::Payment && (c.arrived / 1_000) as usize == opened)
            .unwrap()
            .index;
        let (now, path) = diagram_at(&run, index).unwrap();
        assert_eq!(now, State::Open);
        assert_eq!(path, [(State::Closed, State::Open)]);
        assert_eq!(diagram_at(&run, u32::MAX), None);
        // Declines are answers: the breaker stays CLOSED.
        let (_, calm) = run_of(&[("scenario", "decline-storm")]);
        assert_eq!(diagram_at(&calm, 0), Some((State::Closed, vec![])));
        assert!(diagram_markup(&run, index).contains("data-testid=\"state-diagram\""));
    }

    /// The page's state: the capture chosen stays within the run, else the telling call;
    /// the saga table's runs are kept with their settings, shown (their caption saying
    /// which) until the runs of newer settings are in.
    #[test]
    fn the_page_state_keeps_the_capture_and_the_tables_runs() {
        let (config, run) = run_of(&[("scenario", "lost-response")]);
        let mut view = CheckoutView::default();
        assert_eq!(view.shown(&run), telling_call(&run));
        view.chosen = Some(12);
        assert_eq!(view.shown(&run), 12);
        view.chosen = Some(u32::MAX);
        assert_eq!(view.shown(&run), run.payment.calls - 1);

        assert_eq!(view.saga_table(&config), None, "no table before its runs");
        assert!(!view.saga_is_for(&config));
        view.saga = Some((saga_key(&config), saga_rows(&config)));
        let table = view.saga_table(&config).unwrap();
        assert_eq!(table.lines.len(), 6);
        let other = CheckoutConfig {
            scenario: CheckoutScenario::GameDay,
            ..config.clone()
        };
        assert!(view.saga_is_for(&other), "kept for another scenario");
        let moved = view.saga_table(&other).unwrap();
        assert!(moved
            .lines
            .iter()
            .any(|l| l.current && l.scenario == "game-day"));
        let shared = CheckoutConfig {
            bulkheads: Bulkheads::Shared,
            ..config.clone()
        };
        assert!(!view.saga_is_for(&shared));
        let kept = view.saga_table(&shared).unwrap();
        assert!(
            kept.caption.contains("bulkheads: separate;"),
            "{}",
            kept.caption
        );
        assert_ne!(view, CheckoutView::default());
    }

    /// A change's runs, one per step: the table's six (the chosen scenario's kept as the
    /// page's run, not made twice), then the page's run; a change of scenario alone, one.
    #[test]
    fn a_change_makes_one_run_per_step() {
        let (config, run) = run_of(&[("scenario", "lost-response"), ("bulkheads", "shared")]);
        let mut work = Remake::new(&config, true, true);
        for _ in CheckoutScenario::ALL {
            assert!(matches!(work.step(), Made::Ran));
        }
        match work.step() {
            Made::Rows(key, rows) => {
                assert_eq!(key, saga_key(&config));
                assert_eq!(rows, saga_rows(&config));
            }
            made => panic!("{made:?}"),
        }
        match work.step() {
            Made::Run(made) => assert_eq!(*made, run),
            made => panic!("{made:?}"),
        }
        assert!(matches!(work.step(), Made::Done));

        let other = CheckoutConfig {
            scenario: CheckoutScenario::GameDay,
            ..config.clone()
        };
        let mut work = Remake::new(&other, false, true);
        assert!(matches!(work.step(), Made::Ran));
        match work.step() {
            Made::Run(made) => assert_eq!(Ok(*made), checkout::run(&other)),
            made => panic!("{made:?}"),
        }
        assert!(matches!(work.step(), Made::Done));
        assert!(matches!(
            Remake::new(&config, false, false).step(),
            Made::Done
        ));
    }

    /// Every combination reads true: the layers in their order, a bulkhead layer only when
    /// there is one, permits only when there are some.
    #[test]
    fn each_order_and_bulkheads_names_its_own_layers() {
        for (order, bulkheads, layers) in [
            (
                "resilience4j",
                "separate",
                "Retry(CircuitBreaker(Bulkhead(call)))",
            ),
            (
                "resilience4j",
                "shared",
                "Retry(CircuitBreaker(Bulkhead (shared)(call)))",
            ),
            ("resilience4j", "none", "Retry(CircuitBreaker(call))"),
            (
                "breaker-outside-retry",
                "separate",
                "CircuitBreaker(Retry(Bulkhead(call)))",
            ),
            (
                "breaker-outside-retry",
                "shared",
                "CircuitBreaker(Retry(Bulkhead (shared)(call)))",
            ),
            (
                "breaker-outside-retry",
                "none",
                "CircuitBreaker(Retry(call))",
            ),
        ] {
            for threads in ["platform", "virtual"] {
                let (config, run) = run_of(&[
                    ("scenario", "quoter-stall"),
                    ("order", order),
                    ("bulkheads", bulkheads),
                    ("threads", threads),
                ]);
                let shown = stacks(&run, telling_call(&run));
                assert!(!shown.is_empty());
                for s in &shown {
                    assert_eq!(s.layers, layers, "{order} {bulkheads}");
                }
                assert_eq!(
                    shown.iter().any(|s| has_layer(s, "bulkhead")),
                    bulkheads != "none",
                    "{shown:?}"
                );
                let chart = permits_chart(&run);
                let summary = permits_summary(&run);
                let counts = counts(&run);
                let payment = &counts.lines[0].text;
                let table = saga_table(&config, &saga_rows(&config));
                assert!(
                    table.caption.ends_with(&format!(
                        "(order: {order}; bulkheads: {bulkheads}; threads: {threads})"
                    )),
                    "{}",
                    table.caption
                );
                if bulkheads == "none" {
                    assert_eq!(chart.y_label, "calls under way");
                    assert!(chart.series.iter().all(|s| !s.label.contains("permits")));
                    assert!(summary.starts_with("No bulkhead, no permits"), "{summary}");
                    assert!(payment.contains("there is no bulkhead"), "{payment}");
                    assert!(counts.lines.iter().all(|l| !l.text.contains("permit")));
                } else {
                    assert_eq!(chart.y_label, "permits left");
                    assert!(chart.reference.is_none());
                    assert!(!summary.contains("No bulkhead"));
                    assert!(payment.contains("; the bulkhead refused "), "{payment}");
                }
            }
        }
    }

    /// No bulkhead, platform threads, the breaker outside the retry: a capture the shopper
    /// gave up on is shown as such, with no layer; on virtual threads the pile-up is the
    /// quoter's.
    #[test]
    fn without_a_bulkhead_the_page_shows_who_waits() {
        let (_, run) = run_of(&[
            ("scenario", "quoter-stall"),
            ("order", "breaker-outside-retry"),
            ("bulkheads", "none"),
        ]);
        let index = telling_call(&run);
        let c = call(&run, Dependency::Payment, index).unwrap();
        assert!(c.attempts.is_empty(), "the first capture given up: {c:?}");
        let s = stack(&run, c);
        assert!(s.gave_up && s.attempts.is_empty(), "{s:?}");
        assert_eq!(
            s.end,
            ("NOT_SENT", ": never sent; the order can be paid later.")
        );
        let shown = text(&s);
        assert!(
            shown.contains(
                "No request thread came free within 1 s: the shopper gave up.NOT_SENT: never sent"
            ),
            "{shown}"
        );
        let summary = permits_summary(&run);
        assert!(
            summary.contains(&format!(
                "{} captures waited 1 s for one of the 40 request threads and were given up",
                run.payment.no_thread
            )),
            "{summary}"
        );
        assert!(run.payment.no_thread > 0);
        let chart = permits_chart(&run);
        assert_eq!(chart.reference, Some((40.0, "40 request threads")));

        let (_, run) = run_of(&[
            ("scenario", "quoter-stall"),
            ("bulkheads", "none"),
            ("threads", "virtual"),
        ]);
        let summary = permits_summary(&run);
        assert!(
            summary.contains("no capture waits for a thread"),
            "{summary}"
        );
        let chart = permits_chart(&run);
        assert_eq!(chart.reference, Some((10.0, "10 connections each")));
        let quotes = chart.series[1]
            .points
            .iter()
            .map(|p| p.1)
            .fold(0.0, f64::max);
        assert!(
            quotes > 10.0,
            "the quotes pile up past the connections: {quotes}"
        );
        let captures = chart.series[0]
            .points
            .iter()
            .map(|p| p.1)
            .fold(0.0, f64::max);
        assert!(captures < 10.0, "{captures}");
    }

    /// A lost answer's counts name the reconciliation, with its own test id.
    #[test]
    fn uncertain_captures_are_reconciled_in_the_counts() {
        let (_, run) = run_of(&[("scenario", "lost-response")]);
        let counts = counts(&run);
        let terms: Vec<_> = counts.lines.iter().map(|l| (l.term, l.testid)).collect();
        assert_eq!(
            terms,
            [
                ("Payment", None),
                ("Reconciliation", Some("checkout-reconciled")),
                ("Shipping", None)
            ]
        );
        assert!(counts.lines[1].text.starts_with(&format!(
            "{} UNCERTAIN captures",
            run.payment.saga.uncertain
        )));
        let (_, run) = run_of(&[]);
        assert_eq!(super::counts(&run).lines.len(), 2);
    }
}
