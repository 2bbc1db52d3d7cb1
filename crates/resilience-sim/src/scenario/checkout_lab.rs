//! Lab E (Demo 13) as a [`LabModel`]: the checkout model's config, its controls as data,
//! its run (../shared/spec/03-incident-labs.md, "Lab E"). `?demo=13&scenario=quoter-stall`,
//! `--scenario quoter-stall` and `{"scenario": "quoter-stall"}` are one spelling.
//!
//! The decorator order and the bulkheads were one control until issue 22: the old
//! `order=wrong` (`--order wrong`) still opens, as `order=breaker-outside-retry` and
//! `bulkheads=shared` ([`LabModel::legacy_pairs`]).

use super::lab_session::{choice, number, Control, ControlKind, ControlValue, LabModel, Section};
use crate::error::ConfigError;
use crate::model::checkout::{
    self, Bulkheads, CheckoutConfig, CheckoutRun, CheckoutScenario, StackOrder, Threads,
};

/// Lab E (Demo 13): payment and shipping, each through its own stack.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CheckoutLab {
    pub config: CheckoutConfig,
}

const SCENARIO_OPTIONS: [(&str, &str); 6] = [
    (
        CheckoutScenario::DeclineStorm.name(),
        CheckoutScenario::DeclineStorm.label(),
    ),
    (
        CheckoutScenario::QuoterStall.name(),
        CheckoutScenario::QuoterStall.label(),
    ),
    (
        CheckoutScenario::ConnectionReset.name(),
        CheckoutScenario::ConnectionReset.label(),
    ),
    (
        CheckoutScenario::LostResponse.name(),
        CheckoutScenario::LostResponse.label(),
    ),
    (
        CheckoutScenario::ProviderTimeouts.name(),
        CheckoutScenario::ProviderTimeouts.label(),
    ),
    (
        CheckoutScenario::GameDay.name(),
        CheckoutScenario::GameDay.label(),
    ),
];

const ORDER_OPTIONS: [(&str, &str); 2] = [
    (
        StackOrder::Resilience4j.name(),
        StackOrder::Resilience4j.label(),
    ),
    (
        StackOrder::BreakerOutsideRetry.name(),
        StackOrder::BreakerOutsideRetry.label(),
    ),
];

const BULKHEAD_OPTIONS: [(&str, &str); 3] = [
    (Bulkheads::Separate.name(), Bulkheads::Separate.label()),
    (Bulkheads::Shared.name(), Bulkheads::Shared.label()),
    (Bulkheads::None.name(), Bulkheads::None.label()),
];

/// The old `order=wrong`: the breaker outside the retry, with one shared bulkhead.
const WRONG_ORDER: [(&str, &str); 2] = [
    ("order", StackOrder::BreakerOutsideRetry.name()),
    ("bulkheads", Bulkheads::Shared.name()),
];

const THREAD_OPTIONS: [(&str, &str); 2] = [
    (Threads::Platform.name(), Threads::Platform.label()),
    (Threads::Virtual.name(), Threads::Virtual.label()),
];

type C = CheckoutLab;

const CHECKOUT_CONTROLS: [Control<C>; 5] = [
    Control {
        name: "scenario",
        label: "Scenario",
        help: "What the payment provider and the shipping quoter do during the run.",
        kind: ControlKind::Choice {
            options: &SCENARIO_OPTIONS,
        },
        section: Section::Main,
        get: |l| ControlValue::Choice(l.config.scenario.name()),
        set: |l, v| l.config.scenario = CheckoutScenario::from_name(choice(v)).unwrap_or_default(),
    },
    Control {
        name: "order",
        label: "Decorator order",
        help: "Whether the breaker records every attempt or, outside the retry, one outcome per call.",
        kind: ControlKind::Choice {
            options: &ORDER_OPTIONS,
        },
        section: Section::Main,
        get: |l| ControlValue::Choice(l.config.order.name()),
        set: |l, v| l.config.order = StackOrder::from_name(choice(v)).unwrap_or_default(),
    },
    Control {
        name: "bulkheads",
        label: "Bulkheads",
        help: "A bulkhead each, one shared by both, or none.",
        kind: ControlKind::Choice {
            options: &BULKHEAD_OPTIONS,
        },
        section: Section::Main,
        get: |l| ControlValue::Choice(l.config.bulkheads.name()),
        set: |l, v| l.config.bulkheads = Bulkheads::from_name(choice(v)).unwrap_or_default(),
    },
    Control {
        name: "threads",
        label: "Threads",
        help: "Platform threads (a pool of 40 that can run out) or virtual threads (the HTTP connections become the scarce resource).",
        kind: ControlKind::Choice {
            options: &THREAD_OPTIONS,
        },
        section: Section::Main,
        get: |l| ControlValue::Choice(l.config.threads.name()),
        set: |l, v| l.config.threads = Threads::from_name(choice(v)).unwrap_or_default(),
    },
    Control {
        name: "seed",
        label: "Seed",
        help: "Seed of the answer times: the same seed gives the same run.",
        kind: ControlKind::Whole {
            min: 0,
            max: super::lab_session::MAX_SEED,
        },
        section: Section::More,
        get: |l| ControlValue::Number(l.config.seed as f64),
        set: |l, v| l.config.seed = number(v) as u64,
    },
];

impl LabModel for CheckoutLab {
    type Run = CheckoutRun;
    const NAME: &'static str = "checkout";

    fn controls() -> &'static [Control<Self>] {
        &CHECKOUT_CONTROLS
    }

    fn validate(&self) -> Result<(), ConfigError> {
        Ok(())
    }

    fn run(&self) -> Result<Self::Run, ConfigError> {
        checkout::run(&self.config)
    }

    fn legacy_pairs(name: &str, value: &str) -> Option<&'static [(&'static str, &'static str)]> {
        (name == "order" && value.eq_ignore_ascii_case("wrong")).then_some(&WRONG_ORDER[..])
    }
}
