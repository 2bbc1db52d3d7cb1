//! The numbered demos of the course, as data. One source of truth: the page's list, the
//! CLI's `demo N` and the tests all read this table.

use super::Scenario;
use crate::model::tick::{Behaviour, Protection, TickConfig};

/// One numbered demo: what the course list shows about it and how it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DemoInfo {
    /// The number learners and teachers use to refer to it (`?demo=N`).
    pub number: u32,
    pub title: &'static str,
    /// What the learner should see, in a sentence (the scenario's description).
    pub watch: &'static str,
    /// How recommendations behaves at t = 0.
    pub behaviour: Behaviour,
    /// The protection at t = 0.
    pub protection: Protection,
    /// Ticks the demo runs for before its lesson is complete.
    pub ticks: u32,
}

impl DemoInfo {
    /// The demo as a scenario (the same data the files in assets/scenarios/ hold).
    pub fn scenario(&self) -> Scenario {
        Scenario::tick(
            format!("Demo {}: {}", self.number, self.title),
            self.watch,
            self.ticks,
            TickConfig::new(self.behaviour, self.protection),
        )
    }
}

/// Demos 1-7: the tick model of ../shared/spec/01-tick-model.md.
pub const DEMOS: [DemoInfo; 7] = [
    DemoInfo {
        number: 1,
        title: "Errors trip the breaker",
        watch: "The window fills with failures and the breaker opens at t = 3; refused calls take no thread and no time.",
        behaviour: Behaviour::Failing,
        protection: Protection::CircuitBreaker,
        ticks: 5,
    },
    DemoInfo {
        number: 2,
        title: "Half-open: it is back",
        watch: "At t = 6 the breaker lets two trial calls through; they succeed and the breaker closes.",
        behaviour: Behaviour::Recovering { healthy_from: 6 },
        protection: Protection::CircuitBreaker,
        ticks: 8,
    },
    DemoInfo {
        number: 3,
        title: "Half-open: still broken",
        watch: "The trial calls at t = 6 fail, the breaker opens again at t = 7 and waits until t = 10.",
        behaviour: Behaviour::Failing,
        protection: Protection::CircuitBreaker,
        ticks: 10,
    },
    DemoInfo {
        number: 4,
        title: "Slow service, no protection",
        watch: "Recommendations takes all 6 threads and the healthy payment service fails from t = 3.",
        behaviour: Behaviour::Slow,
        protection: Protection::None,
        ticks: 6,
    },
    DemoInfo {
        number: 5,
        title: "Slow service, circuit breaker",
        watch: "Payment fails at t = 3 and t = 4, then the breaker opens and the threads drain.",
        behaviour: Behaviour::Slow,
        protection: Protection::CircuitBreaker,
        ticks: 6,
    },
    DemoInfo {
        number: 6,
        title: "Bulkhead",
        watch: "Recommendations never holds more than 3 threads and payment never fails.",
        behaviour: Behaviour::Slow,
        protection: Protection::Bulkhead,
        ticks: 6,
    },
    DemoInfo {
        number: 7,
        title: "Breaker and bulkhead together",
        watch: "The bulkhead limits the damage at once; the breaker then stops the waste.",
        behaviour: Behaviour::Slow,
        protection: Protection::BreakerAndBulkhead,
        ticks: 6,
    },
];

/// The demo with this number, if there is one.
pub fn demo(number: u32) -> Option<&'static DemoInfo> {
    DEMOS.iter().find(|d| d.number == number)
}

/// Which rate-based lab a numbered demo runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lab {
    /// Lab A of ../shared/spec/02-retry-labs.md: retries hold a system down.
    Amplification,
    /// Lab B: jitter against synchronized waves.
    Jitter,
    /// Lab F of ../shared/spec/03-incident-labs.md: one breaker driven call by call.
    Sandbox,
    /// Lab D: a shared pool of 24 threads, and a bulkhead of 8.
    Pool,
    /// Lab C: the 09:00 pricing brownout and the fix ladder.
    Brownout,
    /// Lab E: payment and shipping, each through its own stack.
    Checkout,
    /// ../shared/spec/04-boxoffice-playground.md: a whole system, five scenarios.
    BoxOffice,
    /// ../shared/spec/05-retry-policies.md: the retry policies real clients ship.
    RetryPolicies,
}

