//! Demo 10: the breaker sandbox. The learner drives one engine breaker
//! ([`BreakerSandbox`]) call by call. Every button carries its intent as data
//! (`data-act="send:failure"`, `"advance:1000"`, `"to:FORCED_OPEN"`); one click handler
//! reads it ([`Intent::parse`]) and makes the one call of the session's API it names
//! ([`apply`]); what the learner types is kept in [`Fields`] as it is typed. The page draws
//! only what the session reports: the state diagram (the tick demos' drawing), the window,
//! the rates against their thresholds, the OPEN countdown, the fallback's answer and the
//! event log. The settings are the lab's control table
//! ([`SandboxSettings`]), in the link like any lab's; a change replays the session.
//!
//! The panels are HTML written from the session and patched in place (as the tick demos'
//! are), with one delegated handler for the buttons: a page of typed components for this
//! many buttons and lists cost about five times as much wasm.

use leptos::prelude::*;
use leptos::task::spawn_local;
use resilience_sim::policy::circuit_breaker::CircuitBreakerConfig;
use resilience_sim::policy::circuit_breaker::{CircuitBreakerEvent, State, WindowCell, WindowKind};
use resilience_sim::scenario::breaker_script::MAX_SCRIPT_BYTES;
use resilience_sim::scenario::catalogue::LabInfo;
use resilience_sim::scenario::lab_session::{number_text, LabSession};
use resilience_sim::scenario::sandbox::{
    BreakerSandbox, CallClass, ClaimedSetting, Claims, Rates, Rung, SandboxCall, SandboxEvent,
    SandboxScenario, SandboxSettings,
};
use resilience_sim::Millis;
use wasm_bindgen::JsCast;

use super::lab_frame::{lab_state, tools_with_instances, LabFrame};
use crate::components::{bind_all, message, LabState};
use crate::format::trim;
use crate::nav::Location;
use crate::tools;
use crate::url_state::encode;
use crate::views::breaker::diagram;
use crate::views::html::{change, click, effect, live_html, Html};
use crate::views::page_tools::{Import, Pasted, Refused};

/// What an import over [`MAX_SCRIPT_BYTES`] is told (a script of the sandbox's maximum
/// length is far smaller), whether a file or a paste.
const TOO_LARGE: &str = "Import: that script is over 2 MB, too large for a breaker script.";
/// The longest advance one press may ask for: a day.
const MAX_ADVANCE_S: f64 = 86_400.0;

/// One thing a button asks of the session.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Intent {
    Send(SandboxCall),
    /// Advance the clock by this many milliseconds.
    Advance(Millis),
    /// Advance by the breaker's open wait.
    AdvanceWait,
    /// Advance by the seconds typed in the field.
    AdvanceTyped,
    Transition(State),
    Reset,
    EmptyCache,
    Load(SandboxScenario),
    /// Apply the fix of the scenario just replayed.
    Fix,
    Step,
    RunPending,
    /// Apply the claims typed in the form.
    Claims,
    /// Replay the pasted script.
    Import,
    /// Write the session out as a script (on demand: a long session is a long text).
    Export,
    /// Copy the exported script.
    Copy,
}

impl Intent {
    /// Reads a button's `data-act`.
    pub fn parse(act: &str) -> Option<Intent> {
        let (verb, arg) = act.split_once(':').unwrap_or((act, ""));
        Some(match verb {
            "send" => Intent::Send(*SandboxCall::ALL.iter().find(|c| c.name() == arg)?),
            "advance" => Intent::Advance(arg.parse().ok()?),
            "advance-wait" => Intent::AdvanceWait,
            "advance-typed" => Intent::AdvanceTyped,
            "to" => Intent::Transition(*State::ALL.iter().find(|s| s.as_str() == arg)?),
            "reset" => Intent::Reset,
            "empty-cache" => Intent::EmptyCache,
            "load" => Intent::Load(SandboxScenario::from_name(arg)?),
            "fix" => Intent::Fix,
            "step" => Intent::Step,
            "run-pending" => Intent::RunPending,
            "claims" => Intent::Claims,
            "import" => Intent::Import,
            "export" => Intent::Export,
            "copy" => Intent::Copy,
            _ => return None,
        })
    }
}

/// What the page's fields hold, kept as the learner types (each field's `name` says which
/// entry it is) and read when a button that needs them is pressed.
#[derive(Debug, Clone, PartialEq)]
pub struct Fields {
    pub advance_s: String,
    /// p99.5 latency (ms), typical incident (s), probes, calls per second.
    pub claims: [String; 4],
    pub answers_are_errors: bool,
    pub pasted: String,
}

impl Default for Fields {
    fn default() -> Self {
        Self {
            advance_s: "5".to_string(),
            claims: ["800", "30", "5", "20"].map(String::from),
            answers_are_errors: true,
            pasted: String::new(),
        }
    }
}

/// The claims form's fields: name, label, input mode.
const CLAIM_FIELDS: [(&str, &str, &str); 4] = [
    ("p995", "p99.5 latency (ms)", "decimal"),
    ("incident", "Typical incident (s)", "decimal"),
    ("probes", "Probes we accept to risk", "numeric"),
    ("rps", "Our calls per second", "decimal"),
];

impl Fields {
    /// A field the learner changed (`name` is the input's); false for a name of no field.
    pub fn set(&mut self, name: &str, value: String, checked: bool) -> bool {
        match name {
            "advance" => self.advance_s = value,
            "answers" => self.answers_are_errors = checked,
            "pasted" => self.pasted = value,
            _ => match CLAIM_FIELDS.iter().position(|f| f.0 == name) {
                Some(i) => self.claims[i] = value,
                None => return false,
            },
        }
        true
    }
}

