//! The tools a page offers besides its demo, which few learners open: the Resilience4j
//! writer (YAML and Java) and reader (YAML and `.properties`, with the exception table),
//! their dialog and the embed dialog, the notes for teachers, and the CLI's reader of
//! breaker scripts for the sandbox's import ([`exports::read_breaker_script`]). They are the `course-tools`
//! part ([`crate::part`]), a wasm of its own that `assets/start.js` loads the first time a
//! page asks for one (`globalThis.resiliencePlaygroundTools()`), so opening a demo never
//! downloads them.
//!
//! [`exports`] holds that part's functions (`src/bin/course-tools.rs` wraps those a page
//! calls with `#[wasm_bindgen]`); the async functions here call them from any part. A page opens
//! a dialog with [`open_dialog`], handing over a JavaScript object ([`PageRequests`]) that
//! the tools part reads ([`PageHandle`]) to draw the dialog into the page
//! ([`crate::views::tool_dialogs`]): the page's own part carries only the buttons. Values
//! cross between the two wasm instances as query strings ([`record`]), the text format
//! every part already reads and writes for its links: a tick demo hands over its demo and
//! its link's settings and gets settings back to play, and a lab whose link holds its
//! whole config its link, so these parts carry no decoder of their own for configs
//! (serde-wasm-bindgen cost the tick demos 15 KB gzip as sent). The sandbox (its breaker
//! after an import) and the BoxOffice system (edits longer than a link) still hand over
//! their instances as JavaScript values (serde-wasm-bindgen), and the sandbox gets its
//! breaker config back that way.

use leptos::prelude::{Callable, Callback};
use resilience_sim::model::tick::TickConfig;
use resilience_sim::policy::circuit_breaker::CircuitBreakerConfig;
use resilience_sim::resilience4j::Instance;
use resilience_sim::scenario::breaker_script::BreakerScript;
use serde::{Deserialize, Serialize};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

use crate::settings_form::SettingsDraft;

/// What the config dialog shows: Spring Boot YAML, `.properties` and Java.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConfigText {
    pub yaml: String,
    pub properties: String,
    pub java: String,
}

/// A pasted fragment the page did not apply: one line per problem, and, when the fragment
/// has several instances of a kind and none of the name the page looks for, their names,
/// for the learner to choose the one that plays the demo's role.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Refused {
    pub problems: Vec<String>,
    pub instances: Vec<String>,
}

impl Refused {
    /// As a record: `problem=…&instance=…` (each repeated).
    pub fn to_record(&self) -> String {
        record::write(
            (self.problems.iter().map(|p| ("problem", p.as_str())))
                .chain(self.instances.iter().map(|i| ("instance", i.as_str()))),
        )
    }

    fn from_pairs(pairs: &[(String, String)]) -> Self {
        Refused {
            problems: record::all(pairs, "problem"),
            instances: record::all(pairs, "instance"),
        }
    }
}

impl From<Vec<String>> for Refused {
    fn from(problems: Vec<String>) -> Self {
        Refused {
            problems,
            instances: Vec::new(),
        }
    }
}

/// A pasted fragment for a tick demo, read and checked against its settings: the settings
/// to play, as the link's (name, text) pairs that differ from the demo's, and what the
/// page says about the rest of the fragment; or the refusal.
pub type TickImport = Result<TickImported, Refused>;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct TickImported {
    pub settings: Vec<(String, String)>,
    pub notes: Vec<String>,
}

/// The records that cross between the parts: query strings (`key=value&…`, values
/// percent-encoded), read back by the links' own reader. A key may repeat (one `note` per
/// note).
pub mod record {
    use crate::url_state::{encode, query_pairs};

    pub fn write<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
        let pairs: Vec<String> = pairs
            .into_iter()
            .map(|(key, value)| format!("{key}={}", encode(value)))
            .collect();
        pairs.join("&")
    }

    pub fn read(text: &str) -> Vec<(String, String)> {
        query_pairs(text).collect()
    }

    /// Every value of `key`, in order.
    pub fn all(pairs: &[(String, String)], key: &str) -> Vec<String> {
        pairs
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// The first value of `key`, or empty.
    pub fn one(pairs: &[(String, String)], key: &str) -> String {
        pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    }
}

