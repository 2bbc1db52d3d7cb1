//! Demo 13: payment and shipping. One call of each dependency travelling through its stack,
//! layer by layer (the breaker's verdict, the bulkhead's permits, the provider's answer,
//! the retry's decision and why); both bulkheads' permits side by side, or with no
//! bulkhead the calls under way; the payment breaker's state diagram; the saga states of
//! every scenario under the chosen order, bulkheads and threads. The engine computes every
//! number; this module writes it as chart specs and HTML text.

use leptos::prelude::*;
use resilience_sim::model::checkout::{
    self, AttemptTrace, Bulkheads, CallTrace, CheckoutConfig, CheckoutRun, CheckoutScenario,
    Dependency, QuoteResult, SagaState, SagaTally, StackOrder, Threads, PLATFORM_THREADS,
    STALL_FROM_MS, STALL_UNTIL_MS,
};
use resilience_sim::policy::circuit_breaker::State;
use resilience_sim::scenario::catalogue::LabInfo;
use resilience_sim::scenario::checkout_lab::CheckoutLab;
use resilience_sim::Outcome;

use super::lab_frame::{lab_state, tools, LabFrame};
use crate::components::{bind_all, Figure};
use crate::format::seconds;
use crate::nav::Location;
use crate::views::breaker::diagram;
use crate::views::chart::{ChartSpec, Series, Stroke, Tone};
use crate::views::html::{change, live, live_html, Html};
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
    }
}

fn state_word(state: State) -> &'static str {
    state.as_str()
}

/// One attempt, as a list of what each layer did.
fn attempt_html(
    run: &CheckoutRun,
    number: usize,
    a: &AttemptTrace,
    permits: Option<u32>,
    h: &mut String,
) {
    h.raw("<li class=\"attempt\"><span class=\"attempt-head\">attempt ")
        .num(number as u64)
        .raw(" at ")
        .text(&seconds(a.at))
        .raw(" s")
        .raw("</span><ol class=\"layers\">");
    let breaker = if run.order == StackOrder::BreakerOutsideRetry && number > 1 {
        "asked once, for the whole call"
    } else if a.permitted {
        "let it through"
    } else {
        "refused it: CallNotPermittedException"
    };
    h.raw("<li data-layer=\"breaker\"><b>CircuitBreaker</b> (")
        .raw(state_word(a.breaker_state))
        .raw(") ")
        .raw(breaker)
        .raw("</li>");
    if let (true, Some(permits)) = (a.permitted, permits) {
        h.raw("<li data-layer=\"bulkhead\"><b>Bulkhead</b> ");
        match (a.rejected, a.permits_left) {
            (true, _) => {
                h.raw("refused it: BulkheadFullException, no permit came within 20 ms");
            }
            (false, Some(left)) => {
                h.raw("gave a permit: ")
                    .num(left.into())
                    .raw(" of ")
                    .num(permits.into())
                    .raw(" left");
            }
            (false, None) => {
                h.raw("was not reached");
            }
        }
        h.raw("</li>");
    }
    if a.provider_request {
        h.raw("<li data-layer=\"provider\"><b>Provider</b> ")
            .raw(outcome_words(a.outcome))
            .raw(" after ")
            .text(&seconds(a.duration))
            .raw(" s")
            .raw("</li>");
    } else if a.permitted && !a.rejected && a.outcome == Outcome::ConnectFailure {
        h.raw("<li data-layer=\"provider\"><b>Connection pool</b> no connection free within the 200 ms connect timeout</li>");
    }
    h.raw("<li data-layer=\"retry\"><b>Retry</b> ");
    match a.retry_after {
        Some(wait) => {
            h.raw("tries again in ").text(&seconds(wait)).raw(" s");
        }
        None => {
            h.raw("stops here");
        }
    }
    h.raw("</li></ol></li>");
}