/// What the page says besides the session: the last action's path and messages.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct PageNotes {
    /// The transitions of the last action, in order (the diagram's numbered path).
    pub path: Vec<(State, State)>,
    /// Why the last action was refused.
    pub refused: Option<String>,
    /// The settings the last claims gave, each with its claim.
    pub claimed: Vec<ClaimedSetting>,
    /// A line about the script (imported, copied).
    pub note: String,
    /// The session as a script, when the learner asked for it (dropped at the next
    /// action, which would make it stale).
    pub exported: Option<String>,
}

/// Makes the one engine call `intent` names (the UI decides nothing else), and notes the
/// transitions it caused.
pub fn apply(s: &mut BreakerSandbox, intent: Intent, fields: &Fields, notes: &mut PageNotes) {
    let before = s.events_total();
    notes.note.clear();
    notes.exported = None;
    let result = match intent {
        Intent::Send(call) => s.send(call).map(|_| ()),
        Intent::Advance(ms) => s.advance(ms).map(|_| ()),
        Intent::AdvanceWait => {
            let wait = s.config().wait_duration_in_open_state;
            s.advance(wait).map(|_| ())
        }
        Intent::AdvanceTyped => match resilience_sim::number::parse_number(fields.advance_s.trim())
        {
            Some(v) if (0.0..=MAX_ADVANCE_S).contains(&v) => {
                s.advance((v * 1000.0).round() as Millis).map(|_| ())
            }
            _ => Err(format!(
                "Advance: “{}” is not a number of seconds from 0 to 86400.",
                fields.advance_s.trim()
            )),
        },
        Intent::Transition(to) => s.transition(to),
        Intent::Reset => s.reset(),
        Intent::EmptyCache => s.empty_cache(),
        Intent::Load(scenario) => {
            s.load_scenario(scenario);
            Ok(())
        }
        Intent::Fix => s
            .apply_fix()
            .map(|()| {
                notes.note = "Fixed: the calls so far were played again with the fix.".to_string()
            })
            .map_err(|e| message::<SandboxSettings>(&e)),
        Intent::Step => s.step().map(|_| ()),
        Intent::RunPending => s.run_pending().map(|_| ()),
        Intent::Claims => claims(fields).and_then(|c| {
            s.apply_claims(&c)
                .map(|list| notes.claimed = list)
                .map_err(|e| message::<SandboxSettings>(&e))
        }),
        Intent::Import if fields.pasted.len() > MAX_SCRIPT_BYTES => Err(TOO_LARGE.to_string()),
        Intent::Import => script_io::import(s, &fields.pasted).map(|()| {
            notes.note = "Imported: the script was replayed from t = 0.".to_string();
        }),
        Intent::Export => script_io::export(s).map(|json| notes.exported = Some(json)),
        Intent::Copy => Ok(()),
    };
    notes.path = s
        .events()
        .filter(|e| e.seq > before)
        .filter_map(|e| match e.event {
            SandboxEvent::Breaker(CircuitBreakerEvent::StateTransition { from, to, .. }) => {
                Some((from, to))
            }
            _ => None,
        })
        .collect();
    notes.refused = result.err();
}

/// Breaker scripts in and out. In the browser the JSON text is read and written by the
/// browser's own `JSON` (serde-wasm-bindgen maps it to the engine's types): the wasm then
/// carries no JSON reader and writer of its own (the sandbox part is over its byte budget,
/// docs/bundles.md). Natively (the tests) the
/// engine's serde_json does the same job with the same types.
mod script_io {
    use resilience_sim::scenario::sandbox::BreakerSandbox;

    #[cfg(target_arch = "wasm32")]
    pub fn export(s: &BreakerSandbox) -> Result<String, String> {
        let serializer = serde_wasm_bindgen::Serializer::json_compatible();
        let value =
            serde::Serialize::serialize(&s.script(), &serializer).map_err(|e| e.to_string())?;
        js_sys::JSON::stringify_with_replacer_and_space(
            &value,
            &wasm_bindgen::JsValue::NULL,
            &2.into(),
        )
        .ok()
        .and_then(|text| text.as_string())
        .ok_or_else(|| "the script could not be written".to_string())
    }

    #[cfg(target_arch = "wasm32")]
    pub fn import(s: &mut BreakerSandbox, text: &str) -> Result<(), String> {
        let invalid = |why: String| {
            format!(
                "invalid breaker script: {}",
                resilience_sim::error::one_line(&why)
            )
        };
        let text = resilience_sim::error::without_bom(text);
        let value = js_sys::JSON::parse(text).map_err(|e| {
            invalid(
                js_sys::Error::from(e)
                    .message()
                    .as_string()
                    .unwrap_or_default(),
            )
        })?;
        let script = serde_wasm_bindgen::from_value(value.clone()).map_err(|e| {
            // Its text is a JavaScript error's: "Error: invalid type ...".
            let why = e.to_string();
            let why = why.strip_prefix("Error: ").unwrap_or(&why);
            invalid(format!("{}{why}", where_in(&value)))
        })?;
        s.import_script(script)
    }