impl ConfigText {
    /// `instances` in the three forms the dialog shows (the tools part's writer).
    pub fn of(instances: &[Instance]) -> Self {
        use resilience_sim::resilience4j;
        // A BoxOffice system may have no Resilience4j layer in any stack: an empty
        // `resilience4j:` would look like a fault of the dialog.
        if instances.is_empty() {
            const NONE: &str = "No Resilience4j instance in this system: no stack has a circuit breaker, bulkhead, rate limiter, retry or time limiter. Attach one and its settings are written here.";
            return ConfigText {
                yaml: format!("# {NONE}\n"),
                properties: format!("# {NONE}\n"),
                java: format!("// {NONE}\n"),
            };
        }
        ConfigText {
            yaml: resilience4j::to_yaml(instances),
            properties: resilience4j::to_properties(instances),
            java: resilience4j::to_java(instances),
        }
    }
}

/// A [`TickImport`] as a record: `outcome=applied&settings=…&note=…` or
/// `outcome=refused&problem=…&instance=…`.
pub fn tick_import_record(import: &TickImport) -> String {
    match import {
        Ok(imported) => {
            let settings = record::write(
                imported
                    .settings
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str())),
            );
            let notes = imported.notes.iter().map(|n| ("note", n.as_str()));
            record::write(
                [("outcome", "applied"), ("settings", &settings)]
                    .into_iter()
                    .chain(notes),
            )
        }
        Err(refused) => record::write(
            [("outcome", "refused")]
                .into_iter()
                .chain(refused.problems.iter().map(|p| ("problem", p.as_str())))
                .chain(refused.instances.iter().map(|i| ("instance", i.as_str()))),
        ),
    }
}

/// [`tick_import_record`] read back.
pub fn read_tick_import(text: &str) -> TickImport {
    let pairs = record::read(text);
    if record::one(&pairs, "outcome") == "applied" {
        Ok(TickImported {
            settings: record::read(&record::one(&pairs, "settings")),
            notes: record::all(&pairs, "note"),
        })
    } else {
        Err(Refused {
            problems: record::all(&pairs, "problem"),
            instances: record::all(&pairs, "instance"),
        })
    }
}

/// A tick demo's settings: demo `demo`'s, with its link's settings `settings` (a query
/// string of (name, text) pairs) applied, as the page plays them.
pub fn tick_config(demo: u32, settings: &str) -> Result<TickConfig, Vec<String>> {
    let info = resilience_sim::scenario::catalogue::demo(demo)
        .ok_or_else(|| vec![format!("There is no demo {demo}.")])?;
    let tick = info.scenario().tick;
    let pairs = record::read(settings);
    let (circuit_breaker, bulkhead) =
        crate::settings_form::with_settings(&tick.circuit_breaker, &tick.bulkhead, &pairs)?;
    Ok(TickConfig {
        circuit_breaker,
        bulkhead,
        ..tick
    })
}

/// A pasted fragment for the breaker sandbox: the breaker's settings and what the page
/// says about the rest of the fragment, or the refusal.
pub type SandboxImport = Result<(CircuitBreakerConfig, Vec<String>), Refused>;

/// A breaker script read from its text by the engine's reader (the one
/// `resilience-sim breaker` uses), or the one-line refusal.
pub type ScriptRead = Result<BreakerScript, String>;

/// The functions of the `course-tools` part: what `src/bin/course-tools.rs` exports, and
/// what its dialogs ([`crate::views::tool_dialogs`]) call.
pub mod exports {
    use resilience_sim::resilience4j;

    use super::*;
    use crate::course::overview::notes_html;

    /// The notes for teachers of demo `number`, as HTML (escaped text in our markup).
    pub fn teacher_notes_html(number: u32) -> String {
        let mut h = String::new();
        notes_html(number, &mut h);
        h
    }

