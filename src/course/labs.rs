//! The retry labs (Demos 8 and 9): controls for every parameter of
//! ../shared/spec/02-retry-labs.md, charts of the engine's runs, and text summaries. The
//! engine computes every number; this page turns runs into chart specs and sentences.
//!
//! Built for a small wasm, like the tick demos (see `views::html`), and further:
//!
//! - the page is HTML text ([`page_html`]), set once with `inner_html`: no typed view per
//!   control, no signal, memo or derived signal per value;
//! - the page's [`State`] (the lab's config and the page's own choices) lives in one
//!   `Rc<RefCell<_>>`; one boxed handler per event kind (`input`, `change`, `click`) sits on
//!   the page's body and reads which control the event came from (its `data-testid`);
//! - a change runs the engine, redraws both charts and rewrites the texts at once, inside
//!   the handler ([`refresh`]); the one effect draws the charts the first time, once the
//!   canvases are laid out. Controls that the page itself moves (Back to the spec's values,
//!   New seed, a backoff of "none") are brought in line by [`sync_controls`];
//! - numbers are written without the standard float formatting and read with
//!   [`parse_number`] (several KB of wasm each).

use std::cell::RefCell;
use std::rc::Rc;

use leptos::html::Div;
use leptos::prelude::*;
use resilience_sim::model::amplification::{
    self, AmplificationConfig, AmplificationPolicy, AmplificationRun, AmplificationStep,
    BackoffKind,
};
use resilience_sim::model::jitter::{self, JitterConfig, JitterRun, JitterSlot};
use resilience_sim::policy::retry::calls_on_provider;
use resilience_sim::policy::retry::interval::Jitter;
use resilience_sim::scenario::catalogue::{self, Lab, LabInfo};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::Element;

use crate::app::{DemoLink, Location};
use crate::course::{self, LabText};
use crate::settings_form::parse_number;
use crate::views::chart::{self, ChartSpec, Series, Tone};
use crate::views::html::{change, click, effect, Html};

/// Everything the page shows that can change: the lab's config and the page's choices.
/// Both configs are here (a page uses one); it keeps every function below non-generic.
#[derive(Clone, PartialEq)]
struct State {
    lab: Lab,
    amp: AmplificationConfig,
    jit: JitterConfig,
    /// Lab B: show all four jitter modes.
    overlay: bool,
    /// The retry-layers widget of Lab A.
    layers: u32,
    attempts: u32,
    /// The sequence New seed draws from.
    seeds: u64,
}

impl State {
    fn new(lab: Lab) -> Self {
        State {
            lab,
            amp: AmplificationConfig::default(),
            jit: JitterConfig::default(),
            overlay: false,
            layers: 3,
            attempts: 3,
            seeds: 1,
        }
    }
}

/// One slider: reads and writes one number of the state.
struct Control {
    label: &'static str,
    unit: &'static str,
    min: f64,
    max: f64,
    step: f64,
    testid: &'static str,
    get: fn(&State) -> f64,
    set: fn(&mut State, f64),
}

const AMPLIFICATION_CONTROLS: [Control; 9] = [
    Control {
        label: "Demand",
        unit: "requests/s",
        min: 100.0,
        max: 5000.0,
        step: 100.0,
        testid: "amp-0",
        get: |s| f64::from(s.amp.demand_per_second),
        set: |s, v| s.amp.demand_per_second = v as u32,
    },
    Control {
        label: "Headroom above demand",
        unit: "%",
        min: 0.0,
        max: 100.0,
        step: 5.0,
        testid: "amp-1",
        get: |s| s.amp.headroom_percent,
        set: |s, v| s.amp.headroom_percent = v,
    },
    Control {
        label: "Capacity while degraded",
        unit: "% of normal",
        min: 10.0,
        max: 100.0,
        step: 5.0,
        testid: "amp-2",
        get: |s| s.amp.degraded_capacity_percent,
        set: |s, v| s.amp.degraded_capacity_percent = v,
    },
    Control {
        label: "Degradation starts at",
        unit: "s",
        min: 0.0,
        max: 30.0,
        step: 1.0,
        testid: "amp-3",
        get: |s| s.amp.degradation_start_ms as f64 / 1000.0,
        set: |s, v| s.amp.degradation_start_ms = (v * 1000.0) as u64,
    },
    Control {
        label: "Degradation lasts",
        unit: "s",
        min: 1.0,
        max: 30.0,
        step: 1.0,
        testid: "amp-4",
        get: |s| s.amp.degradation_ms as f64 / 1000.0,
        set: |s, v| s.amp.degradation_ms = (v * 1000.0) as u64,
    },
    Control {
        label: "Wasted work when overloaded",
        unit: "×",
        min: 0.0,
        max: 3.0,
        step: 0.1,
        testid: "amp-5",
        get: |s| s.amp.waste,
        set: |s, v| s.amp.waste = v,
    },
    Control {
        label: "Retries per request (red line)",
        unit: "",
        min: 1.0,
        max: 10.0,
        step: 1.0,
        testid: "amp-6",
        get: |s| f64::from(s.amp.retries),
        set: |s, v| s.amp.retries = v as u32,
    },
    Control {
        label: "Retry budget (blue line)",
        unit: "% of requests",
        min: 1.0,
        max: 50.0,
        step: 1.0,
        testid: "amp-7",
        get: |s| s.amp.budget_percent,
        set: |s, v| s.amp.budget_percent = v,
    },
    Control {
        label: "Backoff base",
        unit: "ms",
        min: 100.0,
        max: 5000.0,
        step: 100.0,
        testid: "amp-8",
        get: |s| s.amp.backoff_base_ms as f64,
        set: |s, v| s.amp.backoff_base_ms = v as u64,
    },
];