    /// Where in a script the first value serde refused sits (`steps[3]: `, `config: `), found
    /// by reading its parts one by one: the reader of the whole script says what, not where.
    /// (The engine's `read_breaker_script` says both, but its path-tracking reader would add
    /// 9 KB to this part, which is over its byte budget.)
    #[cfg(target_arch = "wasm32")]
    fn where_in(script: &wasm_bindgen::JsValue) -> String {
        use resilience_sim::policy::circuit_breaker::CircuitBreakerConfig;
        use resilience_sim::scenario::breaker_script::BreakerStep;
        use wasm_bindgen::JsCast;
        let part = |name: &str| js_sys::Reflect::get(script, &name.into()).ok();
        if let Some(config) = part("config").filter(|c| !c.is_undefined()) {
            if serde_wasm_bindgen::from_value::<CircuitBreakerConfig>(config).is_err() {
                return "config: ".to_string();
            }
        }
        if let Some(steps) = part("steps").and_then(|s| s.dyn_into::<js_sys::Array>().ok()) {
            for (index, step) in steps.iter().enumerate() {
                if serde_wasm_bindgen::from_value::<BreakerStep>(step).is_err() {
                    return format!("steps[{index}]: ");
                }
            }
        }
        String::new()
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub fn export(s: &BreakerSandbox) -> Result<String, String> {
        s.export_json()
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub fn import(s: &mut BreakerSandbox, text: &str) -> Result<(), String> {
        s.import_json(text)
    }
}

/// The claims form's values, each checked.
fn claims(fields: &Fields) -> Result<Claims, String> {
    let [p995, incident, probes, rps] = &fields.claims;
    let number = |text: &String, what: &str| {
        resilience_sim::number::parse_number(text.trim())
            .filter(|v| (0.0..=1e9).contains(v))
            .ok_or_else(|| format!("{what}: “{}” is not a number from 0 up.", text.trim()))
    };
    Ok(Claims {
        p995_latency_ms: number(p995, "p99.5 latency")?.round() as Millis,
        typical_incident_s: number(incident, "Typical incident")?.round() as u64,
        answers_are_errors: fields.answers_are_errors,
        probes: number(probes, "Probes")?.min(1e6) as u32,
        calls_per_second: number(rps, "Calls per second")?,
    })
}

/// Virtual time as the page writes it: `0 s`, `2.5 s`, `10 s`, `0.1 s`.
fn clock(ms: Millis) -> String {
    format!("{} s", trim(ms as f64 / 1000.0))
}

#[component]
pub fn SandboxPage(info: LabInfo, location: RwSignal<Location>) -> impl IntoView {
    let (state, problems) = lab_state::<SandboxSettings>(info.number);
    let settings = state.session.with_untracked(|l| l.config().clone());
    let session = RwSignal::new(BreakerSandbox::new(settings).unwrap_or_default());
    let notes = RwSignal::new(PageNotes::default());
    // A changed control replays the session with the new settings (the engine validated
    // them already; a replay that fails is reported like any refused change).
    effect(move || {
        let settings = state.session.with(|l| l.config().clone());
        if session.with_untracked(|s| *s.settings() != settings) {
            let mut result = Ok(());
            session.update(|s| result = s.set_settings(settings));
            if let Err(e) = result {
                state.refused.set(Some(message::<SandboxSettings>(&e)));
            }
            notes.update(|n| n.path.clear());
        }
    });
    let controls = bind_all(state);
    // A pasted Resilience4j fragment replaces the breaker's settings, all or nothing; the
    // effect above then replays the session with them.
    let apply =
        move |(config, notes): (CircuitBreakerConfig, Vec<String>)| -> Result<String, Vec<String>> {
            // On a copy: a refusal leaves the page's session as it was.
            let mut next = session.get_untracked();
            next.set_config(config).map_err(|e| vec![e.to_string()])?;
            let settings = next.settings().clone();
            session.set(next);
            state.session.set(LabSession::new(settings));
            state.refused.set(None);
            let mut done = "Applied: the breaker has this configuration now, and the calls sent so far were played again with it.".to_string();
            for note in notes {
                done.push(' ');
                done.push_str(&note);
            }
            Ok(done)
        };
    // The tools part reads and checks the fragment; the page replays its calls with it.
    let import = Callback::new(move |pasted: Pasted| {
        leptos::task::spawn_local(async move {
            pasted
                .done
                .run(match tools::read_for_sandbox(&pasted).await {
                    Ok(read) => read.and_then(|r| apply(r).map_err(Refused::from)),
                    Err(unavailable) => Err(vec![unavailable].into()),
                });
        });
    });
    view! {
        <LabFrame info=info text=&super::SANDBOX_TEXT location=location tools=tools_with_instances(info.number, state) import=Import(import) controls=controls refused=state.refused
            reset=Callback::new(move |_| {
                state.reset();
                session.update(BreakerSandbox::clear);
                notes.set(PageNotes::default());
            })
            problems=problems>
            <SandboxBody session=session notes=notes state=state />
        </LabFrame>
    }
}

/// The sandbox's panels, with one handler of each kind for all of them: clicks (the
/// buttons' intents), input (the typed fields, kept in [`Fields`]) and change (an imported
/// file).
#[component]
fn SandboxBody(
    session: RwSignal<BreakerSandbox>,
    notes: RwSignal<PageNotes>,
    state: LabState<SandboxSettings>,
) -> impl IntoView {
    let fields = StoredValue::new(Fields::default());
    let on_click = click(move |ev| {
        let Some(act) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|t| t.closest("[data-act]").ok().flatten())
            .and_then(|b| b.get_attribute("data-act"))
        else {
            return;
        };
        let Some(intent) = Intent::parse(&act) else {
            return;
        };
        if intent == Intent::Copy {
            // The text shown is the text copied.
            if let Some(json) = notes.with_untracked(|n| n.exported.clone()) {
                copy(json, notes);
            }
            return;
        }
        let fields = fields.get_value();
        let mut result = notes.get_untracked();
        session.update(|s| apply(s, intent, &fields, &mut result));
        notes.set(result);
        sync_settings(session, state);
    });
    // Typing goes into `fields`; no handler reads the page's inputs back.
    let on_input = change(move |ev| {
        let Some(target) = ev.target() else { return };
        let (name, value, checked) = match target.dyn_into::<web_sys::HtmlInputElement>() {
            Ok(input) => (input.name(), input.value(), input.checked()),
            Err(target) => match target.dyn_into::<web_sys::HtmlTextAreaElement>() {
                // The file input's limit, checked before the text is copied out of the page.
                Ok(text) if text.text_length() as usize > MAX_SCRIPT_BYTES => {
                    notes.update(|n| n.refused = Some(TOO_LARGE.to_string()));
                    (text.name(), String::new(), false)
                }
                Ok(text) => (text.name(), text.value(), false),
                Err(_) => return,
            },
        };
        fields.update_value(|f| {
            f.set(&name, value, checked);
        });
    });
    let on_change = change(move |ev| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .filter(|i| i.type_() == "file")
        else {
            return;
        };
        if let Some(file) = input.files().and_then(|f| f.get(0)) {
            import_file(file, session, notes, state);
        }
    });
    let panel = |draw: fn(&BreakerSandbox, &PageNotes, &mut String)| {
        live_html(move || {
            let mut h = String::with_capacity(1024);
            session.with(|s| notes.with(|n| draw(s, n, &mut h)));
            h
        })
    };
    view! {
        <div class="sandbox" on:click=on_click on:input=on_input on:change=on_change>
            <div class="sandbox-status" inner_html=panel(draw_clock)></div>
            <section class="panel sandbox-actions" aria-labelledby="sandbox-actions-heading" inner_html=actions_html(&Fields::default())></section>
            <div inner_html=panel(draw_breaker)></div>
            <div inner_html=panel(draw_fallback)></div>
            <div inner_html=panel(draw_log)></div>
            <div inner_html=panel(draw_scenarios)></div>
            <section class="panel sandbox-claims" aria-labelledby="claims-heading" inner_html=claims_html(&Fields::default())></section>
            <div inner_html=panel(draw_claimed)></div>
            <div inner_html=panel(draw_exchange)></div>
            <section class="panel sandbox-import" aria-labelledby="import-heading" inner_html=IMPORT_FORM></section>
        </div>
    }
}