    /// Instances (an array, as a page hands them over) as Spring Boot YAML, `.properties`
    /// and Java.
    pub fn resilience4j_text(instances: JsValue) -> Result<ConfigText, String> {
        let instances: Vec<Instance> = from_js(instances).map_err(message)?;
        Ok(ConfigText::of(&instances))
    }

    /// A lab's settings, as its link `query` (`demo=12&queueCapacity=200`) says, as Spring
    /// Boot YAML, `.properties` and Java. The labs whose link says all of their config
    /// (8, 9, 11, 12, 13, 15).
    pub fn lab_config_text(query: &str) -> Result<ConfigText, String> {
        use crate::lab_link::config_from_link;
        use resilience_sim::resilience4j::labs::LabResilience4j;
        use resilience_sim::scenario::catalogue::{self, Lab};
        use resilience_sim::scenario::{
            brownout_lab, checkout_lab, labs, pool_lab, retry_policies_lab,
        };
        let demo = crate::url_state::query_pairs(query)
            .find(|(name, _)| name == "demo")
            .and_then(|(_, value)| value.parse::<u32>().ok());
        let instances = match demo.and_then(catalogue::lab).map(|info| info.lab) {
            Some(Lab::Amplification) => config_from_link::<labs::AmplificationLab>(query)
                .0
                .resilience4j(),
            Some(Lab::Jitter) => config_from_link::<labs::JitterLab>(query).0.resilience4j(),
            Some(Lab::Pool) => config_from_link::<pool_lab::PoolLab>(query)
                .0
                .resilience4j(),
            Some(Lab::Brownout) => config_from_link::<brownout_lab::BrownoutLab>(query)
                .0
                .resilience4j(),
            Some(Lab::Checkout) => config_from_link::<checkout_lab::CheckoutLab>(query)
                .0
                .resilience4j(),
            Some(Lab::RetryPolicies) => {
                config_from_link::<retry_policies_lab::RetryPoliciesLab>(query)
                    .0
                    .resilience4j()
            }
            _ => {
                return Err(
                    "This page's settings cannot be written as Resilience4j configuration.".into(),
                )
            }
        };
        Ok(ConfigText::of(&instances))
    }

    /// Demo `demo`'s settings with its link's `settings` applied ([`tick_config`]) as
    /// Spring Boot YAML, `.properties` and Java.
    pub fn tick_config_text(demo: u32, settings: &str) -> Result<ConfigText, String> {
        let tick = tick_config(demo, settings).map_err(|e| e.join(" "))?;
        Ok(ConfigText::of(&resilience4j::tick_instances(&tick)))
    }

    /// A pasted `application.yml` or `.properties` fragment for demo `demo` played with
    /// its link's `settings`, its instances named `instance` playing recommendations
    /// (empty: those named `recommendations`, else the only one): a [`TickImport`] record
    /// whose settings are the link's for the result.
    pub fn read_for_tick(
        text: &str,
        demo: u32,
        settings: &str,
        instance: &str,
        profile: &str,
    ) -> String {
        tick_import_record(&import_for_tick(text, demo, settings, instance, profile))
    }

    /// [`read_for_tick`] before it is written as a record. `profile` is the Spring profile
    /// whose documents are read besides the default ones (empty: none).
    pub fn import_for_tick(
        text: &str,
        demo: u32,
        settings: &str,
        instance: &str,
        profile: &str,
    ) -> TickImport {
        let tick = tick_config(demo, settings).map_err(Refused::from)?;
        let name = role(instance, resilience4j::RECOMMENDATIONS);
        let fragment = resilience4j::read_fragment(text, chosen(profile)).map_err(problems)?;
        let played = resilience4j::tick_roles(&fragment.instances, name);
        let sources = sources(&fragment, played);
        let (breaker, bulkhead) = resilience4j::apply_to_tick_as(&tick, &fragment.instances, name)
            .map_err(|all| refused(all, &fragment.instances))?;
        let mut notes = not_read(fragment.not_read.clone());
        notes.extend(sources);
        // What the import noted: instances read but not used, and the played instances'
        // own notes.
        if let Ok(import) = resilience4j::import_tick_as(&tick, &fragment.instances, name) {
            notes.extend(problems(import.notes));
        }
        // The link's settings for what was read: those that differ from the demo's.
        let demo_s = tick_config(demo, "").map_err(Refused::from)?;
        let settings = SettingsDraft::from_configs(&breaker, &bulkhead).differences(
            &SettingsDraft::from_configs(&demo_s.circuit_breaker, &demo_s.bulkhead),
        );
        Ok(TickImported { settings, notes })
    }

