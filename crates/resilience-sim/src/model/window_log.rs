//! # Why each outcome in the breaker's window is what it is
//!
//! A circuit breaker's window keeps only what its rule needs: was the outcome a failure,
//! was it slow. Which exception made it a failure is gone once it is counted. But the
//! lesson of Demo 7 lives exactly there: with a bulkhead inside the breaker, the failures
//! that open it are mostly `BulkheadFullException`s (the bulkhead refusing calls at once),
//! not the slow service's timeouts. A learner who sees four red cells cannot tell.
//!
//! So the tick model keeps a log beside the breaker: every outcome the breaker records,
//! with the [`Outcome`] of the call it came from, cleared whenever the breaker starts a
//! fresh window (on entering any state but OPEN, which keeps the window that tripped it).
//! It is fed from the breaker's own events, in their order, so it follows the window's
//! rules rather than restating them; [`WindowLog::entries`] then lays the log over the
//! breaker's cells and hands each cell its outcome only if the two agree cell for cell.

use std::collections::VecDeque;

use serde::Serialize;

use crate::outcome::Outcome;
use crate::policy::circuit_breaker::{
    CircuitBreaker, CircuitBreakerEvent, State, WindowCell, WindowKind,
};
use crate::Millis;

/// One outcome in the breaker's window, oldest first, as [`CircuitBreaker::window_cells`]
/// lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct WindowEntry {
    /// What the breaker counted: a success or a failure, slow or not.
    pub cell: WindowCell,
    /// How the call it came from ended (a timeout, an HTTP 500, a BulkheadFullException...);
    /// `None` when the model cannot vouch for it (it always can in the tick model; see
    /// [`WindowLog::entries`]).
    pub outcome: Option<Outcome>,
}

#[derive(Debug, Clone, Copy)]
struct Logged {
    /// The whole second the outcome was recorded in (for TIME_BASED windows).
    second: u64,
    cell: WindowCell,
    outcome: Outcome,
}

/// A HALF_OPEN window that decided: its trial outcomes, oldest first, and the state they
/// sent the breaker to. When that state is CLOSED the breaker's window is fresh at once, so
/// this is the only place the deciding trials can still be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TrialVerdict {
    pub trials: Vec<WindowEntry>,
    pub to: State,
}

/// The outcomes recorded in the breaker's current window, with their calls' outcomes.
#[derive(Debug, Clone, Default)]
pub(crate) struct WindowLog {
    logged: VecDeque<Logged>,
    /// The HALF_OPEN windows that decided since [`WindowLog::start_tick`].
    verdicts: Vec<TrialVerdict>,
}

impl WindowLog {
    /// Reads one of the breaker's events, in order. `recorded` is the outcome of the call
    /// the model just reported, when the event is about it.
    pub fn observe(
        &mut self,
        event: &CircuitBreakerEvent,
        recorded: Option<Outcome>,
        breaker: &CircuitBreaker,
    ) {
        let (at, duration, failure) = match *event {
            CircuitBreakerEvent::Success { at, duration } => (at, duration, false),
            CircuitBreakerEvent::Error { at, duration, .. } => (at, duration, true),
            CircuitBreakerEvent::StateTransition { from, to, .. } => {
                if from == State::HalfOpen {
                    let trials = self
                        .logged
                        .iter()
                        .map(|l| WindowEntry {
                            cell: l.cell,
                            outcome: Some(l.outcome),
                        })
                        .collect();
                    self.verdicts.push(TrialVerdict { trials, to });
                }
                // Every state but OPEN starts a fresh window.
                if to != State::Open {
                    self.logged.clear();
                }
                return;
            }
            _ => return,
        };
        let Some(outcome) = recorded else { return };
        let slow = duration > breaker.config().slow_call_duration_threshold;
        self.logged.push_back(Logged {
            second: at / 1000,
            cell: WindowCell::new(failure, slow),
            outcome,
        });
        self.prune(breaker, at);
    }

    /// A new tick begins: the verdicts of the last one are forgotten.
    pub fn start_tick(&mut self) {
        self.verdicts.clear();
    }

    /// The HALF_OPEN windows that decided since the tick began, in order.
    pub fn verdicts(&self) -> &[TrialVerdict] {
        &self.verdicts
    }

    /// Keeps the log as short as the window: the last N outcomes, or the last N seconds.
    fn prune(&mut self, breaker: &CircuitBreaker, now: Millis) {
        match breaker.window_kind() {
            WindowKind::CountBased(n) => {
                while self.logged.len() > n as usize {
                    self.logged.pop_front();
                }
            }
            WindowKind::TimeBased(seconds) => {
                let second = now / 1000;
                while self
                    .logged
                    .front()
                    .is_some_and(|l| l.second + u64::from(seconds) <= second)
                {
                    self.logged.pop_front();
                }
            }
            WindowKind::Empty => self.logged.clear(),
        }
    }

