//! Demo 14 (the BoxOffice playground) as a [`LabModel`]: a shipped scenario, one of its
//! variants and a seed; its run is the engine's ([`crate::model::boxoffice`]).
//! `?demo=14&scenario=retry-storm&variant=breaker` and
//! `resilience-sim lab boxoffice --scenario retry-storm --variant breaker` are one run.
//!
//! The variants of each scenario are the scenario file's (`assets/boxoffice/*.json`); the
//! table here adds their labels for the page, and a test keeps the two equal.

use super::lab_session::{choice, number, Control, ControlKind, ControlValue, LabModel, Section};
use crate::error::ConfigError;
use crate::error::{excerpt, without_bom};
use crate::model::boxoffice::edit::{self, diff, patched, Edit};
use crate::model::boxoffice::topology::{merge_patch, read_document};
use crate::model::boxoffice::{self, scenarios, BoxOfficeRun, Sim, Topology};
use serde_json::Value;

/// A scenario of the playground: its file's name, a label, its variants (name, label),
/// the variant the page opens on, and the spec's lesson in a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScenarioInfo {
    pub name: &'static str,
    pub label: &'static str,
    pub variants: &'static [(&'static str, &'static str)],
    pub lesson: &'static str,
}

pub const SCENARIOS: [ScenarioInfo; 5] = [
    ScenarioInfo {
        name: "cascading-failure",
        label: "Cascading failure",
        variants: &[
            ("unprotected", "No bulkhead, no read timeout"),
            ("read-timeout", "A 2 s read timeout alone"),
            ("bulkhead", "The seed's bulkhead of 50"),
        ],
        lesson: "A slow dependency takes down what never calls it, through the threads they share: 100 purchases/s at 4 s need 400 threads, and the replica has 200.",
    },
    ScenarioInfo {
        name: "retry-storm",
        label: "Retry storm",
        variants: &[
            ("naive-retries", "3 retries at once"),
            ("backoff-jitter", "Backoff with jitter"),
            ("retry-budget", "A retry budget of 10 %"),
            ("breaker", "A circuit breaker"),
            ("drop-stale", "Payment drops stale work"),
        ],
        lesson: "Ten slow seconds can keep a system down for good: retries and abandoned work keep the load above capacity after the cause is gone.",
    },
    ScenarioInfo {
        name: "rate-limiter",
        label: "Rate limiting",
        variants: &[
            ("no-limit", "No limit"),
            ("token-bucket", "A token bucket per key at the door"),
            ("client-limiter-counted", "Our own RateLimiter, counted by the breaker"),
            ("client-limiter-ignored", "Our own RateLimiter, ignored by the breaker"),
        ],
        lesson: "A limit per key protects the many from the one; a limiter inside the breaker can open it on a healthy provider.",
    },
    ScenarioInfo {
        name: "payment-system",
        label: "The payment system",
        variants: &[
            ("seed-stack", "The seed's whole stack"),
            ("liveness-on-payment", "Liveness probe checking payment"),
            ("no-idempotency-keys", "No idempotency keys, no breaker"),
        ],
        lesson: "Every layer has a budget and a job: declines are answers, an open breaker lets 3 trial calls through, and a probe that checks a dependency restarts healthy replicas.",
    },
    ScenarioInfo {
        name: "flash-sale",
        label: "Flash sale",
        variants: &[
            ("no-shedding", "No load shedding"),
            ("priority-shedding", "Load shedding by priority"),
            ("waiting-room", "A waiting room (LIFO, drops stale work)"),
            ("adaptive-limit", "An adaptive limit"),
            ("scale-out", "Scaling out (startup probe)"),
            ("no-startup-probe", "Scaling out without a startup probe"),
        ],
        lesson: "Under ten times the demand, a system that accepts everything serves no one in time; saying no early, by priority, keeps goodput near capacity.",
    },
];

/// The scenario named `name`.
pub fn scenario(name: &str) -> Option<&'static ScenarioInfo> {
    SCENARIOS.iter().find(|s| s.name == name)
}

const SCENARIO_OPTIONS: [(&str, &str); 5] = [
    (SCENARIOS[0].name, SCENARIOS[0].label),
    (SCENARIOS[1].name, SCENARIOS[1].label),
    (SCENARIOS[2].name, SCENARIOS[2].label),
    (SCENARIOS[3].name, SCENARIOS[3].label),
    (SCENARIOS[4].name, SCENARIOS[4].label),
];