const JITTER_CONTROLS: [Control; 5] = [
    Control {
        label: "Clients failing at t = 0",
        unit: "",
        min: 100.0,
        max: 5000.0,
        step: 100.0,
        testid: "jit-0",
        get: |s| f64::from(s.jit.clients),
        set: |s, v| s.jit.clients = v as u32,
    },
    Control {
        label: "Server capacity",
        unit: "calls per 100 ms",
        min: 10.0,
        max: 1000.0,
        step: 10.0,
        testid: "jit-1",
        get: |s| f64::from(s.jit.capacity_per_slot),
        set: |s, v| s.jit.capacity_per_slot = v as u32,
    },
    Control {
        label: "Backoff base",
        unit: "ms",
        min: 100.0,
        max: 5000.0,
        step: 100.0,
        testid: "jit-2",
        get: |s| s.jit.base_ms as f64,
        set: |s, v| s.jit.base_ms = v as u64,
    },
    Control {
        label: "Backoff multiplier",
        unit: "×",
        min: 1.0,
        max: 4.0,
        step: 0.1,
        testid: "jit-3",
        get: |s| s.jit.multiplier,
        set: |s, v| s.jit.multiplier = v,
    },
    Control {
        label: "Seed",
        unit: "",
        min: 1.0,
        max: 999.0,
        step: 1.0,
        testid: "jit-4",
        get: |s| s.jit.seed as f64,
        set: |s, v| s.jit.seed = v as u64,
    },
];

/// The retry-layers widget: its numbers do not run the lab.
const LAYER_CONTROLS: [Control; 2] = [
    Control {
        label: "Layers that retry",
        unit: "",
        min: 1.0,
        max: 6.0,
        step: 1.0,
        testid: "layers",
        get: |s| f64::from(s.layers),
        set: |s, v| s.layers = v as u32,
    },
    Control {
        label: "Attempts per layer",
        unit: "",
        min: 1.0,
        max: 6.0,
        step: 1.0,
        testid: "attempts",
        get: |s| f64::from(s.attempts),
        set: |s, v| s.attempts = v as u32,
    },
];

/// The lab's sliders (not the retry-layers widget's).
fn controls(lab: Lab) -> &'static [Control] {
    match lab {
        Lab::Amplification => &AMPLIFICATION_CONTROLS,
        Lab::Jitter => &JITTER_CONTROLS,
    }
}

const JITTER_MODES: [(Jitter, &str, &str); 4] = [
    (Jitter::None, "none", "no jitter"),
    (Jitter::Full, "full", "full jitter"),
    (Jitter::Equal, "equal", "equal jitter"),
    (Jitter::Decorrelated, "decorrelated", "decorrelated jitter"),
];
const JITTER_TONES: [Tone; 4] = [Tone::Red, Tone::Blue, Tone::Orange, Tone::Purple];

const BACKOFFS: [(BackoffKind, &str, &str); 3] = [
    (BackoffKind::None, "none", "none (retry at once)"),
    (BackoffKind::Fixed, "fixed", "fixed"),
    (BackoffKind::Exponential, "exponential", "exponential (×2)"),
];

/// The charts of each lab: test id and caption title.
const CHARTS: [[(&str, &str); 2]; 2] = [
    [
        ("amp-successes", "Successes per second."),
        ("amp-offered", "Load offered to the provider."),
    ],
    [
        ("jit-calls", "Calls per 100 ms slot."),
        ("jit-waiting", "Clients still waiting."),
    ],
];

fn charts_of(lab: Lab) -> &'static [(&'static str, &'static str); 2] {
    &CHARTS[usize::from(lab == Lab::Jitter)]
}

// ---------------------------------------------------------------------------------------
// Numbers as text, without the standard float formatting.