/// After a scenario, an import or claims changed the settings, the controls and the link
/// follow the session.
fn sync_settings(session: RwSignal<BreakerSandbox>, state: LabState<SandboxSettings>) {
    let settings = session.with_untracked(|s| s.settings().clone());
    if state.session.with_untracked(|l| *l.config() != settings) {
        state.session.set(LabSession::new(settings));
        state.refused.set(None);
    }
}

fn copy(text: String, notes: RwSignal<PageNotes>) {
    let clipboard = window().navigator().clipboard();
    spawn_local(async move {
        let copied = wasm_bindgen_futures::JsFuture::from(clipboard.write_text(&text)).await;
        notes.update(|n| {
            n.note = match copied {
                Ok(_) => "Copied to the clipboard.".to_string(),
                Err(_) => {
                    "The browser refused the clipboard: select the script and copy it.".to_string()
                }
            }
        });
    });
}

fn import_file(
    file: web_sys::File,
    session: RwSignal<BreakerSandbox>,
    notes: RwSignal<PageNotes>,
    state: LabState<SandboxSettings>,
) {
    if file.size() > MAX_SCRIPT_BYTES as f64 {
        notes.update(|n| n.refused = Some(TOO_LARGE.to_string()));
        return;
    }
    spawn_local(async move {
        let text = wasm_bindgen_futures::JsFuture::from(file.text())
            .await
            .ok()
            .and_then(|v| v.as_string());
        let Some(pasted) = text else {
            notes.update(|n| {
                n.refused = Some("Import: the file could not be read as text.".to_string())
            });
            return;
        };
        let fields = Fields {
            pasted,
            ..Fields::default()
        };
        let mut result = PageNotes::default();
        session.update(|s| apply(s, Intent::Import, &fields, &mut result));
        notes.set(result);
        sync_settings(session, state);
    });
}

/// The buttons and the clock's field, with the field's value from `fields`.
pub fn actions_html(fields: &Fields) -> String {
    let mut h = String::with_capacity(2048);
    h.raw(concat!(
        "<h2 id=\"sandbox-actions-heading\">Send calls, move the clock</h2>",
        "<div class=\"button-row\" role=\"group\" aria-label=\"Send one call\">",
        "<button type=\"button\" data-act=\"send:success\" data-testid=\"sandbox-send-success\">Success</button>",
        "<button type=\"button\" data-act=\"send:failure\" data-testid=\"sandbox-send-failure\">Failure (IOException)</button>",
        "<button type=\"button\" data-act=\"send:slow\" data-testid=\"sandbox-send-slow\">Slow success</button>",
        "<button type=\"button\" data-act=\"send:ignored\" data-testid=\"sandbox-send-ignored\">404 (NotFoundException)</button>",
        "</div>",
        "<div class=\"button-row\" role=\"group\" aria-label=\"Advance the clock\">",
        "<button type=\"button\" data-act=\"advance:1000\" data-testid=\"sandbox-advance\">+1 s</button>",
        "<button type=\"button\" data-act=\"advance-wait\" data-testid=\"sandbox-advance-wait\">+ the open wait</button>",
        "<label class=\"inline-field\">+ <input type=\"text\" inputmode=\"decimal\" size=\"5\" name=\"advance\" data-testid=\"sandbox-advance-amount\" aria-label=\"Seconds to advance\" value=\"",
    ))
    .text(&fields.advance_s)
    .raw(concat!(
        "\"> s</label>",
        "<button type=\"button\" data-act=\"advance-typed\" data-testid=\"sandbox-advance-by\">Advance</button>",
        "</div>",
        "<div class=\"button-row\" role=\"group\" aria-label=\"Set the state by hand\">",
    ));
    for to in [
        State::Disabled,
        State::ForcedOpen,
        State::MetricsOnly,
        State::Closed,
    ] {
        h.raw("<button type=\"button\" class=\"secondary\" data-act=\"to:")
            .raw(to.as_str())
            .raw("\" data-testid=\"sandbox-to-")
            .raw(to.as_str())
            .raw("\">")
            .raw(to.as_str())
            .raw("</button>");
    }
    h.raw("<button type=\"button\" class=\"secondary\" data-act=\"reset\" data-testid=\"sandbox-reset\">reset()</button></div>");
    h
}

