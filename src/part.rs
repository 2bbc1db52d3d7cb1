//! The course is loaded in parts. Each part is a binary of its own (`src/bin/*.rs`, one
//! wasm file each), so a demo opened alone or embedded downloads only the part it is in:
//! the tick demos share one, and each incident lab carries only its own engine.
//!
//! `assets/start.js` picks the part from the address (`?demo=N`, `?overview=1`, or none:
//! the front page's own small part) with the same table as [`Part::of`] (a test keeps the
//! two equal). Inside a part a demo link opens the demo in place; a link into another part
//! is a plain page load, whose files were prefetched when the link came into view or the
//! browser was idle (`assets/start.js`).
//! Rarely used tools (the Resilience4j writer and reader, the teacher notes, the embed
//! snippets) are a part of their own, loaded when a dialog opens ([`crate::tools`]).

use std::sync::OnceLock;

use resilience_sim::scenario::catalogue::{self, Lab};

use crate::course::landing::LANDING;

/// One binary of the course.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Demos 1-7, the tick model.
    TickDemos,
    /// Demo 8, retries that keep a system down (a rate model).
    Amplification,
    /// Demo 9, jitter against synchronized waves (a rate model).
    Jitter,
    /// Demo 10, the breaker sandbox.
    Sandbox,
    /// Demo 11, the shared pool.
    Pool,
    /// Demo 12, the pricing brownout.
    Brownout,
    /// Demo 13, payment and shipping.
    Checkout,
    /// Demo 14, the BoxOffice playground.
    BoxOffice,
    /// Demo 15, the retry policies real clients ship.
    RetryPolicies,
    /// The course's front page (the address without a demo): what the course teaches and
    /// its path, with none of the demos' engines.
    Landing,
    /// The teachers' overview page (`?overview=1`), and the tools every page loads on
    /// demand: the Resilience4j config writer and reader, the teacher notes, the snippets.
    CourseTools,
}

impl Part {
    pub const ALL: [Part; 11] = [
        Part::TickDemos,
        Part::Amplification,
        Part::Jitter,
        Part::Sandbox,
        Part::Pool,
        Part::Brownout,
        Part::Checkout,
        Part::BoxOffice,
        Part::RetryPolicies,
        Part::Landing,
        Part::CourseTools,
    ];

    /// The part that serves demo `number` (a number the course does not have opens Demo 1,
    /// a tick demo).
    pub fn of(number: u32) -> Part {
        match catalogue::lab(number).map(|l| l.lab) {
            None => Part::TickDemos,
            Some(Lab::Amplification) => Part::Amplification,
            Some(Lab::Jitter) => Part::Jitter,
            Some(Lab::Sandbox) => Part::Sandbox,
            Some(Lab::Pool) => Part::Pool,
            Some(Lab::Brownout) => Part::Brownout,
            Some(Lab::Checkout) => Part::Checkout,
            Some(Lab::BoxOffice) => Part::BoxOffice,
            Some(Lab::RetryPolicies) => Part::RetryPolicies,
        }
    }

    /// The binary's name: its wasm is `<bin>-<hash>_bg.wasm` in the bundle.
    pub const fn bin(self) -> &'static str {
        match self {
            Part::TickDemos => "tick-demos",
            Part::Amplification => "amplification",
            Part::Jitter => "jitter",
            Part::Sandbox => "sandbox",
            Part::Pool => "pool",
            Part::Brownout => "brownout",
            Part::Checkout => "checkout",
            Part::BoxOffice => "boxoffice",
            Part::RetryPolicies => "retry-policies",
            Part::Landing => "landing",
            Part::CourseTools => "course-tools",
        }
    }

    /// Whether this part shows demo `number` (the overview, page 0, is the tools' page;
    /// [`LANDING`], the front page's).
    pub fn serves(self, number: u32) -> bool {
        match number {
            0 => self == Part::CourseTools,
            LANDING => self == Part::Landing,
            _ => Part::of(number) == self,
        }
    }
}

static RUNNING: OnceLock<Part> = OnceLock::new();

/// Records which part this wasm is (each binary's `main`, once).
pub fn set_running(part: Part) {
    let _ = RUNNING.set(part);
}

/// The part this wasm is; the tick demos' for the library's own tests, which mount every
/// page in one wasm.
pub fn running() -> Option<Part> {
    RUNNING.get().copied()
}

/// Whether a link to demo `number` can open in place: this wasm has its page. The
/// library's browser tests mount every page in one wasm, so there every demo can.
pub fn opens_in_place(number: u32) -> bool {
    running().is_none_or(|part| part.serves(number))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_demo_is_in_exactly_one_part_and_the_tick_demos_share_one() {
        for (number, _) in catalogue::course() {
            let parts: Vec<Part> = Part::ALL.into_iter().filter(|p| p.serves(number)).collect();
            assert_eq!(parts.len(), 1, "demo {number}: {parts:?}");
        }
        for number in 1..=7 {
            assert_eq!(Part::of(number), Part::TickDemos);
        }
        assert_eq!(Part::of(8), Part::Amplification);
        assert_eq!(Part::of(9), Part::Jitter);
        assert_eq!(Part::of(12), Part::Brownout);
        assert_eq!(Part::of(13), Part::Checkout);
        assert!(Part::CourseTools.serves(0));
        let front: Vec<Part> = Part::ALL
            .into_iter()
            .filter(|p| p.serves(LANDING))
            .collect();
        assert_eq!(front, [Part::Landing]);
    }

    /// `assets/start.js` picks the part before any wasm runs: its table must be this one.
    #[test]
    fn start_js_picks_the_same_part_for_every_demo() {
        let start = include_str!("../assets/start.js");
        let table = start
            .split("const PART_OF_DEMO = {")
            .nth(1)
            .and_then(|rest| rest.split('}').next())
            .expect("start.js has its PART_OF_DEMO table");
        let mut read = Vec::new();
        for entry in table.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (number, bin) = entry.split_once(':').expect("number: 'bin'");
            let number: u32 = number.trim().parse().expect("a demo number");
            read.push((number, bin.trim().trim_matches('\'').to_string()));
        }
        let expected: Vec<(u32, String)> = catalogue::course()
            .map(|(n, _)| (n, Part::of(n).bin().to_string()))
            .collect();
        assert_eq!(read, expected);
        for part in Part::ALL {
            assert!(
                start.contains(&format!("'{}'", part.bin())),
                "{}",
                part.bin()
            );
        }
    }
}