/// `v` (0 or more) to `tenths` decimal places (0 or 1), rounded half to even on its exact
/// binary value, exactly as `format!("{v:.1}")` and `format!("{v:.0}")` write it.
fn fixed(v: f64, tenths: bool) -> String {
    let scale: u128 = if tenths { 10 } else { 1 };
    // v = mantissa x 2^exponent, exactly.
    // Not `clamp`: a NaN reads as 0.
    let bits = if v > 0.0 { v.min(1e15) } else { 0.0 }.to_bits();
    let biased = (bits >> 52) as i32;
    let fraction = u128::from(bits & ((1 << 52) - 1));
    let (mantissa, exponent) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | 1 << 52, biased - 1075)
    };
    let scaled = mantissa * scale;
    let n = if exponent >= 0 {
        scaled << exponent
    } else if exponent <= -120 {
        0
    } else {
        let shift = -exponent;
        let n = scaled >> shift;
        let rest = scaled - (n << shift);
        let half = 1u128 << (shift - 1);
        n + u128::from(rest > half || (rest == half && n % 2 == 1))
    } as u64;
    let mut out = String::new();
    if tenths {
        out.num(n / 10).raw(".").num(n % 10);
    } else {
        out.num(n);
    }
    out
}

/// A slider's value: whole, or with one decimal when it has a fraction.
fn trim(v: f64) -> String {
    fixed(v, v.fract() != 0.0)
}

/// Milliseconds as seconds with one decimal (`15.0`).
fn seconds(ms: u64) -> String {
    fixed(ms as f64 / 1000.0, true)
}

// ---------------------------------------------------------------------------------------
// Runs into chart specs and sentences.

fn policy_tone(p: AmplificationPolicy) -> Tone {
    match p {
        AmplificationPolicy::None => Tone::Grey,
        AmplificationPolicy::Retries => Tone::Red,
        AmplificationPolicy::Budget => Tone::Blue,
    }
}

fn policy_label(p: AmplificationPolicy, config: &AmplificationConfig) -> String {
    let mut out = String::new();
    match p {
        AmplificationPolicy::None => out.raw("no retries"),
        AmplificationPolicy::Retries => {
            out.num(config.retries.into()).raw(if config.retries == 1 {
                " retry"
            } else {
                " retries"
            })
        }
        AmplificationPolicy::Budget => out
            .raw("budget ")
            .raw(&trim(config.budget_percent))
            .raw("%"),
    };
    out
}

/// The sentence under the successes chart, one clause per policy.
fn amplification_summary(runs: &[AmplificationRun; 3], config: &AmplificationConfig) -> String {
    let mut out = String::new();
    for run in runs {
        if !out.is_empty() {
            out.push(' ');
        }
        let mut calls = fixed(run.amplification(), true);
        calls.push_str(" calls per request");
        out.raw("With ").raw(&policy_label(run.policy, config));
        match (
            run.recovered_at_ms,
            run.success_percent_after_trigger(config.demand_per_second),
        ) {
            (Some(at), Some(share)) => out
                .raw(", the provider recovers at ")
                .raw(&seconds(at))
                .raw(" s and successes average ")
                .raw(&fixed(share, false))
                .raw(" % of demand after the trigger ("),
            (None, Some(share)) => out
                .raw(", the provider never recovers: successes stay at ")
                .raw(&fixed(share, false))
                .raw(" % of demand after the trigger ends ("),
            _ => out.raw(", the degradation lasts to the end of the run ("),
        };
        out.raw(&calls).raw(").");
    }
    out
}

fn offered_summary(runs: &[AmplificationRun; 3], config: &AmplificationConfig) -> String {
    let mut out = String::new();
    for run in runs {
        if !out.is_empty() {
            out.push(' ');
        }
        out.raw(&policy_label(run.policy, config))
            .raw(": ")
            .num(run.totals.calls)
            .raw(" calls for ")
            .num(run.totals.requests)
            .raw(" requests.");
    }
    out
}

fn mode_name(j: Jitter) -> &'static str {
    JITTER_MODES.iter().find(|m| m.0 == j).map_or("", |m| m.2)
}

fn jitter_summary(runs: &[JitterRun], config: &JitterConfig) -> String {
    let mut out = String::new();
    for run in runs {
        if !out.is_empty() {
            out.push(' ');
        }
        out.raw("With ")
            .raw(mode_name(run.jitter))
            .raw(", the server absorbed ")
            .num(run.total_calls)
            .raw(" calls for ")
            .num(run.clients.into())
            .raw(" clients and ");
        match run.all_served_at_ms {
            Some(at) => out
                .raw("everyone was served by ")
                .raw(&seconds(at))
                .raw(" s."),
            None => out
                .num(run.waiting_at_end.into())
                .raw(" were still waiting at ")
                .raw(&fixed(config.duration_ms as f64 / 1000.0, false))
                .raw(" s."),
        };
    }
    out
}

fn waiting_summary(runs: &[JitterRun]) -> String {
    let mut out = String::new();
    for run in runs {
        if !out.is_empty() {
            out.push(' ');
        }
        out.raw(mode_name(run.jitter))
            .raw(": ")
            .num(run.waiting_at_end.into())
            .raw(" waiting at the end.");
    }
    out
}