/// A call through its stack: the layers' names in their order, each attempt, the end.
pub fn call_html(run: &CheckoutRun, c: &CallTrace, h: &mut String) {
    let (title, permits) = match c.dependency {
        Dependency::Payment => ("Payment: capture order-", run.payment_permits),
        Dependency::Shipping => ("Shipping: quote ", run.shipping_permits),
    };
    h.raw("<section class=\"panel stack\" data-testid=\"")
        .raw(match c.dependency {
            Dependency::Payment => "payment-stack",
            Dependency::Shipping => "shipping-stack",
        })
        .raw("\"><h3>")
        .raw(title)
        .num(c.index.into())
        .raw(" at ")
        .text(&seconds(c.arrived))
        .raw(" s")
        .raw("</h3><p class=\"muted\">");
    // The layers in their order: `Retry(CircuitBreaker(Bulkhead(call)))`.
    h.raw(match run.order {
        StackOrder::Resilience4j => "Retry(CircuitBreaker(",
        StackOrder::BreakerOutsideRetry => "CircuitBreaker(Retry(",
    })
    .raw(match run.bulkheads {
        Bulkheads::Separate => "Bulkhead(call)",
        Bulkheads::Shared => "Bulkhead (shared)(call)",
        Bulkheads::None => "call",
    })
    .raw("))</p><ol class=\"attempts\">");
    for (i, attempt) in c.attempts.iter().enumerate() {
        attempt_html(run, i + 1, attempt, permits, h);
    }
    // A call with no attempt never had a request thread: the shopper gave up.
    let gave_up = c.attempts.is_empty();
    if gave_up {
        h.raw("<li>No request thread came free within 1 s: the shopper gave up.</li>");
    }
    h.raw("</ol><p class=\"call-end\"><strong>");
    match (c.saga, c.quote) {
        (Some(SagaState::NotSent), _) if gave_up => {
            h.raw("NOT_SENT</strong>: never sent; the order can be paid later.");
        }
        (None, Some(QuoteResult::Estimate)) if gave_up => {
            h.raw("Agreed estimate</strong>: shown by the shopper's page.");
        }
        (Some(state), _) => {
            h.raw(state.name()).raw("</strong>: ").raw(match state {
                SagaState::Captured => "the provider answered that it captured.",
                SagaState::Declined => "the provider answered no: a business answer, not a failure; nothing is retried or counted.",
                SagaState::Uncertain => "no answer, and the provider may have captured: the saga keeps the seat and reconciles by the idempotency key. Never retried, never reported as captured.",
                SagaState::NotSent => "the capture never reached the provider: the fallback answers with a typed error, and the order can be paid later.",
            });
        }
        (None, Some(q)) => {
            h.raw(match q {
                QuoteResult::Live => "Live quote",
                QuoteResult::Estimate => "Agreed estimate",
                QuoteResult::Hidden => "Quote hidden",
            })
            .raw("</strong>: ")
            .raw(match q {
                QuoteResult::Live => "the quoter answered.",
                QuoteResult::Estimate => "the fallback shows the agreed estimate (physical goods).",
                QuoteResult::Hidden => "digital goods: checkout goes on without a quote.",
            });
        }
        (None, None) => {}
    }
    h.raw(" <span class=\"muted\">(")
        .text(&c.why)
        .raw(")</span></p></section>");
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

/// Both breakers' states, one cell per second (a letter as well as a colour), every tenth
/// second labelled with its time.
pub fn states_html(run: &CheckoutRun, h: &mut String) {
    for (name, payment) in [("Payment breaker", true), ("Shipping breaker", false)] {
        h.raw("<p class=\"state-strip-label\">")
            .raw(name)
            .raw("</p><ol class=\"state-strip\" aria-hidden=\"true\">");
        for s in &run.seconds {
            let state = if payment {
                s.payment_breaker
            } else {
                s.shipping_breaker
            };
            let (class, letter) = match state {
                State::Open => ("open", "O"),
                State::HalfOpen => ("half-open", "H"),
                _ => ("closed", "C"),
            };
            h.raw("<li data-state=\"").raw(class);
            // Every tenth second carries its time, drawn under the cell: the strip's axis.
            if s.t_s % 10 == 0 {
                h.raw("\" data-t=\"").num(s.t_s.into());
            }
            h.raw("\">").raw(letter).raw("</li>");
        }
        h.raw("</ol>");
    }
    let opened = |payment: bool| {
        run.seconds
            .iter()
            .find(|s| {
                (if payment {
                    s.payment_breaker
                } else {
                    s.shipping_breaker
                }) == State::Open
            })
            .map(|s| s.t_s)
    };
    h.raw("<p class=\"summary\">");
    for (name, payment) in [
        ("The payment breaker", true),
        ("the shipping breaker", false),
    ] {
        h.raw(name);
        match opened(payment) {
            Some(t) => {
                h.raw(" was OPEN by ").num(t.into()).raw(" s");
            }
            None => {
                h.raw(" stayed CLOSED");
            }
        }
        h.raw(if payment { "; " } else { "." });
    }
    h.raw("</p>");
}

/// The payment breaker's state diagram at the end of the second payment call `index`
/// arrived in, with the transition into it.
pub fn diagram_html(run: &CheckoutRun, index: u32, h: &mut String) {
    let Some(c) = call(run, Dependency::Payment, index) else {
        return;
    };
    let second = (c.arrived / 1_000) as usize;
    let Some(now) = run.seconds.get(second) else {
        return;
    };
    let before = second
        .checked_sub(1)
        .and_then(|i| run.seconds.get(i))
        .map_or(State::Closed, |s| s.payment_breaker);
    let path: Vec<(State, State)> = if before != now.payment_breaker {
        vec![(before, now.payment_breaker)]
    } else {
        Vec::new()
    };
    diagram(
        &checkout::payment_breaker_config(),
        now.payment_breaker,
        &path,
        "30 s",
        "in this second",
        h,
    );
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
        .filter_map(|scenario| {
            let run = checkout::run(&CheckoutConfig {
                scenario,
                ..config.clone()
            })
            .ok()?;
            Some(SagaRow {
                scenario,
                saga: run.payment.saga,
                provider_requests: run.payment.provider_requests,
                breaker_state_end: run.payment.breaker_state_end,
                breaker_open_by: run
                    .seconds
                    .iter()
                    .find(|s| s.payment_breaker == State::Open)
                    .map(|s| s.t_s),
            })
        })
        .collect()
}

/// The saga table of `rows`, the row of `config`'s scenario marked.
pub fn saga_table_html(config: &CheckoutConfig, rows: &[SagaRow], h: &mut String) {
    h.raw("<div class=\"table-scroll\" tabindex=\"0\" role=\"region\" aria-label=\"Saga states per scenario (scrolls sideways)\"><table class=\"saga-table\" data-testid=\"saga-table\"><caption>Captures by saga state, per scenario (order: ")
        .text(config.order.name())
        .raw("; bulkheads: ")
        .text(config.bulkheads.name())
        .raw("; threads: ")
        .text(config.threads.name())
        .raw(")</caption><thead><tr><th scope=\"col\">Scenario</th><th scope=\"col\">CAPTURED</th><th scope=\"col\">DECLINED</th><th scope=\"col\">UNCERTAIN</th><th scope=\"col\">NOT_SENT</th><th scope=\"col\">requests</th><th scope=\"col\">breaker at the end</th></tr></thead><tbody>");
    for row in rows {
        let saga = row.saga;
        h.raw(if row.scenario == config.scenario {
            "<tr class=\"current\" aria-current=\"true\"><th scope=\"row\">"
        } else {
            "<tr><th scope=\"row\">"
        })
        .raw(row.scenario.name())
        .raw("</th>");
        for n in [
            saga.captured,
            saga.declined,
            saga.uncertain,
            saga.not_sent,
            row.provider_requests,
        ] {
            h.raw("<td>").num(n.into()).raw("</td>");
        }
        h.raw("<td>").raw(state_word(row.breaker_state_end));
        // The end state alone hides when it opened (the text says "OPEN by 12 s").
        if let Some(t) = row.breaker_open_by {
            h.raw(" (opened by ").num(t.into()).raw(" s)");
        }
        h.raw("</td></tr>");
    }
    h.raw("</tbody></table></div>");
}

/// What each stack counted in this run (the CLI's figures), and why the order matters.
pub fn counts_html(run: &CheckoutRun, h: &mut String) {
    let p = &run.payment;
    let s = &run.shipping;
    h.raw("<div data-testid=\"checkout-counts\"><dl class=\"figures\"><dt>Payment</dt><dd>")
        .num(p.calls.into())
        .raw(" captures, ")
        .num(p.attempts.into())
        .raw(" attempts, ")
        .num(p.provider_requests.into())
        .raw(" provider requests, ")
        .num(p.retries.into())
        .raw(" retries; the breaker recorded ")
        .num(p.breaker_recorded_calls.into())
        .raw(" calls (")
        .num(p.breaker_recorded_failures.into())
        .raw(" failures) and refused ")
        .num(p.not_permitted.into());
    if run.bulkheads == Bulkheads::None {
        h.raw("; there is no bulkhead");
    } else {
        h.raw("; the bulkhead refused ")
            .num(p.bulkhead_rejected.into());
    }
    h.raw(". The provider captured ")
        .num(p.provider_captures.into())
        .raw(" times.</dd>");
    if p.saga.uncertain > 0 {
        // What our side could not know when the read timed out: the provider's record.
        h.raw("<dt>Reconciliation</dt><dd data-testid=\"checkout-reconciled\">")
            .num(p.saga.uncertain.into())
            .raw(" UNCERTAIN captures, looked up by their idempotency key: ")
            .num(p.reconciled.captured.into())
            .raw(" CAPTURED by the provider (the seat is sold, only the answer was lost), ")
            .num(p.reconciled.not_captured.into())
            .raw(" NOT_CAPTURED (release the seat or ask the shopper to pay again).</dd>");
    }
    h.raw("<dt>Shipping</dt><dd>")
        .num(s.calls.into())
        .raw(" quotes: ")
        .num(s.quotes.live.into())
        .raw(" live, ")
        .num(s.quotes.estimate.into())
        .raw(" agreed estimates; ")
        .num(s.provider_requests.into())
        .raw(" requests to the quoter, ")
        .num(s.retries.into())
        .raw(" retries. ")
        .num(run.digital_orders.into())
        .raw(" orders of digital goods needed no shipping and asked for ")
        .num(run.quotes_from_digital.into())
        .raw(" quotes.</dd></dl><p>")
        .raw(match run.order {
            StackOrder::Resilience4j => "Resilience4j's order: the breaker records every attempt, and once open stops the remaining attempts at once.",
            StackOrder::BreakerOutsideRetry => "The breaker outside the retry records one outcome per call: a refusing provider gets twice the requests before it opens.",
        })
        .raw(" ")
        .raw(match run.bulkheads {
            Bulkheads::Separate => "A bulkhead each: what a stalled quoter holds, payment does not lose.",
            Bulkheads::Shared => "One shared bulkhead: a stalled quoter takes payment's permits, and payment's breaker counts the refusals as failures.",
            Bulkheads::None => "No bulkhead: only the threads, or the connections, limit the calls to a stalled quoter.",
        })
        .raw("</p></div>");
}

#[component]
pub fn CheckoutPage(info: LabInfo, location: RwSignal<Location>) -> impl IntoView {
    let (state, problems) = lab_state::<CheckoutLab>(info.number);
    let session = state.session;
    let controls = bind_all(state);
    let calls = move || session.with(|s| s.run().as_ref().map_or(1, |r| r.payment.calls.max(1)));
    // The call shown; `None` follows the scenario's telling call.
    let chosen = RwSignal::new(None::<u32>);
    let scenario = Memo::new(move |_| session.with(|s| s.config().config.scenario));
    Effect::new(move |_| {
        scenario.track();
        chosen.set(None);
    });
    let shown = move || {
        let last = calls() - 1;
        chosen.get().map_or_else(
            || session.with(|s| s.run().as_ref().map_or(0, telling_call)),
            |c| c.min(last),
        )
    };
    let stacks = live_html(move || {
        let mut h = String::new();
        let index = shown();
        session.with(|s| {
            if let Ok(run) = s.run() {
                if let Some(c) = call(run, Dependency::Payment, index) {
                    call_html(run, c, &mut h);
                }
                if let Some(c) = quote_for(run, index) {
                    call_html(run, c, &mut h);
                }
            }
        });
        h
    });
    let breaker = live_html(move || {
        let mut h = String::new();
        let index = shown();
        session.with(|s| {
            if let Ok(run) = s.run() {
                diagram_html(run, index, &mut h);
                states_html(run, &mut h);
            }
        });
        h
    });
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
    // The six runs depend on the order, the bulkheads, the threads and the seed, not on the
    // scenario:
    // kept for the settings they were made for.
    let rows = StoredValue::new(None::<(CheckoutConfig, Vec<SagaRow>)>);
    let table = live_html(move || {
        let mut h = String::new();
        session.with(|s| {
            let config = &s.config().config;
            let key = CheckoutConfig {
                scenario: CheckoutScenario::default(),
                ..config.clone()
            };
            rows.update_value(|rows| {
                if rows.as_ref().is_none_or(|(made_for, _)| *made_for != key) {
                    let made = saga_rows(&key);
                    *rows = Some((key, made));
                }
            });
            rows.with_value(|rows| {
                let made = rows.as_ref().map_or(&[][..], |(_, made)| made.as_slice());
                saga_table_html(config, made, &mut h);
            });
        });
        h
    });
    let counts = live_html(move || {
        let mut h = String::new();
        session.with(|s| s.run().iter().for_each(|run| counts_html(run, &mut h)));
        h
    });
    let scrub = move |ev: leptos::ev::Event| {
        if let Ok(v) = event_target_value(&ev).parse::<u32>() {
            chosen.set(Some(v));
        }
    };
    view! {
        <LabFrame import=NoImport info=info text=&super::CHECKOUT_TEXT location=location tools=tools(info.number, state) controls=controls.clone() refused=state.refused
            reset=Callback::new(move |_| state.reset()) problems=problems>
            <p class="predict" data-testid="checkout-predict"><strong>"Predict: "</strong>
                {move || prediction(scenario.get())}</p>
            <section class="panel" aria-labelledby="stacks-heading">
                <h2 id="stacks-heading">"One call through each stack"</h2>
                <label class="pool-scrubber">"Capture shown"
                    <input type="range" data-testid="call-scrubber"
                        min="0" max=live(move || (calls() - 1).to_string()) step="1"
                        prop:value=live(move || shown().to_string())
                        aria-valuetext=live(move || format!("capture order-{}", shown()))
                        on:input=change(scrub) />
                </label>
                <div class="stacks" inner_html=stacks></div>
            </section>
            <Figure spec=spec summary=summary testid="checkout-permits"
                title="Permits left (calls under way with no bulkhead), second by second." />
            <section class="panel" aria-labelledby="breakers-heading">
                <h2 id="breakers-heading">"The breakers"</h2>
                <div inner_html=breaker></div>
            </section>
            <section class="panel" aria-labelledby="saga-heading">
                <h2 id="saga-heading">"What each scenario did to the orders"</h2>
                <div inner_html=table></div>
                <div inner_html=counts></div>
            </section>
        </LabFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_of(link: &[(&str, &str)]) -> (CheckoutConfig, CheckoutRun) {
        let (lab, run) = super::super::lab_frame::opened::<CheckoutLab>(link);
        (lab.config, run)
    }

    #[test]
    fn a_lost_answer_reads_uncertain_after_one_request() {
        let (_, run) = run_of(&[("scenario", "lost-response")]);
        let index = telling_call(&run);
        assert_eq!(index, 0);
        let mut h = String::new();
        call_html(
            &run,
            call(&run, Dependency::Payment, index).unwrap(),
            &mut h,
        );
        assert_eq!(h.matches("class=\"attempt\"").count(), 1, "{h}");
        assert!(h.contains("SocketTimeoutException"), "{h}");
        assert!(h.contains("<strong>UNCERTAIN</strong>"), "{h}");
        assert!(h.contains("Retry(CircuitBreaker(Bulkhead(call)))"), "{h}");
        assert!(!h.contains("style="), "no inline style under the CSP");
    }

    #[test]
    fn a_refused_connection_is_tried_twice_then_not_sent() {
        let (_, run) = run_of(&[("scenario", "connection-reset")]);
        let mut h = String::new();
        call_html(&run, call(&run, Dependency::Payment, 0).unwrap(), &mut h);
        assert_eq!(h.matches("class=\"attempt\"").count(), 2, "{h}");
        assert!(h.contains("tries again in 0.1 s"), "{h}");
        assert!(h.contains("<strong>NOT_SENT</strong>"), "{h}");
    }

    #[test]
    fn the_stall_fills_shippings_bulkhead_and_leaves_payments() {
        let (config, run) = run_of(&[("scenario", "quoter-stall")]);
        let summary = permits_summary(&run);
        assert!(summary.starts_with("Payment never had fewer than 16 of its 20 permits; shipping went down to 0 of its 8."), "{summary}");
        let chart = permits_chart(&run);
        assert_eq!(chart.shade, Some((10.0, 40.0, "quoter stalled")));
        let mut table = String::new();
        saga_table_html(&config, &saga_rows(&config), &mut table);
        assert!(table.contains("<tr class=\"current\" aria-current=\"true\"><th scope=\"row\">quoter-stall</th><td>600</td><td>0</td><td>0</td><td>0</td>"), "{table}");
        assert!(table.contains("<th scope=\"row\">decline-storm</th><td>0</td><td>100</td><td>0</td><td>0</td><td>100</td><td>CLOSED</td>"), "{table}");
        // A breaker that opened says when, whatever its state at the end.
        assert!(
            table.contains("<th scope=\"row\">connection-reset</th>"),
            "{table}"
        );
        assert!(table.contains("<td>OPEN (opened by "), "{table}");

        let (_, wrong) = run_of(&[
            ("scenario", "quoter-stall"),
            ("order", "breaker-outside-retry"),
            ("bulkheads", "shared"),
        ]);
        assert!(permits_summary(&wrong).contains("went down to 0 permits"));
        let mut h = String::new();
        states_html(&wrong, &mut h);
        assert!(h.contains("The payment breaker was OPEN by"), "{h}");
        let mut h = String::new();
        counts_html(&wrong, &mut h);
        assert!(h.contains("shared bulkhead"), "{h}");
        assert!(h.contains("one outcome per call"), "{h}");
        // The old link's `order=wrong` is the same run.
        assert_eq!(
            run_of(&[("scenario", "quoter-stall"), ("order", "wrong")]).1,
            wrong
        );
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
                let index = telling_call(&run);
                let mut h = String::new();
                call_html(
                    &run,
                    call(&run, Dependency::Payment, index).unwrap(),
                    &mut h,
                );
                if let Some(q) = quote_for(&run, index) {
                    call_html(&run, q, &mut h);
                }
                assert!(h.contains(layers), "{order} {bulkheads}: {h}");
                assert_eq!(
                    h.contains("data-layer=\"bulkhead\""),
                    bulkheads != "none",
                    "{h}"
                );
                let chart = permits_chart(&run);
                let summary = permits_summary(&run);
                let mut counts = String::new();
                counts_html(&run, &mut counts);
                let mut table = String::new();
                saga_table_html(&config, &saga_rows(&config), &mut table);
                assert!(
                    table.contains(&format!(
                        "(order: {order}; bulkheads: {bulkheads}; threads: {threads})"
                    )),
                    "{table}"
                );
                if bulkheads == "none" {
                    assert_eq!(chart.y_label, "calls under way");
                    assert!(chart.series.iter().all(|s| !s.label.contains("permits")));
                    assert!(summary.starts_with("No bulkhead, no permits"), "{summary}");
                    assert!(counts.contains("there is no bulkhead"), "{counts}");
                    assert!(!counts.contains("permit"), "{counts}");
                } else {
                    assert_eq!(chart.y_label, "permits left");
                    assert!(chart.reference.is_none());
                    assert!(!summary.contains("No bulkhead"));
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
        let mut h = String::new();
        call_html(&run, c, &mut h);
        assert!(h.contains("No request thread came free within 1 s"), "{h}");
        assert!(h.contains("<strong>NOT_SENT</strong>: never sent"), "{h}");
        assert!(!h.contains("data-layer"), "{h}");
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
}
