//! Demo 10: the breaker sandbox. The learner drives one engine breaker
//! ([`BreakerSandbox`]) call by call.
//!
//! The page is typed Leptos views over one state, [`Sandbox`]: the session's signal (the
//! breaker with its settings, which the lab's controls read and set there: the settings
//! live once), what the learner has typed ([`Fields`]) and what the page says besides the
//! session ([`PageNotes`]), with one [`Sandbox::reset`] for all of it. Every button is a
//! `<button>` whose click asks for one [`Intent`]; [`apply`] makes the one call of the
//! session's API it names (the page decides nothing else). A script to replay is read
//! first, by the CLI's reader in the tools part, then [`replay`]ed. The page draws only
//! what the session reports, as text: the state line, the window, the rates against their
//! thresholds, the OPEN countdown, the fallback's answer and the event log. The state
//! diagram is the tick demos' drawing (`views::breaker::diagram`): markup made from the
//! session's numbers and states only. The settings are the lab's control table
//! ([`SandboxSettings`]), in the link like any lab's; a change replays the session.
//!
//! What keeps the page's wasm down (docs/bundles.md): the texts, attributes and handlers
//! are the boxed helpers of `views::html`; every plain button is one view (`button`);
//! the items of every list are erased (`into_any`), and every list the session redraws is a
//! `LiveList`, so the page carries one copy of the list code; the parts shown only at
//! times (the fix, the exported script, the claims' table) are made once and hidden.

use leptos::prelude::*;
use leptos::task::spawn_local;
use resilience_sim::number::number_text;
use resilience_sim::policy::circuit_breaker::CircuitBreakerConfig;
use resilience_sim::policy::circuit_breaker::{CircuitBreakerEvent, State, WindowCell, WindowKind};
use resilience_sim::resilience4j::labs::LabResilience4j;
use resilience_sim::scenario::breaker_script::MAX_SCRIPT_BYTES;
use resilience_sim::scenario::catalogue::LabInfo;
use resilience_sim::scenario::lab_session::{Control, ControlValue, LabModel, LabSession};
use resilience_sim::scenario::sandbox::{
    BreakerSandbox, CallClass, CallRecord, ClaimedSetting, Claims, Rates, Rung, SandboxCall,
    SandboxEvent, SandboxScenario, SandboxSettings,
};
use resilience_sim::Millis;
use wasm_bindgen::{JsCast, JsValue};

use super::lab_frame::{LabFrame, LabTools};
use crate::components::{bind_to, message, ControlBinding};
use crate::format::trim;
use crate::lab_link::{config_from_link, link_of};
use crate::nav::{address_follows, current_query, Location};
use crate::tools::{self, ScriptRead};
use crate::url_state::encode;
use crate::views::breaker::diagram;
use crate::views::html::{change, click, live, live_attr, live_flag, pasted_within, Live};
use crate::views::page_tools::{Import, Refused};

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
    /// Write the session out as a script (on demand: a long session is a long text).
    Export,
}

/// What the learner has typed, as typed; read when a button that needs it is pressed.
#[derive(Debug, Clone, PartialEq)]
pub struct Fields {
    pub advance_s: String,
    /// p99.5 latency (ms), typical incident (s), probes, calls per second.
    pub claims: [String; 4],
    pub answers_are_errors: bool,
    /// What the box holds; `None` when the last paste was over a script file's limit (the
    /// box was cleared, and importing it says why again rather than "nothing to import").
    pub pasted: Option<String>,
}

impl Default for Fields {
    fn default() -> Self {
        Self {
            advance_s: "5".to_string(),
            claims: ["800", "30", "5", "20"].map(String::from),
            answers_are_errors: true,
            pasted: Some(String::new()),
        }
    }
}

/// The claims form's fields, in [`Fields::claims`]'s order: label, input mode, test id.
const CLAIM_FIELDS: [(&str, &str, &str); 4] = [
    ("p99.5 latency (ms)", "decimal", "claims-p995"),
    ("Typical incident (s)", "decimal", "claims-incident"),
    ("Probes we accept to risk", "numeric", "claims-probes"),
    ("Our calls per second", "decimal", "claims-rps"),
];

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
    let state_before = s.state();
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
                resilience_sim::error::excerpt(fields.advance_s.trim())
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
        Intent::Export => script_io::export(s).map(|json| notes.exported = Some(json)),
    };
    let by_hand = match intent {
        Intent::Transition(to) => Some((state_before, to)),
        Intent::Reset => Some((state_before, State::Closed)),
        _ => None,
    };
    noted(s, before, result, notes);
    // The diagram's arrows are the breaker's own rules, each with its label ("3 trials:
    // both rates < threshold"): a move made by hand is not one of them, though it may join
    // the same two states. It is the action's first transition when it is one at all (a
    // move to the state it is in is none); what follows it (a zero wait's OPEN ->
    // HALF_OPEN) is the rules'.
    if by_hand.is_some_and(|moved| notes.path.first() == Some(&moved)) {
        notes.path.remove(0);
    }
}

/// Replays a script the engine's reader read from the learner's text, or says why it was
/// not read: like an intent, one call of the session's API, its transitions noted.
pub fn replay(s: &mut BreakerSandbox, read: ScriptRead, notes: &mut PageNotes) {
    let before = s.events_total();
    notes.note.clear();
    notes.exported = None;
    let result = read.and_then(|script| s.import_script(script));
    if result.is_ok() {
        notes.note = "Imported: the script was replayed from t = 0.".to_string();
    }
    noted(s, before, result, notes);
}

