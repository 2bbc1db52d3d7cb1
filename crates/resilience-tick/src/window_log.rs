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
//! rules rather than restating them; `WindowLog::entries` then lays the log over the
//! breaker's cells and hands each cell its outcome only if the two agree cell for cell.

use std::collections::VecDeque;

use serde::Serialize;

use resilience_policy::outcome::Outcome;
use resilience_policy::policy::circuit_breaker::{
    CircuitBreaker, CircuitBreakerEvent, State, WindowCell, WindowKind,
};
use resilience_policy::Millis;

/// One outcome in the breaker's window, oldest first, as [`CircuitBreaker::window_cells`]
/// lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct WindowEntry {
    /// What the breaker counted: a success or a failure, slow or not.
    pub cell: WindowCell,
    /// How the call it came from ended (a timeout, an HTTP 500, a BulkheadFullException...);
    /// `None` when the model cannot vouch for it (it always can in the tick model; see
    /// `WindowLog::entries`).
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
