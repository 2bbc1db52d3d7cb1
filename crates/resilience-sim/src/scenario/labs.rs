//! The retry labs as [`LabModel`]s: their configs, their controls as data, their runs
//! (../shared/spec/02-retry-labs.md). Each control's name is the config field's serde name,
//! so `?demo=9&mode=full`, `--mode full` and `{"mode": "full"}` are one spelling.

use super::lab_session::{
    choice, millis, number, slider, Control, ControlKind, ControlValue, LabModel, Section,
};
use crate::error::ConfigError;
use crate::model::amplification::{self, AmplificationConfig, AmplificationRun, BackoffKind};
use crate::model::jitter::{self, JitterConfig, JitterRun};
use crate::policy::retry::{calls_on_provider, Jitter};

/// Lab A (Demo 8): the amplification model's config, and the page's retry-layers widget.
#[derive(Debug, Clone, PartialEq)]
pub struct AmplificationLab {
    pub config: AmplificationConfig,
    /// The retry-layers widget: layers that retry, and attempts per layer (page only).
    pub layers: u32,
    pub attempts: u32,
}

impl Default for AmplificationLab {
    fn default() -> Self {
        Self {
            config: AmplificationConfig::default(),
            layers: 3,
            attempts: 3,
        }
    }
}

impl AmplificationLab {
    /// What one click becomes on the provider when every layer retries.
    pub fn calls_on_provider(&self) -> u64 {
        calls_on_provider(self.layers, self.attempts)
    }
}

/// Lab B (Demo 9): the jitter model's config, and whether the page compares all modes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JitterLab {
    pub config: JitterConfig,
    /// Run and draw all four jitter modes, not only the chosen one (page only).
    pub compare: bool,
}

const JITTER_OPTIONS: [(&str, &str); 4] = [
    (Jitter::None.name(), Jitter::None.label()),
    (Jitter::Full.name(), Jitter::Full.label()),
    (Jitter::Equal.name(), Jitter::Equal.label()),
    (Jitter::Decorrelated.name(), Jitter::Decorrelated.label()),
];

const BACKOFF_OPTIONS: [(&str, &str); 3] = [
    (BackoffKind::None.name(), BackoffKind::None.label()),
    (BackoffKind::Fixed.name(), BackoffKind::Fixed.label()),
    (
        BackoffKind::Exponential.name(),
        BackoffKind::Exponential.label(),
    ),
];

/// An optional duration as a number: 0 is "none".
fn optional_ms(ms: Option<u64>) -> ControlValue {
    ControlValue::Number(ms.unwrap_or(0) as f64)
}

fn to_optional_ms(value: ControlValue) -> Option<u64> {
    Some(number(value) as u64).filter(|&ms| ms > 0)
}

const SEED: ControlKind = ControlKind::Whole {
    min: 0,
    max: super::lab_session::MAX_SEED,
};

type A = AmplificationLab;

