//! A learner's session with a tick scenario: play, step back, reset, change a select
//! mid-run, edit settings. The model is deterministic, so stepping back is a replay of the
//! scenario and the learner's changes up to the earlier tick, from the nearest snapshot
//! taken on the way forward (a link may open a demo at t = 100,000: Step back must not
//! replay all of it).
//!
//! The page holds one of these in a signal and calls a method per intent (the todomvc
//! shape): it never decides an outcome itself.

use super::compare::Comparison;
use super::{Scenario, ScenarioRun, ScriptedChange, MAX_TICKS};
use crate::error::ConfigError;
use crate::model::summary::RunSummary;
use crate::model::tick::{Behaviour, Protection, TickConfig, TickModel};
use crate::policy::bulkhead::BulkheadConfig;
use crate::policy::circuit_breaker::CircuitBreakerConfig;

#[derive(Debug, Clone)]
pub struct TickSession {
    /// The demo as it was opened (settings and selects at t = 0, its own script).
    original: Scenario,
    /// What is being played: `original` with the learner's settings.
    scenario: Scenario,
    /// The learner's select changes, each with the tick it takes effect at.
    changes: Vec<ScriptedChange>,
    run: ScenarioRun,
    /// Snapshots of the model at every `checkpoint_every`-th tick played, oldest first;
    /// at most [`CHECKPOINTS_KEPT`], the spacing doubling when they would be more, so the
    /// memory stays bounded and a replay is at most `checkpoint_every` ticks.
    checkpoints: Vec<TickModel>,
    checkpoint_every: u32,
    /// The run's summary at the demo's last tick, noted as the run passes it (see
    /// [`TickSession::demo_summary`]).
    demo_end: Option<RunSummary>,
}

/// Snapshots a session keeps (see [`TickSession::go_to`]).
pub const CHECKPOINTS_KEPT: usize = 16;
/// The spacing of the first snapshots, in ticks.
const FIRST_CHECKPOINT_EVERY: u32 = 256;

impl TickSession {
    pub fn new(scenario: Scenario) -> Result<Self, ConfigError> {
        scenario.validate()?;
        let run = ScenarioRun::new(&scenario)?;
        Ok(Self {
            original: scenario.clone(),
            scenario,
            changes: Vec::new(),
            run,
            checkpoints: Vec::new(),
            checkpoint_every: FIRST_CHECKPOINT_EVERY,
            demo_end: None,
        })
    }

    /// The last tick played (0 at the start).
    pub fn tick(&self) -> u32 {
        self.run.model().tick()
    }

    pub fn model(&self) -> &TickModel {
        self.run.model()
    }

    /// The scenario being played (with the learner's settings).
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The scenario the session was opened with.
    pub fn original(&self) -> &Scenario {
        &self.original
    }

    /// The learner's select changes so far, in the order they take effect.
    pub fn changes(&self) -> &[ScriptedChange] {
        &self.changes
    }

    /// True once the demo's own length has been played.
    pub fn finished(&self) -> bool {
        self.tick() >= self.scenario.ticks
    }

    /// What the run did in the demo's own ticks (`scenario().ticks`), once they are played:
    /// the story the demo tells. It stays the same while the learner plays on, so the page
    /// writes it once, not every tick; `None` before the demo's last tick.
    ///
    /// Noted as the run passes that tick. Every way to a later tick either passes it again
    /// (a replay from t = 0 or from a snapshot before it) or starts from a snapshot of this
    /// same run (a change forgets the snapshots after it), so the note always belongs to the
    /// run being played.
    pub fn demo_summary(&self) -> Option<&RunSummary> {
        if self.finished() {
            self.demo_end.as_ref()
        } else {
            None
        }
    }

    /// Plays the next tick (no-op at [`MAX_TICKS`]).
    pub fn next_tick(&mut self) {
        if self.tick() < MAX_TICKS {
            self.advance();
        }
    }

    /// Plays up to tick `t` (clamped to [`MAX_TICKS`]); an earlier tick is replayed from
    /// the latest snapshot at or before it.
    pub fn go_to(&mut self, t: u32) {
        let t = t.min(MAX_TICKS);
        if t < self.tick() {
            self.rewind_to(t);
        }
        while self.tick() < t {
            self.advance();
        }
    }

    fn advance(&mut self) {
        self.run.advance();
        let t = self.tick();
        if t == self.scenario.ticks {
            self.demo_end = Some(self.run.model().summary());
        }
        if t.is_multiple_of(self.checkpoint_every)
            && self.checkpoints.last().is_none_or(|m| m.tick() < t)
        {
            self.checkpoints.push(self.run.model.clone());
            if self.checkpoints.len() > CHECKPOINTS_KEPT {
                self.checkpoint_every = self.checkpoint_every.saturating_mul(2);
                let every = self.checkpoint_every;
                self.checkpoints.retain(|m| m.tick() % every == 0);
            }
        }
    }

    /// How many snapshots the session holds (at most [`CHECKPOINTS_KEPT`]).
    pub fn snapshots(&self) -> usize {
        self.checkpoints.len()
    }

    /// Back to the latest snapshot at or before tick `t` (t = 0 when there is none).
    fn rewind_to(&mut self, t: u32) {
        match self.checkpoints.iter().rposition(|m| m.tick() <= t) {
            Some(i) => self.run.model = self.checkpoints[i].clone(),
            None => self.replay_from_start(),
        }
    }