/// Every scenario's variants, for the `variant` control (the page lists only the chosen
/// scenario's; the model refuses a variant of another scenario).
const VARIANT_OPTIONS: [(&str, &str); 21] = [
    ("unprotected", "No bulkhead, no read timeout"),
    ("read-timeout", "A 2 s read timeout alone"),
    ("bulkhead", "The seed's bulkhead of 50"),
    ("naive-retries", "3 retries at once"),
    ("backoff-jitter", "Backoff with jitter"),
    ("retry-budget", "A retry budget of 10 %"),
    ("breaker", "A circuit breaker"),
    ("drop-stale", "Payment drops stale work"),
    ("no-limit", "No limit"),
    ("token-bucket", "A token bucket per key at the door"),
    (
        "client-limiter-counted",
        "Our own RateLimiter, counted by the breaker",
    ),
    (
        "client-limiter-ignored",
        "Our own RateLimiter, ignored by the breaker",
    ),
    ("seed-stack", "The seed's whole stack"),
    ("liveness-on-payment", "Liveness probe checking payment"),
    ("no-idempotency-keys", "No idempotency keys, no breaker"),
    ("no-shedding", "No load shedding"),
    ("priority-shedding", "Load shedding by priority"),
    ("waiting-room", "A waiting room (LIFO, drops stale work)"),
    ("adaptive-limit", "An adaptive limit"),
    ("scale-out", "Scaling out (startup probe)"),
    ("no-startup-probe", "Scaling out without a startup probe"),
];

/// The longest `edits` a link carries (characters of compact JSON); a longer system goes
/// by file.
pub const MAX_LINK_EDITS: usize = edit::MAX_EDITS_CHARS;
/// The largest scenario file the page imports.
pub const MAX_IMPORT_BYTES: usize = 64 * 1024;

/// The learner's changes to the scenario's system: a JSON merge patch on the scenario's
/// document with its variant (see [`crate::model::boxoffice::edit`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edits(pub serde_json::Value);

/// Demo 14's settings: which scenario, which variant, which seed, and the learner's
/// changes to its system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoxOfficeLab {
    pub scenario: &'static str,
    pub variant: &'static str,
    pub seed: u64,
    /// Changes on top of the scenario and variant; cleared when either changes (they are
    /// a patch on that system).
    pub edits: Option<Edits>,
}

impl Default for BoxOfficeLab {
    fn default() -> Self {
        Self {
            scenario: SCENARIOS[0].name,
            variant: SCENARIOS[0].variants[0].0,
            seed: boxoffice::DEFAULT_SEED,
            edits: None,
        }
    }
}