/// One line per policy: `value` of each step, per second, against time in seconds.
fn amplification_series(
    runs: &[AmplificationRun; 3],
    config: &AmplificationConfig,
    value: fn(&AmplificationStep) -> u64,
) -> Vec<Series> {
    runs.iter()
        .map(|r| Series {
            label: policy_label(r.policy, config),
            tone: policy_tone(r.policy),
            points: r
                .steps
                .iter()
                .map(|s| (s.t_ms as f64 / 1000.0, value(s) as f64))
                .collect(),
        })
        .collect()
}

/// One line per jitter mode shown: `value` of each slot against time in seconds.
fn jitter_series(runs: &[JitterRun], value: fn(&JitterSlot) -> u32) -> Vec<Series> {
    runs.iter()
        .map(|r| {
            let i = JITTER_MODES
                .iter()
                .position(|m| m.0 == r.jitter)
                .unwrap_or(0);
            Series {
                label: JITTER_MODES[i].2.into(),
                tone: JITTER_TONES[i],
                points: r
                    .slots
                    .iter()
                    .map(|s| (s.t_ms as f64 / 1000.0, f64::from(value(s))))
                    .collect(),
            }
        })
        .collect()
}

fn highest(series: &[Series], floor: f64) -> f64 {
    series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(floor, f64::max)
}

/// The two charts of the lab and their summaries, from the engine's runs of `state`, or
/// the engine's message when a setting is out of its range.
fn compute(state: &State) -> Result<[(ChartSpec, String); 2], String> {
    match state.lab {
        Lab::Amplification => {
            let cfg = &state.amp;
            let runs = amplification::run_all(cfg).map_err(|e| e.to_string())?;
            let x_max = cfg.duration_ms as f64 / 1000.0;
            let shade = Some((
                runs[0].degradation_start_ms as f64 / 1000.0,
                runs[0].degradation_end_ms as f64 / 1000.0,
                "degradation",
            ));
            let successes = amplification_series(&runs, cfg, |s| s.succeeded);
            let offered = amplification_series(&runs, cfg, |s| s.offered);
            let demand = f64::from(cfg.demand_per_second);
            let capacity = cfg.normal_capacity_per_second();
            Ok([
                (
                    ChartSpec {
                        x_label: "time (s)",
                        y_label: "successes per second",
                        x_max,
                        y_max: highest(&successes, demand) * 1.15,
                        series: successes,
                        shade,
                        reference: Some((demand, "demand")),
                    },
                    amplification_summary(&runs, cfg),
                ),
                (
                    ChartSpec {
                        x_label: "time (s)",
                        y_label: "calls offered per second",
                        x_max,
                        y_max: highest(&offered, capacity) * 1.1,
                        series: offered,
                        shade,
                        reference: Some((capacity, "normal capacity")),
                    },
                    offered_summary(&runs, cfg),
                ),
            ])
        }
        Lab::Jitter => {
            let cfg = &state.jit;
            // The mode chosen, or all four (each run well under a millisecond).
            let mut runs = Vec::with_capacity(4);
            for (mode, _, _) in JITTER_MODES {
                if state.overlay || mode == cfg.jitter {
                    let mut c = cfg.clone();
                    c.jitter = mode;
                    runs.push(jitter::run(&c).map_err(|e| e.to_string())?);
                }
            }
            let x_max = cfg.duration_ms as f64 / 1000.0 + 0.1;
            let capacity = f64::from(cfg.capacity_per_slot);
            let calls = jitter_series(&runs, |s| s.calls);
            Ok([
                (
                    ChartSpec {
                        x_label: "time (s)",
                        y_label: "calls per 100 ms",
                        x_max,
                        y_max: highest(&calls, capacity) * 1.1,
                        series: calls,
                        shade: None,
                        reference: Some((capacity, "capacity")),
                    },
                    jitter_summary(&runs, cfg),
                ),
                (
                    ChartSpec {
                        x_label: "time (s)",
                        y_label: "clients still waiting",
                        x_max,
                        y_max: f64::from(cfg.clients) * 1.05,
                        series: jitter_series(&runs, |s| s.waiting),
                        shade: None,
                        reference: None,
                    },
                    waiting_summary(&runs),
                ),
            ])
        }
    }
}

// ---------------------------------------------------------------------------------------
// The page as HTML.

fn slider_html(h: &mut String, c: &Control, state: &State) {
    let value = (c.get)(state);
    h.raw("<div class=\"control\"><label for=\"control-")
        .raw(c.testid)
        .raw("\">")
        .raw(c.label)
        .raw("</label><input type=\"range\" id=\"control-")
        .raw(c.testid)
        .raw("\" data-testid=\"")
        .raw(c.testid)
        .raw("\" min=\"")
        .raw(&trim(c.min))
        .raw("\" max=\"")
        .raw(&trim(c.max))
        .raw("\" step=\"")
        .raw(&trim(c.step))
        .raw("\" value=\"")
        .raw(&trim(value))
        .raw("\"><output>")
        .raw(&output_text(c, value))
        .raw("</output></div>");
}

