//! A tick demo page: the engine's `TickSession` in a signal, one handler per intent, and
//! the views that draw it. Nothing here decides an outcome.

use std::time::Duration;

use leptos::ev;
use leptos::prelude::*;
use resilience_sim::model::tick::{Behaviour, Protection};
use resilience_sim::scenario::catalogue;
use resilience_sim::scenario::session::TickSession;
use resilience_sim::ConfigError;

use crate::app::DemoLink;
use crate::course;
use crate::settings_form::SettingsDraft;
use crate::url_state::{behaviour_from_name, behaviour_name, protection_from_name, protection_name, UrlState};
use crate::views::breaker::BreakerPanel;
use crate::views::narration::{Narration, Tally};
use crate::views::settings::SettingsPanel;
use crate::views::thread_pool::ThreadPool;

/// Play speeds: milliseconds between ticks.
const SPEEDS: [(u32, &str); 3] = [(1500, "slow"), (800, "normal"), (300, "fast")];

/// Opens demo `initial.demo` with the link's changes, settings and tick applied. Whatever
/// in the link cannot be used is reported in `problems` and left out.
fn open_session(initial: &UrlState, problems: &mut Vec<String>) -> (TickSession, SettingsDraft) {
    let demo = catalogue::demo(initial.demo).unwrap_or(&catalogue::DEMOS[0]);
    let scenario = demo.scenario();
    let mut draft = SettingsDraft::from_configs(&scenario.tick.circuit_breaker, &scenario.tick.bulkhead);
    // The catalogue's scenarios are valid (tested), so this succeeds; fall back to demo 1's.
    let mut session = TickSession::new(scenario)
        .or_else(|_| TickSession::new(catalogue::DEMOS[0].scenario()))
        .expect("the catalogue's scenarios are valid");
    if !initial.settings.is_empty() {
        let mut linked = draft.clone();
        for (name, value) in &initial.settings {
            linked.set(name, value.clone());
        }
        let applied = linked
            .to_configs(&session.scenario().tick.circuit_breaker, &session.scenario().tick.bulkhead)
            .and_then(|(b, h)| session.apply_settings(b, h).map_err(|e| vec![e]));
        match applied {
            Ok(()) => draft = linked,
            Err(errors) => problems.extend(
                errors
                    .iter()
                    .map(|e| format!("The link's setting {e} — the demo's settings are used instead.")),
            ),
        }
    }
    session.restore(initial.changes.clone(), initial.t);
    (session, draft)
}

/// The link that reproduces what the learner sees.
fn url_of(demo: u32, session: &TickSession, draft: &SettingsDraft) -> UrlState {
    let original = session.original();
    let original_draft = SettingsDraft::from_configs(&original.tick.circuit_breaker, &original.tick.bulkhead);
    UrlState {
        demo,
        t: session.tick(),
        changes: session.changes().to_vec(),
        settings: draft.differences(&original_draft),
    }
}

fn replace_url(query: &str) {
    let Some(window) = web_sys::window() else { return };
    if window.location().search().ok().as_deref().map(|s| s.trim_start_matches('?')) == Some(query) {
        return;
    }
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("?{query}")));
    }
}

