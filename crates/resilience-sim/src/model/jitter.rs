//! # Lab B: jitter prevents synchronized waves
//!
//! At t = 0, 1,000 clients send their request in the same instant (say a failover reset
//! every connection and all reconnect at once) to a server that serves 150 calls per
//! 100 ms slot. That first wave is the slot at t = 0, and it counts as calls like any
//! other: 150 are served and 850 are rejected. A rejected client backs off with exponential
//! backoff (base 1 s, multiplier 2) and calls again, until it is served.
//!
//! Without jitter every rejected client waits exactly the same, so the clients still
//! waiting come back together and each wave is 150 smaller than the one before: 1,000
//! calls at 0 s, 850 at 1 s (after a 1 s wait), 700 at 3 s (2 s), 550 at 7 s (4 s) and 400
//! at 15 s (8 s), each far above the capacity, with idle slots in between. Each wave
//! serves 150, so 250 clients are still waiting after the slot at 15 s (their next call
//! would come at 31 s), after 3,500 calls. Jitter (randomness in the wait, the core
//! [`Jitter`] modes) spreads each wave over many slots, so most calls find room and
//! everyone is served, with far fewer calls in all. With full jitter the 850 rejected at
//! t = 0 come back spread over the next second, about 85 per slot: 95 % of the clients are
//! served by about 1 s and 99 % by just under 2 s. The last few are the clients whose
//! short wait (under 100 ms) brought them back into the slot at 0, still full: rejected
//! again, they draw from a 2 s (then 4 s) backoff, so the very last client is usually
//! served between 2 and 4 s, depending on the seed (3.2 s with seed 1, after 1,939 calls).
//!
//! ## The model
//!
//! - Time is in whole milliseconds, grouped into slots of [`SLOT_MS`] (100 ms). The run
//!   covers the slots starting at 0, 100, ..., `durationMs` (151 slots for 15 s).
//! - Every client makes its first call at t = 0, in the slot at 0; it is attempt 1 and is
//!   counted as a call. A client whose attempt `k` was rejected waits
//!   [`Backoff::next_wait`]`(k, previous wait)` from the core, drawn from a seeded
//!   `Pcg64Mcg`, and calls again (attempt `k + 1`):
//!   - none: `backoff(k) = min(cap, base x multiplier^(k-1))`;
//!   - full: uniform in `[0, backoff(k)]`;
//!   - equal: `backoff(k) / 2` plus a uniform draw in the other half;
//!   - decorrelated: uniform in `[base, 3 x previous wait]` (the previous wait taken as at
//!     least `base`, so the first retry draws from `[base, 3 x base]`), capped.
//! - A slot serves at most `capacityPerSlot` calls. Calls are served in the order they
//!   arrive (by millisecond); calls arriving in the same millisecond (all the first calls,
//!   at t = 0) are ordered by a random key drawn from the same seeded generator when the
//!   call was scheduled. A call that finds the slot full is rejected at once, and its
//!   client backs off again (a rejected client whose next call falls in the same slot is
//!   rejected again: the slot is full).
//! - A client whose next call would come after the last slot is still waiting at the end.

use crate::number::number_text;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use crate::error::{check_range, ConfigError};
use crate::policy::retry::{Backoff, Jitter};
use crate::Millis;

/// The length of one slot.
pub const SLOT_MS: Millis = 100;
/// The most clients a run may simulate.
pub const MAX_CLIENTS: u32 = 5_000;
/// The longest run.
pub const MAX_DURATION_MS: Millis = 30_000;

/// Every control of Lab B; `Default` is the spec's page (no jitter selected).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct JitterConfig {
    /// Clients that all make their first call at t = 0 (1 to 5,000; default 1,000).
    pub clients: u32,
    /// Calls the server serves per 100 ms slot (1 to 100,000; default 150).
    pub capacity_per_slot: u32,
    /// The first backoff, and the floor of decorrelated jitter (100 ms to 60 s; default 1 s).
    pub base_ms: Millis,
    /// Growth per attempt (1 to 10; default 2; decorrelated jitter does not use it).
    pub multiplier: f64,
    /// The longest wait, if any (at least the base, at most 10 min).
    pub cap_ms: Option<Millis>,
    /// The jitter mode (default none); `mode` in JSON, links and the CLI.
    pub mode: Jitter,
    /// The start of the last slot (a multiple of 100 ms, up to 30 s; default 15 s).
    pub duration_ms: Millis,
    /// Seed of the jitter draws and of the order of simultaneous calls.
    pub seed: u64,
}

impl Default for JitterConfig {
    fn default() -> Self {
        Self {
            clients: 1_000,
            capacity_per_slot: 150,
            base_ms: 1_000,
            multiplier: 2.0,
            cap_ms: None,
            mode: Jitter::None,
            duration_ms: 15_000,
            seed: 1,
        }
    }
}