impl BoxOfficeLab {
    pub fn info(&self) -> &'static ScenarioInfo {
        scenario(self.scenario).unwrap_or(&SCENARIOS[0])
    }

    /// The scenario's topology with the variant applied, and the edits.
    pub fn topology(&self) -> Result<Topology, ConfigError> {
        if self.edits.is_none() {
            // Like an edited system, without the file's other variants.
            let mut base = self.base()?;
            base.variants.clear();
            return Ok(base);
        }
        Topology::from_value(self.document()?).map_err(|e| {
            ConfigError::new("edits", format!("make a system the engine refuses: {e}"))
        })
    }

    /// The scenario's topology with the variant applied, without the edits.
    pub fn base(&self) -> Result<Topology, ConfigError> {
        self.validate_choice()?;
        let text = scenarios::file(self.scenario)
            .ok_or_else(|| ConfigError::new("scenario", "is not a shipped scenario"))?;
        scenarios::load(text, Some(self.variant), &[])
    }

    /// The scenario's document as written, with its variant merged in and without its
    /// variants: what the edits patch.
    pub fn base_document(&self) -> Result<Value, ConfigError> {
        self.validate_choice()?;
        let text = scenarios::file(self.scenario)
            .ok_or_else(|| ConfigError::new("scenario", "is not a shipped scenario"))?;
        let mut doc = read_document(without_bom(text))
            .map_err(|e| ConfigError::new("scenario", e.to_string()))?;
        if let Some(patch) = doc
            .get("variants")
            .and_then(|v| v.get(self.variant))
            .cloned()
        {
            merge_patch(&mut doc, &patch);
        }
        if let Some(o) = doc.as_object_mut() {
            o.remove("variants");
        }
        Ok(doc)
    }

    /// The system's document: the base with the edits.
    pub fn document(&self) -> Result<Value, ConfigError> {
        let base = self.base_document()?;
        Ok(match &self.edits {
            Some(Edits(patch)) => patched(&base, patch),
            None => base,
        })
    }

    /// This lab with `doc` as its system's document (kept as its difference from the base).
    fn with_document(&self, doc: &Value) -> Result<Self, ConfigError> {
        let patch = diff(&self.base_document()?, doc);
        let edits = (patch.as_object().is_some_and(|o| !o.is_empty())).then_some(Edits(patch));
        Ok(Self {
            edits,
            ..self.clone()
        })
    }

    /// This lab with `edit` made to its system; refused with the reason, the lab unchanged.
    pub fn with_edit(&self, edit: &Edit) -> Result<Self, ConfigError> {
        let mut doc = self.document()?;
        edit::apply(&mut doc, edit)?;
        self.with_document(&doc)
    }

    /// This lab running a learner's scenario file (the CLI's `--file` format, at most
    /// [`MAX_IMPORT_BYTES`]), kept as its difference from the current scenario and variant.
    pub fn with_file(&self, text: &str) -> Result<Self, ConfigError> {
        if text.len() > MAX_IMPORT_BYTES {
            return Err(ConfigError::new(
                "file",
                format!(
                    "is {} KB; a scenario file is at most {} KB",
                    text.len() / 1024,
                    MAX_IMPORT_BYTES / 1024
                ),
            ));
        }
        let text = without_bom(text);
        // Read and checked as the CLI's `--file` reads it.
        Topology::from_json(text, None)?;
        let mut doc = read_document(text)
            .map_err(|e| ConfigError::new("file", crate::error::serde_words(&e.to_string())))?;
        if let Some(o) = doc.as_object_mut() {
            o.remove("variants");
        }
        self.with_document(&doc)
    }

    /// What an import of `text` leaves out, to say after it: a file's `variants` are not
    /// kept (the page runs the file's system as written, and the CLI runs a variant only
    /// when `--variant` names it), so a learner does not take them for applied or checked.
    pub fn file_note(text: &str) -> Option<String> {
        let names = scenarios::variants(text);
        (!names.is_empty()).then(|| {
            format!(
                "Imported the file's system as written. Its variants ({}) are not used here: `resilience-sim lab boxoffice --file FILE --variant NAME` runs one.",
                crate::error::some_names(names.iter().map(String::as_str))
            )
        })
    }

    /// The system as a scenario file (pretty JSON) that `resilience-sim lab boxoffice
    /// --file F --seed N` runs to the same result.
    pub fn file_text(&self) -> Result<String, ConfigError> {
        serde_json::to_string_pretty(&self.document()?)
            .map_err(|e| ConfigError::new("file", e.to_string()))
    }

    pub fn is_edited(&self) -> bool {
        self.edits.is_some()
    }

    /// The edits as a link writes them (compact JSON), if any.
    pub fn edits_text(&self) -> Option<String> {
        self.edits.as_ref().map(|Edits(v)| v.to_string())
    }

    /// Whether the edits (if any) are short enough for a link.
    pub fn edits_fit_in_link(&self) -> bool {
        self.edits_text()
            .is_none_or(|t| t.chars().count() <= MAX_LINK_EDITS)
    }

    fn validate_choice(&self) -> Result<(), ConfigError> {
        let info = scenario(self.scenario)
            .ok_or_else(|| ConfigError::new("scenario", "is not a shipped scenario"))?;
        if info.variants.iter().any(|(name, _)| *name == self.variant) {
            Ok(())
        } else {
            let names: Vec<&str> = info.variants.iter().map(|(n, _)| *n).collect();
            Err(ConfigError::new(
                "variant",
                format!(
                    "{} has no variant “{}”: use {}",
                    info.label,
                    self.variant,
                    names.join(", ")
                ),
            ))
        }
    }

    /// A run to make in slices ([`Sim::advance_to`]), as the page does.
    pub fn sim(&self) -> Result<Sim, ConfigError> {
        self.sim_of(self.topology()?)
    }

    /// The same run on `topology`, this lab's [`topology`](Self::topology) already read: a
    /// page that draws the system keeps it, and reading a file is most of a change's work.
    pub fn sim_of(&self, topology: Topology) -> Result<Sim, ConfigError> {
        Sim::new(topology, self.scenario, self.variant, self.seed, None)
    }
}

type C = BoxOfficeLab;

