//! # Scenario files
//!
//! A scenario describes one run: the model and its world, the policies with their
//! Resilience4j settings (camelCase names, durations as `"3s"` or plain milliseconds), and
//! a script of changes over time. It is the format the CLI's `run FILE` reads, the numbered
//! demos are written in, and a course author hands to a learner. TOML and JSON carry the same
//! structure; docs/scenarios.md documents every field with examples.
//!
//! Parsing never panics: a bad file gives one line saying what is wrong and where.

pub mod boxoffice_lab;
pub mod breaker_script;
pub mod brownout_lab;
pub mod catalogue;
pub mod checkout_lab;
pub mod compare;
pub mod lab_session;
pub mod labs;
pub mod pool_lab;
pub mod retry_policies_lab;
pub mod sandbox;
pub mod scripts;
pub mod session;

use serde::{Deserialize, Serialize};

use crate::error::{one_line, ConfigError};
use crate::model::tick::{Behaviour, Protection, TickConfig, TickEvent, TickModel};

/// Default and upper bound of a run's length, so a typo cannot ask for a billion ticks.
pub const DEFAULT_TICKS: u32 = 6;
/// The largest scenario file the CLI reads (a scenario is a few hundred bytes).
pub const MAX_SCENARIO_BYTES: usize = 1024 * 1024;
pub use crate::model::tick::MAX_TICKS;

/// Which model a scenario runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelKind {
    /// The tick model of an API with a thread pool (../shared/spec/01-tick-model.md).
    #[default]
    Tick,
}

/// A change that takes effect at the start of tick `at` (before that tick's completions).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScriptedChange {
    pub at: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behaviour: Option<Behaviour>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protection: Option<Protection>,
}

impl ScriptedChange {
    /// Orders changes by the tick they take effect at; changes at the same tick keep the
    /// order they were made in (a stable sort). One function for the link and the session,
    /// so the page carries one copy of the sort.
    pub fn sort_by_tick(changes: &mut [ScriptedChange]) {
        changes.sort_by_key(|c| c.at);
    }
}

/// One run of a model, as written in a scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default)]
    pub model: ModelKind,
    /// How many ticks a run covers unless the caller asks for another number.
    #[serde(default = "default_ticks")]
    pub ticks: u32,
    /// Seed of the run's randomness: which calls of a flaky service fail.
    #[serde(default)]
    pub seed: u64,
    /// The tick model's world, behaviour, protection and policy settings.
    pub tick: TickConfig,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub script: Vec<ScriptedChange>,
}

fn default_ticks() -> u32 {
    DEFAULT_TICKS
}

/// The file formats a scenario can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    #[cfg(feature = "cli")]
    Toml,
}

impl Format {
    /// Picks the format from the file name (`.json`, `.toml`), else from the text: a
    /// document starting with `{` is JSON, anything else TOML (where TOML is built in).
    pub fn detect(path: &str, text: &str) -> Format {
        let path = path.to_ascii_lowercase();
        if path.ends_with(".json") {
            return Format::Json;
        }
        #[cfg(feature = "cli")]
        if path.ends_with(".toml")
            || !crate::error::without_bom(text)
                .trim_start()
                .starts_with('{')
        {
            return Format::Toml;
        }
        let _ = text;
        Format::Json
    }
}