    /// The breaker's window, oldest first, each cell with its call's outcome. The cells
    /// are always the breaker's; the outcomes are given only when the log matches them
    /// cell for cell (in a TIME_BASED window, second by second in the order the breaker
    /// lists a second's cells).
    pub fn entries(&self, breaker: &CircuitBreaker) -> Vec<WindowEntry> {
        let cells = breaker.window_cells();
        let mut ordered: Vec<&Logged> = Vec::with_capacity(cells.len());
        match breaker.window_kind() {
            WindowKind::CountBased(_) => {
                let skip = self.logged.len().saturating_sub(cells.len());
                ordered.extend(self.logged.iter().skip(skip));
            }
            WindowKind::TimeBased(_) => {
                // A second lists its successes, slow successes, failures, slow failures.
                const ORDER: [WindowCell; 4] = [
                    WindowCell::Success,
                    WindowCell::SlowSuccess,
                    WindowCell::Failure,
                    WindowCell::SlowFailure,
                ];
                for bucket in breaker.window_buckets() {
                    for kind in ORDER {
                        ordered.extend(
                            self.logged
                                .iter()
                                .filter(|l| l.second == bucket.epoch_second && l.cell == kind),
                        );
                    }
                }
            }
            WindowKind::Empty => {}
        }
        let agree =
            ordered.len() == cells.len() && ordered.iter().zip(&cells).all(|(l, c)| l.cell == *c);
        cells
            .iter()
            .enumerate()
            .map(|(i, &cell)| WindowEntry {
                cell,
                outcome: if agree {
                    Some(ordered[i].outcome)
                } else {
                    None
                },
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tick::{Behaviour, Protection, TickConfig, TickEvent, TickModel};
    use crate::policy::circuit_breaker::SlidingWindowType;
    use crate::scenario::catalogue;

    fn demo_at(demo: u32, t: u32) -> TickModel {
        let scenario = catalogue::demo(demo).unwrap().scenario();
        let mut run = crate::scenario::ScenarioRun::new(&scenario).unwrap();
        while run.model().tick() < t {
            run.step();
        }
        run.model().clone()
    }

    fn outcomes(model: &TickModel) -> Vec<Option<Outcome>> {
        model.window_entries().iter().map(|e| e.outcome).collect()
    }

    /// Demo 7: the bulkhead's refusals fill the window before the first timeout arrives,
    /// and the window that opened the breaker says so.
    #[test]
    fn demo_7s_window_tells_bulkhead_refusals_from_timeouts() {
        use Outcome::{BulkheadFull, ReadTimeout};
        let model = demo_at(7, 3);
        assert_eq!(outcomes(&model), [Some(BulkheadFull); 3]);
        let model = demo_at(7, 4);
        assert_eq!(model.breaker().unwrap().state(), State::Open);
        assert_eq!(
            outcomes(&model),
            [
                Some(BulkheadFull),
                Some(BulkheadFull),
                Some(ReadTimeout),
                Some(ReadTimeout)
            ]
        );
        assert!(model.window_entries().iter().all(|e| e.cell.is_failure()));
    }

    #[test]
    fn demo_1s_window_holds_the_errors() {
        let model = demo_at(1, 3);
        assert_eq!(outcomes(&model), [Some(Outcome::Http5xx); 4]);
    }

    /// Demo 2 at t = 6: OPEN -> HALF_OPEN -> CLOSED in one tick, each an event, with the
    /// two trials the breaker recorded between them; CLOSED starts an empty window.
    #[test]
    fn demo_2s_sixth_tick_reports_each_transition_with_the_trials_between() {
        let model = demo_at(2, 6);
        let path: Vec<String> = model
            .last_events()
            .iter()
            .filter_map(|e| match e {
                TickEvent::BreakerTransition { from, to } => {
                    Some(format!("{}>{}", from.as_str(), to.as_str()))
                }
                TickEvent::BreakerRecorded {
                    failure, outcome, ..
                } => Some(format!("{failure}:{outcome:?}")),
                _ => None,
            })
            .collect();
        assert_eq!(
            path,
            [
                "OPEN>HALF_OPEN",
                "false:Success",
                "false:Success",
                "HALF_OPEN>CLOSED"
            ]
        );
        assert!(model.window_entries().is_empty());
        let success = WindowEntry {
            cell: WindowCell::Success,
            outcome: Some(Outcome::Success),
        };
        assert_eq!(
            model.trial_verdicts(),
            [TrialVerdict {
                trials: vec![success, success],
                to: State::Closed
            }]
        );
        // Forgotten at the next tick.
        let model = demo_at(2, 7);
        assert!(model.trial_verdicts().is_empty());
    }

    /// Demo 3 at t = 7: the trials fail and the breaker opens again, keeping them in view.
    #[test]
    fn demo_3s_failed_trials_reopen_the_breaker() {
        let model = demo_at(3, 7);
        let failure = WindowEntry {
            cell: WindowCell::Failure,
            outcome: Some(Outcome::Http5xx),
        };
        assert_eq!(
            model.trial_verdicts(),
            [TrialVerdict {
                trials: vec![failure, failure],
                to: State::Open
            }]
        );
        assert_eq!(model.window_entries(), [failure, failure]);
    }

    /// Every demo, every protection, both window types: each cell of the breaker's window
    /// gets its call's outcome, and the outcome agrees with the cell.
    #[test]
    fn every_cell_gets_an_outcome_that_agrees_with_it() {
        for demo in catalogue::DEMOS.iter().filter(|d| d.number <= 7) {
            for protection in Protection::ALL {
                for window in [SlidingWindowType::CountBased, SlidingWindowType::TimeBased] {
                    let mut config = demo.scenario().tick;
                    config.protection = protection;
                    config.circuit_breaker.sliding_window_type = window;
                    let mut model = TickModel::new(config).unwrap();
                    for _ in 0..40 {
                        model.step();
                        let cells = model
                            .breaker()
                            .map(|b| b.window_cells())
                            .unwrap_or_default();
                        let entries = model.window_entries();
                        assert_eq!(entries.len(), cells.len());
                        for (entry, cell) in entries.iter().zip(&cells) {
                            assert_eq!(entry.cell, *cell);
                            let outcome = entry.outcome.expect("an outcome for every cell");
                            assert_eq!(cell.is_failure(), !outcome.is_success());
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn no_breaker_no_entries() {
        let mut model =
            TickModel::new(TickConfig::new(Behaviour::Slow, Protection::Bulkhead)).unwrap();
        for _ in 0..5 {
            model.step();
        }
        assert!(model.window_entries().is_empty());
    }
}