fn output_text(c: &Control, value: f64) -> String {
    let mut text = trim(value);
    if !c.unit.is_empty() {
        text.push(' ');
        text.push_str(c.unit);
    }
    text
}

/// A labelled select; `options` are (value, text) and `chosen` is the selected value.
fn select_html<'a>(
    h: &mut String,
    testid: &str,
    label: &str,
    options: &mut dyn Iterator<Item = (&'a str, &'a str)>,
    chosen: &str,
    disabled: bool,
) {
    h.raw("<div class=\"control\"><label for=\"")
        .raw(testid)
        .raw("\">")
        .raw(label)
        .raw("</label><select id=\"")
        .raw(testid)
        .raw("\" data-testid=\"")
        .raw(testid)
        .raw(if disabled { "\" disabled>" } else { "\">" });
    for (value, text) in options {
        h.raw("<option value=\"")
            .raw(value)
            .raw(if value == chosen {
                "\" selected>"
            } else {
                "\">"
            })
            .raw(text)
            .raw("</option>");
    }
    h.raw("</select></div>");
}

fn backoff_name(kind: BackoffKind) -> &'static str {
    BACKOFFS
        .iter()
        .find(|b| b.0 == kind)
        .map_or("none", |b| b.1)
}

fn jitter_name(j: Jitter) -> &'static str {
    JITTER_MODES
        .iter()
        .find(|m| m.0 == j)
        .map_or("none", |m| m.1)
}

fn jitter_select(h: &mut String, testid: &str, label: &str, chosen: Jitter, disabled: bool) {
    let mut options = JITTER_MODES.iter().map(|m| (m.1, m.2));
    select_html(
        h,
        testid,
        label,
        &mut options,
        jitter_name(chosen),
        disabled,
    );
}

/// The whole page but the pager: header, controls, charts, the retry-layers widget and
/// what to take away. `charts` are the first run's, so the summaries are there at once.
fn page_html(
    info: &LabInfo,
    text: Option<&LabText>,
    state: &State,
    charts: &Result<[(ChartSpec, String); 2], String>,
    dark: bool,
) -> String {
    let mut h = String::with_capacity(8192);
    let number = u64::from(info.number);
    h.raw("<header class=\"demo-header\"><p class=\"demo-kicker\">Demo ")
        .num(number)
        .raw(" · retry lab</p><h1 id=\"demo-heading\" data-testid=\"demo-heading\" tabindex=\"-1\">Demo ")
        .num(number)
        .raw(": ")
        .text(info.title)
        .raw("</h1>");
    if let Some(t) = text {
        course::guide_html(&mut h, t.intro, t.watch, t.predict);
    }
    h.raw("</header><section class=\"lab-controls\" aria-label=\"Lab controls\">");
    let prefix = match state.lab {
        Lab::Amplification => {
            for c in &AMPLIFICATION_CONTROLS {
                slider_html(&mut h, c, state);
            }
            let mut options = BACKOFFS.iter().map(|b| (b.1, b.2));
            let backoff = backoff_name(state.amp.backoff);
            select_html(
                &mut h,
                "amp-backoff",
                "Backoff of the retries",
                &mut options,
                backoff,
                false,
            );
            let no_backoff = state.amp.backoff == BackoffKind::None;
            jitter_select(
                &mut h,
                "amp-jitter",
                "Jitter of the retries",
                state.amp.jitter,
                no_backoff,
            );
            "amp"
        }
        Lab::Jitter => {
            jitter_select(&mut h, "jitter-mode", "Jitter", state.jit.jitter, false);
            for c in &JITTER_CONTROLS {
                slider_html(&mut h, c, state);
            }
            h.raw("<div class=\"control checkbox\"><label><input type=\"checkbox\" data-testid=\"jitter-overlay\"")
                .raw(if state.overlay { " checked" } else { "" })
                .raw("> Show all four modes</label></div><button type=\"button\" data-testid=\"new-seed\" data-action=\"seed\">New seed</button>");
            "jit"
        }
    };
    h.raw("<button type=\"button\" data-action=\"reset\">Back to the spec's values</button></section><p class=\"error\" role=\"alert\" data-testid=\"")
        .raw(prefix)
        .raw("-error\">");
    if let Err(message) = charts {
        h.text(message);
    }
    h.raw("</p>");
    for (i, (testid, title)) in charts_of(state.lab).iter().enumerate() {
        h.raw("<figure class=\"chart\" data-testid=\"")
            .raw(testid)
            .raw("\"><canvas aria-hidden=\"true\" data-testid=\"")
            .raw(testid)
            .raw("-canvas\"></canvas><ul class=\"legend\" aria-hidden=\"true\">");
        if let Ok(charts) = charts {
            chart::legend_html(&charts[i].0, dark, &mut h);
        }
        h.raw("</ul><figcaption><strong>")
            .raw(title)
            .raw("</strong> <span data-testid=\"")
            .raw(testid)
            .raw("-summary\">");
        if let Ok(charts) = charts {
            h.text(&charts[i].1);
        }
        h.raw("</span></figcaption></figure>");
    }
    if state.lab == Lab::Amplification {
        h.raw("<section class=\"panel retry-layers\" aria-labelledby=\"layers-heading\"><h2 id=\"layers-heading\">Retry at one layer only</h2><div class=\"lab-controls\">");
        for c in &LAYER_CONTROLS {
            slider_html(&mut h, c, state);
        }
        h.raw("</div><p class=\"layers-result\" aria-live=\"polite\">One click becomes <strong data-testid=\"layers-calls\">")
            .num(calls_on_provider(state.layers, state.attempts))
            .raw("</strong> calls on the provider.</p><p class=\"muted\">Retry close to the failing dependency, with few attempts, inside the caller's deadline; let the other layers fail fast.</p></section>");
    }
    if let Some(t) = text {
        h.raw("<section class=\"outcome\" aria-labelledby=\"lessons-heading\"><h2 id=\"lessons-heading\">What to take away</h2><ul>");
        for lesson in t.lessons {
            h.raw("<li>").text(lesson).raw("</li>");
        }
        h.raw("</ul><p class=\"muted\">")
            .text(t.model)
            .raw("</p></section>");
    }
    h
}

