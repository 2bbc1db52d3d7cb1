//! The worlds the course simulates. Each model owns its policies and advances only when
//! the caller asks, by a tick or a step of virtual time.

pub mod amplification;
pub mod boxoffice;
pub mod brownout;
pub mod checkout;
pub mod jitter;
pub mod retry_policies;
pub mod shared_pool;
pub use resilience_tick::{run_facts, summary, tick, window_log};

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::Millis;

/// Distinct seeded generators for the streams of a run (arrivals, work times, ...): the
/// same seed gives the same run, and one stream's draws never shift another's.
pub(crate) fn stream_rng(seed: u64, stream: u64) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// `ms` drawn uniformly within ± `percent` % of itself, at least 1 ms.
pub(crate) fn vary(ms: Millis, percent: Millis, rng: &mut Pcg64Mcg) -> Millis {
    let spread = ms * percent / 100;
    rng.random_range(ms - spread..=ms + spread).max(1)
}