#[component]
pub fn TickDemo(initial: UrlState, problems: Vec<String>) -> impl IntoView {
    let demo_number = initial.demo;
    let info = catalogue::demo(demo_number).copied().unwrap_or(catalogue::DEMOS[0]);
    let text = course::text(info.number);
    let mut problems = problems;
    let (session, draft) = open_session(&initial, &mut problems);
    let session = RwSignal::new(session);
    let draft = RwSignal::new(draft);
    let field_errors: RwSignal<Vec<ConfigError>> = RwSignal::new(Vec::new());
    let notice = RwSignal::new(problems);
    let playing = RwSignal::new(false);
    let speed = RwSignal::new(SPEEDS[1].0);

    // Intents: each is one call on the session.
    let next_tick = move || session.update(|s| s.next_tick());
    let step_back = move || session.update(|s| s.step_back());
    let reset = move || {
        playing.set(false);
        session.update(|s| s.reset());
    };
    let toggle_play = move || playing.update(|p| *p = !*p);

    // The address bar follows the session, so a link reproduces what the learner sees.
    Effect::new(move |_| {
        let url = session.with(|s| draft.with(|d| url_of(demo_number, s, d)));
        replace_url(&url.to_query());
    });

    // Play: one tick per interval until paused or the page goes away.
    Effect::new(move |previous: Option<Option<IntervalHandle>>| {
        if let Some(Some(handle)) = previous {
            handle.clear();
        }
        if !playing.get() {
            return None;
        }
        let every = Duration::from_millis(u64::from(speed.get()));
        set_interval_with_handle(move || session.update(|s| s.next_tick()), every).ok()
    });

    // Keyboard: N or Space next tick, B back, R reset, P play/pause. Keys typed into a
    // field, and Space or Enter on a control, keep their usual meaning.
    let keys = window_event_listener(ev::keydown, move |event| {
        if event.ctrl_key() || event.meta_key() || event.alt_key() {
            return;
        }
        let tag = event
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .map(|e| e.tag_name().to_ascii_lowercase())
            .unwrap_or_default();
        let in_field = matches!(tag.as_str(), "input" | "select" | "textarea");
        let on_control = in_field || matches!(tag.as_str(), "button" | "a" | "summary");
        match event.key().as_str() {
            "n" | "N" if !in_field => next_tick(),
            " " if !on_control => {
                event.prevent_default();
                next_tick();
            }
            "b" | "B" if !in_field => step_back(),
            "r" | "R" if !in_field => reset(),
            "p" | "P" if !in_field => toggle_play(),
            _ => {}
        }
    });
    on_cleanup(move || keys.remove());

    let tick = move || session.with(|s| s.tick());
    let finished = move || session.with(|s| s.tick() >= info.ticks);
    let behaviour_value = move || session.with(|s| behaviour_name(s.selects().0));
    let protection_value = move || session.with(|s| protection_name(s.selects().1).to_string());
    let recovering_from = move || match session.with(|s| s.selects().0) {
        Behaviour::Recovering { healthy_from } => Some(healthy_from),
        _ => None,
    };

    let on_behaviour = move |ev: ev::Event| {
        let value = event_target_value(&ev);
        let behaviour = if value == "recovering" {
            // Recovers three ticks from now unless the learner picks another tick.
            Some(Behaviour::Recovering { healthy_from: session.with_untracked(|s| s.tick()) + 3 })
        } else {
            behaviour_from_name(&value)
        };
        if let Some(b) = behaviour {
            session.update(|s| s.set_behaviour(b));
        }
    };
    let on_protection = move |ev: ev::Event| {
        if let Some(p) = protection_from_name(&event_target_value(&ev)) {
            session.update(|s| s.set_protection(p));
        }
    };
    let on_recovery_tick = move |ev: ev::Event| {
        match event_target_value(&ev).trim().parse::<u32>() {
            Ok(t) if t <= resilience_sim::scenario::MAX_TICKS => {
                session.update(|s| s.set_behaviour(Behaviour::Recovering { healthy_from: t }))
            }
            _ => notice.set(vec!["“Healthy from” must be a tick number, such as 6.".into()]),
        }
    };

    let previous = catalogue::demo(demo_number.wrapping_sub(1)).map(|d| d.number);
    let next = catalogue::demo(demo_number + 1).map(|d| d.number);

    view! {
        <article class="tick-demo" aria-labelledby="demo-heading">
            <header class="demo-header">
                <p class="demo-kicker">{format!("Demo {} of {}", info.number, catalogue::DEMOS.len())}</p>
                <h1 id="demo-heading" data-testid="demo-heading">{format!("Demo {}: {}", info.number, info.title)}</h1>
                {text.map(|t| view! {
                    <p class="intro">{t.intro}</p>
                    <dl class="demo-guide">
                        <dt>"Watch"</dt><dd>{t.watch}</dd>
                        <dt>"Predict"</dt><dd data-testid="predict">{t.predict}</dd>
                    </dl>
                })}
            </header>

            <Show when=move || !notice.with(Vec::is_empty)>
                <div class="notice" role="status" data-testid="notice">
                    <ul>{move || notice.get().into_iter().map(|m| view! { <li>{m}</li> }).collect_view()}</ul>
                    <button type="button" class="link-button" on:click=move |_| notice.set(Vec::new())>"Dismiss"</button>
                </div>
            </Show>

            <section class="controls" aria-label="Simulation controls">
                <div class="selects">
                    <label>
                        <span>"Recommendations is"</span>
                        <select data-testid="behaviour-select" on:change=on_behaviour prop:value=move || {
                            let v = behaviour_value();
                            if v.starts_with("recovering") { "recovering".to_string() } else { v }
                        }>
                            <option value="healthy">"healthy"</option>
                            <option value="slow">"slow (never answers in time)"</option>
                            <option value="failing">"failing (errors after 1 tick)"</option>
                            <option value="recovering">"recovering"</option>
                        </select>
                    </label>
                    <Show when=move || recovering_from().is_some()>
                        <label class="recovery-tick">
                            <span>"healthy from t ="</span>
                            <input type="number" min="0" inputmode="numeric" data-testid="recovery-tick"
                                prop:value=move || recovering_from().unwrap_or(0).to_string()
                                on:change=on_recovery_tick />
                        </label>
                    </Show>
                    <label>
                        <span>"Protection"</span>
                        <select data-testid="protection-select" on:change=on_protection prop:value=protection_value>
                            {Protection::ALL.into_iter().map(|p| view! {
                                <option value=protection_name(p)>{p.describe()}</option>
                            }).collect_view()}
                        </select>
                    </label>
                </div>
                <div class="buttons">
                    <button type="button" class="primary" data-testid="next-tick" on:click=move |_| next_tick()
                        aria-keyshortcuts="N Space">"Next tick"</button>
                    <button type="button" data-testid="step-back" on:click=move |_| step_back()
                        disabled=move || tick() == 0 aria-keyshortcuts="B">"Step back"</button>
                    <button type="button" data-testid="play" on:click=move |_| toggle_play()
                        aria-pressed=move || playing.get().to_string() aria-keyshortcuts="P">
                        {move || if playing.get() { "Pause" } else { "Play" }}
                    </button>
                    <label class="speed">
                        <span class="visually-hidden">"Play speed"</span>
                        <select data-testid="speed" on:change=move |ev| {
                            if let Ok(ms) = event_target_value(&ev).parse::<u32>() {
                                if SPEEDS.iter().any(|(s, _)| *s == ms) { speed.set(ms) }
                            }
                        } prop:value=move || speed.get().to_string()>
                            {SPEEDS.iter().map(|(ms, name)| view! { <option value=ms.to_string()>{*name}</option> }).collect_view()}
                        </select>
                    </label>
                    <button type="button" data-testid="reset" on:click=move |_| reset() aria-keyshortcuts="R">"Reset"</button>
                    <p class="tick-counter" aria-live="off">
                        "t = "<span data-testid="tick-counter">{tick}</span>
                        <span class="of">{format!(" (demo: {} ticks)", info.ticks)}</span>
                    </p>
                </div>
                <p class="keys">"Keys: N or Space next tick, B back, R reset, P play/pause."</p>
            </section>

            <div class="panels">
                <ThreadPool session=session />
                <BreakerPanel session=session />
            </div>
            <div class="panels">
                <Narration session=session />
                <Tally session=session />
            </div>

            {text.map(|t| view! {
                <Show when=finished>
                    <section class="outcome" data-testid="outcome" aria-labelledby="outcome-heading">
                        <h2 id="outcome-heading">"What happened"</h2>
                        <p>{t.outcome}</p>
                        <p class="lesson"><strong>"The lesson: "</strong>{t.lesson}</p>
                    </section>
                </Show>
            })}

            <SettingsPanel session=session draft=draft errors=field_errors />

            <nav class="demo-pager" aria-label="Previous and next demo">
                {previous.map(|n| view! { <DemoLink number=n testid="previous-demo">{format!("← Demo {n}")}</DemoLink> })}
                {next.map(|n| view! { <DemoLink number=n testid="next-demo">{format!("Demo {n} →")}</DemoLink> })}
            </nav>
        </article>
    }
}