/// The claims form, with its values from `fields`.
pub fn claims_html(fields: &Fields) -> String {
    let mut h = String::with_capacity(1024);
    h.raw("<h2 id=\"claims-heading\">Configure from claims</h2><p>Write what the dependency's team can state; the settings follow from it, each next to its claim.</p><div class=\"claims-fields\">");
    for ((name, label, mode), value) in CLAIM_FIELDS.iter().zip(&fields.claims) {
        h.raw("<label>")
            .raw(label)
            .raw(" <input type=\"text\" size=\"6\" inputmode=\"")
            .raw(mode)
            .raw("\" name=\"")
            .raw(name)
            .raw("\" data-testid=\"claims-")
            .raw(name)
            .raw("\" value=\"")
            .text(value)
            .raw("\"></label>");
    }
    h.raw("<label class=\"toggle\"><input type=\"checkbox\" name=\"answers\" data-testid=\"claims-answers\"")
        .raw(if fields.answers_are_errors { " checked" } else { "" })
        .raw("> It reports answers (a 404, a decline) as exceptions</label></div><button type=\"button\" data-act=\"claims\" data-testid=\"sandbox-claims-apply\">Apply the settings these claims give</button>");
    h
}

const IMPORT_FORM: &str = concat!(
    "<h2 id=\"import-heading\">Replay a script</h2>",
    "<label for=\"sandbox-import-text\">Paste a breaker script (the JSON of <code>resilience-sim breaker FILE</code>)</label>",
    "<textarea id=\"sandbox-import-text\" name=\"pasted\" data-testid=\"sandbox-import-text\" rows=\"4\" spellcheck=\"false\"></textarea>",
    "<div class=\"button-row\"><button type=\"button\" data-act=\"import\" data-testid=\"sandbox-import\">Import and replay</button>",
    "<label class=\"file-pick\">or a file: <input type=\"file\" accept=\".json,application/json\" data-testid=\"sandbox-import-file\"></label></div>",
);

/// The status bar: the clock, the state and the rates in one line (kept in view while the
/// learner scrolls), and why the last action was refused.
pub fn draw_clock(s: &BreakerSandbox, n: &PageNotes, h: &mut String) {
    h.raw("<p class=\"sandbox-clock\" aria-live=\"polite\">t = <strong data-testid=\"sandbox-clock\">")
        .text(&clock(s.now()))
        .raw("</strong> · <strong class=\"state-text ")
        .text(&s.state().as_str().to_ascii_lowercase())
        .raw("\">")
        .text(s.state().as_str())
        .raw("</strong> · ")
        .text(&s.rates().describe())
        .raw("</p><p class=\"error\" role=\"alert\" data-testid=\"sandbox-refused\">");
    if let Some(why) = &n.refused {
        h.text(why);
    }
    h.raw("</p>");
}

/// The state line, the diagram, the rates and the window.
pub fn draw_breaker(s: &BreakerSandbox, n: &PageNotes, h: &mut String) {
    let state = s.state();
    h.raw("<section class=\"panel breaker sandbox-breaker\" aria-labelledby=\"sandbox-breaker-heading\"><h2 id=\"sandbox-breaker-heading\">The circuit breaker</h2><p class=\"breaker-state-line\">State: <strong data-testid=\"breaker-state\" class=\"state-text ")
        .text(&state.as_str().to_ascii_lowercase())
        .raw("\">")
        .text(state.as_str())
        .raw("</strong> — <span data-testid=\"sandbox-detail\">")
        .text(&detail(s))
        .raw("</span></p>");
    let wait = clock(s.config().wait_duration_in_open_state);
    diagram(s.config(), state, &n.path, &wait, "in the last action", h);
    h.raw("<p data-testid=\"sandbox-rates\">")
        .text(&rates(s))
        .raw("</p>");
    match s.window_kind() {
        WindowKind::CountBased(size) => {
            let cells = s.window_cells();
            h.raw("<h3>Window: the last ")
                .num(size.into())
                .raw(" recorded calls, oldest first</h3><ol class=\"window sandbox-window\" data-testid=\"sandbox-window\">");
            for cell in &cells {
                let (class, tag, label) = cell_words(*cell);
                h.raw("<li class=\"cell ")
                    .raw(class)
                    .raw("\" title=\"")
                    .raw(label)
                    .raw("\"><span aria-hidden=\"true\">")
                    .raw(tag)
                    .raw("</span><span class=\"visually-hidden\">")
                    .raw(label)
                    .raw("</span></li>");
            }
            for _ in cells.len()..(size as usize).min(100) {
                h.raw("<li class=\"cell empty\"><span class=\"visually-hidden\">empty</span></li>");
            }
            h.raw("</ol>");
        }
        WindowKind::TimeBased(size) => {
            h.raw("<h3>Window: the last ")
                .num(size.into())
                .raw(" seconds</h3><ol class=\"buckets\" data-testid=\"sandbox-window\">");
            for b in s.window_buckets() {
                h.raw("<li>second ")
                    .num(b.epoch_second)
                    .raw(": ")
                    .num(b.totals.calls.into())
                    .raw(" calls, ")
                    .num(b.totals.failed.into())
                    .raw(" failed, ")
                    .num(b.totals.slow.into())
                    .raw(" slow</li>");
            }
            h.raw("</ol>");
        }
        WindowKind::Empty => {
            h.raw("<p class=\"muted\" data-testid=\"sandbox-window\">No window: this state records nothing.</p>");
        }
    }
    h.raw("</section>");
}

/// The state line's detail: what the breaker does now, with the countdown and the trials.
pub fn detail(s: &BreakerSandbox) -> String {
    match s.state() {
        State::Open => match s.open_wait_remaining() {
            Some(left)
                if s.config()
                    .automatic_transition_from_open_to_half_open_enabled =>
            {
                format!("refusing calls; HALF_OPEN by timer in {}.", clock(left))
            }
            // Resilience4j lets a trial through strictly after the wait, not at its end.
            Some(0) => "refusing calls; the wait ends at this instant: a call now is still refused, a call 1 ms later is the first trial.".to_string(),
            Some(left) => format!(
                "refusing calls; {} of the wait left, and a call after that is the first trial.",
                clock(left)
            ),
            None => "refusing calls.".to_string(),
        },
        State::HalfOpen => match s.half_open_trials() {
            Some((sent, permitted)) => format!("trial calls sent: {sent} of {permitted}."),
            None => "letting trial calls through.".to_string(),
        },
        State::Closed => "letting calls through and recording their outcomes.".to_string(),
        State::Disabled => "set by hand: permits every call, records nothing.".to_string(),
        State::ForcedOpen => "set by hand: refuses every call, never goes half-open.".to_string(),
        State::MetricsOnly => "set by hand: records and reports, never changes state.".to_string(),
    }
}