// ---------------------------------------------------------------------------------------
// Keeping the page in step with the state.

/// The element of the page with this `data-testid`.
fn find(body: &Element, testid: &str) -> Option<Element> {
    let mut selector = String::with_capacity(testid.len() + 16);
    selector.raw("[data-testid=\"").raw(testid).raw("\"]");
    body.query_selector(&selector).ok().flatten()
}

/// Sets a control's `value` property (what it shows, unlike the attribute).
fn set_value(element: &Element, value: &str) {
    let _ = web_sys::js_sys::Reflect::set(
        element,
        &JsValue::from_str("value"),
        &JsValue::from_str(value),
    );
}

/// Shows the state on every control: after Back to the spec's values, New seed, or a
/// backoff of "none" (which turns jitter off).
fn sync_controls(body: &Element, state: &State) {
    for c in controls(state.lab).iter().chain(&LAYER_CONTROLS) {
        if let Some(input) = find(body, c.testid) {
            let value = (c.get)(state);
            set_value(&input, &trim(value));
            if let Some(output) = input.next_element_sibling() {
                output.set_text_content(Some(&output_text(c, value)));
            }
        }
    }
    let selects = match state.lab {
        Lab::Amplification => [
            ("amp-backoff", backoff_name(state.amp.backoff)),
            ("amp-jitter", jitter_name(state.amp.jitter)),
        ],
        Lab::Jitter => [("jitter-mode", jitter_name(state.jit.jitter)); 2],
    };
    for (testid, value) in selects {
        if let Some(select) = find(body, testid) {
            set_value(&select, value);
        }
    }
    if let Some(select) = find(body, "amp-jitter") {
        let _ = if state.amp.backoff == BackoffKind::None {
            select.set_attribute("disabled", "")
        } else {
            select.remove_attribute("disabled")
        };
    }
}

/// Runs the lab and shows the run: both charts redrawn (their `data-render-count` counts
/// the redraws), legends and summaries rewritten. A setting the engine refuses shows its
/// message and leaves the last good charts.
fn refresh(body: &Element, state: &State, renders: &mut u32) {
    let prefix = if state.lab == Lab::Amplification {
        "amp-error"
    } else {
        "jit-error"
    };
    match compute(state) {
        Ok(charts) => {
            if let Some(error) = find(body, prefix) {
                error.set_text_content(None);
            }
            draw_charts(body, state.lab, &charts, renders);
        }
        Err(message) => {
            if let Some(error) = find(body, prefix) {
                error.set_text_content(Some(&message));
            }
        }
    }
}

fn draw_charts(body: &Element, lab: Lab, charts: &[(ChartSpec, String); 2], renders: &mut u32) {
    let dark = chart::dark_mode();
    let mut drawn = false;
    let mut id = String::new();
    for ((spec, summary), (testid, _)) in charts.iter().zip(charts_of(lab)) {
        id.clear();
        id.raw(testid).raw("-canvas");
        let Some(canvas) = find(body, &id) else {
            continue;
        };
        let canvas: web_sys::HtmlCanvasElement = canvas.unchecked_into();
        if chart::draw(&canvas, spec, dark).is_some() {
            if !drawn {
                *renders += 1;
                drawn = true;
            }
            let mut count = String::new();
            let _ = canvas.set_attribute("data-render-count", count.num((*renders).into()));
        }
        if let Some(legend) = canvas.next_element_sibling() {
            let mut h = String::new();
            chart::legend_html(spec, dark, &mut h);
            legend.set_inner_html(&h);
        }
        id.clear();
        id.raw(testid).raw("-summary");
        if let Some(span) = find(body, &id) {
            span.set_text_content(Some(summary));
        }
    }
}