    /// A pasted fragment for the breaker sandbox, checked on a sandbox of its own, its
    /// circuit breaker named `instance` playing the sandbox's (empty: the one named
    /// `dependency`, else the only one): a [`SandboxImport`].
    pub fn read_for_sandbox(text: &str, instance: &str, profile: &str) -> Result<JsValue, JsValue> {
        let name = role(instance, resilience4j::SANDBOX_INSTANCE);
        let read: SandboxImport = match resilience4j::read_fragment(text, chosen(profile)) {
            Err(all) => Err(problems(all).into()),
            Ok(fragment) => {
                let mut sandbox = resilience_sim::scenario::sandbox::BreakerSandbox::default();
                resilience4j::apply_to_sandbox_as(&mut sandbox, &fragment.instances, name)
                    .map(|notes| {
                        let breaker = resilience4j::tick_roles(&fragment.instances, name)
                            .into_iter()
                            .filter(|i| i.config.kind() == resilience4j::Kind::CircuitBreaker);
                        let mut all = not_read(fragment.not_read.clone());
                        all.extend(sources(&fragment, breaker.collect()));
                        all.extend(notes);
                        (sandbox.settings().config.clone(), all)
                    })
                    .map_err(|all| refused(all, &fragment.instances))
            }
        };
        to_js(&read)
    }

    /// A breaker script's text for the sandbox, read as the CLI reads it: a [`ScriptRead`].
    /// The sandbox's page carries no reader of JSON text (the engine's would add about 32 KB
    /// of wasm to it), and the browser's `JSON.parse` with serde-wasm-bindgen is not the
    /// CLI's reader: it takes the last of two equal keys, passes over a key no field has (a
    /// misspelt setting played as its default), and wrote a deeply nested value into its
    /// message recursively, past the stack.
    pub fn read_breaker_script(text: &str) -> Result<JsValue, JsValue> {
        use resilience_sim::scenario::breaker_script::parse_breaker_script;
        let read: ScriptRead = parse_breaker_script(text);
        // Milliseconds past 2^53 cross as BigInts, so the page plays the CLI's numbers.
        let serializer = serde_wasm_bindgen::Serializer::json_compatible()
            .serialize_large_number_types_as_bigints(true);
        read.serialize(&serializer).map_err(JsValue::from)
    }

    /// The Spring profiles a pasted file's documents are for: what the config dialog
    /// offers to choose from.
    pub fn profile_names(text: &str) -> Vec<String> {
        resilience4j::profiles(text)
    }

    /// Draws the dialog `which` (`"config"` or `"embed"`) of the page `page`
    /// ([`PageRequests::object`]) into its host and opens it: empty, or why it could not.
    pub fn open_dialog(which: &str, page: JsValue) -> String {
        crate::views::tool_dialogs::open(which, PageHandle::new(page))
            .err()
            .unwrap_or_default()
    }

    /// The profile chosen, if any.
    fn chosen(profile: &str) -> Option<&str> {
        Some(profile).filter(|p| !p.is_empty())
    }

    /// The instance name that plays the page's dependency: the learner's choice, else the
    /// page's own name.
    fn role<'a>(chosen: &'a str, page_s: &'a str) -> &'a str {
        if chosen.is_empty() {
            page_s
        } else {
            chosen
        }
    }