const AMPLIFICATION_CONTROLS: [Control<A>; 19] = [
    Control {
        name: "retries",
        label: "Retries per request",
        help: "Retries after a failed call, for the red and blue lines.",
        kind: slider(0.0, 10.0, 1.0, ""),
        section: Section::Main,
        get: |l| ControlValue::Number(f64::from(l.config.retries)),
        set: |l, v| l.config.retries = number(v) as u32,
    },
    Control {
        name: "budgetPercent",
        label: "Retry budget",
        help: "Retries the blue line may add, per 100 new requests.",
        kind: slider(0.0, 100.0, 1.0, "% of requests"),
        section: Section::Main,
        get: |l| ControlValue::Number(l.config.budget_percent),
        set: |l, v| l.config.budget_percent = number(v),
    },
    Control {
        name: "degradationMs",
        label: "Degradation lasts",
        help: "How long the provider stays degraded.",
        kind: millis(0.0, 60_000.0, 100.0),
        section: Section::Main,
        get: |l| ControlValue::Number(l.config.degradation_ms as f64),
        set: |l, v| l.config.degradation_ms = number(v) as u64,
    },
    Control {
        name: "degradedCapacityPercent",
        label: "Capacity while degraded",
        help: "The provider's capacity during the degradation, in percent of normal.",
        kind: slider(0.0, 100.0, 5.0, "% of normal"),
        section: Section::Main,
        get: |l| ControlValue::Number(l.config.degraded_capacity_percent),
        set: |l, v| l.config.degraded_capacity_percent = number(v),
    },
    Control {
        name: "headroomPercent",
        label: "Headroom above demand",
        help: "The provider's normal capacity above the demand.",
        kind: slider(0.0, 100.0, 5.0, "%"),
        section: Section::Main,
        get: |l| ControlValue::Number(l.config.headroom_percent),
        set: |l, v| l.config.headroom_percent = number(v),
    },
    Control {
        name: "waste",
        label: "Wasted work when overloaded",
        help: "How much capacity an overloaded provider loses on calls that time out anyway.",
        kind: slider(0.0, 5.0, 0.1, "×"),
        section: Section::Main,
        get: |l| ControlValue::Number(l.config.waste),
        set: |l, v| l.config.waste = number(v),
    },
    Control {
        name: "backoff",
        label: "Backoff of the retries",
        help: "How long a failed request waits before its retry.",
        kind: ControlKind::Choice {
            options: &BACKOFF_OPTIONS,
        },
        section: Section::Main,
        get: |l| ControlValue::Choice(l.config.backoff.name()),
        set: |l, v| {
            l.config.backoff = BackoffKind::from_name(choice(v)).unwrap_or_default();
            // Jitter spreads a backoff: without one there is nothing to spread.
            if l.config.backoff == BackoffKind::None {
                l.config.jitter = Jitter::None;
            }
        },
    },
    Control {
        name: "jitter",
        label: "Jitter of the retries",
        help: "Randomness in the backoff (needs a backoff).",
        kind: ControlKind::Choice {
            options: &JITTER_OPTIONS,
        },
        section: Section::Main,
        get: |l| ControlValue::Choice(l.config.jitter.name()),
        set: |l, v| l.config.jitter = Jitter::from_name(choice(v)).unwrap_or_default(),
    },
    Control {
        name: "demandPerSecond",
        label: "Demand",
        help: "New purchase requests per second.",
        kind: slider(100.0, 5000.0, 100.0, "requests/s"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.demand_per_second)),
        set: |l, v| l.config.demand_per_second = number(v) as u32,
    },
    Control {
        name: "degradationStartMs",
        label: "Degradation starts at",
        help: "When the provider loses capacity.",
        kind: millis(0.0, 60_000.0, 100.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.config.degradation_start_ms as f64),
        set: |l, v| l.config.degradation_start_ms = number(v) as u64,
    },
    Control {
        name: "durationMs",
        label: "Length of the run",
        help: "Simulated time shown on the charts.",
        kind: millis(1000.0, 300_000.0, 100.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.config.duration_ms as f64),
        set: |l, v| l.config.duration_ms = number(v) as u64,
    },
    Control {
        name: "backoffBaseMs",
        label: "Backoff base",
        help: "The fixed wait, or the first exponential one.",
        kind: millis(100.0, 10_000.0, 100.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.config.backoff_base_ms as f64),
        set: |l, v| l.config.backoff_base_ms = number(v) as u64,
    },
    Control {
        name: "backoffMultiplier",
        label: "Backoff multiplier",
        help: "Growth per attempt of the exponential backoff.",
        kind: slider(1.0, 10.0, 0.1, "×"),
        section: Section::More,
        get: |l| ControlValue::Number(l.config.backoff_multiplier),
        set: |l, v| l.config.backoff_multiplier = number(v),
    },
    Control {
        name: "backoffCapMs",
        label: "Backoff cap (0: none)",
        help: "The longest wait, if any.",
        kind: millis(0.0, 60_000.0, 100.0),
        section: Section::More,
        get: |l| optional_ms(l.config.backoff_cap_ms),
        set: |l, v| l.config.backoff_cap_ms = to_optional_ms(v),
    },
    Control {
        name: "budgetTtlMs",
        label: "Budget memory",
        help: "How long the retry budget remembers its deposits and withdrawals.",
        kind: millis(1000.0, 60_000.0, 100.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.config.budget_ttl_ms as f64),
        set: |l, v| l.config.budget_ttl_ms = number(v) as u64,
    },
    Control {
        name: "budgetMinRetriesPerSecond",
        label: "Budget reserve",
        help: "A reserve on top of the percentage: this many retries for each second the budget remembers, which a burst may spend at once.",
        kind: slider(0.0, 1000.0, 1.0, "retries/s"),
        section: Section::More,
        get: |l| ControlValue::Number(f64::from(l.config.budget_min_retries_per_second)),
        set: |l, v| l.config.budget_min_retries_per_second = number(v) as u32,
    },
    Control {
        name: "seed",
        label: "Seed",
        help: "Seed of the jitter draws: the same seed gives the same chart.",
        kind: SEED,
        section: Section::More,
        get: |l| ControlValue::Number(l.config.seed as f64),
        set: |l, v| l.config.seed = number(v) as u64,
    },
    Control {
        name: "layers",
        label: "Layers that retry",
        help: "Gateway, service, adapter…: each layer that retries multiplies the calls.",
        kind: slider(1.0, 6.0, 1.0, ""),
        section: Section::Page,
        get: |l| ControlValue::Number(f64::from(l.layers)),
        set: |l, v| l.layers = number(v) as u32,
    },
    Control {
        name: "attempts",
        label: "Attempts per layer",
        help: "Calls each layer makes for one call it receives.",
        kind: slider(1.0, 6.0, 1.0, ""),
        section: Section::Page,
        get: |l| ControlValue::Number(f64::from(l.attempts)),
        set: |l, v| l.attempts = number(v) as u32,
    },
];