/// The rates against their thresholds, or why there are none.
pub fn rates(s: &BreakerSandbox) -> String {
    let c = s.config();
    let thresholds = format!(
        "opens at ≥ {} % failures or ≥ {} % slow calls (slow = over {})",
        number_text(c.failure_rate_threshold.into()),
        number_text(c.slow_call_rate_threshold.into()),
        clock(c.slow_call_duration_threshold)
    );
    match s.rates() {
        Rates::NotRecording => "Not recording in this state.".to_string(),
        r => {
            // The engine's words start in lower case ("not enough calls: 7 of 10"); ASCII
            // case only, so no Unicode case tables reach the wasm.
            let mut text = r.describe();
            if let Some(first) = text.get_mut(..1) {
                first.make_ascii_uppercase();
            }
            format!("{text}; {thresholds}.")
        }
    }
}

/// A window cell: its class, its short tag and its words.
fn cell_words(cell: WindowCell) -> (&'static str, &'static str, &'static str) {
    match cell {
        WindowCell::Success => ("success", "✓", "success"),
        WindowCell::Failure => ("failure", "✗", "failure"),
        WindowCell::SlowSuccess => ("success slow", "slow", "slow success"),
        WindowCell::SlowFailure => ("failure slow", "slow ✗", "slow failure"),
    }
}

fn class_of(class: CallClass) -> &'static str {
    match class {
        CallClass::Success => "success",
        CallClass::SlowSuccess => "slow",
        CallClass::Failure | CallClass::SlowFailure => "failure",
        CallClass::Ignored => "ignored",
        CallClass::NotPermitted => "refused",
    }
}

/// Who answered each call: the ladder, the cache, the last calls.
pub fn draw_fallback(s: &BreakerSandbox, _: &PageNotes, h: &mut String) {
    let last = s.records().next_back().map(|r| r.rung);
    h.raw("<section class=\"panel sandbox-fallback\" aria-labelledby=\"fallback-heading\"><h2 id=\"fallback-heading\">The fallback ladder</h2><ol class=\"ladder\" data-testid=\"sandbox-ladder\">");
    for rung in Rung::ALL {
        h.raw(if last == Some(rung) {
            "<li class=\"current\">"
        } else {
            "<li>"
        })
        .raw(rung.label())
        .raw("</li>");
    }
    h.raw("</ol><p class=\"help\">Two rules the ladder does not show. At its foot, each call fails open (the order goes on without the dependency) or fails closed (no payment without its fraud check): a business decision, written down with its owner. And no rung may call another dependency without its own timeout and breaker: that moves the outage, it does not end it.</p><p data-testid=\"sandbox-rung\">");
    match last {
        Some(rung) => h.raw("Last call answered by: ").raw(rung.label()).raw("."),
        None => h.raw("No call yet."),
    };
    h.raw("</p><p data-testid=\"sandbox-cache\">");
    match s.cache_age() {
        None => h.raw("The cache is empty."),
        Some(age) => h
            .raw("The cache holds an answer ")
            .text(&clock(age))
            .raw(" old (")
            .raw(if s.cache_fresh() {
                "young enough to serve"
            } else {
                "too old to serve"
            })
            .raw(")."),
    };
    h.raw(" <button type=\"button\" class=\"secondary\" data-act=\"empty-cache\" data-testid=\"sandbox-empty-cache\">Empty the cache</button></p><h3>Last calls, newest first</h3><ul class=\"calls\" data-testid=\"sandbox-calls\">");
    for r in s.records().rev().take(8) {
        h.raw("<li class=\"")
            .raw(class_of(r.class))
            .raw("\">#")
            .num(r.number)
            .raw(" at ")
            .text(&clock(r.at))
            .raw(": ")
            .raw(r.sent.map_or("a call", |c| c.label()))
            .raw(" → ")
            .raw(r.class.label())
            .raw("; the user got: ")
            .raw(r.rung.label())
            .raw("</li>");
    }
    h.raw("</ul></section>");
}

/// The breaker's events with Resilience4j's names, newest first.
pub fn draw_log(s: &BreakerSandbox, _: &PageNotes, h: &mut String) {
    h.raw("<section class=\"panel sandbox-log\" aria-labelledby=\"log-heading\"><h2 id=\"log-heading\">Event log</h2><ol class=\"event-log\" data-testid=\"sandbox-log\">");
    for e in s.events().rev().take(14) {
        h.raw("<li><span class=\"at\">")
            .text(&clock(e.event.at()))
            .raw("</span> <code>")
            .raw(e.event.name())
            .raw("</code> ")
            .text(&e.event.detail())
            .raw("</li>");
    }
    h.raw("</ol></section>");
}