/// A numbered lab demo (after the tick demos).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabInfo {
    pub number: u32,
    pub title: &'static str,
    /// What kind of lab, after the number in the page's kicker ("retry lab").
    pub kind: &'static str,
    pub lab: Lab,
}

/// Demos 8 and 9: the retry labs of ../shared/spec/02-retry-labs.md; 10 and 11: labs F and
/// D of ../shared/spec/03-incident-labs.md.
pub const LABS: [LabInfo; 8] = [
    LabInfo {
        number: 8,
        title: "Retries can keep a system down",
        kind: "retry lab",
        lab: Lab::Amplification,
    },
    LabInfo {
        number: 9,
        title: "Jitter against synchronized waves",
        kind: "retry lab",
        lab: Lab::Jitter,
    },
    LabInfo {
        number: 10,
        title: "The breaker sandbox",
        kind: "breaker lab",
        lab: Lab::Sandbox,
    },
    LabInfo {
        number: 11,
        title: "One pool of 24 threads, and a bulkhead of 8",
        kind: "incident lab",
        lab: Lab::Pool,
    },
    LabInfo {
        number: 12,
        title: "The 09:00 pricing brownout",
        kind: "incident lab",
        lab: Lab::Brownout,
    },
    LabInfo {
        number: 13,
        title: "Payment and shipping: what counts as a failure",
        kind: "incident lab",
        lab: Lab::Checkout,
    },
    LabInfo {
        number: 14,
        title: "BoxOffice: a whole system on its on-sale day",
        kind: "system lab",
        lab: Lab::BoxOffice,
    },
    LabInfo {
        number: 15,
        title: "Which retry policy survives?",
        kind: "retry lab",
        lab: Lab::RetryPolicies,
    },
];

/// The lab with this number, if there is one.
pub fn lab(number: u32) -> Option<&'static LabInfo> {
    LABS.iter().find(|l| l.number == number)
}

/// Every numbered entry of the course, in order: (number, title).
pub fn course() -> impl Iterator<Item = (u32, &'static str)> {
    DEMOS
        .iter()
        .map(|d| (d.number, d.title))
        .chain(LABS.iter().map(|l| (l.number, l.title)))
}

/// Whether `number` is a demo or a lab of the course.
pub fn exists(number: u32) -> bool {
    demo(number).is_some() || lab(number).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demos_are_numbered_one_to_seven_in_order() {
        let numbers: Vec<u32> = DEMOS.iter().map(|d| d.number).collect();
        assert_eq!(numbers, vec![1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(
            demo(4).map(|d| d.title),
            Some("Slow service, no protection")
        );
        assert!(demo(0).is_none());
        assert!(demo(8).is_none());
    }

    #[test]
    fn the_course_numbers_its_labs_after_the_tick_demos() {
        let numbers: Vec<u32> = course().map(|(n, _)| n).collect();
        assert_eq!(numbers, (1..=15).collect::<Vec<_>>());
        assert_eq!(lab(8).map(|l| l.lab), Some(Lab::Amplification));
        assert_eq!(lab(9).map(|l| l.lab), Some(Lab::Jitter));
        assert_eq!(lab(10).map(|l| l.lab), Some(Lab::Sandbox));
        assert_eq!(lab(11).map(|l| l.lab), Some(Lab::Pool));
        assert_eq!(lab(12).map(|l| l.lab), Some(Lab::Brownout));
        assert_eq!(lab(13).map(|l| l.lab), Some(Lab::Checkout));
        assert_eq!(lab(14).map(|l| l.lab), Some(Lab::BoxOffice));
        assert_eq!(lab(15).map(|l| l.lab), Some(Lab::RetryPolicies));
        assert!(exists(15) && !exists(16) && !exists(0));
    }
}