/// What the page says after an action: the transitions since event `before`, and the
/// refusal, if any.
fn noted(s: &BreakerSandbox, before: u64, result: Result<(), String>, notes: &mut PageNotes) {
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

/// Whether a text can be sent to the reader at all: nothing, or more than a script file
/// may hold, is refused at once.
pub fn importable(text: &str) -> Result<(), String> {
    if text.len() > MAX_SCRIPT_BYTES {
        Err(TOO_LARGE.to_string())
    } else if text.trim().is_empty() {
        Err("Nothing to import: paste a script into the box, or choose a file.".to_string())
    } else {
        Ok(())
    }
}

/// The session written out as a breaker script. In the browser the JSON text is written by
/// the browser's own `JSON` (serde-wasm-bindgen maps the engine's types to it): the page
/// carries no JSON writer of its own. Natively (the tests) the engine's serde_json writes
/// the same script. A script comes back in through [`tools::read_breaker_script`].
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

    #[cfg(not(target_arch = "wasm32"))]
    pub fn export(s: &BreakerSandbox) -> Result<String, String> {
        s.export_json()
    }
}

/// The claims form's values, each checked.
fn claims(fields: &Fields) -> Result<Claims, String> {
    let [p995, incident, probes, rps] = &fields.claims;
    let number = |text: &String, what: &str| {
        resilience_sim::number::parse_number(text.trim())
            .filter(|v| (0.0..=1e9).contains(v))
            .ok_or_else(|| {
                let shown = resilience_sim::error::excerpt(text.trim());
                format!("{what}: “{shown}” is not a number from 0 up.")
            })
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

/// The page's state, all of it: the session (the breaker, its settings, its calls), what
/// the learner has typed, what the page says besides the session, and why the last change
/// of a control was refused (the frame shows it beside the controls).
#[derive(Clone, Copy)]
pub struct Sandbox {
    pub session: RwSignal<BreakerSandbox>,
    /// Typing changes it without notifying (the field already shows what was typed; nothing
    /// else reads it until a button does); a reset notifies, and the fields show it.
    pub fields: RwSignal<Fields>,
    pub notes: RwSignal<PageNotes>,
    pub refused: RwSignal<Option<String>>,
}

impl Sandbox {
    /// A fresh page on `settings` (the link's).
    pub fn new(settings: SandboxSettings) -> Self {
        Self {
            session: RwSignal::new(BreakerSandbox::new(settings).unwrap_or_default()),
            fields: RwSignal::new(Fields::default()),
            notes: RwSignal::new(PageNotes::default()),
            refused: RwSignal::new(None),
        }
    }

    /// A button's intent, with the fields as typed.
    pub fn act(self, intent: Intent) {
        self.fields
            .with_untracked(|fields| self.act_with(intent, fields));
    }

    fn act_with(self, intent: Intent, fields: &Fields) {
        self.with_session(|s, notes| apply(s, intent, fields, notes));
    }

    /// One action on the session and the notes. A scenario, an import or claims set new
    /// settings: the controls show them, and a refusal of an earlier value no longer
    /// stands. Nothing happens once the page is gone (an import read after the learner
    /// left).
    fn with_session(self, action: impl FnOnce(&mut BreakerSandbox, &mut PageNotes)) {
        let mut settings_changed = false;
        self.session.try_update(|s| {
            let before = s.settings().clone();
            self.notes.try_update(|notes| action(s, notes));
            settings_changed = *s.settings() != before;
        });
        if settings_changed {
            self.refused.set(None);
        }
    }

    /// The box's script; a paste the box refused as too large says so again.
    fn import_pasted(self) {
        match self.fields.with_untracked(|f| f.pasted.clone()) {
            Some(text) => self.import(text),
            None => self.with_session(|s, notes| replay(s, Err(TOO_LARGE.to_string()), notes)),
        }
    }

    /// A script, pasted or a file's text: read by the engine's reader in the tools part
    /// (loaded the first time), then replayed, so the page and `resilience-sim breaker`
    /// accept and refuse the same scripts, in the same words.
    fn import(self, text: String) {
        if let Err(why) = importable(&text) {
            self.with_session(|s, notes| replay(s, Err(why), notes));
            return;
        }
        // The tools part may take a moment to load the first time.
        self.notes.update(|n| {
            n.note = "Reading the script…".to_string();
            n.refused = None;
        });
        spawn_local(async move {
            let read = tools::read_breaker_script(&text).await;
            self.with_session(|s, notes| replay(s, read, notes));
        });
    }

    /// The learner's change to one control: the session replays with it, or refuses it
    /// and the control springs back (the session notifies either way).
    pub fn set_control(self, control: &'static Control<SandboxSettings>, value: ControlValue) {
        let mut result = Ok(());
        self.session.update(|s| result = s.set(control.name, value));
        match result {
            Ok(()) => {
                self.refused.set(None);
                self.notes.update(|n| n.path.clear());
            }
            Err(e) => self.refused.set(Some(message::<SandboxSettings>(&e))),
        }
    }

    /// A pasted Resilience4j fragment's breaker settings, all or nothing: the session
    /// replays its calls with them, or refuses them and stays as it was.
    fn apply_config(
        self,
        (config, notes): (CircuitBreakerConfig, Vec<String>),
    ) -> Result<String, Vec<String>> {
        let mut result = Ok(());
        self.session.update(|s| result = s.set_config(config));
        result.map_err(|e| vec![e.to_string()])?;
        self.refused.set(None);
        let mut done = "Applied: the breaker has this configuration now, and the calls sent so far were played again with it.".to_string();
        for note in notes {
            done.push(' ');
            done.push_str(&note);
        }
        Ok(done)
    }

    /// Back to the spec's values: a fresh session on the default settings, the fields as
    /// they first were, nothing noted or refused.
    pub fn reset(self) {
        self.session.set(BreakerSandbox::default());
        self.fields.set(Fields::default());
        self.notes.set(PageNotes::default());
        self.refused.set(None);
    }

    /// The exported script, to the clipboard (the text shown is the text copied).
    fn copy(self) {
        let Some(text) = self.notes.with_untracked(|n| n.exported.clone()) else {
            return;
        };
        let clipboard = window().navigator().clipboard();
        spawn_local(async move {
            let copied = wasm_bindgen_futures::JsFuture::from(clipboard.write_text(&text)).await;
            self.notes.update(|n| {
                n.note = match copied {
                    Ok(_) => "Copied to the clipboard.".to_string(),
                    Err(_) => "The browser refused the clipboard: select the script and copy it."
                        .to_string(),
                }
            });
        });
    }

    /// A script file, replayed like a pasted one (its text is not copied into the field).
    fn import_file(self, file: web_sys::File) {
        if file.size() > MAX_SCRIPT_BYTES as f64 {
            self.notes
                .update(|n| n.refused = Some(TOO_LARGE.to_string()));
            return;
        }
        spawn_local(async move {
            let text = wasm_bindgen_futures::JsFuture::from(file.text())
                .await
                .ok()
                .and_then(|v| v.as_string());
            match text {
                Some(text) => self.import(text),
                None => self.notes.update(|n| {
                    n.refused = Some("Import: the file could not be read as text.".to_string())
                }),
            }
        });
    }
}

/// The binding of one control to the session's settings (`settings`, derived from the
/// session).
fn bind(
    page: Sandbox,
    settings: Memo<SandboxSettings>,
    control: &'static Control<SandboxSettings>,
) -> ControlBinding {
    bind_to(
        control,
        move |read| settings.with(|s| read(s)),
        Callback::new(move |value| page.set_control(control, value)),
    )
}

#[component]
pub fn SandboxPage(info: LabInfo, location: RwSignal<Location>) -> impl IntoView {
    let (settings, problems) = config_from_link::<SandboxSettings>(&current_query());
    let page = Sandbox::new(settings);
    let session = page.session;
    // The settings as the controls, the link and the tools read them: the session's,
    // followed only when they change (not at every call).
    let settings = Memo::new(move |_| session.with(|s| s.settings().clone()));
    let number = info.number;
    let link =
        move || settings.try_with_untracked(|s| link_of(number, &LabSession::new(s.clone())));
    address_follows(move || settings.track(), link);
    // The tools part writes the settings as Resilience4j configuration from the instances
    // (the breaker after an import may hold more than its link).
    let tools = LabTools {
        link: Callback::new(move |_| link().unwrap_or_default()),
        config: Callback::new(move |_| {
            settings
                .try_with_untracked(|s| tools::config_source::instances(&s.resilience4j()))
                .unwrap_or(JsValue::UNDEFINED)
        }),
    };
    let controls = SandboxSettings::controls()
        .iter()
        .map(|c| bind(page, settings, c))
        .collect();
    // The tools part reads and checks a pasted fragment; the page replays its calls with it.
    let import = Callback::new(move |read: JsValue| {
        let read = tools::read_sandbox_import(read);
        tools::applied_record(read.and_then(|r| page.apply_config(r).map_err(Refused::from)))
    });
    view! {
        <LabFrame info=info text=&super::SANDBOX_TEXT location=location tools=tools import=Import(import)
            controls=controls refused=page.refused reset=Callback::new(move |_| page.reset())
            problems=problems>
            <div class="sandbox">
                {status(page)}
                {actions(page)}
                {breaker(page)}
                {fallback(page)}
                {log(page)}
                {scenarios(page)}
                {claims_form(page)}
                {claims_table(page)}
                {script(page)}
                {import_form(page)}
            </div>
        </LabFrame>
    }
}

/// A list drawn again from the state when what it reads changes, boxed, its items erased:
/// every list of the page shares one copy of the code that keeps it in step.
type LiveList = Box<dyn FnMut() -> Vec<AnyView> + Send>;

fn live_list(list: impl FnMut() -> Vec<AnyView> + Send + 'static) -> LiveList {
    Box::new(list)
}

/// A button that asks the session for `intent`: every plain button of the page is one of
/// these (one view type).
fn button(
    page: Sandbox,
    intent: Intent,
    testid: &'static str,
    label: &'static str,
    secondary: bool,
) -> impl IntoView {
    view! {
        <button type="button" class=secondary.then_some("secondary") data-testid=testid
            on:click=click(move |_| page.act(intent))>
            {label}
        </button>
    }
}

/// The state's name, and its class for the state's colour.
fn state_name(session: RwSignal<BreakerSandbox>) -> (Live, Live) {
    (
        live(move || session.with(|s| s.state().as_str().to_string())),
        live(move || {
            let name = session.with(|s| s.state().as_str().to_ascii_lowercase());
            format!("state-text {name}")
        }),
    )
}

/// The status bar: the clock, the state and the rates in one line (kept in view while the
/// learner scrolls), and why the last action was refused.
fn status(page: Sandbox) -> impl IntoView {
    let Sandbox { session, notes, .. } = page;
    let (state, class) = state_name(session);
    view! {
        <div class="sandbox-status">
            <p class="sandbox-clock" aria-live="polite">
                "t = "<strong data-testid="sandbox-clock">{live(move || session.with(|s| clock(s.now())))}</strong>
                " · "<strong class=class>{state}</strong>
                " · "{live(move || session.with(|s| s.rates().describe()))}
            </p>
            <p class="error" role="alert" data-testid="sandbox-refused">
                {live(move || notes.with(|n| n.refused.clone().unwrap_or_default()))}
            </p>
        </div>
    }
}

const SEND: [(SandboxCall, &str, &str); 4] = [
    (SandboxCall::Success, "sandbox-send-success", "Success"),
    (
        SandboxCall::Failure,
        "sandbox-send-failure",
        "Failure (IOException)",
    ),
    (SandboxCall::Slow, "sandbox-send-slow", "Slow success"),
    (
        SandboxCall::Ignored,
        "sandbox-send-ignored",
        "404 (NotFoundException)",
    ),
];

/// The manual transitions, with their buttons' test ids.
const BY_HAND: [(State, &str); 4] = [
    (State::Disabled, "sandbox-to-DISABLED"),
    (State::ForcedOpen, "sandbox-to-FORCED_OPEN"),
    (State::MetricsOnly, "sandbox-to-METRICS_ONLY"),
    (State::Closed, "sandbox-to-CLOSED"),
];

/// The buttons and the clock's field.
fn actions(page: Sandbox) -> impl IntoView {
    let fields = page.fields;
    let send = SEND
        .into_iter()
        .map(|(call, testid, label)| {
            button(page, Intent::Send(call), testid, label, false).into_any()
        })
        .collect::<Vec<AnyView>>();
    let by_hand = BY_HAND
        .into_iter()
        .map(|(to, testid)| {
            button(page, Intent::Transition(to), testid, to.as_str(), true).into_any()
        })
        .chain([button(page, Intent::Reset, "sandbox-reset", "reset()", true).into_any()])
        .collect::<Vec<AnyView>>();
    view! {
        <section class="panel sandbox-actions" aria-labelledby="sandbox-actions-heading">
            <h2 id="sandbox-actions-heading">"Send calls, move the clock"</h2>
            <div class="button-row" role="group" aria-label="Send one call">{send}</div>
            <div class="button-row" role="group" aria-label="Advance the clock">
                {button(page, Intent::Advance(1000), "sandbox-advance", "+1 s", false)}
                {button(page, Intent::AdvanceWait, "sandbox-advance-wait", "+ the open wait", false)}
                <label class="inline-field">"+ "
                    <input type="text" inputmode="decimal" size="5" data-testid="sandbox-advance-amount"
                        aria-label="Seconds to advance"
                        prop:value=live(move || fields.with(|f| f.advance_s.clone()))
                        on:input=change(move |ev| {
                            let typed = event_target_value(&ev);
                            fields.update_untracked(|f| f.advance_s = typed);
                        }) />
                    " s"
                </label>
                {button(page, Intent::AdvanceTyped, "sandbox-advance-by", "Advance", false)}
            </div>
            <div class="button-row" role="group" aria-label="Set the state by hand">{by_hand}</div>
        </section>
    }
}

/// The state line, the diagram, the rates and the window.
fn breaker(page: Sandbox) -> impl IntoView {
    let Sandbox { session, notes, .. } = page;
    let (state, class) = state_name(session);
    // The tick demos' drawing, from the session's numbers and states only; set again only
    // when its markup changes (a new state, a new path, new thresholds).
    let drawing = live(move || {
        let mut h = String::with_capacity(4096);
        session.with(|s| {
            notes.with(|n| {
                let wait = clock(s.config().wait_duration_in_open_state);
                diagram(
                    s.config(),
                    s.state(),
                    &n.path,
                    &wait,
                    "in the last action",
                    &mut h,
                );
            })
        });
        h
    });
    view! {
        <section class="panel breaker sandbox-breaker" aria-labelledby="sandbox-breaker-heading">
            <h2 id="sandbox-breaker-heading">"The circuit breaker"</h2>
            <p class="breaker-state-line">
                "State: "<strong data-testid="breaker-state" class=class>{state}</strong>
                " — "<span data-testid="sandbox-detail">{live(move || session.with(detail))}</span>
            </p>
            <div inner_html=drawing></div>
            <p data-testid="sandbox-rates">{live(move || session.with(rates))}</p>
            {live_list(move || session.with(window_view))}
        </section>
    }
}

/// The window: its cells (COUNT_BASED, at most 100 shown), its seconds (TIME_BASED), or
/// why there is none.
fn window_view(s: &BreakerSandbox) -> Vec<AnyView> {
    match s.window_kind() {
        WindowKind::CountBased(size) => {
            let cells = s.window_cells();
            let shown = cells.len().max((size as usize).min(100));
            let cells = cells
                .into_iter()
                .map(Some)
                .chain(std::iter::repeat(None))
                .take(shown)
                .map(|cell| {
                    let (class, tag, label) = cell_words(cell);
                    view! {
                        <li class=class title=cell.map(|_| label)>
                            <span aria-hidden="true">{tag}</span>
                            <span class="visually-hidden">{label}</span>
                        </li>
                    }
                    .into_any()
                })
                .collect::<Vec<AnyView>>();
            vec![
                view! { <h3>{format!("Window: the last {size} recorded calls, oldest first")}</h3> }.into_any(),
                view! { <ol class="window sandbox-window" data-testid="sandbox-window">{cells}</ol> }.into_any(),
            ]
        }
        WindowKind::TimeBased(size) => {
            let seconds = s
                .window_buckets()
                .into_iter()
                .map(|b| {
                    let t = b.totals;
                    view! {
                        <li>{format!(
                            "second {}: {} call{}, {} failed, {} slow",
                            b.epoch_second,
                            t.calls,
                            if t.calls == 1 { "" } else { "s" },
                            t.failed,
                            t.slow
                        )}</li>
                    }
                    .into_any()
                })
                .collect::<Vec<AnyView>>();
            vec![
                view! { <h3>{format!("Window: the last {size} seconds")}</h3> }.into_any(),
                view! { <ol class="buckets" data-testid="sandbox-window">{seconds}</ol> }.into_any(),
            ]
        }
        WindowKind::Empty => vec![view! {
            <p class="muted" data-testid="sandbox-window">"No window: this state records nothing."</p>
        }
        .into_any()],
    }
}

/// Who answered each call: the ladder, the cache, the last calls.
fn fallback(page: Sandbox) -> impl IntoView {
    let session = page.session;
    let last = move || session.with(|s| s.records().next_back().map(|r| r.rung));
    let ladder = Rung::ALL
        .into_iter()
        .map(|rung| {
            view! {
                <li class=live_attr(move || (last() == Some(rung)).then_some("current"))>{rung.label()}</li>
            }.into_any()
        })
        .collect::<Vec<AnyView>>();
    view! {
        <section class="panel sandbox-fallback" aria-labelledby="fallback-heading">
            <h2 id="fallback-heading">"The fallback ladder"</h2>
            <ol class="ladder" data-testid="sandbox-ladder">{ladder}</ol>
            <p class="help">"Two rules the ladder does not show. At its foot, each call fails open (the order goes on without the dependency) or fails closed (no payment without its fraud check): a business decision, written down with its owner. And no rung may call another dependency without its own timeout and breaker: that moves the outage, it does not end it."</p>
            <p data-testid="sandbox-rung">
                {live(move || match last() {
                    Some(rung) => format!("Last call answered by: {}.", rung.label()),
                    None => "No call yet.".to_string(),
                })}
            </p>
            <p data-testid="sandbox-cache">
                {live(move || session.with(cache))}" "
                {button(page, Intent::EmptyCache, "sandbox-empty-cache", "Empty the cache", true)}
            </p>
            <h3>"Last calls, newest first"</h3>
            <ul class="calls" data-testid="sandbox-calls">
                {live_list(move || session.with(|s| {
                    s.records()
                        .rev()
                        .take(8)
                        .map(|r| view! { <li class=class_of(r.class)>{call(r)}</li> }.into_any())
                        .collect::<Vec<AnyView>>()
                }))}
            </ul>
        </section>
    }
}

/// The breaker's events with Resilience4j's names, newest first.
fn log(page: Sandbox) -> impl IntoView {
    let session = page.session;
    view! {
        <section class="panel sandbox-log" aria-labelledby="log-heading">
            <h2 id="log-heading">"Event log"</h2>
            <ol class="event-log" data-testid="sandbox-log">
                {live_list(move || session.with(|s| {
                    s.events()
                        .rev()
                        .take(14)
                        .map(|e| view! {
                            <li>
                                <span class="at">{clock(e.event.at())}</span>" "
                                <code>{e.event.name()}</code>" "{e.event.detail()}
                            </li>
                        }.into_any())
                        .collect::<Vec<AnyView>>()
                }))}
            </ol>
        </section>
    }
}

/// The scenarios' buttons' test ids.
const SCENARIOS: [(SandboxScenario, &str); 2] = [
    (
        SandboxScenario::NotFoundStorm,
        "sandbox-scenario-notFoundStorm",
    ),
    (
        SandboxScenario::SlowNeverTrips,
        "sandbox-scenario-slowNeverTrips",
    ),
];

/// The two misconfigurations, replayed step by step.
fn scenarios(page: Sandbox) -> impl IntoView {
    let session = page.session;
    let list = SCENARIOS
        .into_iter()
        .map(|(scenario, testid)| {
            view! {
                <li>
                    {button(page, Intent::Load(scenario), testid, scenario.label(), false)}" "
                    {scenario.description()}
                </li>
            }
            .into_any()
        })
        .collect::<Vec<AnyView>>();
    let none_pending = move || session.with(|s| s.pending_len() == 0).then_some("");
    view! {
        <section class="panel sandbox-scenarios" aria-labelledby="scenarios-heading">
            <h2 id="scenarios-heading">"Two misconfigurations to replay"</h2>
            <ul class="scenario-list">{list}</ul>
            <p data-testid="sandbox-pending">{live(move || session.with(pending))}</p>
            <div class="button-row">
                <button type="button" data-testid="sandbox-step" disabled=live_attr(none_pending)
                    on:click=click(move |_| page.act(Intent::Step))>
                    "Next step"
                </button>
                <button type="button" class="secondary" data-testid="sandbox-run-all"
                    disabled=live_attr(none_pending) on:click=click(move |_| page.act(Intent::RunPending))>
                    "Run the rest"
                </button>
            </div>
            // The replay is over and the misconfiguration still in place: say the fix, offer it.
            <div hidden=live_attr(move || session.with(|s| s.fix_to_offer().is_none()).then_some(""))>
                <p class="fix-prompt" data-testid="sandbox-fix-prompt">
                    {live(move || session.with(fix_prompt).unwrap_or_default())}
                </p>
                {button(page, Intent::Fix, "sandbox-fix", "Apply the fix and play the calls again", false)}
            </div>
        </section>
    }
}

/// The claims form.
fn claims_form(page: Sandbox) -> impl IntoView {
    let fields = page.fields;
    let inputs = CLAIM_FIELDS
        .into_iter()
        .enumerate()
        .map(|(i, (label, mode, testid))| {
            view! {
                <label>
                    {label}" "
                    <input type="text" size="6" inputmode=mode data-testid=testid
                        prop:value=live(move || fields.with(|f| f.claims[i].clone()))
                        on:input=change(move |ev| {
                            let typed = event_target_value(&ev);
                            fields.update_untracked(|f| f.claims[i] = typed);
                        }) />
                </label>
            }
            .into_any()
        })
        .collect::<Vec<AnyView>>();
    view! {
        <section class="panel sandbox-claims" aria-labelledby="claims-heading">
            <h2 id="claims-heading">"Configure from claims"</h2>
            <p>"Write what the dependency's team can state; the settings follow from it, each next to its claim."</p>
            <div class="claims-fields">
                {inputs}
                <label class="toggle">
                    <input type="checkbox" data-testid="claims-answers"
                        prop:checked=live_flag(move || fields.with(|f| f.answers_are_errors))
                        on:change=change(move |ev| {
                            let checked = event_target_checked(&ev);
                            fields.update_untracked(|f| f.answers_are_errors = checked);
                        }) />
                    " It reports answers (a 404, a decline) as exceptions"
                </label>
            </div>
            {button(page, Intent::Claims, "sandbox-claims-apply", "Apply the settings these claims give", false)}
        </section>
    }
}

/// The settings the last claims gave, each next to its claim.
fn claims_table(page: Sandbox) -> impl IntoView {
    let notes = page.notes;
    let rows = live_list(move || {
        notes.with(|n| {
            n.claimed
                .iter()
                .map(|c| {
                    view! {
                        <tr><td><code>{c.name}</code></td><td>{c.value.clone()}</td><td>{c.claim.clone()}</td></tr>
                    }
                    .into_any()
                })
                .collect::<Vec<AnyView>>()
        })
    });
    view! {
        <table class="claims-table" data-testid="sandbox-claims-list"
            hidden=live_attr(move || notes.with(|n| n.claimed.is_empty()).then_some(""))>
            <caption>"The settings these claims give (applied)"</caption>
            <thead><tr><th scope="col">"Setting"</th><th scope="col">"Value"</th><th scope="col">"Because"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// The session as the script `resilience-sim breaker FILE` reads, written when asked.
fn script(page: Sandbox) -> impl IntoView {
    let notes = page.notes;
    view! {
        <section class="panel sandbox-script" aria-labelledby="script-heading">
            <h2 id="script-heading">"The session as a breaker script"</h2>
            <p>"The JSON that "<code>"resilience-sim breaker FILE"</code>" reads: the command line ends in the same state with the same metrics."</p>
            <div hidden=live_attr(move || notes.with(|n| n.exported.is_some()).then_some(""))>
                {button(page, Intent::Export, "sandbox-export-show", "Write this session as a script", false)}
            </div>
            <div hidden=live_attr(move || notes.with(|n| n.exported.is_none()).then_some(""))>
                <textarea aria-label="Script of this session" data-testid="sandbox-export" readonly rows="8"
                    spellcheck="false" prop:value=live(move || notes.with(|n| n.exported.clone().unwrap_or_default()))></textarea>
                <div class="button-row">
                    <button type="button" data-testid="sandbox-copy" on:click=click(move |_| page.copy())>"Copy"</button>
                    <a class="button secondary" download="breaker-script.json" data-testid="sandbox-download"
                        href=live(move || notes.with(|n| n.exported.as_deref().map(download_href).unwrap_or_default()))>
                        "Download"
                    </a>
                </div>
            </div>
            <p role="status" data-testid="sandbox-script-note">{live(move || notes.with(|n| n.note.clone()))}</p>
        </section>
    }
}

/// The exported script as a link the browser downloads.
fn download_href(json: &str) -> String {
    format!("data:application/json;charset=utf-8,{}", encode(json))
}

/// A pasted script or a file, replayed.
fn import_form(page: Sandbox) -> impl IntoView {
    let Sandbox { fields, notes, .. } = page;
    // The file input's limit, for a paste too; the field then shows what the page holds.
    let typed = change(move |ev| match pasted_within(&ev, MAX_SCRIPT_BYTES) {
        Some(text) => fields.update_untracked(|f| f.pasted = Some(text)),
        None => {
            notes.update(|n| n.refused = Some(TOO_LARGE.to_string()));
            fields.update(|f| f.pasted = None);
        }
    });
    let picked = change(move |ev| {
        let file = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .and_then(|input| input.files())
            .and_then(|files| files.get(0));
        if let Some(file) = file {
            page.import_file(file);
        }
    });
    view! {
        <section class="panel sandbox-import" aria-labelledby="import-heading">
            <h2 id="import-heading">"Replay a script"</h2>
            <label for="sandbox-import-text">"Paste a breaker script (the JSON of "<code>"resilience-sim breaker FILE"</code>")"</label>
            <textarea id="sandbox-import-text" data-testid="sandbox-import-text" rows="4" spellcheck="false"
                prop:value=live(move || fields.with(|f| f.pasted.clone().unwrap_or_default())) on:input=typed></textarea>
            <div class="button-row">
                <button type="button" data-testid="sandbox-import"
                    on:click=click(move |_| page.import_pasted())>
                    "Import and replay"
                </button>
                <label class="file-pick">"or a file: "
                    <input type="file" accept=".json,application/json" data-testid="sandbox-import-file" on:change=picked />
                </label>
            </div>
        </section>
    }
}

/// The state line's detail: what the breaker does now, with the countdown and the trials,
/// and a timer that `reset()` left armed, if one will move the breaker.
pub fn detail(s: &BreakerSandbox) -> String {
    let now = state_detail(s);
    match s.left_armed_timer_ahead() {
        Some((left, to)) => format!(
            "{now} A timer armed before reset() asks for {to} in {}: Resilience4j's reset() does not cancel it.",
            clock(left)
        ),
        None => now,
    }
}

fn state_detail(s: &BreakerSandbox) -> String {
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
            // Permits held: an ignored exception gives its permit back (releasePermission).
            Some((taken, permitted)) => format!("trial permits taken: {taken} of {permitted}."),
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
    let thresholds = match s.state() {
        State::MetricsOnly => "METRICS_ONLY never opens".to_string(),
        _ => thresholds,
    };
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

/// A window cell (`None`: a place not filled yet): its classes, its short tag and its
/// words.
fn cell_words(cell: Option<WindowCell>) -> (&'static str, &'static str, &'static str) {
    match cell {
        Some(WindowCell::Success) => ("cell success", "✓", "success"),
        Some(WindowCell::Failure) => ("cell failure", "✗", "failure"),
        Some(WindowCell::SlowSuccess) => ("cell success slow", "slow", "slow success"),
        Some(WindowCell::SlowFailure) => ("cell failure slow", "slow ✗", "slow failure"),
        None => ("cell empty", "", "empty"),
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

/// One of the last calls: `#3 at 2 s: Success → success; the user got: live answer`.
fn call(r: &CallRecord) -> String {
    format!(
        "#{} at {}: {} → {}; the user got: {}",
        r.number,
        clock(r.at),
        r.sent.map_or("a call", |c| c.label()),
        r.class.label(),
        r.rung.label()
    )
}

/// What the fallback cache holds.
fn cache(s: &BreakerSandbox) -> String {
    match s.cache_age() {
        None => "The cache is empty.".to_string(),
        Some(age) => format!(
            "The cache holds an answer {} old ({}).",
            clock(age),
            if s.cache_fresh() {
                "young enough to serve"
            } else {
                "too old to serve"
            }
        ),
    }
}

/// The scenario's steps still to run.
pub fn pending(s: &BreakerSandbox) -> String {
    match s.pending().next() {
        None => "No scenario step waiting.".to_string(),
        Some(next) => format!(
            "{} to go; next: {}.",
            match s.pending_len() {
                1 => "1 step".to_string(),
                n => format!("{n} steps"),
            },
            next.describe()
        ),
    }
}

/// After a replayed misconfiguration, with it still in place: the fix, in words.
pub fn fix_prompt(s: &BreakerSandbox) -> Option<String> {
    let scenario = s.fix_to_offer()?;
    let (_, _, words) = scenario.fix();
    Some(format!(
        "After “{}” the breaker is {}. The fix: {words}.",
        scenario.label(),
        s.state().as_str()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use resilience_sim::policy::circuit_breaker::OpenWaitFunction;
    use resilience_sim::scenario::breaker_script::{parse_breaker_script, run_breaker_script};

    const SUCCESS: Intent = Intent::Send(SandboxCall::Success);
    const FAILURE: Intent = Intent::Send(SandboxCall::Failure);
    const SECOND: Intent = Intent::Advance(1000);

    fn press(s: &mut BreakerSandbox, intent: Intent) -> PageNotes {
        let mut notes = PageNotes::default();
        apply(s, intent, &Fields::default(), &mut notes);
        notes
    }

    /// A typed advance that is no number is quoted as every message quotes a value: its
    /// first 40 characters (it echoed the whole field, a megabyte if one was pasted).
    #[test]
    fn a_bad_advance_is_quoted_short() {
        let mut s = BreakerSandbox::default();
        let fields = Fields {
            advance_s: "x".repeat(100_000),
            ..Fields::default()
        };
        let mut notes = PageNotes::default();
        apply(&mut s, Intent::AdvanceTyped, &fields, &mut notes);
        let refused = notes.refused.unwrap();
        assert_eq!(
            refused,
            format!(
                "Advance: “{}…” is not a number of seconds from 0 to 86400.",
                "x".repeat(40)
            )
        );
    }

    /// An empty box (cleared after a paste over the limit, or never filled) says so, and
    /// leaves the session as it was; so does a text over a script file's limit.
    #[test]
    fn importing_an_empty_box_says_what_to_do() {
        let mut s = BreakerSandbox::default();
        press(&mut s, FAILURE);
        for pasted in ["", "  \n"] {
            assert_eq!(
                importable(pasted),
                Err("Nothing to import: paste a script into the box, or choose a file.".into())
            );
        }
        assert_eq!(
            importable(&" ".repeat(MAX_SCRIPT_BYTES + 1)),
            Err(TOO_LARGE.to_string())
        );
        let mut notes = PageNotes::default();
        replay(&mut s, Err(TOO_LARGE.to_string()), &mut notes);
        assert_eq!(notes.refused.as_deref(), Some(TOO_LARGE));
        assert_eq!((s.metrics().buffered, s.metrics().failed), (1, 1));
    }

    /// A misconfiguration replayed to its end: the page says the fix and offers it; applied,
    /// the 404 storm leaves the breaker CLOSED and the offer goes.
    #[test]
    fn a_replayed_misconfiguration_offers_its_fix() {
        let mut s = BreakerSandbox::default();
        press(&mut s, Intent::Load(SandboxScenario::NotFoundStorm));
        assert_eq!(pending(&s), "22 steps to go; next: send: Success.");
        assert_eq!(fix_prompt(&s), None, "not before the steps have run");
        press(&mut s, Intent::RunPending);
        assert_eq!(pending(&s), "No scenario step waiting.");
        let prompt = fix_prompt(&s).unwrap_or_default();
        assert!(
            prompt.starts_with(
                "After “The 404 storm” the breaker is OPEN. The fix: ignore NotFoundException"
            ),
            "{prompt}"
        );
        let notes = press(&mut s, Intent::Fix);
        assert!(notes.note.starts_with("Fixed:"), "{notes:?}");
        assert_eq!(s.state(), State::Closed);
        assert_eq!(fix_prompt(&s), None);
    }

    /// The default sequence, through the buttons' intents: 5 successes and 4
    /// failures leave it CLOSED (9 of 10 calls), a fifth failure opens it (5 of 10 = 50 %),
    /// a call is then refused, and only strictly after the 10 s wait is the next a trial.
    #[test]
    fn the_default_sequence_through_the_buttons() {
        let mut s = BreakerSandbox::default();
        for _ in 0..5 {
            press(&mut s, SUCCESS);
        }
        for _ in 0..4 {
            press(&mut s, FAILURE);
        }
        assert_eq!(s.state(), State::Closed);
        assert_eq!(
            rates(&s).split(';').next(),
            Some("Not enough calls: 9 of 10")
        );
        let notes = press(&mut s, FAILURE);
        assert_eq!(s.state(), State::Open);
        assert_eq!(notes.path, vec![(State::Closed, State::Open)]);
        press(&mut s, SUCCESS);
        let last = s.records().next_back().unwrap();
        assert_eq!(last.class, CallClass::NotPermitted);
        assert_eq!(
            call(last),
            "#11 at 0 s: Success → not permitted; the user got: cached answer"
        );
        for _ in 0..10 {
            press(&mut s, SECOND);
        }
        // What the page says at the end of the wait is what the breaker does next.
        assert!(
            detail(&s).contains("a call now is still refused"),
            "{}",
            detail(&s)
        );
        press(&mut s, SUCCESS);
        assert_eq!(
            s.state(),
            State::Open,
            "at exactly the wait the call is still refused"
        );
        press(&mut s, SECOND);
        let notes = press(&mut s, SUCCESS);
        assert_eq!(notes.path, vec![(State::Open, State::HalfOpen)]);
        assert_eq!(detail(&s), "trial permits taken: 1 of 3.");
        // A 404 is ignored (the course's ignoreExceptions): Resilience4j gives its permit
        // back, so it is a trial sent that holds no permit.
        press(&mut s, Intent::Send(SandboxCall::Ignored));
        assert_eq!(s.state(), State::HalfOpen);
        assert_eq!(detail(&s), "trial permits taken: 1 of 3.");
    }

    /// Resilience4j's reset() leaves HALF_OPEN's maxWaitDurationInHalfOpenState timer armed:
    /// the page says so, and the breaker opens when it fires.
    #[test]
    fn a_timer_left_armed_by_reset_is_on_the_state_line() {
        let mut settings = SandboxSettings::default();
        settings.config.max_wait_duration_in_half_open_state = 3_000;
        let mut s = BreakerSandbox::new(settings).unwrap();
        press(&mut s, Intent::Transition(State::Open));
        press(&mut s, Intent::Transition(State::HalfOpen));
        press(&mut s, SECOND);
        // HALF_OPEN -> CLOSED by reset(), not by the trials' arrow: no arrow is taken.
        assert_eq!(press(&mut s, Intent::Reset).path, []);
        assert_eq!(s.state(), State::Closed);
        assert_eq!(
            detail(&s),
            "letting calls through and recording their outcomes. A timer armed before reset() asks for OPEN in 2 s: Resilience4j's reset() does not cancel it."
        );
        assert_eq!(
            press(&mut s, Intent::Transition(State::ForcedOpen)).path,
            []
        );
        assert_eq!(press(&mut s, Intent::Reset).path, []);
        press(&mut s, SECOND);
        let notes = press(&mut s, SECOND);
        assert_eq!(notes.path, vec![(State::Closed, State::Open)]);
        assert!(!detail(&s).contains("reset()"), "{}", detail(&s));
    }

    /// OPEN -> OPEN by hand is no transition; with a 0 ms wait and the automatic transition
    /// the new OPEN goes half-open at once, by the rule: that arrow stays lit.
    #[test]
    fn a_move_by_hand_to_the_same_state_keeps_the_rules_arrow() {
        let mut settings = SandboxSettings::default();
        settings
            .config
            .automatic_transition_from_open_to_half_open_enabled = true;
        settings.config.wait_interval_function_in_open_state =
            Some(OpenWaitFunction::Exponential {
                initial: 1_000,
                multiplier: 0.0,
                max: None,
            });
        let mut s = BreakerSandbox::new(settings).unwrap();
        // CLOSED -> OPEN by hand: attempt 1 waits 1 s, and no arrow is lit.
        assert_eq!(press(&mut s, Intent::Transition(State::Open)).path, []);
        assert_eq!(s.state(), State::Open);
        // OPEN -> OPEN by hand: attempt 2 waits 0 ms, so the rule moves it on at once.
        let notes = press(&mut s, Intent::Transition(State::Open));
        assert_eq!(notes.path, [(State::Open, State::HalfOpen)]);
        assert_eq!(s.state(), State::HalfOpen);
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
        for call in SandboxCall::ALL {
            for _ in 0..3 {
                press(&mut s, Intent::Send(call));
            }
        }
        for _ in 0..3 {
            press(&mut s, SECOND);
        }
        let script = parse_breaker_script(&s.export_json().unwrap()).unwrap();
        let last = run_breaker_script(&script).unwrap().pop().unwrap();
        let m = s.metrics();
        assert_eq!(
            (last.state, last.buffered, last.failed, last.slow),
            (s.state(), m.buffered, m.failed, m.slow)
        );
        let notes = press(&mut s, Intent::Export);
        let json = notes.exported.unwrap_or_default();
        assert!(
            download_href(&json).starts_with("data:application/json;charset=utf-8,%7B"),
            "{json}"
        );
        // The next action drops the text it would make stale.
        let notes = press(&mut s, SUCCESS);
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

    fn control(name: &str) -> &'static Control<SandboxSettings> {
        SandboxSettings::controls()
            .iter()
            .find(|c| c.name == name)
            .unwrap()
    }

    /// The settings live in the session: a control sets them there (a refused value
    /// changes nothing and says why), claims and scenarios too, and one reset clears the
    /// session, the typed fields and what the page says.
    #[test]
    fn the_page_state_has_one_place_for_the_settings_and_one_reset() {
        let page = Sandbox::new(SandboxSettings::default());
        let threshold = control("failureRateThreshold");
        page.set_control(threshold, ControlValue::Number(30.0));
        assert_eq!(
            page.session
                .with_untracked(|s| s.config().failure_rate_threshold),
            30.0
        );
        page.set_control(threshold, ControlValue::Number(1000.0));
        assert!(
            page.refused
                .get_untracked()
                .is_some_and(|m| m.starts_with("Failure rate threshold")),
            "{:?}",
            page.refused.get_untracked()
        );
        assert_eq!(
            page.session
                .with_untracked(|s| s.config().failure_rate_threshold),
            30.0
        );
        // Claims change the settings: the refusal of an earlier value no longer stands.
        page.fields
            .update_untracked(|f| f.claims[0] = "400".to_string());
        page.act(Intent::Claims);
        assert_eq!(page.refused.get_untracked(), None);
        assert_eq!(
            page.session
                .with_untracked(|s| s.config().slow_call_duration_threshold),
            500
        );
        page.fields
            .update_untracked(|f| f.advance_s = "2.5".to_string());
        page.act(Intent::AdvanceTyped);
        page.act(FAILURE);
        page.act(Intent::Export);
        assert_eq!(page.session.with_untracked(BreakerSandbox::now), 2_500);
        assert!(page.notes.with_untracked(|n| n.exported.is_some()));

        page.reset();
        assert_eq!(page.fields.get_untracked(), Fields::default());
        assert_eq!(page.notes.get_untracked(), PageNotes::default());
        assert_eq!(page.refused.get_untracked(), None);
        page.session.with_untracked(|s| {
            assert_eq!(*s.settings(), SandboxSettings::default());
            assert_eq!((s.now(), s.calls_total(), s.events_total()), (0, 0, 0));
        });
    }

    #[test]
    fn the_window_cells_say_what_they_are_in_words() {
        assert_eq!(cell_words(None), ("cell empty", "", "empty"));
        for cell in [
            WindowCell::Success,
            WindowCell::Failure,
            WindowCell::SlowSuccess,
            WindowCell::SlowFailure,
        ] {
            let (class, tag, words) = cell_words(Some(cell));
            assert!(class.starts_with("cell ") && !tag.is_empty() && !words.is_empty());
        }
    }
}