impl LabModel for AmplificationLab {
    /// The three policies' runs: no retries, retries, retry budget.
    type Run = [AmplificationRun; 3];
    const NAME: &'static str = "amplification";

    fn controls() -> &'static [Control<Self>] {
        &AMPLIFICATION_CONTROLS
    }

    fn validate(&self) -> Result<(), ConfigError> {
        self.config.validate()
    }

    fn run(&self) -> Result<Self::Run, ConfigError> {
        amplification::run_all(&self.config)
    }
}

type B = JitterLab;

const JITTER_CONTROLS: [Control<B>; 9] = [
    Control {
        name: "mode",
        label: "Jitter",
        help: "How each client randomizes its backoff.",
        kind: ControlKind::Choice {
            options: &JITTER_OPTIONS,
        },
        section: Section::Main,
        get: |l| ControlValue::Choice(l.config.mode.name()),
        set: |l, v| l.config.mode = Jitter::from_name(choice(v)).unwrap_or_default(),
    },
    Control {
        name: "clients",
        label: "Clients calling at t = 0",
        help: "Clients whose connections were reset together.",
        kind: slider(10.0, 5000.0, 10.0, "clients"),
        section: Section::Main,
        get: |l| ControlValue::Number(f64::from(l.config.clients)),
        set: |l, v| l.config.clients = number(v) as u32,
    },
    Control {
        name: "capacityPerSlot",
        label: "Server capacity",
        help: "Calls the server serves in each 100 ms slot.",
        kind: slider(1.0, 1000.0, 1.0, "calls per 100 ms"),
        section: Section::Main,
        get: |l| ControlValue::Number(f64::from(l.config.capacity_per_slot)),
        set: |l, v| l.config.capacity_per_slot = number(v) as u32,
    },
    Control {
        name: "baseMs",
        label: "Backoff base",
        help: "The first backoff, and the floor of decorrelated jitter.",
        kind: millis(100.0, 5000.0, 100.0),
        section: Section::Main,
        get: |l| ControlValue::Number(l.config.base_ms as f64),
        set: |l, v| l.config.base_ms = number(v) as u64,
    },
    Control {
        name: "multiplier",
        label: "Backoff multiplier",
        help: "Growth of the backoff per attempt (decorrelated jitter does not use it).",
        kind: slider(1.0, 4.0, 0.1, "×"),
        section: Section::Main,
        get: |l| ControlValue::Number(l.config.multiplier),
        set: |l, v| l.config.multiplier = number(v),
    },
    Control {
        name: "capMs",
        label: "Backoff cap (0: none)",
        help: "The longest wait, if any.",
        kind: millis(0.0, 60_000.0, 100.0),
        section: Section::More,
        get: |l| optional_ms(l.config.cap_ms),
        set: |l, v| l.config.cap_ms = to_optional_ms(v),
    },
    Control {
        name: "durationMs",
        label: "Length of the run",
        help: "The start of the last 100 ms slot shown.",
        kind: millis(1000.0, 30_000.0, 100.0),
        section: Section::More,
        get: |l| ControlValue::Number(l.config.duration_ms as f64),
        set: |l, v| l.config.duration_ms = number(v) as u64,
    },
    Control {
        name: "seed",
        label: "Seed",
        help: "Seed of the jitter draws: the same seed gives the same chart.",
        kind: SEED,
        section: Section::Main,
        get: |l| ControlValue::Number(l.config.seed as f64),
        set: |l, v| l.config.seed = number(v) as u64,
    },
    Control {
        name: "compare",
        label: "Show all four modes",
        help: "Draw every jitter mode on the same charts.",
        kind: ControlKind::Toggle,
        section: Section::Page,
        get: |l| ControlValue::Toggle(l.compare),
        set: |l, v| l.compare = v == ControlValue::Toggle(true),
    },
];

impl LabModel for JitterLab {
    /// The chosen mode's run, or all four modes' (in [`Jitter::ALL`] order) when comparing.
    type Run = Vec<JitterRun>;
    const NAME: &'static str = "jitter";

    fn controls() -> &'static [Control<Self>] {
        &JITTER_CONTROLS
    }

    fn validate(&self) -> Result<(), ConfigError> {
        self.config.validate()
    }

    fn run(&self) -> Result<Self::Run, ConfigError> {
        if !self.compare {
            return Ok(vec![jitter::run(&self.config)?]);
        }
        Jitter::ALL
            .into_iter()
            .map(|mode| {
                jitter::run(&JitterConfig {
                    mode,
                    ..self.config.clone()
                })
            })
            .collect()
    }
}
