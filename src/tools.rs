//! The tools a page offers besides its demo, which few learners open: the Resilience4j
//! writer (YAML and Java) and reader (YAML and `.properties`, with the exception table),
//! the notes for teachers and the embed snippets. They are the `course-tools` part
//! ([`crate::part`]), a wasm of its own that `assets/start.js` loads the first time a page
//! asks for one (`globalThis.resiliencePlaygroundTools()`), so opening a demo never
//! downloads them.
//!
//! [`exports`] is what that part exports (`src/bin/course-tools.rs` wraps each function
//! with `#[wasm_bindgen]`); the async functions here call them from any part. Values cross
//! between the two wasm instances as query strings ([`record`]), the text format every
//! part already reads and writes for its links: a tick demo sends its demo and its link's
//! settings and gets settings back, and a lab whose link holds its whole config sends its
//! link, so these parts carry no decoder of their own for configs (serde-wasm-bindgen cost
//! the tick demos 15 KB gzip as sent). The sandbox (its breaker after an import) and the
//! BoxOffice system (edits longer than a link) still send their instances as JavaScript
//! values (serde-wasm-bindgen), and the sandbox gets its breaker config back that way.

use resilience_sim::model::tick::TickConfig;
use resilience_sim::policy::circuit_breaker::CircuitBreakerConfig;
use resilience_sim::resilience4j::Instance;
use serde::{Deserialize, Serialize};
use wasm_bindgen::{JsCast, JsValue};

use crate::embed::Snippets;
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
        ConfigText {
            yaml: resilience4j::to_yaml(instances),
            properties: resilience4j::to_properties(instances),
            java: resilience4j::to_java(instances),
        }
    }

    pub fn to_record(&self) -> String {
        record::write([
            ("yaml", self.yaml.as_str()),
            ("properties", &self.properties),
            ("java", &self.java),
        ])
    }

    pub fn from_record(text: &str) -> Self {
        let pairs = record::read(text);
        ConfigText {
            yaml: record::one(&pairs, "yaml"),
            properties: record::one(&pairs, "properties"),
            java: record::one(&pairs, "java"),
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
type SandboxImport = Result<(CircuitBreakerConfig, Vec<String>), Refused>;

/// The functions of the `course-tools` part, on JavaScript values.
pub mod exports {
    use resilience_sim::resilience4j;

    use super::*;
    use crate::course::overview::notes_html;
    use crate::embed::snippets;

    /// The notes for teachers of demo `number`, as HTML (escaped text in our markup).
    pub fn teacher_notes_html(number: u32) -> String {
        let mut h = String::new();
        notes_html(number, &mut h);
        h
    }

    /// Instances (an array) as Spring Boot YAML, `.properties` and Java: a [`ConfigText`]
    /// record.
    pub fn resilience4j_text(instances: JsValue) -> Result<String, JsValue> {
        let instances: Vec<Instance> = from_js(instances)?;
        Ok(ConfigText::of(&instances).to_record())
    }

    /// A lab's settings, as its link `query` (`demo=12&queueCapacity=200`) says, as Spring
    /// Boot YAML, `.properties` and Java: a [`ConfigText`] record. The labs whose link
    /// says all of their config (8, 9, 11, 12, 13, 15).
    pub fn lab_config_text(query: &str) -> Result<String, JsValue> {
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
            _ => return Err(JsValue::from_str("not a lab whose link says its config")),
        };
        Ok(ConfigText::of(&instances).to_record())
    }

    /// Demo `demo`'s settings with its link's `settings` applied ([`tick_config`]) as
    /// Spring Boot YAML, `.properties` and Java: a [`ConfigText`] record.
    pub fn tick_config_text(demo: u32, settings: &str) -> Result<String, JsValue> {
        let tick = tick_config(demo, settings).map_err(|e| JsValue::from(e.join(" ")))?;
        let instances = resilience4j::tick_instances(&tick);
        Ok(ConfigText::of(&instances).to_record())
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

    /// The Spring profiles a pasted file's documents are for, as a record
    /// (`profile=prod&profile=test`): what the config dialog offers to choose from.
    pub fn profiles(text: &str) -> String {
        let found = resilience4j::profiles(text);
        record::write(found.iter().map(|p| ("profile", p.as_str())))
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

    /// The two snippets that embed `link` (`demo=5&t=3`) from the site at `base`, as a
    /// record (`iframe=…&script=…`).
    pub fn embed_snippets(base: &str, link: &str, title: &str) -> String {
        let both = snippets(base, link, title);
        record::write([("iframe", both.iframe.as_str()), ("script", &both.script)])
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

/// [`exports::resilience4j_text`], from any part.
pub async fn resilience4j_text(instances: &[Instance]) -> Result<ConfigText, String> {
    let value = call("resilience4j_text", &[to_js(instances).map_err(message)?]).await?;
    Ok(ConfigText::from_record(&text_of(value)?))
}

/// [`exports::lab_config_text`], from a lab whose link says its config.
pub async fn lab_config_text(link: &str) -> Result<ConfigText, String> {
    let value = call("lab_config_text", &[link.into()]).await?;
    Ok(ConfigText::from_record(&text_of(value)?))
}

/// [`exports::tick_config_text`], from a tick demo: demo `demo` with its link's
/// `settings` (a query string).
pub async fn tick_config_text(demo: u32, settings: &str) -> Result<ConfigText, String> {
    let value = call("tick_config_text", &[demo.into(), settings.into()]).await?;
    Ok(ConfigText::from_record(&text_of(value)?))
}

/// [`exports::profiles`], from any part that imports.
pub async fn profiles(text: &str) -> Result<Vec<String>, String> {
    let value = call("profiles", &[text.into()]).await?;
    Ok(record::all(&record::read(&text_of(value)?), "profile"))
}

/// [`exports::read_for_tick`], from a tick demo: demo `demo` with its link's `settings`;
/// the fragment's `instance` plays the demo's role, and `profile`'s documents are read too.
pub async fn read_for_tick(
    text: &str,
    demo: u32,
    settings: &str,
    instance: &str,
    profile: &str,
) -> Result<TickImport, String> {
    let args = [
        text.into(),
        demo.into(),
        settings.into(),
        instance.into(),
        profile.into(),
    ];
    let value = call("read_for_tick", &args).await?;
    Ok(read_tick_import(&text_of(value)?))
}

/// [`exports::read_for_sandbox`], from the breaker sandbox.
pub async fn read_for_sandbox(
    text: &str,
    instance: &str,
    profile: &str,
) -> Result<SandboxImport, String> {
    let args = [text.into(), instance.into(), profile.into()];
    let value = call("read_for_sandbox", &args).await?;
    from_js(value).map_err(message)
}

/// [`exports::embed_snippets`], from any part.
pub async fn embed_snippets(base: &str, link: &str, title: &str) -> Result<Snippets, String> {
    let value = call("embed_snippets", &[base.into(), link.into(), title.into()]).await?;
    let pairs = record::read(&text_of(value)?);
    Ok(Snippets {
        iframe: record::one(&pairs, "iframe"),
        script: record::one(&pairs, "script"),
    })
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

/// A record that came back (a string), or the page's message.
fn text_of(value: JsValue) -> Result<String, String> {
    value.as_string().ok_or_else(|| message(value))
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
