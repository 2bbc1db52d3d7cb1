//! # The four protections side by side
//!
//! The course's central table: the same run of the tick model under no protection, a
//! circuit breaker, a bulkhead and both, with the payments that failed and the threads
//! recommendations held after each tick. With slow recommendations it shows the whole
//! argument of the course in four rows: unprotected, the slow service starves payment of
//! threads; the breaker stops the damage only after enough calls failed; the bulkhead
//! caps it from the first tick but keeps wasting threads; together, the bulkhead limits the
//! damage at once and the breaker then stops the waste.
//!
//! The table is played, not typed in: [`Comparison`] is the learner's run (the scenario
//! with its settings and seed, the behaviour changes of its script and of the learner)
//! with the protection taken out, and [`Comparison::run`] plays it once per protection.
//! A protection changed mid-run is left out on purpose: each row is one protection from
//! t = 1.

use serde::Serialize;

use super::{Scenario, ScenarioRun, ScriptedChange};
use crate::model::tick::{Dependency, Protection};
use crate::policy::circuit_breaker::State;

/// One tick of one row: the totals and threads after the tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ComparedTick {
    pub t: u32,
    /// Payments failed since t = 0.
    pub payment_failures: u32,
    /// Threads held by recommendations after the tick.
    pub recommendations_threads: u32,
    /// The breaker's state after the tick; `None` without a breaker.
    pub breaker: Option<State>,
}

/// One protection's run, tick by tick from t = 1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProtectionRun {
    pub protection: Protection,
    pub ticks: Vec<ComparedTick>,
}

impl ProtectionRun {
    /// Payments failed over the whole run.
    pub fn payment_failures(&self) -> u32 {
        self.ticks.last().map_or(0, |t| t.payment_failures)
    }
}

/// What the four rows play: a scenario without protection changes, for `ticks` ticks.
/// Cheap to build and to compare, so a page can rebuild it on every change and play the
/// rows again only when it differs.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    scenario: Scenario,
    ticks: u32,
}

impl Comparison {
    /// `scenario` with the learner's `changes` after its own script; only the behaviour
    /// changes are kept. `ticks` is clamped to the scenario's limits.
    pub fn new(scenario: &Scenario, changes: &[ScriptedChange], ticks: u32) -> Self {
        let mut scenario = scenario.clone();
        let script = scenario.script.iter().chain(changes);
        scenario.script = script
            .filter_map(|c| {
                c.behaviour.map(|b| ScriptedChange {
                    at: c.at,
                    behaviour: Some(b),
                    protection: None,
                })
            })
            .collect();
        Self {
            scenario,
            ticks: ticks.clamp(1, super::MAX_TICKS),
        }
    }

    /// How many ticks each row covers.
    pub fn ticks(&self) -> u32 {
        self.ticks
    }

    /// The four rows, in the protection select's order ([`Protection::ALL`]). A scenario
    /// that cannot be played (it was validated before, so never in practice) gives rows
    /// without ticks.
    pub fn run(&self) -> [ProtectionRun; 4] {
        Protection::ALL.map(|protection| self.run_one(protection))
    }

    fn run_one(&self, protection: Protection) -> ProtectionRun {
        let mut scenario = self.scenario.clone();
        scenario.tick.protection = protection;
        let mut row = ProtectionRun {
            protection,
            ticks: Vec::new(),
        };
        let Ok(mut run) = ScenarioRun::new(&scenario) else {
            return row;
        };
        row.ticks.reserve(self.ticks as usize);
        for _ in 0..self.ticks {
            run.advance();
            let model = run.model();
            row.ticks.push(ComparedTick {
                t: model.tick(),
                payment_failures: model.tally().payment_failures,
                recommendations_threads: model.threads_held_by(Dependency::Recommendations),
                breaker: model.breaker().map(|b| b.state()),
            });
        }
        row
    }
}