impl JitterConfig {
    /// Bounds that keep every run finite and fast, whatever a slider or flag says.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range(
            "clients",
            u64::from(self.clients),
            1,
            u64::from(MAX_CLIENTS),
        )?;
        check_range(
            "capacityPerSlot",
            u64::from(self.capacity_per_slot),
            1,
            100_000,
        )?;
        check_range("baseMs", self.base_ms, SLOT_MS, 60_000)?;
        if !self.multiplier.is_finite() || !(1.0..=10.0).contains(&self.multiplier) {
            return Err(ConfigError::new(
                "multiplier",
                format!(
                    "must be a number between 1 and 10 (got {})",
                    number_text(self.multiplier)
                ),
            ));
        }
        if let Some(cap) = self.cap_ms {
            check_range("capMs", cap, self.base_ms, 600_000)?;
        }
        check_range("durationMs", self.duration_ms, 0, MAX_DURATION_MS)?;
        if !self.duration_ms.is_multiple_of(SLOT_MS) {
            return Err(ConfigError::new(
                "durationMs",
                format!(
                    "must be a multiple of {SLOT_MS} ms (got {})",
                    self.duration_ms
                ),
            ));
        }
        self.backoff().validate()
    }

    /// The core backoff every client uses.
    pub fn backoff(&self) -> Backoff {
        Backoff {
            base: self.base_ms,
            multiplier: self.multiplier,
            cap: self.cap_ms,
            jitter: self.mode,
        }
    }

    /// Slots in the run: the ones starting at 0, 100, ..., `durationMs`.
    pub fn slot_count(&self) -> usize {
        (self.duration_ms / SLOT_MS) as usize + 1
    }
}

/// One 100 ms slot (counts, not rates).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct JitterSlot {
    /// The start of the slot.
    pub t_ms: Millis,
    /// Calls that arrived in the slot.
    pub calls: u32,
    /// Calls served (at most the capacity).
    pub served: u32,
    /// Calls rejected because the slot was full.
    pub rejected: u32,
    /// Clients not served yet at the end of the slot.
    pub waiting: u32,
}

/// A whole run: the two charts and the totals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JitterRun {
    /// The jitter mode of this run.
    pub mode: Jitter,
    pub clients: u32,
    pub capacity_per_slot: u32,
    pub slot_ms: Millis,
    pub slots: Vec<JitterSlot>,
    /// Calls the server had to absorb over the run.
    pub total_calls: u64,
    /// Clients served over the run.
    pub served: u32,
    /// Clients still not served after the last slot.
    pub waiting_at_end: u32,
    /// The start of the slot in which the last client was served, if all were.
    pub all_served_at_ms: Option<Millis>,
}

impl JitterRun {
    /// The start of the first slot by whose end at least `percent` % of the clients were
    /// served (the bulk of the clients, apart from a few stragglers refused twice).
    pub fn served_share_at_ms(&self, percent: u32) -> Option<Millis> {
        let clients = u64::from(self.clients);
        self.slots
            .iter()
            .find(|s| {
                (clients - u64::from(s.waiting)) * 100 >= clients * u64::from(percent.min(100))
            })
            .map(|s| s.t_ms)
    }
}

/// A scheduled call: (arrival ms, tie-break key, client).
type Call = Reverse<(Millis, u64, u32)>;

/// Runs the lab. Validates first; never panics.
pub fn run(config: &JitterConfig) -> Result<JitterRun, ConfigError> {
    config.validate()?;
    let backoff = config.backoff();
    let mut rng = Pcg64Mcg::seed_from_u64(config.seed);
    let slots = config.slot_count();
    let end_ms = slots as Millis * SLOT_MS;

    // Per client: the calls made so far (the one at t = 0 is attempt 1) and the wait
    // before the latest call (0 before the first retry).
    let clients = config.clients as usize;
    let mut attempts = vec![0_u32; clients];
    let mut previous_wait = vec![0 as Millis; clients];
    let mut queue: BinaryHeap<Call> = BinaryHeap::with_capacity(clients);

    // Every client's first call arrives at t = 0, in the slot at 0; a random key orders
    // these simultaneous calls.
    for client in 0..config.clients {
        queue.push(Reverse((0, rng.next_u64(), client)));
    }

    // After attempt `attempts[client]` was rejected at `rejected_at`: back off and call again.
    let retry = |client: usize,
                 rejected_at: Millis,
                 attempts: &[u32],
                 previous_wait: &mut [Millis],
                 rng: &mut Pcg64Mcg,
                 queue: &mut BinaryHeap<Call>| {
        let wait = backoff.next_wait(attempts[client], previous_wait[client], rng);
        previous_wait[client] = wait;
        let at = rejected_at.saturating_add(wait);
        let key = rng.next_u64();
        if at < end_ms {
            queue.push(Reverse((at, key, client as u32)));
        }
    };

    let mut waiting = config.clients;
    let mut rows = Vec::with_capacity(slots);
    let mut total_calls = 0_u64;
    let mut all_served_at_ms = None;
    for slot in 0..slots {
        let start = slot as Millis * SLOT_MS;
        let end = start + SLOT_MS;
        let (mut calls, mut served) = (0_u32, 0_u32);
        while let Some(Reverse((at, _, client))) = queue.peek().copied() {
            if at >= end {
                break;
            }
            queue.pop();
            calls += 1;
            let client = client as usize;
            attempts[client] = attempts[client].saturating_add(1);
            if served < config.capacity_per_slot {
                served += 1;
                waiting -= 1;
            } else {
                retry(
                    client,
                    at,
                    &attempts,
                    &mut previous_wait,
                    &mut rng,
                    &mut queue,
                );
            }
        }
        total_calls += u64::from(calls);
        if waiting == 0 && all_served_at_ms.is_none() && served > 0 {
            all_served_at_ms = Some(start);
        }
        rows.push(JitterSlot {
            t_ms: start,
            calls,
            served,
            rejected: calls - served,
            waiting,
        });
    }

    Ok(JitterRun {
        mode: config.mode,
        clients: config.clients,
        capacity_per_slot: config.capacity_per_slot,
        slot_ms: SLOT_MS,
        slots: rows,
        total_calls,
        served: config.clients - waiting,
        waiting_at_end: waiting,
        all_served_at_ms,
    })
}