/// The two misconfigurations, replayed step by step.
pub fn draw_scenarios(s: &BreakerSandbox, _: &PageNotes, h: &mut String) {
    h.raw("<section class=\"panel sandbox-scenarios\" aria-labelledby=\"scenarios-heading\"><h2 id=\"scenarios-heading\">Two misconfigurations to replay</h2><ul class=\"scenario-list\">");
    for sc in SandboxScenario::ALL {
        h.raw("<li><button type=\"button\" data-act=\"load:")
            .raw(sc.name())
            .raw("\" data-testid=\"sandbox-scenario-")
            .raw(sc.name())
            .raw("\">")
            .raw(sc.label())
            .raw("</button> ")
            .raw(sc.description())
            .raw("</li>");
    }
    h.raw("</ul><p data-testid=\"sandbox-pending\">");
    match s.pending().next() {
        None => h.raw("No scenario step waiting."),
        Some(next) => h
            .num(s.pending_len() as u64)
            .raw(" steps to go; next: ")
            .text(&next.describe())
            .raw("."),
    };
    let none = if s.pending_len() == 0 {
        " disabled"
    } else {
        ""
    };
    h.raw("</p><div class=\"button-row\"><button type=\"button\" data-act=\"step\" data-testid=\"sandbox-step\"")
        .raw(none)
        .raw(">Next step</button><button type=\"button\" class=\"secondary\" data-act=\"run-pending\" data-testid=\"sandbox-run-all\"")
        .raw(none)
        .raw(">Run the rest</button></div>");
    // The replay is over and the misconfiguration still in place: say the fix, offer it.
    if let Some(scenario) = s.fix_to_offer() {
        let (_, _, words) = scenario.fix();
        h.raw("<p class=\"fix-prompt\" data-testid=\"sandbox-fix-prompt\">After “")
            .raw(scenario.label())
            .raw("” the breaker is ")
            .raw(s.state().as_str())
            .raw(". The fix: ")
            .raw(words)
            .raw(".</p><button type=\"button\" data-act=\"fix\" data-testid=\"sandbox-fix\">Apply the fix and play the calls again</button>");
    }
    h.raw("</section>");
}

/// The settings the last claims gave, each next to its claim.
pub fn draw_claimed(_: &BreakerSandbox, n: &PageNotes, h: &mut String) {
    if n.claimed.is_empty() {
        return;
    }
    h.raw("<table class=\"claims-table\" data-testid=\"sandbox-claims-list\"><caption>The settings these claims give (applied)</caption><thead><tr><th scope=\"col\">Setting</th><th scope=\"col\">Value</th><th scope=\"col\">Because</th></tr></thead><tbody>");
    for c in &n.claimed {
        h.raw("<tr><td><code>")
            .text(c.name)
            .raw("</code></td><td>")
            .text(&c.value)
            .raw("</td><td>")
            .text(&c.claim)
            .raw("</td></tr>");
    }
    h.raw("</tbody></table>");
}

