//! A tick demo page: the engine's `TickSession` in a signal, one handler per intent, and
//! the views that draw it. Nothing here decides an outcome.

use std::time::Duration;

use leptos::ev;
use leptos::prelude::*;
use resilience_sim::model::tick::{Behaviour, Protection, FLAKY_DEFAULT_PERCENT};
use resilience_sim::scenario::session::TickSession;
use resilience_sim::scenario::{catalogue, MAX_TICKS};
use resilience_sim::ConfigError;
use wasm_bindgen::JsValue;

use crate::course;
use crate::nav::{address_follows, Location};
use crate::settings_form::{self, SettingsDraft};
use crate::tools;
use crate::url_state::{self, UrlState};
use crate::views::breaker::BreakerPanel;
use crate::views::compare::ComparePanel;
use crate::views::html::{act, aria_bool, change, click, effect, live, live_attr, live_html, Html};
use crate::views::narration::{Narration, Tally, TickSummary};
use crate::views::page::{header_html, Guide, PageHeader, Pager};
use crate::views::page_tools::{Import, PageTools, Refused, TeacherNotes};
use crate::views::settings::SettingsPanel;
use crate::views::thread_pool::ThreadPool;

/// The behaviour select's options: one per kind of the engine's behaviour, by its name,
/// with what it does. A recovery's tick has its own field, so its tick here is a stand-in;
/// a flaky service starts at the engine's default share, with its own field too.
const BEHAVIOURS: [(Behaviour, &str); 5] = [
    (Behaviour::Healthy, "healthy"),
    (Behaviour::Slow, "slow (never answers in time)"),
    (Behaviour::Failing, "failing (errors after 1 tick)"),
    (Behaviour::Recovering { healthy_from: 0 }, "recovering"),
    (
        Behaviour::Flaky {
            failure_percent: FLAKY_DEFAULT_PERCENT,
        },
        "flaky (some calls fail at random)",
    ),
];

/// Play speeds: milliseconds between ticks.
const SPEEDS: [(u32, &str); 3] = [(1500, "slow"), (800, "normal"), (300, "fast")];

/// Opens demo `initial.demo` with the link's changes, settings and tick applied. Whatever
/// in the link cannot be used is reported in `problems` and left out.
fn open_session(initial: &UrlState, problems: &mut Vec<String>) -> (TickSession, SettingsDraft) {
    let demo = catalogue::demo(initial.demo).unwrap_or(&catalogue::DEMOS[0]);
    let scenario = demo.scenario();
    let mut draft =
        SettingsDraft::from_configs(&scenario.tick.circuit_breaker, &scenario.tick.bulkhead);
    // The catalogue's scenarios are valid (tested), so this succeeds; fall back to demo 1's.
    let mut session = TickSession::new(scenario)
        .or_else(|_| TickSession::new(catalogue::DEMOS[0].scenario()))
        .expect("the catalogue's scenarios are valid");
    if !initial.settings.is_empty() {
        let mut linked = draft.clone();
        for (name, value) in &initial.settings {
            if let Err(message) = linked.set(name, value.clone()) {
                problems.push(message);
            }
        }
        let applied = linked
            .to_configs(
                &session.scenario().tick.circuit_breaker,
                &session.scenario().tick.bulkhead,
            )
            .and_then(|(b, h)| session.apply_settings(b, h).map_err(|e| vec![e]));
        match applied {
            Ok(_) => draft = linked,
            Err(errors) => problems.extend(errors.iter().map(|e| {
                format!("The link's setting {e} — the demo's settings are used instead.")
            })),
        }
    }
    if let Some(seed) = initial.seed {
        session.set_seed(seed);
    }
    session.restore(initial.changes.clone(), initial.t);
    (session, draft)
}