    /// The refusal of a fragment that was read: its problems, and the names of the
    /// instances of every kind that has several, to choose from (each name once).
    fn refused(all: Vec<String>, instances: &[Instance]) -> Refused {
        let mut names: Vec<String> = Vec::new();
        for instance in instances {
            let kind = instance.config.kind();
            let several = instances.iter().filter(|i| i.config.kind() == kind).count() > 1;
            if several && !names.contains(&instance.name) && names.len() < 50 {
                names.push(instance.name.clone());
            }
        }
        Refused {
            problems: problems(all),
            instances: names,
        }
    }

    /// A fragment's problems as the page lists them: each on one line of bounded length
    /// (quoted values cut to 40 characters), the first few and a count of the rest.
    fn problems(all: Vec<String>) -> Vec<String> {
        crate::url_state::shortened(all)
            .iter()
            .map(|problem| resilience_sim::error::one_line(problem))
            .collect()
    }

    /// Where the values of the instances the page plays came from: the file's instance, a
    /// shared config, or Resilience4j's defaults (one sentence each).
    fn sources(fragment: &resilience4j::Fragment, played: Vec<&Instance>) -> Vec<String> {
        played
            .into_iter()
            .filter_map(|instance| fragment.provenance_of(instance))
            .map(|sentence| resilience_sim::error::one_line(&sentence))
            .collect()
    }

    /// What a fragment held that the page did not read, as sentences for its message.
    fn not_read(parts: Vec<String>) -> Vec<String> {
        problems(
            parts
                .into_iter()
                .map(|part| format!("Not read: {part}."))
                .collect(),
        )
    }
}

/// The tools could not be loaded or answered (offline after the page loaded, or a bug):
/// what the page says instead.
pub const UNAVAILABLE: &str =
    "This tool could not be loaded. Check the connection and open it again.";

/// [`exports::teacher_notes_html`], from any part.
pub async fn teacher_notes_html(number: u32) -> Result<String, String> {
    call("teacher_notes_html", &[JsValue::from(number)])
        .await?
        .as_string()
        .ok_or_else(|| UNAVAILABLE.to_string())
}

/// [`exports::read_breaker_script`], from the sandbox's page: the script, or why it was
/// not read (the tools part loaded on first use, as for a dialog).
pub async fn read_breaker_script(text: &str) -> ScriptRead {
    let read = call("read_breaker_script", &[text.into()]).await?;
    from_js::<ScriptRead>(read).map_err(message)?
}

/// [`exports::open_dialog`], from any page: the tools part draws the dialog `which`
/// (`"config"` or `"embed"`) into the page's host and opens it; `page` is
/// [`PageRequests::object`].
pub async fn open_dialog(which: &str, page: JsValue) -> Result<(), String> {
    let answer = call("open_dialog", &[which.into(), page]).await?;
    match answer.as_string() {
        Some(problem) if !problem.is_empty() => Err(problem),
        _ => Ok(()),
    }
}

/// What a page's dialogs ask of it, handed to the tools part as a JavaScript object
/// ([`PageRequests::object`], read there by [`PageHandle`]): its link; where its settings
/// come from ([`config_source`]), which the tools part writes in Resilience4j's words;
/// and, on a page that takes a pasted fragment, `apply`: the fragment as the tools part
/// read it (for a tick demo a [`TickImport`] record, for the sandbox a [`SandboxImport`]),
/// applied by the page, answering a record ([`applied_record`]).
#[derive(Clone, Copy)]
pub struct PageRequests {
    pub number: u32,
    pub title: &'static str,
    pub embedded: bool,
    pub link: Callback<(), String>,
    pub config: Callback<(), JsValue>,
    pub apply: Option<Callback<JsValue, String>>,
}