/// The session as the script `resilience-sim breaker FILE` reads, written when asked.
pub fn draw_exchange(_: &BreakerSandbox, n: &PageNotes, h: &mut String) {
    h.raw("<section class=\"panel sandbox-script\" aria-labelledby=\"script-heading\"><h2 id=\"script-heading\">The session as a breaker script</h2><p>The JSON that <code>resilience-sim breaker FILE</code> reads: the command line ends in the same state with the same metrics.</p>");
    match &n.exported {
        None => {
            h.raw("<button type=\"button\" data-act=\"export\" data-testid=\"sandbox-export-show\">Write this session as a script</button>");
        }
        Some(json) => {
            h.raw("<textarea aria-label=\"Script of this session\" data-testid=\"sandbox-export\" readonly rows=\"8\" spellcheck=\"false\">")
                .text(json)
                .raw("</textarea><div class=\"button-row\"><button type=\"button\" data-act=\"copy\" data-testid=\"sandbox-copy\">Copy</button><a class=\"button secondary\" download=\"breaker-script.json\" data-testid=\"sandbox-download\" href=\"data:application/json;charset=utf-8,")
                .text(&encode(json))
                .raw("\">Download</a></div>");
        }
    }
    h.raw("<p role=\"status\" data-testid=\"sandbox-script-note\">")
        .text(&n.note)
        .raw("</p></section>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use resilience_sim::scenario::breaker_script::{parse_breaker_script, run_breaker_script};

    fn press(s: &mut BreakerSandbox, act: &str) -> PageNotes {
        let mut notes = PageNotes::default();
        let intent = Intent::parse(act).unwrap_or_else(|| panic!("{act} is no intent"));
        apply(s, intent, &Fields::default(), &mut notes);
        notes
    }

    /// A misconfiguration replayed to its end: the page says the fix and offers it; applied,
    /// the 404 storm leaves the breaker CLOSED and the offer goes.
    #[test]
    fn a_replayed_misconfiguration_offers_its_fix() {
        let mut s = BreakerSandbox::default();
        press(&mut s, "load:notFoundStorm");
        let mut h = String::new();
        draw_scenarios(&s, &PageNotes::default(), &mut h);
        assert!(
            !h.contains("sandbox-fix"),
            "not before the steps have run: {h}"
        );
        press(&mut s, "run-pending");
        let mut h = String::new();
        draw_scenarios(&s, &PageNotes::default(), &mut h);
        assert!(
            h.contains("the breaker is OPEN. The fix: ignore NotFoundException"),
            "{h}"
        );
        assert!(h.contains("data-act=\"fix\""), "{h}");
        let notes = press(&mut s, "fix");
        assert!(notes.note.starts_with("Fixed:"), "{notes:?}");
        assert_eq!(s.state(), State::Closed);
        let mut h = String::new();
        draw_scenarios(&s, &PageNotes::default(), &mut h);
        assert!(!h.contains("sandbox-fix"), "{h}");
    }

    /// The default sequence, through the buttons' intents: 5 successes and 4
    /// failures leave it CLOSED (9 of 10 calls), a fifth failure opens it (5 of 10 = 50 %),
    /// a call is then refused, and only strictly after the 10 s wait is the next a trial.
    #[test]
    fn the_default_sequence_through_the_buttons() {
        let mut s = BreakerSandbox::default();
        for _ in 0..5 {
            press(&mut s, "send:success");
        }
        for _ in 0..4 {
            press(&mut s, "send:failure");
        }
        assert_eq!(s.state(), State::Closed);
        assert_eq!(
            rates(&s).split(';').next(),
            Some("Not enough calls: 9 of 10")
        );
        let notes = press(&mut s, "send:failure");
        assert_eq!(s.state(), State::Open);
        assert_eq!(notes.path, vec![(State::Closed, State::Open)]);
        press(&mut s, "send:success");
        assert_eq!(
            s.records().next_back().map(|r| r.class),
            Some(CallClass::NotPermitted)
        );
        for _ in 0..10 {
            press(&mut s, "advance:1000");
        }
        // What the page says at the end of the wait is what the breaker does next.
        assert!(
            detail(&s).contains("a call now is still refused"),
            "{}",
            detail(&s)
        );
        press(&mut s, "send:success");
        assert_eq!(
            s.state(),
            State::Open,
            "at exactly the wait the call is still refused"
        );
        press(&mut s, "advance:1000");
        let notes = press(&mut s, "send:success");
        assert_eq!(notes.path, vec![(State::Open, State::HalfOpen)]);
        assert_eq!(detail(&s), "trial calls sent: 1 of 3.");
    }

    #[test]
    fn every_button_of_the_page_names_an_intent() {
        let mut all = String::new();
        let s = BreakerSandbox::default();
        let n = PageNotes::default();
        all.push_str(&actions_html(&Fields::default()));
        all.push_str(&claims_html(&Fields::default()));
        all.push_str(IMPORT_FORM);
        for draw in [draw_fallback, draw_scenarios, draw_exchange] {
            draw(&s, &n, &mut all);
        }
        let acts: Vec<&str> = all
            .split("data-act=\"")
            .skip(1)
            .map(|r| &r[..r.find('"').unwrap()])
            .collect();
        assert!(acts.len() >= 17, "{acts:?}");
        for act in acts {
            assert!(Intent::parse(act).is_some(), "{act}");
        }
        assert_eq!(Intent::parse("send:teapot"), None);
        assert_eq!(Intent::parse("advance:-1"), None);
    }

    /// Every field of the page names an entry of `Fields`, and the forms show its values.
    #[test]
    fn every_field_of_the_page_is_kept_in_fields() {
        let mut fields = Fields::default();
        let html = actions_html(&fields) + &claims_html(&fields) + IMPORT_FORM;
        let names: Vec<&str> = html
            .split(" name=\"")
            .skip(1)
            .map(|r| &r[..r.find('"').unwrap()])
            .collect();
        assert_eq!(
            names,
            ["advance", "p995", "incident", "probes", "rps", "answers", "pasted"]
        );
        for name in names {
            assert!(fields.set(name, "7".to_string(), false), "{name}");
        }
        assert!(!fields.set("colour", String::new(), false));
        assert_eq!(fields.claims, ["7", "7", "7", "7"].map(String::from));
        assert!(!fields.answers_are_errors);
        assert!(claims_html(&Fields::default())
            .contains("name=\"p995\" data-testid=\"claims-p995\" value=\"800\""));
    }

    #[test]
    fn a_typed_advance_is_checked() {
        let mut s = BreakerSandbox::default();
        let mut notes = PageNotes::default();
        for (typed, now, refused) in [
            ("2.5", 2_500, false),
            ("abc", 2_500, true),
            ("-1", 2_500, true),
            ("1e9", 2_500, true),
        ] {
            let fields = Fields {
                advance_s: typed.to_string(),
                ..Fields::default()
            };
            apply(&mut s, Intent::AdvanceTyped, &fields, &mut notes);
            assert_eq!(
                (s.now(), notes.refused.is_some()),
                (now, refused),
                "{typed}"
            );
        }
    }

    /// The exported script, run by the CLI's runner, ends where the sandbox is.
    #[test]
    fn the_export_replays_to_the_same_state_as_the_cli() {
        let mut s = BreakerSandbox::default();
        for act in [
            "send:success",
            "send:failure",
            "send:slow",
            "send:ignored",
            "advance:1000",
        ] {
            for _ in 0..3 {
                press(&mut s, act);
            }
        }
        let script = parse_breaker_script(&s.export_json().unwrap()).unwrap();
        let last = run_breaker_script(&script).unwrap().pop().unwrap();
        let m = s.metrics();
        assert_eq!(
            (last.state, last.buffered, last.failed, last.slow),
            (s.state(), m.buffered, m.failed, m.slow)
        );
        let notes = press(&mut s, "export");
        let mut html = String::new();
        draw_exchange(&s, &notes, &mut html);
        assert!(
            html.contains("href=\"data:application/json;charset=utf-8,%7B"),
            "{html}"
        );
        // The next action drops the text it would make stale.
        let notes = press(&mut s, "send:success");
        assert_eq!(notes.exported, None);
    }

    #[test]
    fn claims_are_checked_then_applied() {
        let mut s = BreakerSandbox::default();
        let mut notes = PageNotes::default();
        let fields = Fields {
            claims: ["800", "30", "5", "20"].map(String::from),
            answers_are_errors: true,
            ..Fields::default()
        };
        apply(&mut s, Intent::Claims, &fields, &mut notes);
        assert_eq!(notes.refused, None);
        // The p99.5 plus its 25 % margin.
        assert_eq!(s.config().slow_call_duration_threshold, 1_000);
        assert_eq!(s.config().wait_duration_in_open_state, 30_000);
        assert_eq!(s.config().permitted_number_of_calls_in_half_open_state, 5);
        assert!(notes
            .claimed
            .iter()
            .any(|c| c.name == "slowCallDurationThreshold"));
        let bad = Fields {
            claims: ["fast", "30", "5", "20"].map(String::from),
            ..Fields::default()
        };
        apply(&mut s, Intent::Claims, &bad, &mut notes);
        assert!(
            notes
                .refused
                .as_deref()
                .is_some_and(|m| m.starts_with("p99.5 latency")),
            "{notes:?}"
        );
        assert_eq!(
            s.config().slow_call_duration_threshold,
            1_000,
            "a refused claim changes nothing"
        );
    }
}
