//! Health checks: Kubernetes probes, with Kubernetes' consequences.
//!
//! A probe is asked every `periodMs`; after `failureThreshold` failures in a row it acts.
//! What it acts on is the point: a failing **liveness** probe restarts the container (the
//! replica is gone for its restart time, then its start-up time), a failing **readiness**
//! probe only takes the replica out of the balancer until it passes again, and the
//! **startup** probe holds the other two off until the app has started (it is not asked
//! again once it passed; failing it too often restarts the container too).
//!
//! And what a probe checks decides which failures it spreads. Checking the process asks
//! "is this JVM alive?"; checking the replica's own resources (a free request thread) asks
//! "can it take work?"; checking a dependency asks a question the replica cannot fix by
//! restarting, so while payment is down a liveness probe on payment restarts every replica,
//! and the pages that never call payment go down with them.

use super::topology::{ProbeCheck, ProbeSpec};

/// The three probes, in Kubernetes' names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeKind {
    Startup,
    Liveness,
    Readiness,
}

impl ProbeKind {
    pub const ALL: [ProbeKind; 3] = [
        ProbeKind::Startup,
        ProbeKind::Liveness,
        ProbeKind::Readiness,
    ];

    pub fn index(self) -> usize {
        self as usize
    }
}

/// What a probe result leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consequence {
    Nothing,
    /// The startup probe passed: liveness and readiness begin.
    Started,
    /// Kill the container (liveness, or startup out of attempts).
    Restart,
    NotReady,
    Ready,
}

/// One replica's probes.
#[derive(Debug, Clone)]
pub struct Probes {
    pub specs: [Option<ProbeSpec>; 3],
    failures: [u32; 3],
    /// The startup probe passed (or there is none).
    pub started: bool,
    /// Each probe's latest result since the container started (none: not asked yet).
    pub last: [Option<bool>; 3],
}

impl Probes {
    pub fn new(specs: [Option<ProbeSpec>; 3]) -> Self {
        let started = specs[0].is_none();
        Self {
            specs,
            failures: [0; 3],
            started,
            last: [None; 3],
        }
    }

    /// A fresh container: counts start again.
    pub fn restart(&mut self) {
        self.failures = [0; 3];
        self.started = self.specs[0].is_none();
        self.last = [None; 3];
    }

    pub fn spec(&self, kind: ProbeKind) -> Option<&ProbeSpec> {
        self.specs[kind.index()].as_ref()
    }

    pub fn check_of(&self, kind: ProbeKind) -> Option<ProbeCheck> {
        self.spec(kind).map(|s| s.check)
    }

    /// Whether `kind` is asked now (Kubernetes gates liveness and readiness on startup).
    pub fn active(&self, kind: ProbeKind) -> bool {
        match kind {
            ProbeKind::Startup => !self.started,
            _ => self.started,
        }
    }

    /// Records one result and says what follows.
    pub fn result(&mut self, kind: ProbeKind, passed: bool) -> Consequence {
        let i = kind.index();
        self.last[i] = Some(passed);
        let threshold = self.specs[i].as_ref().map_or(1, |s| s.failure_threshold);
        if passed {
            self.failures[i] = 0;
            return match kind {
                ProbeKind::Startup => {
                    self.started = true;
                    Consequence::Started
                }
                ProbeKind::Readiness => Consequence::Ready,
                ProbeKind::Liveness => Consequence::Nothing,
            };
        }
        self.failures[i] += 1;
        if self.failures[i] < threshold {
            return Consequence::Nothing;
        }
        match kind {
            ProbeKind::Startup | ProbeKind::Liveness => Consequence::Restart,
            ProbeKind::Readiness => Consequence::NotReady,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(failure_threshold: u32) -> Option<ProbeSpec> {
        Some(ProbeSpec {
            period_ms: 10_000,
            failure_threshold,
            check: ProbeCheck::Process,
            dependency: None,
            timeout_ms: 1_000,
        })
    }

    #[test]
    fn startup_gates_the_others_and_is_not_asked_again() {
        let mut p = Probes::new([spec(30), spec(3), spec(2)]);
        assert!(p.active(ProbeKind::Startup) && !p.active(ProbeKind::Liveness));
        assert_eq!(p.result(ProbeKind::Startup, false), Consequence::Nothing);
        assert_eq!(p.result(ProbeKind::Startup, true), Consequence::Started);
        assert!(!p.active(ProbeKind::Startup));
        assert!(p.active(ProbeKind::Liveness) && p.active(ProbeKind::Readiness));
        p.restart();
        assert!(p.active(ProbeKind::Startup) && !p.active(ProbeKind::Readiness));
    }

    #[test]
    fn liveness_restarts_after_its_threshold_readiness_only_removes() {
        let mut p = Probes::new([None, spec(3), spec(2)]);
        assert!(p.started, "no startup probe: the others run at once");
        assert_eq!(p.result(ProbeKind::Liveness, false), Consequence::Nothing);
        assert_eq!(p.result(ProbeKind::Liveness, false), Consequence::Nothing);
        assert_eq!(p.result(ProbeKind::Liveness, false), Consequence::Restart);
        assert_eq!(p.result(ProbeKind::Readiness, false), Consequence::Nothing);
        assert_eq!(p.result(ProbeKind::Readiness, false), Consequence::NotReady);
        assert_eq!(p.result(ProbeKind::Readiness, true), Consequence::Ready);
        // A pass resets the count: two more failures are not enough.
        assert_eq!(p.result(ProbeKind::Liveness, true), Consequence::Nothing);
        assert_eq!(p.result(ProbeKind::Liveness, false), Consequence::Nothing);
        assert_eq!(p.result(ProbeKind::Liveness, false), Consequence::Nothing);
    }
}