/// What a change to one control does to the state. `None`: the control is not one of the
/// page's, or its value is unusable.
fn apply_input(state: &mut State, testid: &str, value: &str, checked: bool) -> Option<()> {
    match testid {
        "amp-backoff" => {
            let kind = BACKOFFS.iter().find(|b| b.1 == value)?.0;
            state.amp.backoff = kind;
            if kind == BackoffKind::None {
                state.amp.jitter = Jitter::None;
            }
        }
        "amp-jitter" => state.amp.jitter = JITTER_MODES.iter().find(|m| m.1 == value)?.0,
        "jitter-mode" => state.jit.jitter = JITTER_MODES.iter().find(|m| m.1 == value)?.0,
        "jitter-overlay" => state.overlay = checked,
        _ => {
            let c = controls(state.lab)
                .iter()
                .chain(&LAYER_CONTROLS)
                .find(|c| c.testid == testid)?;
            let v = parse_number(value).filter(|v| v.is_finite())?;
            (c.set)(state, v.clamp(c.min, c.max));
        }
    }
    Some(())
}

#[component]
pub fn LabPage(info: LabInfo, location: RwSignal<Location>) -> impl IntoView {
    let previous = Some(info.number - 1).filter(|n| catalogue::exists(*n));
    let next = Some(info.number + 1).filter(|n| catalogue::exists(*n));
    let state = State::new(info.lab);
    let first = compute(&state);
    let html = page_html(
        &info,
        crate::course::lab_text(info.number),
        &state,
        &first,
        chart::dark_mode(),
    );
    let state = Rc::new(RefCell::new(state));
    let renders = Rc::new(RefCell::new(0u32));

    // An input or change anywhere in the page's body: which control, and what it does.
    let on_input = {
        let (state, renders) = (state.clone(), renders.clone());
        Rc::new(move |ev: leptos::ev::Event| {
            let (Some(target), Some(body)) = (ev.target(), ev.current_target()) else {
                return;
            };
            let (target, body): (Element, Element) =
                (target.unchecked_into(), body.unchecked_into());
            let Some(testid) = target.get_attribute("data-testid") else {
                return;
            };
            let mut state = state.borrow_mut();
            let before = state.clone();
            let value = event_target_value(&ev);
            let checked = testid == "jitter-overlay" && event_target_checked(&ev);
            if apply_input(&mut state, &testid, &value, checked).is_none() || *state == before {
                // Nothing changed: the other event of the same change (a select sends
                // `input` and `change`), or a value the slider cannot take.
                return;
            }
            if let Some(output) = target
                .next_element_sibling()
                .filter(|o| o.tag_name() == "OUTPUT")
            {
                if let Some(c) = controls(state.lab)
                    .iter()
                    .chain(&LAYER_CONTROLS)
                    .find(|c| c.testid == testid)
                {
                    output.set_text_content(Some(&output_text(c, (c.get)(&state))));
                }
            }
            if testid == "layers" || testid == "attempts" {
                if let Some(calls) = find(&body, "layers-calls") {
                    let mut n = String::new();
                    calls.set_text_content(Some(
                        n.num(calls_on_provider(state.layers, state.attempts)),
                    ));
                }
                return;
            }
            if testid == "amp-backoff" {
                sync_controls(&body, &state);
            }
            refresh(&body, &state, &mut renders.borrow_mut());
        })
    };
    let on_change = on_input.clone();
    let on_click = {
        let state = state.clone();
        let renders = renders.clone();
        move |ev: leptos::ev::MouseEvent| {
            let (Some(target), Some(body)) = (ev.target(), ev.current_target()) else {
                return;
            };
            let (target, body): (Element, Element) =
                (target.unchecked_into(), body.unchecked_into());
            let mut state = state.borrow_mut();
            match target.get_attribute("data-action").as_deref() {
                Some("reset") => {
                    let lab = state.lab;
                    let fresh = State::new(lab);
                    state.amp = fresh.amp;
                    state.jit = fresh.jit;
                }
                Some("seed") => {
                    // A new seed from a fixed sequence: reproducible.
                    state.seeds = state
                        .seeds
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    state.jit.seed = (state.seeds >> 33) % 999 + 1;
                }
                _ => return,
            }
            sync_controls(&body, &state);
            refresh(&body, &state, &mut renders.borrow_mut());
        }
    };

    // The first drawing, once the canvases are in the page and laid out.
    let body = NodeRef::<Div>::new();
    let mut first = first.ok();
    effect(move || {
        if let Some(element) = body.get() {
            if let Some(charts) = first.take() {
                draw_charts(&element, info.lab, &charts, &mut renders.borrow_mut());
            }
        }
    });

    view! {
        <article class="lab" aria-labelledby="demo-heading">
            <div class="lab-body" node_ref=body
                on:input=change(move |ev| on_input(ev))
                on:change=change(move |ev| on_change(ev))
                on:click=click(on_click)
                inner_html=html></div>
            <nav class="demo-pager" aria-label="Previous and next demo">
                {previous.map(|n| view! { <DemoLink number=n location=location testid="previous-demo" label=format!("← Demo {n}") /> })}
                {next.map(|n| view! { <DemoLink number=n location=location testid="next-demo" label=format!("Demo {n} →") /> })}
            </nav>
        </article>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_the_standard_formatting_writes_them() {
        for i in 0..=5000u32 {
            let v = f64::from(i) / 40.0;
            assert_eq!(fixed(v, true), format!("{v:.1}"), "{v}");
            assert_eq!(fixed(v, false), format!("{v:.0}"), "{v}");
        }
        for v in [0.1, 1.1, 2.3, 3.0, 100.0, 57.1, 1.05, 12.25] {
            assert_eq!(fixed(v, true), format!("{v:.1}"), "{v}");
        }
        assert_eq!(trim(3.0), "3");
        assert_eq!(trim(0.1), "0.1");
        assert_eq!(trim(2.5), "2.5");
        assert_eq!(trim(5000.0), "5000");
        assert_eq!(seconds(15_000), "15.0");
        assert_eq!(seconds(15_400), "15.4");
        assert_eq!(seconds(2_900), "2.9");
    }

    #[test]
    fn sliders_take_every_value_of_their_range() {
        let mut state = State::new(Lab::Amplification);
        for c in AMPLIFICATION_CONTROLS
            .iter()
            .chain(&JITTER_CONTROLS)
            .chain(&LAYER_CONTROLS)
        {
            let steps = ((c.max - c.min) / c.step).round() as u32;
            for i in 0..=steps {
                let text = trim(c.min + f64::from(i) * c.step);
                let lab = if c.testid.starts_with("jit") {
                    Lab::Jitter
                } else {
                    Lab::Amplification
                };
                state.lab = lab;
                assert_eq!(apply_input(&mut state, c.testid, &text, false), Some(()));
                assert_eq!(trim((c.get)(&state)), text, "{}", c.testid);
            }
        }
    }

    #[test]
    fn the_default_runs_tell_the_spec_story() {
        let state = State::new(Lab::Amplification);
        let [(successes, summary), (offered, _)] = compute(&state).unwrap();
        assert!(
            summary.contains("With 3 retries, the provider never recovers"),
            "{summary}"
        );
        assert!(
            summary.contains("With no retries, the provider recovers at 15.0 s"),
            "{summary}"
        );
        assert_eq!(successes.series.len(), 3);
        assert_eq!(offered.reference.map(|r| r.1), Some("normal capacity"));

        let mut state = State::new(Lab::Jitter);
        let [(calls, none), _] = compute(&state).unwrap();
        assert!(none.contains("still waiting at 15 s"), "{none}");
        assert_eq!(calls.series.len(), 1);
        apply_input(&mut state, "jitter-mode", "full", false);
        let [_, (_, waiting)] = compute(&state).unwrap();
        assert!(waiting.starts_with("full jitter: 0 waiting"), "{waiting}");
        apply_input(&mut state, "jitter-overlay", "on", true);
        let [(calls, all), _] = compute(&state).unwrap();
        assert_eq!(calls.series.len(), 4);
        assert!(all.contains("everyone was served by"), "{all}");
    }

    #[test]
    fn the_page_has_every_control_and_its_summaries() {
        for lab in [Lab::Amplification, Lab::Jitter] {
            let info = *catalogue::LABS.iter().find(|l| l.lab == lab).unwrap();
            let state = State::new(lab);
            let html = page_html(
                &info,
                crate::course::lab_text(info.number),
                &state,
                &compute(&state),
                false,
            );
            let ids: Vec<&str> = match lab {
                Lab::Amplification => vec![
                    "amp-0",
                    "amp-8",
                    "amp-backoff",
                    "amp-jitter",
                    "amp-error",
                    "amp-successes-canvas",
                    "amp-successes-summary",
                    "amp-offered-canvas",
                    "amp-offered-summary",
                    "layers",
                    "attempts",
                    "layers-calls",
                ],
                Lab::Jitter => vec![
                    "jitter-mode",
                    "jit-0",
                    "jit-4",
                    "jitter-overlay",
                    "new-seed",
                    "jit-error",
                    "jit-calls-canvas",
                    "jit-calls-summary",
                    "jit-waiting-canvas",
                    "jit-waiting-summary",
                ],
            };
            for id in ids {
                assert!(html.contains(&format!("data-testid=\"{id}\"")), "{id}");
            }
            assert!(html.contains("the provider never recovers") || html.contains("still waiting"));
        }
    }
}