const CONTROLS: [Control<C>; 3] = [
    Control {
        name: "scenario",
        label: "Scenario",
        help: "Which incident the system lives through.",
        kind: ControlKind::Choice {
            options: &SCENARIO_OPTIONS,
        },
        section: Section::Main,
        get: |l| ControlValue::Choice(l.scenario),
        set: |l, v| {
            let Some(info) = scenario(choice(v)) else {
                return;
            };
            if l.scenario != info.name {
                l.edits = None;
            }
            l.scenario = info.name;
            // A variant of another scenario gives way to this one's first.
            if !info.variants.iter().any(|(name, _)| *name == l.variant) {
                l.variant = info.variants[0].0;
            }
        },
    },
    Control {
        name: "variant",
        label: "Protection",
        help: "The scenario's variant: which protections the system has.",
        kind: ControlKind::Choice {
            options: &VARIANT_OPTIONS,
        },
        section: Section::Page,
        get: |l| ControlValue::Choice(l.variant),
        set: |l, v| {
            if l.variant != choice(v) {
                l.edits = None;
            }
            l.variant = choice(v);
        },
    },
    Control {
        name: "seed",
        label: "Seed",
        help: "Seed of every random stream (arrivals, service times, retries): the same seed gives the same run.",
        kind: ControlKind::Whole {
            min: 0,
            max: super::lab_session::MAX_SEED,
        },
        section: Section::More,
        get: |l| ControlValue::Number(l.seed as f64),
        set: |l, v| l.seed = number(v) as u64,
    },
];

impl LabModel for BoxOfficeLab {
    type Run = BoxOfficeRun;
    const NAME: &'static str = "boxoffice";

    fn controls() -> &'static [Control<Self>] {
        &CONTROLS
    }

    fn validate(&self) -> Result<(), ConfigError> {
        self.validate_choice()?;
        if self.edits.is_some() {
            self.topology()?;
        }
        Ok(())
    }

    const EXTRA_PARAMETERS: &'static [&'static str] = &["edits"];

    fn extra_pairs(&self) -> Vec<(&'static str, String)> {
        match self.edits_text() {
            Some(text) if self.edits_fit_in_link() => vec![("edits", text)],
            _ => Vec::new(),
        }
    }

    fn set_extra(&mut self, name: &str, text: &str) -> Result<(), ConfigError> {
        if name != "edits" {
            return Err(ConfigError::new(
                excerpt(name),
                "is not a parameter of this lab",
            ));
        }
        let patch = edit::read_edits(text)?;
        let next = Self {
            edits: Some(Edits(patch)),
            ..self.clone()
        };
        next.topology()?;
        *self = next;
        Ok(())
    }

    fn run(&self) -> Result<Self::Run, ConfigError> {
        Ok(self.sim()?.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::lab_session::LabSession;

    #[test]
    fn the_table_names_every_variant_of_every_shipped_file() {
        assert_eq!(scenarios::names().len(), SCENARIOS.len());
        for info in SCENARIOS {
            let mut from_file = scenarios::variants(scenarios::file(info.name).unwrap());
            let mut here: Vec<String> = info.variants.iter().map(|(n, _)| n.to_string()).collect();
            from_file.sort();
            here.sort();
            assert_eq!(from_file, here, "{}", info.name);
            for (name, label) in info.variants {
                assert!(VARIANT_OPTIONS.contains(&(name, label)), "{name}");
            }
        }
        assert_eq!(
            VARIANT_OPTIONS.len(),
            SCENARIOS.iter().map(|s| s.variants.len()).sum::<usize>()
        );
    }

    #[test]
    fn a_link_in_either_order_opens_the_variant_and_a_stray_one_is_refused() {
        for pairs in [
            [("scenario", "retry-storm"), ("variant", "breaker")],
            [("variant", "breaker"), ("scenario", "retry-storm")],
        ] {
            let (lab, problems) = LabSession::<BoxOfficeLab>::read_pairs(pairs);
            assert!(problems.is_empty(), "{problems:?}");
            assert_eq!((lab.scenario, lab.variant), ("retry-storm", "breaker"));
        }
        let (lab, problems) = LabSession::<BoxOfficeLab>::read_pairs([
            ("scenario", "flash-sale"),
            ("variant", "breaker"),
        ]);
        assert_eq!(lab.scenario, "flash-sale");
        assert_eq!(lab.variant, "no-shedding");
        assert_eq!(problems.len(), 1);
        assert!(problems[0]
            .to_string()
            .contains("Flash sale has no variant “breaker”"));
    }

    #[test]
    fn choosing_a_scenario_opens_its_first_variant() {
        let mut lab = BoxOfficeLab::default();
        (CONTROLS[0].set)(&mut lab, ControlValue::Choice("payment-system"));
        assert_eq!(lab.variant, "seed-stack");
        assert!(lab.validate().is_ok());
    }

    #[test]
    fn the_page_and_the_cli_make_the_same_run() {
        let lab = BoxOfficeLab {
            scenario: "cascading-failure",
            variant: "bulkhead",
            seed: 3,
            edits: None,
        };
        let page = lab.run().unwrap();
        let text = scenarios::file("cascading-failure").unwrap();
        let topology = scenarios::load(text, Some("bulkhead"), &[]).unwrap();
        let cli = boxoffice::run(topology, "cascading-failure", "bulkhead", 3, None).unwrap();
        assert_eq!(page, cli);
    }
}
