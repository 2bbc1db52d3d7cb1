//! The tools a page offers besides its demo, which few learners open: the Resilience4j
//! writer (YAML and Java) and reader (YAML and `.properties`, with the exception table),
//! the notes for teachers and the embed snippets. They are the `course-tools` part
//! ([`crate::part`]), a wasm of its own that `assets/start.js` loads the first time a page
//! asks for one (`globalThis.resiliencePlaygroundTools()`), so opening a demo never
//! downloads them.
//!
//! [`exports`] is what that part exports (`src/bin/course-tools.rs` wraps each function
//! with `#[wasm_bindgen]`); the async functions here call them from any part. Values cross
//! between the two wasm instances as JavaScript values (serde-wasm-bindgen): instances,
//! texts, a list of problems.

use resilience_sim::model::tick::TickConfig;
use resilience_sim::policy::bulkhead::BulkheadConfig;
use resilience_sim::policy::circuit_breaker::CircuitBreakerConfig;
use resilience_sim::resilience4j::Instance;
use serde::{Deserialize, Serialize};
use wasm_bindgen::{JsCast, JsValue};

use crate::embed::Snippets;

/// What the config dialog shows: Spring Boot YAML and Java.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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

/// A pasted fragment for a tick demo, read and checked against its settings: the breaker's
/// and the bulkhead's settings to play, or the refusal. Only these cross back, so a page
/// decodes two configs, not every policy the reader knows.
type TickImport = Result<(CircuitBreakerConfig, BulkheadConfig, Vec<String>), Refused>;

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

    /// Instances (an array) as Spring Boot YAML, `.properties` and Java: a [`ConfigText`].
    pub fn resilience4j_text(instances: JsValue) -> Result<JsValue, JsValue> {
        let instances: Vec<Instance> = from_js(instances)?;
        to_js(&ConfigText {
            yaml: resilience4j::to_yaml(&instances),
            properties: resilience4j::to_properties(&instances),
            java: resilience4j::to_java(&instances),
        })
    }

    /// A tick demo's settings (a `TickConfig`) as Spring Boot YAML, `.properties` and Java.
    pub fn tick_config_text(tick: JsValue) -> Result<JsValue, JsValue> {
        let tick: TickConfig = from_js(tick)?;
        let instances = resilience4j::tick_instances(&tick);
        to_js(&ConfigText {
            yaml: resilience4j::to_yaml(&instances),
            properties: resilience4j::to_properties(&instances),
            java: resilience4j::to_java(&instances),
        })
    }

    /// A pasted `application.yml` or `.properties` fragment for a tick demo whose settings
    /// are `tick` (a `TickConfig`), its instances named `instance` playing recommendations
    /// (empty: those named `recommendations`, else the only one): a [`TickImport`].
    pub fn read_for_tick(text: &str, tick: JsValue, instance: &str) -> Result<JsValue, JsValue> {
        let tick: TickConfig = from_js(tick)?;
        let name = role(instance, resilience4j::RECOMMENDATIONS);
        let read: TickImport = match resilience4j::read_fragment(text, None) {
            Err(all) => Err(problems(all).into()),
            Ok(fragment) => {
                let played = resilience4j::tick_roles(&fragment.instances, name);
                let sources = sources(&fragment, played);
                resilience4j::apply_to_tick_as(&tick, &fragment.instances, name)
                    .map(|(breaker, bulkhead)| {
                        let mut notes = not_read(fragment.not_read.clone());
                        notes.extend(sources);
                        // What the import noted: instances read but not used, and the
                        // played instances' own notes.
                        if let Ok(import) =
                            resilience4j::import_tick_as(&tick, &fragment.instances, name)
                        {
                            notes.extend(problems(import.notes));
                        }
                        (breaker, bulkhead, notes)
                    })
                    .map_err(|all| refused(all, &fragment.instances))
            }
        };
        to_js(&read)
    }

    /// A pasted fragment for the breaker sandbox, checked on a sandbox of its own, its
    /// circuit breaker named `instance` playing the sandbox's (empty: the one named
    /// `dependency`, else the only one): a [`SandboxImport`].
    pub fn read_for_sandbox(text: &str, instance: &str) -> Result<JsValue, JsValue> {
        let name = role(instance, resilience4j::SANDBOX_INSTANCE);
        let read: SandboxImport = match resilience4j::read_fragment(text, None) {
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

    /// The two snippets that embed `link` (`demo=5&t=3`) from the site at `base`.
    pub fn embed_snippets(base: &str, link: &str, title: &str) -> Result<JsValue, JsValue> {
        to_js(&snippets(base, link, title))
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
    from_js(value).map_err(message)
}

/// [`exports::tick_config_text`], from a tick demo.
pub async fn tick_config_text(tick: &TickConfig) -> Result<ConfigText, String> {
    let value = call("tick_config_text", &[to_js(tick).map_err(message)?]).await?;
    from_js(value).map_err(message)
}

/// [`exports::read_for_tick`], from a tick demo.
pub async fn read_for_tick(
    text: &str,
    tick: &TickConfig,
    instance: &str,
) -> Result<TickImport, String> {
    let tick = to_js(tick).map_err(message)?;
    let value = call(
        "read_for_tick",
        &[JsValue::from_str(text), tick, JsValue::from_str(instance)],
    )
    .await?;
    from_js(value).map_err(message)
}

/// [`exports::read_for_sandbox`], from the breaker sandbox.
pub async fn read_for_sandbox(text: &str, instance: &str) -> Result<SandboxImport, String> {
    let value = call(
        "read_for_sandbox",
        &[JsValue::from_str(text), JsValue::from_str(instance)],
    )
    .await?;
    from_js(value).map_err(message)
}

/// [`exports::embed_snippets`], from any part.
pub async fn embed_snippets(base: &str, link: &str, title: &str) -> Result<Snippets, String> {
    let value = call("embed_snippets", &[base.into(), link.into(), title.into()]).await?;
    from_js(value).map_err(message)
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