impl PageRequests {
    /// The object: `host` (where the dialogs go), `number`, `title`, `embedded`, and the
    /// functions `link()`, `config()` and `apply(read)`.
    pub fn object(self, host: web_sys::Element) -> JsValue {
        let object = js_sys::Object::new();
        let set = |key: &str, value: &JsValue| {
            let _ = js_sys::Reflect::set(&object, &key.into(), value);
        };
        set("host", &host);
        set("number", &self.number.into());
        set("title", &self.title.into());
        set("embedded", &self.embedded.into());
        let (link, config) = (self.link, self.config);
        let link = move || JsValue::from(link.run(()));
        set(
            "link",
            &Closure::<dyn Fn() -> JsValue>::new(link).into_js_value(),
        );
        let config = move || config.run(());
        set(
            "config",
            &Closure::<dyn Fn() -> JsValue>::new(config).into_js_value(),
        );
        if let Some(apply) = self.apply {
            let apply = move |read: JsValue| JsValue::from(apply.run(read));
            set(
                "apply",
                &Closure::<dyn Fn(JsValue) -> JsValue>::new(apply).into_js_value(),
            );
        }
        object.into()
    }
}

/// Where a page's settings come from, as the tools part reads them: a tick demo's link
/// settings, a lab's link, or the instances themselves (the sandbox after an import, the
/// BoxOffice system).
pub mod config_source {
    use super::*;

    pub fn tick(demo: u32, settings: &str) -> JsValue {
        record::write([("tick", demo.to_string().as_str()), ("settings", settings)]).into()
    }

    pub fn lab(link: &str) -> JsValue {
        record::write([("lab", link)]).into()
    }

    pub fn instances(instances: &[Instance]) -> JsValue {
        to_js(instances).unwrap_or(JsValue::UNDEFINED)
    }
}

/// What a page did with a pasted fragment, as the record `apply` answers: `done=…`, or
/// the refusal's `problem=…&instance=…`.
pub fn applied_record(applied: Result<String, Refused>) -> String {
    match applied {
        Ok(done) => record::write([("done", done.as_str())]),
        Err(refused) => refused.to_record(),
    }
}

/// [`applied_record`] read back.
pub fn read_applied(record: &str) -> Result<String, Refused> {
    let pairs = record::read(record);
    match pairs.iter().find(|(key, _)| key == "done") {
        Some((_, done)) => Ok(done.clone()),
        None => Err(Refused::from_pairs(&pairs)),
    }
}

/// A pasted fragment for the breaker sandbox as the tools part read it ([`SandboxImport`]).
pub fn read_sandbox_import(read: JsValue) -> SandboxImport {
    from_js::<SandboxImport>(read).map_err(|e| Refused::from(vec![message(e)]))?
}

/// The page that opened a dialog, as the tools part sees it ([`PageRequests::object`]).
#[derive(Clone)]
pub struct PageHandle(JsValue);

impl PageHandle {
    pub fn new(object: JsValue) -> Self {
        PageHandle(object)
    }

    fn field(&self, key: &str) -> JsValue {
        js_sys::Reflect::get(&self.0, &key.into()).unwrap_or(JsValue::UNDEFINED)
    }

    /// Calls the page's `name`, or answers `undefined` if it has none or it failed.
    fn call(&self, name: &str, args: &[JsValue]) -> JsValue {
        let list: js_sys::Array = args.iter().collect();
        self.field(name)
            .dyn_into::<js_sys::Function>()
            .ok()
            .and_then(|f| f.apply(&JsValue::NULL, &list).ok())
            .unwrap_or(JsValue::UNDEFINED)
    }

    pub fn host(&self) -> Option<web_sys::HtmlElement> {
        self.field("host").dyn_into().ok()
    }

    pub fn number(&self) -> u32 {
        self.field("number").as_f64().map_or(0, |n| n as u32)
    }

    pub fn title(&self) -> String {
        self.field("title").as_string().unwrap_or_default()
    }

    pub fn takes_imports(&self) -> bool {
        self.field("apply").is_function()
    }

    /// Whether the page is a tick demo, which replays its ticks with an import (the
    /// sandbox replays its calls).
    pub fn plays_ticks(&self) -> bool {
        matches!(self.source(), Source::Tick { .. })
    }

