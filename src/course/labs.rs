//! The retry labs (Demos 8 and 9): controls for every parameter of
//! ../shared/spec/02-retry-labs.md, charts of the engine's runs, and text summaries. The
//! engine computes every number; this page turns runs into chart specs and sentences.

use leptos::prelude::*;
use resilience_sim::model::amplification::{
    self, AmplificationConfig, AmplificationPolicy, AmplificationRun, BackoffKind,
};
use resilience_sim::model::jitter::{self, JitterConfig, JitterRun};
use resilience_sim::policy::retry::calls_on_provider;
use resilience_sim::policy::retry::interval::Jitter;
use resilience_sim::scenario::catalogue::{self, Lab, LabInfo};

use crate::app::{DemoLink, Location};

use crate::views::chart::{Chart, ChartSpec, Series, Tone};

/// One slider of a lab: reads and writes one field of the lab's config.
struct Control<C: 'static> {
    label: &'static str,
    unit: &'static str,
    min: f64,
    max: f64,
    step: f64,
    get: fn(&C) -> f64,
    set: fn(&mut C, f64),
}

#[component]
fn Slider(
    label: &'static str,
    unit: &'static str,
    min: f64,
    max: f64,
    step: f64,
    value: Signal<f64>,
    on_input: Callback<f64>,
    testid: String,
) -> impl IntoView {
    let id = format!("control-{testid}");
    view! {
        <div class="control">
            <label for=id.clone()>{label}</label>
            <input type="range" id=id min=min max=max step=step data-testid=testid
                prop:value=move || value.get().to_string()
                on:input=move |ev| {
                    if let Ok(v) = event_target_value(&ev).parse::<f64>() {
                        if v.is_finite() { on_input.run(v.clamp(min, max)) }
                    }
                } />
            <output>{move || format!("{} {unit}", trim(value.get()))}</output>
        </div>
    }
}

fn trim(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

fn sliders<C: Clone + 'static + Send + Sync>(
    config: RwSignal<C>,
    controls: &'static [Control<C>],
    prefix: &'static str,
) -> impl IntoView {
    controls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let value = Signal::derive(move || config.with(|cfg| (c.get)(cfg)));
            let on_input = Callback::new(move |v: f64| config.update(|cfg| (c.set)(cfg, v)));
            view! { <Slider label=c.label unit=c.unit min=c.min max=c.max step=c.step value=value on_input=on_input testid=format!("{prefix}-{i}") /> }
        })
        .collect_view()
}

const AMPLIFICATION_CONTROLS: [Control<AmplificationConfig>; 9] = [
    Control {
        label: "Demand",
        unit: "requests/s",
        min: 100.0,
        max: 5000.0,
        step: 100.0,
        get: |c| f64::from(c.demand_per_second),
        set: |c, v| c.demand_per_second = v as u32,
    },
    Control {
        label: "Headroom above demand",
        unit: "%",
        min: 0.0,
        max: 100.0,
        step: 5.0,
        get: |c| c.headroom_percent,
        set: |c, v| c.headroom_percent = v,
    },
    Control {
        label: "Capacity while degraded",
        unit: "% of normal",
        min: 10.0,
        max: 100.0,
        step: 5.0,
        get: |c| c.degraded_capacity_percent,
        set: |c, v| c.degraded_capacity_percent = v,
    },
    Control {
        label: "Degradation starts at",
        unit: "s",
        min: 0.0,
        max: 30.0,
        step: 1.0,
        get: |c| c.degradation_start_ms as f64 / 1000.0,
        set: |c, v| c.degradation_start_ms = (v * 1000.0) as u64,
    },
    Control {
        label: "Degradation lasts",
        unit: "s",
        min: 1.0,
        max: 30.0,
        step: 1.0,
        get: |c| c.degradation_ms as f64 / 1000.0,
        set: |c, v| c.degradation_ms = (v * 1000.0) as u64,
    },
    Control {
        label: "Wasted work when overloaded",
        unit: "×",
        min: 0.0,
        max: 3.0,
        step: 0.1,
        get: |c| c.waste,
        set: |c, v| c.waste = v,
    },
    Control {
        label: "Retries per request (red line)",
        unit: "",
        min: 1.0,
        max: 10.0,
        step: 1.0,
        get: |c| f64::from(c.retries),
        set: |c, v| c.retries = v as u32,
    },
    Control {
        label: "Retry budget (blue line)",
        unit: "% of requests",
        min: 1.0,
        max: 50.0,
        step: 1.0,
        get: |c| c.budget_percent,
        set: |c, v| c.budget_percent = v,
    },
    Control {
        label: "Backoff base",
        unit: "ms",
        min: 100.0,
        max: 5000.0,
        step: 100.0,
        get: |c| c.backoff_base_ms as f64,
        set: |c, v| c.backoff_base_ms = v as u64,
    },
];