    /// Goes back one tick by replaying to t - 1.
    pub fn step_back(&mut self) {
        let t = self.tick().saturating_sub(1);
        self.go_to(t);
    }

    /// Back to t = 0 with the same settings; the learner's changes are forgotten.
    pub fn reset(&mut self) {
        self.changes.clear();
        self.restart();
    }

    /// Replaces the learner's changes (e.g. from a link) and replays to tick `t`.
    pub fn restore(&mut self, mut changes: Vec<ScriptedChange>, t: u32) {
        ScriptedChange::sort_by_tick(&mut changes);
        self.changes = changes;
        self.restart();
        self.go_to(t);
    }

    /// Changes recommendations' behaviour from the next tick on. A behaviour that is not
    /// valid (a flaky share over 100 %, see [`Behaviour::validate`]) changes nothing.
    pub fn set_behaviour(&mut self, behaviour: Behaviour) {
        if behaviour.validate().is_err() {
            return;
        }
        self.change(ScriptedChange {
            at: self.tick() + 1,
            behaviour: Some(behaviour),
            protection: None,
        });
    }

    /// Changes the protection from the next tick on.
    pub fn set_protection(&mut self, protection: Protection) {
        self.change(ScriptedChange {
            at: self.tick() + 1,
            behaviour: None,
            protection: Some(protection),
        });
    }

    /// The behaviour and protection the next tick will use.
    pub fn selects(&self) -> (Behaviour, Protection) {
        self.run.next_selects()
    }

    /// The seed of the run's draws (which calls of a flaky service fail).
    pub fn seed(&self) -> u64 {
        self.scenario.seed
    }

    /// Plays the same run with another seed, up to the tick the learner is at.
    pub fn set_seed(&mut self, seed: u64) {
        if seed != self.scenario.seed {
            self.scenario.seed = seed;
            let t = self.tick();
            self.restart();
            self.go_to(t);
        }
    }

    /// The learner's run under each of the four protections, for the demo's length or up
    /// to the current tick if that is later: see [`Comparison`]. Building it is cheap;
    /// [`Comparison::run`] plays the rows.
    pub fn comparison(&self) -> Comparison {
        let ticks = self.scenario.ticks.max(self.tick());
        Comparison::new(&self.scenario, &self.changes, ticks)
    }

    /// Applies new breaker and bulkhead settings and keeps the learner's place: the run is
    /// replayed from t = 0 with the new settings, the demo's script and the learner's
    /// changes, up to the tick the learner was at. Returns that tick. Invalid settings are
    /// refused and leave the session as it was.
    pub fn apply_settings(
        &mut self,
        circuit_breaker: CircuitBreakerConfig,
        bulkhead: BulkheadConfig,
    ) -> Result<u32, ConfigError> {
        let mut scenario = self.scenario.clone();
        scenario.tick = TickConfig {
            circuit_breaker,
            bulkhead,
            ..scenario.tick
        };
        scenario.validate()?;
        // Built here rather than by `restart`, so a refusal leaves everything as it was.
        let mut played = scenario.clone();
        played.script.extend(self.changes.iter().cloned());
        let run = ScenarioRun::new(&played)?;
        let t = self.tick();
        self.scenario = scenario;
        self.run = run;
        self.forget_checkpoints();
        self.go_to(t);
        Ok(t)
    }

    /// Back to the demo as it was opened: its settings, selects and script, at t = 0.
    pub fn restore_original(&mut self) {
        self.scenario = self.original.clone();
        self.reset();
    }

    fn change(&mut self, change: ScriptedChange) {
        // A change rewrites the future: later changes of the learner's are dropped.
        self.changes
            .retain(|c| c.at < change.at || (c.at == change.at && !same_kind(c, &change)));
        // Snapshots from before the change still hold; later ones played another future.
        self.checkpoints.retain(|m| m.tick() < change.at);
        let at = change.at;
        self.changes.push(change);
        // The scenario's own script, then the learner's changes, in one order.
        let mut script = self.scenario.script.clone();
        script.extend(self.changes.iter().cloned());
        self.run.script = script;
        // A change from the next tick on leaves the run so far as it is.
        let t = self.tick();
        if t >= at {
            self.rewind_to(at - 1);
            self.go_to(t);
        }
    }

    /// A new run of the session's scenario and changes from t = 0, its snapshots gone
    /// (the settings or the seed changed).
    fn restart(&mut self) {
        self.forget_checkpoints();
        self.replay_from_start();
    }

    fn forget_checkpoints(&mut self) {
        self.checkpoints.clear();
        self.checkpoint_every = FIRST_CHECKPOINT_EVERY;
    }

    /// The run at t = 0 with the session's script, keeping the snapshots.
    fn replay_from_start(&mut self) {
        let mut scenario = self.scenario.clone();
        scenario.script.extend(self.changes.iter().cloned());
        // The scenario was validated when it became the session's, and the learner's
        // changes are typed values, so this cannot fail; keep the old run if it ever did.
        if let Ok(run) = ScenarioRun::new(&scenario) {
            self.run = run;
        }
    }
}

fn same_kind(a: &ScriptedChange, b: &ScriptedChange) -> bool {
    (a.behaviour.is_some() && b.behaviour.is_some())
        || (a.protection.is_some() && b.protection.is_some())
}