impl Scenario {
    /// A tick-model scenario without a script.
    pub fn tick(
        name: impl Into<String>,
        description: impl Into<String>,
        ticks: u32,
        tick: TickConfig,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            model: ModelKind::Tick,
            ticks,
            seed: 0,
            tick,
            script: Vec::new(),
        }
    }

    /// Parses and validates a scenario.
    pub fn parse(text: &str, format: Format) -> Result<Self, String> {
        let text = crate::error::without_bom(text);
        let scenario: Scenario = match format {
            // One line, whatever the parser quotes back (a value's newline, a lone `\r`).
            Format::Json => serde_json::from_str(text)
                .map_err(|e| one_line(&crate::error::serde_words(&e.to_string())))?,
            #[cfg(feature = "cli")]
            Format::Toml => toml::from_str(text).map_err(|e| one_line(&toml_message(text, &e)))?,
        };
        scenario.validate().map_err(|e| e.to_string())?;
        Ok(scenario)
    }

    /// Writes the scenario back out; `parse` of the result gives the same scenario.
    pub fn save(&self, format: Format) -> Result<String, String> {
        match format {
            Format::Json => serde_json::to_string_pretty(self).map_err(|e| e.to_string()),
            #[cfg(feature = "cli")]
            Format::Toml => toml::to_string(self).map_err(|e| e.to_string()),
        }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.ticks == 0 || self.ticks > MAX_TICKS {
            return Err(ConfigError::new(
                "ticks",
                format!("must be between 1 and {MAX_TICKS} (got {})", self.ticks),
            ));
        }
        self.tick.validate()?;
        for change in &self.script {
            if change.at == 0 {
                return Err(ConfigError::new(
                    "script.at",
                    "must be 1 or later (t = 0 is the starting setup)",
                ));
            }
            if let Some(b) = change.behaviour {
                b.validate()?;
            }
            if change.behaviour.is_none() && change.protection.is_none() {
                return Err(ConfigError::new(
                    "script",
                    format!(
                        "the change at t = {} changes nothing (give behaviour or protection)",
                        change.at
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Runs the scenario for `ticks` ticks (its own length by default) and records a trace.
    pub fn run(&self, ticks: Option<u32>) -> Result<Trace, ConfigError> {
        let (mut run, ticks) = self.start(ticks)?;
        let records = (0..ticks).map(|_| run.step()).collect();
        Ok(Trace {
            scenario: self.name.clone(),
            ticks: records,
        })
    }

    /// The run at t = 0 and how many ticks to play (`ticks`, else the scenario's own),
    /// checked as [`Self::run`] checks them: for a caller that takes the records one at a
    /// time (the CLI streams them, so its memory does not grow with the ticks).
    pub fn start(&self, ticks: Option<u32>) -> Result<(ScenarioRun, u32), ConfigError> {
        self.validate()?;
        let ticks = ticks.unwrap_or(self.ticks);
        if ticks == 0 || ticks > MAX_TICKS {
            return Err(ConfigError::new(
                "ticks",
                format!("must be between 1 and {MAX_TICKS} (got {ticks})"),
            ));
        }
        Ok((ScenarioRun::new(self)?, ticks))
    }
}

/// A scenario being played tick by tick: the model plus the script still to come.
#[derive(Debug, Clone)]
pub struct ScenarioRun {
    model: TickModel,
    script: Vec<ScriptedChange>,
}

impl ScenarioRun {
    pub fn new(scenario: &Scenario) -> Result<Self, ConfigError> {
        Ok(Self {
            model: TickModel::new(scenario.tick.clone())?.with_seed(scenario.seed),
            script: scenario.script.clone(),
        })
    }

    pub fn model(&self) -> &TickModel {
        &self.model
    }

    /// Adds a change to the script still to come (after the scenario's own for that tick).
    pub fn schedule(&mut self, change: ScriptedChange) {
        self.script.push(change);
    }

    /// The behaviour and protection the next tick will use, scheduled changes included.
    pub fn next_selects(&self) -> (Behaviour, Protection) {
        let config = self.model.config();
        let next = self.model.tick() + 1;
        self.script
            .iter()
            .filter(|c| c.at == next)
            .fold((config.behaviour, config.protection), |(b, p), c| {
                (c.behaviour.unwrap_or(b), c.protection.unwrap_or(p))
            })
    }

    /// Plays the next tick, applying the script's changes for it first.
    pub fn step(&mut self) -> TickRecord {
        self.advance();
        TickRecord::of(&self.model)
    }

    /// [`Self::step`] without the record: what a replay needs, without narrating every
    /// tick on the way.
    pub fn advance(&mut self) {
        let t = self.model.tick() + 1;
        for change in self.script.iter().filter(|c| c.at == t) {
            if let Some(b) = change.behaviour {
                self.model.set_behaviour(b);
            }
            if let Some(p) = change.protection {
                self.model.set_protection(p);
            }
        }
        self.model.step();
    }
}

/// Threads held by each dependency after a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ThreadCounts {
    pub recommendations: u32,
    pub payment: u32,
}

/// One tick of a trace, as the CLI prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TickRecord {
    pub t: u32,
    pub threads: ThreadCounts,
    /// The breaker's state after the tick; `None` (null) without a breaker.
    pub breaker: Option<&'static str>,
    pub payment_failures: u32,
    pub fallbacks_served: u32,
    pub refused_by_breaker: u32,
    pub refused_by_bulkhead: u32,
    pub refused_no_thread: u32,
    /// The tick's events in plain words.
    pub events: Vec<String>,
    #[serde(skip)]
    pub typed_events: Vec<TickEvent>,
}

impl TickRecord {
    fn of(model: &TickModel) -> Self {
        use crate::model::tick::Dependency;
        let tally = model.tally();
        Self {
            t: model.tick(),
            threads: ThreadCounts {
                recommendations: model.threads_held_by(Dependency::Recommendations),
                payment: model.threads_held_by(Dependency::Payment),
            },
            breaker: model.breaker().map(|b| b.state().as_str()),
            payment_failures: tally.payment_failures,
            fallbacks_served: tally.fallbacks_served,
            refused_by_breaker: tally.refused_by_breaker,
            refused_by_bulkhead: tally.refused_by_bulkhead,
            refused_no_thread: tally.refused_no_thread,
            events: model.last_events().iter().map(TickEvent::narrate).collect(),
            typed_events: model.last_events().to_vec(),
        }
    }
}

/// A whole run: `{"scenario": ..., "ticks": [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trace {
    pub scenario: String,
    pub ticks: Vec<TickRecord>,
}

/// toml's message where it is in the file, without the source line toml prints under it
/// (a line of the file is not the reader's to echo: it may be a megabyte long).
#[cfg(feature = "cli")]
fn toml_message(text: &str, error: &toml::de::Error) -> String {
    let Some(mut start) = error.span().map(|span| span.start.min(text.len())) else {
        return format!("TOML parse error: {}", error.message().trim_end());
    };
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let before = &text[..start];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!(
        "TOML parse error at line {line}, column {column}: {}",
        error.message().trim_end()
    )
}