/// The link that reproduces what the learner sees: the settings the run is played with
/// (applied, so valid), never the text still being typed into the form.
fn url_of(demo: u32, session: &TickSession) -> UrlState {
    let original = session.original();
    let original_draft =
        SettingsDraft::from_configs(&original.tick.circuit_breaker, &original.tick.bulkhead);
    let played = &session.scenario().tick;
    let draft = SettingsDraft::from_configs(&played.circuit_breaker, &played.bulkhead);
    UrlState {
        demo,
        t: session.tick(),
        changes: session.changes().to_vec(),
        // Written whenever it decides something (a flaky service) or is not the demo's.
        seed: (session.seed() != original.seed
            || session
                .changes()
                .iter()
                .any(|c| matches!(c.behaviour, Some(Behaviour::Flaky { .. }))))
        .then_some(session.seed()),
        settings: draft.differences(&original_draft),
    }
}

#[component]
pub fn TickDemo(
    initial: UrlState,
    problems: Vec<String>,
    location: RwSignal<Location>,
) -> impl IntoView {
    let demo_number = initial.demo;
    let info = catalogue::demo(demo_number)
        .copied()
        .unwrap_or(catalogue::DEMOS[0]);
    let text = course::text(info.number);
    let mut problems = problems;
    let (session, draft) = open_session(&initial, &mut problems);
    let session = RwSignal::new(session);
    let draft = RwSignal::new(draft);
    let field_errors: RwSignal<Vec<ConfigError>> = RwSignal::new(Vec::new());
    // The link's problems and its settings' together, the first few listed.
    let notice = RwSignal::new(url_state::shortened(problems));
    let playing = RwSignal::new(false);
    let speed = RwSignal::new(SPEEDS[1].0);

    let outcome_box = NodeRef::<leptos::html::Div>::new();
    let transport = NodeRef::<leptos::html::Div>::new();
    let embedded = location.with_untracked(|l| l.embed);

    // Intents: each is one call on the session.
    let next_tick = move || {
        if session.with_untracked(|s| s.tick()) >= MAX_TICKS {
            // Said, not silently ignored: a run has a last tick.
            playing.set(false);
            notice.set(vec![format!(
                "This run is at t = {MAX_TICKS}, the last tick the playground plays. Step back or Reset to go on."
            )]);
            return;
        }
        act(session, &mut |s| s.next_tick())
    };
    let step_back = move || act(session, &mut |s| s.step_back());
    let reset = move || {
        playing.set(false);
        act(session, &mut |s| s.reset());
    };
    let toggle_play = move || playing.set(!playing.get_untracked());

    // The address bar follows the session, so a link reproduces what the learner sees.
    address_follows(
        move || session.track(),
        move || session.try_with_untracked(|s| url_of(demo_number, s).to_query()),
    );

    // Play: one tick per interval until paused, the demo's last tick (Next Tick goes on for
    // those who want more), or the page goes away (the cleanup runs before each new run of
    // the effect and when the page is dropped).
    let play_tick = move || {
        next_tick();
        if session.with_untracked(|s| s.tick()) == info.ticks {
            playing.set(false);
        }
    };
    effect(move || {
        if playing.get() {
            let every = Duration::from_millis(u64::from(speed.get()));
            if let Ok(handle) = set_interval_with_handle(play_tick, every) {
                on_cleanup(move || handle.clear());
            }
        }
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

    // What the controls show, read from the session.
    let tick = move || session.with(|s| s.tick());
    // The selects and fields follow the run's choices, not every tick: a property is set
    // whenever its effect runs (Leptos does not compare), which costs a Next Tick time and
    // would overwrite what a learner is typing while the demo plays.
    let choices = Memo::new(move |_| session.with(|s| (s.selects(), s.seed())));
    let selects = move || choices.with(|c| c.0);
    let recovering_from = move || match selects().0 {
        Behaviour::Recovering { healthy_from } => Some(healthy_from),
        _ => None,
    };
    let flaky_percent = move || match selects().0 {
        Behaviour::Flaky { failure_percent } => Some(failure_percent),
        _ => None,
    };

    let on_behaviour = move |ev: ev::Event| {
        let value = event_target_value(&ev);
        let behaviour = match BEHAVIOURS.iter().find(|(b, _)| b.kind_name() == value) {
            // Recovers three ticks from now unless the learner picks another tick.
            Some((Behaviour::Recovering { .. }, _)) => Behaviour::Recovering {
                healthy_from: (session.with_untracked(|s| s.tick()) + 3).min(MAX_TICKS),
            },
            Some((b, _)) => *b,
            None => return,
        };
        act(session, &mut |s| s.set_behaviour(behaviour));
    };
    let on_protection = move |ev: ev::Event| {
        if let Some(p) = Protection::from_name(&event_target_value(&ev)) {
            act(session, &mut |s| s.set_protection(p));
        }
    };
    let on_recovery_tick = move |ev: ev::Event| match event_target_value(&ev).trim().parse::<u32>()
    {
        Ok(t) if t <= MAX_TICKS => act(session, &mut |s| {
            s.set_behaviour(Behaviour::Recovering { healthy_from: t })
        }),
        _ => notice.set(vec![format!(
            "“Healthy from” must be a tick number from 0 to {MAX_TICKS}, such as 6."
        )]),
    };
    // The engine says which shares are allowed; the page passes on its message.
    let on_flaky_percent = move |ev: ev::Event| {
        let typed = event_target_value(&ev).trim().parse::<u32>();
        let checked = typed
            .map(|failure_percent| Behaviour::Flaky { failure_percent })
            .map_err(|_| "must be a whole number".to_string())
            .and_then(|b| b.validate().map(|()| b).map_err(|e| e.message));
        match checked {
            Ok(b) => act(session, &mut |s| s.set_behaviour(b)),
            Err(why) => notice.set(vec![format!("“% of calls fail” {why}, such as 30.")]),
        }
    };
    let on_seed = move |ev: ev::Event| match event_target_value(&ev).trim().parse::<u64>() {
        Ok(seed) => act(session, &mut |s| s.set_seed(seed)),
        Err(_) => notice.set(vec![
            "The seed must be a whole number, such as 7.".to_string()
        ]),
    };
    let on_speed = move |ev: ev::Event| {
        if let Ok(ms) = event_target_value(&ev).parse::<u32>() {
            if SPEEDS.iter().any(|(s, _)| *s == ms) {
                speed.set(ms)
            }
        }
    };

    // The page tools: the link, the settings in Resilience4j's words, and a pasted fragment
    // read by the engine and applied like the settings form's (replayed to this tick).
    let link = Callback::new(move |_| {
        session
            .with_untracked(|s| url_of(demo_number, s))
            .to_query()
    });
    // The tools part gets the demo and the link's settings (a query string): the played
    // settings are the demo's with those applied, so nothing else needs to cross.
    let settings_query = move || {
        session.try_with_untracked(|s| {
            let link = url_of(demo_number, s);
            tools::record::write(link.settings.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        })
    };
    let config = Callback::new(move |_| {
        settings_query()
            .map(|settings| tools::config_source::tick(demo_number, &settings))
            .unwrap_or(JsValue::UNDEFINED)
    });
    let apply = move |imported: tools::TickImported| -> Result<String, Vec<String>> {
        let original = session.with_untracked(|s| s.original().tick.clone());
        let (breaker, bulkhead) = settings_form::with_settings(
            &original.circuit_breaker,
            &original.bulkhead,
            &imported.settings,
        )?;
        let not_read = imported.notes;
        let mut configs = Some((breaker, bulkhead));
        let mut applied = Ok(0);
        act(session, &mut |s| {
            if let Some((b, h)) = configs.take() {
                applied = s.apply_settings(b, h);
            }
        });
        let t = applied.map_err(|e| vec![e.to_string()])?;
        draft.set(session.with_untracked(|s| {
            let tick = &s.scenario().tick;
            SettingsDraft::from_configs(&tick.circuit_breaker, &tick.bulkhead)
        }));
        field_errors.set(Vec::new());
        let mut done = format!(
            "Applied: the run was played again with this configuration from t = 0 up to t = {t}."
        );
        for part in not_read {
            done.push(' ');
            done.push_str(&part);
        }
        Ok(done)
    };
    // The tools part reads the fragment against this run's settings; the page plays it.
    let import = Callback::new(move |read: JsValue| {
        let read = tools::read_tick_import(&read.as_string().unwrap_or_default());
        tools::applied_record(read.and_then(|r| apply(r).map_err(Refused::from)))
    });

    // The notice's messages and the outcome are read-only: HTML text, no typed tree.
    let notice_html = live(move || {
        let mut h = String::new();
        notice.with(|list| {
            for message in list {
                h.raw("<li>").text(message).raw("</li>");
            }
        });
        h
    });
    // What the run did in the demo's own ticks, written once they are played and left
    // alone while the learner plays on (the panels above tell the later ticks): a tick
    // after the demo's end lays out none of these paragraphs again (docs/performance.md).
    let outcome_html = live_html(move || {
        let mut h = String::new();
        session.with(|s| {
            let (Some(t), Some(summary)) = (text, s.demo_summary()) else {
                return;
            };
            // Written from the learner's own run: the engine's facts, our sentences.
            h.raw("<section class=\"outcome\" data-testid=\"outcome\" aria-labelledby=\"outcome-heading\"><h2 id=\"outcome-heading\">What happened in the demo&#39;s ")
                .num(summary.ticks.into())
                .raw(" ticks</h2>");
            for paragraph in course::outcome::what_happened(&info, summary) {
                h.raw("<p>").text(&paragraph).raw("</p>");
            }
            h.raw("<p class=\"lesson\"><strong>The lesson: </strong>")
                .text(t.lesson)
                .raw("</p></section>");
        });
        h
    });

    view! {
        <article class="tick-demo" aria-labelledby="demo-heading">
            // Demo 1 opens with the setup in one glance, read from the engine's world
            // (threads, calls, timeout); the later demos keep the screen for the evidence.
            <PageHeader html={
                let setup = session.with_untracked(|s| course::outcome::setup_sentence(&s.scenario().tick.world));
                let setup = (info.number == 1).then_some(setup.as_str());
                header_html(info.number, info.title, "", text.map(|t| Guide { intro: t.intro, setup, watch: t.watch, predict: t.predict }))
            } />


            // Always in the page (a status region is announced when its content changes),
            // hidden while there is nothing to say.
            <div class="notice" role="status" data-testid="notice"
                hidden=live_attr(move || notice.with(Vec::is_empty).then_some(""))>
                <ul inner_html=notice_html></ul>
                <button type="button" class="link-button" on:click=click(move |_| notice.set(Vec::new()))>"Dismiss"</button>
            </div>

            <section class="controls" aria-label="Simulation controls">
                <div class="selects">
                    <label>
                        <span>"Recommendations is"</span>
                        // The select shows the kind; a recovery's tick has its own field below.
                        // The options go in before the value is set, so the value finds its option.
                        <select data-testid="behaviour-select" on:change=change(on_behaviour) inner_html=behaviour_options()
                            prop:value=live(move || selects().0.kind_name().to_string())></select>
                    </label>
                    // Hidden rather than added and removed: a `Show` costs about 2 KB of wasm.
                    <label class="recovery-tick" hidden=live_attr(move || recovering_from().is_none().then_some(""))>
                        <span>"healthy from t ="</span>
                        <input type="number" min="0" inputmode="numeric" data-testid="recovery-tick"
                            prop:value=live(move || recovering_from().unwrap_or(0).to_string())
                            on:change=change(on_recovery_tick) />
                    </label>
                    <label class="flaky-percent" hidden=live_attr(move || flaky_percent().is_none().then_some(""))>
                        <span>"% of calls fail"</span>
                        <input type="number" min="0" max="100" inputmode="numeric" data-testid="flaky-percent"
                            prop:value=live(move || flaky_percent().unwrap_or(FLAKY_DEFAULT_PERCENT).to_string())
                            on:change=change(on_flaky_percent) />
                    </label>
                    // Which calls fail is drawn from the seed: the same seed, the same run.
                    <label class="flaky-seed" hidden=live_attr(move || flaky_percent().is_none().then_some(""))>
                        <span>"seed"</span>
                        <input type="number" min="0" inputmode="numeric" data-testid="flaky-seed"
                            prop:value=live(move || choices.with(|c| c.1).to_string())
                            on:change=change(on_seed) />
                    </label>
                    <label>
                        <span>"Protection"</span>
                        // The options go in before the value is set, so the value finds its option.
                        <select data-testid="protection-select" on:change=change(on_protection) inner_html=protection_options()
                            prop:value=live(move || selects().1.name().to_string())></select>
                    </label>
                    <p class="keys">"Keys: N or Space next tick, B back, R reset, P play/pause."</p>
                </div>
            </section>

            // Only the buttons stay in view while the page scrolls: on a phone the whole
            // control block would take a third of the screen.
            <div class="transport" role="group" aria-label="Step through the demo" node_ref=transport>
                <div class="buttons">
                    <button type="button" class="primary" data-testid="next-tick" on:click=click(move |_| next_tick())
                        aria-keyshortcuts="N Space">"Next tick"</button>
                    <button type="button" data-testid="step-back" on:click=click(move |_| step_back())
                        disabled=live_attr(move || (tick() == 0).then_some("")) aria-keyshortcuts="B">"Step back"</button>
                    <button type="button" data-testid="play" on:click=click(move |_| toggle_play())
                        aria-pressed=live_attr(move || aria_bool(playing.get())) aria-keyshortcuts="P">
                        {live(move || if playing.get() { "Pause" } else { "Play" }.to_string())}
                    </button>
                    <label class="speed">
                        <span class="visually-hidden">"Play speed"</span>
                        <select data-testid="speed" on:change=change(on_speed) inner_html=speed_options()
                            prop:value=live(move || speed.get().to_string())></select>
                    </label>
                    <button type="button" data-testid="reset" on:click=click(move |_| reset()) aria-keyshortcuts="R">"Reset"</button>
                    <p class="tick-counter" aria-live="off">
                        "t = "<span data-testid="tick-counter">{live(move || tick().to_string())}</span>
                        <span class="of">{format!(" (demo: {} ticks)", info.ticks)}</span>
                    </p>
                </div>
                <TickSummary session=session />
                // Where the learner is looking when the demo's story is complete.
                <a href="#outcome" class="demo-done" data-testid="demo-done"
                    hidden=live_attr(move || (tick() < info.ticks).then_some(""))
                    on:click=click(move |e| {
                        e.prevent_default();
                        if let Some(outcome) = outcome_box.get() {
                            let _ = outcome.focus();
                            // Its top just below the sticky transport bar, whose height
                            // follows its summary line (two or three lines on a phone).
                            outcome.scroll_into_view();
                            let bar = transport.get().map_or(0, |b| b.offset_height());
                            window().scroll_by_with_x_and_y(0.0, -f64::from(bar + 8));
                        }
                    })>"Demo done: read what happened ↓"</a>
            </div>

            <div class="panels">
                <ThreadPool session=session />
                <BreakerPanel session=session />
            </div>
            <ComparePanel session=session />
            <div class="panels">
                <Narration session=session />
                <Tally session=session />
            </div>

            <div class="outcome-box" id="outcome" tabindex="-1" node_ref=outcome_box inner_html=outcome_html></div>

            <SettingsPanel session=session draft=draft errors=field_errors />

            <PageTools number=info.number title=info.title embedded=embedded link=link config=config import=Import(import) />

            {(!embedded).then(|| view! { <TeacherNotes number=info.number /> })}
            <Pager number=demo_number location=location />
        </article>
    }
}

/// The behaviour select's options (see [`BEHAVIOURS`]).
fn behaviour_options() -> String {
    let mut h = String::new();
    for (b, label) in BEHAVIOURS {
        h.raw("<option value=\"")
            .raw(b.kind_name())
            .raw("\">")
            .raw(label)
            .raw("</option>");
    }
    h
}

/// The protection select's options, one per engine protection.
fn protection_options() -> String {
    let mut h = String::new();
    for p in Protection::ALL {
        h.raw("<option value=\"")
            .raw(p.name())
            .raw("\">")
            .text(p.describe())
            .raw("</option>");
    }
    h
}

/// The play speed select's options.
fn speed_options() -> String {
    let mut h = String::new();
    for (ms, name) in SPEEDS {
        h.raw("<option value=\"")
            .num(ms.into())
            .raw("\">")
            .raw(name)
            .raw("</option>");
    }
    h
}

#[cfg(test)]
mod link_tests {
    use super::*;
    use resilience_sim::policy::circuit_breaker::OpenWaitFunction;

    #[test]
    fn the_link_holds_the_applied_settings_and_never_a_draft() {
        let (state, problems) = UrlState::parse("demo=5&minimumNumberOfCalls=2&t=6");
        assert!(problems.is_empty(), "{problems:?}");
        let mut problems = Vec::new();
        let (mut session, mut draft) = open_session(&state, &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            url_of(5, &session).to_query(),
            "demo=5&t=6&minimumNumberOfCalls=2"
        );
        // Text typed but not applied (here, not even valid) stays out of the link.
        draft.set("failureRateThreshold", "150".into()).unwrap();
        draft.set("slidingWindowSize", "four".into()).unwrap();
        assert_eq!(
            url_of(5, &session).to_query(),
            "demo=5&t=6&minimumNumberOfCalls=2"
        );
        // An invalid link setting is reported and left out, and so is it from the link.
        let (state, _) = UrlState::parse("demo=5&failureRateThreshold=150&t=2");
        let mut problems = Vec::new();
        (session, _) = open_session(&state, &mut problems);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(url_of(5, &session).to_query(), "demo=5&t=2");
    }

    /// A link with every setting bad, and more: the page lists five problems and counts
    /// the rest, the settings' included.
    #[test]
    fn a_link_with_every_setting_bad_lists_five_problems_and_counts_the_rest() {
        let bad: String = crate::settings_form::FIELDS
            .iter()
            .map(|f| format!("&{}=1e309", f.name))
            .collect();
        let (state, mut problems) = UrlState::parse(&format!("demo=3&t=x&seed=y{bad}"));
        assert_eq!(problems.len(), 2, "{problems:?}");
        let (_, _) = open_session(&state, &mut problems);
        let all = problems.len();
        assert!(all > 10, "{problems:?}");
        let shown = url_state::shortened(problems);
        assert_eq!(shown.len(), url_state::MAX_PROBLEMS_SHOWN + 1, "{shown:?}");
        assert_eq!(
            shown[url_state::MAX_PROBLEMS_SHOWN],
            format!(
                "… and {} more problems like these.",
                all - url_state::MAX_PROBLEMS_SHOWN
            )
        );
    }

    /// What a pasted `application.yml` sets beyond the form (exception lists, the
    /// exponential open wait, the half-open limit, the bulkhead's wait) goes into the link,
    /// so a reload, or the link sent to someone, plays the same breaker.
    #[test]
    fn an_imported_fragment_survives_the_link() {
        let yaml = "resilience4j:
  circuitbreaker:
    instances:
      recommendations:
        sliding-window-size: 4
        minimum-number-of-calls: 4
        failure-rate-threshold: 50
        wait-duration-in-open-state: 3s
        permitted-number-of-calls-in-half-open-state: 2
        automatic-transition-from-open-to-half-open-enabled: true
        enable-exponential-backoff: true
        exponential-backoff-multiplier: 2
        exponential-max-wait-duration-in-open-state: 12s
        max-wait-duration-in-half-open-state: 5s
        record-exceptions:
          - java.io.IOException
        ignore-exceptions:
          - org.springframework.web.client.HttpClientErrorException$NotFound
  bulkhead:
    instances:
      recommendations:
        max-concurrent-calls: 3
        max-wait-duration: 0ms
";
        let imported = tools::exports::import_for_tick(yaml, 3, "", "", "").expect("read");
        let link = UrlState {
            settings: imported.settings,
            ..UrlState::demo(3)
        };
        let (state, problems) = UrlState::parse(&link.to_query());
        assert!(problems.is_empty(), "{problems:?}");
        let mut problems = Vec::new();
        let (session, _) = open_session(&state, &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        let played = &session.scenario().tick;
        let b = &played.circuit_breaker;
        // The engine names its exception classes by their simple names.
        assert_eq!(b.record_exceptions, ["IOException"]);
        assert_eq!(b.ignore_exceptions, ["NotFoundException"]);
        assert_eq!(
            b.wait_interval_function_in_open_state,
            Some(OpenWaitFunction::Exponential {
                initial: 3_000,
                multiplier: 2.0,
                max: Some(12_000),
            })
        );
        assert_eq!(b.max_wait_duration_in_half_open_state, 5_000);
        assert_eq!(played.bulkhead.max_wait_duration, 0);
        // The link written from that session is the same link.
        assert_eq!(url_of(3, &session).to_query(), link.to_query());
        // And the config dialog's text, made from the demo and the link, says the same.
        let text = tools::exports::tick_config_text(
            3,
            &tools::record::write(state.settings.iter().map(|(k, v)| (k.as_str(), v.as_str()))),
        )
        .expect("text");
        assert!(
            text.yaml.contains("exponential-backoff-multiplier: 2"),
            "{}",
            text.yaml
        );
        assert!(
            text.yaml.contains("HttpClientErrorException$NotFound"),
            "{}",
            text.yaml
        );
    }

    /// A file with a document for a Spring profile: read without it, the default
    /// document's settings; with it chosen, the profile's replace them.
    #[test]
    fn the_chosen_profile_is_read() {
        let yaml =
            "resilience4j.circuitbreaker.instances.recommendations.failure-rate-threshold: 50
---
spring.config.activate.on-profile: prod
resilience4j.circuitbreaker.instances.recommendations.failure-rate-threshold: 30
";
        let setting = |profile: &str| {
            let read = tools::exports::import_for_tick(yaml, 5, "", "", profile).expect("read");
            read.settings
                .into_iter()
                .find(|(name, _)| name == "failureRateThreshold")
                .map(|(_, v)| v)
        };
        // Demo 5's own threshold is 50: nothing to write in the link.
        assert_eq!(setting(""), None);
        assert_eq!(setting("prod").as_deref(), Some("30"));
        assert_eq!(tools::exports::profile_names(yaml), ["prod"]);
    }

    #[test]
    fn the_records_between_the_parts_read_back_as_written() {
        let odd = "a & b = 50% + c\nline two “quoted” ☃";
        let applied: tools::TickImport = Ok(tools::TickImported {
            settings: vec![
                ("recordExceptions".into(), "a.B,c.D$E".into()),
                ("failureRateThreshold".into(), "57.1".into()),
            ],
            notes: vec![odd.into(), String::new(), "second".into()],
        });
        assert_eq!(
            tools::read_tick_import(&tools::tick_import_record(&applied)),
            applied
        );
        let refused: tools::TickImport = Err(tools::Refused {
            problems: vec![odd.into()],
            instances: vec!["erp".into(), "payments".into()],
        });
        assert_eq!(
            tools::read_tick_import(&tools::tick_import_record(&refused)),
            refused
        );
        // What a page answers after applying a fragment, read back by the tools part.
        let done = format!("Applied. {odd}");
        assert_eq!(
            tools::read_applied(&tools::applied_record(Ok(done.clone()))),
            Ok(done)
        );
        let problems = tools::Refused {
            problems: vec![odd.into(), "second".into()],
            instances: vec!["erp".into()],
        };
        assert_eq!(
            tools::read_applied(&tools::applied_record(Err(problems.clone()))),
            Err(problems)
        );
    }
}