const JITTER_CONTROLS: [Control<JitterConfig>; 5] = [
    Control {
        label: "Clients failing at t = 0",
        unit: "",
        min: 100.0,
        max: 5000.0,
        step: 100.0,
        get: |c| f64::from(c.clients),
        set: |c, v| c.clients = v as u32,
    },
    Control {
        label: "Server capacity",
        unit: "calls per 100 ms",
        min: 10.0,
        max: 1000.0,
        step: 10.0,
        get: |c| f64::from(c.capacity_per_slot),
        set: |c, v| c.capacity_per_slot = v as u32,
    },
    Control {
        label: "Backoff base",
        unit: "ms",
        min: 100.0,
        max: 5000.0,
        step: 100.0,
        get: |c| c.base_ms as f64,
        set: |c, v| c.base_ms = v as u64,
    },
    Control {
        label: "Backoff multiplier",
        unit: "×",
        min: 1.0,
        max: 4.0,
        step: 0.1,
        get: |c| c.multiplier,
        set: |c, v| c.multiplier = v,
    },
    Control {
        label: "Seed",
        unit: "",
        min: 1.0,
        max: 999.0,
        step: 1.0,
        get: |c| c.seed as f64,
        set: |c, v| c.seed = v as u64,
    },
];

const JITTER_MODES: [(Jitter, &str, &str); 4] = [
    (Jitter::None, "none", "no jitter"),
    (Jitter::Full, "full", "full jitter"),
    (Jitter::Equal, "equal", "equal jitter"),
    (Jitter::Decorrelated, "decorrelated", "decorrelated jitter"),
];

fn jitter_name(j: Jitter) -> &'static str {
    JITTER_MODES
        .iter()
        .find(|m| m.0 == j)
        .map_or("none", |m| m.1)
}

fn jitter_from(name: &str) -> Option<Jitter> {
    JITTER_MODES.iter().find(|m| m.1 == name).map(|m| m.0)
}

fn policy_tone(p: AmplificationPolicy) -> Tone {
    match p {
        AmplificationPolicy::None => Tone::Grey,
        AmplificationPolicy::Retries => Tone::Red,
        AmplificationPolicy::Budget => Tone::Blue,
    }
}

fn policy_label(p: AmplificationPolicy, config: &AmplificationConfig) -> String {
    match p {
        AmplificationPolicy::None => "no retries".into(),
        AmplificationPolicy::Retries if config.retries == 1 => "1 retry".into(),
        AmplificationPolicy::Retries => format!("{} retries", config.retries),
        AmplificationPolicy::Budget => format!("budget {}%", trim(config.budget_percent)),
    }
}

fn percent(v: f64) -> String {
    format!("{:.0} %", v)
}