    /// The page's link as it is now (`demo=5&t=3&…`).
    pub fn link(&self) -> String {
        self.call("link", &[]).as_string().unwrap_or_default()
    }

    /// Where the page's settings come from ([`config_source`]): a tick demo's (its demo
    /// and link settings) or a lab's link, read from the record, or the instances.
    fn source(&self) -> Source {
        let value = self.call("config", &[]);
        let Some(text) = value.as_string() else {
            return Source::Instances(value);
        };
        let pairs = record::read(&text);
        match pairs.first() {
            Some((key, demo)) if key == "tick" => Source::Tick {
                demo: demo.parse().unwrap_or(0),
                settings: record::one(&pairs, "settings"),
            },
            _ => Source::Lab(record::one(&pairs, "lab")),
        }
    }

    /// The page's settings in Resilience4j's words.
    pub fn config(&self) -> Result<ConfigText, String> {
        match self.source() {
            Source::Tick { demo, settings } => exports::tick_config_text(demo, &settings),
            Source::Lab(link) => exports::lab_config_text(&link),
            Source::Instances(instances) => exports::resilience4j_text(instances),
        }
    }

    /// A pasted fragment, read here and applied by the page: what it did, or the refusal.
    pub fn import(&self, text: &str, instance: &str, profile: &str) -> Result<String, Refused> {
        let read = match self.source() {
            Source::Tick { demo, settings } => {
                exports::read_for_tick(text, demo, &settings, instance, profile).into()
            }
            _ => exports::read_for_sandbox(text, instance, profile)
                .map_err(|e| Refused::from(vec![message(e)]))?,
        };
        let answer = self.call("apply", &[read]).as_string();
        read_applied(&answer.ok_or_else(|| Refused::from(vec![UNAVAILABLE.to_string()]))?)
    }
}

enum Source {
    Tick { demo: u32, settings: String },
    Lab(String),
    Instances(JsValue),
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// Set by `assets/start.js`: the `course-tools` part's exports, loaded on first use.
    #[wasm_bindgen(catch, js_name = resiliencePlaygroundTools)]
    fn load_tools() -> Result<js_sys::Promise, JsValue>;
}

/// Calls `name` of the tools part with `args`.
async fn call(name: &str, args: &[JsValue]) -> Result<JsValue, String> {
    let unavailable = |_| UNAVAILABLE.to_string();
    let promise = load_tools().map_err(unavailable)?;
    let exports = wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map_err(unavailable)?;
    let function: js_sys::Function = js_sys::Reflect::get(&exports, &JsValue::from_str(name))
        .map_err(unavailable)?
        .dyn_into()
        .map_err(unavailable)?;
    let list: js_sys::Array = args.iter().collect();
    function.apply(&JsValue::NULL, &list).map_err(message)
}

fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(JsValue::from)
}

fn from_js<T: for<'de> Deserialize<'de>>(value: JsValue) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value).map_err(JsValue::from)
}

/// A failed call, as the page says it (the detail goes to the console).
fn message(error: JsValue) -> String {
    web_sys::console::error_1(&error);
    UNAVAILABLE.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A system with no Resilience4j layer says so in all three forms, each as a comment
    /// of its language; one instance is written as the exporter writes it.
    #[test]
    fn a_system_without_instances_says_so() {
        let none = ConfigText::of(&[]);
        assert!(
            none.yaml.starts_with("# No Resilience4j instance"),
            "{}",
            none.yaml
        );
        assert!(none.properties.starts_with("# No Resilience4j instance"));
        assert!(none.java.starts_with("// No Resilience4j instance"));
        let tick = tick_config(5, "").expect("Demo 5");
        let instances = resilience_sim::resilience4j::tick_instances(&tick);
        let some = ConfigText::of(&instances);
        assert!(!some.yaml.contains("No Resilience4j instance"));
        assert!(
            some.yaml.contains("sliding-window-size: 4"),
            "{}",
            some.yaml
        );
    }
}