/// The sentence under the successes chart, one clause per policy.
fn amplification_summary(runs: &[AmplificationRun; 3], config: &AmplificationConfig) -> String {
    runs.iter()
        .map(|run| {
            let label = policy_label(run.policy, config);
            let share = run.success_percent_after_trigger(config.demand_per_second);
            let calls = format!("{:.1} calls per request", run.amplification());
            match (run.recovered_at_ms, share) {
                (Some(at), Some(share)) => format!(
                    "With {label}, the provider recovers at {:.1} s and successes average {} of demand after the trigger ({calls}).",
                    at as f64 / 1000.0,
                    percent(share)
                ),
                (None, Some(share)) => format!(
                    "With {label}, the provider never recovers: successes stay at {} of demand after the trigger ends ({calls}).",
                    percent(share)
                ),
                _ => format!("With {label}, the degradation lasts to the end of the run ({calls})."),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn jitter_summary(run: &JitterRun, config: &JitterConfig) -> String {
    let mode = JITTER_MODES
        .iter()
        .find(|m| m.0 == run.jitter)
        .map_or("", |m| m.2);
    let end = config.duration_ms as f64 / 1000.0;
    match run.all_served_at_ms {
        Some(at) => format!(
            "With {mode}, the server absorbed {} calls for {} clients and everyone was served by {:.1} s.",
            run.total_calls, run.clients, at as f64 / 1000.0
        ),
        None => format!(
            "With {mode}, the server absorbed {} calls for {} clients and {} were still waiting at {end:.0} s.",
            run.total_calls, run.clients, run.waiting_at_end
        ),
    }
}

#[component]
pub fn LabPage(info: LabInfo, location: RwSignal<Location>) -> impl IntoView {
    let previous = Some(info.number - 1).filter(|n| catalogue::exists(*n));
    let next = Some(info.number + 1).filter(|n| catalogue::exists(*n));
    let text = crate::course::lab_text(info.number);
    view! {
        <article class="lab" aria-labelledby="demo-heading">
            <header class="demo-header">
                <p class="demo-kicker">{format!("Demo {} · retry lab", info.number)}</p>
                <h1 id="demo-heading" data-testid="demo-heading" tabindex="-1">{format!("Demo {}: {}", info.number, info.title)}</h1>
                {text.map(|t| view! {
                    <p class="intro">{t.intro}</p>
                    <dl class="demo-guide">
                        <dt>"Watch"</dt><dd>{t.watch}</dd>
                        <dt>"Predict"</dt><dd data-testid="predict">{t.predict}</dd>
                    </dl>
                })}
            </header>
            {match info.lab {
                Lab::Amplification => view! { <AmplificationLab /> }.into_any(),
                Lab::Jitter => view! { <JitterLab /> }.into_any(),
            }}
            {text.map(|t| view! {
                <section class="outcome" aria-labelledby="lessons-heading">
                    <h2 id="lessons-heading">"What to take away"</h2>
                    <ul>{t.lessons.iter().map(|l| view! { <li>{*l}</li> }).collect_view()}</ul>
                    <p class="muted">{t.model}</p>
                </section>
            })}
            <nav class="demo-pager" aria-label="Previous and next demo">
                {previous.map(|n| view! { <DemoLink number=n location=location testid="previous-demo" label=format!("← Demo {n}") /> })}
                {next.map(|n| view! { <DemoLink number=n location=location testid="next-demo" label=format!("Demo {n} →") /> })}
            </nav>
        </article>
    }
}

#[component]
fn AmplificationLab() -> impl IntoView {
    let config = RwSignal::new(AmplificationConfig::default());
    let runs = Memo::new(move |_| config.with(amplification::run_all));
    let error = move || runs.with(|r| r.as_ref().err().map(|e| e.to_string()));
    // Charts keep the last good run while a control is out of range.
    let last_good = StoredValue::new(None::<([AmplificationRun; 3], AmplificationConfig)>);
    let current = Memo::new(move |_| {
        runs.with(|r| {
            if let Ok(runs) = r {
                last_good.set_value(Some((runs.clone(), config.get_untracked())));
            }
        });
        last_good.get_value()
    });
    let successes = Signal::derive(move || {
        current.with(|c| {
            c.as_ref().map(|(runs, cfg)| {
                let mut spec = base_spec(runs, cfg, "successes per second");
                spec.series = runs
                    .iter()
                    .map(|r| Series {
                        label: policy_label(r.policy, cfg),
                        tone: policy_tone(r.policy),
                        points: r
                            .steps
                            .iter()
                            .map(|s| (s.t_ms as f64 / 1000.0, s.succeeded as f64))
                            .collect(),
                    })
                    .collect();
                spec.reference = Some((f64::from(cfg.demand_per_second), "demand".into()));
                spec
            })
        })
    });
    let offered = Signal::derive(move || {
        current.with(|c| {
            c.as_ref().map(|(runs, cfg)| {
                let mut spec = base_spec(runs, cfg, "calls offered per second");
                spec.series = runs
                    .iter()
                    .map(|r| Series {
                        label: policy_label(r.policy, cfg),
                        tone: policy_tone(r.policy),
                        points: r
                            .steps
                            .iter()
                            .map(|s| (s.t_ms as f64 / 1000.0, s.offered as f64))
                            .collect(),
                    })
                    .collect();
                spec.y_max = runs
                    .iter()
                    .flat_map(|r| r.steps.iter().map(|s| s.offered as f64))
                    .fold(1.0, f64::max)
                    * 1.1;
                spec.reference = Some((cfg.normal_capacity_per_second(), "normal capacity".into()));
                spec
            })
        })
    });
    let summary = Signal::derive(move || {
        current.with(|c| {
            c.as_ref()
                .map(|(r, cfg)| amplification_summary(r, cfg))
                .unwrap_or_default()
        })
    });
    let offered_summary = Signal::derive(move || {
        current.with(|c| {
            c.as_ref()
                .map(|(runs, cfg)| {
                    runs.iter()
                        .map(|r| {
                            format!(
                                "{}: {} calls for {} requests.",
                                policy_label(r.policy, cfg),
                                r.totals.calls,
                                r.totals.requests
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_default()
        })
    });

    let backoff_value = move || match config.with(|c| c.backoff) {
        BackoffKind::None => "none",
        BackoffKind::Fixed => "fixed",
        BackoffKind::Exponential => "exponential",
    };

    view! {
        <section class="lab-controls" aria-label="Lab controls">
            {sliders(config, &AMPLIFICATION_CONTROLS, "amp")}
            <div class="control">
                <label for="amp-backoff">"Backoff of the retries"</label>
                <select id="amp-backoff" data-testid="amp-backoff" prop:value=backoff_value on:change=move |ev| {
                    let kind = match event_target_value(&ev).as_str() {
                        "fixed" => BackoffKind::Fixed,
                        "exponential" => BackoffKind::Exponential,
                        _ => BackoffKind::None,
                    };
                    config.update(|c| {
                        c.backoff = kind;
                        if kind == BackoffKind::None { c.jitter = Jitter::None }
                    });
                }>
                    <option value="none">"none (retry at once)"</option>
                    <option value="fixed">"fixed"</option>
                    <option value="exponential">"exponential (×2)"</option>
                </select>
            </div>
            <div class="control">
                <label for="amp-jitter">"Jitter of the retries"</label>
                <select id="amp-jitter" data-testid="amp-jitter" prop:value=move || jitter_name(config.with(|c| c.jitter))
                    disabled=move || config.with(|c| c.backoff == BackoffKind::None)
                    on:change=move |ev| if let Some(j) = jitter_from(&event_target_value(&ev)) { config.update(|c| c.jitter = j) }>
                    {JITTER_MODES.iter().map(|(_, v, l)| view! { <option value=*v>{*l}</option> }).collect_view()}
                </select>
            </div>
            <button type="button" on:click=move |_| config.set(AmplificationConfig::default())>"Back to the spec's values"</button>
        </section>
        <p class="error" role="alert" data-testid="amp-error">{error}</p>
        <Chart spec=successes summary=summary testid="amp-successes" title="Successes per second." />
        <Chart spec=offered summary=offered_summary testid="amp-offered" title="Load offered to the provider." />
        <RetryLayers />
    }
}

fn base_spec(
    runs: &[AmplificationRun; 3],
    cfg: &AmplificationConfig,
    y_label: &'static str,
) -> ChartSpec {
    let x_max = cfg.duration_ms as f64 / 1000.0;
    let y_max = runs
        .iter()
        .flat_map(|r| r.steps.iter().map(|s| s.succeeded as f64))
        .fold(f64::from(cfg.demand_per_second), f64::max)
        * 1.15;
    ChartSpec {
        x_label: "time (s)",
        y_label,
        x_max,
        y_max,
        series: Vec::new(),
        shade: Some((
            runs[0].degradation_start_ms as f64 / 1000.0,
            runs[0].degradation_end_ms as f64 / 1000.0,
            "degradation",
        )),
        reference: None,
    }
}

#[component]
fn JitterLab() -> impl IntoView {
    let config = RwSignal::new(JitterConfig::default());
    let overlay = RwSignal::new(false);
    // All four modes are run (cheap: well under a millisecond each); the chart shows one or all.
    let runs = Memo::new(move |_| {
        config.with(|c| {
            JITTER_MODES
                .iter()
                .map(|(mode, _, _)| {
                    jitter::run(&JitterConfig {
                        jitter: *mode,
                        ..c.clone()
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        })
    });
    let error = move || runs.with(|r| r.as_ref().err().map(|e| e.to_string()));
    let tones = [Tone::Red, Tone::Blue, Tone::Orange, Tone::Purple];
    let shown = move |runs: &Vec<JitterRun>, cfg: &JitterConfig| -> Vec<(usize, JitterRun)> {
        runs.iter()
            .enumerate()
            .filter(|(_, r)| overlay.get() || r.jitter == cfg.jitter)
            .map(|(i, r)| (i, r.clone()))
            .collect()
    };
    let calls = Signal::derive(move || {
        runs.with(|r| {
            let runs = r.as_ref().ok()?;
            let cfg = config.get();
            let series: Vec<Series> = shown(runs, &cfg)
                .into_iter()
                .map(|(i, r)| Series {
                    label: JITTER_MODES[i].2.into(),
                    tone: tones[i],
                    points: r
                        .slots
                        .iter()
                        .map(|s| (s.t_ms as f64 / 1000.0, f64::from(s.calls)))
                        .collect(),
                })
                .collect();
            let peak = series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1))
                .fold(f64::from(cfg.capacity_per_slot), f64::max);
            Some(ChartSpec {
                x_label: "time (s)",
                y_label: "calls per 100 ms",
                x_max: cfg.duration_ms as f64 / 1000.0 + 0.1,
                y_max: peak * 1.1,
                series,
                shade: None,
                reference: Some((f64::from(cfg.capacity_per_slot), "capacity".into())),
            })
        })
    });
    let waiting = Signal::derive(move || {
        runs.with(|r| {
            let runs = r.as_ref().ok()?;
            let cfg = config.get();
            let series: Vec<Series> = shown(runs, &cfg)
                .into_iter()
                .map(|(i, r)| Series {
                    label: JITTER_MODES[i].2.into(),
                    tone: tones[i],
                    points: r
                        .slots
                        .iter()
                        .map(|s| (s.t_ms as f64 / 1000.0, f64::from(s.waiting)))
                        .collect(),
                })
                .collect();
            Some(ChartSpec {
                x_label: "time (s)",
                y_label: "clients still waiting",
                x_max: cfg.duration_ms as f64 / 1000.0 + 0.1,
                y_max: f64::from(cfg.clients) * 1.05,
                series,
                shade: None,
                reference: None,
            })
        })
    });
    let summary = Signal::derive(move || {
        runs.with(|r| {
            let Ok(runs) = r else { return String::new() };
            let cfg = config.get();
            shown(runs, &cfg)
                .iter()
                .map(|(_, run)| jitter_summary(run, &cfg))
                .collect::<Vec<_>>()
                .join(" ")
        })
    });
    let waiting_summary = Signal::derive(move || {
        runs.with(|r| {
            let Ok(runs) = r else { return String::new() };
            let cfg = config.get();
            shown(runs, &cfg)
                .iter()
                .map(|(i, run)| {
                    format!(
                        "{}: {} waiting at the end.",
                        JITTER_MODES[*i].2, run.waiting_at_end
                    )
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
    });
    let seed_counter = StoredValue::new(1u64);

    view! {
        <section class="lab-controls" aria-label="Lab controls">
            <div class="control">
                <label for="jitter-mode">"Jitter"</label>
                <select id="jitter-mode" data-testid="jitter-mode" prop:value=move || jitter_name(config.with(|c| c.jitter))
                    on:change=move |ev| if let Some(j) = jitter_from(&event_target_value(&ev)) { config.update(|c| c.jitter = j) }>
                    {JITTER_MODES.iter().map(|(_, v, l)| view! { <option value=*v>{*l}</option> }).collect_view()}
                </select>
            </div>
            {sliders(config, &JITTER_CONTROLS, "jit")}
            <div class="control checkbox">
                <label>
                    <input type="checkbox" data-testid="jitter-overlay" prop:checked=move || overlay.get()
                        on:change=move |ev| overlay.set(event_target_checked(&ev)) />
                    " Show all four modes"
                </label>
            </div>
            <button type="button" data-testid="new-seed" on:click=move |_| {
                // A new seed from a fixed sequence: reproducible, and a link can carry it.
                seed_counter.update_value(|s| *s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407));
                let seed = (seed_counter.get_value() >> 33) % 999 + 1;
                config.update(|c| c.seed = seed);
            }>"New seed"</button>
            <button type="button" on:click=move |_| config.set(JitterConfig::default())>"Back to the spec's values"</button>
        </section>
        <p class="error" role="alert" data-testid="jit-error">{error}</p>
        <Chart spec=calls summary=summary testid="jit-calls" title="Calls per 100 ms slot." />
        <Chart spec=waiting summary=waiting_summary testid="jit-waiting" title="Clients still waiting." />
    }
}

/// Layers that each retry multiply: attempts^layers calls on the provider.
#[component]
fn RetryLayers() -> impl IntoView {
    let layers = RwSignal::new(3.0);
    let attempts = RwSignal::new(3.0);
    let calls = move || calls_on_provider(layers.get() as u32, attempts.get() as u32);
    view! {
        <section class="panel retry-layers" aria-labelledby="layers-heading">
            <h2 id="layers-heading">"Retry at one layer only"</h2>
            <div class="lab-controls">
                <Slider label="Layers that retry" unit="" min=1.0 max=6.0 step=1.0 value=layers.into() on_input=Callback::new(move |v| layers.set(v)) testid="layers".into() />
                <Slider label="Attempts per layer" unit="" min=1.0 max=6.0 step=1.0 value=attempts.into() on_input=Callback::new(move |v| attempts.set(v)) testid="attempts".into() />
            </div>
            <p class="layers-result" aria-live="polite">
                "One click becomes "<strong data-testid="layers-calls">{calls}</strong>" calls on the provider."
            </p>
            <p class="muted">"Retry close to the failing dependency, with few attempts, inside the caller's deadline; let the other layers fail fast."</p>
        </section>
    }
}
